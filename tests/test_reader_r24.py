"""Owners read in round 24: action lists, and owner constructions said in passing.

Minutes often put several action items on one line ("Actions: (1) Piet – supplier
emails; (2) Odile – update the rota"), or a bare noun phrase after the assignee under an
"Actions" heading ("[ ] Piet — labels for the new mugs"). Each case pins the general
form with sentences written for this file (potteries, orchards, libraries, ferries); the
last tests pin what must stay no fact.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, facts_of, o, u


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # Numbered entries on one labelled line, split by semicolons.
        (
            "Wen",
            "Pottery sync\nActions: (1) Piet – supplier emails; (2) Odile – update the kiln rota.",
            {o("Piet", "supplier emails"), o("Odile", "kiln rota")},
        ),
        (
            "Wen",
            "Pottery sync\n- Follow-ups: Piet — glaze audit; Odile — clay inventory",
            {o("Piet", "glaze audit"), o("Odile", "clay inventory")},
        ),
        (
            "Wen",
            "Orchard sync\nPresent: Piet, Odile, Wen\nPiet: pruning is going fine.\n"
            "Actions: Piet to write up the grafting plan; Odile to own the picking rota",
            {o("Piet", "grafting plan"), o("Odile", "picking rota")},
        ),
        # Two assignees joined by "+".
        (
            "Wen",
            "Orchard sync\nACTION: Piet + Odile to pair on the frost alarm",
            {o("Piet", "frost alarm"), o("Odile", "frost alarm")},
        ),
        # Under an "Actions" heading: a box or an arrow in front, a noun phrase after.
        (
            "Wen",
            "Library sync\nIlse: the reading room is done.\nActions\n"
            "[ ] Ilse — labels for the new shelves\n→ Odile: shelf guide for the west wing",
            {
                ("Ilse", "person", "completed", "reading room", "work_item"),
                o("Ilse", "labels for the new shelves"),
                o("Odile", "shelf guide for the west wing"),
            },
        ),
        (
            "Wen",
            "Ferry sync\nActions\n- Ilse: berth checklist\n- Odile: automate tide warnings",
            {o("Ilse", "berth checklist"), o("Odile", "tide warnings")},
        ),
    ],
)
def test_action_lists(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_number_inside_an_action_is_kept() -> None:
    text = "Ferry sync\nACTIONS: Ilse to book the 3.1 dry run; Odile to write the berth memo."
    assert facts_of(extract(text, "Wen")) == {o("Ilse", "3.1 dry run"), o("Odile", "berth memo")}


def test_semicolons_outside_an_action_line_stay_sentences() -> None:
    text = "The berth refit waits on the crane permit; Odile says Friday."
    assert facts_of(extract(text, "Wen")) == {
        o("Wen", "berth refit"),
        b("berth refit", "crane permit"),
    }


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "T has X on her plate" is "T has X": T owns X (a time after it is no item).
        (
            "Wen",
            "The ferry timetable waits on the berth survey, and Odile has that on her plate"
            " for this sprint.",
            {
                o("Wen", "ferry timetable"),
                b("ferry timetable", "berth survey"),
                o("Odile", "berth survey"),
            },
        ),
        ("Wen", "Piet has the orchard netting on his plate.", {o("Piet", "orchard netting")}),
        ("Wen", "I have the shelf audit on my plate this week.", {o("Wen", "shelf audit")}),
    ],
)
def test_has_on_plate(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A hand-over with a reason after it: "since I'm out" is no particle of "handing".
        (
            "Wen",
            "I'm handing the lighthouse repaint to @odile since I'm out from Monday.",
            {o("odile", "lighthouse repaint")},
        ),
        (
            "Wen",
            "Status on PIER-7:\n- lighthouse repaint: blocked until the scaffold permit is filed"
            "\n\nI'm handing the lighthouse repaint to @odile since I'm out next week.",
            {b("lighthouse repaint", "scaffold permit"), o("odile", "lighthouse repaint")},
        ),
        ("Wen", "Handing the buoy survey over to Piet.", {o("Piet", "buoy survey")}),
    ],
)
def test_hand_over_with_a_reason(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # An item followed only by how far along it is: the writer's work in hand.
        (
            "Ilse",
            "- seed catalogue scan: wip\n- (nothing else)",
            {o("Ilse", "seed catalogue scan")},
        ),
        (
            "Ilse",
            "- greenhouse label edits: 5 of 8 done, rest tmrw",
            {o("Ilse", "greenhouse label edits")},
        ),
        (
            "Ilse",
            "- loan desk kiosk: PR up (#204), needs one more review",
            {o("Ilse", "loan desk kiosk")},
        ),
        (
            "Ilse",
            "- map archive move: 2 of 6 boxes scanned, the rest next week",
            {o("Ilse", "map archive move")},
        ),
        # A "Doing:" line with its progress after a comma.
        (
            "Ilse",
            "Done: shelf audit\nDoing: barcode printer swap, 3 of 9 desks\nBlocked: none",
            {
                ("Ilse", "person", "completed", "shelf audit", "work_item"),
                o("Ilse", "barcode printer swap"),
            },
        ),
    ],
)
def test_item_with_its_progress(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Status: in progress",
        "Budget import: on track.",
        "kai: PR is up for the sitemap",
        "Coverage: 64% overnight",
    ],
)
def test_progress_without_an_item_is_no_fact(text: str) -> None:
    assert not facts_of(extract(text, "Ilse"))


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A gerund heading a two-word item is a noun, not a clause.
        ("Wen", "the buoy handling is still mine", {o("Wen", "buoy handling")}),
        ("Wen", "Odile owns the tide-gauge logging.", {o("Odile", "tide-gauge logging")}),
        (
            "Wen",
            "then back on the mooring handling (PIER-12), which is still mine",
            {o("Wen", "mooring handling")},
        ),
    ],
)
def test_gerund_heads(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_name_before_a_gerund_is_still_a_clause() -> None:
    assert not facts_of(extract("Odile driving is fine by me.", "Wen"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # "X is yours?" answered yes on the next line by its addressee.
        (
            "ilse: can't open the map room till the shelving order goes in\n"
            "ilse: @piet that one's yours right?\npiet: yep, placing it today",
            {o("Ilse", "map room"), b("map room", "shelving order"), o("piet", "shelving order")},
        ),
        (
            "ilse: @piet is the seed catalogue yours?\npiet: yes",
            {o("piet", "seed catalogue")},
        ),
    ],
)
def test_yours_answered_yes(text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, "Ilse")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ilse: is the seed catalogue yours?\npiet: nope, Odile's",
        "ilse: @piet that one's yours right?\npiet: yep",  # no work named before it
        "ilse: is the seed catalogue yours?\npiet: let me check",
    ],
)
def test_yours_without_a_yes_is_no_fact(text: str) -> None:
    assert not any(f[2] == "owns" and f[0] == "piet" for f in facts_of(extract(text, "Ilse")))


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "X — Odile is taking it": the pronoun right after the dash is the label.
        ("Wen", "- pier lamp rewiring — Odile is taking it", {o("Odile", "pier lamp rewiring")}),
        ("Wen", "- FERRY-31 timetable — Piet is on it", {o("Piet", "FERRY-31 timetable")}),
        # A pronoun after a further item keeps its nearer antecedent.
        (
            "Wen",
            "- tide gauge — still blocked by the sensor contract, Piet is finalising it",
            {
                o("Wen", "tide gauge"),
                b("tide gauge", "sensor contract"),
                o("Piet", "sensor contract"),
            },
        ),
        # A heading line that is a clause ("Splitting this up:") names no item.
        (
            "Wen",
            "Splitting this up:\n- #31 buoy parser — mine\n- #32 crane docs — @odile is taking it",
            {o("Wen", "buoy parser"), o("odile", "crane docs")},
        ),
    ],
)
def test_dash_label_taken_by_a_pronoun(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "running late" / "running a week late" says how late, not who runs anything.
        (
            "Wen",
            "The bakery refit depends on the oven audit, which is being done by Odile and is"
            " running a week late.",
            {o("Wen", "bakery refit"), b("bakery refit", "oven audit"), o("Odile", "oven audit")},
        ),
        (
            "Wen",
            "The bakery refit depends on the oven audit, which is running late.",
            {o("Wen", "bakery refit"), b("bakery refit", "oven audit")},
        ),
        ("Wen", "The oven audit is running two days behind.", set()),
        ("Wen", "Odile is running the oven audit.", {o("Odile", "oven audit")}),
    ],
)
def test_running_late_is_no_owner(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "IT" in capitals as a doer is the IT department, not the pronoun.
        (
            "Wen",
            "The library kiosk is no longer waiting on the card reader driver, which IT"
            " shipped on Monday.",
            {
                ("IT team", "team", "completed", "card reader driver", "work_item"),
                u("library kiosk", "card reader driver"),
            },
        ),
        ("Wen", "The kiosk audit sits with IT.", {o("IT team", "kiosk audit", "team")}),
        # A qualifier ("the IT ticket"), a name ("Central IT") and the pronoun stay as they are.
        ("Wen", "It is done.", set()),
        ("Wen", "The IT ticket for the kiosk is open.", set()),
    ],
)
def test_it_in_capitals_is_a_team(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_name_ending_in_it_stays_a_name() -> None:
    found = facts_of(extract("The kiosk login depends on the new IdP, owned by Central IT.", "Wen"))
    assert not any("IT team" in f[0] for f in found)


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A person assigned to a ticket owns the ticket.
        ("Wen", "Odile is assigned to #418 and expects two days.", {o("Odile", "#418")}),
        ("Wen", "Piet is assigned to LIB-77.", {o("Piet", "LIB-77")}),
        ("Wen", "LIB-77 is assigned to Piet.", {o("Piet", "LIB-77")}),
    ],
)
def test_person_assigned_to_a_ticket(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Piet's moving to the archive team next month.",
        "heads up, Odile's escalating with the vendor.",
        "Piet's leaving.",
    ],
)
def test_name_is_verbing_is_no_possessive(text: str) -> None:
    assert not facts_of(extract(text, "Wen"))


def test_possessive_with_its_item_still_owns() -> None:
    assert facts_of(extract("I reviewed Piet's shelf audit.", "Wen")) == {o("Piet", "shelf audit")}
