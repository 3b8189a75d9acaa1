"""Hostile numbers, settings and outputs get a one-line message, never a traceback
(issue 12, item 15). Each case is a real CLI run in its own process."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from tests.reliability.helpers import env, memcli_cmd, write_updates

HUGE = str(10**20)


def run(
    db: Path, *args: str, stdin: str = "", fsize: int | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:  # runs in the child only
        if fsize is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))

    return subprocess.run(
        memcli_cmd(db, *args),
        input=stdin,
        env=env(**extra),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        preexec_fn=limit if fsize is not None else None,
    )


def clean_failure(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> None:
    assert result.returncode == code, (result.returncode, result.stderr)
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "memcli.db"
    write_updates(tmp_path / "in", range(80))
    made = run(path, "ingest", "-q", str(tmp_path / "in"))
    assert made.returncode == 0, made.stderr
    assert run(path, "analyze", "--graph", "g").returncode == 0
    return path


@pytest.mark.parametrize(
    "args",
    [
        ("observations", "--graph", "g", "--limit", HUGE),
        ("search", "--graph", "g", "--limit", HUGE, "blocked"),
        ("observation", "show", HUGE),
        ("observation", "history", HUGE),
        ("analyze", "--graph", "g", "--max-cluster", HUGE),
        ("ingest", "--max-bytes", "1" * 23, "-"),
        ("import", "--max-bytes", "1" * 23, "-"),
    ],
)
def test_huge_numbers_are_usage_errors(db: Path, args: tuple[str, ...]) -> None:
    clean_failure(run(db, *args), 2, "Invalid value")


@pytest.mark.parametrize("value", ["inf", "nan", "-1", "soon", "1e30"])
def test_bad_busy_timeout_is_named(db: Path, value: str) -> None:
    result = run(db, "graphs", MEMCLI_BUSY_TIMEOUT=value)
    clean_failure(result, 2, "MEMCLI_BUSY_TIMEOUT", repr(value))


def test_busy_timeout_still_accepts_seconds(db: Path) -> None:
    assert run(db, "graphs", MEMCLI_BUSY_TIMEOUT="2.5").returncode == 0


@pytest.mark.parametrize("window", ["-1d", "0d", "-5", "nan", "1e999d", "soon"])
def test_bad_window_is_refused_and_retires_nothing(db: Path, window: str) -> None:
    before = json.loads(run(db, "observations", "--graph", "g", "--json").stdout)
    assert before, "the fixture should have active observations"
    result = run(db, "analyze", "--graph", "g", "--window", window, "--force")
    clean_failure(result, 2, "--window", window)
    after = json.loads(run(db, "observations", "--graph", "g", "--json").stdout)
    assert after == before


def test_negative_settle_is_refused(db: Path) -> None:
    clean_failure(run(db, "analyze", "--graph", "g", "--settle", "-5m"), 2, "--settle")


def test_export_to_a_directory(db: Path, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    clean_failure(run(db, "export", "--graph", "g", "--output", str(folder)), 2, "is a directory")
    assert list(folder.iterdir()) == []


def test_export_to_a_full_disk_leaves_nothing(db: Path, tmp_path: Path) -> None:
    # RLIMIT_FSIZE makes every write past 36 KiB (the -shm file takes 32) fail with EFBIG, as a full disk fails
    # with ENOSPC (mounting a small tmpfs needs privileges tests do not have).
    out = tmp_path / "out"
    out.mkdir()
    target = out / "g.jsonl"
    target.write_text("previous export\n")
    result = run(db, "export", "--graph", "g", "--output", str(target), fsize=36 * 1024)
    clean_failure(result, 1, f"cannot write {target}", "nothing was written")
    assert target.read_text() == "previous export\n"
    assert sorted(p.name for p in out.iterdir()) == ["g.jsonl"]


def test_export_to_full_stdout(db: Path, tmp_path: Path) -> None:
    sink = tmp_path / "stdout.jsonl"
    with sink.open("w") as fh:
        result = subprocess.run(
            memcli_cmd(db, "export", "--graph", "g"),
            env=env(),
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            timeout=120,
            check=False,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (36 * 1024, 36 * 1024)),
        )
    clean_failure(result, 1, "cannot write the export to stdout")


def test_import_takes_max_bytes(db: Path, tmp_path: Path) -> None:
    export = tmp_path / "g.jsonl"
    assert run(db, "export", "--graph", "g", "--output", str(export)).returncode == 0
    size = export.stat().st_size
    fresh = tmp_path / "fresh.db"
    small = run(fresh, "import", "--max-bytes", str(size - 1), str(export))
    clean_failure(small, 1, "--max-bytes")
    enough = run(fresh, "import", "--max-bytes", str(size), str(export))
    assert enough.returncode == 0, enough.stderr
    assert "80 new episode(s)" in enough.stderr + enough.stdout


if sys.platform == "win32":  # pragma: no cover
    pytestmark = pytest.mark.skip(reason="resource limits are POSIX")


@pytest.mark.parametrize("where", ["file", "stdin"])
def test_a_huge_but_accepted_max_bytes_reads_a_small_input(tmp_path: Path, where: str) -> None:
    """A limit far above any real input (here ~90 PB) is a limit, not a buffer size:
    reading a two-line update must not try to allocate it (it used to: MemoryError)."""
    update = tmp_path / "one.md"
    update.write_text("---\nauthor: Al\ndate: 2026-11-02\n---\nThe API migration shipped.\n")
    fresh = tmp_path / "fresh.db"
    limit = str(10**17)
    if where == "file":
        result = run(fresh, "ingest", "--max-bytes", limit, str(update))
    else:
        result = run(fresh, "ingest", "--max-bytes", limit, "-", stdin=update.read_text())
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr and "1 new episode(s)" in result.stderr + result.stdout
