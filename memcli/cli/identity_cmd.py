"""Entity identity commands: entity alias, entity unmerge, entity merges."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from memcli import corrections
from memcli.cli._app import (
    GraphOpt,
    JsonOpt,
    command,
    err_console,
    open_store,
    out_console,
    print_json,
)
from memcli.cli.read_cmd import entity_app

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


@command("alias", on=entity_app)
def entity_alias(
    name: Annotated[str, typer.Argument(help="The other name (e.g. an abbreviation).")],
    to: Annotated[str, typer.Option("--to", help="The entity it means.")],
    graph: GraphOpt,
    type_: TypeOpt = None,
    reason: ReasonOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Treat NAME as another name for --to: re-analysis counts them as one entity.
    Recorded and reversible (memcli entity unmerge)."""
    with open_store(create=False) as store:
        merge = corrections.alias(store, graph, name, to, type_=type_, reason=reason)
    if as_json:
        print_json(merge)
        return
    verb = "merged" if merge["changed"] else "already merged"
    err_console().print(
        f"{verb}: {merge['alias']!r} -> {merge['canonical']!r} (merge #{merge['id']}); "
        "run 'memcli analyze' to update the observations",
        markup=False,
    )


@command("unmerge", on=entity_app)
def entity_unmerge(
    name: Annotated[str, typer.Argument(help="A name merged into another entity.")],
    graph: GraphOpt,
    type_: TypeOpt = None,
    reason: ReasonOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Undo a merge (a person's or an automatic one); the decision stays in the history
    and the pair is never merged automatically again."""
    with open_store(create=False) as store:
        merge = corrections.unmerge(store, graph, name, type_=type_, reason=reason)
    if as_json:
        print_json(merge)
        return
    err_console().print(
        f"unmerged: {merge['alias']!r} is its own entity again, not {merge['canonical']!r}; "
        "run 'memcli analyze' to update the observations",
        markup=False,
    )


@command("merges", on=entity_app)
def entity_merges(
    graph: GraphOpt,
    active: Annotated[
        bool, typer.Option("--active", help="Only merges in force (not undone ones).")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Every merge decision: who made it (a person or auto), when, why, and any undo."""
    with open_store(create=False) as store:
        rows = corrections.merges(store, graph, include_undone=not active)
    if as_json:
        print_json(rows)
        return
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


def print_suggestions(rows: list[dict[str, Any]]) -> None:
    """The table of ``memcli entities --suggest-merges``."""
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
