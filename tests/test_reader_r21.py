"""Owners and doers named beside their items, in constructions the earlier rules missed.

Each case is written in its own words (a pottery studio, a ferry line, a bakery...): the
rule reads a construction, never a phrasing from the benchmark corpus.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u

# A work-in-hand list whose entries carry their owner's name in brackets: each name owns
# its entry, and the writer owns only the entries with no name.
DOING_LIST_OWNERS = [
    (
        "Wen",
        "In progress: kiln relining (Odile), glaze inventory (Piet).",
        {o("Odile", "kiln relining"), o("Piet", "glaze inventory")},
    ),
    (
        "Wen",
        "WIP: the ferry timetable export (Marguerite); the harbour signage.",
        {o("Marguerite", "ferry timetable export"), o("Wen", "harbour signage")},
    ),
    (
        "Wen",
        "In progress: sourdough starter audit (Kofi Mensah) and oven rota (Ines).",
        {o("Kofi Mensah", "sourdough starter audit"), o("Ines", "oven rota")},
    ),
]


@pytest.mark.parametrize(("author", "text", "expected"), DOING_LIST_OWNERS)
def test_a_doing_list_names_each_entrys_owner(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_doing_list_without_names_stays_the_writers() -> None:
    facts = facts_of(extract("In progress: kiln relining, glaze inventory.", "Wen"))
    assert facts == {o("Wen", "kiln relining"), o("Wen", "glaze inventory")}


# Verbs of finishing beyond ship/merge/close: a thing built, applied, renewed, rebuilt,
# implemented, or a bug squashed is done work.
FINISHING_VERBS = [
    ("Wen", "Yesterday I squashed the glaze crazing bug.", {d("Wen", "glaze crazing bug")}),
    (
        "Wen",
        "Odile applied the kiln firmware update last night.",
        {d("Odile", "kiln firmware update")},
    ),
    ("Wen", "The ferry booking widget was rebuilt by Piet.", {d("Piet", "ferry booking widget")}),
    ("Wen", "Piet implemented the tide table cache on Monday.", {d("Piet", "tide table cache")}),
    ("Wen", "- harbour wifi certificate renewed", {d("Wen", "harbour wifi certificate")}),
    (
        "Wen",
        "Marguerite built and published the sourdough costing sheet.",
        {d("Marguerite", "sourdough costing sheet")},
    ),
]


@pytest.mark.parametrize(("author", "text", "expected"), FINISHING_VERBS)
def test_more_verbs_of_finishing(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Will resume once the kiln patch is implemented.",
        "We should build the tide table cache next sprint.",
        "The certificate needs to be renewed before Friday.",
    ],
)
def test_a_finishing_verb_in_a_plan_or_a_wait_finishes_nothing(text: str) -> None:
    assert not any(f[2] == "completed" for f in facts_of(extract(text, "Wen")))


# Ownership given by allocation or stated as a remit.
ALLOCATED_OWNERS = [
    ("Wen", "The dune survey has been allocated to Odile.", {o("Odile", "dune survey")}),
    ("Wen", "The pier lighting was delegated to Piet last week.", {o("Piet", "pier lighting")}),
    (
        "Wen",
        "The ticket barrier upgrade is the responsibility of the harbour team.",
        {o("harbour team", "ticket barrier upgrade", "team")},
    ),
    (
        "Wen",
        "The ferry app relaunch waits on the fare tables, which are the remit of Marguerite.",
        {
            o("Wen", "ferry app relaunch"),
            b("ferry app relaunch", "fare tables"),
            o("Marguerite", "fare tables"),
        },
    ),
]


@pytest.mark.parametrize(("author", "text", "expected"), ALLOCATED_OWNERS)
def test_allocated_to_and_the_responsibility_of_name_owners(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


# Work named with its owner's possessive, finished with no doer named: the owner finished
# it, not the writer. The writer still did what they say they did themselves.
POSSESSOR_FINISHED = [
    (
        "Wen",
        "The pier app is unblocked now that Odile's fare table merged.",
        {u("pier app", "fare table"), o("Odile", "fare table"), d("Odile", "fare table")},
    ),
    (
        "Wen",
        "Piet's tide feed landed yesterday.",
        {o("Piet", "tide feed"), d("Piet", "tide feed")},
    ),
    ("Wen", "- merged Odile's fare table", {o("Odile", "fare table"), d("Wen", "fare table")}),
    ("Wen", "My tide feed landed.", {o("Wen", "tide feed"), d("Wen", "tide feed")}),
]


@pytest.mark.parametrize(("author", "text", "expected"), POSSESSOR_FINISHED)
def test_the_possessor_of_finished_work_finished_it(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_source_is_no_possessor() -> None:
    facts = facts_of(extract("The fare table from Odile is done.", "Wen"))
    assert d("Wen", "fare table") in facts
    assert d("Odile", "fare table") not in facts


# How long a hand-over lasts ("for the weekend") is no part of the new owner's name, and
# a day in the possessive ("Sunday's regatta") is part of an item's name, not a time.
@pytest.mark.parametrize(
    "text",
    [
        "- BUOY-7 handed to Piet for the weekend",
        "BUOY-7 was handed over to Piet for the week.",
    ],
)
def test_how_long_a_hand_over_lasts_is_no_part_of_the_owner(text: str) -> None:
    assert facts_of(extract(text, "Wen")) == {o("Piet", "BUOY-7")}


def test_a_day_in_the_possessive_is_part_of_the_name() -> None:
    facts = facts_of(extract("The seating plan for Sunday's regatta is done.", "Wen"))
    assert facts == {d("Wen", "seating plan for Sunday's regatta")}


# Work done in part is not finished ("hedges give nothing").
@pytest.mark.parametrize(
    "text",
    [
        "The buoy charts are partially migrated.",
        "Partly shipped the tide feed, the rest next week.",
        "We're halfway migrated on the fare tables.",
    ],
)
def test_work_done_in_part_is_not_finished(text: str) -> None:
    assert not any(f[2] == "completed" for f in facts_of(extract(text, "Wen")))


# A chat transcript in lowercase handles ("wen: ...", "piet: ..."), the writer among them:
# each handle speaks for their own line, and the writer's handle is the writer.
def test_lowercase_handles_of_a_chat_transcript_are_speakers() -> None:
    text = "wen: merged the buoy alarm fix\npiet: nice\nodile: closed the tide feed ticket too"
    facts = facts_of(extract(text, "Wen Li"))
    assert d("Wen Li", "buoy alarm fix") in facts
    assert not any(f[0] in ("piet", "Wen Li") and f[3] == "nice" for f in facts)


def test_a_handle_is_no_item_owned_by_the_writer() -> None:
    text = "wen: heads up odile, the pier app is still stuck on the fare table\nodile: ok"
    facts = facts_of(extract(text, "Wen Li"))
    assert not any(f[3] in ("odile", "ok") for f in facts)


# "who's got X?" answered on the next line: "mine" or "on it" by the one who answers, a
# name alone by that person; "and the Y?" asks the same of Y.
WHO_HOLDS = [
    (
        "wen: who's got the buoy alarm rota?\npiet: that's mine, after lunch\n"
        "wen: cool, and the tide feed?\npiet: also mine",
        {o("piet", "buoy alarm rota"), o("piet", "tide feed")},
    ),
    (
        "odile: anyone free for the pier light outage?\nwen: on it",
        {o("Wen Li", "pier light outage")},
    ),
    ("Odile: who has the harbour map?\nPiet: Marguerite", {o("Marguerite", "harbour map")}),
]


@pytest.mark.parametrize(("text", "expected"), WHO_HOLDS)
def test_the_answer_to_who_holds_x_names_its_owner(
    text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, "Wen Li")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "odile: who broke the pier lights?\npiet: no idea",
        "odile: on it\npiet: thanks",  # no question asked
        "odile: who's got the harbour map?\npiet: nice weather today\nwen: mine",
    ],
)
def test_no_owner_without_a_question_and_its_answer(text: str) -> None:
    assert not any(f[2] == "owns" for f in facts_of(extract(text, "Wen Li")))


# An item with its owner's name as a field's value, then more about the item: the name
# owns the item, and what follows is the owner's report on it.
ITEM_OWNER_FIELDS = [
    (
        "- Buoy charts: Piet — held up by the chart licence.",
        {o("Piet", "Buoy charts"), b("Buoy charts", "chart licence")},
    ),
    ("- Tide import job: Marguerite, due mid-March.", {o("Marguerite", "Tide import job")}),
    ("- Fare map v2 — Kofi's, in design.", {o("Kofi", "Fare map v2")}),
    (
        "2. Pier light alias — Odile, already shipped",
        {o("Odile", "Pier light alias"), d("Odile", "Pier light alias")},
    ),
]


@pytest.mark.parametrize(("text", "expected"), ITEM_OWNER_FIELDS)
def test_an_item_owner_field_then_more_about_the_item(
    text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(f"Ferry weekly\n{text}", "Wen")) == expected


@pytest.mark.parametrize(
    "text",
    [
        "- Decision: Odile, please book the hall.",
        "- Status: Amber, two berths behind.",
        "- Odile: Piet, can you check the buoys?",
    ],
)
def test_a_label_or_a_speaker_is_no_item_owner_field(text: str) -> None:
    facts = facts_of(extract(f"Ferry weekly\n{text}", "Wen"))
    assert not any(f[3] in ("Decision", "Status", "Odile") for f in facts)


# Taking work back up ("picked it back up", "is picking this back up"), and "Picking this
# up" with no subject on a ticket's comment: the ticket is the writer's.
PICKED_BACK_UP = [
    (
        "FER-88: Pier light timer\nPicking this up. Piet is out this sprint.",
        {o("Wen", "Pier light timer")},
    ),
    (
        "FER-91: the fare table is unblocked. @odile is picking this back up.",
        {o("odile", "FER-91")},
    ),
    (
        "The dune survey is free to start again, so Piet has picked it back up.",
        {o("Piet", "dune survey")},
    ),
]


@pytest.mark.parametrize(("text", "expected"), PICKED_BACK_UP)
def test_picking_work_back_up_names_its_owner(text: str, expected: set[tuple[str, ...]]) -> None:
    owns = {f for f in facts_of(extract(text, "Wen")) if f[2] == "owns"}
    assert owns == expected


def test_picking_up_with_no_subject_mid_sentence_is_no_owner() -> None:
    facts = facts_of(extract("Kids picking this up at school is fine.", "Wen"))
    assert not any(f[2] == "owns" for f in facts)


# Who closed a ticket, said in brackets after the work it stands for, did that work; a
# ticket's comment opening with a passive and its agent ("Merged by @piet") is the ticket.
def test_a_bracketed_ticket_closed_by_someone_credits_them() -> None:
    text = "Pier app now unblocked, the chart resize went through Tuesday (FER-55 closed by Piet)."
    facts = facts_of(extract(text, "Wen"))
    assert d("Piet", "chart resize") in facts
    assert d("Wen", "chart resize") not in facts


def test_a_comment_opening_with_a_passive_and_its_agent_is_the_tickets() -> None:
    text = "FER-12: Pier light timer\nMerged by @piet after review. Deployed by the harbour team."
    facts = facts_of(extract(text, "Wen"))
    assert d("piet", "Pier light timer") in facts
    assert d("harbour team", "Pier light timer", "team") in facts


def test_a_passive_with_an_agent_and_no_ticket_finishes_nothing() -> None:
    assert facts_of(extract("Merged by Piet after review.", "Wen")) == set()


# A ticked action item with its assignee first was done by the assignee.
@pytest.mark.parametrize(
    "line",
    [
        "- [x] Odile: circulate the berth plan",
        "[x] Odile — circulate the berth plan (done)",
        "* [X] Odile - circulate the berth plan",
    ],
)
def test_a_ticked_action_was_done_by_its_assignee(line: str) -> None:
    text = f"Ferry weekly\nAction items\n- [ ] Piet: write up the timetable comms\n{line}"
    facts = facts_of(extract(text, "Wen"))
    assert o("Piet", "timetable comms") in facts
    assert any(f[0] == "Odile" and f[2] == "completed" and "berth plan" in f[3] for f in facts)
    assert not any(f[0] == "Odile" and f[2] == "owns" for f in facts)
