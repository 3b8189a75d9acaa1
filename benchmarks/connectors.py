"""Connector throughput: `memcli ingest --from github|jira|slack` in a real process.

Generates exports in each format's documented shape (seeded, so every run reads the same
files), ingests each into a fresh database and prints records per second; then ingests a
large generated GitHub tracker export (default 50,000 issues, in dependency groups: a
root, two issues blocked by it, one blocked downstream, one on its own; a tenth of the
roots closed) and times `memcli analyze` on it.

    python benchmarks/connectors.py                  # 2,000 records per format + 50k issues
    python benchmarks/connectors.py --records 500 --issues 5000
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "out" / "connectors"
START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
WORDS = ["ledger", "invoice", "refund", "checkout", "payout", "tax", "receipt", "vault", "fraud"]
NOUNS = ["export", "service", "migration", "report", "dashboard", "webhook", "cache", "queue"]
PEOPLE = [f"dev{i:03d}" for i in range(200)]


def _iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def _title(rng: random.Random, n: int) -> str:
    return f"{rng.choice(WORDS).title()} {rng.choice(NOUNS)} part {n}"


def github_export(issues: int, seed: int = 7, repo: str = "acme/big") -> list[dict[str, Any]]:
    """gh issue list --json shaped issues in dependency groups of five."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n in range(1, issues + 1):
        group, pos = divmod(n - 1, 5)
        root = group * 5 + 1
        created = START + timedelta(minutes=7 * n)
        author, owner = rng.choice(PEOPLE), rng.choice(PEOPLE)
        issue: dict[str, Any] = {
            "number": n,
            "title": _title(rng, n),
            "state": "OPEN",
            "stateReason": None,
            "author": {"login": author, "is_bot": False},
            "assignees": [{"login": owner}],
            "createdAt": _iso(created),
            "closedAt": None,
            "url": f"https://github.com/{repo}/issues/{n}",
            "body": f"The {rng.choice(WORDS)} {rng.choice(NOUNS)} needs this before release.",
            "comments": [],
        }
        if pos in (1, 2):
            issue["blockedBy"] = [
                {"number": root, "url": f"https://github.com/{repo}/issues/{root}"}
            ]
            issue["comments"].append(
                {
                    "author": {"login": owner},
                    "body": f"Still blocked by #{root}.",
                    "createdAt": _iso(created + timedelta(hours=5)),
                }
            )
        elif pos == 3:
            issue["blockedBy"] = [
                {"number": root + 1, "url": f"https://github.com/{repo}/issues/{root + 1}"}
            ]
        if pos == 0 and group % 10 == 9:
            issue.update(
                state="CLOSED",
                stateReason="COMPLETED",
                closedAt=_iso(created + timedelta(days=3)),
            )
        out.append(issue)
    return out


def jira_export(issues: int, seed: int = 8) -> dict[str, Any]:
    rng = random.Random(seed)
    blocks = {"name": "Blocks", "inward": "is blocked by", "outward": "blocks"}
    out = []
    for n in range(1, issues + 1):
        group, pos = divmod(n - 1, 4)
        root = group * 4 + 1
        links = []
        if pos in (1, 2):
            links.append({"type": blocks, "inwardIssue": {"key": f"BIG-{root}"}})
        created = START + timedelta(minutes=11 * n)
        who = {"displayName": rng.choice(PEOPLE).title()}
        out.append(
            {
                "key": f"BIG-{n}",
                "fields": {
                    "summary": _title(rng, n),
                    "created": created.strftime("%Y-%m-%dT%H:%M:%S.000+0000"),
                    "resolutiondate": None,
                    "resolution": None,
                    "status": {"name": "In Progress", "statusCategory": {"key": "indeterminate"}},
                    "assignee": who,
                    "reporter": who,
                    "description": {
                        "type": "doc",
                        "version": 1,
                        "content": [
                            {
                                "type": "paragraph",
                                "content": [
                                    {"type": "text", "text": f"Work on the {rng.choice(NOUNS)}."}
                                ],
                            }
                        ],
                    },
                    "issuelinks": links,
                    "comment": {"comments": []},
                },
            }
        )
    return {"startAt": 0, "maxResults": issues, "total": issues, "issues": out}


def slack_export(root: Path, messages: int, seed: int = 9) -> None:
    rng = random.Random(seed)
    users = [
        {"id": f"U{i:04d}", "name": p, "profile": {"display_name": p.title()}}
        for i, p in enumerate(PEOPLE)
    ]
    root.mkdir(parents=True, exist_ok=True)
    (root / "users.json").write_text(json.dumps(users))
    (root / "channels.json").write_text(json.dumps([{"id": "C1", "name": "eng"}]))
    days: dict[str, list[dict[str, Any]]] = {}
    for n in range(messages):
        t = START + timedelta(minutes=13 * n)
        thing = f"the {rng.choice(WORDS)} {rng.choice(NOUNS)}"
        text = rng.choice(
            [
                f"{thing.capitalize()} is blocked by the {rng.choice(WORDS)} rollout.",
                f"Shipped {thing} today, thanks <@U{rng.randrange(200):04d}>.",
                f"Reviewing {thing} this afternoon.",
            ]
        )
        days.setdefault(t.strftime("%Y-%m-%d"), []).append(
            {
                "type": "message",
                "user": f"U{rng.randrange(200):04d}",
                "ts": f"{t.timestamp():.6f}",
                "text": text,
            }
        )
    (root / "eng").mkdir(exist_ok=True)
    for day, msgs in days.items():
        (root / "eng" / f"{day}.json").write_text(json.dumps(msgs))


def memcli(db: Path, *args: str) -> float:
    env = {**os.environ, "MEMCLI_DB": str(db), "MEMCLI_HOME": str(db.parent / "home")}
    t0 = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memcli", *args], env=env, check=True, capture_output=True
    )
    return time.perf_counter() - t0


def fresh(out: Path, name: str) -> Path:
    db = out / f"{name}.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--records", type=int, default=2000, help="records per format for the rate")
    parser.add_argument(
        "--issues", type=int, default=50_000, help="issues in the large export (0: skip)"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="where exports and databases go")
    args = parser.parse_args()
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    # Just above the largest file: read_path reads (limit + 1) bytes in one call.
    big = str(512 * 1024 * 1024)
    rows = []
    gh = out / f"github-{args.records}.json"
    gh.write_text(json.dumps(github_export(args.records)))
    jr = out / f"jira-{args.records}.json"
    jr.write_text(json.dumps(jira_export(args.records)))
    sl = out / f"slack-{args.records}"
    slack_export(sl, args.records)
    for fmt, path in (("github", gh), ("jira", jr), ("slack", sl)):
        seconds = memcli(
            fresh(out, fmt), "ingest", "--from", fmt, "-q", "--max-bytes", big, str(path)
        )
        rows.append((fmt, args.records, seconds))
    print("| format | records | ingest s | records/s |")
    print("|---|---:|---:|---:|")
    for fmt, n, s in rows:
        print(f"| {fmt} | {n:,} | {s:.1f} | {n / s:,.0f} |")
    if args.issues:
        path = out / f"github-{args.issues}.json"
        path.write_text(json.dumps(github_export(args.issues)))
        db = fresh(out, "github-large")
        ingest_s = memcli(db, "ingest", "--from", "github", "-q", "--max-bytes", big, str(path))
        analyze_s = memcli(db, "analyze", "-g", "default")
        again_s = memcli(db, "ingest", "--from", "github", "-q", "--max-bytes", big, str(path))
        print()
        print(f"{args.issues:,}-issue GitHub export ({path.stat().st_size / 1e6:.1f} MB):")
        print(f"  ingest   {ingest_s:.1f} s ({args.issues / ingest_s:,.0f} issues/s)")
        print(f"  analyze  {analyze_s:.1f} s")
        print(f"  re-ingest (all duplicates) {again_s:.1f} s")


if __name__ == "__main__":
    main()
