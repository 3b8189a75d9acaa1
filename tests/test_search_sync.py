"""The search indexes follow every write, now that new rows are indexed once per
transaction (``IngestMixin.sync_search``, migration m006) instead of by insert triggers.

Each check compares the document tables with the rows they describe, runs FTS5's own
integrity check against those tables, and searches through the real CLI on a real file.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memcli import api, corrections
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import Cli

UPDATES = {
    "mon.md": "---\nauthor: Ines\ndate: 2026-03-02\ngraph: harbor\n---\n"
    "The ledger export is blocked on the quota service. The storage team owns the quota"
    " service.\n",
    "tue.md": "---\nauthor: Omar\ndate: 2026-03-03\ngraph: harbor\n---\n"
    "The invoice viewer is waiting on the ledger export.\n",
}


def given(day: int, content: str, facts: list[dict[str, str]]) -> str:
    return json.dumps(
        {
            "content": content,
            "author": "Pia",
            "occurred_at": f"2026-03-{day:02d}",
            "graph": "harbor",
            "facts": facts,
        }
    )


JSONL = "\n".join(
    [
        given(
            4,
            "Marmalade rollout waits for the cobalt gateway.",
            [{"source": "marmalade rollout", "relation": "blocked_by", "target": "cobalt gateway"}],
        ),
        '{"content": "a line with a fact that cannot be stored", "occurred_at": "2026-03-05",'
        ' "graph": "harbor", "facts": [{"source": "!!!", "relation": "owns", "target": "?"}]}',
        given(
            6,
            "The cobalt gateway shipped.",
            [{"source": "Pia", "relation": "completed", "target": "cobalt gateway"}],
        ),
    ]
)


def assert_in_sync(db: Path) -> None:
    """Every entity and fact has exactly its document, and every index matches its rows."""
    conn = sqlite3.connect(db)
    try:
        entities = conn.execute(
            "SELECT n.id, n.name, coalesce((SELECT group_concat(alias, ' ') FROM"
            " (SELECT alias FROM entity_aliases WHERE entity_id = n.id ORDER BY alias)), '')"
            " FROM entities n ORDER BY n.id"
        ).fetchall()
        assert (
            conn.execute(
                "SELECT entity_id, name, aliases FROM entity_docs ORDER BY entity_id"
            ).fetchall()
            == entities
        )
        facts = conn.execute(
            "SELECT f.id, s.name || ' ' || replace(f.relation, '_', ' ') || ' ' || t.name"
            " || ' ' || f.sentence FROM facts f JOIN entities s ON s.id = f.source_id"
            " JOIN entities t ON t.id = f.target_id ORDER BY f.id"
        ).fetchall()
        assert conn.execute("SELECT fact_id, text FROM fact_docs ORDER BY fact_id").fetchall() == (
            facts
        )
    finally:
        conn.close()
    with Store(db) as store:
        store.fts_integrity_check()  # each FTS5 index equals what its rows would give


def hits(cli: Cli, query: str, graph: str, scope: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = json.loads(
        cli("search", query, "--graph", graph, "--scope", scope, "--json").stdout
    )
    return out


def test_every_cli_write_path_keeps_search_in_sync(
    cli: Cli, db_path: Path, write: Callable[..., Path]
) -> None:
    for name, text in UPDATES.items():
        write(name, text)
    lines = write("given.jsonl", JSONL)
    folder = lines.parent
    result = cli("ingest", str(folder), "--json", ok=False)
    assert result.exit_code == 1  # the bad line is reported, the rest stored
    assert f"{lines}:2" in result.stdout
    assert_in_sync(db_path)
    assert [h["title"] for h in hits(cli, "quota", "harbor", "entities")] == ["quota service"]
    assert len(hits(cli, "marmalade", "harbor", "episodes")) == 1
    assert {h["details"]["relation"] for h in hits(cli, "cobalt", "harbor", "facts")} == {
        "completed"  # the wait ended when the gateway shipped
    }

    # an alias from a connector record reaches the entity's document
    issue = {
        "number": 7,
        "title": "Quota service limits",
        "state": "OPEN",
        "author": {"login": "ines"},
        "createdAt": "2026-03-07T10:00:00Z",
        "body": "",
        "url": "https://example.org/acme/harbor/issues/7",
    }
    export = write("issues.json", json.dumps([issue]))
    cli("ingest", "--from", "github", str(export), "--graph", "harbor")
    assert_in_sync(db_path)

    episodes = cli.json("episodes", "--graph", "harbor")
    by_text = {e["content"]: e["id"] for e in episodes}
    viewer = next(i for t, i in by_text.items() if "invoice viewer" in t)
    cli("episode", "retract", str(viewer), "--reason", "wrong project")
    assert_in_sync(db_path)
    assert hits(cli, "invoice", "harbor", "episodes") == []

    marmalade = next(i for t, i in by_text.items() if "Marmalade" in t)
    cli("episode", "move", str(marmalade), "--to", "kiln")
    assert_in_sync(db_path)
    assert hits(cli, "marmalade", "harbor", "episodes") == []
    assert len(hits(cli, "marmalade", "kiln", "episodes")) == 1
    assert [h["title"] for h in hits(cli, "marmalade", "kiln", "entities")] == ["marmalade rollout"]

    cli("graph", "rename", "kiln", "forge")
    assert_in_sync(db_path)
    assert len(hits(cli, "marmalade", "forge", "facts")) == 1
    cli("graph", "delete", "harbor", "--yes")
    assert_in_sync(db_path)
    cli("ingest", str(folder), ok=False)  # everything again, into the emptied graph
    assert_in_sync(db_path)
    assert [h["title"] for h in hits(cli, "quota", "harbor", "entities")] == ["quota service"]


def test_writes_and_a_delete_in_one_transaction(db_path: Path, write: Callable[..., Path]) -> None:
    """Rows written and then deleted before the commit are never left in an index."""
    for name, text in UPDATES.items():
        write(name, text)
    folder = write("given.jsonl", JSONL).parent
    with Store(db_path) as store:
        with store.transaction():
            report = api.ingest(store, expand([str(folder)]))
            assert report.episodes_new == 4
            corrections.delete_graph(store, "harbor")
            api.ingest(store, expand([str(folder / "mon.md")]))
    assert_in_sync(db_path)
    with Store(db_path) as store:
        assert [(g.graph, g.episodes) for g in api.graphs(store)] == [("harbor", 1)]


def test_a_rolled_back_transaction_leaves_nothing_to_index(
    db_path: Path, write: Callable[..., Path]
) -> None:
    """What a rolled-back transaction wrote is not indexed later, even when another
    connection has since stored rows under the same ids."""
    for name, text in UPDATES.items():
        write(name, text)
    folder = write("given.jsonl", JSONL).parent
    with Store(db_path) as first:
        with pytest.raises(RuntimeError), first.transaction():
            api.ingest(first, expand([str(folder)]))
            raise RuntimeError("stop before the commit")
        with Store(db_path) as second:
            assert api.ingest(second, expand([str(folder / "tue.md")])).episodes_new == 1
        assert api.ingest(first, expand([str(folder / "mon.md")])).episodes_new == 1
    assert_in_sync(db_path)
