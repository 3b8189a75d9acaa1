"""Releases: sentences that say an item is no longer blocked without naming its blocker.

"The API migration is unblocked." states a change everyone understands, but it is not a
fact: a fact needs a target, and a sentence read on its own does not know what the item
waited on. The store does, so this module only finds the item (a ``Release``) and ingest
turns it into an ``unblocked_from`` fact for each of the item's waits valid at that time
(``memcli.api.store_episodes``), which then end those waits through the ordinary
contradiction rules.

What counts, after a plain copula ("is", "are", "was", "has been", "'s") and at most an
adverb such as "now" or "finally":

* "X is unblocked", "X is no longer blocked", "X isn't blocked anymore", "X is unstuck";
* "X (now unblocked)" and "X: unblocked", the shapes of a list of items;
* "it's unblocked", "that's unblocked now", where the pronoun is the one item the
  update's facts name as waiting (a ``blocked_by`` source); with none or several, the
  sentence names nothing and is left alone.

What does not: hedges and plans ("should be unblocked soon", "will be unblocked once",
"might be unblocked": the copula must be a plain one, and the rest of the sentence is
checked with the factuality labels), questions, conditions ("once X is unblocked"), and
a sentence that already gave an ``unblocked_from`` fact for the item (it named the
blocker, so it is an ordinary fact). Pure, and linear in the sentence: a cheap
substring test skips nearly every sentence, and each pattern is anchored on a fixed word
with no repetition that can match one stretch of text in two ways.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from memcli.extract.factuality import why_not
from memcli.extract.phrases import _parse_phrase, split_named_items
from memcli.models import EntityRef, EntityType, ExtractedFact, Relation, Release
from memcli.resolve import normalize

# The trace's frame for a sentence read as a release (``--explain`` says so).
RELEASE_FRAME = "release"

# The state itself: unblocked, unstuck, no longer blocked, not blocked anymore.
_FREE = (
    r"(?:unblocked|unstuck|no\s+longer\s+(?:blocked|stuck)"
    r"|not\s+(?:blocked|stuck)\s+any\s?more)"
)
# A plain copula (a modal or "will" never matches: "should be unblocked" is a hedge),
# then at most one adverb that does not weaken it.
_COPULA = r"(?:is|are|was|were|has\s+been|have\s+been|['\u2019]s|['\u2019]re)"
_NEGATED_COPULA = r"(?:isn['\u2019]t|aren['\u2019]t|wasn['\u2019]t|is\s+not|are\s+not)"
_ADVERB = r"(?:(?:now|finally|officially|fully|also|again|completely)\s+)?"
_TAIL = r"(?:\s+(?:now|again|today|as\s+of\s+(?:today|now)))?\s*[.!]*\s*$"

# "X is unblocked", "X isn't blocked anymore": the item is what comes before the match.
_STATED = re.compile(
    rf"(?:\b{_COPULA}\s+{_ADVERB}{_FREE}"
    rf"|\b{_NEGATED_COPULA}\s+{_ADVERB}(?:blocked|stuck)\s+any\s?more){_TAIL}",
    re.IGNORECASE,
)
# "X (now unblocked)", "X: unblocked".
_NOTED = re.compile(
    rf"(?:\(\s*(?:now\s+)?{_FREE}\s*\)|:\s*(?:now\s+)?{_FREE}(?:\s+now)?)\s*[.!]*\s*$",
    re.IGNORECASE,
)
# "it's unblocked", "that is unblocked now": the whole subject is a pronoun.
_PRONOUN = re.compile(r"(?:it|that|this)", re.IGNORECASE)

# Words before the item that make the sentence about something else.
_LEAD = re.compile(
    r"^(?:(?:and|but|so|also|now|finally|today|yesterday|update|good\s+news|fyi|note"
    r"|as\s+of\s+(?:today|now|this\s+\w+|\w+day)|this\s+(?:morning|afternoon|week))\b[\s,:;!-]*)+",
    re.IGNORECASE,
)
_ARTICLE = re.compile(r"^(?:the|our|my|their)\s+", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(
    r"\s[-–—]\s|[:;,]\s|\b(?:so|then|thus|hence|which\s+means)\s", re.IGNORECASE
)
# A subject that opens with a quantifier or a handle ("@mikko you're unblocked": a
# person), or holds a personal pronoun or a subordinator anywhere ("deploy waits until
# the API migration"), is no item's name.
_NOT_AN_ITEM = re.compile(
    r"^(?:everyone|everything|nothing|something|someone|nobody|all|none|who|what|which|@)"
    r"|\b(?:i|we|you|he|she|they|once|when|whenever|if|unless|until|till|after|before"
    r"|as\s+soon\s+as|whether|since|because|while)\b",
    re.IGNORECASE,
)
# The clause breaks before a "X, Y: unblocked" list: its commas separate the items.
_LIST_BREAK = re.compile(r"\s[-–—]\s|[:;]\s|\b(?:so|then|thus|hence|which\s+means)\s", re.I)
_MARKUP = re.compile(r"[*`]+")  # bold and code marks; "_" belongs to names (api_v2)
_ITEM_WORDS = 8  # a longer "item" is a clause, not a name


def find_releases(sentences: Sequence[str], facts: Iterable[ExtractedFact]) -> list[Release]:
    """The releases of one update: its sentences, in order, and the facts read from it.

    A sentence that gave an ``unblocked_from`` fact for the same item (it named the
    blocker) is not a release; the pronoun case needs exactly one waiting item among the
    update's facts.
    """
    candidates = [s for s in sentences if _may_release(s)]
    if not candidates:
        return []
    facts = list(facts)
    unblocked = {(f.sentence, normalize(f.source.name)) for f in facts if _unblocks(f)}
    waiting = {
        normalize(f.source.name): f.source
        for f in facts
        if f.relation is Relation.BLOCKED_BY and f.source.type is EntityType.WORK_ITEM
    }
    only = next(iter(waiting.values())) if len(waiting) == 1 else None
    out: list[Release] = []
    seen: set[str] = set()
    for sentence in candidates:
        for item in release_items(sentence, only):
            key = normalize(item.name)
            if not key or key in seen or (sentence, key) in unblocked:
                continue
            seen.add(key)
            out.append(Release(item, sentence))
    return out


def _may_release(sentence: str) -> bool:
    """A plain substring test that every release passes: nearly every sentence of an
    update fails it, and skips the patterns (ingest reads every sentence)."""
    low = sentence.lower()
    return "unbl" in low or "unstuck" in low or "longer" in low or "more" in low


def _unblocks(fact: ExtractedFact) -> bool:
    return fact.relation is Relation.UNBLOCKED_FROM


def release_item(sentence: str, pronoun: EntityRef | None = None) -> EntityRef | None:
    """The first item ``sentence`` releases, or None (see ``release_items``).

    >>> release_item("The API migration is unblocked.")
    EntityRef(name='API migration', type=<EntityType.WORK_ITEM: 'work_item'>)
    >>> release_item("The API migration should be unblocked soon.") is None
    True
    """
    items = release_items(sentence, pronoun)
    return items[0] if items else None


def release_items(sentence: str, pronoun: EntityRef | None = None) -> list[EntityRef]:
    """The items ``sentence`` releases, in order; none when it is no release.
    ``pronoun``: what "it"/"that" names. A list is several items: "The API migration and
    the billing export are unblocked", "API migration, billing export: unblocked".

    >>> [r.name for r in release_items("The importer and the exporter are unblocked.")]
    ['importer', 'exporter']
    """
    text = sentence.strip()
    # Both patterns end the sentence with "." or "!" at most: a question never matches.
    stated = _STATED.search(text)
    match = stated or _NOTED.search(text)
    if match is None:
        return []
    subject = _MARKUP.sub("", text[: match.start()]).strip(" \t-–—,;:")
    # "Good news: the X is unblocked", "Aiko merged it so X is unblocked": the item
    # follows the last separator or consequence word. Before "X, Y: unblocked" the
    # commas are the list's.
    breaks = _CLAUSE_BREAK if stated is not None else _LIST_BREAK
    subject = breaks.split(subject)[-1].strip()
    subject = _LEAD.sub("", subject).strip()
    if why_not(subject + " is ready") is not None:  # hedged, conditional, reported...
        return []
    if _PRONOUN.fullmatch(subject):
        return [pronoun] if pronoun is not None else []
    if _NOT_AN_ITEM.search(subject):
        return []
    items = [_item(part) for part in split_named_items(subject)]
    if any(i is None for i in items):
        return []
    return list(dict.fromkeys(i for i in items if i is not None))  # "A and B's X": one X


def _item(subject: str) -> EntityRef | None:
    """One listed item's name, or None when it names no item."""
    subject = _ARTICLE.sub("", subject.strip()).strip()
    # "Sebastián's registry mirror": the reader stores a wait on it as Sebastián owning
    # "registry mirror", so the release names that item too.
    phrase = _parse_phrase(subject.replace("\u2019", "'"), target=False)
    if phrase.owners:
        subject = phrase.core
    if (
        not subject
        or _NOT_AN_ITEM.search(subject)
        or len(subject.split()) > _ITEM_WORDS
        or not any(ch.isalnum() for ch in subject)
    ):
        return None
    return EntityRef(subject, EntityType.WORK_ITEM)
