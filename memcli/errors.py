"""Errors a user can act on.

Library code raises these; the CLI edge turns them into a message on stderr and an exit
code, so no traceback reaches a person or a cron mail unless MEMCLI_DEBUG is set.
"""

from __future__ import annotations


class MemcliError(Exception):
    """Base class: ``message`` says what went wrong, ``hint`` what to do about it."""

    exit_code = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(MemcliError):
    """The command was called wrongly (exit 2, like any usage error)."""

    exit_code = 2


class NotFound(MemcliError):
    """A graph, entity or observation the user named does not exist."""


class InputError(MemcliError):
    """One input file or record could not be read; the batch carries on without it."""

    def __init__(self, source: str, reason: str) -> None:
        super().__init__(f"{source}: {reason}")
        self.source = source
        self.reason = reason


class StoreError(MemcliError):
    """The database could not be opened or is not a memcli database."""


class BackendUnavailable(MemcliError):
    """A configured language model could not be reached or used."""
