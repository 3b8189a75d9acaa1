"""The CLI for a person at a terminal: names, defaults, help and row formats."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from memcli import __version__
from tests.conftest import Cli


@pytest.fixture
def loaded(cli: Cli, atlas: Path) -> None:
    cli("ingest", "--quiet", str(atlas))
    cli("analyze", "--quiet")


def test_observe_is_observations(cli: Cli, loaded: None) -> None:
    assert cli("observe", "--json").stdout == cli("observations", "--json").stdout
    assert json.loads(cli("observe", "--json").stdout)


def test_db_after_the_command(cli: Cli, atlas: Path, tmp_path: Path) -> None:
    db = str(tmp_path / "after.db")
    cli("ingest", str(atlas), "--db", db, "--quiet")
    after = json.loads(cli("graphs", "--db", db, "--json").stdout)
    before = json.loads(cli("--db", db, "graphs", "--json").stdout)
    assert after == before and [g["graph"] for g in after] == ["project-atlas"]
    # The default database (the test's own) has nothing: --db really was used.
    assert cli("graphs", "--json", ok=False).stdout.strip() in ("", "[]")


def test_default_graph_from_env_and_config(
    cli: Cli, loaded: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = cli("facts", ok=False)
    assert missing.exit_code == 2 and "MEMCLI_GRAPH" in missing.stderr
    given = cli("facts", "--graph", "project-atlas", "--json").stdout

    monkeypatch.setenv("MEMCLI_GRAPH", "project-atlas")
    assert cli("facts", "--json").stdout == given
    monkeypatch.delenv("MEMCLI_GRAPH")

    config = tmp_path / "config.toml"
    config.write_text('graph = "project-atlas"\n\n[llm]\n')
    monkeypatch.setenv("MEMCLI_CONFIG", str(config))
    assert cli("facts", "--json").stdout == given
    # --graph still wins over the default.
    other = cli("facts", "--graph", "nowhere", "--json", ok=False)
    assert other.exit_code == 1 and "nowhere" in other.stderr


def test_version_short_flag(cli: Cli) -> None:
    assert cli("-V").stdout.strip() == f"memcli {__version__}"


def test_shell_completion_is_offered(cli: Cli) -> None:
    help_text = cli("--help").stdout
    assert "--install-completion" in help_text and "--show-completion" in help_text


def test_episodes_list_and_show(cli: Cli, loaded: None) -> None:
    rows = json.loads(cli("episodes", "--json").stdout)
    assert [r["author"] for r in rows] == ["Clara", "Bob", "Alice"]  # newest first
    assert all(r["facts"] for r in rows)
    [newest] = json.loads(cli("episodes", "--limit", "1", "--json").stdout)
    assert newest["id"] == rows[0]["id"]
    assert cli("episodes", "-q").stdout.split() == [str(r["id"]) for r in rows]
    shown = json.loads(cli("episode", "show", str(rows[-1]["id"]), "--json").stdout)
    assert shown["content"] == rows[-1]["content"]
    text = cli("episode", "show", str(rows[-1]["id"])).stdout
    assert "Alice" in text and "blocked_by" in text
    gone = cli("episode", "show", "999", ok=False)
    assert gone.exit_code == 1 and "no episode #999" in gone.stderr


@pytest.mark.parametrize("command", ["observation", "episode"])
def test_an_id_that_is_not_a_number_is_a_plain_usage_error(cli: Cli, command: str) -> None:
    result = cli(command, "show", "abc", ok=False)
    assert result.exit_code == 2
    assert f"'abc' is not an {command} id" in result.stderr
    assert "unable to parse" not in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "values"),
    [
        (["ingest"], "rules|llm|auto"),
        (["analyze"], "template|llm"),
        (["observations"], "active|retired|all"),
        (["export"], "<jsonl>"),
        (["report"], "md|json"),
        (["search"], "observations|facts|episodes|entities|all"),
    ],
)
def test_help_lists_allowed_values(cli: Cli, args: list[str], values: str) -> None:
    text = cli(*args, "--help").stdout
    assert values in text
    assert "{paths}" not in text and "<str>  Graph" not in text


def test_help_placeholders_are_readable(cli: Cli) -> None:
    assert "{PATH...}" in cli("ingest", "--help").stdout
    assert "{QUERY}" in cli("search", "--help").stdout
    assert "--graph NAME" in cli("facts", "--help").stdout


def test_unknown_extractor_is_a_usage_error(cli: Cli, atlas: Path) -> None:
    result = cli("ingest", str(atlas), "--extractor", "magic", ok=False)
    assert result.exit_code == 2 and "rules" in result.stderr


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["graphs"], "graph"),
        (["facts", "--graph", "project-atlas"], "relation"),
        (["entities", "--graph", "project-atlas"], "name"),
        (["episodes"], "author"),
        (["observations"], "summary"),
    ],
)
def test_csv_rows_match_the_json(cli: Cli, loaded: None, args: list[str], key: str) -> None:
    records = json.loads(cli(*args, "--json").stdout)
    rows = list(csv.DictReader(io.StringIO(cli(*args, "--csv").stdout)))
    assert len(rows) == len(records) >= 1
    assert [r[key] for r in rows] == [str(x[key]) for x in records]
    assert "id" in rows[0] or "graph" in rows[0]


def test_csv_and_json_together_is_a_usage_error(cli: Cli, loaded: None) -> None:
    assert cli("graphs", "--csv", "--json", ok=False).exit_code == 2


def test_quiet_on_every_command(cli: Cli) -> None:
    from memcli.cli import app

    commands = [c.name for c in app.registered_commands]
    for group in app.registered_groups:
        assert group.typer_instance is not None
        commands += [f"{group.name} {c.name}" for c in group.typer_instance.registered_commands]
    for name in commands:
        assert name is not None
        text = cli(*name.split(), "--help").stdout
        assert "--quiet" in text and "--db" in text, name


def test_quiet_keeps_errors(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.md"
    bad.write_bytes(b"\xff\xfe" + "hello".encode("utf-16-le"))
    result = cli("ingest", "--quiet", str(bad), ok=False)
    assert result.exit_code == 1 and "bad.md" in result.stderr


def test_quiet_silences_analyze_notes(cli: Cli, atlas: Path) -> None:
    cli("ingest", "--quiet", str(atlas))
    first = cli("analyze", "--quiet")
    assert (first.stdout, first.stderr) == ("", "")
    again = cli("analyze")
    assert "project-atlas" in again.stderr  # without --quiet it says what it did


def test_shell_completion_completes_command_names(tmp_path: Path) -> None:
    """What the installed bash completion script asks memcli, answered for real."""
    exe = Path(sys.executable).parent / "memcli"
    if not exe.is_file():
        pytest.skip("no memcli console script installed")
    env = {
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "_MEMCLI_COMPLETE": "complete_bash",
        "COMP_WORDS": "memcli obs",
        "COMP_CWORD": "1",
    }
    run = subprocess.run(
        [str(exe)], capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=60
    )
    assert run.returncode == 0
    assert run.stdout.split() == ["observations", "observe", "observation"]


def test_a_bad_default_graph_in_the_config_is_a_usage_error(
    cli: Cli, loaded: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("graph = 3\n")
    monkeypatch.setenv("MEMCLI_CONFIG", str(config))
    result = cli("facts", ok=False)
    assert result.exit_code == 2 and "graph must be a graph name" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["observations", "--limit", "-3"], "must be 0 or more, not -3"),
        (["observations", "--evidence", "many"], "'many' is not a valid int"),
        (["search", "--limit", "0", "auth"], "must be 1 or more, not 0"),
        (["observations", "-n", str(2**70)], f"must be at most {2**63 - 2}, not {2**70}"),
        (["episode", "retract", "0"], "must be 1 or more, not 0"),
    ],
)
def test_integer_options_say_what_they_take(
    cli: Cli, loaded: None, args: list[str], says: str
) -> None:
    # A usage error names the option and the bound, in words (not a type's name).
    result = cli(*args, ok=False)
    assert result.exit_code == 2
    assert says in result.stderr and "range" not in result.stderr
