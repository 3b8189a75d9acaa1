"""The command-line interface: parses options, calls :mod:`memcli.api`, prints results.

Each command group lives in its own module and registers itself on the shared ``app``.
"""

from __future__ import annotations

from memcli.cli import config_cmd, demo_cmd, ingest_cmd, read_cmd  # noqa: F401  (registration)
from memcli.cli._app import app


def main() -> None:
    app(prog_name="memcli")


__all__ = ["app", "main"]
