"""Observations that follow the evidence across runs: regenerate, retire, supersede."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli, update

SHIPPED = "The backend team shipped the auth service refactor."
DAN = "Dan is also waiting on the auth service refactor for the mobile release."


def week1(cli: Cli, atlas: Path) -> dict:
    cli("ingest", *sorted(str(p) for p in atlas.glob("*.md")))
    cli("analyze")
    [obs] = cli.json("observations", "--graph", "project-atlas")
    return obs


def test_shipping_the_root_retires_and_the_pattern_reforms(
    cli: Cli, atlas: Path, write: Callable[..., Path]
) -> None:
    old = week1(cli, atlas)
    shipped = write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", SHIPPED))
    cli("ingest", str(shipped))
    cli("analyze")

    # the waits on the refactor are ended at the shipping time, never deleted
    facts = cli.json("facts", "--graph", "project-atlas", "--include-ended")
    waits = [
        f for f in facts if f["relation"] == "blocked_by" and f["target"] == "auth service refactor"
    ]
    assert len(waits) == 2
    ship_episode = next(f["episode_id"] for f in facts if f["relation"] == "completed")
    for f in waits:
        assert f["invalid_at"] == "2026-11-10T11:00:00Z"
        assert f["invalidated_by"] == ship_episode
        assert f["expired_at"] is not None
    current = cli.json("facts", "--graph", "project-atlas")
    assert not [
        f
        for f in current
        if f["relation"] == "blocked_by" and f["target"] == "auth service refactor"
    ]

    all_obs = {
        o["id"]: o for o in cli.json("observations", "--graph", "project-atlas", "--status", "all")
    }
    retired = all_obs[old["id"]]
    assert retired["status"] == "retired"
    assert retired["end_at"] == "2026-11-10T11:00:00Z"
    assert f"episode #{ship_episode}" in retired["retire_reason"]
    assert retired["retired_by_episode"] == ship_episode
    assert retired["name"] == "Auth service refactor blocking multiple workstreams"

    [new] = cli.json("observations", "--graph", "project-atlas")
    assert new["id"] != old["id"]
    assert new["root_entities"] == ["payments integration"]
    assert [e["author"] for e in new["episodes"]] == ["Bob", "Clara"]
    assert "Clara's checkout flow waits on it directly" in new["summary"]
    assert new["supersedes"] == [old["id"]]
    assert retired["superseded_by"] == [new["id"]]

    # nothing new: nothing changes, and the retired one never comes back
    cli("analyze", "--force")
    again = {
        o["id"]: o for o in cli.json("observations", "--graph", "project-atlas", "--status", "all")
    }
    assert again == all_obs


def test_new_evidence_regenerates_in_place(
    cli: Cli, atlas: Path, write: Callable[..., Path]
) -> None:
    old = week1(cli, atlas)
    cli("ingest", str(write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", DAN))))
    cli("analyze")
    [obs] = cli.json("observations", "--graph", "project-atlas", "--status", "all")
    assert obs["id"] == old["id"]
    assert obs["version"] == 2
    assert [e["author"] for e in obs["episodes"]] == ["Alice", "Bob", "Clara", "Dan"]
    assert obs["latest_evidence_at"] == "2026-11-10T11:00:00Z"
    assert obs["start_at"] == old["start_at"]
    assert "Dan's mobile release" in obs["summary"]
    assert "all four: Alice, Bob, Clara and Dan" in obs["summary"]

    history = cli.json("observation", "history", str(obs["id"]))
    assert [h["version"] for h in history] == [1, 2]
    assert history[0]["summary"] == old["summary"]
    assert len(history[0]["episodes"]) == 3 and len(history[1]["episodes"]) == 4
    assert "v1" in cli("observation", "history", str(obs["id"])).stdout


def _evidence_is_the_latest_version(db: Path) -> None:
    """Every observation's evidence rows are exactly the evidence of its latest version
    (an update writes only the rows that changed, so the two are checked apart)."""
    conn = sqlite3.connect(db)
    stored: dict[int, set[tuple[str, int, str]]] = {}
    for oid, t, i, role in conn.execute(
        "SELECT observation_id, item_type, item_id, role FROM observation_evidence"
    ):
        stored.setdefault(oid, set()).add((t, i, role))
    latest = conn.execute(
        "SELECT v.observation_id, v.evidence FROM observation_versions v"
        " JOIN observations o ON o.id = v.observation_id AND o.version = v.version"
    ).fetchall()
    conn.close()
    assert latest
    for oid, evidence in latest:
        assert stored.get(oid, set()) == {tuple(row) for row in json.loads(evidence)}


def test_an_update_rewrites_evidence_to_the_new_version(
    cli: Cli, atlas: Path, write: Callable[..., Path], db_path: Path
) -> None:
    # Dan joins (rows added); then Eve's chain through the search page adds rows and
    # changes others (without the old rows deleted, the check below fails).
    week1(cli, atlas)
    cli("ingest", str(write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", DAN))))
    cli("analyze")
    _evidence_is_the_latest_version(db_path)
    later = update(
        "Eve",
        "2026-11-11T09:00:00Z",
        "The mobile release is blocked on the search page. "
        "The search page is blocked on the auth service refactor.",
    )
    cli("ingest", str(write("w3-eve.md", later)))
    cli("analyze")
    [obs] = cli.json("observations", "--graph", "project-atlas")
    assert obs["version"] == 3
    _evidence_is_the_latest_version(db_path)


def test_out_of_order_ingest_gives_the_same_facts_and_observations(
    cli: Cli, atlas: Path, write: Callable[..., Path], tmp_path: Path
) -> None:
    shipped = write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", SHIPPED))
    files = sorted(str(p) for p in atlas.glob("*.md"))

    def state(db: Path, order: list[str]) -> tuple[list, list]:
        for path in order:
            cli("--db", str(db), "ingest", path)
        cli("--db", str(db), "analyze")
        facts = cli.json("--db", str(db), "facts", "--graph", "project-atlas", "--include-ended")
        obs = cli.json("--db", str(db), "observations", "--graph", "project-atlas")
        keyed_facts = sorted(
            (f["source"], f["relation"], f["target"], f["author"], f["valid_at"], f["invalid_at"])
            for f in facts
        )
        keyed_obs = [(o["name"], o["summary"], [e["source"] for e in o["episodes"]]) for o in obs]
        return keyed_facts, keyed_obs

    in_order = state(tmp_path / "a.db", [*files, str(shipped)])
    shipped_first = state(tmp_path / "b.db", [str(shipped), *files])
    assert shipped_first == in_order
    # the old waits were stored already ended, not resurrected
    assert all(
        f[5] == "2026-11-10T11:00:00Z"
        for f in in_order[0]
        if f[1] == "blocked_by" and f[2] == "auth service refactor"
    )


def test_as_of_shows_the_past(cli: Cli, atlas: Path, write: Callable[..., Path]) -> None:
    old = week1(cli, atlas)
    cli("ingest", str(write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", SHIPPED))))
    cli("analyze")
    past = cli.json("observations", "--graph", "project-atlas", "--as-of", "2026-11-07")
    assert [o["id"] for o in past] == [old["id"]]
    past_facts = cli.json("facts", "--graph", "project-atlas", "--as-of", "2026-11-07")
    assert sum(f["relation"] == "blocked_by" for f in past_facts) == 3
    before_anything = cli.json("facts", "--graph", "project-atlas", "--as-of", "2026-11-01")
    assert before_anything == []


def test_entity_timeline(cli: Cli, atlas: Path, write: Callable[..., Path]) -> None:
    week1(cli, atlas)
    cli("ingest", str(write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", SHIPPED))))
    rows = cli.json("entity", "show", "Auth Service Refactor", "--graph", "project-atlas")
    assert [r["valid_at"][:10] for r in rows["facts"]] == sorted(
        r["valid_at"][:10] for r in rows["facts"]
    )
    relations = [(r["relation"], r["invalid_at"] is None) for r in rows["facts"]]
    assert ("completed", True) in relations
    assert ("blocked_by", False) in relations
    out = cli("entity", "show", "auth service refactor", "--graph", "project-atlas").stdout
    assert "completed" in out and "Dan" in out
    missing = cli("entity", "show", "nothing", "--graph", "project-atlas", ok=False)
    assert missing.exit_code == 1


def test_incremental_equals_full(
    cli: Cli, atlas: Path, write: Callable[..., Path], tmp_path: Path
) -> None:
    """The same sequence analyzed incrementally and from scratch ends in the same state."""
    batches = [
        sorted(str(p) for p in atlas.glob("*.md")),
        [
            str(
                write(
                    "n1.md",
                    update("Eve", "2026-11-08", "The search page is blocked on the index rebuild."),
                )
            )
        ],
        [
            str(
                write(
                    "n2.md",
                    update("Finn", "2026-11-09", "The mobile app depends on the index rebuild."),
                )
            )
        ],
        [str(write("n3.md", update("Dan", "2026-11-10T11:00:00Z", DAN)))],
        [str(write("n4.md", update("Gus", "2026-11-11", "Gus is working on the style guide.")))],
        [str(write("n5.md", update("Dan", "2026-11-12", SHIPPED)))],
    ]

    def run(db: Path, flag: str) -> list[tuple]:
        modes = []
        for batch in batches:
            cli("--db", str(db), "ingest", *batch)
            report = (
                cli.json("--db", str(db), "analyze", flag)
                if flag
                else cli.json("--db", str(db), "analyze")
            )
            modes.append(report[0]["mode"])
        obs = cli.json(
            "--db", str(db), "observations", "--graph", "project-atlas", "--status", "all"
        )
        return modes, [
            (
                o["id"],
                o["status"],
                o["name"],
                o["summary"],
                o["version"],
                o["root_entities"],
                [e["id"] for e in o["episodes"]],
                sorted(f["id"] for f in o["facts"]),
                o["supersedes"],
                o["retire_reason"],
            )
            for o in obs
        ]

    inc_modes, incremental = run(tmp_path / "inc.db", "")
    full_modes, full = run(tmp_path / "full.db", "--full")
    assert set(full_modes) == {"full"}
    assert "incremental" in inc_modes
    assert incremental == full


def test_settle_skips_a_busy_graph(cli: Cli, atlas: Path) -> None:
    cli("ingest", *sorted(str(p) for p in atlas.glob("*.md")))
    result = cli("analyze", "--settle", "1h")
    assert "skipped" in result.stderr and "settle" in result.stderr
    assert cli.json("observations", "--graph", "project-atlas") == []
    cli("analyze", "--settle", "0s")
    assert len(cli.json("observations", "--graph", "project-atlas")) == 1
    bad = cli("analyze", "--settle", "soon", ok=False)
    assert bad.exit_code == 2


def test_concurrent_analyze_processes(atlas: Path, tmp_path: Path) -> None:
    """Two analyze processes on one database: both exit 0, one observation, no corruption."""
    db = tmp_path / "c.db"
    run = [sys.executable, "-m", "memcli", "--db", str(db)]
    subprocess.run(
        [*run, "ingest", *sorted(str(p) for p in atlas.glob("*.md"))],
        check=True,
        capture_output=True,
    )
    procs = [
        subprocess.Popen(
            [*run, "analyze", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    outs = [p.communicate(timeout=60) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    reports = [json.loads(o[0])[0] for o in outs]
    assert sorted(r["skipped"] for r in reports) == [False, True]
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 1
    assert conn.execute("SELECT count(*) FROM analysis_runs").fetchone()[0] == 1


def test_the_evidence_index_is_kept_through_first_and_later_passes(
    cli: Cli, atlas: Path, write: Callable[..., Path], db_path: Path
) -> None:
    # A first pass rebuilds the item index after its rows; it must come back as the
    # migration defined it, and stay through a pass that updates in place.
    def index_sql() -> str | None:
        conn = sqlite3.connect(db_path)
        row = conn.execute(
            "SELECT sql FROM sqlite_master WHERE name = 'observation_evidence_item'"
        ).fetchone()
        assert conn.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        conn.close()
        return None if row is None else str(row[0])

    expected = "CREATE INDEX observation_evidence_item ON observation_evidence(item_type, item_id)"
    week1(cli, atlas)
    assert index_sql() == expected
    cli("ingest", str(write("w2-dan.md", update("Dan", "2026-11-10T11:00:00Z", DAN))))
    cli("analyze")
    assert index_sql() == expected
