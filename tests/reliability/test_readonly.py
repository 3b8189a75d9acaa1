"""Read-only media (issue 12, item 12): reads work, writes and doctor name the cause.

Root writes through any file mode, so the real runs drop to an unprivileged user
(``setpriv`` to ``nobody``) when the suite runs as root; as a normal user they run
directly. Where neither is possible the tests say why and skip.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.reliability.helpers import env

UPDATE = "---\nauthor: Alice\ndate: 2026-11-02\ngraph: g\n---\nAlice is blocked by the parser.\n"


def _unprivileged() -> tuple[list[str], int] | None:
    """A command prefix that runs as a user file modes apply to, and that user's uid."""
    if os.geteuid() != 0:
        return [], os.geteuid()
    setpriv = shutil.which("setpriv")
    try:
        nobody = pwd.getpwnam("nobody").pw_uid
    except KeyError:
        return None
    if setpriv is None:
        return None
    prefix = [setpriv, f"--reuid={nobody}", f"--regid={nobody}", "--clear-groups"]
    probe = subprocess.run(
        [*prefix, sys.executable, "-c", "import memcli"], capture_output=True, check=False
    )
    return (prefix, nobody) if probe.returncode == 0 else None


USER = _unprivileged()
pytestmark = pytest.mark.skipif(
    USER is None,
    reason="running as root with no way (setpriv, a 'nobody' user that can import "
    "memcli) to drop privileges: root ignores file modes, so read-only cannot be made",
)


@pytest.fixture
def place() -> Iterator[Path]:
    """A folder the unprivileged user can reach (pytest's tmp_path is root-only)."""
    folder = Path(tempfile.mkdtemp(prefix="memcli-ro-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        for path in folder.rglob("*"):
            path.chmod(0o700 if path.is_dir() else 0o600)
        shutil.rmtree(folder)


def as_user(place: Path, db: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    assert USER is not None
    home = place / "home"
    home.mkdir(exist_ok=True)
    os.chown(home, USER[1], -1)
    return subprocess.run(
        [*USER[0], sys.executable, "-m", "memcli", "--db", str(db), *args],
        input=stdin,
        env=env(MEMCLI_HOME=str(home), HOME=str(home)),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=place,
    )


def make_db(place: Path, folder: str) -> Path:
    """A memcli database with one update, owned by the unprivileged user."""
    assert USER is not None
    (place / folder).mkdir()
    db = place / folder / "memcli.db"
    os.chown(place / folder, USER[1], -1)
    made = as_user(place, db, "ingest", "-", stdin=UPDATE)
    assert made.returncode == 0, made.stderr
    return db


def check_reads(place: Path, db: Path) -> None:
    facts = as_user(place, db, "facts", "--graph", "g", "--json")
    assert facts.returncode == 0, facts.stderr
    assert [f["relation"] for f in json.loads(facts.stdout)] == ["blocked_by"]
    for args in (("graphs",), ("search", "--graph", "g", "parser"), ("export", "--graph", "g")):
        result = as_user(place, db, *args)
        assert result.returncode == 0, (args, result.stderr)
        assert "Traceback" not in result.stderr


def doctor(place: Path, db: Path) -> dict[str, dict[str, object]]:
    result = as_user(place, db, "doctor", "--json")
    assert "Traceback" not in result.stderr
    return {c["name"]: c for c in json.loads(result.stdout)["checks"]}


def test_read_only_file(place: Path) -> None:
    db = make_db(place, "data")
    db.chmod(0o400)
    check_reads(place, db)
    checks = doctor(place, db)
    assert checks["access"]["ok"] is False
    assert "the database file is read-only" in str(checks["access"]["summary"])
    assert checks["fts"]["ok"] is True and checks["integrity"]["ok"] is True
    write = as_user(place, db, "ingest", "-", stdin=UPDATE.replace("parser", "linker"))
    assert write.returncode == 1 and "Traceback" not in write.stderr
    assert "the database file is read-only" in write.stderr


def test_read_only_directory(place: Path) -> None:
    db = make_db(place, "data")
    db.parent.chmod(0o555)
    for side in ("-wal", "-shm"):
        assert not Path(f"{db}{side}").exists()
    check_reads(place, db)
    checks = doctor(place, db)
    assert "open" not in checks  # not called damaged
    assert "the directory is read-only" in str(checks["access"]["summary"])
    assert "-wal/-shm" in str(checks["access"]["summary"])
    assert checks["integrity"]["ok"] is True
    write = as_user(place, db, "analyze", "--graph", "g")
    assert write.returncode == 1 and "Traceback" not in write.stderr
    assert "the directory is read-only" in write.stderr


def test_read_only_database_needing_a_migration_says_so(place: Path) -> None:
    db = make_db(place, "data")
    conn = sqlite3.connect(db)
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm004_application_id'")
    conn.execute("PRAGMA application_id = 0")
    conn.commit()
    conn.close()
    db.chmod(0o400)
    result = as_user(place, db, "graphs")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "needs upgrading" in result.stderr and "read-only" in result.stderr
