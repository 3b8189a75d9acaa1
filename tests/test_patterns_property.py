"""Random wait graphs through the real pipeline (ingest with given facts, analyze, read):
every cycle, critical path and owner bottleneck memcli writes is checked against a
brute-force reading of the same waits, every number in their prose against their
evidence, and the answer must not depend on the order the updates arrive in."""

from __future__ import annotations

import json
import re
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import api, writer
from memcli.sources import SourceText
from memcli.store import Store

ITEMS = [f"piece {c}" for c in "abcdefghij"]
OWNERS = ["Ona", "Pim", "core team"]
WORDS = {w: i for i, w in enumerate(writer._NUMBERS)}


def value(token: str) -> int:
    return WORDS[token] if token in WORDS else int(token)


@st.composite
def graphs(draw: st.DrawFn) -> tuple[list[tuple[int, int]], dict[int, int]]:
    n = draw(st.integers(3, len(ITEMS)))
    pairs = st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)).filter(lambda p: p[0] != p[1])
    waits = sorted(set(draw(st.lists(pairs, min_size=2, max_size=14))))
    owners = draw(st.dictionaries(st.integers(0, n - 1), st.integers(0, len(OWNERS) - 1)))
    return waits, owners


def updates(waits: list[tuple[int, int]], owners: dict[int, int]) -> list[dict[str, Any]]:
    """One update per wait, from a different reporter each, restating the owners of
    both ends; all on the same day so nothing is stale."""
    rows = []
    for k, (a, b) in enumerate(waits):
        facts = [{"source": ITEMS[a], "relation": "blocked_by", "target": ITEMS[b]}]
        for end in (a, b):
            if end in owners:
                who = OWNERS[owners[end]]
                kind = "team" if who.endswith("team") else "person"
                facts.append(
                    {"source": who, "source_type": kind, "relation": "owns", "target": ITEMS[end]}
                )
        rows.append(
            {
                "content": f"{ITEMS[a]} waits on {ITEMS[b]}",
                "author": f"Reporter {k}",
                "occurred_at": f"2026-07-01T{k % 24:02d}:00:00Z",
                "graph": "g",
                "source": f"u{k}.md",
                "facts": facts,
            }
        )
    return rows


def analyzed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with TemporaryDirectory() as tmp, Store(Path(tmp) / "p.db") as store:
        text = "\n".join(json.dumps(r) for r in rows)
        api.ingest(store, [SourceText("w.jsonl", text, "2026-07-01T00:00:00Z")])
        api.analyze(store, "g")
        return api.observations(store, "g")


def reach(edges: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for t in edges.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def longest(edges: dict[str, set[str]]) -> int:
    """Longest chain of waits by brute force, over the waits outside any cycle."""
    dag = {a: {b for b in bs if a not in reach(edges, b)} for a, bs in edges.items()}
    best = 0

    def walk(node: str, hops: int) -> None:
        nonlocal best
        best = max(best, hops)
        for b in dag.get(node, ()):
            walk(b, hops + 1)

    for a in dag:
        walk(a, 0)
    return best


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graphs())
def test_new_kinds_match_a_brute_force_reading(graph: tuple[list, dict]) -> None:
    waits, owners = graph
    rows = updates(waits, owners)
    out = analyzed(rows)
    edges: dict[str, set[str]] = {}
    for a, b in waits:
        edges.setdefault(ITEMS[a], set()).add(ITEMS[b])
    nodes = set(edges) | {t for ts in edges.values() for t in ts}

    # Cycles: exactly the strongly connected sets of two or more items.
    expected = {
        frozenset(m for m in nodes if m in reach(edges, n) and n in reach(edges, m))
        for n in nodes
        if n in reach(edges, n)
    }
    cycles = [o for o in out if o["kind"] == "dependency_cycle"]
    assert {frozenset(o["root_entities"]) for o in cycles} == expected
    for o in cycles:
        n = len(o["root_entities"])
        assert ("neither" if n == 2 else "none") + " can finish first" in o["summary"]
        behind = {
            e["name"]
            for e in o["entities"]
            if e["role"] in ("direct", "downstream") and e["type"] == "work_item"
        }
        waiting = {m for m in nodes if reach(edges, m) & set(o["root_entities"])}
        assert behind == waiting - set(o["root_entities"])

    # Critical path: one, of the brute-force length, when over two hops.
    paths = [o for o in out if o["kind"] == "critical_path"]
    hops = longest(edges)
    components_over_two = len(paths)
    if hops > 2:
        assert components_over_two >= 1
        top = max(
            value(re.match(r"Critical path: (\w+) hops?", o["name"]).group(1))  # type: ignore[union-attr]
            for o in paths
        )
        assert top == hops
    else:
        assert paths == []
    for o in paths:
        said = value(re.match(r"Critical path: (\w+) hops?", o["name"]).group(1))  # type: ignore[union-attr]
        assert len([f for f in o["facts"] if f["relation"] == "blocked_by"]) >= said

    # Owner bottlenecks: owners of two or more roots of dependency observations.
    roots_of: dict[str, set[str]] = {}
    for o in out:
        if o["kind"] in ("dependency_chain", "stale_blocker"):
            for e in o["entities"]:
                if e["role"] == "owner":
                    roots_of.setdefault(e["name"], set()).update(o["root_entities"])
    bottlenecks = {
        o["root_entities"] and next(e["name"] for e in o["entities"] if e["role"] == "owner"): o
        for o in out
        if o["kind"] == "owner_bottleneck"
    }
    assert set(bottlenecks) == {who for who, rs in roots_of.items() if len(rs) >= 2}
    for who, o in bottlenecks.items():
        assert set(o["root_entities"]) == roots_of[who]
        m = re.search(r"owns (\w+) root blockers", o["summary"])
        assert m is not None and value(m.group(1)) == len(roots_of[who])

    for o in out:
        assert len(o["summary"]) <= writer.MAX_SUMMARY

    # The same updates in the opposite order give the same observations.
    again = analyzed(rows[::-1])

    def shape(obs: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
        return {(o["kind"], o["name"], o["summary"]) for o in obs}

    assert shape(again) == shape(out)
