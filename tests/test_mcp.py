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
        # the record once, as structured content; the text is a short line beside it
        assert len(result.content) == 1 and len(result.content[0].text) < 2000
        assert result.structured_content is not None
        seen.setdefault("texts", {})[tool] = result.content[0].text
        return result.structured_content

    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                info = await session.initialize()
                seen["server"] = info.server_info.name
                listed = (await session.list_tools()).tools
                seen["tools"] = sorted(t.name for t in listed)
                seen["read_only"] = sorted(
                    t.name for t in listed if t.annotations and t.annotations.read_only_hint
                )
                seen["schemas"] = {t.name: t.output_schema for t in listed}
                seen["inputs"] = {t.name: t.input_schema for t in listed}
                seen["added"] = [
                    await call(
                        session,
                        "add_episode",
                        {
                            "graph_id": "project-atlas",
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
                        "graph_id": "project-atlas",
                        "content": ATLAS[0][2],
                        "author": "Alice",
                        "occurred_at": ATLAS[0][1],
                    },
                )
                seen["observations"] = await call(
                    session, "list_observations", {"graph_id": "project-atlas"}
                )
                seen["search"] = await call(
                    session,
                    "search",
                    {"graph_id": "project-atlas", "query": "auth refactor", "scope": "all"},
                )
                obs_id = seen["observations"]["observations"][0]["id"]
                seen["observation"] = await call(
                    session, "get_observation", {"observation_id": obs_id}
                )
                seen["observation_cut"] = await call(
                    session, "get_observation", {"observation_id": obs_id, "limit": 1}
                )
                seen["graphs"] = await call(session, "list_graphs", {})
                seen["episodes"] = await call(
                    session, "list_episodes", {"graph_id": "project-atlas", "limit": 2}
                )
                seen["evidence"] = await call(
                    session,
                    "list_episodes",
                    {"graph_id": "project-atlas", "observation_id": obs_id},
                )
                seen["episode"] = await call(session, "get_episode", {"episode_id": "2"})
                seen["analyze"] = await call(
                    session, "analyze", {"graph_id": "project-atlas", "force": True}
                )
                seen["edges"] = await call(
                    session,
                    "search",
                    {"graph_id": "project-atlas", "query": "Bob", "scope": "edges", "limit": 1},
                )
                seen["timeline"] = await call(
                    session, "entity_timeline", {"graph_id": "project-atlas", "name": "bob"}
                )
                seen["report"] = await call(session, "report", {"graph_id": "project-atlas"})
                seen["errors"] = [
                    await call(session, "get_observation", {"observation_id": 999}),
                    await call(session, "search", {"graph_id": "nope", "query": "x"}),
                    await call(
                        session, "entity_timeline", {"graph_id": "project-atlas", "name": "Zed"}
                    ),
                    await call(session, "report", {"graph_id": "project-atlas", "since": "soon"}),
                    await call(
                        session, "add_episode", {"graph_id": "project-atlas", "content": "  "}
                    ),
                    await call(session, "get_episode", {"episode_id": 999}),
                    await call(
                        session, "list_observations", {"graph_id": "project-atlas", "limit": 0}
                    ),
                ]
                seen["after_errors"] = await call(
                    session, "search", {"graph_id": "project-atlas", "query": '"((NEAR*'}
                )
    return seen


def test_mcp_round_trip_over_stdio(tmp_path: Path) -> None:
    import anyio

    db = tmp_path / "agent.db"
    seen = anyio.run(session_run, db)
    assert seen["server"] == "memcli"
    reads = [
        "entity_timeline",
        "get_episode",
        "get_observation",
        "list_episodes",
        "list_graphs",
        "list_observations",
        "report",
        "search",
    ]
    assert seen["tools"] == sorted([*reads, "add_episode", "analyze"])
    assert seen["read_only"] == reads
    # typed output schemas, one name for a graph everywhere
    assert "next_offset" in seen["schemas"]["list_observations"]["properties"]
    assert "observations" in seen["schemas"]["list_observations"]["properties"]
    assert "episode_ids" in str(seen["schemas"]["search"])
    for name, schema in seen["inputs"].items():
        assert "graph" not in schema["properties"], name
        if name in ("list_observations", "search", "entity_timeline", "list_episodes"):
            assert {"graph_id", "limit", "max_chars", "offset"} <= set(schema["properties"])

    added = seen["added"]
    assert [a["episode"]["id"] for a in added] == [1, 2, 3]
    assert all(a["episode"]["created"] for a in added)
    assert added[0]["episode"]["source"] == "chat/alice"
    assert {(f["source"], f["relation"], f["target"]) for f in added[0]["episode"]["facts"]} >= {
        ("API migration", "blocked_by", "auth service refactor")
    }
    assert added[2]["analysis"]["created"] or added[2]["analysis"]["updated"]
    assert seen["again"]["episode"]["created"] is False and seen["again"]["episode"]["id"] == 1

    page = seen["observations"]
    assert (page["total"], page["returned"], page["truncated"], page["next_offset"]) == (
        1,
        1,
        False,
        None,
    )
    [obs] = page["observations"]
    assert obs["name"] == "Auth service refactor blocking multiple workstreams"
    assert (obs["episodes"], obs["graph_id"], obs["root_entities"]) == (
        3,
        "project-atlas",
        ["auth service refactor"],
    )
    assert "\n" not in obs["summary"] and len(obs["summary"]) <= 240
    top = seen["search"]["results"][0]
    assert (top["type"], top["id"]) == ("observation", obs["id"])
    assert top["episode_ids"] == [1, 2, 3]
    assert top["sources"] == ["chat/alice", "chat/bob", "chat/clara"]
    detail = seen["observation"]
    assert detail["facts"] and all("sentence" in f for f in detail["facts"])
    assert (detail["episodes_total"], detail["truncated"]) == (3, False)
    cut = seen["observation_cut"]  # the first of each list, the totals still whole
    assert (len(cut["episodes"]), cut["episodes_total"], cut["truncated"]) == (1, 3, True)
    assert cut["episodes"] == detail["episodes"][:1] and cut["facts"] == detail["facts"][:1]
    assert (cut["entities_total"], cut["facts_total"]) == (
        len(detail["entities"]),
        len(detail["facts"]),
    )
    assert (obs["entities"], obs["facts"]) == (len(detail["entities"]), len(detail["facts"]))
    assert [g["graph"] for g in seen["graphs"]["graphs"]] == ["project-atlas"]
    episodes = seen["episodes"]
    assert [e["id"] for e in episodes["episodes"]] == [3, 2]  # newest first
    assert (episodes["total"], episodes["next_offset"]) == (3, 2)
    assert [e["id"] for e in seen["evidence"]["episodes"]] == [1, 2, 3]
    assert seen["episode"]["author"] == "Bob" and "payments" in seen["episode"]["content"]
    assert seen["analyze"]["unchanged_total"] + seen["analyze"]["updated_total"] == 1
    [edge] = seen["edges"]["results"]
    assert edge["type"] == "fact" and seen["edges"]["scope"] == "facts"
    assert seen["edges"]["truncated"] is True and seen["edges"]["next_offset"] == 1
    timeline = seen["timeline"]
    assert [e["name"] for e in timeline["entities"]] == ["Bob"]
    assert [(f["relation"], f["episode"]["id"]) for f in timeline["facts"]] == [
        ("owns", 3),
        ("owns", 2),
    ]  # newest first
    assert (
        "1. **Unblock the auth service refactor** (owned by the backend team)"
        in seen["report"]["markdown"]
    )
    assert seen["report"]["act_on"][0]["evidence"][0]["source"] == "chat/alice"
    assert seen["report"]["act_on_total"] == 1

    errors = [e["error"] for e in seen["errors"]]
    assert "no observation with id 999" in errors[0] and "list_observations" in errors[0]
    assert "no graph named 'nope'" in errors[1] and "list_graphs" in errors[1]
    assert "no entity named 'Zed'" in errors[2] and "scope 'entities'" in errors[2]
    assert "not an ISO 8601 date" in errors[3]
    assert "non-empty text" in errors[4]
    assert "no episode with id 999" in errors[5] and "list_episodes" in errors[5]
    assert "limit must be at least 1" in errors[6]
    assert not any("memcli " in e for e in errors)  # no CLI commands: tools to call
    assert seen["after_errors"]["results"] == []  # hostile text: no match, no error
    assert db.exists()

    # One contract: the MCP records are the CLI's records, cut to fit.
    cli = Cli()
    graph = ["--db", str(db)]
    listed = cli.json(*graph, "observations", "--graph", "project-atlas")
    assert [(o["id"], o["name"]) for o in page["observations"]] == [
        (o["id"], o["name"]) for o in listed
    ]
    shown = cli.json(*graph, "observation", "show", str(obs["id"]))
    assert {k: detail[k] for k in shown if k != "cluster"} == {
        k: v for k, v in shown.items() if k != "cluster"
    }
    full = cli.json(*graph, "entity", "show", "bob", "-g", "project-atlas")
    assert timeline["facts"] == full["facts"][::-1]


async def bounded_run(db: Path) -> dict[str, Any]:
    """Page through a graph of many observations with small limits and budgets."""
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memcli", "mcp", "--db", str(db), "--no-analyze"],
        cwd=str(ROOT),
    )
    seen: dict[str, Any] = {}
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def call(tool: str, args: dict[str, Any]) -> Any:
                    result = await session.call_tool(tool, args)
                    assert not result.is_error, result.content
                    return result.structured_content

                seen["add"] = await call(
                    "add_episode",
                    {
                        "graph_id": "fleet",
                        "content": "Mona: I am blocked by the crane permit.",
                        "type": "message",
                    },
                )
                seen["pages"] = []
                offset: int | None = 0
                while offset is not None:
                    page = await call(
                        "list_observations", {"graph_id": "fleet", "limit": 4, "offset": offset}
                    )
                    seen["pages"].append(page)
                    offset = page["next_offset"]
                seen["tight"] = await call(
                    "list_observations", {"graph_id": "fleet", "limit": 50, "max_chars": 1500}
                )
                seen["report"] = await call(
                    "report", {"graph_id": "fleet", "limit": 2, "max_chars": 6000}
                )
    return seen


def test_mcp_pages_fit_the_budget_and_say_what_they_left_out(tmp_path: Path) -> None:
    import anyio

    db = tmp_path / "fleet.db"
    docks = ["north dock", "south dock", "east dock", "west dock", "river dock"]
    people = ["Ivo", "Jun", "Kai", "Lea", "Noor", "Omar", "Pia", "Quin", "Rui", "Sana"]
    lines = []
    for d, dock in enumerate(docks):
        for p in range(2):
            who = people[2 * d + p]
            item = f"{dock} {['lighting', 'paving'][p]} job"
            text = f"The {item} is blocked by the {dock} survey. The {item} belongs to {who}."
            lines.append(
                json.dumps(
                    {
                        "content": text,
                        "author": who,
                        "occurred_at": f"2026-10-{10 + d}T09:0{p}:00Z",
                        "graph": "fleet",
                        "source": f"chat/{who.lower()}",
                    }
                )
            )
    (tmp_path / "fleet.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    cli = Cli()
    cli("--db", str(db), "ingest", str(tmp_path / "fleet.jsonl"))
    cli("--db", str(db), "analyze")
    listed = cli.json("--db", str(db), "observations", "--graph", "fleet")
    assert len(listed) == 5

    seen = anyio.run(bounded_run, db)
    # type "message": the speaker is the author, so "I" is Mona
    episode = seen["add"]["episode"]
    assert episode["author"] == "Mona"
    assert [(f["source"], f["relation"], f["target"]) for f in episode["facts"]] == [
        ("Mona", "blocked_by", "crane permit")
    ]
    assert seen["add"]["analysis"] is None  # the server was started with --no-analyze
    pages = seen["pages"]
    assert [p["returned"] for p in pages] == [4, 1]
    assert [p["truncated"] for p in pages] == [True, False]
    assert [p["next_offset"] for p in pages] == [4, None]
    ids = [o["id"] for p in pages for o in p["observations"]]
    assert ids == [o["id"] for o in listed]  # every page in order, none twice
    tight = seen["tight"]
    assert len(json.dumps(tight, separators=(",", ":"))) <= 1500
    assert 1 <= tight["returned"] < 5 and tight["truncated"] is True
    assert tight["next_offset"] == tight["returned"]
    report = seen["report"]
    assert (report["act_on_total"], len(report["act_on"]), report["truncated"]) == (5, 2, True)
    assert len(json.dumps(report, separators=(",", ":"))) <= 6000
