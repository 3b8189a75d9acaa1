"""Plain data shared by every stage of the pipeline.

These types are the contract between the pure core (readers, extractors, resolution,
clustering, writers) and the store. They carry no behaviour beyond validation, so any
stage can be tested with literals and no database.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class EntityType(StrEnum):
    """The three kinds of things a status update talks about."""

    PERSON = "person"
    TEAM = "team"
    WORK_ITEM = "work_item"


class Relation(StrEnum):
    """The closed relation set. Every fact is one of these, directed source -> target.

    ``blocked_by``      source (work item or person) waits on target (work item).
    ``owns``            source (person or team) owns, works on or is assigned target (work item).
    ``completed``       source (person or team) finished, shipped or cancelled target (work item).
    ``unblocked_from``  source (work item or person) no longer waits on target (work item).

    ``completed`` and ``unblocked_from`` record state changes; analysis uses them to end
    earlier ``blocked_by`` facts (see ``memcli.lifecycle``).
    """

    BLOCKED_BY = "blocked_by"
    OWNS = "owns"
    COMPLETED = "completed"
    UNBLOCKED_FROM = "unblocked_from"


class ObservationKind(StrEnum):
    """What pattern an observation names (``memcli.analysis`` decides which)."""

    DEPENDENCY_CHAIN = "dependency_chain"  # one root blocker holding up people and work
    STALE_BLOCKER = "stale_blocker"  # the same root, unconfirmed for --stale-after
    DEPENDENCY_CYCLE = "dependency_cycle"  # work that waits on itself (a deadlock)
    OWNER_BOTTLENECK = "owner_bottleneck"  # one owner of two or more root blockers
    CRITICAL_PATH = "critical_path"  # the longest chain of waits, over two hops
    SHARED_CONTEXT = "shared_context"  # several updates stating the same facts


class ObservationStatus(StrEnum):
    """An observation is active until its evidence no longer supports it."""

    ACTIVE = "active"
    RETIRED = "retired"


class FactStatus(StrEnum):
    """A fact is current until a later update ends it (``invalid_at`` set)."""

    CURRENT = "current"
    ENDED = "ended"


class EvidenceRole(StrEnum):
    """The part an entity or a fact plays in an observation's evidence.

    Entities: ``root`` (the blocker), ``owner`` (owns the root), ``direct`` and
    ``downstream`` (wait on the root, in one step or through other work), ``member``
    (named in a shared context). Facts: ``dependency``, ``ownership``, ``shared``.
    """

    ROOT = "root"
    OWNER = "owner"
    DIRECT = "direct"
    DOWNSTREAM = "downstream"
    MEMBER = "member"
    DEPENDENCY = "dependency"
    OWNERSHIP = "ownership"
    SHARED = "shared"


class SearchScope(StrEnum):
    """What to search: one kind of record, or all of them fused."""

    OBSERVATIONS = "observations"
    FACTS = "facts"
    EPISODES = "episodes"
    ENTITIES = "entities"
    ALL = "all"


# Which entity types each relation accepts at its two ends. Readers of JSON facts and the
# LLM extractor validate against this, so a fact can never be stored half-formed.
RELATION_TYPES: dict[Relation, tuple[frozenset[EntityType], frozenset[EntityType]]] = {
    Relation.BLOCKED_BY: (
        frozenset({EntityType.WORK_ITEM, EntityType.PERSON, EntityType.TEAM}),
        frozenset({EntityType.WORK_ITEM}),
    ),
    Relation.OWNS: (
        frozenset({EntityType.PERSON, EntityType.TEAM}),
        frozenset({EntityType.WORK_ITEM}),
    ),
    Relation.COMPLETED: (
        frozenset({EntityType.PERSON, EntityType.TEAM}),
        frozenset({EntityType.WORK_ITEM}),
    ),
    Relation.UNBLOCKED_FROM: (
        frozenset({EntityType.WORK_ITEM, EntityType.PERSON, EntityType.TEAM}),
        frozenset({EntityType.WORK_ITEM}),
    ),
}


@dataclass(frozen=True, slots=True)
class EntityRef:
    """An entity as written in text: a surface name and a type, not yet resolved."""

    name: str
    type: EntityType


@dataclass(frozen=True, slots=True)
class ExtractedFact:
    """One directed, labelled edge read from one sentence of one episode."""

    source: EntityRef
    relation: Relation
    target: EntityRef
    sentence: str = ""
    # World time the text itself gives for the fact (ISO 8601 UTC); None: the episode's time.
    valid_at: str | None = None
    invalid_at: str | None = None


@dataclass(frozen=True, slots=True)
class SentenceTrace:
    """How one sentence was read: the explainable half of an extraction.

    ``frame`` names the predicate frame that read it (None when nothing did) and
    ``reason`` says why nothing did ("no predicate", "hedged", "question", ...).
    ``cue`` is True when the sentence uses a dependency, ownership or completion word:
    a cue sentence that yields no fact is the one worth a language model's time
    (``--extractor auto`` sends only those).
    """

    sentence: str
    facts: int = 0
    frame: str | None = None
    reason: str | None = None
    cue: bool = False


@dataclass(frozen=True, slots=True)
class Release:
    """An item a sentence says is no longer blocked, without naming what it waited on
    ("The API migration is unblocked.").

    Not a fact: a fact needs a target, and the reader does not know the item's stored
    waits. The store does, so ingest turns a release into one ``unblocked_from`` fact per
    wait of the item valid at its time (``memcli.api.store_episodes``).
    """

    item: EntityRef
    sentence: str
    # World time the text gives for it (ISO 8601 UTC); None: the episode's time.
    valid_at: str | None = None


@dataclass(slots=True)
class Extraction:
    """What an extractor read from one episode, and what it could not read."""

    facts: list[ExtractedFact] = field(default_factory=list)
    unparsed: list[str] = field(default_factory=list)
    # One entry per sentence, in order (empty when the extractor keeps no trace).
    trace: list[SentenceTrace] = field(default_factory=list)
    # "done", or "pending" when a language model could not be used and these are only the
    # rules' facts: ``memcli extract --pending`` retries it later.
    status: str = "done"
    # Items said to be unblocked with no blocker named (``memcli.extract.releases``);
    # only the rules extractor reads them, so every other extractor leaves this empty.
    releases: list[Release] = field(default_factory=list)


@dataclass(slots=True)
class EpisodeInput:
    """One episode as read from a file or stdin, before it is stored."""

    content: str
    author: str | None
    occurred_at: str  # ISO 8601 UTC, "YYYY-MM-DDTHH:MM:SSZ"
    graph: str | None
    source: str
    format: str  # "markdown", "text" or "json"
    facts: list[ExtractedFact] | None = None  # given facts bypass extraction
    line: int | None = None  # line number within a JSONL file
    ignored_keys: tuple[str, ...] = ()  # front-matter / JSON keys memcli does not use
    # False when the update names no time and occurred_at is one memcli supplied (file
    # time, now): then it is not part of the episode's identity (see readers.episode_key).
    dated: bool = True
    # Prefix for bare "#N" work items the reader finds in ``content`` ("acme/api" turns
    # "#12" into "acme/api#12"), so a reference in an issue's text names that repository's
    # issue and not every "#12" of every repository.
    ticket_prefix: str | None = None
    # The work item this text is written on (an issue's body or comment): a wait the
    # reader finds for the author ("Blocked by #40", "I'm waiting on PAY-7") is that
    # item's wait, so issues chain to issues.
    subject: EntityRef | None = None
    # (entity, another name for it) pairs to record, e.g. an issue's title, so that
    # search and lookups by that name find the entity.
    aliases: tuple[tuple[EntityRef, str], ...] = ()
    # Releases given beside given ``facts`` (an export's): given facts are never read
    # for releases, so an exported release travels this way.
    releases: tuple[Release, ...] = ()
