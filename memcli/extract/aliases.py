"""Names a writer puts beside a ticket id: "the auth refactor (AUTH-212)", "**QA-57 ·
Login regression suite**", "[PAY-12] Invoice search". Pure.

People call one piece of work by its ticket in one update and by what it is in the
next, so its facts land on two entities and the work waiting on it splits between two
blockers. When a writer sets the two side by side, the text itself says they are one:
ingest keeps each such pair with its update, and analyze merges the two entities
(``memcli.identity.stated_merges``), recorded and reversible like any merge.

Only three shapes are read, all common in trackers, minutes and standups: a name
followed by its ticket in parentheses, a ticket followed by its name in parentheses
("#512 (retry jitter)"), and a title line that starts with the ticket. A name is
the noun phrase just before the parenthesis (back to an article, a possessive, a
preposition or a clause break), or the whole label when the pair opens a line and is
followed by a colon, a dash or nothing ("- Postgres 16 on staging (INFRA-77): ..."). A
phrase that does not look like a name (a verb particle, one generic word, a clause of
more than six words) gives nothing: a wrong pair would fuse two pieces of work.
"""

from __future__ import annotations

import re

from memcli.resolve import TICKET

# "(AUTH-212)", also with more after a comma: "(WMS-2210, PR #391 on a branch)".
_PAREN = re.compile(rf"\(\s*({TICKET})\s*(?:[,;][^()]*)?\)")
# After a "(TICKET)" that ends a label: markup, then a colon, a dash, or the line's end.
_LABEL_END = re.compile(r"[*_`]*\s*(?::|\s[-\u2013\u2014]\s|[\u2013\u2014]|$)")
# What may open a line before its label: bullets, numbering, checkboxes, markup, emoji.
_LINE_OPEN = re.compile(r"^\s*(?:[>*_`#+\-\u2022]+\s*|\d+[.)]\s+|\[[ xX]?\]\s*)*")
# Title lines: "QA-57 · Login suite", "[PAY-12] Invoice search", "## WEB-3: New page".
_TITLE = re.compile(
    rf"^[\s>*_`#\-\u2022]*(?:\[({TICKET})\]\s*|({TICKET})[*_`]*\s*([\u00b7|\u2013\u2014:])\s*)"
    r"[*_`]*([^*_`\n]+?)[*_`]*\s*(?:$|\s[-\u2013\u2014]\s|[\u2013\u2014(])"
)
# The other order: "CORE-11 (dark mode toggle)", "#512 (retry jitter)". A ticket starts
# where a word does (or at its "#"): tried inside a long run of word characters (a
# pasted image's base64), each start would scan the rest of the run for an "owner/repo".
_TICKET_THEN_NAME = re.compile(rf"(?:(?<![\w.-])|(?=#))({TICKET})\s*\(\s*([^()\n]{{3,60}}?)\s*\)")
_ID = re.compile(TICKET)
_WORD = re.compile(r"[\w][\w'\u2019&+./-]*")

# Words a name does not run back over: articles and other determiners, pronouns,
# prepositions, conjunctions, auxiliaries and clause adverbs.
_STOP = frozenset(
    """
    the a an our their this that these those my your his her its some any every each no
    for on in at with to of from by about into onto over under behind after before until
    via per as than and or but so because since while if when then once
    i we you they he she it me us them who which what
    is are was were be been being has have had do does did will would can could should
    shall may might must not still now just also only today tomorrow yesterday again
    currently already finally off up out down back away there here re first too yet
    either instead anyway please teh
    """.split()
)
# Words no name holds, not even a label: pronouns, auxiliaries, negation.
_CLAUSE = frozenset(
    """
    i we you they he she it me us them is are was were be been being has have had do
    does did will would can could should shall may might must not
    """.split()
)
# Verbs that open a phrase about the work rather than name it ("Started app login flow").
_LEADING_VERBS = frozenset(
    """
    start started starting begin began begun beginning finish finished finishing
    complete completed completing continue continued continuing resume resumed resuming
    review reviewed reviewing pick picked picking wrap wrapped wrapping ship shipped
    shipping merge merged merging land landed landing close closed closing open opened
    opening take took taking taken doing did done working worked kick kicked kicking
    carry carried carrying wire wired wiring push pushed pushing need needs needed
    """.split()
)
# One word alone is a name only if it is not one of these.
_GENERIC = frozenset(
    """
    branch ticket issue pr bug fix change task work thing stuff item story epic one part
    page job work project feature card patch commit release build test tests item piece
    follow followup follow-up comment spec doc docs plan draft
    """.split()
)
_MAX_WORDS = 6
# How far before a "(TICKET)" a name may start: enough for six long words, and a bound
# that keeps a long line with many tickets linear.
_REACH = 160
# Labels that introduce the work rather than name it: "Status on the Windows installer".
_LABEL_NOUNS = frozenset("status update updates progress news notes note re".split())
# Before "for" or "of", a word that makes the phrase after it an argument ("waiting for
# the auth refactor (AUTH-212)", "in charge of ..."); after any other word the ticket
# may belong to the whole phrase ("the firmware update for the picking arms (ROB-77)"),
# so nothing is read.
_ARGUMENT_HEADS = frozenset(
    """
    wait waits ready responsible ask asks need needs account accounts push pushes
    charge owner owners care hold look looks
    """.split()
)


def _name_words(words: list[str], *, label: bool = False) -> list[str] | None:
    """The words of a name, or None when they do not look like one. A ``label`` may
    hold a preposition or an article ("Postgres 16 on staging"), never a clause."""
    while words and words[0].lower() in _LEADING_VERBS:
        words = words[1:]
    if not words or len(words) > _MAX_WORDS:
        return None
    if len(words) == 1 and (words[0].lower() in _GENERIC or len(words[0]) < 3):
        return None
    inner = _CLAUSE if label else _STOP
    if any(w.lower() in inner or w.lower() in _LEADING_VERBS for w in words[1:]):
        return None
    if any("'" in w or "\u2019" in w for w in words):  # "I'm handing ...", "Dev's"
        return None
    last = words[-1].lower()
    if last.endswith("ed") and not last.endswith("eed") and len(last) > 4:
        return None  # "... is fixed (NET-90)": the ticket follows a clause, not a name
    return words


def _subject(word: str) -> bool:
    """A pronoun, auxiliary or contraction ("I'm", "we're"): what follows it is a
    clause. A capitalised possessive ("Dev's") is not one."""
    low = word.lower()
    if low in _CLAUSE:
        return True
    if "'" in low or "\u2019" in low:
        return not (word[:1].isupper() and low.endswith(("'s", "\u2019s")) and low != "it's")
    return False


def _back_to_break(before: str) -> list[str] | None:
    """The noun phrase that ends ``before``: words back to a stop word, a possessive or
    a clause break."""
    clause = re.split(r"[,;:.!?()\[\]\"\u201c\u201d\u2013\u2014]|\s-\s", before)[-1]
    words = _WORD.findall(clause)
    if len(words) != len(clause.split()):  # something other than words (emoji, markup)
        tail = clause.split()
        while tail and _WORD.fullmatch(tail[-1].strip("*_`")):
            tail.pop()
        words = _WORD.findall(" ".join(clause.split()[len(tail) :]))
    name: list[str] = []
    at = len(words)
    while at:
        low = words[at - 1].lower()
        if low in _STOP or "'" in low or "\u2019" in low:  # a possessive, "I'm", "it's"
            break
        name.append(words[at - 1])
        at -= 1
        if len(name) > _MAX_WORDS:
            return None
    name.reverse()
    if at and _subject(words[at - 1]):
        return None  # "the onboarding I'm running (EDI-138)": a clause, not a name
    # "for the X (T)" / "of the X (T)": X names the ticket only after a verb-like word.
    while at and words[at - 1].lower() in _STOP - {"for", "of"}:
        at -= 1
    if at >= 2 and words[at - 1].lower() in ("for", "of"):
        head = words[at - 2].lower()
        if head not in _ARGUMENT_HEADS and not head.endswith(("ing", "ed")):
            return None
    return _name_words(name)


def _label(line: str, start: int, end: int) -> list[str] | None:
    """The whole label when "(TICKET)" at ``start``-``end`` closes one that opens the
    line: "- **Postgres 16 on staging (INFRA-77)** - Hannah"."""
    if start > _REACH or not _LABEL_END.match(line, end):
        return None  # a label opens its line and is short
    opened = _LINE_OPEN.match(line, 0, start)
    head = line[opened.end() if opened else 0 : start].strip(" *_`")
    words = head.split()
    if not words or not all(_WORD.fullmatch(w) for w in words):
        return None
    if words[0].lower() in _STOP or words[0][:1].islower():
        return None
    if words[0].lower() in _LABEL_NOUNS:
        return None
    return _name_words(words, label=True)


def stated_names(text: str) -> list[tuple[str, str]]:
    """(ticket, name) pairs the text sets side by side, in order, each once.

    >>> stated_names("Today: carrying on with the auth refactor (AUTH-212). Next up ...")
    [('AUTH-212', 'auth refactor')]
    >>> stated_names("**QA-57 · Login regression suite** — comment by Jonas Berg")
    [('QA-57', 'Login regression suite')]
    >>> stated_names("the query side got signed off (PAY-303)")
    []
    """
    if "(" not in text and "-" not in text and "#" not in text:
        return []
    out: dict[tuple[str, str], None] = {}
    for line in text.splitlines():
        title = _TITLE.match(line)
        if title:
            ticket = title.group(1) or title.group(2)
            sep = title.group(3)
            words = title.group(4).split()
            # "PAY-3: still parked" is a status line; a colon makes a title only in a
            # heading or a bold span.
            headed = line.lstrip().startswith(("#", "*", "[")) or sep != ":"
            if headed and words and words[0].lower() not in _STOP:
                found = _name_words(words)
                if found and not any(w.lower() in _STOP for w in found):
                    out[(ticket, " ".join(found))] = None
        if "(" not in line:
            continue
        for m in _TICKET_THEN_NAME.finditer(line):
            words = m.group(2).split()
            while words and words[0].lower() in ("the", "a", "an", "our", "its"):
                words = words[1:]
            if all(w[:1].isupper() for w in words) and len(words) <= 3:
                continue  # "AUTH-212 (Dev)", "(Priya Nair)": its owner, not its name
            if all(_WORD.fullmatch(w) for w in words) and (found := _name_words(words)):
                out[(m.group(1), " ".join(found))] = None
        for m in _PAREN.finditer(line):
            before = line[max(0, m.start() - _REACH) : m.start()]
            words = _label(line, m.start(), m.end()) or _back_to_break(before)
            if words:
                out[(m.group(1), " ".join(words))] = None
    # "PAY-31 (PAY-30)", "- QA-58 · QA-57 follow-up": two tickets side by side are
    # related work (a parent, a duplicate, a blocker), never one name for the other.
    return [(t, name) for t, name in out if not any(map(_ID.fullmatch, name.split()))]
