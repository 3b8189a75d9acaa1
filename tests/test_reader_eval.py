"""The reader benchmark's scorer: what counts as the same fact, and what it reports.

Figures come from ``benchmarks/reader_eval.py``; these tests guard that the scorer is
fair in both directions (a fair paraphrase of a name matches, a different item does not)
and that the script runs end to end on a corpus laid out like the real one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))

import reader_eval  # noqa: E402


def test_same_name_accepts_fair_paraphrases_and_rejects_other_items() -> None:
    assert reader_eval.same_name("The auth service refactor", "auth service refactor")
    assert reader_eval.same_name("auth refactor", "auth service refactor")
    assert reader_eval.same_name("progress on the billing export", "billing export")
    assert reader_eval.same_name("PROJ-42", "ledger sync", alts=["PROJ-42"])
    assert not reader_eval.same_name("billing engine rollout", "billing engine rewrite")
    assert not reader_eval.same_name("auth", "auth service refactor")
    assert not reader_eval.same_name("search reindex", "auth service refactor")


def test_scores_matches_inventions_and_false_alarms() -> None:
    score = reader_eval.Score()
    record = {
        "id": "t-1",
        "style": "chat",
        "facts": [
            {"source": "API migration", "relation": "blocked_by", "target": "auth refactor"},
            {"source": "Alice", "relation": "owns", "target": "API migration"},
        ],
    }
    reader_eval.score_record(
        record,
        [("the API migration", "blocked_by", "auth refactor"), ("Alice", "completed", "x")],
        score,
    )
    reader_eval.score_record({"id": "t-2", "style": "chat", "facts": []}, [], score)
    assert (score.overall.tp, score.overall.fp, score.overall.fn) == (1, 1, 1)
    assert score.relation["owns"].recall == 0.0
    assert score.relation["completed"].precision == 0.0
    assert (score.no_fact_records, score.false_alarms) == (1, 0)
    # Counted per writer's batch too (the id's prefix).
    assert (score.writer["t"].tp, score.writer["t"].fp, score.writer["t"].fn) == (1, 1, 1)


def test_error_kinds_tell_a_wrong_end_from_a_miss_with_nothing_near() -> None:
    score = reader_eval.Score()
    record = {
        "id": "t-3",
        "style": "standup",
        "facts": [
            {"source": "Ines", "relation": "owns", "target": "kiln rota"},
            {"source": "kiln rota", "relation": "blocked_by", "target": "gas permit"},
        ],
    }
    # the owner is right and the item wrong: one invented fact near the missed one
    reader_eval.score_record(record, [("Ines", "owns", "glaze order")], score)
    assert (score.overall.fp, score.near, dict(score.lone)) == (1, 1, {"blocked_by": 1})
    # a fact of another relation is near nothing
    reader_eval.score_record(record, [("Ines", "completed", "kiln rota")], score)
    assert (score.near, score.lone["owns"], score.lone["blocked_by"]) == (1, 1, 2)


def test_split_is_fixed_by_id_and_roughly_even() -> None:
    halves = [reader_eval.split_of(f"w{i}-{n:03d}") for i in range(1, 5) for n in range(100)]
    assert halves == [
        reader_eval.split_of(f"w{i}-{n:03d}") for i in range(1, 5) for n in range(100)
    ]
    assert 150 < halves.count("test") < 250


def test_script_prints_json_figures_for_a_corpus(tmp_path: Path) -> None:
    record = {
        "id": "x-1",
        "style": "standup",
        "author": "Alice",
        "text": "The API migration is blocked on the auth service refactor.",
        "facts": [
            {
                "source": "API migration",
                "relation": "blocked_by",
                "target": "auth service refactor",
            },
            {"source": "Alice", "relation": "owns", "target": "API migration"},
        ],
    }
    for half in ("dev", "test"):
        (tmp_path / f"{half}.jsonl").write_text(json.dumps(record) + "\n")
    out = subprocess.run(
        [sys.executable, str(BENCH / "reader_eval.py"), "--corpus", str(tmp_path), "--json"],
        check=True,
        capture_output=True,
        text=True,
    )
    figures = json.loads(out.stdout)
    assert figures["records"] == 1
    assert figures["relation"]["blocked_by"]["recall"] == 1.0
    refused = subprocess.run(
        [
            sys.executable,
            str(BENCH / "reader_eval.py"),
            "--corpus",
            str(tmp_path),
            "--split",
            "test",
            "--failures",
        ],
        capture_output=True,
        text=True,
    )
    assert refused.returncode == 2 and "dev half" in refused.stderr
