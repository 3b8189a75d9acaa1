"""``--extractor auto`` against the local stub server: the rules read first, and only the
sentences they flag (a dependency, ownership or completion word, yet no fact) reach the
model, each after the sentence before it; an update with none costs no call."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from memcli.extract.rules import extract
from memcli.llm import load_settings
from memcli.llm.extract import flagged
from tests.conftest import Cli, update
from tests.llm_stub import MODEL, StubLLM

BLOCKED = "The billing export is blocked on the ledger schema change."
OWNER = "The ops team owns the ledger schema change."
DONE = "I finished the invoice templates."
# The rules see "hinges on" but cannot read its arguments: the sentence worth a call.
HARD = "The retention report hinges on whatever the audit log cleanup ends up looking like."
PRIYA = " ".join([BLOCKED, OWNER, DONE, HARD])

HARD_ANSWER = {
    "entities": [
        {"name": "retention report", "type": "work_item"},
        {"name": "audit log cleanup", "type": "work_item"},
        {"name": "invoice templates", "type": "work_item"},
        {"name": "Priya", "type": "person"},
    ],
    "facts": [
        {"source": "retention report", "relation": "blocked_by", "target": "audit log cleanup",
         "sentence": HARD},
        {"source": "Priya", "relation": "owns", "target": "retention report", "sentence": HARD},
        # From the context sentence, which the rules already read: not the model's to add.
        {"source": "invoice templates", "relation": "blocked_by", "target": "audit log cleanup",
         "sentence": DONE},
    ],
}  # fmt: skip

RULES_FACTS = {
    ("Priya", "owns", "billing export"),
    ("billing export", "blocked_by", "ledger schema change"),
    ("ops team", "owns", "ledger schema change"),
    ("Priya", "completed", "invoice templates"),
}
MODEL_FACTS = {
    ("retention report", "blocked_by", "audit log cleanup"),
    ("Priya", "owns", "retention report"),
}


def facts_of(cli: Cli, graph: str) -> set[tuple[str, str, str]]:
    return {(f["source"], f["relation"], f["target"]) for f in cli.json("facts", "--graph", graph)}


def statuses(db: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(db)
    rows = conn.execute(
        "SELECT author, extractor, extraction_status FROM episodes ORDER BY id"
    ).fetchall()
    conn.close()
    return rows


def extract_prompts(stub: StubLLM) -> list[str]:
    return [body["messages"][-1]["content"] for body in stub.of_kind("extract")]


def test_the_test_update_has_exactly_one_sentence_the_rules_cannot_read() -> None:
    """A guard for the tests below: if the reader learns to read HARD, pick a harder one."""
    rules = extract(PRIYA, "Priya")
    assert [(t.cue, t.facts > 0) for t in rules.trace] == [(True, True)] * 3 + [(True, False)]
    assert {(f.source.name, f.relation.value, f.target.name) for f in rules.facts} == RULES_FACTS


def test_auto_makes_no_call_for_updates_the_rules_read_fully(
    cli: Cli, llm_server: StubLLM, atlas: Path, db_path: Path
) -> None:
    files = sorted(str(p) for p in atlas.glob("*.md"))
    rules = cli.json("ingest", *files, "--graph", "rules")
    auto = cli.json("ingest", *files, "--graph", "auto", "--extractor", "auto")
    assert llm_server.requests == []
    assert auto["llm"]["calls"] == 0 and auto["llm"]["updates_skipped"] == 3
    assert auto["llm"]["sentences_sent"] == 0 and auto["llm"]["sentences_total"] == 6
    assert auto["facts_new"] == rules["facts_new"] == 9
    assert facts_of(cli, "auto") == facts_of(cli, "rules")
    assert {r[1:] for r in statuses(db_path)[3:]} == {(f"auto:{MODEL}", "done")}

    summary = cli("ingest", *files, "--graph", "again", "--extractor", "auto")
    assert "0 call(s)" in summary.stderr
    assert "0 of 6 sentence(s) sent, 3 update(s) needed no call" in summary.stderr


def test_auto_sends_only_the_unread_sentence_and_the_one_before_it(
    cli: Cli, llm_server: StubLLM, write: Callable[..., Path], db_path: Path
) -> None:
    llm_server.extractions[HARD] = HARD_ANSWER
    path = write("priya.md", update("Priya", "2026-11-10", PRIYA, graph="billing"))
    report = cli.json("ingest", str(path), "--extractor", "auto")

    [prompt] = extract_prompts(llm_server)
    assert len(llm_server.requests) == 1
    assert "Author: Priya" in prompt
    assert f"<update>\n[...]\n{DONE}\n{HARD}\n</update>" in prompt
    assert BLOCKED not in prompt and OWNER not in prompt
    assert report["llm"]["calls"] == 1 and report["llm"]["updates_skipped"] == 0
    assert report["llm"]["sentences_sent"] == 2 and report["llm"]["sentences_total"] == 4

    # The model's facts from the flagged sentence join the rules' facts; its fact about
    # the context sentence does not (the rules already read that one).
    assert facts_of(cli, "billing") == RULES_FACTS | MODEL_FACTS
    assert report["facts_new"] == 6 and report["sentences_not_understood"] == 0
    [fact] = [
        f for f in cli.json("facts", "--graph", "billing") if f["target"] == "audit log cleanup"
    ]
    assert fact["sentence"] == HARD
    assert statuses(db_path)[-1] == ("Priya", f"auto:{MODEL}", "done")


def test_llm_mode_still_sends_the_whole_update_and_does_not_share_auto_answers(
    cli: Cli, llm_server: StubLLM, write: Callable[..., Path]
) -> None:
    llm_server.extractions[HARD] = HARD_ANSWER
    path = write("priya.md", update("Priya", "2026-11-10", PRIYA, graph="billing"))
    cli("ingest", str(path), "--graph", "a", "--extractor", "auto")
    report = cli.json("ingest", str(path), "--graph", "b", "--extractor", "llm")
    assert report["llm"]["calls"] == 1 and report["llm"]["cache_hits"] == 0
    assert report["llm"]["sentences_sent"] == report["llm"]["sentences_total"] == 4
    auto_prompt, llm_prompt = extract_prompts(llm_server)
    assert f"<update>\n{PRIYA}\n</update>" in llm_prompt and "[...]" not in llm_prompt
    assert auto_prompt != llm_prompt
    # The same excerpt again is answered from the cache and sends nothing.
    again = cli.json("ingest", str(path), "--graph", "c", "--extractor", "auto")
    assert again["llm"]["calls"] == 0 and again["llm"]["cache_hits"] == 1
    assert again["llm"]["sentences_sent"] == 0 and len(llm_server.requests) == 2


def test_auto_with_the_model_down_keeps_the_rules_facts_and_retries_only_what_needs_it(
    cli: Cli,
    llm_server: StubLLM,
    atlas: Path,
    write: Callable[..., Path],
    db_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMCLI_LLM_MAX_RETRIES", "0")
    path = write("priya.md", update("Priya", "2026-11-10", PRIYA, graph="project-atlas"))
    files = [*sorted(str(p) for p in atlas.glob("*.md")), str(path)]
    down = cli("ingest", *files, "--extractor", "auto", ok=False)
    assert down.exit_code == 3  # stored, the model part pending
    # Only Priya's update needed the model: it alone is pending, with the rules' facts.
    assert "1 episode(s) stored with the rules' facts only" in down.stderr
    assert "3 update(s) needed no call" in down.stderr
    assert [r[2] for r in statuses(db_path)] == ["done", "done", "done", "pending"]
    assert RULES_FACTS <= facts_of(cli, "project-atlas")
    assert not MODEL_FACTS & facts_of(cli, "project-atlas")

    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", llm_server.url)
    llm_server.extractions[HARD] = HARD_ANSWER
    done = cli.json("extract", "--pending")
    assert done["episodes"] == 1 and done["done"] == 1 and done["facts_new"] == 2
    assert done["llm"]["calls"] == 1 and done["llm"]["sentences_sent"] == 2
    [prompt] = extract_prompts(llm_server)
    assert HARD in prompt and BLOCKED not in prompt
    assert MODEL_FACTS <= facts_of(cli, "project-atlas")
    assert statuses(db_path)[-1][2] == "done"


def test_savings_benchmark_counts_calls_and_sentences(llm_server: StubLLM) -> None:
    """benchmarks/auto_savings.py keeps working: on a few corpus records auto calls the
    model once per update with a flagged sentence, llm once per update."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    import auto_savings

    records = auto_savings.load("dev")[:12]
    needy = sum(1 for r in records if flagged(extract(r["text"], r.get("author")).trace))
    result = auto_savings.measure(records, load_settings(), ("auto", "llm"))
    auto, whole = result["modes"]["auto"]["usage"], result["modes"]["llm"]["usage"]
    assert whole["calls"] == 12 and auto["calls"] == needy < 12
    assert auto["updates_skipped"] == 12 - needy
    assert auto["sentences_total"] == whole["sentences_total"] == whole["sentences_sent"]
    assert 0 < auto["sentences_sent"] < whole["sentences_sent"]
    assert result["auto_saves"]["calls"] == 1 - needy / 12
    assert len(llm_server.of_kind("extract")) == needy + 12


def test_auto_does_not_send_cue_sentences_the_reader_read_as_no_fact(
    cli: Cli, llm_server: StubLLM, write: Callable[..., Path]
) -> None:
    """A question, a hedge, a plan or a negation uses a cue word, but the reader read it
    and the contract says it states no fact: asking a model would only second-guess that."""
    text = (
        "Is the billing export blocked on the ledger schema change? "
        "The audit log cleanup might be blocked by the retention policy. "
        "We plan to ship the invoice templates next week. "
        "The partner portal isn't blocked on anything."
    )
    rules = extract(text, "Priya")
    assert all(t.cue and t.facts == 0 for t in rules.trace), rules.trace
    assert flagged(rules.trace) == []
    path = write("priya.md", update("Priya", "2026-11-10", text, graph="quiet"))
    report = cli.json("ingest", str(path), "--extractor", "auto")
    assert llm_server.requests == [] and report["llm"]["updates_skipped"] == 1
    assert report["facts_new"] == 0
