"""A new database is created in one step (``memcli.store.new_database``), and what that
step leaves must be exactly what running every migration through sqlite-utils leaves:
the same ``sqlite_master``, the same rows in every table (the search indexes' own
tables included), the same header pragmas.

When a migration is added this test fails; regenerate the module with
``python -m tests.test_new_database`` (it rewrites ``memcli/store/new_database.py`` from
a database the migrations built), then run ``ruff format`` on it.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from memcli.store import Store, new_database

MODULE = Path(new_database.__file__)
SHADOW_SUFFIXES = ("_data", "_idx", "_content", "_docsize", "_config")


def migrated(path: Path) -> None:
    """A database built the long way: every migration, through sqlite-utils."""
    from sqlite_utils import Database

    from memcli.store.migrations import migrations

    db = Database(path)
    migrations.apply(db)
    db.close()


def statements(path: Path) -> list[str]:
    """The statements that build ``path``'s schema from an empty file, in the order the
    migrations left its objects: every object that has SQL of its own (not a search
    index's own tables, which creating the index makes, nor SQLite's automatic indexes),
    then a ``rebuild`` of each search index whose empty structure a migration rewrote."""
    conn = sqlite3.connect(path)
    rows = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY rowid").fetchall()
    virtual = [name for _type, name, sql in rows if sql and sql.startswith("CREATE VIRTUAL")]
    shadow = {v + s for v in virtual for s in SHADOW_SUFFIXES}
    out = [sql for _type, name, sql in rows if sql and name not in shadow]
    for name in virtual:
        if conn.execute(f"SELECT block FROM [{name}_data] WHERE id = 1").fetchone()[0]:
            out.append(f"INSERT INTO {name} ({name}) VALUES ('rebuild')")
    conn.close()
    return out


def contents(path: Path) -> dict[str, Any]:
    """Everything a database holds that the two ways of creating one could differ in."""
    conn = sqlite3.connect(path)
    master = conn.execute(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name"
    ).fetchall()
    tables = {}
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
        if name.endswith("_fts"):
            continue  # the index itself: its rows are its shadow tables', compared below
        cur = conn.execute(f"SELECT * FROM [{name}] ORDER BY 1")
        keys = [d[0] for d in cur.description]
        # applied_at is the time each migration ran: the only value that may differ.
        tables[name] = [
            {k: v for k, v in zip(keys, row, strict=True) if k != "applied_at"} for row in cur
        ]
    pragmas = {
        p: conn.execute(f"PRAGMA {p}").fetchone()[0]
        for p in ("application_id", "user_version", "auto_vacuum", "encoding", "page_size")
    }
    conn.close()
    return {"master": master, "tables": tables, "pragmas": pragmas}


def test_a_new_database_equals_one_the_migrations_built(tmp_path: Path) -> None:
    long_way = tmp_path / "migrated.db"
    migrated(long_way)
    one_step = tmp_path / "new.db"
    Store(one_step).close()
    assert contents(one_step) == contents(long_way)


def test_the_one_step_statements_are_those_of_a_migrated_database(tmp_path: Path) -> None:
    path = tmp_path / "migrated.db"
    migrated(path)
    assert list(new_database.STATEMENTS) == statements(path), (
        "a migration changed the schema: regenerate with python -m tests.test_new_database"
    )


def test_a_new_database_records_every_migration_as_applied(tmp_path: Path) -> None:
    from memcli.store.migrations import MIGRATION_NAMES, migrations

    path = tmp_path / "new.db"
    Store(path).close()
    with Store(path) as store:
        assert store.applied_migrations() == MIGRATION_NAMES
        assert migrations.pending(store.db) == []


def render(stmts: list[str]) -> str:
    """The text of ``memcli/store/new_database.py`` with ``stmts`` as its statements."""
    text = MODULE.read_text(encoding="utf-8")
    head, _sep, _rest = text.partition("STATEMENTS: tuple[str, ...] = (")
    _old, _sep, tail = text.partition("\n)  # end of STATEMENTS\n")
    for sql in stmts:
        assert '"""' not in sql and "\\" not in sql, sql
    body = "".join(f'    """{sql}""",\n' for sql in stmts)
    return f"{head}STATEMENTS: tuple[str, ...] = (\n{body})  # end of STATEMENTS\n{tail}"


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "migrated.db"
        migrated(path)
        MODULE.write_text(render(statements(path)), encoding="utf-8")
    print(f"wrote {MODULE}")
