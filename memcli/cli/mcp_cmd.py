"""memcli mcp: serve memcli to agents over the Model Context Protocol (stdio)."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli._app import command, state
from memcli.cli._options import DbOpt
from memcli.config import resolve_db_path
from memcli.errors import BackendUnavailable


@command
def mcp(
    db: DbOpt = None,
    no_redact: Annotated[
        bool,
        typer.Option(
            "--no-redact",
            help="Store what agents add exactly as written, without redacting secrets.",
        ),
    ] = False,
    no_analyze: Annotated[
        bool,
        typer.Option(
            "--no-analyze",
            help="Do not re-analyze after add_episode unless the agent asks (analyze=true).",
        ),
    ] = False,
) -> None:
    """Serve memcli over MCP on stdin/stdout: tools list_graphs, add_episode, analyze,
    search, list_observations, get_observation, list_episodes, get_episode,
    entity_timeline and report, each returning a page of JSON with evidence ids.

    Configure an MCP client with the command 'memcli mcp --db PATH'. Needs the mcp extra:
    pip install 'memcli[mcp]'.
    """
    try:
        from memcli.mcp_server import serve
    except ImportError as exc:
        raise BackendUnavailable(
            f"the MCP server needs the 'mcp' package ({exc.name or exc} is missing)",
            hint="pip install 'memcli[mcp]'",
        ) from None
    serve(resolve_db_path(db or state.db), redact=not no_redact, analyze_on_add=not no_analyze)
