"""memcli watch: a foreground process that ingests an inbox as files land."""

from __future__ import annotations

import signal
import threading
from datetime import UTC, datetime
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from memcli.cli._app import command, err_console, open_store
from memcli.cli._options import graph_name
from memcli.cli.ingest_cmd import parse_duration


@command
def watch(
    inbox: Annotated[
        Path, typer.Argument(metavar="INBOX", help="Folder that update files are dropped into.")
    ],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph",
            "-g",
            metavar="NAME",
            help="Put every episode in this graph (overrides front matter).",
            callback=graph_name,
        ),
    ] = None,
    settle: Annotated[
        str,
        typer.Option(
            "--settle",
            metavar="DURATION",
            help="Analyze once no new file has arrived for DURATION (e.g. 30s, 5m).",
        ),
    ] = "5m",
    interval: Annotated[
        str,
        typer.Option("--interval", metavar="DURATION", help="How often to look (e.g. 2s, 1m)."),
    ] = "2s",
    once: Annotated[
        bool,
        typer.Option("--once", help="Ingest what is there, analyze, and exit (no waiting)."),
    ] = False,
) -> None:
    """Ingest update files as they land in INBOX and analyze once the inbox has settled.

    Runs in the foreground (or as a systemd/launchd service) and logs one line per action
    to stderr. Each file is read once (by path, size and time; a changed file is read
    again). Ctrl-C or SIGTERM stops it cleanly after the current file: exit 0.
    """
    from memcli.watch import Watcher

    quiet_for = parse_duration(settle, "--settle")
    every = parse_duration(interval, "--interval", zero=False)
    console, loud = err_console(), err_console(always=True)

    def log(message: str) -> None:
        """One line per action; under --quiet only errors (and busy retries) print."""
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        out = loud if message.startswith(("error:", "database busy")) else console
        out.print(f"{stamp} {message}", markup=False)

    with open_store() as store:
        watcher = Watcher(store, inbox, graph=graph, settle=quiet_for, log=log)
        if once:
            watcher.once()
            if watcher.failures:
                raise typer.Exit(code=1)
            return
        stop = threading.Event()

        def on_signal(signum: int, _frame: FrameType | None) -> None:
            log(f"stopping on {signal.Signals(signum).name}")
            stop.set()

        previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
        try:
            log(
                f"watching {inbox} every {every:g}s; analyzing after {quiet_for:g}s without a "
                "new file"
            )
            watcher.run(stop, every)
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
        if watcher.dirty:
            log(
                f"not analyzed yet: {', '.join(sorted(watcher.dirty))} "
                "(the next 'memcli analyze' or watch will)"
            )
        log("stopped")
