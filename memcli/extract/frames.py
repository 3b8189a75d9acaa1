"""The earlier template table, kept as the fallback of the compositional core.

``memcli.extract.core`` reads sentences first; these patterns are tried only when the
core found a predicate word but no frame of its own read the clause. They remain because
some generated-corpus phrasings are still read only here; the trace names which frame
read each sentence, so the share they contribute can be measured.

Predicate frames: the relation each predicate expresses and where its roles sit.

Each row is a compiled pattern over a normalised clause whose named groups are argument
roles (``s`` the waiting side, ``t`` the blocker, ``o`` owner, ``w`` work item, ``d``
doer, ``z`` the item that waits when ``s`` is a person), and a handler in
``memcli.extract.context`` that resolves the roles. The trigger alternations come from
``memcli.extract.lexicon`` (every inflection, active, passive and nominal forms).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memcli.extract.context import _Outcome, _Reader
from memcli.extract.phrases import _OBJ_VERBS, _STATE_WORDS, _agent_shaped, _parse_phrase, _trim

# --------------------------------------------------------------------------------------
# The pattern table
# --------------------------------------------------------------------------------------

_S = r"(?P<s>.+?)"
_T = r"(?P<t>.+)"
_SEP = r"(?:\s*(?::|->|—|–|\s-)\s*|\s+)"
_BE = (
    r"(?:is|are|am|was|were|has been|have been|had been|remains|remain"
    r"|stays|stay|seems to be|seems|seem|looks|look|got|gets|get|been|being|is being)"
)
_OPT_BE = rf"(?:{_BE}\s+)?"
_MOVE = (
    r"move(?:\s+(?:forward|ahead|on))?|proceed|progress|start|begin|continue|resume|ship|land"
    r"|launch|merge|finish|complete|release|deploy|roll out|go out|go live|go ahead"
    r"|go anywhere|happen|kick off|get started|get going|get done|make progress"
    r"|be (?:released|deployed|shipped|merged|done|finished|completed|started|landed)"
)
_WAIT_VERBS = (
    r"(?:hard\s+)?(?:blocked|stuck|stalled|held up|hung up|gated|parked|paused|on hold|frozen)"
    r"(?:\s+waiting\s+(?:on|for|upon)|\s+(?:on|upon|by|behind|until|till|pending|because of"
    r"|due to|because))"
    r"|(?:waiting|waits|waited|wait|sitting)\s+(?:on|for|upon|until|till)"
    r"|awaiting|awaits"
    r"|(?:depends|depend|depended|depending)\s+(?:on|upon)"
    r"|(?:dependent|dependant|contingent|conditional|reliant)\s+(?:on|upon)"
    r"|(?:hinges|hinge|hinged|hinging)\s+on"
    r"|requires|require|required"
    r"|pending(?:\s+on)?"
    r"|(?:stuck\s+)?behind"
    r"|(?:has|have|had|needs|need)\s+to\s+wait\s+(?:on|for|until)"
    rf"|(?:cannot|could not|will not|would not|does not|do not|did not|not able to|unable to"
    rf"|not going to)\s+(?:{_MOVE})\s+(?:until|till|before|without|because of|because"
    rf"|due to|ahead of|pending)"
    r"|not\s+(?:landing|shipping|moving|starting|launching|going out|going anywhere"
    r"|proceeding|happening|merging|progressing)\s+(?:until|till|before|without)"
)
_STALL_WORDS = (
    r"(?:hard\s+)?(?:blocked|stalled|stuck|on hold|paused|held up|frozen|parked|on ice)"
    r"|at a standstill|dead in the water|not moving|going nowhere"
    rf"|(?:cannot|could not|will not|not able to|unable to)\s+(?:{_MOVE})"
)
_NO_LONGER = (
    r"(?:blocked|waiting|stuck|stalled|held up|gated|dependent|depending|pending)"
    r"(?:\s+(?:on|by|for|behind|upon))?"
)
_UNBLOCKED_WORDS = (
    r"unblocked|unstuck|off hold|freed up|clear to (?:proceed|go|start|ship)"
    r"|free to (?:proceed|go|start|ship|move)|moving again|back on track"
)
_STATUS_WORDS = (
    r"slipping|late|delayed|at risk|flaky|broken|in progress|in review|under review"
    r"|behind schedule|on track|off track|red|yellow|green|amber|going well|underway"
    r"|kicking off|starting|next|up next|a mess|a priority|the priority|top priority"
    rf"|not (?:{_STATE_WORDS})"
)
_DONE_TV = (
    r"shipped|finished|completed|merged|landed|deployed|released|launched|cancelled|canceled"
    r"|wrapped up|closed out|finished up|delivered|rolled out|published|pushed out|shut down"
    r"|sunset|sunsetted|decommissioned|killed|descoped|de-scoped|scrapped|abandoned"
    r"|finalized|finalised|fixed|resolved|closed|wrapped"
)
_DONE_IV = (
    r"shipped|done|finished|complete|completed|landed|merged|deployed|released|launched|live"
    r"|out|cancelled|canceled|wrapped up|wrapped|closed|closed out|delivered|rolled out"
    r"|scrapped|killed|descoped|de-scoped|abandoned|shelved|in production|in prod|finalized"
    r"|finalised|out the door|over the line|across the line|resolved|fixed|decommissioned"
    r"|sunset|sunsetted|shut down|published|good to go|wrapped up"
)
_DONE_AUX = (
    r"(?:(?:is|are|was|were|has been|have been|had been|got|gets|has|have|had|went|is now)\s+)?"
)
_WHERE = r"(?:\s+(?:in|on|to|into)\s+(?:main|master|prod|production|staging|trunk))?"
_OWN_VERBS = (
    r"owns|own|owned|(?:the\s+)?owners?\s+(?:of|for)|(?:the\s+)?(?:DRI|lead|tech lead"
    r"|point person|owner)\s+(?:for|on|of)|point\s+on|on point for|responsible for"
    r"|accountable for|in charge of|on the hook for|tasked with|assigned(?:\s+to)?"
    r"|working on|works on|work on|worked on|handling|handles|handle|handled|driving|drives"
    r"|drive|drove|leading|leads|lead|led|managing|manages|covering|covers|tackling|tackles"
    r"|tackled|picking up|picked up|picks up|taking over|took over|takes over|taking on"
    r"|took on|building|builds|implementing|implements|owning|signed up for"
    r"|(?:will|going to|is going to|are going to)\s+(?:own|take|handle|drive|lead|pick up"
    r"|work on|take over|tackle|build)"
)

Handler = Callable[[_Reader, re.Match[str]], _Outcome | None]


def _g(m: re.Match[str], name: str) -> str | None:
    """An optional named group's text, or None."""
    return m.groupdict().get(name)


def _blocked(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: waiter ``s`` (optional) is blocked by ``t``."""
    return r.blocked(_g(m, "s"), m["t"])


def _blocked_obj(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: waiter ``s`` cannot progress on ``z`` until ``t``."""
    return r.blocked(_g(m, "s"), m["t"], waiting_raw=m["z"])


def _stalled(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: ``s`` is blocked with no blocker named."""
    return r.stalled(m["s"])


def _unblocked(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: ``s`` (optional) no longer waits on ``t`` (optional)."""
    return r.unblocked(_g(m, "s"), _g(m, "t"))


def _owns(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: owner ``o`` (optional) owns ``w`` (optional)."""
    return r.owns(_g(m, "o"), _g(m, "w"))


def _owns_on(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: 'O is on W'."""
    return r.owns_on(m["o"], m["w"])


def _owns_strict(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter for weak cues ('is with', 'is from'): owner must look like one."""
    if not _agent_shaped(_trim(m["o"]), strict=True):
        return None
    return r.owns(m["o"], m["w"])


def _mentioned(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: a status line; records the work item for later 'it'."""
    out = _Outcome()
    return out if r.item(_parse_phrase(m["s"]), out) is not None else None


def _completed(r: _Reader, m: re.Match[str]) -> _Outcome | None:
    """Rule adapter: doer ``d`` (optional) completed ``w``."""
    return r.completed(_g(m, "d"), m["w"])


def _rule(name: str, pattern: str, handler: Handler) -> tuple[str, re.Pattern[str], Handler]:
    """Compile one case-insensitive table row, named for ``--explain``."""
    return name, re.compile(pattern, re.IGNORECASE), handler


# Words frames allow but rarely require (auxiliaries, articles, prepositions): left out of
# gates so a gate is the frame's content words. A frame left with none is ungated.
_OPTIONAL = frozenset(
    """
    a an the is are am was were be been being has have had get gets got remains remain stays
    stay seems seem look looks to by for in on at up off it i we he she they can could
    now did do does so as
    """.split()
)


def _gate(pattern: str) -> frozenset[str] | None:
    """Every literal word of a frame: a clause sharing none of them cannot match it.

    Words the pattern spells in pieces ("blocke(?:d|rs?)") make the frame ungated (None),
    so a gate never hides a match; "needs?" contributes both "needs" and "need".
    """
    source = re.sub(r"\(\?P<\w+>|\\[a-zA-Z]", " ", pattern)
    if re.search(r"[a-zA-Z]\(", source):
        return None
    words: set[str] = set()
    for m in re.finditer(r"([a-zA-Z]+)(\?)?", source):
        word = m.group(1).lower()
        words.add(word)
        if m.group(2):
            words.add(word[:-1])
    words -= _OPTIONAL
    return frozenset(words) or None


# Order matters: labels first, then "no longer blocked" before "blocked", blockers
# before completion and ownership, bare stalls last. The first rule whose slots all
# resolve wins.
_RULES: tuple[tuple[str, re.Pattern[str], Handler], ...] = (
    # Labels: "Blocked: X on Y", "Done: X", "Owner: Bob", "Working on: X".
    _rule(
        "label-blocked-waiting",
        r"blocke(?:d|rs?)\s*:\s*(?:waiting|blocked|stuck)\s+(?:on|for|by)\s+" + _T,
        _blocked,
    ),
    _rule(
        "label-blocked-x-sep-y",
        r"blocked\s*:\s*(?P<s>.+?)\s*(?:->|,|—|–|:|\s-)\s*(?:(?:is|are)\s+)?(?:(?:waiting|blocked"
        r"|stuck|held up|gated|pending)\s+(?:on|for|by|behind)\s+|(?:needs|requires|depends on)"
        r"\s+)?" + _T,
        _blocked,
    ),
    _rule(
        "label-blocked-x-on-y",
        r"blocked\s*:\s*(?P<s>.+?)\s+(?:on|by|behind|pending|until)\s+" + _T,
        _blocked,
    ),
    _rule("label-blocked-x", r"blocked\s*:\s*(?P<s>.+)", _stalled),
    _rule(
        "label-blockers",
        r"(?:blockers?|blocked on|blocked by|waiting on|waiting for|depends on|dependencies|deps)"
        r"\s*:\s*" + _T,
        _blocked,
    ),
    _rule(
        "label-done",
        r"(?:done|shipped|completed|complete|finished|landed|merged|released|deployed|launched"
        r"|cancelled|canceled)\s*:\s*(?P<w>.+)",
        _completed,
    ),
    _rule(
        "label-owner", r"(?:owners?|owned by|dri|assignee|assigned to|lead)\s*:\s*(?P<o>.+)", _owns
    ),
    _rule(
        "label-wip",
        r"(?:working on|wip|in progress|current work|current focus|focus)\s*:\s*(?P<w>.+)",
        _owns,
    ),
    _rule("label-unblocked", r"unblocked\s*:\s*(?P<s>.+)", _unblocked),
    # Unblocked.
    _rule(
        "x-no-longer-blocked-on-y",
        _S + _SEP + _OPT_BE + r"no longer\s+" + _NO_LONGER + r"\s+" + _T,
        _unblocked,
    ),
    _rule(
        "no-longer-blocked-on-y", _OPT_BE + r"no longer\s+" + _NO_LONGER + r"\s+" + _T, _unblocked
    ),
    _rule(
        "x-not-waiting-on-y-anymore",
        _S + _SEP + _OPT_BE + r"not\s+" + _NO_LONGER + r"\s+(?P<t>.+?)\s+(?:anymore|any more"
        r"|any longer)",
        _unblocked,
    ),
    _rule(
        "x-does-not-need-y-anymore",
        _S + r"\s+(?:no longer|(?:does|do) not)\s+(?:depends?|needs?|requires?)(?:\s+on)?\s+"
        r"(?P<t>.+?)(?:\s+(?:anymore|any more|any longer))",
        _unblocked,
    ),
    _rule(
        "x-no-longer-needs-y",
        _S + r"\s+no longer\s+(?:depends?|needs?|requires?)(?:\s+on)?\s+" + _T,
        _unblocked,
    ),
    _rule(
        "y-no-longer-blocking-x",
        r"(?P<t>.+?)" + _SEP + _OPT_BE + r"no longer\s+(?:blocking|holding up|holding back|gating)"
        r"\s+(?P<s>.+)",
        _unblocked,
    ),
    _rule(
        "x-no-longer-blocked",
        _S + _SEP + _OPT_BE + r"no longer\s+(?:blocked|stuck|stalled|waiting|held up)",
        _unblocked,
    ),
    _rule(
        "x-unblocked-since-y",
        _S + _SEP + _OPT_BE + rf"(?:{_UNBLOCKED_WORDS})(?:\s+(?:now that|since|because|as|from"
        r"|by|on|once|after)\s+" + _T + ")?",
        _unblocked,
    ),
    _rule(
        "x-can-move-now-that-y",
        _S + rf"\s+(?:can|could|is able to|are able to|am able to)\s+(?:{_MOVE})\s+(?:now that"
        r"|since|because|as|after)\s+" + _T,
        _unblocked,
    ),
    _rule(
        "y-unblocked-x", r"(?P<t>.+?)\s+(?:has\s+)?(?:unblocked|unblocks)\s+(?P<s>.+)", _unblocked
    ),
    _rule(
        "now-that-y-x-unblocked",
        r"now that\s+(?P<t>.+?),\s*" + _S + _SEP + _OPT_BE + rf"(?:{_UNBLOCKED_WORDS})",
        _unblocked,
    ),
    _rule(
        "unblocked-no-subject",
        _OPT_BE + rf"(?:no longer\s+(?:blocked|stuck|stalled|waiting)|{_UNBLOCKED_WORDS})",
        _unblocked,
    ),
    # Blocked, no subject: "Waiting on X", "blocked by X", "Needs X first".
    _rule("waiting-on-y", _OPT_BE + rf"(?:{_WAIT_VERBS})\s+" + _T, _blocked),
    _rule(
        "needs-y-first",
        r"(?:needs|need)\s+(?P<t>.+?)\s+(?:first|to\s+(?:land|ship|finish|merge|go out|go live"
        r"|get done|complete|be\s+\w+)(?:\s+first)?|before\s+.+)",
        _blocked,
    ),
    # Blocked: "I can't start X until Y lands", "we need Y before we can start X".
    _rule(
        "cannot-start-x-until-y",
        r"(?:(?P<s>.+?)\s+)?(?:cannot|could not|will not|am not able to|are not able to"
        rf"|is not able to|am unable to|are unable to|is unable to|not able to|unable to)\s+"
        rf"(?:{_OBJ_VERBS})\s+(?P<z>.+?)\s+(?:until|till|before|without)\s+" + _T,
        _blocked_obj,
    ),
    _rule(
        "need-y-before-start-x",
        r"(?:(?P<s>.+?)\s+)?(?:needs|need|needed)\s+(?P<t>.+?)\s+before\s+(?:we|I|they|he|she"
        rf"|it)\s+(?:can|could)\s+(?:{_OBJ_VERBS})\s+(?P<z>.+)",
        _blocked_obj,
    ),
    # Blocked: "X needs Y first", "X is blocked on Y", "Y is blocking X".
    _rule(
        "x-needs-y-first",
        _S + r"\s+(?:needs|need|needed)\s+(?P<t>.+?)\s+(?:first|to\s+(?:land|ship|finish|merge"
        r"|go out|go live|get done|complete|be\s+\w+)(?:\s+first)?|before\s+.+)",
        _blocked,
    ),
    _rule("x-blocked-on-y", _S + _SEP + _OPT_BE + rf"(?:{_WAIT_VERBS})\s+" + _T, _blocked),
    _rule(
        "y-blocks-x-nominal",
        r"(?P<t>.+?)" + _SEP + _OPT_BE + r"(?:blocking|holding up|holding back|gating|stalling"
        r"|in the way of|(?:the|a|our|the main|the biggest|the only|a hard)?\s*(?:blocker"
        r"|blocking dependency|bottleneck|dependency|prerequisite|prereq|hard dependency)"
        r"\s+(?:for|of|on|to))\s+(?P<s>.+)",
        _blocked,
    ),
    _rule(
        "y-blocks-x",
        r"(?P<t>.+?)\s+(?:blocks|block|holds up|holds back|held up|held back|gates|gated"
        r"|blocked)\s+(?P<s>.+)",
        _blocked,
    ),
    _rule(
        "y-has-to-land-before-x",
        r"(?P<t>.+?)\s+(?:needs|need|has|have|must)\s+to\s+(?:land|ship|finish|merge|go out"
        r"|go live|be done|be merged|be shipped|be finished|be deployed|be released|happen"
        r"|complete)\s+(?:first\s+)?(?:before|for)\s+(?P<s>.+?)(?:\s+(?:can|could|is able to"
        r"|will|to)\s+.+)?",
        _blocked,
    ),
    _rule(
        "y-needed-for-x",
        r"(?P<t>.+?)\s+" + _OPT_BE + r"(?:needed|required)\s+(?:for|before)\s+(?P<s>.+?)"
        r"(?:\s+(?:can|could|to)\s+.+)?",
        _blocked,
    ),
    # Completed.
    _rule(
        "x-done-with-y",
        r"(?P<d>.+?)\s+" + _OPT_BE + r"(?:done|finished)\s+with\s+(?P<w>.+)",
        _completed,
    ),
    _rule(
        "x-got-y-done",
        r"(?P<d>.+?)\s+(?:got|gotten|has gotten|have gotten|managed to get)\s+(?P<w>.+?)\s+"
        r"(?:done|merged|shipped|out|out the door|deployed|released|over the line"
        r"|across the line|landed|finished|live|wrapped up)" + _WHERE,
        _completed,
    ),
    _rule(
        "x-shipped-y",
        r"(?P<d>.+?)\s+(?:(?:has|have|had|did)\s+)?(?:" + _DONE_TV + r")\s+(?P<w>.+)",
        _completed,
    ),
    _rule(
        "y-was-shipped-by-x",
        r"(?P<w>.+?)" + _SEP + _DONE_AUX + rf"(?:{_DONE_IV})" + _WHERE + r"(?:\s+by\s+(?P<d>.+))?",
        _completed,
    ),
    _rule("shipped-y", rf"(?:{_DONE_TV})\s+(?P<w>.+)", _completed),
    _rule(
        "got-y-done",
        r"(?:got|managed to get)\s+(?P<w>.+?)\s+(?:done|merged|shipped|out|out the door"
        r"|deployed|released|over the line|across the line|landed|finished|live|wrapped up)"
        + _WHERE,
        _completed,
    ),
    # Owns.
    _rule(
        "y-owned-by-x",
        r"(?P<w>.+?)\s+" + _OPT_BE + r"(?:owned|handled|run|driven|led|managed|covered|taken"
        r"|picked up|built|being built|worked on|being worked on|being handled|being driven"
        r"|being led|maintained|championed)\s+by\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        "y-belongs-to-x",
        r"(?P<w>.+?)\s+(?:belongs|belong|belonged|falls|fall|fell|sits|sit)\s+(?:to|with|under)"
        r"\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        "y-assigned-to-x",
        r"(?P<w>.+?)\s+" + _OPT_BE + r"(?:assigned|given|allocated|delegated|handed off"
        r"|handed over|handed|reassigned)\s+to\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        "y-is-with-x", r"(?P<w>.+?)\s+(?:is|are|was|were)\s+(?:with|from)\s+(?P<o>.+)", _owns_strict
    ),
    _rule(
        "y-is-xs",
        r"(?P<w>.+?)\s+(?:is|are|was|were)\s+(?P<o>[^\s']+(?:\s+(?:team|squad|group|crew))?)'s",
        _owns_strict,
    ),
    _rule("x-owns-y", r"(?P<o>.+?)\s+" + _OPT_BE + rf"(?:{_OWN_VERBS})\s+(?P<w>.+)", _owns),
    _rule("x-is-on-y", r"(?P<o>.+?)\s+(?:is|are|am|was|were)\s+on\s+(?P<w>.+)", _owns_on),
    _rule(
        "assigned-y-to-x",
        r"(?:assigned|handed|handed off|gave)\s+(?P<w>.+?)\s+to\s+(?P<o>.+)",
        _owns,
    ),
    _rule(
        "working-on-y",
        _OPT_BE + r"(?:working on|picking up|taking over|taking on|driving|leading|owning"
        r"|handling|tackling|took over|picked up|took on|started on|starting on)\s+(?P<w>.+)",
        _owns,
    ),
    # Stalled, blocker not named (yet).
    _rule("x-stalled", _S + _SEP + _OPT_BE + rf"(?:{_STALL_WORDS})", _stalled),
    # Status without a relation: no fact, but "it"/"Owner:" in the next sentence can
    # refer to the work item named here.
    _rule("x-status", _S + _SEP + _OPT_BE + rf"(?:{_STATUS_WORDS})", _mentioned),
)


# Clauses that state a condition, not a fact ("if X slips, Y will be blocked").
_SUBORDINATE = re.compile(
    r"(?:if|when|whenever|unless|once|whether|in case|as soon as|assuming|suppose|until"
    r"|after|before|hopefully|maybe|perhaps|probably|i think|we think|i guess|not sure)\b",
    re.IGNORECASE,
)


_GATES = tuple(_gate(pattern.pattern) for _, pattern, _ in _RULES)
_TOKENS = re.compile(r"[a-z]+")


def read_clause(r: _Reader, clause: str) -> _Outcome | None:
    """Try the pattern table in order; the first pattern whose slots resolve wins.

    Records the clause's subject text (the group that opens the clause, if any) in
    ``r.subject`` so a following subjectless clause can borrow it.
    """
    r.subject = None
    if _SUBORDINATE.match(clause):
        return None
    tokens = frozenset(_TOKENS.findall(clause.lower()))
    for (name, pattern, handler), gate in zip(_RULES, _GATES, strict=True):
        if gate is not None and gate.isdisjoint(tokens):
            continue
        m = pattern.fullmatch(clause)
        if m is None:
            continue
        outcome = handler(r, m)
        if outcome is not None:
            opening = [g for g in m.groupdict() if m.start(g) == 0]
            r.subject = m[opening[0]] if opening else None
            outcome.frame = name
            return outcome
    return None
