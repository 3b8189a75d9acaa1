"""The list commands print plain records (no model per item) exactly as the contract's
models print them, and the entity counts read in one pass over the facts are the counts
each entity's own facts give."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from memcli import api
from memcli.contract import EntitySummary
from memcli.store import Store
from tests.conftest import Cli

GRAPH = "plain-records"


def _fact(source: str, relation: str, target: str, kinds: tuple[str, str]) -> dict[str, str]:
    return {
        "source": source,
        "relation": relation,
        "target": target,
        "source_type": kinds[0],
        "target_type": kinds[1],
    }


@pytest.fixture
def store_file(cli: Cli, tmp_path: Path, db_path: Path) -> Path:
    """Waits that later end (a completion), an owner replaced by another, and names
    outside ASCII."""
    person, item, team = "person", "work_item", "team"
    lines: list[dict[str, Any]] = [
        {
            "author": "Søren",
            "occurred_at": "2026-04-01T10:00:00Z",
            "content": "The lake export waits on the schema freeze; Søren owns the export.",
            "facts": [
                _fact("lake export", "blocked_by", "schema freeze", (item, item)),
                _fact("Søren", "owns", "lake export", (person, item)),
            ],
        },
        {
            "author": "Ngozi",
            "occurred_at": "2026-04-02T10:00:00Z",
            "content": "Ärzte portal also waits on the schema freeze, which the core team owns.",
            "facts": [
                _fact("Ärzte portal", "blocked_by", "schema freeze", (item, item)),
                _fact("core team", "owns", "schema freeze", (team, item)),
            ],
        },
        {
            "author": "Søren",
            "occurred_at": "2026-04-06T10:00:00Z",
            "content": "The schema freeze is done. Ngozi owns the lake export from now on.",
            "facts": [
                _fact("Søren", "completed", "schema freeze", (person, item)),
                _fact("Ngozi", "owns", "lake export", (person, item)),
            ],
        },
    ]
    path = tmp_path / "updates.jsonl"
    path.write_text(
        "".join(
            json.dumps({"source": f"note-{i}", "graph": GRAPH, **line}) + "\n"
            for i, line in enumerate(lines)
        ),
        encoding="utf-8",
    )
    cli("ingest", str(path))
    cli("analyze", "--graph", GRAPH)
    return db_path


def test_entity_list_prints_what_the_models_print(store_file: Path, cli: Cli) -> None:
    out = cli("entities", "--graph", GRAPH, "--json").stdout
    with Store(store_file, create=False) as store:
        models = api.entities(store, GRAPH)
    assert models
    assert out == "[" + ",".join(m.model_dump_json() for m in models) + "]\n"
    assert list(json.loads(out)[0]) == list(EntitySummary.model_fields)
    jsonl = cli("entities", "--graph", GRAPH, "--jsonl").stdout
    assert jsonl == "".join(m.model_dump_json() + "\n" for m in models)


def test_entity_counts_are_those_of_its_own_facts(store_file: Path, cli: Cli) -> None:
    facts = cli.json("facts", "--graph", GRAPH, "--include-ended")
    assert any(f["invalid_at"] for f in facts)  # some waits ended
    current: dict[str, int] = defaultdict(int)
    episodes: dict[str, set[int]] = defaultdict(set)
    for f in facts:
        for name in {f["source"], f["target"]}:  # an entity at both ends counts once
            current[name] += f["invalid_at"] is None
            episodes[name].add(f["episode_id"])
    listed = cli.json("entities", "--graph", GRAPH)
    assert {e["name"] for e in listed} == set(episodes)
    for e in listed:
        assert (e["current_facts"], e["episodes"]) == (
            current[e["name"]],
            len(episodes[e["name"]]),
        ), e["name"]


def test_analyze_prints_what_its_model_prints(store_file: Path, cli: Cli) -> None:
    """``analyze --json`` prints its report as plain data (no pydantic model is built on
    that path): byte for byte what the contract's ``AnalyzeResult`` prints."""
    from memcli.contract import AnalyzeResult

    cli("ingest", str(store_file.parent / "updates.jsonl"))  # nothing new: a no-op pass
    for args in (["--force"], []):
        out = cli("analyze", "--graph", GRAPH, "--json", *args).stdout
        records = json.loads(out)
        assert records and list(records[0]) == list(AnalyzeResult.model_fields)
        models = [AnalyzeResult.model_validate(r) for r in records]
        assert out == "[" + ",".join(m.model_dump_json() for m in models) + "]\n"
