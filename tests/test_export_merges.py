"""Merge decisions a person made or undid travel with ``memcli export`` / ``import``.

Without them an import silently dropped a person's word on which names are one thing:
a merge they made was gone, and a merge they undid came back at the first analyze.
Each test runs the CLI on real files and real databases.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli, update

G = "harbour"
UPDATES = (
    ("Ines Vale", "2026-11-02T09:00:00Z", "The crane rota is blocked by the berth survey."),
    ("Olu Hart", "2026-11-03T09:00:00Z", "I own BRT-12. BRT-12 is waiting on the tide tables."),
    ("Pia Roux", "2026-11-04T09:00:00Z", "The pilot roster waits on the berth survey too."),
)


def _ingest(cli: Cli, write: Callable[..., Path]) -> None:
    paths = [
        write(f"{who.split()[0].lower()}.md", update(who, day, text, graph=G))
        for who, day, text in UPDATES
    ]
    cli("ingest", *map(str, paths))


def _export(cli: Cli, tmp_path: Path) -> Path:
    out = tmp_path / "harbour.jsonl"
    result = cli("export", "--graph", G, "--output", str(out))
    assert "merge decision(s)" in result.stderr
    return out


def _merged(cli: Cli, *db: str) -> dict[str, str | None]:
    return {e["name"]: e["merged_into"] for e in cli.json(*db, "entities", "--graph", G)}


def test_a_merge_a_person_made_is_made_again_on_import(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G, "--reason", "same job")
    exported = _export(cli, tmp_path)
    other = ("--db", str(tmp_path / "other.db"))
    report = cli.json(*other, "import", str(exported))
    assert report["merge_decisions"] == 1
    assert _merged(cli, *other)["berth survey"] == "BRT-12"
    [merge] = cli.json(*other, "entity", "merges", "--graph", G)
    assert (merge["decided_by"], merge["reason"]) == ("person", "same job")
    # analyze reads the two as one: the crane rota and the pilot roster wait on BRT-12,
    # which waits on the tide tables
    cli(*other, "analyze", "--graph", G)
    summaries = " ".join(o["summary"] for o in cli.json(*other, "observations", "--graph", G))
    assert "tide tables" in summaries


def test_importing_twice_records_each_decision_once(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G)
    exported = _export(cli, tmp_path)
    other = ("--db", str(tmp_path / "other.db"))
    assert cli.json(*other, "import", str(exported))["merge_decisions"] == 1
    again = cli.json(*other, "import", str(exported))
    assert (again["merge_decisions"], again["episodes"]["new"]) == (0, 0)
    assert len(cli.json(*other, "entity", "merges", "--graph", G)) == 1


def test_an_undone_merge_is_imported_undone_and_never_remade(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G)
    cli("entity", "unmerge", "berth survey", "--graph", G, "--reason", "two surveys")
    exported = _export(cli, tmp_path)
    other = ("--db", str(tmp_path / "other.db"))
    cli(*other, "import", str(exported))
    [merge] = cli.json(*other, "entity", "merges", "--graph", G)
    assert merge["undone_at"] is not None and merge["undo_reason"] == "two surveys"
    assert _merged(cli, *other)["berth survey"] is None


def test_a_bad_decision_line_is_reported_and_the_rest_is_stored(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G)
    exported = _export(cli, tmp_path)
    lines = exported.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[-1])
    bad["merge"]["alias"] = "the dredging plan"  # no update names it
    typo = json.loads(lines[-1])
    typo["merge"]["alias_type"] = "vessel"
    lines += [json.dumps(bad), json.dumps(typo)]
    exported.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = ("--db", str(tmp_path / "other.db"))
    result = cli(*other, "import", str(exported), ok=False)
    assert result.exit_code == 1
    n = len(lines)
    assert f"harbour.jsonl:{n - 1}: merge decision not recorded: no work item entity" in (
        result.stderr
    )
    assert f"harbour.jsonl:{n}: merge alias_type must be one of" in result.stderr
    # the episodes and the good decision are stored all the same
    assert len(cli.json(*other, "episodes", "--graph", G)) == 3
    assert _merged(cli, *other)["berth survey"] == "BRT-12"


def test_ingest_of_an_export_says_to_import_it_and_stores_the_episodes(
    cli: Cli, write: Callable[..., Path], tmp_path: Path
) -> None:
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G)
    exported = _export(cli, tmp_path)
    other = ("--db", str(tmp_path / "other.db"))
    result = cli(*other, "ingest", str(exported), ok=False)
    assert result.exit_code == 1
    assert "harbour.jsonl:4: a merge decision" in result.stderr
    assert "read by 'memcli import'" in result.stderr
    assert len(cli.json(*other, "episodes", "--graph", G)) == 3


def test_a_secret_in_a_reason_is_never_stored(
    cli: Cli, write: Callable[..., Path], tmp_path: Path, db_path: Path
) -> None:
    token = "ghp_" + "Qw7" * 12
    _ingest(cli, write)
    cli("entity", "alias", "berth survey", "--to", "BRT-12", "--graph", G, "--reason", token)
    cli("entity", "unmerge", "berth survey", "--graph", G, "--reason", f"no: {token}")
    exported = _export(cli, tmp_path)
    assert token not in exported.read_text(encoding="utf-8")
    # an export edited by hand to hold one is redacted on import too
    lines = exported.read_text(encoding="utf-8").splitlines()
    edited = json.loads(lines[-1])
    edited["merge"]["undo_reason"] = f"see {token}"
    lines[-1] = json.dumps(edited)
    exported.write_text("\n".join(lines) + "\n", encoding="utf-8")
    other = tmp_path / "other.db"
    report = cli.json("--db", str(other), "import", str(exported))
    assert report["secrets_redacted"] >= 1
    for path in (db_path, other):
        with sqlite3.connect(path) as conn:
            stored = conn.execute("SELECT reason || ' ' || undo_reason FROM entity_merges")
            assert all(token not in row[0] for row in stored)
