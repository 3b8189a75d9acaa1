"""memcli ingest --from github|jira|slack: real CLI runs on export files in each format.

Each tracker fixture holds two dependency chains, a cycle and a cancelled blocker. The
golden observations say what a user reads after 'memcli analyze': one observation per
chain (its root and everything that waits on it), a deadlock for the cycle (it has no
root, so no chain) and none for the cancelled blocker (its cancellation ended every wait on it).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, Cli

FIXTURES = ROOT / "tests" / "fixtures" / "connectors"
GITHUB = FIXTURES / "github"
JIRA = FIXTURES / "jira"
SLACK = FIXTURES / "slack"
GH_FILES = [
    str(GITHUB / "issues.json"),
    str(GITHUB / "rest" / "issues.json"),
    str(GITHUB / "rest" / "11.blocked_by.json"),
    str(GITHUB / "rest" / "12.blocked_by.json"),
]


def golden(cli: Cli, graph: str) -> dict[str, dict[str, list[str]]]:
    """Active observations as {root: {role: sorted entity names}}."""
    cli("analyze", "-g", graph)
    out: dict[str, dict[str, list[str]]] = {}
    for obs in cli.json("observations", "-g", graph):
        assert obs["status"] == "active"
        if obs["kind"] not in ("dependency_chain", "stale_blocker"):
            continue  # cycles and the like: see cycles()
        (root,) = obs["root_entities"]
        roles: dict[str, list[str]] = {}
        for e in obs["entities"]:
            if e["role"] != "root":
                roles.setdefault(e["role"], []).append(e["name"])
        out[root] = {role: sorted(names) for role, names in sorted(roles.items())}
    return out


def cycles(cli: Cli, graph: str) -> list[list[str]]:
    """The deadlocks memcli names: each cycle's items, sorted."""
    return sorted(
        sorted(o["root_entities"])
        for o in cli.json("observations", "-g", graph)
        if o["kind"] == "dependency_cycle"
    )


def episodes(cli: Cli, graph: str) -> list[dict[str, Any]]:
    """Every stored episode of ``graph`` (via 'memcli export')."""
    out = cli("export", "-g", graph).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def ingest(cli: Cli, fmt: str, *args: str, ok: bool = True) -> dict[str, Any]:
    result = cli("ingest", "--from", fmt, *args, "--json", ok=ok)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


# --- GitHub ---


def test_github_golden_observations(cli: Cli) -> None:
    report = ingest(cli, "github", "-g", "billing", *GH_FILES)
    assert report["errors"] == []
    assert golden(cli, "billing") == {
        # chain 1 (gh JSON, blockedBy lists); Li Wei's comment "Still blocked by #1"
        # is read by the reader and names this repository's #1
        "acme/billing#1": {
            "direct": ["Liwei", "acme/billing#2"],
            "downstream": ["Sam", "acme/billing#3"],
        },
        # chain 2 (REST issues + the dependency listings of #11 and #12)
        "acme/billing#10": {
            "direct": ["Dana", "acme/billing#11"],
            "downstream": ["acme/billing#12"],
            "owner": ["Olu"],
        },
    }
    # the cycle #20 <-> #21 has no root: it is named as a deadlock instead
    assert cycles(cli, "billing") == [["acme/billing#20", "acme/billing#21"]]
    facts = cli.json("facts", "-g", "billing")
    pairs = {(f["source"], f["relation"], f["target"]) for f in facts}
    assert ("acme/billing#20", "blocked_by", "acme/billing#21") in pairs
    assert ("acme/billing#21", "blocked_by", "acme/billing#20") in pairs
    # the cancelled blocker: closed as not planned, credited to who closed it, and no
    # current wait on it is left
    assert ("Mara", "completed", "acme/billing#30") in pairs
    assert not any(t == "acme/billing#30" and r == "blocked_by" for _s, r, t in pairs)


def test_github_references_in_text_chain_issues(cli: Cli, write: Any) -> None:
    """No dependency links at all, only what people wrote: "#5" in acme/web's issue text
    is acme/web#5, and a wait written on an issue is that issue's wait."""

    def issue(n: int, who: str, body: str, comment: str | None = None) -> dict[str, Any]:
        return {
            "number": n,
            "title": f"Web task {n}",
            "state": "OPEN",
            "author": {"login": who},
            "assignees": [{"login": who}],
            "createdAt": f"2026-03-0{n - 3}T09:00:00Z",
            "url": f"https://github.com/acme/web/issues/{n}",
            "body": body,
            "comments": []
            if comment is None
            else [{"author": {"login": who}, "body": comment, "createdAt": "2026-03-09T09:00:00Z"}],
        }

    export = [
        issue(5, "ana", "Set up the design tokens."),
        issue(6, "ben", "Blocked by #5."),
        issue(7, "cleo", "Blocked by #6."),
        issue(8, "dev", "Restyle the footer.", comment="Still waiting on #5, then I can start."),
    ]
    ingest(cli, "github", "-g", "web", str(write("web.json", json.dumps(export))))
    # (the owners are stated in the issues' structure episodes, which share no
    # signature with these texts, so analysis clusters them apart)
    assert golden(cli, "web") == {
        "acme/web#5": {"direct": ["acme/web#6", "acme/web#8"], "downstream": ["acme/web#7"]}
    }


def test_github_title_is_an_alias_search_finds(cli: Cli) -> None:
    ingest(cli, "github", "-g", "billing", str(GITHUB / "issues.json"))
    hits = cli.json("search", "-g", "billing", "--scope", "entities", "invoice digest")
    assert [h["title"] for h in hits] == ["acme/billing#3"]


def test_github_reimport_adds_nothing(cli: Cli) -> None:
    first = ingest(cli, "github", "-g", "billing", *GH_FILES)
    again = ingest(cli, "github", "-g", "billing", *GH_FILES)
    assert first["episodes"]["new"] > 0
    assert again["episodes"]["new"] == 0
    assert again["facts_new"] == 0
    assert (
        again["episodes"]["duplicate"] == first["episodes"]["new"] + first["episodes"]["duplicate"]
    )


def test_github_newer_export_closing_the_blocker_retires_it(cli: Cli) -> None:
    ingest(cli, "github", "-g", "billing", str(GITHUB / "issues.json"))
    assert "acme/billing#1" in golden(cli, "billing")
    later = ingest(cli, "github", "-g", "billing", str(GITHUB / "issues-later.json"))
    # only the closing and the new comment are new
    assert later["episodes"]["new"] == 2
    assert "acme/billing#1" not in golden(cli, "billing")
    retired = [
        o
        for o in cli.json("observations", "-g", "billing", "--status", "retired")
        if o["root_entities"] == ["acme/billing#1"]
    ]
    assert len(retired) == 1
    # the completion is at the tracker's closing time, by the assignee
    done = [
        f
        for f in cli.json("facts", "-g", "billing")
        if f["relation"] == "completed" and f["target"] == "acme/billing#1"
    ]
    assert [(d["source"], d["valid_at"]) for d in done] == [("Mara", "2026-03-09T17:45:00Z")]


def test_github_bad_record_is_named_and_the_rest_ingested(cli: Cli) -> None:
    result = cli("ingest", "--from", "github", "-g", "billing", str(GITHUB / "bad.json"), ok=False)
    assert result.exit_code == 1
    assert f"{GITHUB / 'bad.json'}: issues[1]: missing key 'number'" in result.stderr
    names = {e["name"] for e in cli.json("entities", "-g", "billing")}
    assert {"acme/billing#40", "acme/billing#42"} <= names
    assert not any("41" in n for n in names)


def test_github_secrets_are_redacted(cli: Cli, write: Any) -> None:
    token = "ghp_" + "Zx9" * 12
    path = write(
        "leak.json",
        json.dumps(
            [
                {
                    "number": 5,
                    "title": "Flaky deploy",
                    "state": "OPEN",
                    "author": {"login": "dana"},
                    "createdAt": "2026-03-10T09:00:00Z",
                    "url": "https://github.com/acme/ops/issues/5",
                    "body": "Deploys fail.",
                    "comments": [
                        {
                            "author": {"login": "olu"},
                            "body": f"Retried with token={token} and it worked.",
                            "createdAt": "2026-03-10T10:00:00Z",
                        }
                    ],
                }
            ]
        ),
    )
    report = ingest(cli, "github", "-g", "ops", str(path))
    assert report["secrets_redacted"] == 1
    texts = " ".join(e["content"] for e in episodes(cli, "ops"))
    assert token not in texts and "[REDACTED:github_token]" in texts


def test_github_repo_option_for_issues_without_url(cli: Cli, write: Any) -> None:
    issue = {"number": 7, "title": "No url", "createdAt": "2026-03-10T09:00:00Z"}
    path = write("bare.json", json.dumps([issue]))
    result = cli("ingest", "--from", "github", "-g", "x", str(path), ok=False)
    assert result.exit_code == 1 and "pass --repo OWNER/REPO" in result.stderr
    cli("ingest", "--from", "github", "--repo", "acme/web", "-g", "x", str(path))
    assert "acme/web#7" in {e["name"] for e in cli.json("entities", "-g", "x")}


def test_github_pull_requests_and_paged_rest_listings(cli: Cli, write: Any) -> None:
    prs = [
        {
            "number": 60,
            "title": "Queue consumer for exports",
            "state": "MERGED",
            "author": {"login": "liwei"},
            "assignees": [],
            "createdAt": "2026-03-08T09:00:00Z",
            "closedAt": "2026-03-09T12:00:00Z",
            "mergedAt": "2026-03-09T12:00:00Z",
            "mergedBy": {"login": "mara"},
            "url": "https://github.com/acme/billing/pull/60",
            "body": "",
            "comments": [],
        },
        {
            "number": 61,
            "title": "Try a second exporter",
            "state": "CLOSED",
            "author": {"login": "sam"},
            "assignees": [],
            "createdAt": "2026-03-08T10:00:00Z",
            "closedAt": "2026-03-08T18:00:00Z",
            "mergedAt": None,
            "url": "https://github.com/acme/billing/pull/61",
            "body": "",
            "comments": [],
        },
    ]
    # gh api --paginate --slurp: one array per page; #71 was opened after #70 shipped,
    # so its link to #70 was never a wait
    pages = [
        [
            {
                "number": 70,
                "title": "Card vault upgrade",
                "html_url": "https://github.com/acme/billing/issues/70",
                "user": {"login": "olu"},
                "state": "closed",
                "state_reason": "completed",
                "created_at": "2026-03-01T09:00:00Z",
                "closed_at": "2026-03-02T09:00:00Z",
                "closed_by": {"login": "olu"},
                "comments": 0,
            }
        ],
        [
            {
                "number": 71,
                "title": "Saved cards",
                "html_url": "https://github.com/acme/billing/issues/71",
                "user": {"login": "dana"},
                "state": "open",
                "created_at": "2026-03-05T09:00:00Z",
                "comments": 0,
                "blocked_by": [
                    {"number": 70, "html_url": "https://github.com/acme/billing/issues/70"}
                ],
            }
        ],
    ]
    report = ingest(
        cli,
        "github",
        "-g",
        "b",
        str(write("prs.json", json.dumps(prs))),
        str(write("rest.json", json.dumps(pages))),
    )
    assert report["errors"] == []
    facts = {(f["source"], f["relation"], f["target"]) for f in cli.json("facts", "-g", "b")}
    assert ("Mara", "completed", "acme/billing#60") in facts  # merged by Mara
    assert ("Sam", "completed", "acme/billing#61") in facts  # closed unmerged: cancelled
    assert ("Olu", "completed", "acme/billing#70") in facts
    assert not any(r == "blocked_by" for _s, r, _t in facts)
    assert "acme/billing#71" in {e["name"] for e in cli.json("entities", "-g", "b")}


# --- Jira ---


def test_jira_golden_observations(cli: Cli) -> None:
    report = ingest(cli, "jira", "-g", "pay", str(JIRA / "search.json"))
    assert report["errors"] == []
    assert golden(cli, "pay") == {
        # chain 1: Blocks links, each seen from both of its issues, stated once; Ben's
        # comment "Still waiting on PAY-1 for the rate lookups" adds his own wait
        "PAY-1": {
            "direct": ["Ben Howard", "PAY-2", "rate lookups"],
            "downstream": ["Cleo Park", "PAY-3"],
        },
        # chain 2: Depends links ("depends on" / "is depended on by")
        "PAY-4": {
            "direct": ["Eli Cohen", "PAY-5"],
            "downstream": ["Fay Lindqvist", "PAY-6"],
        },
    }
    pairs = {(f["source"], f["relation"], f["target"]) for f in cli.json("facts", "-g", "pay")}
    assert ("PAY-7", "blocked_by", "PAY-8") in pairs and ("PAY-8", "blocked_by", "PAY-7") in pairs
    assert cycles(cli, "pay") == [["PAY-7", "PAY-8"]]  # named as a deadlock
    # Relates links are not dependencies
    assert not any("PAY-9" in (s, t) for s, _r, t in pairs)
    # Won't Do cancels the blocker: completed by its assignee, waits on it ended
    assert ("Dev Patel", "completed", "PAY-10") in pairs
    assert not any(t == "PAY-10" and r == "blocked_by" for _s, r, t in pairs)


def test_jira_newer_export_resolving_the_root_retires_it(cli: Cli) -> None:
    ingest(cli, "jira", "-g", "pay", str(JIRA / "search.json"))
    assert set(golden(cli, "pay")) == {"PAY-1", "PAY-4"}
    again = ingest(cli, "jira", "-g", "pay", str(JIRA / "search.json"))
    assert again["episodes"]["new"] == 0 and again["facts_new"] == 0
    later = ingest(cli, "jira", "-g", "pay", str(JIRA / "search-later.json"))
    assert later["episodes"]["new"] == 1  # the resolution, nothing else
    assert set(golden(cli, "pay")) == {"PAY-4"}
    done = [
        (f["source"], f["valid_at"])
        for f in cli.json("facts", "-g", "pay")
        if f["relation"] == "completed" and f["target"] == "PAY-1"
    ]
    assert done == [("Ana Silva", "2026-04-08T09:00:00Z")]  # +0200 in the export


def test_jira_dependency_link_types_are_configurable(cli: Cli) -> None:
    ingest(
        cli, "jira", "-g", "pay", "--jira-dependency-links", "Depends", str(JIRA / "search.json")
    )
    assert set(golden(cli, "pay")) == {"PAY-4"}


def test_jira_bad_record_is_named_and_the_rest_ingested(cli: Cli) -> None:
    result = cli("ingest", "--from", "jira", "-g", "pay", str(JIRA / "bad.json"), ok=False)
    assert result.exit_code == 1
    assert f"{JIRA / 'bad.json'}: issues[1]: fields: missing key 'created'" in result.stderr
    names = {e["name"] for e in cli.json("entities", "-g", "pay")}
    assert {"PAY-2", "PAY-3"} <= names and "PAY-99" not in names


# --- Slack ---


def test_slack_golden_observation(cli: Cli) -> None:
    report = ingest(cli, "slack", "-g", "chat", "--channel", "payments", str(SLACK / "export"))
    assert report["errors"] == []
    assert golden(cli, "chat") == {
        "fraud rules update": {
            "direct": [
                "June Park",  # deleted user: the profile's real name
                "Nina",  # display name
                "Omar Khalil",  # empty display name: the real name
                "Receipt emails",
                "checkout revamp",
                "refund export",
            ],
        }
    }
    texts = [e["content"] for e in episodes(cli, "chat")]
    # the bot's posts, the join and the topic change are skipped; the thread replies
    # (one a day later, in the next day's file) are kept; mentions and links are names
    assert len(texts) == 3
    assert any("Omar Khalil can you check?" in t for t in texts)
    assert any("Details are in the ticket." in t for t in texts)
    assert not any("Lunch" in t for t in texts)  # #random was not selected


def test_slack_reimport_and_a_second_channel(cli: Cli) -> None:
    ingest(cli, "slack", "-g", "chat", "--channel", "payments", str(SLACK / "export"))
    again = ingest(cli, "slack", "-g", "chat", str(SLACK / "export"))
    assert again["episodes"] == {"new": 1, "duplicate": 3, "failed": 0}  # #random's one


def test_slack_unknown_channel(cli: Cli) -> None:
    result = cli("ingest", "--from", "slack", "--channel", "nope", str(SLACK / "export"), ok=False)
    assert result.exit_code == 1
    assert (
        f"{SLACK / 'export'}: no channel named nope (channels: payments, random)" in result.stderr
    )


def test_slack_bad_record_is_named_and_the_rest_ingested(cli: Cli, tmp_path: Path) -> None:
    export = tmp_path / "export"
    shutil.copytree(SLACK / "bad-export", export)
    result = cli("ingest", "--from", "slack", "-g", "chat", str(export), ok=False)
    assert result.exit_code == 1
    day = export / "payments" / "2026-05-05.json"
    assert f"{day}: messages[1]: missing key 'ts'" in result.stderr
    texts = [e["content"] for e in episodes(cli, "chat")]
    assert any(t.startswith("Receipt emails") for t in texts)
    assert len(texts) == 4


def test_options_need_their_format(cli: Cli) -> None:
    result = cli("ingest", "--channel", "x", str(SLACK / "export"), ok=False)
    assert result.exit_code == 2 and "--channel needs --from slack" in result.stderr


def test_a_record_that_cannot_be_stored_rolls_back_alone(cli: Cli, write: Any) -> None:
    def issue(key: str, assignee: str) -> dict[str, Any]:
        return {
            "key": key,
            "fields": {
                "summary": f"Work {key}",
                "created": "2026-04-01T09:00:00.000+0000",
                "assignee": {"displayName": assignee},
                "reporter": {"displayName": "Ana Silva"},
                "description": f"Notes for {key}.",
            },
        }

    # "..." is no name at all once punctuation is dropped: that issue cannot be stored
    path = write(
        "odd.json",
        json.dumps(
            {
                "issues": [
                    issue("OPS-1", "Ben Howard"),
                    issue("OPS-2", "..."),
                    issue("OPS-3", "Cleo Park"),
                ]
            }
        ),
    )
    result = cli("ingest", "--from", "jira", "-g", "ops", str(path), "--json", ok=False)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [e["source"] for e in report["errors"]] == [f"{path}: issues[1]"]
    assert report["episodes"] == {"new": 4, "duplicate": 0, "failed": 1}
    contents = [e["content"] for e in episodes(cli, "ops")]
    assert not any("OPS-2" in c for c in contents)  # neither its structure nor its notes
    assert any("OPS-3" in c for c in contents)


def test_slack_messages_go_to_a_language_model_extractor(
    cli: Cli, llm_server: Any, tmp_path: Path
) -> None:
    text = "Since the ledger freeze got extended, the payout report cannot ship before it lifts."
    llm_server.extractions[text] = {
        "entities": [
            {"name": "payout report", "type": "work_item"},
            {"name": "ledger freeze", "type": "work_item"},
        ],
        "facts": [
            {
                "source": "payout report",
                "relation": "blocked_by",
                "target": "ledger freeze",
                "sentence": text,
            }
        ],
    }
    export = tmp_path / "export"
    (export / "ops").mkdir(parents=True)
    (export / "users.json").write_text(
        json.dumps([{"id": "U1", "name": "rui", "profile": {"display_name": "Rui"}}])
    )
    (export / "channels.json").write_text(json.dumps([{"id": "C1", "name": "ops"}]))
    (export / "ops" / "2026-05-06.json").write_text(
        json.dumps([{"type": "message", "user": "U1", "ts": "1778054400.000100", "text": text}])
    )
    report = ingest(cli, "slack", "-g", "ops", "--extractor", "llm", str(export))
    assert report["llm"]["calls"] == 1
    [body] = llm_server.of_kind("extract")
    assert text in body["messages"][-1]["content"]
    pairs = {(f["source"], f["relation"], f["target"]) for f in cli.json("facts", "-g", "ops")}
    assert ("payout report", "blocked_by", "ledger freeze") in pairs
