"""Reply sizes of the MCP tools on a large store: does every default reply fit an agent?

Starts ``memcli mcp`` on a copy of an analyzed store of ``--size`` generated updates
(built once under ``out/``, as ``startup.py`` builds it), calls every tool with its
defaults over a real stdio session, and prints, per call, the characters of the text
content and of the structured content (compact JSON), and whether the reply said it left
something out. The worst inputs are chosen on purpose: the observation with the most
facts, the entity with the most facts, a query matching many records.

Target (issue 15): every default reply <= 20 KB at 10k updates.

    python benchmarks/mcp_sizes.py                 # 10k updates
    python benchmarks/mcp_sizes.py --db some.db --graph g
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
TARGET = 20_000


def worst_inputs(db: Path, graph: str) -> tuple[int, str, int]:
    """The observation with the most evidence facts, the entity with the most facts, and
    an episode id."""
    conn = sqlite3.connect(db)
    try:
        [obs] = conn.execute(
            "SELECT o.id FROM observations o JOIN observation_evidence e"
            " ON e.observation_id = o.id WHERE o.graph_id = ? AND o.status = 'active'"
            " GROUP BY o.id ORDER BY count(*) DESC LIMIT 1",
            (graph,),
        ).fetchone()
        [name] = conn.execute(
            "SELECT n.name FROM entities n JOIN facts f ON f.source_id = n.id OR"
            " f.target_id = n.id WHERE n.graph_id = ? GROUP BY n.id ORDER BY count(*) DESC"
            " LIMIT 1",
            (graph,),
        ).fetchone()
        [episode] = conn.execute(
            "SELECT max(id) FROM episodes WHERE graph_id = ?", (graph,)
        ).fetchone()
    finally:
        conn.close()
    return obs, name, episode


async def measure(db: Path, graph: str) -> list[tuple[str, dict[str, Any], int, int, Any]]:
    from mcp import ClientSession, StdioServerParameters, stdio_client

    obs, name, episode = worst_inputs(db, graph)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("list_graphs", {}),
        ("list_observations", {"graph_id": graph}),
        ("get_observation", {"observation_id": obs}),
        ("list_episodes", {"graph_id": graph}),
        ("list_episodes", {"graph_id": graph, "observation_id": obs}),
        ("get_episode", {"episode_id": episode}),
        ("search", {"graph_id": graph, "query": name}),
        ("search", {"graph_id": graph, "query": name, "scope": "all"}),
        ("search", {"graph_id": graph, "query": name, "scope": "facts"}),
        ("entity_timeline", {"graph_id": graph, "name": name}),
        ("report", {"graph_id": graph}),
        ("analyze", {"graph_id": graph}),
        (
            "add_episode",
            {
                "graph_id": graph,
                "content": f"Ada: my audit export is blocked by the {name}.",
                "type": "message",
            },
        ),
    ]
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memcli", "mcp", "--db", str(db)]
    )
    rows = []
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for tool, args in calls:
                result = await session.call_tool(tool, args)
                text = sum(len(getattr(c, "text", "")) for c in result.content)
                data = result.structured_content or {}
                structured = len(json.dumps(data, separators=(",", ":"))) if data else 0
                rows.append((tool, args, text, structured, data.get("truncated")))
    return rows


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=10_000, help="generated updates")
    p.add_argument("--db", type=Path, help="an analyzed store to measure instead")
    p.add_argument("--graph", default=None, help="graph id (default: the generated one)")
    args = p.parse_args(argv)
    import anyio

    if args.db is None:
        from perf import GRAPH
        from startup import store

        source, graph = store(args.size), args.graph or GRAPH
    else:
        source, graph = args.db, args.graph
        if graph is None:
            p.error("--graph is required with --db")
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "copy.db"
        shutil.copy(source, db)  # add_episode writes: measure on a copy
        rows = anyio.run(measure, db, graph)
    worst = 0
    print(f"{'tool':17} {'arguments':58} {'text':>7} {'structured':>10}  truncated")
    for tool, a, text, structured, truncated in rows:
        shown = {k: v for k, v in a.items() if k != "graph_id"}
        print(f"{tool:17} {json.dumps(shown)[:58]:58} {text:7,} {structured:10,}  {truncated}")
        worst = max(worst, text + structured)
    ok = worst <= TARGET
    print(f"largest reply {worst:,} characters (text + structured): target <= {TARGET:,}", end="")
    print(" met" if ok else " MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
