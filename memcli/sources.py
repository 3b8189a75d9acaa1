"""Read inputs from disk or stdin. The only module of the ingest path that does file I/O.

Each input becomes a :class:`SourceText` or an :class:`InputError` with the path and a
reason a person can act on; one bad file never stops the others.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import BinaryIO

from memcli.errors import InputError

SUFFIXES = (".md", ".markdown", ".txt", ".json", ".jsonl", ".ndjson")
DEFAULT_MAX_BYTES = 10 * 1024 * 1024


def max_bytes() -> int:
    """Largest input accepted (``MEMCLI_MAX_FILE_BYTES``); a status update is small."""
    try:
        return max(0, int(os.environ.get("MEMCLI_MAX_FILE_BYTES", DEFAULT_MAX_BYTES)))
    except ValueError:
        return DEFAULT_MAX_BYTES


@dataclass(frozen=True, slots=True)
class SourceText:
    source: str  # the path as given (or "-" for stdin)
    text: str
    default_time: str  # the file's modification time, used when the update has no date


def decode(data: bytes, source: str) -> str:
    # UTF-32's little-endian mark starts with UTF-16's, so it is checked first.
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        raise InputError(source, "UTF-32 text (byte order mark); re-save the file as UTF-8")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise InputError(source, "UTF-16 text (byte order mark); re-save the file as UTF-8")
    if b"\x00" in data[:8192]:
        raise InputError(source, "binary file (contains NUL bytes), not a status update")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(
            source, f"not valid UTF-8 (byte {exc.start}); re-save the file as UTF-8"
        ) from None
    if not text.strip():
        raise InputError(source, "empty file")
    return text


def _mtime(path: Path) -> str:
    return datetime.fromtimestamp(path.stat().st_mtime, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _too_big(source: str, size: str, limit: int) -> InputError:
    return InputError(
        source,
        f"file is {size} bytes, over the {limit:,} byte limit"
        " (raise it with --max-bytes or MEMCLI_MAX_FILE_BYTES)",
    )


def read_capped(fh: BinaryIO, limit: int, chunk: int = 1 << 20) -> bytes:
    """At most ``limit`` + 1 bytes from ``fh``, read in chunks: a huge ``--max-bytes``
    must not make Python allocate a buffer of that size up front (a MemoryError), and
    one byte past the limit is enough to know the input is too big."""
    parts: list[bytes] = []
    left = limit + 1
    while left > 0:
        part = fh.read(min(chunk, left))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def read_path(path: Path, source: str, limit: int | None = None) -> SourceText:
    """One input file. Reads at most ``limit`` + 1 bytes, so a pipe, a device or a file
    that grows while it is read cannot exhaust memory."""
    limit = max_bytes() if limit is None else limit
    try:
        if not path.is_file():
            # Opening a FIFO waits for a writer, possibly forever; stdin is the way in.
            raise InputError(
                source, "not a regular file (a FIFO, socket or device); pipe it to '-' instead"
            )
        size = path.stat().st_size
        if size > limit:
            raise _too_big(source, f"{size:,}", limit)
        with path.open("rb") as fh:
            data = read_capped(fh, limit)
        mtime = _mtime(path)
    except PermissionError:
        raise InputError(source, "permission denied") from None
    except OSError as exc:
        raise InputError(source, exc.strerror or str(exc)) from None
    if len(data) > limit:
        raise _too_big(source, "more than " + f"{limit:,}", limit)
    return SourceText(source, decode(data, source), mtime)


def walk(root: Path) -> tuple[list[Path], list[InputError]]:
    """Update files under ``root`` (sorted), and what could not be looked at: a
    subdirectory that cannot be read, a dangling or looping symbolic link with an update
    file's name. Each is reported rather than skipped in silence. Symbolic links to
    directories are not followed (as before: no walking out of the tree or in circles)."""
    found: list[Path] = []
    problems: list[InputError] = []

    def unreadable(exc: OSError) -> None:
        where = str(exc.filename or root)
        reason = "permission denied" if isinstance(exc, PermissionError) else exc.strerror
        problems.append(InputError(where, f"directory not read: {reason or exc}"))

    for folder, dirs, files in os.walk(root, onerror=unreadable):
        dirs.sort()
        for name in files:
            p = Path(folder) / name
            if p.suffix.lower() not in SUFFIXES:
                continue
            if p.is_symlink():
                try:
                    p.stat()
                except OSError as exc:
                    loop = exc.errno == errno.ELOOP
                    reason = "symbolic link loop" if loop else "dangling symbolic link"
                    problems.append(InputError(str(p), f"{reason} (-> {os.readlink(p)})"))
                    continue
            if p.is_file():
                found.append(p)
    return sorted(found), sorted(problems, key=lambda e: e.source)


def expand(paths: list[str], *, limit: int | None = None) -> Iterator[SourceText | InputError]:
    """Files, directories (walked for update files, sorted) and '-' for stdin.

    ``limit`` is the largest input accepted in bytes (default: ``max_bytes()``).
    """
    limit = max_bytes() if limit is None else limit
    for raw in paths:
        if raw == "-":
            data = (
                read_capped(sys.stdin.buffer, limit)
                if hasattr(sys.stdin, "buffer")
                else sys.stdin.read(limit + 1).encode()
            )
            now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            try:
                if len(data) > limit:
                    raise _too_big("<stdin>", "more than " + f"{limit:,}", limit)
                yield SourceText("-", decode(data, "<stdin>"), now)
            except InputError as exc:
                yield exc
            continue
        path = Path(raw)
        if not path.exists():
            hint = " (a glob that matched nothing?)" if any(c in raw for c in "*?[") else ""
            yield InputError(raw, f"no such file{hint}")
            continue
        if path.is_dir():
            found, problems = walk(path)
            yield from problems
            # An empty inbox is nothing to do, not a failure: a cron job that ingests a
            # directory before the first update arrives must stay silent (exit 0).
            for p in found:
                try:
                    yield read_path(p, str(p), limit)
                except InputError as exc:
                    yield exc
            continue
        try:
            yield read_path(path, raw, limit)
        except InputError as exc:
            yield exc


_DAY_FILE = re.compile(r"^\d{4}-\d{2}-\d{2}\.json$")


def slack_export(
    paths: list[str], *, channels: list[str] | None = None, limit: int | None = None
) -> Iterator[SourceText | InputError]:
    """The files of unzipped Slack workspace exports, in the order a reader needs them:
    ``users.json`` and ``channels.json`` first, then each channel folder's day files
    (``YYYY-MM-DD.json``), channels and days sorted. ``channels`` keeps only those
    channel folders."""
    wanted = None if channels is None else {c.lstrip("#") for c in channels}
    for raw in paths:
        root = Path(raw)
        if not root.is_dir():
            reason = "no such directory" if not root.exists() else "not a directory"
            yield InputError(raw, f"{reason}: give the unzipped export folder")
            continue
        if not (root / "channels.json").is_file():
            yield InputError(raw, "no channels.json: not a Slack workspace export folder")
            continue
        for name in ("users.json", "channels.json"):
            try:
                yield read_path(root / name, str(root / name), limit)
            except InputError as exc:
                yield exc
        try:
            folders = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError as exc:
            yield InputError(raw, exc.strerror or str(exc))
            continue
        missing = sorted((wanted or set()) - {f.name for f in folders})
        if missing:  # a folder per channel, public or private, named after it
            yield InputError(
                raw,
                f"no channel named {', '.join(missing)} "
                f"(channels: {', '.join(f.name for f in folders)})",
            )
        for folder in folders:
            if wanted is not None and folder.name not in wanted:
                continue
            for day in sorted(p for p in folder.iterdir() if _DAY_FILE.match(p.name)):
                try:
                    yield read_path(day, str(day), limit)
                except InputError as exc:
                    yield exc


def move_stored(
    paths: list[str], read: list[str], failed: set[str], stop: str | None, dest: Path
) -> list[tuple[str, Path]]:
    """Move each input file that was stored into ``dest`` (``ingest --move-to``), so the
    next run does not read it again. Returns (source, new path) pairs.

    ``read`` is every source in the order it was read, ``failed`` the sources with an
    error (a file with one bad record stays, to be fixed and read again), ``stop`` the
    source at which a lock time-out ended the batch (it and what follows stay). A file
    from a directory argument keeps its path below that directory; a name already taken
    in ``dest`` gets a numbered suffix (``update.1.md``), so nothing is overwritten.
    """
    roots = [Path(p) for p in paths if p != "-" and Path(p).is_dir()]
    moved: list[tuple[str, Path]] = []
    for source in read:
        if source == stop:
            break
        if source == "-" or source in failed or any(f.startswith(source + ":") for f in failed):
            continue
        path = Path(source)
        if not path.is_file():
            continue
        rel = Path(path.name)
        for root in roots:
            if path.is_relative_to(root):
                rel = path.relative_to(root)
                break
        target = dest / rel
        n = 0
        while target.exists():
            n += 1
            target = (dest / rel).with_name(f"{rel.stem}.{n}{rel.suffix}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(str(path), str(target))
        moved.append((source, target))
    return moved
