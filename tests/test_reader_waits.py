"""Waits and their ends in the everyday wording of writers the reader was not tuned on.

People say "blocked" in many shapes: the event that ends the wait comes after its blocker
("until the permit comes through", "until the audit is back from legal"), the subject is
named twice around an aside between dashes, the blockers are counted before they are
listed ("blocked on two things, A and B"). Each case pins the general form (the class of
verb, the shape of the clause, which side waits) with sentences written for this file,
so a rule that reads one of them reads its siblings too; the last tests pin what must
stay no wait."""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # An arrival verb after the blocker ends the wait: "comes through", "comes back".
        (
            "Lotte",
            "the roof membrane job is parked until the scaffold licence comes through",
            {o("Lotte", "roof membrane job"), b("roof membrane job", "scaffold licence")},
        ),
        (
            "Lotte",
            "the kiln relining is on hold until the refractory survey comes back",
            {o("Lotte", "kiln relining"), b("kiln relining", "refractory survey")},
        ),
        # A state and where it comes from: "is back from X", "is agreed with X".
        (
            "Lotte",
            "the lab move can't go ahead until the fume hood audit is back from the assessors",
            {o("Lotte", "lab move"), b("lab move", "fume hood audit")},
        ),
        (
            "Lotte",
            "the archive purge can't proceed until the retention schedule is agreed with "
            "the records office",
            {o("Lotte", "archive purge"), b("archive purge", "retention schedule")},
        ),
        # The subject named again between dashes: the predicate is still the subject's.
        (
            "Lotte",
            "The donor portal refresh — the piece trustees asked for in spring — can't go "
            "ahead until the consent review is signed off.",
            {o("Lotte", "donor portal refresh"), b("donor portal refresh", "consent review")},
        ),
        # Blockers counted first, then listed after a comma.
        (
            "Lotte",
            "the tram timetable import is blocked on two things, the depot codes table and "
            "the fares schema",
            {
                o("Lotte", "tram timetable import"),
                b("tram timetable import", "depot codes table"),
                b("tram timetable import", "fares schema"),
            },
        ),
        # Held, and why: "on hold because of X", "paused owing to X".
        (
            "Lotte",
            "the ward 6 refit is on hold because of the asbestos survey",
            {o("Lotte", "ward 6 refit"), b("ward 6 refit", "asbestos survey")},
        ),
        (
            "Lotte",
            "the ticket gate upgrade was paused owing to the fare system migration",
            {o("Lotte", "ticket gate upgrade"), b("ticket gate upgrade", "fare system migration")},
        ),
        # A learner's active for the passive: "blocking by" is "blocked by".
        (
            "Lotte",
            "I am still blocking by the new tariff schema",
            {b("Lotte", "new tariff schema", "person")},
        ),
        # No progress at all until Y, with the subject in a heading or before a connective.
        (
            "Lotte",
            "Crane hire: no movement until the site insurance is renewed.",
            {o("Lotte", "Crane hire"), b("Crane hire", "site insurance")},
        ),
        (
            "Lotte",
            "The volunteer rota app, on the other hand, is going nowhere until the data "
            "protection review is signed.",
            {o("Lotte", "volunteer rota app"), b("volunteer rota app", "data protection review")},
        ),
        # A cleft, blocker first: "Y is what X is sitting behind", "the one thing X needs".
        (
            "Lotte",
            "The bridge load test is what the deck resurfacing is sitting behind.",
            {o("Lotte", "deck resurfacing"), b("deck resurfacing", "bridge load test")},
        ),
        (
            "Lotte",
            "The pricing sign-off is the one thing the winter brochure is waiting on.",
            {o("Lotte", "winter brochure"), b("winter brochure", "pricing sign-off")},
        ),
        # The blockers counted as the subject, then listed after a colon.
        (
            "Lotte",
            "Two things are holding up the seed bank audit: the freezer logs and the "
            "cataloguing backlog.",
            {
                o("Lotte", "seed bank audit"),
                b("seed bank audit", "freezer logs"),
                b("seed bank audit", "cataloguing backlog"),
            },
        ),
        # An aside that lists the subject's members: each member waits.
        (
            "Lotte",
            "the exhibits you mentioned — the whale skeleton, the map room and the tide "
            "model — are all waiting on the insurance valuation.",
            {
                o("Lotte", "whale skeleton"),
                o("Lotte", "map room"),
                o("Lotte", "tide model"),
                b("whale skeleton", "insurance valuation"),
                b("map room", "insurance valuation"),
                b("tide model", "insurance valuation"),
            },
        ),
        # A subjectless wait on the bullet after the one that named the work: that work
        # waits (a template's "Blocked:" line still speaks for the writer).
        (
            "Lotte",
            "- still on the tide gauge calibration\n- blocked by the harbour office's datum survey",
            {
                o("Lotte", "tide gauge calibration"),
                ("harbour office", "team", "owns", "datum survey", "work_item"),
                b("tide gauge calibration", "datum survey"),
            },
        ),
        (
            "Lotte",
            "- still on the tide gauge calibration\nBlocked: on the datum survey",
            {o("Lotte", "tide gauge calibration"), b("Lotte", "datum survey", "person")},
        ),
        # A status set on a ticket: "Marking X as blocked by Y".
        (
            "Lotte",
            "Marking HARB-12 as blocked by HARB-9.",
            {o("Lotte", "HARB-12"), b("HARB-12", "HARB-9")},
        ),
        # A learner's "depends from" is "depends on".
        (
            "Lotte",
            "the buoy firmware depends from the radio driver update",
            {o("Lotte", "buoy firmware"), b("buoy firmware", "radio driver update")},
        ),
        # The waiters counted, then listed after a colon.
        (
            "Lotte",
            "The grid survey is the single blocker for three projects: the solar canopy, "
            "the heat pump trial and the battery shed.",
            {
                o("Lotte", "solar canopy"),
                o("Lotte", "heat pump trial"),
                o("Lotte", "battery shed"),
                b("solar canopy", "grid survey"),
                b("heat pump trial", "grid survey"),
                b("battery shed", "grid survey"),
            },
        ),
        # A pull request's subjectless "Depends on Y": the request titled above waits.
        (
            "Lotte",
            "**PR #731 — Gaelic place names**\nDepends on #722 (the gazetteer import); "
            "leaving this as a draft for now.",
            {o("Lotte", "Gaelic place names"), b("Gaelic place names", "gazetteer import")},
        ),
        # ... with the event and "first" after the blocker.
        (
            "Lotte",
            "the ferry app depends on #57 being merged first",
            {o("Lotte", "ferry app"), b("ferry app", "#57")},
        ),
        # A prerequisite with no waiter in its clause: the stalled item before it, or the
        # item that "then" can move after it, waits on it.
        (
            "Lotte",
            "the lock gate repaint - blocked, the dry dock booking has to land first",
            {o("Lotte", "lock gate repaint"), b("lock gate repaint", "dry dock booking")},
        ),
        (
            "Lotte",
            "the tenancy audit has to be signed off first, then the rent review can start",
            {o("Lotte", "rent review"), b("rent review", "tenancy audit")},
        ),
        # A chat question about what holds up X, answered on the next line with a list:
        # the list is X's blockers (asking about it makes it nobody's).
        (
            "Mira",
            "mira: what's holding the tram app 3.0 release?\n"
            "jo: the map tiles fix (TRAM-41), the new fare table, and the ticket flow tests",
            {
                b("tram app 3.0 release", "map tiles fix"),
                b("tram app 3.0 release", "new fare table"),
                b("tram app 3.0 release", "ticket flow tests"),
            },
        ),
        (
            "Mira",
            "what is the dune survey still waiting on?\nthe drone licence",
            {b("dune survey", "drone licence")},
        ),
        # A gerund that heads its noun phrase ("the kiln commissioning") is the waiter,
        # and "Site (Name):" in notes makes Name the speaker, not the note-taker.
        (
            "Ruth Adler",
            "Regional hubs call — notes (Ruth Adler)\n"
            "Leeds (Omar): the new kiln commissioning is on hold pending the gas safety check.\n"
            "Derby: the shift rota change was signed off by HR on Tuesday.",
            {
                o("Omar", "new kiln commissioning"),
                b("new kiln commissioning", "gas safety check"),
                ("HR", "team", "completed", "shift rota change", "work_item"),
            },
        ),
        # "until <plural agent> <verb> the Y": Y is the blocker, not the agent's deed.
        (
            "Lotte",
            "the map reprint can't go ahead until the surveyors finish the contour check",
            {o("Lotte", "map reprint"), b("map reprint", "contour check")},
        ),
        # A stalled item, then what is not done yet: that is what it waits on.
        (
            "Lotte",
            "status: the visitor app v2 is stuck, design hasn't finalised the map icons.",
            {o("Lotte", "visitor app v2"), b("visitor app v2", "map icons")},
        ),
        (
            "Lotte",
            "the pier lighting is on hold: the cable survey isn't done yet",
            {o("Lotte", "pier lighting"), b("pier lighting", "cable survey")},
        ),
        # "the single blocker for X"
        (
            "Lotte",
            "The boiler permit is the single blocker for the hostel reopening.",
            {o("Lotte", "hostel reopening"), b("hostel reopening", "boiler permit")},
        ),
    ],
)
def test_wait_in_everyday_wording(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "X is unblocked" and why, after a colon: the cause clause names what it waited on.
        (
            "Tove",
            "the stock sync is unblocked: Oskar shipped the warehouse API yesterday.",
            {d("Oskar", "warehouse API"), u("stock sync", "warehouse API")},
        ),
        # The cause is an arrival, after a comma: "Y came through".
        (
            "Tove",
            "grading's unblocked, the colour LUTs from the lab finally came thru",
            {u("grading", "colour LUTs from the lab")},
        ),
        # The arrival first, the freed work in the next sentence: "can finally <move>".
        (
            "Tove",
            "the harbour permit came through today!! so the pontoon repair can finally start",
            {u("pontoon repair", "harbour permit")},
        ),
        # The cause told as what somebody did, after a dash.
        (
            "Tove",
            "the ferry timetable import is unblocked — ops approved the berth schedule today.",
            {u("ferry timetable import", "berth schedule")},
        ),
        # "X can go in now, Y was merged": the "now" after the verb.
        (
            "Tove",
            "#412 can go in now, #409 was merged by @mirja this morning.",
            {d("mirja", "#409"), u("#412", "#409")},
        ),
        # "nothing is blocking X now": X is free of what was just done.
        (
            "Tove",
            "The cold store sensors are already deployed, so nothing's blocking the "
            "stock audit now.",
            {d("Tove", "cold store sensors"), u("stock audit", "cold store sensors")},
        ),
        # Blocker first, the way now open.
        (
            "Tove",
            "the noise survey cleared the way for the facade cleaning",
            {u("facade cleaning", "noise survey")},
        ),
        (
            "Tove",
            "the lease renewal came through, clearing the way for the shop fit",
            {u("shop fit", "lease renewal")},
        ),
        # "Y landing means X can proceed"; "free to go now that Y is in".
        (
            "Tove",
            "the ward rota landing means the bed audit can proceed",
            {d("Tove", "ward rota"), u("bed audit", "ward rota")},
        ),
        (
            "Tove",
            "the roof survey is free to go now that the access licence is in",
            {d("Tove", "access licence"), u("roof survey", "access licence")},
        ),
        # "which means X can now move": a consequence, read like "so".
        (
            "Tove",
            "the tariff tables landed, which means the quote engine can now go ahead",
            {d("Tove", "tariff tables"), u("quote engine", "tariff tables")},
        ),
    ],
)
def test_unblock_in_everyday_wording(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # "can now start X" with an object is a plan, not the end of a wait
        "we can now start the pontoon repair",
        "if the permit comes through, the pontoon repair can now go ahead",
        # an answer that says no, or an answer two lines later, lists no blockers
        "what's holding the tram app release?\njo: nothing, it went out",
        "what's holding the tram app release?\nno idea\nthe fare table maybe",
        # an adjective before the blocker is no verb
        "the complete rewrite of the parser shipped",
        # the writer's own unfinished work is no blocker of theirs
        "the pier lighting is stuck, I haven't finished the cable tests",
        # a prerequisite alone names no waiter
        "the dry dock booking has to land first",
        # nothing blocking a person names no work
        "nothing is blocking me",
        # a ticket moved to a board column is no wait on the board
        "Moving this ticket to Blocked on the board.",
        # a definition is no consequence
        "Where we say red, that means the date is in doubt.",
    ],
)
def test_no_unblock_from_plans(text: str) -> None:
    facts = facts_of(extract(text, "Tove"))
    assert not any(f[2] in ("unblocked_from", "blocked_by") for f in facts), facts


@pytest.mark.parametrize(
    "text",
    [
        # waiting for a ride is no dependency
        "waiting for the 9:40 shuttle at the depot, online in 20",
        # an arrival with no wait is no fact
        "the scaffold licence came through this morning",
        "the parcel arrived late again",
        # a wait told in the past tense in a cleft is over
        "@rosa that was the last thing you were waiting on, so the map room is yours",
        # "all" that is no floating quantifier stays
        "all waiting rooms were repainted",
        # a dash aside after a subject with no predicate of its own
        "The donor portal refresh — the piece trustees asked for — went down well.",
    ],
)
def test_no_wait_from_events_alone(text: str) -> None:
    facts = facts_of(extract(text, "Lotte"))
    assert not any(f[2] == "blocked_by" for f in facts), facts
