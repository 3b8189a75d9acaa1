"""Recall of planted dependency chains, by owner naming, signature mode and input path.

For each owner-naming rate (how often a blocked person also names the owner of what they
wait on), the generator plants chains among noise; the corpus is ingested into a fresh
database twice, once with the true facts (JSONL, extraction bypassed) and once through
the real rules extractor (Markdown), then analyzed with ``--signatures literal`` and
``extended`` through the library the CLI calls (``memcli.api``), and the observations
(the ``observations --json`` contract) are scored against the ground truth:

* **whole**: a dependency observation whose root_entities == [planted root] and whose
  episodes include every episode of the chain;
* **split**: the root has an observation, but some chain episodes are missing from it;
* **missed**: no observation has the planted root;
* **wrong roots**: dependency observations whose root is not a planted root (split out:
  those rooted at a noise "lone blocker", something only one update waits on);
* **noise pulled**: noise episodes that appear in any dependency observation.

``--what-if node`` also scores a candidate signature that memcli does not have yet (see
``what_if``), computed with memcli's own clustering, dependency CTE and draft builder.

Run: ``python benchmarks/recall.py`` (add ``--scenario hubs`` for hubs, two-foundation
items, extra sentences and more lone blockers; ``--seeds 5`` for 100 chains a cell).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from generate import Config, cached  # noqa: E402

from memcli import analysis, api, cluster  # noqa: E402
from memcli.models import Relation  # noqa: E402
from memcli.resolve import normalize  # noqa: E402
from memcli.signatures import SignatureMode  # noqa: E402
from memcli.sources import expand  # noqa: E402
from memcli.store import Store  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"
OWNER_NAMING = (1.0, 0.8, 0.5, 0.0)

SCENARIOS: dict[str, dict[str, Any]] = {
    # Chains and noise only: episodes link through chain statements alone.
    "clean": {},
    # Hubs: a platform team owning 30% of everything, a daily roll-up poster restating
    # root owners, items waiting on two roots, people mentioning their other work in
    # chain updates, and more lone blockers.
    "hubs": {
        "hub_team": 0.3,
        "hub_person": True,
        "two_foundation": 0.2,
        "extra_sentences": 1.0,
        "lone_blockers": 0.2,
    },
}


def ingest(db: Path, inputs: Path) -> api.IngestReport:
    with Store(db) as store:
        report = api.ingest(store, expand([str(inputs)]))
    if not report.ok:
        raise SystemExit(f"ingest of {inputs} failed: {report.errors[:3]}")
    return report


def analyze(db: Path, graph: str, mode: SignatureMode) -> list[dict[str, Any]]:
    with Store(db) as store:
        api.analyze(store, graph, signatures=mode)
        return api.observations(store, graph)


def score(observations: list[dict[str, Any]], truth: dict[str, Any]) -> dict[str, Any]:
    """Compare observations (the --json contract) with the planted chains."""
    deps = [o for o in observations if o["kind"] in analysis.ROOT_KINDS]
    by_root: dict[str, list[set[str]]] = defaultdict(list)
    for o in deps:
        if len(o["root_entities"]) == 1:
            by_root[normalize(o["root_entities"][0])].append({e["source"] for e in o["episodes"]})
    planted = {normalize(c["root"]) for c in truth["chains"]}
    lone = {normalize(x) for x in truth["lone_blockers"]}
    whole = split = missed = 0
    failures: list[dict[str, Any]] = []
    for c in truth["chains"]:
        want = set(c["episodes"])
        found = by_root.get(normalize(c["root"]), [])
        if any(want <= eps for eps in found):
            whole += 1
            continue
        if found:
            split += 1
        else:
            missed += 1
        best = max(found, key=lambda eps: len(want & eps), default=set())
        missing = sorted(want - best)
        roles = [m["role"] for m in c["members"] if m["source"] in missing]
        named = [m["owner_named"] for m in c["members"] if m["source"] in missing]
        failures.append({"chain": c["id"], "missing_roles": roles, "owner_named": named})
    wrong = [o for o in deps if {normalize(r) for r in o["root_entities"]} - planted]
    wrong_lone = [o for o in wrong if {normalize(r) for r in o["root_entities"]} <= lone]
    noise = set(truth["noise"])
    hub = set(truth["hub"])
    in_deps = {e["source"] for o in deps for e in o["episodes"]}
    return {
        "chains": len(truth["chains"]),
        "whole": whole,
        "split": split,
        "missed": missed,
        "wrong_roots": len(wrong),
        "wrong_lone": len(wrong_lone),
        "wrong_names": sorted({r for o in wrong for r in o["root_entities"]})[:5],
        "noise_pulled": len(noise & in_deps),
        "hub_in_deps": len(hub & in_deps),
        "observations": len(observations),
        "dependency_observations": len(deps),
        "failures": failures,
    }


def extraction_agreement(db: Path, corpus_dir: Path, graph: str) -> tuple[float, float]:
    """(precision, recall) of extracted facts against the true facts, per episode."""
    import json

    want: set[tuple[str, str, str, str]] = set()
    for part in sorted((corpus_dir / "facts").glob("*.jsonl")):
        for line in part.read_text(encoding="utf-8").splitlines():
            ep = json.loads(line)
            for f in ep["facts"]:
                want.add(
                    (ep["source"], normalize(f["source"]), f["relation"], normalize(f["target"]))
                )
    with Store(db) as store:
        got = {
            (f["episode_source"], normalize(f["source"]), f["relation"], normalize(f["target"]))
            for f in api.facts(store, graph, include_ended=True)
        }
    hit = len(want & got)
    return (hit / len(got) if got else 1.0, hit / len(want) if want else 1.0)


class _Rollback(Exception):
    """Leave a read-only what-if without a trace."""


def what_if(db: Path, graph: str, truth: dict[str, Any], min_blocked: int = 1) -> dict[str, Any]:
    """Score a candidate signature: every work item at either end of a ``blocked_by``.

    memcli's blocker signature links updates that wait on the same item; it cannot link
    "E waits on D" with "D waits on R" (they share D, but D is the *waiter* in one and the
    *blocker* in the other). A dependency-node signature, one key per work item that
    appears at either end of a dependency, links them. This computes it from the stored
    facts and runs memcli's own union-find, recursive CTE and draft builder on it; it
    changes nothing in the database that matters (the CTE uses a temp table).

    ``min_blocked=2`` also drops dependency drafts with fewer than two blocked items (a
    "pattern" of one update waiting on one thing), the candidate fix for wrong roots.
    """
    with Store(db) as store:
        try:
            with store.transaction():  # rolled back: the CTE's temp table is all it writes
                inp = store.load_analysis(
                    graph, scope=None, kinds=SignatureMode.EXTENDED.kinds(), with_times=False
                )
                incidences = list(inp.incidences)
                node_keys: dict[int, int] = {}
                base = 10**12
                for f in inp.facts:
                    if f.relation is Relation.BLOCKED_BY:
                        for end in (f.source_id, f.target_id):
                            sig = node_keys.setdefault(end, base + end)
                            incidences.append((f.episode_id, sig))
                membership = cluster.components(incidences, inp.nodes)
                cones = store.dependency_cones(graph, membership)
                drafts = analysis.build_drafts(
                    membership=membership,
                    cones=cones,
                    facts=inp.facts,
                    entities=inp.entities,
                    episodes=inp.episodes,
                )
                raise _Rollback
        except _Rollback:
            pass
    observations = [
        {
            "kind": d.kind,
            "root_entities": [e.name for e in d.roots] if d.kind in analysis.ROOT_KINDS else [],
            "episodes": [{"source": e.source} for e in d.episodes],
        }
        for d in drafts
        if d.kind not in analysis.ROOT_KINDS or len(d.blocked) >= min_blocked
    ]
    return score(observations, truth)


def run(
    scenario: str,
    seeds: list[int],
    inputs: list[str],
    modes: list[str],
    whatif: bool,
    *,
    base: Config | None = None,
    out: Path = OUT,
) -> list[dict[str, Any]]:
    """Score every owner-naming rate; ``base`` overrides the corpus size (tests)."""
    rows: list[dict[str, Any]] = []
    for rate in OWNER_NAMING:
        agg: dict[tuple[str, str], dict[str, Any]] = {}
        for seed in seeds:
            cfg = replace(base or Config(), seed=seed, owner_naming=rate, **SCENARIOS[scenario])
            corpus = cached(
                cfg, out / "recall" / f"{scenario}-on{rate:.1f}-s{seed}", ("md", "facts")
            )
            import json

            truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
            with tempfile.TemporaryDirectory() as tmp:
                for inp in inputs:
                    ingested = Path(tmp) / f"{inp}.db"
                    ingest(ingested, corpus / ("facts" if inp == "facts" else "md"))
                    agreement = (
                        extraction_agreement(ingested, corpus, cfg.graph) if inp == "md" else None
                    )
                    variants = list(modes) + (["node", "node+min2"] if whatif else [])
                    for mode in variants:
                        db = Path(tmp) / f"{inp}-{mode}.db"
                        shutil.copy(ingested, db)
                        if mode.startswith("node"):
                            s = what_if(db, cfg.graph, truth, 2 if mode.endswith("min2") else 1)
                        else:
                            s = score(analyze(db, cfg.graph, SignatureMode(mode)), truth)
                        s["agreement"] = agreement
                        key = (inp, mode)
                        if key not in agg:
                            agg[key] = {**s, "failures": list(s["failures"])}
                        else:
                            for k in (
                                "chains",
                                "whole",
                                "split",
                                "missed",
                                "wrong_roots",
                                "wrong_lone",
                                "noise_pulled",
                                "hub_in_deps",
                                "observations",
                                "dependency_observations",
                            ):
                                agg[key][k] += s[k]
                            agg[key]["failures"] += s["failures"]
                            agg[key]["wrong_names"] = sorted(
                                set(agg[key]["wrong_names"]) | set(s["wrong_names"])
                            )[:5]
                            if agreement and agg[key]["agreement"]:
                                p0, r0 = agg[key]["agreement"]
                                agg[key]["agreement"] = (
                                    min(p0, agreement[0]),
                                    min(r0, agreement[1]),
                                )
        for (inp, mode), s in agg.items():
            rows.append(
                {"scenario": scenario, "owner_naming": rate, "input": inp, "mode": mode, **s}
            )
    return rows


TARGETS = {0.8: 0.95, 0.5: 0.85}


def table(rows: list[dict[str, Any]], noise: int) -> str:
    head = (
        "| scenario | owner naming | signatures | input | chains whole | split | missed "
        "| wrong roots (lone) | noise pulled | extraction P/R | target |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n"
    )
    lines = []
    for r in rows:
        share = r["whole"] / r["chains"] if r["chains"] else 0.0
        target = ""
        if r["input"] == "md" and r["mode"] == "extended" and r["owner_naming"] in TARGETS:
            goal = TARGETS[r["owner_naming"]]
            ok = share >= goal and r["wrong_roots"] == 0
            target = f"{'met' if ok else 'MISSED'} (>= {goal:.0%}, no wrong roots)"
        agreement = (
            f"{r['agreement'][0]:.3f}/{r['agreement'][1]:.3f}" if r.get("agreement") else "-"
        )
        mode = r["mode"] if not r["mode"].startswith("node") else f"what-if: {r['mode']}"
        inp = {"md": "Markdown (extractor)", "facts": "JSONL (true facts)"}[r["input"]]
        lines.append(
            f"| {r['scenario']} | {r['owner_naming']:.0%} | {mode} | {inp} "
            f"| {r['whole']}/{r['chains']} ({share:.0%}) | {r['split']} | {r['missed']} "
            f"| {r['wrong_roots']} ({r['wrong_lone']}) | {r['noise_pulled']} | {agreement} "
            f"| {target} |"
        )
    return head + "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", choices=sorted(SCENARIOS), action="append")
    p.add_argument("--seeds", type=int, default=1, help="corpora per cell (20 chains each)")
    p.add_argument("--seed", type=int, default=7, help="first seed")
    p.add_argument("--inputs", default="facts,md")
    p.add_argument("--modes", default="literal,extended")
    p.add_argument("--what-if", action="store_true", help="also score the node signature")
    p.add_argument("--failures", action="store_true", help="print why chains were not whole")
    args = p.parse_args(argv)
    started = time.perf_counter()
    rows: list[dict[str, Any]] = []
    for scenario in args.scenario or ["clean"]:
        rows += run(
            scenario,
            list(range(args.seed, args.seed + args.seeds)),
            args.inputs.split(","),
            args.modes.split(","),
            args.what_if,
        )
    print(table(rows, Config().noise))
    if args.failures:
        for r in rows:
            if r["failures"]:
                by: dict[str, int] = defaultdict(int)
                for f in r["failures"]:
                    for role, named in zip(f["missing_roles"], f["owner_named"], strict=True):
                        by[f"{role}{'' if named else ' (owner not named)'}"] += 1
                print(
                    f"{r['scenario']} {r['owner_naming']:.0%} {r['mode']} {r['input']}: "
                    f"missing episodes by role: {dict(sorted(by.items()))}"
                    + (f"; wrong roots e.g. {r['wrong_names']}" if r["wrong_names"] else "")
                )
    print(f"({time.perf_counter() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
