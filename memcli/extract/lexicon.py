"""The predicate lexicon: which words express which relation, in every form.

Each ``Predicate`` row names a lemma, the relation it expresses and how its arguments
sit (``voice``: "active" means subject = the relation's source side for owns/completed
and the blocker for blocks-type verbs, see ``memcli.extract.core``). ``forms`` expands
a verb into its inflections (base, -s, -ed, -ing, past participle) with the irregular
ones listed, so the frame table is written once per lemma rather than once per spelling.

Two derived tables serve the rest of the reader:

* ``CUE``: one compiled alternation of every trigger form, nominal form and label. A
  sentence without a cue costs one regex search and is reported as "no predicate"; a
  sentence with a cue that yields no fact is what ``--extractor auto`` sends to a model.
* ``TYPOS``: misspellings one edit away from a trigger (a dropped, doubled or swapped
  letter: "blokced", "waitng", "depnds") mapped back to the word. Only words of five
  letters or more get variants, and a variant that is itself a common English word is
  never rewritten.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memcli.models import Relation

_IRREGULAR: dict[str, tuple[str, str]] = {  # lemma -> (past, past participle)
    "hold": ("held", "held"),
    "lead": ("led", "led"),
    "take": ("took", "taken"),
    "go": ("went", "gone"),
    "get": ("got", "gotten"),
    "put": ("put", "put"),
    "run": ("ran", "run"),
    "build": ("built", "built"),
    "do": ("did", "done"),
    "sit": ("sat", "sat"),
    "fall": ("fell", "fallen"),
    "drive": ("drove", "driven"),
    "give": ("gave", "given"),
    "hang": ("hung", "hung"),
    "freeze": ("froze", "frozen"),
    "shut": ("shut", "shut"),
    "set": ("set", "set"),
    "have": ("had", "had"),
    "begin": ("began", "begun"),
    "keep": ("kept", "kept"),
    "make": ("made", "made"),
    "write": ("wrote", "written"),
    "send": ("sent", "sent"),
    "bring": ("brought", "brought"),
    "stand": ("stood", "stood"),
    "spin": ("spun", "spun"),
    "cut": ("cut", "cut"),
    "oversee": ("oversaw", "overseen"),
    "undertake": ("undertook", "undertaken"),
    "rebuild": ("rebuilt", "rebuilt"),
    "break": ("broke", "broken"),
    "find": ("found", "found"),
    "win": ("won", "won"),
    "ride": ("rode", "ridden"),
}
_DOUBLE_FINAL = frozenset(
    {"ship", "drop", "stop", "plan", "scrap", "wrap", "gate", "pin", "submit", "commit", "admit"}
    | {"grab", "slip", "chat", "tag", "babysit", "spin", "begin", "cut"}
)


def forms(lemma: str) -> tuple[str, ...]:
    """Base, third person, past, past participle and -ing forms of a (phrasal) verb.

    >>> forms("ship up")
    ('ship up', 'ships up', 'shipped up', 'shipping up')
    >>> forms("hold")
    ('hold', 'holds', 'held', 'holding')
    """
    verb, _, particle = lemma.partition(" ")
    tail = f" {particle}" if particle else ""
    if verb in _IRREGULAR:
        past, participle = _IRREGULAR[verb]
    elif verb.endswith("e"):
        past = participle = verb + "d"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        past = participle = verb[:-1] + "ied"
    elif verb in _DOUBLE_FINAL and not verb.endswith("e"):
        past = participle = verb + verb[-1] + "ed"
    else:
        past = participle = verb + "ed"
    if verb.endswith(("s", "sh", "ch", "x", "z")):
        third = verb + "es"
    elif verb.endswith("y") and verb[-2:-1] not in "aeiou":
        third = verb[:-1] + "ies"
    elif verb in ("go", "do"):
        third = verb + "es"
    elif verb == "have":
        third = "has"
    else:
        third = verb + "s"
    if verb.endswith("ie"):
        ing = verb[:-2] + "ying"
    elif verb.endswith("e") and verb not in ("be", "free") and not verb.endswith("ee"):
        ing = verb[:-1] + "ing"
    elif verb in _DOUBLE_FINAL or verb in ("get", "run", "sit", "set", "shut", "put"):
        ing = verb + verb[-1] + "ing"
    else:
        ing = verb + "ing"
    out = [verb, third, past]
    if participle != past:
        out.append(participle)
    out.append(ing)
    return tuple(dict.fromkeys(f"{w}{tail}" for w in out))


@dataclass(frozen=True, slots=True)
class Predicate:
    """One lexicon row: a lemma, the relation it expresses, and its nominal forms."""

    lemma: str
    relation: Relation
    nouns: tuple[str, ...] = ()


_B, _O, _C, _U = Relation.BLOCKED_BY, Relation.OWNS, Relation.COMPLETED, Relation.UNBLOCKED_FROM

# Verbs (and verb-like adjectives) per relation. Nominal forms ("a blocker for",
# "a prerequisite for") and fixed multiword cues live in the rows' ``nouns``.
LEXICON: tuple[Predicate, ...] = (
    Predicate("block", _B, ("blocker", "blockers", "blockage")),
    Predicate("wait", _B, ("waiting on", "waiting for")),
    Predicate("await", _B),
    Predicate("depend", _B, ("dependency", "dependencies", "dependent", "dependant", "deps")),
    Predicate("stall", _B),
    Predicate("hinge", _B),
    Predicate("gate", _B, ("gating",)),
    Predicate("park", _B),
    Predicate("pause", _B),
    Predicate("freeze", _B, ("frozen",)),
    Predicate("hold up", _B, ("on hold",)),
    Predicate("hold back", _B),
    Predicate("hang up", _B),
    Predicate("require", _B, ("prerequisite", "prereq", "requirement")),
    Predicate("need", _B),
    Predicate("stick", _B, ("stuck",)),
    Predicate("pend", _B, ("pending", "contingent", "reliant", "bottleneck", "behind")),
    Predicate("own", _O, ("owner", "owners", "owned", "dri", "assignee", "action item", "action")),
    Predicate("assign", _O, ("responsible for", "in charge of", "accountable for")),
    Predicate("handle", _O, ("on point", "point person", "the ball", "on the hook")),
    Predicate("drive", _O),
    Predicate("lead", _O),
    Predicate("manage", _O),
    Predicate("work on", _O, ("wip", "in progress")),
    Predicate("pick up", _O),
    Predicate("take over", _O, ("take care of", "taking care of", "took care of")),
    Predicate("take on", _O),
    Predicate("tackle", _O),
    Predicate("task", _O),
    Predicate("belong", _O),
    Predicate("ship", _C, ("done", "complete", "live", "out the door")),
    Predicate("finish", _C),
    Predicate("complete", _C),
    Predicate("merge", _C),
    Predicate("land", _C),
    Predicate("deploy", _C),
    Predicate("release", _C),
    Predicate("launch", _C),
    Predicate("cancel", _C, ("cancelled",)),
    Predicate("wrap up", _C),
    Predicate("roll out", _C),
    Predicate("deliver", _C),
    Predicate("resolve", _C),
    Predicate("fix", _C),
    Predicate("close", _C),
    Predicate("unblock", _U, ("unblocked", "no longer", "unstuck", "off hold")),
)


def _cue_words() -> dict[Relation, list[str]]:
    words: dict[Relation, list[str]] = {}
    for row in LEXICON:
        words.setdefault(row.relation, []).extend((*forms(row.lemma), *row.nouns))
    return words


CUE_WORDS: dict[Relation, tuple[str, ...]] = {
    rel: tuple(dict.fromkeys(ws)) for rel, ws in _cue_words().items()
}


def alternation(words: list[str] | tuple[str, ...]) -> str:
    """A regex alternation of phrases, longest first so multiword cues win."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in ordered)


# The first word of every cue: one set lookup per token decides whether the reader
# should look any further at a sentence (an alternation regex costs ten times more).
CUE_TOKENS: frozenset[str] = frozenset(
    w.split()[0].lower() for ws in CUE_WORDS.values() for w in ws
) - {"on", "the", "in", "out", "no", "action", "behind", "done", "live", "complete"}
_TOKEN = re.compile(r"[a-z]+")


@lru_cache(maxsize=128)
def lower_words(text: str) -> tuple[str, ...]:
    """The runs of letters a-z in the lowercased text.

    The reader's cue screen, ``fix_typos`` and ``has_cue`` each ask for them, mostly of
    the same sentence, so the last few answers are kept (the cache is small: it spares
    the repeats within one update, not across a corpus).
    """
    return tuple(_TOKEN.findall(text.lower()))


def has_cue(text: str) -> bool:
    """Whether a sentence uses a dependency, ownership, completion or unblock word.

    >>> has_cue("Reviewed three PRs."), has_cue("search is gated on the index")
    (False, True)
    """
    return not CUE_TOKENS.isdisjoint(lower_words(text))


# Real words one edit away from a trigger: never "corrected".
_REAL_WORDS = frozenset(
    """
    bocked locked blocks lock clocked flocked socked docked rocked ranking banking waiting
    waning awaiting tanked landed laned lands sipped shipper shippers hipped skipped slipped
    tipped whipped chipped dipped ripped zipped shopped stopped merger mergers emerged
    merged finish fished finished relapsed realised released lease pending spending sending
    ending bending lending tending vending owned owner wined ended depended defended expended
    gated dated rated mated hated stalls stales stale tales stalled installed staled
    locker lockers talled worming working wording worrying
    """.split()
)


def _variants(word: str) -> set[str]:
    out: set[str] = set()
    for i in range(len(word)):
        out.add(word[:i] + word[i + 1 :])  # dropped letter
        out.add(word[:i] + word[i] + word[i:])  # doubled letter
        if i + 1 < len(word):
            out.add(word[:i] + word[i + 1] + word[i] + word[i + 2 :])  # swapped pair
    out.discard(word)
    return out


_FORMS = frozenset(w for ws in CUE_WORDS.values() for w in ws)


def _typo_table() -> dict[str, str]:
    listed = frozenset(
        """
        blocked blocking blocker waiting depends dependent dependency shipped merged finished
        completed deployed released unblocked stalled pending assigned responsible working
        landed launched complete rolled prerequisite ownership resolved handling handled
        driving leading waited awaiting finishing shipping merging deploying releasing
        """.split()
    )
    # every single-word form of every lexicon lemma of five letters or more
    base = listed | frozenset(w for w in _FORMS if " " not in w and len(w) >= 5 and w.isalpha())
    table: dict[str, str] = {}
    clashes: set[str] = set()
    for word in sorted(base):
        for v in _variants(word):
            short = len(v) < 6 and len(v) != len(word)  # only swaps of five-letter words
            if short or len(v) < 5 or v in base or v in _REAL_WORDS or v in _FORMS or v in _COMMON:
                continue
            if v in table and table[v] != word:
                clashes.add(v)
            table[v] = word
    for v in clashes:
        del table[v]
    return table


# Common words one edit away from some trigger form: never rewritten.
_COMMON = frozenset(
    """
    owner owners fished finish leading reading heading beading loading lending needing
    feeding seeding weeding wading fading trading grading shading wedding bedding nodding
    handle candle handed landing standing branding banding bonding binding minding winding
    manage manager damage ships chips clips skips shops shipper drives drivers driver
    arrived derived thrived striving driving diving riving rising risen tasked basked masked
    asked fixes mixes fixed mixed sixes boxed waited wanted wasted waiter waiters baited
    tasks masks lasts pauses causes clauses cause caused pause paused closed cloned
    clones closer closet posed dosed nosed hosed losed loser leased pleased created
    related rated stated states slates plates skates gates dates rates hates mates
    lands bands hands sands wands bland blend blind bland brand grand gland planned
    planed plane planes lanced danced fancied lunched punched bunched hunched launches
    lunches merges verges purges emerge emerges depend spends spend blends lends bends
    tends sends mends needs needle weeds seeds feeds heeds reads leads loads heads beads
    roads toads goads owning owing owed owes bowed towed mowed rowed sowed vowed
    asking compete competed competes competing continent handing laning locking losing
    lunching paring sicked sicking sipping staling taking tacked tacking ticked ticking
    unlock unlocked unlocking unlocks untuck freeing tasing hipping lockage parking unsuck
    salled stalking talking walking waking making baking raking shaking staking closes
    """.split()
)

TYPOS: dict[str, str] = _typo_table()
_WORD = re.compile(r"[A-Za-z]+")
_TYPO_WORDS = frozenset(TYPOS)


def fix_typos(text: str) -> str:
    """Correct misspelt trigger words ("blokced" -> "blocked"); other words are left alone.

    >>> fix_typos("search is blokced on the index, waitng on Dana")
    'search is blocked on the index, waiting on Dana'
    """
    if _TYPO_WORDS.isdisjoint(lower_words(text)):
        return text
    return _WORD.sub(lambda m: TYPOS.get(m.group(0).lower(), m.group(0)), text)
