"""The typer application, global options, and the error edge.

Library code raises :class:`memcli.errors.MemcliError`; :func:`command` turns it into a
message on stderr and an exit code, so a person or a cron mail never sees a traceback
(set ``MEMCLI_DEBUG=1`` for one).
"""

from __future__ import annotations

import functools
import json
import os
import re
import sqlite3
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment

from memcli import __version__
from memcli.config import resolve_db_path
from memcli.errors import MemcliError, StoreError
from memcli.store import Store

app = typer.Typer(
    name="memcli",
    help=(
        "A memory layer that says what the facts add up to: ingest status updates, "
        "analyze them, read evidence-linked observations."
    ),
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    add_completion=False,
    rich_markup_mode=None,
)

F = TypeVar("F", bound=Callable[..., Any])


class State:
    db: str | None = None


state = State()


# Characters a terminal acts on instead of showing: C0 controls but tab and newline (ESC
# starts CSI/OSC sequences: clear screen, hyperlinks, window titles), DEL, the C1 range,
# and the bidirectional overrides that reorder what is shown.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _picture(m: re.Match[str]) -> str:
    code = ord(m.group())
    if code < 0x20:
        return chr(0x2400 + code)  # the Unicode control picture: ESC shows as "\u241b"
    return "\u2421" if code == 0x7F else "\ufffd"


def safe_text(text: str) -> str:
    """``text`` with every control character replaced by a visible stand-in of the same
    width, so stored text (written by anyone) cannot drive the terminal showing it.

    Display only: the database keeps the text as written, and --json output escapes it.
    """
    return _UNSAFE.sub(_picture, text) if _UNSAFE.search(text) else text


class SafeConsole(Console):
    """A rich Console that neutralises control characters in everything it prints.

    Every string, Text, table cell and panel title becomes segments in :meth:`render`,
    so this is the one place all human-readable output passes; rich's own styling is
    not in the segment text and is kept.
    """

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control is None and _UNSAFE.search(segment.text):
                yield Segment(safe_text(segment.text), segment.style)
            else:
                yield segment


def err_console() -> Console:
    return SafeConsole(stderr=True, highlight=False, soft_wrap=True)


def out_console() -> Console:
    """stdout for people; when piped, wide enough that evidence lines are not folded."""
    console = SafeConsole(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = SafeConsole(highlight=False, soft_wrap=False, width=120)
    return console


def write_out(text: str) -> None:
    """Write prepared text (Markdown, Mermaid, DOT) to stdout for a person or a pipe,
    control characters neutralised as on the consoles."""
    sys.stdout.write(safe_text(text))
    sys.stdout.flush()


def open_store(*, create: bool = True) -> Store:
    return Store(resolve_db_path(state.db), create=create)


def print_json(data: Any) -> None:
    """Stable JSON on stdout; nothing else ever goes there in --json mode."""
    # Indented for a person at a terminal; compact (C encoder, 3x faster) for programs.
    indent = 2 if sys.stdout.isatty() else None
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=indent, default=str) + "\n")
    sys.stdout.flush()


def fail(exc: MemcliError) -> typer.Exit:
    console = err_console()
    console.print(f"Error: {exc.message}", markup=False)
    if exc.hint:
        console.print(f"Hint: {exc.hint}", markup=False)
    return typer.Exit(code=exc.exit_code)


def command(*args: Any, on: typer.Typer | None = None, **kwargs: Any) -> Callable[[F], F]:
    """``app.command`` that maps memcli errors (and SQLite lock time-outs) to exit codes."""

    def decorator(func: F) -> F:
        @functools.wraps(func)
        def wrapper(*a: Any, **kw: Any) -> Any:
            try:
                return func(*a, **kw)
            except MemcliError as exc:
                if os.environ.get("MEMCLI_DEBUG"):
                    raise
                raise fail(exc) from None
            except sqlite3.DatabaseError as exc:
                if os.environ.get("MEMCLI_DEBUG"):
                    raise
                hint = (
                    "another memcli process held the database too long; retry, or raise "
                    "MEMCLI_BUSY_TIMEOUT (seconds)"
                    if "locked" in str(exc)
                    else "run 'memcli doctor' to check the database and see how to repair it"
                )
                raise fail(StoreError(f"database error: {exc}", hint=hint)) from None

        (on or app).command(*args, **kwargs)(wrapper)
        return func

    return decorator


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memcli {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    db: Annotated[
        Path | None,
        typer.Option(
            "--db",
            help="SQLite database file (default: $MEMCLI_DB, else a per-user data file).",
            envvar="MEMCLI_DB",
            show_envvar=False,
        ),
    ] = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", help="Show the version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """memcli: status updates in, evidence-linked observations out. Offline by default."""
    state.db = str(db) if db else None


def parse_when(value: str | None, option: str) -> str | None:
    """A user-given date or datetime as stored (UTC ISO); a bad one is a usage error."""
    if value is None:
        return None
    from memcli.errors import InputError
    from memcli.readers import to_utc

    try:
        return to_utc(value, source=option)
    except InputError as exc:
        raise typer.BadParameter(exc.reason, param_hint=option) from None


# The largest integer SQLite stores: a larger --limit or id is a usage error, not a crash.
SQL_INT_MAX = 2**63 - 1
# The largest byte count a read can be asked for (one more than it must fit in a ssize_t).
MAX_BYTES_LIMIT = 2**62


def graph_name(value: str | None) -> str | None:
    """--graph callback: a blank name is a mistake (it used to mean 'default' silently)."""
    if value is not None and not value.strip():
        raise typer.BadParameter("empty graph name", param_hint="--graph")
    return value


JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for programs and agents.")]
GraphOpt = Annotated[
    str, typer.Option("--graph", "-g", help="Graph (project) to use.", callback=graph_name)
]
