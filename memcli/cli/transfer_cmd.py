"""memcli export and memcli import: a whole graph as JSON Lines, and back."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

import typer

from memcli import api, transfer
from memcli.cli._app import GraphOpt, JsonOpt, command, err_console, open_store
from memcli.cli.ingest_cmd import print_ingest_report
from memcli.errors import UsageError
from memcli.sources import SourceText, expand


@command("export")
def export(
    graph: GraphOpt,
    fmt: Annotated[
        str, typer.Option("--format", help="Output format (jsonl: one episode object a line).")
    ] = "jsonl",
    output: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="Write to this file (default: stdout)."),
    ] = None,
) -> None:
    """Export a graph: every episode with its facts, in the JSON format ingest reads.

    'memcli import FILE' into any database reproduces the same facts; 'memcli analyze'
    then derives the same observations. A file given with --output is written whole or
    not at all, readable only by you.
    """
    if fmt not in transfer.FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use {', '.join(transfer.FORMATS)}")
    episodes = facts = 0
    with open_store(create=False) as store:
        lines = transfer.export_graph(store, graph)
        if output is None:
            for line, n in lines:
                sys.stdout.write(line)
                episodes, facts = episodes + 1, facts + n
            sys.stdout.flush()
        else:
            episodes, facts = _write_atomically(output, lines)
    where = str(output) if output else "stdout"
    err_console().print(
        f"exported {episodes} episode(s), {facts} fact(s) from graph {graph!r} to {where}",
        markup=False,
    )


def _write_atomically(path: Path, lines: Iterable[tuple[str, int]]) -> tuple[int, int]:
    """Write to a private temporary file beside ``path``, then rename it into place."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    episodes = facts = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for line, n in lines:
                fh.write(line)
                episodes, facts = episodes + 1, facts + n
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return episodes, facts


@command("import")
def import_(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A memcli export (JSONL), or '-'.")],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph", "-g", help="Import into this graph (default: the graph in the file)."
        ),
    ] = None,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Do not redact secrets (see memcli ingest).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Import a graph exported with 'memcli export' (or any JSON/JSONL episodes).

    Facts in the file are stored as given, without extraction; episodes already present
    are skipped, so importing twice adds nothing. Exit 1 if any record failed.
    """
    items = list(expand([file]))
    fmt = next(
        (transfer.import_format(i.text) for i in items if isinstance(i, SourceText)), "jsonl"
    )
    with open_store() as store:
        report = api.ingest(store, items, graph=graph, redact=not no_redact, fmt=fmt)
    print_ingest_report(report, as_json=as_json, quiet=quiet)
