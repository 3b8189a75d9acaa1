"""A Slack workspace export (the unzipped folder). Pure: the files arrive already read.

The folder holds ``users.json``, ``channels.json`` and one folder per channel of daily
``YYYY-MM-DD.json`` arrays of messages (``memcli.sources.slack_export`` reads them in that
order). Each person's message, thread replies included, is an episode by the sender's
display name (``profile.display_name``, else ``real_name``, else ``name``) at its ``ts``,
for the reader. Bot posts (``bot_id``, subtype ``bot_message``) and system messages
(joins, leaves, topic and purpose changes, pins, ...) are skipped. Mentions ``<@U123>``
become display names, ``<#C123|name>`` becomes ``#name``, links keep their label.
"""

from __future__ import annotations

import html
import os
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from typing import Any

from memcli.connectors import Batch, RecordError, need, opt_str, parse_json
from memcli.errors import InputError
from memcli.models import EpisodeInput
from memcli.sources import SourceText

# Subtypes a person writes; every other subtype is Slack talking (joins, topics, pins).
KEEP_SUBTYPES = frozenset({"thread_broadcast", "file_share", "me_message"})
_MARKUP = re.compile(r"<([^<>]*)>")


def display_name(user: dict[str, Any]) -> str | None:
    """The name Slack shows for a user: display name, else real name, else handle."""
    return (
        opt_str(user, "profile", "display_name")
        or opt_str(user, "profile", "real_name")
        or opt_str(user, "real_name")
        or opt_str(user, "name")
    )


def user_names(data: Any, source: str) -> dict[str, str]:
    """User id -> display name, from ``users.json``."""
    if not isinstance(data, list):
        raise InputError(source, f"expected a JSON array of users, not {type(data).__name__}")
    names = {}
    for user in data:
        if isinstance(user, dict) and isinstance(user.get("id"), str):
            names[user["id"]] = display_name(user) or user["id"]
    return names


def channel_names(data: Any, source: str) -> list[str]:
    """Channel names, from ``channels.json``."""
    if not isinstance(data, list):
        raise InputError(source, f"expected a JSON array of channels, not {type(data).__name__}")
    return sorted(c["name"] for c in data if isinstance(c, dict) and isinstance(c.get("name"), str))


def plain(text: str, users: dict[str, str]) -> str:
    """Slack markup as a person reads it: names for mentions, labels for links.

    >>> plain("blocked on <@U1> &amp; <#C9|ops>, see <https://x.test/1|the ticket>", {"U1": "Mara"})
    'blocked on Mara & #ops, see the ticket'
    """

    def one(m: re.Match[str]) -> str:
        inner = m[1]
        target, _, label = inner.partition("|")
        if target.startswith("@"):
            return users.get(target[1:]) or label or target[1:]
        if target.startswith("#"):
            return "#" + (label or target[1:])
        if target.startswith("!"):
            if label:
                return label
            return "@" + target[1:].split("^")[0]
        return label or target

    return html.unescape(_MARKUP.sub(one, text))


def ts_time(ts: Any) -> str:
    """A message ``ts`` ("1741080000.123400", Unix seconds) as UTC ISO 8601."""
    try:
        seconds = float(ts)
        when = datetime.fromtimestamp(seconds, UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        raise RecordError(f"'ts' {ts!r} is not a Slack timestamp") from None
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def convert_day(data: Any, source: str, users: dict[str, str]) -> Batch:
    """The episodes of one channel's day file."""
    if not isinstance(data, list):
        raise InputError(source, f"expected a JSON array of messages, not {type(data).__name__}")
    batch = Batch(source)
    for i, message in enumerate(data):
        label = f"messages[{i}]"
        try:
            episode = _message(message, source, users)
        except RecordError as exc:
            batch.errors.append(InputError(f"{source}: {label}", str(exc)))
            continue
        if episode is not None:
            batch.records.append((label, [episode]))
    return batch


def _message(message: Any, source: str, users: dict[str, str]) -> EpisodeInput | None:
    if not isinstance(message, dict):
        raise RecordError(f"expected a message object, not {type(message).__name__}")
    subtype = message.get("subtype")
    if subtype is not None and subtype not in KEEP_SUBTYPES:
        return None
    if message.get("bot_id") or message.get("type", "message") != "message":
        return None
    ts = message.get("ts")
    if not isinstance(ts, str | int | float) or isinstance(ts, bool):
        need(message, "ts")  # says missing; a wrong type is said below
        raise RecordError(f"'ts' must be a string like \"1741080000.123400\", not {ts!r}")
    when = ts_time(ts)
    text = plain(str(message.get("text") or ""), users).strip()
    if not text:
        return None
    user = need(message, "user")
    author = users.get(user) or display_name({"profile": message.get("user_profile")}) or user
    return EpisodeInput(
        content=text,
        author=author,
        occurred_at=when,
        graph=None,
        source=source,
        format="slack",
    )


def batches(items: Iterable[SourceText | InputError]) -> Iterator[Batch | InputError]:
    """Convert the files of one or more exports, in the order ``slack_export`` reads them:
    each export's ``users.json`` and ``channels.json`` before its day files."""
    users: dict[str, str] = {}
    for item in items:
        if isinstance(item, InputError):
            yield item
            continue
        name = os.path.basename(item.source)
        try:
            data = parse_json(item)
            if name == "users.json":
                users = user_names(data, item.source)
            elif name == "channels.json":
                channel_names(data, item.source)  # only checked: the folders are the channels
            else:
                yield convert_day(data, item.source, users)
        except InputError as exc:
            yield exc
