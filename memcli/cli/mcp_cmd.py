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
) -> None:
    """Serve memcli over MCP on stdin/stdout: tools add_episode, search, list_observations,
    get_observation, entity_timeline and report, each returning JSON with evidence ids.

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
    serve(resolve_db_path(db or state.db), redact=not no_redact)
