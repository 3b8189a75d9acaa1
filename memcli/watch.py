"""``memcli watch``: ingest update files as they land in a folder, analyze once it settles.

For people who would rather not write cron: one foreground process (or a systemd/launchd
service) that polls the inbox with :func:`os.scandir`, ingests each new or changed update
file once, and analyzes the graphs it touched when no new file has arrived for the settle
time, as a batch of updates is best analyzed after it has landed.

What was ingested is remembered by path, size and modification time, so a file is read
once, not on every poll; a file is taken only when two polls in a row see the same size
and time (not while it is still being written). Polling needs no dependency and works the
same on every system and file system (network shares included).

Stopping is cooperative: :meth:`Watcher.run` returns at the next step after ``stop`` is
set (the CLI sets it on SIGINT/SIGTERM), so a file's transaction is never cut short.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from memcli import api
from memcli.errors import UsageError
from memcli.sources import SUFFIXES, expand
from memcli.store import Store

Signature = tuple[int, int]  # (size in bytes, modification time in ns)


def update_files(inbox: Path) -> Iterator[tuple[str, Signature]]:
    """Every update file under ``inbox`` with its size and time. Hidden files and folders
    (editors' and sync tools' temporaries) are left alone, as are other suffixes; a file
    or folder that vanishes mid-scan is skipped (it is seen, or not, next time)."""
    try:
        entries = list(os.scandir(inbox))
    except FileNotFoundError:
        return
    for entry in sorted(entries, key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        try:
            if entry.is_dir(follow_symlinks=False):
                yield from update_files(Path(entry.path))
            elif entry.is_file() and Path(entry.name).suffix.lower() in SUFFIXES:
                st = entry.stat()
                yield entry.path, (st.st_size, st.st_mtime_ns)
        except OSError:
            continue


@dataclass
class Watcher:
    """One inbox feeding one database.

    ``log`` gets one line per action (the CLI writes them to stderr); ``clock`` is
    seconds on a monotonic clock (a parameter so the logic is plain data in, data out).
    """

    store: Store
    inbox: Path
    graph: str | None = None
    settle: float = 300.0
    log: Callable[[str], None] = print
    clock: Callable[[], float] = time.monotonic
    ingested: dict[str, Signature] = field(default_factory=dict)  # what was read, as read
    pending: dict[str, Signature] = field(default_factory=dict)  # seen once, not yet steady
    dirty: set[str] = field(default_factory=set)  # graphs ingested into since last analyze
    last_new: float | None = None  # clock() when a file last brought something new
    failures: int = 0

    def __post_init__(self) -> None:
        if not self.inbox.is_dir():
            raise UsageError(
                f"{self.inbox} is not a folder",
                hint="create it (mkdir -p) or name the folder updates are dropped into",
            )

    def due(self, *, steady: bool = True) -> list[str]:
        """Files to ingest now: new or changed since they were read, and (``steady``) the
        same size and time as on the previous poll."""
        ready: list[str] = []
        seen: dict[str, Signature] = {}  # changed or new, ready or not
        for path, sig in update_files(self.inbox):
            if self.ingested.get(path) == sig:
                continue
            seen[path] = sig
            if not steady or self.pending.get(path) == sig:
                ready.append(path)
        taken = set(ready)
        self.pending = {p: s for p, s in seen.items() if p not in taken}
        return ready

    def ingest(self, paths: list[str], stop: threading.Event | None = None) -> None:
        """Ingest ``paths`` one file (one transaction) at a time, logging each; stops
        between files once ``stop`` is set."""
        for path in paths:
            if stop is not None and stop.is_set():
                return
            try:
                st = os.stat(path)
            except OSError:
                continue  # gone since the scan
            report = api.ingest(self.store, expand([path]), graph=self.graph)
            if report.incomplete is not None:  # another writer held the lock too long
                self.log(f"database busy: {path} not stored yet; trying again next time")
                return
            self.ingested[path] = (st.st_size, st.st_mtime_ns)
            for source, reason in report.errors:
                self.failures += 1
                self.log(f"error: {source}: {reason}")
            if report.errors:
                continue
            self.log(
                f"ingested {path}: {report.episodes_new} new episode(s), "
                f"{report.episodes_duplicate} duplicate, {report.facts_new} facts"
            )
            if report.episodes_new or report.facts_ended:
                self.dirty.update(report.graphs)
                self.last_new = self.clock()

    def settled(self) -> bool:
        """Something new was ingested and nothing newer for ``settle`` seconds."""
        return (
            bool(self.dirty)
            and self.last_new is not None
            and self.clock() - self.last_new >= self.settle
        )

    def analyze(self) -> None:
        """Analyze every graph ingested into since the last analyze, logging each."""
        for graph in sorted(self.dirty):
            try:
                r = api.analyze(self.store, graph)
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                self.log(f"database busy: {graph} not analyzed yet; trying again next time")
                return
            self.dirty.discard(graph)
            if r.skipped:
                self.log(f"analyzed {graph}: {r.reason}")
            else:
                self.log(
                    f"analyzed {graph}: observations {len(r.created)} new, "
                    f"{len(r.updated)} updated, {len(r.retired)} retired, "
                    f"{len(r.unchanged)} unchanged"
                )

    def once(self) -> None:
        """One pass: ingest every update file not read yet, then analyze what it touched."""
        self.ingest(self.due(steady=False))
        if self.dirty:
            self.analyze()

    def run(self, stop: threading.Event, interval: float) -> None:
        """Poll every ``interval`` seconds until ``stop`` is set."""
        while not stop.is_set():
            self.ingest(self.due(), stop)
            if not stop.is_set() and self.settled():
                self.analyze()
            stop.wait(interval)
