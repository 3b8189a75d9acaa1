"""Options shared by several commands, declared once (typer ``Annotated`` aliases).

A command takes ``graph: GraphOpt`` instead of spelling out ``--graph`` again, so the
flag, its short form, its help and its check are the same everywhere.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

# The largest integer SQLite stores: a larger --limit or id is a usage error, not a crash.
SQL_INT_MAX = 2**63 - 1


def graph_name(value: str | None) -> str | None:
    """--graph callback: a blank name is a mistake (it used to mean 'default' silently)."""
    if value is not None and not value.strip():
        raise typer.BadParameter("empty graph name", param_hint="--graph")
    return value


GraphOpt = Annotated[
    str, typer.Option("--graph", "-g", help="Graph (project) to use.", callback=graph_name)
]
AnyGraphOpt = Annotated[
    str | None,
    typer.Option("--graph", "-g", help="Only this graph (default: all).", callback=graph_name),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for programs and agents.")]
JsonlOpt = Annotated[
    bool, typer.Option("--jsonl", help="Print one JSON object per line (JSON Lines).")
]
IdsOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the ids, one per line.")]
AsOfOpt = Annotated[
    str | None,
    typer.Option("--as-of", help="What held at this date (world time)."),
]
IncludeEndedOpt = Annotated[
    bool,
    typer.Option(
        "--include-ended",
        help="Also show facts that later updates ended (and retired observations).",
    ),
]
DbOpt = Annotated[
    Path | None,
    typer.Option(
        "--db",
        help="SQLite database file (default: $MEMCLI_DB, else a per-user data file).",
        envvar="MEMCLI_DB",
        show_envvar=False,
    ),
]
ObservationIdArg = Annotated[
    int, typer.Argument(metavar="ID", min=1, max=SQL_INT_MAX, help="Observation id.")
]

LimitOpt = Annotated[
    int, typer.Option("--limit", "-n", min=1, max=SQL_INT_MAX, help="At most this many results.")
]
