"""The reader's recall in general form: the many ways English states that someone owns,
finished or waits on a piece of work. Each group is one construction or one family of
words, written several ways across the styles people use (chat, standup bullets, formal
reports, minutes, issue comments); each group also carries the ordinary senses of its
words that must stay no fact."""

from __future__ import annotations

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o

P = "person"

CASES: list[tuple[str, str, set[tuple[str, ...]]]] = [
    # Commitment and stand-in verbs: "volunteered for", "signed up for", "is covering".
    ("Kai", "Lena volunteered for the audit log export", {o("Lena", "audit log export")}),
    ("Kai", "- Bruno signed up for the invoice dedupe job", {o("Bruno", "invoice dedupe job")}),
    ("Kai", "I signed up for the onboarding revamp this sprint", {o("Kai", "onboarding revamp")}),
    (
        "Kai",
        "Mirela is covering the pager rotation script while Dan is away.",
        {o("Mirela", "pager rotation script")},
    ),
    ("Kai", "oskar's covering the quota alerts until friday", {o("oskar", "quota alerts")}),
    (
        "Kai",
        "Card vault work: I'm carrying the tokeniser port this sprint",
        {o("Kai", "tokeniser port")},
    ),
    # Possessives name owners in chat's lowercase too ("dana's migration", "@handle's X").
    (
        "Kai",
        "dana's migration is blocked on the proxy upgrade",
        {o("dana", "migration"), b("migration", "proxy upgrade")},
    ),
    (
        "Kai",
        "fwiw lucia's token cache rework is what's holding up the logout fix",
        {
            o("Kai", "logout fix"),
            b("logout fix", "token cache rework"),
            o("lucia", "token cache rework"),
        },
    ),
    ("Kai", "- paired on wen's flaky e2e cleanup this morning", {o("wen", "flaky e2e cleanup")}),
    (
        "Kai",
        "Closing this, it's fixed by @inesv's PR #88.",
        {o("inesv", "PR #88")},
    ),
    # "mine" after an item's heading, "the one carrying it", and "his"/"her" + an item.
    ("Kai", "• Quota dashboards — mine now, Bea handed them over", {o("Kai", "Quota dashboards")}),
    ("Kai", "Webhook retries: mine", {o("Kai", "Webhook retries")}),
    (
        "Kai",
        "Card vault: I'm the one carrying it this sprint.",
        {o("Kai", "Card vault")},
    ),
    ("Kai", "Oona is the one driving the vendor migration", {o("Oona", "vendor migration")}),
    ("Kai", "- helped Lukas a bit with his flaky e2e cleanup", {o("Lukas", "flaky e2e cleanup")}),
    ("Kai", "paired with Ines on her retry header patch", {o("Ines", "retry header patch")}),
    # Action items in any format: "@name to <verb>", a checklist line, "TODO(name):",
    # an item with its assignee's handle, an arrow or dash before a bare verb.
    ("Kai", "@tomas to renew the staging certs before they lapse", {o("tomas", "staging certs")}),
    ("Kai", "- [ ] wren: archive the old billing buckets", {o("wren", "old billing buckets")}),
    ("Kai", "- [ ] @pia draft the incident timeline", {o("pia", "incident timeline")}),
    ("Kai", "TODO(jonas): migrate the billing cron", {o("jonas", "billing cron")}),
    (
        "Kai",
        "-> Marguerite to circulate the vendor shortlist",
        {o("Marguerite", "vendor shortlist")},
    ),
    (
        "Kai",
        "- [ ] checkout localisation strings (@aiko)",
        {o("aiko", "checkout localisation strings")},
    ),
    ("Kai", "Priya - update the failover runbook", {o("Priya", "failover runbook")}),
    # Taking work on: inheriting, heading, a hand-over, steady work, a plate it lands on.
    ("Kai", "Rui inherits the vendor onboarding", {o("Rui", "vendor onboarding")}),
    ("Kai", "Zofia is heading the warehouse cutover.", {o("Zofia", "warehouse cutover")}),
    ("Kai", "- passing the tax export to Hamid", {o("Hamid", "tax export")}),
    (
        "Kai",
        "Ines is chipping away at the flaky contract tests",
        {o("Ines", "flaky contract tests")},
    ),
    (
        "Kai",
        "Made steady progress on the ledger API this week.",
        {o("Kai", "ledger API")},
    ),
    ("Kai", "Tove's making headway on the audit trail", {o("Tove", "audit trail")}),
    ("Kai", "• LEDG-90 landed on my plate this morning", {o("Kai", "LEDG-90")}),
    (
        "Kai",
        "the quota rework ended up on Mira's plate",
        {o("Mira", "quota rework")},
    ),
    (
        "Kai",
        "Olu is leading the charge on the SSO rollout",
        {o("Olu", "SSO rollout")},
    ),
    (
        "Kai",
        "Two of us are staffed on the search rewrite now; Gael has been staffed on "
        "the billing port.",
        {o("Gael", "billing port")},
    ),
    # First person by default: a bullet that opens with work in hand, and a name's line.
    ("Kai", "- drafting the Q3 capacity plan", {o("Kai", "Q3 capacity plan")}),
    ("Kai", "Currently rewriting the onboarding emails.", {o("Kai", "onboarding emails")}),
    (
        "Kai",
        "* retrying the GPU node pool migration today",
        {o("Kai", "GPU node pool migration")},
    ),
    ("Kai", "- benchmarking the new allocator", {o("Kai", "new allocator")}),
    ("Kai", "- Kojo: drafting the pricing page copy", {o("Kojo", "pricing page copy")}),
    ("Kai", "Sunniva: wiring up the export button", {o("Sunniva", "export button")}),
    # Whoever is waited on to deliver the blocker owns it: "until Legal finalises X",
    # "waiting for Priya to merge X".
    (
        "Kai",
        "Checkout v3 can't launch until infra finishes the event backfill.",
        {
            o("Kai", "Checkout v3"),
            b("Checkout v3", "event backfill"),
            o("infra", "event backfill", "team"),
        },
    ),
    (
        "Kai",
        "The retention rollout stays on hold until Compliance finalises the DPA addendum.",
        {
            o("Kai", "retention rollout"),
            b("retention rollout", "DPA addendum"),
            o("Compliance", "DPA addendum", "team"),
        },
    ),
    (
        "Kai",
        "- invoice sync: waiting for Oksana to merge the ledger patch",
        {
            o("Kai", "invoice sync"),
            b("invoice sync", "ledger patch"),
            o("Oksana", "ledger patch"),
        },
    ),
    # Layout alone pairs people with items, when the update is a roster of such lines.
    (
        "Kai",
        "Team status\n- Wiremu: the invoice PDF rework, no blockers\n- Sade: tax rounding job",
        {o("Wiremu", "invoice PDF rework"), o("Sade", "tax rounding job")},
    ),
    (
        "Kai",
        "Workstreams\nCard vault port: Yusra.\nRefund ledger: Matteo.\nThe FX feed shipped.",
        {o("Yusra", "Card vault port"), o("Matteo", "Refund ledger"), d("Kai", "FX feed")},
    ),
    (
        "Kai",
        "Done: SSO. In flight: passkey enrolment (Ngaio), device trust (Bastian).",
        {d("Kai", "SSO"), o("Ngaio", "passkey enrolment"), o("Bastian", "device trust")},
    ),
    (
        "Kai",
        "Standup notes\nLiv: shipped the CSV fix\nOmar: on the node pool resize",
        {d("Liv", "CSV fix"), o("Omar", "node pool resize")},
    ),
    # A Markdown table with an owner or status column: one row, one item.
    (
        "Kai",
        "Follow-ups\n| Task | Assignee | Status |\n|---|---|---|\n"
        "| pager runbook | Tevita | in progress |\n| failover drill | Tevita | blocked on OPS-71 |\n"
        "| incident write-up | Ruth | done |",
        {
            o("Tevita", "pager runbook"),
            o("Tevita", "failover drill"),
            b("failover drill", "OPS-71"),
            d("Ruth", "incident write-up"),
        },
    ),
    # A group that "has" the item just named owns it.
    (
        "Kai",
        "geo lookup is blocked on the licence renewal; procurement has it.",
        {
            o("Kai", "geo lookup"),
            b("geo lookup", "licence renewal"),
            o("procurement", "licence renewal", "team"),
        },
    ),
    # Idioms of finishing, their passives and split forms.
    ("Kai", "finally put the cache eviction bug to bed", {d("Kai", "cache eviction bug")}),
    ("Kai", "- the VPN cert rotation is squared away", {d("Kai", "VPN cert rotation")}),
    ("Kai", "Squared away the quota dashboard last night.", {d("Kai", "quota dashboard")}),
    (
        "Kai",
        "The DPA amendment was signed off by Legal on Monday.",
        {d("Legal", "DPA amendment", "team")},
    ),
    ("Kai", "knocked the css cleanup out this morning", {d("Kai", "css cleanup")}),
    ("Kai", "got the permissions fix in yesterday", {d("Kai", "permissions fix")}),
    (
        "Kai",
        "Ana got the retry header patch in, just ahead of the freeze",
        {d("Ana", "retry header patch")},
    ),
    ("Kai", "polished off the API reference pages", {d("Kai", "API reference pages")}),
    ("Kai", "tagged v2.3.1 this morning", {d("Kai", "v2.3.1")}),
    ("Kai", "- cut the 4.2 release today", {d("Kai", "4.2 release")}),
    ("Kai", "The 7.0 release branch was cut on Tuesday.", {d("Kai", "7.0 release branch")}),
    ("Kai", "crossed the Helm chart cleanup off the list", {d("Kai", "Helm chart cleanup")}),
    ("Kai", "marked PROJ-12 as done", {d("Kai", "PROJ-12")}),
    ("Kai", "the retry fix hit prod last night", {d("Kai", "retry fix")}),
    ("Kai", "The retry fix was promoted to production.", {d("Kai", "retry fix")}),
    ("Kai", "the new pricing page went GA on Monday", {d("Kai", "new pricing page")}),
    ("Kai", "the DNS cutover went through", {d("Kai", "DNS cutover")}),
    ("Kai", "The vendor questionnaire is in the bag.", {d("Kai", "vendor questionnaire")}),
    ("Kai", "Ana pulled off the DNS cutover", {d("Ana", "DNS cutover")}),
    ("Kai", "The DNS cutover was carried out by Ana.", {d("Ana", "DNS cutover")}),
    # Waiting, worded as riding on, being downstream of, standing still, holding off.
    (
        "Kai",
        "The price feed rides on the vendor contract renewal.",
        {o("Kai", "price feed"), b("price feed", "vendor contract renewal")},
    ),
    (
        "Kai",
        "search reindex is downstream of the shard rebalance",
        {o("Kai", "search reindex"), b("search reindex", "shard rebalance")},
    ),
    (
        "Kai",
        "Ledger export: at a standstill until the FX table refresh lands.",
        {o("Kai", "Ledger export"), b("Ledger export", "FX table refresh")},
    ),
    (
        "Kai",
        "the badge printer flow is stalled out on PRINT-31",
        {o("Kai", "badge printer flow"), b("badge printer flow", "PRINT-31")},
    ),
    (
        "Kai",
        "holding off on the pricing change until the contract renewal lands",
        {o("Kai", "pricing change"), b("pricing change", "contract renewal")},
    ),
    (
        "Kai",
        "- audit export: in the queue behind the warehouse resize",
        {o("Kai", "audit export"), b("audit export", "warehouse resize")},
    ),
    (
        "Kai",
        "The loyalty sync got bumped behind PAY-300.",
        {o("Kai", "loyalty sync"), b("loyalty sync", "PAY-300")},
    ),
    (
        "Kai",
        "The loyalty sync has a hard dependency on the ledger service.",
        {o("Kai", "loyalty sync"), b("loyalty sync", "ledger service")},
    ),
    (
        "Kai",
        "the consent banner stands in the way of the EU launch",
        {o("Kai", "EU launch"), b("EU launch", "consent banner")},
    ),
    (
        "Kai",
        "The tenant purge won't happen until after the backup audit.",
        {o("Kai", "tenant purge"), b("tenant purge", "backup audit")},
    ),
]

# Bounds of the new rules that read true on the old reader too: names beside words that
# name no work are not a roster.
GUARDS: list[tuple[str, str, set[tuple[str, ...]]]] = [
    (
        "Kai",
        "The export is blocked on the ledger fix.\nFoo bar: Quux\nBaz qux: Corge",
        {o("Kai", "export"), b("export", "ledger fix")},
    ),
]

NO_FACT: list[str] = [
    "who volunteered for the retro?",
    "Lena is covering for Dana this week",
    "I'm covering on-call for Bea until Thursday",
    "the PR is covering two edge cases",
    "got the kids in the car and left early",
    "Legal signed off on it yesterday.",
    "ironed out the kinks in the sync",
    "the customer's export job failed again",
    "today's deploy went fine, no pages",
    "let's sync on the export job tomorrow",
    "Happy to test a patch if someone has one.",
    "Dana said her laptop died again",
    "pinged Dana about her review comments",
    "told Bo his idea is great",
    "my cat is in the way of my keyboard again",
    "| metric | value |\n| --- | --- |\n| p95 latency | 40ms |\n| error rate | 0.2% |",
    "we cut the budget by 10%",
    "the scope was cut in half",
    "tagged Dana on the PR",
    "marked the thread as read",
    "the storm is behind us",
    "Ana was promoted to staff engineer",
    "Dana: sounds good, let's do it",
    "Dana: morning all\nLee: morning! coffee first",
    "Board update: Regional Expansion (Kenya)",
    "legal has concerns about the DPA wording",
    "waiting for someone to review the patch",
    "writing to ask about the schema freeze",
    "load testing is going fine so far",
    "- consumer group rebalance tuning is on track",
    "we are heading into the code freeze next week",
    "worked through lunch again",
    "open bugs are down to twelve",
    "Incident count fell to four this month.",
    "I was put on the spot in the review",
    "Goal: migrate the billing cron off the old box",
    "Time to rotate the keys again, it has been a year",
    "@mehmet I'll review it after lunch",
]


@pytest.mark.parametrize(("author", "text", "expected"), CASES)
def test_reads_the_wider_vocabulary(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(("author", "text", "expected"), GUARDS)
def test_rules_keep_their_bounds(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize("sentence", NO_FACT)
def test_ordinary_senses_stay_no_fact(sentence: str) -> None:
    assert extract(sentence, "Kai").facts == []
