"""Entity identity commands: entity alias, entity unmerge, entity merges (and the table
of ``memcli entities --suggest-merges``)."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memcli.cli._app import command, note, open_store, out_console
from memcli.cli._options import GraphOpt, JsonOpt
from memcli.cli._output import choose, emit

TypeOpt = Annotated[
    str | None,
    typer.Option(
        "--type",
        help="person, team or work_item, when a name is used for more than one kind.",
    ),
]
ReasonOpt = Annotated[
    str | None, typer.Option("--reason", help="Why (kept with the decision in its history).")
]


@command
def alias(
    name: Annotated[str, typer.Argument(help="The other name (e.g. an abbreviation).")],
    to: Annotated[str, typer.Option("--to", help="The entity it means.")],
    graph: GraphOpt,
    type_: TypeOpt = None,
    reason: ReasonOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Treat NAME as another name for --to: re-analysis counts them as one entity.
    Recorded and reversible (memcli entity unmerge)."""
    from memcli import corrections

    with open_store(create=False) as store:
        merge = corrections.alias(store, graph, name, to, type_=type_, reason=reason)
    emit(merge, choose(as_json=as_json), _said_merged)


def _said_merged(merge: dict[str, Any]) -> None:
    verb = "merged" if merge["changed"] else "already merged"
    note(
        f"{verb}: {merge['alias']!r} -> {merge['canonical']!r} (merge #{merge['id']}); "
        "run 'memcli analyze' to update the observations"
    )


@command
def unmerge(
    name: Annotated[str, typer.Argument(help="A name merged into another entity.")],
    graph: GraphOpt,
    type_: TypeOpt = None,
    reason: ReasonOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Undo a merge (a person's or an automatic one); the decision stays in the history
    and the pair is never merged automatically again."""
    from memcli import corrections

    with open_store(create=False) as store:
        merge = corrections.unmerge(store, graph, name, type_=type_, reason=reason)
    emit(merge, choose(as_json=as_json), _said_unmerged)


def _said_unmerged(merge: dict[str, Any]) -> None:
    note(
        f"unmerged: {merge['alias']!r} is its own entity again, not {merge['canonical']!r}; "
        "run 'memcli analyze' to update the observations"
    )


@command
def merges(
    graph: GraphOpt,
    active: Annotated[
        bool, typer.Option("--active", help="Only merges in force (not undone ones).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Every merge decision: who made it (a person or auto), when, why, and any undo."""
    from memcli import corrections

    with open_store(create=False) as store:
        rows = corrections.merges(store, graph, include_undone=not active)
    emit(rows, choose(as_json=as_json), _merges_table)


def _merges_table(rows: list[dict[str, Any]]) -> None:
    from rich.table import Table

    table = Table("id", "alias", "canonical", "by", "when", "why", "undone")
    for r in rows:
        table.add_row(
            str(r["id"]),
            r["alias"],
            r["canonical"],
            r["decided_by"],
            r["created_at"][:10],
            r["reason"],
            f"{r['undone_at'][:10]} {r['undo_reason']}" if r["undone_at"] else "",
        )
    out_console().print(table)


def suggestions_table(rows: list[dict[str, Any]]) -> None:
    """The table of ``memcli entities --suggest-merges``."""
    from rich.table import Table

    table = Table("alias", "canonical", "type", "why", "automatic")
    for r in rows:
        table.add_row(
            r["alias"]["name"],
            r["canonical"]["name"],
            r["alias"]["type"],
            "; ".join(r["reasons"]),
            "yes (next analyze)" if r["automatic"] else "",
        )
    out_console().print(table)
