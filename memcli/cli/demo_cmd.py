"""memcli demo: the whole pipeline on the bundled sample data, in a fresh database."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from memcli.cli._app import command, err_console, out_console, state
from memcli.cli._options import JsonOpt
from memcli.cli._output import choose, emit
from memcli.cli.read_cmd import render_observation
from memcli.errors import UsageError


def sample_dir() -> Path:
    """sample_data/ beside the package (a source checkout or an editable install)."""
    return Path(__file__).resolve().parents[2] / "sample_data"


@command
def demo(
    path: Annotated[
        Path | None,
        typer.Argument(help="Folder of updates to use (default: the bundled sample_data/)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Ingest the sample data into a fresh database, analyze it and print the observations.

    Uses a temporary database, removed when the demo ends, unless --db (or $MEMCLI_DB)
    names one that does not exist yet: that one is kept, to explore afterwards.
    """
    folder = path or sample_dir()
    relative = os.path.relpath(folder)
    if not relative.startswith(".."):
        folder = Path(relative)  # sources read as the user would have typed them
    if not folder.is_dir():
        raise UsageError(
            f"sample data not found at {folder}",
            hint="run from a source checkout (pip install -e .), or pass a folder of updates",
        )
    if state.db:
        db_path = Path(state.db)
        if db_path.exists():
            raise UsageError(
                f"{db_path} already exists; demo wants a fresh database",
                hint="omit --db (and unset MEMCLI_DB) to use a temporary one",
            )
        run(folder, db_path, as_json=as_json, keep=True)
        return
    import tempfile

    # Nothing of a demo run is left behind: the folder goes even on an error or Ctrl-C.
    with tempfile.TemporaryDirectory(prefix="memcli-demo-") as scratch:
        run(folder, Path(scratch) / "memcli.db", as_json=as_json, keep=False)


def run(folder: Path, db_path: Path, *, as_json: bool, keep: bool) -> None:
    """The demo proper; ``keep`` says whether ``db_path`` outlives it (and so whether to
    point at it)."""
    from memcli import api
    from memcli.sources import expand
    from memcli.store import Store

    console = err_console()
    with Store(db_path) as store:
        report = api.ingest(store, expand([str(folder)]))
        for g in store.graph_ids():
            api.analyze(store, g)
        rows = api.observations(store, None, "active")
    where = f"into {db_path}" if keep else "into a temporary database"
    console.print(
        f"Ingested {report.episodes_new} updates from {folder} ({report.facts_new} facts) {where}",
        markup=False,
    )

    def human(rows: list[dict[str, Any]]) -> None:
        out = out_console()
        for graph in sorted({r["graph"] for r in rows}):
            out.rule(f"graph: {graph}")
            for obs in rows:
                if obs["graph"] == graph:
                    render_observation(out, obs)

    emit(rows, choose(as_json=as_json), human)
    if keep:
        console.print(
            f"The database is kept at {db_path}. Explore: memcli --db {db_path} observation show ID",
            markup=False,
        )
    else:
        console.print(
            "The temporary database was removed. To keep one and explore it: memcli --db FILE demo",
            markup=False,
        )
    if not report.ok:
        raise typer.Exit(code=1)
