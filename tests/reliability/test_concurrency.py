"""Concurrency: the cron case. Real processes write one database at the same time.

Nothing is lost, no "database is locked" reaches the user within the busy timeout, and
the memory afterwards is the one a sequential run builds (compared by natural keys:
concurrent ingests interleave, so row ids differ while the content is the same).
"""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from memcli.store import Store
from tests.reliability.helpers import natural_dump, run, start, write_updates


def finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str]]:
    out = []
    for proc in procs:
        _, stderr = proc.communicate(timeout=120)
        out.append((proc.returncode, stderr))
    return out


def test_two_ingests_and_an_analyze_at_once(tmp_path: Path) -> None:
    """Overlapping batches (40 files in both) race on the same duplicates; an analyze
    runs in the middle of it; then a final analyze. Same memory as one after another."""
    write_updates(tmp_path / "base", range(0, 40))
    paths = [str(p.relative_to(tmp_path)) for p in write_updates(tmp_path / "in", range(40, 300))]
    batch_a, batch_b = paths[:150], paths[110:]  # 40 files are in both batches

    sequential = tmp_path / "sequential.db"
    for args in (["base"], batch_a, batch_b):
        result = run(sequential, "ingest", "-q", *args, cwd=tmp_path)
        assert result.returncode == 0, result.stderr
    assert run(sequential, "analyze", cwd=tmp_path).returncode == 0
    expected = natural_dump(sequential)

    rounds = 2
    for attempt in range(rounds):
        db = tmp_path / f"concurrent{attempt}.db"
        assert run(db, "ingest", "base", "-q", cwd=tmp_path).returncode == 0
        procs = [
            start(db, "ingest", "-q", *batch_a, cwd=tmp_path),
            start(db, "ingest", "-q", *batch_b, cwd=tmp_path),
            start(db, "analyze", "--json", cwd=tmp_path),
        ]
        for code, stderr in finish(procs):
            assert code == 0, stderr
            assert "locked" not in stderr
        assert run(db, "analyze", "--json", cwd=tmp_path).returncode == 0
        got = natural_dump(db)
        assert len(got["episodes"]) == 300
        assert got == expected


def test_simultaneous_first_runs_on_a_fresh_database(tmp_path: Path) -> None:
    """Three processes create the same database at once: one migrates, the others
    wait; every update lands once."""
    paths = [str(p.relative_to(tmp_path)) for p in write_updates(tmp_path / "in", range(60))]
    batches = (paths[:40], paths[20:], paths[:40])
    sequential = tmp_path / "sequential.db"
    for batch in batches:
        assert run(sequential, "ingest", "-q", *batch, cwd=tmp_path).returncode == 0
    expected = natural_dump(sequential)
    for attempt in range(2):
        db = tmp_path / f"fresh{attempt}.db"
        procs = [start(db, "ingest", "-q", *batch, cwd=tmp_path) for batch in batches]
        for code, stderr in finish(procs):
            assert code == 0, stderr
        got = natural_dump(db)
        assert got == expected
        conn = sqlite3.connect(db)
        applied = conn.execute("SELECT count(*) FROM _sqlite_migrations").fetchone()[0]
        conn.close()
        assert applied == len(Store.known_migrations())


def test_lock_held_past_the_timeout_is_a_clear_error(tmp_path: Path) -> None:
    """When another writer holds the database longer than MEMCLI_BUSY_TIMEOUT, the user
    gets one actionable message and exit 1, not a traceback, and nothing is half-written."""
    write_updates(tmp_path / "in", range(5))
    db = tmp_path / "m.db"
    assert run(db, "ingest", "in/u00000.md", "-q", cwd=tmp_path).returncode == 0
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = run(db, "ingest", "in", "-q", cwd=tmp_path, MEMCLI_BUSY_TIMEOUT="0.3")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "database is locked" in result.stderr
    assert "MEMCLI_BUSY_TIMEOUT" in result.stderr
    conn = sqlite3.connect(db)
    assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 1
    conn.close()
    # once the lock is released the same command completes
    result = run(db, "ingest", "in", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
