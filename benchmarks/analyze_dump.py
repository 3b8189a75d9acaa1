"""Dump everything analyze writes, to check that a speed change changes no output.

Runs, on a copy of an ingested database, a full ``memcli analyze``, a forced re-run,
then (with ``--increment DIR``) an ingest of new updates and the incremental pass, and
after each one dumps the observations, their evidence, versions and links, the cluster
table and the analyze report (everything but clock times and durations) as sorted text.
Run it once per source tree and compare the two directories:

    python benchmarks/analyze_dump.py DB OUT/before --tree ../memcli-before \
        --increment benchmarks/out/scale-10000/increment/facts
    python benchmarks/analyze_dump.py DB OUT/after --increment ...
    diff -r OUT/before OUT/after && echo identical
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

# Columns that hold the wall clock of the run (not its result) are left out.
TABLES = {
    "observations": (
        "SELECT id, graph_id, name, summary, status, kind, pattern_key, cluster_id,"
        " fingerprint, rank, start_at, valid_from, latest_evidence_at, end_at, version,"
        " retire_reason, retired_by_episode, writer FROM observations ORDER BY id"
    ),
    "evidence": (
        "SELECT observation_id, item_type, item_id, role FROM observation_evidence"
        " ORDER BY observation_id, item_type, item_id"
    ),
    "versions": (
        "SELECT observation_id, version, name, summary, kind, start_at, latest_evidence_at,"
        " evidence FROM observation_versions ORDER BY observation_id, version"
    ),
    "links": "SELECT from_id, to_id, kind FROM observation_links ORDER BY from_id, to_id",
    "clusters": (
        "SELECT episode_id, graph_id, cluster_id, component_id FROM episode_clusters"
        " ORDER BY episode_id"
    ),
    "merges": (
        "SELECT graph_id, entity_id, canonical_id, decided_by, reason, undone_at IS NULL"
        " FROM entity_merges ORDER BY id"
    ),
    "runs": (
        "SELECT graph_id, mode, config, episodes, clusters, created, updated, retired,"
        " unchanged, max_episode_id, max_fact_id FROM analysis_runs ORDER BY id"
    ),
}


def memcli(db: Path, tree: Path | None, *args: str) -> str:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    # ``python -m`` puts the working directory first on sys.path: run from the tree, or
    # a checkout in the working directory would run instead of it.
    out = subprocess.run(
        [sys.executable, "-m", "memcli", "--db", str(db.resolve()), *args],
        check=True,
        env=env,
        capture_output=True,
        text=True,
        cwd=tree,
    )
    return out.stdout


def dump(db: Path, report: str, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(db)
    for name, sql in TABLES.items():
        with (out / f"{name}.txt").open("w", encoding="utf-8") as f:
            for row in conn.execute(sql):
                f.write("\t".join("" if v is None else str(v) for v in row) + "\n")
    conn.close()
    reports = json.loads(report)
    for r in reports:
        r.pop("seconds", None)
    (out / "report.json").write_text(json.dumps(reports, indent=1, sort_keys=True) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("db", type=Path, help="an ingested database (not modified)")
    p.add_argument("out", type=Path, help="directory for the dumps")
    p.add_argument("--tree", type=Path, help="memcli source tree to run (default: installed)")
    p.add_argument("--increment", type=Path, help="updates to ingest before the last pass")
    args = p.parse_args(argv)
    tree = args.tree.resolve() if args.tree else None
    args.out.mkdir(parents=True, exist_ok=True)
    db = args.out / "work.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copy(args.db, db)
    dump(db, memcli(db, tree, "analyze", "--json"), args.out / "1-full")
    dump(db, memcli(db, tree, "analyze", "--json", "--force"), args.out / "2-forced")
    if args.increment is not None:
        memcli(db, tree, "ingest", str(args.increment.resolve()), "--quiet")
        dump(db, memcli(db, tree, "analyze", "--json"), args.out / "3-incremental")
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
