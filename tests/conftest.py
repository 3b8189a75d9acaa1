"""Shared fixtures: every test gets its own MEMCLI_HOME and database file."""

from __future__ import annotations

import json
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from memcli.cli import app
from tests.llm_stub import llm_server  # noqa: F401  (fixture: a local stub model server)

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_data"


def pytest_report_header() -> str:
    return f"sqlite: {sqlite3.sqlite_version}"


@pytest.fixture(autouse=True)
def memcli_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("MEMCLI_HOME", str(home))
    monkeypatch.setenv("MEMCLI_DB", str(tmp_path / "memcli.db"))
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.delenv("MEMCLI_DEBUG", raising=False)
    for var in ("MEMCLI_LLM_BASE_URL", "MEMCLI_LLM_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    return home


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "memcli.db"


class Cli:
    """Runs memcli in-process exactly as a user would, and parses --json output."""

    def __init__(self) -> None:
        self.runner = CliRunner()

    def __call__(self, *args: str, input: str | None = None, ok: bool = True) -> Any:
        result = self.runner.invoke(app, list(args), input=input, prog_name="memcli")
        if ok and result.exit_code != 0:
            raise AssertionError(
                f"memcli {' '.join(args)} exited {result.exit_code}\n"
                f"stdout: {result.stdout}\nstderr: {result.stderr}\n{result.exception!r}"
            )
        return result

    def json(self, *args: str) -> Any:
        return json.loads(self(*args, "--json").stdout)


@pytest.fixture
def cli() -> Cli:
    return Cli()


@pytest.fixture
def atlas(tmp_path: Path) -> Path:
    """A private copy of the canonical scenario's three updates."""
    target = tmp_path / "updates"
    shutil.copytree(SAMPLES / "project-atlas", target)
    return target


@pytest.fixture
def write(tmp_path: Path) -> Callable[..., Path]:
    """Write an update file under tmp_path/in and return its path."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / "in" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text, encoding="utf-8")
        return path

    return _write


def update(author: str, date: str, text: str, graph: str = "project-atlas") -> str:
    """A Markdown update with front matter."""
    return f"---\nauthor: {author}\ndate: {date}\ngraph: {graph}\n---\n{text}\n"
