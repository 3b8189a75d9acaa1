"""One ``memcli.Client`` shared by several threads: every acknowledged add is stored,
with its facts, and doctor notices an episode stored without any extraction record."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from typer.testing import CliRunner

import memcli
from memcli.cli import app

THREADS = 4
ADDS = 25


def _text(worker: int, i: int) -> str:
    return (
        f"The feature {worker}-{i} is blocked on the storage rework {worker}. "
        f"The storage rework {worker} is owned by the data team."
    )


def shared_client_run(db: Path) -> tuple[int, int, list[BaseException]]:
    """(acknowledged adds, acknowledged adds found in the database with their facts,
    exceptions raised in the threads)."""
    client = memcli.Client(db)
    acknowledged: list[tuple[int, str, int]] = []
    failures: list[BaseException] = []
    lock = threading.Lock()
    start = threading.Barrier(THREADS)

    def work(worker: int) -> None:
        start.wait()
        for i in range(ADDS):
            try:
                ep = client.graph.add(
                    graph_id="shared",
                    data=_text(worker, i),
                    author=f"writer{worker}",
                    occurred_at=f"2026-03-{1 + i % 28:02d}T{worker:02d}:00:00Z",
                )
            except Exception as exc:  # a refused write is fine, a lost one is not
                with lock:
                    failures.append(exc)
                continue
            with lock:
                acknowledged.append((ep.id, ep.content, len(ep.facts)))

    threads = [threading.Thread(target=work, args=(w,)) for w in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    client.close()

    conn = sqlite3.connect(db)
    try:
        stored = 0
        for episode_id, content, stated in acknowledged:
            row = conn.execute(
                "SELECT content FROM episodes WHERE id = ?", (episode_id,)
            ).fetchone()
            facts = conn.execute(
                "SELECT count(*) FROM facts WHERE episode_id = ?", (episode_id,)
            ).fetchone()[0]
            if row is not None and row[0] == content and stated == 3 and facts == stated:
                stored += 1
    finally:
        conn.close()
    return len(acknowledged), stored, failures


def test_four_threads_share_one_client(tmp_path: Path) -> None:
    db = tmp_path / "threads.db"
    acknowledged, stored, failures = shared_client_run(db)
    assert failures == []
    assert acknowledged == THREADS * ADDS
    assert stored == acknowledged
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == THREADS * ADDS
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    finally:
        conn.close()


def test_doctor_flags_an_episode_with_content_but_no_extraction_record(tmp_path: Path) -> None:
    db = tmp_path / "half.db"
    with memcli.Client(db) as client:
        client.graph.add(
            graph_id="g",
            data="The mobile app is blocked on the payments integration.",
            author="Ines",
            occurred_at="2026-04-02",
        )
        client.graph.add(graph_id="g", data="Quiet week, nothing new.", occurred_at="2026-04-03")
    runner = CliRunner()
    healthy = runner.invoke(app, ["--db", str(db), "doctor"])
    assert healthy.exit_code == 0, healthy.output
    # What a half-written episode looks like: the row is there, marked done, but none of
    # its facts and no sentence recorded as not understood.
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA foreign_keys = OFF")
        (episode_id,) = conn.execute(
            "SELECT id FROM episodes WHERE content LIKE 'The mobile app%'"
        ).fetchone()
        fact_ids = [
            r[0] for r in conn.execute("SELECT id FROM facts WHERE episode_id = ?", (episode_id,))
        ]
        marks = ",".join("?" * len(fact_ids))
        conn.execute(f"DELETE FROM fact_signatures WHERE fact_id IN ({marks})", fact_ids)
        conn.execute(f"DELETE FROM facts WHERE id IN ({marks})", fact_ids)
        conn.commit()
    finally:
        conn.close()
    sick = runner.invoke(app, ["--db", str(db), "doctor"])
    assert sick.exit_code == 1, sick.output
    assert f"#{episode_id}" in sick.output
    assert "no extraction record" in sick.output
    assert "memcli extract --reread" in sick.output
    # and the repair it names works: the update's facts are read and stored again
    repaired = runner.invoke(app, ["--db", str(db), "extract", "--reread"])
    assert repaired.exit_code == 0, repaired.output
    assert runner.invoke(app, ["--db", str(db), "doctor"]).exit_code == 0
