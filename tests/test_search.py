"""memcli search: relevance on the sample data, hostile queries, and the FTS5 indexes
staying in step with ingest, analyze, regeneration and retirement."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import api
from memcli.search import parse_query
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import SAMPLES, Cli, update


@pytest.fixture(scope="module")
def sample_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both sample projects ingested and analyzed, once per module (through the API the
    CLI runs on; the tests below only read)."""
    path = tmp_path_factory.mktemp("samples") / "samples.db"
    with Store(path) as store:
        report = api.ingest(store, expand([str(SAMPLES)]))
        assert report.ok and report.episodes_new == 14
        for graph in store.graph_ids():
            api.analyze(store, graph)
        store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


@pytest.fixture
def samples(sample_db: Path, db_path: Path) -> Path:
    """A private copy of the analyzed sample database at the test's MEMCLI_DB."""
    shutil.copyfile(sample_db, db_path)
    return db_path


def search(cli: Cli, query: str, graph: str, *extra: str) -> list[dict[str, Any]]:
    result = cli("search", query, "--graph", graph, "--json", *extra)
    data: list[dict[str, Any]] = json.loads(result.stdout)
    return data


def obs_named(cli: Cli, graph: str, start: str) -> dict[str, Any]:
    [obs] = [o for o in cli.json("observations", "--graph", graph) if o["name"].startswith(start)]
    return obs


@pytest.mark.parametrize(
    ("query", "graph", "expected"),
    [
        ("auth refactor", "project-atlas", "Auth service refactor"),
        ("kafka", "orbit", "Kafka upgrade"),
        ("Kafka upgrade", "orbit", "Kafka upgrade"),
        ("SSO", "orbit", "SSO rollout"),
        ("identity team", "orbit", "SSO rollout"),
        ("partner portal", "orbit", "SSO rollout"),
        ("metrics pipeline", "orbit", "Kafka upgrade"),
        ("what is blocking Wei's usage dashboard?", "orbit", "Kafka upgrade"),
    ],
)
def test_obvious_queries_find_the_right_observation_first(
    cli: Cli, samples: Path, query: str, graph: str, expected: str
) -> None:
    results = search(cli, query, graph)
    assert results, f"nothing found for {query!r}"
    assert results[0]["type"] == "observation"
    assert results[0]["title"].startswith(expected)
    # and scope "all" puts the pattern first too, ahead of its own facts and episodes
    fused = search(cli, query, graph, "--scope", "all")
    assert (fused[0]["type"], fused[0]["title"].split()[0]) == ("observation", expected.split()[0])


def test_results_say_why_they_matched_and_link_to_evidence(cli: Cli, samples: Path) -> None:
    [top, *_] = search(cli, "kafka", "orbit")
    assert "**Kafka**" in top["snippet"]
    obs = obs_named(cli, "orbit", "Kafka upgrade")
    assert top["id"] == obs["id"]
    assert top["evidence"]["episode_ids"] == sorted(e["id"] for e in obs["episodes"])
    assert top["evidence"]["fact_ids"] == sorted(f["id"] for f in obs["facts"])
    assert sorted(top["evidence"]["sources"]) == sorted(e["source"] for e in obs["episodes"])
    assert top["rank"] == 1 and top["match"] == "all" and top["status"] == "active"

    [fact, *_] = search(cli, "metrics pipeline kafka", "orbit", "--scope", "facts")
    assert (fact["details"]["source"], fact["details"]["relation"]) == (
        "metrics pipeline",
        "blocked_by",
    )
    assert fact["details"]["target"] == "Kafka upgrade"
    assert fact["evidence"]["observation_ids"] == [obs["id"]]
    [episode_id] = fact["evidence"]["episode_ids"]
    assert fact["evidence"]["sources"][0].endswith("2026-11-11-sofia.md")

    episodes = search(cli, "runbook", "orbit", "--scope", "episodes")
    assert [e["details"]["author"] for e in episodes] == ["Omar"]
    assert "**runbook**" in episodes[0]["snippet"]
    assert episodes[0]["evidence"]["observation_ids"] == [obs["id"]]

    [priya] = search(cli, "Priya", "orbit", "--scope", "entities")
    assert priya["details"]["type"] == "person"
    assert priya["evidence"]["observation_ids"] == [obs_named(cli, "orbit", "SSO")["id"]]
    assert episode_id not in priya["evidence"]["episode_ids"]


def test_question_falls_back_to_any_term(cli: Cli, samples: Path) -> None:
    results = search(cli, "who owns the onboarding docs?", "orbit", "--scope", "all")
    assert results[0]["match"] in ("all", "any")
    assert any(r["type"] == "entity" and r["title"] == "onboarding docs" for r in results)
    loose = search(cli, "kafka zeppelin", "orbit")
    assert loose and loose[0]["match"] == "any" and loose[0]["title"].startswith("Kafka")


def test_limit_and_human_output(cli: Cli, samples: Path) -> None:
    assert len(search(cli, "team", "orbit", "--scope", "all", "--limit", "3")) == 3
    out = cli("search", "kafka", "--graph", "orbit", "--scope", "all").stdout
    assert "observation #" in out and "Kafka upgrade blocking multiple workstreams" in out
    assert "evidence:" in out and "**" not in out  # markers become terminal highlighting
    bad = cli("search", "kafka", "--graph", "orbit", "--limit", "0", ok=False)
    assert bad.exit_code == 2
    missing = cli("search", "kafka", "--graph", "nope", ok=False)
    assert missing.exit_code == 1 and "no graph named 'nope'" in missing.stderr
    none = cli("search", "zeppelin", "--graph", "orbit")
    assert "No observations" in none.stdout and "--include-ended" in none.stdout


HOSTILE = [
    '"',
    '""',
    "'",
    'kafka"',
    '"kafka',
    "kafka AND",
    "OR",
    "AND OR NOT",
    "kafka OR",
    "NEAR(kafka upgrade, 2)",
    "NEAR",
    "*",
    "kaf*",
    "^kafka",
    "(kafka",
    "kafka)",
    "((((",
    "content:kafka",
    "name : SSO",
    "-kafka",
    "+kafka",
    "{kafka}",
    "kafka; DROP TABLE episodes; --",
    "Ünïcödé rollout ñ",
    "カフカ",
    "🚀🔥",
    "",
    "   ",
    "\x00kafka",
    "a" * 5000,
    " ".join(f"w{i}" for i in range(500)),
]


@pytest.mark.parametrize("query", HOSTILE)
def test_hostile_queries_never_fail(cli: Cli, samples: Path, query: str) -> None:
    for scope in ("observations", "all"):
        result = cli(
            "search", "--graph", "orbit", "--scope", scope, "--json", "--", query, ok=False
        )
        assert result.exit_code == 0, result.stderr
        assert isinstance(json.loads(result.stdout), list)
        assert "Traceback" not in result.stderr


def test_operators_are_words_not_syntax(cli: Cli, samples: Path) -> None:
    # A column filter or NEAR group is read as its words: still finds Kafka.
    for query in ("content:kafka", "NEAR(kafka upgrade, 2)", '"kafka', "(kafka", "kafka*"):
        results = search(cli, query, "orbit")
        assert results and results[0]["title"].startswith("Kafka"), query
    assert search(cli, "", "orbit") == []
    assert "no letters or digits" in cli("search", "((", "--graph", "orbit").stderr


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(text=st.text(max_size=60))
def test_any_text_is_a_valid_query(samples: Path, text: str) -> None:
    with Store(samples) as store:
        for scope in ("all", "facts"):
            results = api.search(store, "orbit", text, scope=scope, include_ended=True)
            assert all(r["graph"] == "orbit" for r in results)
    assert parse_query(text).terms == tuple(t for t in parse_query(text).terms if t)


def integrity(db: Path) -> None:
    with Store(db) as store:
        store.fts_integrity_check()


def test_indexes_follow_ingest_regeneration_and_retirement(
    cli: Cli, atlas: Path, write: Callable[..., Path], db_path: Path
) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    integrity(db_path)
    [obs] = search(cli, "auth refactor", "project-atlas")
    assert obs["title"] == "Auth service refactor blocking multiple workstreams"

    # New evidence regenerates the observation in place (same id, new summary): the
    # index must drop the old text and learn the new.
    dana = write(
        "dana.md",
        update(
            "Dana",
            "2026-11-07T10:00:00Z",
            "The search rewrite is blocked on the auth service refactor.",
        ),
    )
    cli("ingest", str(dana))
    cli("analyze")
    integrity(db_path)
    [again] = search(cli, "Dana search rewrite", "project-atlas")
    assert again["id"] == obs["id"]
    assert "**Dana**" in again["snippet"]
    assert search(cli, "all three", "project-atlas") == []  # v1 wording is gone

    # A later update contradicts the root: facts end, the observation retires.
    shipped = write(
        "shipped.md",
        update(
            "Erik", "2026-11-09T10:00:00Z", "The backend team shipped the auth service refactor."
        ),
    )
    cli("ingest", str(shipped))
    cli("analyze")
    integrity(db_path)
    current = search(cli, "auth refactor", "project-atlas")
    assert obs["id"] not in [r["id"] for r in current]
    [retired] = [
        r
        for r in search(cli, "auth refactor", "project-atlas", "--include-ended")
        if r["id"] == obs["id"]
    ]
    assert retired["status"] == "retired"
    assert "completed" in retired["details"]["retire_reason"]

    facts = search(cli, "payments integration auth", "project-atlas", "--scope", "facts")
    assert all(f["status"] == "current" for f in facts)
    assert not [
        f
        for f in facts
        if f["details"]["target"] == "auth service refactor"
        and f["details"]["relation"] == "blocked_by"
    ]
    ended = search(
        cli, "payments integration auth", "project-atlas", "--scope", "facts", "--include-ended"
    )
    [blocked] = [
        f
        for f in ended
        if f["details"]["relation"] == "blocked_by"
        and f["details"]["source"] == "payments integration"
    ]
    assert blocked["status"] == "ended" and blocked["details"]["invalid_at"].startswith(
        "2026-11-09"
    )

    [completed] = search(cli, "shipped", "project-atlas", "--scope", "facts")
    assert completed["details"]["relation"] == "completed"
    [episode] = search(cli, "shipped", "project-atlas", "--scope", "episodes")
    assert episode["evidence"]["sources"] == [str(shipped)]


def test_entity_aliases_and_renames_reach_the_index(cli: Cli, atlas: Path, db_path: Path) -> None:
    cli("ingest", str(atlas))
    with Store(db_path) as store:
        with store.transaction():
            entity = store.entity_id("project-atlas", "auth service refactor", "work_item")
            assert entity is not None
            # new rows go through the store's writes, which index them at commit (m006)
            store.add_alias(entity, "identity overhaul")
            # another feature (a merge, a rename) may rewrite names: facts follow
            store.conn.execute("UPDATE entities SET name = 'authn rewrite' WHERE id = ?", (entity,))
        store.fts_integrity_check()
    [hit] = search(cli, "identity overhaul", "project-atlas", "--scope", "entities")
    assert hit["title"] == "authn rewrite" and "**identity**" in hit["snippet"]
    facts = search(cli, "authn rewrite", "project-atlas", "--scope", "facts")
    assert {f["details"]["target"] for f in facts} == {"authn rewrite"}
    assert len(facts) == 4  # two blocked_by, two owns


def test_existing_database_is_indexed_by_the_migration(
    cli: Cli, atlas: Path, db_path: Path
) -> None:
    """A database filled before m003_search gets its indexes built when it is opened."""
    cli("ingest", str(atlas))
    cli("analyze")
    conn = sqlite3.connect(db_path)
    triggers = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'trigger'"
        " AND (name LIKE '%fts%' OR name LIKE '%docs%')"
    ).fetchall()
    assert len(triggers) == 17  # m003's 21, less the four insert triggers m006 dropped
    for (name,) in triggers:
        conn.execute(f"DROP TRIGGER {name}")
    for name in ("episodes_fts", "observations_fts", "entity_docs_fts", "fact_docs_fts"):
        conn.execute(f"DROP TABLE {name}")
    conn.execute("DROP TABLE entity_docs")
    conn.execute("DROP TABLE fact_docs")
    conn.execute("DROP TABLE report_marks")
    conn.execute(
        "DELETE FROM _sqlite_migrations WHERE name IN ('m003_search', 'm006_search_sync_at_commit')"
    )
    conn.commit()
    conn.close()
    [obs] = search(cli, "auth refactor", "project-atlas")
    assert obs["type"] == "observation"
    assert search(cli, "Clara", "project-atlas", "--scope", "entities")[0]["title"] == "Clara"
    integrity(db_path)


# --- the pure parts: query parsing and ranking ---


def test_parse_query_quotes_words_and_drops_syntax() -> None:
    from memcli.search import MAX_TERMS, quote

    q = parse_query('What is "blocking" the AUTH-refactor?? NEAR(x) OR kafka* ')
    assert q.terms == ("blocking", "auth", "refactor", "x", "kafka")
    assert q.match_all() == '"blocking" AND "auth" AND "refactor" AND "x" AND "kafka"'
    assert [label for label, _ in q.forms()] == ["all", "any"]
    assert parse_query("the of and").terms == ("the", "of", "and")  # nothing else left
    assert parse_query("Kafka kafka KAFKA").forms() == [("all", '"kafka"')]
    assert parse_query("snake_case_name").terms == ("snake", "case", "name")
    assert parse_query("Ünïcödé カフカ").terms == ("ünïcödé", "カフカ")
    assert parse_query("((*^:-").empty and parse_query("").forms() == []
    assert len(parse_query(" ".join(f"w{i}" for i in range(100))).terms) == MAX_TERMS
    assert quote('a"b') == '"a""b"'


def test_observation_score_weighs_evidence_recency_and_status() -> None:
    from memcli.search import observation_score

    newest = "2026-11-30T00:00:00Z"
    base = observation_score(-2.0, 3, newest, newest)
    assert observation_score(-2.0, 10, newest, newest) > base  # more evidence
    assert observation_score(-2.0, 3, "2026-10-01T00:00:00Z", newest) < base  # older
    assert observation_score(-2.0, 3, newest, newest, active=False) == base / 2
    assert observation_score(-3.0, 1, "2026-01-01T00:00:00Z", newest) > base  # text decides
    assert observation_score(-2.0, 3, None, None) > 0


def test_fuse_is_reciprocal_rank_with_evidence_credit() -> None:
    from memcli.search import RRF_K, fuse

    ranked = {"observation": [7, 8], "fact": [1, 2], "episode": [5]}
    plain = fuse(ranked)
    assert plain[0] == (("observation", 7), 1 / (RRF_K + 1))  # ties: observation first
    assert [k for k, _ in plain[:3]] == [("observation", 7), ("fact", 1), ("episode", 5)]
    credited = fuse(ranked, evidence={8: [("fact", 1), ("episode", 5)]})
    assert credited[0][0] == ("observation", 8)  # its evidence ranks first in two lists
    halved = fuse({"fact": [1], "entity": [4]}, weights={"fact": 0.5})
    assert [k for k, _ in halved] == [("entity", 4), ("fact", 1)]
