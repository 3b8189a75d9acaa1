"""A lock time-out part-way through a batch: the files before it are committed, the
rest are not, and memcli says so ("stored N of M file(s); re-run to finish"). A re-run
finishes the batch without storing anything twice."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from memcli import api
from memcli.sources import SourceText, read_path
from memcli.store import Store
from tests.reliability.helpers import run, write_updates


def episodes_in(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(conn.execute("SELECT count(*) FROM episodes").fetchone()[0])
    finally:
        conn.close()


def test_lock_taken_part_way_stores_whole_files_and_says_how_many(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "batch.db"
    paths = write_updates(tmp_path / "in", range(5))
    with Store(db):
        pass  # the schema exists before the other connection locks the file
    monkeypatch.setenv("MEMCLI_BUSY_TIMEOUT", "0.2")
    other = sqlite3.connect(db, isolation_level=None)

    def inputs() -> Iterator[SourceText]:
        for i, path in enumerate(paths):
            if i == 2:  # after two files are committed, another writer takes the lock
                other.execute("BEGIN IMMEDIATE")
            yield read_path(path, str(path))

    try:
        with Store(db) as store:
            report = api.ingest(store, inputs())
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert not report.ok
    assert report.incomplete == (2, 5)
    [(source, reason)] = report.errors
    assert source == str(paths[2])
    assert "stored 2 of 5 file(s); re-run to finish" in reason
    assert report.as_dict()["incomplete"] == {"files_stored": 2, "files": 5}
    assert episodes_in(db) == 2  # exactly the files reported stored, each whole

    with Store(db) as store:
        again = api.ingest(store, (read_path(p, str(p)) for p in paths))
    assert again.ok
    assert (again.episodes_new, again.episodes_duplicate) == (3, 2)
    assert episodes_in(db) == 5


def test_cli_reports_the_lock_on_stderr_and_in_json(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    paths = [str(p) for p in write_updates(tmp_path / "in", range(3))]
    assert run(db, "ingest", "-q", paths[0]).returncode == 0
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = run(db, "ingest", "--json", *paths, MEMCLI_BUSY_TIMEOUT="0.2")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.returncode == 1
    assert "stored 0 of 3 file(s); re-run to finish (re-ingest is idempotent)" in result.stderr
    assert "Traceback" not in result.stderr
    report = json.loads(result.stdout)
    assert report["incomplete"] == {"files_stored": 0, "files": 3}
    assert episodes_in(db) == 1
    finish = run(db, "ingest", "--json", *paths)
    assert finish.returncode == 0, finish.stderr
    assert json.loads(finish.stdout)["episodes"]["new"] == 2
