"""Front matter that cannot mean what the author wrote is an error naming the file:
unclosed front matter, a date written as a bare number, a date far out of range."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli

GOOD = "---\nauthor: Rosa\ndate: 2026-11-03\n---\nThe intake form is blocked on the spam filter.\n"


def ingest(cli: Cli, db: Path, *paths: Path) -> tuple[int, dict[str, str], int]:
    """(exit code, {source: reason}, episodes stored)."""
    result = cli("--db", str(db), "ingest", "--json", *map(str, paths), ok=False)
    report = json.loads(result.stdout)
    reasons = {e["source"]: e["reason"] for e in report["errors"]}
    return result.exit_code, reasons, report["episodes"]["new"]


def test_unclosed_front_matter_is_an_error_with_the_path(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    good = write("good.md", GOOD)
    bad = write(
        "open.md",
        "---\nauthor: Tariq\ndate: 2026-11-04\n\nThe intake form is blocked on the spam filter.\n",
    )
    code, reasons, new = ingest(cli, db_path, good, bad)
    assert code == 1
    assert set(reasons) == {str(bad)}
    assert "never closed" in reasons[str(bad)]
    assert new == 1  # the good file still lands
    conn = sqlite3.connect(db_path)
    try:
        stored = conn.execute("SELECT content FROM episodes").fetchall()
    finally:
        conn.close()
    assert not any("Tariq" in c for (c,) in stored)  # not kept as text, author lost


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("20261102", "is a number, not a date"),
        ("1700000000", "is a number, not a date"),
        ("2026.5", "is a number, not a date"),
        ("0026-11-02", "out of range"),
        ("9999-12-31", "out of range"),
    ],
)
def test_a_date_that_is_not_a_plausible_date_is_an_error(
    cli: Cli, write: Callable[..., Path], db_path: Path, value: str, expected: str
) -> None:
    bad = write("odd-date.md", f"---\nauthor: Uma\ndate: {value}\n---\nThe kiosk app shipped.\n")
    code, reasons, new = ingest(cli, db_path, bad)
    assert code == 1
    assert expected in reasons[str(bad)], reasons
    assert new == 0


def test_a_number_as_occurred_at_in_json_is_an_error(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    bad = write(
        "stamp.jsonl",
        json.dumps({"content": "The kiosk app shipped.", "occurred_at": 20261102}) + "\n",
    )
    code, reasons, _ = ingest(cli, db_path, bad)
    assert code == 1
    assert "is a number, not a date" in reasons[f"{bad}:1"]
    assert "2026-11-02" in reasons[f"{bad}:1"]  # the date it probably meant
