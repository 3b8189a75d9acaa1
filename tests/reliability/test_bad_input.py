"""Bad input, beyond tests/test_ingest.py: each bad input gets one message with its path
and reason, the rest of the batch is ingested, the exit code says something failed, and
nothing is half-written (the database equals one that only ever saw the good inputs)."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Cli, update
from tests.reliability.helpers import natural_dump

GOOD = "The API migration is blocked on the auth service refactor."


def good_files(write: Callable[..., Path]) -> list[Path]:
    return [
        write("good1.md", update("Alice", "2026-11-02", GOOD)),
        write("good2.md", update("Bob", "2026-11-04", "Bob owns the payments integration.")),
    ]


def only_good_state(tmp_path: Path, cli: Cli, files: list[Path]) -> dict[str, object]:
    """The database a run with only the good files builds."""
    db = tmp_path / "only-good.db"
    cli("--db", str(db), "ingest", *map(str, files))
    return natural_dump(db)


def ingest_batch(cli: Cli, *paths: Path | str, extra: tuple[str, ...] = ()) -> tuple[dict, str]:
    result = cli("ingest", *extra, *map(str, paths), "--json", ok=False)
    assert result.exit_code == 1, result.stderr
    return json.loads(result.stdout), result.stderr


def test_every_bad_input_is_named_once_and_the_rest_lands(
    cli: Cli, write: Callable[..., Path], tmp_path: Path, db_path: Path
) -> None:
    good = good_files(write)
    bad = {
        "utf16.md": "\ufeffhello".encode("utf-16"),
        "list-front-matter.md": "---\n- author: Alice\n---\nBlocked on X.\n",
        "scalar-front-matter.md": "---\njust text\n---\nBlocked on X.\n",
        "python-tag.md": "---\nauthor: !!python/object/apply:os.system ['true']\n---\nX.\n",
        "huge-timestamp.md": "---\nauthor: A\ndate: 99999999999999\n---\nX is done.\n",
        "no-body.md": "---\nauthor: A\ndate: 2026-11-02\n---\n\n",
        "deep.json": "[" * 50_000 + "]" * 50_000,
        "not-object.json": "[1, 2]",
        "bad-relation.json": json.dumps(
            {
                "content": "x",
                "occurred_at": "2026-11-02",
                "facts": [{"source": "a", "relation": "b"}],
            }
        ),
        "only-nul.txt": b"\x00" * 10,
        "whitespace.md": "\n\t  \r\n",
    }
    bad_paths = [write(name, data) for name, data in bad.items()]
    report, stderr = ingest_batch(cli, *good, *bad_paths)
    # a record inside a JSON array is named with its index: "file.json[0]"
    reasons = {
        (s[: s.index(".json[") + 5] if ".json[" in s else s): r
        for s, r in ((e["source"], e["reason"]) for e in report["errors"])
    }
    assert len(report["errors"]) == len(bad_paths)
    assert set(reasons) == {str(p) for p in bad_paths}
    for path in bad_paths:
        assert stderr.count(f"Error: {path}") == 1, path
    assert "UTF-16" in reasons[str(bad_paths[0])]
    assert "expected 'key: value' lines, got a list" in reasons[str(bad_paths[1])]
    assert "got a str" in reasons[str(bad_paths[2])]
    assert "malformed front matter" in reasons[str(bad_paths[3])]
    assert "is a number, not a date" in reasons[str(bad_paths[4])]
    assert "empty update" in reasons[str(bad_paths[5])]
    assert "nested too deeply" in reasons[str(bad_paths[6])]
    assert "Traceback" not in stderr
    assert report["episodes"]["new"] == 2
    assert natural_dump(db_path) == only_good_state(tmp_path, cli, good)


def test_malformed_jsonl_lines_are_numbered_and_the_others_land(
    cli: Cli, write: Callable[..., Path]
) -> None:
    ok = {"content": GOOD, "author": "Dan", "occurred_at": "2026-11-05", "graph": "g"}
    lines = [
        json.dumps(ok),
        "",
        "{oops",
        json.dumps(
            {**ok, "content": "Line four: the \u2028 separator stays inside.", "author": "Eve"}
        ),
        json.dumps({"author": "Fay", "occurred_at": "2026-11-05"}),
        "[" * 10_000,
        json.dumps({**ok, "author": "Gus", "occurred_at": "someday"}),
        json.dumps({**ok, "author": "Hal", "content": "Hal owns the search rewrite."}),
    ]
    path = write("mixed.jsonl", "\r\n".join(lines) + "\r\n")
    report, stderr = ingest_batch(cli, path)
    reasons = {e["source"]: e["reason"] for e in report["errors"]}
    assert set(reasons) == {f"{path}:3", f"{path}:5", f"{path}:6", f"{path}:7"}
    assert "invalid JSON" in reasons[f"{path}:3"]
    assert "content" in reasons[f"{path}:5"]
    assert "nested too deeply" in reasons[f"{path}:6"]
    assert "someday" in reasons[f"{path}:7"]
    assert report["episodes"] == {"new": 3, "duplicate": 0, "failed": 4}
    contents = {f["author"]: f for f in cli.json("facts", "--graph", "g")}
    assert set(contents) == {"Dan", "Hal"}
    episodes = sqlite3.connect(os.environ["MEMCLI_DB"]).execute("SELECT content FROM episodes")
    assert "Line four: the \u2028 separator stays inside." in {r[0] for r in episodes}


def test_size_limit_default_env_and_option(
    cli: Cli, write: Callable[..., Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    good = good_files(write)
    huge = tmp_path / "in" / "huge.md"
    with huge.open("wb") as fh:  # sparse: 11 MiB on paper, nothing on disk
        fh.truncate(11 * 1024 * 1024)
    report, stderr = ingest_batch(cli, huge, *good)
    [error] = report["errors"]
    assert error["source"] == str(huge)
    assert "11,534,336 bytes, over the 10,485,760 byte limit" in error["reason"]
    assert "--max-bytes" in error["reason"] and "MEMCLI_MAX_FILE_BYTES" in error["reason"]
    assert report["episodes"]["new"] == 2

    size = good[0].stat().st_size
    at_limit = write("at-limit.md", update("Ann", "2026-11-06", "Ann owns the style guide."))
    limit = at_limit.stat().st_size
    over = write("over.md", update("Ben", "2026-11-06", "Ben owns the style guide rewrite."))
    assert over.stat().st_size > limit and size != limit
    report, _ = ingest_batch(cli, at_limit, over, extra=("--max-bytes", str(limit)))
    assert [e["source"] for e in report["errors"]] == [str(over)]
    assert f"over the {limit:,} byte limit" in report["errors"][0]["reason"]
    assert report["episodes"]["new"] == 1

    monkeypatch.setenv("MEMCLI_MAX_FILE_BYTES", "10")
    report, _ = ingest_batch(cli, over)
    assert "over the 10 byte limit" in report["errors"][0]["reason"]
    # stdin has the same limit
    result = cli("ingest", "-", "--max-bytes", "20", "--json", input="x" * 100, ok=False)
    assert result.exit_code == 1
    assert "<stdin>" in json.loads(result.stdout)["errors"][0]["source"]
    assert "byte limit" in json.loads(result.stdout)["errors"][0]["reason"]
    assert cli("ingest", "--max-bytes", "0", str(over), ok=False).exit_code == 2


def test_unknown_keys_are_ignored_with_a_warning(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    path = write(
        "typo.md",
        "---\nauther: Alice\ndate: 2026-11-02\ngraph: g\npriority: high\ntitle: ok\n---\n" + GOOD,
    )
    line = {"content": GOOD, "occurred_at": "2026-11-03", "graph": "g", "mood": "ok", "id": 1}
    jl = write(
        "extra.jsonl",
        "\n".join(json.dumps({**line, "id": i, "author": f"P{i}"}) for i in range(50)),
    )
    result = cli("ingest", str(path), str(jl))
    assert result.exit_code == 0
    assert (
        f"Warning: {path}: unknown key(s) ignored: 'auther' (did you mean 'author'?), 'priority'"
        in result.stderr
    )
    assert (
        f"Warning: {jl}: unknown key(s) ignored: 'id', 'mood' (in 50 of 50 records)"
        in result.stderr
    )
    assert result.stderr.count("Warning:") == 2
    report = cli.json("ingest", str(write("typo2.md", "---\nDate: 2026-11-09\n---\nHi.\n")))
    assert report["warnings"][0]["message"].startswith("unknown key(s) ignored: 'Date'")
    authors = sqlite3.connect(db_path).execute(
        "SELECT author FROM episodes WHERE source LIKE '%.md'"
    )
    assert {r[0] for r in authors} == {None}, "the misspelt author is not guessed"


def test_directories_and_globs(cli: Cli, write: Callable[..., Path], tmp_path: Path) -> None:
    good = good_files(write)
    nested = write("deeper/nested/c.md", update("Cy", "2026-11-07", "Cy owns the billing page."))
    write("deeper/notes.pdf", b"%PDF-1.4 not an update")
    write("deeper/broken.json", "{")
    report, stderr = ingest_batch(cli, good[0].parent, tmp_path / "in" / "nothing-*.md")
    sources = {e["source"] for e in report["errors"]}
    assert sources == {
        str(tmp_path / "in" / "deeper" / "broken.json"),
        str(tmp_path / "in" / "nothing-*.md"),
    }
    assert "glob that matched nothing" in stderr
    assert report["episodes"]["new"] == 3  # good1, good2 and the nested one; the pdf is skipped
    assert str(nested) not in sources


def test_a_file_that_fails_on_read(cli: Cli, write: Callable[..., Path]) -> None:
    """/proc/self/mem is a regular file whose read fails (EIO), even for root."""
    mem = Path("/proc/self/mem")
    if not mem.exists():
        pytest.skip("needs Linux /proc")
    good = good_files(write)
    report, stderr = ingest_batch(cli, mem, *good)
    [error] = report["errors"]
    assert error["source"] == str(mem) and error["reason"]
    assert report["episodes"]["new"] == 2


def test_unreadable_file(tmp_path: Path) -> None:
    """chmod 000 denies reads to everyone except a process with CAP_DAC_OVERRIDE. Tests
    often run as root, so there memcli runs with every capability dropped (setpriv),
    which makes root obey the permission bits like any user."""
    locked = tmp_path / "locked.md"
    locked.write_text(update("Alice", "2026-11-02", GOOD))
    ok = tmp_path / "ok.md"
    ok.write_text(update("Bob", "2026-11-04", "Bob owns the payments integration."))
    locked.chmod(0o000)
    prefix: list[str] = []
    if os.geteuid() == 0:
        setpriv = shutil.which("setpriv")
        if setpriv is None:
            pytest.skip("running as root, and setpriv (util-linux) is missing to drop privileges")
        prefix = [setpriv, "--bounding-set=-all", "--inh-caps=-all"]
        probe = subprocess.run([*prefix, "cat", str(locked)], capture_output=True, check=False)
        if probe.returncode == 0:
            pytest.skip("running as root and dropping capabilities did not deny the read")
    cmd = [*prefix, sys.executable, "-m", "memcli", "--db", str(tmp_path / "m.db")]
    result = subprocess.run(
        [*cmd, "ingest", str(locked), str(ok)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1, result.stderr
    assert f"Error: {locked}: permission denied" in result.stderr
    assert "1 new episode(s)" in result.stderr
    locked.chmod(0o600)  # readable again: the same command now adds just that file
    result = subprocess.run(
        [*cmd, "ingest", str(locked), str(ok)], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "1 new episode(s), 1 duplicate" in result.stderr
