"""References read in round 25: what "this", "it", "this PR" and their kin name.

In a comment on a ticket, "this" (and "this one", "this PR", "this epic") is the ticket
the comment sits on, wherever the comment names it: a title line ("TEL-12 · comment"), a
comment opener ("Comment on BAKE-41:", "(on SEED-31)", "Triage note on #904:"), or a
ticket the update opens with as its subject ("KIL-5 (glaze recipe export) is deployed").
Each case pins the general form with sentences written for this file (bakeries,
observatories, gardens, kilns, libraries); the last tests pin what must stay as it was.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A comment opener names the page; "this" waits though another item was named.
        (
            "Lotte",
            "Comment on BAKE-41:\nRetested the proofing timer on the old ovens and it holds. "
            "The mixer driver looks fine too, but this can't ship until BAKE-38 (the oven "
            "firmware bump) is merged.",
            {o("Lotte", "BAKE-41"), b("BAKE-41", "oven firmware bump")},
        ),
        # "this PR" on a page whose id is written org/repo#N.
        (
            "Lotte",
            "Update on astro/scope#77: I've handed this PR to @ilka since I'm away next week.",
            {o("ilka", "astro/scope#77")},
        ),
        # "this one" beside another ticket, the opener a note on the page.
        (
            "Lotte",
            "Triage note on #904: the lens cache rewrite (#899) is what's holding up this one "
            "and #907 too.",
            {
                o("Lotte", "#904"),
                o("Lotte", "#907"),
                b("#904", "lens cache rewrite"),
                b("#907", "lens cache rewrite"),
            },
        ),
        # "(on SEED-31)" as the opener.
        (
            "Lotte",
            "(on SEED-31) Quick status: the tray scanner works on a branch, and this needs the "
            "humidity probe driver from SEED-29 first.",
            {o("Lotte", "SEED-31"), b("SEED-31", "humidity probe driver")},
        ),
        # A title line with no name of its own ("· comment"): "it" with nothing named
        # before is the ticket, not the writer.
        (
            "Lotte",
            "TEL-12 · comment\nParking this one: it depends on TEL-9 (mirror alignment script).",
            {o("Lotte", "TEL-12"), b("TEL-12", "mirror alignment script")},
        ),
        # A title naming the ticket: the name; a title reporting a symptom: the id.
        (
            "Lotte",
            "Status on LIB-220 (catalogue sync)\nThe shelf map work it was waiting on (LIB-214) "
            "was finished by Oskar yesterday, so this is unblocked.",
            {d("Oskar", "shelf map work"), u("catalogue sync", "shelf map work")},
        ),
        (
            "Lotte",
            "GARD-90: germination chart shows blank rows\nThe sensor export for March never "
            "ran, so this is blocked on GARD-85 (sensor export backfill).",
            {o("Lotte", "GARD-90"), b("GARD-90", "sensor export backfill")},
        ),
        # The update opens with a ticket as subject: a later "this" is that ticket.
        (
            "Lotte",
            "KIL-5 (glaze recipe export) is deployed. Ran it against the spring batch. The "
            "kiln schedule importer (KIL-8) was gated on this and is unblocked now.",
            {d("Lotte", "glaze recipe export"), u("kiln schedule importer", "glaze recipe export")},
        ),
        # "Closing this epic", "Closing this RFI": the page is what was closed.
        (
            "Lotte",
            "BAKE-77 Croissant line rollout\nAll three shops switched over last week. Closing "
            "this epic.",
            {d("Lotte", "Croissant line rollout")},
        ),
        (
            "Lotte",
            "FERRY-12: the berth schedule is ready. Closing this RFI.",
            {d("Lotte", "FERRY-12")},
        ),
        # "it" right after a ticket in its own sentence is that ticket, not the page.
        (
            "Lotte",
            "Re: GARD-70 trowel inventory drift\nPatch is in PR #512 but it can't merge until "
            "GARD-66 (the stock ledger rework) lands.",
            {o("Lotte", "PR #512"), b("PR #512", "stock ledger rework")},
        ),
    ],
)
def test_this_in_a_comment_is_the_ticket(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # No ticket anywhere: "this" is the item named before it.
        (
            "Lotte",
            "The rota export is stuck; this is waiting on the staff API.",
            {o("Lotte", "rota export"), b("rota export", "staff API")},
        ),
        # A line's own label beats the page: "this one" is the label's item.
        ("Lotte", "OPS-5 follow-up\n1. Pager rota: I have this one.", {o("Lotte", "Pager rota")}),
        (
            "Lotte",
            "ORCH-3 · reply\nGrafting log sync: Pia has this one now.",
            {o("Pia", "Grafting log sync")},
        ),
    ],
)
def test_this_without_a_page(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # The clause before "it" states something of its subject and no fact: "it" is
        # that subject, not the item named on an earlier line.
        (
            "Wren",
            "Today\n- keep going on the dough sheeter repair\n"
            "- the glaze kiln is a separate headache: it's waiting on KIL-40 (vent permit)",
            {
                o("Wren", "dough sheeter repair"),
                o("Wren", "glaze kiln"),
                b("glaze kiln", "vent permit"),
            },
        ),
        # ... not the ticket closed in the sentence before.
        (
            "Wren",
            "Closed SHED-10 and SHED-12. SHED-15 is still open: it depends on the hinge "
            "supplier API.",
            {
                d("Wren", "SHED-10"),
                d("Wren", "SHED-12"),
                o("Wren", "SHED-15"),
                b("SHED-15", "hinge supplier API"),
            },
        ),
        # ... nor the writer, when nothing was named before; "planned for Saturday" is
        # no part of the name.
        (
            "Wren",
            "The orchard survey planned for Saturday has been postponed; it cannot proceed "
            "until the drone licence renewal is approved.",
            {o("Wren", "orchard survey"), b("orchard survey", "drone licence renewal")},
        ),
        # "about X:" names the subject and nothing else.
        (
            "Wren",
            "- about the seating planner: it was depending on the venue floor plan, now the "
            "floor plan is merged so it can go ahead",
            {u("seating planner", "venue floor plan"), d("Wren", "venue floor plan")},
        ),
        # A heading lent by an earlier sentence of the line gives way to an item named
        # after it: "it" is the ticket just picked up, not the one just closed.
        (
            "Wren",
            "BK-4 rye starter: closed. Also picked up BK-9 (spelt trial) from Noor since "
            "she's away; it stopped waiting on the flour delivery yesterday.",
            {
                d("Wren", "rye starter"),
                o("Wren", "spelt trial"),
                u("spelt trial", "flour delivery"),
            },
        ),
    ],
)
def test_it_after_a_clause_about_its_subject(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A clause reporting its subject done gives no subject: "it" is what was freed.
        (
            "Wren",
            "The mould survey was waiting on the dehumidifier install. The dehumidifier "
            "install is finally done; it is unblocked now.",
            {
                o("Wren", "mould survey"),
                b("mould survey", "dehumidifier install"),
                d("Wren", "dehumidifier install"),
                u("mould survey", "dehumidifier install"),
            },
        ),
        # A clause that states a wait: "it" is still the item that waits.
        (
            "Wren",
            "The boiler swap is blocked on the gas permit; it also needs the flue inspection "
            "first.",
            {
                o("Wren", "boiler swap"),
                b("boiler swap", "gas permit"),
                b("boiler swap", "flue inspection"),
            },
        ),
        (
            "Wren",
            "The vent permit came through, so the glaze kiln is unblocked. Mira is picking it "
            "back up.",
            {u("glaze kiln", "vent permit"), o("Mira", "glaze kiln")},
        ),
    ],
)
def test_it_keeps_the_freed_or_waiting_item(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "in turn" / "itself": a chain of waits; the pronoun is the blocker named last.
        (
            "Wren",
            "The seed catalogue waits on the barcode printer. That in turn needs the label "
            "stock order first.",
            {
                o("Wren", "seed catalogue"),
                b("seed catalogue", "barcode printer"),
                o("Wren", "barcode printer"),
                b("barcode printer", "label stock order"),
            },
        ),
        (
            "Wren",
            "The seed catalogue waits on the barcode printer. It in turn is waiting on the "
            "label stock order.",
            {
                o("Wren", "seed catalogue"),
                b("seed catalogue", "barcode printer"),
                o("Wren", "barcode printer"),
                b("barcode printer", "label stock order"),
            },
        ),
        (
            "Wren",
            "The seed catalogue is blocked on the barcode printer, which is itself waiting on "
            "the label stock order.",
            {
                o("Wren", "seed catalogue"),
                b("seed catalogue", "barcode printer"),
                o("Wren", "barcode printer"),
                b("barcode printer", "label stock order"),
            },
        ),
        # "which" after "Y (Rosa)": Y, not the person in the aside.
        (
            "Wren",
            "The seed catalogue is blocked on the barcode printer (Rosa), which in turn is "
            "gated on the label stock order.",
            {
                o("Wren", "seed catalogue"),
                o("Rosa", "barcode printer"),
                b("seed catalogue", "barcode printer"),
                b("barcode printer", "label stock order"),
            },
        ),
        # "those" is the plural item just named, not the singular item that waits on it.
        (
            "Wren",
            "the pantry dashboard is on hold — it depends on the new shelf sensors, and those "
            "are waiting on Ilya's wiring plan.",
            {
                o("Wren", "pantry dashboard"),
                b("pantry dashboard", "new shelf sensors"),
                o("Wren", "new shelf sensors"),
                b("new shelf sensors", "wiring plan"),
                o("Ilya", "wiring plan"),
            },
        ),
    ],
)
def test_chains_of_waits(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # Without a chain word, "it also needs" is still the item that waits.
        (
            "Wren",
            "The seed catalogue waits on the barcode printer. It also needs the label stock "
            "order first.",
            {
                o("Wren", "seed catalogue"),
                b("seed catalogue", "barcode printer"),
                b("seed catalogue", "label stock order"),
            },
        ),
        # "those" after a singular blocker is not that blocker: the wait stays as read.
        (
            "Wren",
            "waiting on the glaze chart from Oona for the tile samples, so those are parked",
            {o("Wren", "tile samples"), b("tile samples", "glaze chart")},
        ),
    ],
)
def test_no_chain_without_its_words(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "Progress is stuck on X": the progress of the line's item, or of the item the
        # sentence before spoke of; with neither, the writer's.
        (
            "Wren",
            "- Loom repair: I'm the one carrying it this sprint. Progress is stuck on the "
            "shuttle spring order though",
            {o("Wren", "Loom repair"), b("Loom repair", "shuttle spring order")},
        ),
        (
            "Wren",
            "The loom repair is at risk. Progress is pending the shuttle spring order.",
            {o("Wren", "loom repair"), b("loom repair", "shuttle spring order")},
        ),
        (
            "Wren",
            "Progress is stuck on the shuttle spring order.",
            {b("Wren", "shuttle spring order", "person")},
        ),
        # "the remaining five" under a label: what is left of the label's item.
        (
            "Wren",
            "- Loom repair: AMBER. Done for 3 of 8 looms; the remaining five are waiting on "
            "the shuttle spring order.",
            {o("Wren", "Loom repair"), b("Loom repair", "shuttle spring order")},
        ),
        # A new bullet's label is what "it" means there, not the item that waited on the
        # bullet before (no unblock of the tide gauge migration).
        (
            "Wren",
            "Projects\n- Tide gauge migration: AMBER. Done for 4/9 buoys; the remaining five "
            "are waiting on the modem firmware, owned by the radio team.\n- Buoy paint "
            "refresh: GREEN. The hull primer order it needed went out Tuesday, so it is no "
            "longer blocked.",
            {
                o("Wren", "Tide gauge migration"),
                b("Tide gauge migration", "modem firmware"),
                ("radio team", "team", "owns", "modem firmware", "work_item"),
            },
        ),
    ],
)
def test_waits_of_the_topic_named_by_what_is_left(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "that one's mine" is "that one is mine": the label the line opens with.
        (
            "Wren",
            "kiln vent permit — that one's mine, started it this morning",
            {o("Wren", "kiln vent permit")},
        ),
        (
            "Wren",
            "ticket KIL-22 (vent permit for the studio) — that one's mine",
            {o("Wren", "vent permit for the studio")},
        ),
        # ... and "it" on the next line is still that item.
        (
            "Wren",
            "kiln vent permit — that one's mine\nit also depends on the flue survey",
            {o("Wren", "kiln vent permit"), b("kiln vent permit", "flue survey")},
        ),
    ],
)
def test_that_one_after_a_label(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "that <head>" names the last definite name with that head, though no fact named it.
        (
            "Ivo",
            "- Saanvi asked about the harbour crane inspection again.\n"
            "- that inspection is blocked on the load test certificate.",
            {
                o("Ivo", "harbour crane inspection"),
                b("harbour crane inspection", "load test certificate"),
            },
        ),
        (
            "Ivo",
            "Their first deliverable, the tide table feed, is still in review. The ferry "
            "timetable app, which depends on that feed, is also waiting on the ticketing API.",
            {
                o("Ivo", "ferry timetable app"),
                b("ferry timetable app", "tide table feed"),
                b("ferry timetable app", "ticketing API"),
            },
        ),
        # "them" agrees in number: the plural item, not the singular one named last.
        (
            "Ivo",
            "- berth lighting change merged (#77)\n- the mooring sensor upgrades were waiting "
            "on that, so I'm unblocked and have started on them",
            {
                d("Ivo", "berth lighting change"),
                u("mooring sensor upgrades", "berth lighting change"),
                o("Ivo", "mooring sensor upgrades"),
            },
        ),
        # "theyre" is "they're": a pronoun, not a name of work.
        (
            "Ivo",
            "- hull survey: finished\n- the deck repairs were waiting on that, so theyre free "
            "to start now",
            {d("Ivo", "hull survey"), u("deck repairs", "hull survey")},
        ),
    ],
)
def test_demonstratives_and_number(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected
