"""Connectors: turn the exports trackers and chats already write into memcli episodes.

Each connector is pure: parsed JSON (and the file's name, for messages) in, a
:class:`Batch` of :class:`~memcli.models.EpisodeInput` records out. Nothing here reads
files or touches the store: ``memcli.sources`` reads, ``memcli.api.ingest_records``
stores (one transaction per file, one savepoint per record, redaction on every write).

Episodes are designed so that re-importing an unchanged export adds nothing (an episode's
identity is its content, author and time): a tracker item's own structure (title, owners,
links) is one episode at its creation time, its resolution another at its resolution
time, its text and each comment one more at theirs. A newer export therefore adds only
what changed: new comments, new links, and an item closed since (a ``completed`` fact at
the real closing time, which ends every wait on it).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from memcli.errors import InputError
from memcli.models import EntityRef, EntityType, EpisodeInput, ExtractedFact, Relation
from memcli.readers import to_utc
from memcli.sources import SourceText

FORMATS = ("github", "jira", "slack")


@dataclass
class Batch:
    """What one export file holds: its records' episodes, and the records it could not read.

    ``records`` are (label, episodes) pairs, the label naming the record in the file
    ("issues[3]"): a record's episodes are stored together or not at all.
    """

    source: str
    records: list[tuple[str, list[EpisodeInput]]] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)


class RecordError(Exception):
    """One record of an export cannot be read; the message says why."""


def parse_json(item: SourceText) -> Any:
    """The parsed JSON of one export file, or an InputError naming the line and column."""
    try:
        return json.loads(item.text)
    except json.JSONDecodeError as exc:
        raise InputError(
            item.source, f"not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}"
        ) from None


def need(record: Any, key: str, kind: type | tuple[type, ...] = str) -> Any:
    """``record[key]``, which must be present, not null and of type ``kind``."""
    if not isinstance(record, dict):
        raise RecordError(f"expected an object, not {type(record).__name__}")
    if key not in record or record[key] is None:
        raise RecordError(f"missing key {key!r}")
    value = record[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise RecordError(f"{key!r} must be {names}, not {type(value).__name__}")
    if isinstance(value, str) and not value.strip():
        raise RecordError(f"{key!r} is empty")
    return value


def opt(record: dict[str, Any], *path: str) -> Any:
    """A nested value or None: ``opt(issue, "author", "login")``."""
    value: Any = record
    for key in path:
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def opt_str(record: dict[str, Any], *path: str) -> str | None:
    value = opt(record, *path)
    if isinstance(value, str) and value.strip():
        return value.strip()
    return None


def time_of(value: Any, key: str) -> str:
    """A tracker time as memcli's UTC ISO 8601; RecordError naming the key otherwise."""
    try:
        return to_utc(value, source="", field=key)
    except InputError as exc:
        raise RecordError(exc.reason) from None


def items_of(value: Any, key: str) -> list[Any]:
    """A list field that may also come as a GraphQL connection ``{"nodes": [...]}``."""
    if value is None:
        return []
    if isinstance(value, dict) and isinstance(value.get("nodes"), list):
        return list(value["nodes"])
    if isinstance(value, list):
        return value
    raise RecordError(f"{key!r} must be a list, not {type(value).__name__}")


def person(name: str) -> EntityRef:
    return EntityRef(name, EntityType.PERSON)


def work_item(name: str) -> EntityRef:
    return EntityRef(name, EntityType.WORK_ITEM)


def fact(source: EntityRef, relation: Relation, target: EntityRef, sentence: str) -> ExtractedFact:
    """A fact the export states outright (it takes its episode's time)."""
    return ExtractedFact(source, relation, target, sentence)


def link_lines_and_facts(
    key: str, links: Iterable[tuple[str, str]], created: str, closed_at: dict[str, str]
) -> tuple[list[str], list[ExtractedFact]]:
    """A tracker item's dependency links as text lines ("Blocked by: ...", "Blocks: ...")
    and ``blocked_by`` facts, shared by every tracker connector. A link whose blocker had
    already closed when the item was created never held, so it gives no wait."""
    pairs = sorted(links)
    lines = []
    waits = sorted(b for a, b in pairs if a == key)
    blocks = sorted(a for a, b in pairs if b == key)
    if waits:
        lines.append("Blocked by: " + ", ".join(waits))
    if blocks:
        lines.append("Blocks: " + ", ".join(blocks))
    facts = [
        fact(
            work_item(blocked),
            Relation.BLOCKED_BY,
            work_item(blocker),
            f"{blocked} is blocked by {blocker}",
        )
        for blocked, blocker in pairs
        if not (closed_at.get(blocker) is not None and closed_at[blocker] <= created)
    ]
    return lines, facts


def batches(
    fmt: str,
    items: Iterable[SourceText | InputError],
    *,
    repo: str | None = None,
    dependency_links: Iterable[str] | None = None,
) -> Iterator[Batch | InputError]:
    """Convert read export files of format ``fmt``; a file that cannot be read at all is
    passed on as its InputError, so the batch carries on without it. (Slack channels are
    chosen when ``memcli.sources.slack_export`` reads the folder.)"""
    if fmt == "slack":
        from memcli.connectors import slack

        yield from slack.batches(items)  # channels were chosen when the folder was read
        return
    if fmt == "github":
        from memcli.connectors import github

        for item in items:
            if isinstance(item, InputError):
                yield item
                continue
            try:
                yield github.convert(parse_json(item), item.source, repo=repo)
            except InputError as exc:
                yield exc
        return
    if fmt == "jira":
        from memcli.connectors import jira

        links = jira.DEPENDENCY_LINKS if dependency_links is None else tuple(dependency_links)
        for item in items:
            if isinstance(item, InputError):
                yield item
                continue
            try:
                yield jira.convert(parse_json(item), item.source, dependency_links=links)
            except InputError as exc:
                yield exc
        return
    raise ValueError(f"unknown connector format {fmt!r}")
