"""``memcli extract --reread``: stored updates read again with this version's reader.

The older reading is made with real parts: the updates are ingested with given facts
(a deliberately wrong reading, whose contradiction ends the real ingest computes), then
marked as the rules reader's, as a store written by an older memcli would have them.
After the reread, the store must hold what ingesting the same text today stores.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli, update

G = "bakery"
UPDATES = [
    (
        "Rosa Diaz",
        "2026-11-02T09:00:00Z",
        "The spring menu is blocked by the oven repair (OVN-4). I own the spring menu.",
    ),
    ("Tom Berg", "2026-11-03T09:00:00Z", "The wedding order waits on the oven repair too."),
    ("Rosa Diaz", "2026-11-05T09:00:00Z", "The spring menu is unblocked."),
    ("Ada Fox", "2026-11-06T09:00:00Z", "I finished the price list."),
    ("Lena Park", "2026-11-07T09:00:00Z", "The catering quote is stuck behind the oven repair."),
]
# What an older reader stored for the same four updates: the first update's ownership
# and the repair's ticket were missed, the release was read as nothing, the second
# update got a wait that ends the first one's (a misreading), the fourth a wrong item,
# and the last was not understood.
OLD = [
    [("spring menu", "blocked_by", "oven repair")],
    [
        ("wedding order", "blocked_by", "oven repair"),
        ("spring menu", "unblocked_from", "oven repair"),
    ],
    [],
    [("Ada Fox", "completed", "price")],
    [],
]


def _markdown(write: Callable[..., Path]) -> list[Path]:
    return [
        write(f"{i}-{who.split()[0].lower()}.md", update(who, day, text, graph=G))
        for i, (who, day, text) in enumerate(UPDATES)
    ]


def _older_store(cli: Cli, tmp_path: Path, db: Path) -> None:
    lines = []
    for (who, day, text), facts in zip(UPDATES, OLD, strict=True):
        given = [
            {
                "source": s,
                "relation": r,
                "target": t,
                "source_type": "person" if s[0].isupper() else "work_item",
            }
            for s, r, t in facts
        ]
        obj = {"content": text, "author": who, "occurred_at": day, "graph": G, "facts": given}
        lines.append(json.dumps(obj))
    old = tmp_path / "old.jsonl"
    old.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli("--db", str(db), "ingest", str(old))
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE episodes SET extractor = 'rules', format = 'markdown'")


def _facts(db: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(db) as conn:
        return sorted(
            conn.execute(
                "SELECT e.author, e.occurred_at, s.type, s.norm, f.relation, t.type, t.norm,"
                " f.valid_at, f.invalid_at, f.sentence, ie.occurred_at"
                " FROM facts f JOIN entities s ON s.id = f.source_id"
                " JOIN entities t ON t.id = f.target_id JOIN episodes e ON e.id = f.episode_id"
                " LEFT JOIN episodes ie ON ie.id = f.invalidated_by"
            )
        )


def _side_rows(db: Path) -> list[list[tuple[object, ...]]]:
    with sqlite3.connect(db) as conn:
        return [
            sorted(conn.execute("SELECT item_type, item_norm, valid_at, sentence FROM releases")),
            sorted(conn.execute("SELECT ticket_norm, name, name_norm FROM stated_names")),
        ]


def test_an_older_reading_becomes_what_ingest_stores_today(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    fresh, older = tmp_path / "fresh.db", tmp_path / "older.db"
    cli("--db", str(fresh), "ingest", *map(str, _markdown(write)))
    _older_store(cli, tmp_path, older)
    assert _facts(older) != _facts(fresh)
    report = cli.json("--db", str(older), "extract", "--reread")
    assert report["episodes"] == 5 and report["changed"] == 5
    assert report["facts_removed"] == 2  # the misread unblock and the wrong item
    assert _facts(older) == _facts(fresh)
    assert _side_rows(older) == _side_rows(fresh)
    # the wait the misreading had ended holds again until the release, as in a fresh store
    current = {
        (f["source"], f["relation"], f["target"])
        for f in cli.json("--db", str(older), "facts", "--graph", G)
    }
    assert ("wedding order", "blocked_by", "oven repair") in current
    assert ("spring menu", "blocked_by", "oven repair") not in current
    # and analyze draws the same observations from both
    summaries = []
    for db in (fresh, older):
        cli("--db", str(db), "analyze", "--graph", G)
        summaries.append(
            sorted(o["summary"] for o in cli.json("--db", str(db), "observations", "--graph", G))
        )
    assert summaries[0] == summaries[1] and summaries[0]
    # a second reread finds nothing to change
    again = cli.json("--db", str(older), "extract", "--reread")
    assert (again["changed"], again["facts_new"], again["facts_removed"]) == (0, 0, 0)


def test_observations_drawn_from_a_misreading_are_redrawn(
    cli: Cli, tmp_path: Path, db_path: Path
) -> None:
    _older_store(cli, tmp_path, db_path)
    cli("analyze", "--graph", G)
    before = " ".join(o["summary"] for o in cli.json("observations", "--graph", G))
    cli("extract", "--reread", "--graph", G)
    cli("analyze", "--graph", G)
    after = cli.json("observations", "--graph", G)
    assert "Tom Berg" in " ".join(o["summary"] for o in after)
    assert before != " ".join(o["summary"] for o in after)
    assert "ok" in cli("doctor").stdout  # no evidence row left pointing at a deleted fact
    assert "missing" not in cli("doctor").stdout


def test_given_facts_and_retracted_updates_are_left_as_they_are(
    cli: Cli, write: Callable[..., Path], tmp_path: Path, db_path: Path
) -> None:
    given = tmp_path / "given.jsonl"
    given.write_text(
        json.dumps(
            {
                "content": "Nothing a reader would take from this line.",
                "author": "Ida Roe",
                "occurred_at": "2026-11-04T09:00:00Z",
                "graph": G,
                "facts": [{"source": "cake stand", "relation": "blocked_by", "target": "glaze"}],
            }
        )
        + "\n",
        encoding="utf-8",
    )
    cli("ingest", str(given), *map(str, _markdown(write)))
    [ep] = [e["id"] for e in cli.json("episodes", "--graph", G) if e["author"] == "Ada Fox"]
    cli("episode", "retract", str(ep))
    before = _facts(db_path)
    report = cli.json("extract", "--reread", "--graph", G)
    assert (report["episodes"], report["left_as_is"], report["changed"]) == (4, 1, 0)
    assert _facts(db_path) == before


def test_extract_says_what_to_do_and_names_a_missing_graph(
    cli: Cli, write: Callable[..., Path]
) -> None:
    for args in (("extract",), ("extract", "--pending", "--reread")):
        result = cli(*args, ok=False)
        assert result.exit_code == 2
        assert "memcli extract --reread" in result.stderr
    cli("ingest", *map(str, _markdown(write)))
    result = cli("extract", "--reread", "--graph", "nope", ok=False)
    assert result.exit_code == 1 and "no graph named 'nope'" in result.stderr


def test_the_library_reports_progress_up_to_the_last_update(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    from memcli.reread import reread
    from memcli.store import Store

    cli("ingest", *map(str, _markdown(write)))
    seen: list[tuple[int, int]] = []
    store = Store(db_path)
    try:
        report = reread(store, G, progress=lambda done, total: seen.append((done, total)))
    finally:
        store.close()
    assert seen[-1] == (5, 5) and report.changed == 0
