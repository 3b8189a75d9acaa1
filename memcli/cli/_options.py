"""Options shared by several commands, declared once (typer ``Annotated`` aliases).

A command takes ``graph: GraphOpt`` instead of spelling out ``--graph`` again, so the
flag, its short form, its help and its check are the same everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer

# The largest integer SQLite stores: a larger --limit or id is a usage error, not a crash.
SQL_INT_MAX = 2**63 - 1


def in_range(low: int, high: int = SQL_INT_MAX) -> Callable[[int | None], int | None]:
    """An integer option's bounds as a callback, with a message a person reads ("must be
    0 or more, not -3"). typer's own ``min=``/``max=`` turn the type into a range whose
    errors say "'abc' is not a valid int range" and print the 64-bit bound."""

    def check(value: int | None) -> int | None:
        if value is not None and value < low:
            raise typer.BadParameter(f"must be {low} or more, not {value}")
        if value is not None and value > high:
            raise typer.BadParameter(f"must be at most {high}, not {value}")
        return value

    return check


def graph_name(value: str | None) -> str | None:
    """--graph callback: a blank name is a mistake (it used to mean 'default' silently)."""
    if value is not None and not value.strip():
        raise typer.BadParameter("empty graph name", param_hint="--graph")
    return value


def _default_graph() -> str | None:
    from memcli.config import default_graph
    from memcli.errors import MemcliError

    try:
        return default_graph()
    except MemcliError as exc:  # a broken config file: a usage error, not a traceback
        raise typer.BadParameter(exc.message, param_hint="--graph") from None


def required_graph(value: str | None) -> str:
    """--graph callback for commands that need a graph: given, else the default one."""
    if value is None:
        raise typer.BadParameter(
            "no graph given: pass --graph NAME, set MEMCLI_GRAPH, or put "
            "graph = \"NAME\" in the config file ('memcli graphs' lists them)",
            param_hint="--graph",
        )
    checked = graph_name(value)
    assert checked is not None
    return checked


GraphOpt = Annotated[
    str,
    typer.Option(
        "--graph",
        "-g",
        metavar="NAME",
        help="Graph (project) to use (default: $MEMCLI_GRAPH, else graph in the config file).",
        default_factory=_default_graph,
        show_default=False,
        callback=required_graph,
    ),
]
AnyGraphOpt = Annotated[
    str | None,
    typer.Option(
        "--graph", "-g", metavar="NAME", help="Only this graph (default: all).", callback=graph_name
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for programs and agents.")]
JsonlOpt = Annotated[
    bool, typer.Option("--jsonl", help="Print one JSON object per line (JSON Lines).")
]
CsvOpt = Annotated[
    bool, typer.Option("--csv", help="Print CSV with a header row (lists and objects as JSON).")
]
IdsOpt = Annotated[bool, typer.Option("--quiet", "-q", help="Print only the ids, one per line.")]
AsOfOpt = Annotated[
    str | None,
    typer.Option("--as-of", metavar="DATE", help="What held at this date (world time)."),
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
        metavar="FILE",
        help="SQLite database file (default: $MEMCLI_DB, else a per-user data file).",
        envvar="MEMCLI_DB",
        show_envvar=False,
    ),
]


def _id(what: str, listed_by: str) -> Any:
    """A parser for an id argument whose error says what an id looks like and where to
    find one (not a type checker's 'unable to parse string as an integer')."""

    def parse(value: str) -> int:
        try:
            number = int(value.strip().lstrip("#"))
        except ValueError:
            number = 0
        if not 1 <= number <= SQL_INT_MAX:
            raise typer.BadParameter(
                f"{value!r} is not {what} id: ids are whole numbers from 1, as "
                f"'{listed_by}' lists them"
            )
        return number

    return parse


ObservationIdArg = Annotated[
    int,
    typer.Argument(
        metavar="ID",
        parser=_id("an observation", "memcli observations"),
        help="Observation id.",
        show_default=False,
    ),
]
EpisodeIdArg = Annotated[
    int,
    typer.Argument(
        metavar="ID",
        parser=_id("an episode", "memcli episodes"),
        help="Episode id.",
        show_default=False,
    ),
]

LimitOpt = Annotated[
    int,
    typer.Option(
        "--limit",
        "-n",
        metavar="N",
        callback=in_range(1),
        help="At most this many results.",
    ),
]
