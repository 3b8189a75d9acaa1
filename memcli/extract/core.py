"""The compositional core: clauses -> token classes -> frames -> argument spans.

What it reads. Each sentence is tokenised once (ticket references such as ``#41``,
``PROJ-42``, ``org/repo#12`` and ``PR #62`` stay whole) and every token gets a
one-character class from a phrase lexicon (``_lexicon``): noun-phrase material, a
trigger of one relation in one voice, "by", a preposition, a negator, a modal, a
subordinator. The lexicon is written as lemma rows and expanded in code to every
inflection and to passive, nominal and adjectival forms. Clauses are split at
punctuation, subordinators (the subordinator is the clause's kind: "once X ships" is a
dependency, "if X slips" a condition) and at an "and" that joins two predicates. The
frame table (``FRAMES``: name, handler, pattern over classes) is compiled into one
alternation; a match's groups are token spans, turned into normalised noun phrases
(``_noun_phrase``: ticket lists, "the old tickets INC-1/INC-2", "PLAT-9 log rotation")
and resolved by the handlers of ``memcli.extract.context``.

Around the frames: relative clauses take their antecedent (subject or object gap:
"..., which Rohan owns"), coordinated and "Heading:" clauses borrow their subject, a
label names the relation of a list ("Owner: Priya", "Blockers: X, Y", "Done: X"), a
completion in one clause explains "so Y is unblocked" in another, "X is blocked because
Y ..." names Y, and a few frames span a subordinate clause ("once X ships we can start
Y", "the only thing left for Y is X"). A clause with a modal or negator, under "if", or
after "Decision:" gives no fact; its reason is returned for the trace.

Known limits: no parser, so a verb outside the lexicon ("Hana pushed the fix") is not a
predicate; one frame reads a clause; pronouns resolve to the most recent fitting entity.
Everything is compiled once, lazily (``_table``, ``_frames``).
"""

from __future__ import annotations

import re
from dataclasses import replace

from memcli.extract.context import _key, _Outcome, _Reader
from memcli.extract.lexicon import lower_words
from memcli.extract.phrases import (
    _NOT_NAMES,
    _TEAM_WORDS,
    _agent_shaped,
    _is_org,
    _lower_possessor,
    _name_like,
    _orgish,
    _parse_phrase,
    _trim,
    split_items,
)
from memcli.models import EntityRef, EntityType, Relation

ITEM_TYPE = EntityType.WORK_ITEM

# --------------------------------------------------------------------------------------
# Action items: "ACTION: Dana to migrate the cron jobs", "AI - Sam to chase VEND-88"
# --------------------------------------------------------------------------------------

_ACTION = re.compile(
    r"(?:action(?:\s+items?)?|ai|todo|to-do|follow-?ups?|next steps?)\s*(?::|-|–|—)\s*"
    r"(?P<who>.+?)\s+(?:to|will|is to|should|needs to|has to)\s+(?P<verb>[a-z]+)"
    r"(?P<particle>(?:\s+(?:up|on|out|over|through|back|together|in|off))*)"
    r"\s+(?P<obj>.+)",
    re.IGNORECASE,
)
_ACTION_TAIL = re.compile(
    r"\s+(?:once|by|before|after|when|if|from|with|for(?=\s+(?:next|this|tomorrow|today|tonight"
    r"|the\s+(?:next|rest|team|meeting|call|demo|review|retro|standup|board)\b|review\b"
    r"|approval\b|sign-?off\b|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    r"|[A-Z][a-z]+\s*(?:[.,;]|\Z)|[a-z]+\s*\Z))|via|at|on|in|until|so|to|weekly"
    r"|daily|asap|next|this|each|every|and report|and share|onto|into|over|across"
    r"|through|within|without|against|today|tomorrow|tonight|eod|eow|(?:mon|tues|wednes"
    r"|thurs|fri|satur|sun)day)\b(?!-).*",
    re.IGNORECASE,
)
# "keep pushing X", "start drafting X": the gerund is the action, X its object.
_ASPECT_VERBS = frozenset("keep continue start stop finish resume begin".split())
_GERUND = re.compile(r"\A[a-z]+ing\s+(?=\S)")  # "keep pushing X", not "the wiring"
_ACTION_VAGUE = re.compile(
    r"(?:a|an|the)?\s*(?:revised\s+|new\s+|updated\s+)?(?:eta|date|estimate|update|status"
    r"|numbers|answer|thoughts|options|notes|time|call|meeting|slot)s?",
    re.IGNORECASE,
)
_ACTION_COUNT = re.compile(
    r"\A(?:two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several|\d+)\s+(?=\S)",
    re.IGNORECASE,
)
_PARTICLE_PREP = re.compile(
    r"(?:with|to|at|into|on)\s+(?=(?:the|a|an|our|my|their|his|her)\s)", re.I
)
_OBJ_START_PREP = re.compile(r"(?:with|to|about|for|at|in|into|from)\b", re.IGNORECASE)


# Actions on an existing thing whose work is the activity itself: its noun names the item.
_ACTIVITY_NOUNS = {
    "demo": "demo",
    "present": "presentation",
    "review": "review",
    "audit": "audit",
    "benchmark": "benchmark",
    "investigate": "investigation",
    "triage": "triage",
    "profile": "profiling",
    "rehearse": "rehearsal",
    "validate": "validation",
    "pilot": "pilot",
}
_ARTICLE = re.compile(r"(?:the|a|an|our|my|their|his|her)\s+", re.IGNORECASE)
# Verbs whose "for" phrase says who or what occasion the thing is for ("book the room for
# the offsite", "draft the notes for the board"); with other verbs ("add paging for the
# queue alert", "build dark mode for the console") the "for" phrase is part of the item.
_FOR_WHOM_VERBS = frozenset(
    "book reserve draft write prepare send share present schedule organise organize order buy"
    " arrange circulate collect gather summarise summarize compile".split()
)


def read_action(reader: _Reader, text: str, who: str | None = None) -> _Outcome | None:
    """An action-item line: its assignee owns the object of the action's verb.

    ``who`` is the assignee's full name when the caller knows it (minutes roster).
    """
    m = _ACTION.fullmatch(text)
    if m is None:
        return None
    obj = m["obj"]
    if m["particle"] and (lead := _PARTICLE_PREP.match(obj)):
        obj = obj[lead.end() :]  # "carry on with X", "get back to X": X is the object
    if m["verb"].lower() in _ASPECT_VERBS and not m["particle"]:
        obj = _GERUND.sub("", obj, count=1)
    obj = _ACTION_TAIL.sub("", obj).strip(" .;,")
    if " for " in obj and (
        m["verb"].lower() in _FOR_WHOM_VERBS
        or _agent_shaped(obj.rsplit(" for ", 1)[1], strict=True)
        or _is_org(obj.rsplit(" for ", 1)[1])
    ):  # "book the room for the offsite", "write up X for the guild": for whom, not what
        obj = obj.rsplit(" for ", 1)[0]
    obj = _ACTION_COUNT.sub("", obj, count=1)  # "line up two pilot cohorts": the cohorts
    if not obj or _OBJ_START_PREP.match(obj) or _ACTION_VAGUE.fullmatch(obj):
        return None
    if (noun := _ACTIVITY_NOUNS.get(m["verb"].lower())) is not None and not m["particle"]:
        # "Arnav to demo bulk import": the demo is the work, not the import (which may
        # be an item named before, already shipped)
        obj = f"{_ARTICLE.sub('', obj, count=1)} {noun}"
    who = who or m["who"]
    if " + " in who:
        who = who.replace(" + ", " and ")  # "Ayesha + Stefan to pair on X": both of them
    out = reader.owns(who, obj)
    if out is not None:
        out.frame = "action-item"
    return out


def action_assignee(text: str) -> str | None:
    """The raw assignee of an action-item line, or None."""
    m = _ACTION.fullmatch(text)
    return m["who"] if m else None


# --------------------------------------------------------------------------------------
# The trigger lexicon: phrase -> token class
# --------------------------------------------------------------------------------------
#
# Classes (one character each):
#   n  noun-phrase material (content words, names, determiners, ticket refs, pronouns)
#   p  preposition inside or after a noun phrase     &  list conjunction (and, &, +)
#   x  auxiliary / copula                            b  "by" (the agent of a passive)
#   N  negator                                       M  modal or hedge
#   F  "first" ("X needs Y first")                   G  light verbs of a relative clause
#   W  waiter-first dependency ("blocked on", "waiting for", "pending", "gated on")
#   K  blocker-first dependency ("blocks", "is a prerequisite for", "has to land before")
#   R  "needs" / "requires" (a dependency only with "first")
#   C  "cannot start until" and kin (waiter first, blocker after)
#   S  a bare stall ("stuck", "on hold") with no blocker named
#   O  owner-first ownership ("owns", "is driving", "took over")
#   o  item-first ownership ("owned by", "assigned to")
#   Q  "is on" (ownership when the owner is a person: "Nadia is on the runbook")
#   H  "has" (ownership only for a person subject: "Tamar has the invoice preview")
#   D  completion verbs ("shipped", "was rolled out", "got merged")
#   E  completion states ("is live", "is done", "went to production")
#   U  unblocked ("unblocked", "no longer blocked on", "freed up")
#   V  blocker-first unblock ("which unblocks Y")
#   Y  nominal dependency ("X's dependency on Y")

_AUX = (
    "is are am was were be been being has have had get gets got getting remains remain stays having"
    " stay stayed"
)
_MODALS = (
    "might may could would should will shall can must maybe perhaps probably possibly likely"
    " hopefully almost nearly mostly partly partially soon eventually gonna planning hoping"
    " intend intending"
    " expect expects expected tentatively supposedly scheduled slated targeted targeting"
    " anticipated projected forecast aiming aim aims intended halfway"
)
_PREPS = (
    "of for from in on to with without into at across via about under over through as per behind"
)
_MOVE = (
    "start,begin,proceed,progress,continue,resume,ship,land,launch,merge,finish,complete"
    ",release,deploy,go,go ahead,go live,go in,go out,move,move forward,happen,enable,roll out"
    ",get started,get merged,be merged,be enabled,be released,be deployed,be shipped"
    ",run,be run,cut,be cut,be started,be used"
)


def _inflect(lemmas: str) -> list[str]:
    """Every inflection of each (phrasal) verb lemma; see ``lexicon.forms``."""
    from memcli.extract.lexicon import forms

    return [f for lemma in lemmas.split(",") for f in forms(lemma.strip())]


def _past(lemmas: str) -> list[str]:
    """Past and participle forms only: "the release branch", "the login fix" are nouns."""
    from memcli.extract.lexicon import forms

    out: list[str] = []
    for lemma in lemmas.split(","):
        every = forms(lemma.strip())
        out += [f for f in every[2:] if not f.split()[0].endswith("ing")]
    return out


def _combine(*parts: list[str] | str) -> list[str]:
    """All phrases made of one option from each part (a part is a list or a ``|`` string)."""
    out = [""]
    for part in parts:
        options = part.split("|") if isinstance(part, str) else part
        out = [f"{a} {b}".strip() for a in out for b in options]
    return [" ".join(o.split()) for o in out]


def _lexicon() -> dict[str, str]:
    """The phrase -> class table, built once from lemma rows (see ``_classes``)."""
    table: dict[str, str] = {}

    def add(cls: str, phrases: list[str]) -> None:
        for phrase in phrases:
            table.setdefault(phrase, cls)

    blocked_on = "on|upon|by|behind|until|till|pending|waiting on|waiting for|due to|because of"
    add(
        "U",
        _combine(
            "no longer|not",
            "blocked|waiting|stuck|stalled|held up|gated|dependent|depending|pending|on hold",
            "|on|by|for|behind|upon",
        )
        + ["unblocked", "unblocked on", "unblocked from", "unstuck", "freed up", "off hold"]
        + ["unblocked by", "unblocked after", "no longer waiting", "no longer stuck"]
        + ["back on track", "taken off hold", "out of limbo"]
        + ["clear to proceed", "clear to start", "free to proceed", "free to start"]
        + _combine("clear|free", "to go|to go ahead|to begin|to resume|to move")
        + ["moving again", "no longer blocked", "free again"]
        + _combine(  # "X has stopped waiting on Y", "X doesn't need to wait for Y anymore"
            "stopped|has stopped|have stopped|had stopped", "waiting on|waiting for|depending on"
        )
        + _combine(
            "does not|do not|did not|no longer|no",
            "need to|needs to|have to|has to",
            "wait on|wait for|wait upon",
        )
        + ["no need to wait on", "no need to wait for", "no longer needs", "no longer need"]
        + _combine("no longer|not", "waits|wait|depends|depend|relies|rely|hinges", "on|for|upon")
        + _combine(  # "now that Y is out, X can move again"
            "can|could", "move again|proceed again|resume|restart|move forward again"
        )
        + _combine(
            "can|could",
            "now|finally",
            "move|proceed|go ahead|go in|go out|resume|start|begin|continue|restart|happen",
        )
        + ["can proceed", "could proceed", "good to go", "is good to go", "are good to go"],
    )
    add("V", _combine("no longer|not", "blocking|holding up|gating|blocks"))
    add("V", ["unblocks", "unblocked", "unblocking", "frees up", "freed up", "unsticks"])
    add(
        "W",
        _combine("hard|", "blocked|stuck|stalled|held up|hung up|gated|parked|paused", blocked_on)
        + _combine("on hold|frozen|on ice|queued", "pending|until|till|for|behind|waiting on")
        + _combine(_inflect("wait"), "on|for|upon|until|till")
        + _combine(_inflect("depend,rely,hinge,sit"), "on|upon|behind")
        + _combine("dependent|dependant|contingent|conditional|reliant", "on|upon")
        + ["pending", "pending on", "awaiting", "awaits", "await", "stuck behind"]
        + _combine("stuck|blocked|sitting|held|sat|parked", "waiting on|waiting for|behind")
        + _combine("bottlenecked|held back|gated|queued|sitting|sat", "on|by|behind")
        + _combine("held hostage|hostage", "by|to")
        + _combine("postponed|deferred|delayed|pushed back", "until|till|pending")
        + ["at the mercy of", "waits for", "waited for", "contingent upon", "subject to"]
        + _combine("placed|put|kept", "on hold|on ice|on pause", "pending|until|till|behind")
        + _combine("has to|have to|had to|needs to|need to", "wait", "on|for|until")
        + _combine(  # report style: "progress was impeded by the late provisioning of X"
            "impeded|hampered|hindered|constrained|slowed|slowed down|held back|set back",
            "by",
        )
        + _combine(
            "suspended|halted|deprioritised|deprioritized|frozen|paused|shelved|held|kept",
            "until|till|pending|awaiting",
        ),
    )
    add("S", _combine("hard|", "blocked|stuck|stalled|on hold|paused|held up|frozen|parked"))
    add("S", _combine("placed|put|kept|left", "on hold|on ice|on pause"))
    add("S", ["bottlenecked", "deadlocked", "in limbo", "in a holding pattern"])
    add("S", _combine("is|are|was|were|remains|remain|stays", "on hold|on ice"))
    add(
        "W",
        _combine(
            "is|are|was|were|remains|remain|stays|has been|have been",
            "on hold|on ice",
            "pending|until|till|behind|because of|due to|owing to",
        ),
    )
    add(
        "K",
        ["block", "blocks", "blocking", "gates", "gating", "holds up", "holding up"]
        + ["delays", "delaying", "holds back", "holding back", "stalls", "stalling"]
        + _combine(  # a cleft: "the font fix is what's holding up the release"
            "is what is|was what was|is what has been|is the thing",
            "blocking|holding up|holding back|gating|delaying|holding everything up on"
            "|holding everything up for|holding things up on|holding things up for",
        )
        + _combine(
            "a|the|the main|the last|a hard|the only|a big|another",
            "blocker|holdup|hold-up|bottleneck|sticking point|roadblock",
            "for|on|to",
        )
        + _combine(  # "Y is the last thing standing between us and X"
            "is|are|",
            "the last thing|the only thing|the one thing",
            "standing between us and|between us and|standing in the way of",
        )
        + _combine("a|the|", "prerequisite|prereq|dependency|hard dependency", "for|of|to")
        + _combine(  # "is the outstanding dependency for the refund batch"
            "a|the|one",
            "outstanding|key|main|critical|remaining|last|only|major|big|hard|open|sole|single",
            "dependency|prerequisite|blocker|prereq",
            "for|of|to|on",
        )
        + _combine("needed|required", "for|before|by")
        + _combine("the|a", "long pole for|long pole on|gating item for|gating factor for")
        + _combine("on the critical path for|in the way of|standing in the way of", "")
        + _combine(
            "has to|have to|needs to|need to|must|should",
            "land|ship|merge|go in|go out|happen|be done|be in|be merged|be finished|be live"
            "|be shipped|be deployed|finish|be fixed|be sorted|be approved|be signed off"
            "|be agreed|be completed|be ready|be available|be resolved|be settled|complete"
            "|be delivered|be provisioned|be finalised|be finalized|be in place",
            "before|ahead of|prior to",
        ),
    )
    add("W", _inflect("require"))
    add("R", _inflect("need"))
    add(
        "C",
        _combine(
            "cannot|can not|could not|will not|would not|does not|do not|did not|is not able to"
            "|are not able to|unable to|not able to|is not going to|are not going to|not",
            _inflect(_MOVE),
            "until|till|before|without|pending|ahead of|prior to|until after|till after",
        )
        + _combine(
            "cannot|can not|could not|will not|is not going to|are not going to|not",
            "go anywhere|move anywhere|get anywhere|make progress|make any progress"
            "|do anything|do much|go further|go any further|budge|move an inch",
            "until|till|before|without|pending|ahead of|prior to",
        )
        + _combine(
            "can only|will only|only",
            _inflect(_MOVE),
            "once|after|when",
        ),
    )
    add(
        "O",
        ["own", "owns", "leads", "leading", "led", "driving", "drives", "drove", "running"]
        + _combine(_inflect("handle,manage,coordinate,take over,pick up,take on"), "")
        + _inflect("shepherd,oversee,spearhead,steward,champion,look after,babysit,quarterback")
        + _inflect("run point on,head up,run with")
        + _combine(_inflect("take care of,work on"), "")
        + _combine(_inflect("commence,begin,start,resume,continue,kick off"), "work on")
        + ["responsible for", "accountable for", "in charge of", "on the hook for"]
        + ["tasked with", "the owner of", "owner of", "the dri for", "dri for"]
        + ["on point for", "point on", "has the ball on", "have the ball on", "looking after"]
        + _combine("is|am|are|was|were", "on point for|on the hook for|on point on")
        + _combine("is|am|are", "taking|grabbing|picking up|owning|running with")
        + _combine("is|am|are|was|were", "taking over|taking on|picking up|kicking off")
        + _combine(_inflect("take,assume,have,get,keep,retain"), "ownership of|over ownership of")
        + _combine("full|sole|primary|overall", "ownership of|responsibility for")
        + _combine(
            _inflect("assume,accept,take on,take over,inherit,share"),
            "responsibility for|ownership of|the ownership of|the responsibility for",
        )
        + ["has got the ball on", "got the ball on", "the point person for", "point person for"]
        + ["the point of contact for", "the go-to for", "the contact for", "on the hook to"]
        + ["the owner for", "owner for", "the tech lead for", "the lead engineer on"]
        + ["the lead engineer for", "the assignee on", "the assignee for", "the DRI on"]
        + ["working on", "is working on", "are working on", "leading on", "the lead on"]
        + ["the lead for", "lead on", "lead for", "looking into", "is looking into"]
        + ["the point person on", "point person on", "the go-to on", "the owner on"]
        + _combine("digging|dug|poking|poked", "into|at")
        + _combine(  # "heads-down on the importer", "focused on the kiosk mode"
            "heads-down|heads down|focused|focusing|busy|deep",
            "on|with",
        ),
    )
    add(
        "O",
        _combine("will|am going to|is going to|are going to", "take|own|handle|drive|pick up")
        + _combine("will|am going to|is going to|are going to", "take care of|take over|grab")
        + _inflect("co-own,co-lead,co-drive,grab,claim")
        + ["kicking off", "kicked off", "started on", "starting on", "back on", "continuing on"]
        + ["continuing with", "kept going on", "keep going on", "keeps going on", "still on"],
    )
    add(
        "J",
        ["slipping", "late", "delayed", "at risk", "flaky", "broken", "in progress", "in review"]
        + ["under review", "behind schedule", "on track", "off track", "underway", "a mess"]
        + ["red", "amber", "yellow", "going well", "kicking off", "a priority", "top priority"]
        + ["slipped", "slips", "moving", "progressing", "in testing", "in qa", "close"]
        + ["sitting in review", "still in review", "up for review", "in code review"],
    )
    add(  # "still on the hook for X": "still on" alone would take "the hook for X" as X
        "O",
        _combine(
            "still|now|also|currently",
            "on the hook for|on point for|responsible for|in charge of|the owner of",
        )
        + _combine("take|takes|taking|took|taken|has|have|had", "point on|point for|the lead on")
        + _combine("is|am|are|was|were", "taking point on|taking point for|taking the lead on"),
    )
    add("O", _combine("to", "own|take|drive|lead|handle|pick up|take over|take on"))
    add("O", _combine(_inflect("move on,switch over,switch,pivot"), "to"))  # "moved on to X"
    add(  # "which Ruth has volunteered to drive": a commitment to own it
        "O",
        _combine(
            "volunteered|offered|agreed|signed up|stepped up|committed|promised|undertaken",
            "to own|to drive|to lead|to take|to handle|to pick up|to take on|to take over"
            "|to deliver|to build|to ship|to finish|to complete|to provide",
        ),
    )
    add("O", _combine("continue|continues|will continue", "to own|to drive|to lead|owning"))
    add(
        "O",
        _combine(
            "taking|took|take|takes|taken|picking|picked|pick|pickng",
            "it|that|this",
            "over|up|on|back over|back up|back on",
        )
        # with its auxiliary, which "is taking" would otherwise take: "is taking this on"
        + _combine(
            "is|am|are|was|were", "taking|picking", "it|that|this", "over|up|on|back over|back up"
        ),
    )
    add(  # a commitment or a stand-in: "signed up for the audit export", "is covering X"
        "O",
        _combine(_inflect("volunteer,sign up"), "for")
        + _combine("is|am|are|was|were", "covering|carrying|babysitting|minding|nursing")
        + ["now covering"]
        + _combine(  # "I'm the one carrying it this sprint"
            "the one", "carrying|driving|handling|doing|owning|running|leading|working on"
        )
        + _inflect("inherit")
        + _combine("is|am|are|was|were", "heading|fronting|chaperoning")
        + _combine(  # steady work on it: "chipping away at the importer"
            "working|worked|chipping away|chipped away|plugging away|plugged away",
            "through|at|on",
        )
        + _combine(
            "making|made|make|makes",
            "progress on|headway on|good progress on|some progress on|steady progress on",
        )
        + _combine("leading|led|leads|lead", "the charge on|the charge for")
        + _combine("been|was|were|got|is|are", "staffed on|assigned onto"),
    )
    add(  # a hand-over: "passing the vendor onboarding to Rui"
        "A", ["passing", "passing over", "passing along", "passing off", "passed along"]
    )
    add(  # a rota covered is no work item: "covering on-call for Bea", "covering for Dana"
        "n",
        _combine(
            "covering|cover|covered|covers|is covering|am covering|are covering",
            "on-call|oncall|on call|support|the rota|shifts|for",
        ),
    )
    add("Z", ["yours", "all yours", "yours now", "all yours now"])
    add("P", ["mine", "ours"])  # "PR #1177 is mine": the author's
    add("T", _combine("tracked|filed|logged|captured|tracked separately", "in|as|under"))
    add("-", ["anymore", "any more", "any longer", "lmk", "fyi", "btw", "imo", "tbh", "ty"])
    add("-", ["thx", "pls", "plz", "ugh", "lol", "yay", "nvm", "only", "fwiw", "re"])
    add("-", ["together", "please", "too", "tho", "itself", "themselves"])
    add("-", ["instead", "meanwhile", "in the meantime"])  # "started on X instead"
    add("x", ["running late", "running behind", "running over"])  # a state: no one runs it
    add("p", ["instead of", "rather than"])  # "X instead of Y": Y is another item
    add(  # phrasal verbs with "out" that finish nothing: "the query times out"
        "n",
        _combine(
            "time|times|timed|timing|log|logs|logged|check|checks|checked|lock|locked|find"
            "|found|reach|reached|point|pointed|rule|ruled|figure|figured|sort|sorted|opt"
            "|opted|sell|sold|burn|burned|burnt|freak|freaked|zone|zoned|stand|stands|stood"
            "|black|blacked|max|maxed|print|printed|turn|turns|turned|turning",
            "out",
        ),
    )  # "Ravi and Noor shipped X together"
    add("G", ["doing", "arranging", "organising", "organizing", "sorting out", "chasing"])
    add("G", ["adding", "writing", "preparing", "drafting", "fixing"])
    add("G", ["building", "implementing", "prototyping", "investigating", "debugging"])
    add("G", ["refactoring", "rewriting", "designing", "putting together", "spiking"])
    add("G", ["wiring up", "setting up"])  # "- wiring up the exporter"
    add(
        "o",
        _combine(
            "owned|handled|driven|led|run|managed|coordinated|covered|being handled|being driven"
            "|being done",
            "by",
        )
        + ["assigned to", "reassigned to", "belongs to", "belong to", "belonged to"]
        + _combine("sits|sit|lies|lie|rests|rest|sat|now sits|now lies|now rests", "with")
        + _combine("is|are|is now|are now", "with")  # "BILL-109 is with Priyanka"
        + _combine("transferred|transitioned|handed back", "to")
        + _combine(  # the present of a hand-over: "ownership of X passes to Lior"
            "passes|passes over|transfers|transitions|moves|is passing|is moving", "to"
        )
        + _combine(
            "is|are|is now|are now|now", "sitting with"
        )  # "the permit is sitting with estates"
        + _combine("handed off|handed over|handed|given|passed|passed over|moved", "to")
        + _combine("been", "handed off|handed over|handed|given|passed|reassigned|assigned", "to")
        # "the survey has been allocated to Odile", "X is the responsibility of estates"
        + _combine("|been|now", "allocated|reallocated|delegated|entrusted", "to")
        + _combine("is|are|is now|are now|remains|remain", "the responsibility of|the remit of")
        + _combine(  # "has been picked up by Svenja", "was taken over by the ops team"
            "picked up|taken over|taken on|claimed|grabbed|adopted|championed|sponsored"
            "|headed up|spearheaded|overseen|stewarded|shepherded|looked after|driven forward",
            "by",
        ),
    )
    add(
        "c",
        _combine(
            "cannot|can not|could not|will not|would not|unable to|not able to|is not able to",
            "ship|start|begin|launch|merge|release|deploy|finish|enable|roll out|do|move forward"
            "|move|progress|make progress|go forward|get going|get started|be finished|be done"
            "|continue|resume|proceed with|test|land|turn on|cut over|go in|go out|go live"
            "|be enabled|be merged|be released|be deployed|be shipped|be scheduled|be started"
            "|be run|be completed|be finalised|be finalized|go ahead|proceed|run|be cut",
        ),
    )
    add("L", ["until", "till", "without", "before"])
    add("A", _combine("assigned|reassigned|handed|handed over|handed off|given", ""))
    add("A", ["assigning", "reassigning", "handing", "handing over", "handing off", "giving"])
    add("Q", _combine("is|am|are|was|were|has been|have been|is still|are still", "on"))
    add("S", _combine("has been|have been|had been", "on hold|on ice"))
    add("H", ["has", "have", "has got", "have got"])
    done_lemmas = (
        "ship,finish,complete,merge,land,deploy,release,launch,close,close out,wrap up"
        ",publish,roll out,deliver,fix,resolve,finalise,finalize,submit,cancel"
        ",decommission,retire,sunset,migrate,upgrade,install,update,kill,scrap"
        ",shelve,abandon,descope,de-scope,sort out,sort,commission,achieve,accomplish,implement,rebuild,squash,apply,build,renew"
    )
    done = _past(done_lemmas) + ["cancelled", "sunsetted", "finished up", "wrapped", "sunset"]
    done += ["pushed live", "pushed to prod", "pushed to production"]
    done += ["done with", "finished with"]  # "done with the tax export"
    add("J", ["pushed back", "pushed out", "pushed to next week", "pushed to next sprint"])
    done += _past("knock out,cross off,tick off,check off,push out,put out,get out,button up")
    done += _past("push live,tie off,clean up,stand up,spin up,turn on,switch on,turn off")
    done += _past("switch off,cut over,nail down")
    # idioms of finishing: "squared away the VPN certs", "legal signed off on the DPA",
    # "put the eviction bug to bed", "polished off the docs"
    # (not "signed off on X": an approval of X by someone else, not X finished)
    done += _past("square away,sign off,polish off,finish off")
    done += _past("sew up,tidy up,close off") + ["put to bed"]  # (past = base: _past drops it)
    done += _past("pull off,carry out,execute,cross off,tick off,check off")
    add("I", [f for f in _inflect(done_lemmas) if f.split()[0].endswith("ing")])
    _DONE_GERUNDS.update(f for f in _inflect(done_lemmas) if f.split()[0].endswith("ing"))
    add("D", done)
    add(
        "E",
        _combine("done|live|complete|in production|in prod|in main|in master|out the door", "")
        + ["went live", "gone live", "went out", "went to production", "went to prod"]
        + ["over the line", "across the line", "out", "wrapped"]
        + ["went in", "gone in", "got in", "sunset", "sunsetted", "retired", "in ga"]
        + _combine(
            "live|out", "in prod|in production|on prod|everywhere|for all users|for everyone"
        )
        + ["generally available", "rolled out everywhere", "in the can"]
        + ["buttoned up", "put to bed", "closed out", "concluded", "reached completion"]
        + ["in the bag", "went through", "gone through", "made it", "ga'd"]
        + _combine("went|hit|reached|is now|now", "ga|general availability")
        + _combine("hit|reached|rolled to|promoted to|made it to", "prod|production|main|master")
        + _combine(
            "marked|marked as|flagged as|moved to", "done|complete|completed|resolved|fixed|closed"
        )
        + ["has concluded", "have concluded", "was concluded", "were concluded"]
        + _combine("available", "to everyone|for everyone|everywhere")
        + _combine(
            "available to all|available for all|available in all|available to",
            "|users|customers|tenants|sites|regions|teams|stores|markets|depots",
        ),
    )
    add(  # "rides on the rate card", "downstream of the shard rebalance", "at a standstill"
        "W",
        _combine(_inflect("ride,piggyback"), "on|upon")
        + _combine("downstream of|queued up behind|in line behind|waiting in line behind", "")
        + _combine("at a standstill|stalled out", "until|till|pending|on|behind")
        + _combine("tied up|hung up", "behind|waiting on|waiting for|pending")
        # built on what another item provides: "the new endpoints sit on top of the rework"
        # (the cue-word screen keys on a phrase's longest word: "sit", not "built")
        + _combine(_inflect("sit"), "on top of")
        # left idle until then: "it's sitting there until X ships", "they stay skipped
        # until the page is hooked up"
        + _combine(
            "sitting there|sitting idle|sat idle|sits idle|skipped|parked there",
            "until|till|pending",
        ),
    )
    add("S", ["at a standstill", "stalled out"])
    add(  # held, and why: "on hold because of the Wi-Fi upgrade", "paused owing to X"
        "W",
        _combine(
            "on hold|on ice|frozen|halted|suspended|paused|parked|stalled|stuck|blocked|held up",
            "because of|due to|owing to|on account of",
        )
        # a learner's active for the passive: "I am still blocking by the new schema"
        + ["blocking by", "blocking on"]
        + _combine("depends|depend|depending|depended|dependent", "from"),
    )
    add(  # a prerequisite with no waiter in its clause: "the permit has to land first"
        "q",
        _combine(
            "has to|have to|needs to|need to|must|got to|has got to",
            "land|ship|merge|go in|go out|happen|finish|complete|be done|be merged|be finished"
            "|be approved|be signed off|be fixed|be in place|be sorted|be ready|be in|be live"
            "|be deployed|be released|be agreed|come through|come back",
            "first",
        ),
    )
    add(  # blocker first, the way now open: "Y cleared the way for X"
        "V",
        _combine(
            "cleared|clears|clearing|paved|paves|paving|opened|opens|opening",
            "the way for|the path for",
        )
        + _combine(
            "removed|removes|removing",
            "the last obstacle to|the last obstacle for|the last blocker for|the blocker on"
            "|the blocker for|the last blocker on",
        ),
    )
    add(  # no progress at all until: "no movement until X", "going nowhere until X"
        "C",
        _combine(
            "going nowhere|getting nowhere|goes nowhere|went nowhere|no movement|no progress"
            "|nothing moving|nothing moves|nothing will move|not moving|not going anywhere"
            "|nothing happening|nothing can happen|nothing can move|nothing to do",
            "until|till|pending|before|without",
        ),
    )
    add(  # a cleft, blocker first: "Y is what X is sitting behind", "Y is the one thing X
        # waits on" (the object of the wait is gapped; the copula and head are one token)
        "h",
        _combine(
            "is|are",  # (not "was the last thing you were waiting on": that wait is over)
            "what|the one thing|the only thing|the last thing|the main thing|the one item"
            "|the only item|the one piece|the only piece|the one thing that|the only thing that",
        ),
    )
    add(  # an event that ends a wait: "until the permit comes through", "...comes back"
        "e",
        _combine(
            "comes|come|came|coming",
            "through|thru|back|in|out|good",
        )
        + _combine("arrives|arrive|arrived|happens|happen|happened|turns up|shows up", ""),
    )
    add(  # queued: "in the queue behind the rebalance", "got bumped behind X"
        "W",
        _combine("in the queue|stuck in line|stuck in the queue|bumped|pushed|sequenced", "behind")
        # "X has a hard dependency on Y": X waits (not "a hard dependency on X", Y first)
        + _combine(
            "has|have|had|has got|have got",
            "a|an|a hard|a big|a strict|a direct|an external|a critical|a key|an upstream",
            "dependency on|dependency upon|reliance on",
        )
        + _combine("has|have|had", "dependencies on|hard dependencies on"),
    )
    add("K", _combine("stands|stood|is standing|is|are|was|were", "in the way of"))
    add(  # "we're sitting on the reindex until the rebalance lands": held back, not done
        "c", ["holding off on", "held off on", "holding off", "holding"]
    )
    add("Y", _combine("dependency|dependence|reliance", "on|upon"))
    add(  # a past owner is no owner: "previously managed by the platform group"
        "N",
        _combine(
            "previously|formerly|originally|once",
            "owned|managed|handled|run|led|driven|maintained|looked after",
            "by",
        ),
    )
    add("b", ["by"])
    add("F", ["first", "beforehand"])
    add("N", ["not", "never", "no", "nothing", "none", "neither", "nor", "without"])
    add(
        "M",
        _MODALS.split()
        + ["going to", "plan to", "plans to", "hope to", "want to", "on track to", "set to"]
        + ["on course to", "due to be", "due to land", "due to ship", "due to launch"]
        + ["due to go", "due to start", "due to complete", "due to finish", "due to release"],
    )
    add("x", _AUX.split())
    add("x", _combine("continues|continue|continued|continuing", "to"))
    add("p", _PREPS.split())
    add("&", ["and", "&", "+", "/"])
    for done_phrase in ("took care of", "taken care of"):  # "took care of X": did X
        table[done_phrase] = "D"
    for mark in _SPLIT_PUNCT:
        table[mark] = "|"
    for word in _SUBORDINATORS | {"that"}:
        table[word] = "s"
    _DROP_WORDS.update(w for w, c in table.items() if c == "-")
    return table


_TABLE: dict[str, str] | None = None
# first word -> second word -> lengths of the phrases they open, longest first: most words
# open no phrase, so one dict look-up (no pair to build) settles them
_PREFIX: dict[str, dict[str, tuple[int, ...]]] = {}


_FUNCTION_WORDS = frozenset(
    "is are am was were be been being the a an to for of by with in at it not no will would"
    " can could do does did has have had get got gets main only another big last hard again"
    " finally now".split()
)
_CUES: set[str] = set()


def core_cues() -> frozenset[str]:
    """Words at least one of which every sentence the core can read contains."""
    _table()
    return frozenset(_CUES)


def _longest_piece(phrase: str) -> str:
    """The longest run of letters in a phrase ("go-to" -> go): a sentence holding the
    phrase holds that run too, and short runs ("to", "on") are in most sentences."""
    pieces: list[str] = re.findall(r"[a-z]+", phrase)
    return max(pieces, key=len) if pieces else ""


def _table() -> dict[str, str]:
    """The lexicon, built on first use (importing the reader stays cheap)."""
    global _TABLE
    if _TABLE is None:
        table = _lexicon()
        lengths: dict[tuple[str, str], set[int]] = {}
        for phrase in table:
            words = phrase.split()
            if len(words) > 1:
                lengths.setdefault((words[0], words[1]), set()).add(len(words))
        for (first, second), ns in lengths.items():
            _PREFIX.setdefault(first, {})[second] = tuple(sorted(ns, reverse=True))
        for phrase, cls in table.items():  # one word per phrase is enough for the gate:
            if cls in _TRIGGERS or cls in "L":  # its longest content word
                content = [w for w in phrase.split() if w not in _FUNCTION_WORDS]
                if content:
                    if piece := _longest_piece(max(content, key=len)):
                        _CUES.add(piece)
        _CUES.update({"has", "have", "had", "main", "tagged"} | _CLOSING_PRESENT)
        # a label's most telling word ("owned by" -> owned): "by", "for", "in" and "on" pass
        # most sentences, and a label line always has its longest word too
        _CUES.update(_longest_piece(label) for label in _LABEL_RELATIONS)
        _TABLE = table
    return _TABLE


# --------------------------------------------------------------------------------------
# Tokens and clauses
# --------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"[A-Za-z][\w.-]*/[\w.-]+#\d+"  # org/repo#12
    r"|(?:PR|MR|pr|mr)\s*#\d+"  # PR #62
    r"|#\d+"
    r"|\d+–\d+\b"  # a range of numbers, "eps 1–3": one word, not two clauses
    r"|[^\W_](?:[\w'’&.+/-]*[\w])?%?"  # words, R&D, CI/CD, v4.2.0, right-to-left, X's, 82%
    r"|—|–|->|[,;:()&+]|(?<=\s)[-/](?=\s)"
)
# The same without its first three alternatives, which all need a "#": most sentences
# have none, and the first alternative backtracks over every word looking for its "/".
_TOKEN_PLAIN = re.compile(_TOKEN.pattern.split("|#\\d+|", 1)[1])
_SPLIT_PUNCT = frozenset([",", ";", ":", "(", ")", "—", "–", "->", "-"])
_SUBORDINATORS = frozenset(
    "which who whom because since once although though unless if whereas while when"
    " whether after so but then".split()
)
_MULTI_SUB = {
    ("now", "that"): "now that",
    ("so", "that"): "so that",
    ("as", "soon"): "as soon as",
    ("even", "though"): "even though",
    ("in", "case"): "in case",
    ("and", "then"): "and then",
}
_CONDITIONAL = frozenset({"if", "unless", "in case", "whether", "when"})
_CAUSAL = frozenset({"now that", "since", "because", "as", "after", "once", "with", ","})
_RELATIVE = frozenset({"which", "who", "whom", "that"})
_POSSESSIVE = frozenset("our my their your his her its".split())
_TRIGGERS = frozenset("WKRCSOoQHDEUVYIGAZTcPJ")


_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_TIME = re.compile(
    rf"""\b(?:{_DAY}(?:\s+(?:morning|afternoon|evening|night))?
    |weekend|yesterday|yday|today|tonight|tomorrow|tmrw|morning|afternoon|evening|night
    |overnight
    |week|month|quarter|fortnight|\d{{1,2}}(?:st|nd|rd|th)?\s+{_MONTH}|{_MONTH}\s+\d{{1,2}}

    (?:st|nd|rd|th)?|\d{{1,2}}:\d{{2}}|\d{{1,2}}(?:st|nd|rd|th)(?!\s+\w))\b""",
    re.IGNORECASE | re.VERBOSE,
)
# The words that may lead a time phrase ("on Monday", "over the weekend", "by the 30th"),
# matched backwards from where the time word starts.
_TIME_LEAD = re.compile(
    r"(?:\b(?:on|at|by|over|since|from|until|till|early|late|before|after|for)\s+)?(?:\bthe\s+)?"
    r"(?:\b(?:last|this|next|past)\s+)?\Z",
    re.IGNORECASE,
)


# Where a time phrase can start: a word character with none before it, opening one of the
# ``_TIME`` alternatives: a digit or one of ``_TIME_HEADS`` (their first three letters).
# ``_TIME.finditer`` tries its whole case-blind alternation at every position of the
# sentence; trying it only at these few places finds the same matches twice as fast.
# (A new ``_TIME`` alternative needs its head here: tests/test_reader_speed.py checks.)
_TIME_HEADS = frozenset(
    """mon tue wed thu fri sat sun wee yes yda tod ton tom tmr mor aft eve nig qua for ove
    jan feb mar apr may jun jul aug sep oct nov dec""".split()
)
# Over lowercased ASCII, a word start that opens with a digit or a head.
_TIME_START_ASCII = re.compile(rf"(?<!\w)(?:[0-9]|{'|'.join(sorted(_TIME_HEADS))})")
# Anything else: any word start that could open one, ``_TIME_HEADS`` checked per start
# (a character outside ASCII may fold to a letter of a time word, so it always counts).
_TIME_START = re.compile(r"[0-9adefjmnoqstwyADEFJMNOQSTWY\u0080-\U0010ffff](?<!\w\w)")


def _time_starts(text: str) -> list[int]:
    """Every offset at which a ``_TIME`` match could start, in order."""
    if text.isascii():
        return [m.start() for m in _TIME_START_ASCII.finditer(text.lower())]
    starts: list[int] = []
    for m in _TIME_START.finditer(text):
        at = m.start()
        head = text[at : at + 3]
        if not head.isascii() or head[0].isdigit() or head.lower() in _TIME_HEADS:
            starts.append(at)
    return starts


_MONTH_HINT = re.compile("Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec")
_CAP_WORD = re.compile(r"[ADFJMNOS][a-z]{2,8}(?![a-z])")
_MONTH_WORDS = frozenset(
    """Jan Feb Mar Apr May Jun Jul Aug Sep Sept Oct Nov Dec January February March April June
    July August September October November December""".split()
)
_MONTH_LEAD = re.compile(
    r"(?:\b(?:in|during|until|till|by|since|from|before|after|early|late|mid-?|end of)\s*)?\Z",
    re.IGNORECASE,  # "In March the crew retired X": a sentence may open with the time
)


def _month_spans(text: str) -> list[tuple[int, int]]:
    """Spans of a capitalised month named on its own after a time word ("until May", "in
    March"); "Jun", "April" and "May" alone are names too, so they need the lead."""
    if _MONTH_HINT.search(text) is None:
        return []
    spans: list[tuple[int, int]] = []
    for m in _CAP_WORD.finditer(text):
        if m.group() not in _MONTH_WORDS or (m.start() and text[m.start() - 1].isalnum()):
            continue
        lead = _MONTH_LEAD.search(text, max(0, m.start() - 12), m.start())
        if lead is not None and lead.start() < m.start():
            spans.append((lead.start(), m.end()))
    return spans


def _blank_times(text: str) -> str:
    """Blank out time phrases (keeping offsets): they are never arguments.

    The same matches as ``_TIME.finditer(text)``: leftmost first, each search resuming
    where the last match ended, but ``_TIME`` is only tried where one can start; then
    the months named on their own (``_month_spans``).
    """
    spans: list[tuple[int, int]] = []
    resume = 0
    match = _TIME.match
    for at in _time_starts(text):
        if at < resume:
            continue
        m = match(text, at)
        if m is None or text.startswith(("'s ", "’s "), m.end()):
            continue  # "Saturday's promo" names a thing, not a time
        lead = _TIME_LEAD.search(text, max(0, at - 30), at)
        spans.append((lead.start() if lead else at, m.end()))
        resume = m.end()
    months = _month_spans(text)
    if months:
        spans = sorted(spans + months)
    for start, end in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


_DIGIT = re.compile(r"\d")
_LETTERS = re.compile(r"[a-z]+")
# What may follow "did it" / "ran it" and still leave it a whole clause: when, how.
_DID_IT_ADJUNCTS = frozenset("during over at overnight while with from when again".split())
_TIME_WORDS = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday weekend yesterday yday today
    tonight tomorrow tmrw morning afternoon evening night noon week month quarter fortnight
    overnight
    jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june
    july august september october november december""".split()
)
_TIME_HINT = re.compile(
    r"\d|day|night|morning|week|yesterday|today|tonight|tomorrow|tmrw|yday|evening|noon"
    r"|afternoon|month|quarter|fortnight",
    re.IGNORECASE,
)
# Every ticket reference has a digit: ``_noun_phrase`` looks for tickets only then.
_TICKET = re.compile(r"(?:[A-Za-z][\w.-]*/[\w.-]+)?#\d+|[A-Z][A-Z0-9]+-\d+|(?:PR|MR)\s*#\d+", re.I)
_TICKETS = re.compile(r"(?:[A-Z][A-Z0-9]+-\d+|#\d+)(?:/(?:[A-Z][A-Z0-9]+-\d+|#\d+))+")


def _split_ticket_list(token: tuple[str, int, int]) -> list[tuple[str, int, int]]:
    """ "INC-301/INC-302" is two tickets joined by a slash."""
    text, start, _ = token
    if "/" not in text or not _TICKETS.fullmatch(text):
        return [token]
    out: list[tuple[str, int, int]] = []
    pos = start
    for i, piece in enumerate(text.split("/")):
        if i:
            out.append(("/", pos, pos + 1))
            pos += 1
        out.append((piece, pos, pos + len(piece)))
        pos += len(piece)
    return out


class _Tok:
    __slots__ = ("cls", "end", "low", "start", "text")

    def __init__(self, text: str, start: int, end: int, cls: str, low: str = "") -> None:
        self.text, self.start, self.end, self.cls = text, start, end, cls
        self.low = low or text.lower()


# Gerunds that are nouns as often as verbs ("load testing", "alert tuning"): work in hand
# only where a bullet opens with one and its object follows ("- tuning the alert rules").
_WORK_GERUNDS = frozenset(
    """porting benchmarking profiling documenting scoping speccing tuning hardening
    instrumenting polishing retrying rerunning testing reworking redesigning automating
    consolidating untangling backfilling migrating integrating upgrading""".split()
) | {"starting", "started"}  # "- starting the app login flow (MOB-31)": work in hand


def _work_in_hand(out: list[_Tok], k: int) -> bool:
    """ "- writing the migration guide": a gerund that opens a clause and takes a
    determined object is the writer's work in hand, not a noun ("writing guide")."""
    return (
        (
            not k
            or out[k - 1].cls == "|"
            or (
                k == 1
                and out[0].cls == "n"
                and out[0].text[:1].isupper()
                and out[0].text[1:2].islower()
            )
        )  # "Dana: writing the guide" is read as "Dana writing the guide"
        and k + 1 < len(out)
        and (out[k + 1].low in _ARTICLES or bool(_TICKET.fullmatch(out[k + 1].text)))
    )


def tokenise(text: str) -> list[_Tok]:
    """Tokens with their classes; multiword lexicon phrases become one token.

    This runs on every sentence with a cue word, so it is written for speed: one regex
    pass, one dict look-up per word, and the context passes below only visit the tokens
    they can change (``_CONTEXT_CLASSES``).
    """
    table = _table()
    token = _TOKEN if "#" in text else _TOKEN_PLAIN
    words = token.findall(text)  # offsets are laid out later, by _rebase
    lows = list(map(str.lower, words))
    if _DIGIT.search(text) or not _TIME_WORDS.isdisjoint(lows):
        blanked = _blank_times(text)
        if blanked != text:  # a digit is not always a time ("PR #62")
            words = token.findall(blanked)
            lows = list(map(str.lower, words))
    if "/" in text:
        words = [p[0] for w in words for p in _split_ticket_list((w, 0, len(w)))]
        lows = list(map(str.lower, words))
    if "’" in text:
        lows = [low.replace("’", "'") for low in lows]
    out: list[_Tok] = []
    append = out.append
    dropped = False  # whether a token of class "-" (filler) was made
    size = len(words)
    starts, get, tok_, new = _PREFIX, table.get, _Tok, _Tok.__new__
    skip = 0  # words still to pass over, taken into the phrase before them
    for i, low in enumerate(lows):
        if skip:
            skip -= 1
            continue
        if low in starts and i + 1 < size and (lengths := starts[low].get(lows[i + 1])):
            for n in lengths:
                if i + n <= size:
                    phrase = " ".join(lows[i : i + n])
                    cls = get(phrase)
                    if cls is not None:
                        append(tok_(" ".join(words[i : i + n]), 0, 0, cls, phrase))
                        dropped = dropped or cls == "-"
                        skip = n - 1
                        break
            else:
                append(tok_(words[i], 0, 0, get(low, "n"), low))
            continue
        tok = new(tok_)  # _Tok(words[i], 0, 0, get(low, "n"), low) without a call to __init__
        tok.text = words[i]
        tok.start = tok.end = 0
        tok.cls = get(low, "n")
        tok.low = low
        append(tok)
    if "that" in lows:
        for k, tok in enumerate(out):  # "that": relative pronoun or demonstrative?
            if tok.low == "that":
                prev = out[k - 1].cls if k else ""
                nxt = out[k + 1].cls if k + 1 < len(out) else ""
                if prev != "n" or nxt in ("", "&", "|", "s", "p", "b"):
                    tok.cls = "n"
    for tok in (
        out if "ly" in text and _LY.search(text) else ()
    ):  # "conducted successfully": no role
        if (
            tok.cls == "n"
            and tok.low.endswith("ly")
            and len(tok.low) > 5
            and tok.low not in _LY_NOUNS
            and tok.text[:1].islower()
        ):
            tok.cls = "-"
            dropped = True
    ands = [k for k in range(len(out) - 2) if out[k + 1].low == "and"] if "and" in lows else ()
    for k in ands:  # "rebased and merged #N", "was reviewed and deployed", "signed off and"
        j = k - 1 if k and out[k].low in _PARTICLES else k
        tok = out[j]
        if (
            tok.cls == "n"
            and (tok.low.endswith("ed") or tok.low in _IRREGULAR_PARTICIPLES)
            and tok.text[:1].islower()
            and (not j or out[j - 1].cls in "|x")
            and out[k + 2].cls == "D"
        ):
            for t in out[j : k + 2]:
                t.cls = "-"
            dropped = True
    for k, tok in enumerate(out[:-1] if not _CLOSING_PRESENT.isdisjoint(lows) else ()):
        if tok.low in _CLOSING_PRESENT and _TICKET.fullmatch(out[k + 1].text):
            tok.cls = "D"  # "Fixes #901 and #902", "... and closes #118": this PR does
    if out and out[0].low in (",", ";"):
        dropped = True  # "By March, ...": the time phrase was blanked, its comma stays
    if dropped or not _DROP_WORDS.isdisjoint(lows):
        out = [tok for tok in out if tok.cls != "-"]
        while out and out[0].low in (",", ";", "-", "—", "–", ":"):
            out = out[1:]  # "ugh, the export is ...": the interjection's comma
    dropped = False
    if (
        out
        and size
        and (
            lows[0] in _WORK_GERUNDS
            or (size > 1 and lows[1] in _WORK_GERUNDS)
            or (size > 2 and lows[2] in _WORK_GERUNDS)
        )
    ):
        for k, tok in enumerate(out[:3]):  # "- tuning the alert rules": the writer's work
            if tok.cls == "n" and tok.low in _WORK_GERUNDS and _work_in_hand(out, k):
                tok.cls = "G"
    possessive = "'" in text or "’" in text
    visit = [  # the tokens a rule below may change (a change never makes a later one so)
        k
        for k, tok in enumerate(out)
        if tok.cls in _CONTEXT_CLASSES
        or tok.low in _CONTEXT_WORDS
        or (possessive and tok.cls == "n" and tok.low.endswith(("'s", "’s")))
    ]
    # A rule added below must act only on tokens ``visit`` holds: widen _CONTEXT_CLASSES
    # or _CONTEXT_WORDS for a token of another class or word.
    for k in visit:  # context: "our own X", "has been" vs "has X"
        tok = out[k]
        prev = out[k - 1].low if k else ""
        nxt = out[k + 1].cls if k + 1 < len(out) else ""
        if tok.low == "own" and prev in _POSSESSIVE:
            tok.cls = "n"
        elif tok.low == "work on" and k and out[k - 1].cls == "D":
            tok.cls = "n"  # "Oren completed work on X": X is done
        elif tok.low == "work on" and (not k or prev in _DETERMINERS) and k + 1 < len(out):
            if any(t.cls == "x" for t in out[k + 1 :]):
                tok.cls = "n"  # "Work on the health score has been paused": a noun
        elif (
            tok.low == "unblocked"
            and nxt == "n"
            and out[k + 1].low != "now"  # "unblocked now that Y is out"
            and (not k or out[k - 1].cls != "x" or out[k - 1].low in ("has", "have", "had"))
        ):
            tok.cls = "V"  # "the payments integration (has) unblocked the checkout flow"
        elif (
            tok.cls == "n"
            and k
            and (out[k - 1].cls == "x" or (out[k - 1].low == "all" and out[k - 2].cls == "x"))
            and tok.low.endswith(("'s", "’s"))
            and (
                k + 1 == len(out)
                or out[k + 1].cls == "|"
                or (
                    out[k + 1].low in _OWNED_GENERIC
                    and (k + 2 == len(out) or out[k + 2].cls == "|")
                )
            )
        ):
            tok.cls = "P"  # "Search revamp is Priya's", "that's Oren's PR"
            if k + 1 < len(out) and out[k + 1].low in _OWNED_GENERIC:
                out[k + 1].cls = "-"
                dropped = True
        elif (
            tok.cls in "OI"
            and tok.low.endswith("ing")
            and k
            and out[k - 1].cls == "n"
            and (
                nxt in ("x", "|", "")
                or out[k + 1].low in _SUBORDINATORS
                or out[k - 1].low in _DETERMINERS
                or (tok.cls == "I" and nxt in "np" and out[k - 1].low not in _PERSONS)
                or (  # "the sorter commissioning is on hold pending X": the noun's head
                    nxt in "WSCcRJKM"
                    and nxt
                    and out[k - 1].low not in _PERSONS
                    and not _name_like(out[k - 1].text)
                )
            )
            and not (
                tok.cls == "O"
                and nxt == ""
                and _name_like(out[k - 1].text)
                and (k == 1 or out[k - 2].cls == "|")
            )
        ):
            tok.cls = "n"  # "the Windows path handling is ...": a noun ("Priya driving" is not)
        elif tok.low in _CLOSING_PRESENT and k and out[k - 1].low in ("this", "which", "it"):
            tok.cls, out[k - 1].cls = "D", "-"  # "this closes #5521": the author's PR
            dropped = True
        elif (
            tok.low in _CLOSING_PRESENT
            and k > 1
            and out[k - 1].low in ("pr", "mr", "change", "patch", "commit", "diff")
            and out[k - 2].low in ("this", "the", "my", "our")
        ):  # "This PR fixes the flaky test and closes #431": the author's change does
            tok.cls, out[k - 1].cls, out[k - 2].cls = "D", "-", "-"
            dropped = True
        elif tok.cls == "I" and k and out[k - 1].cls == "D" and nxt == "n":
            tok.cls = "n"  # "finished migrating the alerting rules": the migration is done
        elif (
            tok.cls == "G"
            and nxt not in ("", "|", "s", "p")
            and (not k or out[k - 1].cls != "x")
            and not _work_in_hand(out, k)
        ):
            tok.cls = "n"  # "the writing guide": only "that Paulo is doing" ends on G
        elif tok.low in _MODIFIER_MODALS:
            if (
                k
                and out[k - 1].cls == "n"
                and out[k - 1].low not in _PERSONS
                and nxt == "n"
                and out[k + 1].low not in _DETERMINERS
            ):
                tok.cls = "n"  # "the demand forecast model", "the scheduled purge job"
        elif tok.low in ("delays", "delay"):
            if (
                k
                and (out[k - 1].cls in "Wb" or out[k - 1].low in ("to", "of"))
                and k + 1 < len(out)
                and out[k + 1].low in ("in", "to", "with", "on", "from", "of")
            ):  # "held back by delays in the currency feed": the feed
                tok.cls = out[k + 1].cls = "-"
                dropped = True
        elif tok.low == "being":
            if (
                nxt in "Dn"
                and k + 2 < len(out)
                and out[k + 2].cls == "b"
                and (nxt == "D" or out[k + 1].low.endswith("ed"))
            ):
                out[k + 1].cls, out[k + 2].cls = "o", "-"  # "being delivered by P": P's
                dropped = True
            elif nxt == "D":
                out[k + 1].cls = "n"  # "is being rolled out": under way, not done
        elif tok.low == "in":
            if k and out[k - 1].cls == "x" and nxt in ("", "|", "&", "s"):
                tok.cls = "E"  # "now that the schema change is in": it landed
        elif tok.low == "under":
            j = next(
                (j for j in range(k + 1, min(k + 4, len(out))) if out[j].low.endswith("'s")), 0
            )
            if j and j + 1 < len(out) and out[j + 1].low in _UNDER_HEADS:
                tok.cls = "o"  # "continues under Leona Brandt's leadership": she leads it
                if k and out[k - 1].cls == "n" and out[k - 1].low in _CONTINUES:
                    out[k - 1].cls = "-"
                out[j].text, out[j].low = out[j].text[:-2], out[j].low[:-2]
                out[j + 1].cls = "-"
                dropped = True
        elif tok.low in ("took", "take", "takes", "taking"):
            if tok.cls == "n" and k + 1 < len(out) and out[k + 1].low in ("the", "this", "that"):
                ahead = out[k + 2 : k + 8]
                if any(t.low in _TASK_HEADS or _TICKET.fullmatch(t.text) for t in ahead):
                    tok.cls = "O"  # "took the flaky auth test ticket": it is theirs now
        elif tok.low == "pushed":
            if k + 1 < len(out) and (
                (
                    out[k + 1].low in ("it", "that", "this")
                    and (k + 2 == len(out) or out[k + 2].low in _AFTER_PUSHED_IT)
                )
                or (
                    out[k + 1].low in ("the", "a", "my", "our", "his", "her")
                    and k + 2 < len(out)
                    and out[k + 2].low in _PUSHED_THINGS
                )
            ):
                tok.cls = "D"  # "Ingrid pushed it an hour ago", "pushed the fix"
        elif tok.cls == "D" and k and out[k - 1].low in _ARTICLES and nxt == "n":
            tok.cls = "n"  # "the updated ledger snapshot", "a merged PR": an adjective
        elif tok.low in ("live", "complete"):
            if k and out[k - 1].low in _DETERMINERS and nxt == "n":
                tok.cls = "n"  # "the live chat integration": a name, not a state
        elif tok.low == "half":
            if nxt in ("E", "D") and k and out[k - 1].low not in _ARTICLES:
                tok.cls = "M"  # "about half done": a degree, not a completion
        elif tok.low in ("did", "ran"):
            if (
                k + 1 < len(out)
                and out[k + 1].low in ("it", "that", "this")
                and (
                    k + 2 == len(out)
                    or out[k + 2].cls in "|&"
                    or out[k + 2].low in _DID_IT_ADJUNCTS
                )
                and k
                and out[k - 1].cls == "n"
            ):
                tok.cls = "D"  # "Leona did it", "Leona ran it before the freeze": she
                # finished the item talked about
        elif (
            tok.cls == "J"
            and (not k or out[k - 1].cls != "x")
            and not (k and out[k - 1].cls == "|" and nxt == "b")  # "X — in progress by Y"
        ):
            tok.cls = "n"  # "the flaky test cleanup": an adjective, not a status
        elif tok.cls == "H" and (
            nxt not in ("n", "")
            or (nxt == "n" and out[k + 1].low.endswith(("ed", "en")) and out[k + 1].low != "red")
        ):
            tok.cls = "x"  # "has been", "has confirmed": an auxiliary
    if dropped:
        out = [tok for tok in out if tok.cls != "-"]
    return out


_CLOSING_PRESENT = frozenset("closes fixes resolves completes".split())
_OWNED_GENERIC = frozenset(
    "pr prs mr ticket change work task thing one baby call project patch".split()
)
_LY = re.compile(r"[a-z]{4}ly\b")
_LY_NOUNS = frozenset(
    "early daily weekly monthly quarterly yearly hourly nightly family supply apply reply"
    " assembly anomaly anomalies butterfly rely italy july ally belly jelly bully holy"
    " friendly costly timely orderly likely unlikely only poly multiply comply".split()
)
_PERSONS = frozenset("i we you he she they".split())
_REF_TARGETS = frozenset("it that this".split())
_DETERMINERS = frozenset("the a an our my their his her its this that these those".split())


_CONTINUES = frozenset("continues continued proceeds proceeded sits moves runs".split())
_AFTER_PUSHED_IT = frozenset(
    ", ; — – an a this last yesterday earlier today ago just in on at to live out".split()
)
_TASK_HEADS = frozenset("ticket tickets bug bugs issue issues task tasks card cards story".split())
_ARTICLES = frozenset("the a an our my their his her its these those".split())
_PUSHED_THINGS = frozenset("fix fixes patch change changes update hotfix commit commits".split())
_UNDER_HEADS = frozenset("leadership direction ownership stewardship supervision watch".split())
_MODIFIER_MODALS = frozenset("forecast scheduled projected expected targeted".split())
_PARTICLES = frozenset("off up out through over".split())
_IRREGULAR_PARTICIPLES = frozenset("done seen run built written tested".split())
_CONTEXT_WORDS = (
    frozenset({"own", "unblocked", "work on", "delays", "delay", "being", "in", "live"})
    | frozenset(
        {"complete", "did", "ran", "half", "under", "pushed", "took", "take", "takes", "taking"}
    )
    | _CLOSING_PRESENT
    | _MODIFIER_MODALS
)
# The classes the context pass of ``tokenise`` may change; any other token is left alone
# unless its word is in ``_CONTEXT_WORDS`` or it is a possessive ("Priya's").
_CONTEXT_CLASSES = frozenset("OIGJHD")
_DROP_WORDS: set[str] = set()
_DONE_GERUNDS: set[str] = set()  # "landing", "rolling out": filled with the lexicon


class _Clause:
    __slots__ = ("antecedent", "kind", "toks")

    def __init__(self, kind: str, toks: list[_Tok], antecedent: list[_Tok] | None = None) -> None:
        self.kind, self.toks, self.antecedent = kind, toks, antecedent

    @property
    def classes(self) -> str:
        return "".join([t.cls for t in self.toks])


_LIST_BREAK = re.compile("[&|]")  # a list's "and" or comma, or a clause break, in classes


def clauses(toks: list[_Tok]) -> list[_Clause]:
    """Split at punctuation, subordinators and clause-joining coordinators.

    A comma or "and" splits only once the clause before it has a predicate, so lists
    ("A, B and C are blocked") stay one noun phrase.
    """
    result: list[_Clause] = []
    current: list[_Tok] = []
    kind = ""
    i = 0
    has_pred = False
    while i < len(toks):
        tok = toks[i]
        if tok.cls not in _CLAUSE_MARKS and tok.low not in _CLAUSE_WORDS:
            # most tokens: no rule below can split at them (a new rule that splits at
            # another class or word adds it to _CLAUSE_MARKS or _CLAUSE_WORDS)
            current.append(tok)
            has_pred = has_pred or tok.cls in _TRIGGERS
            i += 1
            continue
        pair = (tok.low, toks[i + 1].low) if i + 1 < len(toks) else None
        if (
            pair == ("so", "that") and i + 2 < len(toks) and toks[i + 2].low in ("is", "was", "has")
        ):  # "..., so that's moving again": "that" is the subject, not "so that"
            result.append(_Clause(kind, current))
            current, kind, has_pred = [], "so", False
            i += 1
            continue
        if pair in _MULTI_SUB:
            result.append(_Clause(kind, current))
            current, kind, has_pred = [], _MULTI_SUB[pair], False
            i += 3 if pair == ("as", "soon") else 2
            continue
        split = None
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if tok.cls == "|":
            split = tok.low if tok.low in ":" or has_pred else None
            if nxt is not None and (nxt.cls in _TRIGGERS or nxt.cls in "xs"):
                split = tok.low  # ", owned by Amir", ", which ..."
            if current and (current[0].cls == "p" or current[0].low in _INTRO_WORDS):
                split = tok.low  # "Per discussion in standup, ..." introduces the clause
            if kind in _SUBORDINATE and any(t.cls == "x" for t in current):
                split = tok.low  # "Now that Y has been approved, X can proceed"
            if nxt is not None and nxt.low in _PERSONS and tok.low == ",":
                split = tok.low  # "you keep X, I'll take Y"
            if (
                tok.low == ","
                and nxt is not None
                and nxt.low == "and"
                and i + 2 < len(toks)
                and toks[i + 2].low in ("i", "we")
            ):
                split = tok.low  # "X, who will run it from here, and I'm picking up Y"
            if (
                nxt is not None
                and nxt.low == "as"
                and i + 2 < len(toks)
                and toks[i + 2].low in _AS_FOLLOWERS
            ):
                split = tok.low  # "X has not started, as it is contingent on Y"
            if (
                tok.low == ","
                and i
                and nxt is not None
                and _TICKET.fullmatch(toks[i - 1].text)
                and _TICKET.fullmatch(nxt.text)
                and (i + 2 >= len(toks) or toks[i + 2].cls in "|&")
            ):
                split = None  # "Fixes #88, #91": a list of tickets
            if split is None and tok.low not in ",":
                split = tok.low
            if split is None:
                tok.cls = "&"  # a list comma
        elif tok.cls == "s":
            split = tok.low
        elif (
            tok.low == "as"
            and has_pred
            and nxt is not None
            and (nxt.low in _PERSONS or nxt.low in ("it", "this", "that", "the", "there"))
        ):
            split = "as"  # "X is stalled as it depends on Y": a reason clause
        elif tok.cls == "&" and tok.low in ("and", "&") and has_pred:
            rest = "".join(t.cls for t in toks[i + 1 :])
            if any(c in _TRIGGERS or c == "x" for c in _LIST_BREAK.split(rest, 1)[0]):
                split = "and"
            elif nxt is not None and nxt.cls in "MN":
                split = "and"  # "... and expects a draft by the 30th"
            elif (
                nxt is not None
                and nxt.cls == "n"
                and (nxt.low.endswith("ed") or nxt.low in _LATER_VERBS)
            ):
                split = "and"  # "... and passed certification"
        elif tok.low == "and" and any(t.cls == "x" for t in current[1:]) and nxt is not None:
            rest = "".join(t.cls for t in toks[i + 1 :])
            head = _LIST_BREAK.split(rest, 1)[0]
            if head[:1] == "n" and "x" in head and any(c in _TRIGGERS for c in head):
                split = "and"  # "the drill was run and the runbook was published by SRE"
        if split is not None:
            result.append(_Clause(kind, current))
            current, kind, has_pred = [], split, False
        else:
            current.append(tok)
            has_pred = has_pred or tok.cls in _TRIGGERS
        i += 1
    result.append(_Clause(kind, current))
    for clause in result:  # "and packaging is ...": the joiner is the clause's kind
        while clause.toks and clause.toks[0].cls in "&p" and clause.toks[0].low in _JOIN_WORDS:
            clause.kind = clause.toks[0].low
            clause.toks = clause.toks[1:]
        if (
            len(clause.toks) > 2
            and clause.toks[0].low == "as"
            and clause.kind in (",", "—", "–", ";")
            and clause.toks[1].low in _AS_FOLLOWERS
        ):  # "X has not started, as it is contingent on Y": a reason clause
            clause.kind, clause.toks = "as", clause.toks[1:]
    return [c for c in result if c.toks or c.kind == ":"]


_JOIN_WORDS = frozenset({"and", "&", "+", "/", "with"})
_SUBORDINATE = frozenset(
    {"now that", "once", "since", "because", "after", "when", "as soon as", "although"}
    | {"though", "even though", "if", "unless", "while", "whereas"}
)
_AS_FOLLOWERS = frozenset({"it", "this", "that", "the", "there", "they", "we", "i", "he", "she"})
# The classes and words ``clauses`` may split at (a token of neither joins the clause).
_CLAUSE_MARKS = frozenset("|s&")
_CLAUSE_WORDS = frozenset({"as", "and"} | {first for first, _ in _MULTI_SUB})
# Words that open an introductory phrase ("During the quarter, ...", "Following review,"):
# the comma after it closes that phrase, not a list item.
_INTRO_WORDS = frozenset(
    "during following despite amid amidst given owing due ahead after before since"
    " throughout within as over in on at this last per thanks regarding re until till".split()
)
_STAND_INS = frozenset({"i", "we", "they", "it"})
_OBJECT_PRONOUNS = frozenset({"it", "them", "that", "this", "those", "these"})
_LATER_VERBS = frozenset(
    "says said thinks expects hopes plans wants reckons mentions notes adds reports confirms"
    " promised promises tells told asks asked".split()
)


# --------------------------------------------------------------------------------------
# The frame table
# --------------------------------------------------------------------------------------

_NP = r"n(?:[n&p]*n)?"
# What may follow a blocker: "(to be finished) (first)", "(is done)".
# also "#58 landing first"; an event and where it comes from: "is back from the vendor",
# "is agreed with the ward teams", "comes through", "comes back from legal"
_EVENT = r"(?:x+[DEn](?:p[n&p]*n)?|e(?:p[n&p]*n)?)"
_TO_BE_DONE = rf"I?(?:px+[DE])?F?{_EVENT}?F?"  # "#80 being merged first"
# "until the sign-off is obtained from the records team": who delivers it, in the blocker
_BY_WHOM = rf"(?:x+[nD][pb]{_NP})?"
_PP = rf"(?:[pL]{_NP})"

# (name, handler, pattern over classes). Groups: s waiter, t blocker, o owner, w work
# item, d doer, k a "with <doer>" partner. Rows are tried in order; the first whose
# arguments resolve reads the clause.
FRAMES: tuple[tuple[str, str, str], ...] = (
    ("x-unblocked-from-y", "unblocked", rf"(?P<s>{_NP})x*U(?P<t>{_NP})?"),
    ("unblocked-from-y", "unblocked", rf"x*U(?P<t>{_NP})?"),
    ("y-unblocks-x", "unblocked", rf"(?P<t>{_NP}(?:b{_NP})?)x*V(?P<s>{_NP})"),
    ("y-is-what-x-waits-on", "blocked", rf"(?P<t>{_NP})h(?P<s>{_NP})x*[WR]"),
    ("x-waits-on-y", "blocked", rf"(?P<s>{_NP})x*W(?P<t>{_NP}(?:b{_NP})?{_BY_WHOM}){_TO_BE_DONE}"),
    ("waits-on-y", "blocked", rf"x*W(?P<t>{_NP}(?:b{_NP})?{_BY_WHOM}){_TO_BE_DONE}"),
    ("y-blocks-x-can-start-z", "blocked_mv", rf"(?P<t>{_NP})x*K{_NP}M(?P<v>n)(?P<s>{_NP})"),
    ("y-blocks-x", "blocked", rf"(?P<t>{_NP})x*K(?P<s>{_NP})(?:M.*)?"),
    ("x-needs-y-first", "blocked", rf"(?P<s>{_NP})x*R(?P<t>{_NP})(?:p?x*[DE])?F"),
    ("needs-y-first", "blocked", rf"x*R(?P<t>{_NP})(?:p?x*[DE])?F"),
    ("x-needs-it", "blocked_ref", rf"(?P<s>{_NP})x*R(?P<t>n)"),
    ("x-cannot-move-until-y", "blocked", rf"(?P<s>{_NP})x*C(?P<t>{_NP})(?:x*[DEn]*|{_EVENT})?"),
    ("cannot-move-x-until-y", "blocked", rf"(?:{_NP})?x*cp?(?P<s>{_NP})L(?P<t>{_NP})(?:x+[DEn]*)?"),
    ("x-cannot-move", "stalled", rf"(?P<s>{_NP})x*c"),
    ("x-dependency-on-y", "blocked", rf"(?P<s>{_NP})Y(?P<t>{_NP})(?:x.*)?"),
    ("x-is-stalled", "stalled", rf"(?P<s>{_NP})x*S"),
    ("w-was-done-by-d", "completed", rf"(?P<w>{_NP})x*[DE]{_PP}*b(?P<d>n+(?:&n+)*){_PP}*(?:&.*)?"),
    ("w-was-done", "completed", rf"(?P<w>{_NP})x+D{_PP}*(?:&.*)?"),
    # a ticket's comment opening "Merged by @piet after review": the ticket, done by Piet
    ("done-by-d", "completed_by", rf"D{_PP}*b(?P<d>n+(?:&n+)*){_PP}*"),
    ("d-did-w", "completed", rf"(?P<d>{_NP})x?D(?P<w>{_NP})(?:p(?P<k>{_NP}))?"),
    ("w-done", "completed", rf"(?P<w>{_NP})x*[DE](?:[p&L].*)?"),
    ("did-w", "completed", rf"D(?P<w>{_NP})(?:p(?P<k>{_NP}))?"),
    ("d-got-w-done", "completed_got", rf"(?P<d>{_NP})?x(?P<w>{_NP})[DE]"),
    ("closing-ticket", "completed_ticket", rf"(?:{_NP}&?)?x*I(?P<w>{_NP})"),
    ("closing-ticket-as", "completed_ticket", rf"(?:{_NP}&?)?x*I(?P<w>n(?:&n)*)[pDbL].*"),
    ("o-owns-w", "owns", rf"(?P<o>{_NP})x*[OI]I?(?P<w>{_NP}){_PP}?"),
    ("o-is-making-w", "owns", rf"(?P<o>{_NP})x+G(?P<w>{_NP}){_PP}?"),
    ("o-comma-w-is-yours", "owns", rf"(?:[n&p]*&)?(?P<o>nn?)&(?P<w>{_NP})xZ"),
    ("w-is-yours", "owns_yours", rf"(?P<w>{_NP})xZ(?:p{_NP})?"),
    ("w-is-tracked-in", "topic", rf"(?P<w>{_NP})x*T{_NP}"),
    ("w-owned-by-o", "owns", rf"(?P<w>{_NP})x*o(?P<o>{_NP})"),
    ("w-is-os", "owns_poss", rf"(?P<w>{_NP})xn?(?P<o>P)"),
    ("w-mine", "owns_poss", rf"(?P<w>{_NP})(?P<o>P)n?"),  # "search tuning: mine now"
    ("w-status", "topic", rf"(?P<w>{_NP})x*J.*"),
    ("o-is-on-w", "owns_on", rf"(?P<o>{_NP})Q(?P<w>{_NP})"),
    ("o-has-w", "owns_has", rf"(?P<o>{_NP})H(?P<w>{_NP})"),
    ("w-is-on-o", "owns_on_person", rf"(?P<w>{_NP})Q(?P<o>n)"),
    ("owns-w", "owns", rf"x*OI?(?P<w>{_NP})"),
    # a subjectless bullet of work in hand: "- writing the migration guide" (first person)
    ("doing-w", "owns", rf"G(?P<w>{_NP}){_PP}?"),
    ("o-doing-w", "owns_doing", rf"(?P<o>n)G(?P<w>{_NP}){_PP}?"),
    ("assigned-to-o", "mention_agent", rf"x*o(?P<o>{_NP})"),
    ("o-took-it-over", "owns_it", rf"(?P<o>{_NP})x*(?P<v>O)(?:p{_NP})?"),
    ("took-it-over", "owns_it", rf"x*(?P<v>O)(?:p{_NP})?"),  # "Picking this back up."
    ("assigned-w-to-o", "owns", rf"(?:{_NP})?x*A(?P<w>{_NP})p?p(?P<o>{_NP})"),
    ("o-was-assigned-w", "owns", rf"(?P<o>{_NP})x+A(?P<w>{_NP})"),
    # a hand-over with the recipient first: "Odile handed me the kiln tickets"
    ("handed-o-w", "owns_given", rf"(?:{_NP})?A(?P<o>n)(?P<w>{_NP}){_PP}?"),
)
# Relative clauses with the object gapped: "..., which Rohan owns", "that Paulo is doing".
_OBJECT_GAP: tuple[tuple[str, str, str], ...] = (
    ("which-o-owns", "owns", rf"(?P<o>{_NP})x*[OGHQ]{_PP}?"),
    ("which-o-is-finishing", "owns", rf"(?P<o>{_NP})x+I{_PP}?"),  # "which the team is finishing"
    ("which-d-did", "completed", rf"(?P<d>{_NP})x*D{_PP}?"),
    ("which-o-will-do", "owns", rf"(?P<o>{_NP})x*M+p?[nDO]{_PP}?"),
    ("which-s-needs", "blocked", rf"(?P<s>{_NP})x*[RW]p?F?"),
)
_COMPILED: list[tuple[str, str, re.Pattern[str]]] | None = None
_PLANNED_GAP = [
    (name, handler, re.compile(pattern))
    for name, handler, pattern in _OBJECT_GAP
    if name == "which-o-will-do"
]


_ANY_FRAME: re.Pattern[str] | None = None


def _frames() -> list[tuple[str, str, re.Pattern[str]]]:
    """Each frame compiled, plus (in ``_ANY_FRAME``) all main frames as one alternation:
    one match finds the first frame that fits a clause's classes."""
    global _COMPILED, _ANY_FRAME
    if _COMPILED is None:
        _COMPILED = [(n, h, re.compile(p)) for n, h, p in FRAMES + _OBJECT_GAP]
        _ANY_FRAME = re.compile(
            "|".join(
                f"(?P<f{i}>{re.sub(r'[(][?]P<[a-z]+>', '(?:', p)})"
                for i, (_, _, p) in enumerate(FRAMES)
            )
        )
    return _COMPILED


def _span(toks: list[_Tok], text: str, m: re.Match[str], group: str) -> str | None:
    """The raw text of a frame role, or None when the role is absent."""
    if group not in m.re.groupindex:
        return None
    start, end = m.span(group)
    if start < 0 or start == end:
        return None
    part = toks[start:end]
    if ", and" in text and group in ("w", "s") and len(part) > 4:
        part = _after_clause_break(part)  # "Omar rolled back X, and the fix was merged"
    if group == "t" and (owned := _agent_verb(part, text)) is not None:
        return owned
    if group in ("w", "t", "s"):
        return _noun_phrase(*_trimmed(part, text))
    return _noun_phrase(part, text)


def _after_clause_break(toks: list[_Tok]) -> list[_Tok]:
    """A subject span that runs over ", and" from a clause with a verb of its own ("Omar
    rolled back the config, and the fix was merged"): the subject is after the break."""
    for k in range(len(toks) - 2, 1, -1):
        if toks[k].low == "and" and toks[k - 1].low == ",":
            if any(_verb_like(t) for t in toks[1 : k - 1]):
                return toks[k + 1 :]
            break
    return toks


def _trimmed(toks: list[_Tok], text: str) -> tuple[list[_Tok], str]:
    """``_trim_tail`` of an argument, re-laid over a text of its own when a phrase was cut
    from its middle ("sign-off from Finance on X": sign-off on X)."""
    cut = _trim_tail(toks)
    if cut and cut[-1] is not toks[len(cut) - 1]:
        text, cut = _rebase(cut)
    return cut, text


_AFTER_TICKET = frozenset("upstream downstream internally externally first too anyway".split())
_GENERIC = frozenset(
    "the a an old new adjacent both two three these those incident tickets ticket pr prs"
    " issue issues bug bugs work ones one change changes follow-up cards card".split()
)


_LOOSE_PP = frozenset("across with within via onto at from through".split())
_NP_STARTERS = frozenset("the a an all our my their his her its this that these those".split())


_DONE_PRESENT = frozenset(
    "lands ships merges finishes completes arrives goes concludes ends clears settles happens"
    " wraps finalises finalizes land arrive happen conclude settle".split()
)


_AGENT_VERBS = frozenset(
    "finalises finalizes approves ships delivers lands merges completes releases publishes"
    " signs provides sends fixes finishes updates adds confirms".split()
)


# What someone is waited on to do that yields a work item ("a DBA to provision the replica");
# waiting on someone to review or approve is a vague blocker, no fact.
# The same after a plural or collective agent: "until ops finish the JVM bump".
_AGENT_VERBS_BASE = frozenset(
    "finish approve deliver publish provide finalise finalize complete confirm".split()
)
_DELIVER_VERBS = frozenset(
    "finish ship land merge deploy release deliver provision publish fix complete build migrate"
    " upgrade finalise finalize create provide send update install configure rotate renew"
    " cut".split()
)
_PAST_IRREGULAR = frozenset(
    "spent went got took made did had found saw ran built wrote sent kept left came gave began"
    " turned".split()
)


_PAST_IRREGULAR |= frozenset("held put hit shut quit brought caught thought told sold".split())


def _verb_like(tok: _Tok) -> bool:
    """A lowercase past-tense word: a clause's verb, never the subject it lends."""
    low = tok.low
    return tok.text[:1].islower() and (low.endswith("ed") or low in _PAST_IRREGULAR)


# What a group does that makes the thing theirs ("until data eng finishes the dedupe");
# approving or sharing something ("legal blesses the licence") does not.
_ORG_DELIVERS = frozenset(
    "finalises finalizes ships delivers lands merges completes releases publishes fixes"
    " finishes builds provisions migrates upgrades deploys rolls".split()
)


def _drop_article(np: str) -> str:
    """ "the ledger fix" -> "ledger fix" (to follow a possessive)."""
    first, _, rest = np.partition(" ")
    return rest if rest and first.lower() in ("the", "a", "an") else np


def _agent_verb(toks: list[_Tok], text: str) -> str | None:
    """ "Legal finalises the DPA amendment" as a blocker is Legal's DPA amendment; "a DBA to
    approve the schema diff" is the schema diff."""
    for k in range(1, min(4, len(toks) - 2)):
        if (
            toks[k].low == "to"
            and toks[k + 1].low in _DELIVER_VERBS
            and toks[k + 2].low in _NP_STARTERS
        ):
            head = _trim(text[toks[0].start : toks[k - 1].end])
            if _agent_shaped(head, strict=True) or _is_org(head) or _orgish(head.split()[-1]):
                np = _noun_phrase(toks[k + 2 :], text)
                if toks[k + 1].low in _DELIVER_VERBS and not head.lower().startswith(
                    ("a ", "an ", "some ", "someone", "somebody", "anyone")
                ):  # "waiting for Priya to merge the ledger fix": Priya's ledger fix
                    return f"{head}'s {_drop_article(np)}"
                return np
    for k in range(1, min(4, len(toks) - 1)):
        if (
            toks[k].low in _AGENT_VERBS
            or (toks[k].low in _AGENT_VERBS_BASE and toks[k - 1].low not in _DETERMINERS)
            or _acts_on(toks, k, text)
        ):
            head = text[toks[0].start : toks[k - 1].end]
            after = k + 1
            while after < len(toks) - 1 and toks[after].low in ("off", "on", "up", "out", "over"):
                after += 1  # "until legal signs off on the DPA"
            rest = _noun_phrase(toks[after:], text)
            if rest.lower().startswith(("the ", "a ", "an ")):
                rest = rest.split(" ", 1)[1]
            if not _agent_shaped(_trim(head), strict=True) and not (
                _is_org(_trim(head)) and toks[k].low in _ORG_DELIVERS
            ):  # "until the vendor finishes the dedupe", "until legal approves X": X only
                return rest
            return f"{head}'s {rest}"  # "until data eng finishes the dedupe": theirs
    return None


def _acts_on(toks: list[_Tok], k: int, text: str) -> bool:
    """ "until legal blesses the new wording", "until Ops rotates the keys": a present-tense
    verb between a person or group and a determiner phrase is a clause inside the blocker,
    whose object is the work item."""
    tok = toks[k]
    low = tok.low
    if (
        len(low) < 5
        or not low.endswith("s")
        or low.endswith(("ss", "us", "is", "'s", "’s"))
        or not tok.text.islower()
        or toks[k + 1].low not in _NP_STARTERS
    ):
        return False
    head = _trim(text[toks[0].start : toks[k - 1].end])
    return (
        _agent_shaped(head, strict=True)
        or _is_org(head)
        or _orgish(head)
        or toks[0].low in ("the", "our", "their")  # "until the vendor reissues the cert"
    )


_PERIOD_WORDS = frozenset("current coming upcoming next last whole entire remaining".split())
_VAGUE_HEADS = _GENERIC | _DETERMINERS | frozenset("your fix fixes patch patches work".split())
_TIME_PREPS = frozenset("in by on since during before after until till from".split())
_WHEN = frozenset(
    """jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june
    july august september october november december monday tuesday wednesday thursday friday
    saturday sunday q1 q2 q3 q4 h1 h2 early mid late end eod eow 2025 2026 2027 2028""".split()
)


def _trim_tail(toks: list[_Tok]) -> list[_Tok]:
    """Drop a trailing "to <verb> ..." and a loose trailing place or company phrase:
    "the refresh job to finish" -> the refresh job; "the pilot with two teams" -> the pilot;
    "the new CI agents from build infra" -> the new CI agents."""
    if len(toks) > 2 and toks[-1].low in _DONE_PRESENT and toks[-2].low != "to":
        toks = toks[:-1]  # "until the auth refactor lands"
    for k in range(1, len(toks) - 1):
        tok = toks[k]
        nxt = toks[k + 1]
        if tok.low in _TIME_PREPS and nxt.low in _WHEN:
            return toks[:k]  # "the vendor scorecard in March", "the cutover by Q3"
        if k + 2 == len(toks) and tok.low in ("in", "via", "under") and _TICKET.fullmatch(nxt.text):
            if all(t.low in _VAGUE_HEADS for t in toks[:k]):
                keep = toks[:1] if toks[0].low in _POSSESSIVE | {"your"} else []
                return keep + toks[k + 1 :]  # "your fix in #655": your #655
            return toks[:k]  # "the auth rework in #66": the ticket only tracks it
        if tok.low in ("to", "for") and nxt.text[:1].isdigit() and nxt.text.endswith("%"):
            return toks[:k]  # "deployed the fare engine to 20% of traffic"
        if (
            tok.low == "for"
            and k + 2 < len(toks)
            and nxt.low in ("the", "this", "that")
            and toks[k + 2].low in _PERIOD_WORDS
        ):
            return toks[:k]  # "the evidence collection for the current audit window"
        if tok.low == "to" and nxt.low not in _NP_STARTERS and nxt.text[:1].islower():
            if not nxt.low.isdigit() and nxt.low not in ("k8s", "prod", "production", "main"):
                return toks[:k]
        if (
            tok.low == "from"
            and k + 2 < len(toks)
            and toks[k + 2].low in ("on", "for", "of", "about")
            and (_name_like(nxt.text) or _orgish(nxt.text) or _is_org(nxt.text))
        ):  # "sign-off from Finance on the bank file format": sign-off on the format
            return _trim_tail(toks[:k] + toks[k + 2 :])
        if tok.low in _LOOSE_PP or (tok.low == "to" and nxt.low == "all"):
            if (
                tok.low == "from"
                and (
                    any(t.low in ("team", "squad") for t in toks[k + 1 :])
                    or _is_org(" ".join(t.text for t in toks[k + 1 :]))  # "from legal"
                    or (k + 2 == len(toks) and _orgish(toks[-1].text))  # "from FinOps"
                    or (
                        len(toks) - k - 1 in (1, 2)
                        and all(_name_like(t.text) for t in toks[k + 1 :])
                    )
                )
            ):
                continue  # "from the backend team", "from Chloe" name an owner
            return toks[:k]
    return toks


def _split_lists(toks: list[_Tok]) -> tuple[str, list[_Tok]]:
    """ "the vault migration and PR #1177", "the X upgrade / the Y change": a list, written
    with commas so the handlers read one item per part."""
    out: list[_Tok] = []
    for k, tok in enumerate(toks):
        nxt = toks[k + 1] if k + 1 < len(toks) else None
        if tok.low in ("and", "&") and any(t.low == "between" for t in toks[:k]):
            out.append(tok)  # "the sync between the CRM and the warehouse": one item
            continue
        if (
            tok.cls == "&"
            and tok.low in ("and", "/", "&", "+")
            and nxt is not None
            and (_TICKET.fullmatch(nxt.text) or nxt.low in _DETERMINERS)
            and k
        ):
            out.append(_Tok(", and", 0, 0, "&"))
            continue
        if (
            k
            and tok.cls == "p"
            and tok.low in ("on", "by", "for", "from")
            and out
            and out[-1].low == "and"
            and nxt is not None
            and (nxt.low in _DETERMINERS or _TICKET.fullmatch(nxt.text))
        ):  # "blocked on X and on the Y": a list of two blockers
            out[-1] = _Tok(", and", 0, 0, "&")
            continue
        out.append(tok)
    return _rebase(out)


def _noun_phrase(toks: list[_Tok], text: str) -> str:
    """An argument's text, with ticket references read as work items.

    "#612 and #615" and "INC-301/INC-302" are lists; "the old incident tickets INC-301"
    is the ticket; "PLAT-904 log shipping" is the titled item (the id is dropped).
    """
    if len(toks) > 2 and any(t.cls == "&" for t in toks[1:-1]):
        text, toks = _split_lists(toks)
    span = text[toks[0].start : toks[-1].end]
    # a ticket reference has a digit: most phrases have none, and need no look at each word
    tickets = [t for t in toks if _TICKET.fullmatch(t.text)] if _DIGIT.search(span) else []
    if tickets:
        others = [t for t in toks if t not in tickets and t.cls not in "&|"]
        first = toks.index(tickets[0])
        tail_only = all(t in tickets or t.cls in "&|" for t in toks[first:])
        if (
            len(tickets) == 1
            and tail_only
            and first > 2
            and toks[first - 1].low in ("ticket", "issue", "pr", "card")
        ):
            toks = toks[: first - 1]  # "the PCI scan results ticket SEC-77": the scan results
        elif (
            len(tickets) == 1
            and tail_only
            and first >= 2
            and toks[first - 1].low not in _GENERIC
            and toks[first - 1].cls == "n"
            and sum(t.low not in _DETERMINERS for t in toks[:first]) >= 2
        ):
            toks = toks[:first]  # "the firewall change request CHG-4410": the request
        elif all(t.low in _GENERIC for t in others) or (
            tail_only and first and toks[first - 1].low in _GENERIC
        ):
            return ", ".join(t.text for t in tickets)  # "the disk alert tickets OPS-1/OPS-2"
        if toks[0] in tickets and len(toks) > 1 and toks[1].low == "as":
            return toks[0].text  # "closed PAY-77 as a dupe of PAY-12": what it was closed as
        if toks[0] in tickets and len(toks) > 1 and toks[1].text[:1].islower():
            if toks[1].cls in "pL":  # "PAY-1 for the rate lookups": the ticket is the head
                return text[toks[0].start : toks[-1].end]
            if len(toks) == 2 and toks[1].low in _AFTER_TICKET:
                return toks[0].text  # "acme/ui#10922 upstream"
            if len(toks) == 2:
                return text[toks[0].start : toks[-1].end]  # "INC-4410 postmortem"
            toks = toks[1:]
        return text[toks[0].start : toks[-1].end]
    return span


# The last word of an ownership verb that needs no object ("taking over", "picking it up").
_TAKEN_OVER = frozenset("over up on it this that".split())
# The recipient of a hand-over written before the object ("handed me the X"), and the
# words an object that is no work item opens with ("handed me a note").
_RECIPIENTS = frozenset("me him her us them".split())
_NOT_GIVEN = frozenset("a an some more any another".split())
# The particle of a hand-over verb, left after its object: "handing X off/back/over to Y".
_HANDOVER = frozenset("off back over across".split())


def _apply(
    reader: _Reader, handler: str, toks: list[_Tok], text: str, m: re.Match[str]
) -> _Outcome | None:
    """Run a frame's handler on its argument spans."""

    def g(name: str) -> str | None:
        return _span(toks, text, m, name)

    if handler == "blocked":
        s, t = g("s"), g("t")
        if s is not None and s.lower().endswith(("'s", "’s")):
            s = s[:-2]
        return reader.blocked(s, t) if t else None
    if handler == "blocked_ref":  # "Both the refund batch and the tax export need it"
        s, t = g("s"), g("t")
        if s is None or t is None or not (t.lower() in _REF_TARGETS or _TICKET.fullmatch(t)):
            return None  # "the importer needs more tests": a need, not another item
        first = s.split()[0].lower()
        if (
            first in _PERSONS
            or first in ("me", "us", "everyone", "someone")
            or _agent_shaped(s, strict=True)
        ):
            return None  # "we need it", "Dana needs that": a person's want
        return reader.blocked(s, t)
    if handler == "blocked_mv":  # "... before any team can start the pilot"
        verb, t = g("v"), g("t")
        if verb is None or verb.lower() not in _MOVE_VERBS or not t:
            return None
        return reader.blocked(g("s"), t)
    if handler == "stalled":
        s = g("s")
        return reader.stalled(s) if s else None
    if handler == "unblocked":
        return reader.unblocked(g("s"), g("t"))
    if handler == "owns_doing":  # "Kojo: drafting the copy"; not "Payments: writing X"
        o, w = g("o"), g("w")
        return reader.owns(o, w) if o and w and _name_like(o) else None
    if handler == "owns_given":  # "handed me the X", "handed Odile the X": the recipient
        o, w = g("o"), g("w")
        if not o or not w or w.split()[0].lower() in _NOT_GIVEN:
            return None  # "handed me a note": no work item
        if o.lower() not in _RECIPIENTS and not (o[:1].isupper() and _name_like(o)):
            return None
        return reader.owns(o, w)
    if handler in ("owns", "owns_on", "owns_has", "owns_poss"):
        o, w = g("o"), g("w")
        if w is None:
            return None
        if " " in w and (gerund := _GERUND_OBJECT.match(w)):
            w = w[gerund.end() :]  # "working on migrating the cron jobs": the cron jobs
        if handler == "owns_has" and w.lower().endswith(" ready"):
            w = w[: -len(" ready")]  # "I have a kiln patch ready": the patch, in a state
        if " " in w and "x*A(" in m.re.pattern and w.rsplit(" ", 1)[1].lower() in _HANDOVER:
            w = w.rsplit(" ", 1)[0]  # "passing the rota off to Efe": the particle is the verb's
        if handler == "owns" and m.re.pattern.startswith("(?P<o>") and o is not None:
            out = reader.owns(o, w)
            if out is None and o.split()[0].lower() not in _DETERMINERS:
                out = _team_owner(reader, o, w)  # "Networking owns INFRA-1190"
            return out
        if handler == "owns_poss":
            if o is not None and o.lower() in ("mine", "ours"):
                return reader.owns("I", w)
            if o is None or not o.lower().endswith(("'s", "’s")):
                return None
            o = o[:-2]
            return reader.owns(o, w) if _agent_shaped(o, strict=False) else None
        if handler == "owns_on":
            return reader.owns_on(o, w) if o else None
        if (
            m.re.pattern.startswith("(?P<w>")
            and "o" in m.re.pattern
            and o is not None
            and (
                _is_person_word(w)
                or (_name_like(w.lstrip("@")) and _TICKET_ONLY.fullmatch(o) is not None)
            )
        ):  # "I've been reassigned to the billing work", "Kwame is assigned to #209"
            w, o = o, w
        if handler == "owns_has" and (
            o is None
            or _trim(o).lower() in _NOT_OWNERS
            or not (
                _agent_shaped(_trim(o), strict=False)
                or (_is_org(_trim(o)) and (w or "").lower() in _OBJECT_PRONOUNS)
            )  # "procurement has it": the group has the item just named
            or (w or "x").split()[0].lower() in _PARTICIPLES
            or ((w or "").islower() and (w or "x").split()[0].endswith("ed"))
        ):  # "we have heard that before": a perfect tense, no possession
            return None
        return reader.owns(o, w)
    if handler == "owns_on_person":  # "the font fix is on Leona now"
        o, w = g("o"), g("w")
        if o is None or w is None or not _name_like(o) or _agent_shaped(w, strict=False):
            return None
        return reader.owns(o, w)
    if handler == "owns_yours":  # "@dmitri the rate card import is yours now"
        w = g("w")
        return reader.owns("you", w) if w and reader.addressee else None
    if handler == "owns_it":  # "she's taking it over from here": the topic item
        verb, o = g("v") or "", g("o")
        said = set(verb.lower().split())
        if not said & {"it", "that", "this"} or (o is None and m.start() > 0):
            return None
        if "this" in said and (ticket := reader.closed_item()) is not None:
            return reader.owns(o, ticket.name)  # "Picking this up" on a ticket: the ticket
        return reader.owns(o, "it" if o is None or "back" in said else None)
    if handler == "mention_agent":  # "Assigned to @thandiwe.": she is who "she" means next
        o = g("o")
        seen = _Outcome()
        return seen if o and reader.agent(o, seen, loose=True) is not None else None
    if handler == "topic":  # "Kenji's tax fix is in review": Kenji owns it, nothing else
        w = g("w")
        seen = _Outcome()
        phrase = _parse_phrase(w) if w else None
        item = reader.item(phrase, seen) if phrase else None
        if item is None or phrase is None:
            return None
        reader.owners_of(phrase, item, seen)
        tail = toks[m.end("w") :]
        if (
            len(tail) >= 3
            and tail[-2].cls == "b"
            and tail[-3].cls == "J"
            and (owner := reader.agent(tail[-1].text, seen)) is not None
        ):  # "Fare audit — in progress (Leona)": Leona is on it
            reader.draft(seen, owner, Relation.OWNS, item)
        return seen
    if handler == "completed_got":  # "got the flag service out the door"
        got = toks[m.end("d") if m.start("d") >= 0 else 0].low
        w = g("w")
        return reader.completed(g("d"), w) if w and got in ("got", "get", "gets") else None
    if handler == "completed_ticket":
        w = g("w")
        if w is not None and (
            w.lower() in ("this", "it", "this one", "this ticket", "this issue")
            or reader.page_ref(w.lower()) is not None  # "Closing this PR"
        ):
            closed = reader.closed_item()  # "**PLAT-415** — ... Closing this."
            return reader.completed(None, closed.name) if closed is not None else None
        return reader.completed(None, w) if w and _TICKET.fullmatch(w.split(", ")[0]) else None
    if handler == "completed_by":
        doer, ticket = g("d"), reader.closed_item()
        if doer is None or ticket is None or m.start() > 0 or _TICKET.fullmatch(doer):
            return None
        return reader.completed(doer, ticket.name)
    if handler == "completed":
        w = g("w")
        if w is None:
            return None
        if m.re.pattern.startswith(("(?P<d>", "D(?P<w>")) and (cut := _DESTINATION.search(w)):
            w = w[: cut.start()]  # "deployed the optimizer to the Leeds site"
        if " " in w and w[:1].islower() and (gerund := _GERUND_OBJECT.match(w)):
            w = w[gerund.end() :]  # "finished migrating the alerting rules": the rules
        doer = g("d")
        if doer is not None and _TICKET.fullmatch(doer.split(", ")[0]):
            doer = None  # "resolved by PR #62": the PR is how, not who
        if doer is not None and _THIS_CHANGE.fullmatch(doer):
            doer = None  # "This PR closes #77": the author's change did it
        out = reader.completed(doer, w, owner_did=m.re.pattern.startswith("(?P<w>"))
        if out is None and doer is not None:
            if "b" in m.re.pattern or (
                doer.split()[0].lower() not in _DETERMINERS
                and (_is_org(doer) or _orgish(doer) or doer[:1].isupper())
            ):  # "finalised by marketing", "data eng shipped X"; not "went well: shipped X"
                out = _team_doer(reader, doer, w)
        partner = g("k")
        if (
            out is not None
            and partner
            and toks[m.start("k") - 1].low == "with"  # (token offsets are not kept)
        ):
            more = reader.completed(partner, w)
            if more is not None:
                out.drafts += [d for d in more.drafts if d not in out.drafts]
                out.people += more.people
                out.teams += more.teams
        return out
    return None


_POSSESSOR = re.compile(r"(?<![\w'’])(?P<o>@?[A-Z][\w-]*)['’]s\s+(?=[a-z#A-Z])")
# Chat writes names in lowercase: "ravi's session store refactor", "@arnav's follow-up".
_LOWER_POSSESSOR = re.compile(r"(?<![\w'’@.-])(?P<o>@?[a-z][\w.-]*)['’]s\s+(?=[a-z#A-Z])")
# Heads a possessive does not make a work item of: "Dana's feedback", "Ravi's laptop".
_NOT_OWNED_HEADS = frozenset(
    """team side end feedback review reviews comment comments question questions input
    approval call time pto leave vacation calendar laptop manager idea ideas point view
    opinion take help suggestion suggestions note notes message email reply answer
    desk office birthday week day morning afternoon schedule plate area""".split()
)
# Someone's hands, shoulders or queue, and events in a person's life ("following Mei's move
# to the mobile team"), are not work items they own.
_NOT_OWNED_HEADS |= frozenset(
    """hands shoulders queue backlog list radar move departure arrival return promotion
    transfer exit absence illness parental sabbatical""".split()
)


def _add_owned(
    reader: _Reader, out: _Outcome, owned: set[EntityRef], who: str, head: list[_Tok]
) -> None:
    """Add "who owns <head>" to ``out`` unless an earlier reading of the sentence already
    gave that item an owner (``owned``, updated)."""
    body, rebased = _rebase(head)
    found = reader.owns(who, _noun_phrase(*_trimmed(rebased, body)))
    if found is None:
        return
    for d in found.drafts:
        if d.target not in owned:
            out.drafts.append(d)
            owned.add(d.target)
    out.items += found.items
    out.people += found.people


def _owners_found(out: _Outcome, frame: str) -> _Outcome | None:
    if not out.drafts:
        return None
    out.frame = frame
    return out


def possessive_owners(reader: _Reader, text: str, outcomes: list[_Outcome]) -> _Outcome | None:
    """ "reviewed Tomasz's PR for the fare calculator": a possessive names an owner wherever
    it stands (the labelling contract's rule 7), not only inside a frame's argument."""
    owned = {d.target for o in outcomes for d in o.drafts if d.relation is Relation.OWNS}
    out = _Outcome()
    for m in [*_POSSESSOR.finditer(text), *_LOWER_POSSESSOR.finditer(text)]:
        who = m["o"].lstrip("@")
        if not (_name_like(who) or _lower_possessor(m["o"], text[: m.start()])):
            continue
        if reader._is_author(who):
            continue
        toks = tokenise(text[m.end() :])
        n = 0
        while n < len(toks) and (
            toks[n].cls == "n" or (toks[n].low in ("for", "of", "on") and n + 1 < len(toks))
        ):
            if toks[n].low in _SUBORDINATORS or toks[n].low in _PERSONS or _verb_like(toks[n]):
                break  # "Priya's rewrite went out": the rewrite
            n += 1
        while n and toks[n - 1].cls != "n":
            n -= 1
        if not n or n > 7:
            continue
        head = toks[:n]
        if _name_like(head[0].text):
            continue  # "Dana's Berlin trip": a proper name follows, not a work item
        if any(
            t.low in _NOT_OWNED_HEADS or t.low in _TEAM_WORDS or t.low in _UNDER_HEADS
            for t in head[:1] + head[-1:]
        ):
            continue
        if len(head) == 1 and head[0].low in _OWNED_GENERIC:
            continue  # "Oren's PR" alone names no item
        if (
            len(head) == 1
            and head[0].low.endswith("ing")
            and (n == len(toks) or toks[n].cls == "p")
        ):
            continue  # "Colm's moving to docs": "Colm is moving", no item of his
        _add_owned(reader, out, owned, who, head)
    return _owners_found(out, "possessive-owner")


_HIS_HER = re.compile(r"\b(?:his|her)\s+(?=[a-z#A-Z])")
_NAME_BEFORE = re.compile(r"(?<![\w'’@])@?([A-Z][a-z][\w-]*)\b(?!['’])")


def pronoun_possessive_owners(
    reader: _Reader, text: str, outcomes: list[_Outcome]
) -> _Outcome | None:
    """ "helped Lukas with his flaky e2e cleanup": "his"/"her" before a work item name an
    owner too, the person named just before in the sentence (rule 7 with rule 4)."""
    owned = {d.target for o in outcomes for d in o.drafts if d.relation is Relation.OWNS}
    out = _Outcome()
    for m in _HIS_HER.finditer(text):
        names = [n for n in _NAME_BEFORE.findall(text[: m.start()]) if _name_like(n)]
        if not names or reader._is_author(names[-1]):
            continue
        toks = tokenise(text[m.end() :])
        n = 0
        while n < len(toks) and toks[n].cls == "n" and not _verb_like(toks[n]):
            if toks[n].low in _SUBORDINATORS or toks[n].low in _PERSONS:
                break
            n += 1
        if n < 2 or n > 6:
            continue  # "her PR" alone names no item; "his own" is no name
        head = toks[:n]
        if any(t.low in _NOT_OWNED_HEADS or t.low in _UNDER_HEADS for t in head[:1] + head[-1:]):
            continue
        _add_owned(reader, out, owned, names[-1], head)
    return _owners_found(out, "possessive-pronoun-owner")


_DESTINATION = re.compile(r" to (?:the|our|all|every|both) ", re.IGNORECASE)
_PARTICIPLES = frozenset(
    "heard seen done been got gotten had made said told found given taken sent known thought"
    " kept left run begun met put set read held brought caught taught sold spent lost won paid"
    " built meant felt dealt shown written spoken chosen grown drawn gone".split()
)
_PARTICIPLES |= frozenset("split cut hit shut spread quit bet cast fit rid shed upset".split())
_THIS_CHANGE = re.compile(
    r"(?:this|my|our|the)\s+(?:pr|mr|change|changeset|patch|commit|diff|branch|release)",
    re.IGNORECASE,
)
# "working on migrating the cron jobs": the object of the gerund names the work.
_GERUND_OBJECT = re.compile(
    r"(?!(?:billing|pricing|routing|caching|testing|onboarding|tracking|scheduling|messaging"
    r"|hosting|mapping|ranking|training|marketing|accounting|shipping|staging|streaming"
    r"|alerting|reporting|logging|monitoring|packaging|licensing|branding|building|parsing"
    r"|signing|sharing|booking|labelling|labeling|recording|printing)\b)[a-z]+ing\s+"
    r"(?=(?:the|a|an|our|my|their|some|all|its|this|that)\s|(?:it|that|this|them)\Z)"
)
_TEAMISH = re.compile(r"(?:the\s+)?(?P<name>[^\W\d_][\w&/-]*(?:\s+[^\W\d_][\w&/-]*){0,2})")


def _team_owner(reader: _Reader, owner: str, item: str) -> _Outcome | None:
    """A capitalised group name that is no person owns the item ("Networking owns X")."""
    name = _trim(owner)
    if len(name.split()) > 2 or not name[:1].isupper() or name.lower() in _NOT_AGENTS:
        return None
    if name.split()[0].lower() in _PERSONS:  # "We began work on X": a clause, no team
        return None
    out = _Outcome()
    targets = reader.items(item, out, from_owner=False)
    if not targets:
        return None
    team = EntityRef(name, EntityType.TEAM)
    out.teams.append(team)
    for target, _phrase in targets:
        reader.draft(out, team, Relation.OWNS, target)
    return out


def _team_doer(reader: _Reader, doer: str, item: str) -> _Outcome | None:
    """The agent of a passive that is no person: "finalised by marketing", "by the vendor
    team", "by the payments on-call" name a group; it, not the author, did the work."""
    m = _TEAMISH.fullmatch(_trim(doer))
    if m is None or m["name"].lower() in _NOT_AGENTS:
        return None
    out = _Outcome()
    targets = reader.items(item, out)
    if not targets:
        return None
    team = EntityRef(m["name"], EntityType.TEAM)
    out.teams.append(team)
    for target, _phrase in targets:
        reader.draft(out, team, Relation.COMPLETED, target)
    return out


# A ticket named by its key alone: "#209", "KIOSK-47", "org/repo#12"
_TICKET_ONLY = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|[A-Z][A-Z0-9]+-\d+")


def _is_person_word(text: str) -> bool:
    return text.lower() in ("i", "we", "he", "she", "they")


_MOVE_VERBS = frozenset(
    "start begin ship launch merge release deploy resume continue enable roll test cut use"
    " run finish build do".split()
)
_NOT_OWNERS = frozenset(
    "everyone everybody nobody noone someone somebody anyone anybody who it this that which"
    " what each all".split()
)
_NOT_AGENTS = frozenset(
    "it this that them they default design accident mistake hand itself end noon now nobody"
    " noone everyone everybody someone somebody anyone anybody no one who what".split()
)
_NOT_AGENTS |= _NOT_NAMES  # "Took point on X", "Slipped: Y": a verb or a label


# class string -> every main frame that fits it, in table order, with its match. Class
# strings repeat far more than sentences do ("nxWn", "nxOn", ...), so each is matched
# against the frame table once; the table is cleared when it grows past its bound.
_FITS: dict[str, list[tuple[str, str, re.Match[str]]]] = {}
_FITS_BOUND = 8192


def _fitting(
    classes: str, frames: list[tuple[str, str, re.Pattern[str]]]
) -> list[tuple[str, str, re.Match[str]]]:
    """The frames whose pattern fits the whole class string, in order, with their matches.

    For the main table, one search of the alternation (``_ANY_FRAME``) finds the first
    frame that fits; no frame before it can."""
    first = 0
    main = _ANY_FRAME is not None and len(frames) == len(FRAMES)
    if main:
        if (cached := _FITS.get(classes)) is not None:
            return cached
        hit = _ANY_FRAME.fullmatch(classes) if _ANY_FRAME is not None else None
        first = len(frames) if hit is None else int((hit.lastgroup or "f0")[1:])
    fits = [(n, h, m) for n, h, p in frames[first:] if (m := p.fullmatch(classes)) is not None]
    if main:
        if len(_FITS) >= _FITS_BOUND:
            _FITS.clear()
        _FITS[classes] = fits
    return fits


def _read(
    reader: _Reader, toks: list[_Tok], text: str, frames: list[tuple[str, str, re.Pattern[str]]]
) -> _Outcome | None:
    for name, handler, m in _fitting("".join([t.cls for t in toks]), frames):
        out = _apply(reader, handler, toks, text, m)
        if out is not None and (
            out.drafts
            or handler in ("stalled", "unblocked", "topic", "mention_agent")
            or (handler == "completed" and out.items and reader.author is None)
        ):  # a scribe's "Y is out" credits nobody, yet Y is done (the cause of an unblock)
            out.frame = name
            return out
    return None


# --------------------------------------------------------------------------------------
# Whole-sentence frames that span a subordinate clause
# --------------------------------------------------------------------------------------

_DONE_STATE = (
    r"(?:is |are |has |have |gets |get )?(?:been )?(?:ships?|shipped|lands?|landed|in|merged"
    r"|merges?|done|finished|finishes|complete|completed|completes|live|goes live|goes out|out"
    r"|arrives?|arrived|ready|approved|released|deployed|in place|sorted|signed off|fixed)"
)
_SENTENCE_FRAMES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (name, re.compile(pattern, re.IGNORECASE))
    for name, pattern in (
        (
            "once-y-then-x",
            rf"(?:once|as soon as|after) (?P<t>.+?) {_DONE_STATE},? (?:(?:we|i|they|you|the team)"
            r" (?:can|could|will|get to|are able to|am able to) (?:start|begin|resume|ship|finish"
            r"|proceed with|move on to|kick off|roll out|pick up|turn on|enable|launch|do|merge"
            r"|land|release|deploy)(?: on| with| work on)? (?P<s>.+)|(?P<s2>.+?) (?:can|could"
            r"|will) (?:start|begin|resume|ship|proceed|go ahead|go live|move|land|launch|happen"
            r"|continue|be \w+)\b.*)",
        ),
        (
            "x-can-start-once-y",
            r"(?P<s>.+?) (?:can|will) (?:only )?(?:start|begin|resume|ship|proceed|go ahead"
            rf"|go live|move|land|launch|happen|continue) (?:once|after|when) (?P<t>.+?) {_DONE_STATE}",
        ),
        (
            "need-y-before-we-can-start-x",
            r"(?:(?P<w>[^,;]+?)\s+)?(?:(?:am|are|is|was|were|have been|has been)\s+)?(?:still\s+)?"
            r"(?:need|needs|needed|require|requires|await|awaits|awaiting|waiting for|waiting on"
            r"|waiting until|waitng on"
            r"|waitng for|blocked on|blocked by|stuck on|stuck behind|held up by|have to wait for"
            r"|has to wait for|depends? on|dependent on|relies on|rely on|waits? on|waits? for"
            r"|pending)\s+(?P<t>.+?)(?:\s+to\s+(?:finish|land|ship|merge|be done|be merged"
            r"|be fixed|go out|go in|complete|be released|be approved|be ready|be sorted))?\s+"
            r"(?:first\s+)?before\s+(?:we|i|they|you|he|she|the team|anyone|anybody)\s+(?:can"
            r"|could|are able to|am able to|is able to|get to)\s+(?:(?:really|actually|even)\s+)?"
            r"(?P<v>[a-z][\w-]*)(?:\s+(?:on|with|into|up|over|in|out|back|to))?"
            r"(?:\s+(?P<s>.+))?",
        ),
        (
            "need-y-before-x-can-move",
            r"(?:[^,;]+?\s+)?(?:(?:am|are|is|was|were|have been|has been)\s+)?(?:still\s+)?"
            r"(?:need|needs|needed|require|requires|await|awaits|awaiting|waiting for|waiting on"
            r"|blocked on|blocked by|held up by|depends? on|dependent on|pending)\s+(?P<t>.+?)"
            r"(?:\s+to\s+(?:finish|land|ship|merge|be done|be merged|be fixed|complete"
            r"|be released|be approved|be ready|be sorted))?\s+(?:first\s+)?before\s+"
            r"(?P<s>(?:the|our|a|an|this|that|my|their|its)\s+[^,;]+?)\s+(?:can|could|is able to"
            r"|are able to)\s+(?:(?:really|actually|even)\s+)?[a-z][\w-]*(?:\s+[^\s,;]+){0,2}",
        ),
        (
            "xs-only-dependency-is-y",
            r"(?P<s>its|their|[\w.-]+(?:\s+[\w.-]+){0,3}?['’]s)\s+(?:(?:only|main|last|remaining|one"
            r"|open|outstanding|sole|key)\s+)+(?:dependency|blocker|prerequisite|prereq)\s+"
            r"(?:is|was|remains)\s+(?P<t>[^,;]+)",
        ),
        (
            "key-dependency-for-x-is-y",
            r"(?:the|a|one|our)\s+(?:(?:key|main|critical|outstanding|remaining|last|only|major"
            r"|big|hard|open|sole)\s+)*(?:dependency|prerequisite|blocker|prereq)\s+(?:for|of|on)"
            r"\s+(?P<s>[^,;]+?)\s+(?:is|was|remains)\s+(?P<t>[^,;]+)",
        ),
        (
            "only-thing-left-for-x-is-y",
            r"(?:the )?only (?:thing|blocker|item|dependency|piece) (?:left |remaining |outstanding )?"
            r"(?:for|on|before) (?P<s>.+?) (?:is|are) (?P<t>.+)",
        ),
        (
            "no-x-before-y",
            rf"no (?P<s>.+?) (?:before|until) (?P<t>.+?) {_DONE_STATE}",
        ),
    )
)


_START_VERBS = frozenset(
    "start begin continue proceed finish ship merge deploy release test move go resume launch"
    " land roll cut enable do touch build wire integrate implement work finalise finalize"
    " publish complete kick pick".split()
)
_SUBJECT_PRONOUNS = frozenset("i we you he she they it this that".split())


def _waiter_before(m: re.Match[str]) -> str | None:
    """The waiter of "[X is] waiting on Y before I can <verb> [Z]": Z, else X, else the
    author's current work ("" when the sentence is no dependency: "need a coffee before I
    can think"). The verb names what cannot move, so any verb reads an object; with no
    object it must be a verb of starting or finishing work."""
    obj, subject, verb = m["s"], m["w"], m["v"].lower()
    if obj is not None and obj.strip().lower() in ("it", "this", "that", "them"):
        obj = None
    if obj is None and verb not in _START_VERBS:
        return ""
    if subject is not None and subject.strip().lower() in _SUBJECT_PRONOUNS:
        subject = None
    return obj or subject


# A word each sentence frame needs: the frames whose word is absent are not tried.
_FRAME_WORDS = {
    "once-y-then-x": ("once", "as soon as", "after"),
    "x-can-start-once-y": ("once", "after", "when"),
    "need-y-before-we-can-start-x": (" before ",),
    "need-y-before-x-can-move": (" before ",),
    "only-thing-left-for-x-is-y": ("only",),
    "xs-only-dependency-is-y": ("dependency", "blocker", "prereq"),
    "key-dependency-for-x-is-y": ("dependency", "blocker", "prereq"),
    "no-x-before-y": ("no ",),
}
_SENTENCE_HINT = re.compile(
    r"\b(?:once|soon|after|only|no|before|dependency|blocker|prereq)\b", re.IGNORECASE
)
# The same search over lowercased ASCII text: several times cheaper than a case-blind one.
_SENTENCE_HINT_LOWER = re.compile(_SENTENCE_HINT.pattern)


_AFTER_FRAME = re.compile(r",\s+(?=which\b|who\b|owned by\b|and\b)|;\s+|\s+[—–]\s+")


def _sentence_frame(reader: _Reader, text: str) -> tuple[_Outcome, str, str] | None:
    """A frame spanning a subordinate clause, over the sentence or its first clause.

    Returns the outcome, the rest of the sentence (still to read) and the blocker's text
    (the antecedent of a "which" in the rest).
    """
    if not (
        _SENTENCE_HINT_LOWER.search(text.lower()) if text.isascii() else _SENTENCE_HINT.search(text)
    ):
        return None
    cut = _AFTER_FRAME.search(text)
    spans = [(text, "")] + ([(text[: cut.start()], text[cut.start() :])] if cut else [])
    low = text.lower()
    frames = [(n, p) for n, p in _SENTENCE_FRAMES if any(w in low for w in _FRAME_WORDS[n])]
    for head, rest in spans:
        for name, pattern in frames:
            m = pattern.fullmatch(head)
            if m is None:
                continue
            waiter = m.groupdict().get("s") or m.groupdict().get("s2")
            if name == "need-y-before-we-can-start-x":
                waiter = _waiter_before(m)
                if waiter == "":
                    continue
            elif waiter is None:
                continue
            if name == "xs-only-dependency-is-y" and waiter is not None:
                waiter = "it" if waiter.lower() in ("its", "their") else waiter[:-2]
            out = reader.blocked(waiter, m["t"])
            if out is not None and out.drafts:
                out.frame = name
                return out, rest, m["t"]
    return None


# --------------------------------------------------------------------------------------
# Reading a sentence
# --------------------------------------------------------------------------------------


def _plain(name: str) -> list[_Tok]:
    """A resolved name as noun-phrase tokens (no lexicon look-up needed)."""
    out: list[_Tok] = []
    new = _Tok.__new__
    for word in name.split():
        tok = new(_Tok)  # _Tok(word, 0, 0, "n"), without a call to __init__
        tok.text = word
        tok.start = tok.end = 0
        tok.cls = "n"
        tok.low = word.lower()
        out.append(tok)
    return out


def _rebase(toks: list[_Tok]) -> tuple[str, list[_Tok]]:
    """Tokens (possibly from two clauses) re-laid over one text of their own."""
    parts: list[str] = []
    out: list[_Tok] = []
    pos = 0
    new = _Tok.__new__
    for tok in toks:
        text = tok.text
        copy = new(_Tok)  # _Tok(text, pos, pos + len(text), tok.cls, tok.low), no __init__ call
        copy.text = text
        copy.start = pos
        copy.end = pos + len(text)
        copy.cls = tok.cls
        copy.low = tok.low
        out.append(copy)
        parts.append(text)
        pos += len(text) + 1
    return " ".join(parts), out


def _np_text(toks: list[_Tok]) -> str:
    """A subject's text as an argument: "the seat sync in TIX-88" is the seat sync."""
    if not toks:
        return ""
    text, rebased = _rebase(toks)
    return _noun_phrase(*_trimmed(rebased, text))


def _leading_np(toks: list[_Tok]) -> list[_Tok]:
    """The noun phrase a clause opens with (its subject)."""
    n = 0
    while n < len(toks) and toks[n].cls in "n&p":
        n += 1
    while n and toks[n - 1].cls != "n":
        n -= 1
    return toks[:n]


def _aside_names(toks: list[_Tok]) -> bool:
    """Whether a parenthetical aside only names who has the item before it, or its
    ticket: "(Lars)", "(platform team)", "(OPS-7)"."""
    words = [t.text for t in toks if t.cls != "|"]
    if not 1 <= len(words) <= 3:
        return False
    name = " ".join(words)
    return bool(_TICKET.fullmatch(name)) or _agent_shaped(name, strict=True)


def _trailing_np(toks: list[_Tok]) -> list[_Tok]:
    """The noun phrase a clause ends with (the antecedent of a relative clause)."""
    while toks and toks[-1].cls == "F":
        toks = toks[:-1]  # "they need the labels first, which Jorge is adding": the labels
    if len(toks) > 3 and toks[-2].cls == "x" and toks[-1].cls in "nDE" and toks[-3].cls == "n":
        toks = toks[:-2]  # "until the DPA amendment is signed, which ...": the amendment
    while len(toks) > 2 and toks[-1].low.endswith("ed") and toks[-1].text.islower():
        toks = toks[:-1]  # "the format has been approved", "with the format approved"
        while len(toks) > 1 and toks[-1].cls == "x":
            toks = toks[:-1]
    n = len(toks)
    while n and toks[n - 1].cls in "n&p":
        n -= 1
    while n < len(toks) and toks[n].cls != "n":
        n += 1
    out = toks[n:]
    for k in range(len(out) - 2, 0, -1):  # "fixed by Ravi in PR #2288, which ...": the PR
        if out[k].low in ("in", "via", "with") and _TICKET.fullmatch(out[k + 1].text):
            return out[k + 1 :]
    return out


_QUALITY = (("M", "hedged"), ("N", "negated"))
_MEASURE = re.compile(r"~?\d+(?:\.\d+)?%|\d+/\d+\Z")
_LABELS = frozenset(
    """y t b yesterday today tomorrow blockers blocker blocked done doing next wip status
    update overall dependencies deps dependency risks risk note notes summary progress
    completed shipped action actions ai todo eta owner owners mitigation period rag
    highlights lowlights context background issue problem fyi reminder edit tldr result
    results outcome impact cause details yday""".split()
) | frozenset({"in progress", "this week", "last week", "quick one", "heads up", "root cause"})
_RAG_VALUES = frozenset("r a g red amber green".split())  # a status cell's letter or colour
_NOT_FACT_LABELS = frozenset(
    "decision decisions proposal proposed idea ideas question questions open question"
    " plan plans next steps options option".split()
) | frozenset({"open question", "open questions", "next steps", "next step"})
_NOT_FACT_LABELS |= frozenset(  # "Target: SSO live by Q3", "Goal: ship X"
    "target targets goal goals aim aims objective objectives forecast proposals ask asks".split()
)
_JOINERS = frozenset({"and", "but", "so", "then", "and then", ",", ":", "—", "–", "-", "->", "("})
_BECAUSE = frozenset({"because", "since", "as"})


_THANKED = re.compile(
    r"(?:\A|(?<=[,;:—–])\s*)(?:(?!(?:big|huge|many|massive|special)\b)"
    r"(?P<who2>@?[^\W\d_][\w.'-]*)\s+)?(?:(?:big|huge|many|massive"
    r"|special)\s+)?(?:thanks|thank you|thx|ty|kudos|shout-?out|props|cheers)\s+(?:go(?:es)?\s+)?"
    r"(?:to\s+)?(?:(?P<who>[^,;:]+?)\s+)?for\s+(?P<verb>[a-z]+ing(?:\s+(?:out|up|off))?)"
    r"(?:\s+(?P<obj>[^,;:!]+?))?\s*\Z",
    re.IGNORECASE,
)
# Pieces of every thanking word, any case ("Thanks", "kudos", "shout-out", "ty ").
_THANKS_WORDS = ("hank", "HANK", "udos", "UDOS", "hout", "rops", "heers", "thx", "ty ", "TY ")


def _thanked(reader: _Reader, text: str) -> _Outcome | None:
    """ "Huge thanks to Beatriz for landing X", "lukas ty for merging": whoever is thanked
    for finishing something did it."""
    m = _THANKED.search(text)
    if m is None or (m["who"] is not None and m["who2"] is not None):
        return None
    if m["who"] is None and m["who2"] is None and not reader.addressee:
        return None
    verb = m["verb"].lower()
    if verb not in _DONE_GERUNDS:
        return None
    who = (m["who"] or m["who2"] or reader.addressee or "").strip()  # "@nina thanks for X"
    if who.lower() in ("you", "u", "everyone", "all", "folks", "y'all"):
        return None
    out = reader.completed(who, m["obj"] or "it")
    if out is None or not out.drafts:
        return None
    out.frame = "thanks-d-for-doing-w"
    return out


def read_core(reader: _Reader, text: str) -> tuple[list[_Outcome], str | None]:
    """Read one normalised sentence with the compositional core.

    Returns the outcomes (each already committed to the context) and, when there are
    none, why: the factuality label of a clause that had a predicate, or None when no
    clause had one the frames could read.
    """
    if not _TABLE:
        _table()
    if " for " in text and any(w in text for w in _THANKS_WORDS):
        thanks = _thanked_after(reader, text)
        if thanks is not None:
            return thanks
    return _read_core(reader, text)


def _thanked_after(reader: _Reader, text: str) -> tuple[list[_Outcome], str | None] | None:
    """The sentence before a closing "thanks X for <doing> Y", then the thanks: the one
    thanked, not the author, did Y."""
    m = _THANKED.search(text)
    if m is None:
        return None
    head = text[: m.start()].rstrip(" ,;:—–")
    outcomes = _read_core(reader, head)[0] if head else []
    found = _thanked(reader, text[m.start() :].lstrip(" ,;:—–"))
    if found is None:
        return (outcomes, None) if outcomes else None
    out = found
    reader.commit(out, text)
    thanked = {d.target for d in out.drafts}
    for o in outcomes:
        o.drafts = [
            d
            for d in o.drafts
            if not (
                d.relation is Relation.COMPLETED
                and d.target in thanked
                and d.source == reader.author_ref
            )
        ]
    return outcomes + [out], None


_WORKING_WITH = re.compile(
    r"(?:(?P<subj>i|we|i am|we are|[A-Z][\w-]+(?:\s+is)?)\s+)?(?:working|pairing|teaming up"
    r"|collaborating|partnering)\s+(?:up\s+)?with\s+(?P<who>@?[^\W\d_][\w.-]*"
    r"(?:\s+(?:and|&)\s+@?[^\W\d_][\w.-]*)?)\s+on\s+(?P<obj>[^,;]+)",
    re.IGNORECASE,
)


def _working_with(reader: _Reader, text: str) -> _Outcome | None:
    """ "working with Leona on the fare calculator": both own it."""
    m = _WORKING_WITH.fullmatch(text)
    if m is None:
        return None
    subj = (m["subj"] or "I").split()[0]
    if subj.lower() not in ("i", "we") and not _name_like(subj):
        return None
    who = m["who"].lstrip("@")
    if not _agent_shaped(who.split()[0], strict=False):
        return None
    out = reader.owns(f"{subj} and {who}", m["obj"])
    if out is None or not out.drafts:
        return None
    out.frame = "o-working-with-o-on-w"
    return out


# "after that I'm stuck until X": "after that" is "then", no subordinate clause.
_AFTER_LEADS = frozenset({"after ", "After ", "AFTER "})
_AFTER_THAT = re.compile(r"(?i:after (?:that|this)),?\s+(?=(?i:i|we|it|they|he|she)\b)")


_MORE_PREPS = frozenset("against across through via toward towards within beyond upon".split())
_STALL_REFS = frozenset("both it they all those these that this each either".split())


def _needs_that_stall(parts: list[_Clause]) -> None:
    """ "Tomás's app login needs the v2 sessions and Jonas's suite needs the SSO page,
    so both of those are stuck": a need that a following "so ... stuck" says holds the
    work up is a wait (a bare "X needs Y" is not: "the importer needs more tests")."""
    last = parts[-1]
    if (
        last.kind != "so"
        or "S" not in last.classes
        or not last.toks
        or last.toks[0].low not in _STALL_REFS
    ):
        return
    for part in parts[:-1]:
        classes = part.classes
        if "R" in classes and classes[0] == "n" and part.kind in ("", "and", ","):
            for tok in part.toks:
                if tok.cls == "R":
                    tok.cls = "W"


# Classes a clause opens with when it is a wait without its subject.
_WAIT_FIRST = frozenset("WCScR")


def _reduced_clause(toks: list[_Tok]) -> bool:
    """ "tests written against the new format": a noun, a participle after it and a
    preposition after that is a clause (a report), not a noun phrase; "the cleanup of
    orphaned rows" is a noun phrase."""
    for k in range(1, len(toks)):
        tok = toks[k]
        if (
            (_verb_like(tok) or tok.low in _IRREGULAR_PARTICIPLES)
            and toks[k - 1].cls == "n"
            and toks[k - 1].low not in _DETERMINERS
            and (k + 1 == len(toks) or toks[k + 1].cls in "pb" or toks[k + 1].low in _MORE_PREPS)
        ):
            return True
    return False


def _keep(
    reader: _Reader, out: _Outcome | None, frame: str, text: str, outcomes: list[_Outcome]
) -> bool:
    """Keep a clause's outcome when it states something: name its frame, fold it into
    the context and add it to the sentence's outcomes. Whether it was kept."""
    if out is None or not out.drafts:
        return False
    out.frame = frame
    reader.commit(out, text)
    outcomes.append(out)
    return True


_CHAIN_WORDS = re.compile(r",?\s*\b(?:in turn|itself|themselves)\b(?:\s*,)?", re.IGNORECASE)


def _read_core(reader: _Reader, text: str) -> tuple[list[_Outcome], str | None]:
    """``read_core`` for a sentence with no closing thanks."""
    if text[:6] in _AFTER_LEADS and (then := _AFTER_THAT.match(text)) is not None:
        text = text[then.end() :]
    reader.chained = False
    if ("turn" in text or "itsel" in text or "themsel" in text) and _CHAIN_WORDS.search(text):
        # "That in turn needs Z", "which is itself waiting on Z": a chain of waits; the
        # words state no relation, and the pronoun they follow is the blocker named last
        text = " ".join(_CHAIN_WORDS.sub(" ", text).split())
        reader.chained = True
    said = text  # the sentence as read, for the frames over it whole (``_held_until``)
    if text[:6] in _UNTIL_LEADS and (held := _held_until(reader, text)) is not None:
        reader.commit(held, text)  # "Until X is approved, the partner sync can't be tested"
        return [held], None
    if "respectively" in text and (paired := _respectively(reader, text)) is not None:
        reader.commit(paired, text)  # "A and B need X and Y respectively"
        return [paired], None
    if ": " in text and (listed := _waiters_list(reader, text)) is not None:
        reader.commit(listed, text)  # "Several things are sitting behind it: X, Y and Z"
        return [listed], None
    if " with " in text and (" on " in text) and (together := _working_with(reader, text)):
        reader.commit(together, text)
        return [together], None
    outcomes: list[_Outcome] = []
    previous: list[_Tok] = []
    whole = _sentence_frame(reader, text)
    if whole is not None:
        reader.commit(whole[0], text)
        outcomes.append(whole[0])
        if not whole[1].strip(" ,;—–"):
            return outcomes, None
        text, previous = whole[1], _plain(whole[2])
    frames = _frames()
    main, gap = frames[: len(FRAMES)], frames[len(FRAMES) :]
    if (" up" in text or " over" in text or " out" in text or " off" in text) and (
        split := _SPLIT_PHRASAL.search(text)
    ):  # "picking the banner back up" is "picking up the banner"
        text = f"{text[: split.start()]}{split['v']} {split['p']} {split['o']}{text[split.end() :]}"
    if _done_split_hint(text):  # "put X to bed", "got X in", "crossed X off"
        text = _split_done(text)
    if (
        "tagg" in text
        or "tag " in text
        or ("cut" in text and ("release" in text or "branch" in text or " rc" in text))
        or "marked " in text
        or "mark " in text
    ):  # "tagged v2.3", "cut the 4.2 release", "marked X as done"
        text = _release_cut(text)
    if "running " in text and (late := _RUNNING_LATE.search(text)):  # a schedule, no owner
        text = f"{text[: late.start()]}running late{text[late.end() :]}"
    if " plate" in text or " hands" in text:  # "X landed on my plate" is "X is mine"
        text = _ON_PLATE.sub(_on_plate, _HAS_ON_PLATE.sub(r"\g<v> \g<x>", text))
    if (
        (" it " in text or " that " in text or " them " in text or " this " in text)
        and (" out" in text or " up" in text)
        and (split := _SPLIT_PRONOUN.search(text))
    ):
        text = f"{text[: split.start()]}{split['v']} {split['p']} {split['o']}{text[split.end() :]}"
    parts = _lift_asides(_join_colon_lists(clauses(tokenise(text))))
    if len(parts) > 1 and parts[-1].kind == "so" and "R" in parts[0].classes:
        _needs_that_stall(parts)  # "X needs Y, so it's stuck": the need is a wait
    reason: str | None = None
    skip_next = False
    label_relation: str | None = None  # "Owner:", "Blockers:", "Done:" name the relation
    heading: list[_Tok] = []  # "Invoice sync: ..." is the subject of what follows
    dash_label: list[_Tok] = []  # "login page — ..., waiting for auth": a subjectless wait's
    if reader.line_topic:  # set by an earlier sentence of the same line
        heading = _plain(reader.line_topic)
    inherited = heading  # that heading, while no label of this sentence replaces it
    named: list[_Tok] = []  # the last work item a clause of this sentence named
    unblocked_waiter: str | None = None  # "X is unblocked" still looking for its Y
    stalled_waiter: str | None = None  # "X is blocked" still looking for its blocker
    first_needed: str | None = None  # "Y has to land first" still looking for its waiter
    cause: str | None = None  # what a "now that Y landed" clause named
    last_doer: str | None = None  # the named doer of the last completion
    main_clause: list[_Tok] = []  # the last clause that was not a relative one
    hedged_subject = False  # the clause before was hedged or planned
    reason_blocker: str | None = None  # "Owing to a dependency on Y, X is on hold"
    lead_blocker: str | None = None  # the same, kept for when no X takes it
    label_waiter: list[_Tok] | None = None  # "X (blocked: Y)": X, before the label
    past_waits: list[_Outcome] = []  # "X was waiting on Y": over, when the sentence unblocks
    freed_before = reader.freed_waiting  # "X is unblocked! Tariq shipped Y": the reason
    reader.freed_waiting = None  # comes in the next sentence of the same line
    if freed_before is not None and freed_before[1] != reader.line:
        freed_before = None
    for index, clause in enumerate(parts):
        toks, kind = clause.toks, clause.kind
        classes = clause.classes
        if index and parts[index - 1].kind not in _RELATIVE:
            main_clause = parts[index - 1].toks
        if (
            index + 1 < len(parts)
            and parts[index + 1].kind == ":"
            and "x" not in classes
            and (
                not any(c in _TRIGGERS for c in classes)
                or _label_relation(" ".join(t.low for t in toks)) is not None
            )  # "still on the SCIM bug: repro'd it" is a clause, not a heading
        ):
            label = " ".join(t.low for t in toks)
            if label in _NOT_TOPICS:
                continue  # "Bumping: still waiting on X": a nudge, not an item
            if label in _NOT_FACT_LABELS:
                return outcomes, "a decision, question or plan"
            label_relation = _label_relation(label)
            label_waiter = (
                parts[index - 1].toks
                if index
                and label_relation in ("blocked", "blocker")
                and kind in (",", "—", "–", "-", "(")
                and parts[index - 1].toks
                and all(c in "n&p" for c in parts[index - 1].classes)
                else None
            )  # "search facets (blocked: taxonomy export)": the facets wait on the export
            # "Payments:" lends its subject; "Y:", "Status:", "Completed this period:" do not
            topic = (
                []
                if label in _LABELS or len(label) < 2 or not _HEADING_NP.fullmatch(classes)
                else toks
            )  # "Payments:", "k8s upgrade on staging:" lend their subject
            previous = heading = topic
            if topic:
                reader.line_topic = _rebase(topic)[0]
                reader.label_line = reader.line
                if any(t.low in _OBJECT_PRONOUNS for p in parts[index + 1 :] for t in p.toks):
                    seen = _Outcome()  # "seat picker: Oren's on it": it is the heading's item
                    if reader.item(_parse_phrase(reader.line_topic), seen) is not None:
                        reader.commit(seen, reader.line_topic)
                    else:
                        reader.last_item = None  # "Runbooks: Ifeanyi has them": not before
            continue
        if kind == ":" and heading and len(toks) == 1 and toks[0].low in _RAG_VALUES:
            continue  # "Training: R — no trainer": a status cell, the heading stays subject
        if (
            stalled_waiter is not None
            and kind in _BECAUSE
            and toks
            and not any(c in "WRKCY" for c in classes)  # "as it depends on Y": read it
        ):
            blocker = _leading_np(toks)
            because = reader.blocked(stalled_waiter, _rebase(blocker)[0]) if blocker else None
            _keep(reader, because, "x-blocked-because-y", text, outcomes)
            stalled_waiter = None
            previous = toks
            continue
        if (
            stalled_waiter is not None
            and kind in (",", ";", "—", "–", "-", ":")
            and toks
            and (
                classes.startswith(("R", "xR"))
                or (toks[0].low in ("it", "this", "they") and classes[1:].startswith(("R", "xR")))
            )
            and len(toks) > classes.index("R") + 1
        ):  # "X: blocked, needs the tax tables from finance", "X is on hold: it needs Y"
            need = reader.blocked(stalled_waiter, _rebase(toks[classes.index("R") + 1 :])[0])
            if _keep(reader, need, "x-is-stalled-needs-y", text, outcomes):
                stalled_waiter = None
                previous = toks
                continue
        if (
            stalled_waiter is not None
            and (kind in _BREAKS or kind in _BECAUSE)
            and (undone := _UNDONE.fullmatch(classes)) is not None
            and toks[0].low not in _SUBJECT_PRONOUNS  # "I haven't finished X": my own
        ):  # "X is stuck, design hasn't finalised the empty states", "X is on hold: the
            # vendor patch isn't out yet": X waits on what is not done
            group = "o" if undone["o"] is not None else "y"
            y = _rebase(toks[undone.start(group) : undone.end(group)])[0]
            need = reader.blocked(stalled_waiter, y) if y else None
            if _keep(reader, need, "x-is-stalled-y-not-done", text, outcomes):
                stalled_waiter = None
                previous = toks
                continue
        first = _FIRST_NEEDED.fullmatch(classes) if "q" in classes else None
        if first is not None and (y := _rebase(toks[: first.end("y")])[0]):
            # "X - blocked, Y has to land first": X waits on Y; else "Y has to land first,
            # then X can start": the next clause names the waiter
            need = reader.blocked(stalled_waiter, y) if stalled_waiter is not None else None
            if not _keep(reader, need, "x-is-stalled-y-first", text, outcomes):
                first_needed = y
            stalled_waiter = None
            previous = toks
            continue
        if (
            first_needed is not None
            and kind in _THEN_KINDS
            and (then := _THEN_MOVES.fullmatch(classes)) is not None
            and toks[-1].low in _MOVE_VERBS_NOW
        ):  # "..., then the boiler swap can start": the swap waits on what comes first
            need = reader.blocked(_rebase(toks[: then.end("s")])[0], first_needed)
            first_needed = None
            if _keep(reader, need, "y-first-then-x", text, outcomes):
                previous = toks
                continue
        first_needed = None
        stalled_waiter = None
        if index and kind in (",", "—", "–", ";") and toks and toks[0].low in _ASKING:
            reason = reason or "question"  # "..., anyone know who owns that"
            break
        if toks and toks[0].low in _THANKS and not any(c in _TRIGGERS for c in classes):
            previous = []  # "Thanks @ximena —": no subject for what follows
            cut = [i for i, t in enumerate(toks) if t.cls == "p"]
            if cut and index + 1 < len(parts) and parts[index + 1].kind == "who":
                thanked = toks[cut[-1] + 1 :]  # "Shoutout to Hemi who rolled out X"
                if thanked and _agent_shaped(_rebase(thanked)[0], strict=True):
                    previous = thanked
            continue
        if (
            index == 0
            and len(parts) > 1
            and parts[1].kind == ","
            and parts[1].toks[:1]
            and parts[1].toks[0].cls == "n"  # "Pending Y, X is on hold": X has a subject
            and (lead := _lead_blocker(toks))
        ):
            reason_blocker, previous = _rebase(lead)[0], toks  # "Pending Y, X is on hold"
            lead_blocker = reason_blocker
            _mention(reader, [*lead, _Tok("x", 0, 0, "x")])  # "..., Ahmed's driving that": Y
            continue
        if kind in _CONDITIONAL:
            reason, previous = "conditional", toks
            skip_next = not outcomes and not any(o.drafts for o in outcomes)
            continue
        if skip_next:  # the consequent of "If X slips, Y is blocked"
            skip_next, previous = False, toks
            continue
        if label_relation in ("blocked", "blocker") and kind == ":" and "R" in classes:
            for t in toks:  # "Blocked: seat sync needs the venue feed schema": a wait
                if t.cls == "R":
                    t.cls = "W"
            classes = clause.classes
        if (
            label_relation is not None
            and kind == ":"
            and toks
            and not any(c in _TRIGGERS or c == "x" for c in classes)
        ):
            items = (
                _rebase(toks)[0]
                if label_relation in ("blocked", "unblocked")
                else _label_list(toks)
            )
            if label_waiter:
                labelled = reader.blocked(_rebase(label_waiter)[0], _rebase(toks)[0])
                if labelled is not None:
                    labelled.frame = "x-blocked-label-y"
            else:
                labelled = _read_label(reader, label_relation, items)
                if (
                    labelled is not None
                    and label_relation not in _LABELS_OF_OTHERS
                    and index + 1 < len(parts)
                    and parts[index + 1].classes.lstrip("x")[:1] == "o"
                ):  # "In progress: X, owned by Lior": his, not the writer's
                    labelled.drafts = [
                        d for d in labelled.drafts if d.relation is not Relation.OWNS
                    ]
            label_relation = label_waiter = None
            if labelled is not None:
                reader.commit(labelled, text)
                outcomes.append(labelled)
                previous = toks
                if labelled.items:
                    named = _plain(labelled.items[-1].name)
                continue
        owner_of = (
            None
            if kind not in _OWNER_KINDS
            else heading
            if kind == ":" and heading and previous is heading
            else previous
            if kind != ":" and index and all(c in "n&p" for c in parts[index - 1].classes)
            else None
        )
        if (
            owner_of
            and " ".join(t.low for t in owner_of) not in _ROLE_LABELS
            and not any(t.low in _NOT_ITEM_LABELS for t in owner_of)
            and (kind == ":" or reader.line > 0 or reader.one_line)  # "Standup — Claudia"
            and (reader.structured or owner_of[-1].low in _OWNER_WORDS)
            and (names := _names_lead(toks)) is not None
            and not any(n.lower() in _STATUS_VALUES for n in names)
        ):  # "Vault migration: Hiroshi, ETA two weeks", "PROJ-884 (SCIM sync) — Gita"
            item_toks = owner_of
            if len(item_toks) > 1 and item_toks[-1].low in _OWNER_WORDS:
                item_toks = item_toks[:-1]  # "SSO rollout owner: Nadia"
            named_owner = reader.owns(" and ".join(names), _rebase(item_toks)[0])
            if _keep(reader, named_owner, "item-colon-owner", text, outcomes):
                previous = owner_of  # "Adwoa — now unblocked since ...": the item is
                continue  # the subject of what follows
        if (
            reason_blocker
            and toks
            and toks[-1].low in _DEFERRED
            and re.fullmatch(r"n[n&p]*x+n", classes)
        ):  # "Pending Y, the X rollout has been deferred"
            because = reader.blocked(_rebase(_leading_np(toks))[0], reason_blocker)
            reason_blocker = None
            if _keep(reader, because, "given-y-x-is-deferred", text, outcomes):
                previous = toks
                continue
        if (
            kind in _RELATIVE
            and classes[0] == "n"
            and "M" in classes
            and (antecedent := _trailing_np(previous))
        ):  # "the font fix, which Oren is expected to finish": Oren has it
            body, rebased = _rebase(toks)
            planned = _read_gap(reader, rebased, body, _PLANNED_GAP, _rebase(antecedent)[0])
            if planned is not None:
                reader.commit(planned, text)
                outcomes.append(planned)
                previous = toks
                continue
        if (
            index == 0
            and len(parts) > 1
            and parts[1].kind in ("—", "–")
            and not heading
            and toks
            and toks[0].low not in ("the", "our", "my", "this", "that")
            and _HEADING_NP.fullmatch(classes)
            and " ".join(t.low for t in toks) not in _LABELS
            and not _verb_like(toks[0])
            and not _agent_shaped(_rebase(toks)[0], strict=True)
        ):  # "login page — same as all week, waiting for auth": the label is the subject
            dash_label = toks  # of a clause that opens with its predicate
        if (
            index == 0
            and len(parts) > 1
            and parts[1].kind in ("—", "–", "-")
            and toks
            and toks[0].low in ("the", "our", "my", "this", "that")
            and all(c in "n&p" for c in classes)
            and not heading
        ):  # "the flaky e2e suite — Karim is digging into it": the topic "it" means
            seen = _Outcome()
            topic_text = _rebase(toks)[0]
            if reader.item(_parse_phrase(topic_text), seen) is not None:
                reader.commit(seen, topic_text)
        if (
            len(parts) == 1
            and toks
            and toks[0].low in _TOPIC_OPENERS
            and all(c in "n&p" for c in classes)
        ):  # "update on the geo lookup thing": the line names what "it" means next
            seen = _Outcome()
            topic_text = _rebase(toks)[0]
            if reader.item(_parse_phrase(topic_text), seen) is not None:
                reader.commit(seen, topic_text)
        resumed = _resumed(toks) if "M" in classes and _RESUME_CLASSES.fullmatch(classes) else None
        if resumed is not None and cause and _consequence(parts, index):
            _add_unblock(reader, outcomes, resumed, cause, text)  # "Y landed, so X can
            previous = toks  # start", "with Y signed off, we can get going on X"
            continue
        if resumed is not None and not index and _freed_by_later(parts):
            unblocked_waiter = resumed  # "X can go ahead now that Y is signed off"
            previous = toks
            continue
        if not toks or _TRIGGERS.isdisjoint(classes):
            hedged_subject = "M" in classes  # "no movement on X, blocked on Y": Y still holds
            if toks and classes[0] == "n" and "x" in classes and "N" in classes:
                _mention(reader, toks)  # "X has not started, as it ...": X is the topic
            if toks and kind not in _CAUSAL and toks[0].low in ("following", "after"):
                kind = "after"  # "Following approval of Y, X was unblocked"
                toks = toks[1:]
            arrived = _ARRIVED.fullmatch(classes) if "e" in classes else None
            if arrived is not None:  # "the permit came through", "the figures came back"
                cause = _rebase(toks[: arrived.end("y")])[0] or None
                if cause and kind not in _CONDITIONAL and not hedged_subject:
                    reader.recent_done = cause  # "Y came through! so X can finally start"
                if unblocked_waiter and cause and (kind in _CAUSAL or kind in _BREAKS):
                    _add_unblock(reader, outcomes, unblocked_waiter, cause, text)
                    unblocked_waiter = None  # "X is unblocked, the permit came through"
            elif (
                unblocked_waiter
                and kind in _BREAKS
                and (verb := _past_verb(toks)) is not None
                and (did := _rebase(toks[verb + 1 :])[0])
            ):  # "X is unblocked — finance approved the new rate card": what was done
                acted = _agent_acted(reader, toks)
                if acted is not None:
                    reader.commit(acted, text)
                    outcomes.append(acted)
                _add_unblock(reader, outcomes, unblocked_waiter, did, text)
                unblocked_waiter = None
            elif kind in _CAUSAL - {","} and toks:
                cause = _rebase(_trailing_np(toks))[0] or None
                acted = _agent_acted(reader, toks)  # "now that Hee-won pushed the image"
                if acted is not None:
                    cause = acted.items[-1].name if acted.items else cause
                    reader.commit(acted, text)
                    outcomes.append(acted)
                if unblocked_waiter and cause:
                    _add_unblock(reader, outcomes, unblocked_waiter, cause, text)
                    unblocked_waiter = None
            # (what arrived is the subject a following "clearing the way for X" borrows)
            previous = toks[: arrived.end("y")] if arrived is not None else toks
            continue
        if _MEASURE.match(toks[0].text):
            reason, previous = "a measurement, not a work item", toks
            continue
        if ("W" in classes or "S" in classes) and any(t.low == "had" for t in toks):
            reason, previous = "in the past (had been blocked)", toks
            if "W" in classes:  # "X, which had been waiting on Y, is no longer blocked"
                past = _leading_np(toks[classes.index("W") + 1 :])
                seen = _Outcome()
                past_items = reader.items(_rebase(past)[0], seen) if past else None
                if past_items:
                    for item, phrase in past_items:
                        reader.owners_of(phrase, item, seen)
                    reader.commit(seen, text)
                    cause = past_items[-1][0].name
                    if seen.drafts:
                        seen.frame = "owner-of-a-past-blocker"
                        outcomes.append(seen)
            continue
        if kind in ("once", "when", "as soon as") and any(
            t.cls == "U" and t.low.startswith(("can ", "could ")) for t in toks
        ):  # "once hardware arrives the rollout can proceed": a plan
            reason, previous = "planned", toks
            continue
        if (
            "U" in classes
            and any(t.cls == "U" and t.low.startswith("not ") for t in toks)
            and not _ANY_MORE.search(text)
        ):  # "not blocked, just slow": no wait is over, there was none
            reason, previous = "negated", toks
            continue
        if (
            "E" in classes
            and ("go" in text or "Go" in text or "roll" in text or "Roll" in text)
            and any(
                t.low in _GO_PRESENT and toks[i + 1].cls == "E" for i, t in enumerate(toks[:-1])
            )
        ):  # "the EU launch goes live Monday", "rolls out Thursday": a schedule
            reason, previous = "planned", toks
            continue
        asserted = classes.split("K", 1)[0]  # "X has to land before Y can ship": not a hedge
        quality = next((label for c, label in _QUALITY if c in asserted), None)
        if quality is None and hedged_subject and kind == "," and classes[0] not in "nxs":
            quality = "hedged"  # "X is expected to launch in May, pending Y": Y is the plan's
        if quality is not None:
            reason, previous = quality, toks
            hedged_subject = quality == "hedged"
            _mention(reader, toks)  # "X still not done, Y blocked on it": X is the topic
            continue
        hedged_subject = False
        out: _Outcome | None = None
        borrowed = False
        if kind in _RELATIVE and classes[0] == "n":
            antecedent = _trailing_np(previous)
            if antecedent:
                body, rebased = _rebase(toks)
                out = _read_gap(reader, rebased, body, gap, _rebase(antecedent)[0])
                if out is not None and out.frame == "which-s-needs":
                    _drop_implied_waits(reader, out, outcomes)
        if out is None:
            subject: list[_Tok] = []
            if classes[0] != "n":
                if clause.antecedent is not None:
                    subject = clause.antecedent
                elif (
                    classes[0] in "oV"
                    and kind in _JOINERS
                    and index >= 2
                    and parts[index - 1].kind in _RELATIVE
                    and parts[index - 2].toks
                    and all(c in "n&p" for c in parts[index - 2].classes)
                ):  # "X, which we need before Y, is with security": X, not Y
                    subject = parts[index - 2].toks
                elif kind in _RELATIVE or classes[0] in "oV":
                    subject = _trailing_np(previous) or (
                        _leading_np(previous) if kind in _RELATIVE else []
                    )  # "X has been completed, which unblocks Y": X is the antecedent
                    if (
                        kind == "which"
                        and subject
                        and len(previous) > len(subject) + 1
                        and previous[-len(subject) - 1].low == "by"
                        and _aside_names(subject)
                    ):  # "blocked on Y (Lars), which in turn waits on Z": Y, not Lars
                        subject = _trailing_np(previous[: -len(subject) - 1]) or subject
                    if not subject and index == 0 and kind in _RELATIVE and reader.last_item:
                        subject = _plain(reader.last_item.name)  # a line opening "which ..."
                    if kind == "who":  # "Shoutout to Hemi who rolled out X": Hemi
                        cut = [i for i, t in enumerate(subject) if t.cls == "p"]
                        subject = subject[cut[-1] + 1 :] if cut else subject
                elif (
                    kind in _JOINERS
                    and index >= 2
                    and (parts[index - 1].kind in _RELATIVE or parts[index - 1].classes[:1] in "op")
                    and parts[index - 2].toks
                    and all(c in "n&p" for c in parts[index - 2].classes)
                ):  # "X, owned by Leona, is no longer blocked": the aside interrupts X
                    subject = parts[index - 2].toks
                elif kind in _JOINERS:
                    subject = _leading_np(previous)
                    if subject and _verb_like(subject[0]):
                        subject = []  # "spent the day on X — fixed now": no subject
                        if (
                            classes[0] == "W"
                            and kind == ","
                            and _TRIGGERS.isdisjoint(parts[index - 1].classes)
                        ):  # "moved the reindex to Friday, waiting on the shard map"
                            obj = previous[1:]
                            while obj and obj[-1].cls in "p&":
                                obj = obj[:-1]
                            if obj and obj[0].cls == "n" and all(t.cls in "n&p" for t in obj):
                                subject = _trim_tail(obj)  # not "held at QA": no object
                    elif heading and _reduced_clause(subject):
                        # "API-9: tests written against X, can't merge until Y": a report
                        subject = []  # under the heading, which is what waits
                    if not subject and index and parts[index - 1].kind in _RELATIVE:
                        subject = _leading_np(main_clause)  # "X, which ..., is live"
                if not subject and heading:
                    subject = heading  # "Cert renewal: ...; can't start until X is done"
                elif not subject and dash_label and classes[0] in _WAIT_FIRST:
                    subject = dash_label  # "checkout banner — still waiting on the API"
            stand_in = (named or heading) if not subject else None
            if (
                stand_in
                and stand_in is inherited
                and toks[0].low == "it"
                and reader.item_line == reader.line
                and reader.last_item is not None
                and reader.line_topic is not None
                and reader.last_item.name.lower() not in reader.line_topic.lower()
                and (reader.last_wait is None or reader.last_item != reader.last_wait[1])
            ):  # "YE-4 ledger: closed. Also picked up YE-7; it stopped waiting on Z": an item
                stand_in = _plain(reader.last_item.name)  # named since the label is "it"
            if (
                stand_in
                and toks[0].low == "it"
                and reader.last_wait is not None
                and reader.last_item == reader.last_wait[1]
                and (stand_in is not heading or reader.wait_line == reader.line)
            ):  # "X can't ship until Y is merged, since it relies on Z": X relies on Z
                stand_in = _plain(reader.last_wait[0].name)
            if stand_in and toks[0].low in _STAND_INS and any(t.cls in "WRCU" for t in toks[1:3]):
                subject, toks = stand_in, toks[1:]  # "X, though I'm blocked on Y": X waits
            out = None
            if (
                dash_label
                and kind in ("—", "–")  # the clause right after the label's dash
                and not subject
                and len(toks) > 1
                and toks[-1].low in _OBJECT_PRONOUNS
            ):
                body, rebased = _rebase(toks[:-1] + dash_label)  # "X — Odile is on it": X
                out = _read(reader, rebased, body, main)
            if out is None:
                body, rebased = _rebase(subject + toks)
                out = _read(reader, rebased, body, main)
            borrowed = out is not None and bool(subject)
            if out is None and subject and dash_label and classes[0] in _WAIT_FIRST:
                body, rebased = _rebase(dash_label + toks)  # "X — same as ever, waiting on Y"
                out = _read(reader, rebased, body, main)
            if out is None and subject:
                body, rebased = _rebase(toks)
                out = _read(reader, rebased, body, main)
            if out is None and heading and classes[0] == "n":
                body, rebased = _rebase(toks + heading)  # "Oren to own", "Farah is driving"
                out = _read(reader, rebased, body, main)
            if (
                out is None
                and not heading
                and kind in ("—", "–", "-")
                and classes[0] == "n"
                and classes[-1] == "O"
                and previous
                and all(t.cls in "n&p" for t in previous)
            ):
                body, rebased = _rebase(toks + previous)  # "auth revamp — Priya driving"
                out = _read(reader, rebased, body, main)
            if out is None and heading and toks[-1].low in _OBJECT_PRONOUNS:
                body, rebased = _rebase(toks[:-1] + heading)  # "Runbooks: Ifeanyi has them"
                out = _read(reader, rebased, body, main)
            if (
                out is None
                and (heading or dash_label)
                and len(toks) >= 2
                and classes[:2] == "nO"
                and toks[1].low.rsplit(" ", 1)[-1] in _TAKEN_OVER
                and all(c in "np" for c in classes[2:])
                and _name_like(toks[0].text)
            ):  # "Kiln rota: Odile taking over from Piet": the label is what she takes
                out = reader.owns(toks[0].text, _rebase(heading or dash_label)[0])
                if out is not None and out.drafts:
                    out.frame = "label-o-takes-over"
                    body, rebased = _rebase(toks)
                else:
                    out = None
        if out is None and classes[0] == "n" and "x" in classes:
            head = (
                []  # a contact clause: "the survey it needs was done by Piet"
                if kind not in _RELATIVE
                else _trailing_np(previous)
                if kind in ("that", "which") and previous and index
                else None
            )
            if head is not None:
                out = _relative_subject(reader, toks, head, main, gap, outcomes, text)
                if out is not None:
                    body, rebased = _rebase(head + toks)
        if out is None:
            reason = reason or "predicate without readable arguments"
            previous = toks
            continue
        if (
            kind == "so"
            and toks[0].low in ("that", "it", "this")
            and out.frame.endswith("unblocked-from-y")
            and any(d.relation is Relation.UNBLOCKED_FROM for o in outcomes for d in o.drafts)
        ):  # "X no longer waits on Y, so that's moving again": the same unblock, said twice
            previous = toks
            continue
        waited = [d for d in out.drafts if d.relation is Relation.BLOCKED_BY]
        if unblocked_waiter and kind in _CAUSAL and waited:  # "..., since it waited on Y"
            out.drafts = [d for d in out.drafts if d.relation is not Relation.BLOCKED_BY]
            _add_unblock(reader, outcomes, unblocked_waiter, waited[0].target.name, text)
            unblocked_waiter = None
        if (
            kind == "and"
            and borrowed
            and last_doer is not None
            and out.frame in ("w-was-done", "w-done")
            and any(d.relation is Relation.COMPLETED for d in out.drafts)
        ):  # "X was completed by Amara and published to the portal": Amara did both
            carried = reader.completed(
                last_doer,
                next(d.target.name for d in out.drafts if d.relation is Relation.COMPLETED),
            )
            if carried is not None and carried.drafts:
                carried.frame = out.frame
                out = carried
        done = [d for d in out.drafts if d.relation is Relation.COMPLETED]
        if done and out.frame in ("w-was-done-by-d", "d-did-w"):
            last_doer = done[0].source.name
        if not done and out.frame in ("w-done", "w-was-done") and out.items:
            cause = out.items[-1].name  # done, by nobody named (a scribe's minutes)
            if unblocked_waiter and (kind in _CAUSAL or kind in _BREAKS):
                _add_unblock(reader, outcomes, unblocked_waiter, cause, text)
                unblocked_waiter = None
        if done:
            cause = done[0].target.name
            if kind in _CAUSAL - {","}:
                if out.frame in ("w-was-done", "w-done") and kind in ("if", "once", "when"):
                    out.drafts = [d for d in out.drafts if d.relation is not Relation.COMPLETED]
                if unblocked_waiter:
                    _add_unblock(reader, outcomes, unblocked_waiter, cause, text)
                    unblocked_waiter = None
            elif unblocked_waiter and kind in _BREAKS:
                _add_unblock(reader, outcomes, unblocked_waiter, cause, text)  # "X is
                unblocked_waiter = None  # unblocked, the IAM changes went out": the reason
            elif (
                freed_before is not None
                and index == 0
                and not kind
                and toks[0].low not in ("i", "we")  # "I fixed Y too": news of my own
                and _ADDITIVE.isdisjoint(lower_words(reader.sentence))
            ):
                _add_unblock(reader, outcomes, freed_before[0], cause, text)
                freed_before = None
        if out.frame.endswith("unblocked-from-y") and not any(
            d.relation is Relation.UNBLOCKED_FROM for d in out.drafts
        ):
            waiter = _np_text(_leading_np(toks)) or _np_text(_leading_np(rebased)) or None
            if not cause and not any(p.kind in _CAUSAL - {","} for p in parts[index + 1 :]):
                cause = reader.recent_done  # "X is deployed! @mikko you're unblocked"
            if waiter and cause:
                _add_unblock(reader, outcomes, waiter, cause, text)
            else:
                unblocked_waiter = waiter
        if out.frame in ("x-is-stalled", "x-cannot-move"):
            stalled_waiter = _rebase(_leading_np(rebased))[0] or None
        if out.frame in _STUCK_FRAMES:
            reader.stuck += (
                [
                    i
                    for i in out.items[-1:]
                    if i.type is EntityType.WORK_ITEM and i not in reader.stuck
                ]
                if out.frame in ("x-is-stalled", "x-cannot-move")
                else [
                    d.source
                    for d in out.drafts
                    if d.relation is Relation.BLOCKED_BY and d.source.type is EntityType.WORK_ITEM
                ][:1]
            )
        if kind in _ADJUNCTS and toks[0].low.endswith("ing") and outcomes:
            _adjunct_doer(reader, out, outcomes)  # "X shipped Y, after babysitting it"
        reader.commit(out, body)
        outcomes.append(out)
        if out.frame == "x-waits-on-y" and any(
            t.low in ("was", "were") for t in toks[: classes.find("W")]
        ):
            past_waits.append(out)  # "the payout report was waiting on it"
        if reason_blocker and stalled_waiter:  # "Pending Y, X is on hold"
            because = reader.blocked(stalled_waiter, reason_blocker)
            _keep(reader, because, "given-y-x-is-stalled", text, outcomes)
            reason_blocker = stalled_waiter = None
        previous = toks
        if out.items:
            named = _plain(out.items[-1].name)
    if unblocked_waiter and not any(
        d.relation is Relation.UNBLOCKED_FROM for o in outcomes for d in o.drafts
    ):
        reader.freed_waiting = (unblocked_waiter, reader.line)
    by_doer = {  # "X is live, having been rolled out by the ops team": the team did it
        d.target.name.lower()
        for o in (outcomes if len(outcomes) > 1 else ())
        if o.frame in ("w-was-done-by-d", "d-did-w")
        for d in o.drafts
        if d.relation is Relation.COMPLETED
    }
    for o in outcomes if by_doer else ():
        if o.frame in ("w-done", "w-was-done"):
            o.drafts = [
                d
                for d in o.drafts
                if d.relation is not Relation.COMPLETED or d.target.name.lower() not in by_doer
            ]
    if (
        outcomes
        and outcomes[0].frame == "owns-w"
        and parts
        and parts[0].toks
        and parts[0].toks[0].low in ("work on", "progress on")
        and any(
            t.low in _CONTINUES or t.cls == "x"
            for t in [*parts[0].toks[1:], *(t for p in parts[1:] for t in p.toks)]
        )
    ):  # "Work on X, owned by Ravi, continues": a subject, not the writer working on X
        outcomes[0].drafts = [d for d in outcomes[0].drafts if d.source != reader.author_ref]
    if lead_blocker is not None and not any(
        d.relation is Relation.BLOCKED_BY for o in outcomes for d in o.drafts
    ):  # "pending the dbt upgrade, Ahmed's driving that": the current item waits on it
        pending = reader.blocked(None, lead_blocker)
        if pending is not None and pending.drafts:
            pending.frame = "pending-y"
            reader.commit(pending, text)
            outcomes.insert(0, pending)
    if " by " in text and outcomes:
        _passive_agent_did(reader, text, outcomes)  # "X finished, and was delivered by T"
    if past_waits and (
        any("unblocked" in o.frame for o in outcomes) or _UNBLOCK_HINT.search(text.lower())
    ):
        _past_waits_end(reader, outcomes, past_waits)  # "Y was waiting on it, so ... unblocked"
    done_now = {
        d.target.name.lower()
        for o in outcomes
        for d in o.drafts
        if d.relation is Relation.COMPLETED
    }
    for out in outcomes:
        for i, d in enumerate(out.drafts):  # "depends on X, which the team shipped today"
            if d.relation is Relation.BLOCKED_BY and d.target.name.lower() in done_now:
                out.drafts[i] = replace(d, relation=Relation.UNBLOCKED_FROM)
        for d in out.drafts:
            if d.relation is Relation.COMPLETED:
                reader.recent_done = d.target.name
    freed = (
        {
            (d.source, d.target)
            for o in outcomes
            for d in o.drafts
            if d.relation is Relation.UNBLOCKED_FROM
        }
        if done_now or len(outcomes) > 1
        else None
    )
    if freed:  # "X, which depends on Y, is now unblocked": X no longer waits on Y
        for out in outcomes:
            out.drafts = [
                d
                for d in out.drafts
                if not (d.relation is Relation.BLOCKED_BY and (d.source, d.target) in freed)
            ]
    if (
        (" until " in said or " till " in said or " before " in said or said[:6] in _UNTIL_LEADS)
        and reason not in _NOT_READ
        and not any(d.relation is Relation.BLOCKED_BY for o in outcomes for d in o.drafts)
        and (held := _held_until(reader, said)) is not None
    ):  # "there isn't much I can do on it until X exists": the waiting work is the topic
        reader.commit(held, said)
        outcomes.append(held)
    if outcomes:
        return outcomes, None
    if reason is None and all(_TRIGGERS.isdisjoint(c.classes) for c in parts):
        reason = "no predicate"
    return [], reason


# --------------------------------------------------------------------------------------
# The waiting items listed after what they wait on
# --------------------------------------------------------------------------------------

# "Several things are sitting behind it: X, Y and Z", "Waiting directly on AUTH-9: X, Y":
# the list after the colon waits on what the clause names.
_WAITERS_LIST = re.compile(
    r"(?:(?:several|a few|a couple of|a number of|many|multiple|two|three|four|five|six)"
    r"\s+(?:things|items|pieces of work|workstreams|projects|tickets|features|streams)"
    r"|these|the following)\s+(?:are|were)\s+(?:all\s+|still\s+|now\s+)?|(?=\w)",
    re.IGNORECASE,
)
_WAITERS_VERB = re.compile(
    r"(?:sitting|waiting|blocked|stuck|queued(?:\s+up)?|held\s+up|gated|depending|parked"
    r"|lined\s+up)(?:\s+(?:directly|still|now|all))?\s+(?:on|for|behind|by|upon)\s+"
    r"(?P<t>[^:,;]+?)\s*:\s*(?P<list>\S.+)",
    re.IGNORECASE,
)


def _waiters_list(reader: _Reader, text: str) -> _Outcome | None:
    """ "Several things are sitting behind it: the SSO page, session API v2 and the audit
    export", "Waiting directly on AUTH-9: X, Y": a vague subject (or none) waits on Y, and
    the list the colon opens names what waits."""
    lead = _WAITERS_LIST.match(text)
    if lead is None:
        return None
    m = _WAITERS_VERB.fullmatch(text, lead.end())
    if m is None:
        return None
    target = m["t"]
    if target.lower() in _REF_TARGETS and reader.last_item is None:
        # "PLAT-88 (Sam) moves to next week. Waiting on it: ...": the ticket the sentence
        # before opened with, named though no frame read that sentence
        opening = _OPENING_TICKET.match(reader.previous_sentence())
        if opening is None:
            return None
        target = opening["id"]
    out = _Outcome()
    for part in split_items(m["list"].rstrip(" .")):
        one = reader.blocked(part, target)
        if one is not None:
            for name in ("drafts", "items", "people", "teams", "current"):
                getattr(out, name).extend(getattr(one, name))
    if not any(d.relation is Relation.BLOCKED_BY for d in out.drafts):
        return None
    out.frame = "waiting-on-y-colon-xs"
    return out


_OPENING_TICKET = re.compile(
    r"[\s*•-]*(?:[A-Za-z][\w /]{0,24}:\s*)?[*_]*(?P<id>[A-Z][A-Z0-9]+-\d+|#\d+)\b"
)


_RESPECTIVELY = re.compile(
    r"(?P<s>[^,;:]+?)\s+(?:(?:are|is|were)\s+(?:still\s+)?)?(?P<v>need|needs|depend on|depends on"
    r"|rely on|relies on|wait on|waits on|wait for|waits for|waiting on|waiting for|blocked on"
    r"|blocked by|sit behind|sitting behind|gated on|stuck behind)\s+(?P<t>[^,;:]+?),?\s+"
    r"respectively\b",
    re.IGNORECASE,
)
_RESPECTIVE_SUBJECT = re.compile(r"(?P<s>[^,;:]+?)\s+(?:are|were|is|have|has|remain|stay)\b")


def _respectively(reader: _Reader, text: str) -> _Outcome | None:
    """ "The app login and the regression suite are one step further back, since they need
    the session API and the SSO page respectively": each waiting item with its own
    blocker, in order ("they" is the list the sentence opens with)."""
    m = _RESPECTIVELY.search(text)
    if m is None:
        return None
    waiting = m["s"].strip()
    for lead in ("since ", "as ", "because ", "so "):
        if waiting.lower().startswith(lead):
            waiting = waiting[len(lead) :]
    if waiting.lower() in ("they", "both", "both of them", "those", "these"):
        opening = _RESPECTIVE_SUBJECT.match(text)
        if opening is None or opening.end() > m.start():
            return None
        waiting = opening["s"]
    waiters, blockers = split_items(_trim(waiting)), split_items(_trim(m["t"]))
    if len(waiters) < 2 or len(waiters) != len(blockers):
        return None
    out = _Outcome()
    for who, what in zip(waiters, blockers, strict=True):
        one = reader.blocked(who, what)
        if one is None or not any(d.relation is Relation.BLOCKED_BY for d in one.drafts):
            return None
        for name in ("drafts", "items", "people", "teams", "current"):
            getattr(out, name).extend(getattr(one, name))
    out.frame = "xs-wait-on-ys-respectively"
    return out


# --------------------------------------------------------------------------------------
# Work that cannot move until an event, named by the context rather than the clause
# --------------------------------------------------------------------------------------

_UNTIL_LEADS = frozenset({"until ", "Until ", "till t", "Till t"})
# Readings ``_held_until`` does not overrule ("hedged" it checks itself: "there's not much
# I can do" holds a modal, "we might not be able to start until" a hedge).
_NOT_READ = frozenset({"conditional", "question", "a decision, question or plan"})
# Negated ability or progress: "cannot merge anything real", "there is not much I can do
# on it", "no real way to finish it", "nothing to talk to", "unable to test".
_HELD_NEG = re.compile(
    r"\b(?:cannot|can not|could not|unable to|not able to|no (?:\w+ )?way to"
    r"|(?:will|would) not be able to|nothing (?:\w+ )?to|(?:not much|little|not a lot"
    r"|nothing|nothing much|not anything) (?:i|we|anyone|they) can)\s+(?P<verb>[a-z][\w-]*)",
    re.IGNORECASE,
)
_HELD_UNTIL = re.compile(r"\s(?:until|till|before)\s", re.IGNORECASE)
# The event the blocker waits for: "until X exists", "before that ships", "until Y is in".
# A time, a meeting or a state of something ("until Friday", "until staging is on 16")
# names no work that has to happen.
_HELD_EVENT = re.compile(
    r"(?P<t>.+?)\s+(?:(?:is|are|gets|get|has been|have been)\s+(?:\w+ly\s+)?(?:in|there|merged"
    r"|done|out|live|ready|shipped|landed|deployed|released|fixed|approved|signed off"
    r"|provisioned|available|hooked up|wired up|sorted|finished|complete|completed|in place"
    r"|talking to\b.*|upgraded|migrated|rolled out|through|resolved|up and running|back"
    r"|[a-z]{3,}ed(?: back| off| out| up| over| through)?(?: by \S.*)?)"
    r"|exists?|ships?|lands?|merges?|goes (?:out|live|in|through)|go through|arrives?"
    r"|comes? (?:through|back|in)|is talking\b.*)",
    re.IGNORECASE,
)
# The event told with its doer: "until procurement signs the testing contract", "until
# the committee publishes the 2027 allocations" (t: what is delivered).
_HELD_DONE_BY = re.compile(
    r"(?P<who>(?:the )?[\w.'-]+(?: [\w.'-]+){0,2}?) (?:finishes|finish|publishes|publish"
    r"|signs|sign|signs off|delivers|deliver|sends|send|ships|ship|merges|merge|completes"
    r"|complete|approves|approve|releases|release|provides|provide|lands|land|fixes|fix"
    r"|resolves|resolve|closes|close|rebuilds|rebuild|upgrades|upgrade|sorts out|sort out"
    r"|pushes|push|rolls out|roll out|deploys|deploy) (?P<t>(?:the |their |our |its |his "
    r"|her )?\S.*)",
    re.IGNORECASE,
)
# Words after the event that say nothing of it: "before #4398 is merged though".
_HELD_TAIL = re.compile(r"\s+(?:though|tho|anyway|either|yet|first|sadly|unfortunately)\Z")
_LAST_NP = re.compile(r"\b(?:a|an|the)\s+(?P<np>[\w-]+(?:\s+[\w-]+){0,3})\s*\Z", re.IGNORECASE)
_HELD_PREPOSED = re.compile(
    r"(?:until|till)\s+(?P<mid>.+?)\s+(?:cannot|can not|could not|is not going to"
    r"|are not going to|is not able to|are not able to)\s+(?P<verb>[a-z][\w-]*)",
    re.IGNORECASE,
)
_WORD_GAP = re.compile(r"\s*,\s*|\s+")
_PREPOSED_SUBJECT = re.compile(r"(?i:the|our|my|their|this|that|it|we|i)\b[^,;]*")
# Verbs whose negation says nothing about work waiting: "can't wait until it ships".
_NOT_HELD_VERBS = frozenset(
    """wait believe stop help remember imagine tell say sleep think promise guarantee
    commit confirm answer decide know afford see recall join attend come leave reply
    respond travel relax rest eat""".split()
)
# Verbs of getting past a part of the work: "can't go past the storage layer until X":
# the part is no waiting item, the work it belongs to is.
_PAST_VERBS = frozenset("go get move look push progress".split())
# Who cannot do something that is no work of theirs: "you can't log in until X ships".
_NOT_WORKERS = frozenset(
    """you they users user customers customer people folks everyone anyone nobody
    clients client visitors members shoppers""".split()
)
_HEDGE_WORDS = frozenset("if unless might may maybe probably perhaps could would should".split())
_NO_SUBJECT = frozenset(
    {"i", "we", "you", "one", "there", "there is", "there are", "honestly", "still", "so"}
    | {"and", "but", "really", "frankly", "basically"}
)
_BLOCKER_VAGUE = re.compile(r"(?:something|anything)\s+like\s+", re.IGNORECASE)
_CLAUSE_STOP = re.compile(r"\s*(?:[,;:(—–]|\s(?:so|and|but|because|since|as)\s)")


def _held_until(reader: _Reader, text: str) -> _Outcome | None:
    """ "there isn't much I can do on it until Priya's endpoints exist", "can't go past
    the storage layer until the refactor is merged", "until something like that exists
    the sessions can't happen": negated ability or progress, then until/before/till a
    work item and the event it waits for. The waiting work is the clause's own work-item
    subject, else what "it"/"that" names, else the "for X" the verb is about, else the
    update's topic item (heading, bullet label, current or claimed item, the ticket a
    comment is on), else the author."""
    subject = obj = ""
    if text[:6] in _UNTIL_LEADS:
        pre = _HELD_PREPOSED.match(text)
        if pre is None or pre["verb"].lower() in _NOT_HELD_VERBS:
            return None
        middle, verb, event_at = pre["mid"], pre["verb"], 0
        for cut in _WORD_GAP.finditer(middle):  # "until X exists the sessions cannot ..."
            event, subject = middle[: cut.start()], middle[cut.end() :]
            if _HELD_EVENT.fullmatch(event) and _PREPOSED_SUBJECT.fullmatch(subject):
                break
        else:
            return None
    else:
        neg = _HELD_NEG.search(text)
        if neg is None or neg["verb"].lower() in _NOT_HELD_VERBS:
            return None
        until = _HELD_UNTIL.search(text, neg.end())
        if until is None:
            return None
        before = text[: neg.start()]
        if not _HEDGE_WORDS.isdisjoint(before.lower().split()):
            return None  # "if the CDN move slips we can't start until May": a condition
        subject = _held_subject(before)
        obj, verb = text[neg.end() : until.start()], neg["verb"]
        event, event_at = text[until.end() :], until.start()
        if (stop := _CLAUSE_STOP.search(event)) is not None:
            event = event[: stop.start()]
    said = _HELD_TAIL.sub("", event.strip(" .!"))
    m = _HELD_EVENT.fullmatch(said) or _held_done_by(said)
    if m is None:
        return None
    blocker = _fuller_head(_BLOCKER_VAGUE.sub("", m["t"], count=1), text[:event_at])
    like = blocker != m["t"]  # "something like that": a kind of thing described before
    if blocker.lower() in _REF_TARGETS and (like or reader.last_item is None):
        # "Raj could add an allowlist rule; until something like that exists ...": the
        # thing the clause before ends with (the last thing described, not the last item
        # a frame read)
        named = _LAST_NP.search(reader.previous_sentence())
        if named is None:
            return None
        blocker = named["np"]
    past = verb.lower() in _PAST_VERBS
    waiter = _held_waiter(reader, subject.strip(), obj.strip(), past=past)
    candidates: list[str | None]
    if waiter == "":
        return None
    if waiter is not None and waiter.lower() in _REF_TARGETS:
        candidates = [waiter]  # "it can't move until X": the item "it" names, or nothing
    elif waiter is not None:
        candidates = [waiter, None]
    else:
        candidates = [*(t.name for t in reader.topic_items()), None]
    for who in candidates:
        out = reader.blocked(who, blocker)
        waits = [d for d in out.drafts if d.relation is Relation.BLOCKED_BY] if out else []
        if not waits or out is None:
            continue
        if who is not None and who.lower() in _REF_TARGETS:
            if any(d.source.type is not ITEM_TYPE for d in waits):
                return None  # "it" named no item: the writer is not what "it" is
        out.frame = "cannot-move-until-y-event"
        return out
    return None


def _held_done_by(event: str) -> re.Match[str] | None:
    """ "procurement signs the testing contract": a doer (a name, a team, "we", "they")
    and a verb of delivering, so the wait is on what is delivered."""
    m = _HELD_DONE_BY.fullmatch(event)
    if m is None:
        return None
    who = m["who"]
    if who.lower() in ("we", "they", "i") or _agent_shaped(who, strict=True) or _is_org(who):
        return m
    return None


_SEGMENTS = re.compile(r"[,;:—–]|\s(?:so|and|but|because|since)\s")
_ASIDE_OPENERS = ("which ", "who ", "that ", "owned ", "led ", "run ")


_OWNED_HEAD = re.compile(r"(?P<owner>\S+['’]s\s+|(?:the|our|my|their|that)\s+)?(?P<head>[a-z]+)")


def _fuller_head(blocker: str, before: str) -> str:
    """ "The web cases go through the new SSO page, so I can't run them until Lena's page
    is talking to the backend": a blocker named by its head noun alone is the fuller
    name the sentence used before it ("Lena's new SSO page")."""
    m = _OWNED_HEAD.fullmatch(blocker)
    if m is None or len(m["head"]) < 3:
        return blocker
    head = m["head"]
    named = re.findall(
        rf"\b(?:the|a|an|our|my|their)\s+((?:[\w-]+\s+){{1,3}}{re.escape(head)})\b", before
    )
    if not named:
        return blocker
    owner = m["owner"] or ""
    if owner.strip().lower() in _DETERMINERS:
        owner = ""
    return f"{owner}{named[-1]}"


def _held_subject(before: str) -> str:
    """The subject of the negated clause: the words just before it, else (when a dash,
    colon or relative aside comes between) the label or noun phrase before those:
    "PLAT-9 ACL cleanup — can't start until ...", "X, which Growth owns, cannot ..."."""
    segments = [seg.strip() for seg in _SEGMENTS.split(before)]
    last = segments.pop() if segments else ""
    if last or not segments or before.rstrip()[-1:] not in ",—–":
        return last  # "Raj: can't start until ...": Raj speaks, the topic waits
    while segments and (not segments[-1] or segments[-1].lower().startswith(_ASIDE_OPENERS)):
        segments.pop()
    return segments[-1] if segments else ""


def _held_waiter(reader: _Reader, subject: str, obj: str, *, past: bool = False) -> str | None:
    """The waiting side of ``_held_until`` as raw text for ``_Reader.blocked`` (None: the
    author's current item, else the author)."""
    low = subject.lower()
    if low.endswith((" is", " are")):
        low = low.rsplit(" ", 1)[0]
    if low and low.split()[-1] in _NOT_WORKERS:
        return ""  # "you can't log in until", "customers can't pay until": no work waits
    if low and low not in _NO_SUBJECT and low.split()[-1] not in ("i", "we"):
        toks = tokenise(subject)
        if all(t.cls in "n&p" for t in toks) and low not in ("they", "them", "those"):
            return subject  # "the sessions can't happen", "it is not able to ..."
    words = obj.split()
    for k in range(len(words) - 2, -1, -1):
        if words[k].lower() in ("for", "on"):  # "do on it", "merge X for API-140"
            if words[-1].lower() in ("them", "those", "these"):
                break  # "run any of them": parts of the work, named before
            return " ".join(words[k + 1 :])
    if past:
        return None  # "can't go past the storage layer": a part, the topic waits
    if obj.lower() in ("it", "that", "this", "it up", "that up"):
        return obj.split()[0]
    if (
        words
        and words[0].lower() in ("the", "our", "my")
        and all(t.cls in "n&p" for t in tokenise(obj))
    ):
        return obj  # "can't record the demo until X lands"
    return None  # the topic item, else the author (``_held_until`` tries them in turn)


_OWNER_WORDS = frozenset("owner owners lead dri assignee assignees".split())
_OWNER_KINDS = frozenset({":", "—", "–", "-", "->"})
_ROLE_LABELS = frozenset(
    """reviewer reviewers facilitator chair host scribe notetaker notes attendees present
    apologies absent cc approver approvers reporter reporters author from to date time
    location team squad on-call oncall escalation contact contacts pm em guests guest
    speaker speakers presenter presenters invitees audience""".split()
) | frozenset({"note taker", "on call", "reviewed by", "approved by", "requested by"})


# Labels whose value is no owner: a meeting or report title ("Product council — Loyalty"),
# a status field ("Overall RAG: Amber").
_NOT_ITEM_LABELS = frozenset(
    """review call meeting sync standup stand-up council report retro retrospective weekly
    daily monthly update notes agenda minutes planning check-in session summary sync-up
    demo board committee steering forum huddle status rag health priority severity risk
    confidence eta phase stage trend sentiment result outcome decision verdict environment
    region customer client vendor partner programme program portfolio rating score""".split()
)
_STATUS_VALUES = frozenset(
    "red amber green yellow orange grey gray blue done blocked tbd tbc none yes no high medium"
    " low ok okay pending open closed critical major minor good bad".split()
)


def _names_lead(toks: list[_Tok]) -> list[str] | None:
    """The people a clause opens with when it is nothing but their names ("Hiroshi",
    "Felix & Adwoa, not started", "Grace Liu"), else None ("Ifeanyi has them")."""
    names: list[str] = []
    k = 0
    while k < len(toks):
        words: list[str] = []
        while k < len(toks) and len(words) < 2 and _name_like(toks[k].text.lstrip("@")):
            words.append(toks[k].text.lstrip("@"))
            k += 1
        if not words:
            return None
        names.append(" ".join(words))
        if k == len(toks):
            return names
        if toks[k].cls != "&":
            return None
        k += 1
        if k < len(toks) and not _name_like(toks[k].text.lstrip("@")):
            return names if toks[k - 1].low == "," else None  # "Hiroshi, ETA two weeks"
    return None


# Frames that say a named item cannot move: in an issue comment it is the item a
# subjectless "Depends on #7" / "Blocked by #7" line speaks for (see ``reader.extract``).
_STUCK_FRAMES = frozenset(
    {"x-cannot-move-until-y", "cannot-move-x-until-y", "x-cannot-move", "x-is-stalled"}
)


# A phrasal verb with its object inside: "took the billing cron over", "picking X back up",
# "rolled the flag out". The particle must end the phrase, so "took the call on Monday"
# stays as it is.
_SPLIT_PHRASAL = re.compile(
    r"\b(?P<v>pick(?:ing|ed|s)?|tak(?:e|es|ing|en)|took|hand(?:ing|ed|s)?|wrap(?:ping|ped|s)?"
    r"|roll(?:ing|ed|s)?|clos(?:e|es|ing|ed)|spin(?:ning|s)?|spun|kick(?:ing|ed|s)?"
    r"|push(?:ing|ed|es)?|ship(?:ping|ped|s)?)\s+(?P<o>(?:the|our|my|a|an|his|her|their|PR"
    r"|[A-Z][A-Z0-9]+-\d+|#\d+)\b(?:(?!\s(?:since|because|while|when|so|but|to|I|I'm|we"
    r"|we're|he|she|they)\b)[^,;:.!?()]){0,50}?)\s+(?:back\s+)?(?P<p>up|over|out|off)"
    r"(?=\s*(?:$|[,;.!)—–-]|and\b|from\b|to\b|today|now|again|yesterday|last\b|this\b))"
)


# An idiom of finishing with its object inside: "put the eviction bug to bed", "squared the
# vendor contract away", "got the permissions fix in", "knocked the flaky tests out". The
# object is moved after the idiom, which the lexicon reads as a completion.
_SPLIT_DONE = re.compile(
    r"\b(?P<v>put|putting|puts|got|get|gets|getting|knock(?:ed|s|ing)?|cross(?:ed|es|ing)?"
    r"|tick(?:ed|s|ing)?"
    r"|square(?:d|s)?|squaring|polish(?:ed|es|ing)?)\s+(?P<o>(?:the|our|my|a"
    r"|an|his|her|their|PR|[A-Z][A-Z0-9]+-\d+|#\d+)\b[^,;:.!?()]{0,50}?)\s+"
    r"(?P<p>to bed|through|in|out|away|off|up)(?:\s+(?:the|my|our)\s+(?:list|board|to-?do list))?"
    r"(?=\s*(?:$|[,;.!)—–-]|and\b|today|tonight|now|finally|yesterday|last\b|this\b|on\b"
    r"|before\b|ahead\b))"
)
# "LEDG-77 landed on my plate", "the rework ended up on Mira's plate": whose it now is.
# "... is in Sunita's hands" likewise.
_ON_PLATE = re.compile(
    r"\b(?:landed|lands|ended up|ends up|is|are|was|were|fell|falls|now sits|sits|went)"
    r"(?:\s+(?:now|squarely|firmly))?\s+(?:(?:on|onto)\s+(?P<o>my|our|[A-Z][\w-]*['’]s)\s+plates?"
    r"|in\s+(?P<h>my|our|[A-Z][\w-]*['’]s)\s+(?:capable\s+)?hands)\b"
)


# "running a week late", "running two days behind": how late, not who runs it
_RUNNING_LATE = re.compile(
    r"\brunning\s+(?:(?:a|an|one|two|three|four|a few|\d+)\s+(?:\w+\s+)?(?:days?|weeks?"
    r"|months?|hours?|sprints?|bit|little)\s+)?(?:late|behind)\b"
)
# "Odile has that on her plate", "Piet has the kiln audit on his plate": "Piet has X".
_HAS_ON_PLATE = re.compile(
    r"\b(?P<v>has|have|had)\s+(?P<x>(?:it|that|this|them|that one|the\s[^,;.!?]{1,40}?"
    r"|[A-Z][A-Z0-9]+-\d+|#\d+))\s+on\s+(?:his|her|their|my|our)\s+plates?\b"
    r"(?:\s+(?:for\s+)?(?:this|next|the)\s+(?:sprint|week|month|quarter|cycle)\b|\s+for(?=\W*\Z))?"
)


def _on_plate(m: re.Match[str]) -> str:
    owner = m["o"] or m["h"]
    return {"my": "is mine", "our": "is ours"}.get(owner, f"is {owner}")


# "tagged v2.3.1", "cut the 4.2 release", "the release branch was cut": a release made.
_RELEASE_CUT = re.compile(
    r"\b(?:tagged|tag|tagging)\s+(?=v?\d)|\bcut\s+(?=(?:the\s+|a\s+|our\s+)?(?:v?\d[\w.-]*\s+)?"
    r"(?:release|rc|release candidate|release branch|hotfix release|patch release)\b)"
    r"|(?:(?<=release)|(?<=branch))\s+(?:was|were|has been|got)\s+cut\b",
    re.IGNORECASE,
)
# "marked PROJ-12 as done": the item finished
_MARKED_DONE = re.compile(
    r"\bmark(?:ed|ing)?\s+(?P<o>(?:the|our|my|[A-Z][A-Z0-9]+-\d+|#\d+)\b[^,;:.!?()]{0,50}?)\s+"
    r"(?:as\s+)?(?:done|complete|completed|resolved|fixed|closed)\b"
)


def _release_cut(text: str) -> str:
    """The ways a release is made, as "released X" / "X was released"."""
    text = _MARKED_DONE.sub(lambda m: f"completed {m['o']}", text)
    return _RELEASE_CUT.sub(
        lambda m: " was released" if m.group(0).lstrip()[:1] in "whg" else "released ", text
    )


_DONE_PARTICLE = {
    "put": "to bed",
    "get": "in",
    "got": "in",
    "knock": "out",
    "cross": "off",
    "tick": "off",
    "square": "away",
    "polish": "off",
}


def _done_split_hint(text: str) -> bool:
    """Whether a split idiom of finishing may be in the text: its verb and its particle."""
    if " off" in text:
        return "cross" in text or "tick" in text or "polish" in text
    if ("got " in text or "get " in text) and (" in" in text or " out" in text):
        return True
    return ("put " in text and " bed" in text) or (
        ("knock" in text and " out" in text) or ("quar" in text and " away" in text)
    )


def _split_done(text: str) -> str:
    """ "put X to bed" -> "put to bed X" when the verb and its particle make an idiom of
    finishing (``_DONE_PARTICLE``); any other verb-particle pair is left as written."""
    m = _SPLIT_DONE.search(text)
    if m is None:
        return text
    verb = m["v"].lower()
    stem = next((k for k in _DONE_PARTICLE if verb.startswith(k)), "")
    if _DONE_PARTICLE.get(stem) != m["p"] and not (stem in ("get", "got") and m["p"] == "out"):
        return text
    head = "got" if stem in ("get", "got") and m["p"] == "in" else m["v"]
    tail = "merged" if head == "got" else f"{m['p']} {m['o']}"
    moved = f"{head} {m['o']} {tail}" if head == "got" else f"{m['v']} {tail}"
    return f"{text[: m.start()]}{moved}{text[m.end() :]}"


# "ops rolled it out", "wrapped that up": the pronoun is the object of the phrasal verb
_SPLIT_PRONOUN = re.compile(
    r"\b(?P<v>roll(?:ed|s|ing)?|wrap(?:ped|s|ping)?|ship(?:ped|s|ping)?|push(?:ed|es|ing)?"
    r"|sort(?:ed|s|ing)?)\s+(?P<o>it|that|this|them)\s+(?P<p>out|up)\b"
)


_HEADING_NP = re.compile(r"n+(?:p?n+)*")
# Plural heads a done label may qualify: "Key milestones achieved:", "Items delivered:".
_DONE_LIST_HEADS = frozenset(
    "milestones items tasks deliverables tickets stories features changes goals objectives"
    " things epics".split()
)


def _label_relation(label: str) -> str | None:
    """The relation a label introduces ("Done:" done), also when a done word follows a
    plural head it qualifies ("Key milestones achieved:" is "Done:")."""
    relation = _LABEL_RELATIONS.get(label)
    if relation is None and " " in label:
        words = label.split()
        if _LABEL_RELATIONS.get(words[-1]) == "done" and words[-2] in _DONE_LIST_HEADS:
            return "done"
    return relation


_LABEL_RELATIONS = {
    **dict.fromkeys(
        ["owner", "owners", "owned by", "dri", "assignee", "assigned to", "lead"], "owner"
    ),
    **dict.fromkeys(
        ["blockers", "blocker", "blocked on", "blocked by", "waiting on", "waiting for"]
        + ["depends on"],
        "blocker",
    ),
    **dict.fromkeys(
        ["done", "shipped", "completed", "complete", "finished", "landed", "merged", "released"]
        + ["deployed", "launched", "cancelled", "canceled", "closed", "fixed"]
        + ["delivered", "achieved", "accomplished", "resolved", "rolled out", "wrapped up"],
        "done",
    ),
    "blocked": "blocked",
    "unblocked": "unblocked",
    **dict.fromkeys(
        ["working on", "wip", "in progress", "current work", "current focus", "focus", "doing"],
        "doing",
    ),
}


_UNBLOCK_HINT = re.compile(
    r"\bunblock|\bno longer (?:blocked|stuck|waiting)|\bclear to\b|\bgood to go\b|\bcan (?:now )?"
    r"(?:proceed|move|go ahead|start)\b"
)
_NOT_TOPICS = frozenset("bumping bump pinging ping nudge nudging reminder gentle reminder".split())
_TOPIC_OPENERS = frozenset("update updates status news regarding about".split())
_ASKING = frozenset("anyone anybody does do did can could would any".split())
_DEFERRED = frozenset(
    "deferred postponed delayed suspended halted deprioritised deprioritized rescheduled".split()
)
_THANKS = frozenset("thanks thank thx ty kudos cheers shoutout props".split())
_LEAD_WAIT = frozenset({"pending", "awaiting", "pending on"})
_LEAD_CAUSE = re.compile(r"(?:owing|due) to|because of|given|in light of|as a result of")


def _lead_blocker(toks: list[_Tok]) -> list[_Tok] | None:
    """The blocker an opening phrase names: "Pending Y," or "Owing to a dependency on Y,"."""
    if len(toks) > 1 and toks[0].low in _LEAD_WAIT and all(t.cls in "n&p" for t in toks[1:]):
        return toks[1:]
    if len(toks) > 2 and toks[0].low in ("until", "till"):  # "Until Y concludes, X is paused"
        rest = toks[1:]
        while len(rest) > 1 and (
            rest[-1].cls in "xDE"
            or rest[-1].low in _DONE_PRESENT
            or (rest[-1].cls == "n" and rest[-1].low.endswith("ed") and rest[-2].cls == "x")
        ):
            rest = rest[:-1]
        if len(rest) < len(toks) - 1 and all(t.cls in "n&p" for t in rest):
            return rest
    for k, tok in enumerate(toks[:5]):
        if tok.cls == "Y":
            opening = " ".join(t.low for t in toks[:k])
            rest = toks[k + 1 :]
            if _LEAD_CAUSE.match(opening) and rest and all(t.cls in "n&p" for t in rest):
                return rest
    return None


_TEAM_HEADS = frozenset(
    "group team office board committee unit squad guild department dept".split()
)


def _joint_team(toks: list[_Tok], k: int) -> bool:
    """Whether the "&" at ``k`` joins the two words of one team's name ("Security &
    Compliance group"): a capitalised word each side, then a team head."""
    return (
        0 < k < len(toks) - 2
        and toks[k - 1].text[:1].isupper()
        and toks[k + 1].text[:1].isupper()
        and any(t.low in _TEAM_HEADS for t in toks[k + 2 : k + 4])
    )


def _label_list(toks: list[_Tok]) -> str:
    """The items after a label, each read as a noun phrase, joined by commas."""
    text, toks = _rebase(toks)
    parts: list[list[_Tok]] = [[]]
    for k, tok in enumerate(toks):
        if (
            tok.low in (",", "&", "+", "/", "and", ";")
            and not (tok.low in ("and", "&") and any(t.low == "between" for t in parts[-1]))
            and not (
                tok.low == "&" and _joint_team(toks, k)  # "by the Safety & Estates team"
            )
        ):  # "mTLS between the gateway and billing" is one item
            parts.append([])
        else:
            parts[-1].append(tok)
    return ", ".join(_noun_phrase(*_trimmed(part, text)) for part in parts if part)


# Labels whose list names what others did or hold up, not the writer's work in hand.
_LABELS_OF_OTHERS = frozenset({"blocked", "unblocked", "blocker", "done", "owner"})
_BLOCKED_LABEL = re.compile(
    r"(?P<s>.+?)\s*(?:\bon|\bby|\bbehind|\bpending|\buntil|->|,|\bneeds|\brequires"
    r"|\bdepends on|\bwaits (?:on|for))\s+(?:waiting (?:on|for)\s+)?(?P<t>.+?)(?:\s+first)?"
)


# "Today: carrying on with the X", "following up on the X", "knocking out the X": the
# activity's verb, with its particle and preposition, ahead of the item's determiner.
ACTIVITY_OPENER = re.compile(
    r"\A(?:(?:still|continuing|back)\s+(?:on\s+)?)?(?:\w+ing)"
    r"(?:\s+(?:on|up|out|away|through|back|in|off|over|down))?"
    r"(?:\s+(?:with|on|at|to|into|through|for|about))?"
    r"\s+(?=(?:the|a|an|our|my|some|their|this|that|these|those)\s)|"
    r"\A(?:back on|more|continuing|finishing up|on)\s+",
    re.IGNORECASE,
)


_LIST_PARTS = re.compile(r"\s*[,;]\s*|\s+and\s+(?=\S)")


def _owned_parts(reader: _Reader, text: str) -> _Outcome | None:
    """A work-in-hand list whose entries name their own owners, as "X (Name)" becomes
    "X by Name": each owner owns their entry, the writer the entries with no name. None
    when no entry names a person or team (the list is the writer's)."""
    out = _Outcome()
    named = False
    for part in _LIST_PARTS.split(text):
        item, _, who = part.partition(" by ")
        who = who.strip(" .")
        if who and not _agent_shaped(who, strict=True):
            return None  # "migration of X by the end of May": no owner
        named = named or bool(who)
        one = reader.owns(who or None, ACTIVITY_OPENER.sub("", item, count=1))
        if one is not None:
            out.drafts += one.drafts
            out.items += one.items
            out.people += one.people
            out.teams += one.teams
    return out if named else None


def _read_label(reader: _Reader, relation: str, text: str) -> _Outcome | None:
    """A list after a relation label: "Owner: Priya", "Blockers: X, Y", "Done: X"."""
    if relation == "owner":
        out = reader.owns(text, None)
    elif relation == "blocked":  # "Blocked: on the access request", "Blocked: X on Y"
        if m := re.match(r"(?:on|by|waiting on|waiting for)\s+(?P<t>.+)", text):
            out = reader.blocked(None, m["t"])
        elif m := _BLOCKED_LABEL.fullmatch(text):
            out = reader.blocked(m["s"], m["t"])
        else:
            out = reader.stalled(text)
            if out is not None:
                out.frame = "blocked-label"
                return out
    elif relation == "unblocked":  # "Unblocked: replay tool" (from what it waited on)
        out = reader.unblocked(text, None)
    elif relation == "blocker":
        text = re.sub(r"^(?:on|by|behind|waiting on|waiting for)\s+", "", text)
        out = reader.blocked(None, text)
    elif relation == "done":  # "Shipped: bulk import by Arnav, SSO by Ruth & Gideon"
        if re.match(r"(?:nothing|none|no|n/a)\b", text, re.IGNORECASE):
            return None  # "Done: nothing shippable, spent the day profiling"
        out = _Outcome()
        last_item: str | None = None
        for part in text.split(", "):
            item, _, doer = part.partition(" by ")
            if cut := _DESTINATION.search(item):
                item = item[: cut.start()]  # "migration of X to the new region by Y"
            if not doer and last_item and _agent_shaped(item, strict=True):
                item, doer = last_item, item  # "SSO by Ruth & Gideon": Gideon too
            elif doer:
                last_item = item
            one = reader.completed(doer or None, item)
            if one is not None:
                out.drafts += one.drafts
                out.items += one.items
                out.people += one.people
                out.teams += one.teams
    elif " by " in text and (named := _owned_parts(reader, text)) is not None:
        out = named  # "In progress: the glaze audit (Odile), kiln log (Piet)"
    else:
        out = reader.owns(None, ACTIVITY_OPENER.sub("", text, count=1))
        owned = [d.target for d in out.drafts if d.relation is Relation.OWNS] if out else []
        if out is not None and len(owned) == 1 and reader.author_ref is not None:
            out.current.append((reader.self_key, owned[0]))  # "WIP: X": the author's now
    if out is None or not out.drafts:
        return None
    out.frame = f"{relation}-label-list"
    return out


_COUNTS = frozenset("two three four five six several multiple both".split())
_SOME_THINGS = frozenset(
    "things items dependencies blockers prerequisites pieces bits following".split()
)


def _lift_asides(parts: list[_Clause]) -> list[_Clause]:
    """ "waiting on X, owned by T, for Z": the aside about X is read after the clause it
    interrupts, which is read whole ("waiting on X for Z")."""
    out: list[_Clause] = []
    i = 0
    while i < len(parts):
        clause = parts[i]
        if (
            out
            and clause.kind == ","
            and clause.toks
            and clause.toks[0].cls == "o"
            and i + 1 < len(parts)
            and parts[i + 1].kind == ","
            and parts[i + 1].toks
            and parts[i + 1].toks[0].cls == "p"
        ):
            host = out[-1]
            antecedent = _trailing_np(host.toks)
            out[-1] = _Clause(host.kind, host.toks + parts[i + 1].toks, host.antecedent)
            out.append(_Clause(",", clause.toks, antecedent))
            i += 2
            continue
        if (
            out
            and clause.kind in _DASHES
            and i + 1 < len(parts)
            and parts[i + 1].kind == clause.kind
            and out[-1].toks
            and all(t.cls in "n&p" for t in out[-1].toks)
            and clause.toks
            and all(t.cls in "n&p" for t in clause.toks)
            and parts[i + 1].toks
            and parts[i + 1].toks[0].cls not in "n&p|"
        ):  # "the rubric revision — the piece the board asked for — can't go ahead until
            # X": the aside between dashes names the subject again; the predicate is its
            host = out[-1]
            subject = clause.toks if any(t.cls == "&" for t in clause.toks) else host.toks
            out[-1] = _Clause(host.kind, subject + parts[i + 1].toks, host.antecedent)
            i += 2  # (an aside that lists the subject's members names who waits: "the
            continue  # three reports — A, B and C — wait on X")
        out.append(clause)
        i += 1
    return out


_DASHES = frozenset({"—", "–"})
# What is not done yet: "design has not finalised the empty states" (o), "the vendor patch
# is not out yet" (y)
_UNDONE = re.compile(rf"n{{1,3}}x+Nx*D(?P<o>{_NP})|(?P<y>{_NP})x*Nx*[DE]")
# "the permit has to land first" (y: what has to happen first)
_FIRST_NEEDED = re.compile(rf"(?P<y>{_NP})x*q")
# "then the boiler swap can start", "and only then can X ship" (s: what waits)
_THEN_MOVES = re.compile(rf"(?P<s>{_NP})Mn")
_THEN_KINDS = frozenset({"then", ",", "and", "so", ";", "—", "–"})
_MOVE_VERBS_NOW = frozenset(
    "start begin proceed move ship launch resume continue merge land deploy release".split()
)
# Punctuation between "X is unblocked" and the clause that says why: "X is unblocked: the
# ledger API shipped", "X is unblocked — Y went out", "X's unblocked, Y came through".
_BREAKS = frozenset({",", "—", "–", ";", "-", ":"})
# An arrival: "the permit came through", "the figures came back from audit" (y: what came).
_ARRIVED = re.compile(rf"(?P<y>{_NP})x*e(?:p[n&p]*n)?")


def _join_colon_lists(parts: list[_Clause]) -> list[_Clause]:
    """ "X is waiting on two things: A and B" / "... two things - A and B": the list after
    the colon or dash is the blocker."""
    out: list[_Clause] = []
    skip = False
    for i, clause in enumerate(parts):
        if skip:
            skip = False
            continue
        toks = clause.toks
        nxt = parts[i + 1] if i + 1 < len(parts) else None
        if (
            nxt is not None
            and nxt.kind in (":", "—", "–", "-", ",")
            and len(toks) >= 2
            and (
                toks[-1].low in _SOME_THINGS
                or (  # "the single blocker for three workstreams: A, B and C"
                    nxt.kind == ":"
                    and toks[-2].low in _COUNTS
                    and toks[-1].low.endswith("s")
                    and len(toks[-1].low) > 3
                )
            )
        ):
            k = len(toks) - 1
            while k and toks[k - 1].cls == "n" and toks[k - 1].low not in _DETERMINERS:
                k -= 1
            if k and toks[k - 1].cls in "WRK":
                out.append(_Clause(clause.kind, toks[:k] + nxt.toks))
                skip = True
                continue
        if nxt is not None and nxt.kind in (":", "—", "–", "-") and nxt.toks:
            k = next((j for j, t in enumerate(toks) if t.cls != "n"), len(toks))
            rest = clause.classes[k:].lstrip("x")
            after = parts[i + 2].kind if i + 2 < len(parts) else ""
            if (
                2 <= k <= 4
                and toks[k - 1].low in _SOME_THINGS
                and rest[:1] == "K"
                and after not in _RELATIVE  # "..., and B that SRE runs": B's, kept in place
            ):
                # "Two things are holding up X: A and B": A and B hold up X
                out.append(_Clause(clause.kind, nxt.toks + toks[k:]))
                skip = True
                continue
        out.append(clause)
    return out


def _past_verb(toks: list[_Tok]) -> int | None:
    """Where a past verb outside the lexicon follows a short subject and comes before an
    object: "finance approved the rate card", "ops rotated the keys" (else None)."""
    verb = next((k for k, t in enumerate(toks[:4]) if k and t.low.endswith("ed")), None)
    if verb is None or verb + 1 >= len(toks) or toks[verb + 1].cls != "n":
        return None
    if any(t.cls != "n" for t in toks[:verb]) or toks[0].low in _DETERMINERS:
        return None  # "the approved rate card": no subject before the verb
    return verb


def _agent_acted(reader: _Reader, toks: list[_Tok]) -> _Outcome | None:
    """ "Hee-won pushed the driver image" in a "now that" clause: a person finished it."""
    verb = next((k for k, t in enumerate(toks) if k and t.low.endswith("ed")), None)
    if verb is None or verb + 1 >= len(toks) or verb > 3:
        return None
    who = _rebase(toks[:verb])[0]
    if not _agent_shaped(who, strict=True):
        return None
    out = reader.completed(who, _rebase(toks[verb + 1 :])[0])
    if out is None or not out.drafts:
        return None
    out.frame = "now-that-y-did-x"
    return out


def _past_waits_end(reader: _Reader, outcomes: list[_Outcome], past_waits: list[_Outcome]) -> None:
    """ "The dashboard was waiting on it, so @lee you're unblocked": the wait is over. The
    item no longer waits on its blocker, and the person told so is no fact of their own."""
    for out in past_waits:
        ended = [d for d in out.drafts if d.relation is Relation.BLOCKED_BY]
        out.drafts = [
            replace(d, relation=Relation.UNBLOCKED_FROM) if d in ended else d
            for d in out.drafts
            if not (d.tentative and any(e.source == d.target for e in ended))
        ]
        for d in ended:
            waits = reader.waits.get(_key(d.source), [])
            if d.target in waits:
                waits.remove(d.target)
    for out in outcomes:
        if out not in past_waits and "unblocked" in out.frame:
            out.drafts = [
                d
                for d in out.drafts
                if not (d.relation is Relation.UNBLOCKED_FROM and d.source.type is not ITEM_TYPE)
            ]


# Subordinators of a subjectless gerund adjunct: "after driving it through the tests".
_ADJUNCTS = frozenset({"after", "before", "while", "when", "since", "by"})


_GO_PRESENT = frozenset({"go", "goes", "going", "roll", "rolls", "rolling"})
# What makes "not blocked" an unblock: "not stuck anymore", "now that", "since X landed".
_ANY_MORE = re.compile(r"\bany ?more\b|\bnow\b|\bsince\b|\bagain\b", re.IGNORECASE)


def _adjunct_doer(reader: _Reader, out: _Outcome, outcomes: list[_Outcome]) -> None:
    """A subjectless adjunct ("Eun-ji shipped X, after driving it through the tests")
    shares the main clause's subject: the person or team named there, not the author."""
    main = outcomes[-1]
    agents = [
        d.source
        for d in main.drafts
        if d.source.type is not EntityType.WORK_ITEM and d.source != reader.author_ref
    ]
    if not agents:
        return
    out.drafts = [
        replace(d, source=agents[0], tentative=False)
        if d.relation in (Relation.OWNS, Relation.COMPLETED)
        and d.source.type is not EntityType.WORK_ITEM
        else d
        for d in out.drafts
    ]


def _drop_implied_waits(reader: _Reader, out: _Outcome, outcomes: list[_Outcome]) -> None:
    """ "still waiting on Y, which the headers need": the item named in the relative clause
    is what waits, so the author's own wait on Y (read first, for want of a waiter) goes."""
    targets = {d.target for d in out.drafts if d.relation is Relation.BLOCKED_BY}
    for o in outcomes:
        o.drafts = [
            d
            for d in o.drafts
            if not (
                d.relation is Relation.BLOCKED_BY
                and d.source == reader.author_ref
                and d.target in targets
            )
        ]


_BY_AGENT = re.compile(
    r"(?P<verb>[a-z]+)(?:\s+(?P<particle>out|up|through|over))?\s+by\s+(?P<agent>@?[^\W\d_]"
    r"[\w-]*(?:\s+(?!(?:in|on|at|for|to|with|via|and|last|this|next|yesterday|today|early"
    r"|late)\b)[^\W\d_][\w-]*){0,3})"
)


_SUBJECTLESS = re.compile(r"(?:\band\s+(?:was|were|has been|have been|got)\s+|\(\s*)\Z")
_CLAUSE_CUT = re.compile(r"[,;:—–()]|\s(?:and|but|so)\s")


def _passive_agent_did(reader: _Reader, text: str, outcomes: list[_Outcome]) -> None:
    """A completion with no doer shares the agent of a completing passive in its sentence:
    "X finished in March and was delivered by the Core team", "the bug was fixed by @ravi
    in PR #77, which got merged", "the move is complete; all topics were migrated by the
    streaming team". The agent, not the author, did the work."""
    defaults = [d for o in outcomes for d in o.drafts if d.by_default]
    if not defaults:
        return
    table = _table()
    for m in _BY_AGENT.finditer(text):
        verb = m["verb"] if m["particle"] is None else f"{m['verb']} {m['particle']}"
        if table.get(verb) != "D" or _TICKET.match(text, m.start("agent")):
            continue  # "resolved by PR #62": the PR is how, not who
        if text.startswith(("'s", "’s"), m.end("agent")):
            continue  # "fixed by kaveh's PR": the PR did it
        subjectless = _SUBJECTLESS.search(text, 0, m.start()) is not None
        clause = _CLAUSE_CUT.split(text[m.end("agent") :], 1)[0].lower()
        means = {d.target.name.lower() for d in defaults if d.target.name.lower() in clause}
        if not subjectless and not means:
            continue  # "X was retired by SRE, and Y got merged": Y has a subject of its own
        seen = _Outcome()
        agent = reader.agent(m["agent"], seen, loose=True)
        if agent is None or agent == reader.author_ref:
            continue
        for o in outcomes:
            o.drafts = [
                replace(d, source=agent, by_default=False)
                if d.by_default and (subjectless or d.target.name.lower() in means)
                else d
                for d in o.drafts
            ]
            if any(d.source == agent for d in o.drafts):
                o.people += seen.people
                o.teams += seen.teams
        return


def _mention(reader: _Reader, toks: list[_Tok]) -> None:
    """Record a clause's subject as the topic item without stating any fact about it."""
    subject = _leading_np(toks)
    if not subject or len(subject) == len(toks):
        return
    seen = _Outcome()
    text = _rebase(subject)[0]
    if reader.item(_parse_phrase(text), seen) is not None:
        reader.commit(seen, text)


# Work that may go on again, said with "can" and a verb of starting or going on: after a
# clause that names what was done ("Y landed, so X can start"), X no longer waits on Y.
_RESUME_VERBS = (
    r"start|begin|go ahead|go forward|continue|carry on|move|move forward|get going"
    r"|get started|kick off|restart|pick up|be picked up|be picked back up|be started"
    r"|go live|go out|go in|get moving"
)
_RESUMED_SUBJECT = re.compile(
    rf"(?P<s>.+?) can (?:now |again )*(?:{_RESUME_VERBS})"
    r"(?: again| now| ahead| forward| back up| back)*(?: to (?!be\b)\S.*)?"
)
# The first person takes the work up again: "we can get going on X", "I can pick X back up".
_RESUMED_OBJECT = re.compile(
    r"(?:i|we) can (?:now |again |finally )*(?:start on|start|begin|resume|continue with"
    r"|continue on|carry on with|get going on|get going with|get back to|get on with"
    r"|go ahead with|proceed with|kick off|restart|pick up|pick back up|move ahead with"
    r"|move forward with|crack on with) (?P<w>.+?)(?: back up| again| now| today)*"
    r"|(?:i|we) can (?:now |again |finally )*pick (?P<w2>.+?) back up(?: again| now| today)*"
)
_RESUME_CLASSES = re.compile(r"[n&p]*M[nOx&p]*")
# Words that add separate news: "... Also, Piet fixed the door hinge too".
_ADDITIVE = frozenset("too also separately additionally meanwhile elsewhere unrelated".split())
_FREED_KINDS = frozenset({"now that", "since", "because", "as", "after"})
_NOT_FREED = frozenset({"if", "once", "when", "unless", "until", "in case", "whether"})


def _resumed(toks: list[_Tok]) -> str | None:
    """The work a "can start" clause says may now go on (None: not such a clause)."""
    if any(t.cls in "NW" for t in toks):
        return None
    said = " ".join(t.low for t in toks)
    m = _RESUMED_OBJECT.fullmatch(said)
    if m is not None:
        waiter = m["w"] or m["w2"]
        return (
            waiter
            if waiter.split()[0] not in _OBJECT_PRONOUNS
            or waiter
            in (
                "it",
                "that",
                "this",
            )
            else None
        )
    m = _RESUMED_SUBJECT.fullmatch(said)
    if m is None:
        return None
    subject = toks[: len(m["s"].split())]
    if not subject or any(t.cls not in "n&p" for t in subject):
        return None
    if subject[-1].low in ("i", "we", "you", "they", "he", "she", "anyone", "everyone"):
        return None  # "we can start": who may start, not what
    return _rebase(subject)[0] or None


def _consequence(parts: list[_Clause], index: int) -> bool:
    """Whether clause ``index`` follows from the one before: "..., so X can start", "with
    Y signed off, X can start", "now that Y is in, X can start"."""
    kind = parts[index].kind
    if kind == "so":
        return True
    return (
        index > 0
        and kind in (",", "—", "–", ";")
        and parts[index - 1].kind in _FREED_KINDS | {"with"}
    )


def _freed_by_later(parts: list[_Clause]) -> bool:
    """ "X can start now that Y is in": a later clause gives the reason, and no later
    clause makes the start a plan ("X can start once Y lands" is a wait)."""
    kinds = [p.kind for p in parts[1:]]
    return any(k in _FREED_KINDS for k in kinds) and _NOT_FREED.isdisjoint(kinds)


def _add_unblock(
    reader: _Reader, outcomes: list[_Outcome], waiter: str, blocker: str, text: str
) -> None:
    """Emit "waiter unblocked_from blocker" found across a "now that" clause."""
    out = reader.unblocked(waiter, blocker)
    _keep(reader, out, "x-unblocked-now-that-y", text, outcomes)


# A subject with a relative clause whose object is gapped, then the main predicate:
# "the kiln job (that) Odile owns was waiting on X", "the survey it needs was done by
# Piet". The relative clause is one subject (a pronoun or a name) and a verb, with its
# preposition; the main predicate opens with an auxiliary.
_SUBJECT_RELATIVE = re.compile(r"(?P<rel>nx*[OGHQWRD]p?)(?P<main>x+[^x].*)")
_RELATIVE_SUBJECTS = frozenset("i we you he she they it".split())


def _relative_subject(
    reader: _Reader,
    toks: list[_Tok],
    head: list[_Tok],
    main: list[tuple[str, str, re.Pattern[str]]],
    gap: list[tuple[str, str, re.Pattern[str]]],
    outcomes: list[_Outcome],
    text: str,
) -> _Outcome | None:
    """Read "HEAD [that] WHO VERB <main predicate>": HEAD is the subject of the main
    predicate and the gapped object of WHO's verb ("that Odile owns": Odile owns HEAD).
    ``head`` is the antecedent before "that"; empty, it is the clause's own opening noun
    phrase, which ends where the relative clause's subject starts (a contact clause)."""
    classes = "".join(t.cls for t in toks)
    start = 0
    if not head:  # a contact clause: "the survey it needs was done by Piet"
        start = next((i for i, c in enumerate(classes) if c != "n"), 0) - 1
        if start < 2 or classes[start - 1 : start] != "n":
            return None
        head = toks[:start]
    m = _SUBJECT_RELATIVE.fullmatch(classes, start)
    if m is None:
        return None
    who = toks[start]
    if who.low not in _RELATIVE_SUBJECTS and not (
        who.text[:1].isupper() and _agent_shaped(who.text, strict=True)
    ):
        return None
    if not head or head[-1].cls != "n" or head[0].low in _RELATIVE_SUBJECTS:
        return None
    rest = toks[m.start("main") :]
    body, rebased = _rebase(head + rest)
    out = _read(reader, rebased, body, main)
    if out is None:
        return None
    verb = classes[m.end("rel") - 1 if classes[m.end("rel") - 1] != "p" else m.end("rel") - 2]
    if verb in "OGHQD" and who.low not in ("it", "they"):  # not a wait: "it relies on"
        rel_body, rel_toks = _rebase(toks[start : m.end("rel")])
        agent = _read_gap(reader, rel_toks, rel_body, gap, _rebase(head)[0])
        if agent is not None and agent.drafts:
            reader.commit(agent, text)
            outcomes.append(agent)
    return out


def _read_gap(
    reader: _Reader,
    toks: list[_Tok],
    text: str,
    frames: list[tuple[str, str, re.Pattern[str]]],
    antecedent: str,
) -> _Outcome | None:
    """An object-gap relative clause ("which Rohan owns"): the antecedent is the object."""
    classes = "".join(t.cls for t in toks)
    for name, handler, pattern in frames:
        m = pattern.fullmatch(classes)
        if m is None:
            continue
        agent = _span(
            toks, text, m, "s" if handler == "blocked" else "o" if handler == "owns" else "d"
        )
        if agent is None:
            continue
        if handler == "blocked":  # "the config change, which the rate limit headers need"
            if agent.lower() in _PERSONS or _agent_shaped(agent, strict=True):
                continue  # "which we need": a person's wait, read as before
            out = reader.blocked(agent, antecedent)
        elif handler == "owns":
            out = reader.owns(agent, antecedent)
        else:
            out = reader.completed(agent, antecedent)
        if out is not None and out.drafts:
            out.frame = name
            return out
    return None
