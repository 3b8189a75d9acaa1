"""Errors a user can act on.

Library code raises these; the CLI edge turns them into a message on stderr and an exit
code, so no traceback reaches a person or a cron mail unless MEMCLI_DEBUG is set.

Messages quote the offending value ("date 'ghp_...' is not a date"), and that value may
be a pasted credential, so every message and hint is passed through
:func:`memcli.redact.redact` when the error is made: whichever front end shows it (CLI,
MCP, the Python client, an ingest report), the secret is not repeated.
"""

from __future__ import annotations

from memcli.redact import redact


class MemcliError(Exception):
    """Base class: ``message`` says what went wrong, ``hint`` what to do about it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        message = redact(message)[0]
        super().__init__(message)
        self.message = message
        self.hint = redact(hint)[0] if hint is not None else None


class UsageError(MemcliError):
    """The command was called wrongly (exit 2, like any usage error)."""

    exit_code = 2


class NotFound(MemcliError):
    """A graph, entity or observation the user named does not exist."""


class InputError(MemcliError):
    """One input file or record could not be read; the batch carries on without it."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = redact(source)[0]
        self.reason = redact(reason)[0]


class StoreError(MemcliError):
    """The database could not be opened or is not a memcli database."""


class BackendUnavailable(MemcliError):
    """A configured language model could not be reached or used."""
