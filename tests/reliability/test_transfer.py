"""Export and import: a whole graph round-trips into a fresh database, and analyze there
derives the same observations; ended facts end again through the contradiction rules."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
from pathlib import Path
from typing import Any

from tests.conftest import SAMPLES, Cli, update

SHIP = update("Dana", "2026-11-13T10:00:00Z", "The backend team shipped the auth service refactor.")


def observation_view(obs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """What a person compares: names, summaries, evidence by episode source, facts by
    (source, relation, target)."""
    return sorted(
        (
            o["name"],
            o["summary"],
            o["kind"],
            o["root_entities"],
            sorted(e["source"] for e in o["episodes"]),
            sorted((f["source"], f["relation"], f["target"], f["invalid_at"]) for f in o["facts"]),
            sorted((e["name"], e["type"], e["role"]) for e in o["entities"]),
        )
        for o in obs
    )


def facts_view(cli: Cli, db: Path, graph: str) -> list[tuple[Any, ...]]:
    rows = cli.json("--db", str(db), "facts", "--graph", graph, "--include-ended")
    sources = {r["episode_id"]: r["episode_source"] for r in rows}
    return sorted(
        (
            r["source"],
            r["source_type"],
            r["relation"],
            r["target"],
            r["target_type"],
            r["episode_source"],
            r["author"],
            r["valid_at"],
            r["invalid_at"],
            sources.get(r["invalidated_by"]) if r["invalidated_by"] else None,
            r["sentence"],
        )
        for r in rows
    )


def test_lifecycle_round_trip(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    """The canonical three updates, analyze, then the refactor ships a week later."""
    original = tmp_path / "original.db"
    ship = atlas / "2026-11-13-dana.md"
    cli("--db", str(original), "ingest", *sorted(str(p) for p in atlas.glob("2026-11-0*.md")))
    cli("--db", str(original), "analyze")
    ship.write_text(SHIP, encoding="utf-8")
    cli("--db", str(original), "ingest", str(ship))
    cli("--db", str(original), "analyze")
    before = cli.json("--db", str(original), "observations", "--graph", "project-atlas")

    export = tmp_path / "atlas.jsonl"
    result = cli(
        "--db", str(original), "export", "--graph", "project-atlas", "--output", str(export)
    )
    assert "exported 4 episode(s), 10 fact(s)" in result.stderr
    assert stat.S_IMODE(os.stat(export).st_mode) == 0o600
    records = [json.loads(line) for line in export.read_text(encoding="utf-8").splitlines()]
    assert [r["author"] for r in records] == ["Alice", "Bob", "Clara", "Dana"]
    assert set(records[0]) == {"content", "author", "occurred_at", "graph", "source", "facts"}
    assert set(records[0]["facts"][0]) == {
        "source",
        "relation",
        "target",
        "source_type",
        "target_type",
        "sentence",
    }
    # stdout and --output give the same bytes
    assert cli(
        "--db", str(original), "export", "--graph", "project-atlas"
    ).stdout == export.read_text(encoding="utf-8")

    fresh = tmp_path / "fresh.db"
    report = cli.json("--db", str(fresh), "import", str(export))
    assert report["episodes"]["new"] == 4 and report["errors"] == []
    assert report["facts_ended"] == 2, "the shipped refactor ends both blocked_by facts again"
    cli("--db", str(fresh), "analyze")
    after = cli.json("--db", str(fresh), "observations", "--graph", "project-atlas")
    assert observation_view(after) == observation_view(before)
    assert facts_view(cli, fresh, "project-atlas") == facts_view(cli, original, "project-atlas")
    ended = [f for f in facts_view(cli, fresh, "project-atlas") if f[8] is not None]
    assert {(f[0], f[2], f[3], f[8]) for f in ended} == {
        ("API migration", "blocked_by", "auth service refactor", "2026-11-13T10:00:00Z"),
        ("payments integration", "blocked_by", "auth service refactor", "2026-11-13T10:00:00Z"),
    }
    # importing again adds nothing; the re-export is byte-identical
    again = cli.json("--db", str(fresh), "import", str(export))
    assert again["episodes"] == {"new": 0, "duplicate": 4, "failed": 0}
    assert cli("--db", str(fresh), "export", "--graph", "project-atlas").stdout == export.read_text(
        encoding="utf-8"
    )


def test_orbit_round_trip_into_another_graph(cli: Cli, tmp_path: Path) -> None:
    orbit = tmp_path / "orbit"
    shutil.copytree(SAMPLES / "orbit", orbit)
    original = tmp_path / "original.db"
    cli("--db", str(original), "ingest", str(orbit))
    [graph] = [g["graph"] for g in cli.json("--db", str(original), "graphs")]
    cli("--db", str(original), "analyze")
    before = cli.json("--db", str(original), "observations", "--graph", graph)
    assert len(before) == 2

    dump = cli("--db", str(original), "export", "--graph", graph).stdout
    (tmp_path / "orbit.jsonl").write_text(dump, encoding="utf-8")
    fresh = tmp_path / "fresh.db"
    cli("--db", str(fresh), "import", str(tmp_path / "orbit.jsonl"), "--graph", "copy")
    cli("--db", str(fresh), "analyze", "--graph", "copy")
    after = cli.json("--db", str(fresh), "observations", "--graph", "copy")
    assert observation_view(after) == observation_view(before)
    assert [g["graph"] for g in cli.json("--db", str(fresh), "graphs")] == ["copy"]


def test_pending_episodes_are_exported_without_facts_and_extracted_on_import(
    cli: Cli, atlas: Path, tmp_path: Path
) -> None:
    original = tmp_path / "original.db"
    cli("--db", str(original), "ingest", str(atlas))
    conn = sqlite3.connect(original)
    conn.execute("PRAGMA foreign_keys = OFF")
    [episode] = conn.execute("SELECT id FROM episodes WHERE author = 'Bob'").fetchone()
    conn.execute(
        "DELETE FROM fact_signatures WHERE fact_id IN (SELECT id FROM facts WHERE episode_id = ?)",
        (episode,),
    )
    conn.execute("DELETE FROM facts WHERE episode_id = ?", (episode,))
    conn.execute("UPDATE episodes SET extraction_status = 'pending' WHERE id = ?", (episode,))
    conn.commit()
    conn.close()
    lines = cli("--db", str(original), "export", "--graph", "project-atlas").stdout.splitlines()
    bob = [json.loads(line) for line in lines if json.loads(line)["author"] == "Bob"][0]
    assert "facts" not in bob
    fresh = tmp_path / "fresh.db"
    cli("--db", str(fresh), "import", "-", input="\n".join(lines) + "\n")
    facts = cli.json("--db", str(fresh), "facts", "--graph", "project-atlas")
    assert ("payments integration", "blocked_by", "auth service refactor") in {
        (f["source"], f["relation"], f["target"]) for f in facts if f["author"] == "Bob"
    }


def test_export_errors_leave_existing_files_alone(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    cli("ingest", str(atlas))
    out = tmp_path / "keep.jsonl"
    out.write_text("previous export\n", encoding="utf-8")
    result = cli("export", "--graph", "nope", "--output", str(out), ok=False)
    assert result.exit_code == 1 and "no graph named 'nope'" in result.stderr
    assert out.read_text(encoding="utf-8") == "previous export\n"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".keep")) == []
    assert cli("export", "--graph", "project-atlas", "--format", "csv", ok=False).exit_code == 2
    missing = cli("--db", str(tmp_path / "none.db"), "export", "--graph", "g", ok=False)
    assert missing.exit_code == 1 and "no memcli database" in missing.stderr
    assert not (tmp_path / "none.db").exists()


def test_import_reports_bad_records_with_line_numbers(cli: Cli, tmp_path: Path) -> None:
    good = {"content": "Ann owns the style guide.", "occurred_at": "2026-11-02", "graph": "g"}
    path = tmp_path / "in.export"  # any name: import reads JSON Lines whatever the suffix
    path.write_text(json.dumps(good) + "\nnot json\n", encoding="utf-8")
    result = cli("import", str(path), ok=False)
    assert result.exit_code == 1
    assert f"Error: {path}:2: invalid JSON" in result.stderr
    assert "1 new episode(s)" in result.stderr
