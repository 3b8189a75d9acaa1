"""memcli doctor: check the database and say how to repair what is wrong."""

from __future__ import annotations

from typing import Any

import typer

from memcli.cli._app import command, err_console, open_store, out_console, state
from memcli.cli._options import JsonOpt
from memcli.cli._output import choose, emit
from memcli.config import resolve_db_path
from memcli.errors import StoreError


@command
def doctor_command(as_json: JsonOpt = False) -> None:
    """Check the database: SQLite integrity, foreign keys, full-text indexes, orphaned
    rows, unfinished extraction, schema version and file permissions.

    Prints each finding with how to repair it, and exits 1 when anything is wrong.
    Changes nothing.
    """
    from memcli import doctor

    try:
        with open_store(create=False) as store:
            diagnosis = doctor.diagnose(store)
    except StoreError as exc:
        if any(
            why in exc.message
            for why in ("no memcli database", "is not a memcli database", "needs upgrading")
        ):
            raise
        diagnosis = doctor.unopenable(resolve_db_path(state.db), exc.message)

    def human(data: dict[str, Any]) -> None:
        out = out_console()
        out.print(f"database: {diagnosis.database}", markup=False)
        for check in diagnosis.checks:
            mark = "ok     " if check.ok else "PROBLEM"
            out.print(f"  {mark} {check.name:<12} {check.summary}", markup=False)
            if check.repair:
                out.print(f"          repair: {check.repair}", markup=False)

    emit(diagnosis.as_dict(), choose(as_json=as_json), human)
    if not diagnosis.ok:
        bad = [c.name for c in diagnosis.checks if not c.ok]
        err_console().print(f"doctor: problems found: {', '.join(bad)}", markup=False)
        raise typer.Exit(code=1)
