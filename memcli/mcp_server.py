"""memcli over the Model Context Protocol (stdio), with the official ``mcp`` SDK.

An agent host (Claude Desktop, an IDE, any MCP client) starts ``memcli mcp --db PATH``
and gets tools that call the same :mod:`memcli.api` functions as the CLI and the Python
client. Every answer is sized for an agent's context: list tools return one page of
compact records (``limit``, ``offset``) within a character budget (``max_chars``,
default 20,000) and say what they left out (``total``, ``truncated``, ``next_offset``);
get tools fetch one record's detail by id. Each tool publishes its output schema (the
records of :mod:`memcli.contract` and :mod:`memcli.bounded`), read tools are annotated
read-only, and every tool names a graph ``graph_id``.

A reply carries the record once, as structured content, with a short text line beside
it (what was returned and where to go next), so a large page is not sent twice.

Each call opens the database, does its work and closes it, so the server holds no lock
between calls and a person can run ``memcli`` on the same file meanwhile. A memcli error
becomes a tool error whose text says what went wrong and which tool to call next; it
never takes the server down. Needs the ``mcp`` extra: ``pip install 'memcli[mcp]'``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent, ToolAnnotations
from pydantic import AliasChoices, Field

from memcli import __version__, api, bounded
from memcli.bounded import DEFAULT_LIMIT, DEFAULT_MAX_CHARS
from memcli.contract import (
    AddedEpisode,
    AnalyzeSummary,
    Episode,
    EpisodePage,
    GraphPage,
    ObservationPage,
    ObservationView,
    Page,
    Record,
    ReportView,
    SearchPage,
    TimelinePage,
)
from memcli.digest import render_markdown
from memcli.errors import MemcliError, NotFound
from memcli.sources import max_bytes
from memcli.store import Store

T = TypeVar("T")

INSTRUCTIONS = """\
memcli is a memory of engineering status updates that says what they add up to.
Start with list_graphs for graph ids. Add updates with add_episode (one per person per
update; it re-analyzes the graph). Observations are patterns bound to evidence, e.g. one
root blocker holding up several people: list_observations ranks them by leverage,
get_observation gives one with its evidence, list_episodes / get_episode the updates.
search finds observations, facts, episodes or entities; entity_timeline is everything
about one person, team or work item; report is the digest of what to act on. Lists come
in pages (limit, offset; next_offset says where the next page starts) within max_chars.
Cite evidence by episode id and source."""

READ = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True)
WRITE = ToolAnnotations(read_only_hint=False, destructive_hint=False, idempotent_hint=True)

# ``graph`` (the name before 0.2) is still accepted; the schema publishes only graph_id.
GraphId = Annotated[
    str,
    Field(
        description="the graph's id (list_graphs lists them)",
        validation_alias=AliasChoices("graph_id", "graph"),
    ),
]
ObservationId = Annotated[
    int,
    Field(
        description="an observation id (list_observations lists them)",
        validation_alias=AliasChoices("observation_id", "id"),
    ),
]
Scope = Literal["observations", "facts", "episodes", "entities", "all", "edges", "nodes"]
# Zep's names for the same kinds: an edge is a fact, a node an entity.
SCOPE_ALIASES = {"edges": "facts", "nodes": "entities"}

NEXT = {
    "graph": "Call list_graphs for the graph ids.",
    "observation": "Call list_observations (graph_id) for observation ids.",
    "episode": "Call list_episodes (graph_id) for episode ids.",
    "entity": "Call search with scope 'entities' to find the entity's name.",
}


def _within_limit(**arguments: str | None) -> None:
    """The size limit of an input file (``MEMCLI_MAX_FILE_BYTES``, default 10 MiB) for
    one update's arguments together: an agent cannot store what ingest would refuse."""
    limit = max_bytes()
    size = sum(len(v.encode("utf-8", "surrogatepass")) for v in arguments.values() if v)
    if size > limit:
        raise ToolError(
            f"the update is {size:,} bytes, over the {limit:,} byte limit for one update "
            "(MEMCLI_MAX_FILE_BYTES). Split it into smaller updates and call add_episode "
            "once for each."
        )


def _reply(record: Record, text: str) -> CallToolResult:
    """The record once, as structured content, and a short line of text beside it."""
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=record.model_dump(mode="json"),
    )


def _more(page: Page) -> str:
    if page.next_offset is not None:
        return f" More: call again with offset={page.next_offset}."
    return ""


def build_server(db_path: Path, *, redact: bool = True, analyze_on_add: bool = True) -> MCPServer:
    """An MCP server whose tools read and write the memcli database at ``db_path``.

    ``redact`` is the server's setting, not a tool argument: the person who starts the
    server decides whether secrets an agent pastes are kept, not the agent.
    ``analyze_on_add`` is the default of add_episode's ``analyze`` (on, as observations
    appear in Zep without a separate call)."""
    server: MCPServer = MCPServer(
        "memcli", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def call(work: Callable[[Store], T], missing: str = "graph") -> T:
        try:
            with Store(db_path) as store:
                return work(store)
        except NotFound as exc:
            raise ToolError(f"{exc.message}. {NEXT[missing]}") from None
        except MemcliError as exc:
            raise ToolError(f"{exc.message}.") from None

    @server.tool(annotations=READ)
    def list_graphs(
        limit: int = DEFAULT_LIMIT, offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS
    ) -> Annotated[CallToolResult, GraphPage]:
        """The graphs (projects) in this memory with their counts: episodes, facts,
        active observations, when last ingested and analyzed."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, offset, max_chars)
            everything = api.graphs(store)
            out = bounded.page(
                lambda items: GraphPage(total=0, graphs=items),
                everything,
                offset=offset,
                limit=limit,
                max_chars=max_chars,
            )
            ids = ", ".join(g.graph for g in out.graphs) or "none yet"
            return _reply(out, f"{out.returned} of {out.total} graphs: {ids}.{_more(out)}")

        return call(work)

    @server.tool(annotations=WRITE)
    def add_episode(
        graph_id: GraphId,
        content: str,
        author: str | None = None,
        occurred_at: str | None = None,
        source: str | None = None,
        type: Literal["text", "message"] = "text",
        analyze: bool | None = None,
    ) -> Annotated[CallToolResult, AddedEpisode]:
        """Store one status update (plain text) in a graph (created if new), extract
        its facts and, unless analyze is false, re-analyze the graph so observations
        reflect it. type 'message' reads a leading 'Name: ' as the author. occurred_at
        is ISO 8601 (default: now). Adding the same update twice stores it once."""
        _within_limit(graph_id=graph_id, content=content, author=author, source=source)
        run = analyze_on_add if analyze is None else analyze

        def work(store: Store) -> CallToolResult:
            [episode] = api.add(
                store,
                graph_id,
                content,
                type=type,
                author=author,
                occurred_at=occurred_at,
                source=source,
                redact=redact,
            )
            episode, _cut = bounded.episode_within(episode, DEFAULT_MAX_CHARS // 2)
            out = AddedEpisode(episode=episode)
            text = (
                f"Stored episode {episode.id} with {len(episode.facts)} facts."
                if episode.created
                else f"Already stored as episode {episode.id}."
            )
            if run:
                result = api.analyze(store, graph_id.strip()).record()
                out.analysis = bounded.analyze_summary(result)
                a = out.analysis
                text += (
                    f" Analyzed: {a.created_total} observations created, {a.updated_total}"
                    f" updated, {a.retired_total} retired."
                )
            return _reply(out, text)

        return call(work)

    @server.tool(annotations=WRITE)
    def analyze(
        graph_id: GraphId, force: bool = False
    ) -> Annotated[CallToolResult, AnalyzeSummary]:
        """Cluster a graph's episodes and bring its observations in line with the
        evidence (a no-op when nothing changed, unless force). add_episode already
        does this unless told not to."""

        def work(store: Store) -> CallToolResult:
            out = bounded.analyze_summary(api.analyze(store, graph_id, force=force).record())
            text = (
                f"Skipped: {out.reason}."
                if out.skipped
                else f"{out.created_total} observations created, {out.updated_total} updated, "
                f"{out.retired_total} retired, {out.unchanged_total} unchanged."
            )
            return _reply(out, text + " Call list_observations to read them.")

        return call(work)

    @server.tool(annotations=READ)
    def search(
        graph_id: GraphId,
        query: str,
        scope: Scope = "observations",
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
        include_ended: bool = False,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, SearchPage]:
        """Search a graph by relevance (any text; no query syntax). Each result says why
        it matched (snippet, matching words in **bold**) and its evidence ids (episode,
        fact, observation; up to ten each, *_total say how many). scope 'all' fuses
        every kind; 'edges' and 'nodes' are Zep's names for facts and entities."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, offset, max_chars)
            kind = SCOPE_ALIASES.get(scope, scope)
            found = api.search(
                store,
                graph_id,
                query,
                scope=kind,
                limit=offset + limit + 1,
                include_ended=include_ended,
            )
            hits = [bounded.search_hit(r) for r in found]
            out = bounded.page(
                lambda items: SearchPage(total=0, graph_id=graph_id, scope=kind, results=items),
                hits,
                offset=offset,
                limit=limit,
                max_chars=max_chars,
            )
            lines = [f"{h.position}. {h.type} {h.id}: {h.title}" for h in out.results]
            head = f"{out.returned} results ({kind})."
            return _reply(out, "\n".join([head + _more(out), *lines]))

        return call(work)

    @server.tool(annotations=READ)
    def list_observations(
        graph_id: GraphId,
        status: Literal["active", "retired", "all"] = "active",
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, ObservationPage]:
        """A graph's observations, most leverage first: id, name, one-line summary, root
        and counts of entities, episodes and facts. get_observation gives one in full."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, offset, max_chars)
            found = api.observation_views(store, graph_id, status, evidence=0)  # counts only
            out = bounded.page(
                lambda items: ObservationPage(
                    total=0,
                    graph_id=graph_id,
                    observations=[bounded.observation_brief(o) for o in items],
                ),
                found,
                offset=offset,
                limit=limit,
                max_chars=max_chars,
            )
            lines = [f"#{o.id} (leverage {o.leverage}) {o.name}" for o in out.observations]
            head = f"{out.returned} of {out.total} {status} observations."
            return _reply(out, "\n".join([head + _more(out), *lines]))

        return call(work)

    @server.tool(annotations=READ)
    def get_observation(
        observation_id: ObservationId,
        limit: int = DEFAULT_LIMIT,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, ObservationView]:
        """One observation by id (any status): summary, root, roles, and up to limit
        entities, evidence episodes and facts (each fact with its sentence);
        list_episodes with observation_id pages through all its episodes."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, 0, max_chars)
            obs = api.observation_view(store, observation_id, evidence=limit)
            out = bounded.observation_view(obs, limit=limit, max_chars=max_chars)
            text = f"#{out.id} {out.name}: {bounded.first_sentence(out.summary)}"
            if out.truncated:
                text += (
                    f" (showing {len(out.episodes)} of {out.episodes_total} episodes and"
                    f" {len(out.facts)} of {out.facts_total} facts; list_episodes with"
                    f" observation_id={out.id} for the rest)"
                )
            return _reply(out, text)

        return call(work, "observation")

    @server.tool(annotations=READ)
    def list_episodes(
        graph_id: GraphId,
        observation_id: int | None = None,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, EpisodePage]:
        """A graph's episodes (stored updates), newest first, or an observation's
        evidence episodes: id, source, author, date, the start of the text and its fact
        count. get_episode gives one in full."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, offset, max_chars)
            api.require_graph(store, graph_id)
            if observation_id is not None:
                obs = api.observation(store, observation_id)
                if obs.graph != graph_id:
                    raise NotFound(f"observation {observation_id} is not in graph {graph_id!r}")
                ids = [e.id for e in obs.episodes]
            else:
                rows = store.episode_rows(graph_id=graph_id)
                rows.sort(key=lambda r: (r["occurred_at"], r["id"]), reverse=True)
                ids = [r["id"] for r in rows]
            window = ids[offset : offset + limit]
            by_id = {e.id: e for e in api.episodes(store, ids=window)} if window else {}
            # an observation's episodes oldest first as evidence lists them; a graph's newest first
            out = bounded.page(
                lambda items: EpisodePage(
                    total=0,
                    graph_id=graph_id,
                    observation_id=observation_id,
                    episodes=[bounded.episode_brief(by_id[i]) for i in items],
                ),
                ids,
                offset=offset,
                limit=limit,
                max_chars=max_chars,
            )
            lines = [f"{e.id} {e.occurred_at[:10]} {e.author or '-'}" for e in out.episodes]
            head = f"{out.returned} of {out.total} episodes."
            return _reply(out, "\n".join([head + _more(out), *lines]))

        return call(work, "observation" if observation_id is not None else "graph")

    @server.tool(annotations=READ)
    def get_episode(
        episode_id: int, max_chars: int = DEFAULT_MAX_CHARS
    ) -> Annotated[CallToolResult, Episode]:
        """One stored update by id: its text, author, date, source and the facts read
        from it (text cut to fit max_chars)."""

        def work(store: Store) -> CallToolResult:
            bounded.check(1, 0, max_chars)
            found = api.episodes(store, ids=[episode_id])
            if not found:
                raise NotFound(f"no episode with id {episode_id}")
            out, cut = bounded.episode_within(found[0], max_chars)
            text = f"Episode {out.id} by {out.author or 'unknown'}, {out.occurred_at[:10]}"
            text += f", {len(out.facts)} facts" + (" (cut to fit max_chars)." if cut else ".")
            return _reply(out, text)

        return call(work, "episode")

    @server.tool(annotations=READ)
    def entity_timeline(
        graph_id: GraphId,
        name: str,
        limit: int = DEFAULT_LIMIT,
        offset: int = 0,
        newest_first: bool = True,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, TimelinePage]:
        """Every fact about one entity (a person, team or work item, by name or alias),
        current and ended, by when they became true (newest first unless told), each
        with its episode and, if it ended, the episode that ended it."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, offset, max_chars)
            timeline = api.entity_timeline(store, graph_id, name)
            facts = list(reversed(timeline.facts)) if newest_first else timeline.facts
            out = bounded.page(
                lambda items: TimelinePage(
                    total=0,
                    graph_id=graph_id,
                    name=timeline.name,
                    entities=timeline.entities,
                    facts=items,
                ),
                facts,
                offset=offset,
                limit=limit,
                max_chars=max_chars,
            )
            lines = [
                f"{f.valid_at[:10]} {f.source} {f.relation} {f.target} ({f.status})"
                for f in out.facts
            ]
            head = f"{out.returned} of {out.total} facts about {timeline.name}."
            return _reply(out, "\n".join([head + _more(out), *lines]))

        return call(work, "entity")

    @server.tool(annotations=READ)
    def report(
        graph_id: GraphId,
        since: str | None = None,
        limit: int = 5,
        max_chars: int = DEFAULT_MAX_CHARS,
    ) -> Annotated[CallToolResult, ReportView]:
        """The digest of what the team should act on: root blockers ranked by leverage,
        what is new or updated and what retired and why (since an ISO date in world time, else since
        the last report a person recorded), with evidence; limit items a section.
        'markdown' is ready to paste. Does not move the last-report mark."""

        def work(store: Store) -> CallToolResult:
            bounded.check(limit, 0, max_chars)
            when = None
            if since:
                from memcli.readers import to_utc

                when = to_utc(since, source="since")
            full = api.report(store, graph_id, since=when)
            out = bounded.report_view(full, render_markdown, limit=limit, max_chars=max_chars)
            text = (
                f"{out.act_on_total} blockers to act on, {out.new_total} new, "
                f"{out.updated_total} updated, {out.retired_total} retired "
                f"(showing up to {limit} each; the Markdown is in 'markdown')."
            )
            return _reply(out, text)

        return call(work)

    return server


def serve(db_path: Path, *, redact: bool = True, analyze_on_add: bool = True) -> None:
    """Open (and migrate) the database, then serve MCP on stdin/stdout until EOF."""
    Store(db_path).close()  # a bad path fails here, before the client connects
    build_server(db_path, redact=redact, analyze_on_add=analyze_on_add).run("stdio")
