"""Safety at the edges: hostile names end to end, private files whatever the umask, and
JSON ``source`` paths that are labels only (never read, never written)."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from memcli.models import EntityType
from memcli.resolve import display_name
from tests.conftest import Cli, update
from tests.reliability.helpers import env, memcli_cmd, run
from tests.test_store import EXPECTED_TABLES

ITEM, PERSON = EntityType.WORK_ITEM, EntityType.PERSON
HOSTILE = [
    "'); DROP TABLE facts; --",
    'Robert"); DELETE FROM episodes; --',
    "x' OR '1'='1",
    "semi;colon; and -- comment",
    "%_ wildcards \\ backslash",
    "Zoë Ørsted-Łukasiewicz",
    "東京チーム",
    "مهندس",
    "emoji 🚀 team",
    "tab\tand\u200bzero width",
]
# every memcli data table (the store test lists the schema; it keeps one copy)
TABLES = (EXPECTED_TABLES - {"_sqlite_migrations"}) | {"episode_clusters"}


def test_hostile_names_round_trip_through_every_command(
    cli: Cli, tmp_path: Path, db_path: Path
) -> None:
    records = []
    for i, name in enumerate(HOSTILE):
        for who, source in ((name, f"{name} work"), (f"{name} peer", f"other {i}")):
            records.append(
                {
                    "content": f"Update {i}: {source} is blocked on {name} core.",
                    "author": who,
                    "occurred_at": f"2026-11-{i + 1:02d}T09:00:00Z",
                    "graph": name,
                    "source": name,
                    "facts": [
                        {"source": source, "relation": "blocked_by", "target": f"{name} core"},
                        {
                            "source": who,
                            "source_type": "person",
                            "relation": "owns",
                            "target": source,
                        },
                    ],
                }
            )
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in records), encoding="utf-8")
    report = cli.json("ingest", str(path))
    assert report["errors"] == [] and report["episodes"]["new"] == 2 * len(HOSTILE)
    graphs = [g["graph"] for g in cli.json("graphs")]
    assert sorted(graphs) == sorted(HOSTILE)
    for name in HOSTILE:
        cli("analyze", "--graph", name)
        facts = cli.json("facts", "--graph", name)
        assert {f["author"] for f in facts} == {name, f"{name} peer"}
        assert {f["episode_source"] for f in facts} == {name}
        # names are kept as written; only spaces and punctuation at their ends are tidied
        i = HOSTILE.index(name)
        work, core = display_name(f"{name} work", ITEM), display_name(f"{name} core", ITEM)
        assert {(f["source"], f["relation"], f["target"]) for f in facts} == {
            (work, "blocked_by", core),
            (display_name(name, PERSON), "owns", work),
            (f"other {i}", "blocked_by", core),
            (display_name(f"{name} peer", PERSON), "owns", f"other {i}"),
        }
        for f in facts:
            assert f["source"] == f["source"].strip() and f["target"] == f["target"].strip()
        [obs] = cli.json("observations", "--graph", name)
        assert obs["graph"] == name
        assert cli.json("observation", "show", str(obs["id"]))["graph"] == name
        entities = cli.json("entities", "--graph", name)
        assert len(entities) == 5
        exported = cli("export", "--graph", name).stdout
        assert json.loads(exported.splitlines()[0])["author"] == name
        fresh = tmp_path / f"fresh{HOSTILE.index(name)}.db"
        cli("--db", str(fresh), "import", "-", input=exported)
        assert cli.json("--db", str(fresh), "graphs")[0]["graph"] == name
    missing = cli("facts", "--graph", "'; DROP TABLE graphs; --", ok=False)
    assert missing.exit_code == 1 and "no graph named" in missing.stderr
    conn = sqlite3.connect(db_path)
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert TABLES <= tables
    assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 2 * len(HOSTILE)
    assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] == 4 * len(HOSTILE)
    stored = {r[0] for r in conn.execute("SELECT author FROM episodes")}
    assert set(HOSTILE) <= stored, "names are stored exactly as written"
    conn.close()
    assert cli.json("doctor")["ok"] is True


def test_hostile_names_in_markdown_front_matter(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    name = "O'Brien\"; DROP TABLE episodes; --"
    path = write(
        "x.md",
        update(
            json.dumps(name),
            "2026-11-02",
            "The API migration is blocked on the auth service refactor.",
            json.dumps(name),
        ),
    )
    cli("ingest", str(path))
    [fact] = [f for f in cli.json("facts", "--graph", name) if f["relation"] == "blocked_by"]
    assert fact["author"] == name


def modes(folder: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.stat().st_mode) for p in sorted(folder.iterdir())}


def test_database_and_side_files_are_private_whatever_the_umask(tmp_path: Path) -> None:
    """umask 000 in the process that creates everything: the new data directory is
    0700, the database and the WAL/SHM files SQLite creates beside it are 0600, and so
    is an export written with --output."""
    home = tmp_path / "home"
    script = (
        "import json, os, stat, sys\n"
        "from memcli.store import Store\n"
        "store = Store(sys.argv[1])\n"
        "with store.transaction():\n"
        "    store.ensure_graph('g')\n"
        "d = os.path.dirname(sys.argv[1])\n"
        "print(json.dumps({n: stat.S_IMODE(os.stat(os.path.join(d, n)).st_mode)"
        " for n in os.listdir(d)}))\n"
    )
    db = home / "data" / "m.db"
    result = subprocess.run(
        [sys.executable, "-c", script, str(db)],
        capture_output=True,
        text=True,
        check=True,
        umask=0,
        env=env(),
    )
    while_open = json.loads(result.stdout)
    assert while_open == {"m.db": 0o600, "m.db-wal": 0o600, "m.db-shm": 0o600}
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700

    cli_db = tmp_path / "cli" / "c.db"
    (tmp_path / "u.md").write_text(
        update("Alice", "2026-11-02", "Alice owns the style guide.", "g")
    )
    for args in (
        ("ingest", str(tmp_path / "u.md")),
        ("export", "--graph", "g", "-o", str(tmp_path / "cli" / "g.jsonl")),
    ):
        done = subprocess.run(
            memcli_cmd(cli_db, *args),
            capture_output=True,
            text=True,
            umask=0,
            env=env(),
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert modes(cli_db.parent) == {"c.db": 0o600, "g.jsonl": 0o600}
    assert stat.S_IMODE(cli_db.parent.stat().st_mode) == 0o700


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_json_source_paths_are_labels_only(tmp_path: Path) -> None:
    """A JSON episode's source may name any path: memcli never opens it (a FIFO there
    would block a reader forever) and never writes there."""
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    fifo = tmp_path / "trap.fifo"
    os.mkfifo(fifo)
    canary = tmp_path / "canary.txt"
    canary.write_text("CANARY-7f3a9 must never be read into memcli\n")
    passwd = Path("/etc/passwd")
    before = sha(passwd) if passwd.exists() else None
    sources = [str(passwd), "../../x", str(fifo), str(canary), "../../../relative.md", "-"]
    records = [
        {
            "content": f"Item {i} is blocked on the shared dependency.",
            "author": "Mallory",
            "occurred_at": f"2026-11-{i + 1:02d}",
            "graph": "labels",
            "source": s,
        }
        for i, s in enumerate(sources)
    ]
    (work / "in.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")
    md = "---\nauthor: Mallory\ndate: 2026-11-20\nsource: ../../x\ngraph: labels\n---\nIt is blocked on the shared dependency.\n"
    (work / "fm.md").write_text(md)
    db = tmp_path / "m.db"
    for args in (
        ("ingest", "in.jsonl", "fm.md"),
        ("analyze",),
        ("observations", "--graph", "labels"),
        ("export", "--graph", "labels", "-o", "out.jsonl"),
        ("import", "out.jsonl", "--graph", "copy"),
        ("doctor",),
    ):
        result = run(db, *args, cwd=work, timeout=60)
        assert result.returncode == 0, (args, result.stderr)
    stored = sqlite3.connect(db).execute("SELECT source, content FROM episodes").fetchall()
    assert {s for s, _ in stored} >= set(sources)
    assert not any("CANARY" in c for _, c in stored)
    assert not (tmp_path / "a" / "x").exists() and not (tmp_path / "relative.md").exists()
    assert sorted(p.name for p in work.iterdir()) == ["fm.md", "in.jsonl", "out.jsonl"]
    assert fifo.exists() and stat.S_ISFIFO(fifo.stat().st_mode)
    if before is not None:
        assert sha(passwd) == before
