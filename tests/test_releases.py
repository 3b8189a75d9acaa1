""" "The API migration is unblocked." ends the API migration's waits, though it names none.

Such a sentence is no fact (a fact needs a target), so the reader records it as a release
(``memcli.extract.releases``) and ingest turns it into ``unblocked_from`` facts for the
item's waits valid at that time, which the contradiction rules then end. Without this the
wait stayed current and analyze kept reporting its blocker as live. The reading cases
are pure; the rest runs the CLI on real files and a real database and checks what a
user sees: the wait's end and the update that ended it, analyze's observations, the
same facts table in either order of arrival, a retraction undoing it, and an export
carrying it to another database.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memcli.extract.releases import find_releases, release_item
from memcli.extract.rules import extract
from memcli.models import EntityRef, EntityType, ExtractedFact, Relation
from tests.conftest import Cli, update
from tests.llm_stub import StubLLM

API = EntityRef("API migration", EntityType.WORK_ITEM)


@pytest.mark.parametrize(
    ("sentence", "item"),
    [
        ("The API migration is unblocked.", "API migration"),
        ("The API migration is no longer blocked!", "API migration"),
        ("The API migration isn't blocked anymore.", "API migration"),
        ("The API migration is now unblocked.", "API migration"),
        ("The API migration is unblocked now.", "API migration"),
        ("The payments work is unstuck.", "payments work"),
        ("API migration (now unblocked)", "API migration"),
        ("API migration: unblocked", "API migration"),
        ("Good news: the API migration is unblocked.", "API migration"),
        ("**API migration** is unblocked", "API migration"),
        ("Aiko merged it an hour ago so #2231 is unblocked.", "#2231"),
        ("The api_v2 cutover is unblocked.", "api_v2 cutover"),
    ],
)
def test_a_sentence_that_says_an_item_is_unblocked_is_a_release(sentence: str, item: str) -> None:
    found = extract(sentence, "Ana")
    assert [(r.item.name, r.sentence) for r in found.releases] == [(item, sentence)]
    assert found.facts == [] and found.unparsed == []
    assert [t.frame for t in found.trace] == ["release"]


@pytest.mark.parametrize(
    "sentence",
    [
        "The API migration should be unblocked soon.",
        "The API migration will be unblocked once the auth refactor lands.",
        "The API migration might be unblocked.",
        "Hopefully the API migration is unblocked.",
        "Is the API migration unblocked?",
        "The API migration is unblocked?",
        "Once the API migration is unblocked we ship.",
        "Once the API migration is unblocked.",
        "Deploy waits until the API migration is unblocked.",
        "If the API migration is unblocked, we ship Friday.",
        "The API migration is not unblocked yet.",
        "I am unblocked.",
        "@mikko you're unblocked",
        "@mikko is unblocked now.",
        "Mikko you're unblocked now.",
    ],
)
def test_hedges_questions_conditions_and_people_are_not_releases(sentence: str) -> None:
    found = extract(sentence, "Ana")
    assert found.releases == []
    assert release_item(sentence) is None


def test_a_sentence_that_names_the_blocker_stays_an_ordinary_fact() -> None:
    found = extract("The API migration is no longer blocked on the auth refactor.", "Ana")
    assert found.releases == []
    assert [(f.source.name, f.relation, f.target.name) for f in found.facts] == [
        ("API migration", Relation.UNBLOCKED_FROM, "auth refactor")
    ]


def _wait(source: EntityRef, target: str) -> ExtractedFact:
    return ExtractedFact(
        source, Relation.BLOCKED_BY, EntityRef(target, EntityType.WORK_ITEM), "earlier"
    )


def test_it_is_the_one_item_the_update_says_is_waiting() -> None:
    said = ["Still on it.", "It's unblocked now."]
    [release] = find_releases(said, [_wait(API, "auth refactor")])
    assert (release.item, release.sentence) == (API, "It's unblocked now.")
    assert find_releases(["That's unblocked now."], [_wait(API, "auth refactor")])
    # two waiting items, or only a person waiting: "it" names nothing
    other = EntityRef("billing export", EntityType.WORK_ITEM)
    assert find_releases(said, [_wait(API, "x"), _wait(other, "y")]) == []
    kai = EntityRef("Kai", EntityType.PERSON)
    assert find_releases(said, [_wait(kai, "billing export")]) == []
    assert find_releases(said, []) == []
    # a sentence with its own unblock of that item is a fact, not a release
    fact = ExtractedFact(
        API, Relation.UNBLOCKED_FROM, EntityRef("auth refactor", EntityType.WORK_ITEM), said[1]
    )
    assert find_releases(said, [_wait(API, "auth refactor"), fact]) == []


# --- end to end ---

WAIT = ("Ana", "2026-03-02T09:00:00Z", "The API migration is blocked on the auth refactor.")
RELEASE = ("Ben", "2026-03-05T09:00:00Z", "The API migration is unblocked.")
Write = Callable[[str, str], Path]


def _file(write: Write, name: str, said: tuple[str, str, str]) -> Path:
    return write(name, update(*said, graph="g"))


def _facts(cli: Cli, db: Path | None = None) -> list[dict[str, Any]]:
    where = ["--db", str(db)] if db else []
    rows: list[dict[str, Any]] = cli.json("facts", *where, "--graph", "g", "--include-ended")
    return rows


def _by_names(cli: Cli, db: Path | None = None) -> set[tuple[Any, ...]]:
    """The facts table with every id replaced by what it names: comparable across
    databases filled in different orders."""
    where = ["--db", str(db)] if db else []
    episodes = {
        e["id"]: Path(e["source"]).name for e in cli.json("episodes", *where, "--graph", "g")
    }
    return {
        (
            f["source"],
            f["relation"],
            f["target"],
            Path(f["episode_source"]).name,
            f["sentence"],
            f["valid_at"],
            f["invalid_at"],
            episodes.get(f["invalidated_by"]),
        )
        for f in _facts(cli, db)
    }


def _wait_row(cli: Cli, target: str = "auth refactor") -> dict[str, Any]:
    [row] = [
        f
        for f in _facts(cli)
        if f["relation"] == "blocked_by"
        and f["source"] == "API migration"
        and f["target"] == target
    ]
    return row


def test_a_release_ends_the_wait_and_analyze_drops_it(cli: Cli, write: Write) -> None:
    files = [
        _file(write, "a.md", WAIT),
        _file(
            write,
            "c.md",
            ("Cy", "2026-03-02T10:00:00Z", "The billing export is blocked on the auth refactor."),
        ),
        _file(
            write,
            "d.md",
            ("Dee", "2026-03-02T11:00:00Z", "The search index is blocked on the auth refactor."),
        ),
    ]
    cli("ingest", *map(str, files))
    cli("analyze", "--graph", "g")
    [before] = cli.json("observations", "--graph", "g")
    assert "API migration" in {e["name"] for e in before["entities"]}

    result = cli("ingest", str(_file(write, "b.md", RELEASE)), "--explain")
    said = result.stderr
    assert "1 ended by later updates" in said and "0 sentence(s) not understood" in said
    assert "read as a release" in said and "not understood (" not in said
    [release] = [
        e for e in cli.json("episodes", "--graph", "g") if Path(e["source"]).name == "b.md"
    ]
    wait = _wait_row(cli)
    assert (wait["invalid_at"], wait["invalidated_by"]) == (RELEASE[1], release["id"])
    [made] = [f for f in _facts(cli) if f["relation"] == "unblocked_from"]
    assert (made["episode_id"], made["sentence"], made["target"]) == (
        release["id"],
        RELEASE[2],
        "auth refactor",
    )
    assert "read as a release" in cli("explain", str(release["id"])).stdout

    cli("analyze", "--graph", "g")
    [after] = cli.json("observations", "--graph", "g")
    assert after["root_entities"] == ["auth refactor"]
    names = {e["name"] for e in after["entities"]}
    assert "API migration" not in names and {"billing export", "search index"} <= names


def test_the_order_of_arrival_does_not_matter(cli: Cli, write: Write, tmp_path: Path) -> None:
    wait, release = _file(write, "a.md", WAIT), _file(write, "b.md", RELEASE)
    later = _file(
        write,
        "e.md",
        ("Ana", "2026-03-09T09:00:00Z", "The API migration is blocked on the auth refactor again."),
    )
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    for path in (wait, release, later):
        cli("--db", str(first), "ingest", str(path))
    for path in (later, release, wait):
        cli("--db", str(second), "ingest", str(path))
    table = _by_names(cli, first)
    assert table == _by_names(cli, second)
    ended = {(f[3], f[6], f[7]) for f in table if f[1] == "blocked_by"}
    # the wait before the release is ended by it; the one stated after it holds
    assert ended == {("a.md", RELEASE[1], "b.md"), ("e.md", None, None)}


def test_a_wait_stated_after_the_release_stays_current(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    release = _file(write, "b.md", RELEASE)
    later = _file(write, "a.md", ("Ana", "2026-03-09T09:00:00Z", WAIT[2]))
    cli("ingest", str(release))
    result = cli("ingest", str(later))
    assert "ended" not in result.stderr
    assert _wait_row(cli)["invalid_at"] is None
    assert [f["relation"] for f in _facts(cli)] == ["owns", "blocked_by"]
    # the other way round: the release meets a stored wait that began after it
    other = tmp_path / "other.db"
    cli("--db", str(other), "ingest", str(later))
    cli("--db", str(other), "ingest", str(release))
    assert [f["relation"] for f in _facts(cli, other)] == ["owns", "blocked_by"]


def test_a_release_adds_one_fact_per_blocker(cli: Cli, write: Write) -> None:
    older = ("Cy", "2026-03-01T09:00:00Z", "The API migration is waiting on the auth refactor.")
    cli("ingest", str(_file(write, "a.md", WAIT)), str(_file(write, "b.md", RELEASE)))
    cli("ingest", str(_file(write, "c.md", older)))
    waits = [f for f in _facts(cli) if f["relation"] == "blocked_by"]
    assert [f["invalid_at"] for f in waits] == [RELEASE[1], RELEASE[1]]
    assert len([f for f in _facts(cli) if f["relation"] == "unblocked_from"]) == 1


def test_a_retracted_wait_gives_the_same_table_in_either_order(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    wait, release = _file(write, "a.md", WAIT), _file(write, "b.md", RELEASE)
    first, second = tmp_path / "first.db", tmp_path / "second.db"
    for db, retract_before_release in ((first, True), (second, False)):
        cli("--db", str(db), "ingest", str(wait))
        if retract_before_release:
            cli("--db", str(db), "episode", "retract", "1")
        cli("--db", str(db), "ingest", str(release))
        if not retract_before_release:
            cli("--db", str(db), "episode", "retract", "1")
    assert {f[:6] for f in _by_names(cli, first)} == {f[:6] for f in _by_names(cli, second)}


def test_retracting_the_release_makes_the_wait_current_again(cli: Cli, write: Write) -> None:
    cli("ingest", str(_file(write, "a.md", WAIT)), str(_file(write, "b.md", RELEASE)))
    assert _wait_row(cli)["invalid_at"] == RELEASE[1]
    [release] = [
        e for e in cli.json("episodes", "--graph", "g") if Path(e["source"]).name == "b.md"
    ]
    cli("episode", "retract", str(release["id"]))
    assert _wait_row(cli)["invalid_at"] is None
    # and a wait that arrives after the retraction is not ended by it either
    cli(
        "ingest",
        str(
            _file(
                write, "c.md", ("Ana", WAIT[1], "The API migration is blocked on the DB upgrade.")
            )
        ),
    )
    assert _wait_row(cli, "DB upgrade")["invalid_at"] is None


def test_every_blocker_of_the_item_is_released(cli: Cli, write: Write) -> None:
    two = "The API migration is blocked on the auth refactor and the DB upgrade."
    cli("ingest", str(_file(write, "a.md", (WAIT[0], WAIT[1], two))))
    result = cli("ingest", str(_file(write, "b.md", RELEASE)))
    assert "2 facts (2 ended by later updates)" in result.stderr
    for target in ("auth refactor", "DB upgrade"):
        assert _wait_row(cli, target)["invalid_at"] == RELEASE[1]


def test_a_release_of_an_item_with_no_known_wait_stores_nothing_visible(
    cli: Cli, write: Write
) -> None:
    result = cli("ingest", str(_file(write, "b.md", RELEASE)), "--json")
    report = json.loads(result.stdout)
    assert (report["facts_new"], report["entities_new"], report["errors"]) == (0, 0, [])
    assert report["sentences_not_understood"] == 0
    assert _facts(cli) == [] and cli.json("entities", "--graph", "g") == []
    assert "ok" in cli("doctor").stdout


def test_export_and_import_carry_the_release(cli: Cli, write: Write, tmp_path: Path) -> None:
    cli("ingest", str(_file(write, "b.md", RELEASE)))
    exported = tmp_path / "g.jsonl"
    cli("export", "--graph", "g", "--output", str(exported))
    [line] = [json.loads(x) for x in exported.read_text(encoding="utf-8").splitlines()]
    assert line["facts"] == []
    assert line["releases"] == [
        {"item": "api migration", "item_type": "work_item", "sentence": RELEASE[2]}
    ]
    other = tmp_path / "other.db"
    cli("--db", str(other), "import", str(exported))
    cli("--db", str(other), "ingest", str(_file(write, "a.md", WAIT)))
    assert {(f[1], f[3], f[6], f[7]) for f in _by_names(cli, other) if f[1] != "owns"} == {
        ("blocked_by", "a.md", RELEASE[1], "b.md"),
        ("unblocked_from", "b.md", None, None),
    }
    # releases are given only beside given facts: without them the text is read
    del line["facts"]
    exported.write_text(json.dumps(line), encoding="utf-8")
    refused = cli("--db", str(tmp_path / "third.db"), "import", str(exported), ok=False)
    assert refused.exit_code != 0 and "'releases' is read only beside a 'facts' list" in (
        refused.stderr
    )


def test_a_moved_release_ends_waits_in_its_new_graph(cli: Cli, write: Write) -> None:
    cli("ingest", str(_file(write, "b.md", RELEASE)))
    [release] = cli.json("episodes", "--graph", "g")
    cli("episode", "move", str(release["id"]), "--to", "h")
    cli("ingest", str(_file(write, "a.md", WAIT)), "--graph", "h")
    [wait] = [
        f
        for f in cli.json("facts", "--graph", "h", "--include-ended")
        if f["relation"] == "blocked_by"
    ]
    assert (wait["invalid_at"], wait["invalidated_by"]) == (RELEASE[1], release["id"])


def test_auto_keeps_the_release_and_sends_no_call_for_it(
    cli: Cli, write: Write, llm_server: StubLLM
) -> None:
    """A release was read: ``--extractor auto`` asks no model about it, and keeps it
    beside the rules' facts."""
    cli("ingest", str(_file(write, "a.md", WAIT)))
    report = cli.json("ingest", str(_file(write, "b.md", RELEASE)), "--extractor", "auto")
    assert llm_server.requests == [] and report["llm"]["updates_skipped"] == 1
    assert _wait_row(cli)["invalid_at"] == RELEASE[1]


@pytest.mark.parametrize("model", ["up", "down"])
def test_auto_keeps_the_release_beside_a_model_call(
    cli: Cli, write: Write, llm_server: StubLLM, monkeypatch: pytest.MonkeyPatch, model: str
) -> None:
    """An update with a sentence worth a call and a release: the release stands whether
    the model answers or is unreachable (the episode then waits, with the rules' reading)."""
    hard = "The retention report hinges on whatever the audit log cleanup ends up looking like."
    cli("ingest", str(_file(write, "a.md", WAIT)))
    both = _file(write, "b.md", (RELEASE[0], RELEASE[1], f"{hard} {RELEASE[2]}"))
    if model == "up":
        llm_server.extractions[hard] = {"entities": [], "facts": []}
    else:
        monkeypatch.setenv("MEMCLI_LLM_BASE_URL", "http://127.0.0.1:9/v1")
        monkeypatch.setenv("MEMCLI_LLM_MAX_RETRIES", "0")
    result = cli("ingest", str(both), "--extractor", "auto", ok=model == "up")
    assert result.exit_code == (0 if model == "up" else 3)
    assert _wait_row(cli)["invalid_at"] == RELEASE[1]
