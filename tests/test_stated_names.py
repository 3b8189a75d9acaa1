"""A name written beside a ticket id ("the checkout redesign (SHOP-41)") makes the two
one entity at the next analyze: the work waiting on either name waits on one blocker.

The reading is pure (``memcli.extract.aliases``), the decision pure
(``identity.stated_merges``); the end-to-end cases run the CLI on real files and a real
database: the merge is recorded with the update that said it, undone by a person for
good, ignored when that update is retracted, and found again after export and import.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from memcli.extract.aliases import stated_names
from memcli.identity import Name, Stated, stated_merges
from tests.conftest import Cli, update


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        # a name and its ticket in parentheses, inside a sentence
        (
            "Still heads-down on the fare calculator rewrite (TRN-88), tests next.",
            [("TRN-88", "fare calculator rewrite")],
        ),
        (
            "waiting for our vendor onboarding form (#301) to clear legal",
            [("#301", "vendor onboarding form")],
        ),
        (
            "Priya's badge printer driver (OPS-7) keeps crashing",
            [("OPS-7", "badge printer driver")],
        ),
        # a label that opens a line may hold a preposition
        (
            "- **Dark mode for the settings screen (APP-12)**: colours agreed",
            [("APP-12", "Dark mode for the settings screen")],
        ),
        ("1. Ward bed board refresh (HIS-230) — on track", [("HIS-230", "Ward bed board refresh")]),
        # title lines that open with the ticket
        (
            "**LAB-19 · Sample tracking export** — comment by Ines",
            [("LAB-19", "Sample tracking export")],
        ),
        ("[GAME-4] Matchmaking queue timeout", [("GAME-4", "Matchmaking queue timeout")]),
        ("## acme/site#77: Footer links audit", [("acme/site#77", "Footer links audit")]),
        # the ticket first, its name in parentheses; an owner there is no name
        ("blocked by #512 (the retry jitter) again", [("#512", "retry jitter")]),
        ("FIN-72 (Priya) slipped to Monday", []),
        # not names: a clause, a verb particle, one generic word, a phrase whose
        # ticket may belong to the whole ("the update for ..."), a status line
        ("I can't close the ward rota until the pager feed is fixed (NET-4)", []),
        ("the contract draft got signed off (LEG-2)", []),
        ("pushed a fix to the branch (#55)", []),
        ("the firmware update for the scanner arms (ROB-7) slipped again", []),
        ("PAY-303: still parked on the db upgrade", []),
        ("no ticket here, just (a remark) in brackets", []),
    ],
)
def test_names_written_beside_a_ticket(text: str, pairs: list[tuple[str, str]]) -> None:
    assert stated_names(text) == pairs


def _name(id_: int, name: str) -> Name:
    return Name(id_, name, name.lower(), "work_item")


def test_a_name_written_beside_two_tickets_or_already_merged_stays_apart() -> None:
    ticket, other, name = _name(1, "TRN-88"), _name(2, "TRN-90"), _name(3, "fare rewrite")
    said = Stated(10, "fare rewrite", ticket, name)
    [made] = stated_merges([said], {})
    assert (made.alias.id, made.canonical.id) == (3, 1) and "update 10" in made.reasons[0]
    # written beside two different tickets: which one is not said
    assert stated_merges([said, Stated(11, "fare rewrite", other, name)], {}) == []
    # the same ticket twice is one merge
    assert len(stated_merges([said, Stated(12, "Fare rewrite", ticket, name)], {})) == 1
    # a person merged the name elsewhere, or undid this merge: their decision holds
    assert stated_merges([said], {3: 2}) == []
    assert stated_merges([said], {}, refused=[(3, 1)]) == []
    # already one entity, or the same entity written twice
    assert stated_merges([said], {3: 1}) == []
    assert stated_merges([Stated(10, "x", ticket, ticket)], {}) == []
    # a ticket a person merged into another name: left to them
    assert stated_merges([said], {1: 2}) == []


MON = "The ticket kiosk screen is blocked by TRN-88."
TUE = "- Today: carrying on with the fare calculator rewrite (TRN-88), the zone table is the slow part."
WED = "The refund form is waiting on the fare calculator rewrite."


def _week(write: Callable[..., Path]) -> list[Path]:
    return [
        write("mon.md", update("Ana Costa", "2026-11-02T09:00:00Z", MON, graph="transit")),
        write("tue.md", update("Bo Lind", "2026-11-03T09:00:00Z", TUE, graph="transit")),
        write("wed.md", update("Cyrus Farahani", "2026-11-04T09:00:00Z", WED, graph="transit")),
    ]


def _roots(cli: Cli) -> list[tuple[str, list[str]]]:
    out = []
    for o in cli.json("observations", "--graph", "transit"):
        held = sorted(
            e["name"] for e in o["entities"] if e["type"] == "person" and e["role"] == "direct"
        )
        out.append((o["root_entities"][0], held))
    return sorted(out)


def test_one_blocker_under_its_ticket_and_its_name(cli: Cli, write: Callable[..., Path]) -> None:
    cli("ingest", *map(str, _week(write)))
    [run] = cli.json("analyze", "--graph", "transit")
    [merged] = run["merged"]
    assert merged["alias"]["name"] == "fare calculator rewrite"
    assert merged["canonical"]["name"] == "TRN-88"
    assert "update" in merged["reasons"][0]
    # both people waiting are held up by one root, which the prose names bare
    assert _roots(cli) == [("TRN-88", ["Ana Costa", "Cyrus Farahani"])]
    [obs] = cli.json("observations", "--graph", "transit")
    # ... by its ticket and the name written beside it, without an article
    assert obs["summary"].startswith("TRN-88 (fare calculator rewrite) is the root blocker")
    assert obs["root_entities"] == ["TRN-88"]  # the record keeps the entity's own name

    # a person undoes it: two roots, and the next analyze does not merge them again
    cli("entity", "unmerge", "fare calculator rewrite", "--graph", "transit")
    cli(
        "ingest",
        str(
            write(
                "thu.md",
                update("Ana Costa", "2026-11-05T09:00:00Z", MON + " Still.", graph="transit"),
            )
        ),
    )
    [again] = cli.json("analyze", "--graph", "transit")
    assert again["merged"] == []
    assert all(len(held) < 2 for _root, held in _roots(cli))


def test_a_retracted_update_asks_for_nothing(cli: Cli, write: Callable[..., Path]) -> None:
    mon, tue, wed = _week(write)
    cli("ingest", str(mon), str(tue), str(wed))
    [bo] = [e["id"] for e in cli.json("episodes", "--graph", "transit") if e["author"] == "Bo Lind"]
    cli("episode", "retract", str(bo))
    [run] = cli.json("analyze", "--graph", "transit")
    assert run["merged"] == []
    assert all(len(held) < 2 for _root, held in _roots(cli))


def test_export_and_import_find_the_same_merge(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    cli("ingest", *map(str, _week(write)))
    exported = tmp_path / "transit.jsonl"
    exported.write_text(cli("export", "--graph", "transit").stdout, encoding="utf-8")
    other = str(tmp_path / "other.db")
    cli("--db", other, "import", str(exported))
    [run] = cli.json("--db", other, "analyze", "--graph", "transit")
    assert [m["canonical"]["name"] for m in run["merged"]] == ["TRN-88"]
    # deleting the graph takes the pairs with it
    cli("--db", other, "graph", "delete", "transit", "--yes")
    assert json.loads(cli("--db", other, "graphs", "--json").stdout) == []
