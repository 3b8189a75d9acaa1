"""Unblocks and waits said the long way round, read in round 23.

An unblock is often told without the word: what was finished comes first and the freed
work "can start" after it ("the hull survey is done, so the repaint can start"), or the
freed work comes first and the reason after ("the repaint can go ahead now that the hull
survey is signed off"). Each case pins the general form with sentences written for this
file (boats, orchards, bakeries, libraries); the last tests pin what must stay no fact.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # What was done, then "so X can start": X no longer waits on it.
        (
            "Ilse",
            "the hull survey is done, so the keel repaint can start",
            {d("Ilse", "hull survey"), u("keel repaint", "hull survey")},
        ),
        (
            "Ilse",
            "Bram signed off the cider press inspection, so the autumn pressing can begin",
            {d("Bram", "cider press inspection"), u("autumn pressing", "cider press inspection")},
        ),
        # ... with a destination after the verb ("can move to testing").
        (
            "Ilse",
            "the oven thermostat swap landed, so the sourdough line can move to trials",
            {d("Ilse", "oven thermostat swap"), u("sourdough line", "oven thermostat swap")},
        ),
        # "with Y done, X can start": the absolute clause gives the reason.
        (
            "Ilse",
            "with the shelving grant approved, the reading room refit can begin",
            {u("reading room refit", "shelving grant")},
        ),
        # The first person takes the freed work up again: the work is the object.
        (
            "Ilse",
            "the mast rigging check landed, so we can get going on the sail fitting",
            {d("Ilse", "mast rigging check"), u("sail fitting", "mast rigging check")},
        ),
        (
            "Ilse",
            "the pallet racking order arrived, so I can pick the stockroom layout back up",
            {u("stockroom layout", "pallet racking order")},
        ),
        # The freed work first, the reason after: "X can go ahead now that Y is in".
        (
            "Ilse",
            "the apple grading trial can go ahead now that the sorter calibration is signed off",
            {d("Ilse", "sorter calibration"), u("apple grading trial", "sorter calibration")},
        ),
    ],
)
def test_unblock_told_by_what_may_now_start(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "moving again" / "free again": the "again" says the wait is over, so it stays.
        (
            "Ilse",
            "the ferry timetable rework is moving again now that the berth survey is in",
            {d("Ilse", "berth survey"), u("ferry timetable rework", "berth survey")},
        ),
        (
            "Ilse",
            "the orchard netting job is free again, the ladder inspection landed last night",
            {d("Ilse", "ladder inspection"), u("orchard netting job", "ladder inspection")},
        ),
        # The wait itself said to be over: "stopped waiting on", "doesn't need to wait for".
        (
            "Ilse",
            "LIB-40 stopped waiting on the catalogue export",
            {u("LIB-40", "catalogue export")},
        ),
        (
            "Ilse",
            "the reading list import doesn't need to wait for the barcode audit any more",
            {u("reading list import", "barcode audit")},
        ),
        (
            "Ilse",
            "the bread van route no longer needs the depot keypad fix",
            {u("bread van route", "depot keypad fix")},
        ),
        # Nothing stands in the way of X: X is free of what was just done.
        (
            "Ilse",
            "the harbour crane check landed, so nothing is in the way of the buoy refit now",
            {d("Ilse", "harbour crane check"), u("buoy refit", "harbour crane check")},
        ),
        # A mention before a ticket addresses someone: the ticket is the subject.
        (
            "Ilse",
            "Re LIB-12: merged this morning. @piet LIB-15 doesn't need to wait on it anymore.",
            {d("Ilse", "LIB-12"), u("LIB-15", "LIB-12")},
        ),
        # "so that's moving again" after the unblock: the same unblock, said once.
        (
            "Ilse",
            "- the rota app: stuck until the payroll feed fix lands\n"
            "- the shift swap screen is no longer waiting on the leave calendar, so that's "
            "moving again",
            {
                o("Ilse", "rota app"),
                b("rota app", "payroll feed fix"),
                u("shift swap screen", "leave calendar"),
            },
        ),
    ],
)
def test_unblock_said_of_the_wait(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "X is unblocked!" and, in the next sentence of the same line, who delivered what.
        (
            "Ilse",
            "- the loan renewals batch is unblocked! Piet shipped the patron export yesterday",
            {d("Piet", "patron export"), u("loan renewals batch", "patron export")},
        ),
        (
            "Ilse",
            "the buoy refit is unblocked. The harbour crane check landed this morning.",
            {d("Ilse", "harbour crane check"), u("buoy refit", "harbour crane check")},
        ),
    ],
)
def test_unblock_with_its_reason_in_the_next_sentence(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # Separate news after the unblock, or news of the writer's own, names no reason.
        "the buoy refit is unblocked. Piet fixed the door hinge too.",
        "the buoy refit is unblocked. I fixed the door hinge as well.",
        # The next line is other news.
        "- the buoy refit is unblocked\n- Piet shipped the mooring chart",
    ],
)
def test_no_reason_from_other_news(text: str) -> None:
    facts = facts_of(extract(text, "Ilse"))
    assert not any(f[2] == "unblocked_from" for f in facts), facts


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "can't VERB until Y <event>": the event may be any participle of Y ("is promoted",
        # "is handed back by T") or an arrival ("goes through").
        (
            "Ilse",
            "the lending kiosk can't go live until the card reader firmware goes through",
            {o("Ilse", "lending kiosk"), b("lending kiosk", "card reader firmware")},
        ),
        (
            "Ilse",
            "the tasting menu can't run until the cold room is recommissioned",
            {o("Ilse", "tasting menu"), b("tasting menu", "cold room")},
        ),
        (
            "Ilse",
            "the slipway repaint can't start until the cradle is handed back by the riggers",
            {o("Ilse", "slipway repaint"), b("slipway repaint", "cradle")},
        ),
        # ... or told with its doer: "until procurement signs the lease", the lease.
        (
            "Ilse",
            "the pop-up bakery can't open to the public until the licensing office signs the "
            "street trading licence",
            {o("Ilse", "pop-up bakery"), b("pop-up bakery", "street trading licence")},
        ),
        (
            "Ilse",
            "we can't re-index the archive until the records team publishes the new "
            "subject headings",
            {o("Ilse", "archive"), b("archive", "new subject headings")},
        ),
    ],
)
def test_wait_until_an_event_of_the_blocker(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # Told from the blocker's side, in nominal form: "Y is the holdup for X".
        (
            "Ilse",
            "the pier licence is the bottleneck for the summer ferry timetable",
            {o("Ilse", "summer ferry timetable"), b("summer ferry timetable", "pier licence")},
        ),
        (
            "Ilse",
            "the flour contract is the main holdup on the new rye loaf",
            {o("Ilse", "new rye loaf"), b("new rye loaf", "flour contract")},
        ),
        # A cleft that holds "everything" up on X.
        (
            "Ilse",
            "the shelving audit is what's holding everything up on the map room reopening",
            {o("Ilse", "map room reopening"), b("map room reopening", "shelving audit")},
        ),
        # "the last thing standing between us and X".
        (
            "Ilse",
            "LIB-77 is the last thing standing between us and the autumn catalogue",
            {o("Ilse", "autumn catalogue"), b("autumn catalogue", "LIB-77")},
        ),
    ],
)
def test_wait_told_from_the_blocker_side(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # A start that waits on what is still to come is a wait, not an unblock.
        "the keel repaint can start once the hull survey is done",
        "the keel repaint can start if the hull survey is done",
        # Who may start, with no work named, frees nothing.
        "the hull survey is done, so we can start",
        # No reason given: nothing says what the start waited on.
        "the keel repaint can start next week",
    ],
)
def test_no_unblock_from_a_start_alone(text: str) -> None:
    facts = facts_of(extract(text, "Ilse"))
    assert not any(f[2] == "unblocked_from" for f in facts), facts


@pytest.mark.parametrize(
    "text",
    [
        # A state of the world, or a doer who is no one in particular, names no work.
        "the harvest can't start until the weather is settled",
        "I can't relax until Friday is over",
        "the stall can't open until someone finishes the washing up",
    ],
)
def test_no_wait_until_a_state(text: str) -> None:
    facts = facts_of(extract(text, "Ilse"))
    assert not any(f[2] == "blocked_by" for f in facts), facts
