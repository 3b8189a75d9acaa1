"""The store: migrations, pragmas, permissions, and the contradiction rules in SQL."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from memcli.store import SCHEMA_VERSION, Store

EXPECTED_TABLES = {
    "graphs",
    "episodes",
    "entities",
    "entity_aliases",
    "facts",
    "signatures",
    "fact_signatures",
    "observations",
    "observation_evidence",
    "observation_versions",
    "observation_links",
    "analysis_runs",
    "_sqlite_migrations",
}


def tables(path: Path) -> set[str]:
    conn = sqlite3.connect(path)
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def test_fresh_database_is_migrated_wal_and_private(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "m.db"
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.scalar("PRAGMA journal_mode") == "wal"
        assert store.scalar("PRAGMA foreign_keys") == 1
        assert store.scalar("PRAGMA busy_timeout") > 0
    assert EXPECTED_TABLES <= tables(path)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_reopening_applies_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Store(path).close()
    with Store(path) as store:
        applied = [r["name"] for r in store.rows("SELECT name FROM _sqlite_migrations ORDER BY id")]
    assert len(applied) == len(set(applied)) == SCHEMA_VERSION
    assert applied[0] == "m001_initial"


def test_the_open_path_knows_every_migration() -> None:
    # Opening an up-to-date database reads these instead of importing the migrations
    # module (and sqlite-utils with it); they must name the same migrations.
    from sqlite_utils import Migrations

    from memcli.store import connection, migrations

    assert connection.SCHEMA_MIGRATIONS == tuple(migrations.MIGRATION_NAMES)
    assert connection.MIGRATION_SET == migrations.migrations.name
    assert connection.MIGRATIONS_TABLE == Migrations.migrations_table
    assert connection.APPLICATION_ID == migrations.APPLICATION_ID


def test_a_database_behind_by_one_migration_is_brought_up_to_date(tmp_path: Path) -> None:
    from sqlite_utils import Database

    from memcli.store.migrations import MIGRATION_NAMES, migrations

    path = tmp_path / "old.db"
    db = Database(path)
    migrations.apply(db, stop_before=MIGRATION_NAMES[-1])
    db.close()
    with Store(path) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.applied_migrations() == MIGRATION_NAMES


def test_reopening_sets_the_same_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "m.db"
    Store(path).close()
    with Store(path) as store:
        assert store.scalar("PRAGMA journal_mode") == "wal"
        assert store.scalar("PRAGMA foreign_keys") == 1
        assert store.scalar("PRAGMA recursive_triggers") == 1


def test_facts_columns_are_bitemporal(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as store:
        cols = {r["name"] for r in store.rows("PRAGMA table_info(facts)")}
    assert {"valid_at", "invalid_at", "created_at", "expired_at", "invalidated_by"} <= cols


def test_not_a_database_is_a_clear_error(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "junk.db"
    bad.write_bytes(b"this is not sqlite" * 100)
    result = cli("--db", str(bad), "graphs", ok=False)
    assert result.exit_code == 1
    assert "cannot open" in result.stderr and str(bad) in result.stderr
