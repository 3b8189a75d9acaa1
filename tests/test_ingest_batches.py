"""Ingest stores files in batches, one transaction each (``api.BATCH_FILES``): what it
stores, reports and numbers is the same as storing each file in its own transaction,
including when a file or a JSONL record in the middle of a batch cannot be stored."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from memcli import api
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import Cli
from tests.reliability.helpers import WALL_CLOCK, update_text

N = 40  # batches of 1, 1, 2, 4, 8, 16 and the rest


def bad_fact(day: int) -> dict[str, Any]:
    return {
        "content": f"A record whose fact names nothing ({day}).",
        "occurred_at": f"2026-04-{day:02d}",
        "graph": "g",
        "facts": [{"source": "!!!", "relation": "owns", "target": "?"}],
    }


def good_fact(day: int) -> dict[str, Any]:
    return {
        "content": f"The relay {day} waits on the vault migration.",
        "occurred_at": f"2026-04-{day:02d}",
        "graph": "g",
        "facts": [
            {"source": f"relay {day}", "relation": "blocked_by", "target": "vault migration"}
        ],
    }


def write_inputs(folder: Path) -> tuple[Path, Path]:
    """N Markdown updates, with a JSON document that cannot be stored and a JSONL file
    with one record that cannot be stored among them (both in the last, largest batch)."""
    folder.mkdir()
    for i in range(N):
        (folder / f"u{i:03d}.md").write_text(update_text(i), encoding="utf-8")
    bad = folder / "u020-bad.json"
    bad.write_text(json.dumps(bad_fact(1)), encoding="utf-8")
    lines = folder / "u030-lines.jsonl"
    lines.write_text(
        "\n".join(json.dumps(r) for r in (good_fact(2), bad_fact(3), good_fact(4))) + "\n",
        encoding="utf-8",
    )
    return bad, lines


def rows(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of memcli's own tables (FTS5's internal segment tables left out: their
    layout follows the transactions; ``fts_integrity_check`` checks their content)."""
    conn = sqlite3.connect(db)
    try:
        out = {}
        for (table,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
            " AND name NOT LIKE '%_fts%' ORDER BY name"
        ):
            cols = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            keep = ", ".join(c for c in cols if c not in WALL_CLOCK)
            out[table] = sorted(conn.execute(f"SELECT {keep} FROM {table}").fetchall(), key=repr)
        return out
    finally:
        conn.close()


def test_a_failing_file_or_record_in_a_batch_leaves_the_rest_as_file_by_file(
    cli: Cli, tmp_path: Path
) -> None:
    bad, lines = write_inputs(tmp_path / "in")
    batched = tmp_path / "batched.db"
    result = cli("--db", str(batched), "ingest", str(tmp_path / "in"), "--json", ok=False)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [(e["source"], e["reason"].split(":")[0]) for e in report["errors"]] == [
        (str(bad), "could not store"),
        (f"{lines}:2", "could not store"),
    ]
    assert report["episodes"] == {"new": N + 2, "duplicate": 0, "failed": 1}
    assert report["files"] == N + 2 and report["files_failed"] == 1

    one_by_one = tmp_path / "one-by-one.db"
    with Store(one_by_one) as store:
        for path in sorted((tmp_path / "in").iterdir()):
            api.ingest(store, expand([str(path)]))  # each file its own call and transaction
    assert rows(batched) == rows(one_by_one)  # ids, ends, ingest counters: all equal
    with Store(batched) as store:
        store.fts_integrity_check()


def test_progress_reports_every_file_once_in_order(tmp_path: Path) -> None:
    write_inputs(tmp_path / "in")
    seen: list[str] = []
    with Store(tmp_path / "m.db") as store:
        report = api.ingest(store, expand([str(tmp_path / "in")]), progress=seen.append)
    assert seen == sorted(str(p) for p in (tmp_path / "in").iterdir())
    assert report.files_stored == N + 1  # the JSON document that failed is not stored


def test_dropping_the_id_caches_between_commits_stores_the_same_rows(tmp_path: Path) -> None:
    # A long ingest drops its id caches once they pass ``cache_entries`` (memory follows a
    # batch, not the store); with a bound of 0 they are dropped after every commit, and
    # every name, alias, signature and end must come out exactly as with the caches kept.
    write_inputs(tmp_path / "in")
    kept, dropped = tmp_path / "kept.db", tmp_path / "dropped.db"
    for db, entries in ((kept, 10**9), (dropped, 0)):
        with Store(db, cache_entries=entries) as store:
            for path in sorted((tmp_path / "in").iterdir()):
                api.ingest(store, expand([str(path)]))
    assert rows(dropped) == rows(kept)
    with Store(dropped) as store:
        store.fts_integrity_check()
