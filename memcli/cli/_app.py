"""The typer application, global options, and the error edge.

Library code raises :class:`memcli.errors.MemcliError`; :func:`command` turns it into a
message on stderr and an exit code, so a person or a cron mail never sees a traceback
(set ``MEMCLI_DEBUG=1`` for one). Commands are registered in :mod:`memcli.cli`, not here.

Start-up matters (every agent call starts a process): rich, sqlite-utils and pydantic are
imported inside the functions that use them, never at module level.
"""

from __future__ import annotations

import functools
import inspect
import os
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar, get_type_hints

import typer

from memcli import __version__
from memcli.cli._options import DbOpt
from memcli.cli._output import print_json as print_json
from memcli.config import resolve_db_path
from memcli.errors import MemcliError, StoreError

if TYPE_CHECKING:
    from rich.console import Console

    from memcli.store import Store


def new_app() -> typer.Typer:
    """The root application with its global options and no commands yet (see
    :func:`memcli.cli.register`). A fresh one each call: the CLI builds one per run with
    only the commands that run needs."""
    app = typer.Typer(
        name="memcli",
        help=(
            "A memory layer that says what the facts add up to: ingest status updates, "
            "analyze them, read evidence-linked observations."
        ),
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        add_completion=True,
        rich_markup_mode=None,
    )
    app.callback()(root)
    return app


F = TypeVar("F", bound=Callable[..., Any])


class State:
    db: str | None = None
    quiet: bool = False  # --quiet: nothing on stderr unless something went wrong


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


_safe_console: type[Console] | None = None


def _console_class() -> type[Console]:
    """A rich Console that neutralises control characters in everything it prints.

    Every string, Text, table cell and panel title becomes segments in ``render``, so
    this is the one place all human-readable output passes; rich's own styling is not in
    the segment text and is kept. Built on first use: rich costs start-up time.
    """
    global _safe_console
    if _safe_console is None:
        from rich.console import Console, ConsoleOptions, RenderableType
        from rich.segment import Segment

        class SafeConsole(Console):
            def render(
                self, renderable: RenderableType, options: ConsoleOptions | None = None
            ) -> Iterable[Segment]:
                for segment in super().render(renderable, options):
                    if segment.control is None and _UNSAFE.search(segment.text):
                        yield Segment(safe_text(segment.text), segment.style)
                    else:
                        yield segment

        _safe_console = SafeConsole
    return _safe_console


def err_console(*, always: bool = False) -> Console:
    """stderr for people. Under --quiet it prints nothing (a cron job that went well
    mails nothing); ``always`` is for errors and warnings, which print regardless."""
    quiet = state.quiet and not always
    return _console_class()(stderr=True, highlight=False, soft_wrap=True, quiet=quiet)


def out_console() -> Console:
    """stdout for people; when piped, wide enough that evidence lines are not folded."""
    safe_console = _console_class()
    console = safe_console(highlight=False, soft_wrap=False)
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = safe_console(highlight=False, soft_wrap=False, width=120)
    return console


def note(message: str) -> None:
    """One plain line for a person on stderr (a notice beside --json output), written
    without rich so the machine-readable commands do not pay for loading it. Silent
    under --quiet."""
    if state.quiet:
        return
    sys.stderr.write(safe_text(message) + "\n")
    sys.stderr.flush()


def write_out(text: str) -> None:
    """Write prepared text (Markdown, Mermaid, DOT) to stdout for a person or a pipe,
    control characters neutralised as on the consoles."""
    sys.stdout.write(safe_text(text))
    sys.stdout.flush()


def open_store(*, create: bool = True) -> Store:
    from memcli.store import Store

    return Store(resolve_db_path(state.db), create=create)


def fail(exc: MemcliError) -> typer.Exit:
    console = err_console(always=True)
    console.print(f"Error: {exc.message}", markup=False)
    if exc.hint:
        console.print(f"Hint: {exc.hint}", markup=False)
    return typer.Exit(code=exc.exit_code)


def _set_db(value: Path | None) -> Path | None:
    if value:
        state.db = str(value)
    return value


def _set_quiet(value: bool) -> bool:
    if value:
        state.quiet = True
    return value


# Added to every command that does not declare them itself, so `memcli graphs --db x.db`
# works as `memcli --db x.db graphs` does, and every command takes --quiet. No envvar
# here: $MEMCLI_DB is read once, by the root option, and must not override it.
_COMMON: dict[str, tuple[Any, Any]] = {
    "db": (
        Annotated[
            Path | None,
            typer.Option(
                "--db",
                metavar="FILE",
                help="SQLite database file (also accepted before the command).",
                callback=_set_db,
            ),
        ],
        None,
    ),
    "quiet": (
        Annotated[
            bool,
            typer.Option(
                "--quiet",
                "-q",
                help="Nothing on stderr unless something went wrong.",
                callback=_set_quiet,
            ),
        ],
        False,
    ),
}


def with_common_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` (a command) taking also the --db and --quiet options it lacks.

    Called at registration, once every command module is loaded, because the
    signature's annotations (strings under ``from __future__ import annotations``) can
    only be resolved then. A command's own --quiet (print only ids, no summary) silences
    stderr chatter as well."""
    sig = inspect.signature(func)
    hints = get_type_hints(func, include_extras=True)
    params = [
        p.replace(annotation=hints.get(p.name, p.annotation)) for p in sig.parameters.values()
    ]
    added = [name for name in _COMMON if name not in sig.parameters]
    for name in added:
        annotation, default = _COMMON[name]
        params.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation
            )
        )

    @functools.wraps(func)
    def wrapper(*a: Any, **kw: Any) -> Any:
        for name in added:
            kw.pop(name, None)
        if kw.get("quiet") is True:
            state.quiet = True
        return func(*a, **kw)

    wrapper.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    wrapper.__annotations__ = {
        **{p.name: p.annotation for p in params},
        "return": hints.get("return", None),
    }
    return wrapper


def command(func: F) -> F:
    """A command body whose memcli errors (and SQLite lock time-outs) become a message
    on stderr and an exit code. Registration is separate (see :mod:`memcli.cli`)."""

    @functools.wraps(func)
    def wrapper(*a: Any, **kw: Any) -> Any:
        try:
            return func(*a, **kw)
        except MemcliError as exc:
            if os.environ.get("MEMCLI_DEBUG"):
                raise
            raise fail(exc) from None
        except Exception as exc:
            # sqlite3 is not imported at start-up; if no command loaded it, no SQLite
            # error can have been raised.
            sqlite3 = sys.modules.get("sqlite3")
            if sqlite3 is None or not isinstance(exc, sqlite3.DatabaseError):
                raise
            if os.environ.get("MEMCLI_DEBUG"):
                raise
            hint = (
                "another memcli process held the database too long; retry, or raise "
                "MEMCLI_BUSY_TIMEOUT (seconds)"
                if "locked" in str(exc)
                else "run 'memcli doctor' to check the database and see how to repair it"
            )
            raise fail(StoreError(f"database error: {exc}", hint=hint)) from None

    return wrapper  # type: ignore[return-value]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"memcli {__version__}")
        raise typer.Exit()


def root(
    db: DbOpt = None,
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", help="Show the version and exit.", callback=_version, is_eager=True
        ),
    ] = False,
) -> None:
    """memcli: status updates in, evidence-linked observations out. Offline by default."""
    state.db = str(db) if db else None
    state.quiet = False  # set again by a command's --quiet (tests run many in one process)


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


# The largest byte count a read can be asked for (one more than it must fit in a ssize_t).
MAX_BYTES_LIMIT = 2**62
