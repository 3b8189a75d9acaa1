"""memcli mcp: a real round trip over stdio with the MCP SDK's own client."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT, Cli

mcp = pytest.importorskip("mcp")

ATLAS = [
    (
        "Alice",
        "2026-11-02T09:30:00Z",
        "The API migration is blocked. She's waiting on the auth "
        "service refactor, which the backend team owns.",
    ),
    (
        "Bob",
        "2026-11-04T10:15:00Z",
        "The payments integration is stalled. He's also waiting on "
        "the auth service refactor from the backend team.",
    ),
    (
        "Clara",
        "2026-11-06T16:00:00Z",
        "The checkout flow can't move forward because the payments "
        "integration isn't ready. That work belongs to Bob.",
    ),
]


async def session_run(db: Path) -> dict[str, Any]:
    """Drive every tool once through a `python -m memcli mcp` subprocess."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "memcli", "mcp", "--db", str(db)], cwd=str(ROOT)
    )
    seen: dict[str, Any] = {}

    async def call(session: ClientSession, tool: str, args: dict[str, Any]) -> Any:
        result = await session.call_tool(tool, args)
        if result.is_error:
            return {"error": result.content[0].text}
        text = json.loads(result.content[0].text)
        assert text == result.structured_content  # the same JSON, as text and structured
        return result.structured_content

    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                info = await session.initialize()
                seen["server"] = info.server_info.name
                seen["tools"] = sorted(t.name for t in (await session.list_tools()).tools)
                seen["added"] = [
                    await call(
                        session,
                        "add_episode",
                        {
                            "graph": "project-atlas",
                            "content": text,
                            "author": who,
                            "occurred_at": when,
                            "source": f"chat/{who.lower()}",
                        },
                    )
                    for who, when, text in ATLAS
                ]
                seen["again"] = await call(
                    session,
                    "add_episode",
                    {
                        "graph": "project-atlas",
                        "content": ATLAS[0][2],
                        "author": "Alice",
                        "occurred_at": ATLAS[0][1],
                    },
                )
                seen["observations"] = await call(
                    session, "list_observations", {"graph": "project-atlas"}
                )
                seen["search"] = await call(
                    session,
                    "search",
                    {"graph": "project-atlas", "query": "auth refactor", "scope": "all"},
                )
                obs_id = seen["observations"]["observations"][0]["id"]
                seen["observation"] = await call(session, "get_observation", {"id": obs_id})
                seen["timeline"] = await call(
                    session, "entity_timeline", {"graph": "project-atlas", "name": "bob"}
                )
                seen["report"] = await call(session, "report", {"graph": "project-atlas"})
                seen["errors"] = [
                    await call(session, "get_observation", {"id": 999}),
                    await call(session, "search", {"graph": "nope", "query": "x"}),
                    await call(
                        session, "entity_timeline", {"graph": "project-atlas", "name": "Zed"}
                    ),
                    await call(session, "report", {"graph": "project-atlas", "since": "soon"}),
                    await call(session, "add_episode", {"graph": "project-atlas", "content": "  "}),
                ]
                seen["after_errors"] = await call(
                    session, "search", {"graph": "project-atlas", "query": '"((NEAR*'}
                )
    return seen


def test_mcp_round_trip_over_stdio(tmp_path: Path) -> None:
    import anyio

    db = tmp_path / "agent.db"
    seen = anyio.run(session_run, db)
    assert seen["server"] == "memcli"
    assert seen["tools"] == sorted(
        [
            "add_episode",
            "search",
            "list_observations",
            "get_observation",
            "entity_timeline",
            "report",
        ]
    )
    added = seen["added"]
    assert [a["episode"]["id"] for a in added] == [1, 2, 3]
    assert all(a["episode"]["created"] for a in added)
    assert added[0]["episode"]["source"] == "chat/alice"
    assert {(f["source"], f["relation"], f["target"]) for f in added[0]["episode"]["facts"]} >= {
        ("API migration", "blocked_by", "auth service refactor")
    }
    assert added[2]["analysis"]["created"] or added[2]["analysis"]["updated"]
    assert seen["again"]["episode"]["created"] is False and seen["again"]["episode"]["id"] == 1

    [obs] = seen["observations"]["observations"]
    assert obs["name"] == "Auth service refactor blocking multiple workstreams"
    assert [e["id"] for e in obs["episodes"]] == [1, 2, 3]
    top = seen["search"]["results"][0]
    assert (top["type"], top["id"]) == ("observation", obs["id"])
    assert top["evidence"]["episode_ids"] == [1, 2, 3]
    assert top["evidence"]["sources"] == ["chat/alice", "chat/bob", "chat/clara"]
    assert seen["observation"]["facts"] and all(
        "sentence" in f for f in seen["observation"]["facts"]
    )
    timeline = seen["timeline"]
    assert [e["name"] for e in timeline["entities"]] == ["Bob"]
    assert [(f["relation"], f["episode"]["id"]) for f in timeline["facts"]] == [
        ("owns", 2),
        ("owns", 3),
    ]
    assert (
        "1. **Unblock the auth service refactor** (owned by the backend team)"
        in seen["report"]["markdown"]
    )
    assert seen["report"]["act_on"][0]["evidence"][0]["source"] == "chat/alice"

    errors = [e["error"] for e in seen["errors"]]
    assert "no observation with id 999" in errors[0]
    assert "no graph named 'nope'" in errors[1]
    assert "no entity named 'Zed'" in errors[2]
    assert "not an ISO 8601 date" in errors[3]
    assert "non-empty text" in errors[4]
    assert seen["after_errors"] == {"results": []}  # hostile text: no match, no error
    assert db.exists()

    # One contract: the MCP tools return exactly what the CLI prints with --json.
    cli = Cli()
    graph = ["--db", str(db)]
    listed = cli.json(*graph, "observations", "--graph", "project-atlas")
    assert seen["observations"]["observations"] == listed
    assert seen["observation"] == cli.json(*graph, "observation", "show", str(obs["id"]))
    assert seen["timeline"] == cli.json(*graph, "entity", "show", "bob", "-g", "project-atlas")
