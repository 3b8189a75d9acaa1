"""Secrets pasted through every front end (the Python client, MCP, the CLI) are redacted
before they are stored: no table, no search result and no export holds them."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from memcli import Client
from tests.conftest import ROOT
from tests.reliability.helpers import exact_dump, run

GH = "ghp_" + "Qw3rTy7UiOp1" * 3  # 36 characters after the prefix
AWS = "AKIAZX4QW7ER2TY9UI0P"
DB_PASS = "Pl4nted-Passw0rd"
URL_PASS = "Ur1Pa55word"
SECRETS = [GH, AWS, DB_PASS, URL_PASS]

TEXT = (
    f"The deploy pipeline is blocked on the vault upgrade. CI pushes with {GH}, "
    f"the runner uses {AWS} and DB_PASSWORD={DB_PASS}; "
    f"the queue is at amqp://svc:{URL_PASS}@queue.internal:5672/."
)


def leaks(db: Path) -> list[str]:
    """The planted secrets found in any row of any table (FTS shadow tables included)
    or anywhere in the database files' bytes."""
    rows = repr(exact_dump(db))
    raw = b"".join(
        Path(f"{db}{suffix}").read_bytes()
        for suffix in ("", "-wal")
        if Path(f"{db}{suffix}").exists()
    )
    return [s for s in SECRETS if s in rows or s.encode() in raw]


def exported(db: Path, graph: str) -> str:
    result = run(db, "export", "--graph", graph)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_client_add_and_add_batch_redact(tmp_path: Path) -> None:
    db = tmp_path / "client.db"
    with Client(db) as client:
        one = client.graph.add(graph_id="g", data=TEXT, author="Alice", occurred_at="2026-11-02")
        batch = client.graph.add_batch(
            graph_id="g",
            episodes=[
                {
                    "content": f"Rotated {GH} after the incident.",
                    "author": "Bob",
                    "occurred_at": "2026-11-03",
                    "source": f"https://ci:{URL_PASS}@ci.internal/job/7",
                },
                {
                    "content": "The key rotation waits on the vault upgrade.",
                    "author": "Clara",
                    "occurred_at": "2026-11-04",
                    "facts": [
                        {
                            "source": "key rotation",
                            "relation": "blocked_by",
                            "target": "vault upgrade",
                            "sentence": f"Rotation of {AWS} waits on the vault upgrade.",
                        }
                    ],
                },
            ],
        )
        assert one.created and all(e.created for e in batch)
        assert "[REDACTED:github_token]" in one.content
        # adding the same text again is a duplicate: the hash is taken after redaction
        again = client.graph.add(graph_id="g", data=TEXT, author="Alice", occurred_at="2026-11-02")
        assert not again.created and again.id == one.id
        client.graph.analyze(graph_id="g")
        found = [
            r.model_dump_json()
            for q in ["deploy pipeline vault", "rotated incident", "rotation", GH, AWS]
            for r in client.graph.search(graph_id="g", query=q, scope="all")
        ]
    assert found and not [s for s in SECRETS if any(s in f for f in found)]
    assert leaks(db) == []
    text = exported(db, "g")
    assert "[REDACTED:" in text and not [s for s in SECRETS if s in text]


def test_client_opt_out_keeps_text(tmp_path: Path) -> None:
    db = tmp_path / "raw.db"
    with Client(db) as client:
        ep = client.graph.add(graph_id="g", data=TEXT, occurred_at="2026-11-02", redact=False)
        [b] = client.graph.add_batch(
            graph_id="g",
            episodes=[{"content": f"Token {GH}.", "occurred_at": "2026-11-03"}],
            redact=False,
        )
    assert GH in ep.content and GH in b.content
    assert GH in exported(db, "g")


async def mcp_session(db: Path, *extra: str) -> list[Any]:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memcli", "mcp", "--db", str(db), *extra],
        cwd=str(ROOT),
    )
    out: list[Any] = []
    with anyio.fail_after(90):
        async with stdio_client(params) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                for tool, args in [
                    (
                        "add_episode",
                        {"graph": "g", "content": TEXT, "author": "Alice", "source": "chat"},
                    ),
                    ("search", {"graph": "g", "query": "deploy pipeline vault", "scope": "all"}),
                    ("search", {"graph": "g", "query": GH, "scope": "episodes"}),
                    ("report", {"graph": "g"}),
                ]:
                    result = await session.call_tool(tool, args)
                    assert not result.is_error, result.content
                    out.append(result.structured_content)
    return out


def test_mcp_add_episode_redacts(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import anyio

    db = tmp_path / "agent.db"
    added, *reads = anyio.run(mcp_session, db)
    assert "[REDACTED:github_token]" in added["episode"]["content"]
    assert reads[0]["results"], "the update is found by its words"
    answers = json.dumps([added, *reads])
    assert not [s for s in SECRETS if s in answers]
    assert leaks(db) == []
    assert not [s for s in SECRETS if s in exported(db, "g")]


def test_mcp_no_redact_is_the_servers_choice(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import anyio

    db = tmp_path / "raw.db"
    added, *_ = anyio.run(mcp_session, db, "--no-redact")
    assert GH in added["episode"]["content"]
