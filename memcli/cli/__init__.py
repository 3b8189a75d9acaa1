"""The command-line interface: parses options, calls :mod:`memcli.api`, prints results.

Each command group lives in its own module and registers itself on the shared ``app``
when imported; ``COMMAND_MODULES`` fixes the order ``memcli --help`` lists them in.
"""

from __future__ import annotations

import importlib

from memcli.cli._app import app

COMMAND_MODULES = (
    "ingest_cmd",
    "read_cmd",
    "identity_cmd",
    "corrections_cmd",
    "search_cmd",
    "report_cmd",
    "visualize_cmd",
    "mcp_cmd",
    "config_cmd",
    "doctor_cmd",
    "transfer_cmd",
    "demo_cmd",
    "watch_cmd",
)

for _module in COMMAND_MODULES:
    importlib.import_module(f"memcli.cli.{_module}")


def main() -> None:
    app(prog_name="memcli")


__all__ = ["app", "main"]
