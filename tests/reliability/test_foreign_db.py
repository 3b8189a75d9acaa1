"""``--db`` at another application's SQLite file, or at nothing (issue 12, item 11).

memcli marks its databases with ``PRAGMA application_id`` and refuses to add its tables
(or WAL mode) to a database that is not its own. A read command never creates a file.
"""

from __future__ import annotations

import hashlib
import sqlite3
import subprocess
from pathlib import Path

import pytest

from tests.reliability.helpers import env, memcli_cmd


def run(db: Path, *args: str, input_text: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        memcli_cmd(db, *args),
        input=input_text,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


READS = [
    ("graphs",),
    ("observations", "--graph", "g"),
    ("facts", "--graph", "g"),
    ("entities", "--graph", "g"),
    ("search", "--graph", "g", "anything"),
    ("report", "--graph", "g"),
    ("doctor",),
    ("export", "--graph", "g"),
]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def foreign(path: Path) -> Path:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE recipes (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO recipes (title) VALUES ('lentil soup')")
    conn.commit()
    conn.close()
    return path


@pytest.mark.parametrize("args", [*READS, ("ingest", "-"), ("analyze", "--graph", "g")])
def test_foreign_database_is_refused_and_left_byte_identical(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    db = foreign(tmp_path / "other.db")
    before = digest(db)
    result = run(db, *args, input_text="Alice is blocked by the parser.\n")
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{db} is not a memcli database" in result.stderr
    assert "recipes" in result.stderr
    assert digest(db) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other.db"]


def test_foreign_application_id_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "marked.db"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA application_id = 1234")
    conn.commit()
    conn.close()
    before = digest(db)
    result = run(db, "graphs")
    assert result.returncode == 1 and "application_id 0x4d2" in result.stderr
    assert digest(db) == before


def test_memcli_databases_carry_the_mark(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    assert run(db, "ingest", "-", input_text="Alice is blocked by the parser.\n").returncode == 0
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x4D654D63  # 'MeMc'
    # A database written before the mark existed: the migration adds it on next open.
    conn.execute("PRAGMA application_id = 0")
    conn.execute("DELETE FROM _sqlite_migrations WHERE name = 'm004_application_id'")
    conn.commit()
    conn.close()
    assert run(db, "graphs").returncode == 0
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA application_id").fetchone()[0] == 0x4D654D63  # 'MeMc'
    conn.close()


@pytest.mark.parametrize("args", READS)
def test_read_command_does_not_create_a_missing_database(
    tmp_path: Path, args: tuple[str, ...]
) -> None:
    db = tmp_path / "typo" / "nested" / "memcli.db"
    result = run(db, *args)
    assert result.returncode == 1, result.stdout
    assert "Traceback" not in result.stderr
    assert f"no memcli database at {db} (run memcli ingest to create one)" in result.stderr
    assert not (tmp_path / "typo").exists()


def test_writes_still_create(tmp_path: Path) -> None:
    db = tmp_path / "new" / "memcli.db"
    result = run(db, "ingest", "-", input_text="Alice is blocked by the parser.\n")
    assert result.returncode == 0, result.stderr
    assert db.is_file()
