"""The reader's rules in general form: each case is a category (a clause shape, an
argument boundary, a discourse rule), checked on sentences written for this file."""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u

P = "person"


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A wait followed by "before I can <verb> [object]": the object waits, else the
        # author does; the modal is the purpose clause's, not a hedge on the wait.
        ("Kai", "waiting on #5 before I can start", {b("Kai", "#5", P)}),
        (
            "Kai",
            "- waitng on the schema freeze before I can wire up the exporter.",
            {o("Kai", "exporter"), b("exporter", "schema freeze")},
        ),
        (
            "Kai",
            "The importer needs the S3 policy change before we can ship it",
            {o("Kai", "importer"), b("importer", "S3 policy change")},
        ),
        (
            "Kai",
            "blocked on OPS-44 before we can really test the failover drill",
            {o("Kai", "failover drill"), b("failover drill", "OPS-44")},
        ),
        # A ticket followed by "for the Y": the ticket is the blocker, Y waits.
        (
            "Kai",
            "I'm waiting on PAY-1 for the rate lookups",
            {o("Kai", "rate lookups"), b("rate lookups", "PAY-1")},
        ),
        (
            "Kai",
            "still waiting on OPS-12 for the staging db",
            {o("Kai", "staging db"), b("staging db", "OPS-12")},
        ),
        # A ticket with its title in brackets is one item, named by its title.
        (
            "Kai",
            "metering API waits on FIN-72 (rate card schema)",
            {o("Kai", "metering API"), b("metering API", "rate card schema")},
        ),
        (
            "Kai",
            "search reindex is blocked by PROJ-91 [new shard layout]",
            {o("Kai", "search reindex"), b("search reindex", "new shard layout")},
        ),
        (
            "Kai",
            "waiting on the vendor import and PR #1177 (backoff config)",
            {b("Kai", "vendor import", P), b("Kai", "backoff config", P)},
        ),
        ("Kai", "Closes #12 (login redirect loop)", {d("Kai", "#12")}),
        # A pronoun that waits is the item that was waiting, not the blocker named last.
        (
            "Kai",
            "The billing import is blocked on the VAT table. It also needs the currency "
            "service first.",
            {
                o("Kai", "billing import"),
                b("billing import", "VAT table"),
                b("billing import", "currency service"),
            },
        ),
        (
            "Kai",
            "The mobile release is held up by the SDK upgrade; it is also waiting on the "
            "store review.",
            {
                o("Kai", "mobile release"),
                b("mobile release", "SDK upgrade"),
                b("mobile release", "store review"),
            },
        ),
        # Reported speech mid-line: the speaker stands where the author stands.
        (
            "Kai",
            "Team sync: Mei said the export is waiting on the ledger API",
            {o("Mei", "export"), b("export", "ledger API")},
        ),
        ("Kai", "Jo said the coupon service shipped", {d("Jo", "coupon service")}),
        # Issue comments: a subjectless "Depends on #7" heads the item the comment says
        # cannot move; with no such item it stays the author's.
        (
            "Kai",
            "Blocked by acme/api#40.\n\nThe webhook signing cannot ship until the key "
            "rotation endpoint is merged.",
            {
                o("Kai", "webhook signing"),
                b("webhook signing", "acme/api#40"),
                b("webhook signing", "key rotation endpoint"),
            },
        ),
        (
            "Kai",
            "Depends on #12. Can't merge the search filters until the index mapping is agreed.",
            {
                o("Kai", "search filters"),
                b("search filters", "#12"),
                b("search filters", "index mapping"),
            },
        ),
        (
            "Kai",
            "Depends on #870\n\nAdds the CSV export to the audit log page.",
            {o("Kai", "CSV export"), b("CSV export", "#870")},  # the change described
        ),
        # "Item: Name" / "Item — Name" lines: the named people own the item, and the
        # item is the subject of what follows on the line.
        (
            "Kai",
            "Infra sync\n- DNS cutover: Marisol\n- Backup restore drill — Kenji & Lwazi, "
            "starts Monday\n- Overall RAG: Amber",
            {
                o("Marisol", "DNS cutover"),
                o("Kenji", "Backup restore drill"),
                o("Lwazi", "Backup restore drill"),
            },
        ),
        (
            "Kai",
            "Design review — Loyalty\n- Checkout copy: Ruth, not started",
            {o("Ruth", "Checkout copy")},
        ),
        (
            "Kai",
            "Export sync\n- Audit export: Hana — unblocked now that the schema migration is out",
            {
                o("Hana", "Audit export"),
                ("Audit export", "work_item", "unblocked_from", "schema migration", "work_item"),
            },
        ),
        # Report style: impeded/hampered by, suspended until, assumed responsibility for,
        # a past owner is no owner, state adjectives and trailing dates are not names.
        (
            "Ruth",
            "Progress on the analytics platform was impeded by the delayed provisioning of "
            "the staging environment.",
            {
                o("Ruth", "analytics platform"),
                b("analytics platform", "provisioning of the staging environment"),
            },
        ),
        (
            "Ruth",
            "Work on the customer portal redesign has been suspended until the budget review "
            "concludes.",
            {o("Ruth", "customer portal redesign"), b("customer portal redesign", "budget review")},
        ),
        (
            "Ruth",
            "The infrastructure team has assumed responsibility for the observability stack, "
            "previously managed by the platform group.",
            {o("infrastructure team", "observability stack", "team")},
        ),
        (
            "Ruth",
            "During the period, the team completed the migration of the billing ledger and "
            "commenced work on the reconciliation service.",
            {d("Ruth", "migration of the billing ledger"), o("Ruth", "reconciliation service")},
        ),
        # Irregular verbs in every lemma row; a month is a time, not a modal ("May").
        (
            "Ruth",
            "We began work on the vendor scorecard in March.",
            {o("Ruth", "vendor scorecard")},
        ),
        ("Ruth", "Kofi oversaw the data center exit.", {o("Kofi", "data center exit")}),
        ("Ruth", "The export shipped in May", {d("Ruth", "export")}),
        (
            "Ruth",
            "The payroll sync is blocked on the tax tables until June",
            {o("Ruth", "payroll sync"), b("payroll sync", "tax tables")},
        ),
        # Phrasal verbs with the object inside; "is mine"; routine work is no item.
        ("Kai", "picking the cookie banner v2 back up", {o("Kai", "cookie banner v2")}),
        ("Kai", "Dana took the billing cron over last week", {o("Dana", "billing cron")}),
        ("Kai", "rolled the new checkout flag out to everyone", {d("Kai", "new checkout flag")}),
        ("Kai", "PR #1177 is mine", {o("Kai", "PR #1177")}),
        ("Kai", "the quota dashboard is ours now", {o("Kai", "quota dashboard")}),
        ("Kai", "Today: the billing email templates", {o("Kai", "billing email templates")}),
        # A department after "from" owns the blocker; a plural verb ends the blocker.
        (
            "Kai",
            "The rest of the onboarding flow is waiting on the copy review from legal.",
            {
                o("Kai", "onboarding flow"),
                o("legal", "copy review", "team"),
                b("onboarding flow", "copy review"),
            },
        ),
        (
            "Kai",
            "Invoice batching is on hold until the VAT rules land.",
            {o("Kai", "Invoice batching"), b("Invoice batching", "VAT rules")},
        ),
        # "Y delays X" is blocker-first; "which" after "until Y is signed" is Y.
        (
            "Kai",
            "The retention rollout is on hold until the DPA amendment is signed, which also "
            "delays the EU audit.",
            {
                o("Kai", "retention rollout"),
                b("retention rollout", "DPA amendment"),
                o("Kai", "EU audit"),
                b("EU audit", "DPA amendment"),
            },
        ),
        (
            "Kai",
            "The vendor outage is delaying the invoice sync.",
            {o("Kai", "invoice sync"), b("invoice sync", "vendor outage")},
        ),
        # Under a meeting title the writer is a scribe: no rule-1 ownership for them.
        (
            "Chiara",
            "Infra sync\n- the DNS cutover is blocked on the registrar transfer\n- Kenji "
            "took over the VPN change",
            {b("DNS cutover", "registrar transfer"), o("Kenji", "VPN change")},
        ),
        (
            "Chiara",
            "Mon standup\n- the payout report is blocked on the FX feed\n- shipped the CSV fix",
            {
                o("Chiara", "payout report"),
                b("payout report", "FX feed"),
                d("Chiara", "CSV fix"),
            },
        ),
        # An everyday word can modify a work item's name ("keyboard shortcuts").
        (
            "Kai",
            "The keyboard shortcuts follow-up is tracked in #458 and Sunita is already on it.",
            {o("Sunita", "keyboard shortcuts follow-up")},
        ),
        # Issue and chat comments: "this PR" is the writer's, "this"/"it" with nothing
        # named before is the writer's own work, "X is yours" is the addressee's, a ticket
        # after "in" only tracks the item, an emoticon is no clause break.
        ("Priya", "This PR closes #77 and #78.", {d("Priya", "#77"), d("Priya", "#78")}),
        (
            "Priya",
            "cc @sam — this depends on the auth rework in #66",
            {b("Priya", "auth rework", P)},
        ),
        (
            "Priya",
            "@hamza this is on hold, it sits behind acme/infra#77 (the new runner images).",
            {b("Priya", "new runner images", P)},
        ),
        ("Priya", "@dmitri the rate card import is yours now", {o("dmitri", "rate card import")}),
        (
            "Priya",
            "Handoff review\n- SSO rollout → Hana\n- the audit export is blocked on the S3 policy",
            {
                o("Hana", "SSO rollout"),
                b("audit export", "S3 policy"),
            },
        ),
        (
            "Priya",
            "geo search still stuck behind ES upgrade :(",
            {o("Priya", "geo search"), b("geo search", "ES upgrade")},
        ),
        # Ownership of a gerund's object, "X owner: Name", "has been on X".
        ("Kai", "Dana is working on migrating the cron jobs", {o("Dana", "cron jobs")}),
        ("Kai", "SSO rollout owner: Nadia", {o("Nadia", "SSO rollout")}),
        ("Kai", "Nadia has been on the audit log since Monday", {o("Nadia", "audit log")}),
        (
            "Kai",
            "the export has been on hold pending the schema freeze",
            {o("Kai", "export"), b("export", "schema freeze")},
        ),
        # Unblocking in other words: "can proceed" after a completion, "no longer waits",
        # "good to go" after a merge.
        (
            "Noor",
            "Now that the vendor SDK is out, KYC can proceed.",
            {
                ("KYC", "work_item", "unblocked_from", "vendor SDK", "work_item"),
                d("Noor", "vendor SDK"),
            },
        ),
        (
            "Noor",
            "The vendor SDK is done - KYC flow no longer waits on it.",
            {
                d("Noor", "vendor SDK"),
                ("KYC flow", "work_item", "unblocked_from", "vendor SDK", "work_item"),
            },
        ),
        (
            "Noor",
            "vendor SDK merged, KYC flow good to go",
            {
                d("Noor", "vendor SDK"),
                ("KYC flow", "work_item", "unblocked_from", "vendor SDK", "work_item"),
            },
        ),
        # Owner asides: "(Sara owns those)", "(platform team)", "which Jun is on"; a
        # heading may hold a preposition; "still on X" is ownership; a month after a time
        # word is a time, but "Jun" alone is a name.
        (
            "Vik",
            "- billing alerts: blocked on the new routing rules (Sara owns those)",
            {
                o("Vik", "billing alerts"),
                b("billing alerts", "new routing rules"),
                o("Sara", "new routing rules"),
            },
        ),
        (
            "Vik",
            "- k8s upgrade on staging: waiting on the node image rebuild (platform team)",
            {
                o("Vik", "k8s upgrade on staging"),
                o("platform team", "node image rebuild", "team"),
                b("k8s upgrade on staging", "node image rebuild"),
            },
        ),
        (
            "Vik",
            "rate-limit headers: blocked by API-329, which Jun is on",
            {
                o("Vik", "rate-limit headers"),
                b("rate-limit headers", "API-329"),
                o("Jun", "API-329"),
            },
        ),
        (
            "Vik",
            "still on the nightly reconciliation job",
            {o("Vik", "nightly reconciliation job")},
        ),
        ("Vik", "- still on the SCIM bug (GH-2231): repro'd it", {o("Vik", "SCIM bug")}),
        # Lines opened by two or more people's names are what they said: each speaker
        # stands where the author stands, a bare item after the name is theirs.
        (
            "Olivia",
            "Growth sync\n- Raj: referral rewards is waiting on the fraud scoring update\n"
            "- Mei: finished the A/B harness migration\n- Kojo: pricing page copy, no blockers",
            {
                o("Raj", "referral rewards"),
                b("referral rewards", "fraud scoring update"),
                d("Mei", "A/B harness migration"),
                o("Kojo", "pricing page copy"),
            },
        ),
        (
            "Olivia",
            "Attendees: Ana, Bo, Cy (notes)\nAna: the quarterly numbers look fine\n"
            "Bo: the vendor sent the firmware",
            set(),
        ),
        # Argument boundaries: "on X and on Y" is two blockers; "X ticket SEC-77" is X; a
        # ticket then "upstream" is the ticket; "deployed X to the Y site" is X; a
        # commitment ("has volunteered to drive") is ownership.
        (
            "Kai",
            "the billing export is blocked on the tax-rates service and on the currency "
            "table cleanup",
            {
                o("Kai", "billing export"),
                b("billing export", "tax-rates service"),
                b("billing export", "currency table cleanup"),
            },
        ),
        (
            "Kai",
            "SDK upgrade depends on the PCI scan results ticket SEC-77",
            {o("Kai", "SDK upgrade"), b("SDK upgrade", "PCI scan results")},
        ),
        (
            "Kai",
            "Chart bump can't merge yet — waiting on acme/charts#10922 upstream.",
            {o("Kai", "Chart bump"), b("Chart bump", "acme/charts#10922")},
        ),
        (
            "Kai",
            "We deployed the pick-path optimizer to the Leeds site.",
            {d("Kai", "pick-path optimizer")},
        ),
        (
            "Kai",
            "The forum upgrade remains pending the database move, which Ruth has volunteered "
            "to drive.",
            {
                o("Kai", "forum upgrade"),
                b("forum upgrade", "database move"),
                o("Ruth", "database move"),
            },
        ),
        # "has moved on to X" is ownership; "for the next two sprints" is a duration;
        # "INC-4410 postmortem" keeps its id when the rest is one word.
        (
            "Kai",
            "Zainab has finished the conveyor PLC mapping and has moved on to the safety "
            "interlock spec.",
            {d("Zainab", "conveyor PLC mapping"), o("Zainab", "safety interlock spec")},
        ),
        (
            "Kai",
            "The evidence collector & the access review bot are both assigned to Ewa for the "
            "next two sprints.",
            {o("Ewa", "evidence collector"), o("Ewa", "access review bot")},
        ),
        ("Kai", "- done: INC-4410 postmortem", {d("Kai", "INC-4410 postmortem")}),
        # "until Y is <any predicate>": Y is the blocker
        (
            "Kai",
            "we can't enable the new billing page until the tax tables are sorted out",
            {o("Kai", "new billing page"), b("new billing page", "tax tables")},
        ),
        # A participle used as a modifier ("demand forecast model", "the scheduled
        # purge") is part of the noun phrase, not a hedge.
        (
            "Kai",
            "The pricing team finalised the demand forecast model.",
            {d("pricing team", "demand forecast model", "team")},
        ),
        (
            "Kai",
            "The scheduled purge job was merged yesterday.",
            {d("Kai", "scheduled purge job")},
        ),
        # "delays in X" after a blocking verb names X.
        (
            "Kai",
            "The tariff importer has been held back by delays in the currency feed.",
            {o("Kai", "tariff importer"), b("tariff importer", "currency feed")},
        ),
        # A month after a sentence-opening preposition is a time, not a name.
        (
            "Kai",
            "In November the storage crew retired the tape library.",
            {d("storage crew", "tape library", "team")},
        ),
        (
            "Kai",
            "By March, Odile had shipped the kiosk firmware.",
            {d("Odile", "kiosk firmware")},
        ),
        # "<participle> and <done verb>": the item is done.
        (
            "Kai",
            "The fare table has been reviewed and deployed to production.",
            {d("Kai", "fare table")},
        ),
        (
            "Kai",
            "The depot export was signed off and released on Friday.",
            {d("Kai", "depot export")},
        ),
        # "requires X to be done first"
        (
            "Kai",
            "The route planner requires the map tiles to be finished first.",
            {o("Kai", "route planner"), b("route planner", "map tiles")},
        ),
        # A progressive passive is work under way, not done.
        (
            "Kai",
            "The voucher engine is being delivered by Petra.",
            {o("Petra", "voucher engine")},
        ),
        # "subject to", "ahead of", "prior to": report-style dependencies.
        (
            "Kai",
            "Go-live of the rota tool is subject to the union consultation.",
            {o("Kai", "rota tool"), b("rota tool", "union consultation")},
        ),
        (
            "Kai",
            "The rota tool cannot launch ahead of the union consultation.",
            {o("Kai", "rota tool"), b("rota tool", "union consultation")},
        ),
        # An opening "Until Y <verb>," or "Pending Y," before a stalled item.
        (
            "Kai",
            "Until the cold store audit concludes, the freezer sensor work is paused.",
            {o("Kai", "freezer sensor work"), b("freezer sensor work", "cold store audit")},
        ),
        (
            "Kai",
            "Pending the vendor's signing key, the kiosk rollout has been deferred.",
            {o("Kai", "kiosk rollout"), b("kiosk rollout", "vendor's signing key")},
        ),
        # "before X can <verb>": X waits.
        (
            "Kai",
            "We await the fire inspection before the loading bay can reopen.",
            {o("Kai", "loading bay"), b("loading bay", "fire inspection")},
        ),
        # A negated clause does not hedge the next one.
        (
            "Kai",
            "no movement on the parcel api, blocked on their sandbox keys",
            {b("Kai", "sandbox keys", P)},
        ),
        # Thanks to someone for doing something: they did it.
        (
            "Kai",
            "Huge thanks to Beatriz for landing the invoice splitter!",
            {d("Beatriz", "invoice splitter")},
        ),
        (
            "Kai",
            "kudos to the search team for shipping typo tolerance",
            {d("search team", "typo tolerance", "team")},
        ),
        # "who" after a person: the person did it.
        (
            "Kai",
            "Shoutout to Hemi who rolled out the new seat picker.",
            {d("Hemi", "new seat picker")},
        ),
        # "now that Y is in": Y landed, X moves again.
        (
            "Kai",
            "the voucher import can proceed now that the schema change is in",
            {u("voucher import", "schema change"), d("Kai", "schema change")},
        ),
        (
            "Kai",
            "the tax rules are in, so the invoice preview is unblocked",
            {u("invoice preview", "tax rules"), d("Kai", "tax rules")},
        ),
        (
            "Kai",
            "Ravi and Noor shipped the kiosk update together.",
            {d("Ravi", "kiosk update"), d("Noor", "kiosk update")},
        ),
        # Discourse connectives set off by commas are no subjects.
        (
            "Kai",
            "The tariff sync, however, is still blocked by the currency feed.",
            {o("Kai", "tariff sync"), b("tariff sync", "currency feed")},
        ),
        (
            "Kai",
            "The rota export, as previously reported, remains on hold pending the union review.",
            {o("Kai", "rota export"), b("rota export", "union review")},
        ),
        # A possessive names an owner wherever it stands (contract rule 7).
        (
            "Kai",
            "- reviewed Tomasz's PR for the fare calculator",
            {o("Tomasz", "PR for the fare calculator")},
        ),
        (
            "Kai",
            "Spent the morning pairing on Leona's seat map rewrite",
            {o("Leona", "seat map rewrite")},
        ),
        # "X is <Name>'s <generic noun>": the name owns X.
        (
            "Kai",
            "The kiosk is stuck behind the font fix. That's Oren's PR.",
            {o("Kai", "kiosk"), b("kiosk", "font fix"), o("Oren", "font fix")},
        ),
        # A PR description: a subjectless dependency is the described change's.
        (
            "Kai",
            "## Barcode reprint endpoint\n\nAdds an endpoint to reprint lost labels.\n\n"
            "Depends on #311 (printer queue client)",
            {
                o("Kai", "Barcode reprint endpoint"),
                b("Barcode reprint endpoint", "printer queue client"),
            },
        ),
        (
            "Kai",
            "Adds the route cache for the depot planner.\n\nBlocked by #77",
            {
                o("Kai", "route cache for the depot planner"),
                b("route cache for the depot planner", "#77"),
            },
        ),
        # A wait in the past ("which had been waiting on Y") then "is no longer blocked".
        (
            "Kai",
            "The fare audit, which had been waiting on the ledger snapshot, is no longer blocked.",
            {u("fare audit", "ledger snapshot")},
        ),
        (
            "Kai",
            "The rota import, which had been held up by the payroll schema, was unblocked "
            "this morning.",
            {u("rota import", "payroll schema")},
        ),
        # A heading names the item "it" means in its line; "X is on <Name>" owns.
        (
            "Kai",
            "- fare export - done\n- seat picker: Oren's on it",
            {d("Kai", "fare export"), o("Oren", "seat picker")},
        ),
        ("Kai", "the font fix is on Leona now", {o("Leona", "font fix")}),
        # A stall, then what it needs.
        (
            "Kai",
            "- fare calculator: blocked, needs the tax tables from finance",
            {
                o("Kai", "fare calculator"),
                b("fare calculator", "tax tables"),
                o("finance", "tax tables", "team"),
            },
        ),
        # Taking something over in the progressive.
        ("Kai", "I'm taking over the kiosk rollout from Leona", {o("Kai", "kiosk rollout")}),
        # A question after a comma states nothing.
        (
            "Kai",
            "the rota import is waiting on the payroll schema, anyone know who owns that",
            {o("Kai", "rota import"), b("rota import", "payroll schema")},
        ),
        # "its only dependency is Y"
        (
            "Kai",
            "I'm driving the fare audit. Its only dependency is the ledger snapshot.",
            {o("Kai", "fare audit"), b("fare audit", "ledger snapshot")},
        ),
        # A cleft: "X is what's holding up Y".
        (
            "Kai",
            "the font fix is what's holding up the kiosk release",
            {o("Kai", "kiosk release"), b("kiosk release", "font fix")},
        ),
        # A commitment to deliver is ownership.
        (
            "Kai",
            "The venue importer depends on the geo service, which Leona has committed to deliver.",
            {
                o("Kai", "venue importer"),
                b("venue importer", "geo service"),
                o("Leona", "geo service"),
            },
        ),
        # "a piece of work" in apposition refers back.
        (
            "Kai",
            "The kiosk release waits on the font fix, a piece of work that sits with Oren.",
            {o("Kai", "kiosk release"), b("kiosk release", "font fix"), o("Oren", "font fix")},
        ),
        # Any participle between "being" and "by": the agent has it in hand.
        (
            "Kai",
            "The venue contract is being negotiated by the partnerships team.",
            {o("partnerships team", "venue contract", "team")},
        ),
        # "sorted it", "rolled it out": done by whoever did it.
        (
            "Kai",
            "we're no longer blocked on the seat map, ops rolled it out last night",
            {u("Kai", "seat map", P), d("ops", "seat map", "team")},
        ),
        # Closing tickets in the progressive is closing them.
        ("Kai", "I'm closing #71 and #72 as well.", {d("Kai", "#71"), d("Kai", "#72")}),
        # Working with someone on something: both own it.
        (
            "Kai",
            "- working w/ Leona on the fare calculator",
            {o("Kai", "fare calculator"), o("Leona", "fare calculator")},
        ),
        # A line that opens with "which" continues the item named before.
        (
            "Kai",
            "the rota import is blocked by the payroll schema\nwhich is owned by people ops",
            {
                o("Kai", "rota import"),
                b("rota import", "payroll schema"),
                o("people ops", "payroll schema", "team"),
            },
        ),
        # An action item whose object has a hyphenated word.
        ("Kai", "ACTION: Oren to update the on-call rota by Friday", {o("Oren", "on-call rota")}),
        # A time phrase after "during" is no part of an argument.
        (
            "Kai",
            "the seat map got handed to the venue squad during planning",
            {o("venue squad", "seat map", "team")},
        ),
        # A ticket after a descriptive name is its alias, not part of the name.
        (
            "Kai",
            "The fare export is pending the firewall change request CHG-4410.",
            {o("Kai", "fare export"), b("fare export", "firewall change request")},
        ),
        (
            "Kai",
            "the seat sync in TIX-88 can proceed now that the venue feed landed",
            {u("seat sync", "venue feed"), d("Kai", "venue feed")},
        ),
        # A capitalised group after "from" owns the blocker.
        (
            "Kai",
            "The payout report needs the ledger dump from FinOps first.",
            {
                o("Kai", "payout report"),
                b("payout report", "ledger dump"),
                o("FinOps", "ledger dump", "team"),
            },
        ),
        (
            "Kai",
            "still waiting on the DNS change from the infra folks",
            {b("Kai", "DNS change", P), o("infra folks", "DNS change", "team")},
        ),
        # An adjective from the completion lexicon inside a name is part of the name.
        (
            "Kai",
            "The live seat map is blocked on the venue feed.",
            {o("Kai", "live seat map"), b("live seat map", "venue feed")},
        ),
        # "..., as it is <waiting> on Y": the reason clause after a comma.
        (
            "Kai",
            "The fare audit has not started, as it is contingent on the ledger snapshot.",
            {o("Kai", "fare audit"), b("fare audit", "ledger snapshot")},
        ),
        # "which <Name> is expected to <verb>": the name owns it.
        (
            "Kai",
            "The kiosk release depends on the font fix, which Oren is expected to finish "
            "this week.",
            {o("Kai", "kiosk release"), b("kiosk release", "font fix"), o("Oren", "font fix")},
        ),
        # "held pending", "can't run until", "can't be cut until"
        (
            "Kai",
            "The refund batch continues to be held pending the bank file format.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        (
            "Kai",
            "the nightly recon can't run until the ledger fix is deployed",
            {o("Kai", "nightly recon"), b("nightly recon", "ledger fix")},
        ),
        (
            "Kai",
            "The 3.1 branch can't be cut until the schema freeze lands.",
            {o("Kai", "3.1 branch"), b("3.1 branch", "schema freeze")},
        ),
        # A named doer elsewhere in the update takes the place of the author.
        (
            "Kai",
            "the invoice splitter is done\nLeona did it, not me",
            {d("Leona", "invoice splitter")},
        ),
        (
            "Kai",
            "The seat sync went live. Thanks Oren for shipping it!",
            {d("Oren", "seat sync")},
        ),
        # A past wait in a sentence that unblocks: no longer waiting.
        (
            "Kai",
            "The ledger dump is merged. The payout report was waiting on it, so Oren is unblocked.",
            {d("Kai", "ledger dump"), u("payout report", "ledger dump")},
        ),
        # "Blockers: none, but ..." still reads the rest.
        (
            "Kai",
            "Blockers: none, the venue feed got fixed by the data team so the seat sync is "
            "unblocked",
            {d("data team", "venue feed", "team"), u("seat sync", "venue feed")},
        ),
        # An action item written without "to".
        ("Kai", "ACTION Oren — circulate the launch checklist", {o("Oren", "launch checklist")}),
        ("Kai", "AI: Leona — seat map export, target next sprint", {o("Leona", "seat map export")}),
        # A completion to a share of traffic is still a completion of the item.
        (
            "Kai",
            "- deployed the new fare engine to 20% of traffic",
            {d("Kai", "new fare engine")},
        ),
        # "too", "tho" at a clause's end are no part of it.
        (
            "Kai",
            "the rota export is done too, shipped it last night",
            {d("Kai", "rota export")},
        ),
        (
            "Kai",
            "today: start on the seat map, blokced until the venue feed is provisioned tho",
            {o("Kai", "seat map"), b("seat map", "venue feed")},
        ),
        # A gerund after a completion names what was done.
        (
            "Kai",
            "Y: finished migrating the fare tables to the new ledger",
            {d("Kai", "fare tables")},
        ),
        # "Y first, which <Name> is <doing>": the name has Y.
        (
            "Kai",
            "the kiosk release needs the font bundle first, which Oren is preparing",
            {
                o("Kai", "kiosk release"),
                b("kiosk release", "font bundle"),
                o("Oren", "font bundle"),
            },
        ),
        # An aside naming who runs "that".
        (
            "Kai",
            "- seat sync is parked until the venue audit wraps up (Leona's running that)",
            {o("Kai", "seat sync"), b("seat sync", "venue audit"), o("Leona", "venue audit")},
        ),
        # A passive of an ownership verb with its agent.
        (
            "Kai",
            "The fare audit has been picked up by Oren.",
            {o("Oren", "fare audit")},
        ),
        (
            "Kai",
            "The rota export was taken over by the people ops team.",
            {o("people ops team", "rota export", "team")},
        ),
        # An action item's quantity is no part of its object.
        ("Kai", "ACTION: Leona to line up two venue partners", {o("Leona", "venue partners")}),
        # Focus phrases name the work someone is on.
        ("Kai", "- currently heads-down on the venue importer", {o("Kai", "venue importer")}),
        ("Kai", "Leona is focused on the kiosk offline mode.", {o("Leona", "kiosk offline mode")}),
        # Pairing on something now: both work on it.
        (
            "Kai",
            "- today: pairing with Oren on the fare rules parser",
            {o("Kai", "fare rules parser"), o("Oren", "fare rules parser")},
        ),
        ("Kai", "Oren's the point person on the rota export.", {o("Oren", "rota export")}),
        # "completed work on X" completes X.
        ("Kai", "Oren completed work on the seat map flicker.", {d("Oren", "seat map flicker")}),
        # Made available to everyone: released.
        (
            "Kai",
            "Kiosk offline mode is now available to all sites.",
            {d("Kai", "Kiosk offline mode")},
        ),
        # "under <Name>'s leadership": the name owns it.
        (
            "Kai",
            "The depot rollout continues under Leona Brandt's leadership.",
            {o("Leona Brandt", "depot rollout")},
        ),
        # Report completions: "concluded", "reached completion".
        ("Kai", "The venue survey concluded in March.", {d("Kai", "venue survey")}),
        ("Kai", "The rota migration reached completion last week.", {d("Kai", "rota migration")}),
        # A wait on a group's sign-off of an item: the item's sign-off.
        (
            "Kai",
            "The refund batch remains blocked, awaiting sign-off from Finance on the bank file "
            "format.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        # Nominal dependencies with adjectives.
        (
            "Kai",
            "The bank file format is the outstanding dependency for the refund batch.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        (
            "Kai",
            "A key dependency for the refund batch is the bank file format.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        # "cannot be scheduled", "must be approved before X can run".
        (
            "Kai",
            "Until the bank file format is approved, the refund batch cannot be scheduled.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        (
            "Kai",
            "The bank file format must be approved before the refund batch can run.",
            {o("Kai", "refund batch"), b("refund batch", "bank file format")},
        ),
        # Unblocked after something was approved: the approved item is the cause.
        (
            "Kai",
            "Now that the bank file format has been approved, the refund batch can proceed.",
            {u("refund batch", "bank file format")},
        ),
        (
            "Kai",
            "With the bank file format approved, the refund batch is no longer blocked.",
            {u("refund batch", "bank file format")},
        ),
        (
            "Kai",
            "Following approval of the bank file format, the refund batch was unblocked.",
            {u("refund batch", "bank file format")},
        ),
        # A PR's own verbs: "This PR fixes X and closes #N".
        (
            "Kai",
            "This PR fixes the stale seat cache and closes #431.",
            {d("Kai", "stale seat cache"), d("Kai", "#431")},
        ),
        ("Kai", "Fixes #88, #91", {d("Kai", "#88"), d("Kai", "#91")}),
        # One-letter standup headings; "none, ..." opening news that is not a negation.
        (
            "Kai",
            "Y\n- deployed the new fare engine\nB\n- none, the rate API bug got fixed by the "
            "edge team so the fare engine is unblocked",
            {
                d("Kai", "new fare engine"),
                d("edge team", "rate API bug", "team"),
                u("fare engine", "rate API bug"),
            },
        ),
        # A past wait and an addressee told they are unblocked.
        (
            "Kai",
            "The ledger dump is merged. The payout report was waiting on it, so @oren you're "
            "unblocked.",
            {d("Kai", "ledger dump"), u("payout report", "ledger dump")},
        ),
        # "its only dependency was Y, and that was completed by Z": unblocked by Z's work.
        (
            "Kai",
            "I'm driving the fare audit. Its only open dependency was the ledger snapshot, and "
            "that was completed yesterday by the data team.",
            {
                o("Kai", "fare audit"),
                u("fare audit", "ledger snapshot"),
                d("data team", "ledger snapshot", "team"),
            },
        ),
        # A stall, then "it needs Y" after a colon.
        (
            "Kai",
            "The refund batch is on hold: it needs the bank's file spec.",
            {o("Kai", "refund batch"), b("refund batch", "bank's file spec")},
        ),
        # "Blocked: X needs Y"
        (
            "Kai",
            "- blocked: seat sync needs the venue feed schema",
            {o("Kai", "seat sync"), b("seat sync", "venue feed schema")},
        ),
        # A retro's "went well:" is no doer.
        ("Kai", "- went well: shipped the geo filter", {d("Kai", "geo filter")}),
        # A reply's "yes," is no subject.
        (
            "Kai",
            "A: yes, still waiting on the tax API keys",
            {b("Kai", "tax API keys", P)},
        ),
        # "waiting for <someone> to <verb> X": X is the blocker.
        (
            "Kai",
            "the seat sync is waiting for a DBA to provision the replica",
            {o("Kai", "seat sync"), b("seat sync", "replica")},
        ),
        (
            "Kai",
            "re: the flaky e2e suite — Karim is digging into it",
            {o("Karim", "flaky e2e suite")},
        ),
        # "since it relies on Z" after "X can't ship until Y": X is what relies on Z.
        (
            "Kai",
            "The kiosk build can't ship until the font pack (#12) is merged, since it relies "
            "on the new glyph table.",
            {
                o("Kai", "kiosk build"),
                b("kiosk build", "font pack"),
                b("kiosk build", "new glyph table"),
            },
        ),
        # "which is itself waiting on Z"
        (
            "Kai",
            "The launch waits on the load test sign-off, which is itself waiting on the perf "
            "rig rebuild.",
            {
                o("Kai", "launch"),
                b("launch", "load test sign-off"),
                o("Kai", "load test sign-off"),
                b("load test sign-off", "perf rig rebuild"),
            },
        ),
        # A topic line: "update on X", then "it".
        (
            "Kai",
            "update on the fare export\nit's blocked on the bank file spec",
            {o("Kai", "fare export"), b("fare export", "bank file spec")},
        ),
        # Minutes with a roster: "Name to <verb> X" is an action item.
        (
            "Kai",
            "Infra sync\nAttendees: Ama, Bruno, Kai (notes)\n- Bruno to send the cost report to "
            "finance",
            {o("Bruno", "cost report")},
        ),
        # "Retro actions" heads action items.
        (
            "Kai",
            "Retro actions\n- Ama will write the on-call runbook",
            {o("Ama", "on-call runbook")},
        ),
        # "Depends on #N landing first" under a PR title.
        (
            "Kai",
            "PR #881: Add retry budget to the ingest client\n\nDepends on #879 landing first.",
            {
                o("Kai", "Add retry budget to the ingest client"),
                b("Add retry budget to the ingest client", "#879"),
            },  # a PR's title names its change as written
        ),
        # A nudge is no topic; "a review for #N" is #N.
        (
            "Kai",
            "Bumping: still waiting on a review for #455",
            {b("Kai", "#455", P)},
        ),
        (
            "Kai",
            "all good here, the invoice PDF fix went out this morning",
            {d("Kai", "invoice PDF fix")},
        ),
        # A ticked checkbox is done; an open one says what it waits on.
        (
            "Kai",
            "Tracking issue for 2.0\n- [x] #41 drop the legacy auth\n- [ ] #44 bulk export — "
            "blocked by #45",
            {d("Kai", "drop the legacy auth"), o("Kai", "bulk export"), b("bulk export", "#45")},
        ),
        # "pushed it" / "pushed the fix": done by whoever pushed.
        (
            "Kai",
            "the kiosk login is no longer stuck on the cert update, Oren pushed it an hour ago",
            {u("kiosk login", "cert update"), d("Oren", "cert update")},
        ),
        # A period after "for the current ..." is no part of the name.
        (
            "Kai",
            "The access review for the current audit window has been completed and submitted.",
            {d("Kai", "access review")},
        ),
        # "(carried out by X)" names the doer.
        (
            "Kai",
            "- Completed: migration of the ticket store to the new region (carried out by the "
            "data team)",
            {d("data team", "migration of the ticket store", "team")},
        ),
        # "A, the B, <predicate>": one item named twice.
        (
            "Kai",
            "Phase two, the venue sync, cannot begin until the ticketing contract is signed.",
            {o("Kai", "venue sync"), b("venue sync", "ticketing contract")},
        ),
        # A handover "from X to Y": Y has it now.
        (
            "Kai",
            "Responsibility for the loyalty feed has moved from Kwame Boateng to the CRM team.",
            {o("CRM team", "loyalty feed", "team")},
        ),
        # "<verb>ed X, waiting on Y": X waits.
        (
            "Kai",
            "fyi moved the venue reindex to Friday, waiting on the new shard map",
            {o("Kai", "venue reindex"), b("venue reindex", "new shard map")},
        ),
        ("Kai", "done with the fare export, pushed to main", {d("Kai", "fare export")}),
        # A participle after an article is an adjective ("the updated snapshot").
        (
            "Kai",
            "Preparation of the fare audit is, at the time of writing, dependent on the updated "
            "ledger snapshot.",
            {
                o("Kai", "Preparation of the fare audit"),
                b("Preparation of the fare audit", "updated ledger snapshot"),
            },
        ),
        # A wait until something "is obtained from" a group: the group has it.
        (
            "Kai",
            "The ticket archive remains on hold until the retention sign-off is obtained from "
            "the records team.",
            {
                o("Kai", "ticket archive"),
                b("ticket archive", "retention sign-off"),
                o("records team", "retention sign-off", "team"),
            },
        ),
        # An aside between a subject and its predicate.
        (
            "Kai",
            "The billing revamp, owned by Leona, is no longer blocked on the tax tables.",
            {o("Leona", "billing revamp"), u("billing revamp", "tax tables")},
        ),
        (
            "Kai",
            "The billing revamp, which Leona owns, is no longer blocked on the tax tables.",
            {o("Leona", "billing revamp"), u("billing revamp", "tax tables")},
        ),
        # Taking a ticket is taking it on.
        ("Kai", "took the stale cache bug, TIX-41", {o("Kai", "stale cache bug")}),
        ("Kai", "Oren took the ticket for the seat map flicker", {o("Oren", "seat map flicker")}),
        # A bare item under a "Done" heading line is done; under "Doing" it is worked on.
        (
            "Kai",
            "**Done**\n- rota export\n**Doing**\n- fare audit",
            {d("Kai", "rota export"), o("Kai", "fare audit")},
        ),
        (
            "Kai",
            "Shipped\n- seat map refresh\n- kiosk offline mode",
            {d("Kai", "seat map refresh"), d("Kai", "kiosk offline mode")},
        ),
        # A status with a name in brackets: that person is on it.
        ("Kai", "Fare audit — in progress (Leona).", {o("Leona", "Fare audit")}),
        # "can't move" / "can't progress" with its reason (the mission's own wording).
        (
            "Clara",
            "The checkout flow can't move because Bob's payments integration isn't ready.",
            {
                o("Clara", "checkout flow"),
                o("Bob", "payments integration"),
                b("checkout flow", "payments integration"),
            },
        ),
        (
            "Kai",
            "The kiosk rollout cannot progress until the fare audit is signed off.",
            {o("Kai", "kiosk rollout"), b("kiosk rollout", "fare audit")},
        ),
    ],
)
def test_reads_in_general_form(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "I need a coffee before I can think",
        "Tanvir says it might land next sprint",
        "Bob said the auth refactor might be done.",
        "Reviewers: Dana, Lee",
        "Standup — Claudia",
        "Overall status: Red",
        "Vault migration: Hiroshi",
        "Bbb: ccc ddd\nEee: fff ggg",
        "The payroll sync may be blocked on the tax tables",
        "The onboarding revamp was formerly owned by Dana.",
        "took the call on Monday",
        "the vendor promised a build, though we have heard that before",
        "Status: sprint 14 burndown looks ok, 21/34 pts done.",
        "The release is good to go.",
        "We can start the migration next week.",
        "the rate card import is yours now",
        "waiting on the new laptop",
        "waiting on the dentist appointment",
        "Today: back to regular stuff",
        "Today: catching up on email",
        "ugh waiting on my build for like 15 min now",
        "Today\n- triage the inbox",
        "Today\n- try again",
        "Today\n- more interviews (2)",
        "Further detail will follow once the review board has met.",
        "The following is submitted for information.",
        "3.2 million rows migrated so far.",
        "still on the same ticket",
        "waiting on legal",
        "took the call with the vendor this morning",
        "I was blocked on the train for an hour this morning",
        "Oren's laptop died, so he's on a loaner",
        "the android build is still pending on the store's side",
        "the export query times out under load",
        "spent the morning chasing the cert issue, turned out to be a clock skew — fixed now",
        "blocked on procurement again",
        "We can't move the standup to ten.",
    ],
)
def test_no_fact_in_general_form(sentence: str) -> None:
    assert extract(sentence, "Kai").facts == []


def test_the_same_item_refers_back_or_names_nothing() -> None:
    from memcli.extract.rules import extract

    def read(text: str) -> list[tuple[str, str, str]]:
        return [
            (f.source.name, f.relation.value, f.target.name) for f in extract(text, "Ines").facts
        ]

    # named earlier in the update: that item
    assert ("seat map", "blocked_by", "venue feed import") in read(
        "The stage plan is blocked on the venue feed import. The seat map is stuck on that"
        " same import too."
    )
    # named in an earlier update: kept as "same ...", for analyze to join
    assert read("The seat map is stuck on that same import.") == [
        ("Ines", "owns", "seat map"),
        ("seat map", "blocked_by", "same import"),
    ]
    # a comparison or a vague head names nothing
    assert read("Blocked on the same thing as Oren.") == []
    assert read("Stuck on the same issue as yesterday.") == []
