"""Entity identity people can steer: aliases, unmerge, suggestions, safe automatic merges."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import event, example, given, settings
from hypothesis import strategies as st

from memcli.identity import Name, auto_merges, relation
from tests.conftest import Cli

GRAPH = "infra"


def wait(author: str, day: int, waiting: str, blocker: str) -> dict[str, Any]:
    """One update saying ``waiting`` is held up by ``blocker``, with that fact given."""
    sentence = f"The {waiting} is held up by the {blocker}."
    return {
        "content": sentence,
        "author": author,
        "occurred_at": f"2026-11-{day:02d}T10:00:00Z",
        "graph": GRAPH,
        "source": f"{author.lower()}-{day}.md",
        "facts": [
            {
                "source": waiting,
                "relation": "blocked_by",
                "target": blocker,
                "source_type": "work_item",
                "target_type": "work_item",
                "sentence": sentence,
            }
        ],
    }


def ingest(cli: Cli, write: Callable[..., Path], name: str, *updates: dict[str, Any]) -> None:
    path = write(name, "\n".join(json.dumps(u) for u in updates) + "\n")
    cli("ingest", str(path))


def active(cli: Cli) -> list[dict[str, Any]]:
    return cli.json("observations", "--graph", GRAPH)


def roots(cli: Cli) -> list[str]:
    return sorted(o["root_entities"][0] if o["root_entities"] else "" for o in active(cli))


TWO_NAMES = (
    wait("Alice", 2, "API migration", "Postgres 16 migration"),
    wait("Dana", 3, "checkout revamp", "Postgres 16 migration"),
    wait("Bob", 4, "reporting service", "DB migration"),
    wait("Carol", 5, "search reindex", "DB migration"),
)


def test_alias_merges_two_roots_into_one_observation_and_unmerge_splits_them(
    cli: Cli, write: Callable[..., Path]
) -> None:
    ingest(cli, write, "week.jsonl", *TWO_NAMES)
    cli("analyze")
    before = active(cli)
    assert len(before) == 2

    cli("entity", "alias", "DB migration", "--to", "Postgres 16 migration", "--graph", GRAPH)
    cli("analyze")
    [merged] = active(cli)
    assert merged["root_entities"] == ["Postgres 16 migration"]
    assert len(merged["episodes"]) == 4
    waiting = {e["name"] for e in merged["entities"] if e["role"] in ("direct", "downstream")}
    assert waiting == {"API migration", "checkout revamp", "reporting service", "search reindex"}
    [gone] = cli.json("observations", "--graph", GRAPH, "--status", "retired")
    assert gone["retire_reason"] == (
        "merged: DB migration is now another name for Postgres 16 migration (memcli entity merges)"
    )

    # the decision is recorded with who and why, and the entity list says where it went
    [decision] = cli.json("entity", "merges", "--graph", GRAPH)
    assert decision["decided_by"] == "person" and decision["undone_at"] is None
    listed = {e["name"]: e for e in cli.json("entities", "--graph", GRAPH)}
    assert listed["DB migration"]["merged_into"] == "Postgres 16 migration"
    shown = cli.json("entity", "show", "Postgres 16 migration", "--graph", GRAPH)
    assert {e["name"]: e["merged_into"] for e in shown["entities"]} == {
        "Postgres 16 migration": None,
        "DB migration": "Postgres 16 migration",
    }
    assert len(shown["facts"]) == 4
    drawn = cli("visualize", "--graph", GRAPH, "--format", "mermaid").stdout
    assert "Postgres 16 migration" in drawn and "DB migration" not in drawn

    cli("entity", "unmerge", "DB migration", "--graph", GRAPH, "--reason", "different work")
    cli("analyze")
    assert roots(cli) == ["DB migration", "Postgres 16 migration"]
    [undone] = cli.json("entity", "merges", "--graph", GRAPH)
    assert undone["undone_at"] is not None and undone["undo_reason"] == "different work"
    # the facts themselves were never rewritten
    facts = cli.json("facts", "--graph", GRAPH)
    assert sorted({f["target"] for f in facts}) == ["DB migration", "Postgres 16 migration"]


def test_suggest_lists_the_pg16_case_with_its_reasons(cli: Cli, write: Callable[..., Path]) -> None:
    ingest(
        cli,
        write,
        "week.jsonl",
        *TWO_NAMES,
        wait("Erin", 6, "API migration", "pg16"),
        wait("Finn", 7, "API migration", "DB migration"),
    )
    found = cli.json("entities", "--graph", GRAPH, "--suggest-merges")
    pairs = {(s["alias"]["name"], s["canonical"]["name"]): s for s in found}
    pg16 = pairs[("pg16", "Postgres 16 migration")]
    assert pg16["automatic"] is True
    assert (
        "abbreviates 'Postgres 16 migration' word by word (pg~postgres, 16)" in pg16["reasons"][0]
    )
    db = pairs[("DB migration", "Postgres 16 migration")]
    assert db["automatic"] is False
    assert "shared words: migration" in db["reasons"]
    assert "same neighbour: both block API migration" in db["reasons"]

    table = cli("entities", "--graph", GRAPH, "--suggest-merges").stdout
    assert "pg16" in table and "yes (next analyze)" in table


def test_analyze_merges_a_safe_abbreviation_and_never_the_rewrite_rollout_pair(
    cli: Cli, write: Callable[..., Path]
) -> None:
    ingest(
        cli,
        write,
        "week.jsonl",
        wait("Alice", 2, "load tests", "staging environment rebuild"),
        wait("Bob", 3, "release candidate", "staging environment rebuild"),
        wait("Carol", 4, "demo prep", "staging env"),
        wait("Dana", 5, "invoice export", "billing engine rewrite"),
        wait("Erin", 6, "tax report", "billing engine rewrite"),
        wait("Frank", 7, "pricing page", "billing engine rollout"),
        wait("Gita", 8, "partner launch", "billing engine rollout"),
    )
    result = cli("analyze")
    assert "merged 'staging env' into 'staging environment rebuild'" in result.stderr
    assert roots(cli) == [
        "billing engine rewrite",
        "billing engine rollout",
        "staging environment rebuild",
    ]
    staging = next(o for o in active(cli) if o["root_entities"] == ["staging environment rebuild"])
    assert len(staging["episodes"]) == 3
    [decision] = cli.json("entity", "merges", "--graph", GRAPH)
    assert decision["decided_by"] == "auto"
    assert "env~environment" in decision["reason"]

    # a person's unmerge sticks: the next analyze does not merge the pair again
    cli("entity", "unmerge", "staging env", "--graph", GRAPH)
    cli("analyze", "--graph", GRAPH)
    assert cli.json("entity", "merges", "--graph", GRAPH, "--active") == []
    assert "staging env" not in {
        e["name"] for o in active(cli) for e in o["entities"] if e["role"] == "root"
    }


def test_alias_refuses_loops_and_mixed_kinds(cli: Cli, write: Callable[..., Path]) -> None:
    ingest(cli, write, "week.jsonl", *TWO_NAMES)
    cli("entity", "alias", "DB migration", "--to", "Postgres 16 migration", "--graph", GRAPH)
    again = cli(
        "entity",
        "alias",
        "Postgres 16 migration",
        "--to",
        "DB migration",
        "--graph",
        GRAPH,
        ok=False,
    )
    assert again.exit_code == 2 and "loop" in again.stderr
    missing = cli("entity", "unmerge", "API migration", "--graph", GRAPH, ok=False)
    assert missing.exit_code == 1 and "not merged" in missing.stderr


def work(i: int, name: str) -> Name:
    return Name(i, name, name.lower(), "work_item")


def test_automatic_merges_only_when_unambiguous() -> None:
    names = [
        work(1, "billing eng"),
        work(2, "billing engine rewrite"),
        work(3, "billing engine rollout"),
        work(4, "ASR"),
        work(5, "auth service refactor"),
        work(6, "api"),
        work(7, "api gateway"),
        work(10, "dpm"),
        work(11, "data platform migration"),
        Name(8, "Bo", "bo", "person"),
        Name(9, "Bob Ortiz", "bob ortiz", "person"),
    ]
    made = {(c.alias.name, c.canonical.name) for c in auto_merges(names)}
    # "billing eng" fits two work items, "api" is only leading words, "dpm" is not
    # written as an acronym, people never
    assert made == {("ASR", "auth service refactor")}
    assert relation(work(2, "billing engine rewrite"), work(3, "billing engine rollout")) is None
    assert relation(Name(20, "Kai", "kai", "person"), Name(21, "Karin", "karin", "person")) is None
    assert relation(Name(22, "Bob", "bob", "person"), Name(23, "Bobby", "bobby", "person"))
    assert relation(work(3, "billing engine rollout"), work(2, "billing engine rewrite")) is None
    refused = auto_merges(names, refused=[(4, 5)])
    assert refused == []


def test_a_completion_under_one_name_ends_waits_under_the_other_until_unmerged(
    cli: Cli, write: Callable[..., Path]
) -> None:
    ingest(cli, write, "week.jsonl", *TWO_NAMES)
    cli("entity", "alias", "DB migration", "--to", "Postgres 16 migration", "--graph", GRAPH)
    cli("analyze")
    [merged] = active(cli)
    shipped = {
        "content": "The DB migration shipped.",
        "author": "Erin",
        "occurred_at": "2026-11-09T10:00:00Z",
        "graph": GRAPH,
        "source": "erin-9.md",
        "facts": [
            {
                "source": "Erin",
                "relation": "completed",
                "target": "DB migration",
                "source_type": "person",
                "target_type": "work_item",
                "sentence": "The DB migration shipped.",
            }
        ],
    }
    ingest(cli, write, "ship.jsonl", shipped)
    cli("analyze")
    assert active(cli) == []
    [retired] = [
        o
        for o in cli.json("observations", "--graph", GRAPH, "--status", "retired")
        if o["id"] == merged["id"]
    ]
    assert retired["retire_reason"].startswith("root resolved: Postgres 16 migration was completed")

    # unmerged, the waits stated as "Postgres 16 migration" hold again
    cli("entity", "unmerge", "DB migration", "--graph", GRAPH)
    cli("analyze")
    assert roots(cli) == ["Postgres 16 migration"]


def test_a_new_update_under_a_merged_name_joins_the_merged_observation(
    cli: Cli, write: Callable[..., Path]
) -> None:
    unrelated = [wait(f"P{i}", 10 + i, f"report {i}", f"vendor contract {i}") for i in range(6)]
    ingest(cli, write, "week.jsonl", *TWO_NAMES, *unrelated)
    cli("entity", "alias", "DB migration", "--to", "Postgres 16 migration", "--graph", GRAPH)
    cli("analyze")
    [merged] = active(cli)
    ingest(cli, write, "late.jsonl", wait("Erin", 9, "mobile sync", "DB migration"))
    [run] = cli.json("analyze", "--graph", GRAPH)
    assert run["mode"] == "full"  # an incremental pass cannot follow the merge
    [grown] = active(cli)
    assert grown["id"] == merged["id"] and len(grown["episodes"]) == 5


def test_a_short_name_merges_when_the_name_it_abbreviates_arrives_later(
    cli: Cli, write: Callable[..., Path]
) -> None:
    # The check after a few new names reads only the names near them: an earlier name
    # those new ones are the first fit for must still be among them.
    unrelated = [wait(f"P{i}", 10 + i, f"report {i}", f"vendor contract {i}") for i in range(6)]
    ingest(
        cli,
        write,
        "week.jsonl",
        wait("Carol", 4, "demo prep", "staging env"),
        wait("Dana", 5, "invoice export", "billing engine rewrite"),
        *unrelated,
    )
    time.sleep(1.1)  # stored times are whole seconds: these names are older than the run
    [first] = cli.json("analyze", "--graph", GRAPH)
    assert first["merged"] == []
    ingest(
        cli,
        write,
        "late.jsonl",
        wait("Alice", 20, "load tests", "staging environment rebuild"),
        wait("Bob", 21, "release candidate", "billing engine rollout"),
    )
    [run] = cli.json("analyze", "--graph", GRAPH)
    assert [(m["alias"]["name"], m["canonical"]["name"]) for m in run["merged"]] == [
        ("staging env", "staging environment rebuild")
    ]
    staging = next(o for o in active(cli) if o["root_entities"] == ["staging environment rebuild"])
    assert len(staging["episodes"]) == 2


# Every pair of names compared in full is the definition ``_pairs`` must keep, however
# it narrows the comparisons down (names filed by their words, acronyms by initials).
_WORDS = ["pg", "postgres", "16", "staging", "stage", "env", "environment", "api", "auth",
          "asr", "service", "svc", "refactor", "ref", "s", "sr", "x"]  # fmt: skip


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(_WORDS), min_size=1, max_size=4),
            st.sampled_from(["work_item", "team", "person"]),
        ),
        max_size=25,
    )
)
def test_pairs_are_every_relation_between_names(raw: list[tuple[list[str], str]]) -> None:
    from memcli.identity import _pairs

    names = [Name(i, " ".join(w), " ".join(w), t) for i, (w, t) in enumerate(raw, start=1)]
    expected: dict[int, list[tuple[Name, str, str]]] = {}
    for short in names:
        fits = []
        for long in sorted(names, key=lambda n: n.id):
            rel = relation(short, long)
            if rel is not None:
                fits.append((long, rel[0], rel[1]))
        if fits:
            expected[short.id] = fits
    assert _pairs(names) == expected


def _merges_compared_in_full(
    names: list[Name], refused: set[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """``auto_merges`` by its definition: every pair compared with ``relation``."""
    from memcli.identity import AUTO_TYPES, _is_safe

    pool = [n for n in names if n.type in AUTO_TYPES]
    out = []
    for short in pool:
        fits = [(long, rel) for long in pool if (rel := relation(short, long)) is not None]
        if len(fits) != 1:
            continue
        long, (kind, _) = fits[0]
        if _is_safe(short, kind) and (short.id, long.id) not in refused:
            out.append((short.id, long.id, kind))
    aliases = {a for a, _, _ in out}
    return [m for m in out if m[1] not in aliases]


# Longer names from a few words, and shortened forms of some of them (each word kept
# or shortened, or the capital initials), under one type or another: most lists hold
# merges, ambiguous short names and names that only look alike.
_SHORTER = {"postgres": ["pg", "pgs", "p"], "service": ["svc", "srv", "se"],
            "staging": ["stg", "st"], "environment": ["env", "envt"], "16": ["16"],
            "rebuild": ["rb", "reb"]}  # fmt: skip


@st.composite
def _names_with_shortenings(draw: st.DrawFn) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 8))):
        words = draw(st.lists(st.sampled_from(sorted(_SHORTER)), min_size=1, max_size=3))
        kind = draw(st.sampled_from(["work_item", "work_item", "team", "person"]))
        out.append((" ".join(words), kind))
        for _ in range(draw(st.integers(0, 2))):
            if draw(st.booleans()):
                short = " ".join(
                    w if draw(st.booleans()) else draw(st.sampled_from(_SHORTER[w]))
                    for w in words[: draw(st.integers(1, len(words)))]
                )
            else:
                short = "".join(w[0] for w in words)
                short = short.upper() if draw(st.booleans()) else short
            out.append((short, draw(st.sampled_from([kind, kind, "team"]))))
    return out


@settings(max_examples=400, deadline=None)
# "SE" is the initials of one name and, as one word, the start of another's first word:
# ambiguous, so never merged
@example(
    [("staging environment", "work_item"), ("SE", "work_item"), ("service rebuild", "work_item")],
    [],
)
@given(
    _names_with_shortenings(),
    st.lists(st.tuples(st.integers(1, 30), st.integers(1, 30)), max_size=5),
)
def test_automatic_merges_are_those_every_pair_compared_gives(
    raw: list[tuple[str, str]], refused: list[tuple[int, int]]
) -> None:
    # Only safe names are compared (``identity._narrowed``): the merges must be the same.
    names = [Name(i, name, name.lower(), t) for i, (name, t) in enumerate(raw, start=1)]
    made = [(c.alias.id, c.canonical.id, c.reasons[0]) for c in auto_merges(names, refused=refused)]
    expected = _merges_compared_in_full(names, set(refused))
    assert [(a, b) for a, b, _ in made] == [(a, b) for a, b, _ in expected]
    event(f"merges: {min(len(made), 3)}")


@settings(max_examples=150, deadline=None)
@given(_names_with_shortenings(), st.lists(st.booleans(), min_size=30, max_size=30))
def test_a_check_after_new_names_merges_what_a_check_of_every_name_merges(
    tmp_path_factory: Any, raw: list[tuple[str, str]], later: list[bool]
) -> None:
    # After the first analyze, a check reads only the names near the new ones (and
    # those whose merge changed since): it must merge exactly what reading all would,
    # whether the short name or the long one came first.
    from memcli.corrections import auto_resolve
    from memcli.resolve import normalize
    from memcli.store import Store
    from memcli.store.connection import utcnow

    old = [n for n, new in zip(raw, later, strict=False) if not new]
    new = [n for n, new in zip(raw, later, strict=False) if new]
    made = []
    for near in (False, True):
        store = Store(tmp_path_factory.mktemp("names") / "memory.db")
        store.ensure_graph(GRAPH)
        with store.transaction():
            for name, kind in old:
                store.upsert_entity(GRAPH, name, normalize(name), kind, now="2026-01-01T00:00:00Z")
        since = utcnow()
        with store.transaction():
            auto_resolve(store, GRAPH)  # the first analyze checks every name
        with store.transaction():
            for name, kind in new:
                store.upsert_entity(GRAPH, name, normalize(name), kind, now=utcnow())
            made.append(auto_resolve(store, GRAPH, since=since if near else None))
        store.close()
    event("merged" if made[0] else "none merged")
    assert made[0] == made[1]
