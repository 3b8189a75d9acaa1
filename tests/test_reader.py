"""Behavioural minimal pairs for the compositional reader, its trace and ``memcli explain``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memcli.extract.rules import extract
from tests.test_extract_rules import b, d, facts_of, o, u


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        (
            "Kai",
            "The invoice sync is blokced on the ledger cleanup.",
            {o("Kai", "invoice sync"), b("invoice sync", "ledger cleanup")},
        ),
        (
            "Kai",
            "The invoice sync is waitng on the ledger cleanup.",
            {o("Kai", "invoice sync"), b("invoice sync", "ledger cleanup")},
        ),
        (
            "Kai",
            "Progress on the invoice sync is blocked by the ledger cleanup.",
            {o("Kai", "invoice sync"), b("invoice sync", "ledger cleanup")},
        ),
        (
            "Kai",
            "It turned out that the invoice sync is blocked on the ledger cleanup.",
            {o("Kai", "invoice sync"), b("invoice sync", "ledger cleanup")},
        ),
        (
            "Rosa",
            "Yesterday: wrapped up the tariff importer\nToday: the quota report\nBlockers: none",
            {d("Rosa", "tariff importer"), o("Rosa", "quota report")},
        ),
        (
            "Rosa",
            "**Today**\n- drafting the retention policy\n**Blockers**\n- nope",
            {o("Rosa", "retention policy")},
        ),
    ],
)
def test_reads(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "I'm waiting on my coffee.",
        "Blockers: none",
        "Yesterday: on call, nothing exciting",
    ],
)
def test_ordinary_senses_give_nothing(sentence: str) -> None:
    assert extract(sentence, "Kai").facts == []


def test_trace_names_the_frame_or_the_reason_for_every_sentence() -> None:
    text = (
        "Had lunch with the team. The invoice sync is blocked on the ledger cleanup. "
        "The export might be blocked on the schema change. Is the ledger cleanup done?"
    )
    trace = extract(text, "Kai").trace
    assert [(t.facts, t.frame, t.reason, t.cue) for t in trace] == [
        (0, None, "no predicate", False),
        (2, "x-waits-on-y", None, True),
        (0, None, "hedged", True),
        (0, None, "question", False),
    ]


def _memcli(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memcli", "--db", str(db), *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_explain_shows_a_stored_update_sentence_by_sentence(tmp_path: Path) -> None:
    update = tmp_path / "kai.md"
    update.write_text(
        "---\nauthor: Kai\n---\nHad lunch. The invoice sync is blokced on the ledger cleanup.\n"
    )
    db = tmp_path / "m.db"
    assert _memcli("ingest", str(update), db=db).returncode == 0
    shown = _memcli("explain", "1", db=db)
    assert shown.returncode == 0, shown.stderr
    assert "not understood: no predicate" in shown.stdout
    assert "invoice sync blocked_by ledger cleanup" in shown.stdout
    data = json.loads(_memcli("explain", "1", "--json", db=db).stdout)
    assert [s["frame"] for s in data["sentences"]] == [None, "x-waits-on-y"]
    missing = _memcli("explain", "42", db=db)
    assert missing.returncode != 0 and "no episode with id 42" in missing.stderr


def test_ingest_explain_says_which_frame_read_each_sentence(tmp_path: Path) -> None:
    update = tmp_path / "kai.md"
    update.write_text("---\nauthor: Kai\n---\nHad lunch. The ledger cleanup shipped.\n")
    result = _memcli("ingest", "--explain", str(update), db=tmp_path / "m.db")
    assert result.returncode == 0, result.stderr
    assert "not understood (no predicate)" in result.stderr
    assert "read by " in result.stderr and "The ledger cleanup shipped." in result.stderr


MINUTES = (
    "Billing sync\n"
    "Attendees: Lena Ortiz (notes), Raj Menon, Tove Berg\n"
    "Raj: the refund exporter is waiting on the ledger API rewrite.\n"
    "Tove: tax rounding fix shipped on Monday.\n"
    "Tove reported that the audit log was rolled out by the infra team.\n"
    "ACTION: Raj to draft the cutover checklist by Friday.\n"
    "AI - Tove to follow up on the currency table refresh."
)


def test_minutes_credit_the_speaker_not_the_note_taker() -> None:
    assert facts_of(extract(MINUTES, "Lena Ortiz")) == {
        b("refund exporter", "ledger API rewrite"),
        o("Raj Menon", "refund exporter"),
        d("Tove Berg", "tax rounding fix"),
        d("infra team", "audit log", "team"),
        o("Raj Menon", "cutover checklist"),
        o("Tove Berg", "currency table refresh"),
    }


def test_minutes_trace_the_attendance_line() -> None:
    trace = extract(MINUTES, "Lena Ortiz").trace
    assert trace[1].reason == "attendance list" and trace[1].facts == 0


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # passives: the agent, not the author, did the work; a group is a team
        (
            "Ines",
            "The quota importer was rolled out by the platform team on Tuesday.",
            {d("platform team", "quota importer", "team")},
        ),
        (
            "Ines",
            "The pricing copy was finalised by marketing.",
            {d("marketing", "pricing copy", "team")},
        ),
        ("Ines", "The retry bug got resolved by PR #62.", {d("Ines", "retry bug")}),
        (
            "Ines",
            "The vendor sync has been completed by the vendor team and passed its checks.",
            {d("vendor team", "vendor sync", "team")},
        ),
        # ticket references and lists
        ("Ines", "closed #612 and #615 this morning", {d("Ines", "#612"), d("Ines", "#615")}),
        (
            "Ines",
            "Wrapped up the old alert tickets OPS-17/OPS-18.",
            {d("Ines", "OPS-17"), d("Ines", "OPS-18")},
        ),
        ("Ines", "LGTM, merging #1290.", {d("Ines", "#1290")}),
        # ownership in other words
        ("Ines", "Tarek has the invoice preview.", {o("Tarek", "invoice preview")}),
        ("Ines", "The geo lookup is all Tarek's.", {o("Tarek", "geo lookup")}),
        ("Ines", "Noor, the export button is all yours.", {o("Noor", "export button")}),
        ("Ines", "I'll take PROJ-880.", {o("Ines", "PROJ-880")}),
        (
            "Ines",
            "The audit trail has been handed off to the QA team.",
            {o("QA team", "audit trail", "team")},
        ),
        (
            "Ines",
            "The cache warmer is blocked on the CDN switch, which Tarek has.",
            {
                o("Ines", "cache warmer"),
                b("cache warmer", "CDN switch"),
                o("Tarek", "CDN switch"),
            },
        ),
        # dependency in other words
        (
            "Ines",
            "We can't launch the mobile beta without the consent screen.",
            {o("Ines", "mobile beta"), b("mobile beta", "consent screen")},
        ),
        (
            "Ines",
            "The consent screen has to land before the mobile beta can ship.",
            {o("Ines", "mobile beta"), b("mobile beta", "consent screen")},
        ),
        (
            "Ines",
            "Once the schema freeze lands we can start the bulk import.",
            {o("Ines", "bulk import"), b("bulk import", "schema freeze")},
        ),
        # unblocking across a clause
        (
            "Ines",
            "The data team finished the events rebuild, so the churn report is unblocked.",
            {d("data team", "events rebuild", "team"), u("churn report", "events rebuild")},
        ),
        # labels and headings
        (
            "Ines",
            "Payments: waiting on the fraud rules update",
            {o("Ines", "Payments"), b("Payments", "fraud rules update")},
        ),
        ("Ines", "Done: PLAT-9 log rotation", {d("Ines", "log rotation")}),
        # no fact
        ("Ines", "Decision: go with the cheaper vendor, pending a check with legal.", set()),
        ("Ines", "The geo lookup is not done yet, should land next week.", set()),
        ("Ines", "If the schema freeze slips, the bulk import is blocked.", set()),
        ("Ines", "Overall: 82% of scope complete.", set()),
        ("Ines", "The new dashboards landed well with the execs.", set()),
    ],
)
def test_core_reads(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # minutes without an attendance line, names in parentheses
        (
            "Ines",
            "Infra sync\n- Image cache: done (Teodor)\n- ACTION: Marit to draft the rollback plan",
            {d("Teodor", "Image cache"), o("Marit", "rollback plan")},
        ),
        # a heading stays the subject for the rest of its line
        (
            "Ines",
            "- Export wizard: Tarek still polishing it; needs the locale files first",
            {o("Ines", "Export wizard"), b("Export wizard", "locale files")},
        ),
        # "X, though I'm blocked on Y": X waits
        (
            "Ines",
            "doing: the payout report, though I'm blocked on the FX feed",
            {o("Ines", "payout report"), b("payout report", "FX feed")},
        ),
        # an unblock right after a completion, and a blocker done in the same sentence
        (
            "Ines",
            "The shard split is deployed! @mikko you're unblocked",
            {d("Ines", "shard split"), u("mikko", "shard split", "person")},
        ),
        (
            "Ines",
            "Status page: depends on the incident hook, which the alerting team shipped today",
            {
                o("Ines", "Status page"),
                u("Status page", "incident hook"),
                d("alerting team", "incident hook", "team"),
            },
        ),
        # a past dependency is not a current one
        (
            "Ines",
            "The registry bump, which had been parked until the move, is live.",
            {
                d("Ines", "registry bump"),
            },
        ),
        # lists of blockers, with tickets and articles
        (
            "Ines",
            "The retry queue is waiting on two things: the vault move and PR #117.",
            {o("Ines", "retry queue"), b("retry queue", "vault move"), b("retry queue", "PR #117")},
        ),
        # a short mention refers back to the fuller name
        (
            "Ines",
            "Today: gRPC health checks for the gateway\nBlockers: health checks depend on #498",
            {
                o("Ines", "gRPC health checks for the gateway"),
                b("gRPC health checks for the gateway", "#498"),
            },
        ),
        # a leading mention is who "you" is
        ("Ines", "@mehmet you keep PROJ-9, I'll take PROJ-8.", {o("Ines", "PROJ-8")}),
        ("Ines", "@arjun has the consumer fix.", {o("arjun", "consumer fix")}),
    ],
)
def test_core_reads_discourse(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


T = "team"


@pytest.mark.parametrize(
    ("author", "text", "expected"),
    [
        # synonyms of the four relations, in more than one inflection and voice
        (
            "Ines",
            "The metrics exporter is held hostage by the collector upgrade.",
            {o("Ines", "metrics exporter"), b("metrics exporter", "collector upgrade")},
        ),
        (
            "Ines",
            "The release train is blocked on the signing cert renewal.",
            {o("Ines", "release train"), b("release train", "signing cert renewal")},
        ),
        ("Ines", "- shepherding the GDPR export through review", {o("Ines", "GDPR export")}),
        (
            "Ines",
            "The search team has assumed ownership of the indexer.",
            {o("search team", "indexer", T)},
        ),
        ("Ines", "Dana is building the export service.", {o("Dana", "export service")}),
        ("Ines", "sunset the legacy fax gateway", {d("Ines", "legacy fax gateway")}),
        (
            "Ines",
            "The fix for the login loop is live in prod.",
            {d("Ines", "fix for the login loop")},
        ),
        ("Ines", "Fixes #901 and #902.", {d("Ines", "#901"), d("Ines", "#902")}),
        # typos one edit away from any trigger form
        ("Ines", "the vendor sync is compelte", {d("Ines", "vendor sync")}),
        # report style: opening phrases, passive agents, nominalisations
        (
            "Ines",
            "During the period, the retention policy was finalised by the compliance team.",
            {d("compliance team", "retention policy", T)},
        ),
        (
            "Ines",
            "Owing to a dependency on the KYC integration, the onboarding redesign has been"
            " placed on hold.",
            {o("Ines", "onboarding redesign"), b("onboarding redesign", "KYC integration")},
        ),
        (
            "Ines",
            "The billing migration has been completed, which unblocks the pricing experiment.",
            {d("Ines", "billing migration"), u("pricing experiment", "billing migration")},
        ),
        (
            "Ines",
            "The map tiles are live, having been rolled out by the ops team.",
            {d("ops team", "map tiles", T)},
        ),
        # possessives of organisational units name an owner
        (
            "Ines",
            "The payout report is waiting on treasury's FX feed.",
            {
                o("Ines", "payout report"),
                b("payout report", "FX feed"),
                o("treasury", "FX feed", T),
            },
        ),
        # ownership cues: an owner aside, a dash, an assignment, a trailing "going forward"
        ("Ines", "- payments refactor (owner: Dmitri)", {o("Dmitri", "payments refactor")}),
        ("Ines", "- auth revamp — Priya driving", {o("Priya", "auth revamp")}),
        ("Ines", "assigning the flaky tests epic to Olu", {o("Olu", "flaky tests epic")}),
        (
            "Ines",
            "Paula owns the backpressure work going forward.",
            {o("Paula", "backpressure work")},
        ),
        # a status emoji is a label
        ("Ines", "🔄 BILL-7 invoice rounding", {o("Ines", "invoice rounding")}),
        # action items under an Actions heading
        ("Ines", "Actions:\n- Bartek: automate the cert alerts", {o("Bartek", "cert alerts")}),
    ],
)
def test_generalised_phrasings(author: str, text: str, expected: set[tuple[str, ...]]) -> None:
    assert facts_of(extract(text, author)) == expected


@pytest.mark.parametrize(
    "sentence",
    [
        "The customer portal is expected to launch in May, pending final budget approval.",
        "The ledger rewrite is scheduled for release in March.",
        "The data lake migration is on track to complete by month end.",
        "lol my laptop is blocked by an OS update",
        "Done: nothing shippable, spent the day in flame graphs",
        "Carrier porting got pushed again by the carrier.",
    ],
)
def test_plans_hedges_and_everyday_senses_give_nothing(sentence: str) -> None:
    assert extract(sentence, "Ines").facts == []
