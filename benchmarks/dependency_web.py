"""A real dependency web: does memcli name every foundation, quickly?

Hundreds of work items in layers; a few foundations at the bottom with dozens of direct
and over a hundred transitive dependents; many items need two foundations at once.
About 1,000 episodes (each a person reporting what their item waits on, some of them
restating owners), ingested with their true facts (JSONL), then analyzed.

    python benchmarks/dependency_web.py [--episodes 1000] [--foundations 4] [--seed 7]
        [--years 10] [--analyze-args "--window 28d"]

Prints the per-root observations (root, direct and transitive dependents) and the time
of ingest and analyze. The updates are spread evenly over ``--years`` (default ten), and
nobody ever says a foundation shipped, so every wait stays valid. Target (issue:
identity by root over time): with the defaults, every foundation is the root of exactly
one observation holding all its transitive dependents, no other roots, analyze under 2 s
for ~1,000 episodes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from memcli import api, cluster
from memcli.sources import SourceText
from memcli.store import Store

WORDS = (
    "auth billing search ledger catalog inventory pricing checkout payments identity "
    "gateway reporting export import sync cache queue scheduler notifications mobile "
    "onboarding analytics metrics alerting audit admin portal partner console storage"
).split()
KINDS = "service migration rewrite integration pipeline dashboard rollout upgrade api flow".split()


def build(
    episodes: int, foundations: int, seed: int, years: float = 0.0
) -> tuple[list[dict], list[str], dict[str, list[str]]]:
    rnd = random.Random(seed)
    names: set[str] = set()

    def fresh() -> str:
        while True:
            name = f"{rnd.choice(WORDS)} {rnd.choice(WORDS)} {rnd.choice(KINDS)}"
            if name not in names:
                names.add(name)
                return name

    roots = [fresh() for _ in range(foundations)]
    layers: list[list[str]] = [roots]
    for size in (40, 80, 120, 100):
        layers.append([fresh() for _ in range(size)])
    deps: dict[str, list[str]] = {}
    for depth, layer in enumerate(layers[1:], start=1):
        below = [x for lay in layers[:depth] for x in lay]
        for item in layer:
            if depth == 1:
                # direct dependents of foundations; a third need two at once
                k = 2 if rnd.random() < 0.33 else 1
                deps[item] = rnd.sample(roots, k)
            else:
                previous = layers[depth - 1]
                k = 2 if rnd.random() < 0.3 else 1
                deps[item] = rnd.sample(previous, 1) + rnd.sample(below, k - 1)
    items = list(deps)
    teams = ["platform team", "data team", "identity team", "core team"]
    owner_of_root = {r: teams[i % len(teams)] for i, r in enumerate(roots)}
    start = datetime(2026, 9, 1, tzinfo=UTC)
    out = []
    for i in range(episodes):
        item = items[i % len(items)]
        person = f"P{items.index(item):03d}"
        facts = [{"source": person, "relation": "owns", "target": item}]
        for blocker in deps[item]:
            facts.append({"source": item, "relation": "blocked_by", "target": blocker})
            if blocker in owner_of_root and rnd.random() < 0.5:
                facts.append(
                    {
                        "source": owner_of_root[blocker],
                        "source_type": "team",
                        "relation": "owns",
                        "target": blocker,
                    }
                )
        if years:
            when = start + timedelta(days=365 * years * i / max(episodes - 1, 1))
        else:
            when = start + timedelta(hours=6 * (i // 20), minutes=i % 20)
        out.append(
            {
                "content": f"{item} waits on {', '.join(deps[item])} (update {i})",
                "author": person,
                "occurred_at": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "graph": "web",
                "source": f"web/{i}.md",
                "facts": facts,
            }
        )
    return out, roots, deps


def transitive(deps: dict[str, list[str]], roots: list[str]) -> dict[str, set[str]]:
    """Every root's true transitive dependents (work items), from the generated waits."""
    waiters: dict[str, set[str]] = {}
    for item, on in deps.items():
        for b in on:
            waiters.setdefault(b, set()).add(item)
    out: dict[str, set[str]] = {}
    for r in roots:
        seen: set[str] = set()
        todo = [r]
        while todo:
            for w in waiters.get(todo.pop(), ()):
                if w not in seen:
                    seen.add(w)
                    todo.append(w)
        out[r] = seen
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--episodes", type=int, default=1000)
    parser.add_argument("--foundations", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--years", type=float, default=10.0, help="time the updates span")
    parser.add_argument(
        "--window", default=None, help="opt in to the episode-gap window (e.g. 28d)"
    )
    args = parser.parse_args()
    episodes, roots, deps = build(args.episodes, args.foundations, args.seed, args.years)
    truth = transitive(deps, roots)
    with tempfile.TemporaryDirectory() as tmp:
        with Store(Path(tmp) / "web.db") as store:
            text = "\n".join(json.dumps(e) for e in episodes)
            t0 = time.perf_counter()
            report = api.ingest(store, [SourceText("web.jsonl", text, "2026-09-01T00:00:00Z")])
            t1 = time.perf_counter()
            controls = cluster.Controls(
                window_seconds=float(args.window.rstrip("d")) * 86400 if args.window else None
            )
            result = api.analyze(store, "web", controls=controls)
            t2 = time.perf_counter()
            observations = api.observations(store, "web")
    per_root = [o for o in observations if o["kind"] in ("dependency_chain", "stale_blocker")]
    print(f"episodes: {report.episodes_new}, facts: {report.facts_new}, years: {args.years:g}")
    print(f"ingest: {t1 - t0:.2f} s ({report.episodes_new / (t1 - t0):,.0f} episodes/s)")
    print(f"analyze: {t2 - t1:.2f} s (in-run {result.seconds:.2f} s), {result.clusters} clusters")
    print()
    print("| root | kind | direct | transitive work items (true) | people | episodes |")
    print("|---|---|---|---|---|---|")
    exact = 0
    for o in per_root:
        ents = o["entities"]
        direct = sum(1 for e in ents if e["role"] == "direct" and e["type"] == "work_item")
        found = {e["name"] for e in ents if e["role"] in ("direct", "downstream")}
        found_work = {
            e["name"]
            for e in ents
            if e["role"] in ("direct", "downstream") and e["type"] == "work_item"
        }
        people = sum(1 for e in ents if e["type"] == "person")
        root = ", ".join(o["root_entities"])
        true = truth.get(root, set())
        exact += found_work == true
        print(
            f"| {root} | {o['kind']} | {direct} | {len(found_work)} ({len(true)}) | {people} "
            f"| {len(o['episodes'])} |"
        )
        del found
    by_root: dict[str, int] = {}
    for o in per_root:
        for r in o["root_entities"]:
            by_root[r] = by_root.get(r, 0) + 1
    kinds: dict[str, int] = {}
    for o in observations:
        kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
    missing = [r for r in roots if r not in by_root]
    extra = [r for r in by_root if r not in roots]
    split = [r for r, n in by_root.items() if n > 1]
    largest = max((len(truth[r]) for r in roots), default=0)
    print()
    print(
        f"observations: {len(observations)} ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}); "
        f"per-root observations: {len(per_root)} for {len(by_root)} roots; "
        f"largest transitive dependents: {largest}; exact cones: {exact}/{len(per_root)}"
    )
    print(
        f"foundations named as roots: {len(roots) - len(missing)}/{len(roots)}; other roots: "
        f"{len(extra)}; roots split over several observations: {len(split)}"
    )
    ok = not missing and not extra and not split and exact == len(per_root) and (t2 - t1) < 2.0
    print(
        "target met" if ok else f"target MISSED (missing {missing}, extra {extra}, split {split})"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
