"""memcli visualize: the dependency graph as Mermaid, Graphviz DOT or one offline HTML page."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli._app import command, err_console, open_store, write_out
from memcli.cli._options import GraphOpt
from memcli.errors import UsageError


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
) -> None:
    """Draw who waits on what: current blocked_by facts as arrows from blocker to the work
    waiting on it, owners, root blockers highlighted, grouped by observation."""
    from memcli import api
    from memcli.visualize import render

    with open_store(create=False) as store:
        picture = api.dependency_picture(store, graph)
    if not picture.nodes:
        err_console().print(f"{graph} has no current dependencies to draw.", markup=False)
    emit(render(picture, fmt.value), output)
