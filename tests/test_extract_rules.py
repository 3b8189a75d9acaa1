"""Corpus tests for the deterministic rules extractor (memcli.extract.rules).

Each corpus row is one real-world phrasing with the exact set of facts it must give, as
(source_name, source_type, relation, target_name, target_type) tuples compared as sets.
The first five rows are the canonical scenario other modules depend on.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.extract.rules import extract
from memcli.models import RELATION_TYPES, Extraction

Fact = tuple[str, str, str, str, str]

P, T, W = "person", "team", "work_item"
BLOCKED, OWNS, DONE, UNBLOCKED = "blocked_by", "owns", "completed", "unblocked_from"


def facts_of(extraction: Extraction) -> set[Fact]:
    """The extraction's facts as comparable tuples."""
    return {
        (f.source.name, f.source.type.value, f.relation.value, f.target.name, f.target.type.value)
        for f in extraction.facts
    }


def b(src: str, tgt: str, src_type: str = W) -> Fact:
    return (src, src_type, BLOCKED, tgt, W)


def o(owner: str, item: str, owner_type: str = P) -> Fact:
    return (owner, owner_type, OWNS, item, W)


def d(doer: str, item: str, doer_type: str = P) -> Fact:
    return (doer, doer_type, DONE, item, W)


def u(src: str, tgt: str, src_type: str = W) -> Fact:
    return (src, src_type, UNBLOCKED, tgt, W)


# (id, author, text, expected facts)
CORPUS: list[tuple[str, str | None, str, set[Fact]]] = [
    # ---- canonical scenario ---------------------------------------------------------------
    (
        "canonical-alice",
        "Alice",
        "The API migration is blocked. She's waiting on the auth service refactor, "
        "which the backend team owns.",
        {
            o("Alice", "API migration"),
            b("API migration", "auth service refactor"),
            o("backend team", "auth service refactor", T),
        },
    ),
    (
        "canonical-bob",
        "Bob",
        "The payments integration is stalled. He's also waiting on the auth service "
        "refactor from the backend team.",
        {
            o("Bob", "payments integration"),
            b("payments integration", "auth service refactor"),
            o("backend team", "auth service refactor", T),
        },
    ),
    (
        "canonical-clara",
        "Clara",
        "The checkout flow can't move forward because the payments integration isn't ready. "
        "That work belongs to Bob.",
        {
            o("Clara", "checkout flow"),
            b("checkout flow", "payments integration"),
            o("Bob", "payments integration"),
        },
    ),
    (
        "canonical-dan-shipped",
        "Dan",
        "The backend team shipped the auth service refactor.",
        {d("backend team", "auth service refactor", T)},
    ),
    (
        "canonical-dan-waiting",
        "Dan",
        "Dan is also waiting on the auth service refactor for the mobile release.",
        {b("mobile release", "auth service refactor"), o("Dan", "mobile release")},
    ),
    # ---- blocked_by: forward phrasings ------------------------------------------------
    (
        "blocked-on",
        "Priya",
        "The admin console redesign is blocked on the SSO rollout.",
        {o("Priya", "admin console redesign"), b("admin console redesign", "SSO rollout")},
    ),
    (
        "blocked-by",
        "Omar",
        "The event replay tool is blocked by the Kafka upgrade.",
        {o("Omar", "event replay tool"), b("event replay tool", "Kafka upgrade")},
    ),
    (
        "waiting-for",
        "Marco",
        "The partner portal is waiting for the SSO rollout, which the identity team owns.",
        {
            o("Marco", "partner portal"),
            b("partner portal", "SSO rollout"),
            o("identity team", "SSO rollout", T),
        },
    ),
    (
        "depends-on-from-team",
        "Omar",
        "The event replay tool depends on the Kafka upgrade from the platform team.",
        {
            o("Omar", "event replay tool"),
            b("event replay tool", "Kafka upgrade"),
            o("platform team", "Kafka upgrade", T),
        },
    ),
    (
        "needs-first",
        "Kim",
        "The invoice export needs the schema migration first.",
        {o("Kim", "invoice export"), b("invoice export", "schema migration")},
    ),
    (
        "held-up-by",
        "Sofia",
        "The metrics pipeline is held up by the Kafka upgrade.",
        {o("Sofia", "metrics pipeline"), b("metrics pipeline", "Kafka upgrade")},
    ),
    (
        "stuck-behind-that-work",
        "Wei",
        "The usage dashboard is stuck behind the metrics pipeline. That work belongs to Sofia.",
        {
            o("Wei", "usage dashboard"),
            b("usage dashboard", "metrics pipeline"),
            o("Sofia", "metrics pipeline"),
        },
    ),
    (
        "cant-start-until-on-it",
        "Lena",
        "The audit export can't start until the partner portal is done. Marco is on it.",
        {
            o("Lena", "audit export"),
            b("audit export", "partner portal"),
            o("Marco", "partner portal"),
        },
    ),
    (
        "cant-proceed-until-lands",
        "Jonas",
        "The data backfill can't proceed until the warehouse cutover lands.",
        {o("Jonas", "data backfill"), b("data backfill", "warehouse cutover")},
    ),
    (
        "gated-on",
        "Ana",
        "The EU launch is gated on the GDPR review.",
        {o("Ana", "EU launch"), b("EU launch", "GDPR review")},
    ),
    (
        "pending",
        "Ravi",
        "The pricing page update is pending the legal copy rewrite.",
        {o("Ravi", "pricing page update"), b("pricing page update", "legal copy rewrite")},
    ),
    (
        "requires",
        "Tom",
        "The canary deploy requires the billing engine rollout.",
        {o("Tom", "canary deploy"), b("canary deploy", "billing engine rollout")},
    ),
    (
        "wont-land-until",
        "Kim",
        "The search revamp won't land until the index rebuild ships.",
        {o("Kim", "search revamp"), b("search revamp", "index rebuild")},
    ),
    (
        "on-hold-until",
        "Ana",
        "The partner API is on hold until the rate limiter is done.",
        {o("Ana", "partner API"), b("partner API", "rate limiter")},
    ),
    (
        "dependent-on",
        "Wei",
        "The usage dashboard is dependent on the metrics pipeline.",
        {o("Wei", "usage dashboard"), b("usage dashboard", "metrics pipeline")},
    ),
    (
        "hinges-on",
        "Omar",
        "The Q3 launch hinges on the payments integration.",
        {o("Omar", "Q3 launch"), b("Q3 launch", "payments integration")},
    ),
    (
        "waiting-for-to-land",
        "Sofia",
        "The alerting overhaul is waiting for the Kafka upgrade to land.",
        {o("Sofia", "alerting overhaul"), b("alerting overhaul", "Kafka upgrade")},
    ),
    (
        "blocked-label-on",
        "Priya",
        "Blocked: admin console redesign on SSO rollout",
        {o("Priya", "admin console redesign"), b("admin console redesign", "SSO rollout")},
    ),
    (
        "blocked-label-arrow",
        "Marco",
        "Blocked: partner portal -> waiting for the SSO rollout",
        {o("Marco", "partner portal"), b("partner portal", "SSO rollout")},
    ),
    (
        "blocked-label-paren",
        "Marco",
        "Blocked: partner portal (waiting on the SSO rollout)",
        {o("Marco", "partner portal"), b("partner portal", "SSO rollout")},
    ),
    (
        "stalled-then-bullet-waiting",
        "Lena",
        "The audit export is stalled.\n- waiting on the partner portal",
        {o("Lena", "audit export"), b("audit export", "partner portal")},
    ),
    (
        "bullet-blocked-no-context",
        "Lena",
        "- blocked on the partner portal",
        {b("Lena", "partner portal", P)},
    ),
    (
        "im-waiting-no-current-item",
        "Jonas",
        "I'm waiting on the test harness rewrite.",
        {b("Jonas", "test harness rewrite", P)},
    ),
    (
        "were-blocked-current-item",
        "Ravi",
        "The onboarding docs are blocked. We're blocked on the style guide refresh.",
        {o("Ravi", "onboarding docs"), b("onboarding docs", "style guide refresh")},
    ),
    (
        "slack-lowercase",
        "priya",
        "admin console redesign is still blocked on the sso rollout",
        {o("priya", "admin console redesign"), b("admin console redesign", "sso rollout")},
    ),
    (
        "colon-status",
        "Wei",
        "Usage dashboard: blocked by the metrics pipeline.",
        {o("Wei", "Usage dashboard"), b("Usage dashboard", "metrics pipeline")},
    ),
    (
        "two-targets",
        "Kim",
        "The checkout redesign is blocked on the payments integration and the tax service.",
        {
            o("Kim", "checkout redesign"),
            b("checkout redesign", "payments integration"),
            b("checkout redesign", "tax service"),
        },
    ),
    (
        "possessive-source",
        "Alice",
        "Bob's payments integration is blocked on the auth service refactor.",
        {o("Bob", "payments integration"), b("payments integration", "auth service refactor")},
    ),
    (
        "possessive-team-target",
        "Clara",
        "The checkout flow is waiting on the backend team's auth service refactor.",
        {
            o("Clara", "checkout flow"),
            b("checkout flow", "auth service refactor"),
            o("backend team", "auth service refactor", T),
        },
    ),
    (
        "owned-by-clause",
        "Omar",
        "The replay tool is blocked on the Kafka upgrade, owned by the SRE team.",
        {
            o("Omar", "replay tool"),
            b("replay tool", "Kafka upgrade"),
            o("SRE team", "Kafka upgrade", T),
        },
    ),
    (
        "it-waits",
        "Tom",
        "The billing engine rollout is blocked. It is waiting on the ledger migration.",
        {o("Tom", "billing engine rollout"), b("billing engine rollout", "ledger migration")},
    ),
    (
        "she-named-person",
        "Alice",
        "Priya owns the search revamp. The search revamp is stalled. "
        "She is waiting on the index rebuild.",
        {o("Priya", "search revamp"), b("search revamp", "index rebuild")},
    ),
    (
        "needs-to-land-before",
        "Kim",
        "The ledger migration needs to land before the invoice export can ship.",
        {o("Kim", "invoice export"), b("invoice export", "ledger migration")},
    ),
    (
        "emoji-and-markdown",
        "Sofia",
        "🚧 **Blocked**: metrics pipeline on the `Kafka upgrade`",
        {o("Sofia", "metrics pipeline"), b("metrics pipeline", "Kafka upgrade")},
    ),
    (
        "blocked-because-not-done",
        "Ana",
        "The mobile release is blocked because the auth service refactor isn't done yet.",
        {o("Ana", "mobile release"), b("mobile release", "auth service refactor")},
    ),
    (
        "no-author-no-ownership",
        None,
        "The API migration is blocked on the auth service refactor.",
        {b("API migration", "auth service refactor")},
    ),
    # ---- blocked_by: inverse phrasings ------------------------------------------------
    (
        "is-blocking",
        "Alice",
        "The auth service refactor is blocking the API migration.",
        {o("Alice", "API migration"), b("API migration", "auth service refactor")},
    ),
    (
        "blocks",
        "Priya",
        "The SSO rollout blocks the admin console redesign and the partner portal.",
        {
            o("Priya", "admin console redesign"),
            o("Priya", "partner portal"),
            b("admin console redesign", "SSO rollout"),
            b("partner portal", "SSO rollout"),
        },
    ),
    (
        "blocker-for",
        "Wei",
        "The metrics pipeline is the main blocker for the usage dashboard.",
        {o("Wei", "usage dashboard"), b("usage dashboard", "metrics pipeline")},
    ),
    (
        "holding-up",
        "Omar",
        "The Kafka upgrade is holding up the event replay tool.",
        {o("Omar", "event replay tool"), b("event replay tool", "Kafka upgrade")},
    ),
    (
        "blocking-me",
        "Jonas",
        "The CI migration is blocking me.",
        {b("Jonas", "CI migration", P)},
    ),
    # ---- owns -------------------------------------------------------------------------------
    (
        "until-paren-owner-done",
        "Aditi",
        "The media portal split can't start until the partner dashboard redesign (owned by Amir) is done.",
        {
            o("Aditi", "media portal split"),
            b("media portal split", "partner dashboard redesign"),
            o("Amir", "partner dashboard redesign"),
        },
    ),
    (
        "until-comma-owner-done",
        "Lena",
        "The audit export can't start until the partner portal, owned by Marco, is done.",
        {
            o("Lena", "audit export"),
            b("audit export", "partner portal"),
            o("Marco", "partner portal"),
        },
    ),
    (
        "because-which-owns-late",
        "Aditi",
        "The payments work is blocked because the ledger rewrite, which the data team owns, is late.",
        {
            o("Aditi", "payments work"),
            b("payments work", "ledger rewrite"),
            o("data team", "ledger rewrite", T),
        },
    ),
    ("owns", "Alice", "Bob owns the payments integration.", {o("Bob", "payments integration")}),
    (
        "owned-by",
        "Alice",
        "The auth service refactor is owned by the backend team.",
        {o("backend team", "auth service refactor", T)},
    ),
    (
        "belongs-to",
        "Kim",
        "The ledger migration belongs to the finance squad.",
        {o("finance squad", "ledger migration", T)},
    ),
    (
        "handled-by",
        "Tom",
        "The canary rollout is handled by Ana.",
        {o("Ana", "canary rollout")},
    ),
    (
        "responsible-for",
        "Tom",
        "Marco is responsible for the partner portal.",
        {o("Marco", "partner portal")},
    ),
    (
        "assigned-to",
        "Tom",
        "The billing alerts cleanup is assigned to the SRE team.",
        {o("SRE team", "billing alerts cleanup", T)},
    ),
    (
        "working-on-name",
        "Ravi",
        "Ravi is working on the onboarding docs.",
        {o("Ravi", "onboarding docs")},
    ),
    (
        "im-working-on",
        "Tom",
        "I'm working on the billing engine rollout.",
        {o("Tom", "billing engine rollout")},
    ),
    (
        "leading",
        "Kim",
        "Priya is leading the search revamp.",
        {o("Priya", "search revamp")},
    ),
    (
        "driving",
        "Kim",
        "The platform team is driving the Kafka upgrade.",
        {o("platform team", "Kafka upgrade", T)},
    ),
    (
        "on-it-lowercase",
        "Kim",
        "the ledger migration is slipping. bob's on it.",
        {o("bob", "ledger migration")},
    ),
    (
        "team-owns",
        "Lena",
        "The identity team owns the SSO rollout.",
        {o("identity team", "SSO rollout", T)},
    ),
    (
        "two-owners",
        "Lena",
        "Marco and Priya own the partner portal.",
        {o("Marco", "partner portal"), o("Priya", "partner portal")},
    ),
    (
        "picked-up",
        "Ana",
        "Wei picked up the usage dashboard.",
        {o("Wei", "usage dashboard")},
    ),
    (
        "bullet-working-on",
        "Marco",
        "- Working on the API docs",
        {o("Marco", "API docs")},
    ),
    (
        "owner-label",
        "Marco",
        "The webhook retries are flaky.\nOwner: Priya",
        {o("Priya", "webhook retries")},
    ),
    # ---- completed --------------------------------------------------------------------
    (
        "shipped-on-day",
        "Kim",
        "The billing engine rewrite shipped on Tuesday.",
        {d("Kim", "billing engine rewrite")},
    ),
    ("is-done", "Tom", "The canary config is done.", {d("Tom", "canary config")}),
    ("landed", "Sofia", "The Kafka upgrade landed!", {d("Sofia", "Kafka upgrade")}),
    ("was-merged", "Omar", "The retry patch was merged.", {d("Omar", "retry patch")}),
    ("we-finished", "Ana", "We finished the Q1 roadmap.", {d("Ana", "Q1 roadmap")}),
    (
        "is-deployed",
        "Wei",
        "The usage dashboard is deployed to production.",
        {d("Wei", "usage dashboard")},
    ),
    ("was-released", "Kim", "The mobile app v2 was released.", {d("Kim", "mobile app v2")}),
    ("got-cancelled", "Lena", "The legacy export got cancelled.", {d("Lena", "legacy export")}),
    (
        "is-complete",
        "Jonas",
        "The test harness rewrite is complete.",
        {d("Jonas", "test harness rewrite")},
    ),
    (
        "shipped-by-passive",
        "Jonas",
        "The rate limiter was shipped by the platform team.",
        {d("platform team", "rate limiter", T)},
    ),
    (
        "done-label",
        "Kim",
        "Done: invoice PDF generation",
        {d("Kim", "invoice PDF generation")},
    ),
    (
        "subjectless-shipped",
        "Ravi",
        "- Shipped the onboarding checklist",
        {d("Ravi", "onboarding checklist")},
    ),
    (
        "no-author-owner-doer",
        None,
        "Bob's payments integration shipped.",
        {o("Bob", "payments integration"), d("Bob", "payments integration")},
    ),
    (
        "it-shipped",
        "Tom",
        "Finally got the feature flag service out the door. It shipped on Monday.",
        {d("Tom", "feature flag service")},
    ),
    (
        "went-live",
        "Marco",
        "The partner portal went live this morning.",
        {d("Marco", "partner portal")},
    ),
    # ---- unblocked_from ---------------------------------------------------------------
    (
        "unblocked-with-context",
        "Alice",
        "The API migration was blocked on the auth service refactor. "
        "The API migration is unblocked now.",
        {
            o("Alice", "API migration"),
            b("API migration", "auth service refactor"),
            u("API migration", "auth service refactor"),
        },
    ),
    (
        "no-longer-blocked-on",
        "Alice",
        "The API migration is no longer blocked on the auth service refactor.",
        {u("API migration", "auth service refactor")},
    ),
    (
        "were-no-longer-waiting-current",
        "Bob",
        "The payments integration was stalled. We're no longer waiting on the auth service refactor.",
        {o("Bob", "payments integration"), u("payments integration", "auth service refactor")},
    ),
    (
        "were-no-longer-waiting-person",
        "Bob",
        "We're no longer waiting on the auth service refactor.",
        {u("Bob", "auth service refactor", P)},
    ),
    (
        "y-unblocked-x",
        "Clara",
        "The payments integration unblocked the checkout flow.",
        {u("checkout flow", "payments integration")},
    ),
    (
        "unblocked-now-that",
        "Clara",
        "The checkout flow is unblocked now that the payments integration has landed.",
        # Completion with no named doer is the author's (the labelling contract's rule 6),
        # inside a "now that" clause too.
        {u("checkout flow", "payments integration"), d("Clara", "payments integration")},
    ),
    (
        "not-waiting-anymore",
        "Wei",
        "The usage dashboard isn't waiting on the metrics pipeline anymore.",
        {u("usage dashboard", "metrics pipeline")},
    ),
    # ---- mixed multi-sentence updates ---------------------------------------------------
    (
        "standup-bullets",
        "Priya",
        "## Standup\n"
        "- Shipped the login audit log\n"
        "- Search revamp: blocked on the index rebuild (owned by the data team)\n"
        "- Reviewed three PRs",
        {
            d("Priya", "login audit log"),
            o("Priya", "Search revamp"),
            b("Search revamp", "index rebuild"),
            o("data team", "index rebuild", T),
        },
    ),
    (
        "near-namesakes",
        "Kim",
        "The billing engine rewrite is done. Tom is working on the billing engine rollout.",
        {d("Kim", "billing engine rewrite"), o("Tom", "billing engine rollout")},
    ),
    (
        "compound-shipped-and",
        "Ana",
        "Bob shipped the retry patch and Alice shipped the rate limiter.",
        {d("Bob", "retry patch"), d("Alice", "rate limiter")},
    ),
    (
        "relative-which-is-blocked",
        "Tom",
        "I'm working on the billing engine rollout, which is blocked on the ledger migration.",
        {o("Tom", "billing engine rollout"), b("billing engine rollout", "ledger migration")},
    ),
    (
        "they-team",
        "Kim",
        "The platform team owns the gateway upgrade. They're blocked on the TLS cert rotation.",
        {o("platform team", "gateway upgrade", T), b("platform team", "TLS cert rotation", T)},
    ),
    (
        "comma-split-stall-waiting",
        "Sofia",
        "The metrics pipeline is blocked, waiting on the Kafka upgrade.",
        {o("Sofia", "metrics pipeline"), b("metrics pipeline", "Kafka upgrade")},
    ),
    # ---- more real-world phrasings -------------------------------------------------
    (
        "slack-terse-lowercase-it",
        "omar",
        "kafka upgrade still not done, replay tool blocked on it",
        {o("omar", "replay tool"), b("replay tool", "kafka upgrade")},
    ),
    (
        "emdash-blocked-by",
        "Omar",
        "Event replay tool — blocked by Kafka upgrade",
        {o("Omar", "Event replay tool"), b("Event replay tool", "Kafka upgrade")},
    ),
    (
        "subjectless-cant-move-forward-on",
        "Omar",
        "Can't move forward on the event replay tool until the Kafka upgrade is done.",
        {o("Omar", "event replay tool"), b("event replay tool", "Kafka upgrade")},
    ),
    (
        "cant-ship-without",
        "Omar",
        "We can't ship the replay tool without the Kafka upgrade.",
        {o("Omar", "replay tool"), b("replay tool", "Kafka upgrade")},
    ),
    (
        "until-team-ships",
        "Alice",
        "The API migration can't continue until the backend team ships the auth refactor.",
        {
            o("Alice", "API migration"),
            b("API migration", "auth refactor"),
            o("backend team", "auth refactor", T),
        },
    ),
    (
        "i-cant-start-x-until",
        "Alice",
        "I can't start the API migration until the auth refactor lands.",
        {o("Alice", "API migration"), b("API migration", "auth refactor")},
    ),
    (
        "need-before-we-can-start",
        "Alice",
        "We need the auth refactor before we can start the API migration.",
        {o("Alice", "API migration"), b("API migration", "auth refactor")},
    ),
    (
        "waiting-before-i-can-start",
        "Omar",
        "I am waiting for the security review to finish before I can start the pen test.",
        {o("Omar", "pen test"), b("pen test", "security review")},
    ),
    (
        "prerequisite-for",
        "Omar",
        "The Kafka upgrade is a prerequisite for the replay tool.",
        {o("Omar", "replay tool"), b("replay tool", "Kafka upgrade")},
    ),
    (
        "needed-before",
        "Omar",
        "The Kafka upgrade is needed before the replay tool can launch.",
        {o("Omar", "replay tool"), b("replay tool", "Kafka upgrade")},
    ),
    (
        "plus-list",
        "Omar",
        "Replay tool depends on Kafka upgrade + schema registry.",
        {
            o("Omar", "Replay tool"),
            b("Replay tool", "Kafka upgrade"),
            b("Replay tool", "schema registry"),
        },
    ),
    (
        "people-and-i-both-blocked",
        "Omar",
        "Sofia and I are both blocked on the Kafka upgrade.",
        {b("Sofia", "Kafka upgrade", P), b("Omar", "Kafka upgrade", P)},
    ),
    (
        "two-subjects-both-blocked",
        "Omar",
        "The replay tool and the metrics pipeline are both blocked on the Kafka upgrade.",
        {
            o("Omar", "replay tool"),
            o("Omar", "metrics pipeline"),
            b("replay tool", "Kafka upgrade"),
            b("metrics pipeline", "Kafka upgrade"),
        },
    ),
    (
        "for-the-z-list",
        "Alice",
        "We are waiting on the auth refactor for the API migration and the mobile release.",
        {
            o("Alice", "API migration"),
            o("Alice", "mobile release"),
            b("API migration", "auth refactor"),
            b("mobile release", "auth refactor"),
        },
    ),
    (
        "for-the-z-other-person",
        "Alice",
        "Priya is waiting on the index rebuild for the search revamp.",
        {o("Priya", "search revamp"), b("search revamp", "index rebuild")},
    ),
    (
        "relative-chain",
        "Alice",
        "The mobile release is blocked on the API migration, which is blocked on the auth refactor.",
        {
            o("Alice", "mobile release"),
            o("Alice", "API migration"),
            b("mobile release", "API migration"),
            b("API migration", "auth refactor"),
        },
    ),
    (
        "ticket-id-dropped",
        "Alice",
        "The API migration is blocked on the v2 auth service (PROJ-123).",
        {o("Alice", "API migration"), b("API migration", "v2 auth service")},
    ),
    (
        "blocked-for-duration-on",
        "Alice",
        "The API migration has been blocked for two weeks on the auth refactor.",
        {o("Alice", "API migration"), b("API migration", "auth refactor")},
    ),
    (
        "because-ci-is-red",
        "Alice",
        "Deploys are blocked because CI is red.",
        {o("Alice", "Deploys"), b("Deploys", "CI")},
    ),
    (
        "blockers-label-list",
        "Alice",
        "Blockers: auth refactor, token service",
        {b("Alice", "auth refactor", P), b("Alice", "token service", P)},
    ),
    (
        "member-of-team-owner",
        "Alice",
        "Dana from the identity team owns the SSO rollout.",
        {o("Dana", "SSO rollout")},
    ),
    (
        "took-over-from",
        "Alice",
        "Priya took over the search revamp from Bob.",
        {o("Priya", "search revamp")},
    ),
    ("is-names", "Alice", "Search revamp is Priya's.", {o("Priya", "Search revamp")}),
    (
        "shared-subject-clauses",
        "Alice",
        "The data team owns the warehouse and is working on the dbt migration.",
        {o("data team", "warehouse", T), o("data team", "dbt migration", T)},
    ),
    (
        "subjectless-assigned",
        "Omar",
        "Assigned the flaky test cleanup to Jonas.",
        {o("Jonas", "flaky test cleanup")},
    ),
    (
        "handed-off-to-team",
        "Omar",
        "The flaky test cleanup has been handed off to the QA team.",
        {o("QA team", "flaky test cleanup", T)},
    ),
    ("dri-for", "Omar", "Priya is the DRI for the search revamp.", {o("Priya", "search revamp")}),
    (
        "possessive-handling",
        "Omar",
        "Ravi's handling the onboarding docs.",
        {o("Ravi", "onboarding docs")},
    ),
    ("wrapped-up", "Omar", "Wrapped up the replay tool spike.", {d("Omar", "replay tool spike")}),
    ("was-killed", "Omar", "The legacy exporter was killed.", {d("Omar", "legacy exporter")}),
    ("label-done-emoji", "Omar", "Replay tool: shipped ✅", {d("Omar", "Replay tool")}),
    (
        "done-by-passive",
        "Omar",
        "The onboarding docs are done by Ravi.",
        {d("Ravi", "onboarding docs")},
    ),
    (
        "done-then-blocked-compound",
        "Alice",
        "The billing engine rewrite is done and the rollout is blocked on the canary.",
        {d("Alice", "billing engine rewrite"), o("Alice", "rollout"), b("rollout", "canary")},
    ),
    (
        "landed-then-unblocked",
        "Omar",
        "The replay tool was blocked on the Kafka upgrade. Kafka upgrade landed, replay tool unblocked.",
        {
            o("Omar", "replay tool"),
            b("replay tool", "Kafka upgrade"),
            d("Omar", "Kafka upgrade"),
            u("replay tool", "Kafka upgrade"),
        },
    ),
    (
        "no-longer-blocking",
        "Omar",
        "The Kafka upgrade is no longer blocking the replay tool.",
        {u("replay tool", "Kafka upgrade")},
    ),
    (
        "now-that-leading",
        "Alice",
        "Now that the auth refactor landed, the API migration is unblocked.",
        {u("API migration", "auth refactor"), d("Alice", "auth refactor")},
    ),
    (
        "its-unblocked-now",
        "Alice",
        "The API migration is blocked. I'm waiting on the auth refactor. Good news: it's unblocked now.",
        {
            o("Alice", "API migration"),
            b("API migration", "auth refactor"),
            u("API migration", "auth refactor"),
        },
    ),
    (
        "subjectless-no-longer-blocked",
        "Alice",
        "The API migration was blocked on the auth refactor. No longer blocked.",
        {
            o("Alice", "API migration"),
            b("API migration", "auth refactor"),
            u("API migration", "auth refactor"),
        },
    ),
    (
        "unblocked-label-with-context",
        "Omar",
        "The replay tool is blocked on the Kafka upgrade.\nUnblocked: replay tool",
        {
            o("Omar", "replay tool"),
            b("replay tool", "Kafka upgrade"),
            u("replay tool", "Kafka upgrade"),
        },
    ),
    (
        "checklist-bullets",
        "Alice",
        "* Done: token service\n* WIP: API migration\n"
        "* Blocked: mobile release (waiting on API migration)",
        {
            d("Alice", "token service"),
            o("Alice", "API migration"),
            o("Alice", "mobile release"),
            b("mobile release", "API migration"),
        },
    ),
]


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [pytest.param(a, t, e, id=i) for i, a, t, e in CORPUS],
)
def test_corpus(author: str | None, text: str, expected: set[Fact]) -> None:
    assert facts_of(extract(text, author)) == expected


def test_corpus_is_large_and_distinct() -> None:
    texts = [t for _, _, t, _ in CORPUS]
    ids = [i for i, _, _, _ in CORPUS]
    assert len(set(texts)) == len(texts) >= 70
    assert len(set(ids)) == len(ids)


# ---- never invent a fact ------------------------------------------------------------------

NOISE = [
    "Had a great offsite.",
    "Reviewed three PRs.",
    "The weather is nice.",
    "Sprint update.",
    "Great work everyone!",
    "No blockers this week.",
    "Planning the canary for next week.",
    "I'll keep writing tests until it lands.",
    "Wrote the runbook for on-call.",
    "Had a productive planning session and drafted the Q1 roadmap.",
    "Is the API migration blocked on the auth refactor?",
    "If the auth refactor slips, the API migration will be blocked.",
    "The API migration might be blocked on the auth refactor.",
    "The auth service refactor isn't done.",
    "The partner portal is not blocked.",
    "Nobody owns the flaky test suite.",
    "Bob is on PTO until Monday.",
    "The roadmap is on track.",
    "I'm waiting on Bob.",
    "Blockers: none",
    "Thanks all, see you Monday",
    "We will ship the mobile release next week.",
    "The dashboard is almost done.",
    "Bob hasn't shipped the payments integration.",
    "Bob said the auth refactor might be done.",
    "I think the auth refactor is done.",
    "The auth refactor should be done by Friday.",
    "Nothing is blocking the API migration.",
    "Bob is on the platform team.",
    "Met with the backend team about the auth refactor.",
    "Paired with Bob on the payments integration.",
    "Waiting for Bob to review my PR.",
    "Spent the day debugging the flaky tests.",
    "We decided to cancel the legacy exporter.",
    "Kafka upgrade ETA is next Tuesday.",
    "Still waiting for the design team.",
    "Blocked.",
    "Done.",
]


@pytest.mark.parametrize("sentence", NOISE)
def test_no_fact_from_unrelated_text(sentence: str) -> None:
    result = extract(sentence, "Alice")
    assert result.facts == []
    assert result.unparsed == [sentence.strip()]


def test_noise_paragraph_gives_nothing_and_reports_every_sentence() -> None:
    text = "Had a great offsite. Reviewed three PRs.\nThe weather is nice."
    result = extract(text, "Dan")
    assert result.facts == []
    assert result.unparsed == [
        "Had a great offsite.",
        "Reviewed three PRs.",
        "The weather is nice.",
    ]


def test_unparsed_lists_only_sentences_without_facts() -> None:
    text = (
        "# Weekly update\n\n"
        "Good week overall.\n"
        "- The API migration is blocked on the auth service refactor.\n"
        "- Lunch was great!"
    )
    result = extract(text, "Alice")
    assert result.unparsed == ["Good week overall.", "Lunch was great!"]
    assert facts_of(result) == {
        o("Alice", "API migration"),
        b("API migration", "auth service refactor"),
    }


def test_unblocked_without_known_blocker_is_a_release_not_a_fact() -> None:
    # no target, so no fact; ingest ends its waits (tests/test_releases.py)
    result = extract("The API migration is unblocked.", "Alice")
    assert result.facts == []
    assert result.unparsed == []
    assert [r.item.name for r in result.releases] == ["API migration"]


def test_completion_without_any_doer_is_unparsed() -> None:
    result = extract("The auth service refactor shipped.", None)
    assert result.facts == []
    assert result.unparsed == ["The auth service refactor shipped."]


def test_fact_sentence_is_the_original_sentence() -> None:
    result = extract("The API migration is blocked. She's waiting on the auth refactor.", "Alice")
    by_relation = {f.relation.value: f.sentence for f in result.facts}
    assert by_relation == {
        "owns": "The API migration is blocked.",
        "blocked_by": "She's waiting on the auth refactor.",
    }


def test_facts_are_deduplicated_keeping_the_first() -> None:
    text = (
        "The API migration is blocked on the auth refactor. "
        "The API migration is blocked on the auth refactor!"
    )
    result = extract(text, "Alice")
    assert len(result.facts) == 2
    assert {f.sentence for f in result.facts} == {
        "The API migration is blocked on the auth refactor."
    }


def test_author_ownership_yields_to_a_named_owner() -> None:
    text = "The checkout flow is blocked on the payments integration. Bob owns the checkout flow."
    assert facts_of(extract(text, "Clara")) == {
        b("checkout flow", "payments integration"),
        o("Bob", "checkout flow"),
    }


def test_near_namesakes_stay_distinct() -> None:
    text = (
        "The billing engine rewrite is blocked on the ledger migration. "
        "The billing engine rollout is blocked on the canary config."
    )
    targets = {f.source.name for f in extract(text, "Kim").facts if f.relation.value == BLOCKED}
    assert targets == {"billing engine rewrite", "billing engine rollout"}


def test_fact_endpoint_types_always_valid() -> None:
    for _, author, text, _ in CORPUS:
        for fact in extract(text, author).facts:
            sources, targets = RELATION_TYPES[fact.relation]
            assert fact.source.type in sources and fact.target.type in targets


# ---- robustness ---------------------------------------------------------------------------

WORDS = st.sampled_from(
    "the a is are blocked on by waiting for shipped owns team Bob she it that work "
    "migration auth refactor . , ! ? - * # \n : -> ( ) 's n't also still done landed "
    "unblocked no longer from which owned belongs to I we they".split()
    + [" ", "\n", "- ", "**", "`", "é", "🚧"]
)


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200), st.one_of(st.none(), st.text(max_size=12)))
def test_random_text_never_raises_and_is_deterministic(text: str, author: str | None) -> None:
    first = extract(text, author)
    assert extract(text, author) == first
    assert all(s == s.strip() and s for s in first.unparsed)


@settings(max_examples=300, deadline=None)
@given(st.lists(WORDS, max_size=40).map(" ".join), st.sampled_from([None, "Alice", "bob"]))
def test_wordy_random_text_never_raises_and_is_deterministic(text: str, author: str | None) -> None:
    first = extract(text, author)
    assert extract(text, author) == first
    for fact in first.facts:
        sources, targets = RELATION_TYPES[fact.relation]
        assert fact.source.type in sources and fact.target.type in targets
        assert fact.source.name.strip() and fact.target.name.strip()


@pytest.mark.parametrize("text", ["the blocked : also", "the blocked :", "the stalled ; ,"])
def test_a_stalled_item_before_an_empty_clause_reads_nothing(text: str) -> None:
    """A stall followed by a separator with nothing after it used to raise IndexError
    (found by the random-text property above): the whole update failed to extract."""
    assert extract(text, None).facts == []
