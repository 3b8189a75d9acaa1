"""Owners and the items bullets sit under, as people lay them out in notes.

Real notes nest bullets: an item as a bullet ending in a colon, what is known about it
in deeper bullets ("- Kiln relining:" over "  * Odile is running it"); a standup's
sections as bullets over their own ("- Today:" over "  - the importer"). The deeper
bullets take the item (or the section) as their subject, and a bullet back at the
outer level leaves it. Ownership phrases with an adverb or a light verb in front ("still
on the hook for X", "is taking point on X") name X, and a time at the end of a clause
("which Odile is running this term") is no item.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o

NESTED = [
    (
        "Wen",
        "- Kiln relining:\n  * Odile is running it\n  * can't start until the refractory"
        " bricks arrive\n- Piet: finished the glaze trials",
        {
            o("Odile", "Kiln relining"),
            b("Kiln relining", "refractory bricks"),
            d("Piet", "glaze trials"),
        },
    ),
    (
        "Wen",
        "- Kiln relining:\n  - blocked on the refractory bricks\n- also fixed the vent fan",
        {
            o("Wen", "Kiln relining"),
            b("Kiln relining", "refractory bricks"),
            d("Wen", "vent fan"),
        },
    ),
    (
        "Wen",
        "Minutes, studio sync\n- Kiln relining:\n  * Odile owns it\n  * waiting on the bricks",
        {o("Odile", "Kiln relining"), b("Kiln relining", "bricks")},
    ),
    (
        "Wen",
        "- Yesterday:\n  - shipped the stock counter\n- Today:\n  - the reorder report",
        {d("Wen", "stock counter"), o("Wen", "reorder report")},
    ),
    (
        "Wen",
        "* **Done:**\n  * the stock counter\n* **Today:**\n  * the reorder report",
        {d("Wen", "stock counter"), o("Wen", "reorder report")},
    ),
]

OWNER_PHRASES = [
    ("Wen", "- still on the hook for the pallet audit", {o("Wen", "pallet audit")}),
    ("Wen", "Odile is taking point on the supplier shortlist.", {o("Odile", "supplier shortlist")}),
    ("Wen", "Piet took point on the loading bay rota.", {o("Piet", "loading bay rota")}),
    ("Wen", "Odile has point on the kiln schedule.", {o("Odile", "kiln schedule")}),
    ("Wen", "I'm now responsible for the kiln rota.", {o("Wen", "kiln rota")}),
]


# Whose a blocker is, said in the clause after it.
BLOCKER_OWNERS = [
    (
        "Wen",
        "The kiln relining waits on the gas permit, which is in Odile's hands.",
        {o("Wen", "kiln relining"), b("kiln relining", "gas permit"), o("Odile", "gas permit")},
    ),
    (
        "Wen",
        "The glaze trials are held up by the vent upgrade, which Piet in facilities owns.",
        {o("Wen", "glaze trials"), b("glaze trials", "vent upgrade"), o("Piet", "vent upgrade")},
    ),
    (
        "Wen",
        "The shop launch is gated on the stock import, which the data team is finishing.",
        {
            o("Wen", "shop launch"),
            b("shop launch", "stock import"),
            o("data team", "stock import", "team"),
        },
    ),
    ("Wen", "Ife from the data team owns the churn model.", {o("Ife", "churn model")}),
    (
        "Wen",
        "The relining can't go ahead until the permit is signed; Odile is taking point on chasing it.",
        {o("Wen", "relining"), b("relining", "permit"), o("Odile", "permit")},
    ),
]


@pytest.mark.parametrize(("author", "text", "expected"), NESTED + OWNER_PHRASES + BLOCKER_OWNERS)
def test_owners_and_nested_bullets(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_time_at_the_end_of_a_clause_is_no_item() -> None:
    for text in (
        "The intake review, which Odile is running this cycle, is on track.",
        "Piet is running it this term.",
    ):
        named = {f.target.name.lower() for f in extract(text, "Wen").facts}
        assert not any(n.startswith("this ") for n in named), named


def test_it_after_an_unblock_is_the_work_that_moves_again() -> None:
    text = "The crate labelling is unblocked now that the scanner firmware shipped. Odile is running it."
    facts = facts_of(extract(text, "Wen"))
    assert o("Odile", "crate labelling") in facts
    assert o("Odile", "scanner firmware") not in facts


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Handing KLN-4 to @odile.m, who knows the burners.", {o("odile.m", "KLN-4")}),
        ("@piet_v owns the glaze log.", {o("piet_v", "glaze log")}),
        ("The glaze log is with @piet_v now.", {o("piet_v", "glaze log")}),
    ],
)
def test_a_chat_handle_with_a_dot_or_underscore_is_a_person(
    text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, "Wen")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "**KLN-12** — Relined the east kiln and fired a test load. Closing this.",
        "KLN-12: relined the east kiln. Closing this.",
        "**KLN-12**\nRelined the east kiln, test load fine. Closing this one.",
    ],
)
def test_closing_this_closes_the_ticket_the_comment_is_on(text: str) -> None:
    assert d("Wen", "KLN-12") in facts_of(extract(text, "Wen"))


def test_closing_this_with_no_ticket_closes_nothing() -> None:
    facts = facts_of(extract("Relined the east kiln. Closing this.", "Wen"))
    assert not any(f[2] == "completed" and f[3] != "east kiln" for f in facts)


@pytest.mark.parametrize(
    "text",
    [
        "Odile is on the glaze log from today.",
        "Odile owns the glaze log starting tomorrow.",
        "Odile takes over the glaze log effective today.",
    ],
)
def test_when_an_ownership_starts_is_no_part_of_the_item(text: str) -> None:
    assert facts_of(extract(text, "Wen")) == {o("Odile", "glaze log")}
