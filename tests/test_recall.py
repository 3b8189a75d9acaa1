"""Blocker signatures and one observation per root: patterns found when people don't
repeat each other."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli, update

WALL_CLOCK = ("created_at", "updated_at")


def ingest_all(
    cli: Cli, write: Callable[..., Path], updates: list[tuple[str, str, str]], *db: str
) -> None:
    paths = [
        str(write(f"{i:02d}-{author.lower()}.md", update(author, date, text)))
        for i, (author, date, text) in enumerate(updates)
    ]
    cli(*db, "ingest", *paths)


ONLY_CLARA_NAMES_THE_OWNER = [
    ("Alice", "2026-11-02", "The API migration is blocked on the auth service refactor."),
    ("Bob", "2026-11-04", "The payments integration is waiting on the auth service refactor."),
    (
        "Clara",
        "2026-11-06",
        "The checkout flow can't move forward because the payments integration isn't ready. "
        "That work belongs to Bob.",
    ),
]


def test_only_clara_names_the_owner(cli: Cli, write: Callable[..., Path]) -> None:
    ingest_all(cli, write, ONLY_CLARA_NAMES_THE_OWNER)
    cli("analyze")
    [obs] = cli.json("observations", "--graph", "project-atlas")
    assert obs["root_entities"] == ["auth service refactor"]
    assert [e["author"] for e in obs["episodes"]] == ["Alice", "Bob", "Clara"]
    assert (
        "Clara's checkout flow is blocked downstream of Bob's payments integration"
        in obs["summary"]
    )

    # literal signatures alone lose Alice: she shares no whole fact with anyone
    cli("analyze", "--signatures", "literal")
    [literal] = cli.json("observations", "--graph", "project-atlas")
    assert [e["author"] for e in literal["episodes"]] == ["Bob", "Clara"]


TWO_FOUNDATIONS = [
    ("Alice", "2026-11-02", "The API migration is blocked on the auth service refactor."),
    ("Bob", "2026-11-03", "The payments integration is waiting on the auth service refactor."),
    ("Dan", "2026-11-03", "The reporting dashboard is blocked on the data warehouse migration."),
    ("Eve", "2026-11-04", "The forecasting model depends on the data warehouse migration."),
    (
        "Frank",
        "2026-11-05",
        "The billing export depends on the auth service refactor. "
        "The billing export is also blocked on the data warehouse migration.",
    ),
    ("Gina", "2026-11-06", "The invoice run is stuck behind the billing export."),
    ("Hal", "2026-11-06", "Hal is working on the style guide."),
]


def test_two_foundations_give_two_observations_sharing_the_bridge(
    cli: Cli, write: Callable[..., Path]
) -> None:
    ingest_all(cli, write, TWO_FOUNDATIONS)
    report = cli.json("analyze")
    assert report[0]["multi_episode_clusters"] == 1
    observations = cli.json("observations", "--graph", "project-atlas")
    assert sorted(o["root_entities"][0] for o in observations) == [
        "auth service refactor",
        "data warehouse migration",
    ]
    by_root = {o["root_entities"][0]: o for o in observations}
    auth = [e["author"] for e in by_root["auth service refactor"]["episodes"]]
    data = [e["author"] for e in by_root["data warehouse migration"]["episodes"]]
    assert auth == ["Alice", "Bob", "Frank", "Gina"]
    assert data == ["Dan", "Eve", "Frank", "Gina"]
    # ranked by leverage: each blocks 4 work items and 4 people (tie broken by id)
    assert [o["rank"] for o in observations] == [8, 8]
    # the cluster stays visible as their common context
    shown = cli.json("observation", "show", str(observations[0]["id"]))
    assert [o["id"] for o in shown["cluster"]["observations"]] == [observations[1]["id"]]
    assert "Same cluster" in cli("observation", "show", str(observations[0]["id"])).stdout
    # Gina waits two hops away on both foundations
    assert (
        "Gina's invoice run is blocked downstream of Frank's billing export"
        in (by_root["auth service refactor"]["summary"])
    )


def test_same_input_gives_the_same_ids(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    results = []
    for name in ("one.db", "two.db"):
        db = ("--db", str(tmp_path / name))
        ingest_all(cli, write, TWO_FOUNDATIONS + ONLY_CLARA_NAMES_THE_OWNER, *db)
        cli(*db, "analyze")
        obs = cli.json(*db, "observations", "--status", "all")
        for o in obs:
            for key in WALL_CLOCK:
                o.pop(key)
            for e in o["episodes"]:
                e["source"] = Path(e["source"]).name
        results.append(obs)
    assert results[0] == results[1]
    assert len(results[0]) == 2


def test_analyze_explain_says_what_was_cut(cli: Cli, write: Callable[..., Path]) -> None:
    updates = [
        (
            name,
            f"2026-11-{day:02d}",
            f"The platform team owns the deploy pipeline. {name} is working on the {item}.",
        )
        for day, (name, item) in enumerate(
            [
                ("Ann", "search page"),
                ("Ben", "login page"),
                ("Cy", "mobile app"),
                ("Di", "admin panel"),
            ],
            start=2,
        )
    ]
    ingest_all(cli, write, updates)
    plain = cli("analyze", "--explain").stderr
    assert "nothing was cut" in plain
    assert len(cli.json("observations", "--graph", "project-atlas")) == 1  # one shared context
    cut = cli("analyze", "--explain", "--max-signature-episodes", "3").stderr
    assert "hub cut: (platform team, owns, deploy pipeline) is stated in 4 episodes" in cut
    assert cli.json("observations", "--graph", "project-atlas") == []
    windowed = cli(
        "analyze", "--explain", "--window", "12h", "--max-signature-episodes", "0"
    ).stderr
    assert "3 link(s)" in windowed and "0.5 days apart" in windowed


def test_a_lone_blocker_is_a_fact_not_a_pattern(cli: Cli, write: Callable[..., Path]) -> None:
    """One person waiting on one thing, however often they say so, makes no observation;
    nor does one person restating their own facts. A second reporter makes it a pattern."""
    ingest_all(
        cli,
        write,
        [
            ("Hal", "2026-11-02", "The style guide is blocked on the brand refresh."),
            ("Hal", "2026-11-03", "The style guide is still blocked on the brand refresh."),
            ("Hal", "2026-11-04", "Hal is working on the style guide."),
        ],
    )
    cli("analyze")
    assert cli.json("observations", "--graph", "project-atlas") == []
    ingest_all(
        cli,
        write,
        [
            (
                "Ivy",
                "2026-11-05",
                "The brand kit is waiting on the brand refresh.",
            )
        ],
    )
    cli("analyze")
    [obs] = cli.json("observations", "--graph", "project-atlas")
    assert obs["root_entities"] == ["brand refresh"]
    assert {e["author"] for e in obs["episodes"]} == {"Hal", "Ivy"}
