"""Correction commands: episode retract / move, graph rename / delete."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from memcli import corrections
from memcli.cli._app import (
    SQL_INT_MAX,
    JsonOpt,
    app,
    command,
    err_console,
    graph_name,
    open_store,
    print_json,
)
from memcli.errors import UsageError

episode_app = typer.Typer(
    help="Correct one stored update: retract it, or move it to another graph.",
    no_args_is_help=True,
)
app.add_typer(episode_app, name="episode")
graph_app = typer.Typer(help="Rename or delete a whole graph.", no_args_is_help=True)
app.add_typer(graph_app, name="graph")

EpisodeId = Annotated[
    int, typer.Argument(help="Episode id (see search --scope episodes).", min=1, max=SQL_INT_MAX)
]


def _say(text: str) -> None:
    err_console().print(text, markup=False)


@command("retract", on=episode_app)
def episode_retract(
    episode_id: EpisodeId,
    reason: Annotated[
        str | None, typer.Option("--reason", help="Why (kept, and named when observations retire).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Withdraw an update: kept and marked retracted, its facts end now, and analysis and
    search evidence leave it out. The next analyze updates the observations."""
    with open_store(create=False) as store:
        done = corrections.retract(store, episode_id, reason=reason)
    if as_json:
        print_json(done)
        return
    _say(
        f"retracted episode #{episode_id} ({done['source']}): {done['facts_ended']} fact(s) "
        f"ended; run 'memcli analyze --graph {done['graph']}' to update the observations"
    )


@command("move", on=episode_app)
def episode_move(
    episode_id: EpisodeId,
    to: Annotated[
        str,
        typer.Option("--to", help="The graph it belongs in (created if new).", callback=graph_name),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Move an update, with its facts, to another graph."""
    with open_store(create=False) as store:
        done = corrections.move_episode(store, episode_id, to)
    if as_json:
        print_json(done)
        return
    _say(
        f"moved episode #{episode_id} with {done['facts']} fact(s) from {done['from']!r} to "
        f"{done['to']!r}; run 'memcli analyze' to update both graphs' observations"
    )


@command("rename", on=graph_app)
def graph_rename(
    old: Annotated[str, typer.Argument(help="The graph's name now.")],
    new: Annotated[str, typer.Argument(help="Its new name.")],
    as_json: JsonOpt = False,
) -> None:
    """Rename a graph; everything in it keeps its ids and history."""
    with open_store(create=False) as store:
        done = corrections.rename_graph(store, old, new)
    if as_json:
        print_json(done)
        return
    _say(f"renamed graph {old!r} to {new!r}")


@command("delete", on=graph_app)
def graph_delete(
    name: Annotated[str, typer.Argument(help="The graph to delete.")],
    yes: Annotated[
        bool, typer.Option("--yes", "-y", help="Do not ask (needed when not at a terminal).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Delete a graph and everything in it (episodes, facts, entities, observations,
    history), in one transaction. Asks first at a terminal; needs --yes otherwise."""
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError(
                f"deleting graph {name!r} cannot be undone: pass --yes to confirm",
                hint="or run it at a terminal to be asked",
            )
        if not typer.confirm(f"Delete graph {name!r} and everything in it?", default=False):
            _say("nothing deleted")
            raise typer.Exit(1)
    with open_store(create=False) as store:
        done = corrections.delete_graph(store, name)
    if as_json:
        print_json(done)
        return
    deleted = done["deleted"]
    _say(
        f"deleted graph {name!r}: {deleted.get('episodes', 0)} episode(s), "
        f"{deleted.get('facts', 0)} fact(s), {deleted.get('entities', 0)} entities, "
        f"{deleted.get('observations', 0)} observation(s)"
    )
