"""memcli visualize and observation show --mermaid: outputs that parse, say the right
things, and (HTML) work offline and stay readable at 50+ nodes."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SAMPLES, Cli, update

# --- a small Mermaid flowchart checker: every line must be one of these forms ---

ID = r"[A-Za-z][A-Za-z0-9_]*"
LABEL = r'"[^"]*"'
MERMAID_LINE = [
    ("header", re.compile(r"^flowchart LR$")),
    ("direction", re.compile(r"^\s*direction LR$")),
    ("comment", re.compile(r"^\s*%%.*$")),
    ("subgraph", re.compile(rf"^\s*subgraph ({ID})\[({LABEL})\]$")),
    ("end", re.compile(r"^\s*end$")),
    ("node", re.compile(rf"^\s*({ID})\[({LABEL})\]$")),
    ("edge", re.compile(rf"^\s*({ID}) -->\|blocks\| ({ID})$")),
    ("classdef", re.compile(rf"^\s*classDef {ID} [a-z-]+:[^ ;]+(,[a-z-]+:[^ ;]+)*;$")),
    ("class", re.compile(rf"^\s*class {ID}(,{ID})* {ID};$")),
]


def classify(line: str) -> tuple[str, re.Match[str]]:
    for kind, pattern in MERMAID_LINE:
        m = pattern.match(line)
        if m:
            return kind, m
    raise AssertionError(f"not a Mermaid line: {line!r}")


def parse_mermaid(text: str) -> dict[str, Any]:
    nodes: dict[str, str] = {}
    edges: list[tuple[str, str]] = []
    groups: dict[str, list[str]] = {}
    classes: dict[str, list[str]] = {}
    depth = 0
    current: str | None = None
    lines = text.rstrip("\n").split("\n")
    assert lines[0] == "flowchart LR"
    for line in lines:
        kind, m = classify(line)
        if kind == "subgraph":
            assert depth == 0, "nested subgraph"
            depth, current = 1, m.group(1)
            groups[current] = []
        elif kind == "end":
            assert depth == 1, "'end' without 'subgraph'"
            depth, current = 0, None
        elif kind == "node":
            assert m.group(1) not in nodes, f"node {m.group(1)} defined twice"
            nodes[m.group(1)] = m.group(2)[1:-1]
            if current:
                groups[current].append(m.group(1))
        elif kind == "edge":
            edges.append((m.group(1), m.group(2)))
        elif kind == "class":
            names, cls = line.strip()[len("class ") : -1].rsplit(" ", 1)
            classes[cls] = names.split(",")
    assert depth == 0, "unclosed subgraph"
    for a, b in edges:
        assert a in nodes and b in nodes, f"edge to an undefined node: {a} -> {b}"
    for members in classes.values():
        assert set(members) <= set(nodes)
    names = {k: v.split("<br/>")[0] for k, v in nodes.items()}
    return {"nodes": nodes, "names": names, "edges": edges, "groups": groups, "classes": classes}


# --- a small DOT parser (the subset memcli writes, checked strictly) ---

DOT_TOKEN = re.compile(
    r'\s*(?:("(?:[^"\\]|\\.)*")|([A-Za-z_][A-Za-z0-9_.]*|-?\d+(?:\.\d+)?)|(->|[{}\[\];=,]))'
)


def dot_tokens(text: str) -> list[str]:
    tokens, pos = [], 0
    while pos < len(text.rstrip()):
        m = DOT_TOKEN.match(text, pos)
        assert m and m.end() > pos, f"DOT: cannot read at {text[pos : pos + 30]!r}"
        tokens.append(next(g for g in m.groups() if g is not None))
        pos = m.end()
    return tokens


def unquote(token: str) -> str:
    return (
        token[1:-1].replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        if token.startswith('"')
        else token
    )


def parse_dot(text: str) -> dict[str, Any]:
    toks = dot_tokens(text)
    i = 0
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    clusters: dict[str, list[str]] = {}

    def take(expected: str | None = None) -> str:
        nonlocal i
        tok = toks[i]
        if expected is not None:
            assert tok == expected, f"DOT: expected {expected!r}, got {tok!r}"
        i += 1
        return tok

    def is_id(tok: str) -> bool:
        return tok.startswith('"') or re.match(r"^[A-Za-z_0-9.-]", tok) is not None

    def attrs() -> dict[str, str]:
        out: dict[str, str] = {}
        take("[")
        while toks[i] != "]":
            key = take()
            assert is_id(key)
            take("=")
            value = take()
            assert is_id(value)
            out[unquote(key)] = unquote(value)
            if toks[i] == ",":
                take(",")
        take("]")
        return out

    def statements(cluster: str | None) -> None:
        while toks[i] != "}":
            tok = take()
            if tok in ("graph", "node", "edge"):
                attrs()
            elif tok == "subgraph":
                name = unquote(take())
                assert name.startswith("cluster_")
                clusters[name] = []
                take("{")
                statements(name)
                take("}")
                continue
            else:
                assert is_id(tok), f"DOT: unexpected {tok!r}"
                if toks[i] == "=":
                    take("=")
                    assert is_id(take())
                elif toks[i] == "->":
                    take("->")
                    target = take()
                    edges.append((unquote(tok), unquote(target), attrs() if toks[i] == "[" else {}))
                else:
                    nodes[unquote(tok)] = attrs() if toks[i] == "[" else {}
                    if cluster:
                        clusters[cluster].append(unquote(tok))
            take(";")

    take("digraph")
    take()
    take("{")
    statements(None)
    take("}")
    assert i == len(toks), "DOT: text after the closing brace"
    for a, b, _ in edges:
        assert a in nodes and b in nodes, f"DOT edge to an undeclared node: {a} -> {b}"
    return {"nodes": nodes, "edges": edges, "clusters": clusters}


@pytest.fixture
def orbit(cli: Cli) -> None:
    cli("ingest", str(SAMPLES / "orbit"))
    cli("analyze")


def test_mermaid_is_sane_and_says_who_waits_on_what(cli: Cli, orbit: None) -> None:
    chart = parse_mermaid(cli("visualize", "--graph", "orbit").stdout)
    names = chart["names"]
    edges = {(names[a], names[b]) for a, b in chart["edges"]}
    assert edges == {
        ("Kafka upgrade", "event replay tool"),
        ("Kafka upgrade", "metrics pipeline"),
        ("metrics pipeline", "usage dashboard"),
        ("SSO rollout", "admin console redesign"),
        ("SSO rollout", "partner portal"),
        ("partner portal", "audit export"),
    }
    assert {names[n] for n in chart["classes"]["root"]} == {"Kafka upgrade", "SSO rollout"}
    assert chart["nodes"][chart["classes"]["root"][0]].endswith("owner: platform team")
    groups = {g: {names[n] for n in members} for g, members in chart["groups"].items()}
    assert groups == {
        "obs1": {"Kafka upgrade", "event replay tool", "metrics pipeline", "usage dashboard"},
        "obs2": {"SSO rollout", "admin console redesign", "partner portal", "audit export"},
    }
    # Noise (work nobody waits on) is not drawn.
    assert "onboarding docs" not in names.values()


def test_dot_parses_with_clusters_and_highlighted_roots(cli: Cli, orbit: None) -> None:
    graph = parse_dot(cli("visualize", "--graph", "orbit", "--format", "dot").stdout)
    label = {k: v["label"].split("\n")[0] for k, v in graph["nodes"].items()}
    roots = {label[k] for k, v in graph["nodes"].items() if v.get("penwidth") == "3"}
    assert roots == {"Kafka upgrade", "SSO rollout"}
    assert len(graph["edges"]) == 6 and all(e[2]["label"] == "blocks" for e in graph["edges"])
    assert {c: len(m) for c, m in graph["clusters"].items()} == {
        "cluster_obs1": 4,
        "cluster_obs2": 4,
    }
    assert graph["nodes"]["e4"]["label"] == "Kafka upgrade\nowner: platform team"


def test_labels_are_escaped(cli: Cli, write: Callable[..., Path]) -> None:
    episodes = [
        {
            "content": f"update {i}",
            "author": "Q",
            "occurred_at": f"2026-11-0{i + 1}",
            "facts": [
                {
                    "source": name,
                    "relation": "blocked_by",
                    "target": 'the "big" <rewrite> & C:\\ path',
                }
            ],
        }
        for i, name in enumerate(['quote " item', "angle <b>bold</b> item", "brace {x} ; item"])
    ]
    cli("ingest", "--graph", "weird", str(write("weird.json", json.dumps(episodes))))
    cli("analyze")
    chart = parse_mermaid(cli("visualize", "--graph", "weird").stdout)
    assert '"' not in "".join(chart["nodes"].values()) and "<b>" not in "".join(
        chart["nodes"].values()
    )
    graph = parse_dot(cli("visualize", "--graph", "weird", "--format", "dot").stdout)
    labels = {v["label"] for v in graph["nodes"].values()}
    assert {'quote " item', '"big" <rewrite> & C:\\ path', "brace {x} ; item"} <= labels
    page = cli("visualize", "--graph", "weird", "--format", "html").stdout
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page


def many_updates(roots: int = 6, per_root: int = 10) -> list[dict[str, Any]]:
    """JSON episodes (facts given) for a graph of roots x per_root waiting items, some
    directly, some two or three steps downstream, each with an owner."""
    episodes = []
    day = 0
    for r in range(roots):
        root = f"platform piece {r}"
        for k in range(per_root):
            item = f"feature {r}-{k}"
            blocker = root if k < 4 else f"feature {r}-{k % 4 if k < 8 else k - 4}"
            day += 1
            episodes.append(
                {
                    "content": f"{item} waits on {blocker}",
                    "author": f"Person {r}{k}",
                    "occurred_at": f"2026-10-{1 + day % 28:02d}T{day % 24:02d}:00:00Z",
                    "facts": [
                        {"source": item, "relation": "blocked_by", "target": blocker},
                        {"source": f"Person {r}{k}", "relation": "owns", "target": item},
                        {
                            "source": f"team {r}",
                            "relation": "owns",
                            "target": root,
                            "source_type": "team",
                        },
                    ],
                }
            )
    return episodes


def test_html_is_offline_and_readable_at_sixty_plus_nodes(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    cli("ingest", "--graph", "big", str(write("big.json", json.dumps(many_updates()))))
    cli("analyze")
    out = tmp_path / "big.html"
    result = cli("visualize", "--graph", "big", "--format", "html", "--output", str(out))
    assert f"Wrote {out}" in result.stderr and result.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    # Nothing to fetch: no URL at all, no external script, style sheet or image.
    assert "http://" not in page and "https://" not in page and "//" not in page.replace("://", "")
    for pattern in (r"\bsrc\s*=", r"<link\b", r"@import", r"url\((?!#)"):
        assert not re.search(pattern, page), pattern
    counts = json.loads(re.search(r'id="memcli-counts">(.*?)</script>', page).group(1))  # type: ignore[union-attr]
    assert counts == {"nodes": 66, "edges": 60, "roots": 6}
    boxes = [
        (int(x), int(y), int(w), int(h))
        for x, y, w, h in re.findall(
            r'<rect class="box" x="(\d+)" y="(\d+)" width="(\d+)" height="(\d+)"', page
        )
    ]
    assert len(boxes) == 66
    for i, (x1, y1, w1, h1) in enumerate(boxes):  # no two boxes overlap
        for x2, y2, w2, h2 in boxes[i + 1 :]:
            assert x1 + w1 <= x2 or x2 + w2 <= x1 or y1 + h1 <= y2 or y2 + h2 <= y1
    svg_w, svg_h = map(
        int, re.search(r'<svg id="deps" width="(\d+)" height="(\d+)"', page).groups()
    )  # type: ignore[union-attr]
    assert all(x + w <= svg_w and y + h <= svg_h for x, y, w, h in boxes)
    # Six bands (one per pattern), each root highlighted and every arrow going right.
    assert page.count('class="node root"') == 6
    assert page.count('<path class="edge"') == 60
    for x1, _y1, x2, _y2 in re.findall(r'd="M(\d+),(\d+) C[^"]* (\d+),(\d+)"', page):
        assert int(x2) > int(x1)
    assert "feature 5-9" in page and "owner: Person 59" in page


def test_cycles_still_draw(cli: Cli, write: Callable[..., Path]) -> None:
    episodes = [
        {
            "content": "a",
            "author": "X",
            "occurred_at": "2026-11-01",
            "facts": [{"source": "alpha", "relation": "blocked_by", "target": "beta"}],
        },
        {
            "content": "b",
            "author": "Y",
            "occurred_at": "2026-11-02",
            "facts": [{"source": "beta", "relation": "blocked_by", "target": "alpha"}],
        },
    ]
    cli("ingest", "--graph", "loop", str(write("loop.json", json.dumps(episodes))))
    page = cli("visualize", "--graph", "loop", "--format", "html").stdout
    assert page.count('<rect class="box"') == 2 and 'class="node root"' not in page
    parse_mermaid(cli("visualize", "--graph", "loop").stdout)
    parse_dot(cli("visualize", "--graph", "loop", "--format", "dot").stdout)


def test_observation_show_mermaid_prints_just_its_chain(
    cli: Cli, atlas: Path, write: Callable[..., Path], orbit: None
) -> None:
    [kafka] = [
        o for o in cli.json("observations", "--graph", "orbit") if o["name"].startswith("Kafka")
    ]
    chart = parse_mermaid(cli("observation", "show", str(kafka["id"]), "--mermaid").stdout)
    assert set(chart["names"].values()) == {
        "Kafka upgrade",
        "event replay tool",
        "metrics pipeline",
        "usage dashboard",
    }
    assert list(chart["groups"]) == [f"obs{kafka['id']}"]

    # A retired observation still draws the chain it described (its facts have ended).
    cli("ingest", str(atlas))
    cli("analyze")
    [auth] = cli.json("observations", "--graph", "project-atlas")
    shipped = update(
        "Erik", "2026-11-09T10:00:00Z", "The backend team shipped the auth service refactor."
    )
    cli("ingest", str(write("shipped.md", shipped)))
    cli("analyze")
    chart = parse_mermaid(cli("observation", "show", str(auth["id"]), "--mermaid").stdout)
    assert len(chart["edges"]) == 3
    assert [chart["names"][n] for n in chart["classes"]["root"]] == ["auth service refactor"]
    now = parse_mermaid(cli("visualize", "--graph", "project-atlas").stdout)
    assert "auth service refactor" not in now["names"].values()  # current facts only


def test_visualize_errors(cli: Cli, orbit: None, tmp_path: Path) -> None:
    missing = cli("visualize", "--graph", "nope", ok=False)
    assert missing.exit_code == 1 and "no graph named 'nope'" in missing.stderr
    assert cli("visualize", "--graph", "orbit", "--format", "png", ok=False).exit_code == 2
    both = cli("observation", "show", "1", "--mermaid", "--json", ok=False)
    assert both.exit_code == 2
    unwritable = cli(
        "visualize", "--graph", "orbit", "-o", str(tmp_path / "no" / "dir.html"), ok=False
    )
    assert unwritable.exit_code == 2 and "cannot write" in unwritable.stderr
