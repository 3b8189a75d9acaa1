"""The Python API: ``memcli.Client``, shaped like the Zep SDK so agent code ports easily.

    client = memcli.Client("memory.db")
    client.graph.add(graph_id="orbit", type="message", data="Priya: I'm blocked on ...")
    for obs in client.observation.get_by_graph_id("orbit", limit=5):
        print(obs.uuid, obs.name, obs.episode_ids)
    results = client.graph.search(graph_id="orbit", query="kafka", scope="edges")
    results.edges  # also .observations, .nodes, .episodes

Adding an update analyzes its graph by default, so observations appear without a
separate call, as in Zep (``Client(..., analyze_on_add=False)`` or ``add(...,
analyze=False)`` to batch the analysis). Ids are ints; strings of digits are accepted
wherever Zep code passes a uuid. :class:`AsyncClient` offers the same calls to async code.

It is the library the CLI itself runs on (:mod:`memcli.api` over one open
:class:`~memcli.store.Store`), not a wrapper around the command line: nothing here
spawns a process. Results are the records of :mod:`memcli.contract`, the same models the
CLI's ``--json`` and the MCP server print, so ``obs.model_dump(mode="json")`` is exactly
what ``memcli observations --json`` prints.
Errors are :class:`memcli.errors.MemcliError` subclasses (``NotFound``, ``UsageError``...).
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal, TypeVar

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
    ObservationView,
    Report,
    Retired,
    SearchResult,
    TimelineFact,
)
from memcli.errors import NotFound, UsageError
from memcli.signatures import SignatureMode
from memcli.store import Store

Scope = Literal["observations", "facts", "episodes", "entities", "all", "edges", "nodes"]
# Zep's names for the same kinds: an edge is a fact, a node an entity.
SCOPE_ALIASES = {"edges": "facts", "nodes": "entities"}
T = TypeVar("T")


def as_id(value: int | str | None, what: str) -> int:
    """An id given as an int or, as Zep code passes uuids, a string of digits."""
    if isinstance(value, bool) or value is None:
        raise UsageError(f"{what} id is required (an int, or a string of digits)")
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if not text.isdigit():
        raise UsageError(f"{what} id must be an int or a string of digits, not {value!r}")
    return int(text)


def _window(items: list[T], limit: int | None, offset: int | str | None) -> list[T]:
    """``items[offset:offset+limit]``: one page. ``offset`` (Zep: ``cursor``) is how many
    items earlier pages held, so the next page starts at ``offset + len(page)``."""
    start = 0 if offset is None else as_id(offset, "offset (cursor)")
    if limit is not None and limit < 1:
        raise UsageError(f"limit must be at least 1, not {limit}")
    return items[start : None if limit is None else start + limit]


class SearchResults(list[SearchResult]):
    """Search results, best first (a list), grouped by kind the way Zep's
    ``GraphSearchResults`` are: ``.observations``, ``.edges`` (facts), ``.nodes``
    (entities), ``.episodes``."""

    def _of(self, kind: str) -> list[SearchResult]:
        return [r for r in self if r.type == kind]

    @property
    def observations(self) -> list[SearchResult]:
        return self._of("observation")

    @property
    def edges(self) -> list[SearchResult]:
        return self._of("fact")

    @property
    def facts(self) -> list[SearchResult]:
        return self._of("fact")

    @property
    def nodes(self) -> list[SearchResult]:
        return self._of("entity")

    @property
    def entities(self) -> list[SearchResult]:
        return self._of("entity")

    @property
    def episodes(self) -> list[SearchResult]:
        return self._of("episode")


class ObservationClient:
    """``client.observation`` (also ``client.graph.observation``): read observations
    (analyze writes them)."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(
        self,
        graph_id: str,
        *,
        limit: int | None = None,
        cursor: int | str | None = None,
        offset: int | str | None = None,
        status: Literal["active", "retired", "all"] = "active",
        evidence: int | None = None,
    ) -> list[Observation]:
        """A graph's observations, most leverage first: ``limit`` of them from
        ``offset`` (or Zep's ``cursor``: the number already read), else all.
        ``evidence``: at most that many entities, episodes and facts each, as
        :class:`memcli.contract.ObservationView` records whose ``*_total`` fields count
        the whole lists (``get`` reads one observation's whole evidence)."""
        found = api.observations(self._store, graph_id, status, evidence=evidence)
        return _window(found, limit, offset if offset is not None else cursor)

    def get(
        self, id: int | str | None = None, *, uuid_: int | str | None = None
    ) -> ObservationDetail:
        """One observation by id (any status), with its cluster as context. ``uuid_``
        is Zep's name for the id; a string of digits is accepted."""
        return api.observation(self._store, as_id(uuid_ if id is None else id, "observation"))


class EpisodeClient:
    """``client.graph.episode``: the stored updates."""

    def __init__(self, store: Store) -> None:
        self._store = store

    def get_by_graph_id(
        self,
        graph_id: str,
        *,
        lastn: int | None = None,
        limit: int | None = None,
        offset: int | str | None = None,
    ) -> list[Episode]:
        """A graph's episodes, oldest first; ``lastn`` keeps the newest n; ``limit`` and
        ``offset`` page through them."""
        return _window(api.episodes(self._store, graph_id, lastn=lastn), limit, offset)

    def get(self, id: int | str | None = None, *, uuid_: int | str | None = None) -> Episode:
        """One episode by id (``uuid_``: Zep's name; a string of digits is accepted)."""
        key = as_id(uuid_ if id is None else id, "episode")
        found = api.episodes(self._store, ids=[key])
        if not found:
            raise NotFound(
                f"no episode with id {key}", hint="client.graph.episode.get_by_graph_id lists them"
            )
        return found[0]


class GraphClient:
    """``client.graph``: add updates, analyze, search, report, draw."""

    def __init__(self, store: Store, *, analyze_on_add: bool = True) -> None:
        self._store = store
        self.analyze_on_add = analyze_on_add
        self.observation = ObservationClient(store)
        self.episode = EpisodeClient(store)

    def add(
        self,
        *,
        graph_id: str,
        data: str | dict[str, Any],
        type: Literal["text", "message", "json"] = "text",
        author: str | None = None,
        occurred_at: str | datetime | date | None = None,
        created_at: str | datetime | date | None = None,
        source: str | None = None,
        source_description: str | None = None,
        redact: bool = True,
        analyze: bool | None = None,
    ) -> Episode:
        """Store one update: plain text (``type="text"``), a message opening with its
        speaker (``type="message"``, ``"Alice: I'm blocked on ..."``: the speaker becomes
        the author, so "I" and "she" resolve), or one memcli JSON episode
        (``type="json"``: ``content`` and optionally ``author``, ``occurred_at``,
        ``source`` and ``facts``). ``occurred_at`` (Zep: ``created_at``) defaults to now;
        ``source_description`` is Zep's name for ``source``. Adding the same update
        twice stores it once (``created`` is False the second time). Secrets (tokens,
        keys, passwords) are redacted before storage unless ``redact=False``.

        Then the graph is analyzed, so observations reflect the update at once, unless
        ``analyze=False`` (or the client was made with ``analyze_on_add=False``): to add
        many updates, analyze once at the end."""
        if type == "json" and isinstance(data, list):
            raise UsageError("data is a list: use client.graph.add_batch(episodes=[...])")
        [episode] = api.add(
            self._store,
            graph_id,
            data,
            type=type,
            author=author,
            occurred_at=occurred_at if occurred_at is not None else created_at,
            source=source if source is not None else source_description,
            redact=redact,
        )
        self._after_add(graph_id, [episode], analyze)
        return episode

    def add_batch(
        self,
        *,
        graph_id: str,
        episodes: list[dict[str, Any]],
        redact: bool = True,
        analyze: bool | None = None,
    ) -> list[Episode]:
        """Store several memcli JSON episodes in one transaction, secrets redacted
        unless ``redact=False``, then analyze once (as :meth:`add`)."""
        stored = api.add(self._store, graph_id, episodes, type="json", redact=redact)
        self._after_add(graph_id, stored, analyze)
        return stored

    def _after_add(self, graph_id: str, added: Iterable[Episode], analyze: bool | None) -> None:
        run = self.analyze_on_add if analyze is None else analyze
        if run and any(e.created for e in added):
            api.analyze(self._store, graph_id.strip())

    def create(
        self, *, graph_id: str, name: str | None = None, description: str | None = None
    ) -> GraphInfo:
        """Create an empty graph (a no-op if it exists); returns it with its counts.
        ``name`` and ``description`` are accepted for Zep code and not stored."""
        key = graph_id.strip() if graph_id else ""
        if not key:
            raise UsageError("graph_id must be a non-empty string")
        with self._store.transaction():
            self._store.ensure_graph(key)
        return self.get(graph_id=key)

    def get(self, *, graph_id: str) -> GraphInfo:
        """One graph with its counts."""
        api.require_graph(self._store, graph_id)
        return next(g for g in api.graphs(self._store) if g.graph == graph_id)

    def delete(self, *, graph_id: str) -> None:
        """Delete a graph and everything in it: episodes, facts, entities, observations.
        There is no undo (``memcli export`` first to keep a copy)."""
        from memcli import corrections

        corrections.delete_graph(self._store, graph_id)  # NotFound names the graphs

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
        scope: Scope = "observations",
        limit: int = 10,
        include_ended: bool = False,
    ) -> SearchResults:
        """Relevance search (FTS5/BM25); any text is a valid query. ``scope`` "edges"
        and "nodes" are Zep's names for "facts" and "entities". The results are a list,
        best first, also grouped by kind: ``.observations``, ``.edges``, ``.nodes``,
        ``.episodes``."""
        kind = SCOPE_ALIASES.get(scope, scope)
        return SearchResults(
            api.search(
                self._store, graph_id, query, scope=kind, limit=limit, include_ended=include_ended
            )
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
        learned: bool = False,
    ) -> Report:
        """The digest: blockers by leverage, what is new, what retired and why. Changes
        since ``since`` (world time; ``learned``: when memcli learned them), else since
        the last recorded report; ``record`` makes this the last report (off by default,
        so an agent does not move a person's mark)."""
        from memcli.readers import to_utc

        when = to_utc(since, source="since") if since else None
        return api.report(self._store, graph_id, since=when, record=record, learned=learned)

    def visualize(
        self, *, graph_id: str, format: Literal["mermaid", "dot", "html"] = "mermaid"
    ) -> str:
        """The dependency graph as Mermaid, Graphviz DOT or a self-contained HTML page."""
        from memcli.visualize import render

        return render(api.dependency_picture(self._store, graph_id), format)

    def list_all(
        self, *, page_number: int | None = None, page_size: int | None = None
    ) -> list[GraphInfo]:
        """Every graph in the database with its counts; ``page_size`` graphs from page
        ``page_number`` (1 first) when given, as Zep pages them."""
        everything = api.graphs(self._store)
        if page_size is None:
            return everything
        first = ((page_number or 1) - 1) * page_size
        return _window(everything, page_size, first)


class Client:
    """A memcli database, opened for a program or an agent.

    ``db_path`` defaults like the CLI's ``--db``: ``$MEMCLI_DB``, else the per-user data
    file. Use it as a context manager, or call :meth:`close`. ``analyze_on_add`` (on by
    default) analyzes a graph after each add, so observations appear without a separate
    call; turn it off to add many updates and call ``graph.analyze`` once.
    """

    def __init__(
        self, db_path: str | Path | None = None, *, create: bool = True, analyze_on_add: bool = True
    ) -> None:
        self.db_path = resolve_db_path(db_path)
        self._store = Store(self.db_path, create=create)
        self.graph = GraphClient(self._store, analyze_on_add=analyze_on_add)
        self.observation = self.graph.observation

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


class _AsyncProxy:
    """Every method of the wrapped object as a coroutine run in a worker thread, and
    every sub-client (``graph``, ``observation``...) wrapped the same way."""

    def __init__(self, target: Any, lock: asyncio.Lock) -> None:
        self._target = target
        self._lock = lock

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if isinstance(value, (GraphClient, ObservationClient, EpisodeClient)):
            return _AsyncProxy(value, self._lock)
        if not callable(value):
            return value

        @functools.wraps(value)
        async def run(*args: Any, **kwargs: Any) -> Any:
            async with self._lock:  # one call at a time on the one connection
                return await asyncio.to_thread(value, *args, **kwargs)

        return run


class AsyncClient:
    """:class:`Client` for async code (Zep's ``AsyncZep``): the same calls, awaited.

        async with memcli.AsyncClient("memory.db") as client:
            await client.graph.add(graph_id="orbit", type="message", data="Ana: ...")
            observations = await client.observation.get_by_graph_id("orbit", limit=5)

    Each call runs the synchronous client in a worker thread, one at a time, so the event
    loop is never blocked by SQLite."""

    def __init__(
        self, db_path: str | Path | None = None, *, create: bool = True, analyze_on_add: bool = True
    ) -> None:
        self._client = Client(db_path, create=create, analyze_on_add=analyze_on_add)
        self._lock = asyncio.Lock()
        self.db_path = self._client.db_path
        self.graph: Any = _AsyncProxy(self._client.graph, self._lock)
        self.observation: Any = _AsyncProxy(self._client.observation, self._lock)

    async def close(self) -> None:
        async with self._lock:
            await asyncio.to_thread(self._client.close)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"memcli.AsyncClient({str(self.db_path)!r})"


__all__ = [
    "Action",
    "AnalyzeResult",
    "AsyncClient",
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
    "ObservationView",
    "Report",
    "Retired",
    "SearchResult",
    "SearchResults",
    "TimelineFact",
]
