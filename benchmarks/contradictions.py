"""Cost of each contradiction rule per ingested episode, and of a proposed rewrite.

``Store.apply_contradictions`` runs six UPDATEs for every ingested episode. This times
each one (inside a transaction that is rolled back) on a store built from a cached
corpus, prints its query plan, and times rule 1 without the ``facts.graph_id = (SELECT
graph_id FROM episodes ...)`` condition: ``target_id`` already pins the graph (entities
belong to one graph), and without it SQLite drives the update from the episode's own
``completed`` facts through ``facts_target`` instead of scanning every ``blocked_by``
fact of the graph.

    python benchmarks/contradictions.py            # builds out/contradictions-10k.db once
    python benchmarks/contradictions.py --db X.db  # any memcli database
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import cached  # noqa: E402
from perf import OUT, scale_config  # noqa: E402

from memcli import api  # noqa: E402
from memcli.sources import expand  # noqa: E402
from memcli.store import Store  # noqa: E402

GRAPH_CLAUSE = "AND facts.graph_id = (SELECT graph_id FROM episodes WHERE id = :ep)"


def statements() -> list[str]:
    """The SQL of ``apply_contradictions``, in order, read from memcli's own source."""
    src = inspect.getsource(Store.apply_contradictions)
    return [" ".join(q.split()) for q in re.findall(r'"""(.*?)"""', src, re.S)[1:]]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--db", type=Path)
    p.add_argument("--sample", type=int, default=300, help="episodes to time each rule on")
    args = p.parse_args(argv)
    db = args.db
    if db is None:
        db = OUT / "contradictions-10k.db"
        if not db.exists():
            corpus = cached(scale_config(10000), OUT / "scale-10000", ("text", "facts"))
            with Store(db) as store:
                api.ingest(store, expand([str(corpus / "facts")]))
    rules = statements()
    with Store(db) as store:
        blocked = store.scalar("SELECT count(*) FROM facts WHERE relation = 'blocked_by'")
        total = store.scalar("SELECT count(*) FROM facts")
        print(f"{db}: {total} facts, {blocked} blocked_by\n")
        store.conn.execute("BEGIN")
        eps = [
            r[0]
            for r in store.conn.execute(
                "SELECT id FROM episodes ORDER BY id DESC LIMIT ?", (args.sample,)
            )
        ]
        variants = [(f"rule {i + 1}", q) for i, q in enumerate(rules)]
        if GRAPH_CLAUSE in rules[0]:
            variants.append(
                ("rule 1 without the graph_id subquery", rules[0].replace(GRAPH_CLAUSE, ""))
            )
        print("| statement | ms per episode | plan |\n|---|---|---|")
        for name, sql in variants:
            plan = "; ".join(
                r[3] for r in store.conn.execute("EXPLAIN QUERY PLAN " + sql, {"ep": 1, "now": ""})
            )
            t = time.perf_counter()
            for ep in eps:
                store.conn.execute(sql, {"ep": ep, "now": "2030-01-01T00:00:00Z"})
            ms = (time.perf_counter() - t) / len(eps) * 1000
            print(f"| {name} | {ms:.3f} | {plan} |")
        store.conn.execute("ROLLBACK")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
