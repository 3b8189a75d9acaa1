"""Precision round: names that are no item, the wrong end of a fact, the wrong doer.

Each case is a construction in words of its own: what the reader must not invent, and
which item or doer it must name instead of a nearby one.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u

# A status cell ("Payroll export: A — ...", RAG letters or colours) is no item: the
# heading before it stays the subject of the rest of the line.
STATUS_CELLS = [
    (
        "Wren",
        "Portfolio status\nPayroll export: A — waiting on the tax table refresh.",
        {b("Payroll export", "tax table refresh"), o("Wren", "Payroll export")},
    ),
    (
        "Wren",
        "Portfolio status\nKiosk rollout: G — done by the field ops team last week.",
        {d("field ops team", "Kiosk rollout", "team")},
    ),
    (
        "Wren",
        "Portfolio status\nCourier onboarding: red — blocked by the insurance certificate.",
        {b("Courier onboarding", "insurance certificate"), o("Wren", "Courier onboarding")},
    ),
]

# A range of numbers written with an en dash belongs to the name ("levels 2–5"); a lone
# letter or digit is never an item of its own.
NUMBER_RANGES = [
    (
        "Wren",
        "- Voice-over pickups for levels 2–5 are done (Tomasz).",
        {d("Tomasz", "Voice-over pickups for levels 2–5")},
    ),
    (
        "Wren",
        "The reshoot for scenes 8–9 was wrapped up by Ilse yesterday.",
        {d("Ilse", "reshoot for scenes 8–9")},
    ),
]

# Who finished it: "Leon ran it" after the completion, or the owner named by a possessive
# when the item itself is what landed; "overnight" says when, it is not part of the name.
DOERS = [
    (
        "Wren",
        "the payroll reconciliation went out overnight — Dagny ran it, no errors",
        {d("Dagny", "payroll reconciliation")},
    ),
    (
        "Wren",
        "the kiln firmware patch is done, Oren did it over the weekend",
        {d("Oren", "kiln firmware patch")},
    ),
    (
        "Wren",
        "- glaze inventory sync unblocked, Oren's barcode schema landed yday",
        {
            u("glaze inventory sync", "barcode schema"),
            o("Oren", "barcode schema"),
            d("Oren", "barcode schema"),
        },
    ),
    ("Wren", "Dagny finished the tariff import overnight.", {d("Dagny", "tariff import")}),
]

# "Quick update on X:", "Good news on X (name):" introduce X; the opener is no part of
# the name, and "good news" before "on" is not filler to drop.
OPENERS = [
    (
        "Wren",
        "Quick update on the tide gauge feed: it's waiting on the buoy firmware from Oren.",
        {
            o("Wren", "tide gauge feed"),
            b("tide gauge feed", "buoy firmware"),
            o("Oren", "buoy firmware"),
        },
    ),
    (
        "Wren",
        "Good news on HAR-31 (berth planner): it is blocked by HAR-29 only.",
        {o("Wren", "berth planner"), b("berth planner", "HAR-29")},
    ),
    (
        "Wren",
        "Brief status on the crane telemetry: blocked on the modem swap.",
        {o("Wren", "crane telemetry"), b("crane telemetry", "modem swap")},
    ),
]

# A work-in-hand list with a person in brackets after each item: that person owns it,
# not the author; an item with nobody named stays the author's.
NAMED_IN_LISTS = [
    (
        "Wren",
        "In progress: glaze calculator (Ilse), kiln log export (Oren).",
        {o("Ilse", "glaze calculator"), o("Oren", "kiln log export")},
    ),
    (
        "Wren",
        "WIP: the clay order form, the studio rota (Dagny)",
        {o("Wren", "clay order form"), o("Dagny", "studio rota")},
    ),
]


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    STATUS_CELLS + NUMBER_RANGES + DOERS + OPENERS + NAMED_IN_LISTS,
)
def test_read_exactly(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_lone_letter_is_no_item() -> None:
    facts = facts_of(extract("Chair: K. Lindqvist. Scribe: M. Osei", "Wren"))
    assert not any(len(f[3]) == 1 or len(f[0]) == 1 for f in facts)


def test_a_possessive_does_not_take_an_active_verb_from_the_author() -> None:
    facts = facts_of(extract("Yesterday\n- merged Ilse's schema linter change", "Wren"))
    assert not any(f[0] == "Ilse" and f[2] == "completed" for f in facts)


def test_numbered_lines_of_minutes_name_their_speakers() -> None:
    text = (
        "Quarry planning group\n"
        "1. Ilse: the blast survey is finished.\n"
        "2. Oren: the haul road resurfacing is blocked by the drainage permit."
    )
    facts = facts_of(extract(text, "Wren"))
    assert d("Ilse", "blast survey") in facts
    assert o("Oren", "haul road resurfacing") in facts
    assert not any(f[0] == "Wren" for f in facts)


@pytest.mark.parametrize(
    "text",
    [
        "Drainage survey is mine, about half done.",
        "- culvert relining: half done, the road reopening needs it first",
        "the drainage survey is partly done",
        "the culvert relining is partially complete",
    ],
)
def test_a_degree_of_done_finishes_nothing(text: str) -> None:
    assert not any(f[2] == "completed" for f in facts_of(extract(text, "Wren")))


def test_half_done_keeps_the_wait_it_states() -> None:
    facts = facts_of(
        extract("- culvert relining: about half done, the road reopening needs it first", "Wren")
    )
    assert b("road reopening", "culvert relining") in facts


def test_a_pointer_into_the_text_is_no_blocker() -> None:
    text = "- tide gauge feed — still blocked by the buoy lease\nBlockers: see above"
    assert facts_of(extract(text, "Wren")) == {
        o("Wren", "tide gauge feed"),
        b("tide gauge feed", "buoy lease"),
    }
    assert facts_of(extract("Go-live: 3 May, subject to the above.", "Wren")) == set()


def test_a_ticket_title_without_a_colon_is_the_subject_of_a_bare_wait() -> None:
    text = "HAR-7 berth planner\nBlocked on HAR-3 (tide table fix), which Leon is finishing up."
    facts = facts_of(extract(text, "Wren"))
    assert b("berth planner", "tide table fix") in facts
    assert not any(f[0] == "Wren" and f[2] == "blocked_by" for f in facts)


@pytest.mark.parametrize("particle", ["up", "off", "out", "down"])
def test_a_particle_is_no_item(particle: str) -> None:
    facts = facts_of(extract(f"the pump retrofit is done, Oren is wrapping {particle}", "Wren"))
    assert not any(f[3] == particle for f in facts)
