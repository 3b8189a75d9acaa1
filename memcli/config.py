"""Where the database lives, and settings read from the environment.

Precedence for the database path: ``--db`` option, then ``MEMCLI_DB``, then a per-user
default under ``MEMCLI_HOME`` (or the platform's user data directory). Precedence for
the graph of commands that need one: ``--graph``, then ``MEMCLI_GRAPH``, then
``graph = "..."`` at the top of the config file.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

from memcli.errors import UsageError

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


def config_path() -> Path:
    """``MEMCLI_CONFIG``, else ``config.toml`` in the per-user memcli directory."""
    env = os.environ.get("MEMCLI_CONFIG")
    return Path(env) if env else user_dir() / "config.toml"


def default_graph() -> str | None:
    """The graph to use when a command that needs one is given no --graph:
    ``MEMCLI_GRAPH``, else a top-level ``graph = "name"`` in the config file, else None.

    So a person working on one project types ``memcli facts`` instead of
    ``memcli facts --graph project-atlas`` every time."""
    env = os.environ.get("MEMCLI_GRAPH", "").strip()
    if env:
        return env
    path = config_path()
    if not path.is_file():
        return None
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
    value = data.get("graph")
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise UsageError(f'{path}: graph must be a graph name, e.g. graph = "project-atlas"')
    return value


def resolve_db_path(option: str | Path | None) -> Path:
    """The database file to use for this invocation."""
    if option:
        return Path(option)
    env = os.environ.get("MEMCLI_DB")
    if env:
        return Path(env)
    return user_dir() / "memcli.db"


# SQLite's busy timeout is a C int of milliseconds.
_BUSY_TIMEOUT_MAX_S = (2**31 - 1) // 1000


def busy_timeout_ms() -> int:
    """How long a writer waits for another writer before giving up (cron overlaps).

    A value that is not a number of seconds from 0 to about 24 days is an error rather
    than a silent default: a cron job that meant to wait must not fail fast instead.
    """
    raw = os.environ.get("MEMCLI_BUSY_TIMEOUT", "30")
    try:
        seconds = float(raw)
    except ValueError:
        seconds = math.nan
    if not (0 <= seconds <= _BUSY_TIMEOUT_MAX_S):  # also false for nan
        raise UsageError(
            f"MEMCLI_BUSY_TIMEOUT={raw!r} is not a number of seconds "
            f"from 0 to {_BUSY_TIMEOUT_MAX_S}",
            hint="set it to e.g. 30, or unset it for the default",
        )
    return int(seconds * 1000)
