"""memcli demo leaves nothing behind unless asked to keep its database (issue 15, item 6)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run_demo(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``memcli [args] demo`` as a user runs it: a real process with its own TMPDIR and no
    MEMCLI_DB, so the only database it can use is one it makes itself."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "MEMCLI_DB"}
    env["TMPDIR"] = str(scratch)
    result = subprocess.run(
        [sys.executable, "-m", "memcli", *args, "demo"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result, scratch


def test_demo_removes_its_temporary_database(tmp_path: Path) -> None:
    result, scratch = run_demo(tmp_path)
    assert "Kafka upgrade blocking multiple workstreams" in result.stdout
    assert list(scratch.iterdir()) == []  # no memcli-demo-* folder left behind
    assert "temporary database was removed" in result.stderr
    assert "memcli --db FILE demo" in result.stderr


def test_demo_keeps_a_database_it_was_given_and_says_where(tmp_path: Path) -> None:
    kept = tmp_path / "kept.db"
    result, scratch = run_demo(tmp_path, "--db", str(kept))
    assert kept.is_file() and list(scratch.iterdir()) == []
    assert f"The database is kept at {kept}" in result.stderr
