"""Action items name their object and stop: a place, a day or a way of doing it after
the object is not part of the work item, and "keep chasing X" is about X."""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract


def _read(text: str) -> set[tuple[str, str, str]]:
    return {(f.source.name, f.relation.value, f.target.name) for f in extract(text, "Noor").facts}


@pytest.mark.parametrize(
    ("text", "fact"),
    [
        ("ACTION: Femi to move LAB-88 onto the March release train", ("Femi", "owns", "LAB-88")),
        ("Action: Ilse to fold the pager rota into the handbook", ("Ilse", "owns", "pager rota")),
        (
            "AI - Tomo to keep chasing the TLS renewal with procurement",
            ("Tomo", "owns", "TLS renewal"),
        ),
        ("ACTION: Rhea to start drafting the tenancy FAQ", ("Rhea", "owns", "tenancy FAQ")),
        (
            "- [ ] Basia — apply OPS-311 Tuesday and tell the on-call lead",
            ("Basia", "owns", "OPS-311"),
        ),
        ("Kofi: get the ward printers onto the new queue", ("Kofi", "owns", "ward printers")),
    ],
)
def test_the_object_of_an_action_item_ends_where_the_work_item_does(
    text: str, fact: tuple[str, str, str]
) -> None:
    assert _read(text) == {fact}


def test_a_name_and_a_noun_that_is_also_a_verb_is_not_an_action() -> None:
    # "push" is no to-do verb: this line reports an unblock
    assert ("push alerts", "unblocked_from", "signing key") in _read(
        "Wanda: push alerts are unblocked now that Ravi rotated the signing key."
    )


@pytest.mark.parametrize(
    ("text", "item"),
    [
        ("Today: carrying on with the tram timetable import", "tram timetable import"),
        ("- doing: following up on the scanner lease renewal", "scanner lease renewal"),
        ("WIP: knocking out the remaining locale strings", "remaining locale strings"),
        ("Today: pressing on with our intake form redesign", "intake form redesign"),
    ],
)
def test_today_names_the_item_not_the_activity(text: str, item: str) -> None:
    assert _read(text) == {("Noor", "owns", item)}
