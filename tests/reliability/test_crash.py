"""Crash safety: SIGKILL real ingest and analyze processes mid-way.

After every kill the database passes PRAGMA integrity_check, no episode is stored
without its facts, and re-running the same command reaches exactly the state of an
uninterrupted run (every row of every table, ids included; only wall-clock columns are
left out of the comparison).
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.reliability.helpers import (
    count,
    episodes_without_facts,
    exact_dump,
    facts_by_episode,
    integrity,
    run,
    start,
    update_text,
    wait_until,
    write_updates,
)

N_FILES = 2500
N_LINES = 1500


class Reference:
    """Inputs and the state an uninterrupted run reaches (built once for the module)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        write_updates(root / "in", range(N_FILES))
        clean = root / "clean.db"
        result = run(clean, "ingest", "in", "-q", cwd=root)
        assert result.returncode == 0, result.stderr
        self.ingested = exact_dump(clean)
        self.facts = facts_by_episode(clean)
        self.ingested_db = root / "ingested.db"
        shutil.copy(clean, self.ingested_db)  # closed cleanly: no WAL left beside it
        result = run(clean, "analyze", cwd=root)
        assert result.returncode == 0, result.stderr
        self.analyzed = exact_dump(clean)
        assert self.analyzed["observations"], "the corpus must produce observations"


@pytest.fixture(scope="module")
def ref(tmp_path_factory: pytest.TempPathFactory) -> Reference:
    return Reference(tmp_path_factory.mktemp("crash"))


def kill(proc: subprocess.Popen[str]) -> None:
    assert proc.poll() is None, "the process finished before it could be killed mid-way"
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL


def assert_consistent(db: Path, ref: Reference) -> int:
    """What a killed run leaves behind: sound, and every stored episode complete."""
    assert integrity(db) == ["ok"]
    assert episodes_without_facts(db) == 0
    stored = facts_by_episode(db)
    for digest, facts in stored.items():
        assert facts == ref.facts[digest], "an episode was stored with only part of its facts"
    conn = sqlite3.connect(db)
    try:
        unsigned = conn.execute(
            "SELECT count(*) FROM facts f WHERE NOT EXISTS"
            " (SELECT 1 FROM fact_signatures s WHERE s.fact_id = f.id)"
        ).fetchone()[0]
    finally:
        conn.close()
    assert unsigned == 0, "a fact was stored without its signatures"
    return len(stored)


def test_kill_ingest_of_many_files_repeatedly(ref: Reference, tmp_path: Path) -> None:
    """Three SIGKILLs at increasing progress, then one full run: same state as a clean run."""
    db = tmp_path / "killed.db"
    previous = 0
    for threshold in (150, 1000, 1900):
        proc = start(db, "ingest", "in", "-q", cwd=ref.root)
        assert wait_until(lambda t=threshold: count(db, "episodes") >= t, proc, 90)
        kill(proc)
        stored = assert_consistent(db, ref)
        assert previous < stored < N_FILES
        previous = stored
    result = run(db, "ingest", "in", "-q", cwd=ref.root)
    assert result.returncode == 0, result.stderr
    assert exact_dump(db) == ref.ingested


def test_kill_during_startup_and_migration(ref: Reference, tmp_path: Path) -> None:
    """Kills at fixed delays after start land anywhere: before the database exists,
    while the schema is created, in the first transactions. Each leaves a database that
    the next run completes."""
    sample = tmp_path / "in"
    write_updates(sample, range(40))
    clean = tmp_path / "clean.db"
    assert run(clean, "ingest", "in", "-q", cwd=tmp_path).returncode == 0
    expected = exact_dump(clean)
    db = tmp_path / "killed.db"
    for delay in (0.1, 0.3, 0.5):
        proc = start(db, "ingest", "in", "-q", cwd=tmp_path)
        time.sleep(delay)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
        if db.exists() and count(db, "episodes"):
            assert integrity(db) == ["ok"]
            assert episodes_without_facts(db) == 0
        db.unlink(missing_ok=True)
        for side in ("-wal", "-shm"):
            Path(f"{db}{side}").unlink(missing_ok=True)
    # and one kill that leaves a half-created database behind, completed by the next run
    proc = start(db, "ingest", "in", "-q", cwd=tmp_path)
    wait_until(lambda: db.exists(), proc, 30)
    if proc.poll() is None:
        proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)
    result = run(db, "ingest", "in", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert exact_dump(db) == expected


def writer_active(db: Path) -> bool:
    """True while another connection holds the write lock (an analyze mid-transaction)."""
    conn = sqlite3.connect(db, timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError:
        return True
    finally:
        conn.close()


def test_kill_analyze_mid_transaction(ref: Reference, tmp_path: Path) -> None:
    db = tmp_path / "analyze.db"
    shutil.copy(ref.ingested_db, db)
    proc = start(db, "analyze", cwd=ref.root)
    assert wait_until(lambda: writer_active(db), proc, 60)
    time.sleep(0.02)  # well inside the transaction, which takes a good 100 ms here
    kill(proc)
    assert integrity(db) == ["ok"]
    # the whole analyze is one transaction: nothing of it may remain
    assert count(db, "observations") == 0
    assert count(db, "analysis_runs") == 0
    assert count(db, "observation_evidence") == 0
    assert exact_dump(db) == ref.ingested
    result = run(db, "analyze", cwd=ref.root)
    assert result.returncode == 0, result.stderr
    assert exact_dump(db) == ref.analyzed


def jsonl_corpus(path: Path) -> None:
    """One big JSONL file: half the records carry their own facts, half are extracted."""
    lines = []
    for i in range(N_LINES):
        text = update_text(i).split("---\n", 2)[2].strip()
        record: dict[str, Any] = {
            "content": text,
            "author": f"Person {i % 17}",
            "occurred_at": f"2026-03-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
            "graph": "big",
            "source": f"chat://big/{i}",
        }
        if i % 2:
            record["facts"] = [
                {"source": f"workstream {i}", "relation": "blocked_by", "target": "index rebuild"}
            ]
        lines.append(json.dumps(record))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_kill_ingest_of_one_big_jsonl(tmp_path: Path) -> None:
    """One file is one transaction: a kill leaves all of it or none of it.

    The kill is aimed, not timed: once the schema is committed and the ingest holds the
    write lock, the process is frozen (SIGSTOP) and the lock checked again; if it still
    holds it, the process is provably inside its transaction when SIGKILL lands. A run
    that finished before it could be frozen must have stored the whole file.
    """
    jsonl_corpus(tmp_path / "big.jsonl")
    clean = tmp_path / "clean.db"
    assert run(clean, "ingest", "big.jsonl", "-q", cwd=tmp_path).returncode == 0
    expected = exact_dump(clean)
    db = tmp_path / "killed.db"
    mid_transaction = 0
    for _attempt in range(3):
        proc = start(db, "ingest", "big.jsonl", "-q", cwd=tmp_path)
        inside = wait_until(
            lambda: count(db, "_sqlite_migrations") > 0 and writer_active(db), proc, 60
        )
        if inside and proc.poll() is None:
            proc.send_signal(signal.SIGSTOP)
            inside = writer_active(db)
        proc.send_signal(signal.SIGKILL)  # harmless if it already exited
        proc.communicate(timeout=30)
        assert integrity(db) == ["ok"]
        assert episodes_without_facts(db) == 0
        if inside:
            assert proc.returncode == -signal.SIGKILL
            assert count(db, "episodes") == 0, "a killed transaction left part of the file"
            mid_transaction += 1
            break
        assert count(db, "episodes") in (0, N_LINES)
        if count(db, "episodes"):  # finished first: the state is complete, start again
            db.unlink()
            for side in ("-wal", "-shm"):
                Path(f"{db}{side}").unlink(missing_ok=True)
    assert mid_transaction, "the ingest never held its transaction long enough to be frozen"
    result = run(db, "ingest", "big.jsonl", "-q", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert exact_dump(db) == expected


def test_kill_export_leaves_the_previous_file_whole(ref: Reference, tmp_path: Path) -> None:
    """export --output writes a temporary file and renames it into place: a kill while
    it writes leaves the file that was there before, untouched."""
    db = tmp_path / "export.db"
    shutil.copy(ref.ingested_db, db)
    out = tmp_path / "g.jsonl"
    out.write_text("yesterday's export\n", encoding="utf-8")
    proc = start(db, "export", "--graph", "g", "--output", str(out))
    assert wait_until(lambda: any(tmp_path.glob(".g.jsonl.*.tmp")), proc, 60)
    kill(proc)
    assert out.read_text(encoding="utf-8") == "yesterday's export\n"
    result = run(db, "export", "--graph", "g", "--output", str(out))
    assert result.returncode == 0, result.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == N_FILES
