"""Start-up stays cheap: every command is a new process, so what ``import memcli.cli``
loads is paid on each one. Heavy libraries load only in the commands that use them.
(What they cost is measured by benchmarks/startup.py; tests assert no timings.)"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

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


def loaded_after(code: str, env: dict[str, str] | None = None) -> list[str]:
    """Which of HEAVY are in sys.modules when ``code`` has run in a fresh interpreter."""
    probe = (
        "import atexit, sys\n"
        f"heavy = {HEAVY!r}\n"
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
    loaded = loaded_after(code, {"MEMCLI_DB": str(db_path)})
    assert "memcli.contract" in loaded  # it did print records
    assert [m for m in loaded if m.startswith(("rich", "frontmatter", "yaml", "openai"))] == []


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
