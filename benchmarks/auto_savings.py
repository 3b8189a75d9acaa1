"""What ``--extractor auto`` saves over ``--extractor llm`` on the reader corpus.

``auto`` runs the rules reader first and sends a model only the sentences it flags (a
dependency, ownership or completion word, yet no fact), each after the sentence before
it; an update with none costs no call. ``llm`` sends every update whole. This runs one
half of ``benchmarks/corpus/`` through rules, auto and llm, each with a fresh answer
cache, and prints per mode: updates, model calls, updates that needed none, sentences
sent of all sentences, prompt tokens, and precision/recall (``reader_eval``'s scoring);
then the share of calls and sentences auto saves, and why the rules left the flagged
sentences unread.

    python benchmarks/auto_savings.py                  # against the test stub server
    python benchmarks/auto_savings.py --base-url http://127.0.0.1:8080/v1 --model NAME \\
        --mode json_object_schema                      # against a real server

Against the stub the call and sentence counts are real (they depend only on the rules
reader) but the stub reads nothing, so precision/recall there only shows the plumbing:
what auto *gains* needs a real model.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from reader_eval import Score, evaluate, load  # noqa: E402

from memcli.api import RulesExtractor  # noqa: E402
from memcli.extract.rules import extract  # noqa: E402
from memcli.llm import LLM, LLMSettings, load_settings  # noqa: E402
from memcli.llm.extract import LLMExtractor, flagged  # noqa: E402
from memcli.store import Store  # noqa: E402


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def run_mode(
    mode: str, records: list[dict[str, Any]], settings: LLMSettings | None, workdir: Path
) -> dict[str, Any]:
    """One pass over the records; usage counts (None for rules) and the score."""
    if mode == "rules":
        score, seconds = evaluate(records, RulesExtractor())
        return {"mode": mode, "usage": None, "score": score, "seconds": seconds}
    assert settings is not None
    with Store(workdir / f"{mode}.db") as store:
        llm = LLM(settings, store)
        extractor = LLMExtractor(llm, floor=mode == "auto")
        started = time.perf_counter()
        extractor.prepare([(r["text"], r.get("author")) for r in records])
        score, _ = evaluate(records, extractor)
        seconds = time.perf_counter() - started
        return {"mode": mode, "usage": llm.usage.as_dict(), "score": score, "seconds": seconds}


def flag_reasons(records: list[dict[str, Any]]) -> Counter[str]:
    """Why the rules left each flagged sentence unread (their trace's reason)."""
    reasons: Counter[str] = Counter()
    for r in records:
        trace = extract(r["text"], r.get("author")).trace
        for i in flagged(trace):
            reasons[trace[i].reason or "no reason given"] += 1
    return reasons


def measure(
    records: list[dict[str, Any]], settings: LLMSettings, modes: tuple[str, ...]
) -> dict[str, Any]:
    """Every mode over the same records, plus what auto saves relative to llm."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = {m: run_mode(m, records, settings, Path(tmp)) for m in modes}
    out: dict[str, Any] = {"updates": len(records), "modes": {}}
    for m, run in runs.items():
        score: Score = run["score"]
        out["modes"][m] = {
            "usage": run["usage"],
            "precision": score.overall.precision,
            "recall": score.overall.recall,
            "seconds": round(run["seconds"], 2),
        }
    auto, whole = out["modes"].get("auto"), out["modes"].get("llm")
    if auto and whole and whole["usage"]["calls"]:
        a, w = auto["usage"], whole["usage"]
        out["auto_saves"] = {
            "calls": 1 - a["calls"] / w["calls"],
            "sentences": 1 - a["sentences_sent"] / max(w["sentences_sent"], 1),
            "prompt_tokens": 1 - a["tokens"]["prompt"] / max(w["tokens"]["prompt"], 1),
        }
    out["flag_reasons"] = dict(flag_reasons(records).most_common())
    return out


def report(result: dict[str, Any]) -> str:
    lines = [
        f"{result['updates']} updates",
        "",
        "| mode | model calls | updates with no call | sentences sent | prompt tokens "
        "| precision | recall |",
        "|---|---|---|---|---|---|---|",
    ]
    for m, row in result["modes"].items():
        u = row["usage"]
        if u is None:
            calls = skipped = sent = tokens = "-"
        else:
            calls, skipped = str(u["calls"]), str(u["updates_skipped"])
            sent = f"{u['sentences_sent']} of {u['sentences_total']}"
            tokens = str(u["tokens"]["prompt"])
        lines.append(
            f"| {m} | {calls} | {skipped} | {sent} | {tokens} "
            f"| {_fmt(row['precision'])} | {_fmt(row['recall'])} |"
        )
    saves = result.get("auto_saves")
    if saves:
        lines.append(
            f"\nauto saves {saves['calls']:.0%} of llm's calls, {saves['sentences']:.0%} of its "
            f"sentences and {saves['prompt_tokens']:.0%} of its prompt tokens"
        )
    reasons = ", ".join(f"{k} {v}" for k, v in result["flag_reasons"].items())
    lines.append(f"\nflagged sentences by the rules' reason: {reasons}")
    return "\n".join(lines)


def _stub() -> tuple[Any, str, str]:
    """The tests' stub server on a free local port: it answers every update with no facts."""
    import threading

    from tests.llm_stub import MODEL, StubLLM, _handler, _Server

    stub = StubLLM()
    server = _Server(("127.0.0.1", 0), _handler(stub))
    stub.server = server
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, stub.url, MODEL


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["dev", "test", "all"], default="dev")
    parser.add_argument("--base-url", help="a real OpenAI-compatible server (default: stub)")
    parser.add_argument("--model")
    parser.add_argument("--mode")
    parser.add_argument("--limit", type=int, default=0, help="only the first N records")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    records = load(args.split)
    if args.limit:
        records = records[: args.limit]
    server = None
    if args.base_url is None:
        server, args.base_url, args.model = _stub()
        os.environ.setdefault("MEMCLI_LLM_BACKOFF", "0.01")
    try:
        settings = load_settings(
            {"base_url": args.base_url, "model": args.model, "mode": args.mode}
        )
        result = measure(records, settings, ("rules", "auto", "llm"))
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
    result["split"], result["model"] = args.split, settings.model
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"## {args.split} half, model {settings.model} at {settings.endpoint}\n")
        print(report(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
