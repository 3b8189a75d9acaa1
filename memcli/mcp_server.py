"""memcli over the Model Context Protocol (stdio), with the official ``mcp`` SDK.

An agent host (Claude Desktop, an IDE, any MCP client) starts ``memcli mcp --db PATH``
and gets six tools that call the same :mod:`memcli.api` functions as the CLI and the
Python client: ``add_episode``, ``search``, ``list_observations``, ``get_observation``,
``entity_timeline`` and ``report``. Every tool returns JSON (structured content, and the
same JSON as text) carrying evidence ids: episode ids, fact ids, sources.

Each call opens the database, does its work and closes it, so the server holds no lock
between calls and a person can run ``memcli`` on the same file meanwhile. A memcli error
becomes a tool error whose text says what went wrong and what to do; it never takes the
server down. Needs the ``mcp`` extra: ``pip install 'memcli[mcp]'``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from memcli import __version__, api
from memcli.contract import Record
from memcli.digest import render_markdown
from memcli.errors import MemcliError
from memcli.sources import max_bytes
from memcli.store import Store

T = TypeVar("T")

INSTRUCTIONS = """\
memcli is a memory of engineering status updates that says what they add up to.
Add updates with add_episode (one per person per update; it re-analyzes the graph).
Observations are patterns bound to evidence, e.g. one root blocker holding up several
people; list_observations ranks them by leverage. search finds observations, facts,
episodes or entities by relevance; report is the digest of what to act on. Cite
evidence by episode id and source."""


def _dump(records: Sequence[Record]) -> list[dict[str, Any]]:
    """Contract records as the JSON the CLI's --json prints (one definition for both)."""
    return [r.model_dump(mode="json") for r in records]


def _within_limit(**arguments: str | None) -> None:
    """The size limit of an input file (``MEMCLI_MAX_FILE_BYTES``, default 10 MiB) for
    one update's arguments together: an agent cannot store what ingest would refuse."""
    limit = max_bytes()
    size = sum(len(v.encode("utf-8", "surrogatepass")) for v in arguments.values() if v)
    if size > limit:
        raise ToolError(
            f"the update is {size:,} bytes, over the {limit:,} byte limit for one update "
            "(MEMCLI_MAX_FILE_BYTES). Split it into smaller updates."
        )


def build_server(db_path: Path, *, redact: bool = True) -> MCPServer:
    """An MCP server whose tools read and write the memcli database at ``db_path``.

    ``redact`` is the server's setting, not a tool argument: the person who starts the
    server decides whether secrets an agent pastes are kept, not the agent."""
    server: MCPServer = MCPServer(
        "memcli", instructions=INSTRUCTIONS, version=__version__, log_level="WARNING"
    )

    def call(work: Callable[[Store], T]) -> T:
        try:
            with Store(db_path) as store:
                return work(store)
        except MemcliError as exc:
            hint = f" Hint: {exc.hint}" if exc.hint else ""
            raise ToolError(f"{exc.message}.{hint}") from None

    @server.tool()
    def add_episode(
        graph: str,
        content: str,
        author: str | None = None,
        occurred_at: str | None = None,
        source: str | None = None,
        analyze: bool = True,
    ) -> dict[str, Any]:
        """Store one status update (plain text) in a graph, extract its facts, and by
        default re-analyze the graph so observations reflect it. occurred_at is ISO 8601
        (default: now). Adding the same update twice stores it once."""
        _within_limit(graph=graph, content=content, author=author, source=source)

        def work(store: Store) -> dict[str, Any]:
            [episode] = api.add(
                store,
                graph,
                content,
                author=author,
                occurred_at=occurred_at,
                source=source,
                redact=redact,
            )
            out: dict[str, Any] = {"episode": episode.model_dump(mode="json")}
            if analyze:
                out["analysis"] = api.analyze(store, graph.strip()).record().model_dump(mode="json")
            return out

        return call(work)

    @server.tool()
    def search(
        graph: str,
        query: str,
        scope: Literal["observations", "facts", "episodes", "entities", "all"] = "observations",
        limit: int = 10,
        include_ended: bool = False,
    ) -> dict[str, Any]:
        """Search a graph by relevance (any text; no query syntax). Each result says why
        it matched (snippet, matching words in **bold**) and links to its evidence
        (episode_ids, fact_ids, observation_ids, sources). scope 'all' fuses every kind."""
        return call(
            lambda store: {
                "results": _dump(
                    api.search(
                        store, graph, query, scope=scope, limit=limit, include_ended=include_ended
                    )
                )
            }
        )

    @server.tool()
    def list_observations(
        graph: str, status: Literal["active", "retired", "all"] = "active"
    ) -> dict[str, Any]:
        """A graph's observations, most leverage first, each with its summary, root,
        entities and roles, evidence episodes and facts."""
        return call(lambda store: {"observations": _dump(api.observations(store, graph, status))})

    @server.tool()
    def get_observation(id: int) -> dict[str, Any]:
        """One observation by id (any status), with every evidence fact and its sentence."""
        return call(lambda store: api.observation(store, id).model_dump(mode="json"))

    @server.tool()
    def entity_timeline(graph: str, name: str) -> dict[str, Any]:
        """Every fact about one entity (a person, team or work item, by name or alias),
        current and ended, in the order they became true, each with its episode and, if
        it ended, the episode that ended it."""
        return call(lambda store: api.entity_timeline(store, graph, name).model_dump(mode="json"))

    @server.tool()
    def report(graph: str, since: str | None = None) -> dict[str, Any]:
        """The digest of what the team should act on: root blockers ranked by leverage,
        what is new or updated and what retired and why (since an ISO date, else since
        the last report a person recorded), with evidence. 'markdown' is ready to paste.
        Does not move the last-report mark."""

        def work(store: Store) -> dict[str, Any]:
            when = None
            if since:
                from memcli.readers import to_utc

                when = to_utc(since, source="since")
            data = api.report(store, graph, since=when).model_dump(mode="json")
            return {**data, "markdown": render_markdown(data)}

        return call(work)

    return server


def serve(db_path: Path, *, redact: bool = True) -> None:
    """Open (and migrate) the database, then serve MCP on stdin/stdout until EOF."""
    Store(db_path).close()  # a bad path fails here, before the client connects
    build_server(db_path, redact=redact).run("stdio")
