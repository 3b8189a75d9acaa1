"""Where an item's name starts and ends inside the span a frame gives it.

A frame hands the reader a stretch of words for each role; the work item's name is a noun
phrase inside it. Words around the name that belong to the verb or to the clause (the
release something shipped in, how long it took, a time, a partner, a particle of a phrasal
verb, a quantity of tickets counted against the item) are not part of the name, while
the item's own modifiers ("migration of the ledger to Postgres 15", "dark mode for the
admin console") are.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u

# The release, version or build something went out in belongs to the verb ("shipped X in
# 4.2"), not to X.
RELEASE_TAILS = [
    ("Ines", "Shipped the login crash fix in 4.2.1 this morning.", {d("Ines", "login crash fix")}),
    (
        "Ines",
        "- Done: the offline banner in v3.8 (finally)",
        {d("Ines", "offline banner")},
    ),
    (
        "Ines",
        "Tariq released the CSV importer in the 2.14 release.",
        {d("Tariq", "CSV importer")},
    ),
    (
        "Ines",
        "Minutes: Oyelaran deployed the tenant switcher in the 7.2 build.",
        {d("Oyelaran", "tenant switcher")},
    ),
    (
        "Ines",
        "The Platform team delivered the audit log export in release 31 as planned.",
        {d("Platform team", "audit log export", "team")},
    ),
]

# A time, a duration or a span of the calendar at the end says when, not what.
TIME_TAILS = [
    (
        "Arjun",
        "Today:\n- cache warmup for the rest of the week",
        {o("Arjun", "cache warmup")},
    ),
    (
        "Arjun",
        "Kenji shipped the queue consumer around noon.",
        {d("Kenji", "queue consumer")},
    ),
    (
        "Arjun",
        "Yesterday: finished the load test for the checkout service in about two hours",
        {d("Arjun", "load test for the checkout service")},
    ),
    (
        "Arjun",
        "Lorenzo is working on the tax rules engine full-time until the audit.",
        {o("Lorenzo", "tax rules engine")},
    ),
    (
        "Arjun",
        "Today:\n- fraud rules tuning for another two days",
        {o("Arjun", "fraud rules tuning")},
    ),
]

# Counting pieces of an item, or calling it "the real X for Y", names Y.
QUANTITY_HEADS = [
    (
        "Mehmet",
        "Closed out the last two tickets for the billing export.",
        {d("Mehmet", "billing export")},
    ),
    (
        "Mehmet",
        "Today:\n- 2 more PRs for the SSO fix",
        {o("Mehmet", "SSO fix")},
    ),
    (
        "Mehmet",
        "Two of the four region cutovers are blocked on the DNS change.",
        {o("Mehmet", "region cutovers"), b("region cutovers", "DNS change")},
    ),
    (
        "Mehmet",
        "Starting the real integration for WEB-88 today; the stub is gone.",
        {o("Mehmet", "WEB-88")},
    ),
    (
        "Mehmet",
        "Action: Saoirse to finish the actual wiring for OPS-311.",
        {o("Saoirse", "OPS-311")},
    ),
]

# A verb's particle and the place it moves something to or from belong to the verb:
# "pulled X out of the gateway", "wired X into the flow". A noun made from a verb keeps
# its own complement ("the migration of the ledger to Postgres 15").
VERB_COMPLEMENTS = [
    (
        "Noa",
        "Yesterday:\n- pulled the token issuer out of the gateway",
        {d("Noa", "token issuer")},
    ),
    (
        "Noa",
        "Finished folding the retry helper into the shared client.",
        {d("Noa", "retry helper")},
    ),
    (
        "Noa",
        "Per the notes, Dagny merged the rate card parser onto the new ledger branch.",
        {d("Dagny", "rate card parser")},
    ),
    (
        "Noa",
        "I'm driving the migration of the ledger to Postgres 15.",
        {o("Noa", "migration of the ledger to Postgres 15")},
    ),
    (
        "Noa",
        "Shipped dark mode for the admin console.",
        {d("Noa", "dark mode for the admin console")},
    ),
]

# A ticket id after a comma names the same item as the words before it; an action line
# whose first word is a noun ("deprecation notice for X") names the work, not a verb.
APPOSITION_AND_NOUNS = [
    (
        "Lucia",
        "the card for the kiosk reboot loop, OPS-5120 — assigned to me since this morning",
        {o("Lucia", "OPS-5120")},
    ),
    (
        "Lucia",
        "the label printer bug, HW-2207 — assigned to me as of today",
        {o("Lucia", "label printer bug")},
    ),
    (
        "Lucia",
        "Action items\n- Benedikt: retirement plan for the old SDK",
        {o("Benedikt", "retirement plan for the old SDK")},
    ),
    (
        "Lucia",
        "Action items\n- Rosalind: settlement report for the card scheme",
        {o("Rosalind", "settlement report for the card scheme")},
    ),
    (
        "Lucia",
        "Infra: the rack rebuild is on hold, and the switch migration can't start until the"
        " hardware order goes through.",
        {
            o("Lucia", "rack rebuild"),
            o("Lucia", "switch migration"),
            b("switch migration", "hardware order"),
        },
    ),
]

# A relative clause without "that" after the head noun ("the change Wojtek requested",
# "the harness they asked for") is no part of the name; a name before a participle that
# modifies the next noun ("Grafana based alerting") is.
CONTACT_CLAUSES = [
    (
        "Zuzana",
        "I'm blocked on the IAM change Wojtek requested last week.",
        {b("Zuzana", "IAM change", "person")},
    ),
    (
        "Zuzana",
        "- today: the load test harness they asked for",
        {o("Zuzana", "load test harness")},
    ),
    ("Zuzana", "Kai is on the import bug you reported.", {o("Kai", "import bug")}),
    (
        "Zuzana",
        "Done: the cleanup script I promised in standup.",
        {d("Zuzana", "cleanup script")},
    ),
    (
        "Zuzana",
        "The Kafka consumer is waiting on the ACL change Marta filed.",
        {o("Zuzana", "Kafka consumer"), b("Kafka consumer", "ACL change")},
    ),
    ("Zuzana", "Shipped the Grafana based alerting.", {d("Zuzana", "Grafana based alerting")}),
    (
        "Zuzana",
        "- took over OPS-7 from Lin\n- hit the same snag he did: can't go on until"
        " the DNS cutover is done",
        {o("Zuzana", "OPS-7"), b("OPS-7", "DNS cutover")},
    ),
]

# What opens the span before the item: an adverb and its preposition ("back to X"), a
# light verb's noun ("a stab at X", "a go at X"), the preposition a phrasal verb takes
# ("carry on with X", "get back to X"); and "all day" at its end.
OPENINGS = [
    ("Femi", "Today:\n- back to the invoice matcher", {o("Femi", "invoice matcher")}),
    (
        "Femi",
        "Today:\n- taking a stab at the rota export",
        {o("Femi", "rota export")},
    ),
    (
        "Femi",
        "Today:\n- having another go at the geofence alerts",
        {o("Femi", "geofence alerts")},
    ),
    (
        "Femi",
        "ACTION: Marisol to carry on with the claims intake form",
        {o("Marisol", "claims intake form")},
    ),
    (
        "Femi",
        "AI - Oduya to get back to the tariff loader after the freeze",
        {o("Oduya", "tariff loader")},
    ),
    (
        "Femi",
        "Today:\n- heads down on the SLA report all day",
        {o("Femi", "SLA report")},
    ),
]

# One possessive shared by two owners names one item of both, not a person and an item.
SHARED_OWNERS = [
    (
        "Wanjiru",
        "Tomas and Kai's payout batcher is blocked on the bank API.",
        {o("Tomas", "payout batcher"), o("Kai", "payout batcher"), b("payout batcher", "bank API")},
    ),
    (
        "Wanjiru",
        "The rollout is blocked on Lena and Dev's auth refactor.",
        {
            o("Wanjiru", "rollout"),
            o("Lena", "auth refactor"),
            o("Dev", "auth refactor"),
            b("rollout", "auth refactor"),
        },
    ),
    (
        "Wanjiru",
        "Shipped Priya's and Kai's fixes.",
        {o("Priya", "fixes"), o("Kai", "fixes"), d("Wanjiru", "fixes")},
    ),
]

# A list joined by "plus" is several items, like one joined by "and"; a phrasal verb's
# particle after the object ("gave X back") and "for real" are the verb's.
LISTS_AND_PARTICLES = [
    (
        "Rasmus",
        "Kai merged the retry logic plus the backoff tweak.",
        {d("Kai", "retry logic"), d("Kai", "backoff tweak")},
    ),
    (
        "Rasmus",
        "- Done: the CSV export plus the PDF export (both behind flags)",
        {d("Rasmus", "CSV export"), d("Rasmus", "PDF export")},
    ),
    ("Rasmus", "Handed the slotting work back to Yara.", {o("Yara", "slotting work")}),
    (
        "Rasmus",
        "Ayla landed the retry logic for real this time.",
        {d("Ayla", "retry logic")},
    ),
]

# "as part of X" says which larger piece of work it belongs to, not what it is.
PART_OF = [
    (
        "Wei",
        "Kenji shipped the queue consumer as part of PAY-88.",
        {d("Kenji", "queue consumer")},
    ),
    (
        "Wei",
        "- merged the feature flag cleanup as part of the Q3 hygiene push",
        {d("Wei", "feature flag cleanup")},
    ),
]


# In an action item the verb decides whose a "for" phrase is: booking or drafting
# something *for* someone or some occasion leaves it out of the name; adding or building
# something for a system keeps it ("paging for the queue alert").
ACTION_FOR = [
    (
        "Ilse",
        "ACTION: Ilse to book the boardroom for the offsite.",
        {o("Ilse", "boardroom")},
    ),
    (
        "Ilse",
        "ACTION: Tomasz to draft the rollout FAQ for the support desk.",
        {o("Tomasz", "rollout FAQ")},
    ),
    (
        "Ilse",
        "AI - Farid to add alerting for the payout queue",
        {o("Farid", "alerting for the payout queue")},
    ),
    (
        "Ilse",
        "TODO: Bea to build dark mode for the admin console",
        {o("Bea", "dark mode for the admin console")},
    ),
    (
        "Ilse",
        "Follow-ups: Kwabena to finish the wiring for the tax engine",
        {o("Kwabena", "wiring for the tax engine")},
    ),
]


# Sentence adverbs at the end of a span ("which in turn", "as well"), and a verb of existence or schedule left after the name ("until the
# endpoints exist", "rolls into next sprint"), belong to the clause.
ASIDES = [
    (
        "Oskar",
        "QA-90 is parked on the export page, which in turn is waiting on the pricing API.",
        {
            o("Oskar", "QA-90"),
            o("Oskar", "export page"),
            b("QA-90", "export page"),
            b("export page", "pricing API"),
        },
    ),
    (
        "Oskar",
        "The refund report was waiting on RPT-12 as well, so it's unblocked now that RPT-12 merged.",
        {u("refund report", "RPT-12"), d("Oskar", "RPT-12")},
    ),
    (
        "Oskar",
        "We can't begin the data retention job until Halima's archive buckets exist.",
        {
            o("Oskar", "data retention job"),
            o("Halima", "archive buckets"),
            b("data retention job", "archive buckets"),
        },
    ),
    (
        "Oskar",
        "Status: the vendor sync slips into next sprint, still blocked on the SFTP creds rotation.",
        {o("Oskar", "vendor sync"), b("vendor sync", "SFTP creds rotation")},
    ),
    (
        "Oskar",
        "- blocked?: sort of. the render worker waits on IMG-4",
        {o("Oskar", "render worker"), b("render worker", "IMG-4")},
    ),
]


# What something was closed or shipped as ("as a dupe of PAY-12", "as a beta") says how it
# ended, not what it is; an appositive that only points back ("the new one") names nothing.
AS_AND_ONE = [
    ("Ana", "Closed PAY-77 as a dupe of PAY-12.", {d("Ana", "PAY-77")}),
    ("Ana", "Marta shipped the importer as a beta.", {d("Marta", "importer")}),
    ("Ana", "Closed the vendor ticket as won't fix.", {d("Ana", "vendor ticket")}),
    (
        "Ana",
        "The exporter, the new one, is blocked on the schema change.",
        {o("Ana", "exporter"), b("exporter", "schema change")},
    ),
]


def test_some_pieces_done_do_not_finish_the_item() -> None:
    for text in (
        "Wrapped up three of the five dashboard migrations.",
        "Yesterday:\n- merged 2 PRs for the SSO fix",
    ):
        assert not any(f[2] == "completed" for f in facts_of(extract(text, "Mehmet")))


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    RELEASE_TAILS
    + TIME_TAILS
    + QUANTITY_HEADS
    + VERB_COMPLEMENTS
    + PART_OF
    + ACTION_FOR
    + ASIDES
    + LISTS_AND_PARTICLES
    + APPOSITION_AND_NOUNS
    + CONTACT_CLAUSES
    + OPENINGS
    + SHARED_OWNERS
    + AS_AND_ONE,
)
def test_item_name_boundaries(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_a_noun_made_from_a_verb_keeps_its_destination() -> None:
    facts = facts_of(
        extract("Migration of the billing DB into Aurora is blocked on the VPC peering.", "Lu")
    )
    assert b("Migration of the billing DB into Aurora", "VPC peering") in facts
    waits = facts_of(extract("I'm waiting on the import of the price list into the catalog.", "Lu"))
    assert waits == {b("Lu", "import of the price list into the catalog", "person")}
