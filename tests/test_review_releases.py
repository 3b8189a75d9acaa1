"""Review of releases ("X is unblocked", no blocker named) and owners' short names.

Checks, through the real CLI on real SQLite files, the promises made for releases: the
facts table does not depend on the order (or batching) of arrival, nor on the graph an
update was first ingested into (``memcli episode move``), nor on whether a model's
waits arrived at ingest or later (``memcli extract --pending``); and that an owner's
first name ends no ownership of the full name in any order within one batch, while a
second full name with the same first name still does.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Cli, update
from tests.llm_stub import StubLLM

Write = Callable[[str, str], Path]

WAIT = ("Ana", "2026-03-02T09:00:00Z", "The API migration is blocked on the auth refactor.")
RELEASE = ("Ben", "2026-03-05T09:00:00Z", "The API migration is unblocked.")


def _file(write: Write, name: str, said: tuple[str, str, str], graph: str = "g") -> Path:
    return write(name, update(*said, graph=graph))


def _table(cli: Cli, db: Path, graph: str = "g") -> set[tuple[Any, ...]]:
    """The facts table of ``graph`` with ids replaced by what they name (file names for
    updates): comparable across databases filled in different ways."""
    where = ("--db", str(db), "--graph", graph)
    episodes = {e["id"]: Path(e["source"]).name for e in cli.json("episodes", *where)}
    return {
        (
            f["source"],
            f["relation"],
            f["target"],
            Path(f["episode_source"]).name,
            f["valid_at"],
            f["invalid_at"],
            episodes.get(f["invalidated_by"]),
        )
        for f in cli.json("facts", *where, "--include-ended")
    }


# --- order of arrival ---

UPDATES = [
    ("w1.md", ("Ana", "2026-03-02T09:00:00Z", WAIT[2])),
    ("w2.md", ("Cy", "2026-03-03T09:00:00Z", "The API migration is waiting on the DB upgrade.")),
    ("c1.md", ("Eve", "2026-03-04T09:00:00Z", "The DB upgrade is done.")),
    ("r1.md", RELEASE),
    (
        "w3.md",
        ("Ana", "2026-03-06T09:00:00Z", "The API migration is blocked on the cert rotation."),
    ),
    (
        "s1.md",
        (
            "Fay",
            "2026-03-07T09:00:00Z",
            "The search index is blocked on the API migration. The search index is unblocked.",
        ),
    ),
    ("r2.md", ("Dee", "2026-03-08T09:00:00Z", "API migration: unblocked")),
    ("w4.md", ("Ana", "2026-03-09T09:00:00Z", "The API migration is blocked on the quota bump.")),
    ("p1.md", ("Gus", "2026-03-04T12:00:00Z", "PAY-12 is blocked on PAY-7.")),
    ("p2.md", ("Gus", "2026-03-05T12:00:00Z", "PAY-12 is unblocked.")),
]


def test_two_releases_a_completion_and_a_ticket_give_one_table_in_any_order(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    paths = [_file(write, name, said) for name, said in UPDATES]
    rng = random.Random(20261201)
    tables = []
    for k in range(6):
        order = paths[:]
        rng.shuffle(order)
        db = tmp_path / f"s{k}.db"
        if k % 2:  # one file per ingest
            for path in order:
                cli("--db", str(db), "ingest", str(path))
        else:  # two batches
            half = k + 2
            cli("--db", str(db), "ingest", *map(str, order[:half]))
            cli("--db", str(db), "ingest", *map(str, order[half:]))
        tables.append(_table(cli, db))
    for table in tables[1:]:
        assert table == tables[0], sorted(table ^ tables[0])
    ends = {(f[2], f[3]): (f[5], f[6]) for f in tables[0] if f[1] == "blocked_by"}
    assert ends == {
        ("auth refactor", "w1.md"): (RELEASE[1], "r1.md"),
        ("DB upgrade", "w2.md"): ("2026-03-04T09:00:00Z", "c1.md"),
        ("cert rotation", "w3.md"): ("2026-03-08T09:00:00Z", "r2.md"),
        ("quota bump", "w4.md"): (None, None),
        ("API migration", "s1.md"): ("2026-03-07T09:00:00Z", "s1.md"),
        ("PAY-7", "p1.md"): ("2026-03-05T12:00:00Z", "p2.md"),
    }


def test_one_update_releasing_two_items_with_one_blocker_ends_both_waits_arriving_later(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: a late wait met a stored release once per (update, blocker), whatever the
    item, so of two items the update released, both waiting on the auth refactor and
    ingested after it, only the first was ended; in the other order both were."""
    release = _file(
        write,
        "r.md",
        ("Ben", RELEASE[1], "The API migration is unblocked. The billing export is unblocked."),
    )
    waits = _file(
        write,
        "w.md",
        (
            "Ana",
            WAIT[1],
            "The API migration is blocked on the auth refactor. "
            "The billing export is blocked on the auth refactor.",
        ),
    )
    late, early = tmp_path / "late.db", tmp_path / "early.db"
    for db, order in ((late, (release, waits)), (early, (waits, release))):
        for path in order:
            cli("--db", str(db), "ingest", str(path))
    assert _table(cli, late) == _table(cli, early)
    ends = {f[0]: f[5:] for f in _table(cli, late) if f[1] == "blocked_by"}
    assert ends == {"API migration": (RELEASE[1], "r.md"), "billing export": (RELEASE[1], "r.md")}


def test_a_wait_stated_after_the_release_in_the_same_update_holds(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    db = tmp_path / "same.db"
    said = "The API migration is unblocked. Now the API migration is blocked on the DB upgrade."
    _ingest_all(cli, write, db, WAIT, ("Ben", RELEASE[1], said))
    ends = {f[2]: f[5] for f in _table(cli, db) if f[1] == "blocked_by"}
    assert ends == {"auth refactor": RELEASE[1], "DB upgrade": None}


def test_a_wait_stated_after_the_release_still_holds_once_the_update_moves(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Moving the update meets its releases with its new graph's waits again: its own
    wait, stated after the release, must still hold there."""
    db = tmp_path / "same_moved.db"
    said = "The API migration is unblocked. Now the API migration is blocked on the DB upgrade."
    cli("--db", str(db), "ingest", str(_file(write, "r.md", ("Ben", RELEASE[1], said))))
    [update] = cli.json("--db", str(db), "episodes", "--graph", "g")
    cli("--db", str(db), "episode", "move", str(update["id"]), "--to", "h")
    ends = {f[2]: f[5] for f in _table(cli, db, "h") if f[1] == "blocked_by"}
    assert ends == {"DB upgrade": None}


# --- moving an update to another graph ---


def test_a_release_moved_into_a_graph_ends_the_waits_stored_there(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: the moved release ended nothing in its new graph, though ingesting it there
    ends the wait (the release only met waits when it was ingested)."""
    moved, direct = tmp_path / "moved.db", tmp_path / "direct.db"
    cli("--db", str(moved), "ingest", str(_file(write, "w.md", WAIT, graph="h")))
    cli("--db", str(moved), "ingest", str(_file(write, "r.md", RELEASE, graph="g")))
    [release] = cli.json("--db", str(moved), "episodes", "--graph", "g")
    cli("--db", str(moved), "episode", "move", str(release["id"]), "--to", "h")
    cli("--db", str(direct), "ingest", str(_file(write, "w.md", WAIT, graph="h")))
    cli("--db", str(direct), "ingest", str(_file(write, "r.md", RELEASE, graph="h")))
    assert _table(cli, moved, "h") == _table(cli, direct, "h")
    [wait] = [f for f in _table(cli, moved, "h") if f[1] == "blocked_by"]
    assert wait[5:] == (RELEASE[1], "r.md")
    assert "ok" in cli("--db", str(moved), "doctor").stdout


def test_a_wait_moved_into_a_graph_meets_the_releases_stored_there(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: the moved wait stayed current in a graph whose later release ends it when
    the wait is ingested there."""
    moved, direct = tmp_path / "moved.db", tmp_path / "direct.db"
    cli("--db", str(moved), "ingest", str(_file(write, "r.md", RELEASE, graph="h")))
    cli("--db", str(moved), "ingest", str(_file(write, "w.md", WAIT, graph="g")))
    [wait] = cli.json("--db", str(moved), "episodes", "--graph", "g")
    cli("--db", str(moved), "episode", "move", str(wait["id"]), "--to", "h")
    cli("--db", str(direct), "ingest", str(_file(write, "r.md", RELEASE, graph="h")))
    cli("--db", str(direct), "ingest", str(_file(write, "w.md", WAIT, graph="h")))
    assert _table(cli, moved, "h") == _table(cli, direct, "h")
    assert ("API migration", "unblocked_from", "auth refactor", "r.md") in {
        f[:4] for f in _table(cli, moved, "h")
    }


def test_a_release_moved_away_leaves_no_fact_about_the_old_graphs_waits(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    moved, direct = tmp_path / "moved.db", tmp_path / "direct.db"
    for db, graph in ((moved, "g"), (direct, "h")):
        cli("--db", str(db), "ingest", str(_file(write, "w.md", WAIT)))
        cli("--db", str(db), "ingest", str(_file(write, "r.md", RELEASE, graph=graph)))
    cli("--db", str(moved), "episode", "move", "2", "--to", "h")
    assert _table(cli, moved, "g") == _table(cli, direct, "g")  # the wait is current again
    assert _table(cli, moved, "h") == _table(cli, direct, "h")


# --- retraction ---


def test_a_retracted_release_gives_one_table_whenever_the_wait_arrives(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: a wait arriving after the release's retraction got no fact from it, while
    one stored before got one (ended by the retraction), though retracted waits are
    matched in both orders on purpose: the table depended on when the wait arrived."""
    early, late = tmp_path / "early.db", tmp_path / "late.db"
    first, release = _file(write, "w1.md", WAIT), _file(write, "r.md", RELEASE)
    second = _file(
        write,
        "w2.md",
        ("Cy", "2026-03-03T09:00:00Z", "The API migration is waiting on the DB upgrade."),
    )
    for db, retract_first in ((early, True), (late, False)):
        cli("--db", str(db), "ingest", str(first), str(release))
        if retract_first:
            cli("--db", str(db), "episode", "retract", "2")
        cli("--db", str(db), "ingest", str(second))
        if not retract_first:
            cli("--db", str(db), "episode", "retract", "2")
    # the retraction's own time differs by run: compare whether each fact ended, and how
    tables = [{(*f[:5], f[5] is None, f[6]) for f in _table(cli, db)} for db in (early, late)]
    assert tables[0] == tables[1]
    made = {f[2]: f[5] for f in tables[1] if f[1] == "unblocked_from"}
    assert made == {"auth refactor": False, "DB upgrade": False}  # both ended
    assert all(f[5] for f in tables[1] if f[1] == "blocked_by")  # both waits hold
    cli("--db", str(late), "doctor")  # exits non-zero on a failed check


# --- the model's waits, added later ---

HARD = "The retention report hinges on whatever the audit log cleanup ends up looking like."
ANSWER = {
    "entities": [
        {"name": "retention report", "type": "work_item"},
        {"name": "audit log cleanup", "type": "work_item"},
    ],
    "facts": [
        {
            "source": "retention report",
            "relation": "blocked_by",
            "target": "audit log cleanup",
            "sentence": HARD,
        }
    ],
}


def test_a_wait_the_model_reads_later_meets_the_stored_release(
    cli: Cli,
    write: Write,
    tmp_path: Path,
    llm_server: StubLLM,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Was: ``extract --pending`` stored the model's wait but no release met it, so it
    stayed current where the same updates ingested with the model up end it."""
    wait = _file(write, "w.md", ("Ana", "2026-03-02T09:00:00Z", HARD))
    release = _file(
        write, "r.md", ("Ben", "2026-03-05T09:00:00Z", "The retention report is unblocked.")
    )
    llm_server.extractions[HARD] = ANSWER
    up, down = tmp_path / "up.db", tmp_path / "down.db"
    cli("--db", str(up), "ingest", str(wait), str(release), "--extractor", "auto")
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MEMCLI_LLM_MAX_RETRIES", "0")
    cli("--db", str(down), "ingest", str(wait), "--extractor", "auto", ok=False)
    cli("--db", str(down), "ingest", str(release), "--extractor", "auto")
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", llm_server.url)
    done = cli.json("--db", str(down), "extract", "--pending")
    assert done["facts_new"] == 2 and done["facts_ended"] == 1
    assert _table(cli, down) == _table(cli, up)
    [ended] = [f for f in _table(cli, down) if f[1] == "blocked_by"]
    assert ended[5:] == ("2026-03-05T09:00:00Z", "r.md")


# --- how the item is written ---


def _ingest_all(cli: Cli, write: Write, db: Path, *said: tuple[str, str, str]) -> None:
    paths = [_file(write, f"u{i}.md", x) for i, x in enumerate(said)]
    cli("--db", str(db), "ingest", *map(str, paths))


def test_an_owners_possessive_before_the_item_is_no_part_of_its_name(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: the reader stores "Sebastián's registry mirror is blocked on X" as Sebastián
    owning "registry mirror", but released "Sebastián's registry mirror", a key no wait
    has, so "Sebastián's registry mirror is unblocked." (a release the dev corpus holds)
    ended nothing."""
    db = tmp_path / "p.db"
    _ingest_all(
        cli,
        write,
        db,
        ("Ana", WAIT[1], "Sebastián's registry mirror is blocked on the DNS change."),
        ("Ben", RELEASE[1], "Sebastián\u2019s registry mirror is unblocked."),
    )
    [wait] = [f for f in _table(cli, db) if f[1] == "blocked_by"]
    assert wait[0] == "registry mirror" and wait[5:] == (RELEASE[1], "u1.md")


@pytest.mark.parametrize(
    "said",
    [
        "The API migration and the billing export are unblocked.",
        "API migration, billing export: unblocked",
    ],
)
def test_two_items_released_in_one_sentence_are_both_released(
    cli: Cli, write: Write, tmp_path: Path, said: str
) -> None:
    db = tmp_path / "two.db"
    _ingest_all(
        cli,
        write,
        db,
        WAIT,
        ("Cy", WAIT[1], "The billing export is blocked on the auth refactor."),
        ("Ben", RELEASE[1], said),
    )
    ends = {f[0]: f[5] for f in _table(cli, db) if f[1] == "blocked_by"}
    assert ends == {"API migration": RELEASE[1], "billing export": RELEASE[1]}


# --- a tracker's text ---


def test_a_bare_issue_number_released_in_an_issue_comment_is_that_repositorys_issue(
    cli: Cli, write: Write, tmp_path: Path
) -> None:
    """Was: "#6 is unblocked now." in a comment on acme/web was stored as a release of
    "6", which names none of acme/web#6's waits (facts read from the same text had their
    "#6" made acme/web#6, releases did not), so the wait stayed current."""

    def issue(n: int, who: str, body: str, comments: list[str]) -> dict[str, Any]:
        return {
            "number": n,
            "title": f"Web task {n}",
            "state": "OPEN",
            "author": {"login": who},
            "assignees": [{"login": who}],
            "createdAt": f"2026-03-0{n - 3}T09:00:00Z",
            "url": f"https://github.com/acme/web/issues/{n}",
            "body": body,
            "comments": [
                {"author": {"login": who}, "body": c, "createdAt": "2026-03-09T09:00:00Z"}
                for c in comments
            ],
        }

    export = [
        issue(5, "ana", "Set up the design tokens.", []),
        issue(6, "ben", "Blocked by #5.", ["#6 is unblocked now."]),
    ]
    db = tmp_path / "gh.db"
    source = write("web.json", json.dumps(export))
    cli("--db", str(db), "ingest", "--from", "github", "-g", "web", str(source))
    [wait] = [f for f in _table(cli, db, "web") if f[1] == "blocked_by"]
    assert wait[:3] == ("acme/web#6", "blocked_by", "acme/web#5")
    assert wait[5] == "2026-03-09T09:00:00Z"
    exported = tmp_path / "web.jsonl"
    cli("--db", str(db), "export", "-g", "web", "--output", str(exported))
    releases = [
        r
        for line in exported.read_text(encoding="utf-8").splitlines()
        for r in json.loads(line).get("releases", [])
    ]
    assert [r["item"] for r in releases] == ["acme web 6"]


# --- owners' short names ---


def _owners(cli: Cli, tmp_path: Path, lines: list[tuple[str, str, int]]) -> dict[str, Any]:
    source = tmp_path / "u.jsonl"
    source.write_text(
        "".join(
            json.dumps(
                {
                    "content": text,
                    "author": author,
                    "occurred_at": f"2026-03-{day:02d}T09:00:00Z",
                    "graph": "g",
                }
            )
            + "\n"
            for text, author, day in lines
        ),
        encoding="utf-8",
    )
    db = tmp_path / "owners.db"
    cli("--db", str(db), "ingest", str(source))
    return {f[0]: f[5] for f in _table(cli, db) if f[1] == "owns"}


@pytest.mark.parametrize("reverse", [False, True])
def test_a_first_name_and_a_second_full_name_in_one_batch_in_either_order(
    cli: Cli, tmp_path: Path, reverse: bool
) -> None:
    lines = [
        ("I'm working on the vendor sync this week.", "Tunde Adeyemi", 2),
        ("Tunde is on the vendor sync.", "Mira Holt", 3),
        ("Tunde Bakare is on the vendor sync now.", "Mira Holt", 4),
    ]
    owners = _owners(cli, tmp_path, lines[::-1] if reverse else lines)
    assert owners == {
        "Tunde Adeyemi": "2026-03-04T09:00:00Z",  # another Tunde took it over
        "Tunde": None,  # may be either of them
        "Tunde Bakare": None,
    }
