"""memcli report: the digest ranked by leverage, with what is new and what retired and why."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import SAMPLES, Cli, update


def test_sample_digest_names_the_blockers_with_evidence(cli: Cli) -> None:
    cli("ingest", str(SAMPLES))
    cli("analyze")
    md = cli("report", "--graph", "orbit").stdout
    assert md.startswith("# orbit: what to act on\n")
    assert "2 blockers to clear. First report: everything is new." in md
    assert "1. **Unblock the Kafka upgrade** (owned by the platform team) · **new**" in md
    assert "2. **Unblock the SSO rollout** (owned by the identity team) · **new**" in md
    assert (
        "Clears 6: 3 people (Omar, Sofia and Wei) and 3 work items "
        "(event replay tool, metrics pipeline and usage dashboard)" in md
    )
    assert "Waiting on it: event replay tool (Omar); metrics pipeline (Sofia)" in md
    assert "Downstream: usage dashboard (Wei), via metrics pipeline" in md
    assert "#6 Sofia 2026-11-11 `" in md and "2026-11-11-sofia.md`" in md
    assert "## New\n\n- #1 Kafka upgrade blocking multiple workstreams" in md
    assert "## Retired\n\n- None." in md
    assert "\x1b[" not in md  # plain text, pastes anywhere
    # Noise (Jonas, Ravi, Kim, Tom, Ana) never reaches the digest.
    for name in ("Jonas", "Ravi", "Kim", "Tom", "Ana", "billing"):
        assert name not in md

    # The last report is remembered: nothing is new the second time.
    again = cli("report", "--graph", "orbit").stdout
    assert "Changes since the last report (" in again
    assert "## New since the last report" in again and "- None." in again


def test_json_matches_the_observations(cli: Cli) -> None:
    cli("ingest", str(SAMPLES))
    cli("analyze")
    data = json.loads(cli("report", "--graph", "orbit", "--format", "json", "--no-record").stdout)
    same = json.loads(cli("report", "--graph", "orbit", "--json", "--no-record").stdout)
    assert {**same, "generated_at": data["generated_at"]} == data
    observations = {o["id"]: o for o in cli.json("observations", "--graph", "orbit")}
    assert [a["observation_id"] for a in data["act_on"]] == [1, 2]
    for item in data["act_on"]:
        obs = observations[item["observation_id"]]
        counted = len(item["people"]) + len(item["teams"]) + len(item["work_items"])
        assert item["leverage"] == obs["rank"] == counted
        assert [e["episode_id"] for e in item["evidence"]] == [e["id"] for e in obs["episodes"]]
        assert item["fact_ids"] == [f["id"] for f in obs["facts"]]
    assert data["since_source"] == "first report" and data["since"] is None


def test_since_and_no_record_do_not_move_the_mark(cli: Cli, atlas: Path) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    old = cli("report", "--graph", "project-atlas", "--since", "2099-01-01").stdout
    assert "Changes since 2099-01-01 00:00:00 UTC" in old and "## New since 2099" in old
    cli("report", "--graph", "project-atlas", "--no-record")
    fresh = json.loads(cli("report", "--graph", "project-atlas", "--json").stdout)
    assert fresh["since_source"] == "first report" and fresh["new"]
    after = json.loads(cli("report", "--graph", "project-atlas", "--json").stdout)
    assert after["since_source"] == "last report" and after["new"] == []
    assert after["previous_report_at"] == fresh["generated_at"]
    bad = cli("report", "--graph", "project-atlas", "--since", "last tuesday", ok=False)
    assert bad.exit_code == 2 and "ISO 8601" in bad.stderr
    missing = cli("report", "--graph", "nope", ok=False)
    assert missing.exit_code == 1 and "no graph named" in missing.stderr


def test_retired_since_the_last_report_says_why(
    cli: Cli, atlas: Path, write: Callable[..., Path]
) -> None:
    cli("ingest", str(atlas))
    cli("analyze")
    cli("report", "--graph", "project-atlas")  # the mark
    # More work waits on the refactor (a bigger pattern), and a separate, smaller one forms.
    for name, who, day, text in [
        (
            "dana.md",
            "Dana",
            "2026-11-07T10:00:00Z",
            "The search rewrite is blocked on the auth service refactor.",
        ),
        ("eve.md", "Eve", "2026-11-07T11:00:00Z", "The docs site is blocked on the CMS migration."),
        (
            "finn.md",
            "Finn",
            "2026-11-08T11:00:00Z",
            "The blog relaunch is waiting on the CMS migration.",
        ),
    ]:
        cli("ingest", str(write(name, update(who, day, text))))
    cli("analyze")
    data = json.loads(cli("report", "--graph", "project-atlas", "--json").stdout)
    assert [(a["root"], a["leverage"]) for a in data["act_on"]] == [
        ("auth service refactor", 8),
        ("CMS migration", 4),
    ]
    assert [a["change"] for a in data["act_on"]] == ["updated", "new"]
    assert [u["name"] for u in data["updated"]] == [
        "Auth service refactor blocking multiple workstreams"
    ]

    shipped = write(
        "shipped.md",
        update(
            "Erik", "2026-11-09T10:00:00Z", "The backend team shipped the auth service refactor."
        ),
    )
    cli("ingest", str(shipped))
    cli("analyze")
    md = cli("report", "--graph", "project-atlas").stdout
    retired = md.split("## Retired since the last report")[1]
    assert "- #1 Auth service refactor blocking multiple workstreams: root resolved: " in retired
    assert "auth service refactor was completed in episode #7" in retired
    assert f"Evidence: #7 Erik 2026-11-09 `{shipped}`" in retired
    assert "Superseded by #3" in retired
    assert "1. **Unblock the CMS migration** · **" not in md  # ranked, not just listed
    act = md.split("## Act on first")[1].split("## New")[0]
    assert act.index("CMS migration") < act.index("payments integration")


def _facts_update(author: str, day: int, facts: list[tuple[str, str, str, str, str]]) -> str:
    """One JSONL update stating ``facts`` (source, relation, target, source type, target
    type) outright, so a test can build a large graph without prose."""
    return json.dumps(
        {
            "source": f"{author.lower()}-{day}",
            "author": author,
            "occurred_at": f"2026-03-{day:02d}T09:00:00Z",
            "graph": "wide",
            "content": f"Status from {author}.",
            "facts": [
                {"source": s, "relation": r, "target": t, "source_type": st, "target_type": tt}
                for s, r, t, st, tt in facts
            ],
        }
    )


def test_a_large_report_stays_bounded_and_counts_teams_apart(
    cli: Cli, write: Callable[..., Path]
) -> None:
    lines = []
    # One hub: 14 items wait on the storage swap, each reported by its own person, and the
    # data team's export waits too; 12 downstream items hang off the first item.
    for i in range(14):
        lines.append(
            _facts_update(
                f"Person{i:02d}",
                1 + i % 20,
                [
                    (f"hub item {i:02d}", "blocked_by", "storage swap", "work_item", "work_item"),
                    (f"Person{i:02d}", "owns", f"hub item {i:02d}", "person", "work_item"),
                ],
            )
        )
    lines.append(
        _facts_update(
            "Dana",
            3,
            [
                ("data export", "blocked_by", "storage swap", "work_item", "work_item"),
                ("data team", "owns", "data export", "team", "work_item"),
            ],
        )
    )
    for j in range(12):
        lines.append(
            _facts_update(
                f"Helper{j:02d}",
                5,
                [(f"leaf {j:02d}", "blocked_by", "hub item 00", "work_item", "work_item")],
            )
        )
    # Twelve small blockers elsewhere: two items each, from two people.
    for k in range(12):
        for side in ("a", "b"):
            lines.append(
                _facts_update(
                    f"Side{k:02d}{side}",
                    10,
                    [
                        (
                            f"side {k:02d}{side}",
                            "blocked_by",
                            f"small root {k:02d}",
                            "work_item",
                            "work_item",
                        )
                    ],
                )
            )
    cli("ingest", str(write("wide.jsonl", "\n".join(lines) + "\n")))
    cli("analyze", "--graph", "wide")
    md = cli("report", "--graph", "wide", "--no-record").stdout
    data = json.loads(cli("report", "--graph", "wide", "--json", "--no-record").stdout)

    top = data["act_on"][0]
    assert top["root"] == "storage swap"
    assert top["teams"] == ["data team"] and "data team" not in top["people"]
    assert len(top["people"]) == 14 and len(top["work_items"]) == 27
    assert top["leverage"] == 14 + 1 + 27
    # People and teams are counted apart, each noun agreeing with its number.
    assert (
        "Clears 42: 14 people (Person00, Person01, Person02, Person03, Person04 and 9 more), " in md
    )
    assert "1 team (the data team) and 27 work items (" in md
    # Long lists are cut, and say how to see the rest.
    assert "; and 10 more" in md  # 15 waiting directly, 5 shown
    assert "   - Downstream: 7 more (`memcli observation show " in md
    assert md.count("   - Downstream: leaf") == 5
    # 13 blockers: the first 10 in full, the rest one line each.
    assert len(data["act_on"]) == 13
    assert "_The first 10 are in full; 3 more are one line each." in md
    assert md.count("   - Evidence: ") == 10
    assert "13. **Unblock the " in md and ": clears 2; `memcli observation show " in md
    # The JSON keeps everything.
    assert len(top["direct"]) == 15 and len(top["downstream"]) == 12
    assert len(top["evidence"]) == 27
