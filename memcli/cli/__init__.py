"""The command-line interface: parses options, calls :mod:`memcli.api`, prints results.

Each command group lives in its own module and registers itself on the shared ``app``.
"""

from __future__ import annotations

from memcli.cli import (  # noqa: F401  (registration)
    demo_cmd,
    doctor_cmd,
    ingest_cmd,
    read_cmd,
    transfer_cmd,
)
from memcli.cli._app import app


def main() -> None:
    app(prog_name="memcli")


__all__ = ["app", "main"]
