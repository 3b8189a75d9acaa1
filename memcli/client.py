"""The Python API: ``memcli.Client``, shaped like the Zep SDK so agent code ports easily.

    client = memcli.Client("memory.db")
    client.graph.add(graph_id="orbit", type="text", data="...", author="Priya")
    client.graph.analyze(graph_id="orbit")
    for obs in client.graph.observation.get_by_graph_id(graph_id="orbit"):
        print(obs.name, [e.id for e in obs.episodes])
    client.graph.search(graph_id="orbit", query="kafka", scope="observations")

It is the library the CLI itself runs on (:mod:`memcli.api` over one open
:class:`~memcli.store.Store`), not a wrapper around the command line: nothing here
spawns a process. Results are pydantic models validated from the documented JSON
contract, so ``obs.model_dump()`` is exactly what ``memcli observations --json`` prints.
Errors are :class:`memcli.errors.MemcliError` subclasses (``NotFound``, ``UsageError``...).
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from memcli import api
from memcli.config import resolve_db_path
from memcli.errors import UsageError
from memcli.signatures import SignatureMode
from memcli.store import Store


class _Model(BaseModel):
    # Fields added to the JSON contract later still reach the caller (as attributes).
    model_config = ConfigDict(extra="allow")


class Fact(_Model):
    """A directed, time-stamped edge read from one sentence of one episode."""

    id: int
    source: str
    relation: str
    target: str
    episode_id: int
    valid_at: str
    invalid_at: str | None = None
    sentence: str = ""
    role: str | None = None  # set on an observation's facts: dependency, ownership, shared


class EntityRole(_Model):
    """An entity as part of an observation: root, owner, direct, downstream or member."""

    id: int
    name: str
    type: str
    role: str


class EpisodeRef(_Model):
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


class Observation(_Model):
    """A named pattern bound to the exact episodes, facts and entities that support it."""

    id: int
    graph: str
    name: str
    summary: str
    status: Literal["active", "retired"]
    kind: str
    rank: int  # leverage: people + work items that unblocking the root would clear
    root_entities: list[str]
    entities: list[EntityRole]
    episodes: list[EpisodeRef]
    facts: list[Fact]
    start_at: str | None = None
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


class Evidence(_Model):
    """What a search result rests on, by id, and the files those episodes came from."""

    episode_ids: list[int]
    fact_ids: list[int]
    observation_ids: list[int]
    sources: list[str]


class SearchResult(_Model):
    """One match: what it is, why it matched (``snippet``, words in ``**bold**``), and
    its evidence."""

    type: Literal["observation", "fact", "episode", "entity"]
    id: int
    graph: str
    title: str
    snippet: str
    score: float
    rank: int
    match: Literal["all", "any"]
    status: str | None = None
    date: str | None = None
    evidence: Evidence
    details: dict[str, Any] = Field(default_factory=dict)


class AnalyzeResult(_Model):
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


class Entity(_Model):
    id: int
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list)


class TimelineFact(Fact):
    """A fact in an entity's timeline, with the episode that stated it and, if it has
    ended, the one that ended it."""

    status: Literal["current", "ended"]
    source_type: str
    target_type: str
    episode: EpisodeRef
    invalidated_by: dict[str, Any] | None = None


class EntityTimeline(_Model):
    graph: str
    name: str
    entities: list[Entity]
    facts: list[TimelineFact]


class GraphInfo(_Model):
    graph: str
    created_at: str
    last_ingest_at: str | None = None
    episodes: int
    entities: int
    facts: int
    current_facts: int
    active_observations: int
    last_analyzed_at: str | None = None


class Citation(_Model):
    """An episode cited by the report: id, author, world date, source."""

    episode_id: int
    author: str | None = None
    date: str
    source: str


class Blocked(_Model):
    """Work (or a person) waiting on a root blocker, with its owners and what it waits on."""

    item: str
    type: str
    owners: list[str]
    via: list[str]


class Action(_Model):
    """A root blocker to clear, from the report: who it would unblock and the evidence."""

    observation_id: int
    name: str
    root: str
    root_owners: list[str]
    leverage: int
    people: list[str]
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


class ObservationRef(_Model):
    observation_id: int
    name: str
    kind: str
    status: str
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


class Report(_Model):
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

    def markdown(self) -> str:
        """The report as the Markdown ``memcli report`` prints."""
        from memcli.digest import render_markdown

        return render_markdown(self.model_dump())


class ObservationClient:
    """``client.graph.observation``: read observations (they are written by analyze)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(
        self, *, graph_id: str, status: Literal["active", "retired", "all"] = "active"
    ) -> list[Observation]:
        """A graph's observations, most leverage first."""
        rows = api.observations(self._store, graph_id, status)
        return [Observation.model_validate(r) for r in rows]

    def get(self, id: int) -> Observation:
        """One observation by id (any status)."""
        return Observation.model_validate(api.observation(self._store, id))


class EpisodeClient:
    """``client.graph.episode``: the stored updates."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(self, *, graph_id: str, lastn: int | None = None) -> list[Episode]:
        """A graph's episodes, oldest first; ``lastn`` keeps the newest n."""
        return [Episode.model_validate(r) for r in api.episodes(self._store, graph_id, lastn=lastn)]

    def get(self, id: int) -> Episode:
        from memcli.errors import NotFound

        found = api.episodes(self._store, ids=[id])
        if not found:
            raise NotFound(f"no episode with id {id}")
        return Episode.model_validate(found[0])


class GraphClient:
    """``client.graph``: add updates, analyze, search, report, draw."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self.observation = ObservationClient(store)
        self.episode = EpisodeClient(store)

    def add(
        self,
        *,
        graph_id: str,
        data: str | dict[str, Any],
        type: Literal["text", "json"] = "text",
        author: str | None = None,
        occurred_at: str | datetime | date | None = None,
        source: str | None = None,
        redact: bool = True,
    ) -> Episode:
        """Store one update: plain text (``type="text"``), or one memcli JSON episode
        (``type="json"``: ``content`` and optionally ``author``, ``occurred_at``,
        ``source`` and ``facts``). ``occurred_at`` defaults to now. Adding the same
        update twice stores it once (``created`` is False the second time). Secrets
        (tokens, keys, passwords) are redacted before storage unless ``redact=False``."""
        if type == "json" and isinstance(data, list):
            raise UsageError("data is a list: use client.graph.add_batch(episodes=[...])")
        [episode] = api.add(
            self._store,
            graph_id,
            data,
            type=type,
            author=author,
            occurred_at=occurred_at,
            source=source,
            redact=redact,
        )
        return Episode.model_validate(episode)

    def add_batch(
        self, *, graph_id: str, episodes: list[dict[str, Any]], redact: bool = True
    ) -> list[Episode]:
        """Store several memcli JSON episodes in one transaction, secrets redacted
        unless ``redact=False``."""
        rows = api.add(self._store, graph_id, episodes, type="json", redact=redact)
        return [Episode.model_validate(r) for r in rows]

    def analyze(
        self, *, graph_id: str, force: bool = False, signatures: str = "extended"
    ) -> AnalyzeResult:
        """Cluster the graph's episodes and bring its observations in line with the
        evidence (a no-op when nothing changed, unless ``force``)."""
        try:
            mode = SignatureMode(signatures)
        except ValueError:
            raise UsageError(f"unknown signatures mode {signatures!r}") from None
        report = api.analyze(self._store, graph_id, signatures=mode, force=force)
        return AnalyzeResult.model_validate(report.as_dict())

    def search(
        self,
        *,
        graph_id: str,
        query: str,
        scope: Literal["observations", "facts", "episodes", "entities", "all"] = "observations",
        limit: int = 10,
        include_ended: bool = False,
    ) -> list[SearchResult]:
        """Relevance search (FTS5/BM25); any text is a valid query."""
        rows = api.search(
            self._store, graph_id, query, scope=scope, limit=limit, include_ended=include_ended
        )
        return [SearchResult.model_validate(r) for r in rows]

    def entity_timeline(self, *, graph_id: str, name: str) -> EntityTimeline:
        """Every fact about one entity (current and ended) in world-time order."""
        return EntityTimeline.model_validate(api.entity_timeline(self._store, graph_id, name))

    def report(
        self,
        *,
        graph_id: str,
        since: str | datetime | date | None = None,
        record: bool = False,
    ) -> Report:
        """The digest: blockers by leverage, what is new, what retired and why. Changes
        since ``since``, else since the last recorded report; ``record`` makes this the
        last report (off by default, so an agent does not move a person's mark)."""
        from memcli.readers import to_utc

        when = to_utc(since, source="since") if since else None
        return Report.model_validate(api.report(self._store, graph_id, since=when, record=record))

    def visualize(
        self, *, graph_id: str, format: Literal["mermaid", "dot", "html"] = "mermaid"
    ) -> str:
        """The dependency graph as Mermaid, Graphviz DOT or a self-contained HTML page."""
        from memcli.visualize import render

        return render(api.dependency_picture(self._store, graph_id), format)

    def list_all(self) -> list[GraphInfo]:
        """Every graph in the database with its counts."""
        return [GraphInfo.model_validate(r) for r in self._store.graphs_with_counts()]


class Client:
    """A memcli database, opened for a program or an agent.

    ``db_path`` defaults like the CLI's ``--db``: ``$MEMCLI_DB``, else the per-user data
    file. Use it as a context manager, or call :meth:`close`.
    """

    def __init__(self, db_path: str | Path | None = None, *, create: bool = True) -> None:
        self.db_path = resolve_db_path(db_path)
        self._store = Store(self.db_path, create=create)
        self.graph = GraphClient(self._store)

    @property
    def store(self) -> Store:
        """The open store, for the functions of :mod:`memcli.api`."""
        return self._store

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"memcli.Client({str(self.db_path)!r})"


__all__ = [
    "Action",
    "AnalyzeResult",
    "Blocked",
    "Citation",
    "Client",
    "Entity",
    "EntityRole",
    "EntityTimeline",
    "Episode",
    "EpisodeRef",
    "Evidence",
    "Fact",
    "GraphInfo",
    "Observation",
    "ObservationRef",
    "Report",
    "Retired",
    "SearchResult",
    "TimelineFact",
]
