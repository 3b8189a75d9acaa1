"""The contradiction rules run once per ingest transaction over all its new facts
(``Store.end_contradicted``). A fact's end must be what storing the updates one at a
time gives, and ``facts_ended`` counts each fact whose end an ingest set or moved once."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

from memcli import api
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import Cli

ITEMS = ["ledger sync", "invoice export", "badge printer", "rota planner", "kiosk login"]
BLOCKERS = ["identity gateway", "schema freeze", "vendor contract", "cache rewrite"]
PEOPLE = ["Ilse", "Marek", "Tove", "Ruben"]
TEAMS = ["storage team", "desk team"]


def record(i: int, rng: random.Random) -> dict[str, Any]:
    """One update with two or three given facts over a small vocabulary, on one of a
    few days, so waits, completions, unblockings and owner changes meet often and
    ties on the same day happen."""
    facts: list[dict[str, str]] = []
    for _ in range(rng.randint(2, 3)):
        kind = rng.choice(["blocked", "blocked", "unblocked", "done", "owner", "team"])
        item, blocker = rng.choice(ITEMS), rng.choice(BLOCKERS)
        if kind == "blocked":
            facts.append({"source": item, "relation": "blocked_by", "target": blocker})
        elif kind == "unblocked":
            facts.append({"source": item, "relation": "unblocked_from", "target": blocker})
        elif kind == "done":
            who = rng.choice(PEOPLE)
            facts.append({"source": who, "relation": "completed", "target": blocker})
        elif kind == "owner":
            facts.append({"source": rng.choice(PEOPLE), "relation": "owns", "target": item})
        else:
            facts.append(
                {
                    "source": rng.choice(TEAMS),
                    "source_type": "team",
                    "relation": "owns",
                    "target": item,
                }
            )
    return {
        "content": f"Status note number {i} from the platform stand-up.",
        "author": rng.choice(PEOPLE),
        "occurred_at": f"2026-03-{rng.randint(1, 9):02d}T09:00:00Z",
        "graph": "ends",
        "facts": facts,
    }


def fact_ends(db: Path) -> list[tuple[Any, ...]]:
    """Every fact by names and the update text that ended it, with its end time."""
    conn = sqlite3.connect(db)
    try:
        return sorted(
            conn.execute(
                """
                SELECT s.name, f.relation, t.name, ep.content, f.valid_at, f.invalid_at,
                       e.content
                FROM facts f JOIN entities s ON s.id = f.source_id
                JOIN entities t ON t.id = f.target_id
                JOIN episodes ep ON ep.id = f.episode_id
                LEFT JOIN episodes e ON e.id = f.invalidated_by
                """
            ).fetchall()
        )
    finally:
        conn.close()


def test_one_batch_ends_every_fact_as_file_by_file(tmp_path: Path) -> None:
    rng = random.Random(13)
    records = [record(i, rng) for i in range(160)]
    whole = tmp_path / "all.jsonl"
    whole.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with Store(tmp_path / "batch.db") as store:
        report = api.ingest(store, expand([str(whole)]))
    assert report.ok and report.episodes_new == 160

    # The same records one file each, each file in its own ingest (its own
    # transaction), newest first: every record meets the stored ones one at a time.
    singles = tmp_path / "singles"
    singles.mkdir()
    for i, r in enumerate(records):
        (singles / f"r{i:03d}.jsonl").write_text(json.dumps(r) + "\n", encoding="utf-8")
    with Store(tmp_path / "single.db") as store:
        for path in sorted(singles.iterdir(), reverse=True):
            assert api.ingest(store, expand([str(path)])).ok

    batch, single = fact_ends(tmp_path / "batch.db"), fact_ends(tmp_path / "single.db")
    assert len(batch) > 300
    ended = [f for f in batch if f[5] is not None]
    assert len(ended) > 50, "the corpus must end many facts for the comparison to mean much"
    assert batch == single


def test_facts_ended_counts_each_fact_once(tmp_path: Path, cli: Cli) -> None:
    """A wait ended by one completion and moved earlier by another in the same ingest
    is one fact ended, whether the two land in one transaction or in two."""

    def line(day: int, facts: list[dict[str, str]], words: str) -> str:
        return (
            json.dumps({"content": words, "occurred_at": f"2026-02-{day:02d}", "facts": facts})
            + "\n"
        )

    wait = line(
        1,
        [{"source": "kiosk login", "relation": "blocked_by", "target": "identity gateway"}],
        "The kiosk login waits for the identity gateway.",
    )
    late = line(
        20,
        [{"source": "Ilse", "relation": "completed", "target": "identity gateway"}],
        "Ilse finished the identity gateway.",
    )
    early = line(
        10,
        [{"source": "Marek", "relation": "completed", "target": "identity gateway"}],
        "Marek says the identity gateway was done on the tenth.",
    )
    one = tmp_path / "one.jsonl"
    one.write_text(wait + late + early, encoding="utf-8")
    report = cli.json("--db", str(tmp_path / "one.db"), "ingest", str(one))
    assert report["facts_ended"] == 1

    folder = tmp_path / "three"  # three files: batches of one file each
    folder.mkdir()
    for name, text in (("a", wait), ("b", late), ("c", early)):
        (folder / f"{name}.jsonl").write_text(text, encoding="utf-8")
    report = cli.json("--db", str(tmp_path / "three.db"), "ingest", str(folder))
    assert report["facts_ended"] == 1
    [ended] = [f for f in fact_ends(tmp_path / "three.db") if f[5] is not None]
    assert ended[5].startswith("2026-02-10") and "tenth" in ended[6]


def test_a_file_stored_record_by_record_ends_every_fact_as_in_one_pass(
    tmp_path: Path, cli: Cli
) -> None:
    """A clean file has its rules applied as its facts go in (each new fact written with
    its end); a file with a record the store refuses is stored again record by record,
    in savepoints, and has them applied at the commit. Both give the same ends and the
    same count."""
    rng = random.Random(29)
    records = [record(i, rng) for i in range(120)]
    refused = {
        "content": "A note whose only fact names nothing at all.",
        "occurred_at": "2026-03-05T10:00:00Z",
        "graph": "ends",
        "facts": [{"source": "!!!", "relation": "owns", "target": "?"}],
    }
    clean, mixed = tmp_path / "clean.jsonl", tmp_path / "mixed.jsonl"
    clean.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    with_refused = [*records[:60], refused, *records[60:]]
    mixed.write_text("".join(json.dumps(r) + "\n" for r in with_refused), encoding="utf-8")
    one = cli.json("--db", str(tmp_path / "clean.db"), "ingest", str(clean))
    result = cli("--db", str(tmp_path / "mixed.db"), "ingest", str(mixed), "--json", ok=False)
    assert result.exit_code == 1
    two = json.loads(result.stdout)
    assert [e["source"] for e in two["errors"]] == [f"{mixed}:61"]
    ends = fact_ends(tmp_path / "clean.db")
    assert len([f for f in ends if f[5] is not None]) > 40
    assert ends == fact_ends(tmp_path / "mixed.db")
    assert one["facts_ended"] == two["facts_ended"] > 40
