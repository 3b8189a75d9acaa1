"""Pictures of the dependency graph: Mermaid, Graphviz DOT, and one offline HTML page.
Pure: dependency facts in, text out.

What is drawn: every current ``blocked_by`` fact as an arrow from the blocker to the work
waiting on it ("X blocks Y"), each item's owners (its ``owns`` facts, written in the box
rather than drawn as more boxes and arrows, which would double a large picture), root
blockers highlighted (work others wait on that waits on nothing), and which observation
each part belongs to (Mermaid/DOT: one box per observation; HTML: a band and a stripe in
the observation's colour).

The HTML page is self-contained: an inline SVG laid out here by a small layered layout
(each node one column right of the furthest blocker it waits on, rows ordered by the
barycentre of their neighbours to cut crossings, one band per connected component, the
highest-leverage pattern first) and a few lines of inline script that, on a click,
fade everything outside the clicked node's chain. No network, no CDN, no external file.
"""

from __future__ import annotations

import html
import json
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from memcli.errors import UsageError

ROOT_FILL, ROOT_STROKE = "#fde2e1", "#c62828"
PALETTE = ["#1565c0", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#ad1457", "#4e342e", "#455a64"]


@dataclass(slots=True)
class Node:
    id: int
    name: str
    type: str
    root: bool = False
    owners: list[str] = field(default_factory=list)
    observations: list[int] = field(default_factory=list)  # best (highest leverage) first
    hidden: list[str] = field(default_factory=list)  # an "and N more" box: who it stands for


@dataclass(frozen=True, slots=True)
class Pattern:
    """An observation as drawn: its id, name, leverage, and the entities it covers."""

    id: int
    name: str
    rank: int
    members: frozenset[int]
    roots: frozenset[int]


@dataclass(slots=True)
class Picture:
    title: str
    nodes: dict[int, Node]
    blocks: list[tuple[int, int, list[int]]]  # (blocker, waiting, fact ids)
    patterns: list[Pattern]
    notes: list[str] = field(default_factory=list)  # what was left out, and how to see it

    def color(self, obs_id: int) -> str:
        index = [p.id for p in self.patterns].index(obs_id)
        return PALETTE[index % len(PALETTE)]


def build(title: str, facts: Iterable[dict[str, Any]], patterns: Sequence[Pattern]) -> Picture:
    """A picture from dependency facts (rows with ``id``, ``relation``, ``source_id``,
    ``source``, ``source_type``, ``target_id``, ``target``, ``target_type``) and the
    observations to mark (best first)."""
    nodes: dict[int, Node] = {}
    blocks: dict[tuple[int, int], list[int]] = defaultdict(list)
    owned: list[dict[str, Any]] = []
    for f in facts:
        if f["relation"] == "blocked_by":
            for end in ("source", "target"):
                nodes.setdefault(f[f"{end}_id"], Node(f[f"{end}_id"], f[end], f[f"{end}_type"]))
            blocks[(f["target_id"], f["source_id"])].append(f["id"])
        elif f["relation"] == "owns":
            owned.append(f)
    waiting = {w for _, w in blocks}
    blockers = {b for b, _ in blocks}
    pattern_roots = {r for p in patterns for r in p.roots}
    for n in nodes.values():
        n.root = (n.id in blockers and n.id not in waiting) or n.id in pattern_roots
        n.observations = [p.id for p in patterns if n.id in p.members]
    for f in owned:
        if f["target_id"] in nodes:
            if f["source"] not in nodes[f["target_id"]].owners:
                nodes[f["target_id"]].owners.append(f["source"])
    for n in nodes.values():
        n.owners.sort(key=str.lower)
    return Picture(
        title=title,
        nodes=nodes,
        blocks=[(b, w, sorted(ids)) for (b, w), ids in sorted(blocks.items())],
        patterns=list(patterns),
    )


def key(node_id: int) -> str:
    """The id a node is drawn under: ``e<entity id>``, or ``more<blocker id>`` for the box
    that stands for the rest of a collapsed fan."""
    return f"e{node_id}" if node_id >= 0 else f"more{-node_id}"


# --- What to draw: filters, top N, collapsed fans ---

AUTO_TOP_NODES = 150  # above this many boxes, visualize draws the top observations only
AUTO_TOP = 10
DEFAULT_FAN = 8  # a blocker with more waiting leaves than this shows FAN-1 and "and N more"
MERMAID_MAX_EDGES = 500  # Mermaid's own maxEdges default: above it, it refuses to draw


def by_leverage(patterns: Iterable[Pattern]) -> list[Pattern]:
    return sorted(patterns, key=lambda pat: (-pat.rank, pat.id))


def subset(p: Picture, keep: set[int], patterns: Sequence[Pattern]) -> Picture:
    """The picture restricted to the nodes in ``keep`` (edges between them) and to
    ``patterns``; notes are carried over."""
    ids = {pat.id for pat in patterns}
    nodes = {
        n.id: Node(
            n.id,
            n.name,
            n.type,
            n.root,
            list(n.owners),
            [o for o in n.observations if o in ids],
            list(n.hidden),
        )
        for n in p.nodes.values()
        if n.id in keep
    }
    blocks = [(b, w, f) for b, w, f in p.blocks if b in nodes and w in nodes]
    return Picture(p.title, nodes, blocks, list(patterns), list(p.notes))


def select(
    p: Picture,
    *,
    observation: int | None = None,
    root: str | None = None,
    top: int | None = None,
) -> Picture:
    """The part of the picture a person asked for: one observation's chain, the chain
    through one named item (a root: everything waiting on it), and/or the ``top`` highest
    leverage observations (``None``: all of them up to :data:`AUTO_TOP_NODES` boxes, the
    top :data:`AUTO_TOP` above; 0: all). Each cut is said in ``notes``."""
    patterns = by_leverage(p.patterns)
    if observation is not None:
        found = [pat for pat in patterns if pat.id == observation]
        if not found:
            raise UsageError(
                f"observation {observation} is not an active dependency observation of this graph",
                hint="'memcli observations --graph G' lists them; 'memcli observation show "
                "ID --mermaid' draws a retired one",
            )
        p = subset(p, set(found[0].members) & set(p.nodes), found)
        patterns = found
    if root is not None:
        wanted = root.strip().lower()
        matches = [n for n in p.nodes.values() if n.name.lower() == wanted]
        if not matches:
            roots = sorted({n.name for n in p.nodes.values() if n.root}, key=str.lower)
            listed = ", ".join(roots[:10]) + (", ..." if len(roots) > 10 else "")
            raise UsageError(
                f"nothing named {root!r} in the picture",
                hint=f"root blockers: {listed}" if roots else "the picture has no root blockers",
            )
        chain = _chain(p)
        keep = set().union(*(chain[n.id] for n in matches))
        kept = [pat for pat in patterns if pat.members & keep]
        p = subset(p, keep, kept)
        patterns = kept
    if top is None and len(p.nodes) > AUTO_TOP_NODES and len(patterns) > AUTO_TOP:
        top = AUTO_TOP
    if top and len(patterns) > top:
        best = patterns[:top]
        keep = {m for pat in best for m in pat.members} & set(p.nodes)
        total = len(p.nodes)
        p = subset(p, keep, best)
        p.notes.append(
            f"Drawn: the top {top} of {len(patterns)} observations by leverage "
            f"({len(p.nodes)} of {total} boxes); --top 0 draws them all, --observation ID "
            "or --root NAME one chain."
        )
    else:
        p = Picture(p.title, p.nodes, p.blocks, patterns, list(p.notes))
    return p


def collapse(p: Picture, fan: int = DEFAULT_FAN) -> Picture:
    """Long fans folded: a blocker with more than ``fan`` waiting items that wait on
    nothing else and block nothing keeps ``fan - 1`` of them (by name) and one box
    "and N more" for the rest (its tooltip names them). Nothing else changes, so no
    chain is hidden. ``fan`` 0 or less: no folding."""
    if fan <= 0:
        return p
    blockers_of: dict[int, list[int]] = defaultdict(list)
    waiting_on: dict[int, list[int]] = defaultdict(list)
    for b, w, _ in p.blocks:
        blockers_of[w].append(b)
        waiting_on[b].append(w)
    hide: dict[int, list[int]] = {}
    for b, ws in waiting_on.items():
        leaves = [
            w for w in ws if blockers_of[w] == [b] and not waiting_on.get(w) and not p.nodes[w].root
        ]
        if len(leaves) > fan:
            ordered = _sorted(p.nodes[w] for w in leaves)
            hide[b] = [n.id for n in ordered[fan - 1 :]]
    if not hide:
        return p
    hidden = {w for ws in hide.values() for w in ws}
    out = subset(p, set(p.nodes) - hidden, p.patterns)
    folded = 0
    for b, ws in hide.items():
        names = [p.nodes[w].name for w in ws]
        obs = list(p.nodes[b].observations)
        out.nodes[-b] = Node(-b, f"and {len(ws)} more", "more", observations=obs, hidden=names)
        facts = sorted(f for bb, w, fs in p.blocks if bb == b and w in ws for f in fs)
        out.blocks.append((b, -b, facts))
        folded += len(ws)
    out.blocks.sort(key=lambda e: (e[0], e[1] if e[1] >= 0 else 2**62 - e[1]))
    out.notes.append(
        f"Folded: {folded} waiting items behind {len(hide)} blocker(s) with more than "
        f"{fan} each are drawn as 'and N more' (their tooltip names them); --fan 0 draws "
        "every one."
    )
    return out


def trim_for_mermaid(p: Picture, max_edges: int = MERMAID_MAX_EDGES) -> Picture:
    """At most ``max_edges`` arrows, which Mermaid draws (it refuses the whole chart
    above its ``maxEdges``, 500 by default): the highest-leverage observations' arrows
    are kept first, boxes left without an arrow are dropped, and a note says what went."""
    if len(p.blocks) <= max_edges:
        return p
    place = {pat.id: i for i, pat in enumerate(by_leverage(p.patterns))}

    def best(edge: tuple[int, int, list[int]]) -> int:
        shared = set(p.nodes[edge[0]].observations) & set(p.nodes[edge[1]].observations)
        return min((place[o] for o in shared if o in place), default=len(place))

    kept = sorted(p.blocks, key=lambda e: (best(e), e[0], e[1]))[:max_edges]
    ends = {n for b, w, _ in kept for n in (b, w)}
    out = subset(p, ends, p.patterns)
    out.blocks = sorted(kept, key=lambda e: (e[0], e[1]))
    lost = [pat for pat in p.patterns if not (pat.members & ends)]
    out.patterns = [pat for pat in out.patterns if pat not in lost]
    out.notes.append(
        f"Trimmed for Mermaid, which draws at most {max_edges} edges (its maxEdges): kept "
        f"{len(kept)} of {len(p.blocks)} edges and {len(out.nodes)} of {len(p.nodes)} boxes, "
        "the highest-leverage observations' first"
        + (f" ({len(lost)} observation(s) left out)" if lost else "")
        + ". "
        "Use --top N, --observation ID or --root NAME to choose, or --format html for all."
    )
    return out


# --- Mermaid ---


_MERMAID_CODES = {
    "#": "#35;",  # first: an entity code written in a name stays text
    "&": "#amp;",
    '"': "#quot;",
    "<": "#lt;",
    ">": "#gt;",
    "%": "#37;",  # %%{init: ...}%% is a directive wherever it appears, even in a label
    "`": "#96;",  # starts a Markdown label
    "[": "#91;",
    "]": "#93;",
    "{": "#123;",
    "}": "#125;",
    "|": "#124;",
}
_MERMAID_SPECIAL = re.compile("[" + re.escape("".join(_MERMAID_CODES)) + "]")
_LINE_BREAKS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


def _mermaid_text(text: str) -> str:
    """Text safe inside a quoted Mermaid label and in a %% comment: entity codes for every
    character that could end the label, open a directive, or change how it is read, and
    no line break or other control character (each Mermaid statement is one line)."""
    text = _LINE_BREAKS.sub(" ", text)
    return _MERMAID_SPECIAL.sub(lambda m: _MERMAID_CODES[m.group()], text)


def _lines(n: Node) -> list[str]:
    """A node's label: its name, then who owns it (the owns facts, drawn as text)."""
    lines = [n.name]
    if n.owners:
        lines.append("owner: " + ", ".join(n.owners))
    return lines


def _label(n: Node) -> str:
    return "<br/>".join(map(_mermaid_text, _lines(n)))


def mermaid(p: Picture, max_edges: int = MERMAID_MAX_EDGES) -> str:
    """A Mermaid flowchart, left to right (blockers on the left), one box per observation
    with the highest leverage on top; trimmed to ``max_edges`` arrows (see
    :func:`trim_for_mermaid`), with a comment saying so.

    Two Mermaid habits are worked around: a subgraph without its own ``direction`` is laid
    out top to bottom whatever the chart says, and sibling subgraphs not linked to each
    other are stacked in the reverse of the order they are written (mermaid-js/mermaid
    #6204), so the best observation is written last to be drawn first.
    """
    p = trim_for_mermaid(p, max_edges)
    out = ["flowchart LR", f"  %% memcli: {_mermaid_text(p.title)}"]
    out += [f"  %% {_mermaid_text(note)}" for note in p.notes]
    nodes = _sorted(p.nodes.values())
    placed: set[int] = set()
    groups: list[list[str]] = []
    for pat in by_leverage(p.patterns):
        members = [n for n in nodes if n.observations[:1] == [pat.id]]
        if not members:
            continue
        label = _mermaid_text(f"Observation {pat.id}: {pat.name} (leverage {pat.rank})")
        group = [f'  subgraph obs{pat.id}["{label}"]', "    direction LR"]
        group += [f'    {key(n.id)}["{_label(n)}"]' for n in members]
        group.append("  end")
        groups.append(group)
        placed.update(n.id for n in members)
    for group in reversed(groups):
        out += group
    for n in nodes:
        if n.id not in placed:
            out.append(f'  {key(n.id)}["{_label(n)}"]')
    for b, w, _ in p.blocks:
        out.append(f"  {key(b)} -->|blocks| {key(w)}")
    out.append(f"  classDef root fill:{ROOT_FILL},stroke:{ROOT_STROKE},stroke-width:3px;")
    roots = [key(n.id) for n in nodes if n.root]
    if roots:
        out.append(f"  class {','.join(roots)} root;")
    more = [key(n.id) for n in nodes if n.hidden]
    if more:
        out.append("  classDef more fill:#f3f4f6,stroke:#9ca3af,stroke-dasharray:4;")
        out.append(f"  class {','.join(more)} more;")
    return "\n".join(out) + "\n"


# --- Graphviz DOT ---


def _dot(text: str) -> str:
    """A DOT double-quoted string."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def dot(p: Picture) -> str:
    """A Graphviz digraph (``dot -Tsvg``), one cluster per observation."""
    out = [
        f"digraph {_dot('memcli')} {{",
        f"  graph [rankdir=LR, fontname=Helvetica, label={_dot(p.title)}, labelloc=t];",
        '  node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname=Helvetica];',
        "  edge [fontname=Helvetica, fontsize=10];",
    ]

    def node_line(n: Node, indent: str) -> str:
        attrs = f"label={_dot(chr(10).join(_lines(n)))}"
        if n.root:
            attrs += f', fillcolor="{ROOT_FILL}", color="{ROOT_STROKE}", penwidth=3'
        if n.hidden:
            attrs += f', style="rounded,dashed", tooltip={_dot(", ".join(n.hidden))}'
        return f"{indent}{_dot(key(n.id))} [{attrs}];"

    placed: set[int] = set()
    for pat in p.patterns:
        members = [n for n in _sorted(p.nodes.values()) if n.observations[:1] == [pat.id]]
        if not members:
            continue
        out.append(f"  subgraph {_dot(f'cluster_obs{pat.id}')} {{")
        label = f"Observation {pat.id}: {pat.name} (leverage {pat.rank})"
        out.append(f'    label={_dot(label)}; style=rounded; color="{p.color(pat.id)}";')
        for n in members:
            out.append(node_line(n, "    "))
            placed.add(n.id)
        out.append("  }")
    for n in _sorted(p.nodes.values()):
        if n.id not in placed:
            out.append(node_line(n, "  "))
    for b, w, facts in p.blocks:
        tip = "facts " + ", ".join(f"#{i}" for i in facts)
        out.append(f"  {_dot(key(b))} -> {_dot(key(w))} [label=blocks, tooltip={_dot(tip)}];")
    out.append("}")
    return "\n".join(out) + "\n"


# --- HTML: layered layout + inline SVG ---

NODE_W, NODE_H, GAP_X, GAP_Y = 220, 48, 80, 16
BAND_HEAD, BAND_GAP, MARGIN = 30, 26, 20


def _sorted(nodes: Iterable[Node]) -> list[Node]:
    return sorted(nodes, key=lambda n: (n.name.lower(), n.id))


def components(p: Picture) -> list[list[int]]:
    """Weakly connected components of the blocks edges, in the order of their best
    observation (highest leverage first), then the largest."""
    parent = {n: n for n in p.nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for b, w, _ in p.blocks:
        ra, rb = find(b), find(w)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    groups: dict[int, list[int]] = defaultdict(list)
    for n in sorted(p.nodes):
        groups[find(n)].append(n)
    place = {pat.id: i for i, pat in enumerate(p.patterns)}  # patterns come best first

    def weight(members: list[int]) -> tuple[int, int, str]:
        best = min((place[o] for m in members for o in p.nodes[m].observations), default=len(place))
        return (best, -len(members), min(p.nodes[m].name.lower() for m in members))

    return sorted(groups.values(), key=weight)


def layers(members: Sequence[int], edges: Sequence[tuple[int, int]]) -> dict[int, int]:
    """Column of each node: one right of the furthest blocker it waits on (longest path
    from a root). A cycle is broken at its smallest node, so every node gets a column."""
    succ: dict[int, list[int]] = defaultdict(list)
    indeg = dict.fromkeys(members, 0)
    for a, b in edges:
        succ[a].append(b)
        indeg[b] += 1
    column = dict.fromkeys(members, 0)
    done: set[int] = set()
    ready = sorted(n for n in members if indeg[n] == 0)
    while len(done) < len(members):
        if not ready:  # only cycles left
            ready = [min((n for n in members if n not in done), key=lambda n: (indeg[n], n))]
        node = ready.pop(0)
        if node in done:
            continue
        done.add(node)
        for nxt in sorted(succ[node]):
            if nxt in done:
                continue
            column[nxt] = max(column[nxt], column[node] + 1)
            indeg[nxt] -= 1
            if indeg[nxt] == 0:
                ready.append(nxt)
    return column


MAX_COLUMNS = 12  # deeper bands are laid out by hops from their roots instead


def hops(
    members: Sequence[int], edges: Sequence[tuple[int, int]], columns: dict[int, int]
) -> dict[int, int]:
    """Columns for a band too deep for :func:`layers` to stay readable (a dense web of
    work waiting on work is dozens of columns, thousands of pixels, wide): each node in
    the column of its fewest hops from a root blocker, so the width follows the shortest
    chains. Arrows between nodes at the same or a lower hop count then point back; they
    are drawn dashed. Nodes reached from no root (cycles) keep their column, capped."""
    succ: dict[int, list[int]] = defaultdict(list)
    for a, b in edges:
        succ[a].append(b)
    column = {n: min(c, MAX_COLUMNS - 1) for n, c in columns.items()}
    frontier = sorted(n for n in members if columns[n] == 0)
    seen = set(frontier)
    depth = 0
    while frontier:
        for n in frontier:
            column[n] = depth
        nxt = sorted({m for n in frontier for m in succ[n] if m not in seen})
        seen.update(nxt)
        frontier, depth = nxt, depth + 1
    return column


def order(
    columns: dict[int, int], edges: Sequence[tuple[int, int]], names: dict[int, str]
) -> dict[int, list[int]]:
    """Rows within each column: by name first, then a few barycentre sweeps (each node
    moves towards the mean row of its neighbours in the previous/next column)."""
    by_col: dict[int, list[int]] = defaultdict(list)
    for n, c in columns.items():
        by_col[c].append(n)
    for c in by_col:
        by_col[c].sort(key=lambda n: (names[n].lower(), n))
    preds: dict[int, list[int]] = defaultdict(list)
    succs: dict[int, list[int]] = defaultdict(list)
    for a, b in edges:
        preds[b].append(a)
        succs[a].append(b)
    cols = sorted(by_col)
    for _ in range(4):
        for sweep, neighbours in ((cols[1:], preds), (cols[-2::-1], succs)):
            for c in sweep:
                pos = {n: i for col in by_col.values() for i, n in enumerate(col)}

                def bary(
                    n: int, nb: dict[int, list[int]] = neighbours, pos: dict[int, int] = pos
                ) -> float:
                    near = [pos[m] for m in nb[n] if m in pos]
                    return sum(near) / len(near) if near else pos[n]

                by_col[c].sort(key=lambda n: (bary(n), names[n].lower(), n))
    return by_col


@dataclass(slots=True)
class Layout:
    width: int
    height: int
    boxes: dict[int, tuple[int, int]]  # node -> (x, y) of its top-left corner
    bands: list[tuple[int, int, int, list[int]]]  # (y, height, width, observation ids)


def layout(p: Picture) -> Layout:
    """Positions for every node, one horizontal band per connected component."""
    boxes: dict[int, tuple[int, int]] = {}
    bands: list[tuple[int, int, int, list[int]]] = []
    names = {n.id: n.name for n in p.nodes.values()}
    y = MARGIN
    width = MARGIN * 2 + NODE_W
    for members in components(p):
        member_set = set(members)
        edges = [(b, w) for b, w, _ in p.blocks if b in member_set and w in member_set]
        columns = layers(members, edges)
        if max(columns.values()) >= MAX_COLUMNS:
            columns = hops(members, edges, columns)
        rows = order(columns, edges, names)
        tallest = max(len(r) for r in rows.values())
        band_h = BAND_HEAD + tallest * (NODE_H + GAP_Y) - GAP_Y + 12
        band_w = (max(rows) + 1) * (NODE_W + GAP_X) - GAP_X + 24
        for col, row in rows.items():
            # Short columns are centred; in a tall band everything starts at the top, so
            # the root blocker is on screen when the page opens.
            offset = (tallest - len(row)) * (NODE_H + GAP_Y) // 2 if tallest <= 12 else 0
            for i, n in enumerate(row):
                boxes[n] = (
                    MARGIN + 12 + col * (NODE_W + GAP_X),
                    y + BAND_HEAD + offset + i * (NODE_H + GAP_Y),
                )
        seen: list[int] = []
        for m in members:
            for o in p.nodes[m].observations[:1]:
                if o not in seen:
                    seen.append(o)
        rank = {pat.id: pat.rank for pat in p.patterns}
        seen.sort(key=lambda o: (-rank[o], o))
        bands.append((y, band_h, band_w, seen))
        width = max(width, MARGIN * 2 + band_w)
        y += band_h + BAND_GAP
    return Layout(
        width=width, height=max(y - BAND_GAP + MARGIN, 2 * MARGIN), boxes=boxes, bands=bands
    )


def _chain(p: Picture) -> dict[int, set[int]]:
    """Every node's chain: what it waits on (transitively) and what waits on it."""
    up: dict[int, set[int]] = defaultdict(set)
    down: dict[int, set[int]] = defaultdict(set)
    for b, w, _ in p.blocks:
        up[w].add(b)
        down[b].add(w)

    def reach(start: int, nxt: dict[int, set[int]]) -> set[int]:
        seen, stack = {start}, [start]
        while stack:
            for m in nxt[stack.pop()]:
                if m not in seen:
                    seen.add(m)
                    stack.append(m)
        return seen

    return {n: reach(n, up) | reach(n, down) for n in p.nodes}


def _waiting(n: Node) -> str:
    """A node as the work that waits: its name, or for an "and N more" box every name."""
    return ", ".join(n.hidden) if n.hidden else n.name


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_CSS = """
body{font:14px/1.4 system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0;
color:#1f2937;background:#fff}
header{padding:16px 20px 4px}h1{font-size:20px;margin:0 0 4px}
.meta{color:#6b7280;margin:0 0 8px}.legend span{display:inline-block;margin:0 14px 4px 0}
.chip{display:inline-block;width:12px;height:12px;border-radius:3px;vertical-align:-1px;
margin-right:5px}.wrap{overflow:auto;padding:0 0 12px}
svg text{font-family:inherit}.node{cursor:pointer}.node rect.box{fill:#fff;stroke:#9ca3af}
.node.root rect.box{fill:ROOT_FILL;stroke:ROOT_STROKE;stroke-width:3}
.node .name{font-size:13px;font-weight:600;fill:#111827}.node .sub{font-size:11px;fill:#4b5563}
.edge{fill:none;stroke:#6b7280;stroke-width:1.4}.edge.back{stroke-dasharray:5 4;opacity:.35}
.node.more rect.box{fill:#f3f4f6;stroke-dasharray:5 3}.note{color:#92400e}.band-title{font-size:13px;font-weight:600}
svg.focus .node:not(.on),svg.focus .edge:not(.on){opacity:.15}
details{padding:4px 20px 20px}li{margin:2px 0}
""".replace("ROOT_FILL", ROOT_FILL).replace("ROOT_STROKE", ROOT_STROKE)

_JS = """
(function(){var svg=document.getElementById('deps');var focused=null;
function clear(){svg.classList.remove('focus');svg.querySelectorAll('.on').forEach(function(e){
e.classList.remove('on')});focused=null}
svg.addEventListener('click',function(ev){var g=ev.target.closest('.node');
if(!g||g.id===focused){clear();return}clear();focused=g.id;svg.classList.add('focus');
var chain=g.getAttribute('data-chain').split(' ');var on={};chain.forEach(function(id){on[id]=1;
var n=document.getElementById(id);if(n)n.classList.add('on')});
svg.querySelectorAll('.edge').forEach(function(e){var ends=e.getAttribute('data-ends').split(' ');
if(on[ends[0]]&&on[ends[1]])e.classList.add('on')})});
document.addEventListener('keydown',function(ev){if(ev.key==='Escape')clear()})})();
"""


def html_page(p: Picture) -> str:
    """One self-contained HTML file (inline SVG, CSS and script; works offline)."""
    lay = layout(p)
    chain = _chain(p)
    esc = html.escape
    svg: list[str] = [
        f'<svg id="deps" width="{lay.width}" height="{lay.height}" '
        f'viewBox="0 0 {lay.width} {lay.height}" role="img" aria-label="{esc(p.title)}">',
        '<defs><marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" '
        'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
        'fill="#6b7280"/></marker></defs>',
    ]
    names = {pat.id: pat for pat in p.patterns}
    for y, h, w, obs in lay.bands:
        color = p.color(obs[0]) if obs else "#9ca3af"
        svg.append(
            f'<rect x="{MARGIN}" y="{y}" width="{w}" height="{h}" rx="8" fill="{color}" '
            f'fill-opacity="0.06" stroke="{color}" stroke-opacity="0.35"/>'
        )
        title = (
            "; ".join(f"#{o} {names[o].name} (leverage {names[o].rank})" for o in obs if o in names)
            or "Not part of an observation"
        )
        svg.append(
            f'<text class="band-title" x="{MARGIN + 12}" y="{y + 20}" fill="{color}">'
            f"{esc(_clip(title, max(40, w // 7)))}<title>{esc(title)}</title></text>"
        )
    for b, w, facts in p.blocks:
        (x1, y1), (x2, y2) = lay.boxes[b], lay.boxes[w]
        sx, sy, tx, ty = x1 + NODE_W, y1 + NODE_H // 2, x2, y2 + NODE_H // 2
        bend = max(40, abs(tx - sx) // 2)
        path = f"M{sx},{sy} C{sx + bend},{sy} {tx - bend},{ty} {tx},{ty}"
        back = tx <= sx  # a deep band laid out by hops: this arrow points back
        tip = (
            f"{p.nodes[b].name} blocks {_waiting(p.nodes[w])} (facts {', '.join(map(str, facts))})"
        )
        svg.append(
            f'<path class="{"edge back" if back else "edge"}" data-ends="{key(b)} {key(w)}" '
            f'd="{path}" marker-end="url(#arrow)"><title>{esc(tip)}</title></path>'
        )
    for n in _sorted(p.nodes.values()):
        x, y = lay.boxes[n.id]
        classes = "node root" if n.root else "node more" if n.hidden else "node"
        ids = " ".join(key(m) for m in sorted(chain[n.id]))
        stripe = p.color(n.observations[0]) if n.observations else "#d1d5db"
        if n.hidden:
            sub = "hover for the list"
        else:
            sub = ("ROOT · " if n.root else "") + (
                "owner: " + ", ".join(n.owners) if n.owners else n.type.replace("_", " ")
            )
        tip = _waiting(n) + (f" (owner: {', '.join(n.owners)})" if n.owners else "")
        if n.observations:
            tip += "; observation " + ", ".join(f"#{o}" for o in n.observations)
        svg.append(
            f'<g class="{classes}" id="{key(n.id)}" data-chain="{ids}">'
            f"<title>{esc(tip)}</title>"
            f'<rect class="box" x="{x}" y="{y}" width="{NODE_W}" height="{NODE_H}" rx="6"/>'
            f'<rect x="{x}" y="{y}" width="6" height="{NODE_H}" rx="3" fill="{stripe}"/>'
            f'<text class="name" x="{x + 14}" y="{y + 20}">{esc(_clip(n.name, 28))}</text>'
            f'<text class="sub" x="{x + 14}" y="{y + 37}">{esc(_clip(sub, 34))}</text></g>'
        )
    svg.append("</svg>")

    roots = sum(1 for n in p.nodes.values() if n.root)
    notes = "".join(f'<p class="meta note">{esc(note)}</p>' for note in p.notes)
    legend = [
        f'<span><i class="chip" style="background:{ROOT_FILL};border:2px solid {ROOT_STROKE}">'
        "</i>root blocker</span>"
    ] + [
        f'<span><i class="chip" style="background:{p.color(pat.id)}"></i>'
        f"#{pat.id} {esc(pat.name)} (leverage {pat.rank})</span>"
        for pat in p.patterns
    ]
    listing = [
        f"<li>{esc(p.nodes[b].name)} blocks {esc(_waiting(p.nodes[w]))} "
        f"<small>(facts {', '.join('#' + str(i) for i in facts)})</small></li>"
        for b, w, facts in sorted(
            p.blocks, key=lambda e: (p.nodes[e[0]].name.lower(), p.nodes[e[1]].name.lower())
        )
    ]
    payload = json.dumps({"nodes": len(p.nodes), "edges": len(p.blocks), "roots": roots})
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{esc(p.title)}</title><style>{_CSS}</style></head><body>",
            f"<header><h1>{esc(p.title)}</h1>",
            f'<p class="meta">{len(p.nodes)} work items and people, {len(p.blocks)} '
            f"dependencies, {roots} root blocker{'s' if roots != 1 else ''}. Arrows point from "
            "a blocker to the work waiting on it. Click a box to follow its chain; click again "
            "or press Esc to clear.</p>",
            notes,
            f'<p class="legend">{"".join(legend)}</p></header>',
            f'<div class="wrap">{"".join(svg)}</div>',
            f"<details><summary>Every dependency as text ({len(listing)})</summary>"
            f"<ul>{''.join(listing)}</ul></details>",
            f'<script type="application/json" id="memcli-counts">{payload}</script>',
            f"<script>{_JS}</script>",
            "</body></html>",
        ]
    )


def render(p: Picture, fmt: str, notes: list[str] | None = None) -> str:
    """The picture as text in ``fmt``; what was left out to draw it (a Mermaid trim) is
    added to ``notes`` when given, as well as written in the output."""
    if fmt == "mermaid":
        trimmed = trim_for_mermaid(p)
        if notes is not None:
            notes.extend(trimmed.notes[len(p.notes) :])
        return mermaid(trimmed)
    if fmt == "dot":
        return dot(p)
    if fmt == "html":
        return html_page(p)
    raise UsageError(f"unknown picture format {fmt!r}: use mermaid, dot or html")
