"""The JSON contract is defined once (memcli.contract): every record the library returns
declares every field it carries, and the CLI prints those records in each format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

import memcli
from memcli.contract import Observation, SearchResult
from tests.conftest import Cli

GRAPH = "project-atlas"


def undeclared(value: Any, where: str = "") -> list[str]:
    """Paths of fields a record carries without declaring them (``extra="allow"``
    would otherwise let the library and the contract drift apart silently)."""
    found: list[str] = []
    if isinstance(value, BaseModel):
        found += [f"{where}.{k}" for k in value.model_extra or {}]
        for name in type(value).model_fields:
            found += undeclared(getattr(value, name), f"{where}.{name}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found += undeclared(item, f"{where}[{i}]")
    return found


@pytest.fixture
def analyzed(cli: Cli, atlas: Path) -> None:
    cli("ingest", str(atlas))
    cli("analyze")


def test_every_record_declares_every_field(analyzed: None, db_path: Path) -> None:
    with memcli.Client(db_path) as client:
        g = client.graph
        observations = g.observation.get_by_graph_id(graph_id=GRAPH, status="all")
        assert observations
        records: dict[str, Any] = {
            "observations": observations,
            "observation": g.observation.get(observations[0].id),
            "search": g.search(graph_id=GRAPH, query="auth OR kafka", scope="all"),
            "episodes": g.episode.get_by_graph_id(graph_id=GRAPH),
            "timeline": g.entity_timeline(graph_id=GRAPH, name="auth service refactor"),
            "report": g.report(graph_id=GRAPH),
            "graphs": g.list_all(),
            "analyze": g.analyze(graph_id=GRAPH, force=True),
        }
        from memcli import api

        records["facts"] = api.facts(client.store, GRAPH, include_ended=True)
        records["entities"] = api.entities(client.store, GRAPH)
        records["history"] = api.history(client.store, observations[0].id)
    for name, value in records.items():
        assert value, name
        assert undeclared(value, name) == []


def test_rank_has_unambiguous_names(analyzed: None, cli: Cli) -> None:
    observations = cli.json("observations", "--graph", GRAPH)
    assert observations and all(o["leverage"] == o["rank"] for o in observations)
    hits = cli.json("search", "auth OR kafka", "--graph", GRAPH, "--scope", "all")
    assert (
        [h["position"] for h in hits] == [h["rank"] for h in hits] == list(range(1, len(hits) + 1))
    )


def test_records_written_before_the_new_fields_still_load() -> None:
    old = {
        "id": 1,
        "graph": "g",
        "name": "n",
        "summary": "s",
        "status": "active",
        "kind": "dependency_chain",
        "rank": 3,
        "root_entities": [],
        "entities": [],
        "episodes": [],
        "facts": [],
        "created_at": "2026-11-01T00:00:00Z",
        "updated_at": "2026-11-01T00:00:00Z",
        "version": 1,
    }
    assert Observation.model_validate(old).leverage == 3
    hit = {
        "type": "fact",
        "id": 2,
        "graph": "g",
        "title": "t",
        "snippet": "s",
        "score": 1.5,
        "rank": 4,
        "match": "all",
        "evidence": {"episode_ids": [], "fact_ids": [], "observation_ids": [], "sources": []},
    }
    assert SearchResult.model_validate(hit).position == 4


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="kind"):
        Observation.model_validate(
            {
                **{"id": 1, "graph": "g", "name": "n", "summary": "s", "status": "active"},
                **{"kind": "gossip", "rank": 0, "root_entities": [], "entities": []},
                **{"episodes": [], "facts": [], "created_at": "x", "updated_at": "x"},
                "version": 1,
            }
        )


@pytest.mark.parametrize(
    "command",
    [
        ["observations", "--graph", GRAPH, "--status", "all"],
        ["graphs"],
        ["facts", "--graph", GRAPH, "--include-ended"],
        ["entities", "--graph", GRAPH],
        ["search", "auth OR kafka", "--graph", GRAPH, "--scope", "all"],
    ],
)
def test_jsonl_and_quiet_print_the_same_records(
    analyzed: None, cli: Cli, command: list[str]
) -> None:
    as_json = cli.json(*command)
    assert as_json
    lines = cli(*command, "--jsonl").stdout.splitlines()
    assert [json.loads(line) for line in lines] == as_json
    key = "graph" if command == ["graphs"] else "id"
    assert cli(*command, "--quiet").stdout.split() == [str(r[key]) for r in as_json]


def test_two_output_formats_is_a_usage_error(analyzed: None, cli: Cli) -> None:
    result = cli("observations", "--json", "--jsonl", ok=False)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "choose one of --json and --jsonl" in result.stderr


def test_empty_results_print_an_empty_list(analyzed: None, cli: Cli) -> None:
    assert cli.json("observations", "--graph", GRAPH, "--status", "retired") == []
    assert cli("observations", "--graph", GRAPH, "--status", "retired", "--jsonl").stdout == ""
