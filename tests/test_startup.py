"""Start-up stays cheap: every command is a new process, so what ``import memcli.cli``
loads is paid on each one. Heavy libraries load only in the commands that use them.
(What they cost is measured by benchmarks/startup.py; tests assert no timings.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from memcli.cli import build_app, invoked
from tests.conftest import ROOT, Cli

# Loaded by commands that need them, never by the import of the CLI.
HEAVY = (
    "rich.console",
    "rich.table",
    "rich.progress",
    "sqlite3",
    "sqlite_utils",
    "frontmatter",
    "yaml",
    "tomllib",
    "memcli.store",
    "memcli.api",
    "memcli.contract",
    "memcli.readers",
    "memcli.redact",
    "memcli.llm.client",
    "openai",
    "instructor",
)


def loaded_after(
    code: str, env: dict[str, str] | None = None, watched: tuple[str, ...] = HEAVY
) -> list[str]:
    """Which of ``watched`` are in sys.modules when ``code`` has run in a fresh
    interpreter."""
    probe = (
        "import atexit, sys\n"
        f"heavy = {watched!r}\n"
        "atexit.register(lambda: print('LOADED=' + ','.join("
        "m for m in heavy if m in sys.modules), file=sys.stderr))\n" + code
    )
    run = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **(env or {})},
    )
    line = next(x for x in run.stderr.splitlines() if x.startswith("LOADED="))
    return [m for m in line.removeprefix("LOADED=").split(",") if m]


def test_importing_the_cli_loads_nothing_heavy() -> None:
    assert loaded_after("import memcli.cli") == []


def test_help_loads_nothing_heavy() -> None:
    code = "from memcli.cli import main\nsys.argv = ['memcli', '--help']\nmain()"
    assert loaded_after(code) == []


def test_observations_json_loads_no_terminal_or_reader_libraries(
    cli: Cli, atlas: Path, db_path: Path
) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    code = "from memcli.cli import main\nsys.argv = ['memcli', 'observations', '--json']\nmain()"
    watched = (
        *(m for m in HEAVY if m not in ("sqlite3", "memcli.store")),
        *("pydantic", "memcli.analysis", "memcli.cluster"),
    )
    run = subprocess.run(
        [sys.executable, "-m", "memcli", "observations", "--json"],
        capture_output=True,
        text=True,
        env={**os.environ, "MEMCLI_DB": str(db_path)},
    )
    assert json.loads(run.stdout)  # it did print records
    # Printed as plain records: neither the contract's models nor pydantic are loaded
    # (typer 0.28 parses the options without pydantic), nor the terminal or the reader,
    # nor the analysis (the store's analysis room imports it where it builds records).
    assert loaded_after(code, {"MEMCLI_DB": str(db_path)}, watched) == []


def test_reading_an_up_to_date_database_loads_no_sqlite_utils(
    cli: Cli, atlas: Path, db_path: Path
) -> None:
    # sqlite-utils (and numpy, which it imports when installed) are for migrations and
    # writes; a read of a database that needs no migration opens it with sqlite3 alone.
    cli("ingest", str(atlas))
    cli("analyze")
    code = "from memcli.cli import main\nsys.argv = ['memcli', 'observations', '--json']\nmain()"
    watched = ("sqlite_utils", "numpy", "memcli.store.migrations")
    assert loaded_after(code, {"MEMCLI_DB": str(db_path)}, watched) == []


# What ingest needs and a read does not: a read command imports memcli.reads alone.
INGEST_SIDE = (
    "memcli.api",
    "memcli.readers",
    "memcli.redact",
    "memcli.connectors",
    "memcli.sources",
    "memcli.writer",
    "memcli.corrections",
    "memcli.extract",
)


@pytest.mark.parametrize(
    "args",
    [
        ["observations", "--json"],
        ["entities", "-g", "project-atlas", "--json"],
        ["search", "-g", "project-atlas", "blocked"],
    ],
)
def test_a_read_command_loads_nothing_ingest_needs(
    cli: Cli, atlas: Path, db_path: Path, args: list[str]
) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    code = f"from memcli.cli import main\nsys.argv = ['memcli', *{args!r}]\nmain()"
    assert loaded_after(code, {"MEMCLI_DB": str(db_path)}, INGEST_SIDE) == []


def test_analyze_loads_neither_the_readers_nor_ingest(cli: Cli, atlas: Path, db_path: Path) -> None:
    # memcli analyze imports memcli.analyze: no reader, redaction, connector or extractor.
    cli("ingest", str(atlas))
    code = "from memcli.cli import main\nsys.argv = ['memcli', 'analyze']\nmain()"
    watched = tuple(m for m in INGEST_SIDE if m not in ("memcli.writer", "memcli.corrections"))
    assert loaded_after(code, {"MEMCLI_DB": str(db_path)}, watched) == []


def test_ingesting_into_a_new_database_loads_no_sqlite_utils(atlas: Path, tmp_path: Path) -> None:
    # A new database gets the migrated schema in one step (memcli.store.new_database):
    # the first ingest of a new store pays neither sqlite-utils nor numpy.
    db = tmp_path / "new.db"
    code = (
        "from memcli.cli import main\n"
        f"sys.argv = ['memcli', '--db', {str(db)!r}, 'ingest', {str(atlas)!r}]\n"
        "main()"
    )
    loaded = loaded_after(code, watched=("sqlite_utils", "numpy", "memcli.store.migrations"))
    assert loaded == []
    assert db.stat().st_size > 0


COMMAND_MODULES = tuple(
    f"memcli.cli.{p.stem}" for p in sorted((ROOT / "memcli" / "cli").glob("*_cmd.py"))
)


def test_a_command_loads_only_its_own_module(cli: Cli, atlas: Path, db_path: Path) -> None:
    cli("ingest", str(atlas))
    code = "from memcli.cli import main\nsys.argv = ['memcli', 'graphs', '--json']\nmain()"
    loaded = loaded_after(code, {"MEMCLI_DB": str(db_path)}, COMMAND_MODULES)
    assert loaded == ["memcli.cli.read_cmd"]


@pytest.mark.parametrize(
    "args",
    [
        ["observations", "--help"],
        ["graphs", "--json"],
        ["--db", "{db}", "graphs", "--json"],
        ["--db={db}", "observe", "--json", "--limit", "1"],
        ["observations", "--limit", "-1"],
        ["observations", "--bogus"],
        ["observation", "show", "abc"],
        ["observation"],
        ["entity", "--help"],
        ["observationz"],
        ["-q", "graphs"],
        ["--db"],
    ],
)
def test_a_one_command_run_answers_as_the_whole_application(
    cli: Cli, atlas: Path, db_path: Path, args: list[str]
) -> None:
    cli("ingest", str(atlas))
    args = [a.format(db=db_path) for a in args]
    runner = CliRunner()
    whole = runner.invoke(build_app(), args, prog_name="memcli")
    alone = runner.invoke(build_app(invoked(args)), args, prog_name="memcli")
    assert (alone.exit_code, alone.stdout, alone.stderr) == (
        whole.exit_code,
        whole.stdout,
        whole.stderr,
    )


def test_the_command_is_told_from_the_command_line() -> None:
    assert invoked(["observations", "--json"]) == "observations"
    assert invoked(["--db", "x.db", "entity", "show", "x"]) == "entity"
    assert invoked(["--db=x.db", "graphs"]) == "graphs"
    # The whole application: help, version, mistakes, and a missing --db value.
    assert invoked(["--help"]) is None
    assert invoked(["-V"]) is None
    assert invoked(["observationz"]) is None
    assert invoked(["--db"]) is None
    assert invoked([]) is None


def test_startup_benchmark_runs() -> None:
    run = subprocess.run(
        [sys.executable, "benchmarks/startup.py", "--runs", "1", "--size", "0"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    figures = [line.split("  ")[0] for line in run.stdout.splitlines()[1:]]
    assert figures[0] == "bare interpreter (python -c pass)"
    assert "import memcli.cli (-X importtime, cumulative)" in figures


def test_updates_with_given_facts_never_load_the_reader(tmp_path: Path) -> None:
    # Loading the rules reader compiles a few hundred patterns (~60 ms): an ingest with
    # nothing to read must not pay for it.
    data = tmp_path / "given.jsonl"
    record = {
        "content": "The relay waits on the vault.",
        "occurred_at": "2026-05-02",
        "facts": [{"source": "relay", "relation": "blocked_by", "target": "vault"}],
    }
    data.write_text(json.dumps(record) + "\n", encoding="utf-8")
    code = (
        "import sys\n"
        "from memcli import api\n"
        "from memcli.sources import expand\n"
        "from memcli.store import Store\n"
        f"with Store({str(tmp_path / 'm.db')!r}) as store:\n"
        f"    assert api.ingest(store, expand([{str(data)!r}])).episodes_new == 1\n"
        "print('memcli.extract.rules' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_ingest_that_prints_no_records_loads_no_pydantic(atlas: Path, tmp_path: Path) -> None:
    # The contract's records load pydantic (~50 ms): ``memcli.api`` re-exports them
    # lazily, so an ingest that prints a summary or nothing pays nothing for them; one
    # that prints its report as JSON does.
    db = tmp_path / "new.db"
    for flags, wanted in (("'--quiet'", []), ("'--json'", ["pydantic", "memcli.contract"])):
        code = (
            "from memcli.cli import main\n"
            f"sys.argv = ['memcli', '--db', {str(db)!r}, 'ingest', {str(atlas)!r}, {flags}]\n"
            "main()"
        )
        assert loaded_after(code, watched=("pydantic", "memcli.contract")) == wanted
    code = "import memcli.api as api\nprint(api.StoredFact.__module__, 'StoredFact' in dir(api))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.stdout.split() == ["memcli.contract", "True"]
