"""memcli export and memcli import: a whole graph as JSON Lines, and back."""

from __future__ import annotations

import glob
import os
import signal
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from memcli.cli._app import MAX_BYTES_LIMIT, command, err_console, open_store
from memcli.cli._options import GraphOpt, JsonOpt, graph_name, in_range
from memcli.cli.ingest_cmd import print_ingest_report
from memcli.errors import MemcliError, UsageError

if TYPE_CHECKING:
    from memcli.transfer import ExportLine


class ExportFormat(StrEnum):
    JSONL = "jsonl"


@command
def export(
    graph: GraphOpt,
    fmt: Annotated[
        ExportFormat,
        typer.Option("--format", help="Output format (jsonl: one episode object a line)."),
    ] = ExportFormat.JSONL,
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="FILE", help="Write to this file (default: stdout)."
        ),
    ] = None,
) -> None:
    """Export a graph: every episode with its facts, in the JSON format ingest reads.

    'memcli import FILE' into any database reproduces the same facts; 'memcli analyze'
    then derives the same observations. A file given with --output is written whole or
    not at all, readable only by you.
    """
    from memcli import transfer

    if fmt not in transfer.FORMATS:
        raise UsageError(f"unknown format {fmt!r}: use {', '.join(transfer.FORMATS)}")
    if output is not None and output.is_dir():
        raise UsageError(
            f"--output {output} is a directory",
            hint=f"give a file name, e.g. {output}/{graph}.jsonl",
        )
    episodes = facts = decisions = 0
    with open_store(create=False) as store:
        lines = transfer.export_graph(store, graph)
        if output is None:
            try:
                for line in lines:
                    sys.stdout.write(line.text)
                    episodes, facts = episodes + line.episode, facts + line.facts
                    decisions += not line.episode
                sys.stdout.flush()
            except BrokenPipeError:
                raise
            except OSError as exc:
                raise MemcliError(
                    f"cannot write the export to stdout: {exc.strerror or exc}"
                ) from None
        else:
            with _signals_end_cleanly():
                episodes, facts, decisions = _write_atomically(output, lines)
    where = str(output) if output else "stdout"
    err_console().print(
        f"exported {episodes} episode(s), {facts} fact(s)"
        + (f", {decisions} merge decision(s)" if decisions else "")
        + f" from graph {graph!r} to {where}",
        markup=False,
    )


@contextmanager
def _signals_end_cleanly() -> Iterator[None]:
    """Turn SIGTERM and SIGHUP into SystemExit while the export is written, so that the
    temporary file is removed on the way out (SIGKILL cannot be caught: see
    :func:`_sweep_stale`)."""

    def stop(signum: int, _frame: object) -> None:
        raise SystemExit(128 + signum)

    caught = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]
    try:
        previous = {s: signal.signal(s, stop) for s in caught}
    except ValueError:  # not the main thread: leave signals alone
        previous = {}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _temp_prefix(path: Path) -> str:
    return f".{path.name}.export-"


def _sweep_stale(path: Path) -> None:
    """Remove temporary files a killed export to ``path`` left behind. Each carries its
    writer's process id; one whose process is gone is stale."""
    prefix = _temp_prefix(path)
    for tmp in path.parent.glob(f"{glob.escape(prefix)}*.tmp"):
        pid = tmp.name[len(prefix) :].split(".", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid() or not _alive(int(pid)):
            tmp.unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _write_atomically(path: Path, lines: Iterable[ExportLine]) -> tuple[int, int, int]:
    """Write to a private temporary file beside ``path``, then rename it into place.

    A write that fails (disk full, file size limit) removes the temporary file and
    leaves ``path`` as it was."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        _sweep_stale(path)
        fd, tmp = tempfile.mkstemp(
            prefix=f"{_temp_prefix(path)}{os.getpid()}.", suffix=".tmp", dir=path.parent
        )
    except OSError as exc:
        raise MemcliError(f"cannot write {path}: {exc.strerror or exc}") from None
    episodes = facts = decisions = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            for line in lines:
                fh.write(line.text)
                episodes, facts = episodes + line.episode, facts + line.facts
                decisions += not line.episode
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise MemcliError(
            f"cannot write {path}: {exc.strerror or exc}; nothing was written",
            hint="free some space (or raise the file size limit) and export again",
        ) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return episodes, facts, decisions


@command
def import_(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A memcli export (JSONL), or '-'.")],
    graph: Annotated[
        str | None,
        typer.Option(
            "--graph",
            "-g",
            metavar="NAME",
            help="Import into this graph (default: the graph in the file).",
            callback=graph_name,
        ),
    ] = None,
    no_redact: Annotated[
        bool, typer.Option("--no-redact", help="Do not redact secrets (see memcli ingest).")
    ] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary.")] = False,
    max_bytes: Annotated[
        int | None,
        typer.Option(
            "--max-bytes",
            metavar="BYTES",
            callback=in_range(1, MAX_BYTES_LIMIT),
            help="Largest file accepted, in bytes (default: $MEMCLI_MAX_FILE_BYTES or 10 MiB).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Import a graph exported with 'memcli export' (or any JSON/JSONL episodes).

    Facts in the file are stored as given, without extraction; episodes already present
    are skipped, so importing twice adds nothing. Exit 1 if any record failed.
    """
    from memcli import api, transfer
    from memcli.sources import SourceText, expand

    items = list(expand([file], limit=max_bytes))
    fmt = next(
        (transfer.import_format(i.text) for i in items if isinstance(i, SourceText)), "jsonl"
    )
    decisions: list[transfer.MergeDecision] = []
    if fmt == "jsonl":
        items, decisions = transfer.take_decisions(items)
    with open_store() as store:
        report = api.ingest(store, items, graph=graph, redact=not no_redact, fmt=fmt)
        if decisions:
            recorded, errors, redactions = transfer.restore_decisions(
                store, decisions, graph=graph, redact=not no_redact
            )
            report.merge_decisions = recorded
            report.errors.extend(errors)
            report.redactions.update(redactions)
    print_ingest_report(report, as_json=as_json, quiet=quiet)
