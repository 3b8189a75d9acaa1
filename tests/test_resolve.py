"""Entity resolution: one entity per name variant, never across types or near-namesakes."""

from __future__ import annotations

import pytest

from memcli.models import EntityType
from memcli.resolve import display_name, normalize


@pytest.mark.parametrize(
    "variants",
    [
        [
            "the auth service refactor",
            "Auth Service Refactor",
            "auth service refactor",
            "The auth-service refactor.",
            "  auth   service refactor ",
        ],
        ["the backend team", "backend team", "Backend Team", "the Backend team's"],
        ["Bob", "bob", "Bob's"],
        ["API migration", "the API Migration", "api migration"],
    ],
)
def test_variants_share_one_key(variants: list[str]) -> None:
    assert len({normalize(v) for v in variants}) == 1


@pytest.mark.parametrize(
    "a, b",
    [
        ("billing engine rewrite", "billing engine rollout"),
        ("payments integration", "payments integration v2"),
        ("auth service", "auth service refactor"),
    ],
)
def test_near_namesakes_stay_apart(a: str, b: str) -> None:
    assert normalize(a) != normalize(b)


def test_display_names() -> None:
    assert (
        display_name("the auth service refactor.", EntityType.WORK_ITEM) == "auth service refactor"
    )
    assert display_name("alice", EntityType.PERSON) == "Alice"
    assert display_name("The Backend team", EntityType.TEAM) == "Backend team"


def test_types_never_merge(cli, write) -> None:  # type: ignore[no-untyped-def]
    """A person and a work item with the same name stay two entities."""
    path = write(
        "x.json",
        '{"content": "x", "occurred_at": "2026-11-02", "graph": "g", "facts": ['
        '{"source": "Atlas", "source_type": "person", "relation": "owns", "target": "Atlas"}]}',
    )
    cli("ingest", str(path))
    ents = cli.json("entities", "--graph", "g")
    assert sorted((e["name"], e["type"]) for e in ents) == [
        ("Atlas", "person"),
        ("Atlas", "work_item"),
    ]
