"""Golden scenarios for the patterns beyond one dependency chain, and for identity by
root over time: deadlocks, owner bottlenecks, stale blockers, critical paths, one
observation per root however long it lives, and time travel (--as-of, report --since).
Every update here is invented for these tests and ingested through the CLI as JSONL."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memcli.writer import MAX_SUMMARY
from tests.conftest import Cli


def wait(item: str, on: str) -> dict[str, str]:
    return {"source": item, "relation": "blocked_by", "target": on}


def owns(owner: str, item: str, kind: str = "person") -> dict[str, str]:
    return {"source": owner, "source_type": kind, "relation": "owns", "target": item}


def done(item: str, by: str) -> dict[str, str]:
    return {"source": by, "source_type": "person", "relation": "completed", "target": item}


def update(author: str, when: str | datetime, facts: list[dict[str, str]], source: str) -> dict:
    if isinstance(when, datetime):
        when = when.strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "content": f"Status from {author}.",
        "author": author,
        "occurred_at": when,
        "graph": "g",
        "source": source,
        "facts": facts,
    }


def ingest(cli: Cli, tmp_path: Path, name: str, rows: list[dict]) -> None:
    path = tmp_path / name
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    cli("ingest", str(path))


def observations(cli: Cli, *args: str) -> list[dict[str, Any]]:
    return cli.json("observations", "--graph", "g", "--limit", "0", *args)


def of_kind(rows: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [o for o in rows if o["kind"] == kind]


# --- identity by root over time -----------------------------------------------------

START = datetime(2025, 1, 6, 9, tzinfo=UTC)
PEOPLE = ["Ada", "Bram", "Cleo", "Dev", "Esme"]


def long_running(n: int = 10, weeks: int = 5) -> list[dict]:
    """One root named in ``n`` updates ``weeks`` apart; nobody says it shipped."""
    return [
        update(
            PEOPLE[i % len(PEOPLE)],
            START + timedelta(weeks=weeks * i),
            [wait(f"rollout step {i}", "vendor contract")],
            f"long/{i}.md",
        )
        for i in range(n)
    ]


def test_long_running_blocker_is_one_observation_holding_all_ten(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "long.jsonl", long_running())
    cli("analyze")
    rows = observations(cli)
    assert [o["kind"] for o in rows] == ["dependency_chain"]
    [obs] = rows
    assert obs["root_entities"] == ["vendor contract"]
    assert len(obs["episodes"]) == 10
    blocked = {e["name"] for e in obs["entities"] if e["role"] == "direct"}
    assert blocked == {f"rollout step {i}" for i in range(10)}
    assert obs["stale"] is False
    assert obs["confirmed_at"] == obs["latest_evidence_at"]


def test_window_is_an_explicit_opt_in_that_still_splits(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "long.jsonl", long_running())
    cli("analyze", "--window", "28d")
    # five weeks apart is over 28 days: every update is its own episode of the pattern
    assert observations(cli) == []


def test_unconfirmed_root_goes_stale_in_place_and_comes_back(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "long.jsonl", long_running())
    cli("analyze")
    [before] = observations(cli)
    last = START + timedelta(weeks=45)
    # Six weeks later the graph hears about other work only.
    ingest(
        cli,
        tmp_path,
        "later.jsonl",
        [update("Zoe", last + timedelta(weeks=6), [wait("intake form", "legal review")], "z.md")],
    )
    cli("analyze")
    rows = observations(cli)
    [stale] = of_kind(rows, "stale_blocker")
    assert stale["id"] == before["id"]  # the same observation, not a new one
    assert stale["version"] == 2
    assert stale["stale"] is True
    assert stale["confirmed_at"] == last.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert stale["rank"] < before["rank"]
    assert "Nobody has confirmed it since 2025-11-17" in stale["summary"]
    assert len(stale["summary"]) <= MAX_SUMMARY
    history = cli.json("observation", "history", str(stale["id"]))
    assert [h["kind"] for h in history] == ["dependency_chain", "stale_blocker"]

    # Someone restates the wait: confirmed again, still the same observation.
    ingest(
        cli,
        tmp_path,
        "again.jsonl",
        [
            update(
                "Ada",
                last + timedelta(weeks=7),
                [wait("rollout step 3", "vendor contract")],
                "again.md",
            )
        ],
    )
    cli("analyze")
    [fresh] = of_kind(observations(cli), "dependency_chain")
    assert fresh["id"] == before["id"]
    assert fresh["stale"] is False


def test_stale_after_none_never_marks_stale(cli: Cli, tmp_path: Path) -> None:
    rows = long_running()
    rows.append(update("Zoe", START + timedelta(weeks=60), [wait("x", "y")], "z.md"))
    ingest(cli, tmp_path, "long.jsonl", rows)
    cli("analyze", "--stale-after", "none")
    assert [o["kind"] for o in observations(cli)] == ["dependency_chain"]


def test_size_cap_never_splits_one_roots_dependents(cli: Cli, tmp_path: Path) -> None:
    # A chain root <- mid <- leaves, each update in its own words: with a cap of 3
    # episodes per cluster the component is split, but the root keeps every dependent.
    rows = [update("Ada", "2026-02-02T09:00:00Z", [wait("mid layer", "core schema")], "0.md")]
    rows += [
        update(
            PEOPLE[i % 5],
            f"2026-02-{3 + i:02d}T09:00:00Z",
            [wait(f"leaf {i}", "mid layer")],
            f"{i + 1}.md",
        )
        for i in range(6)
    ]
    ingest(cli, tmp_path, "cap.jsonl", rows)
    cli("analyze", "--max-cluster", "3")
    [obs] = of_kind(observations(cli), "dependency_chain")
    assert obs["root_entities"] == ["core schema"]
    names = {e["name"] for e in obs["entities"] if e["role"] in ("direct", "downstream")}
    assert names == {"mid layer"} | {f"leaf {i}" for i in range(6)}


# --- dependency_cycle -----------------------------------------------------------------


def deadlock() -> list[dict]:
    return [
        update(
            "Ann",
            "2026-03-02T10:00:00Z",
            [wait("ledger export", "audit pipeline"), owns("Ann", "ledger export")],
            "a.md",
        ),
        update(
            "Ben",
            "2026-03-03T10:00:00Z",
            [wait("audit pipeline", "ledger export"), owns("Ben", "audit pipeline")],
            "b.md",
        ),
        update(
            "Cat",
            "2026-03-04T10:00:00Z",
            [wait("tax report", "ledger export"), owns("Cat", "tax report")],
            "c.md",
        ),
    ]


def test_deadlock_is_named_with_everyone_behind_it(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "dead.jsonl", deadlock())
    cli("analyze")
    rows = observations(cli)
    [obs] = of_kind(rows, "dependency_cycle")
    assert sorted(obs["root_entities"]) == ["audit pipeline", "ledger export"]
    assert obs["name"] == "Deadlock: audit pipeline and ledger export wait on each other"
    summary = obs["summary"]
    assert "the ledger export waits on the audit pipeline" in summary
    assert "neither can finish first" in summary
    assert "Cat's tax report (one workstream)" in summary
    roles = {(e["name"], e["role"]) for e in obs["entities"]}
    assert ("tax report", "direct") in roles
    assert ("Cat", "direct") in roles
    assert [e["author"] for e in obs["episodes"]] == ["Ann", "Ben", "Cat"]
    assert {f["relation"] for f in obs["facts"]} == {"blocked_by", "owns"}
    # the report has a place for it
    report = cli.json("report", "--graph", "g", "--no-record")
    assert [d["observation_id"] for d in report["deadlocks"]] == [obs["id"]]
    md = cli("report", "--graph", "g", "--no-record").stdout
    assert "## Deadlocks" in md and "Deadlock: audit pipeline and ledger export" in md


def test_cycle_beside_a_root_breaks_neither_walk_nor_ranking(cli: Cli, tmp_path: Path) -> None:
    rows = deadlock()
    # The cycle also waits on a real root, which others wait on too.
    rows.append(
        update(
            "Dan",
            "2026-03-05T10:00:00Z",
            [wait("ledger export", "ledger db"), wait("invoice run", "ledger db")],
            "d.md",
        )
    )
    ingest(cli, tmp_path, "dead.jsonl", rows)
    cli("analyze")
    rows_out = observations(cli)
    [chain] = of_kind(rows_out, "dependency_chain")
    assert chain["root_entities"] == ["ledger db"]
    waiting = {e["name"] for e in chain["entities"] if e["role"] in ("direct", "downstream")}
    assert {"ledger export", "invoice run", "audit pipeline", "tax report"} <= waiting
    assert len(of_kind(rows_out, "dependency_cycle")) == 1
    ranks = [o["rank"] for o in rows_out]
    assert ranks == sorted(ranks, reverse=True)


def test_breaking_the_cycle_retires_it_with_a_reason(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "dead.jsonl", deadlock())
    cli("analyze")
    [obs] = of_kind(observations(cli), "dependency_cycle")
    ingest(
        cli,
        tmp_path,
        "fix.jsonl",
        [update("Ben", "2026-03-09T10:00:00Z", [done("audit pipeline", "Ben")], "fix.md")],
    )
    cli("analyze")
    assert of_kind(observations(cli), "dependency_cycle") == []
    [gone] = cli.json("observations", "--graph", "g", "--status", "retired")
    assert gone["id"] == obs["id"]
    assert gone["retire_reason"].startswith("root resolved: audit pipeline was completed")


# --- owner_bottleneck -----------------------------------------------------------------


def two_roots_one_owner() -> list[dict]:
    return [
        update(
            "Dana",
            "2026-04-01T09:00:00Z",
            [wait("mobile app", "payments api"), owns("platform team", "payments api", "team")],
            "1.md",
        ),
        update("Eli", "2026-04-02T09:00:00Z", [wait("web checkout", "payments api")], "2.md"),
        update(
            "Fay",
            "2026-04-03T09:00:00Z",
            [wait("reports page", "search index"), owns("platform team", "search index", "team")],
            "3.md",
        ),
        update("Gus", "2026-04-04T09:00:00Z", [wait("admin console", "search index")], "4.md"),
    ]


def test_owner_of_two_root_blockers_is_a_bottleneck(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "own.jsonl", two_roots_one_owner())
    cli("analyze")
    rows = observations(cli)
    assert len(of_kind(rows, "dependency_chain")) == 2
    [obs] = of_kind(rows, "owner_bottleneck")
    assert obs["name"] == "The platform team owns two root blockers"
    assert sorted(obs["root_entities"]) == ["payments api", "search index"]
    assert "In all, four workstreams are waiting on them." in obs["summary"]
    assert [e["name"] for e in obs["entities"] if e["role"] == "owner"] == ["platform team"]
    assert len(obs["episodes"]) == 4
    report = cli.json("report", "--graph", "g", "--no-record")
    assert [b["observation_id"] for b in report["bottlenecks"]] == [obs["id"]]


def test_one_root_is_no_bottleneck(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "own.jsonl", two_roots_one_owner()[:2])
    cli("analyze")
    assert of_kind(observations(cli), "owner_bottleneck") == []


# --- critical_path --------------------------------------------------------------------


def chain(hops: int) -> list[dict]:
    items = ["launch plan", "pricing page", "billing rules", "tax engine", "vendor contract"]
    return [
        update(
            PEOPLE[i], f"2026-05-{i + 1:02d}T09:00:00Z", [wait(items[i], items[i + 1])], f"{i}.md"
        )
        for i in range(hops)
    ]


def test_longest_chain_over_two_hops_is_a_critical_path(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "chain.jsonl", chain(4))
    cli("analyze")
    rows = observations(cli)
    [obs] = of_kind(rows, "critical_path")
    assert obs["name"] == "Critical path: four hops down to the vendor contract"
    assert obs["summary"].startswith(
        "The longest chain of waits is four hops: the launch plan waits on the pricing page,"
        " which waits on the billing rules, which waits on the tax engine, which waits on"
        " the vendor contract."
    )
    assert obs["root_entities"] == ["vendor contract"]
    assert len(obs["facts"]) == 4
    # the root blocker it ends in ranks above it
    assert rows[0]["kind"] == "dependency_chain"
    report = cli.json("report", "--graph", "g", "--no-record")
    assert [p["observation_id"] for p in report["critical_paths"]] == [obs["id"]]


def test_two_hops_is_no_critical_path(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "chain.jsonl", chain(2))
    cli("analyze")
    assert of_kind(observations(cli), "critical_path") == []


def test_summaries_of_new_kinds_stay_bounded(cli: Cli, tmp_path: Path) -> None:
    # a long cycle with many behind it, a long chain, an owner of many roots
    n = 30
    rows = [
        update(
            f"P{i}",
            f"2026-06-01T{i % 24:02d}:00:00Z",
            [wait(f"ring part {i} with a long name", f"ring part {(i + 1) % n} with a long name")],
            f"r{i}.md",
        )
        for i in range(n)
    ]
    rows += [
        update(
            f"Q{i}",
            "2026-06-02T09:00:00Z",
            [wait(f"waiting task {i}", "ring part 0 with a long name")],
            f"w{i}.md",
        )
        for i in range(n)
    ]
    rows += [
        update(
            f"S{i}",
            "2026-06-03T09:00:00Z",
            [wait(f"step {i} of a very long chain", f"step {i + 1} of a very long chain")],
            f"s{i}.md",
        )
        for i in range(n)
    ]
    for i in range(n):
        foundation = f"foundation {i}"
        rows.append(
            update(
                f"T{i}",
                "2026-06-04T09:00:00Z",
                [
                    wait(f"consumer {i} a", foundation),
                    owns("infrastructure group", foundation, "team"),
                ],
                f"t{i}.md",
            )
        )
        rows.append(
            update(
                f"U{i}", "2026-06-05T09:00:00Z", [wait(f"consumer {i} b", foundation)], f"u{i}.md"
            )
        )
    ingest(cli, tmp_path, "big.jsonl", rows)
    cli("analyze")
    out = observations(cli)
    kinds = {o["kind"] for o in out}
    assert {"dependency_cycle", "critical_path", "owner_bottleneck"} <= kinds
    for o in out:
        assert len(o["summary"]) <= MAX_SUMMARY, (o["kind"], len(o["summary"]))
    [ring] = of_kind(out, "dependency_cycle")
    assert len(ring["root_entities"]) == n
    [owner] = of_kind(out, "owner_bottleneck")
    assert owner["name"] == f"The infrastructure group owns {n} root blockers"


# --- time travel ----------------------------------------------------------------------


def test_as_of_shows_the_state_of_that_moment(cli: Cli, tmp_path: Path) -> None:
    ingest(cli, tmp_path, "dead.jsonl", deadlock())
    cli("analyze")
    ingest(
        cli,
        tmp_path,
        "fix.jsonl",
        [update("Ben", "2026-03-20T10:00:00Z", [done("audit pipeline", "Ben")], "fix.md")],
    )
    cli("analyze")
    [then] = cli.json("observations", "--graph", "g", "--as-of", "2026-03-10")
    assert then["kind"] == "dependency_cycle"
    assert then["status"] == "active"  # active then, though retired since
    assert then["status_now"] == "retired"
    text = cli("observations", "--graph", "g", "--as-of", "2026-03-10").stdout
    assert "active" in text and "retired" not in text.split("\n")[0]
    # once the audit pipeline shipped, the ledger export is a plain root blocker
    later = cli.json("observations", "--graph", "g", "--as-of", "2026-03-25")
    assert [o["kind"] for o in later] == ["dependency_chain"]
    assert later[0]["root_entities"] == ["ledger export"]
    assert cli.json("observations", "--graph", "g", "--as-of", "2026-03-01") == []


def test_report_since_is_world_time_unless_learned(cli: Cli, tmp_path: Path) -> None:
    # Everything is ingested today, but it happened in March.
    ingest(cli, tmp_path, "dead.jsonl", deadlock())
    cli("analyze")
    world = cli.json("report", "--graph", "g", "--since", "2026-04-01")
    assert world["clock"] == "world"
    assert world["new"] == []  # the deadlock began in March
    learned = cli.json("report", "--graph", "g", "--since", "2026-04-01", "--learned")
    assert learned["clock"] == "learned"
    assert [o["kind"] for o in learned["new"]] == ["dependency_cycle"]  # learned today
    march = cli.json("report", "--graph", "g", "--since", "2026-03-01")
    assert [o["kind"] for o in march["new"]] == ["dependency_cycle"]
    md = cli("report", "--graph", "g", "--since", "2026-04-01", "--learned").stdout
    assert "when memcli learned them" in md


def test_incremental_pass_marks_out_of_scope_roots_stale_like_a_full_pass(
    cli: Cli, tmp_path: Path
) -> None:
    # Many small unrelated patterns, so a new update's reach is well under half the
    # graph and analyze runs incrementally; the new update touches none of them, but
    # moves the graph's present on, so the vendor contract goes stale.
    rows = long_running(n=3, weeks=1)
    confirmed = START + timedelta(weeks=2)  # the vendor contract's last confirmation
    for i in range(12):
        at = confirmed + timedelta(days=10, hours=i)
        rows.append(update("Ada", at, [wait(f"task {i}", f"dep {i}")], f"x{i}.md"))
        rows.append(update("Bram", at, [wait(f"job {i}", f"dep {i}")], f"y{i}.md"))
    ingest(cli, tmp_path, "many.jsonl", rows)
    cli("analyze")
    assert of_kind(observations(cli), "stale_blocker") == []
    late = confirmed + timedelta(days=25)
    z = update("Zoe", late, [wait("intake form", "legal review")], "z.md")
    ingest(cli, tmp_path, "late.jsonl", [z])
    result = cli.json("analyze")
    assert result[0]["mode"] == "incremental"
    assert result[0]["episodes"] == 1  # the vendor contract's updates are not redone
    incremental = {(o["id"], o["name"], o["kind"], o["version"]) for o in observations(cli)}
    [stale] = of_kind(observations(cli), "stale_blocker")
    assert stale["root_entities"] == ["vendor contract"]
    cli("analyze", "--full", "--force")
    full = {(o["id"], o["name"], o["kind"], o["version"]) for o in observations(cli)}
    assert incremental == full


def test_incremental_pass_keeps_an_owners_roots_together(cli: Cli, tmp_path: Path) -> None:
    rows = two_roots_one_owner()
    for i in range(12):
        at = f"2026-04-{5 + i:02d}T09:00:00Z"
        rows.append(update("Ada", at, [wait(f"task {i}", f"dep {i}")], f"x{i}.md"))
        rows.append(update("Bram", at, [wait(f"job {i}", f"dep {i}")], f"y{i}.md"))
    ingest(cli, tmp_path, "own.jsonl", rows)
    cli("analyze")
    [before] = of_kind(observations(cli), "owner_bottleneck")
    more = update("Hana", "2026-04-20T09:00:00Z", [wait("partner portal", "payments api")], "h.md")
    ingest(cli, tmp_path, "more.jsonl", [more])
    assert cli.json("analyze")[0]["mode"] == "incremental"
    [after] = of_kind(observations(cli), "owner_bottleneck")
    assert after["id"] == before["id"]
    assert after["version"] == 2
    assert sorted(after["root_entities"]) == ["payments api", "search index"]
    assert "In all, five workstreams are waiting on them." in after["summary"]
    snapshot = {(o["id"], o["version"], o["summary"]) for o in observations(cli)}
    cli("analyze", "--full", "--force")
    assert {(o["id"], o["version"], o["summary"]) for o in observations(cli)} == snapshot


def platform_roots_and_filler() -> list[dict]:
    """The platform team owns two roots, one of them in a larger component (a chain of
    waits behind the payments api); a dozen small unrelated patterns keep any new
    update's reach well under half the graph, so analyze runs incrementally."""
    rows = two_roots_one_owner()
    for i, (who, item, on) in enumerate(
        [
            ("Ines", "gift cards", "web checkout"),
            ("Jon", "loyalty points", "gift cards"),
            ("Kim", "store credit", "web checkout"),
        ]
    ):
        rows.append(update(who, f"2026-04-0{5 + i}T09:00:00Z", [wait(item, on)], f"c{i}.md"))
    for i in range(12):
        at = f"2026-04-{8 + i:02d}T09:00:00Z"
        rows.append(update("Ada", at, [wait(f"task {i}", f"dep {i}")], f"x{i}.md"))
        rows.append(update("Bram", at, [wait(f"job {i}", f"dep {i}")], f"y{i}.md"))
    return rows


def test_incremental_pass_adds_a_new_root_to_its_owners_bottleneck(
    cli: Cli, tmp_path: Path
) -> None:
    # The new updates make a third root of the platform team's, in a component of its
    # own: the pass redoes only that component, yet the team's bottleneck must count
    # the two roots it does not redo as well as the new one.
    ingest(cli, tmp_path, "own.jsonl", platform_roots_and_filler())
    cli("analyze")
    [before] = of_kind(observations(cli), "owner_bottleneck")
    assert sorted(before["root_entities"]) == ["payments api", "search index"]
    new = [
        update(
            "Lena",
            "2026-04-20T09:00:00Z",
            [
                wait("invoice run", "ledger service"),
                owns("platform team", "ledger service", "team"),
            ],
            "l1.md",
        ),
        update("Milo", "2026-04-21T09:00:00Z", [wait("tax filing", "ledger service")], "l2.md"),
    ]
    ingest(cli, tmp_path, "new.jsonl", new)
    [result] = cli.json("analyze")
    assert result["mode"] == "incremental"
    assert result["episodes"] == 2  # the payments and search components are not redone
    [after] = of_kind(observations(cli), "owner_bottleneck")
    assert after["id"] == before["id"]
    assert after["version"] == 2
    assert sorted(after["root_entities"]) == ["ledger service", "payments api", "search index"]
    # every root's waiting work, the unredone ones' included
    blocked = {e["name"] for e in after["entities"] if e["role"] in ("direct", "downstream")}
    assert {"gift cards", "loyalty points", "admin console", "tax filing"} <= blocked
    snapshot = {(o["id"], o["version"], o["name"], o["summary"]) for o in observations(cli)}
    cli("analyze", "--full", "--force")
    full = {(o["id"], o["version"], o["name"], o["summary"]) for o in observations(cli)}
    assert full == snapshot


def test_incremental_pass_keeps_a_bottleneck_when_one_of_three_roots_ships(
    cli: Cli, tmp_path: Path
) -> None:
    # Three roots; the new update completes one in a component of its own. The two
    # left are outside the pass's scope, and the bottleneck still holds over them.
    rows = platform_roots_and_filler() + [
        update(
            "Lena",
            "2026-04-20T09:00:00Z",
            [
                wait("invoice run", "ledger service"),
                owns("platform team", "ledger service", "team"),
            ],
            "l1.md",
        ),
        update("Milo", "2026-04-21T09:00:00Z", [wait("tax filing", "ledger service")], "l2.md"),
    ]
    ingest(cli, tmp_path, "own.jsonl", rows)
    cli("analyze")
    [before] = of_kind(observations(cli), "owner_bottleneck")
    assert len(before["root_entities"]) == 3
    shipped = update("Lena", "2026-04-21T15:00:00Z", [done("ledger service", "Lena")], "l3.md")
    ingest(cli, tmp_path, "done.jsonl", [shipped])
    [result] = cli.json("analyze")
    assert result["mode"] == "incremental"
    [after] = of_kind(observations(cli), "owner_bottleneck")
    assert after["id"] == before["id"]
    assert sorted(after["root_entities"]) == ["payments api", "search index"]
    snapshot = {(o["id"], o["version"], o["name"], o["summary"]) for o in observations(cli)}
    cli("analyze", "--full", "--force")
    full = {(o["id"], o["version"], o["name"], o["summary"]) for o in observations(cli)}
    assert full == snapshot
