"""The reader: sentences -> clauses -> frames -> facts, with a trace per sentence.

``extract`` walks an update sentence by sentence (``text.sentence_lines``), with the
minutes roster (``context.Minutes``) deciding who speaks on each line. A sentence with
no word of any frame is skipped after one set test, before it is even normalised. The
compositional core (``core.read_core``) reads the rest. Standup sections ("Today: X", "Blockers: none") and action items are handled here. Rule 1 (the
author owns what they report blocked unless someone else is named) is applied at the
end, over the whole update.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memcli.extract.context import Minutes, _Draft, _key, _Outcome, _Reader
from memcli.extract.core import (
    _NOT_ITEM_LABELS,
    _ROLE_LABELS,
    _STATUS_VALUES,
    _TRIGGERS,
    _WORK_GERUNDS,
    ACTIVITY_OPENER,
    action_assignee,
    core_cues,
    possessive_owners,
    pronoun_possessive_owners,
    read_action,
    read_core,
    tokenise,
)
from memcli.extract.factuality import why_not
from memcli.extract.lexicon import TYPOS, has_cue, lower_words
from memcli.extract.phrases import _agent_shaped, _name_like
from memcli.extract.text import _normalise, addressee, sentence_lines, status_emoji
from memcli.models import (
    EntityRef,
    EntityType,
    ExtractedFact,
    Extraction,
    Relation,
    SentenceTrace,
)

_WORDS = re.compile(r"[a-z]+")


# Standup section labels, inline ("Today: X") or as a heading over bullets.
_SECTION = re.compile(
    r"\A[*_]*(?P<label>yesterday|yestrday|yday|y|today|t|doing|now|next|wip|in progress"
    r"|this week|done|b|blockers?|blocked)[*_]*\s*:[*_]*\s*(?P<rest>.+)",
    re.IGNORECASE,
)
_DOING = frozenset("today t doing now next wip in progress this week".split()) | {
    "in progress",
    "this week",
}
_BLOCKERS = frozenset("b blockers blocker blocked".split())
_DONE_HEADS = frozenset("done shipped completed finished merged released".split())
_NONE = re.compile(
    r"\A(?:none|nope|nothing|no|n/?a|-+|—|–|none (?:rly|really|atm|today|for now)|all clear"
    r"|no blockers?|nothing (?:new|blocking))[.!]*\Z",
    re.IGNORECASE,
)
_NONE_BUT = re.compile(
    r"(?:none|nope|nothing|no blockers?)\s*[,;:—–-]+\s*(?:but\s+|though\s+)?(?P<rest>\S.+)",
    re.IGNORECASE,
)


# Routine work a "Today:" line can name without naming a work item: "back to regular
# stuff", "catching up on email", "inbox zero attempt #4".
_VAGUE_WORK = frozenset(
    """stuff things misc admin email emails inbox slack housekeeping paperwork chores errands
    regular usual normal catchup catch triage try interviews interview meetings hiring
    1:1s 1:1 one-on-ones""".split()
)
_ROUTINE_GLUE = frozenset(
    """back to on up the a an my some with catching doing going through clearing zero attempt
    more of and all usual my""".split()
)


def _section(label: str | None) -> str | None:
    """ "doing", "blockers" or "done" for a section label, None for anything else."""
    if label is None:
        return None
    low = label.lower()
    if low == "next":
        return None  # "Next: on-call prep" is a plan, not work in hand
    if low in _DOING:
        return "doing"
    if low in _BLOCKERS:
        return "blockers"
    if low in ("yesterday", "yestrday", "yday", "y", "done", "shipped", "completed", "last week"):
        return "done"
    return None


def _read_line(
    reader: _Reader, sentence: str, heading: str | None
) -> tuple[list[_Outcome], str | None]:
    """Read a sentence in its section: "Today: X" means the author works on X."""
    section = _section(heading)
    text = sentence
    if ":" in sentence and (m := _SECTION.match(sentence)):  # the label needs its colon
        section, text = _section(m["label"]) or section, m["rest"].strip()
    if section == "blockers" and _NONE.match(text.strip(" *_")):
        return [], "states that nothing blocks"
    if section == "blockers" and (rest := _NONE_BUT.match(text)) is not None:
        return _read_sentence(reader, sentence, rest["rest"])  # "none, X got fixed so ..."
    outcomes, reason = _read_sentence(reader, sentence)
    if not outcomes and (progress := _in_progress(reader, sentence)) is not None:
        return [progress], None
    shipped = (  # a bare item under a "Done" / "Shipped" heading line
        text is sentence and heading is not None and heading.strip("*_: ").lower() in _DONE_HEADS
    )
    if outcomes or text is sentence and section != "doing" and not shipped:
        return outcomes, reason
    if text is not sentence:
        if section == "blockers" and not has_cue(text):
            text = f"blocked on {text}"
        outcomes, reason = _read_sentence(reader, sentence, text)
    if outcomes or (section != "doing" and not shipped):
        return outcomes, reason
    plain = ACTIVITY_OPENER.sub("", _normalise(text), count=1)
    if any(t.cls in _TRIGGERS for t in tokenise(plain)) or why_not(plain.lower()):
        return outcomes, reason  # "waiting on X" is not an item; "X work" is
    if "," in plain and (tail := _PROGRESS_TAIL.search(plain)) is not None:
        plain = plain[: tail.start()]  # "winch bump, 2 of 5 cranes": how far along it is
    if len(plain.split()) > 8 or "," in plain:
        return outcomes, reason
    if set(_WORDS.findall(plain.lower())) - _ROUTINE_GLUE <= _VAGUE_WORK:
        return outcomes, "no work item named (routine work)"
    out = reader.completed(None, plain) if shipped else reader.owns(None, plain)
    if out is None or not out.drafts:
        return outcomes, reason
    out.frame = "section-done" if shipped else "section-doing"
    if not shipped and plain == _normalise(text):  # "profiling X" is an activity on X
        _doing_now(reader, out)
    reader.commit(out, plain)
    return [out], None


# How far along work in hand is: "3 of 5 done", "about 70%", "rest tomorrow", "PR up".
_PROGRESS = (
    r"(?:(?:about|around|roughly|~)\s*)?\d+\s*(?:%|of\s+\d+\b)|(?:about\s+)?(?:a|one)\s+"
    r"(?:third|quarter|half)\s+done|half\s*done|halfway|wip|in progress|started|underway"
    r"|pr\s+(?:is\s+)?up\b|rest\s+(?:tmrw|tomorrow|next)|still digging"
)
_PROGRESS_TAIL = re.compile(rf",\s*(?i:{_PROGRESS})")
# "- tide overlay: wip", "- signage edits: 4 of 7 done, rest tmrw", "- ticket widget: PR
# up (#51)": an item then only how far along it is, which is the writer's work in hand
_PROGRESS_LINE = re.compile(
    rf"[-*•\s]*(?P<item>[^:—–]{{3,60}}?)\s*(?::|—|–|\s-)\s*(?:still\s+)?(?i:{_PROGRESS})"
    r"(?:\s+[a-z]+)?(?:\s+(?:done|[a-z]+ed))?\s*(?:[,;.(!]|\Z)"
)


def _in_progress(reader: _Reader, sentence: str) -> _Outcome | None:
    """An item with only its progress after it: the writer (or speaker) works on it."""
    if (m := _PROGRESS_LINE.match(sentence)) is None:
        return None
    item = m["item"].strip()
    words = item.split()
    if (
        len(words) < 2  # "Status: in progress", "kai: PR is up": a label or a speaker
        or _SECTION.match(f"{item}: x") is not None
        or words[0].lower() in _NOT_ASSIGNEES
        or has_cue(item.lower())
    ):
        return None
    out = reader.owns(None, _normalise(item))
    if out is None or not out.drafts:
        return None
    out.frame = "item-in-progress"
    reader.commit(out, sentence)
    return out


def _doing_now(reader: _Reader, out: _Outcome) -> None:
    """ "Today: X" / "WIP: X" names the one item the author works on now: a later
    subjectless wait ("still waiting on Y") is X's, as the topic a blocked item makes."""
    owned = [d.target for d in out.drafts if d.relation is Relation.OWNS]
    if len(owned) == 1 and reader.author_ref is not None:
        out.current.append((reader.self_key, owned[0]))


# A question about what holds up some work: "what's holding the 4.2 release?", "what is
# the export still waiting on?". The next line's answer lists the blockers.
_ASKED_WAIT = re.compile(
    r"\b(?i:what)(?:'s|’s|\s+is|\s+are)\s+(?:(?:still|currently)\s+)?(?:"
    r"(?:holding|blocking|gating|holding back|stalling)\s+(?:up\s+)?(?P<x>[^?]{1,80}?)"
    r"(?:\s+up)?"
    r"|(?P<y>[^?]{1,80}?)\s+(?:still\s+)?(?:waiting on|waiting for|blocked on|blocked by"
    r"|stuck on|stuck behind|held up by|sitting behind)"
    r")\s*\?"
)
_SPEAKER = re.compile(r"@?[\w.-]{1,24}:\s+")


def _answer_to_wait(reader: _Reader, sentence: str, asked: tuple[str, int]) -> _Outcome | None:
    """The answer to a question about what holds up X: "omar: the crash fix, the privacy
    manifest and QA sign-off" lists X's blockers (an answer with a verb is read as usual)."""
    answer = sentence
    if (speaker := _SPEAKER.match(answer)) is not None:
        answer = answer[speaker.end() :]
    answer = _normalise(answer)
    toks = tokenise(answer) if answer else []
    if not toks or any(t.cls not in "n&p|" for t in toks) or toks[0].low in _NOT_ANSWERS:
        return None
    out = reader.blocked(asked[0], answer)
    if out is None or not out.drafts:
        return None
    out.frame = "answer-to-what-holds-x"
    out.drafts = [  # the writer asked about the work: that makes it nobody's
        d for d in out.drafts if not (d.relation is Relation.OWNS and d.tentative)
    ]
    reader.commit(out, answer)
    return out


# A question for who holds some work: "who's got the X?", "who has X?", "anyone free for
# X?", "can someone take X?"; after one, "and the Y?" asks the same of Y.
_ASKED_OWNER = re.compile(
    r"\b(?i:who)(?:'s|’s|\s+is|\s+has|\s+have)?\s+(?:(?:got|on|owns|owning|taking|handling"
    r"|doing|running|driving|free for|up for)\s+)?(?P<x>[^?]{2,80}?)\s*\?"
    r"|\b(?i:anyone|anybody|someone|somebody)\s+(?:(?:free|around|available|have cycles"
    r"|got time|able)\s+(?:for|to (?:take|grab|look at|pick up))"
    r"|(?:(?:can|could|want to|wants to)\s+)?(?:take|grab|look at|pick up))"
    r"\s+(?P<y>[^?]{2,80}?)\s*\?"
)
_ASKED_AGAIN = re.compile(
    r"(?:\A|,\s*|\s)(?i:and|what about|how about)\s+(?P<x>[^?]{2,60}?)\s*\?\Z"
)
# The answer that takes it: "mine", "that's mine", "on it", "I'll take it", "me".
_TAKEN = re.compile(
    r"(?i:(?:(?:yes|yep|yeah|sure|ok|okay|cool|also|still|all|that's|thats|that is"
    r"|that one's|that one is|it's|its)\b[\s,!]*)*"
    r"(?:mine|me|on it|i'm on it|im on it|i've got it|ive got it|i got it|i have it"
    r"|i'll (?:take|grab|do|handle|own) (?:it|that|this)|i can (?:take|grab|do) (?:it|that|this)))"
    r"(?:\W.*)?\Z"
)
_NAMED = re.compile(r"@?(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)(?:\s+(?:has it|does))?[.!]?")


# A yes/no question whether some work is the addressee's: "@odile that one's yours
# right?", "is the crane permit yours?"; a "yes" answers it.
_ASKED_YOURS = re.compile(
    r"(?:\A|[:,]\s*|\s)(?:@[\w.-]+\s+)*(?:(?i:is)\s+)?(?P<x>[^?:,@]{2,60}?)"
    r"(?:['’]s\s+|\s+is\s+|\s+are\s+|\s+)yours(?:[\s,]+(?i:right|yeah|correct|no))?\s*\?\s*\Z"
)
_YES = re.compile(r"(?i:yes|yep|yup|yeah|ya|yea|correct|sure|right)\b")


def _asked_owner(sentence: str, last: str | None) -> str | None:
    """The work a question asks the holder of ("who's got the X?"), or None."""
    if (m := _ASKED_OWNER.search(sentence)) is not None:
        return m["x"] or m["y"]
    if "yours" in sentence and (m := _ASKED_YOURS.search(sentence)) is not None:
        return f"{_YOURS_MARK}{m['x']}"
    if last is not None and (m := _ASKED_AGAIN.search(sentence)) is not None:
        return m["x"]  # "and the Y?" after "who has X?"
    return None


def _answer_to_owner(reader: _Reader, sentence: str, said: str, asked: str) -> _Outcome | None:
    """The answer to "who's got X?" on the next line, said by a speaker: "mine", "on it"
    (the speaker holds X) or a person's name alone ("Odile")."""
    answer = said.strip()
    reader.sentence = sentence
    if asked.startswith(_YOURS_MARK):  # "X is yours?": "yep" says it is
        if _YES.match(answer) is None:
            return None
        out = reader.owns(None, asked[len(_YOURS_MARK) :])
    elif _TAKEN.fullmatch(answer):
        out = reader.owns(None, asked)
    elif (m := _NAMED.fullmatch(answer)) is not None and _name_like(m["who"].split()[0]):
        out = reader.owns(m["who"], asked)
    else:
        return None
    if out is None or not out.drafts:
        return None
    out.frame = "answer-to-who-holds-x"
    reader.commit(out, answer)
    return out


_YOURS_MARK = "\x00"  # an asked work's mark: the question was "is X yours?"
_NOT_ANSWERS = frozenset("no nope nothing none idk dunno not yes yeah yep ok okay".split())


def _read_sentence(
    reader: _Reader, sentence: str, text: str | None = None
) -> tuple[list[_Outcome], str | None]:
    """Read one sentence: whole first, then relative or compound clauses as a fallback.

    ``text`` is what to read when it differs from the sentence the facts cite. Returns
    the outcomes and, when there are none, why (``None`` when a frame read it).
    """
    if sentence.rstrip().endswith("?"):
        return [], "question"
    reader.sentence = sentence
    if "@" in sentence:
        reader.addressee = addressee(sentence) or reader.addressee
    if (
        text is None
        and ("you" in sentence or "ball" in sentence)
        and (turns := _your_turn(reader, sentence))
    ):
        return turns, None
    raw = (sentence if text is None else text).lower()
    words = lower_words(sentence if text is None else text)  # the letter runs of raw
    if not _NO_OWNER_WORDS.isdisjoint(words):
        reader.says_unowned = True  # looked at once the update is read ("needs an owner")
    if (
        _cues().isdisjoint(words)
        and "'s" not in raw  # a possessive may name an owner ("X is Priya's")
        and "’s" not in raw
        and not status_emoji(raw)
        and not _paired_cue(words)
    ):
        if not any(w in TYPOS for w in words) and not _owner_line(
            sentence if text is None else text
        ):
            return [], "no predicate"  # no word of any frame: not worth normalising
    text = _normalise(sentence if text is None else text)
    if not text:
        return [], "no words"
    lowered = text.lower()
    lead = lowered[:1]
    if (
        lead in "odlap"
        and lowered.startswith(_OWNER_LEADS)
        and (owner := _OWNER_OF.fullmatch(text)) is not None
    ):
        named = reader.owns(owner["who"], owner["item"])  # "Owner for X: Dana"
        if named is not None and named.drafts:
            named.frame = "owner-of-x-colon-y"
            reader.commit(named, text)
            return [named], None
    if (
        lead in "pa"
        and lowered.startswith(("per ", "according to "))
        and (per := _PER_WHO.match(text))
        and _agent_shaped(per["who"], strict=True)
    ):
        outcomes = _read_reported(reader, "", per["who"], per["rest"])  # "Per Hana, X is ..."
    elif not _REPORT_VERBS.isdisjoint(words) and (said := _reported(text)) is not None:
        outcomes = _read_reported(reader, *said)
    else:
        outcomes = _read_clauses(reader, text)
    if ("'s" in text or "’s" in text) and (owners := possessive_owners(reader, text, outcomes)):
        reader.commit(owners, text)
        outcomes.append(owners)
    if (" his " in text or " her " in text) and (
        owners := pronoun_possessive_owners(reader, text, outcomes)
    ):
        reader.commit(owners, text)
        outcomes.append(owners)
    if outcomes:
        return outcomes, None
    if not has_cue(lowered):
        return [], "no predicate"
    return [], why_not(lowered) or "predicate without readable arguments"


# A turn handed to someone named at the head of the sentence: "Odile, you're up", "@piet
# the ball is back with you", "Odile the kiln dashboard is all yours". The named person
# owns the item the sentence names, else the item last spoken of (often the one an
# earlier clause freed: "X is unblocked. Odile you're up").
_YOUR_TURN = re.compile(
    r"(?P<head>[^;—–]*[;—–]\s+)?\s*(?:@(?P<handle>[\w.-]*\w)|(?P<who>[A-Z][a-z][\w'’-]*))\s*[,:—–]?\s+"
    r"(?:(?P<item>(?:the|this|that)\s+[^,;.!?]{1,60}?)\s+(?:is|are)\s+(?:now\s+)?)?"
    r"(?:you(?:'re|’re|\s+are)\s+(?:up|next)|over\s+to\s+you|it'?s\s+your\s+turn|your\s+turn"
    r"|(?:the\s+)?ball(?:'s|’s|\s+is)\s+(?:now\s+)?(?:back\s+)?(?:with\s+you|in\s+your\s+court)"
    r"|(?:all\s+)?yours(?:\s+now)?(?:\s+to\s+[a-z]+)?)"
    r"(?:\s+(?:whenever|when|once|after|from\s+here|now)\b[^.!?]*)?\s*[.!]*\s*"
)
_NOT_VOCATIVES = frozenset(
    "ok okay so and but now well right yes hey hi thanks cool great also then update".split()
)


def _your_turn(reader: _Reader, sentence: str) -> list[_Outcome] | None:
    """Ownership handed over by "NAME, you're up" and kin (see ``_YOUR_TURN``), alone or
    as the last clause of a sentence ("X is unblocked — Lior, you're up"): what comes
    before is read first, as a sentence of its own."""
    m = _YOUR_TURN.fullmatch(sentence)
    if m is None:
        return None
    who = m["handle"] or m["who"]
    if m["who"] is not None and (
        who.lower() in _NOT_VOCATIVES or not _agent_shaped(who, strict=True)
    ):
        return None
    before: list[_Outcome] = []
    if m["head"]:
        before = _read_sentence(reader, sentence, m["head"].rstrip(" ;:—–"))[0]
        reader.sentence = sentence
    if (
        m["item"] is None
        and reader.last_item is not None
        and reader.recent_done is not None
        and reader.last_item.name.lower() == reader.recent_done.lower()
    ):
        return before or None  # "X is done. Piet, you're next": not X
    out = reader.owns(who, m["item"])
    if out is None or not out.drafts:
        return before or None
    out.frame = "o-your-turn"
    reader.commit(out, sentence)
    return [*before, out]


# Reported speech inside a line: "Payments: Mei said the export is waiting on X".
_REPORTED = re.compile(
    r"(?P<who>[A-Z][\w.'’-]*(?:\s+[A-Z][\w.'’-]*){0,2}|\b[Hh]e|\b[Ss]he)"
    r"\s+(?:said|says|reported|reports|mentioned|mentions|confirmed|confirms|noted|notes"
    r"|told us|tells us|told me|tells me|flagged|flags|let us know|explained|added|adds"
    r"|updated|announced|pinged that)\s+(?:that\s+)?"
)
_OWNER_LEADS = ("owner", "dri ", "lead ", "assignee", "point person", "driver ")
# "Owner for the billing cutover: Dana", "DRI on X — @li": the name after owns the X.
_OWNER_OF = re.compile(
    r"(?i:owners?|dri|lead|assignee|point person|driver)\s+(?i:for|of|on)\s+(?P<item>.+?)"
    r"\s*(?:\([^)]*\)\s*)?[:—–]\s*@?(?P<who>[^\W\d_][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)?)"
    r"[.!]?"
)
_PER_WHO = re.compile(
    r"(?i:per|according to)\s+@?(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)\s*,\s*"
    r"(?P<rest>\S.*)"
)
_REPORT_VERBS = frozenset(
    "said says reported reports mentioned mentions confirmed confirms noted notes told tells"
    " flagged flags let explained added adds updated announced pinged".split()
)
_CLAUSE_MARKS = ":,;—–"


def _reported(text: str) -> tuple[str, str, str] | None:
    """(words before, speaker, what they said) when a person reports a status mid-line:
    the speaker opens the sentence or follows a heading, comma or dash."""
    m = _REPORTED.search(text)
    if m is None or "?" in text:
        return None
    pre = text[: m.start()]
    head = pre.rstrip()
    if head and (head[-1] not in _CLAUSE_MARKS or any(c in _CLAUSE_MARKS for c in head[:-1])):
        return None
    who = m["who"]
    if who.lower() in ("i", "we", "it", "this", "that", "they"):
        return None
    if who[0].isupper() and not _agent_shaped(who, strict=True):
        return None
    rest = text[m.end() :]
    return (pre, who, rest) if rest else None


def _read_reported(reader: _Reader, pre: str, who: str, rest: str) -> list[_Outcome]:
    """What someone else said reads with them in the author's place (the contract's rule 2
    applies to whoever speaks): "Mei said the export is waiting on X" makes Mei, not the
    writer, the export's owner; "Marta said she's on it" is Marta on it."""
    low = who.lower()
    person = reader.last_person if low in ("he", "she") else EntityRef(who, EntityType.PERSON)
    if person is None:
        return _read_clauses(reader, f"{pre}{rest}")
    if not _FIRST_PERSON_WORDS.isdisjoint(_WORDS.findall(pre.lower())):
        # "I'm waiting on X, Helga said she'd chase it": the clause before the speaker is
        # the writer's own, with the writer as "I"; only what follows is Helga's
        return _read_clauses(reader, pre.rstrip(" ,;:—–")) + _read_reported(reader, "", who, rest)
    saved = reader.author, reader.last_person
    reader.author, reader.last_person = person.name, person
    try:
        outcomes = _read_clauses(reader, f"{pre}{rest}")
    finally:
        reader.author = saved[0]
        reader.last_person = saved[1]
    for out in outcomes:
        if not any(p.name == person.name for p in out.people):
            out.people.append(person)
    return outcomes


_FIRST_PERSON_WORDS = frozenset("i im i'm we my our me us".split())


_NOT_OWNED_LABELS = (
    _NOT_ITEM_LABELS
    | _ROLE_LABELS
    | frozenset("attendees attending present participants period status report summary".split())
)
# "Vault migration: Hiroshi", "PROJ-884 (SCIM sync) — Gita": an item and its owner's name.
_OWNER_AFTER = re.compile(r"\s*@?[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*)?\s*(?:$|[,;&(]|and\s)")


def _owner_line(text: str) -> bool:
    """Whether a sentence with no cue word may still be "Item: Name" (worth reading)."""
    for sep in (":", " — ", " – ", " - ", "->", "→"):
        at = text.find(sep)
        if 2 <= at <= 80 and _OWNER_AFTER.match(text, at + len(sep)) is not None:
            return _NOT_OWNED_LABELS.isdisjoint(_WORDS.findall(text[:at].lower()))
    return False


_CUES: frozenset[str] = frozenset()


def _paired_cue(words: tuple[str, ...]) -> bool:
    """Cues made of common words, which the one-word screen cannot hold: "X is with Dana",
    "Leona did it", "Nadia is on the runbook"."""
    if "on" in words and not _BEING.isdisjoint(words):
        return True  # "Nadia is on the runbook", "Oren's on it"
    if "with" in words and ("is" in words or "are" in words):
        return True
    if ("did" in words or "ran" in words) and ("it" in words or "that" in words or "this" in words):
        return True
    if "in" in words and ("got" in words or "get" in words):
        return True  # "got the permissions fix in": merged
    if words and (words[0] in _WORK_GERUNDS or (len(words) > 1 and words[1] in _WORK_GERUNDS)):
        return True  # "- tuning the alert rules", "Dana: porting the client"
    return "being" in words and "by" in words  # "is being negotiated by the ops team"


_BEING = frozenset("is am are was were been s still back".split())


def _cues() -> frozenset[str]:
    global _CUES
    if not _CUES:
        _CUES = core_cues()
    return _CUES


def _read_clauses(reader: _Reader, text: str) -> list[_Outcome]:
    """The compositional core reads the sentence (``core.read_core``)."""
    outcomes, _ = read_core(reader, text)
    return outcomes


_ACTION_HEADING = re.compile(
    r"\W*(?:action items?|actions?|ais?|follow-?ups?|next steps?|to-?dos?)\W*", re.IGNORECASE
)
_NAME_COLON = re.compile(
    r"\s*@?(?P<who>[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*)?)\s*(?::|—|–|\s-)\s*"
    r"(?!to\b)(?P<rest>[a-z].+)"
)
_NAME_TO = re.compile(r"\s*@?[^\W\d_][\w.'-]*(?:\s+[^\W\d_][\w.'-]*)?\s+(?:to|will)\s+[a-z]")
# "ACTION Gwen — circulate the checklist", "AI: Yuki — CNI plugin bump": no "to"
_ACTION_DASH = re.compile(
    r"\W*(?:action(?:\s+items?)?|ai|todo)\b\s*[:\-–—]?\s*@?(?P<who>[^\W\d_][\w.'-]*"
    r"(?:\s+[A-Z][\w.'-]*)?)\s*(?:—|–|-|:)\s*(?P<rest>\S.*)",
    re.IGNORECASE,
)
# A numbered action marker: "AI-1 Lior: X", "AP2 — Odile: triage Y", "Action 3: Piet to
# book Z". Read as an unnumbered one; a ticket key ("AI-1234") has more digits.
_ACTION_ID = re.compile(
    r"(?P<lead>\W*)(?i:action(?:\s+items?)?|ai|ap|todo)[\s-]*#?\d{1,2}[a-z]?(?=\s*[:—–-]|\s+[A-Z@])"
)
_VERB_FIRST = re.compile(r"[a-z]+\s+(?:the|a|an|our|their|his|her|its|this|that|all|up|out)\b")
# A first word with a noun-forming suffix opens a noun phrase, not an imperative:
# "deprecation notice for X", "settlement report", "readiness review".
_NOUN_FIRST = re.compile(r"[a-z]+(?:tion|sion|ment|ance|ence|ness|ity|ure)s?\s", re.IGNORECASE)
# A plural, or a noun that heads work, opens a noun phrase too: "labels for the new mugs",
# "comms to staff", "runbook for the backlog alert" (a bare verb takes no "-s").
_DOC_NOUNS = r"(?:runbook|docs?|guide|spec|plan|report|dashboard|checklist|notes?)\b"
_NOUN_LEAD = re.compile(rf"(?:[a-z]+[^s\W]s\b|{_DOC_NOUNS})")
# "user docs for X", "purge runbook": a modifier before such a noun
_HEAD_SECOND = re.compile(rf"[a-z]+\s+{_DOC_NOUNS}")
_WHO_TO = re.compile(r"\s*@?(?P<who>[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)?)\s+to\s+[a-z]+\s+\S")
_ACTION_START = re.compile(r"\W*(?:action|ai\b|todo|to-do|follow|next)", re.IGNORECASE)


def _may_start_action(sentence: str) -> bool:
    """False only when ``_ACTION_START`` cannot match: the line opens with an ASCII word
    character that no word of the pattern starts with (a symbol or a non-ASCII letter
    may still lead to one)."""
    lead = sentence[:1]
    return not (lead.isascii() and (lead.isalnum() or lead == "_")) or lead in "aAtTfFnN"


# Verbs an action item opens with, in the bare form a to-do is written in: "dana: rotate
# the signing keys", "@rui draft the retention policy", "Bea to chase the renewal".
_TODO_VERBS = frozenset(
    """rotate draft write rewrite update chase send follow review schedule fix set migrate
    add remove check investigate create file open book share prepare confirm ping reach
    document test sync move clean run deploy benchmark estimate ask own drive lead handle
    take pick build implement finish complete ship land merge close circulate publish
    collect gather audit assess evaluate spike prototype upgrade patch renew revoke
    configure enable disable archive delete rename split port backfill verify validate
    coordinate organise organize arrange draw sketch compile summarise summarize escalate
    triage refactor wire hook tidy polish retire decommission sunset negotiate contact
    email call invite present demo propose outline scope define apply get keep""".split()
)
_TODO_NAME = r"@?(?P<who>[^\W\d_][\w.'-]*(?:\s+[A-Z][a-z][\w.-]*)?)"
# "TODO(dana): rotate keys", "AI (Dana) - the vendor renewal"
_TODO_PAREN = re.compile(
    rf"\W*(?:todo|action(?:\s+items?)?|ai|follow-?up)\s*\(\s*{_TODO_NAME}\s*\)\s*[:—–-]\s*"
    r"(?P<rest>\S.*)",
    re.IGNORECASE,
)
# "dana: rotate keys", "@rui draft the policy", "Bea to chase X", "-> Bea to chase X"
_TODO_LINE = re.compile(
    rf"\W*{_TODO_NAME}\s*(?P<sep>:|—|–|\s-|\s+to\b|(?<=[\w.-])(?=\s))\s*(?P<verb>[a-z]+)\b"
    r"(?P<rest>.*)"
)
# Labels a to-do line may open with that name no one: "Goal: migrate X", "Next: fix Y"
_NOT_ASSIGNEES = frozenset(
    """goal goals note notes nb ps plan plans idea ideas proposal proposals decision
    decisions risk risks ask asks reminder next step steps todo tbd question questions
    outcome outcomes result results agenda context background summary update updates tip
    fyi aim aims objective objectives priority priorities focus suggestion option options
    recommendation recommendations request requests task tasks today tomorrow tonight later
    someone anyone everyone somebody we i you they team also then please happy glad nice
    hard time back easy ready able due free keen eager sorry safe good great fine tough
    unable likely unlikely supposed meant going need needs want wants planning hoping hope
    trying try remember forgot forget worth best better yesterday doing done now wip blocked
    blockers blocker this that here there delivered slipped achieved landed released
    launched planned upcoming ongoing shipped completed finished merged deployed closed fixed
    cancelled highlights lowlights wins misses""".split()
)
# "#520 migration guide (@lea-b)": an item with its assignee's handle after it
_TODO_HANDLE = re.compile(r"\s*[(\[]\s*@(?P<who>[\w.-]+)\s*[)\]]\W*\Z")


def _todo_line(sentence: str) -> str:
    """An action item written without an "Action:" label, as an "ACTION:" line (or "").

    A to-do names its assignee and what they are to do, in one of the shapes people use
    in chat, standups, issue checklists and notes: "<name>: <bare verb> ...", "@name
    <bare verb> ...", "<name> to <bare verb> ...", "<item> (@name)" (and, beside the
    labelled action lines, "TODO(name): ...").
    The verb must be one an action opens with (``_TODO_VERBS``), in its bare form: "Raj:
    shipped X" is a report, "Dana to the rescue" no action at all.
    """
    if (
        (m := _TODO_LINE.match(sentence)) is not None
        and m["verb"] in _TODO_VERBS
        and m["rest"].strip()
    ):
        sep, who = m["sep"].strip(), m["who"]
        handle = sentence.lstrip(" ->→*•").startswith("@")
        if (sep or handle) and who.split()[0].lower() not in _NOT_ASSIGNEES:
            # "Bea to chase X", "@rui draft X", "dana: rotate X"; not "Kai draft X"
            if sep == "to" or handle or _agent_shaped(who.split()[0], strict=not who.islower()):
                return _normalise(f"ACTION: {who} to {m['verb']}{m['rest']}")
    if "@" in sentence and (m := _TODO_HANDLE.search(sentence)) is not None:
        item = sentence[: m.start()]
        if "(" not in item and item.strip(" -*•") and not has_cue(item.lower()):
            return _normalise(f"ACTION: {m['who']} to own {item}")
    return ""


_LAYOUT_NAME = r"@?(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)"
# "passkeys (Noor), device trust (Mateo)": each item with its owner's name in brackets
_PAREN_OWNER = re.compile(rf"(?P<item>[^(),;:]+?)\s*\(\s*{_LAYOUT_NAME}\s*\)")
# "Refund API v2: Ayesha." - an item, then only its owner's name
_ITEM_THEN_NAME = re.compile(
    rf"\s*(?P<item>[^:—–]{{2,60}}?)\s*(?::|—|–|\s-)\s*{_LAYOUT_NAME}\s*[.!]?\s*"
)
# "Kojo: pricing page copy, no blockers", "Akash: on the node pool resize"
_NAME_THEN_ITEM = re.compile(
    rf"\s*{_LAYOUT_NAME}\s*(?::|—|–|\s-)\s*(?:(?:still\s+|now\s+|back\s+)?on\s+)?"
    r"(?P<item>[^,;.()]{3,60}?)\s*(?:[,;.(].*)?"
)


@lru_cache(maxsize=8)
def _layout_lines(text: str) -> int:
    """How many lines (or bracketed names) of an update pair names with items by layout:
    one such line may be anything ("Dana: sounds good"), a list of them is a roster when
    the update also speaks of work somewhere (a cue word): "Bbb: ccc\nEee: fff" is not."""
    lines = sum(1 for line in text.splitlines() if ":" in line and _layout_shaped(line))
    return lines if lines >= 2 and _speaks_of_work(text) else 0


_PAREN_NAME = re.compile(r"\(\s*@?[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?\s*\)")


@lru_cache(maxsize=8)
def _paren_names(text: str) -> int:
    """How many "(Name)" asides an update holds: two or more make a roster of owners
    ("passkeys (Noor), device trust (Mateo)"), one is any aside ("Expansion (Kenya)")."""
    names = len(_PAREN_NAME.findall(text))
    return names if names >= 2 and _speaks_of_work(text) else 0


def _speaks_of_work(text: str) -> bool:
    """Whether any word of the update is one a frame reads ("done", "blocked", "owns")."""
    return not _cues().isdisjoint(_WORDS.findall(text.lower()))  # (not lower_words: a
    # whole update would push out the sentences that cache keeps)


# Chat that a "Name: ..." line may carry instead of an item: "Dana: morning all".
_NOT_LAYOUT = frozenset(
    """thanks thank cc re fwd fw hi hey hello bye ping ok okay yes no morning evening
    afternoon night good great nice sounds agreed usual lunch coffee same all any anyone
    welcome congrats well happy sorry see back out ooo away off""".split()
)
_NOT_LAYOUT_LAST = frozenset("all everyone team folks today tomorrow place time first".split())


# Nouns that head work items. A layout line names an item only when its words include one
# (or a ticket id), or when a label says the list is work in hand ("In flight: ..."):
# "aab aaaa: Aaaa" is not a roster line, "Refund API v2: Ayesha." is.
_WORK_NOUNS = frozenset(
    """api apis migration migrations export exports import importer exporter fix fixes rollout
    pipeline dashboard dashboards service services integration support automation ledger
    refactor rework rewrite upgrade runbook runbooks doc docs documentation guide test tests
    suite page pages copy flow flows job jobs sync report reports feature features endpoint
    endpoints bug bugs ticket tickets port cutover resize rotation backfill cleanup tooling
    script scripts alerts alerting monitoring dashboard release releases build builds deploy
    deployment config configuration schema index indexing reindex search cache queue worker
    workers cron client sdk app ui ux design spec review audit onboarding billing payments
    checkout invoice invoices auth login sso permissions policy template templates emails
    notifications model models experiment tuning plan pilot prototype poc spike library
    module component widget form forms table tables cluster database db infra network
    storage backup backups failover drill postmortem retro proposal rfc adr handbook
    training website site landing mobile ios android web desktop cli bot bots plugin
    connector connectors adapter gateway proxy limiter rate limits quota quotas metrics
    logging tracing observability security compliance encryption keys certs certificates
    certificate dns vpn firewall kubernetes helm terraform ci cd tests e2e pr prs""".split()
)
_ROSTER_LABEL = re.compile(
    r"\A\W*(?:in flight|in progress|wip|doing|next|today|this week|owners?|assignments?"
    r"|workstreams?|who's on what|who is on what)\b",
    re.IGNORECASE,
)


_SECTION_LEAD = re.compile(
    r"\A(?:in flight|in progress|wip|doing|next|today|this week)\s*:\s*", re.IGNORECASE
)


def _layout_shaped(sentence: str) -> bool:
    """A cheap look at a line before any pattern: "Name: ...", "...: Name." or "(Name)"."""
    line = sentence.strip(" -*•>→\t")
    if not line:
        return False
    if "(" in line:
        at = line.find("(")
        return line[at + 1 : at + 3].lstrip("@ ")[:1].isupper()
    sep = ":" if ":" in line else " — " if " — " in line else " - " if " - " in line else ""
    if not sep:
        return False
    head = line.split(sep, 1)[0]
    if line[:1].isupper() and len(head.split()) <= 2:
        return True  # "Kojo: pricing page copy"
    return line.rstrip(".! ").rsplit(None, 1)[-1][:1].isupper()  # "Refund API: Ayesha."


def _layout_owner(reader: _Reader, sentence: str) -> tuple[list[_Outcome], str | None] | None:
    """A line that pairs a person with a work item by layout alone, in any update: "Kojo:
    pricing page copy", "Refund API v2: Ayesha.", "passkeys (Noor), device trust (Mateo)".

    Read only when no frame read the line. The name must be a person's (capitalised, not a
    common noun or a label) and the item a short noun phrase with no predicate of its own.
    """
    pairs: list[tuple[str, str]] = []
    if not _layout_shaped(sentence):
        return None
    text = reader._text
    if "(" in sentence:
        if not _paren_names(text):
            return None  # "Regional Expansion (Kenya)": one bracketed name is any aside
        pairs = [(m["who"], m["item"]) for m in _PAREN_OWNER.finditer(sentence)]
    elif not reader.structured and not _layout_lines(text):
        return None
    elif (m := _ITEM_THEN_NAME.fullmatch(sentence)) is not None:
        pairs = [(m["who"], m["item"])]
    elif (m := _NAME_THEN_ITEM.fullmatch(sentence)) is not None:
        pairs = [(m["who"], m["item"])]
    out = _Outcome()
    for who, raw in pairs:
        item = raw.strip(" -*•")
        item = _SECTION_LEAD.sub("", item)
        words = _WORDS.findall(item.lower())
        if (
            not words
            or len(item.split()) > 6
            or not all(_name_like(w) for w in who.split())
            or who.lower() in _NOT_ASSIGNEES
            or who.lower() in _STATUS_VALUES
            or words[0] in _NOT_LAYOUT
            or words[-1] in _NOT_LAYOUT_LAST
            or (words[0] == "the" and len(words) > 1 and words[1] in _NOT_LAYOUT)
            or not _NOT_OWNED_LABELS.isdisjoint(words)
            or not _NOT_ASSIGNEES.isdisjoint(words[:1])
            or has_cue(item.lower())
            or why_not(item.lower())
            or all(_name_like(w) for w in item.split())
            or any(w.endswith("ed") or w in _CLAUSE_VERBS for w in words)
            or not (
                not _WORK_NOUNS.isdisjoint(words)
                or any(ch.isdigit() for ch in item)
                or _ROSTER_LABEL.match(sentence)
                or _ROSTER_LABEL.match(reader._text)
            )  # "aab aaaa: Aaaa" names no work
        ):
            continue
        found = reader.owns(who, _normalise(item))
        if found is not None and found.drafts:
            out.drafts += found.drafts
            out.items += found.items
            out.people += found.people
    if not out.drafts:
        return None
    out.frame = "layout-owner"
    reader.commit(out, sentence)
    return [out], None


# "Pier survey: Odile — held up by the licence", "Tide import: Marguerite, due May": an
# item, its owner's name alone as the field's value, then (after a dash, comma or
# semicolon) more about the item.
_ITEM_OWNER_FIELD = re.compile(
    r"\s*(?P<item>[^:—–()]{3,60}?)\s*(?::|\s[—–]|[—–]\s)\s*"
    r"@?(?P<who>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)?)"
    r"(?:['’]s)?(?:\s*\((?:lead|owner)\))?\s*(?:[,;]|\s[—–-]\s)\s*(?P<rest>\S.*)"
)
_POSSESSIVE_END = re.compile(r"['’]s\Z")
# Labels a line may open with that name no item: "Action: Karim, ...", "Decision: ..."
_FIELD_LABELS = frozenset(
    """action actions ai todo decision decisions note notes next agenda item topic update
    outcome owner owners ask asks risk risks issue issues follow-up follow-ups""".split()
)


def _item_owner_field(reader: _Reader, sentence: str) -> tuple[list[_Outcome], str | None] | None:
    """A line that gives an item's owner as a field's value and then says more about the
    item: the person owns the item, and the rest is read with the item as its subject
    ("Buoy charts: Piet — held up by X": Piet owns the charts, which wait on X)."""
    if (m := _ITEM_OWNER_FIELD.fullmatch(sentence.strip(" -*•"))) is None:
        return None
    item, who, rest = m["item"].strip(), _POSSESSIVE_END.sub("", m["who"]), m["rest"]
    words = _WORDS.findall(item.lower())
    if (
        not words
        or len(words) > 6
        or all(_name_like(w) for w in item.split())  # "Raj: Dana said ..." is a speaker's
        or not all(_name_like(w) and w.lower() not in _NOT_ASSIGNEES for w in who.split())
        or who.lower() in _STATUS_VALUES
        or words[0] in _NOT_LAYOUT
        or words[0] in _FIELD_LABELS
        or not _NOT_OWNED_LABELS.isdisjoint(words)
        or has_cue(item.lower())
        or why_not(item.lower())
        or any(w.endswith("ed") or w in _CLAUSE_VERBS for w in words)
        or not (  # "aab: Aab - aaaa" names no work
            has_cue(rest.lower())
            or not _WORK_NOUNS.isdisjoint(words)
            or any(ch.isdigit() for ch in item)
        )
    ):
        return None
    reader.sentence = sentence
    out = reader.owns(who, _normalise(item))
    if out is None or not out.drafts:
        return None
    out.frame = "item-owner-field"
    reader.commit(out, sentence)
    outcomes = [out]
    if has_cue(rest.lower()):  # what follows is the owner's report on the item
        owners = [d for d in out.drafts if d.relation is Relation.OWNS]
        author, reader.author = reader.author, reader.author or who
        more, _reason = _read_sentence(reader, sentence, f"{item} {rest}")
        reader.author = author
        for one in more:
            kept = []
            for d in one.drafts:
                if d.by_default and any(_key(d.target) == _key(own.target) for own in owners):
                    d.source = owners[0].source  # "Pier light alias — Odile, shipped": hers
                    d.by_default = False
                elif d.by_default and author is None:
                    continue  # no writer in minutes: other work done is nobody's by default
                kept.append(d)
            one.drafts = kept
        outcomes += more
    return outcomes, None


_TABLE_OWNER = frozenset("owner owners assignee assignees who dri lead responsible poc".split())
_TABLE_ITEM = frozenset(
    """item items task tasks action actions work workstream ticket tickets issue issues project
    projects deliverable deliverables topic feature features what follow-up follow-ups""".split()
)
_TABLE_STATUS = frozenset(
    "status state progress blocker blockers notes note comment comments".split()
)
_TABLE_DONE = re.compile(
    r"\A\W*(?:done|complete|completed|shipped|merged|closed|released|deployed|finished|fixed"
    r"|resolved|live|✅|✔️?)\W*\Z",
    re.IGNORECASE,
)


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


@lru_cache(maxsize=8)
def _table_columns(text: str) -> tuple[int, int, int] | None:
    """(item, owner, status) column numbers (-1 when absent) of the update's Markdown table,
    read from its header row; None when the update has no table with a header."""
    for line in text.splitlines():
        if line.lstrip().startswith("|") and line.count("|") >= 3:
            head = [c.lower().strip("*_ ") for c in _cells(line)]
            owner = next((k for k, c in enumerate(head) if c in _TABLE_OWNER), -1)
            status = next((k for k, c in enumerate(head) if c in _TABLE_STATUS), -1)
            item = next((k for k, c in enumerate(head) if c in _TABLE_ITEM), -1)
            if item < 0:
                item = next((k for k in range(len(head)) if k not in (owner, status)), -1)
            if item < 0 or (owner < 0 and status < 0):
                return None
            return item, owner, status
    return None


def _table_row(reader: _Reader, sentence: str) -> tuple[list[_Outcome], str | None] | None:
    """A row of a Markdown table with an owner or status column: "| DNS failover test |
    Amara | blocked on NET-90 |" is Amara's item, waiting on NET-90; "| postmortem | Ji-woo
    | done |" is Ji-woo's, finished."""
    columns = _table_columns(reader._text)
    if columns is None:
        return None
    cells = _cells(sentence)
    item_at, owner_at, status_at = columns
    if max(columns) >= len(cells) or not re.sub(r"[\s|:-]", "", sentence):
        return [], "table rule"
    item = cells[item_at]
    if item.lower().strip("*_ ") in _TABLE_ITEM or not item:
        return [], "table header"
    owner = cells[owner_at] if owner_at >= 0 else ""
    status = cells[status_at] if status_at >= 0 else ""
    outcomes: list[_Outcome] = []
    done = bool(_TABLE_DONE.match(status))
    if owner and _agent_shaped(owner.split(",")[0].strip().lstrip("@"), strict=False):
        who = owner.lstrip("@")
        found = reader.completed(who, item) if done else reader.owns(who, item)
        if found is not None and found.drafts:
            reader.commit(found, sentence)
            outcomes.append(found)
    elif done:
        found = reader.completed(None, item)
        if found is not None and found.drafts:
            reader.commit(found, sentence)
            outcomes.append(found)
    if status and not done and has_cue(status.lower()):
        said = _read_sentence(reader, sentence, f"{item} is {status}")[0]
        outcomes += said
    return (outcomes, None) if outcomes else ([], "table row states no fact")


def _read_minutes_line(
    reader: _Reader, minutes: Minutes, sentence: str, heading: str | None, said: str | None
) -> tuple[list[_Outcome], str | None]:
    """Read a line: an action item, what a speaker said, or an ordinary sentence."""
    if sentence[:1] == "|" and sentence.count("|") >= 3 and (row := _table_row(reader, sentence)):
        return row
    if (":" in sentence or "—" in sentence or "–" in sentence) and (
        field := _item_owner_field(reader, sentence)
    ):
        return field
    marked = sentence
    if (numbered := _ACTION_ID.match(sentence)) is not None:
        marked = f"{numbered['lead']}ACTION{sentence[numbered.end() :]}"  # "AP2 — Odile: X"
    plain = _normalise(marked) if _may_start_action(marked) and _ACTION_START.match(marked) else ""
    if "(" in sentence and plain and (m := _TODO_PAREN.match(sentence)) is not None:
        plain = _normalise(f"ACTION: {m['who']} — {m['rest']}")  # "TODO(dana): rotate X"
    if not plain and (
        "@" in sentence
        or (
            (" to " in sentence or ":" in sentence or "-" in sentence)
            and not _TODO_VERBS.isdisjoint(lower_words(sentence)[1:4])
        )
    ):
        plain = _todo_line(sentence)
    if (
        not plain
        and heading is not None
        and _ACTION_HEADING.fullmatch(heading)
        and not sentence.startswith("Done: ")  # a ticked action: done, no longer to do
    ):
        # under "Action items": "- Bartek: automate X", "- Dana to migrate Y"
        if m := _NAME_COLON.match(_CHECKBOX.sub("", sentence, count=1)):
            rest = m["rest"]
            if not _VERB_FIRST.match(rest) and (
                _NOUN_FIRST.match(rest)
                or _NOUN_LEAD.match(rest)
                or (rest.split(None, 1)[0] not in _TODO_VERBS and _HEAD_SECOND.match(rest))
            ):
                rest = f"own {rest}"  # "Tariq: deprecation notice for X" names the work
            plain = _normalise(f"ACTION: {m['who']} to {rest}")
        elif _NAME_TO.match(sentence):
            plain = _normalise(f"ACTION: {sentence}")
    if (
        not plain
        and minutes.active
        and (to := _WHO_TO.match(sentence)) is not None
        and minutes.who(to["who"]) is not None
    ):  # minutes with a roster: "Chen to send the cost report to finance" is an action
        plain = _normalise(f"ACTION: {sentence}")
    if plain and action_assignee(plain) is None and (dash := _ACTION_DASH.fullmatch(plain)):
        rest = dash["rest"].split(",", 1)[0].strip()  # "ACTION Gwen — circulate X"
        verb_first = _VERB_FIRST.match(rest) is not None
        plain = f"ACTION: {dash['who']} to {rest if verb_first else f'own {rest}'}"
    if plain and (who := action_assignee(plain)) is not None:
        reader.sentence = sentence
        out = read_action(reader, plain, minutes.who(who) if minutes.active else None)
        if out is not None and out.drafts:
            reader.commit(out, plain)
            return [out], None
        return [], "action item without a readable assignee and object"
    if said is not None and said is not sentence:
        outcomes, reason = _read_sentence(reader, sentence, said)
        if outcomes or reader.author is None:
            return outcomes, reason
        return _speaker_item(reader, said) or _layout_owner(reader, sentence) or (outcomes, reason)
    outcomes, reason = _read_line(reader, sentence, heading)
    if not outcomes and (
        "(" in sentence or ":" in sentence or "—" in sentence or " - " in sentence
    ):
        return _layout_owner(reader, sentence) or (outcomes, reason)
    return outcomes, reason


# "Actions: (1) Piet – X; (2) Odile – update Y", "Follow-ups: Piet — X; Odile — Y": one
# labelled line holding several action items, each with its own assignee
_ACTION_LIST = re.compile(
    r"\W*(?:action items?|actions?|ais?|follow-?ups?|next steps?|to-?dos?)\s*[:—–-]\s*",
    re.IGNORECASE,
)
_LIST_NUMBER = re.compile(r"\A\s*(?:\(\s*\d{1,2}\s*\)|\d{1,2}[.)])\s*")
# A to-do's box in front of it, open ("[ ] Piet — X"), or a bullet mark ("→ Odile: Y")
_CHECKBOX = re.compile(r"\W*?\[\s?\]\s*|\W*(?=[^\W\d_])")


def _action_entry(sentence: str) -> str:
    """One entry of a labelled action list that the line's semicolons split into
    sentences, as an action line of its own ("ACTION: Odile – update Y"), or ""."""
    if label := _ACTION_LIST.match(sentence):
        sentence = sentence[label.end() :]
    entry = _LIST_NUMBER.sub("", sentence, count=1).strip(" .;")
    return f"ACTION: {entry}" if entry else ""


_CLAUSE_VERBS = frozenset(
    "look looks looked seem seems seemed went go goes feel feels felt think thinks asked asks"
    " wants want needs sent sends got gets made makes did does had has found saw told gave"
    " took came fell broke ran left"
    " says said stays stayed remain remains".split()
)


def _speaker_item(reader: _Reader, said: str) -> tuple[list[_Outcome], str | None] | None:
    """ "Kojo: pricing page copy, no blockers": what a speaker names first, with no
    predicate of its own, is what they are working on (as a "Today:" line is)."""
    if not reader.structured:
        return None
    head = _normalise(said.split(",", 1)[0].split(";", 1)[0])
    if not head or len(head.split()) > 6 or has_cue(head.lower()) or why_not(head.lower()):
        return None
    toks = tokenise(head)
    if not head[0].isalpha() or any(
        t.cls in _TRIGGERS
        or t.cls in "xMN"
        or t.low in _CLAUSE_VERBS
        or (k and t.low.endswith("ed") and t.text.islower())
        for k, t in enumerate(toks)
    ):
        return None  # "the quarterly numbers look fine", "the vendor sent X": clauses
    out = reader.owns(None, head)
    if out is None or not out.drafts:
        return None
    out.frame = "speaker-item"
    reader.commit(out, head)
    return [out], None


def _repoint_implied(
    per_sentence: list[tuple[str, list[_Draft], str | None, str | None]],
    item: EntityRef,
    author: EntityRef,
) -> None:
    """A subjectless "Depends on #7" / "Blocked by #7" line of an update that also says a
    named item cannot move ("#604 can't go in until ...", "can't land the pagination
    change until ...") speaks for that item, not for the author: the line heads the
    item's issue. The author still owns the item (rule 1, tentative as ever)."""
    for _sentence, found, _frame, _reason in per_sentence:
        moved = False
        for k, d in enumerate(found):
            if d.implied and d.source == author and d.relation is Relation.BLOCKED_BY:
                found[k] = _Draft(item, d.relation, d.target, d.sentence)
                moved = True
        if moved and not any(d.relation is Relation.OWNS and d.target == item for d in found):
            found.append(_Draft(author, Relation.OWNS, item, found[0].sentence, tentative=True))


# A pull request's or issue's title line, and the opening verb of its description.
_TITLE_LINE = re.compile(
    r"\A\s*(?:#{1,3}\s+(?P<h>[^\n]+?)|(?:PR|MR)?\s*[#!]\d+\s*[—–:-]\s*(?P<p>[^\n]+?))\s*$",
    re.MULTILINE,
)
_NOT_TITLES = frozenset(
    """summary description context motivation background changes change notes overview
    details testing tests test plan status why what how checklist problem solution
    approach screenshots follow-ups todo""".split()
)
_ADDS = re.compile(
    r"(?:^|\n)\s*(?:this (?:pr|mr|change|patch) )?(?:adds|add|introduces|implements)\s+"
    r"(?P<x>[^.\n;:]+?)(?:\s+(?:to|in|into|so|so that|because|which|by|via|using|on top of)"
    r"\b[^.\n]*)?(?:[.\n]|$)",
    re.IGNORECASE,
)


def _described_change(reader: _Reader, text: str) -> EntityRef | None:
    """The change a PR description is about: its title ("## Barcode reprint endpoint",
    "PR #12 — Replace X with Y") or what its first sentence adds ("Adds the route cache
    for the depot planner"). A subjectless "Depends on #7" there speaks for it."""
    m = _TITLE_LINE.match(text)
    title = (m["h"] or m["p"]) if m is not None else None
    if title is not None and title.strip(" *_:").lower() in _NOT_TITLES:
        title = None
    if title is None and (adds := _ADDS.search(text)) is not None:
        title = adds["x"]
    if title is None:
        return None
    out = _Outcome()
    items = reader.items(_normalise(title.strip(" *_:`")), out)
    return items[0][0] if items and len(items) == 1 else None


_NOT_HEADING = re.compile(r"[,!?;()—–@]|\.(?:\s|$)")
_BULLET_LINE = re.compile(r"\s*(?:[-*+•◦‣]|\d+[.)])\s")
# Words that make a line a document's title or a section, not an item: "SRE weekly",
# "Status overview", "Highlights".
_TITLE_WORDS = frozenset(
    """report weekly daily monthly quarterly fortnightly biweekly summary highlights lowlights
    minutes agenda sync standup stand-up retro retrospective review overview risks risk
    actions decisions recap board steering attendees present week sprint meeting notes team
    guild council yesterday today blockers blocked done doing next wip update updates status
    misc other general announcements questions issues metrics kpis hiring people""".split()
)
# Trailing words a heading names its item with: "Release 8.4 readiness", "Atlas status".
_TOPIC_TAIL = frozenset("readiness status update updates notes plan progress tracker".split())


_TRAILS_OFF = ("...", "…")


def _trailing_off(
    sentences: list[tuple[str, str | None, int]],
) -> list[tuple[str, str | None, int]]:
    """ "so the checkout redesign... basically frozen until X": a subject that trails off
    into an ellipsis is the subject of what follows on its line, so the two are one."""
    if not any(s.endswith(_TRAILS_OFF) for s, _h, _n in sentences):
        return sentences
    out: list[tuple[str, str | None, int]] = []
    for sentence, heading, number in sentences:
        if out and out[-1][2] == number and out[-1][0].endswith(_TRAILS_OFF):
            before = out[-1][0].rstrip(".… ")
            if sentence[:1].islower() and not has_cue(before.lower()):
                out[-1] = (f"{out[-1][0]} {sentence}", heading, number)
                continue
        out.append((sentence, heading, number))
    return out


_BULLET_LEADS = frozenset("-*+•◦‣0123456789")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _line_topic(
    lines: list[str], bullets: list[bool], number: int, topic: tuple[str, int] | None
) -> tuple[str, int] | None:
    """The item a heading line names ("design-system", "Release 4.1 readiness") for the
    bullets under it, which take it as subject when they name none (the contract's rule
    on headings), with the indentation its bullets must exceed (-1 for a plain line:
    every bullet). A bullet that ends with a colon over more deeply indented bullets is a
    heading too ("- Sequencing run for cohort B:" over "  * Sana is running it"); a
    bullet keeps the topic while it sits deeper than its heading, any other line
    replaces it."""
    line = lines[number]
    below = number + 1 < len(lines) and bullets[number + 1]
    if bullets[number]:
        here = _indent(line)
        if below and line.rstrip().endswith(":") and _indent(lines[number + 1]) > here:
            name = _heading_name(_BULLET_LINE.sub("", line, count=1))
            if name is not None:
                return name, here
        return topic if topic is not None and here > topic[1] else None
    if not below:
        return None  # no bullets under it: not a heading
    name = _heading_name(line)
    return None if name is None else (name, -1)


_HEADING_PRONOUNS = frozenset("this that it them these those we i us you".split())


def _heading_name(line: str) -> str | None:
    """The item a heading line names, or None when the line is no item's heading."""
    words = line.strip(" \t*_#:").split()
    if not 1 <= len(words) <= 5 or _NOT_HEADING.search(line):
        return None
    while len(words) > 1 and words[-1].lower() in _TOPIC_TAIL:
        words.pop()
    name = " ".join(words)
    if any(w.lower() in _TITLE_WORDS for w in words) or _agent_shaped(name, strict=True):
        return None
    if len(words) > 1 and not _HEADING_PRONOUNS.isdisjoint(w.lower() for w in words[1:]):
        return None  # "Splitting this up:", "Where we are:": a clause, no item's name
    if any(t.cls not in "n&p" for t in tokenise(name)):
        return None  # a line that says something is no heading
    return name


_NO_OWNER = re.compile(
    r"\b(?:no|without an?|needs? an?|lacks? an?|looking for an?)\s+(?:\w+\s+)?owners?\b"
    r"|\bunowned\b|\bup for grabs\b|\bneither\b.{0,30}\bowner"
    r"|\b(?:nobody|no one|noone)\s+(?:owns|is on|is driving|has picked)\b"
    r"|\b(?:doesn't|don't|does not|do not|hasn't|haven't)\s+(?:have|got)\s+an?\s+owner",
    re.IGNORECASE,
)


# A word every ``_NO_OWNER`` phrase holds: a sentence without any says no such thing.
_NO_OWNER_WORDS = frozenset("owner owners unowned grabs nobody noone neither one".split())
_SEVERAL = re.compile(r"\b(?:neither|none|both|either|all|any)\b")


def _said_unowned(
    per_sentence: list[tuple[str, list[_Draft], str | None, str | None]],
) -> set[str]:
    """Items a sentence says have no owner ("X has no owner", "Neither one has an owner
    yet" after naming them): the author's default ownership of them is withdrawn."""
    keys: set[str] = set()
    for k, (sentence, _found, _frame, _reason) in enumerate(per_sentence):
        low = sentence.lower()
        if ("owner" not in low and "grabs" not in low and "no" not in low) or not (
            _NO_OWNER.search(sentence)
        ):
            continue
        back = 3 if _SEVERAL.search(low) else 1  # "Neither one": both items named before
        for _s, near, _f, _r in per_sentence[max(0, k - back) : k + 1]:
            for d in near:
                for ref in (d.source, d.target):
                    if ref.type is EntityType.WORK_ITEM:
                        keys.add(_key(ref))
    return keys


_BOLD_LABEL = re.compile(r"\s*[-*+•]\s+\*\*(?P<label>[^*\n]{2,80}?)[:\s]*\*\*")


def _bold_label(reader: _Reader, line: str) -> None:
    """A bullet that opens with a bold label naming an item ("- **Postgres 16 on staging
    (INFRA-77)** — Hannah. ... Both X and Y need it.") is about that item: its "it" means
    the label's item, though no fact names it (a section title names none)."""
    m = _BOLD_LABEL.match(line)
    if m is None:
        return
    label = _normalise(m["label"])
    if not label or any(w.lower().strip(":") in _TITLE_WORDS for w in label.split()):
        return
    if any(t.cls not in "n&p" for t in tokenise(label)):
        return  # "**Blocked on X**": a statement, read as one
    seen = _Outcome()
    named = reader.items(label, seen)
    if named and len(named) == 1:
        reader.commit(seen, label)


def extract(text: str, author: str | None) -> Extraction:
    """Read blocker, ownership, completion and unblock facts from one status update.

    ``author`` is who wrote the update: first-person pronouns and subjectless bullets
    refer to them, and they own the work their update reports as blocked (rule 1)
    unless the text names another owner. Sentences that yield no fact are returned,
    stripped, in ``Extraction.unparsed``; nothing is guessed from them.
    """
    reader = _Reader(text, author)
    drafts: list[_Draft] = []
    unparsed: list[str] = []
    per_sentence: list[tuple[str, list[_Draft], str | None, str | None]] = []
    minutes = Minutes(text, author)
    # Lines that state a relation by layout alone ("Vault migration: Hiroshi", "Kojo:
    # pricing page copy") count only in meeting minutes (a roster, action items or a
    # meeting's title line): elsewhere "aaa: Bbb" may be anything.
    reader.structured = minutes.titled
    author = reader.author
    speaker: str | None = None
    said: str | None = None
    line = -1
    lines = text.splitlines() if "\n" in text else []  # bullets need lines to be under
    bullets = [
        line.lstrip()[:1] in _BULLET_LEADS and _BULLET_LINE.match(line) is not None
        for line in lines
    ]
    topic: tuple[str, int] | None = None  # a heading naming the item its bullets are about
    asked: tuple[str, int] | None = None  # the work a question asked the blockers of
    asked_owner: tuple[str, int] | None = None  # the work a question asked the holder of
    asked_before: str | None = None  # the last such work ("and the Y?" asks the same)
    listed = (-1, False)  # (line, whether it is a list of action items)
    sentences = sentence_lines(text)
    if "..." in text or (not text.isascii() and "…" in text):
        sentences = _trailing_off(sentences)
    for sentence, heading, number in sentences:
        if number != reader.line:
            reader.line, reader.line_topic = number, None
            if "**" in sentence:
                _bold_label(reader, lines[number] if lines else text)  # "- **X (T-1)** — Raj."
            if lines:
                topic = _line_topic(lines, bullets, number, topic)
                under = topic is not None and bullets[number] and _indent(lines[number]) > topic[1]
                reader.line_topic = topic[0] if topic is not None and under else None
        if number != listed[0]:
            whole = lines[number] if lines else text
            listed = (number, ";" in whole and _ACTION_LIST.match(whole) is not None)
        if minutes.active:
            if minutes.roster_line(sentence):
                per_sentence.append((sentence, [], None, "attendance list"))
                continue
            said = None
            if number != line:
                line, speaker = number, None
                if not listed[1] and (found_speaker := minutes.speaker(sentence)):
                    speaker, said = found_speaker
            reader.author = speaker
        answered = (
            _answer_to_wait(reader, sentence, asked) if asked and number == asked[1] + 1 else None
        )
        if (
            answered is None
            and asked_owner is not None
            and number == asked_owner[1] + 1
            and minutes.active
            and speaker is not None
            and said is not None
        ):
            answered = _answer_to_owner(reader, sentence, said, asked_owner[0])
        if answered is not None:
            outcomes, reason = [answered], None
        else:
            outcomes, reason = [], None
            if listed[1] and (entry := _action_entry(sentence)):
                outcomes, reason = _read_minutes_line(reader, minutes, entry, heading, None)
            if not outcomes:
                outcomes, reason = _read_minutes_line(reader, minutes, sentence, heading, said)
        asked = None
        if sentence.rstrip().endswith("?") and (question := _ASKED_WAIT.search(sentence)):
            asked = (question["x"] or question["y"], number)  # "what's holding X?"
        if sentence.rstrip().endswith("?"):
            wanted = _asked_owner(sentence, asked_before)
            asked_owner = (wanted, number) if wanted else None  # "who's got X?"
            asked_before = wanted or asked_before
        elif number != (asked_owner or ("", -1))[1]:
            asked_owner = None
        reader.end_sentence(outcomes)
        found = [d for out in outcomes for d in out.drafts]
        frames = [out.frame for out in outcomes if out.frame]
        frame = "+".join(dict.fromkeys(frames)) or None
        if frame is not None and not found:
            reason = "context only (names the topic item, states no fact)"
        per_sentence.append((sentence, found, frame, reason))
        drafts.extend(found)

    reader.author = author
    if reader.stuck and reader.author_ref is not None:
        _repoint_implied(per_sentence, reader.stuck[0], reader.author_ref)
    elif reader.author_ref is not None and any(d.implied for d in drafts):
        if (described := _described_change(reader, text)) is not None:
            _repoint_implied(per_sentence, described, reader.author_ref)
            drafts = [d for _s, found, _f, _r in per_sentence for d in found]
    explicit: dict[str, set[str]] = {}
    for d in drafts:
        if d.relation is Relation.OWNS and not d.tentative:
            explicit.setdefault(_key(d.target), set()).add(_key(d.source))
    # "Neither one has an owner yet"
    unowned = _said_unowned(per_sentence) if reader.says_unowned else set()

    done_by: dict[str, set[str]] = {}  # completions with a named doer
    for d in drafts:
        if d.relation is Relation.COMPLETED and not d.by_default:
            done_by.setdefault(_key(d.target), set()).add(_key(d.source))

    def keep(d: _Draft) -> bool:
        """Rule 1: author ownership stands only if nobody else is named as owner; rule 6:
        a completion is the author's only if nobody else is named as its doer."""
        if d.by_default:
            return done_by.get(_key(d.target), set()) <= {_key(d.source)}
        if not d.tentative:
            return True
        if _key(d.target) in unowned:
            return False
        return explicit.get(_key(d.target), set()) <= {_key(d.source)}

    facts: list[ExtractedFact] = []
    trace: list[SentenceTrace] = []
    seen: set[tuple[str, Relation, str]] = set()
    for sentence, found, frame, reason in per_sentence:
        kept = [d for d in found if keep(d)]
        if not kept:
            unparsed.append(sentence)
            if found and reason is None:
                reason = "author ownership withdrawn: the text names another owner"
        for d in kept:
            identity = (_key(d.source), d.relation, _key(d.target))
            if identity in seen:
                continue
            seen.add(identity)
            facts.append(ExtractedFact(d.source, d.relation, d.target, d.sentence))
        cue = bool(kept) or has_cue(sentence)
        trace.append(SentenceTrace(sentence, len(kept), frame, reason, cue))
    return Extraction(facts=facts, unparsed=unparsed, trace=trace)
