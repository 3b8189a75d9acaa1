"""People write a teammate's first name ("Tunde") and a ticket's bare number ("until
2210 lands"); memcli merges each into the one full name it can stand for, recorded and
reversible, and leaves it apart when two names fit."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memcli.identity import Name, short_forms
from tests.conftest import Cli, update


def _p(id_: int, name: str) -> Name:
    return Name(id_, name, name.lower(), "person")


def _w(id_: int, name: str) -> Name:
    return Name(id_, name, name.lower().replace("-", " "), "work_item")


def test_a_first_name_and_a_bare_number_merge_only_when_one_name_fits() -> None:
    people = [_p(1, "Tunde Adeyemi"), _p(2, "Tunde"), _p(3, "Mei-Ling Chou"), _p(4, "Mei-Ling")]
    found = {(c.alias.name, c.canonical.name) for c in short_forms(people, [], [])}
    assert found == {("Tunde", "Tunde Adeyemi"), ("Mei-Ling", "Mei-Ling Chou")}
    # two people called Tunde: which one is meant is not said
    assert short_forms([*people, _p(5, "Tunde Bello")], [], [])[0].alias.name == "Mei-Ling"
    # a person undid it
    assert [c.alias.name for c in short_forms(people, [], [], refused=[(2, 1)])] == ["Mei-Ling"]
    # a first name and an initial
    initials = [
        _p(6, "Tomasz Kowalski"),
        _p(7, "Tomasz K."),
        _p(8, "Tomasz Nowak"),
        _p(9, "Tomasz"),
    ]
    found = {(c.alias.name, c.canonical.name) for c in short_forms(initials, [], [])}
    assert found == {("Tomasz K.", "Tomasz Kowalski")}  # "Tomasz" alone fits two

    numbers = [_w(10, "2210"), _w(11, "7")]
    tickets = [_w(20, "WMS-2210"), _w(21, "OPS-7")]
    [merged] = short_forms([], numbers, tickets)
    assert (merged.alias.name, merged.canonical.name) == ("2210", "WMS-2210")  # "7": too short
    # the same number in two projects
    assert short_forms([], numbers, [*tickets, _w(22, "RTE-2210")]) == []
    # "#2210" is a reference of its own, not a bare number
    assert short_forms([], [_w(12, "#2210")], tickets) == []


def test_first_names_and_numbers_join_the_names_they_stand_for(
    cli: Cli, write: Callable[..., Path]
) -> None:
    texts = [
        ("Tunde Adeyemi", "I am working on WMS-2210 this week."),
        ("Mei-Ling Chou", "The appointments API is blocked by 2210."),
        ("Aroha Ngata", "The yard kiosk is waiting on WMS-2210, which Tunde owns."),
    ]
    files = [
        write(f"{i}.md", update(who, f"2026-11-0{i + 2}T09:00:00Z", text, graph="depot"))
        for i, (who, text) in enumerate(texts)
    ]
    cli("ingest", *map(str, files))
    [run] = cli.json("analyze", "--graph", "depot")
    assert {(m["alias"]["name"], m["canonical"]["name"]) for m in run["merged"]} == {
        ("Tunde", "Tunde Adeyemi"),
        ("2210", "WMS-2210"),
    }
    # one root, its owner by full name, both people waiting on it
    [obs] = cli.json("observations", "--graph", "depot")
    roles = {(e["name"], e["role"]) for e in obs["entities"]}
    assert ("WMS-2210", "root") in roles and ("Tunde Adeyemi", "owner") in roles
    assert {"Mei-Ling Chou", "Aroha Ngata"} <= {n for n, r in roles if r == "direct"}
    assert not any(n == "Tunde" for n, _ in roles)


def test_the_same_refactor_is_the_one_refactor_named_before() -> None:
    same = _w(30, "same refactor")
    items = [_w(31, "auth service refactor"), _w(32, "refactor")]
    [merged] = short_forms([], [], items, sames=[same])
    assert merged.canonical.name == "auth service refactor"
    # two refactors in the graph: which one is not said
    assert short_forms([], [], [*items, _w(33, "billing refactor")], sames=[same]) == []


MISSION = [
    (
        "Alice",
        "The API migration is blocked waiting on the auth service refactor, which the "
        "backend team owns.",
    ),
    ("Bob", "The payments integration is stalled on that same refactor."),
    ("Clara", "The checkout flow can't move because Bob's payments integration isn't ready."),
]


def test_the_mission_in_its_own_words(cli: Cli, write: Callable[..., Path]) -> None:
    """One task blocks all three people, Clara two hops away, though Bob names it only
    as "that same refactor"."""
    files = [
        write(f"{who}.md", update(who, f"2026-11-0{i + 2}T09:00:00Z", text, graph="mission"))
        for i, (who, text) in enumerate(MISSION)
    ]
    cli("ingest", *map(str, files))
    cli("analyze", "--graph", "mission")
    [obs] = cli.json("observations", "--graph", "mission")
    assert obs["root_entities"] == ["auth service refactor"]
    people = {(e["name"], e["role"]) for e in obs["entities"] if e["type"] == "person"}
    assert people == {("Alice", "direct"), ("Bob", "direct"), ("Clara", "downstream")}


def test_a_vague_last_word_adds_nothing_and_a_project_key_names_its_one_ticket() -> None:
    stuff, work, bare = _w(40, "auth stuff"), _w(41, "auth work"), _w(42, "auth")
    ticket = Name(43, "AUTH-212", "auth 212", "work_item")
    found = {
        (c.alias.name, c.canonical.name)
        for c in short_forms([], [], [], vague=[stuff, work], bases=[bare, ticket])
    }
    assert found == {("auth stuff", "auth"), ("auth work", "auth"), ("auth", "AUTH-212")}
    # a second AUTH ticket: "auth" may be either
    other = Name(44, "AUTH-230", "auth 230", "work_item")
    found = short_forms([], [], [], vague=[stuff], bases=[bare, ticket, other])
    assert [(c.alias.name, c.canonical.name) for c in found] == [("auth stuff", "auth")]
    # a project key alone, with no vague name beside it
    [alone] = short_forms([], [], [], bases=[bare, ticket])
    assert (alone.alias.name, alone.canonical.name) == ("auth", "AUTH-212")
