"""Correction commands: episode retract / move, graph rename / delete."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer

from memcli.cli._app import command, note, open_store
from memcli.cli._options import JsonOpt, graph_name, in_range
from memcli.cli._output import choose, emit

EpisodeId = Annotated[
    int,
    typer.Argument(
        metavar="ID", callback=in_range(1), help="Episode id (see search --scope episodes)."
    ),
]


@command
def retract(
    episode_id: EpisodeId,
    reason: Annotated[
        str | None,
        typer.Option("--reason", help="Why (kept, and named when observations retire)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Withdraw an update: kept and marked retracted, its facts end now, and analysis and
    search evidence leave it out. The next analyze updates the observations."""
    from memcli import corrections

    with open_store(create=False) as store:
        done = corrections.retract(store, episode_id, reason=reason)
    emit(done, choose(as_json=as_json), _said_retracted)


def _said_retracted(done: dict[str, Any]) -> None:
    note(
        f"retracted episode #{done['episode_id']} ({done['source']}): {done['facts_ended']} "
        f"fact(s) ended; run 'memcli analyze --graph {done['graph']}' to update the "
        "observations"
    )


@command
def move(
    episode_id: EpisodeId,
    to: Annotated[
        str,
        typer.Option("--to", help="The graph it belongs in (created if new).", callback=graph_name),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Move an update, with its facts, to another graph."""
    from memcli import corrections

    with open_store(create=False) as store:
        done = corrections.move_episode(store, episode_id, to)
    emit(done, choose(as_json=as_json), _said_moved)


def _said_moved(done: dict[str, Any]) -> None:
    note(
        f"moved episode #{done['episode_id']} with {done['facts']} fact(s) from "
        f"{done['from']!r} to {done['to']!r}; run 'memcli analyze' to update both graphs' "
        "observations"
    )


@command
def rename(
    old: Annotated[str, typer.Argument(help="The graph's name now.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    as_json: JsonOpt = False,
) -> None:
    """Rename a graph; everything in it keeps its ids and history."""
    from memcli import corrections

    with open_store(create=False) as store:
        done = corrections.rename_graph(store, old, new)
    emit(
        done, choose(as_json=as_json), lambda d: note(f"renamed graph {d['from']!r} to {d['to']!r}")
    )


@command
def delete(
    name: Annotated[str, typer.Argument(help="The graph to delete.")],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask (needed when not at a terminal).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete a graph and everything in it (episodes, facts, entities, observations,
    history), in one transaction. Asks first at a terminal; needs --yes otherwise."""
    from memcli import corrections
    from memcli.errors import UsageError

    if not yes:
        if not sys.stdin.isatty():
            raise UsageError(
                f"deleting graph {name!r} cannot be undone: pass --yes to confirm",
                hint="or run it at a terminal to be asked",
            )
        if not typer.confirm(f"Delete graph {name!r} and everything in it?", default=False):
            note("nothing deleted")
            raise typer.Exit(1)
    with open_store(create=False) as store:
        done = corrections.delete_graph(store, name)
    emit(done, choose(as_json=as_json), _said_deleted)


def _said_deleted(done: dict[str, Any]) -> None:
    deleted = done["deleted"]
    note(
        f"deleted graph {done['graph']!r}: {deleted.get('episodes', 0)} episode(s), "
        f"{deleted.get('facts', 0)} fact(s), {deleted.get('entities', 0)} entities, "
        f"{deleted.get('observations', 0)} observation(s)"
    )
