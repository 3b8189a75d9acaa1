"""The observation list with bounded evidence (``memcli observations --evidence N``).

One root blocker holds up many work items; each list of its evidence is longer than
the limits used here, and some names sort differently under Unicode and ASCII case
folding. The default list must stay what it was (every item, the same bytes the
contract's models print); with a limit each list is the first N of the full one and
``entities_total`` / ``episodes_total`` / ``facts_total`` count what was left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import memcli
from memcli import api
from memcli.contract import Observation, ObservationView
from memcli.store import Store
from tests.conftest import SAMPLES, Cli

GRAPH = "evidence-test"
ROOT = "ingest rewrite"
# Ä and ä sort apart in ASCII-only case folding (SQLite's lower()) but together in
# Python's: the library lists "ärger api" before "Ärger queue".
ITEMS = [
    ("Amaru", "Ärger queue"),
    ("Bettina", "ärger api"),
    ("Chayton", "zebra sync"),
    ("Dagny", "Zeta pipeline"),
    ("Eun", "apple job"),
    ("Folake", "Éclair port"),
    ("Gaspard", "éclair api"),
    ("Hinewai", "billing export"),
    ("Ilse", "mobile relaunch"),
    ("Jomo", "search tuning"),
    ("Kalani", "invoice merge"),
    ("Lowanna", "audit trail"),
    ("Mihail", "quota alerts"),
]
LISTS = ("entities", "episodes", "facts")
# Every character below U+0020 (JSON escapes each, some in a short form), DEL, a quote,
# a backslash before a "u" (not an escape), U+2028/U+2029, a BOM, a right-to-left mark,
# emoji outside the BMP.
AWKWARD = "".join(map(chr, range(32))) + '\x7f "q" C:\\u0041 \u2028\u2029\ufeff\u202e 🚀✓'
AWKWARD_NAME = 'job "quoted" \\ C:\\u0041 🧪'  # a name keeps these (not a tab)


def _record(i: int, author: str, item: str) -> dict[str, Any]:
    return {
        "source": f"standup-{i:02d}",
        "author": author,
        "occurred_at": f"2026-03-{i + 2:02d}T09:00:00Z",
        "graph": GRAPH,
        "content": f"My {item} cannot ship until the {ROOT} lands.",
        "facts": [
            {
                "source": author,
                "relation": "owns",
                "target": item,
                "source_type": "person",
                "target_type": "work_item",
            },
            {
                "source": item,
                "relation": "blocked_by",
                "target": ROOT,
                "source_type": "work_item",
                "target_type": "work_item",
            },
        ],
    }


@pytest.fixture
def store_file(cli: Cli, tmp_path: Path, db_path: Path) -> Path:
    """A real store: one update saying the data team owns the root, then one update per
    waiting work item, ingested and analyzed through the CLI."""
    lines = [
        {
            "source": "standup-00",
            "author": "Noor",
            "occurred_at": "2026-03-01T09:00:00Z",
            "graph": GRAPH,
            "content": f"The data team owns the {ROOT}.",
            "facts": [
                {
                    "source": "data team",
                    "relation": "owns",
                    "target": ROOT,
                    "source_type": "team",
                    "target_type": "work_item",
                }
            ],
        },
        *(_record(i + 1, author, item) for i, (author, item) in enumerate(ITEMS)),
    ]
    # Characters JSON encoders may escape differently: quotes, a backslash, a tab, a
    # control character, a line separator, emoji; in a sentence, an episode's source and
    # a work item's name (each list of the evidence).
    lines[1]["facts"][1]["sentence"] = f'"{ROOT}"\tat C:\\build \x01\u2028 ✓ 🚀'
    lines[2]["facts"][1]["sentence"] = AWKWARD
    lines[3]["source"] = f"standup-03 {AWKWARD}"
    lines[4]["facts"].append({**lines[4]["facts"][1], "source": AWKWARD_NAME})
    path = tmp_path / "updates.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    cli("ingest", str(path))
    cli("analyze", "--graph", GRAPH)
    return db_path


def _root_observation(records: list[dict[str, Any]]) -> dict[str, Any]:
    found = [r for r in records if r["root_entities"] == [ROOT]]
    assert len(found) == 1, [r["name"] for r in records]
    return found[0]


def test_default_list_is_every_item_printed_as_the_models_print_it(
    store_file: Path, cli: Cli
) -> None:
    out = cli("observations", "--graph", GRAPH, "--json").stdout
    records = json.loads(out)
    obs = _root_observation(records)
    # Every item, and none of the bounded view's fields.
    assert [e["author"] for e in obs["episodes"]] == [author for author, _ in ITEMS]
    assert len(obs["facts"]) >= 2 * len(ITEMS)
    assert {e["name"] for e in obs["entities"]} >= {item for _, item in ITEMS} | {ROOT}
    assert not any(key.endswith("_total") for r in records for key in r)
    assert any(f["sentence"].endswith("\x01\u2028 ✓ 🚀") for f in obs["facts"])
    # The awkward characters reach each list as they were written.
    assert AWKWARD in [f["sentence"] for f in obs["facts"]]
    assert f"standup-03 {AWKWARD}" in [e["source"] for e in obs["episodes"]]
    assert AWKWARD_NAME in [e["name"] for e in obs["entities"]]
    assert AWKWARD_NAME in [f["source"] for f in obs["facts"]]
    # Byte for byte what the contract's models print, keys in the contract's order.
    with Store(store_file, create=False) as store:
        models = api.observations(store, GRAPH)
    assert out == "[" + ",".join(m.model_dump_json() for m in models) + "]\n"
    assert list(obs) == list(Observation.model_fields)
    jsonl = cli("observations", "--graph", GRAPH, "--jsonl").stdout
    assert jsonl == "".join(m.model_dump_json() + "\n" for m in models)
    # Entities in the library's order: role, then name under Python's case folding.
    waiting = [e["name"] for e in obs["entities"] if e["role"] == "direct"]
    assert waiting == sorted(waiting, key=str.lower)
    assert waiting.index("ärger api") < waiting.index("Ärger queue")


@pytest.mark.parametrize("limit", [0, 1, 3])
def test_evidence_limit_cuts_each_list_and_counts_the_whole(
    store_file: Path, cli: Cli, limit: int
) -> None:
    full = _root_observation(cli.json("observations", "--graph", GRAPH))
    cut = _root_observation(cli.json("observations", "--graph", GRAPH, "--evidence", str(limit)))
    for name in LISTS:
        assert cut[name] == full[name][:limit], name
        assert cut[f"{name}_total"] == len(full[name]) > limit
    assert cut["truncated"] is True
    assert cut["graph_id"] == GRAPH
    # What is computed from the whole evidence is the same as in the full record.
    assert cut["root_entities"] == full["root_entities"] == [ROOT]
    assert cut["confirmed_at"] == full["confirmed_at"] == full["episodes"][-1]["occurred_at"]
    rest = {k: v for k, v in cut.items() if k in full and k not in LISTS}
    assert rest == {k: v for k, v in full.items() if k not in LISTS}
    # The record is the MCP server's bounded view: the same fields, in its order.
    assert list(cut) == list(ObservationView.model_fields)


def test_evidence_limit_above_every_list_cuts_nothing(store_file: Path, cli: Cli) -> None:
    full = cli.json("observations", "--graph", GRAPH)
    cut = cli.json("observations", "--graph", GRAPH, "--evidence", "1000")
    assert [c["id"] for c in cut] == [f["id"] for f in full]
    for f, c in zip(full, cut, strict=True):
        assert {k: c[k] for k in f} == f
        assert c["truncated"] is False
        assert [c[f"{name}_total"] for name in LISTS] == [len(f[name]) for name in LISTS]


def test_limit_prints_the_first_records_and_says_more_exist(cli: Cli, db_path: Path) -> None:
    cli("ingest", str(SAMPLES / "orbit"))
    cli("analyze")
    everything = cli("observations", "--json", "--limit", "0")
    records = json.loads(everything.stdout)
    assert len(records) == 2
    assert "--limit 0 shows all" not in everything.stderr
    for fmt in ("--json", "--jsonl"):
        first = cli("observations", fmt, "--limit", "1")
        lines = [first.stdout[1:-2]] if fmt == "--json" else first.stdout.splitlines()
        # The same bytes as the record in the whole list; a note for the person.
        assert lines == [json.dumps(records[0], ensure_ascii=False, separators=(",", ":"))]
        assert "showing the first 1 by leverage; --limit 0 shows all" in first.stderr
        exact = cli("observations", fmt, "--limit", "2")
        assert "--limit 0 shows all" not in exact.stderr
    # Every status and a past moment print what the models print.
    with Store(db_path, create=False) as store:
        for args, models in (
            (("--status", "all"), api.observations(store, None, "all")),
            (
                ("--as-of", "2026-11-09T10:00:00Z"),
                api.observations(store, as_of="2026-11-09T10:00:00Z"),
            ),
        ):
            out = cli("observations", "--json", *args).stdout
            assert out == "[" + ",".join(m.model_dump_json() for m in models) + "]\n"
            assert models


def test_evidence_limit_in_every_machine_format(store_file: Path, cli: Cli) -> None:
    jsonl = cli("observations", "--graph", GRAPH, "--jsonl", "--evidence", "2").stdout
    # A JSONL line ends at "\n" only (a sentence may hold a raw U+2028).
    records = [json.loads(line) for line in jsonl.split("\n") if line]
    assert records == cli.json("observations", "--graph", GRAPH, "--evidence", "2")
    csv = cli("observations", "--graph", GRAPH, "--csv", "--evidence", "2").stdout
    header = csv.splitlines()[0].split(",")
    assert header[-4:] == ["entities_total", "episodes_total", "facts_total", "truncated"]


def test_negative_evidence_limit_is_a_usage_error(store_file: Path, cli: Cli) -> None:
    result = cli("observations", "--graph", GRAPH, "--evidence", "-1", ok=False)
    assert result.exit_code == 2
    assert "--evidence" in result.stderr


def test_table_counts_what_it_does_not_list(store_file: Path, cli: Cli) -> None:
    full = _root_observation(cli.json("observations", "--graph", GRAPH))
    shown = cli("observations", "--graph", GRAPH, "--evidence", "4").stdout
    panel = shown.split(f"#{full['id']} ", 1)[1]
    assert panel.count("  episode #") == 4
    assert f"... and {len(full['episodes']) - 4} more episodes" in panel
    assert f"Facts: {len(full['facts'])} " in panel
    # By default a person sees the first ten episodes of a long list and the count.
    default = cli("observations", "--graph", GRAPH).stdout.split(f"#{full['id']} ", 1)[1]
    assert default.count("  episode #") == 10
    assert f"... and {len(full['episodes']) - 10} more episodes" in default


def test_python_client_takes_the_same_limit(store_file: Path) -> None:
    with memcli.Client(store_file) as client:
        full = client.observation.get_by_graph_id(GRAPH)
        cut = client.observation.get_by_graph_id(GRAPH, evidence=2)
    assert [type(o) for o in full] == [Observation] * len(full)
    assert all(isinstance(o, ObservationView) for o in cut)
    for f, c in zip(full, cut, strict=True):
        assert c.episodes == f.episodes[:2]
        assert c.episodes_total == len(f.episodes)
        assert c.facts_total == len(f.facts)
        assert c.entities_total == len(f.entities)


def test_installed_command_runs_the_limit(store_file: Path) -> None:
    """The real entry point (one command registered per run), in its own process."""
    env = {**os.environ, "MEMCLI_DB": str(store_file)}
    run = subprocess.run(
        [sys.executable, "-m", "memcli", "observations", "-g", GRAPH, "--json", "--evidence", "1"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    obs = _root_observation(json.loads(run.stdout))
    assert [len(obs[name]) for name in LISTS] == [1, 1, 1]
    assert obs["episodes_total"] == len(ITEMS)


def test_show_prints_what_the_model_prints(store_file: Path, cli: Cli) -> None:
    obs = _root_observation(cli.json("observations", "--graph", GRAPH))
    out = cli("observation", "show", str(obs["id"]), "--json").stdout
    with Store(store_file, create=False) as store:
        model = api.observation(store, obs["id"])
    assert out == model.model_dump_json() + "\n"
    assert json.loads(out)["episodes"] == obs["episodes"]  # every item, not a cut
