"""A week of one team's status updates, end to end: does memcli name the week's blockers?

``week/updates/`` holds 72 Markdown updates of one product team and two neighbouring
teams over five days (standups, chat, two weekly reports, minutes, issue comments),
written blind by someone who never read memcli's code, around a hidden structure that
``week/ANSWER.md`` describes and ``week/answer.json`` holds as data: three root
blockers (one holding up five people's work, some two hops away, under many names;
one holding up two; one finished on Thursday), a handover, and decoys.

The script ingests the week with this tree's CLI into a new database, analyzes it, and
prints:

* for each true root, whether an active observation names it as its root, whom that
  observation names as held up against the people truly held up, and whether it should
  still be active on Friday evening;
* the active observations that match no true root;
* fact recall against each update's facts (``answer.json`` ``facts``; items may be
  named by any of their names, people by their first name), and the precision of the
  waits read (``blocked_by`` and ``unblocked_from``: the key lists the facts of the
  week's structure and leaves out side work finished or picked up, so a precision over
  every fact would count those as invented).

``week2/`` is a second week in the same layout, written blind by someone else: a
warehouse systems team and two neighbouring teams, 71 updates (``--week benchmarks/week2``).

Usage: ``python benchmarks/week.py [--week DIR] [--db FILE] [--json]``. Offline, a few seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
WEEK = HERE / "week"
sys.path.insert(0, str(HERE))

from reader_eval import same_name  # noqa: E402


def memcli(db: Path, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-m", "memcli", "--db", str(db), *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,
    )
    return run.stdout


def _names(answer: dict[str, Any], name: str) -> list[str]:
    """Every fair name of an item id, or a person's full and first name."""
    if name in answer["items"]:
        return list(answer["items"][name])
    return [name, name.split()[0]]


def _is(answer: dict[str, Any], predicted: str, gold: str) -> bool:
    names = _names(answer, gold)
    return same_name(predicted, names[0], names[1:])


def score_roots(answer: dict[str, Any], observations: list[dict[str, Any]]) -> dict[str, Any]:
    """Each true root against the active observations (see the module's docstring)."""
    active = [o for o in observations if o["status"] == "active"]
    rows = []
    matched: set[int] = set()
    for root in answer["roots"]:
        found = [o for o in active if any(_is(answer, r, root["item"]) for r in o["root_entities"])]
        matched |= {o["id"] for o in found}
        named = {
            e["name"]
            for o in found
            for e in o["entities"]
            if e["type"] == "person" and e["role"] in ("direct", "downstream")
        }
        held = root["people"]
        hits = [p for p in held if any(_is(answer, n, p) for n in named)]
        rows.append(
            {
                "root": answer["items"][root["item"]][0],
                "should_be_active": root["blocking_on_friday"],
                "observations": [o["name"] for o in found],
                "people_held_up": len(held),
                "people_named": len(hits),
                "people_missed": [p for p in held if p not in hits],
                "others_named": sorted(
                    n for n in named if not any(_is(answer, n, p) for p in held)
                ),
            }
        )
    spurious = [o["name"] for o in active if o["id"] not in matched]
    return {"roots": rows, "spurious": spurious}


def score_facts(answer: dict[str, Any], episodes: list[dict[str, Any]]) -> dict[str, Any]:
    """Recall of each update's facts; precision of the waits read (see the docstring)."""
    tp = fn = waits = waits_right = 0
    by_file = {Path(e["source"]).name: e for e in episodes}
    for name, gold in answer["facts"].items():
        left = list(gold)
        for f in by_file[name]["facts"]:
            s, rel, t = f["source"], f["relation"], f["target"]
            hit = next(
                (g for g in left if g[1] == rel and _is(answer, s, g[0]) and _is(answer, t, g[2])),
                None,
            )
            if rel in ("blocked_by", "unblocked_from"):
                waits += 1
                waits_right += hit is not None
            if hit is not None:
                tp += 1
                left.remove(hit)
        fn += len(left)
    return {
        "gold": tp + fn,
        "matched": tp,
        "recall": tp / (tp + fn) if tp + fn else None,
        "waits_read": waits,
        "waits_right": waits_right,
        "waits_precision": waits_right / waits if waits else None,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="keep the database here (default: a temporary one)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--week",
        type=Path,
        default=WEEK,
        help="another week in the same layout: updates/ and answer.json (default: week/)",
    )
    args = parser.parse_args(argv)
    answer = json.loads((args.week / "answer.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "week.db"
        if db.exists():
            sys.exit(f"{db} exists: give a new file")
        memcli(db, "ingest", str(args.week / "updates"), "--graph", "week", "--quiet")
        memcli(db, "analyze", "--graph", "week")
        observations = json.loads(
            memcli(db, "observations", "--graph", "week", "--json", "-n", "0")
        )
        episodes = json.loads(memcli(db, "episodes", "--graph", "week", "--json", "-n", "0"))
    result = {**score_roots(answer, observations), "facts": score_facts(answer, episodes)}
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
        return 0
    print(f"{len(episodes)} updates, {len(observations)} observations\n")
    print("| true root | should be active | observations naming it | people held up named |")
    print("|---|---|---|---|")
    for r in result["roots"]:
        found = "; ".join(r["observations"]) or "**none**"
        missed = f" (missed: {', '.join(r['people_missed'])})" if r["people_missed"] else ""
        print(
            f"| {r['root']} | {'yes' if r['should_be_active'] else 'no'} | {found} | "
            f"{r['people_named']} of {r['people_held_up']}{missed} |"
        )
    print(f"\nActive observations naming no true root: {len(result['spurious'])}")
    for name in result["spurious"]:
        print(f"  - {name}")
    f = result["facts"]
    recall = "-" if f["recall"] is None else f"{f['recall']:.2f}"
    precision = "-" if f["waits_precision"] is None else f"{f['waits_precision']:.2f}"
    print(
        f"\nFacts stated: {f['gold']}, read right: {f['matched']} (recall {recall}); "
        f"waits read: {f['waits_read']}, right: {f['waits_right']} (precision {precision})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
