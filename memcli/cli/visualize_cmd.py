"""memcli visualize: the dependency graph as Mermaid, Graphviz DOT or one offline HTML page."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli._app import command, err_console, open_store, write_out
from memcli.cli._options import GraphOpt, in_range
from memcli.errors import UsageError
from memcli.visualize import AUTO_TOP, AUTO_TOP_NODES, DEFAULT_FAN, collapse, render, select


class PictureFormat(StrEnum):
    MERMAID = "mermaid"
    DOT = "dot"
    HTML = "html"


def emit(text: str, output: Path | None) -> None:
    """Write to ``output`` (reporting where on stderr), else to stdout."""
    if output is None:
        write_out(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
    err_console().print(f"Wrote {output} ({len(text.encode()):,} bytes)", markup=False)


@command
def visualize(
    graph: GraphOpt,
    fmt: Annotated[
        PictureFormat,
        typer.Option(
            "--format",
            help="mermaid (paste into Markdown), dot (Graphviz), html (one offline file).",
        ),
    ] = PictureFormat.MERMAID,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to this file (default: stdout).")
    ] = None,
    observation: Annotated[
        int | None,
        typer.Option(
            "--observation",
            metavar="ID",
            callback=in_range(1),
            help="Only this active observation's chain.",
        ),
    ] = None,
    root: Annotated[
        str | None,
        typer.Option(
            "--root",
            metavar="NAME",
            help="Only the chain through the item named NAME (a root: all that waits on it).",
        ),
    ] = None,
    top: Annotated[
        int | None,
        typer.Option(
            "--top",
            metavar="N",
            callback=in_range(0),
            help=f"Only the N highest-leverage observations (default: all, or the top "
            f"{AUTO_TOP} above {AUTO_TOP_NODES} boxes; 0: all).",
        ),
    ] = None,
    fan: Annotated[
        int,
        typer.Option(
            "--fan",
            metavar="N",
            callback=in_range(0),
            help="Fold a blocker's waiting items beyond N into one 'and K more' box (0: never).",
        ),
    ] = DEFAULT_FAN,
) -> None:
    """Draw who waits on what: current blocked_by facts as arrows from blocker to the work
    waiting on it, owners, root blockers highlighted, grouped by observation.

    Large graphs stay readable: --top, --observation and --root choose what to draw, long
    fans are folded, and Mermaid output is trimmed to the 500 edges Mermaid will draw.
    What was left out is said on stderr and in the picture.
    """
    from memcli import reads

    with open_store(create=False) as store:
        picture = reads.dependency_picture(store, graph)
    if not picture.nodes:
        err_console().print(f"{graph} has no current dependencies to draw.", markup=False)
    picture = collapse(select(picture, observation=observation, root=root, top=top), fan)
    notes = list(picture.notes)
    text = render(picture, fmt.value, notes)
    for note in notes:
        err_console().print(f"Note: {note}", markup=False)
    emit(text, output)
