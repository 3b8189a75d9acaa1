"""Waits whose sentence does not name the waiting work: the subject is "I", "it", "the
real work", "anything beyond X" or nothing, and the work that waits is the clause's own
item, what the pronoun names, or the update's topic (heading, bullet label, the item the
writer says they work on, the ticket a comment is on). Sentences written for this file."""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o

P = "person"


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # Negated ability or progress, then until/before an item and its event: "it"
        # names the item the writer took on just before.
        (
            "Ines",
            "- picking up the receipts importer today\n"
            "- not much I can do on it until the storage quota change is merged",
            {o("Ines", "receipts importer"), b("receipts importer", "storage quota change")},
        ),
        # No subject at all: the "Today:" item waits.
        (
            "Ines",
            "- Today: the tariff calculator\n"
            "- can't wire anything real until the pricing endpoints exist",
            {o("Ines", "tariff calculator"), b("tariff calculator", "pricing endpoints")},
        ),
        # An issue comment: "I can't test any of the cases" is the ticket's work waiting.
        (
            "Omar",
            "**PAY-88 · Refund webhook retries** — comment by Omar\n\n"
            "Retry table is sketched. I can't test any of the edge cases until the sandbox "
            "upgrade lands.",
            {o("Omar", "Refund webhook retries"), b("Refund webhook retries", "sandbox upgrade")},
        ),
        # "it" later in the sentence that opens with the item (formal report).
        (
            "Greta",
            "The audit trail viewer reads the new event schema, so there is no way to finish "
            "it before the schema migration ships.",
            {o("Greta", "audit trail viewer"), b("audit trail viewer", "schema migration")},
        ),
        # The until-clause first: "until X is sorted the rebrand can't go out".
        (
            "Greta",
            "until the font licence is sorted the rebrand can't go out",
            {o("Greta", "rebrand"), b("rebrand", "font licence")},
        ),
        # A bullet label before a dash is the subject of the negated clause.
        (
            "Femi",
            "- Ledger export — can't reconcile anything until Ola's currency table change is approved",
            {
                o("Femi", "Ledger export"),
                o("Ola", "currency table change"),
                b("Ledger export", "currency table change"),
            },
        ),
        # A relative aside between the subject and "cannot".
        (
            "Femi",
            "The partner portal, which the Growth team looks after, cannot open to resellers until "
            "the pricing engine rewrite is in place.",
            {
                ("Growth team", "team", "owns", "partner portal", "work_item"),
                b("partner portal", "pricing engine rewrite"),
            },
        ),
        # A chat speaker's label is no subject: the object waits.
        (
            "Lu",
            "lu: can't merge the profile revamp till the avatar service PR goes in\nkit: ok",
            {o("Lu", "profile revamp"), b("profile revamp", "avatar service PR")},
        ),
        # Parked, idle or skipped, with an adverb between, and "after that" as "then".
        (
            "Ines",
            "- today: cache warmup script\n- after that I'm stuck again until the CDN migration lands",
            {o("Ines", "cache warmup script"), b("cache warmup script", "CDN migration")},
        ),
        (
            "Ines",
            "the payroll sync reads the new pay grades, so it's just sitting there until the "
            "grade import ships",
            {o("Ines", "payroll sync"), b("payroll sync", "grade import")},
        ),
        # Built on another item: "sit on top of".
        (
            "Ines",
            "the new search endpoints sit on top of the tokenizer rewrite",
            {o("Ines", "new search endpoints"), b("new search endpoints", "tokenizer rewrite")},
        ),
        # "the real <work> for/of X" is X's work: X waits.
        (
            "Lior",
            "- blocked: the real integration for SHOP-41 can't happen until the pricing "
            "service v2 lands",
            {o("Lior", "SHOP-41"), b("SHOP-41", "pricing service v2")},
        ),
        (
            "Lior",
            "the real testing of the exporter is waiting on the schema freeze",
            {o("Lior", "exporter"), b("exporter", "schema freeze")},
        ),
        # "the real work" and "anything beyond X" are what is left of the topic item.
        (
            "Ines",
            "Started the offline cart with stub data. The real work is stuck though — "
            "nothing to build against until the sync API is there.",
            {o("Ines", "offline cart"), b("offline cart", "sync API")},
        ),
        (
            "Ines",
            "Vendor portal — anything beyond the login stub is waiting on the SSO rework.",
            {o("Ines", "Vendor portal"), b("Vendor portal", "SSO rework")},
        ),
        # "this one" on a line opened by a label, with nothing named since: the label's
        # item (a weekly report's "Slipped" section).
        (
            "Gil",
            "**Slipped**\n- Search reindex (OPS-9, me): Tuesday's attempt hit a disk alarm. "
            "Next try Monday. The ranking sync and the ads export are still waiting on this one.",
            {
                o("Gil", "ranking sync"),
                o("Gil", "ads export"),
                b("ranking sync", "Search reindex"),
                b("ads export", "Search reindex"),
            },
        ),
        # "rolls out Friday" is a schedule: it names no item for "it" to mean.
        (
            "Gil",
            "- **Fraud rules (RISK-4)** — Ana. Approved; rolls out Friday after a dry run. "
            "The refund flow depends on it.",
            {o("Gil", "refund flow"), b("refund flow", "Fraud rules")},
        ),
        # A part of the heading's item named by its place ("the indexing half").
        (
            "Kofi",
            "Store locator\n- map view done\n- the search part is blocked on the geocoder swap",
            {
                o("Kofi", "Store locator"),
                b("Store locator", "geocoder swap"),
                d("Kofi", "map view"),
            },
        ),
        # Need/depend between items, "it" being the bullet's bold label (minutes).
        (
            "Chloe",
            "- **Ledger v2 (FIN-40)** — Chloe. Rolls out next Tuesday. Both the refund batch "
            "and the tax export need it.\n"
            "- **Kiosk mode (FIN-41)** — Chloe. The offline cart depends on it.",
            {
                o("Chloe", "refund batch"),
                o("Chloe", "tax export"),
                o("Chloe", "offline cart"),
                b("refund batch", "Ledger v2"),
                b("tax export", "Ledger v2"),
                b("offline cart", "Kiosk mode"),
            },
        ),
        # A label before a dash is the subject of a wait that opens with its predicate,
        # past a comment in between; a label is no subject of another clause's verb.
        (
            "Wen",
            "fare calculator — no change since Monday, waiting for the zone table to merge. "
            "Started on the kiosk copy instead",
            {
                o("Wen", "fare calculator"),
                b("fare calculator", "zone table"),
                o("Wen", "kiosk copy"),
            },
        ),
        # A report under a heading ("tests written against X") lends no subject: the
        # heading's item is what cannot merge.
        (
            "Wen",
            "RISK-31: fixtures recorded against the old ledger, still can't merge until the "
            "ledger cutover is fully in.",
            {o("Wen", "RISK-31"), b("RISK-31", "ledger cutover")},
        ),
        # Other ways to say it cannot move: "little we can do", "won't be able to", an
        # event that is going live, an aside after the event.
        (
            "Wale",
            "Took over the returns portal this week. Honestly there's little we can do on it "
            "before the carrier contract is signed off.",
            {o("Wale", "returns portal"), b("returns portal", "carrier contract")},
        ),
        (
            "Wale",
            "We won't be able to ship the kiosk mode before the terminal firmware is out.",
            {o("Wale", "kiosk mode"), b("kiosk mode", "terminal firmware")},
        ),
        (
            "Wale",
            "- Today: map tile caching\n- can't really benchmark anything until the CDN "
            "switch goes live, sadly",
            {o("Wale", "map tile caching"), b("map tile caching", "CDN switch")},
        ),
        # A one-line bullet with a bold label: "it" is the label's item.
        (
            "Wale",
            "- **Search relevance (SR-4)** — Tao. On track. The autocomplete revamp needs it.",
            {o("Wale", "autocomplete revamp"), b("autocomplete revamp", "Search relevance")},
        ),
        # The until-clause first, with a comma and a passive: the subject waits, not
        # the writer.
        (
            "Noa",
            "Until the firewall change is approved, the partner sync can't be tested.",
            {o("Noa", "partner sync"), b("partner sync", "firewall change")},
        ),
        # "until something like that exists": the thing the clause before described.
        (
            "Ines",
            "- the payment tests want a real gateway. Priit said he could stand up a mock "
            "gateway; until something like that exists the checkout tests can't run",
            {o("Ines", "checkout tests"), b("checkout tests", "mock gateway")},
        ),
        # "go further on X": X is the work that cannot move.
        (
            "Noa",
            "blocked: can't go further on the sync worker until Bea's schema PR lands",
            {o("Noa", "sync worker"), o("Bea", "schema PR"), b("sync worker", "schema PR")},
        ),
        # A reply line names the item "this" means.
        (
            "Noa",
            "Re: PROJ-12 — I can't do anything on this until PROJ-9 merges.",
            {o("Noa", "PROJ-12"), b("PROJ-12", "PROJ-9")},
        ),
        # A need that a following "so ... stuck" says holds the work up is a wait.
        (
            "Hana",
            "Yara's fare rules need the zone map and Ivo's timetable import needs the GTFS "
            "feed, so both of those are stuck for now.",
            {
                o("Yara", "fare rules"),
                o("Ivo", "timetable import"),
                b("fare rules", "zone map"),
                b("timetable import", "GTFS feed"),
            },
        ),
        # A blocker named by its head noun alone is the fuller name the sentence used
        # before it.
        (
            "Jo",
            "The checkout cases all run through the new payment sheet, so I can't record "
            "them until Ravi's sheet is talking to the gateway.",
            {o("Ravi", "new payment sheet"), b("Jo", "new payment sheet", P)},
        ),
        # "respectively": each waiting item with its own blocker; "they" is the list the
        # sentence opens with.
        (
            "Sade",
            "The fare engine and the seat map are one step further back, since they need the "
            "zone table and the venue feed respectively.",
            {
                o("Sade", "fare engine"),
                o("Sade", "seat map"),
                b("fare engine", "zone table"),
                b("seat map", "venue feed"),
            },
        ),
        (
            "Sade",
            "The payout report and the tax form wait on the ledger sync and the VAT table "
            "respectively.",
            {
                o("Sade", "payout report"),
                o("Sade", "tax form"),
                b("payout report", "ledger sync"),
                b("tax form", "VAT table"),
            },
        ),
        # The waiting items listed after a colon, the subject vague or absent.
        (
            "Efua",
            "- **Billing v3 (FIN-7)** — Ama. Still in review. A few things are queued "
            "behind it: the refund batch, the dunning emails and the partner payouts.\n"
            "- **Search** — Bo. Fine.",
            {
                o("Efua", "refund batch"),
                o("Efua", "dunning emails"),
                o("Efua", "partner payouts"),
                b("refund batch", "Billing v3"),
                b("dunning emails", "Billing v3"),
                b("partner payouts", "Billing v3"),
            },
        ),
        (
            "Efua",
            "Risks: PLAT-88 (Sam) moves to next week. Waiting directly on it: Ayo's export "
            "worker and Finance's ledger sync.",
            {
                o("Ayo", "export worker"),
                ("Finance", "team", "owns", "ledger sync", "work_item"),
                b("export worker", "PLAT-88"),
                b("ledger sync", "PLAT-88"),
            },
        ),
    ],
)
def test_wait_of_the_topic_item(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # hedges, conditions, times and meetings, and the excited "can't wait"
        "might need the grade import before I can finish it",
        "if the CDN migration slips we can't start the cache work until May",
        "we probably can't start until the vendor contract is signed off",
        "not much I can do until Friday",
        "can't do anything until after lunch",
        "can't wait until the new dashboards ship!",
        "I won't be able to join until the migration is done",
        "there isn't much to do until the standup",
        # a need of a person, or of more of something, is no wait on another item
        "the importer needs more tests",
        "we need that asap",
        "Dana needs it by Friday",
        # users who cannot do something wait on nothing of theirs
        "You can't log in until the SSO fix ships.",
        "Customers can't pay by invoice until the billing rewrite lands.",
        # "it" that names no item is not the writer
        "Yusuf says it can't move until the rate API v3 goes out.",
    ],
)
def test_no_wait_without_work_and_event(text: str) -> None:
    facts = facts_of(extract(text, "Ines"))
    assert not any(f[2] == "blocked_by" for f in facts), facts
