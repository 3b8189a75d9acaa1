"""Turn the text of one input into episodes. Pure: no files, no database.

Markdown and plain text may open with YAML front matter (``author``, ``date`` or
``datetime`` or ``occurred_at``, ``graph``, ``source``). JSON holds one episode object or a
list of them; JSONL one object a line. A JSON episode may carry its own ``facts``, which
bypass extraction.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from datetime import UTC, date, datetime
from difflib import get_close_matches
from functools import lru_cache
from typing import Any

from memcli.errors import InputError
from memcli.models import (
    RELATION_TYPES,
    EntityRef,
    EntityType,
    EpisodeInput,
    ExtractedFact,
    Relation,
    Release,
)

TIME_KEYS = ("occurred_at", "datetime", "date", "time", "timestamp")
# Keys memcli reads (title and tags are accepted and not used). Any other key is ignored
# with a warning, so a typo such as "auther:" does not silently lose the author.
KNOWN_KEYS = {"author", "graph", "source", "title", "tags", *TIME_KEYS}
JSON_KEYS = KNOWN_KEYS | {"content", "facts", "releases"}


def _unknown(meta: dict[Any, Any], known: set[str]) -> tuple[str, ...]:
    if meta.keys() <= known:  # nearly always: nothing to sort or name
        return ()
    return tuple(sorted(str(k) for k in meta if str(k) not in known))


def unknown_keys_message(keys: Iterable[str]) -> str:
    """The warning for ignored keys, naming the known key each one probably meant."""
    parts = []
    for key in keys:
        close = get_close_matches(key, sorted(JSON_KEYS), n=1)
        parts.append(f"{key!r}" + (f" (did you mean {close[0]!r}?)" if close else ""))
    return f"unknown key(s) ignored: {', '.join(parts)}"


# Dates outside these years are typing mistakes (0026 for 2026), not status updates.
MIN_YEAR, MAX_YEAR = 1900, 2199


def _as_date(value: float) -> str:
    """How to write a date, naming the one an eight-digit YYYYMMDD number probably meant."""
    digits = str(value)
    if isinstance(value, int) and len(digits) == 8:
        try:
            meant = date(int(digits[:4]), int(digits[4:6]), int(digits[6:]))
        except ValueError:
            pass
        else:
            return f"write it as {meant.isoformat()}"
    return "write it as YYYY-MM-DD or an ISO 8601 datetime"


# A time already written as memcli stores it (JSONL exports, generated updates).
_STORED_FORM = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def to_utc(value: Any, *, source: str, field: str = "date") -> str:
    """Normalise a date or datetime (object or ISO string) to 'YYYY-MM-DDTHH:MM:SSZ'.

    >>> to_utc("2026-11-02T09:00:00Z", source="x"), to_utc("2026-11-02T10:00+01:00", source="x")
    ('2026-11-02T09:00:00Z', '2026-11-02T09:00:00Z')
    """
    if type(value) is str and _STORED_FORM.fullmatch(value):
        # Already in the stored form: returned as it is once it is a real time in range
        # (what the general path below would return); otherwise that path says why not.
        try:
            datetime.fromisoformat(value[:-1])
        except ValueError:
            pass
        else:
            if MIN_YEAR <= int(value[:4]) <= MAX_YEAR:
                return value
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, date):
        dt = datetime(value.year, value.month, value.day)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        # A bare number is ambiguous (20261102 is not a Unix timestamp for 1970-08-23):
        # refuse it and say how to write the date.
        raise InputError(source, f"{field} {value!r} is a number, not a date: " + _as_date(value))
    elif isinstance(value, str) and value.strip():
        text = value.strip().replace("Z", "+00:00").replace("z", "+00:00")
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            raise InputError(
                source, f"{field} {value!r} is not an ISO 8601 date or datetime"
            ) from None
    else:
        raise InputError(source, f"{field} {value!r} is not a date")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    try:
        dt = dt.astimezone(UTC)
    except OverflowError:
        raise InputError(source, f"{field} {value!r} is out of range") from None
    if not MIN_YEAR <= dt.year <= MAX_YEAR:
        raise InputError(
            source, f"{field} {value!r} is out of range (years {MIN_YEAR} to {MAX_YEAR})"
        )
    # Zero-padded by hand: strftime("%Y") gives "999", not "0999", on some platforms, and
    # stored times must sort as text.
    return f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T{dt:%H:%M:%S}Z"


def content_hash(content: str, author: str | None, occurred_at: str | None) -> str:
    """Identity of an episode inside a graph: the same update ingested twice is one episode.

    ``occurred_at`` is None for an update that names no time: the time memcli supplies
    for it (file time, now) changes between runs and must not make it a new update.
    """
    return _digest(_canonical_head(content, author), occurred_at)


# The hash is of ``json.dumps([words, author, occurred_at], ensure_ascii=False)``, built
# here from its parts with the encoder's own string escaping (the bytes are the same; a
# doctest holds them equal): the words and author are written once for both keys of a
# dated update, and no encoder object is made per update.
_QUOTE = json.encoder.encode_basestring


def _canonical_head(content: str, author: str | None) -> str:
    return f"[{_QUOTE(' '.join(content.split()))}, {_QUOTE(author or '')}, "


def _digest(head: str, occurred_at: str | None) -> str:
    """>>> _digest(_canonical_head(" a\u2028 b\\", 'O"k'), None) == hashlib.blake2b(
    ...     json.dumps(["a b\\", 'O"k', None], ensure_ascii=False).encode(), digest_size=16
    ... ).hexdigest()
    True
    """
    tail = "null]" if occurred_at is None else f"{_QUOTE(occurred_at)}]"
    return hashlib.blake2b((head + tail).encode(), digest_size=16).hexdigest()


def episode_key(episode: EpisodeInput) -> str:
    """The content hash of an episode as read (see :func:`content_hash`)."""
    return content_hash(
        episode.content, episode.author, episode.occurred_at if episode.dated else None
    )


def episode_keys(episode: EpisodeInput) -> tuple[str, str | None]:
    """(``episode_key``, and for a dated update the key of the same words stored
    without a date), computed together: a dated update also matches its undated copy."""
    head = _canonical_head(episode.content, episode.author)
    if not episode.dated:
        return _digest(head, None), None
    return _digest(head, episode.occurred_at), _digest(head, None)


def _time_from(meta: dict[str, Any], source: str, default: str | None) -> tuple[str, bool]:
    """(time, whether the update wrote it)."""
    for key in TIME_KEYS:
        if meta.get(key) is not None:
            return to_utc(meta[key], source=source, field=key), True
    if default is None:
        raise InputError(source, "no date: add 'date:' to the front matter or 'occurred_at'")
    return default, False


def _optional_str(meta: dict[str, Any], key: str, source: str) -> str | None:
    value = meta.get(key)
    if value is None:
        return None
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        text = str(value).strip()
        return text or None
    raise InputError(source, f"'{key}' must be a string, not {type(value).__name__}")


def _front_matter(text: str, source: str) -> tuple[dict[Any, Any], str]:
    """(metadata, body). Front matter that is not a mapping is an error, not ignored:
    python-frontmatter would drop a YAML list silently, and the author with it."""
    # Imported here: YAML costs start-up time, and only ingest reads front matter.
    import frontmatter
    import yaml

    text = text.strip()
    handler = frontmatter.detect_format(text, frontmatter.handlers)
    if handler is None:
        return {}, text
    try:
        head, body = handler.split(text)
    except ValueError:
        # Stored as text, the author and date would be lost without a word.
        fence = text.split("\n", 1)[0].strip()
        raise InputError(
            source,
            f"malformed front matter: {fence!r} on line 1 is never closed"
            f" (add a {fence!r} line after the last key)",
        ) from None
    try:
        data = handler.load(head)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise InputError(source, f"malformed front matter: {reason}") from None
    if data is None:
        return {}, body.strip()
    if not isinstance(data, dict):
        raise InputError(
            source,
            f"malformed front matter: expected 'key: value' lines, got a {type(data).__name__}",
        )
    return data, body.strip()


def parse_markdown(text: str, source: str, default_time: str | None, fmt: str) -> EpisodeInput:
    """A Markdown or text update, with optional YAML front matter."""
    meta, content = _front_matter(text, source)
    if not content:
        raise InputError(source, "empty update: no text after the front matter")
    occurred_at, dated = _time_from(meta, source, default_time)
    return EpisodeInput(
        content=content,
        author=_optional_str(meta, "author", source),
        occurred_at=occurred_at,
        dated=dated,
        graph=_optional_str(meta, "graph", source),
        source=_optional_str(meta, "source", source) or source,
        format=fmt,
        ignored_keys=_unknown(meta, KNOWN_KEYS),
    )


# Given facts arrive by the ten thousand: look values up in dicts rather than through the
# enum constructors, and build the per-relation defaults once.
_RELATIONS = {r.value: r for r in Relation}
_ENTITY_TYPES = {t.value: t for t in EntityType}
_DEFAULT_TYPES = {
    Relation.BLOCKED_BY: (EntityType.WORK_ITEM, EntityType.WORK_ITEM),
    Relation.OWNS: (EntityType.PERSON, EntityType.WORK_ITEM),
    Relation.COMPLETED: (EntityType.PERSON, EntityType.WORK_ITEM),
    Relation.UNBLOCKED_FROM: (EntityType.WORK_ITEM, EntityType.WORK_ITEM),
}


# Per relation and end: the end's key, its type key, its default type, and the types it
# may have by their written value. Values are looked up as plain strings: an enum
# member's ``value`` and hash are Python-level calls, ~10% of reading a given fact.
_ENDS = {
    relation: tuple(
        (end, f"{end}_type", default, {t.value: t for t in allowed})
        for end, allowed, default in zip(
            ("source", "target"), RELATION_TYPES[relation], _DEFAULT_TYPES[relation], strict=True
        )
    )
    for relation in Relation
}
_UNSET = object()
# Given facts name the same few thousand entities tens of thousands of times: one
# EntityRef per (name, type), shared (it is frozen), instead of one built per mention.
_ref = lru_cache(maxsize=16384)(EntityRef)


def _parse_fact(raw: Any, where: str) -> ExtractedFact:
    if not isinstance(raw, dict):
        raise InputError(where, "each fact must be an object with source, relation, target")
    written = raw.get("relation", "")
    relation = _RELATIONS.get(written) if type(written) is str else None
    if relation is None:
        relation = _RELATIONS.get(str(written).strip().lower())
    if relation is None:
        allowed = ", ".join(r.value for r in Relation)
        raise InputError(where, f"unknown relation {raw.get('relation')!r} (allowed: {allowed})")
    refs = []
    for end, type_key, default_type, allowed_types in _ENDS[relation]:
        name = raw.get(end)
        if not isinstance(name, str) or not (stripped := name.strip()):
            raise InputError(where, f"fact {end} must be a non-empty string")
        type_name = raw.get(type_key, _UNSET)
        if type_name is _UNSET:
            etype = default_type
        else:
            key = str(type_name).strip().lower()
            found = allowed_types.get(key)
            if found is None:
                if key not in _ENTITY_TYPES:
                    raise InputError(where, f"unknown {end}_type {type_name!r}")
                raise InputError(
                    where,
                    f"a {relation.value} fact cannot have a {_ENTITY_TYPES[key].value} as its {end}",
                )
            etype = found
        refs.append(_ref(stripped, etype))
    sentence = raw.get("sentence")
    return ExtractedFact(refs[0], relation, refs[1], sentence if isinstance(sentence, str) else "")


def episode_from_json(
    obj: Any, source: str, default_time: str | None, *, ascii_text: bool = False
) -> EpisodeInput:
    """One JSON episode object. ``ascii_text``: it was parsed from ASCII text with no
    ``\\u`` escape, so it cannot hold a lone surrogate (the check is skipped)."""
    if not isinstance(obj, dict):
        raise InputError(source, "a JSON episode must be an object")
    try:
        if not ascii_text:
            json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start : exc.end].encode("unicode_escape").decode()
        raise InputError(
            source, f"text holds a lone surrogate ({bad}), which is not valid Unicode"
        ) from None
    content = obj.get("content")
    if not isinstance(content, str) or not content.strip():
        if content is None and "merge" in obj:
            raise InputError(
                source,
                "a merge decision (a 'memcli export' line) is read by 'memcli import', "
                "not by ingest: import the file",
            )
        raise InputError(source, "a JSON episode needs a non-empty 'content' string")
    facts = None
    if obj.get("facts") is not None:
        if not isinstance(obj["facts"], list):
            raise InputError(source, "'facts' must be a list")
        facts = [_parse_fact(f, source) for f in obj["facts"]]
    releases: tuple[Release, ...] = ()
    if obj.get("releases") is not None:
        if facts is None:
            raise InputError(source, "'releases' is read only beside a 'facts' list")
        if not isinstance(obj["releases"], list):
            raise InputError(source, "'releases' must be a list")
        releases = tuple(_parse_release(r, source) for r in obj["releases"])
    occurred_at, dated = _time_from(obj, source, default_time)
    return EpisodeInput(
        content=content.strip(),
        author=_optional_str(obj, "author", source),
        occurred_at=occurred_at,
        dated=dated,
        graph=_optional_str(obj, "graph", source),
        source=_optional_str(obj, "source", source) or source,
        format="json",
        facts=facts,
        ignored_keys=_unknown(obj, JSON_KEYS),
        releases=releases,
    )


def _parse_release(raw: Any, where: str) -> Release:
    """One given release ({item, item_type, sentence}, as ``memcli export`` writes it):
    an item said to be unblocked with no blocker named, kept so that a wait imported
    after it is ended by it too."""
    if not isinstance(raw, dict) or not isinstance(raw.get("item"), str) or not raw["item"].strip():
        raise InputError(where, "each release must be an object with a non-empty 'item'")
    type_ = _ENTITY_TYPES.get(raw.get("item_type", "work_item"))
    if type_ is None:
        raise InputError(
            where, f"release item_type must be one of {', '.join(sorted(_ENTITY_TYPES))}"
        )
    sentence = raw.get("sentence")
    return Release(
        EntityRef(raw["item"].strip(), type_), sentence if isinstance(sentence, str) else ""
    )


def parse_json(text: str, source: str, default_time: str | None) -> list[EpisodeInput]:
    """A JSON document: one episode object, or a list of them (all or nothing)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(source, f"invalid JSON at line {exc.lineno}: {exc.msg}") from None
    except RecursionError:
        raise InputError(source, "invalid JSON: nested too deeply") from None
    items = data if isinstance(data, list) else [data]
    return [
        episode_from_json(
            item, f"{source}[{i}]" if isinstance(data, list) else source, default_time
        )
        for i, item in enumerate(items)
    ]


def parse_jsonl(
    text: str, source: str, default_time: str | None
) -> tuple[list[EpisodeInput], list[InputError]]:
    """JSON Lines: a bad line is reported with its number; the other lines still count.

    Lines end at "\n" only: str.splitlines() would also split at U+2028 and other
    separators that JSON allows raw inside a string, cutting a valid record in two.
    """
    episodes: list[EpisodeInput] = []
    errors: list[InputError] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        where = f"{source}:{number}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(InputError(where, f"invalid JSON: {exc.msg}"))
            continue
        except RecursionError:
            errors.append(InputError(where, "invalid JSON: nested too deeply"))
            continue
        try:
            episode = episode_from_json(
                obj, where, default_time, ascii_text=line.isascii() and "\\u" not in line
            )
        except InputError as exc:
            errors.append(exc)
            continue
        episode.line = number
        if episode.source == where:
            episode.source = source
        episodes.append(episode)
    return episodes, errors


def detect_format(name: str, text: str) -> str:
    """'jsonl', 'json', 'markdown' or 'text', by file name, then by a look at the text."""
    lower = name.lower()
    if lower.endswith(".jsonl") or lower.endswith(".ndjson"):
        return "jsonl"
    if lower.endswith(".json"):
        return "json"
    if lower.endswith((".md", ".markdown")):
        return "markdown"
    if lower.endswith(".txt"):
        return "text"
    stripped = text.lstrip()
    if stripped.startswith("{") and "\n{" in stripped.rstrip():
        return "jsonl"
    if stripped.startswith(("{", "[")):
        return "json"
    return "markdown"


def parse_document(
    text: str, source: str, *, default_time: str | None, fmt: str | None = None
) -> tuple[list[EpisodeInput], list[InputError]]:
    """Episodes in one input, plus per-record errors that did not stop the rest."""
    kind = fmt or detect_format(source, text)
    if kind == "jsonl":
        return parse_jsonl(text, source, default_time)
    if kind == "json":
        return parse_json(text, source, default_time), []
    return [parse_markdown(text, source, default_time, kind)], []
