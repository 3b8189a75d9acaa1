"""Search and index cost on a synthetic graph: what the FTS5 triggers add to ingest, and
how long searches take. Run: python benchmarks/search_bench.py [EPISODES]

Prints one line per figure. Deterministic input (seeded), so runs compare.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from memcli import api
from memcli.sources import SourceText
from memcli.store import Store

WORDS = (
    "review pairing oncall runbook design planning docs tests metrics rollout canary "
    "latency budget hiring retro demo migration cleanup refactor backlog triage"
).split()


def word(i: int) -> str:
    """A pronounceable-enough name for a number (digits would end sentences early)."""
    letters = ""
    i += 26 * 26
    while i:
        i, r = divmod(i, 26)
        letters = "abcdefghijklmnopqrstuvwxyz"[r] + letters
    return letters


def updates(n: int, seed: int = 7) -> list[dict[str, str]]:
    rng = random.Random(seed)
    roots = [f"platform {word(i)} piece" for i in range(max(n // 40, 1))]
    out = []
    for i in range(n):
        item = f"feature {word(i)}"
        blocker = (
            rng.choice(roots) if rng.random() < 0.7 else f"feature {word(rng.randrange(max(i, 1)))}"
        )
        filler = " ".join(rng.choice(WORDS) for _ in range(12))
        out.append(
            {
                "content": f"The {item} is blocked on the {blocker}. Also: {filler}.",
                "author": f"Person {i % 300}",
                "occurred_at": f"2026-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:00:00Z",
            }
        )
    return out


def ingest(db: Path, items: list[dict[str, str]], *, triggers: bool) -> float:
    with Store(db) as store:
        if not triggers:
            names = [
                r[0]
                for r in store.conn.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'trigger'"
                    " AND (name LIKE '%fts%' OR name LIKE '%docs%')"
                )
            ]
            for name in names:
                store.conn.execute(f"DROP TRIGGER {name}")
        batch = [
            SourceText(f"bench-{i}.json", json.dumps(items[i : i + 100]), "2026-01-01T00:00:00Z")
            for i in range(0, len(items), 100)
        ]
        started = time.perf_counter()
        api.ingest(store, batch, graph="bench")
        return time.perf_counter() - started


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    items = updates(n)
    tmp = Path(tempfile.mkdtemp(prefix="memcli-bench-"))
    ingest(tmp / "warmup.db", items[:200], triggers=True)  # imports, caches
    # Alternate the two and keep each one's best of three: a shared machine is noisy.
    plain_runs, indexed_runs = [], []
    for run in range(3):
        plain_runs.append(ingest(tmp / f"plain{run}.db", items, triggers=False))
        indexed_runs.append(ingest(tmp / f"indexed{run}.db", items, triggers=True))
    plain, indexed = min(plain_runs), min(indexed_runs)
    print(f"episodes: {n}")
    print(f"ingest without search triggers: {plain:.2f} s ({n / plain:,.0f} episodes/s, best of 3)")
    print(
        f"ingest with search triggers:    {indexed:.2f} s ({n / indexed:,.0f} episodes/s, best of 3)"
    )
    print(f"trigger overhead: {100 * (indexed - plain) / plain:+.0f}%")
    with Store(tmp / "indexed0.db") as store:
        started = time.perf_counter()
        report = api.analyze(store, "bench")
        print(f"analyze: {time.perf_counter() - started:.2f} s, {len(report.created)} observations")
        sizes = (
            {
                r[0]: r[1]
                for r in store.conn.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name")
            }
            if _has_dbstat(store)
            else {}
        )
        fts = sum(v for k, v in sizes.items() if "fts" in k or "docs" in k)
        if sizes:
            print(f"search indexes: {fts / 1e6:.1f} MB of {sum(sizes.values()) / 1e6:.1f} MB")
        queries = [
            "platform piece 3",
            "feature 1234 blocked",
            "canary latency",
            "what is blocking feature 77?",
            '"((NEAR*',
        ]
        for scope in ("observations", "facts", "episodes", "entities", "all"):
            times = []
            for _ in range(5):
                for q in queries:
                    t0 = time.perf_counter()
                    api.search(store, "bench", q, scope=scope, limit=10)
                    times.append(time.perf_counter() - t0)
            print(
                f"search --scope {scope:<12} median {1000 * statistics.median(times):6.1f} ms,"
                f" max {1000 * max(times):6.1f} ms"
            )


def _has_dbstat(store: Store) -> bool:
    try:
        store.conn.execute("SELECT 1 FROM dbstat LIMIT 1")
    except Exception:
        return False
    return True


if __name__ == "__main__":
    main()
