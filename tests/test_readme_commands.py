"""README's command table lists exactly the commands the CLI has (no more, no fewer)."""

from __future__ import annotations

import re

from memcli.cli import app
from tests.conftest import ROOT

WORD = re.compile(r"[a-z][a-z-]*")


def readme_commands() -> set[str]:
    """Command paths ("ingest", "observation show") named in the first column of the
    table under '## Commands'."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    found: set[str] = set()
    for line in section.splitlines():
        if not line.startswith("| `memcli"):
            continue
        first_column = re.split(r"(?<!\\)\|", line)[1]
        for usage in re.findall(r"`memcli ([^`]*)`", first_column):
            words = []
            for token in usage.split():
                if not WORD.fullmatch(token):
                    break
                words.append(token)
            found.add(" ".join(words))
    return found


def cli_commands() -> set[str]:
    """Command paths registered on the typer app, groups expanded to their commands."""
    found = {c.name or "" for c in app.registered_commands}
    for group in app.registered_groups:
        assert group.typer_instance is not None
        found |= {f"{group.name} {c.name}" for c in group.typer_instance.registered_commands}
    return found


def test_readme_table_lists_every_command() -> None:
    assert "" not in cli_commands(), "every command is registered with an explicit name"
    assert readme_commands() == cli_commands()


def test_the_table_parser_reads_groups_and_commands() -> None:
    commands = readme_commands()
    assert {"ingest", "observation show", "config show", "graphs", "entities"} <= commands
