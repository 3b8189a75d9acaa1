"""The command-line interface: parses options, calls :mod:`memcli.api`, prints results.

Every command is registered here, in the order ``memcli --help`` lists them: the
modules only define functions, so importing one never changes the app. Command modules
import the library (store, api, pydantic, rich tables) inside the commands, which keeps
``import memcli.cli`` (paid by every invocation) small.
"""

from __future__ import annotations

import typer

from memcli.cli import (
    config_cmd,
    corrections_cmd,
    demo_cmd,
    doctor_cmd,
    explain_cmd,
    identity_cmd,
    ingest_cmd,
    mcp_cmd,
    read_cmd,
    report_cmd,
    search_cmd,
    transfer_cmd,
    visualize_cmd,
    watch_cmd,
)
from memcli.cli._app import app, with_common_options


def register(app: typer.Typer) -> None:
    """Add every command and command group to ``app``."""
    app.command("ingest")(ingest_cmd.ingest)
    app.command("analyze")(ingest_cmd.analyze)
    app.command("extract")(ingest_cmd.extract)
    app.command("explain")(explain_cmd.explain)
    app.command("observations")(read_cmd.observations)
    app.command("observe")(read_cmd.observations)  # the design card's name for it
    app.command("episodes")(read_cmd.episodes)
    app.command("graphs")(read_cmd.graphs)
    app.command("facts")(read_cmd.facts)
    app.command("entities")(read_cmd.entities)
    app.command("search")(search_cmd.search)
    app.command("report")(report_cmd.report)
    app.command("visualize")(visualize_cmd.visualize)
    app.command("mcp")(mcp_cmd.mcp)
    app.command("doctor")(doctor_cmd.doctor_command)
    app.command("export")(transfer_cmd.export)
    app.command("import")(transfer_cmd.import_)
    app.command("demo")(demo_cmd.demo)
    app.command("watch")(watch_cmd.watch)

    config = typer.Typer(
        help="Show the effective settings (language model backends) and where each came from.",
        no_args_is_help=True,
    )
    config.command("show")(config_cmd.show)
    app.add_typer(config, name="config")

    observation = typer.Typer(
        help="Show one observation and its history (observations are read-only).",
        no_args_is_help=True,
    )
    observation.command("show")(read_cmd.show)
    observation.command("history")(read_cmd.history)
    app.add_typer(observation, name="observation")

    entity = typer.Typer(
        help="Show one entity's facts over time; merge and unmerge names.", no_args_is_help=True
    )
    entity.command("show")(read_cmd.entity_show)
    entity.command("alias")(identity_cmd.alias)
    entity.command("unmerge")(identity_cmd.unmerge)
    entity.command("merges")(identity_cmd.merges)
    app.add_typer(entity, name="entity")

    episode = typer.Typer(
        help="Show one stored update; retract it, or move it to another graph.",
        no_args_is_help=True,
    )
    episode.command("show")(read_cmd.episode_show)
    episode.command("retract")(corrections_cmd.retract)
    episode.command("move")(corrections_cmd.move)
    app.add_typer(episode, name="episode")

    graph = typer.Typer(help="Rename or delete a whole graph.", no_args_is_help=True)
    graph.command("rename")(corrections_cmd.rename)
    graph.command("delete")(corrections_cmd.delete)
    app.add_typer(graph, name="graph")

    # Every command takes --db (after the command too) and --quiet.
    for info in app.registered_commands:
        info.callback = with_common_options(info.callback)  # type: ignore[arg-type]
    for group in app.registered_groups:
        assert group.typer_instance is not None
        for info in group.typer_instance.registered_commands:
            info.callback = with_common_options(info.callback)  # type: ignore[arg-type]


register(app)


def main() -> None:
    app(prog_name="memcli")


__all__ = ["app", "main", "register"]
