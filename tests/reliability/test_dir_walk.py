"""Inside a directory argument, what cannot be read is reported (path and reason) and
the exit code is 1; everything else is still ingested."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Cli, update

BODY = "The release notes are blocked on the legal review."


def tree(tmp_path: Path) -> Path:
    top = tmp_path / "inbox"
    (top / "team").mkdir(parents=True)
    (top / "a.md").write_text(update("Zora", "2026-09-01", BODY), encoding="utf-8")
    (top / "team" / "b.md").write_text(
        update("Ari", "2026-09-02", "The legal review is owned by the compliance team."),
        encoding="utf-8",
    )
    return top


def ingest(cli: Cli, db: Path, folder: Path) -> tuple[int, dict[str, str], int]:
    result = cli("--db", str(db), "ingest", "--json", str(folder), ok=False)
    report = json.loads(result.stdout)
    assert "Traceback" not in result.stderr
    for e in report["errors"]:
        assert f"Error: {e['source']}: {e['reason']}" in result.stderr
    return (
        result.exit_code,
        {e["source"]: e["reason"] for e in report["errors"]},
        report["episodes"]["new"],
    )


def test_dangling_and_looping_symlinks_are_reported(
    cli: Cli, tmp_path: Path, db_path: Path
) -> None:
    top = tree(tmp_path)
    (top / "gone.md").symlink_to(top / "deleted-long-ago.md")
    (top / "ping.md").symlink_to(top / "pong.md")
    (top / "pong.md").symlink_to(top / "ping.md")
    code, errors, new = ingest(cli, db_path, top)
    assert code == 1
    assert "dangling symbolic link" in errors[str(top / "gone.md")]
    assert "symbolic link loop" in errors[str(top / "ping.md")]
    assert "symbolic link loop" in errors[str(top / "pong.md")]
    assert new == 2


def test_unreadable_subdirectory_is_reported(cli: Cli, tmp_path: Path, db_path: Path) -> None:
    top = tree(tmp_path)
    locked = top / "locked"
    locked.mkdir()
    (locked / "c.md").write_text(update("Ivo", "2026-09-03", BODY + " Still."), encoding="utf-8")
    locked.chmod(0)
    try:
        if os.access(locked, os.R_OK):
            pytest.skip("running with privileges that read a mode-000 directory (root)")
        code, errors, new = ingest(cli, db_path, top)
    finally:
        locked.chmod(0o755)
    assert code == 1
    assert "directory not read: permission denied" in errors[str(locked)]
    assert new == 2
