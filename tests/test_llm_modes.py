"""Each structured-output mode memcli offers sends the request shape it claims, and the
answer in that shape is parsed: checked for extraction and for observation writing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli
from tests.llm_stub import MODEL, StubLLM
from tests.test_llm_extract import ALICE, ALICE_ANSWER


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


def check_tools(body: dict[str, Any], model_name: str) -> None:
    [tool] = body["tools"]
    assert tool["type"] == "function" and tool["function"]["name"] == model_name
    assert body["tool_choice"] == {"type": "function", "function": {"name": model_name}}
    assert "properties" in tool["function"]["parameters"]
    assert "response_format" not in body


def check_json_schema(body: dict[str, Any], model_name: str) -> None:
    fmt = body["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == model_name
    assert "properties" in fmt["json_schema"]["schema"]
    assert "tools" not in body


def check_json(body: dict[str, Any], model_name: str) -> None:
    assert body["response_format"] == {"type": "json_object"}
    assert f'"title": "{model_name}"' in system_text(body)  # the schema rides in the prompt
    assert "tools" not in body


def check_json_object_schema(body: dict[str, Any], model_name: str) -> None:
    fmt = body["response_format"]
    assert fmt["type"] == "json_object" and fmt["schema"]["title"] == model_name
    assert "properties" in fmt["schema"] and "tools" not in body


def check_md_json(body: dict[str, Any], model_name: str) -> None:
    assert "response_format" not in body and "tools" not in body
    assert f'"title": "{model_name}"' in system_text(body)
    assert "```json" in body["messages"][-1]["content"]


CHECKS: dict[str, Callable[[dict[str, Any], str], None]] = {
    "tools": check_tools,
    "json_schema": check_json_schema,
    "json": check_json,
    "json_object_schema": check_json_object_schema,
    "md_json": check_md_json,
}


@pytest.mark.parametrize("mode", list(CHECKS))
def test_mode_request_shape_and_parsing(
    cli: Cli, llm_server: StubLLM, atlas: Path, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMCLI_LLM_MODE", mode)
    assert cli.json("config", "show")["settings"]["mode"] == {
        "value": mode,
        "source": "env MEMCLI_LLM_MODE",
    }
    llm_server.extractions[ALICE] = ALICE_ANSWER
    alice = str(atlas / "2026-11-02-alice.md")
    report = cli.json("ingest", alice, "--extractor", "llm")
    assert report["facts_new"] == 3 and report["llm"]["failures"] == 0
    [extract] = llm_server.requests
    assert extract["path"] == "/v1/chat/completions"
    assert extract["headers"]["authorization"] == "Bearer not-needed"
    CHECKS[mode](extract["body"], "ExtractionOut")
    assert extract["body"]["max_tokens"] == 2048 and extract["body"]["temperature"] == 0
    # The closed relation set is in the schema the model is given.
    schema_text = json.dumps(extract["body"])
    for relation in ("blocked_by", "owns", "completed", "unblocked_from"):
        assert relation in schema_text

    others = sorted(str(p) for p in atlas.glob("*.md") if "alice" not in p.name)
    cli("ingest", *others)
    result = cli.json("analyze", "--writer", "llm")
    assert result[0]["llm"]["calls"] == 1 and result[0]["llm"]["fallbacks"] == 0
    write = llm_server.of_kind("write")[-1]
    CHECKS[mode](write, "ObservationProse")
    [obs] = cli.json("observations", "--graph", "project-atlas")
    assert obs["writer"] == f"llm:{MODEL}"
    assert obs["name"] == "Shared dependency across workstreams"
