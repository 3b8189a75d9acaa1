"""Where the database lives, and settings read from the environment.

Precedence for the database path: ``--db`` option, then ``MEMCLI_DB``, then a per-user
default under ``MEMCLI_HOME`` (or the platform's user data directory).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

DEFAULT_GRAPH = "default"


def user_dir() -> Path:
    """The per-user memcli directory; ``MEMCLI_HOME`` overrides it (tests, containers)."""
    home = os.environ.get("MEMCLI_HOME")
    if home:
        return Path(home)
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "memcli"
    if os.name == "nt":
        base = os.environ.get("APPDATA")
        return Path(base) / "memcli" if base else Path.home() / "memcli"
    xdg = os.environ.get("XDG_DATA_HOME")
    return (Path(xdg) if xdg else Path.home() / ".local" / "share") / "memcli"


def resolve_db_path(option: str | Path | None) -> Path:
    """The database file to use for this invocation."""
    if option:
        return Path(option)
    env = os.environ.get("MEMCLI_DB")
    if env:
        return Path(env)
    return user_dir() / "memcli.db"


def busy_timeout_ms() -> int:
    """How long a writer waits for another writer before giving up (cron overlaps)."""
    try:
        return max(0, int(float(os.environ.get("MEMCLI_BUSY_TIMEOUT", "30")) * 1000))
    except ValueError:
        return 30_000
