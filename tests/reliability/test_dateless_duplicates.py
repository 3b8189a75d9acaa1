"""An update without a date is one episode however often it is ingested: the time
memcli supplies for it (file time, now) is not part of its identity."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable
from pathlib import Path

import memcli
from tests.conftest import Cli

UNDATED = "---\nauthor: Vera\n---\nThe onboarding wizard is blocked on the consent banner.\n"


def episodes(cli: Cli, db: Path) -> list[tuple[str, str]]:
    """(content, occurred_at) of every stored episode."""
    del cli
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT content, occurred_at FROM episodes").fetchall()
    finally:
        conn.close()


def test_stdin_twice_is_one_episode(cli: Cli, db_path: Path) -> None:

    one = json.loads(cli("--db", str(db_path), "ingest", "--json", "-", input=UNDATED).stdout)
    two = json.loads(cli("--db", str(db_path), "ingest", "--json", "-", input=UNDATED).stdout)
    assert one["episodes"]["new"] == 1
    assert two["episodes"] == {"new": 0, "duplicate": 1, "failed": 0}
    assert len(episodes(cli, db_path)) == 1


def test_a_touched_file_is_not_stored_again(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    path = write("undated.md", UNDATED)
    os.utime(path, (1_780_000_000, 1_780_000_000))
    cli("--db", str(db_path), "ingest", str(path))
    os.utime(path, (1_790_000_000, 1_790_000_000))  # touch: a new modification time
    again = json.loads(cli("--db", str(db_path), "ingest", "--json", str(path)).stdout)
    assert again["episodes"]["duplicate"] == 1
    assert len(episodes(cli, db_path)) == 1


def test_dated_updates_keep_their_identity(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    body = "The onboarding wizard is blocked on the consent banner.\n"
    monday = write("mon.md", f"---\nauthor: Vera\ndate: 2026-11-02\n---\n{body}")
    tuesday = write("tue.md", f"---\nauthor: Vera\ndate: 2026-11-03\n---\n{body}")
    cli("--db", str(db_path), "ingest", str(monday), str(tuesday))
    again = json.loads(
        cli("--db", str(db_path), "ingest", "--json", str(monday), str(tuesday)).stdout
    )
    assert again["episodes"] == {"new": 0, "duplicate": 2, "failed": 0}
    assert len(episodes(cli, db_path)) == 2  # same words on two days: two updates


def test_client_add_without_a_time_twice_is_one_episode(tmp_path: Path) -> None:
    with memcli.Client(tmp_path / "api.db") as client:
        a = client.graph.add(graph_id="g", data="The data lake is owned by Wen.", author="Wen")
        b = client.graph.add(graph_id="g", data="The data lake is owned by Wen.", author="Wen")
        assert (a.created, b.created) == (True, False)
        assert a.id == b.id


def test_export_and_import_back_adds_nothing(cli: Cli, db_path: Path, tmp_path: Path) -> None:
    cli("--db", str(db_path), "ingest", "-", input=UNDATED)
    out = tmp_path / "g.jsonl"
    cli("--db", str(db_path), "export", "--graph", "default", "--output", str(out))
    again = json.loads(cli("--db", str(db_path), "import", "--json", str(out)).stdout)
    assert again["episodes"]["new"] == 0
    assert len(episodes(cli, db_path)) == 1
