"""The Python API: ``memcli.Client``, shaped like the Zep SDK so agent code ports easily.

    client = memcli.Client("memory.db")
    client.graph.add(graph_id="orbit", type="text", data="...", author="Priya")
    client.graph.analyze(graph_id="orbit")
    for obs in client.graph.observation.get_by_graph_id(graph_id="orbit"):
        print(obs.name, [e.id for e in obs.episodes])
    client.graph.search(graph_id="orbit", query="kafka", scope="observations")

It is the library the CLI itself runs on (:mod:`memcli.api` over one open
:class:`~memcli.store.Store`), not a wrapper around the command line: nothing here
spawns a process. Results are the records of :mod:`memcli.contract`, the same models the
CLI's ``--json`` and the MCP server print, so ``obs.model_dump(mode="json")`` is exactly
what ``memcli observations --json`` prints.
Errors are :class:`memcli.errors.MemcliError` subclasses (``NotFound``, ``UsageError``...).
"""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from memcli import api
from memcli.config import resolve_db_path
from memcli.contract import (
    Action,
    AnalyzeResult,
    Blocked,
    Citation,
    Entity,
    EntityRole,
    EntityTimeline,
    Episode,
    EpisodeRef,
    Evidence,
    Fact,
    GraphInfo,
    Observation,
    ObservationDetail,
    ObservationRef,
    Report,
    Retired,
    SearchResult,
    TimelineFact,
)
from memcli.errors import UsageError
from memcli.signatures import SignatureMode
from memcli.store import Store


class ObservationClient:
    """``client.graph.observation``: read observations (they are written by analyze)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(
        self, *, graph_id: str, status: Literal["active", "retired", "all"] = "active"
    ) -> list[Observation]:
        """A graph's observations, most leverage first."""
        return api.observations(self._store, graph_id, status)

    def get(self, id: int) -> ObservationDetail:
        """One observation by id (any status), with its cluster as context."""
        return api.observation(self._store, id)


class EpisodeClient:
    """``client.graph.episode``: the stored updates."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(self, *, graph_id: str, lastn: int | None = None) -> list[Episode]:
        """A graph's episodes, oldest first; ``lastn`` keeps the newest n."""
        return api.episodes(self._store, graph_id, lastn=lastn)

    def get(self, id: int) -> Episode:
        from memcli.errors import NotFound

        found = api.episodes(self._store, ids=[id])
        if not found:
            raise NotFound(f"no episode with id {id}")
        return found[0]


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
        return episode

    def add_batch(
        self, *, graph_id: str, episodes: list[dict[str, Any]], redact: bool = True
    ) -> list[Episode]:
        """Store several memcli JSON episodes in one transaction, secrets redacted
        unless ``redact=False``."""
        return api.add(self._store, graph_id, episodes, type="json", redact=redact)

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
        return report.record()

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
        return api.search(
            self._store, graph_id, query, scope=scope, limit=limit, include_ended=include_ended
        )

    def entity_timeline(self, *, graph_id: str, name: str) -> EntityTimeline:
        """Every fact about one entity (current and ended) in world-time order."""
        return api.entity_timeline(self._store, graph_id, name)

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
        return api.report(self._store, graph_id, since=when, record=record)

    def visualize(
        self, *, graph_id: str, format: Literal["mermaid", "dot", "html"] = "mermaid"
    ) -> str:
        """The dependency graph as Mermaid, Graphviz DOT or a self-contained HTML page."""
        from memcli.visualize import render

        return render(api.dependency_picture(self._store, graph_id), format)

    def list_all(self) -> list[GraphInfo]:
        """Every graph in the database with its counts."""
        return api.graphs(self._store)


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
    "ObservationDetail",
    "ObservationRef",
    "Report",
    "Retired",
    "SearchResult",
    "TimelineFact",
]
