"""Each JSONL line stands alone: a line that parses but cannot be stored is reported as
FILE:LINE with the reason, the other lines land, exit 1. A JSON document stays all or
nothing."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli


def line(content: str, **extra: object) -> str:
    return json.dumps({"content": content, "occurred_at": "2026-10-05", **extra}) + "\n"


NOTHING_NAME = {"source": "!!!", "relation": "blocked_by", "target": "the print queue"}
GOOD_A = "The label printer is blocked on the print queue."
GOOD_B = "The print queue is owned by Yusuf."


def stored(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return sorted(c for (c,) in conn.execute("SELECT content FROM episodes"))
    finally:
        conn.close()


def run(cli: Cli, db: Path, path: Path) -> tuple[int, dict]:
    result = cli("--db", str(db), "ingest", "--json", str(path), ok=False)
    return result.exit_code, json.loads(result.stdout)


def test_a_line_that_cannot_be_stored_is_reported_alone(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    path = write(
        "mixed.jsonl",
        line(GOOD_A)
        + line("The label printer is blocked on nothing nameable.", facts=[NOTHING_NAME])
        + line(GOOD_B)
        + '{"content": "The scanner \\ud800 shipped.", "occurred_at": "2026-10-06"}\n',
    )
    code, report = run(cli, db_path, path)
    assert code == 1
    errors = {e["source"]: e["reason"] for e in report["errors"]}
    assert set(errors) == {f"{path}:2", f"{path}:4"}
    assert "empty after normalisation" in errors[f"{path}:2"]
    assert "surrogate" in errors[f"{path}:4"]
    assert report["episodes"] == {"new": 2, "duplicate": 0, "failed": 2}
    assert stored(db_path) == sorted([GOOD_A, GOOD_B])
    # the good lines came with their facts
    conn = sqlite3.connect(db_path)
    try:
        assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] >= 2
    finally:
        conn.close()


def test_a_json_document_stays_all_or_nothing(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    path = write(
        "batch.json",
        json.dumps(
            [
                {"content": GOOD_A, "occurred_at": "2026-10-05"},
                {
                    "content": "Nothing nameable.",
                    "occurred_at": "2026-10-05",
                    "facts": [NOTHING_NAME],
                },
            ]
        ),
    )
    code, report = run(cli, db_path, path)
    assert code == 1
    assert [e["source"] for e in report["errors"]] == [str(path)]
    assert stored(db_path) == []
