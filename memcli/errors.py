"""Errors a user can act on.

Library code raises these; the CLI edge turns them into a message on stderr and an exit
code, so no traceback reaches a person or a cron mail unless MEMCLI_DEBUG is set.

Messages quote the offending value ("date 'ghp_...' is not a date"), and that value may
be a pasted credential, so every message and hint is passed through
:func:`memcli.redact.redact` when the error is made: whichever front end shows it (CLI,
MCP, the Python client, an ingest report), the secret is not repeated.
"""

from __future__ import annotations


def _scrub(text: str) -> str:
    """``text`` through :func:`memcli.redact.redact`, imported when an error is made:
    its patterns cost start-up time that a command which never fails should not pay."""
    from memcli.redact import redact

    return redact(text)[0]


class MemcliError(Exception):
    """Base class: ``message`` says what went wrong, ``hint`` what to do about it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        message = _scrub(message)
        super().__init__(message)
        self.message = message
        self.hint = _scrub(hint) if hint is not None else None


class UsageError(MemcliError):
    """The command was called wrongly (exit 2, like any usage error)."""

    exit_code = 2


class NotFound(MemcliError):
    """A graph, entity or observation the user named does not exist."""


class InputError(MemcliError):
    """One input file or record could not be read; the batch carries on without it."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = _scrub(source)
        self.reason = _scrub(reason)


class StoreError(MemcliError):
    """The database could not be opened or is not a memcli database."""


class BackendUnavailable(MemcliError):
    """A configured language model could not be reached or used."""
