"""Corrections: retract and move an episode, rename and delete a graph."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memcli.store import Store
from tests.conftest import Cli, update

ATLAS = "project-atlas"
SHIPPED = "The backend team shipped the auth service refactor."
DAN = "Dan is also waiting on the auth service refactor for the mobile release."


def week1(cli: Cli, atlas: Path) -> dict[str, Any]:
    cli("ingest", *sorted(str(p) for p in atlas.glob("*.md")))
    cli("analyze")
    [obs] = cli.json("observations", "--graph", ATLAS)
    return obs


def episode_of(obs: dict[str, Any], author: str) -> int:
    return next(e["id"] for e in obs["episodes"] if e["author"] == author)


def test_retract_regenerates_then_retires_with_the_reason(cli: Cli, atlas: Path) -> None:
    obs = week1(cli, atlas)
    clara, bob = episode_of(obs, "Clara"), episode_of(obs, "Bob")

    cli("episode", "retract", str(clara), "--reason", "posted to the wrong channel")
    cli("analyze")
    [again] = cli.json("observations", "--graph", ATLAS)
    assert again["id"] == obs["id"] and again["version"] == 2
    assert clara not in {e["id"] for e in again["episodes"]}
    # the episode is still stored, its fact ended, and search no longer cites it
    ended = cli.json("facts", "--graph", ATLAS, "--include-ended")
    assert all(f["invalid_at"] for f in ended if f["episode_id"] == clara)
    assert cli.json("search", "checkout", "--graph", ATLAS, "--scope", "episodes") == []
    exported = cli("export", "--graph", ATLAS).stdout
    assert "checkout" not in exported and "payments integration" in exported
    again_twice = cli("episode", "retract", str(clara), ok=False)
    assert again_twice.exit_code == 2 and "already retracted" in again_twice.stderr

    cli("episode", "retract", str(bob), "--reason", "Bob was describing last quarter")
    cli("analyze")
    assert cli.json("observations", "--graph", ATLAS) == []
    [retired] = cli.json("observations", "--graph", ATLAS, "--status", "retired")
    assert retired["id"] == obs["id"]
    source = next(e["source"] for e in obs["episodes"] if e["id"] == bob)
    assert retired["retire_reason"] == (
        f"evidence retracted: episode #{bob} ({source}) was retracted: "
        "Bob was describing last quarter"
    )
    history = cli.json("observation", "history", str(obs["id"]))
    assert len(history) == 2
    # the retired observation is still found, but never cites a retracted update
    [hit] = cli.json(
        "search", "refactor", "--graph", ATLAS, "--scope", "observations", "--include-ended"
    )
    assert hit["id"] == obs["id"]
    assert hit["evidence"]["episode_ids"] == [episode_of(obs, "Alice")]


def test_retracting_a_completion_reopens_what_it_ended(
    cli: Cli, atlas: Path, write: Callable[..., Path]
) -> None:
    old = week1(cli, atlas)
    shipped = write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", SHIPPED))
    cli("ingest", str(shipped))
    cli("analyze")
    assert old["id"] not in {o["id"] for o in cli.json("observations", "--graph", ATLAS)}
    ship = next(
        f["episode_id"]
        for f in cli.json("facts", "--graph", ATLAS, "--include-ended")
        if f["relation"] == "completed"
    )

    cli("episode", "retract", str(ship), "--reason", "announced before the deploy")
    waits = [
        f
        for f in cli.json("facts", "--graph", ATLAS)
        if f["relation"] == "blocked_by" and f["target"] == "auth service refactor"
    ]
    assert len(waits) == 2 and all(f["invalidated_by"] is None for f in waits)
    cli("analyze")
    roots = [o["root_entities"] for o in cli.json("observations", "--graph", ATLAS)]
    assert ["auth service refactor"] in roots


def test_move_an_episode_to_the_graph_it_belongs_in(
    cli: Cli, atlas: Path, write: Callable[..., Path], db_path: Path
) -> None:
    obs = week1(cli, atlas)
    stray = write("dan.md", update("Dan", "2026-11-07T09:00:00Z", DAN, graph="mobile"))
    cli("ingest", str(stray))
    cli("analyze")
    [dan] = [
        e["id"] for e in cli.json("search", "mobile", "--graph", "mobile", "--scope", "episodes")
    ]

    cli("episode", "move", str(dan), "--to", ATLAS)
    cli("analyze")
    [grown] = cli.json("observations", "--graph", ATLAS)
    assert grown["id"] == obs["id"] and dan in {e["id"] for e in grown["episodes"]}
    # nothing of it is left behind
    assert cli.json("entities", "--graph", "mobile") == []
    assert cli.json("facts", "--graph", "mobile", "--include-ended") == []
    with Store(db_path) as store:
        store.fts_integrity_check()
    assert cli("doctor").exit_code == 0
    back = cli("episode", "move", str(dan), "--to", ATLAS, ok=False)
    assert back.exit_code == 2 and "already in graph" in back.stderr


def test_rename_keeps_everything_and_delete_removes_everything(
    cli: Cli, atlas: Path, write: Callable[..., Path], db_path: Path
) -> None:
    obs = week1(cli, atlas)
    other = write("dan.md", update("Dan", "2026-11-07T09:00:00Z", DAN, graph="mobile"))
    cli("ingest", str(other))
    cli("analyze", "--graph", "mobile")

    cli("graph", "rename", ATLAS, "atlas")
    [renamed] = cli.json("observations", "--graph", "atlas")
    assert renamed["id"] == obs["id"] and renamed["graph"] == "atlas"
    assert {g["graph"] for g in cli.json("graphs")} == {"atlas", "mobile"}
    taken = cli("graph", "rename", "atlas", "mobile", ok=False)
    assert taken.exit_code == 2 and "already exists" in taken.stderr

    # not at a terminal: refuses without --yes, and deletes nothing
    refused = cli("graph", "delete", "atlas", ok=False)
    assert refused.exit_code == 2 and "--yes" in refused.stderr
    assert {g["graph"] for g in cli.json("graphs")} == {"atlas", "mobile"}

    cli("graph", "delete", "atlas", "--yes")
    assert [g["graph"] for g in cli.json("graphs")] == ["mobile"]
    with Store(db_path) as store:
        store.fts_integrity_check()
        for table in store.graph_tables():
            assert store.scalar(f"SELECT count(*) FROM {table} WHERE graph_id = 'atlas'") == 0
    conn = sqlite3.connect(db_path)
    try:
        # nothing of the graph is findable any more, and the other graph is intact
        docs, facts = conn.execute(
            "SELECT (SELECT count(*) FROM fact_docs), (SELECT count(*) FROM facts)"
        ).fetchone()
        assert docs == facts > 0
        assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 1
        assert (
            conn.execute("SELECT count(*) FROM entity_docs").fetchone()[0]
            == (conn.execute("SELECT count(*) FROM entities").fetchone()[0])
        )
    finally:
        conn.close()
    assert cli.json("search", "refactor", "--graph", "mobile", "--scope", "all")
    assert cli("doctor").exit_code == 0


def _delete_at_a_terminal(db_path: Path, answer: str) -> subprocess.CompletedProcess[str]:
    """``memcli graph delete`` with a terminal on stdin, answering the question."""
    leader, follower = os.openpty()
    try:
        os.write(leader, answer.encode() + b"\n")
        return subprocess.run(
            [sys.executable, "-m", "memcli", "--db", str(db_path), "graph", "delete", ATLAS],
            stdin=follower,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(follower)
        os.close(leader)


def test_graph_delete_asks_at_a_terminal(cli: Cli, atlas: Path, db_path: Path) -> None:
    week1(cli, atlas)
    kept = _delete_at_a_terminal(db_path, "n")
    assert "Delete graph 'project-atlas'" in kept.stdout and kept.returncode == 1
    assert [g["graph"] for g in cli.json("graphs")] == [ATLAS]
    gone = _delete_at_a_terminal(db_path, "y")
    assert gone.returncode == 0, gone.stderr
    assert cli.json("graphs") == []
