"""The JSON contract: the records every interface returns, defined once.

``memcli.api``'s read functions build these; the CLI's ``--json`` prints them, the MCP
server returns them and ``memcli.Client`` hands them to Python code, so the three cannot
drift apart. Changes are additions only, each recorded in CHANGELOG.md with the version
that made it.

Two names needed care: an observation's ``rank`` is its leverage (how many people and
work items unblocking its root would clear) and a search hit's ``rank`` is its position
in the results. Both keep ``rank`` for compatibility; ``Observation.leverage`` and
``SearchResult.position`` say the same thing without the ambiguity.

Pure: pydantic models and the enums of :mod:`memcli.models`, no store, no I/O. Importing
it costs pydantic, so the CLI imports it only in the commands that print records.
"""

# No ``from __future__ import annotations`` here: pydantic would have to evaluate every
# field's annotation from a string when each class is created, a cost every command
# that prints records pays at import.

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from memcli.models import (
    EntityType,
    EvidenceRole,
    FactStatus,
    ObservationKind,
    ObservationStatus,
    Relation,
    SearchScope,
)


class Record(BaseModel):
    """Base of every contract record."""

    # A field a newer memcli adds still reaches an older client (as an attribute).
    # Enum fields are validated against their enum but hold the plain string, so a
    # record prints, compares and dumps exactly as the JSON reads.
    # Validators are built when a record type is first used, not at import: a command
    # pays only for the records it prints.
    model_config = ConfigDict(extra="allow", use_enum_values=True, defer_build=True)

    def __getitem__(self, key: str) -> Any:
        """``record["name"]``: read access for code written when :mod:`memcli.api`
        returned dicts (prefer ``record.name``)."""
        try:
            return getattr(self, key)
        except AttributeError:
            raise KeyError(key) from None


# --- facts, entities, episodes ---


class Fact(Record):
    """A directed, time-stamped edge read from one sentence of one episode."""

    id: int
    source: str
    relation: Relation
    target: str
    episode_id: int
    valid_at: str
    invalid_at: str | None = None
    sentence: str = ""
    role: EvidenceRole | None = None  # set on an observation's facts


class StoredFact(Record):
    """A fact as ``memcli facts`` lists it: with entity types, episode and lifetimes."""

    id: int
    source: str
    source_type: EntityType
    relation: Relation
    target: str
    target_type: EntityType
    episode_id: int
    episode_source: str
    author: str | None = None
    valid_at: str
    invalid_at: str | None = None
    created_at: str
    expired_at: str | None = None
    invalidated_by: int | None = None  # the episode that ended it
    sentence: str = ""


class EntityRole(Record):
    """An entity as part of an observation: root, owner, direct, downstream or member."""

    id: int
    name: str
    type: EntityType
    role: EvidenceRole


class Entity(Record):
    """An entity with every name it was written as."""

    id: int
    name: str
    type: EntityType
    aliases: list[str] = Field(default_factory=list)


class EntitySummary(Record):
    """An entity as ``memcli entities`` lists it, with how much is said about it."""

    id: int
    name: str
    type: EntityType
    current_facts: int
    episodes: int
    aliases: list[str] = Field(default_factory=list)
    merged_into: str | None = None
    """The entity this one is merged into (``memcli entity alias``), if any."""


class EpisodeRef(Record):
    """An episode as cited by evidence: where it came from, who wrote it, when."""

    id: int
    source: str
    author: str | None = None
    occurred_at: str


class Episode(EpisodeRef):
    """One stored update with the facts read from it."""

    graph: str
    content: str
    ingested_at: str
    format: str
    extractor: str
    unparsed: list[str] = Field(default_factory=list)
    facts: list[Fact] = Field(default_factory=list)
    created: bool | None = None  # from add(): False when the update was already stored


class GraphInfo(Record):
    """One graph (project) and its counts."""

    graph: str
    created_at: str
    last_ingest_at: str | None = None
    episodes: int
    entities: int
    facts: int
    current_facts: int
    active_observations: int
    last_analyzed_at: str | None = None


# --- observations ---


class Observation(Record):
    """A named pattern bound to the exact episodes, facts and entities that support it."""

    id: int
    graph: str
    name: str
    summary: str
    status: ObservationStatus
    kind: ObservationKind
    rank: int  # leverage (kept under this name for compatibility)
    leverage: int  # people + work items that unblocking the root would clear
    root_entities: list[str]
    entities: list[EntityRole]
    episodes: list[EpisodeRef]
    facts: list[Fact]
    start_at: str | None = None
    valid_from: str | None = None  # world time the pattern formed (what --as-of compares)
    latest_evidence_at: str | None = None
    end_at: str | None = None
    created_at: str
    updated_at: str
    version: int
    retire_reason: str | None = None
    retired_by_episode: int | None = None
    cluster_id: int | None = None
    supersedes: list[int] = Field(default_factory=list)
    superseded_by: list[int] = Field(default_factory=list)
    writer: str = "template"
    stale: bool = False  # a root blocker nobody has confirmed for --stale-after
    confirmed_at: str | None = None  # the latest update that restated the roots
    status_now: ObservationStatus | None = None  # with --as-of: today's (status is then's)

    @property
    def uuid(self) -> str:
        """The id as a string, the name Zep's SDK gives it (``obs.uuid``)."""
        return str(self.id)

    @property
    def uuid_(self) -> str:
        """``obs.uuid_``: the zep-cloud SDK's spelling of :attr:`uuid`."""
        return str(self.id)

    @property
    def episode_ids(self) -> list[int]:
        """The ids of the evidence episodes, oldest first (Zep: ``episode_uuids``)."""
        return [e.id for e in self.episodes]

    @property
    def episode_uuids(self) -> list[str]:
        return [str(e.id) for e in self.episodes]

    @model_validator(mode="before")
    @classmethod
    def _leverage_from_rank(cls, data: Any) -> Any:
        # JSON written before ``leverage`` existed has only ``rank``.
        if isinstance(data, dict) and "leverage" not in data and "rank" in data:
            return {**data, "leverage": data["rank"]}
        return data


class ClusterMember(Record):
    id: int
    name: str
    status: ObservationStatus


class ClusterContext(Record):
    """The other active observations drawn from the same cluster of episodes."""

    id: int | None = None
    observations: list[ClusterMember] = Field(default_factory=list)


class ObservationDetail(Observation):
    """One observation (``memcli observation show``), with its cluster as context."""

    cluster: ClusterContext


class ObservationVersion(Record):
    """One version of an observation (``memcli observation history``)."""

    version: int
    name: str
    summary: str
    kind: ObservationKind
    start_at: str | None = None
    latest_evidence_at: str | None = None
    created_at: str
    episodes: list[int]
    facts: list[int]


# --- entity timeline ---


class TimelineFact(Fact):
    """A fact in an entity's timeline, with the episode that stated it and, if it has
    ended, the one that ended it."""

    status: FactStatus
    source_type: EntityType
    target_type: EntityType
    episode: EpisodeRef
    # {"id", "source"} of the episode that ended it (a dict, as the client always gave it)
    invalidated_by: dict[str, Any] | None = None


class EntityTimeline(Record):
    graph: str
    name: str
    entities: list[Entity]
    facts: list[TimelineFact]


# --- search ---


class Evidence(Record):
    """What a search result rests on, by id, and the files those episodes came from."""

    episode_ids: list[int]
    fact_ids: list[int]
    observation_ids: list[int]
    sources: list[str]


class SearchResult(Record):
    """One match: what it is, why it matched (``snippet``, words in ``**bold**``), and
    its evidence."""

    type: Literal["observation", "fact", "episode", "entity"]
    id: int
    graph: str
    title: str
    snippet: str
    score: float
    rank: int  # position in the results, 1 first (kept under this name for compatibility)
    position: int  # the same: 1 is the best match
    match: Literal["all", "any"]
    status: str | None = None  # an observation's status, or a fact's (current, ended)
    date: str | None = None
    evidence: Evidence
    details: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _position_from_rank(cls, data: Any) -> Any:
        if isinstance(data, dict) and "position" not in data and "rank" in data:
            return {**data, "position": data["rank"]}
        return data


# --- reports of the writing commands ---


class EpisodeCounts(Record):
    new: int = 0
    duplicate: int = 0
    failed: int = 0


class SourceError(Record):
    source: str
    reason: str


class SourceWarning(Record):
    source: str
    message: str


class Redactions(Record):
    source: str
    count: int
    kinds: dict[str, int]


class NotUnderstood(Record):
    source: str
    sentence: str


class Incomplete(Record):
    files_stored: int
    files: int


class IngestResult(Record):
    """What ``memcli ingest`` stored, skipped and could not read."""

    files: int
    files_failed: int
    episodes: EpisodeCounts
    entities_new: int
    facts_new: int
    facts_ended: int
    sentences_not_understood: int
    extraction_pending: int
    graphs: list[str]
    errors: list[SourceError]
    warnings: list[SourceWarning]
    secrets_redacted: int
    redactions: list[Redactions]
    not_understood: list[NotUnderstood]
    incomplete: Incomplete | None = None
    #: merge decisions a person made or undid, recorded from an export (``import``)
    merge_decisions: int = 0


class RereadResult(Record):
    """What ``memcli extract --reread`` changed: stored updates read again with the
    current rules reader."""

    episodes: int
    changed: int
    facts_new: int
    facts_removed: int
    facts_ended: int
    entities_new: int
    left_as_is: int
    graphs: list[str]


class ExtractResult(Record):
    """What ``memcli extract --pending`` retried."""

    episodes: int
    done: int
    still_pending: int
    facts_new: int
    facts_ended: int
    entities_new: int
    graphs: list[str]


class AnalyzeResult(Record):
    """What one analyze pass of one graph created, updated and retired."""

    graph: str
    skipped: bool
    reason: str = ""
    mode: str = ""
    episodes: int = 0
    clusters: int = 0
    multi_episode_clusters: int = 0
    created: list[int] = Field(default_factory=list)
    updated: list[int] = Field(default_factory=list)
    retired: list[int] = Field(default_factory=list)
    unchanged: list[int] = Field(default_factory=list)
    seconds: float = 0.0
    explain: list[str] = Field(default_factory=list)
    merged: list[dict[str, Any]] = Field(default_factory=list)
    """Merges this run made by itself (``memcli.identity``): alias, canonical, reasons."""


# --- the report digest ---


class Citation(Record):
    """An episode cited by the report: id, author, world date, source."""

    episode_id: int
    author: str | None = None
    date: str
    source: str


class Blocked(Record):
    """Work (or a person) waiting on a root blocker, with its owners and what it waits on."""

    item: str
    type: EntityType
    owners: list[str]
    via: list[str]


class Action(Record):
    """A root blocker to clear, from the report: who it would unblock and the evidence."""

    observation_id: int
    name: str
    root: str
    root_owners: list[str]
    root_owner_types: list[EntityType] = Field(default_factory=list)
    leverage: int
    people: list[str]
    teams: list[str] = Field(default_factory=list)  # waiting teams, apart from people
    work_items: list[str]
    direct: list[Blocked]
    downstream: list[Blocked]
    summary: str
    change: Literal["new", "updated"] | None = None
    version: int
    start_at: str | None = None
    latest_evidence_at: str | None = None
    evidence: list[Citation]
    fact_ids: list[int]
    kind: ObservationKind = ObservationKind.DEPENDENCY_CHAIN  # or stale_blocker
    stale: bool = False
    confirmed_at: str | None = None


class ObservationRef(Record):
    observation_id: int
    name: str
    kind: ObservationKind
    status: ObservationStatus
    version: int
    created_at: str
    updated_at: str
    summary: str
    evidence: list[Citation]


class Retired(ObservationRef):
    """An observation retired since the last report, and why."""

    reason: str | None = None
    retired_at: str
    ended_at: str | None = None
    by_episode: Citation | None = None
    superseded_by: list[int] = Field(default_factory=list)


class Report(Record):
    """The digest (``memcli report``): what to act on, what changed, what retired."""

    graph: str
    generated_at: str
    since: str | None = None
    since_source: str
    previous_report_at: str | None = None
    act_on: list[Action]
    new: list[ObservationRef]
    updated: list[ObservationRef]
    retired: list[Retired]
    context: list[ObservationRef]
    clock: Literal["world", "learned"] = "learned"  # how ``since`` was read
    deadlocks: list[ObservationRef] = Field(default_factory=list)
    bottlenecks: list[ObservationRef] = Field(default_factory=list)
    critical_paths: list[ObservationRef] = Field(default_factory=list)

    def markdown(self) -> str:
        """The report as the Markdown ``memcli report`` prints."""
        from memcli.digest import render_markdown

        return render_markdown(self.model_dump(mode="json"))


# --- bounded replies (the MCP tools): compact records, pages and what was left out ---
#
# An agent's context is small: a list tool returns one page of compact records (ids,
# names, a one-line summary, counts) within a character budget, says whether it left
# anything out and where the next page starts; a get tool fetches the detail by id.


class Page(Record):
    """Where a page sits in the whole list, and whether anything was left out."""

    total: int  # items in the whole list
    offset: int = 0  # position of the first item returned
    returned: int = 0
    truncated: bool = False  # True when items after this page (or inside a record) were left out
    next_offset: int | None = None  # pass as ``offset`` for the next page; None at the end


class ObservationBrief(Record):
    """An observation in a list: enough to choose one; fetch the rest by ``id``."""

    id: int
    graph_id: str
    name: str
    summary: str  # the first sentence of the summary
    status: ObservationStatus
    kind: ObservationKind
    leverage: int
    root_entities: list[str]
    entities: int
    episodes: int
    facts: int
    latest_evidence_at: str | None = None
    updated_at: str


class ObservationPage(Page):
    graph_id: str
    observations: list[ObservationBrief] = Field(default_factory=list)


class ObservationView(Observation):
    """One observation with its evidence lists cut to a limit (``*_total`` say how many
    there are; list_episodes with ``observation_id`` pages through the episodes)."""

    graph_id: str
    entities_total: int
    episodes_total: int
    facts_total: int
    truncated: bool = False


class GraphPage(Page):
    graphs: list[GraphInfo] = Field(default_factory=list)


class EpisodeBrief(Record):
    """An episode in a list: who, when, where, the start of its text and its fact count."""

    id: int
    source: str
    author: str | None = None
    occurred_at: str
    excerpt: str  # the first ~200 characters
    facts: int


class EpisodePage(Page):
    graph_id: str
    observation_id: int | None = None
    episodes: list[EpisodeBrief] = Field(default_factory=list)


class SearchHit(Record):
    """A search result with its evidence ids cut to ten of each (``*_total`` say how many)."""

    type: Literal["observation", "fact", "episode", "entity"]
    id: int
    title: str
    snippet: str
    score: float
    position: int
    match: Literal["all", "any"]
    status: str | None = None
    date: str | None = None
    episode_ids: list[int]
    fact_ids: list[int]
    observation_ids: list[int]
    sources: list[str]
    episodes_total: int
    facts_total: int


class SearchPage(Page):
    """One page of search results (``total`` counts those found up to the page's end
    and one more: enough to say whether another page exists). The query is not echoed:
    it may hold what the agent should not see again (a pasted token)."""

    graph_id: str
    scope: str
    results: list[SearchHit] = Field(default_factory=list)


class TimelinePage(Page):
    graph_id: str
    name: str
    entities: list[Entity] = Field(default_factory=list)
    facts: list[TimelineFact] = Field(default_factory=list)


class AnalyzeSummary(Record):
    """An analyze pass in counts, with the ids it created, updated and retired (up to
    ten of each; ``unchanged`` is only counted)."""

    graph_id: str
    skipped: bool
    reason: str = ""
    episodes: int = 0
    clusters: int = 0
    created: list[int] = Field(default_factory=list)
    updated: list[int] = Field(default_factory=list)
    retired: list[int] = Field(default_factory=list)
    created_total: int = 0
    updated_total: int = 0
    retired_total: int = 0
    unchanged_total: int = 0


class AddedEpisode(Record):
    """What add_episode stored (``created`` False: it was already there) and, when it
    analyzed, what that changed."""

    episode: Episode
    analysis: AnalyzeSummary | None = None


class ReportView(Record):
    """The report (:class:`Report`) cut to ``limit`` items a section and a few
    citations an item, with the Markdown of what is shown; ``*_total`` count them all."""

    graph_id: str
    generated_at: str
    since: str | None = None
    since_source: str
    previous_report_at: str | None = None
    act_on: list[Action]
    new: list[ObservationRef]
    updated: list[ObservationRef]
    retired: list[Retired]
    context: list[ObservationRef]
    act_on_total: int
    new_total: int
    updated_total: int
    retired_total: int
    context_total: int
    truncated: bool = False
    markdown: str


__all__ = [
    "TimelinePage",
    "SearchPage",
    "SearchHit",
    "ReportView",
    "Page",
    "ObservationView",
    "ObservationPage",
    "ObservationBrief",
    "GraphPage",
    "EpisodePage",
    "EpisodeBrief",
    "AnalyzeSummary",
    "AddedEpisode",
    "Action",
    "AnalyzeResult",
    "Blocked",
    "Citation",
    "ClusterContext",
    "ClusterMember",
    "Entity",
    "EntityRole",
    "EntitySummary",
    "EntityTimeline",
    "EntityType",
    "Episode",
    "EpisodeRef",
    "Evidence",
    "EvidenceRole",
    "ExtractResult",
    "RereadResult",
    "Fact",
    "FactStatus",
    "GraphInfo",
    "IngestResult",
    "Observation",
    "ObservationDetail",
    "ObservationKind",
    "ObservationRef",
    "ObservationStatus",
    "ObservationVersion",
    "Record",
    "Relation",
    "Report",
    "Retired",
    "SearchResult",
    "SearchScope",
    "StoredFact",
    "TimelineFact",
]
