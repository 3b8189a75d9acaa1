"""The command-line interface: parses options, calls :mod:`memcli.api`, prints results.

Every command is registered here, in the order ``memcli --help`` lists them: the
modules only define functions, so importing one never changes the app. Command modules
import the library (store, api, pydantic, rich tables) inside the commands, which keeps
``import memcli.cli`` (paid by every invocation) small.

A run builds only what it needs: when the command line names a command, :func:`main`
imports that command's module and registers that command alone (typer then builds the
option parser of one command, not of forty); ``--help``, completion, a mistyped command
and anything it cannot tell at a glance get the whole application, so what a person
sees is the same either way. ``memcli.cli.app`` (the whole application, for tests and
embedding) is built on first use.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any

import typer

from memcli.cli._app import new_app, with_common_options

# Top-level commands in ``--help`` order: name -> (module in memcli.cli, function).
COMMANDS: dict[str, tuple[str, str]] = {
    "ingest": ("ingest_cmd", "ingest"),
    "analyze": ("ingest_cmd", "analyze"),
    "extract": ("ingest_cmd", "extract"),
    "explain": ("explain_cmd", "explain"),
    "observations": ("read_cmd", "observations"),
    "observe": ("read_cmd", "observations"),  # the design card's name for it
    "episodes": ("read_cmd", "episodes"),
    "graphs": ("read_cmd", "graphs"),
    "facts": ("read_cmd", "facts"),
    "entities": ("read_cmd", "entities"),
    "search": ("search_cmd", "search"),
    "report": ("report_cmd", "report"),
    "visualize": ("visualize_cmd", "visualize"),
    "mcp": ("mcp_cmd", "mcp"),
    "doctor": ("doctor_cmd", "doctor_command"),
    "export": ("transfer_cmd", "export"),
    "import": ("transfer_cmd", "import_"),
    "demo": ("demo_cmd", "demo"),
    "watch": ("watch_cmd", "watch"),
}

# Command groups: name -> (help, {command: (module, function)}).
GROUPS: dict[str, tuple[str, dict[str, tuple[str, str]]]] = {
    "config": (
        "Show the effective settings (language model backends) and where each came from.",
        {"show": ("config_cmd", "show")},
    ),
    "observation": (
        "Show one observation and its history (observations are read-only).",
        {"show": ("read_cmd", "show"), "history": ("read_cmd", "history")},
    ),
    "entity": (
        "Show one entity's facts over time; merge and unmerge names.",
        {
            "show": ("read_cmd", "entity_show"),
            "alias": ("identity_cmd", "alias"),
            "unmerge": ("identity_cmd", "unmerge"),
            "merges": ("identity_cmd", "merges"),
        },
    ),
    "episode": (
        "Show one stored update; retract it, or move it to another graph.",
        {
            "show": ("read_cmd", "episode_show"),
            "retract": ("corrections_cmd", "retract"),
            "move": ("corrections_cmd", "move"),
        },
    ),
    "graph": (
        "Rename or delete a whole graph.",
        {"rename": ("corrections_cmd", "rename"), "delete": ("corrections_cmd", "delete")},
    ),
}


def _function(module: str, name: str) -> Callable[..., Any]:
    command: Callable[..., Any] = getattr(importlib.import_module(f"memcli.cli.{module}"), name)
    return command


def register(app: typer.Typer, only: str | None = None) -> None:
    """Add every command and command group to ``app`` (or just the one named ``only``)."""
    for name, (module, function) in COMMANDS.items():
        if only in (None, name):
            app.command(name)(_function(module, function))
    for name, (help_text, commands) in GROUPS.items():
        if only not in (None, name):
            continue
        group = typer.Typer(help=help_text, no_args_is_help=True)
        for command, (module, function) in commands.items():
            group.command(command)(_function(module, function))
        app.add_typer(group, name=name)

    # Every command takes --db (after the command too) and --quiet.
    for info in app.registered_commands:
        info.callback = with_common_options(info.callback)  # type: ignore[arg-type]
    for group_info in app.registered_groups:
        assert group_info.typer_instance is not None
        for info in group_info.typer_instance.registered_commands:
            info.callback = with_common_options(info.callback)  # type: ignore[arg-type]


def build_app(only: str | None = None) -> typer.Typer:
    """A new application with every command, or only the command (or group) ``only``."""
    app = new_app()
    register(app, only)
    return app


def invoked(args: list[str]) -> str | None:
    """The command (or group) ``args`` run, when it can be told from the root options
    alone; None when the whole application is needed: help, the version, completion, a
    name that is no command (typer suggests the near ones), or anything unexpected."""
    if any(key.startswith("_") and key.endswith("_COMPLETE") for key in os.environ):
        return None  # shell completion lists every command
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--db":
            i += 2
        elif arg.startswith("--db="):
            i += 1
        elif arg in COMMANDS or arg in GROUPS:
            return arg
        else:
            return None
    return None


def main() -> None:
    """The ``memcli`` program: one command, then the process ends."""
    # When the process ends, Python's last garbage collections walk every object the
    # imports and the command made (~10-20 ms of CPU of a read command, more than its
    # SQL), to free memory the operating system takes back anyway. The exit handlers
    # run before them: freezing the objects there skips those walks. Nothing waits on
    # them: commands close their store and files themselves, and Python does not
    # promise to finalize objects still alive at exit.
    atexit.register(gc.freeze)
    build_app(invoked(sys.argv[1:]))(prog_name="memcli")


def __getattr__(name: str) -> Any:
    # ``from memcli.cli import app``: the whole application, built once, on first use.
    if name == "app":
        app = build_app()
        globals()["app"] = app
        return app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["app", "build_app", "main", "register"]
