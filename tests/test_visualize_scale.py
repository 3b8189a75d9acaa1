"""memcli visualize on big graphs (issue 15, item 5): filters, folded fans, Mermaid's edge
limit and an HTML layout that stays a readable width at 300 nodes."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.test_visualize import many_updates, parse_mermaid


def web(n: int = 300, seed: int = 3) -> list[dict[str, Any]]:
    """A dense web of work waiting on work: item i waits on 1-7 of the 60 items before
    it, so chains are dozens of steps long (the shape that drew 14,000 px wide)."""
    rnd = random.Random(seed)
    names = [f"item {i:03d}" for i in range(n)]
    episodes = []
    for i in range(1, n):
        window = names[max(0, i - 60) : i]
        blockers = rnd.sample(window, min(len(window), rnd.randint(1, 7)))
        facts = [{"source": names[i], "relation": "blocked_by", "target": b} for b in blockers]
        facts.append({"source": f"Person {i}", "relation": "owns", "target": names[i]})
        episodes.append(
            {
                "content": f"{names[i]} is waiting",
                "author": f"Person {i}",
                "occurred_at": f"2026-10-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
                "facts": facts,
            }
        )
    return episodes


def svg_size(page: str) -> tuple[int, int]:
    m = re.search(r'<svg id="deps" width="(\d+)" height="(\d+)"', page)
    assert m
    return int(m.group(1)), int(m.group(2))


def boxes(page: str) -> list[tuple[int, int, int, int]]:
    return [
        (int(x), int(y), int(w), int(h))
        for x, y, w, h in re.findall(
            r'<rect class="box" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', page
        )
    ]


@pytest.fixture
def dense(cli: Cli, write: Callable[..., Path]) -> None:
    path = write("web.jsonl", "\n".join(json.dumps(e) for e in web()))
    cli("ingest", "--graph", "web", str(path))
    cli("analyze")


def test_html_at_300_nodes_is_a_readable_width(cli: Cli, dense: None) -> None:
    page = cli("visualize", "--graph", "web", "--format", "html").stdout
    counts = json.loads(re.search(r'id="memcli-counts">(.*?)</script>', page).group(1))  # type: ignore[union-attr]
    assert counts["nodes"] == 300 and counts["edges"] > 1000
    width, height = svg_size(page)
    assert width <= 12 * 300 + 100  # was 14,684 px: one column per step of the longest chain
    drawn = boxes(page)
    assert len(drawn) == 300
    for i, (x1, y1, w1, h1) in enumerate(drawn):  # no two boxes overlap
        for x2, y2, w2, h2 in drawn[i + 1 :]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    assert all(x + w <= width and y + h <= height for x, y, w, h in drawn)
    # The root blocker is the first box: top left, where the page opens.
    root = re.search(r'<g class="node root"[^>]*>.*?<rect class="box" x="(\d+)" y="(\d+)"', page)
    assert root and (int(root.group(1)), int(root.group(2))) == min((x, y) for x, y, _, _ in drawn)
    # Arrows that point back (the web is laid out by hops from the root) are drawn dashed.
    assert page.count('<path class="edge') == counts["edges"]
    for cls, x1, x2 in re.findall(
        r'<path class="(edge[^"]*)"[^>]* d="M(\d+),\d+ C[^"]* (\d+),\d+"', page
    ):
        assert (cls == "edge back") == (int(x2) <= int(x1))


def test_mermaid_is_trimmed_to_its_edge_limit_and_says_so(cli: Cli, dense: None) -> None:
    result = cli("visualize", "--graph", "web")
    chart = parse_mermaid(result.stdout)
    assert len(chart["edges"]) == 500
    assert "Trimmed for Mermaid, which draws at most 500 edges" in result.stderr
    assert re.search(r"kept 500 of \d{4} edges and \d+ of 300 boxes", result.stderr)
    assert "%% Trimmed for Mermaid" in result.stdout
    page = cli("visualize", "--graph", "web", "--format", "html").stdout
    assert "Trimmed" not in page and len(boxes(page)) == 300  # HTML draws it all


@pytest.fixture
def many(cli: Cli, write: Callable[..., Path]) -> list[dict[str, Any]]:
    episodes = many_updates(roots=6, per_root=10)
    # Root 0 gets five more waiting items, so its observation has the highest leverage.
    episodes += [
        {
            "content": f"extra {k} waits on platform piece 0",
            "author": f"Extra {k}",
            "occurred_at": f"2026-10-2{k}T09:00:00Z",
            "facts": [
                {"source": f"extra {k}", "relation": "blocked_by", "target": "platform piece 0"}
            ],
        }
        for k in range(5)
    ]
    cli("ingest", "--graph", "big", str(write("big.json", json.dumps(episodes))))
    cli("analyze")
    observations: list[dict[str, Any]] = cli.json("observations", "--graph", "big")
    return sorted(observations, key=lambda o: (-o["rank"], o["id"]))


def test_mermaid_runs_left_to_right_best_observation_on_top(
    cli: Cli, many: list[dict[str, Any]]
) -> None:
    text = cli("visualize", "--graph", "big").stdout
    chart = parse_mermaid(text)
    written = list(chart["groups"])
    # Mermaid stacks unlinked subgraphs in the reverse of the order they are written.
    assert written[::-1] == [f"obs{o['id']}" for o in many]
    assert written[-1] == f"obs{many[0]['id']}" and "platform piece 0" in many[0]["name"].lower()
    blocks = text.split("  subgraph ")[1:]
    assert all(b.split("\n")[1] == "    direction LR" for b in blocks)


def test_filters_by_observation_root_and_top(cli: Cli, many: list[dict[str, Any]]) -> None:
    best = many[0]
    one = parse_mermaid(cli("visualize", "--graph", "big", "--observation", str(best["id"])).stdout)
    assert set(one["names"].values()) == {
        e["name"] for e in best["entities"] if e["type"] != "team"
    } - {e["name"] for e in best["entities"] if e["type"] == "person"}
    assert list(one["groups"]) == [f"obs{best['id']}"]

    chain = parse_mermaid(cli("visualize", "--graph", "big", "--root", "Platform Piece 3").stdout)
    assert "platform piece 3" in chain["names"].values()
    assert {
        n.split(" ")[1].split("-")[0] for n in chain["names"].values() if n.startswith("feature")
    } == {"3"}
    assert len(chain["names"]) == 11

    top = cli("visualize", "--graph", "big", "--top", "2")
    chart = parse_mermaid(top.stdout)
    assert sorted(chart["groups"]) == sorted(f"obs{o['id']}" for o in many[:2])
    assert "Drawn: the top 2 of 6 observations by leverage" in top.stderr

    unknown = cli("visualize", "--graph", "big", "--root", "nothing like it", ok=False)
    assert unknown.exit_code == 2 and "nothing named 'nothing like it'" in unknown.stderr
    assert "platform piece 0" in unknown.stderr  # the hint lists the roots
    missing = cli("visualize", "--graph", "big", "--observation", "999", ok=False)
    assert missing.exit_code == 2 and "observation 999 is not an active" in missing.stderr


def test_big_graphs_draw_the_top_observations_by_default(
    cli: Cli, write: Callable[..., Path]
) -> None:
    episodes = many_updates(roots=16, per_root=10)
    cli("ingest", "--graph", "huge", str(write("huge.json", json.dumps(episodes))))
    cli("analyze")
    result = cli("visualize", "--graph", "huge", "--format", "html")
    assert "Drawn: the top 10 of 16 observations" in result.stderr
    assert len(boxes(result.stdout)) == 10 * 11
    assert "Drawn: the top 10 of 16" in result.stdout  # said in the page too
    everything = cli("visualize", "--graph", "huge", "--format", "html", "--top", "0")
    assert len(boxes(everything.stdout)) == 16 * 11 and "Drawn:" not in everything.stderr


def test_long_fans_fold_into_one_box(cli: Cli, write: Callable[..., Path]) -> None:
    episodes = [
        {
            "content": f"task {k:02d} waits on the vendor contract",
            "author": f"Dev {k}",
            "occurred_at": f"2026-11-{1 + k % 28:02d}T10:00:00Z",
            "facts": [
                {"source": f"task {k:02d}", "relation": "blocked_by", "target": "vendor contract"}
            ],
        }
        for k in range(40)
    ]
    cli("ingest", "--graph", "fan", str(write("fan.json", json.dumps(episodes))))
    cli("analyze")
    result = cli("visualize", "--graph", "fan")
    chart = parse_mermaid(result.stdout)
    names = set(chart["names"].values())
    assert "and 33 more" in names and len(names) == 1 + 7 + 1
    assert {"task 00", "task 06"} <= names and "task 07" not in names
    assert chart["classes"]["more"] == ["more" + chart["classes"]["root"][0][1:]]
    assert "Folded: 33 waiting items behind 1 blocker" in result.stderr
    page = cli("visualize", "--graph", "fan", "--format", "html").stdout
    assert (
        "vendor contract blocks task 07, task 08" in page and page.count('class="node more"') == 1
    )
    dot = cli("visualize", "--graph", "fan", "--format", "dot").stdout
    assert "and 33 more" in dot and "task 39" in dot  # named in the box's tooltip
    every = parse_mermaid(cli("visualize", "--graph", "fan", "--fan", "0").stdout)
    assert (
        len(every["names"]) == 41
        and "Folded" not in cli("visualize", "--graph", "fan", "--fan", "0").stderr
    )
