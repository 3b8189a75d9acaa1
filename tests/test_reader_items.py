"""Which item a fact is about, and who did it: the reader's precision in general form.

Each case is a kind of misreading (an argument taken from the wrong clause, a verb or a
label read as a person, a name with words it does not have, a reference left unresolved),
checked on sentences written for this file in several styles.
"""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u

P = "person"
T = "team"


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A capitalised verb or label opening a line is no person: "Reason:", "Took ...".
        (
            "Ines",
            "Launch readiness, v2.0\n• Verdict: hold for a week.\n• Reason: the canary deploy "
            "is blocked by the flaky health probe.\n• Action items: Oskar to fix the health probe.",
            {b("canary deploy", "flaky health probe"), o("Oskar", "flaky health probe")},
        ),
        # "its <event>" is the item itself: its rollout, its launch, its completion.
        (
            "Ines",
            "Search indexer: its launch is pending the shard rebalance.",
            {o("Ines", "Search indexer"), b("Search indexer", "shard rebalance")},
        ),
        (
            "Ines",
            "The tenant billing revamp is on track. Its rollout depends on the pricing API freeze.",
            {o("Ines", "tenant billing revamp"), b("tenant billing revamp", "pricing API freeze")},
        ),
        (
            "Ines",
            "The SOC 2 gap review is outstanding; its completion is waiting on the HR export "
            "(HR-12).",
            {o("Ines", "SOC 2 gap review"), b("SOC 2 gap review", "HR export")},
        ),
        # "the latter" / "the former": one of the pair named together just before.
        (
            "Ines",
            "The pricing page and the signup flow both wait on the copy review; the latter "
            "also needs the legal sign-off first.",
            {
                o("Ines", "pricing page"),
                o("Ines", "signup flow"),
                b("pricing page", "copy review"),
                b("signup flow", "copy review"),
                b("signup flow", "legal sign-off"),
            },
        ),
        # A generic head ("the release", "the project") names the titled item before it.
        (
            "Ines",
            "Release 3.2 readiness\nThe release is gated on the licence audit.",
            {b("Release 3.2", "licence audit")},
        ),
        (
            "Ines",
            "Project Heron update\n- the project is waiting on the vendor SDK drop",
            {o("Ines", "Project Heron"), b("Project Heron", "vendor SDK drop")},
        ),
    ],
)
def test_reads_the_item_meant(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "absent"),
    [
        # No verb or label becomes an owner, and no time of day does.
        (
            "Ines",
            "Yesterday\n* Took point on the webhook signing rework\nToday\n* runbook edits",
            "Took",
        ),
        ("Ines", "Today: handing the pager rota to Malik at noon", "noon"),
        (
            "Ines",
            "Dmitri's app needs the token service and Lea's soak test needs the SSO proxy; "
            "I'll take both of those.",
            "both of those",
        ),
        (
            "Ines",
            "The backfill script is in review, but it can't run against prod until the "
            "replica is promoted.",
            "against prod",
        ),
        ("Ines", "Payments\n- held at QA, awaiting the sandbox credentials (PAY-9)", "held"),
        # An unresolved "latter" is no item.
        (
            "Ines",
            "Two asks: log retention and alert dedupe. The latter is blocked by PLAT-7.",
            "latter",
        ),
        ("Ines", "Infra summary\nIts rollout is on hold pending CHG-2.", "Its rollout"),
    ],
)
def test_no_entity_named_by_a_verb_label_or_reference(author: str, text: str, absent: str) -> None:
    names = {n for f in extract(text, author).facts for n in (f.source.name, f.target.name)}
    assert absent not in names


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A subjectless "after/while <verb>-ing it" adjunct shares the main clause's doer.
        (
            "Ines",
            "Kenji rolled out the quota service on Monday, after babysitting it through two "
            "canaries.",
            {d("Kenji", "quota service"), o("Kenji", "quota service")},
        ),
        (
            "Ines",
            "Board note: Tamsin launched the partner directory in May, after shepherding it "
            "through legal review.",
            {d("Tamsin", "partner directory"), o("Tamsin", "partner directory")},
        ),
        # The agent of a completing passive did the sentence's doer-less completions: a
        # subjectless "and was delivered by T", a "which got merged" on the agent's means.
        (
            "Ines",
            "The ledger re-platforming finished in March, a week early, and was delivered by "
            "the Billing Core team.",
            {d("Billing Core team", "ledger re-platforming", T)},
        ),
        (
            "Ines",
            "The stale-cache bug was fixed by @oyelaran in PR #77, which got merged this morning.",
            {d("oyelaran", "stale-cache bug"), d("oyelaran", "PR #77")},
        ),
        # ... but not a coordinated clause with a subject of its own.
        (
            "Ines",
            "The cron box was retired by Ops, and the DNS cleanup got merged after review.",
            {d("Ops", "cron box", T), d("Ines", "DNS cleanup")},
        ),
        # Reported speech after the writer's own clause: "I" is still the writer.
        (
            "Ines",
            "- the tax form export is still stuck\n- I'm waiting on the VAT table refresh, "
            "Joaquim said he would look into it",
            {o("Ines", "tax form export"), b("tax form export", "VAT table refresh")},
        ),
        (
            "Ines",
            "pricing widget is blocked. i'm waiting on the currency feed (FX-3), Bo says he "
            "has it in review",
            {o("Ines", "pricing widget"), b("pricing widget", "currency feed")},
        ),
        # "they" after a plural item with no team named: the item waits.
        (
            "Ines",
            "- today: retention charts for the billing page; they need the events export first",
            {
                o("Ines", "retention charts for the billing page"),
                b("retention charts for the billing page", "events export"),
            },
        ),
    ],
)
def test_credits_the_doer_the_text_names(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # Where the work came from ("off Omar's plate") is no part of its name, and no one
        # owns their hands or a move in their life.
        (
            "Ines",
            "grabbing the flaky e2e triage off Omar's plate today",
            {o("Ines", "flaky e2e triage")},
        ),
        (
            "Ines",
            "I'm taking the billing dashboard off Priya's hands this sprint.",
            {o("Ines", "billing dashboard")},
        ),
        # An adjunct opened by "following", "despite", "ahead of" ends the argument.
        (
            "Ines",
            "Haruto took over the SSO rollout following Mei's move to the mobile team.",
            {o("Haruto", "SSO rollout")},
        ),
        (
            "Ines",
            "Ownership of the vendor portal moved to Priscilla Adeyemi following Ken's departure.",
            {o("Priscilla Adeyemi", "vendor portal")},
        ),
        # "between A and B" is one item, not a list.
        (
            "Ines",
            "- wip: the sync between the CRM and the warehouse",
            {o("Ines", "sync between the CRM and the warehouse")},
        ),
        (
            "Ines",
            "The sync between the CRM and the warehouse is blocked on the API quota bump.",
            {
                o("Ines", "sync between the CRM and the warehouse"),
                b("sync between the CRM and the warehouse", "API quota bump"),
            },
        ),
        # A clause inside the blocker ("until <someone> <verb>s the X"): the X waits.
        (
            "Ines",
            "ENG-88 is blocked until the vendor reissues the signing cert.",
            {o("Ines", "ENG-88"), b("ENG-88", "signing cert")},
        ),
        (
            "Ines",
            "The tile cache rollout is frozen until legal blesses the new map licence.",
            {o("Ines", "tile cache rollout"), b("tile cache rollout", "new map licence")},
        ),
        # A quantity or a part before the item is not its name.
        ("Ines", "Merged all three search ranking patches.", {d("Ines", "search ranking patches")}),
        ("Ines", "Wrapped up the remaining bits of the SCIM sync.", {d("Ines", "SCIM sync")}),
        ("Ines", "@jun merged both of the pager fixes", {d("jun", "pager fixes")}),
    ],
)
def test_names_the_item_without_extra_words(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "text",
    [
        # What work needs (people, money, consensus, a season) is no work item.
        "Enterprise SSO and audit logs are both planned for Q3 but depend on security "
        "headcount that is not yet approved.",
        "We expect to recover the gap next sprint, though this depends on headcount staying "
        "stable.",
        "Work on the CSAT survey integration has been paused by agreement with product.",
        "- the churn dashboard is gated on more headcount, so parked for now",
        "The beta rollout has been postponed until the new year.",
        # A schedule, a target, an idiom or a vague amount states no fact.
        "The EU launch goes live Monday, pending nothing else.",
        "heads up: the partner portal goes out tomorrow morning",
        "Target: SSO for the admin app live by Q3.",
        "Leon said he'll take a look at the flaky login test next week.",
        "Our team owns a lot of legacy code, honestly.",
        # Blocked in the everyday sense: an address, an account, traffic.
        "Our CI runner's IP got blocked by the registry's rate limiter again.",
        "heads up: the staging bot accounts are blocked by the SSO policy, re-enabling them",
    ],
)
def test_no_fact_from_resources_or_ordinary_senses(text: str) -> None:
    assert facts_of(extract(text, "Ines")) == set()


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # The item a "which X needs" relative clause names is what waits, not the writer.
        (
            "Ines",
            "still waiting on the gateway config change, which the rate limit headers need",
            {o("Ines", "rate limit headers"), b("rate limit headers", "gateway config change")},
        ),
        (
            "Ines",
            "Blocked on the SAML metadata (IDP-4), which the partner login flow depends on.",
            {o("Ines", "partner login flow"), b("partner login flow", "SAML metadata")},
        ),
        # "Today: X" / "WIP: X" is the writer's item now: a subjectless wait after it is X's.
        (
            "Ines",
            "- wip: the churn model\n- blocked on the feature store backfill",
            {o("Ines", "churn model"), b("churn model", "feature store backfill")},
        ),
        (
            "Ines",
            "Today: quota alerts\nBlockers: still waiting for the metrics relabel (OBS-7)",
            {o("Ines", "quota alerts"), b("quota alerts", "metrics relabel")},
        ),
        # "Pending Y, <someone> has that": Y is what "that" means and what the item waits on.
        (
            "Ines",
            "- wip: the churn model\n- pending the feature store backfill, Ilse has it",
            {
                o("Ines", "churn model"),
                b("churn model", "feature store backfill"),
                o("Ilse", "feature store backfill"),
            },
        ),
        # A relative clause between a subject and its verb does not lend its object.
        (
            "Ines",
            "The new signing key, which we need before the mobile release, is with security.",
            {o("security", "new signing key", T)},
        ),
    ],
)
def test_takes_the_argument_from_the_right_clause(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A plain heading line names the item its subjectless bullets are about.
        (
            "Ines",
            "Release 4.1\n- blocked on the notarisation fix\n- Kim owns the release",
            {b("Release 4.1", "notarisation fix"), o("Kim", "Release 4.1")},
        ),
        (
            "Ines",
            "geo-search\n- about a third of the shards reindexed\n- waiting on the tile "
            "server upgrade (MAP-3)",
            {o("Ines", "geo-search"), b("geo-search", "tile server upgrade")},
        ),
        (
            "Ines",
            "Payments\n- held at QA, awaiting the sandbox credentials (PAY-9)",
            {o("Ines", "Payments"), b("Payments", "sandbox credentials")},
        ),
        # ... and a title names the item a bare head noun in the text means.
        (
            "Ines",
            "## Billing v2 launch\nThe launch is waiting on the tax engine sign-off.",
            {o("Ines", "Billing v2 launch"), b("Billing v2 launch", "tax engine sign-off")},
        ),
        (
            "Ines",
            "Mobile v5 release notes\nThe release shipped on Tuesday.",
            {d("Ines", "Mobile v5 release")},
        ),
        # A clause swallowed into the subject: "<Name> demoed the X, merged yesterday".
        (
            "Ines",
            "Sprint demo notes\n- Pita demoed the new search filters, merged yesterday",
            {d("Ines", "new search filters")},
        ),
    ],
)
def test_headings_and_titles_name_the_item(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A text that says an item has no owner withdraws the writer's default ownership.
        (
            "Ines",
            "The SSO toggle is blocked on the IdP upgrade; it still needs an owner.",
            {b("SSO toggle", "IdP upgrade")},
        ),
        (
            "Ines",
            "The CSV export and the PDF export both wait on the font bundle. Neither one has "
            "an owner yet.",
            {b("CSV export", "font bundle"), b("PDF export", "font bundle")},
        ),
        (
            "Ines",
            "- nightly compaction: waiting on the storage quota bump, unowned for now",
            {b("nightly compaction", "storage quota bump")},
        ),
        # "I've split/cut X": a perfect tense, not something the writer has.
        (
            "Ines",
            "I've split this into two tickets: CORE-7 and CORE-8.",
            set(),
        ),
    ],
)
def test_no_owner_where_the_text_denies_one(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "Per Hana, X is blocked": Hana reports, so Hana stands where the writer would.
        (
            "Ines",
            "Per Hana, the cost dashboard is blocked until finance shares the Q3 numbers.",
            {o("Hana", "cost dashboard"), b("cost dashboard", "Q3 numbers")},
        ),
        (
            "Ines",
            "According to Bilal, the SMS fallback is waiting on the carrier contract.",
            {o("Bilal", "SMS fallback"), b("SMS fallback", "carrier contract")},
        ),
        # Part of an item done is not the item done; a person moving teams is no work.
        ("Ines", "Half of the billing migration is done.", set()),
        ("Ines", "Part of the ledger backfill is complete.", set()),
        (
            "Ines",
            "I've taken over the support macros from Priyanka since she moved teams.",
            {o("Ines", "support macros")},
        ),
    ],
)
def test_speaker_and_part_readings(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A bare event of the line's heading item is that item's event.
        ("Ines", "Kiosk app: rollout done, all 40 stores.", {d("Ines", "Kiosk app")}),
        ("Ines", "- Vendor portal (VP-3): go-live complete", {d("Ines", "Vendor portal")}),
        # Done for some of its parts only is not done.
        ("Ines", "Access reviews: complete for 18 of 25 systems.", set()),
        ("Ines", "Runbook migration: done for 7 of 9 services", set()),
        # A project's name is no person, even with a possessive.
        (
            "Ines",
            "Project Heron update\nHeron's search service went live on Monday.",
            {d("Ines", "search service")},
        ),
        # A clause in a list ("patched that and the X is merged") drops, the X stays.
        (
            "Ines",
            "Yesterday: found the leak, patched that and the cache eviction fix is merged.",
            {d("Ines", "cache eviction fix")},
        ),
        # "Next:" is a plan.
        (
            "Ines",
            "- done: the audit log export\n- next: quota alerts",
            {d("Ines", "audit log export")},
        ),
    ],
)
def test_events_parts_and_plans(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "Work on X ... continues" is a subject, not the writer working on X.
        ("Ines", "Work on the invoice exporter continues.", set()),
        (
            "Ines",
            "Work on the geo cache (GEO-4), owned by Tariq, continues this sprint.",
            {o("Tariq", "geo cache")},
        ),
        # "the last cutover" / "the final batch" of the item just named is that item.
        (
            "Ines",
            "The tenant split is wrapped up; Oren and I finished the final batch last night.",
            {d("Oren", "tenant split"), d("Ines", "tenant split")},
        ),
        ("Ines", "Shipped the second batch of the price updates.", set()),
        # "your X got merged", said to someone: they did it.
        (
            "Ines",
            "@kim thanks, your patch for the CSV quoting got merged.",
            {o("kim", "patch for the CSV quoting"), d("kim", "patch for the CSV quoting")},
        ),
    ],
)
def test_subjects_steps_and_addressees(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "X (blocked: Y)", "X — blocked: Y": X waits on Y.
        (
            "Ines",
            "- search facets (blocked: taxonomy export)",
            {o("Ines", "search facets"), b("search facets", "taxonomy export")},
        ),
        (
            "Ines",
            "In progress: the consent banner — blocked: legal copy review (LEG-2)",
            {o("Ines", "consent banner"), b("consent banner", "legal copy review")},
        ),
        # A ticket id beside its item's name: the name.
        (
            "Ines",
            "- today: PAY-88 refund webhooks\n- blockers: the refund webhooks need the "
            "ledger events first",
            {o("Ines", "refund webhooks"), b("refund webhooks", "ledger events")},
        ),
        (
            "Ines",
            "Search tuning waits on the click-log export ticket DATA-12, which Ilse owns.",
            {
                o("Ines", "Search tuning"),
                b("Search tuning", "click-log export"),
                o("Ilse", "click-log export"),
            },
        ),
    ],
)
def test_labels_tickets_and_places(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # An action whose work is the activity (demo, review, audit) owns that activity,
        # not the thing it is about (which may be an item already shipped).
        (
            "Ines",
            "Sprint review\n- Shipped: the PDF export (Ben)\n- ACTION: Ben to demo PDF "
            "export to support",
            {d("Ben", "PDF export"), o("Ben", "PDF export demo")},
        ),
        (
            "Ines",
            "Ops review\nAI: Tomas to review the DR runbook before the drill",
            {o("Tomas", "DR runbook review")},
        ),
        # A greeting is no item.
        (
            "Ines",
            "hey, the billing alerts are done, Rui and I wrapped them up last night",
            {d("Ines", "billing alerts"), d("Rui", "billing alerts")},
        ),
    ],
)
def test_actions_and_greetings(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "Owner for X: Dana" names Dana, not the writer.
        ("Ines", "Owner for the billing cutover: Dana.", {o("Dana", "billing cutover")}),
        (
            "Ines",
            "Owner of the bulk export v2 (currently in review): Dagny",
            {o("Dagny", "bulk export v2")},
        ),
        ("Ines", "DRI for the SOC 2 evidence — @lwong", {o("lwong", "SOC 2 evidence")}),
        # "im" typed for "I'm" is the writer.
        (
            "Ines",
            "- the payouts report is stuck\n- im waiting on the FX feed",
            {o("Ines", "payouts report"), b("payouts report", "FX feed")},
        ),
        # "code" and "the root cause" are no work items.
        (
            "Ines",
            "Closing; the root cause was fixed when we upgraded the PDF library.",
            set(),
        ),
    ],
)
def test_owner_lines_typed_i_and_non_items(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "X is unblocked now that Y merged": Y, not the item finished on the line before.
        (
            "Ines",
            "- Leila finished the HSM migration.\n- Flutter upgrade: free to proceed now that "
            "the camera plugin patch (MOBI-402) merged.",
            {
                d("Leila", "HSM migration"),
                u("Flutter upgrade", "camera plugin patch"),
                d("Ines", "camera plugin patch"),
            },
        ),
        # A subject that trails off ("X... still blocked on Y") is what follows' subject.
        (
            "Ines",
            "the partner sync... still blocked on the API keys from Acme.",
            {o("Ines", "partner sync"), b("partner sync", "API keys"), o("Acme", "API keys")},
        ),
    ],
)
def test_cause_and_trailing_subject(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # A subject span running over ", and" from a clause of its own starts after it.
        (
            "Ines",
            "Omar rolled back the bad config within ten minutes, and the permanent fix was "
            "merged by the gateway team.",
            {d("gateway team", "permanent fix", T)},
        ),
        # A clause verb is no item: "the dashboard that goes with it".
        (
            "Ines",
            "The SLO dashboard that goes with it is blocked until the metrics relabel lands.",
            set(),
        ),
        # "all three of the X" is the X.
        (
            "Ines",
            "all three of the webhook fixes are out",
            {d("Ines", "webhook fixes")},
        ),
        # "X, which depends on Y, is now unblocked": no wait on Y is left.
        (
            "Ines",
            "The invoicing revamp, which depends on the tax module, is now unblocked.",
            {o("Ines", "invoicing revamp"), u("invoicing revamp", "tax module")},
        ),
        # "blocked by @infra on the VPN change": the change, not "infra on the change".
        (
            "Ines",
            "Blocked by @infra on the VPN change. Can't test the partner SFTP flow until it's in.",
            {o("Ines", "partner SFTP flow"), b("partner SFTP flow", "VPN change")},
        ),
    ],
)
def test_clause_breaks_and_groups(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "not blocked" without "anymore" / "now" ends no wait: there was none.
        (
            "Ines",
            "I'm not blocked, but the webhook retries work would go faster once the queue "
            "upgrade lands.",
            set(),
        ),
        ("Ines", "- ledger export: not stuck on the FX feed, just slow going", set()),
        # "@nina thanks for fixing X": the addressee thanked did it.
        (
            "Ines",
            "@nina thanks for fixing the flaky checkout test!",
            {d("nina", "flaky checkout test")},
        ),
    ],
)
def test_negated_unblocks_and_addressed_thanks(
    author: str, text: str, expected: set[tuple[str, ...]]
) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # "the guide" after "the setup guide for X": the head noun of that item.
        (
            "Ines",
            "Yesterday\n- closed DOC-40\nToday\n- setup guide for the billing sandbox "
            "API\nBlockers\n- the guide depends on the sandbox URLs (OPS-9)",
            {
                d("Ines", "DOC-40"),
                o("Ines", "setup guide for the billing sandbox API"),
                b("setup guide for the billing sandbox API", "sandbox URLs"),
            },
        ),
        (
            "Ines",
            "- wip: retry dashboards for the card issuing payments flow\n- the dashboards "
            "need the new metrics labels first",
            {
                o("Ines", "retry dashboards for the card issuing payments flow"),
                b("retry dashboards for the card issuing payments flow", "new metrics labels"),
            },
        ),
    ],
)
def test_head_noun_mentions(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected
