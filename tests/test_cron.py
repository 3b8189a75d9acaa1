"""The README's cron recipe, run as cron runs it, and the exit codes it relies on.

cron starts a job with almost no environment (HOME, a PATH of /usr/bin:/bin that does
not hold the virtual environment), no terminal and nothing on stdin, and mails whatever
the job prints. So the recipe's lines are taken from the README verbatim (only the
example paths are swapped for temporary ones) and run under ``/bin/sh`` exactly so.
"""

from __future__ import annotations

import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT, SAMPLES, Cli, update

CRON_PATH = "/usr/bin:/bin"


def memcli_executable() -> Path:
    """The installed console script, next to the interpreter running the tests."""
    exe = Path(sys.executable).parent / "memcli"
    if not exe.is_file():
        pytest.skip(f"no memcli console script beside {sys.executable} (pip install -e .)")
    return exe


def recipe_lines() -> list[str]:
    """The command part (after the five schedule fields) of each line of the README's
    ```cron block under 'Running from cron'."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("### Running from cron\n", 1)[1].split("\n### ", 1)[0]
    block = re.search(r"```cron\n(.*?)```", section, re.S)
    assert block, "the README's cron section has a ```cron block"
    lines = [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]
    return [ln.split(None, 5)[5] for ln in lines]


def run_as_cron(line: str, home: Path) -> subprocess.CompletedProcess[str]:
    command = line.replace("/home/you/.venv/bin/memcli", str(memcli_executable()))
    command = command.replace("/home/you", str(home))
    return subprocess.run(
        ["/bin/sh", "-c", command],
        env={"HOME": str(home), "PATH": CRON_PATH},  # nothing else, as cron
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        start_new_session=True,  # no controlling terminal
        cwd=home,
        timeout=300,
    )


def test_recipe_uses_absolute_paths() -> None:
    [line] = recipe_lines()
    assert "/home/you/.venv/bin/memcli ingest" in line and "memcli analyze" in line
    for word in line.split():
        if "memcli" in word and "/" not in word:
            pytest.fail(f"{word!r} relies on PATH, which under cron lacks the venv")
    # What the absolute path is for: the venv's bin is not on cron's PATH.
    assert str(memcli_executable().parent) not in CRON_PATH.split(":")


def test_readme_cron_recipe_is_silent_when_all_is_well(tmp_path: Path) -> None:
    [line] = recipe_lines()
    home = tmp_path / "home"
    inbox = home / "updates" / "inbox"
    inbox.mkdir(parents=True)
    db = home / "memcli.db"

    # Before the first update arrives: nothing to do, nothing printed, exit 0.
    before = run_as_cron(line, home)
    assert (before.returncode, before.stdout, before.stderr) == (0, "", "")

    for sample in sorted((SAMPLES / "project-atlas").glob("*.md")):
        shutil.copy(sample, inbox / sample.name)
    first = run_as_cron(line, home)
    assert (first.returncode, first.stdout, first.stderr) == (0, "", "")
    with sqlite3.connect(db) as conn:
        episodes = conn.execute("SELECT count(*) FROM episodes").fetchone()[0]
        observations = conn.execute("SELECT count(*) FROM observations").fetchone()[0]
    assert episodes == 3 and observations >= 1  # ingested and analyzed
    assert list(inbox.iterdir()) == []  # each stored file moved out of the inbox
    assert len(list((home / "updates" / "done").glob("*.md"))) == 3

    second = run_as_cron(line, home)
    assert (second.returncode, second.stdout, second.stderr) == (0, "", "")


def test_a_bad_file_is_reported_and_stays_in_the_inbox(tmp_path: Path) -> None:
    [line] = recipe_lines()
    home = tmp_path / "home"
    inbox = home / "updates" / "inbox"
    inbox.mkdir(parents=True)
    (inbox / "good.md").write_text(
        update("Ana", "2026-11-03", "The billing export is blocked by the ledger cleanup.")
    )
    (inbox / "broken.md").write_bytes(b"\xff\xfe" + "not utf-8".encode("utf-16-le"))
    run = run_as_cron(line, home)
    assert "broken.md" in run.stderr  # cron mails this
    assert [p.name for p in inbox.iterdir()] == ["broken.md"]
    assert (home / "updates" / "done" / "good.md").is_file()


def test_move_to_keeps_paths_and_never_overwrites(cli: Cli, tmp_path: Path) -> None:
    inbox, done = tmp_path / "inbox", tmp_path / "done"
    (inbox / "team").mkdir(parents=True)
    text = update("Ana", "2026-11-03", "The billing export is blocked by the ledger cleanup.")
    (inbox / "team" / "a.md").write_text(text)
    cli("ingest", "--quiet", "--move-to", str(done), str(inbox))
    assert (done / "team" / "a.md").read_text() == text
    # The same name arrives again (a later update): it is numbered, not overwritten.
    later = update("Ana", "2026-11-04", "The ledger cleanup shipped.")
    (inbox / "team" / "a.md").write_text(later)
    cli("ingest", "--quiet", "--move-to", str(done), str(inbox))
    assert (done / "team" / "a.md").read_text() == text
    assert (done / "team" / "a.1.md").read_text() == later
    assert not list((inbox / "team").iterdir())


def test_move_to_refuses_stdin(cli: Cli, tmp_path: Path) -> None:
    result = cli("ingest", "--move-to", str(tmp_path / "done"), "-", input="x", ok=False)
    assert result.exit_code == 2 and "--move-to" in result.stderr


def test_nothing_to_analyze_exits_zero(cli: Cli, tmp_path: Path) -> None:
    db = str(tmp_path / "fresh.db")
    cli("ingest", "--db", db, "--quiet", str(tmp_path))  # creates the database, no graphs
    said = cli("analyze", "--db", db)
    assert "no graphs yet" in said.stderr
    quiet = cli("analyze", "--db", db, "--quiet")
    assert (quiet.stdout, quiet.stderr) == ("", "")
    assert cli("analyze", "--db", db, "--json").stdout.strip() == "[]"


def test_settling_is_silent_under_quiet(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    cli("ingest", "--db", db, "--quiet", str(atlas))
    loud = cli("analyze", "--db", db, "--settle", "1h")
    assert "skipped" in loud.stderr
    quiet = cli("analyze", "--db", db, "--settle", "1h", "--quiet")
    assert (quiet.exit_code, quiet.stdout, quiet.stderr) == (0, "", "")
