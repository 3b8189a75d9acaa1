"""memcli search: full-text search over one graph, each result with why and evidence."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.text import Text

from memcli import api
from memcli.cli._app import (
    SQL_INT_MAX,
    GraphOpt,
    JsonOpt,
    command,
    err_console,
    open_store,
    out_console,
    print_json,
)
from memcli.search import HIGHLIGHT, Scope, parse_query


def highlighted(snippet: str, style: str = "bold reverse") -> Text:
    """A snippet with its ``**match**`` markers turned into terminal highlighting."""
    opener, closer = HIGHLIGHT
    text = Text()
    rest = snippet
    while opener in rest:
        before, _, after = rest.partition(opener)
        word, found, rest = after.partition(closer)
        text.append(before)
        if not found:  # an unmatched marker is text, not markup
            text.append(opener + word)
            break
        text.append(word, style=style)
    else:
        text.append(rest)
    return text


def _ids(label: str, ids: list[int]) -> str:
    if not ids:
        return ""
    shown = ", ".join(f"#{i}" for i in ids[:8])
    more = f" +{len(ids) - 8}" if len(ids) > 8 else ""
    return f"{label} {shown}{more}"


def render_result(r: dict[str, Any]) -> Text:
    line = Text()
    line.append(f"{r['rank']:>2}. ", style="bold")
    line.append(f"{r['type']} #{r['id']}  ", style="cyan")
    line.append(r["title"], style="bold")
    tags = [t for t in (r["status"], (r["date"] or "")[:10]) if t]
    if tags:
        line.append(f"  [{', '.join(tags)}]", style="dim")
    line.append("\n    ")
    line.append_text(highlighted(" ".join(r["snippet"].split())))
    ev = r["evidence"]
    links = "; ".join(
        p
        for p in (
            _ids("observations", ev["observation_ids"]),
            _ids("episodes", ev["episode_ids"]),
            _ids("facts", ev["fact_ids"]),
        )
        if p
    )
    if links:
        line.append(f"\n    evidence: {links}", style="dim")
    if ev["sources"] and r["type"] in ("fact", "episode"):
        line.append(f"\n    source: {', '.join(ev['sources'])}", style="dim")
    return line


@command("search")
def search(
    query: Annotated[
        str,
        typer.Argument(
            help="What to look for: any text, no syntax ('--' before text that starts with '-')."
        ),
    ],
    graph: GraphOpt,
    scope: Annotated[
        Scope,
        typer.Option("--scope", help="What to search; 'all' fuses every kind by reciprocal rank."),
    ] = Scope.OBSERVATIONS,
    limit: Annotated[
        int,
        typer.Option("--limit", "-n", min=1, max=SQL_INT_MAX, help="At most this many results."),
    ] = 10,
    include_ended: Annotated[
        bool,
        typer.Option(
            "--include-ended",
            help="Also match facts that later updates ended and retired observations.",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Search a graph by relevance (SQLite FTS5, BM25); every result shows the words that
    matched and links to its evidence.

    Observations are also ranked by how many episodes support them and how recent their
    evidence is. Only current facts and active observations unless --include-ended.
    """
    with open_store(create=False) as store:
        rows = api.search(
            store, graph, query, scope=scope.value, limit=limit, include_ended=include_ended
        )
    if parse_query(query).empty:
        err_console().print(
            "Nothing to search for: the query has no letters or digits.", markup=False
        )
    if as_json:
        print_json(rows)
        return
    console = out_console()
    if not rows:
        if not parse_query(query).empty:
            hint = (
                ""
                if include_ended or scope in (Scope.EPISODES, Scope.ENTITIES)
                else " (--include-ended also searches retired observations and ended facts)"
            )
            console.print(f"No {scope.value} in {graph} match {query!r}{hint}.", markup=False)
        return
    for r in rows:
        console.print(render_result(r), soft_wrap=True)
