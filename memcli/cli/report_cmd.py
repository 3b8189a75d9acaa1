"""memcli report: the digest a person pastes into chat or email."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from memcli.cli._app import command, open_store, write_out
from memcli.cli._options import GraphOpt, JsonOpt
from memcli.cli._output import Format, emit
from memcli.errors import InputError, UsageError


class ReportFormat(StrEnum):
    MD = "md"
    JSON = "json"


@command
def report(
    graph: GraphOpt,
    since: Annotated[
        str | None,
        typer.Option(
            "--since",
            metavar="DATE",
            help="Report changes since this date or time (default: since the last report).",
        ),
    ] = None,
    learned: Annotated[
        bool,
        typer.Option(
            "--learned",
            help="Read --since as memcli time (when memcli learned of a change), not world time.",
        ),
    ] = False,
    fmt: Annotated[
        ReportFormat, typer.Option("--format", help="md: Markdown for people; json: for programs.")
    ] = ReportFormat.MD,
    no_record: Annotated[
        bool,
        typer.Option(
            "--no-record", help="Do not remember this report as the last one (a preview)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """What the team should act on: blockers ranked by leverage (how many people and work
    items unblocking the root would clear), what is new, and what was retired and why,
    each with its evidence.

    Without --since, changes are counted from the last report of this graph, and this run
    becomes the last report (unless --no-record). With --since, nothing is recorded, and
    the date is world time: a pattern that began, was restated or ended after it (by the
    dates of the updates); --learned reads it as when memcli learned of the change.
    """
    from memcli import reads
    from memcli.digest import render_markdown
    from memcli.readers import to_utc

    try:
        when = to_utc(since, source="--since") if since else None
    except InputError as exc:
        raise UsageError(exc.message, hint="for example --since 2026-11-09") from None
    with open_store(create=False) as store:
        data = reads.report(
            store, graph, since=when, record=not no_record and when is None, learned=learned
        )
    machine = as_json or fmt is ReportFormat.JSON
    emit(data, Format.JSON if machine else Format.TABLE, lambda d: write_out(render_markdown(d)))
