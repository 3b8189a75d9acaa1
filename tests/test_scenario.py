"""The canonical Alice/Bob/Clara scenario, end to end through the CLI."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from tests.conftest import Cli


def run_scenario(cli: Cli, atlas: Path, *extra: str) -> list[dict]:
    files = sorted(str(p) for p in atlas.glob("*.md"))
    cli("ingest", *files)
    cli("analyze", *extra)
    return cli.json("observations", "--graph", "project-atlas")


def test_exactly_one_observation_with_exact_evidence(cli: Cli, atlas: Path) -> None:
    [obs] = run_scenario(cli, atlas)
    assert obs["status"] == "active"
    assert obs["kind"] == "dependency_chain"
    assert obs["graph"] == "project-atlas"
    assert obs["name"] == "Auth service refactor blocking multiple workstreams"
    assert obs["root_entities"] == ["auth service refactor"]
    summary = obs["summary"]
    assert "auth service refactor, owned by the backend team, is the root blocker" in summary
    assert "Alice's API migration and Bob's payments integration wait on it directly" in summary
    assert "Clara's checkout flow is blocked downstream of Bob's payments integration" in summary
    assert "would clear all three: Alice, Bob and Clara" in summary

    # Supporting episodes in date order, with the path as given to ingest.
    assert [e["author"] for e in obs["episodes"]] == ["Alice", "Bob", "Clara"]
    assert [Path(e["source"]).name for e in obs["episodes"]] == [
        "2026-11-02-alice.md",
        "2026-11-04-bob.md",
        "2026-11-06-clara.md",
    ]
    assert obs["start_at"] == "2026-11-02T09:30:00Z"
    assert obs["latest_evidence_at"] == "2026-11-06T16:00:00Z"
    assert obs["end_at"] is None
    assert obs["version"] == 1

    by_author = {e["author"]: e["id"] for e in obs["episodes"]}
    facts = {(f["source"], f["relation"], f["target"], f["episode_id"]) for f in obs["facts"]}
    assert facts == {
        ("API migration", "blocked_by", "auth service refactor", by_author["Alice"]),
        ("Alice", "owns", "API migration", by_author["Alice"]),
        ("backend team", "owns", "auth service refactor", by_author["Alice"]),
        ("payments integration", "blocked_by", "auth service refactor", by_author["Bob"]),
        ("Bob", "owns", "payments integration", by_author["Bob"]),
        ("backend team", "owns", "auth service refactor", by_author["Bob"]),
        ("checkout flow", "blocked_by", "payments integration", by_author["Clara"]),
        ("Clara", "owns", "checkout flow", by_author["Clara"]),
        ("Bob", "owns", "payments integration", by_author["Clara"]),
    }
    roles = {(e["name"], e["type"], e["role"]) for e in obs["entities"]}
    assert roles == {
        ("auth service refactor", "work_item", "root"),
        ("backend team", "team", "owner"),
        ("API migration", "work_item", "direct"),
        ("payments integration", "work_item", "direct"),
        ("Alice", "person", "direct"),
        ("Bob", "person", "direct"),
        ("checkout flow", "work_item", "downstream"),
        ("Clara", "person", "downstream"),
    }
    for field in ("id", "created_at", "updated_at", "latest_evidence_at", "start_at"):
        assert field in obs


def test_shared_signatures_link_the_right_episodes(cli: Cli, atlas: Path, db_path: Path) -> None:
    """(backend team, owns, refactor) links Alice and Bob; (Bob, owns, payments) Bob and Clara;
    Alice and Clara share nothing and still land in one cluster through Bob."""
    run_scenario(cli, atlas, "--signatures", "literal")
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        """
        SELECT s.key, group_concat(DISTINCT e.author) FROM signatures s
        JOIN fact_signatures fs ON fs.signature_id = s.id JOIN facts f ON f.id = fs.fact_id
        JOIN episodes e ON e.id = f.episode_id WHERE s.kind = 'literal'
        GROUP BY s.id HAVING count(DISTINCT e.id) > 1
        """
    ).fetchall()
    shared = {key: set(authors.split(",")) for key, authors in rows}
    assert shared == {
        "s1|team:backend team|owns|work_item:auth service refactor": {"Alice", "Bob"},
        "s1|person:bob|owns|work_item:payments integration": {"Bob", "Clara"},
    }


@pytest.mark.parametrize("mode", ["literal", "extended"])
def test_same_single_observation_with_either_signature_mode(
    cli: Cli, atlas: Path, mode: str
) -> None:
    [obs] = run_scenario(cli, atlas, "--signatures", mode)
    assert obs["root_entities"] == ["auth service refactor"]
    assert len(obs["episodes"]) == 3


def test_analyze_twice_changes_nothing(cli: Cli, atlas: Path) -> None:
    first = run_scenario(cli, atlas)
    again = cli("analyze")
    assert "nothing new" in again.stderr
    forced = cli.json("analyze", "--force")
    assert forced[0]["unchanged"] == [first[0]["id"]]
    assert forced[0]["created"] == forced[0]["updated"] == forced[0]["retired"] == []
    assert cli.json("observations", "--graph", "project-atlas") == first


def test_reingest_is_a_noop(cli: Cli, atlas: Path) -> None:
    files = sorted(str(p) for p in atlas.glob("*.md"))
    cli("ingest", *files)
    before = cli.json("facts", "--graph", "project-atlas")
    report = cli.json("ingest", *files)
    assert report["episodes"] == {"new": 0, "duplicate": 3, "failed": 0}
    assert report["facts_new"] == 0
    assert cli.json("facts", "--graph", "project-atlas") == before


def test_human_output_names_the_pattern(cli: Cli, atlas: Path) -> None:
    run_scenario(cli, atlas)
    out = cli("observations", "--graph", "project-atlas").stdout
    assert "Auth service refactor blocking multiple workstreams" in out
    assert "2026-11-02-alice.md" in out
    shown = cli("observation", "show", "1").stdout
    assert "She's waiting on the auth service refactor" in shown
    assert "root" in shown and "backend team" in shown


def test_reads_and_version(cli: Cli, atlas: Path) -> None:
    run_scenario(cli, atlas)
    graphs = cli.json("graphs")
    assert graphs[0]["graph"] == "project-atlas"
    assert graphs[0]["episodes"] == 3
    assert graphs[0]["active_observations"] == 1
    ents = cli.json("entities", "--graph", "project-atlas")
    assert {e["name"] for e in ents} == {
        "Alice",
        "Bob",
        "Clara",
        "backend team",
        "API migration",
        "auth service refactor",
        "payments integration",
        "checkout flow",
    }
    assert cli("--version").stdout.startswith("memcli ")
    missing = cli("observation", "show", "99", ok=False)
    assert missing.exit_code == 1 and "no observation with id 99" in missing.stderr
    unknown = cli("facts", "--graph", "nope", ok=False)
    assert unknown.exit_code == 1 and "no graph named 'nope'" in unknown.stderr


def test_larger_sample_gives_its_two_patterns_and_nothing_for_noise(cli: Cli) -> None:
    from tests.conftest import SAMPLES

    cli("ingest", str(SAMPLES / "orbit"))
    cli("analyze")
    observations = cli.json("observations", "--graph", "orbit")
    by_root = {o["root_entities"][0]: o for o in observations}
    assert sorted(by_root) == ["Kafka upgrade", "SSO rollout"]
    sso, kafka = by_root["SSO rollout"], by_root["Kafka upgrade"]
    assert [e["author"] for e in sso["episodes"]] == ["Priya", "Marco", "Lena"]
    assert [e["author"] for e in kafka["episodes"]] == ["Omar", "Sofia", "Wei"]
    assert "owned by the identity team" in sso["summary"]
    assert "Lena's audit export is blocked downstream of Marco's partner portal" in sso["summary"]
    assert "owned by the platform team" in kafka["summary"]
    noise = {"Jonas", "Ravi", "Kim", "Tom", "Ana"}
    assert not noise & {e["author"] for o in observations for e in o["episodes"]}
    names = {e["name"] for e in cli.json("entities", "--graph", "orbit")}
    assert {"billing engine rewrite", "billing engine rollout"} <= names


def test_demo_runs_the_whole_pipeline_on_the_sample_data(cli: Cli, tmp_path: Path) -> None:
    result = cli("demo")
    assert "Auth service refactor blocking multiple workstreams" in result.stdout
    assert "SSO rollout blocking multiple workstreams" in result.stdout
    assert "Kafka upgrade blocking multiple workstreams" in result.stdout
    assert "Ingested 14 updates" in result.stderr
    as_json = json.loads(cli("--db", str(tmp_path / "fresh.db"), "demo", "--json").stdout)
    assert len(as_json) == 3
    again = cli("--db", str(tmp_path / "fresh.db"), "demo", ok=False)
    assert again.exit_code == 2 and "already exists" in again.stderr
