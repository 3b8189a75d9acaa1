"""memcli search: full-text search over one graph, each result with why and evidence."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

import typer

from memcli.cli._app import command, note, open_store, out_console
from memcli.cli._options import GraphOpt, IdsOpt, IncludeEndedOpt, JsonlOpt, JsonOpt, LimitOpt
from memcli.cli._output import choose, emit
from memcli.search import HIGHLIGHT, Scope, parse_query

if TYPE_CHECKING:
    from rich.text import Text


def highlighted(snippet: str, style: str = "bold reverse") -> Text:
    """A snippet with its ``**match**`` markers turned into terminal highlighting."""
    from rich.text import Text

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
    from rich.text import Text

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


@command
def search(
    query: Annotated[
        str,
        typer.Argument(
            metavar="QUERY",
            help="What to look for: any text, no syntax ('--' before text that starts with '-').",
        ),
    ],
    graph: GraphOpt,
    scope: Annotated[
        Scope,
        typer.Option("--scope", help="What to search; 'all' fuses every kind by reciprocal rank."),
    ] = Scope.OBSERVATIONS,
    limit: LimitOpt = 10,
    include_ended: IncludeEndedOpt = False,
    as_json: JsonOpt = False,
    as_jsonl: JsonlOpt = False,
    quiet: IdsOpt = False,
) -> None:
    """Search a graph by relevance (SQLite FTS5, BM25); every result shows the words that
    matched and links to its evidence.

    Observations are also ranked by how many episodes support them and how recent their
    evidence is. Only current facts and active observations unless --include-ended.
    """
    from memcli import reads

    fmt = choose(as_json=as_json, as_jsonl=as_jsonl, quiet=quiet)
    with open_store(create=False) as store:
        rows = reads.search(
            store, graph, query, scope=scope.value, limit=limit, include_ended=include_ended
        )
    if parse_query(query).empty:
        note("Nothing to search for: the query has no letters or digits.")

    def human(rows: list[dict[str, Any]]) -> None:
        console = out_console()
        if not rows and not parse_query(query).empty:
            hint = (
                ""
                if include_ended or scope in (Scope.EPISODES, Scope.ENTITIES)
                else " (--include-ended also searches retired observations and ended facts)"
            )
            console.print(f"No {scope.value} in {graph} match {query!r}{hint}.", markup=False)
        for r in rows:
            console.print(render_result(r), soft_wrap=True)

    emit(rows, fmt, human)
