"""memcli doctor: each kind of damage is found, named, given a repair, and exit 1; the
repair it suggests works."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.reliability.helpers import write_updates


def doctor(cli: Cli, db: Path) -> tuple[int, dict[str, Any]]:
    result = cli("--db", str(db), "doctor", "--json", ok=False)
    return result.exit_code, json.loads(result.stdout)


def failing(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"] if not c["ok"]}


@pytest.fixture
def analyzed(cli: Cli, atlas: Path, tmp_path: Path) -> Path:
    db = tmp_path / "doc.db"
    cli("--db", str(db), "ingest", str(atlas))
    cli("--db", str(db), "analyze")
    return db


def raw(db: Path) -> sqlite3.Connection:
    """A connection that can damage the database the way a careless script would."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("PRAGMA foreign_keys = OFF")
    return conn


def test_a_healthy_database(cli: Cli, analyzed: Path) -> None:
    code, report = doctor(cli, analyzed)
    assert code == 0 and report["ok"] is True
    assert [c["name"] for c in report["checks"]] == [
        "integrity",
        "foreign_keys",
        "fts",
        "orphans",
        "extraction",
        "extracted",
        "schema",
        "reading",
        "permissions",
    ]
    schema = next(c for c in report["checks"] if c["name"] == "schema")
    from memcli.store.migrations import SCHEMA_VERSION, migrations

    newest = migrations._migrations[-1].name
    assert f"schema version {SCHEMA_VERSION} ({newest})" in schema["summary"]
    human = cli("--db", str(analyzed), "doctor")
    assert "integrity" in human.stdout and "PROBLEM" not in human.stdout


def test_a_store_read_by_an_older_reader_is_pointed_at_reread(cli: Cli, analyzed: Path) -> None:
    """An older memcli's reading (here: facts it did not find) is no damage, so the
    diagnosis stays ok, but the check names the updates and the command that fixes them."""
    with raw(analyzed) as conn:
        [(ep, fact)] = conn.execute(
            "SELECT episode_id, max(id) FROM facts GROUP BY episode_id HAVING count(*) > 1"
            " ORDER BY episode_id DESC LIMIT 1"
        ).fetchall()
        conn.execute("DELETE FROM observation_evidence")
        conn.execute("DELETE FROM fact_signatures WHERE fact_id = ?", (fact,))
        conn.execute("DELETE FROM facts WHERE id = ?", (fact,))
    code, report = doctor(cli, analyzed)
    reading = next(c for c in report["checks"] if c["name"] == "reading")
    assert code == 0 and reading["ok"] is True
    assert reading["summary"].startswith("1 of the newest")
    assert [f["id"] for f in reading["findings"]] == [ep]
    assert "memcli extract --reread" in reading["repair"]
    cli("--db", str(analyzed), "extract", "--reread")
    reading = next(c for c in doctor(cli, analyzed)[1]["checks"] if c["name"] == "reading")
    assert reading["findings"] == [] and "read as this version reads them" in reading["summary"]


def test_orphans_and_broken_references(cli: Cli, analyzed: Path, tmp_path: Path) -> None:
    conn = raw(analyzed)
    [bob] = conn.execute("SELECT id FROM episodes WHERE author = 'Bob'").fetchone()
    conn.execute("DELETE FROM episodes WHERE id = ?", (bob,))  # its facts stay behind
    [fact] = conn.execute("SELECT min(id) FROM facts WHERE episode_id != ?", (bob,)).fetchone()
    conn.execute("DELETE FROM fact_signatures WHERE fact_id = ?", (fact,))
    conn.execute("DELETE FROM facts WHERE id = ?", (fact,))  # the observation cites it
    conn.execute("INSERT INTO fact_signatures (fact_id, signature_id) VALUES (999, 1)")
    conn.close()
    code, report = doctor(cli, analyzed)
    assert code == 1 and report["ok"] is False
    bad = failing(report)
    assert set(bad) == {"foreign_keys", "orphans"}
    whats = {f["what"]: f for f in bad["orphans"]["findings"]}
    assert whats["facts whose episode is missing"]["count"] == 3
    assert whats["fact_signatures rows whose fact or signature is missing"]["count"] == 1
    assert "observation evidence pointing to a missing episode, fact or entity" in whats
    assert "memcli export" in bad["orphans"]["repair"]
    human = cli("--db", str(analyzed), "doctor", ok=False)
    assert human.exit_code == 1 and "PROBLEM orphans" in human.stdout
    assert "repair: export each graph" in human.stdout
    # the repair it names: export, import into a fresh database, analyze
    export = tmp_path / "g.jsonl"
    cli("--db", str(analyzed), "export", "--graph", "project-atlas", "--output", str(export))
    fresh = tmp_path / "fresh.db"
    cli("--db", str(fresh), "import", str(export))
    cli("--db", str(fresh), "analyze")
    assert doctor(cli, fresh)[0] == 0


def test_full_text_index_out_of_step(cli: Cli, analyzed: Path) -> None:
    """Every fts5 table with external content is checked against that content: here the
    search index over episodes, after an edit made behind the sync triggers' back."""
    code, report = doctor(cli, analyzed)
    assert code == 0
    assert next(c for c in report["checks"] if c["name"] == "fts")["summary"] == (
        "4 full-text table(s) consistent"
    )
    conn = raw(analyzed)
    conn.execute("DROP TRIGGER episodes_fts_au")
    conn.execute("UPDATE episodes SET content = 'rewritten behind the index' WHERE author = 'Bob'")
    conn.close()
    code, report = doctor(cli, analyzed)
    assert code == 1
    fts = failing(report)["fts"]
    assert fts["findings"][0]["name"] == "episodes_fts"
    assert "INSERT INTO episodes_fts(episodes_fts) VALUES('rebuild')" in fts["repair"]
    conn = raw(analyzed)
    conn.execute("INSERT INTO episodes_fts(episodes_fts) VALUES('rebuild')")
    conn.close()
    assert doctor(cli, analyzed)[0] == 0


def test_unfinished_extraction_and_newer_schema(cli: Cli, analyzed: Path) -> None:
    conn = raw(analyzed)
    conn.execute("UPDATE episodes SET extraction_status = 'pending' WHERE author = 'Clara'")
    conn.execute(
        "INSERT INTO _sqlite_migrations (migration_set, name, applied_at)"
        " VALUES ('memcli', 'm999_from_the_future', '2030-01-01')"
    )
    conn.close()
    code, report = doctor(cli, analyzed)
    assert code == 1
    bad = failing(report)
    assert set(bad) == {"extraction", "schema"}
    assert bad["extraction"]["findings"][0]["extraction_status"] == "pending"
    assert "m999_from_the_future" in bad["schema"]["summary"]
    assert "upgrade memcli" in bad["schema"]["repair"]


def test_loose_permissions(cli: Cli, analyzed: Path) -> None:
    os.chmod(analyzed, 0o644)
    code, report = doctor(cli, analyzed)
    assert code == 1
    perms = failing(report)["permissions"]
    assert perms["repair"] == f"chmod 600 {analyzed}"
    assert perms["findings"] == [{"file": str(analyzed), "mode": "0o644"}]
    subprocess.run(perms["repair"].split(), check=True)
    assert doctor(cli, analyzed)[0] == 0


def test_a_damaged_file(cli: Cli, tmp_path: Path) -> None:
    """Overwrite index pages in the middle of the file: integrity_check says so, the
    other commands give a message instead of a traceback."""
    write_updates(tmp_path / "in", range(300))
    db = tmp_path / "damaged.db"
    cli("--db", str(db), "ingest", str(tmp_path / "in"), "-q")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page_size = conn.execute("PRAGMA page_size").fetchone()[0]
    [root] = conn.execute(
        "SELECT rootpage FROM sqlite_master WHERE name = 'facts_graph_rel'"
    ).fetchone()
    conn.close()
    with db.open("r+b") as fh:  # scribble over the index's root page
        fh.seek((root - 1) * page_size)
        fh.write(b"\xa5" * page_size)
    code, report = doctor(cli, db)
    assert code == 1
    integrity = next(c for c in report["checks"] if c["name"] in ("integrity", "open"))
    assert integrity["ok"] is False
    assert ".recover" in integrity["repair"]
    facts = cli("--db", str(db), "facts", "--graph", "g", ok=False)
    if facts.exit_code != 0:
        assert "Traceback" not in facts.stderr and "Error: database error" in facts.stderr
        assert "memcli doctor" in facts.stderr


def test_not_a_database_and_no_database(cli: Cli, tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not sqlite" * 1000)
    code, report = doctor(cli, junk)
    assert code == 1 and report["checks"][0]["name"] == "open"
    missing = cli("--db", str(tmp_path / "none.db"), "doctor", ok=False)
    assert missing.exit_code == 1 and "no memcli database" in missing.stderr
    assert not (tmp_path / "none.db").exists()
