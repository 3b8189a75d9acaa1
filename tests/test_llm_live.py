"""Opt-in: the canonical scenario through a real OpenAI-compatible model server.

Skipped unless ``MEMCLI_LIVE_LLM_BASE_URL`` is set (README, "Using a language model").
Optional: ``MEMCLI_LIVE_LLM_MODEL`` (default: the server's first model),
``MEMCLI_LIVE_LLM_MODE``, ``MEMCLI_LIVE_LLM_SYSTEM_ROLE``, ``MEMCLI_LIVE_LLM_TIMEOUT``.
It checks the plumbing, not the model's quality: a tiny model may find no facts and
write no acceptable prose, and the run must still end with the rules' facts, one
observation per root, only valid citations, and a free second pass.
"""

from __future__ import annotations

import json
import os
import re
import urllib.request
from pathlib import Path

import pytest

from tests.conftest import Cli

LIVE = os.environ.get("MEMCLI_LIVE_LLM_BASE_URL", "").rstrip("/")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not LIVE, reason="set MEMCLI_LIVE_LLM_BASE_URL to run against a model"),
]


def live_model() -> str:
    name = os.environ.get("MEMCLI_LIVE_LLM_MODEL")
    if name:
        return name
    with urllib.request.urlopen(f"{LIVE}/models", timeout=10) as response:  # noqa: S310
        return str(json.load(response)["data"][0]["id"])


def test_canonical_scenario_through_a_live_model(
    cli: Cli, atlas: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = live_model()
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", LIVE)
    monkeypatch.setenv("MEMCLI_LLM_MODEL", model)
    monkeypatch.setenv("MEMCLI_LLM_TIMEOUT", os.environ.get("MEMCLI_LIVE_LLM_TIMEOUT", "300"))
    for name in ("MODE", "SYSTEM_ROLE"):
        value = os.environ.get(f"MEMCLI_LIVE_LLM_{name}")
        if value:
            monkeypatch.setenv(f"MEMCLI_LLM_{name}", value)
    files = sorted(str(p) for p in atlas.glob("*.md"))

    # The rules read every sentence of these updates: auto asks the model nothing.
    report = cli.json("ingest", *files, "--extractor", "auto")
    assert report["episodes"]["new"] == 3 and report["extraction_pending"] == 0
    assert report["llm"]["calls"] == 0 and report["llm"]["updates_skipped"] == 3
    assert report["facts_new"] >= 9  # the rules' facts are the floor
    # llm mode sends each whole update; a tiny model may find nothing, the run still ends.
    whole = cli.json("ingest", *files, "--graph", "whole", "--extractor", "llm")
    assert whole["llm"]["calls"] == 3 and whole["llm"]["failures"] == 0

    [analyzed] = cli.json("analyze", "--graph", "project-atlas", "--writer", "llm")
    assert analyzed["created"] and analyzed["llm"]["calls"] == len(analyzed["created"])
    observations = cli.json("observations", "--graph", "project-atlas")
    assert any(o["root_entities"] == ["auth service refactor"] for o in observations)
    for obs in observations:
        assert obs["writer"] in ("template", f"llm:{model}")
        cited = {int(i) for i in re.findall(r"#(\d+)", obs["summary"])}
        assert cited <= {f["id"] for f in obs["facts"]}

    # The same updates in another graph, analyzed again: answered from the cache.
    again = cli.json("ingest", *files, "--graph", "again", "--extractor", "llm")
    assert again["llm"]["calls"] == 0 and again["llm"]["cache_hits"] == 3
