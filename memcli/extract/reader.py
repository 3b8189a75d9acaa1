"""The reader: sentences -> clauses -> frames -> facts, with a trace per sentence.

``extract`` walks an update sentence by sentence (``text.sentence_lines``), with the
minutes roster (``context.Minutes``) deciding who speaks on each line. A sentence with
no word of any frame is skipped after one set test, before it is even normalised. The
compositional core (``core.read_core``) reads the rest; the old template table
(``frames``) is asked only when the core found a predicate it could not read. Standup
sections ("Today: X", "Blockers: none") and action items are handled here. Rule 1 (the
author owns what they report blocked unless someone else is named) is applied at the
end, over the whole update.
"""

from __future__ import annotations

import re

from memcli.extract.context import Minutes, _Draft, _key, _Outcome, _Reader
from memcli.extract.core import action_assignee, core_cues, read_action, read_core
from memcli.extract.factuality import why_not
from memcli.extract.frames import _SUBORDINATE, read_clause
from memcli.extract.lexicon import CUE_TOKENS, TYPOS, has_cue
from memcli.extract.text import _normalise, addressee, sentence_lines
from memcli.models import ExtractedFact, Extraction, Relation, SentenceTrace

# --------------------------------------------------------------------------------------
# Clauses and the public entry point
# --------------------------------------------------------------------------------------

_RELATIVE_SPLIT = re.compile(
    r"(?P<main>.+?),?\s+which\s+(?P<rest>(?:is|are|was|were|has|have)\s+(?:been\s+)?(?:blocked"
    r"|waiting|stuck|stalled|held up|gated|shipped|done|landed|merged|dependent|pending"
    r"|on hold)\b[^,]*)",
    re.IGNORECASE,
)
_CLAUSE_SPLIT = re.compile(
    r"\s*[,;]\s*(?:and|but|so|while|whereas)?\s*|\s+(?:and|but|so|while|whereas)\s+",
    re.IGNORECASE,
)


# "X can't start until Y, owned by Amir, is done": an ownership aside in the middle of a
# sentence (often written as a parenthesis, which _normalise turns into commas). Read the
# sentence without it, then the aside as its own clause about the noun phrase before it,
# rather than splitting at the commas, which would make "is done" a completion of X.
_EMBEDDED_OWNER = re.compile(
    r"(?P<head>.+?),\s*(?P<own>owned by [^,]+|which [^,]+? owns?|handled by [^,]+"
    r"|from the [^,]+? team),\s*(?P<tail>.+)",
    re.IGNORECASE,
)
_NP_START = re.compile(
    r".*\b(?:until|till|because|since|before|after|on|by|for|behind|with|of|and|but|so)\s+",
    re.IGNORECASE,
)


def _split_embedded_owner(text: str) -> tuple[str, str] | None:
    """(sentence without the aside, the aside as a clause), or None."""
    m = _EMBEDDED_OWNER.fullmatch(text)
    if m is None:
        return None
    head, own = m["head"], m["own"].strip()
    phrase = _NP_START.sub("", head).strip()
    if not phrase:
        return None
    if own.lower().startswith("which"):
        owner = re.sub(r"^which\s+|\s+owns?$", "", own, flags=re.IGNORECASE)
        clause = f"{owner} owns {phrase}"
    else:
        clause = f"{phrase} is {own}"
    return f"{head} {m['tail']}", clause


# Words that can open a frame besides the lexicon's cues: status words ("slipping") name
# the topic item for a later "it", "on"/"with"/"'s" carry ownership ("Bob is on it").
_GATE = CUE_TOKENS | frozenset(
    """
    done complete live out in on with from behind until till before without first
    prerequisite prereq needed unblock moving free clear track slipping late delayed risk
    flaky broken progress review schedule red yellow green amber underway kicking starting
    next mess priority ready there available approved sorted stable wrapped shelved
    scrapped killed descoped abandoned finalized finalised decommissioned sunset
    sunsetted published good dead nowhere standstill ice door line over across gave
    handed given allocated delegated reassigned falls fall fell sits sit covered
    maintained championed built run led eta
    """.split()
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
_NONE = re.compile(
    r"\A(?:none|nope|nothing|no|n/?a|-+|—|–|none (?:rly|really|atm|today|for now)|all clear"
    r"|no blockers?|nothing (?:new|blocking))[.!]*\Z",
    re.IGNORECASE,
)
_GERUND = re.compile(
    r"\A(?:(?:still|continuing|back)\s+(?:on\s+)?)?(?:\w+ing)\s+(?=(?:the|a|an|our|my|some)\s)|"
    r"\A(?:back on|more|continuing|finishing up)\s+",
    re.IGNORECASE,
)


def _section(label: str | None) -> str | None:
    """ "doing", "blockers" or "done" for a section label, None for anything else."""
    if label is None:
        return None
    low = label.lower()
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
    if m := _SECTION.match(sentence):
        section, text = _section(m["label"]) or section, m["rest"].strip()
    if section == "blockers" and _NONE.match(text.strip(" *_")):
        return [], "states that nothing blocks"
    outcomes, reason = _read_sentence(reader, sentence)
    if outcomes or text is sentence and section != "doing":
        return outcomes, reason
    if text is not sentence:
        if section == "blockers" and not has_cue(text):
            text = f"blocked on {text}"
        outcomes, reason = _read_sentence(reader, sentence, text)
    if outcomes or section != "doing" or has_cue(text) or why_not(text.lower()):
        return outcomes, reason
    plain = _GERUND.sub("", _normalise(text), count=1)
    if len(plain.split()) > 8 or "," in plain:
        return outcomes, reason
    out = reader.owns(None, plain)
    if out is None or not out.drafts:
        return outcomes, reason
    out.frame = "section-doing"
    reader.commit(out, plain)
    return [out], None


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
    raw = (sentence if text is None else text).lower()
    words = _WORDS.findall(raw)
    if _cues().isdisjoint(words) and "'" not in raw and "’" not in raw:
        if not any(w in TYPOS for w in words):
            return [], "no predicate"  # no word of any frame: not worth normalising
    text = _normalise(sentence if text is None else text)
    if not text:
        return [], "no words"
    lowered = text.lower()
    outcomes = _read_clauses(reader, text)
    if outcomes:
        return outcomes, None
    if not has_cue(lowered):
        return [], "no predicate"
    return [], why_not(lowered) or "predicate without readable arguments"


_CUES: frozenset[str] = frozenset()


def _cues() -> frozenset[str]:
    global _CUES
    if not _CUES:
        _CUES = core_cues()
    return _CUES


def _read_clauses(reader: _Reader, text: str) -> list[_Outcome]:
    """The compositional core first; the old frames read what it does not (yet)."""
    outcomes, reason = read_core(reader, text)
    if outcomes or reason in _NOT_ASSERTED:
        return outcomes
    return _read_clauses_old(reader, text)


# Reasons the core gives for a clause it understood but that asserts nothing: the old
# frames are not asked to read it again.
_NOT_ASSERTED = frozenset(
    {
        "hedged",
        "negated",
        "conditional",
        "a decision, question or plan",
        "no predicate",
        "a measurement, not a work item",
    }
)


def _read_clauses_old(reader: _Reader, text: str) -> list[_Outcome]:
    """Whole sentence first, then a trailing relative clause, an aside, or clauses."""
    rel = _RELATIVE_SPLIT.fullmatch(text)
    if rel:
        main = read_clause(reader, rel["main"])
        if main is not None:
            reader.commit(main, rel["main"])
            rest = read_clause(reader, "it " + rel["rest"])
            if rest is not None:
                reader.commit(rest, rel["rest"])
                return [main, rest]
            return [main]
    whole = read_clause(reader, text)
    if whole is not None:
        reader.commit(whole, text)
        return [whole]
    embedded = _split_embedded_owner(text)
    if embedded is not None:
        main = read_clause(reader, embedded[0])
        if main is not None:
            reader.commit(main, embedded[0])
            aside = read_clause(reader, embedded[1])
            if aside is None:
                return [main]
            reader.commit(aside, embedded[1])
            return [main, aside]
    outcomes: list[_Outcome] = []
    parts = [p for p in _CLAUSE_SPLIT.split(text) if p and p.strip()]
    if len(parts) < 2 or _SUBORDINATE.match(text):
        return outcomes
    previous_subject: str | None = None
    for part in parts:
        part = _normalise(part)
        out = read_clause(reader, part)
        subject = reader.subject
        if subject is None and previous_subject is not None:
            # "The data team owns X and is working on Y": Y's owner is the data team.
            borrowed = read_clause(reader, f"{previous_subject} {part}")
            if borrowed is not None:
                out, subject = borrowed, previous_subject
        if out is not None:
            reader.commit(out, part)
            outcomes.append(out)
            previous_subject = subject
    return outcomes


_ACTION_START = re.compile(r"\W*(?:action|ai\b|todo|to-do|follow|next)", re.IGNORECASE)


def _read_minutes_line(
    reader: _Reader, minutes: Minutes, sentence: str, heading: str | None, said: str | None
) -> tuple[list[_Outcome], str | None]:
    """Read a line: an action item, what a speaker said, or an ordinary sentence."""
    plain = _normalise(sentence) if _ACTION_START.match(sentence) else ""
    if plain and (who := action_assignee(plain)) is not None:
        reader.sentence = sentence
        out = read_action(reader, plain, minutes.who(who) if minutes.active else None)
        if out is not None and out.drafts:
            reader.commit(out, plain)
            return [out], None
        return [], "action item without a readable assignee and object"
    if said is not None and said is not sentence:
        return _read_sentence(reader, sentence, said)
    return _read_line(reader, sentence, heading)


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
    minutes = Minutes(text)
    author = reader.author
    speaker: str | None = None
    said: str | None = None
    line = -1
    for sentence, heading, number in sentence_lines(text):
        if number != reader.line:
            reader.line, reader.line_topic = number, None
        if minutes.active:
            if minutes.roster_line(sentence):
                per_sentence.append((sentence, [], None, "attendance list"))
                continue
            said = None
            if number != line:
                line, speaker = number, None
                if found_speaker := minutes.speaker(sentence):
                    speaker, said = found_speaker
            reader.author = speaker
        outcomes, reason = _read_minutes_line(reader, minutes, sentence, heading, said)
        reader.end_sentence(outcomes)
        found = [d for out in outcomes for d in out.drafts]
        frames = [out.frame for out in outcomes if out.frame]
        frame = "+".join(dict.fromkeys(frames)) or None
        if frame is not None and not found:
            reason = "context only (names the topic item, states no fact)"
        per_sentence.append((sentence, found, frame, reason))
        drafts.extend(found)

    reader.author = author
    explicit: dict[str, set[str]] = {}
    for d in drafts:
        if d.relation is Relation.OWNS and not d.tentative:
            explicit.setdefault(_key(d.target), set()).add(_key(d.source))

    def keep(d: _Draft) -> bool:
        """Rule 1: author ownership stands only if nobody else is named as owner."""
        if not d.tentative:
            return True
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
