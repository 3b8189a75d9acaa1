"""A new owner ends the old one's ownership, but a person's short name is no new owner.

Teammates write "Tunde is on the vendor sync" about work Tunde Adeyemi reported in his
own updates under his full name. Read as two people, the second update ended the first
one's ownership at ingest, so `facts` and the timeline said the work changed hands when
nothing happened. A first name, or a first name and an initial, of the earlier owner
keeps both current (analyze may merge the two names later); a different full name, a
team, or a different first name still takes the work over.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memcli.identity import may_be_one_person
from tests.conftest import Cli


def ingest(cli: Cli, tmp_path: Path, lines: list[dict[str, Any]]) -> Path:
    db = tmp_path / "owners.db"
    source = tmp_path / "updates.jsonl"
    source.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    cli("--db", str(db), "ingest", str(source), "--json")
    return db


def owners(cli: Cli, db: Path) -> dict[str, bool]:
    """Owner of each `owns` fact -> whether it is still current."""
    facts = cli.json("--db", str(db), "facts", "-g", "g", "--include-ended", "--json")
    return {f["source"]: f["invalid_at"] is None for f in facts if f["relation"] == "owns"}


def update(text: str, author: str, day: int) -> dict[str, Any]:
    return {
        "content": text,
        "author": author,
        "occurred_at": f"2026-03-{day:02d}T09:00:00Z",
        "graph": "g",
    }


def test_a_first_name_does_not_end_the_full_names_ownership(cli: Cli, tmp_path: Path) -> None:
    db = ingest(
        cli,
        tmp_path,
        [
            update("I'm working on the vendor sync this week.", "Tunde Adeyemi", 2),
            update("Tunde is on the vendor sync.", "Mira Holt", 3),
        ],
    )
    assert owners(cli, db) == {"Tunde Adeyemi": True, "Tunde": True}


def test_in_either_order_and_with_an_initial(cli: Cli, tmp_path: Path) -> None:
    given = [
        {**update("Badge printer notes.", "Mira Holt", 5), "facts": [f]}
        for f in (
            {"source": "Tomasz K.", "relation": "owns", "target": "badge printer"},
            {"source": "Tomasz Kowalski", "relation": "owns", "target": "badge printer"},
        )
    ]
    given[1]["occurred_at"] = "2026-03-01T09:00:00Z"  # the full name comes first in time
    given[1]["content"] = "Badge printer, earlier notes."
    db = ingest(cli, tmp_path, given)
    assert owners(cli, db) == {"Tomasz K": True, "Tomasz Kowalski": True}


def test_someone_else_still_takes_the_work_over(cli: Cli, tmp_path: Path) -> None:
    db = ingest(
        cli,
        tmp_path,
        [
            update("I'm working on the vendor sync this week.", "Tunde Adeyemi", 2),
            update("Tunde Bakare is on the vendor sync now.", "Mira Holt", 3),
            update("Lin has taken over the vendor sync.", "Mira Holt", 4),
        ],
    )
    assert owners(cli, db) == {"Tunde Adeyemi": False, "Tunde Bakare": False, "Lin": True}


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("tunde", "tunde adeyemi", True),
        ("tomasz k", "tomasz kowalski", True),
        ("mei ling", "mei ling chen", True),
        ("tomasz k", "tomasz nowak", False),
        ("tunde adeyemi", "tunde bakare", False),
        ("lin", "tunde adeyemi", False),
        ("tunde", "tunde", False),
        ("k", "kai", False),
    ],
)
def test_which_keys_may_be_one_person(a: str, b: str, same: bool) -> None:
    assert may_be_one_person(a, b) is same
    assert may_be_one_person(b, a) is same
