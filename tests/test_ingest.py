"""Ingest: formats, idempotence, time handling, and bad input that loses nothing."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from tests.conftest import Cli, update

JSON_FACTS = {
    "content": "Search rewrite waits on the index migration.",
    "author": "Priya",
    "occurred_at": "2026-11-03T08:00:00+02:00",
    "graph": "g",
    "source": "slack://eng/123",
    "facts": [
        {"source": "search rewrite", "relation": "blocked_by", "target": "index migration"},
        {
            "source": "data team",
            "source_type": "team",
            "relation": "owns",
            "target": "index migration",
        },
    ],
}


def test_json_episode_with_given_facts_bypasses_extraction(
    cli: Cli, write: Callable[..., Path]
) -> None:
    path = write("e.json", json.dumps(JSON_FACTS))
    report = cli.json("ingest", str(path))
    assert report["episodes"]["new"] == 1 and report["facts_new"] == 2
    facts = cli.json("facts", "--graph", "g")
    assert {(f["source"], f["relation"], f["target"]) for f in facts} == {
        ("search rewrite", "blocked_by", "index migration"),
        ("data team", "owns", "index migration"),
    }
    # world time normalised to UTC; the JSON source kept as given
    assert {f["valid_at"] for f in facts} == {"2026-11-03T06:00:00Z"}
    assert {f["episode_source"] for f in facts} == {"slack://eng/123"}


def test_markdown_text_json_jsonl_and_stdin(cli: Cli, write: Callable[..., Path]) -> None:
    md = write(
        "a.md",
        update(
            "Alice", "2026-11-02", "The API migration is blocked on the auth service refactor.", "g"
        ),
    )
    txt = write(
        "b.txt",
        "---\nauthor: Bob\ndate: 2026-11-03\n---\nBob is working on the payments integration.\n",
    )
    lines = [
        {
            "content": "The checkout flow depends on the payments integration.",
            "author": "Clara",
            "occurred_at": "2026-11-04",
            "graph": "g",
        },
        {
            "content": "The search page is blocked by the index rebuild.",
            "author": "Dan",
            "occurred_at": "2026-11-05",
            "graph": "g",
        },
    ]
    jl = write("c.jsonl", "\n".join(json.dumps(x) for x in lines) + "\n")
    report = cli.json("ingest", str(md), str(txt), str(jl), "--graph", "g")
    assert report["episodes"]["new"] == 4
    piped = cli(
        "ingest",
        "-",
        "--graph",
        "g",
        "--json",
        input=update("Eve", "2026-11-06", "Eve owns the mobile release.", "g"),
    )
    stdin = json.loads(piped.stdout)
    assert stdin["episodes"]["new"] == 1
    authors = {f["author"] for f in cli.json("facts", "--graph", "g")}
    assert authors == {"Alice", "Bob", "Clara", "Dan", "Eve"}


def test_bad_files_are_reported_and_the_rest_ingested(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    good = write(
        "good.md",
        update("Alice", "2026-11-02", "The API migration is blocked on the auth service refactor."),
    )
    broken_fm = write("broken.md", "---\nauthor: [unclosed\ndate: 2026-11-02\n---\nText.\n")
    bad_date = write("date.md", "---\nauthor: Bob\ndate: next tuesday\n---\nBlocked on X.\n")
    binary = write("bin.md", b"\x00\x01\x02binary")
    latin = write("latin.md", "caf\xe9 blocked".encode("latin-1"))
    empty = write("empty.md", "   \n")
    bad_json = write("bad.json", "{not json")
    jsonl = write(
        "mixed.jsonl",
        json.dumps(
            {
                "content": "Dan owns the search rewrite.",
                "author": "Dan",
                "occurred_at": "2026-11-05",
                "graph": "project-atlas",
            }
        )
        + "\n{oops\n"
        + json.dumps({"author": "Eve", "occurred_at": "2026-11-05"})
        + "\n",
    )
    result = cli(
        "ingest",
        str(good),
        str(broken_fm),
        str(bad_date),
        str(binary),
        str(latin),
        str(empty),
        str(bad_json),
        str(jsonl),
        str(Path(good.parent, "missing*.md")),
        "--json",
        ok=False,
    )
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    reasons = {e["source"]: e["reason"] for e in report["errors"]}
    assert "malformed front matter" in reasons[str(broken_fm)]
    assert "not an ISO 8601 date" in reasons[str(bad_date)]
    assert "binary" in reasons[str(binary)]
    assert "not valid UTF-8" in reasons[str(latin)]
    assert "empty" in reasons[str(empty)]
    assert "invalid JSON at line 1" in reasons[str(bad_json)]
    assert "invalid JSON" in reasons[f"{jsonl}:2"]
    assert "content" in reasons[f"{jsonl}:3"]
    assert "glob that matched nothing" in reasons[str(Path(good.parent, "missing*.md"))]
    # every message also reaches stderr with its path
    assert str(broken_fm) in result.stderr
    # the good file and the good JSONL line are stored, with their facts
    assert report["episodes"]["new"] == 2
    facts = cli.json("facts", "--graph", "project-atlas")
    assert {f["author"] for f in facts} == {"Alice", "Dan"}


def test_no_episode_without_its_facts(cli: Cli, write: Callable[..., Path], db_path: Path) -> None:
    """A JSON document with one invalid fact stores nothing from that document."""
    doc = [
        JSON_FACTS,
        {
            **JSON_FACTS,
            "content": "other",
            "facts": [{"source": "a", "relation": "likes", "target": "b"}],
        },
    ]
    path = write("two.json", json.dumps(doc))
    result = cli("ingest", str(path), "--json", ok=False)
    assert result.exit_code == 1
    assert "unknown relation 'likes'" in result.stdout
    import sqlite3

    conn = sqlite3.connect(db_path)
    assert conn.execute("SELECT count(*) FROM episodes").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM facts").fetchone()[0] == 0


def test_missing_date_falls_back_to_file_time(cli: Cli, write: Callable[..., Path]) -> None:
    path = write("nodate.md", "---\nauthor: Zoe\ngraph: g\n---\nZoe owns the style guide.\n")
    cli("ingest", str(path))
    [fact] = cli.json("facts", "--graph", "g")
    assert fact["valid_at"].endswith("Z")


def test_explain_lists_sentences_not_understood(cli: Cli, write: Callable[..., Path]) -> None:
    path = write(
        "x.md",
        update(
            "Alice",
            "2026-11-02",
            "Had a great offsite. The API migration is blocked on the auth service refactor.",
        ),
    )
    result = cli("ingest", str(path), "--explain")
    assert "not understood" in result.stderr and "Had a great offsite." in result.stderr
    report = json.loads(
        cli(
            "ingest",
            str(write("y.md", update("Bob", "2026-11-03", "Lunch was nice."))),
            "--json",
            "--explain",
        ).stdout
    )
    assert report["sentences_not_understood"] == 1
    assert report["not_understood"][0]["sentence"] == "Lunch was nice."


def test_directory_argument_is_walked(cli: Cli, atlas: Path) -> None:
    report = cli.json("ingest", str(atlas))
    assert report["episodes"]["new"] == 3
    empty = atlas.parent / "emptydir"
    empty.mkdir()
    # An empty inbox is nothing to do (exit 0), said on stderr unless --quiet.
    result = cli("ingest", str(empty))
    assert "no update files" in result.stderr
    quiet = cli("ingest", "--quiet", str(empty))
    assert quiet.stdout == "" and quiet.stderr == ""


def test_usage_error_exit_code(cli: Cli) -> None:
    result = cli("analyze", "--signatures", "fuzzy", ok=False)
    assert result.exit_code == 2


def test_a_file_that_fails_mid_transaction_leaves_nothing_behind(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    """The second episode's empty entity name fails after the first was written: the whole
    file rolls back, and the entities it created are not remembered by later files."""
    bad_fact = {"source": "?!", "relation": "owns", "target": "search rewrite"}
    doc = [JSON_FACTS, {**JSON_FACTS, "content": "second", "facts": [bad_fact]}]
    result = cli("ingest", str(write("mixed.json", json.dumps(doc))), "--json", ok=False)
    assert result.exit_code == 1
    assert "empty after normalisation" in result.stdout
    import sqlite3

    conn = sqlite3.connect(db_path)
    for table in ("episodes", "facts", "entities", "signatures"):
        assert conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0] == 0, table
    cli("ingest", str(write("again.json", json.dumps(JSON_FACTS))), "--graph", "g")
    assert len(cli.json("facts", "--graph", "g")) == 2
    assert conn.execute("PRAGMA foreign_key_check").fetchall() == []
