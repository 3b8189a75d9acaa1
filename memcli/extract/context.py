"""Discourse context: who "I", "she", "they", "it" and "that work" are.

``_Reader`` reads one update sentence by sentence and carries what later sentences
need: the author, the current topic work item, the last person and team named, each
owner's current work item, what each item waits on. Its relation handlers turn a
frame's raw argument text into typed facts (via ``memcli.extract.phrases``) and apply
the author rules of the README contract. The state lives for one ``extract`` call.

``Minutes`` recognises meeting minutes (an attendance line, or action items) and the
speaker of each line: the speaker stands where the author stands, and the note-taker is
a scribe who owns and completes nothing by default.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from memcli.extract.factuality import lowercase_twin
from memcli.extract.phrases import (
    _ACRONYM,
    _AGENT_SPLIT,
    _BEFORE_START,
    _FIRST_PERSON,
    _FOR_TAIL,
    _LEADING_ARTICLE,
    _MEMBER_IN,
    _MEMBER_OF,
    _NON_NAMES,
    _NOT_NAMES,
    _NOUN_SUFFIXES,
    _ON_STOPLIST,
    _ORG_UNITS,
    _PLURAL_PERSON,
    _PRONOUNS,
    _REFS,
    _SELF_GROUPS,
    _THIRD_PERSON,
    _agent_shaped,
    _is_org,
    _is_team,
    _name_like,
    _name_token,
    _orgish,
    _parse_phrase,
    _Phrase,
    _split_waiters,
    _trim,
    _valid_core,
    split_named_items,
)
from memcli.models import RELATION_TYPES, EntityRef, EntityType, Relation

PERSON = EntityType.PERSON
TEAM = EntityType.TEAM
ITEM = EntityType.WORK_ITEM

# --------------------------------------------------------------------------------------
# Per-text reading state
# --------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Draft:
    """A fact before dedupe; ``tentative`` marks rule-1 author ownership."""

    source: EntityRef
    relation: Relation
    target: EntityRef
    sentence: str
    tentative: bool = False
    implied: bool = False  # a subjectless wait ("Depends on #7") put on the author
    by_default: bool = False  # a completion credited to the author for want of a doer


@dataclass(slots=True)
class _Outcome:
    """What one pattern read from one clause, and the context it updates."""

    drafts: list[_Draft] = field(default_factory=list)
    items: list[EntityRef] = field(default_factory=list)
    people: list[EntityRef] = field(default_factory=list)
    teams: list[EntityRef] = field(default_factory=list)
    current: list[tuple[str, EntityRef]] = field(default_factory=list)
    frame: str = ""  # the frame that read the clause, for the trace


# "I'm" and "I've" typed without the apostrophe.
_TYPED_I = frozenset({"im", "ive"})
# "the latter", "the former": one item of a pair named together before.
_ORDINAL_REFS = frozenset({"latter", "the latter", "former", "the former"})
# A step of an item named by its place alone: "the last cutover", "the final step".
_STEP_OF = re.compile(
    r"(?:the\s+)?(?P<which>last|final|remaining|first|second|third|next)\s+(?:cutover|step|steps"
    r"|piece|pieces|bit|bits|part|parts|phase|stage|batch|leg|chunk|round|wave|tranche)"
)
_STEP_FIRST = frozenset("the last final remaining first second third next".split())
# An event of the line's heading item named bare: "AP automation: go-live complete".
_BARE_EVENTS = frozenset("go-live golive rollout roll-out launch cutover cut-over".split())
# What ``_Reader._special`` reads: one set look-up (or two) lets every other name pass.
_SPECIAL_FIRST = frozenset("the last final remaining first second third next its their".split())
# "the rest", "the remainder": what is left of the item named before.
_PROJECT_STEMS = ("roject", "rogram", "nitiative", "peration", "ROJECT", "ROGRAM")
_PROJECT_WORDS = ("project", "programme", "program", "initiative", "operation")
_REST_REFS = frozenset({"rest", "the rest", "remainder", "the remainder", "remaining work"})
_SPECIAL_REFS = _BARE_EVENTS | _ORDINAL_REFS | _REST_REFS
# A part of an item is not the item: "half of the migration is done" completes nothing.
_PART_OF = re.compile(
    r"\s*(?:the\s+)?(?:half|most|part|parts|some|bulk|majority|portion|first\s+half"
    r"|first\s+part|\d+\s*%|\d+\s+(?:out\s+)?of\s+\d+|(?:first|second|third|next)\s+"
    r"(?:batch|phase|part|wave|stage|chunk|round|tranche|slice))\s+of\s",
    re.IGNORECASE,
)
# Some of an item's pieces done is not the item done: "three of the five migrations",
# "2 PRs for the SSO fix" ("the last two tickets for X" finish X).
_PIECES_OF = re.compile(
    r"\s*(?:the\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few|few"
    r"|a\s+couple(?:\s+of)?|some)\s+(?:of\s|(?:more\s+)?(?:tickets?|prs?|pull\s+requests?"
    r"|bits?|pieces?|items?|tasks?|changes?|fixes|steps?|issues?|cards?|stories|commits?"
    r"|patches|subtasks?|bugs?|parts?)\s+(?:for|of|on)\s)",
    re.IGNORECASE,
)
# Done for some of its parts only: "complete for 61 of 64 controls", "12/20 migrated".
_DONE_FOR_SOME = re.compile(
    r"\b(?:complete|completed|done|finished|migrated|shipped)\s+(?:for|on|in)\s+\d+\s*"
    r"(?:of|out of|/)\s*\d+\b|\b\d+\s*(?:of|out of|/)\s*\d+\s+(?:\w+\s+)?"
    r"(?:are\s+|is\s+)?(?:done|complete|completed|finished|migrated)\b",
    re.IGNORECASE,
)
# Events of an item: "its rollout is pending X" is about the item itself.
_EVENT_NOUNS = frozenset(
    """rollout roll-out launch release completion delivery deployment go-live golive
    progress start kickoff kick-off implementation cutover merge landing finalisation
    finalization sign-off signoff testing timeline schedule readiness adoption rollback
    enablement activation approval""".split()
)
# Generic heads an update's title can carry with a name or number of its own: "Release
# 8.4", "Project Heron", "the Atlas programme", "Milestone 3".
_TITLE_HEADS = frozenset(
    """release project programme program milestone initiative epic migration launch
    workstream upgrade rollout sprint phase""".split()
)
_TITLE_AFTER = re.compile(
    r"\b[A-Za-z]+[ \t]+(?:v?\d[\w.]*|[A-Z][\w-]+(?:[ \t]+[A-Z][\w-]+)?)(?![\w'’])"
)
_TITLE_BEFORE = re.compile(r"\b[A-Z][\w-]+[ \t]+[a-z]+\b")
# Words that open a quantity or a part of an item rather than its name: "all three
# ranking patches", "both of the retry fixes", "the first pass at the banner copy".
_CLIP_FIRST = frozenset(
    """all both each every two three four five six seven eight nine ten several first
    initial remaining last final rest bulk most half""".split()
)
_CLIP_LEAD = re.compile(
    r"(?:(?:all|both|each|every)(?:\s+(?:two|three|four|five|six|seven|eight|nine|ten|\d+))?"
    r"(?:\s+of)?\s+(?:the\s+|our\s+|my\s+)?"
    r"(?:(?:two|three|four|five|six|seven|eight|nine|ten|\d+)\s+)?"
    r"|(?:two|three|four|five|six|seven|eight|nine|ten|several)\s+of\s+(?:the|our|my)\s+"
    r"|(?:first|initial|final|last)\s+(?:pass|cut|round|sweep|iteration)\s+(?:at|of|on)\s+"
    r"(?:the\s+|our\s+|my\s+)?"
    r"|(?:remaining|last|final)\s+(?:bits?|pieces?|parts?|items?|tasks?)\s+(?:of|on|for)\s+"
    r"(?:the\s+|our\s+|my\s+)?"
    r"|(?:rest|bulk|most|half)\s+of\s+(?:the\s+|our\s+|my\s+)?)",
    re.IGNORECASE,
)
# "X off Priya's plate": where the work came from, not part of its name.
_CLIP_OFF = re.compile(
    r"\s+off\s+(?:[\w@-]+['’]s|my|our|his|her|their|your|the)\s+"
    r"(?:plate|hands|desk|list|backlog|radar|shoulders|queue|board)\b.*\Z",
    re.IGNORECASE,
)


# A clause swallowed into a noun phrase: "<Name> demoed the X", "team finished an X".
_SWALLOWED = re.compile(
    r"(?:\S+\s+){1,3}?(?P<verb>[a-z]{3,}ed)\s+(?:(?:back|out|up|over|off|down|in)\s+)?"
    r"(?:the|a|an|our|their|his|her|my)\s+(?P<rest>\S.*)"
)


# What a swallowed clause or a verb-first phrase needs: "-ed" before a determiner.
_SWALLOW_HINT = re.compile(
    r"ed (?:(?:back|out|up|over|off|down|in) )?(?:the|a|an|our|their|his|her|my|that|this"
    r"|it|them|those|these)\b"
)
_VERB_FIRST = re.compile(r"[a-z]{3,}ed\s+(?:that|this|it|them|those|these)\b")


_CLAUSE_PART = re.compile(
    r"(?:[a-z]{3,}ed|found|made|did|got|took|wrote|sent|built|ran|saw|dug)\s+"
    r"(?:that|this|it|them|those|these|the|a|an)\b"
)


_HANDLE = re.compile(r"(?<![\w.])@([A-Za-z][\w.-]*[A-Za-z0-9])")
_HANDLE_ON = re.compile(r"@?[\w.-]+\s+(?:on|for|with)\s+(?:the\s+|their\s+)?(?P<rest>\S.*)")
_LEAD_PREPS = frozenset(
    "against across through via toward towards within without behind beyond per upon".split()
)
_TICKET_ID = r"(?:[A-Z][A-Z0-9]+-\d+|#\d+)"
# A ticket id written beside its item's name: the name names it ("use the name").
_TITLED_TICKET = re.compile(
    rf"{_TICKET_ID}\s+(?P<name>[a-z][\w/-]*(?:\s+[\w/-]+)+)"
    rf"|(?P<head>\S+(?:\s+\S+)+?)\s+(?:ticket|issue|card|story|epic)\s+{_TICKET_ID}"
)


def _reshape(core: str, low: str, first: str) -> str | None:
    """A multi-word item phrase without what is no part of its name (see ``_clip``,
    ``_SWALLOWED``, ``_HANDLE_ON``, ``_TITLED_TICKET``), ``core`` itself when nothing
    changes, or None when the phrase is a clause or a place rather than a name."""
    if (" following " in low or " despite " in low or " amid" in low or " ahead of " in low) and (
        cut := _adjunct_at(low)
    ) > 0:
        core, low = core[:cut], low[:cut]  # "the SSO rollout following Mei's move"
        if " " not in low:
            return core
        first = low[: low.index(" ")]
    if first in _CLIP_FIRST and _SOME_OF_THEM.fullmatch(low):
        return None  # "both of those", "all of them": a reference to several, no name
    if first in _CLIP_FIRST or " off " in low:
        core = _clip(core)  # "all three ranking patches", "X off Priya's plate"
        low = core.lower()
        first = low.split(" ", 1)[0]
    if "ed " in low and _SWALLOW_HINT.search(low):
        if (m := _SWALLOWED.match(core)) is not None:
            core = m["rest"]  # "Pita demoed the new search filters": the filters
            low = core.lower()
            first = low.split(" ", 1)[0]
        if _VERB_FIRST.match(low):
            return None  # "patched that": a clause, no name
    if first in _LEAD_PREPS:
        return None  # "against prod": a phrase about where, no item
    if (first[:1] == "@" or first in _ORG_UNITS) and (m := _HANDLE_ON.fullmatch(core)):
        core = m["rest"]  # "blocked by @infra on the VPN change": the change
    elif (
        ("-" in core or "#" in core)
        and (core[:1] == "#" or core[:2].isupper() or _TICKET_WORDS.search(low))
        and (m := _TITLED_TICKET.fullmatch(core))
    ):
        core = m["name"] or m["head"]  # "DOC-21 tutorials refresh", "X ticket SEC-77"
    return core


_SOME_OF_THEM = re.compile(
    r"(?:all|both|each|every|two|three|several|most|half|rest)(?:\s+\w+)?\s+of\s+"
    r"(?:those|these|them|us|it|which)"
)
_TICKET_WORDS = re.compile(r" (?:ticket|issue|card|story|epic) ")
# Words written like nouns or verbs that open an adjunct, never part of a name.
_ADJUNCTS = (" following ", " despite ", " amid ", " amidst ", " ahead of ")


def _adjunct_at(low: str) -> int:
    """Where a "following ...", "despite ...", "ahead of ..." adjunct starts (-1: none)."""
    if " following " in low or " despite " in low or " amid" in low or " ahead of " in low:
        return min(at for opener in _ADJUNCTS if (at := low.find(opener)) > 0)
    return -1


def _clip(core: str) -> str:
    """An item's name without a leading quantity or part ("all three", "the first pass
    at", "the remaining bits of") and without a trailing "off <someone>'s plate"; a
    clipped name keeps at least two words, else the phrase is left as it was."""
    clipped = _CLIP_OFF.sub("", core)
    if (m := _CLIP_LEAD.match(clipped)) is not None:
        rest = clipped[m.end() :]
        if len(rest.split()) >= 2:
            clipped = rest
    return clipped if clipped.split() else core


# Resources, consensus and seasons are what work needs, not work items: "depends on
# security headcount", "paused by agreement with product", "postponed until the new year".
_NOT_WORK_HEADS = frozenset(
    """headcount budget budgets funding capacity bandwidth hiring hires consensus alignment
    buy-in priority priorities holidays""".split()
)
_AGREEMENT = frozenset("agreement consensus alignment".split())
_NOT_WORK_PHRASES = frozenset(
    {"new year", "the new year", "next year", "year end", "year-end", "end of year"}
    | {"holiday season", "the break", "new quarter", "next quarter"}
    | {"look", "quick look", "stab", "peek", "glance", "first look"}  # "take a look at X"
    | {"team", "teams", "role", "roles", "job", "jobs", "desk", "desks", "office", "house"}
    | {"code", "the code", "root cause", "the root cause"}  # "code complete", a cause
)
_NOT_WORK_ANY = _NOT_WORK_HEADS | _AGREEMENT | _NOT_WORK_PHRASES
# Vague amounts are no item: "a lot of legacy code", "a bunch of tickets".
_VAGUE_AMOUNT = re.compile(r"(?:a\s+)?(?:lot|lots|bunch|ton|tons|plenty|load|loads)\s+of\s")
# Things that get blocked in the ordinary sense: an address, an account, traffic.
_ORDINARY_BLOCKED = frozenset(
    """ip ips address addresses account accounts user users sender senders traffic bot bots
    crawler crawlers spammer spammers""".split()
)


def _not_work(low: str) -> bool:
    """Whether a lowercased phrase names a resource, a consensus or a season (its head),
    or opens with one and goes on as a clause ("headcount staying stable")."""
    if low in _NOT_WORK_PHRASES or low[low.rfind(" ") + 1 :] in _NOT_WORK_HEADS:
        return True
    if " " not in low:
        return low in _AGREEMENT
    first, _, rest = low.partition(" ")
    if first in _AGREEMENT and rest.startswith(("with ", "from ", "between ")):
        return True  # "by agreement with product"; a "peering agreement" is a contract
    if first in _NOT_WORK_HEADS and rest.split(" ", 1)[0].endswith("ing"):
        return True  # "headcount staying stable"
    return "of " in low and _VAGUE_AMOUNT.match(low) is not None


def _ordinary_blocked(name: str) -> bool:
    """ "our runner's IP", "the spam accounts": blocked in the everyday sense (the head
    noun, before any "for ..." or "of ...", is an address, an account or traffic)."""
    words = name.lower().split()
    cut = next((k for k, w in enumerate(words) if w in _HEAD_LINKS), len(words))
    return cut > 0 and words[cut - 1] in _ORDINARY_BLOCKED


_HEAD_LINKS = frozenset("for of on in to from with at by".split())
_NOT_TITLE_LINE = re.compile(r"[,!?;()@]|\.(?:\s|$)|\A\s*(?:[-*+•]|\d+[.)])\s")
_TITLE_TAIL = frozenset("readiness status update updates notes plan progress tracker".split())
_CLAUSE_END = re.compile(r"[.;!?\n]\s*")
_STATE_SUBJECT = re.compile(
    r"\s*(?:[-*•]\s*)?(?:the|our|my)\s+(?P<np>[\w/-]+(?:\s+[\w/-]+){0,4}?)\s+"
    r"(?:is|are|was|were|has|have|remains|remain|stays|looks)\b",
    re.IGNORECASE,
)
_TITLE_NOT_NAMES = frozenset(
    """the a an our my their his her its this that these those next last first new
    current upcoming weekly monthly daily q1 q2 q3 q4 status""".split()
)


_LINK_STOP = frozenset("the a an our my their his her its this that new for of on to in".split())


@lru_cache(maxsize=256)  # asked of every item named so far, each time an item is read
def _content_words(name: str) -> frozenset[str]:
    return frozenset(w for w in name.lower().split() if w not in _LINK_STOP)


_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")  # starts with a letter: islower() is "== lower()"


_TYPE_KEYS = {kind: f"{kind}:" for kind in EntityType}  # formatting an enum costs a call


def _possessed(phrase: _Phrase, raw: str) -> bool:
    """Whether a named owner of ``phrase`` is written as a possessive in ``raw``
    ("Odile's fare table"), not a source ("the fare table from Odile")."""
    return any(f"{o}'s" in raw or f"{o}’s" in raw or f"{o}' " in raw for o in phrase.owners)


def _key(ref: EntityRef) -> str:
    """Case-insensitive identity of an entity inside one text."""
    return _TYPE_KEYS[ref.type] + ref.name.casefold()


# The work the update is about, named by what is left of it: "the real work is stuck".
# A template's "Blocked:" line speaks for the writer, not for the line above it.
_BLOCKED_LABEL = re.compile(r"\s*[-*•]?\s*(?i:blocked|blockers?|blocking|b)\s*[:—–-]")
_TOPIC_REFS = frozenset(
    {"real work", "the real work", "actual work", "the actual work", "proper work"}
    | {"the real thing", "real thing", "real part", "the real part", "real stuff"}
    # "Loom repair: ... Progress is stuck on X": the progress of the topic item
    | {"progress", "further progress", "any progress", "all progress", "work", "further work"}
)
# What is left of the topic item, counted: "the remaining five are waiting on X".
_REMAINING_FIRST = ("the remaining ", "remaining ", "the other ", "the last ")
_REMAINING = re.compile(
    r"(?:the\s+)?(?:remaining|other|last)\s+(?:\d+|two|three|four|five|six|seven|eight|nine"
    r"|ten|eleven|twelve|few|ones?)(?:\s+left)?"
)
# "anything beyond scaffolding", "everything past the stubs": the rest of the topic item.
_BEYOND_FIRST = ("anything ", "everything ", "all ", "whatever ", "most ")
_BEYOND = re.compile(
    r"(?:anything|everything|all|whatever|most)(?:\s+else)?\s+(?:beyond|past|after|other than"
    r"|besides|apart from|except)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?"
)
# The work still to do on an item, named by the item: "the real integration for WEB-88",
# "the real testing of the exporter", "the remaining wiring for PAY-3".
_REAL_FIRST = ("real ", "actual ", "proper ", "remaining ")
_REAL_WORK_ON = re.compile(
    r"(?i:real|actual|proper|remaining)\s+(?i:work|integration|implementation|testing|wiring"
    r"|hookup|hook-up|rollout|build|coding|dev|development)\s+(?i:on|for|of)\s+(?P<item>\S.*)"
)
# A part of the topic item named by its place: "that half is parked", "the indexing half
# relies on X", "the other part".
_PART_HEADS = (" half", " part", " portion")
_PART_REF = re.compile(r"(?:that|this|the other|the|(?:the\s+)?[\w-]+)\s+(?:half|part|portion)")
# A title line naming a ticket: "**QA-57 · Login regression suite** — comment by Jo".
_TITLE_TICKET = re.compile(
    r"[#*_\s]*(?P<id>[A-Z][A-Z0-9]+-\d+|(?:(?:PR|MR)\s*)?#\d+)[*_]*"
    r"(?:(?:\s*[·:—–|-]\s*|\s+(?=[A-Za-z]))(?P<title>[^*\n—–]+?))?"  # "OPS-7 Disk alerts"
    r"[*_]*\s*(?:[—–-]\s*(?:comment|reply|update|note)\b.*)?\Z",
    re.IGNORECASE,
)
# A ticket the whole update opens with as a label: "**PLAT-415** — ...", "OPS-7: ...".
_OPENING_TICKET = re.compile(
    r"[#*_\s]*(?P<id>[A-Z][A-Z0-9]+-\d+|(?:(?:PR|MR)\s*)?#\d+)[*_]*\s*[:—–]\s*\S"
)
# The ticket an issue comment sits on, named by how the comment opens: "Comment on PAY-9:",
# "(on MOB-3)", "Update on org/web#31:", "Triage note on #12:", "Status on OPS-4 (disk
# alerts)", "[comment on WEB-20]"; a title line "org/app#14 Staging site", "OPS-8 · reply".
_PAGE_ID = (
    r"(?:[A-Za-z][\w.-]*/[\w.-]+#\d+|[A-Za-z][\w-]*#\d+|[A-Z][A-Z0-9]+-\d+|(?:(?:PR|MR)\s*)?#\d+)"
)
_PAGE_NAME = r"(?:\s*\((?P<name>[^()\n]{2,60})\))?"
_COMMENT_ON = re.compile(
    r"[\s*_>]*(?:[(\[]\s*(?i:comment(?:ing)?\s+|notes?\s+)?(?i:on)\s+"
    r"|(?i:re:\s*)?(?:[A-Za-z]+\s+)?(?i:comment(?:ing)?|update|status|notes?|reply|follow-?up)"
    r"(?:\s+(?i:here|again))?\s+(?i:on|for)\s+)"
    rf"(?P<id>{_PAGE_ID}){_PAGE_NAME}(?![\w#/-])"
)
_PAGE_TITLE = re.compile(
    rf"[#*_\s]*(?i:re:\s*)?(?P<id>{_PAGE_ID})[*_]*(?:\s*[·:—–|-]\s*|\s+(?=[A-Za-z])|\s*\Z)"
    r"(?P<title>[^*\n—–]*?)[*_]*\s*\Z"
)
# The update opens with a ticket as its subject or label: "SRCH-4 (reindex) is deployed.",
# "PR #66 merged — ...", "DE-5: the DB team finished ...".
_OPENING_PAGE = re.compile(
    rf"[\s*_]*(?P<id>{_PAGE_ID}){_PAGE_NAME}[*_]*(?:\s*[:—–]\s|\s+(?:is|was|has|had|got|merged"
    r"|shipped|landed|deployed|closed|released|can|can't|cannot|needs|depends)\b)"
)
# What joins a clause that ends on a ticket to one opening with "it": "PR #7 but it".
_CLAUSE_JOIN = re.compile(r"(?:\s*\([^)]*\))?\s*[,;:—–-]?\s*(?:(?i:but|and|so|though|yet)\s+)?")
_LABEL_TICKET = re.compile(
    rf"(?i:ticket\s+|issue\s+)?(?P<id>{_PAGE_ID})(?:\s*\((?P<name>[^()]{{2,60}})\)?)?"
)
_PAGE_NOT_TITLES = frozenset(
    "comment comments reply update note notes progress status follow-up followup".split()
)
# A title that reports a symptom names the ticket by its id: "cache shows stale rows".
_SYMPTOM_TITLE = re.compile(
    r"\b(?:shows?|crash(?:es)?|fails?|returns?|breaks?|hangs?|throws?|is|are|isn't|aren't"
    r"|doesn't|does not|can't|cannot|won't|not)\b",
    re.IGNORECASE,
)
# "this" and "this <ticket word>" in a comment on a ticket name that ticket.
_PAGE_NOUNS = frozenset("one ticket issue pr mr epic story card bug task rfi request".split())
# A clause that states something of its subject, for a waiting "it" after it: "the
# kiln rebuild has been deferred", "OPS-9 is still open", "X is, in effect, on hold".
_STATE_CLAUSE = re.compile(
    r"\s*(?:[-*•]\s*)?(?:(?i:the|our|my)\s+)?(?P<np>[\w/#.-]+(?:\s+[\w/#.'’-]+){0,9}?)"
    r"(?:\s*\((?P<name>[^)]*)\))?(?:\s+(?i:planned|scheduled|requested|proposed)\b[^,;:]*?)?"
    r"\s+(?i:is|are|was|were|remains|remain|stays|has been|have been|had been)\b(?P<tail>.*)"
)
_DONE_STATE = re.compile(
    r"(?:,[^,]*,)?\s*(?i:now\s+|finally\s+|all\s+)?(?i:done|merged|shipped|landed|finished|complete"
    r"|completed|out|live|in|released|deployed|fixed|resolved|approved|sorted|closed|ready"
    r"|through|back|available|unblocked|free|clear)\b"
)
# "about the widget:", "re the importer —": the clause names its subject only.
_ABOUT_SUBJECT = re.compile(
    r"\s*(?:[-*•]\s*)?(?i:about|re:?|regarding|as for)\s+(?:(?i:the|our|my)\s+)?"
    r"(?P<np>[\w/#.-]+(?:\s+[\w/#.'’-]+){0,5})\s*"
)
# Pronouns that point at the item named last, not at the topic: after "X is blocked on
# Y", "It also needs Z" is X, but "That is waiting on Z" is Y.
_DEMONSTRATIVES = frozenset({"that", "those", "these", "that one", "that item"})
_PLURAL_REFS = frozenset({"them", "they", "those", "these"})
# Heads too vague to find a name by ("that thing", "that one").
_SAME_HEADS_VAGUE = frozenset("one ones thing things stuff work item task piece bit part".split())
_CHAT_OPENERS = frozenset(
    "cc fyi hey hi hello ping ok okay update note also so quick heads thanks status".split()
)
# A label a sentence opens with: "Vendor portal — ...", "- Kiosk mode: ...".
_OPENING_LABEL = re.compile(
    r"\s*(?:[-*•]\s*)?(?i:re:\s*|fwd?:\s*)?[*_]*(?P<np>[^—–:,.;!?*_]{2,60}?)[*_]*\s*[—–:]\s"
)
# The subject a sentence opens with, before its verb: "our audit export (DATA-3) reads".
_OPENING_SUBJECT = re.compile(
    r"\s*(?:[-*•]\s*)?(?:[\w-]{1,20}:\s+)?(?i:the|our|my|their)\s+(?P<np>[\w/-]+(?:\s+[\w/-]+){0,4}?)\s+"
    r"(?:\([^)]*\)\s+)?(?:is|are|was|were|has|have|[a-z]{2,}s)\b"
)


# One team named by two words joined with "&": "the Safety & Estates team".
_JOINT_TEAM = re.compile(
    r"(?:the\s+)?[A-Z][\w-]*\s+&\s+[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?\s+"
    r"(?:group|team|office|board|committee|unit|squad|guild|department|dept)"
)


def _page_ref(ticket: str, name: str | None) -> EntityRef:
    """A ticket named by the name written beside it when that is a name, else its id."""
    name = (name or "").strip()
    if name and _valid_core(name) and not re.fullmatch(_PAGE_ID, name):
        return EntityRef(_parse_phrase(name).core, ITEM)
    return EntityRef(" ".join(ticket.split()), ITEM)


def _plural_head(name: str) -> bool:
    """Whether a name's head noun (its last word before any "for/of/on ...") is plural."""
    words = name.lower().split()
    cut = next((k for k, w in enumerate(words) if w in _HEAD_LINKS), len(words))
    head = words[cut - 1] if cut else ""
    return len(head) > 3 and head.endswith("s") and not head.endswith(("ss", "us", "is"))


class _Reader:
    """Reads one text sentence by sentence, carrying the context rules need.

    The state lives only for one ``extract`` call; nothing module-level is mutated.
    """

    def __init__(self, text: str, author: str | None) -> None:
        self.author = author.strip() if author and author.strip() else None
        self._text = text
        self._lower_words: frozenset[str] | None = None
        self._handles: frozenset[str] | None = None
        self.last_item: EntityRef | None = None
        self.last_person: EntityRef | None = None
        self.last_team: EntityRef | None = None
        self.current: dict[str, EntityRef] = {}
        self.waits: dict[str, list[EntityRef]] = {}
        self.owner_of: dict[str, EntityRef] = {}
        self.sentence = ""
        self.subject: str | None = None
        self.addressee: str | None = None  # "@mehmet you keep X": you is Mehmet
        self.recent_done: str | None = None  # the last item reported done
        # "X is unblocked!" with its reason still to come: (X, the line it was said on)
        self.freed_waiting: tuple[str, int] | None = None
        self.known: list[EntityRef] = []  # work items named so far, oldest first
        self.line = -1  # the line being read, and the "Heading:" that opened it
        self.line_topic: str | None = None
        self._author_of_ref: str | None = None  # ``author_ref`` is made for this author
        self._author_ref: EntityRef | None = None
        self.one_line = "\n" not in text.strip()
        self.structured = True  # set by ``reader.extract`` (see there)
        self.last_wait: tuple[EntityRef, EntityRef] | None = None  # (waiter, blocker)
        self.wait_line = -1  # the line it was read on
        # The sentence being read says "in turn" or "itself": a chain of waits, whose
        # pronoun is the blocker named last ("X waits on Y. That in turn needs Z": Y)
        self.chained = False
        self.stuck: list[EntityRef] = []  # items said not to move ("can't land X until")
        self.pair: tuple[EntityRef, EntityRef] | None = None  # the former, the latter
        self._lowered: str | None = None  # the text lowercased, made on first use
        self._projects: bool | None = None  # whether the text names any project
        self.says_unowned = False  # a sentence says something has no owner (reader.py)
        self.working: EntityRef | None = None  # the item the author says they work on
        self.working_line = -1  # the line that said so
        self.item_line = -1  # the line the last item was named on
        self.label_line = -1  # the line whose own "Label:" names ``line_topic``
        self._page: tuple[EntityRef | None] | None = None  # the ticket a comment is on
        self._page_id: str | None = None  # its id ("PAY-9", "org/web#31")

    @property
    def handles(self) -> frozenset[str]:
        """The "@name" handles the text writes, lowercased, without the "@" (made on
        first use): "hana.sato" is a person where the text wrote "@hana.sato", though
        the reader's words lose the "@" and a dotted name is shaped like no name."""
        if self._handles is None:
            self._handles = (
                frozenset(h.lower() for h in _HANDLE.findall(self._text))
                if "@" in self._text
                else frozenset()
            )
        return self._handles

    @property
    def lower_words(self) -> frozenset[str]:
        """The words the text writes in lowercase (made on first use: many updates never
        ask, and it is a scan of the whole text)."""
        if self._lower_words is None:
            self._lower_words = frozenset(filter(str.islower, _LATIN_WORD.findall(self._text)))
        return self._lower_words

    # -- entity resolution -------------------------------------------------------------

    @property
    def author_ref(self) -> EntityRef | None:
        """The author as a person, when known (made once per author: asked for often)."""
        if self.author != self._author_of_ref:
            self._author_of_ref = self.author
            self._author_ref = EntityRef(self.author, PERSON) if self.author else None
        return self._author_ref

    @property
    def self_key(self) -> str:
        """Key under which the author's current work item is kept ('' when anonymous)."""
        return _key(self.author_ref) if self.author_ref else ""

    def _is_author(self, name: str) -> bool:
        if not self.author:
            return False
        low, author = name.casefold(), self.author.casefold()
        return low == author or low == author.split()[0]

    def _pronoun(self, low: str) -> EntityRef | None:
        """Resolve a personal pronoun (or 'the team') to an entity, or None."""
        if low in _FIRST_PERSON or low in _SELF_GROUPS:
            return self.author_ref
        if low in _THIRD_PERSON:
            return self.last_person or self.author_ref
        if low in _PLURAL_PERSON:
            return self.last_team or self.author_ref
        if low == "you" and self.addressee:
            return EntityRef(self.addressee, PERSON)
        return None

    def _person_like(self, core: str) -> bool:
        """Single capitalised name-shaped word never written in lowercase in this text."""
        return _name_like(core) and core.lower() not in self.lower_words

    def agent(self, raw: str, out: _Outcome, *, loose: bool = False) -> EntityRef | None:
        """Resolve a phrase in a person-or-team slot (owner, doer)."""
        core = _trim(raw)
        low = core.lower()
        if (
            " following " in low or " despite " in low or " amid" in low or " ahead of " in low
        ) and (cut := _adjunct_at(low)) > 0:
            core, low = core[:cut], low[:cut]  # "Tobias Keller following Amy's move": Tobias
        if low in _TYPED_I:
            core, low = "I", "i"  # "im on the importer": the writer
        if low in _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _SELF_GROUPS or (
            low == "you" and self.addressee
        ):
            return self._pronoun(low)
        core = _trim(_LEADING_ARTICLE.sub("", core, count=1))
        if (m := _MEMBER_OF.fullmatch(core)) and _agent_shaped(m["who"], strict=True):
            core = _trim(m["who"])  # "Dana from the identity team" is Dana
        ref: EntityRef | None = None
        if ("." in core or "_" in core) and core.lower() in self.handles:
            ref = EntityRef(core, PERSON)  # "@hana.sato": a chat handle is someone
            out.people.append(ref)
            return ref
        if not _valid_core(core) and not _is_team(core):
            return None
        tokens = core.split()
        if _is_team(core) or (loose and _is_org(core)):
            ref = EntityRef(core, TEAM)
        elif self._is_author(core):
            return self.author_ref
        elif len(tokens) == 1 and self._project_name(low):
            return None  # "Falcon's ingestion layer" in a "Project Falcon" update
        elif len(tokens) == 1 and _name_like(core):
            ref = EntityRef(core, PERSON)
        elif len(tokens) == 1 and _ACRONYM.fullmatch(core) and low not in _NON_NAMES:
            ref = EntityRef(core, TEAM)
        elif len(tokens) == 1 and loose and _orgish(core):
            ref = EntityRef(core, TEAM)  # "FinOps", "InfoSec"
        elif (
            loose
            and len(tokens) == 1
            and _name_token(core, loose=True)
            and low not in _NON_NAMES
            and not low.endswith(_NOUN_SUFFIXES)
            and not (core.islower() and low.endswith(("ed", "ing")))  # "commenced work on"
        ):
            ref = EntityRef(core, PERSON)
        elif len(tokens) in (2, 3) and all(_name_like(t) for t in tokens):
            ref = EntityRef(core, PERSON)
        if ref is not None:
            (out.teams if ref.type is TEAM else out.people).append(ref)
        return ref

    def _project_name(self, low: str) -> bool:
        """Whether the text calls this name a project ("Project Falcon", "the Falcon
        programme"): then it is the name of work, not of a person."""
        if self._projects is None:  # "roject", "rogram", ... match either case's first letter
            self._projects = any(stem in self._text for stem in _PROJECT_STEMS)
        if not self._projects:
            return False
        text = self._text_lower
        return any(f"{kind} {low}" in text or f"{low} {kind}" in text for kind in _PROJECT_WORDS)

    @property
    def _text_lower(self) -> str:
        if self._lowered is None:
            self._lowered = self._text.lower()
        return self._lowered

    def agents(self, raw: str, out: _Outcome, *, loose: bool = False) -> list[EntityRef] | None:
        """Resolve a list of owners/doers ('Alice and Bob'); None if any part fails."""
        raw = _trim(raw)
        parts = [raw] if "&" in raw and _JOINT_TEAM.fullmatch(raw) else _AGENT_SPLIT.split(raw)
        refs = [self.agent(part, out, loose=loose) for part in parts]
        if not refs or any(r is None for r in refs):
            return None
        return [r for r in refs if r is not None]

    def _ref_item(self, core: str) -> EntityRef | None:
        return self.last_item if core.lower() in _REFS else None

    def item(self, phrase: _Phrase, out: _Outcome) -> EntityRef | None:
        """Resolve a phrase in a work-item slot; people, teams and junk are rejected."""
        core, low = phrase.core, phrase.core.lower()
        if low.endswith(("'s", "’s")) and low[:-2] in _REFS:
            core, low = core[:-2], low[:-2]  # "that one's mine": "that one is"
        first = low[: low.index(" ")] if " " in low else low
        if first is not low:
            reshaped = _reshape(core, low, first)  # "all three X", "DOC-21 X", "patched that"
            if reshaped is None:
                return None
            if reshaped is not core:
                core, low = reshaped, reshaped.lower()
                first = low.split(" ", 1)[0]
        ref: EntityRef | None
        if (page := self.page_ref(low)) is not None:
            ref = page  # "this can't go out until X" in a comment on PAY-9: PAY-9
        elif low in _REFS:
            ref = self.last_item
            if (
                self.label_line == self.line
                and self.line_topic
                and self.item_line != self.line
                and low != "them"
                and not _agent_shaped(self.line_topic, strict=True)
            ):
                # "Postgres 16 (INFRA-77): the attempt was rolled back. Two teams are
                # waiting on this one": nothing named on the line since its label
                ref = self._earlier(self.line_topic) or EntityRef(
                    _parse_phrase(self.line_topic).core, ITEM
                )
            elif ref is None and low in ("that one", "this one"):
                ref = self._label_one()  # "kiln vent permit — that one's mine"
            if ref is not None and low in _PLURAL_REFS and not _plural_head(ref.name):
                ref = next(  # "X merged; the pick-path changes waited on it, I've started
                    (k for k in reversed(self.known[-3:]) if _plural_head(k.name)), ref
                )  # on them": them are the changes, not X
        elif (low in _SPECIAL_REFS or first in _SPECIAL_FIRST) and (
            special := self._special(low)
        ) is not None:
            ref = special[0]  # "the latter", "its rollout", "the last cutover"
            if ref is None:
                return None
        elif (
            low.startswith(("that ", "this "))
            and low.count(" ") == 1
            and (
                (ref := self._head_mention(core.split()[1])) is not None
                or (ref := self._head_in_text(core.split()[1])) is not None
            )
        ):
            pass  # "that fix" after "the N+1 lookup fix": the same item
        elif (
            (low.startswith("same ") or " same " in low)
            and low.count(" ") <= 2
            and (ref := self._head_mention(core.split()[-1])) is not None
        ):
            pass  # "that same refactor" after "the auth refactor"
        elif (
            low in _PRONOUNS
            or low in _SELF_GROUPS
            or low in _ORG_UNITS  # "waiting on legal": a group, not a work item
            or low in _NOT_NAMES  # "Slipped:", "held at QA": a verb or a label
            or low in _NOT_WORK_ANY  # "headcount", "agreement", "the new year"
            or (
                " " in low
                and (
                    low[low.rfind(" ") + 1 :] in _NOT_WORK_HEADS
                    or (first in _NOT_WORK_ANY and _not_work(low))
                    or ("of " in low and _VAGUE_AMOUNT.match(low) is not None)
                )
            )  # "security headcount", "agreement with X", "a lot of legacy code"
            or _is_team(core)
            or self._is_author(core)
            or self._person_like(core)
        ):
            return None
        elif not _valid_core(core):
            ref = self._head_mention(core)  # "the review" after "the quarterly access review"
            if ref is None:
                return None
        else:
            ref = (
                self._earlier(core)
                or (self._titled(core) if low in _TITLE_HEADS else None)
                or (self._head_noun_ref(low) if " " not in low and self.known else None)
                or EntityRef(core, ITEM)
            )
        if ref is not None:
            out.items.append(ref)
        return ref

    def _special(self, low: str) -> tuple[EntityRef | None] | None:
        """The item a reference names, in a 1-tuple (holding None when it names none), or
        None when the phrase is no reference: a step of the item named last ("the last
        cutover"; a first or second one names none), an event of the line's heading item
        ("go-live"), "the former / the latter / the rest", "its rollout"."""
        if (step := _STEP_OF.fullmatch(low)) is not None:
            if step["which"] not in ("last", "final", "remaining"):
                return (None,)  # "the first phase" of something: a part, named by nothing
            return (self.last_item,)  # "X is wrapped up, we finished the last cutover": X
        if low in _BARE_EVENTS:
            if self.line_topic and low != self.line_topic.lower():
                return (
                    self._earlier(self.line_topic)
                    or EntityRef(_parse_phrase(self.line_topic).core, ITEM),
                )  # "AP automation: go-live complete": the heading's item went live
            return None
        if (
            low in _ORDINAL_REFS
            or low in _REST_REFS
            or (low.startswith(("its ", "their ")) and low.split(" ", 1)[1] in _EVENT_NOUNS)
        ):
            return (self._anaphor(low),)
        return None

    def _anaphor(self, low: str) -> EntityRef | None:
        """ "the former" / "the latter" of the last pair of items named together; "its
        rollout", "their launch": an event of the item named last, that item itself."""
        if low.endswith("latter"):
            return self.pair[1] if self.pair else None
        if low.endswith("former"):
            return self.pair[0] if self.pair else None
        if low in _REST_REFS:
            return self.last_item  # "half of X is done; the rest is waiting on Y": X
        if (subject := self._previous_subject()) is not None:
            return subject  # "The audit is outstanding; its completion is pending X"
        if self.last_item is None and self.line_topic:
            return self._earlier(self.line_topic) or EntityRef(
                _parse_phrase(self.line_topic).core, ITEM
            )  # "Search indexer: its launch is pending X"
        return self.last_item

    def previous_sentence(self) -> str:
        """The clause just before the sentence being read, in the text ('' if none)."""
        at = self._text.find(self.sentence) if self.sentence else -1
        if at <= 0:
            return ""
        before = self._text[:at].rstrip(" \t.;!\n")
        return _CLAUSE_END.split(before)[-1]

    def _previous_subject(self) -> EntityRef | None:
        """The subject of the sentence just before, when it opens "the X is/has/remains
        ...": the thing a following "its" or "their" is about."""
        at = self._text.find(self.sentence) if self.sentence else -1
        if at <= 0:
            return None
        before = self._text[:at].rstrip(" \t.;!\n")
        last = _CLAUSE_END.split(before)[-1]
        m = _STATE_SUBJECT.match(last)
        if m is None or not _valid_core(m["np"]):
            return None
        return self._earlier(m["np"]) or next(
            (ref for ref in reversed(self.known) if ref.name.lower() == m["np"].lower()),
            EntityRef(m["np"], ITEM),
        )

    def _titled(self, core: str) -> EntityRef | None:
        """ "the release" in an update titled "Release 8.4 readiness", "the project" after
        "Project Heron": a bare generic head noun names the titled item written earlier
        (a heading or a prior sentence) with that head and a name or number of its own."""
        low = core.lower()
        if low not in _TITLE_HEADS:
            return None
        text = self._text
        at = text.lower().find(f"the {low}")
        if at <= 0:
            return None
        for ref in reversed(self.known):
            words = ref.name.lower().split()
            if len(words) >= 2 and low in (words[0], words[-1]) and ref.name.lower() != low:
                return ref  # "the migration" after "the Postgres 16 migration"
        found = {
            " ".join(m.group().split())
            for m in _TITLE_AFTER.finditer(text[:at])
            if m.group().split()[0].lower() == low
        } | {
            " ".join(m.group().split())
            for m in _TITLE_BEFORE.finditer(text[:at])
            if m.group().split()[-1].lower() == low
            and m.group().split()[0].lower() not in _TITLE_NOT_NAMES
        }
        for line in text[:at].splitlines():  # "## Billing v2 launch", "Mobile v5 release notes"
            words = line.strip(" \t*_#:").split()
            if not 2 <= len(words) <= 6 or _NOT_TITLE_LINE.search(line):
                continue
            while len(words) > 2 and words[-1].lower() in _TITLE_TAIL:
                words.pop()
            if low in (words[0].lower(), words[-1].lower()):
                found.add(" ".join(words))
        if len({f.lower() for f in found}) == 1:
            return EntityRef(found.pop(), ITEM)
        return None

    def _earlier(self, core: str) -> EntityRef | None:
        """A longer name this update used before for the same item: "health checks" after
        "gRPC health checks for the gateway", "vpc terraform" after "terraform for the new
        vpc". A short definite mention refers back to the fuller one."""
        words = _content_words(core)
        if not words:
            return None
        for ref in reversed(self.known):
            known = _content_words(ref.name)
            if words < known and len(known) <= len(words) + 3:
                return ref
        return None

    def _head_noun_ref(self, low: str) -> EntityRef | None:
        """ "the docs" after "API docs for the v2 search endpoint": one word that is the
        head noun (the last word before any "for/of/on ...") of a recently named item."""
        for ref in reversed(self.known[-4:]):
            words = ref.name.lower().split()
            cut = next((k for k, w in enumerate(words) if w in _HEAD_LINKS), len(words))
            if cut >= 2 and words[cut - 1] == low:
                return ref
        return None

    def _head_mention(self, core: str) -> EntityRef | None:
        """A bare head noun ("the review", "the migration") that names the head of an
        item this update named before: a short definite mention of that item."""
        if " " in core or not core.isalpha() or not self.known:
            return None
        low = core.lower()
        for ref in reversed(self.known[-3:]):
            words = ref.name.lower().split()
            if len(words) >= 2 and words[-1] == low:
                return ref
        return None

    def _head_in_text(self, head: str) -> EntityRef | None:
        """ "that endpoint" after "Their first deliverable, the delta-feed endpoint, was
        shipped": the last definite name with that head written before the sentence, though
        no fact named it (two to five words, a name of work)."""
        if not head.isalpha() or len(head) < 3 or head.lower() in _SAME_HEADS_VAGUE:
            return None
        at = self._text.find(self.sentence) if self.sentence else -1
        if at <= 0:
            return None
        found = re.findall(
            rf"\b(?:the|our|their|its|his|her)\s+((?:[\w/.-]+\s+){{1,4}}{re.escape(head)})\b",
            self._text[:at],
            re.IGNORECASE,
        )
        for name in reversed(found):
            if _valid_core(name) and not _agent_shaped(name, strict=True):
                return self._earlier(name) or EntityRef(name, ITEM)
        return None

    def any_entity(self, phrase: _Phrase, out: _Outcome) -> EntityRef | None:
        """Resolve a phrase in a slot that takes a person, team or work item."""
        core, low = phrase.core, phrase.core.lower()
        if low in _REFS:
            return self.item(phrase, out)
        if low in _FIRST_PERSON | _THIRD_PERSON | _PLURAL_PERSON | _SELF_GROUPS or (
            low == "you" and self.addressee
        ):
            return self._pronoun(low)
        if _is_team(core) or self._is_author(core) or self._person_like(core):
            return self.agent(core, out)
        return self.item(phrase, out)

    def owners_of(self, phrase: _Phrase, item: EntityRef, out: _Outcome) -> bool:
        """Emit the ownership a noun phrase states about itself; True if it had any."""
        found = False
        for owner_raw in phrase.owners:
            owner = self.agent(owner_raw, out, loose=True)
            if owner is not None:
                self.draft(out, owner, Relation.OWNS, item)
                found = True
        return found

    def items(
        self, raw: str, out: _Outcome, *, target: bool = True, from_owner: bool = True
    ) -> list[tuple[EntityRef, _Phrase]] | None:
        """Resolve a list of work items ('X and the Y'); None if any part fails."""
        result: list[tuple[EntityRef, _Phrase]] = []
        parts = split_named_items(_trim(raw))
        several = len(parts) > 1
        for part in parts:
            if several and (
                _CLAUSE_PART.match(part.lower()) or ("ed " in part and _SWALLOWED.match(part))
            ):  # "patched that and the timeouts fix", "Omar rolled back X, and the fix":
                continue  # a clause in the list names nothing
            phrase = _parse_phrase(part, target=target, from_owner=from_owner)
            ref = self.item(phrase, out)
            if ref is None:
                return None
            result.append((ref, phrase))
        if len(result) >= 2:
            self.pair = (result[-2][0], result[-1][0])
        return result or None

    # -- drafting ----------------------------------------------------------------------

    def draft(
        self,
        out: _Outcome,
        source: EntityRef,
        relation: Relation,
        target: EntityRef,
        *,
        tentative: bool = False,
    ) -> None:
        """Add a fact if its endpoint types are allowed and it is not a self-loop."""
        sources, targets = RELATION_TYPES[relation]
        if source.type not in sources or target.type not in targets:
            return
        if _key(source) == _key(target) or source.name.casefold() == target.name.casefold():
            return  # nothing waits on, owns or finishes itself ("RFI-7 owns RFI-7")
        out.drafts.append(_Draft(source, relation, target, self.sentence, tentative))

    def claim_item(self, item: EntityRef, phrase: _Phrase | None, out: _Outcome) -> None:
        """Rules 1 and 2: a reported blocked item is its owner's (default: author's)
        current work item, and the author owns it unless someone else is named."""
        owner_key = self.self_key
        if phrase is not None and phrase.owners:
            before = len(out.drafts)
            self.owners_of(phrase, item, out)
            owned = [d.source for d in out.drafts[before:] if d.relation is Relation.OWNS]
            if owned:
                owner_key = _key(owned[0])
        elif _key(item) in self.owner_of:
            owner_key = _key(self.owner_of[_key(item)])
        elif self.author_ref is not None:
            self.draft(out, self.author_ref, Relation.OWNS, item, tentative=True)
        out.current.append((owner_key, item))

    def self_source(self) -> EntityRef | None:
        """Implied or first-person waiter: the author's current work item, else the author."""
        return self.current.get(self.self_key) or self.author_ref

    def topic_item(self) -> EntityRef | None:
        """The update's current topic item, for a wait whose sentence names no waiting
        work ("I can't do much until X exists", "nothing to run until Y is in"): the
        heading or bullet label of the line, else the item the author's update made
        current (blocked, or "Today: X"), else the item the author says they work on
        in this update, else the ticket a comment is on (its title line)."""
        return next(iter(self.topic_items()), None)

    def topic_items(self) -> list[EntityRef]:
        """``topic_item``'s candidates, best first (a heading may be no item: "hit the
        same wall she did:"; the caller takes the first one its frame can use)."""
        found: list[EntityRef] = []
        if self.line_topic:
            found.append(
                self._earlier(self.line_topic)
                or EntityRef(_parse_phrase(self.line_topic).core, ITEM)
            )
        for ref in (self.current.get(self.self_key), self.working, self.page_item()):
            if ref is not None and ref.type is ITEM and ref not in found:
                found.append(ref)
        return found

    def page_item(self) -> EntityRef | None:
        """The ticket the update is a comment on, for "this", "this PR", "this one": its
        title line, a comment opener ("Comment on PAY-9:", "(on MOB-3)", "Triage note on
        #12:"), or a ticket the update opens with as subject or label ("SRCH-4
        (reindex) is deployed."). Named by the name written beside it, else its id."""
        if self._page is None:
            self._page = (self._find_page(),)
        return self._page[0]

    def page_ref(self, low: str) -> EntityRef | None:
        """The page's ticket when ``low`` is "this" or "this <ticket word>" (None else),
        unless the line opens with a label of its own ("Runbook update: I have this
        one"): then "this" is the label's item."""
        if low != "this" and not (low.startswith("this ") and low[5:] in _PAGE_NOUNS):
            return None
        page = self.page_item()
        if page is None:
            return None
        if self.label_line == self.line and self.line_topic and self.item_line != self.line:
            return page if self._names_page(self.line_topic) else None
        if (
            self.item_line == self.line
            and self.last_item is not None
            and (label := _OPENING_LABEL.match(self.sentence)) is not None
            and _content_words(label["np"]) == _content_words(self.last_item.name)
        ):  # the same, with the label read as an item
            return page if self._names_page(label["np"]) else None
        return page

    def _names_page(self, label: str) -> bool:
        """Whether a line's label names the page's ticket ("Triage note on #12", "OPS-4")."""
        return self._page_id is not None and any(
            " ".join(t.split()) == self._page_id for t in re.findall(_PAGE_ID, label)
        )

    def _ticket_before(self, low: str) -> EntityRef | None:
        """The ticket that ends the clause just before a subject "it" ("the fix is in PR
        #71 but it can't merge until ..."): what "it" means there, not the page."""
        if low != "it":
            return None
        at = re.search(r"\bit\b", self.sentence, re.IGNORECASE)
        if at is None:
            return None
        found = list(re.finditer(_PAGE_ID, self.sentence[: at.start()]))
        last = found[-1] if found else None
        if last is None or not _CLAUSE_JOIN.fullmatch(self.sentence[last.end() : at.start()]):
            return None  # "X — ticket OPS-7 — is a prerequisite for it": part of X
        return EntityRef(" ".join(last.group().split()), ITEM)

    def _find_page(self) -> EntityRef | None:
        text = self._text.lstrip()
        first = text.split("\n", 1)[0]
        if (m := _COMMENT_ON.match(first)) is not None:
            return self._page_at(m["id"], m["name"])
        if "\n" in text.rstrip() and (
            (m := _TITLE_TICKET.match(first)) is not None
            or (m := _PAGE_TITLE.match(first)) is not None
        ):  # "**QA-57 · Login regression suite** — comment by Jo", "org/app#14 Staging"
            title = (m["title"] or "").strip(" *_:`")
            if title.endswith(")") and "(" in title:
                title = title[: title.rindex("(")].strip()  # "compaction job (DATA-4)"
            if title.lower() in _PAGE_NOT_TITLES or _SYMPTOM_TITLE.search(title):
                title = ""
            return self._page_at(m["id"], title)
        if (m := _OPENING_PAGE.match(text)) is not None:
            return self._page_at(m["id"], m["name"])
        return None

    def _page_at(self, ticket: str, name: str | None) -> EntityRef:
        self._page_id = " ".join(ticket.split())
        return _page_ref(ticket, name)

    def closed_item(self) -> EntityRef | None:
        """What "Closing this." closes: the ticket the update is a comment on (its title
        line, or a ticket the update opens with as a label: "**PLAT-415** — Applied the
        rule ... Closing this.")."""
        if (title := self.page_item()) is not None:
            return title
        m = _OPENING_TICKET.match(self._text)
        return EntityRef(m["id"], ITEM) if m is not None else None

    def _opening_label(self) -> EntityRef | None:
        """The item a sentence opens with as a label ("Vendor portal — anything beyond
        the stub is waiting on X"), for a waiter that names only what is left of it."""
        m = _OPENING_LABEL.match(self.sentence)
        if m is None or not _valid_core(m["np"]) or m["np"].lower() in _REFS:
            return None
        if "@" in m["np"] or m["np"].split()[0].lower() in _CHAT_OPENERS:
            return None  # "cc @sam — this depends on X": an aside to someone, no item
        return self._earlier(m["np"]) or EntityRef(_parse_phrase(m["np"]).core, ITEM)

    def _label_one(self) -> EntityRef | None:
        """The item a "that one" names when nothing was named before it but the label its
        sentence opens with ("kiln vent permit — that one's mine", "ticket KIL-2 (vent
        permit) — that one is mine"); not a person or team the line opens with."""
        m = _OPENING_LABEL.match(self.sentence)
        if m is None:
            return None
        np = m["np"].strip()
        if _agent_shaped(np, strict=True) or np.lower() in _REFS:
            return None
        if (t := _LABEL_TICKET.fullmatch(np)) is not None:
            return _page_ref(t["id"], t["name"])
        return self._opening_label()

    def _opening_subject(self) -> EntityRef | None:
        """The subject the sentence opens with ("our audit export reads the new claims,
        so there's no way to finish it ..."): what a later "it" in the same sentence
        means when nothing was named before it."""
        m = _OPENING_SUBJECT.match(self.sentence)
        if m is None or not _valid_core(m["np"]) or m["np"].lower() in _REFS:
            return None
        return self._earlier(m["np"]) or EntityRef(m["np"], ITEM)

    def waiter(
        self, raw: str | None, out: _Outcome
    ) -> list[tuple[EntityRef, _Phrase | None, bool]] | None:
        """Resolve the waiting side of a blocker sentence.

        Returns (entity, phrase, is_agent) triples; agents are mapped to their current
        work item later, once the "for the Z" tail of the blocker has been read.
        """
        if raw is None:
            ref = self.self_source()
            if (
                ref is not None
                and ref == self.author_ref
                and self.working is not None
                and self.working.type is ITEM
                and self.working_line == self.line - 1
                and not _BLOCKED_LABEL.match(self.sentence)
            ):  # "- still on the rate limiter / - blocked by the cache upgrade": the line
                ref = self.working  # before named the work the subjectless wait is about
            elif ref is not None and ref == self.author_ref and self.working is None:
                ref = self.page_item() or ref  # "PR #88: ..." then "Depends on #80"
            return [(ref, None, ref.type is not ITEM)] if ref else None
        result: list[tuple[EntityRef, _Phrase | None, bool]] = []
        for part in _split_waiters(raw):
            phrase = _parse_phrase(part, target=False)
            low = phrase.core.lower()
            if low in _TYPED_I:
                phrase, low = _Phrase("I"), "i"  # "im blocked on X": the writer
            if not self.author and (low in _FIRST_PERSON or low in _SELF_GROUPS):
                ref = self.current.get("")
            elif (page := self.page_ref(low)) is not None:
                ref = page  # "this is blocked on X" in a comment on a ticket: the ticket
                out.items.append(ref)
            elif low in ("it", "this") and (said := self._clause_subject(low, out)) is not None:
                ref = said  # "the rig is a separate headache: it's waiting on X": the rig
            elif (
                low in _REFS
                and self.last_item is None
                and not self.known
                and (opening := self._opening_subject()) is not None
            ):  # "the payroll sync reads the grades, so it's sitting there until X ships"
                ref = opening
                out.items.append(ref)
            elif (
                low in _REFS
                and self.last_item is None
                and not self.known
                and (label := self._opening_label()) is not None
            ):  # "Re: PROJ-12 — I can't do anything on this until PROJ-9 merges"
                ref = label
                out.items.append(ref)
            elif low.startswith(_REAL_FIRST) and (real := _REAL_WORK_ON.fullmatch(phrase.core)):
                # "the real integration for WEB-88 can't happen until X": WEB-88 waits
                ref = self.any_entity(_parse_phrase(real["item"], target=False), out)
            elif (
                low in _TOPIC_REFS
                or (low.startswith(_BEYOND_FIRST) and _BEYOND.fullmatch(low))
                or (low.endswith(_PART_HEADS) and _PART_REF.fullmatch(low))
                or (low.startswith(_REMAINING_FIRST) and _REMAINING.fullmatch(low))
            ):
                # "the real work is stuck", "anything beyond scaffolding is waiting on X":
                # the topic item's remaining work is the topic item
                ref = self.topic_item() or self.last_item or self._opening_label()
                if ref is not None:
                    out.items.append(ref)
                elif low in _TOPIC_REFS:
                    ref = self.self_source()
                else:  # "the spare part is waiting on X" with no topic: a name
                    ref = self.any_entity(phrase, out)
            elif low in _REFS and self.last_item is None and not self.known:
                # "this is on hold, it sits behind #77" with nothing named before: the
                # thing the writer works on (an issue's own comment): the ticket the
                # comment is on when it names one, else the writer
                ref = (
                    self.current.get(self.self_key)
                    or self._ticket_before(low)
                    or self.page_item()
                    or self.author_ref
                )
                if ref is not None and ref.type is ITEM:
                    out.items.append(ref)
            elif (
                low in _REFS
                and not (low in _DEMONSTRATIVES and self._agrees(low))
                and not self.chained
                and self.last_wait
                and self.last_item == self.last_wait[1]
            ):
                # "X is blocked on Y. It also needs Z first": the pronoun that waits is
                # the item that was waiting (the topic), not the blocker named last
                ref = self.last_wait[0]
                out.items.append(ref)
            elif low == "they" and (things := self._plural_item()) is not None:
                ref = things  # "dashboards for X; they need the new labels first"
                out.items.append(ref)
            elif low == "they" and self.last_team is None and self.author is not None:
                return None  # no team and no plural item to be "they": not the writer
            else:
                ref = self.any_entity(phrase, out)
            if ref is None:
                return None
            result.append((ref, phrase, ref.type is not ITEM))
        if len(result) >= 2 and result[-1][0].type is ITEM and result[-2][0].type is ITEM:
            self.pair = (result[-2][0], result[-1][0])
        return result

    def _clause_subject(self, low: str, out: _Outcome) -> EntityRef | None:
        """The item a waiting "it" names when the clause just before it states something of
        an item and no fact ("the kiln rebuild has been deferred; it is contingent on X",
        "the rig is a separate headache: it's waiting on X", "about the widget: it was
        depending on X"): that clause's subject, not an item named earlier. A clause
        that reports its subject done ("X landed, so it is unblocked") gives none: what
        it freed is meant there."""
        sentence = self.sentence
        at = re.search(rf"\b{low}\b", sentence, re.IGNORECASE)
        if at is None:
            return None
        before = sentence[: at.start()].rstrip()
        if before:
            if before[-1] not in ":;,—–-":
                return None
            clause = before.rstrip(" :;,—–-")
        else:
            clause = self.previous_sentence()
        if not clause or (
            self.last_item is not None and self.last_item.name.lower() in clause.lower()
        ):
            return None  # the clause's item was read already: the last item is it
        m = _ABOUT_SUBJECT.fullmatch(clause) or _STATE_CLAUSE.match(clause)
        if m is None or (m.re is _STATE_CLAUSE and _DONE_STATE.match(m["tail"])):
            return None
        np = m["np"]
        if m.re is _STATE_CLAUSE and m["name"] and re.fullmatch(_PAGE_ID, np):
            np = _page_ref(np, m["name"]).name  # "OPS-7 (disk alerts) is ...": the name
        seen = _Outcome()
        ref = self.item(_parse_phrase(np, target=False), seen)
        if ref is None or ref.type is not ITEM or ref.name.lower() in _REFS:
            return None
        out.items.extend(seen.items)
        return ref

    def _agrees(self, low: str) -> bool:
        """Whether the item named last can be the demonstrative ``low``: any item is
        "that"; "those" and "these" need a plural head ("the new shelf sensors")."""
        if low not in ("those", "these"):
            return True
        item = self.last_item
        return item is not None and _plural_head(item.name)

    def _plural_item(self) -> EntityRef | None:
        """The item "they" waits as: the last item named, when its head noun is plural
        ("dashboards for the ingest pipeline") and no team was named to be "they"."""
        if self.last_team is not None:
            return None
        return next(  # "X is done; the shower fittings were waiting on it, they're free now"
            (k for k in reversed(self.known[-3:]) if k.type is ITEM and _plural_head(k.name)),
            None,
        )

    def resolve_waiters(
        self,
        waiters: list[tuple[EntityRef, _Phrase | None, bool]],
        waiting_items: list[EntityRef],
        out: _Outcome,
        *,
        claim: bool,
    ) -> list[EntityRef]:
        """Map people/teams to the item they wait for (rule 2) and claim items (rule 1)."""
        sources: list[EntityRef] = []
        for ref, phrase, is_agent in waiters:
            if is_agent and waiting_items:
                for z in waiting_items:
                    self.draft(out, ref, Relation.OWNS, z, tentative=True)
                    out.current.append((_key(ref), z))
                    sources.append(z)
            elif is_agent:
                sources.append(self.current.get(_key(ref), ref))
            else:
                if claim:
                    self.claim_item(ref, phrase, out)
                elif phrase is not None:
                    self.owners_of(phrase, ref, out)
                sources.append(ref)
        return sources

    # -- relation handlers -------------------------------------------------------------

    def blocked(
        self, src_raw: str | None, tgt_raw: str, waiting_raw: str | None = None
    ) -> _Outcome | None:
        """``src_raw`` waits on ``tgt_raw`` (None: the author/current work item).

        ``waiting_raw`` (or a "for the Z" tail when the waiter is a person or team)
        names the work item that actually waits.
        """
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        if any(ref.type is ITEM and _ordinary_blocked(ref.name) for ref, _p, _a in waiters):
            return None  # "the runner's IP got blocked by the rate limiter": no dependency
        tgt_raw = _trim(tgt_raw)
        if waiting_raw is None and any(is_agent for _, _, is_agent in waiters):
            if m := _FOR_TAIL.fullmatch(tgt_raw) or _BEFORE_START.fullmatch(tgt_raw):
                tgt_raw, waiting_raw = m["head"], m["z"]
        targets = self.items(tgt_raw, out)
        if targets is None:
            return None
        waiting_items: list[EntityRef] = []
        if waiting_raw is not None:
            found = self.items(waiting_raw, out, target=False, from_owner=False)
            if found is None:
                return None
            for z, phrase in found:
                self.owners_of(phrase, z, out)
                waiting_items.append(z)
        sources = self.resolve_waiters(waiters, waiting_items, out, claim=True)
        for target, phrase in targets:
            self.owners_of(phrase, target, out)
            for source in sources:
                self.draft(out, source, Relation.BLOCKED_BY, target)
        if src_raw is None and waiting_raw is None:
            for d in out.drafts:
                if d.relation is Relation.BLOCKED_BY and d.source == self.author_ref:
                    d.implied = True
        return out

    def stalled(self, src_raw: str) -> _Outcome | None:
        """``src_raw`` is blocked/stalled with no blocker named yet."""
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        self.resolve_waiters(waiters, [], out, claim=True)
        return out

    def unblocked(self, src_raw: str | None, tgt_raw: str | None) -> _Outcome | None:
        """``src_raw`` no longer waits on ``tgt_raw`` (or on what it waited on earlier)."""
        out = _Outcome()
        waiters = self.waiter(src_raw, out)
        if not waiters:
            return None
        sources = self.resolve_waiters(waiters, [], out, claim=False)
        if tgt_raw is None:
            for source in sources:
                if not self.waits.get(_key(source)) and src_raw and src_raw.lower() in _REFS:
                    source = self.current.get(self.self_key, source)  # "it's unblocked"
                for target in self.waits.get(_key(source), []):
                    self.draft(out, source, Relation.UNBLOCKED_FROM, target)
            return out
        targets = self.items(tgt_raw, out)
        if targets is None:
            return None
        for target, phrase in targets:
            self.owners_of(phrase, target, out)
            for source in sources:
                self.draft(out, source, Relation.UNBLOCKED_FROM, target)
        return out

    def owns(self, owner_raw: str | None, item_raw: str | None) -> _Outcome | None:
        """``owner_raw`` (None: the author) owns ``item_raw`` (None: the last work item)."""
        out = _Outcome()
        if owner_raw is None:
            owners = [self.author_ref] if self.author_ref else None
        else:
            if " " in owner_raw and (unit := _MEMBER_IN.fullmatch(owner_raw)):
                owner_raw = unit["who"]  # "which Marcus in integration owns": Marcus
            owners = self.agents(owner_raw, out, loose=True)
        if item_raw is None:
            targets = [(self.last_item, _Phrase("it"))] if self.last_item else None
        else:
            targets = self.items(item_raw, out, from_owner=False)
        if not owners or not targets:
            return None
        for item, phrase in targets:
            self.owners_of(phrase, item, out)
            for owner in owners:
                self.draft(out, owner, Relation.OWNS, item)
        return out

    def owns_on(self, owner_raw: str, item_raw: str) -> _Outcome | None:
        """'X is on Y': ownership unless Y is hold/PTO/call...; 'bob is on it' is fine."""
        phrase = _parse_phrase(item_raw)
        low = phrase.core.lower()
        if low.split()[0:1] and low.split()[0] in _ON_STOPLIST:
            return None
        if item_raw.lower().startswith(("a ", "an ")):
            return None  # "he's on a loaner", "she's on a call": no work item of theirs
        if low not in _REFS and not _agent_shaped(_trim(owner_raw), strict=True):
            return None
        return self.owns(owner_raw, item_raw)

    def completed(
        self, doer_raw: str | None, item_raw: str, *, owner_did: bool = False
    ) -> _Outcome | None:
        """``doer_raw`` finished ``item_raw``; no doer means the author, else the owner.
        ``owner_did``: the item is the clause's subject ("X's fix landed"), so a person
        named as its possessor is who finished it."""
        sentence = self.sentence
        if ("of " in sentence or "/" in sentence) and _DONE_FOR_SOME.search(sentence):
            return None  # "evidence collection: complete for 61 of 64 controls"
        if part := (_PART_OF.match(item_raw) or _PIECES_OF.match(item_raw)):  # "half of"
            out = _Outcome()  # migration is not; it is named, for "the rest" after it
            self.items(item_raw[part.end() :], out)
            return out
        out = _Outcome()
        targets = self.items(item_raw, out)
        if targets is None:
            return None
        doers: list[EntityRef] | None
        if doer_raw is not None:
            doers = self.agents(doer_raw, out, loose=True)
            if doers is None:
                return None
        for item, phrase in targets:
            had_owner = self.owners_of(phrase, item, out)
            if doer_raw is None:
                if "you" in phrase.owners and self.addressee:
                    doers = [EntityRef(self.addressee, PERSON)]  # "@liang-h your fix merged"
                elif owner_did and had_owner and _possessed(phrase, item_raw):
                    # "Odile's fare table merged": hers, and she finished it
                    doers = [d.source for d in out.drafts if d.target == item]
                elif self.author_ref:
                    doers = [self.author_ref]
                elif had_owner:
                    doers = [d.source for d in out.drafts if d.target == item]
                else:
                    doers = []
            before = len(out.drafts)
            for doer in doers or []:
                self.draft(out, doer, Relation.COMPLETED, item)
            if doer_raw is None:
                for d in out.drafts[before:]:
                    d.by_default = True
        return out

    # -- reading -----------------------------------------------------------------------

    def commit(self, out: _Outcome, clause: str) -> None:
        """Fold a clause's outcome into the context used by later clauses."""
        lowered = clause.lower()
        for ref in out.items:
            if ref.type is ITEM and ref not in self.known:
                self.known.append(ref)
        if out.items:
            ranked = sorted(
                enumerate(out.items),
                key=lambda pair: (lowered.rfind(pair[1].name.lower()), pair[0]),
            )
            self.last_item = ranked[-1][1]
            self.item_line = self.line
        for owner_key, item in out.current:
            self.current[owner_key] = item
        author = self._author_ref if self.author == self._author_of_ref else self.author_ref
        for d in out.drafts:
            if d.relation is Relation.OWNS and not d.tentative:
                self.owner_of.setdefault(_key(d.target), d.source)
                if d.source is author or (author is not None and d.source == author):
                    self.working = d.target  # "picking up the importer today"
                    self.working_line = self.line
            if d.relation is Relation.BLOCKED_BY:
                if d.source.type is ITEM:
                    self.last_wait = (d.source, d.target)
                    self.wait_line = self.line
                waits = self.waits.setdefault(_key(d.source), [])
                if d.target not in waits:
                    waits.append(d.target)

    def end_sentence(self, outcomes: Iterable[_Outcome]) -> None:
        """People and teams named in this sentence become pronoun antecedents for the next.
        So does the item a sentence frees: after "X is unblocked now that Y shipped",
        "Rosa is picking it back up" is about X, the work that moves again, not Y."""
        freed: EntityRef | None = None
        for out in outcomes:
            for person in out.people:
                if not self._is_author(person.name):
                    self.last_person = person
            for team in out.teams:
                self.last_team = team
            for d in out.drafts:
                if d.relation is Relation.UNBLOCKED_FROM and d.source.type is ITEM:
                    freed = d.source
        if freed is not None:
            self.last_item = freed


# --------------------------------------------------------------------------------------
# Meeting minutes: who is speaking
# --------------------------------------------------------------------------------------

_ROSTER = re.compile(
    r"^\s*[*_]*(?:attendees|attending|present|participants|in attendance|people)[*_]*\s*:"
    r"\s*(?P<names>.+)$",
    re.IGNORECASE | re.MULTILINE,
)
_SCRIBE = re.compile(r"\b(?:notes?|scribe|minutes|note-?taker|taking notes)\b", re.IGNORECASE)
_TITLES = frozenset("dr dr. mr mr. ms ms. mrs mrs. prof prof. pm vendor".split())
_NAME_WORD = re.compile(r"[^\W\d_][\w'’.-]*\Z")
_SPEAKER_COLON = re.compile(
    r"(?P<who>[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*){0,2})\s*:\s*(?P<rest>.+)"
)
# "Manchester (Piotr): the conveyor is on hold": the person speaks for the site or team.
_SPEAKER_FOR = re.compile(
    r"[^\W\d_][\w'’.&-]*(?:\s+[^\W\d_][\w'’.&-]*){0,3}\s*"
    r"\((?P<who>[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*)?)\)\s*:\s*(?P<rest>.+)"
)
_SPEAKER_VERB = re.compile(
    r"(?P<who>[^\W\d_][\w'’.-]*(?:\s+[^\W\d_][\w'’.-]*){0,2})\s+(?:reported|reports|confirmed"
    r"|confirms|said|says|noted|notes|mentioned|mentions|explained|shared|announced|stated"
    r"|added|flagged|flags|told the group|updated|let us know)\s+(?:that\s+)?(?P<rest>.+)",
    re.IGNORECASE,
)


_ACTION_LINE = re.compile(
    r"^\W*(?:action(?:\s+items?)?|ai|todo)\s*(?::|-|–|—)\s*\S", re.IGNORECASE | re.MULTILINE
)


_ROSTER_LOWER = lowercase_twin(_ROSTER)
_ACTION_LINE_LOWER = lowercase_twin(_ACTION_LINE)


def _screened(
    pattern: re.Pattern[str], twin: re.Pattern[str] | None, text: str
) -> re.Match[str] | None:
    """``pattern.search(text)``, screened by its plain twin over lowercased ASCII text: most
    updates are no minutes, and the twin tells so several times sooner. When it finds
    something the pattern itself runs, so the match keeps the text's case."""
    if twin is not None and text.isascii() and twin.search(text.lower()) is None:
        return None
    return pattern.search(text)


_COMMON = frozenset(
    """not no the this that these those next done shipped status update blocked blockers
    today yesterday risks decision action note notes root cause load release migration
    go shipped finished completed owner owners cancelled heads summary we our they it""".split()
)


# A first line that titles a meeting ("Release readiness — v5.2", "Backend sync",
# "Sprint planning S42"): the lines under it are minutes, its writer a scribe.
_MEETING_TITLE = re.compile(
    r"[#*_\s]*(?:[^\n]{0,60}\s)?(?:review|sync|sync-up|planning|readiness|retro|retrospective"
    r"|steering|council|committee|guild|meeting|minutes|check-in|huddle|triage|kickoff"
    r"|kick-off|post-?mortem|go/no-go)\b[^\n]{0,40}",
    re.IGNORECASE,
)
_MEETING_WORDS = frozenset(
    """review sync sync-up planning readiness retro retrospective steering council committee
    guild meeting minutes check-in huddle triage kickoff kick-off postmortem post-mortem
    go/no-go""".split()
)
_NOT_MEETING = re.compile(r"\b(?:report|update|my|i|standup|stand-up)\b", re.IGNORECASE)


def _meeting_title(text: str) -> bool:
    """Whether the text opens with a meeting's title line over more lines."""
    first, _, rest = text.strip().partition("\n")
    words = first.lower().split()
    return (
        len(words) <= 8
        and not _MEETING_WORDS.isdisjoint(w.strip("#*_:—–-") for w in words)
        and rest.strip() != ""
        and _MEETING_TITLE.fullmatch(first) is not None
        and _NOT_MEETING.search(first) is None
    )


_SPEAKER_LINE = re.compile(
    r"^[ \t]*(?:(?:[-*•]|\d{1,2}[.)])[ \t]*)?@?([A-Z][\w'’.-]*)(?:[ \t]+\([A-Z][\w'’.-]*\))?"
    r"[ \t]*:[ \t]*\S",
    re.MULTILINE,
)


def _speaker_lines(text: str) -> int:
    """How many people open a line with "Name:" ("- Raj: referral rewards is waiting
    on X"): two or more make the text a summary of what others said."""
    if text.count(":") < 2:
        return 0
    names = {
        m.group(1)
        for m in _SPEAKER_LINE.finditer(text)
        if _name_like(m.group(1)) and m.group(1).lower() not in _COMMON | _NOT_SPEAKERS
    }
    return len(names)


_NOT_SPEAKERS = frozenset(
    """yesterday today tomorrow blockers blocker blocked done doing wip next status update
    owner owners eta note notes risk risks decision decisions action actions summary
    context background issue problem result results impact cause details highlights
    lowlights dependencies deps progress completed shipped agenda goal goals ask asks
    question questions answer topic topics priority priorities""".split()
)


# A chat transcript's line: a lowercase handle, a colon, what they said ("lucas: mine").
_HANDLE_LINE = re.compile(r"^[ \t]*<?@?([a-z][\w.-]{0,23})>?[ \t]*:[ \t]*\S", re.MULTILINE)


def _chat_handles(text: str, author: str | None) -> dict[str, str]:
    """The lowercase handles that open the lines of a chat transcript, each with who it
    is ("femi: who has the X?" / "lucas: mine"): two or more people, one of them the
    writer under their first name (the writer's handle stands for the writer). Empty
    when the text is no such transcript ("blockers: none" opens no one's line)."""
    if author is None or "\n" not in text or not author.strip():
        return {}
    mine = _plain_letters(author.split()[0])
    if f"{mine}:" not in (text if text.isascii() else _plain_letters(text)).lower():
        return {}  # the writer opens no line: no transcript of theirs
    found = {m.group(1) for m in _HANDLE_LINE.finditer(text)}
    found -= _COMMON | _NOT_SPEAKERS
    if len(found) < 2 or not any(_plain_letters(h) == mine for h in found):
        return {}
    return {h: author if _plain_letters(h) == mine else h for h in found}


def _plain_letters(word: str) -> str:
    """A word lowercased without its accents ("Inês" -> "ines")."""
    if word.isascii():
        return word.lower()
    decomposed = unicodedata.normalize("NFKD", word.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


class Minutes:
    """The roster of a meeting's minutes and who speaks on each line.

    Minutes are recognised by an attendance line ("Attendees: Raj, Lena (notes)"). On a
    line that opens with an attendee ("Raj: ...", "Raj reported that ...", "Raj took
    over ..."), that attendee is the speaker: they stand where the author stands in an
    ordinary update (first person, owner of what they report blocked, doer of completions
    without a doer). The note-taker is a scribe: on a line with no speaker nobody takes
    the author's place, so the scribe owns and completes nothing by default.
    """

    def __init__(self, text: str, author: str | None = None) -> None:
        self.full: dict[str, str] = {}
        self.scribe: str | None = None
        # a chat transcript in lowercase handles: each handle speaks for its own lines
        self.handles = _chat_handles(text, author) if ":" in text else {}
        m = _screened(_ROSTER, _ROSTER_LOWER, text)
        # Minutes without an attendance line still show themselves by action items.
        self.titled = m is not None or _screened(_ACTION_LINE, _ACTION_LINE_LOWER, text) is not None
        self.titled = self.titled or _meeting_title(text)  # a roster, actions or a title
        self.open = m is None and (self.titled or _speaker_lines(text) >= 2 or bool(self.handles))
        self.active = m is not None or self.open
        if m is None:
            return
        seen: dict[str, set[str]] = {}
        for entry in re.split(r"\s*[,;]\s*|\s+and\s+", m["names"]):
            scribe = bool(_SCRIBE.search(entry))
            entry = re.sub(r"\([^)]*\)|\btaking notes\b|\(.*", " ", entry, flags=re.IGNORECASE)
            words = [w for w in entry.split() if _NAME_WORD.match(w) and w[0].isupper()]
            words = [w for w in words if w.lower() not in _TITLES and not w.isupper()]
            if not words:
                continue
            name = " ".join(words[-3:])
            if scribe:
                self.scribe = name
            for key in {name.lower(), *(w.lower() for w in words)}:
                seen.setdefault(key, set()).add(name)
        self.full = {k: next(iter(v)) for k, v in seen.items() if len(v) == 1}

    def roster_line(self, sentence: str) -> bool:
        """Whether the sentence is the attendance line itself."""
        return self.active and _ROSTER.match(sentence) is not None

    def who(self, words: str) -> str | None:
        """The attendee a name refers to ("Raj", "Raj Patel", "Dr. Patel"), or None."""
        tokens = [w for w in words.split() if w.lower() not in _TITLES]
        if not tokens:
            return None
        if self.open:  # no roster: any name-shaped word that is not a common word
            if len(tokens) == 1 and tokens[0] in self.handles:
                return self.handles[tokens[0]]  # "lucas: that's mine"
            if all(_name_like(t) and t.lower() not in _COMMON for t in tokens):
                return " ".join(tokens)
            return None
        return self.full.get(" ".join(tokens).lower()) or (
            self.full.get(tokens[0].lower()) if len(tokens) == 1 else None
        )

    def speaker(self, sentence: str) -> tuple[str, str] | None:
        """(speaker, what they said) for a line that opens with an attendee, else None.

        "Raj: X is blocked" and "Raj reported that X is blocked" give ("Raj ...", "X is
        blocked"); "Raj took over X" keeps the whole sentence, Raj being its subject.
        """
        if not self.active:
            return None
        for pattern in (_SPEAKER_COLON, _SPEAKER_VERB, _SPEAKER_FOR):
            m = pattern.match(sentence)
            if m is not None and (name := self.who(m["who"])) is not None:
                return name, m["rest"]
        words = sentence.split()
        for n in (3, 2, 1) if not self.open else ():  # no roster: any capital is no name
            if len(words) > n and (name := self.who(" ".join(words[:n]))) is not None:
                return name, sentence
        return None
