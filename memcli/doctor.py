"""``memcli doctor``: is this database sound, and if not, how to repair it.

Each check reads the database through :class:`memcli.store.Store` (which holds the SQL)
and says in one line what it found and, when something is wrong, what to run. Nothing is
changed: repairs are left to the person, because the right one depends on whether a
backup exists.

Most logical damage (orphaned rows, broken references, facts never extracted) has one
general repair: export each graph and import it into a fresh database. Export reads
only what still joins up, and import rebuilds facts, signatures and contradictions.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from memcli.store import Store

REBUILD = (
    "export each graph and import it into a fresh database: "
    "memcli export --graph G --output G.jsonl; memcli --db NEW.db import G.jsonl; "
    "memcli --db NEW.db analyze"
)


SALVAGE = (
    "the file is damaged: restore a backup, or salvage what SQLite can read: "
    "sqlite3 {0} .recover | sqlite3 recovered.db, then memcli --db recovered.db doctor"
)


@dataclass
class Check:
    """One check: ``ok``, a one-line ``summary``, the rows behind it, how to repair."""

    name: str
    ok: bool
    summary: str
    findings: list[Any] = field(default_factory=list)
    repair: str | None = None


@dataclass
class Diagnosis:
    database: str
    checks: list[Check]

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def as_dict(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "ok": self.ok,
            "checks": [asdict(c) for c in self.checks],
        }


def diagnose(store: Store) -> Diagnosis:
    """Run every check on an open database. A check that cannot run (a damaged page
    under it) is itself a finding, so the other checks still report."""
    checks = []
    for name, run in (
        ("integrity", _integrity),
        ("foreign_keys", _foreign_keys),
        ("fts", _fts),
        ("orphans", _orphans),
        ("extraction", _extraction),
        ("extracted", _extraction_record),
        ("schema", _schema),
        ("reading", _reading),
    ):
        try:
            checks.append(run(store))
        except sqlite3.DatabaseError as exc:
            checks.append(
                Check(name, False, f"could not run: {exc}", repair=SALVAGE.format(store.path))
            )
    checks.append(_permissions(store.path))
    if store.read_only is not None:
        checks.insert(0, _access(store))
    return Diagnosis(str(store.path), checks)


def _access(store: Store) -> Check:
    """A database opened read-only: reads work, writes cannot. Named first, because it
    is the cause of whatever a write would report."""
    return Check(
        "access",
        False,
        f"opened read-only: {store.read_only}; reads work, ingest/import/analyze cannot",
        repair=f"make {store.path} and its directory writable, or copy the file somewhere "
        "writable, before writing to it",
    )


def unopenable(path: Path, reason: str) -> Diagnosis:
    """The diagnosis of a file that cannot even be opened as a memcli database."""
    return Diagnosis(
        str(path),
        [
            Check(
                "open",
                False,
                reason,
                repair=SALVAGE.format(path),
            )
        ],
    )


def _integrity(store: Store) -> Check:
    problems = store.integrity_check()
    if not problems:
        return Check("integrity", True, "PRAGMA integrity_check: ok")
    return Check(
        "integrity",
        False,
        f"PRAGMA integrity_check found {len(problems)} problem(s): {problems[0]}",
        problems,
        repair=SALVAGE.format(store.path) + "; or, while it still opens, " + REBUILD,
    )


def _foreign_keys(store: Store) -> Check:
    broken = store.foreign_key_check()
    if not broken:
        return Check("foreign_keys", True, "PRAGMA foreign_key_check: ok")
    tables = sorted({b["table"] for b in broken})
    return Check(
        "foreign_keys",
        False,
        f"{len(broken)} row(s) reference missing rows (in {', '.join(tables)})",
        broken[:50],
        repair=REBUILD,
    )


def _fts(store: Store) -> Check:
    tables = store.fts_tables()
    if not tables:
        return Check("fts", True, "no full-text tables")
    if store.read_only is not None:
        # SQLite's FTS check is an INSERT: it cannot run on a read-only database.
        return Check("fts", True, f"{len(tables)} full-text table(s) not checked: read-only")
    bad = []
    for table in tables:
        error = store.fts_integrity(table)
        if error is not None:
            bad.append({**table, "error": error})
    if not bad:
        return Check("fts", True, f"{len(tables)} full-text table(s) consistent")
    names = [b["name"] for b in bad]
    return Check(
        "fts",
        False,
        f"full-text index out of step with its content: {', '.join(names)}",
        bad,
        repair="rebuild the index: "
        + "; ".join(
            # SQL for the user to run
            f"sqlite3 {store.path} \"INSERT INTO {n}({n}) VALUES('rebuild')\""
            for n in names
        ),
    )


def _orphans(store: Store) -> Check:
    found = store.orphans()
    if not found:
        return Check("orphans", True, "no orphaned rows")
    return Check(
        "orphans",
        False,
        "; ".join(f"{f['count']} {f['what']}" for f in found),
        found,
        repair=REBUILD,
    )


def _extraction(store: Store) -> Check:
    """Episodes whose extraction did not finish. 'pending' means the language model
    could not be used (its rules facts are stored): 'memcli extract --pending' finishes
    them, no rebuild needed. Any other state is an extraction cut short, which only a
    re-import extracts again."""
    unfinished = store.pending_extractions()
    if not unfinished:
        return Check("extraction", True, "every episode has its facts extracted")
    model = [r for r in unfinished if r["extraction_status"] == "pending"]
    other = [r for r in unfinished if r["extraction_status"] != "pending"]
    advice = []
    if model:
        advice.append(
            f"run 'memcli extract --pending' once the language model is reachable "
            f"({len(model)} episode(s) wait for it; their rules facts are stored)"
        )
    if other:
        advice.append(
            "export the graph and import it into a fresh database: episodes exported "
            "without facts are extracted again on import (" + REBUILD + ")"
        )
    first = unfinished[0]
    what = (
        "waiting for the language model (rules facts only)"
        if not other
        else "stored without finished extraction (no facts yet)"
    )
    return Check(
        "extraction",
        False,
        f"{len(unfinished)} episode(s) {what}, e.g. episode #{first['id']} ({first['source']})",
        unfinished[:50],
        repair="; ".join(advice),
    )


def _extraction_record(store: Store) -> Check:
    """Episodes marked extracted that kept nothing of it: no fact and no sentence noted
    as not understood. A rules extraction is deterministic, so running it again tells a
    half-written episode (its facts lost) from an update that states nothing."""
    from memcli.extract.rules import extract
    from memcli.resolve import display_name, normalize

    lost = []
    for row in store.episodes_without_extraction_record():
        again = extract(row["content"], row["author"])
        kept = [
            f
            for f in again.facts
            if (f.source.type, normalize(display_name(f.source.name, f.source.type)))
            != (f.target.type, normalize(display_name(f.target.name, f.target.type)))
        ]
        if kept or again.unparsed:
            lost.append({"id": row["id"], "graph": row["graph"], "source": row["source"]})
    if not lost:
        return Check("extracted", True, "every extracted episode kept its facts")
    return Check(
        "extracted",
        False,
        f"{len(lost)} episode(s) with content but no extraction record (no facts, no "
        f"sentence noted as not understood), e.g. episode #{lost[0]['id']} "
        f"({lost[0]['source']})",
        lost[:50],
        repair="memcli extract --reread, then memcli analyze (it reads every update the "
        "rules reader read again and stores its facts); an imported one with given facts: "
        + REBUILD,
    )


#: How many of the newest updates ``_reading`` reads again (a few hundred ms at most).
READING_SAMPLE = 500


def _reading(store: Store) -> Check:
    """Whether the stored facts are what this version's reader reads from the updates.
    Not damage, so it never fails the diagnosis: an older memcli read them, and the
    reader has improved since. Only the newest updates are read again, so the check
    stays fast on a large store; an old store shows up in any of them."""
    from memcli.reread import stale

    checked, differ = stale(store, READING_SAMPLE)
    if not differ:
        return Check(
            "reading", True, f"the newest {checked} update(s) read as this version reads them"
        )
    return Check(
        "reading",
        True,
        f"{len(differ)} of the newest {checked} update(s) read differently by this "
        f"version's reader (stored by an older one), e.g. episode #{differ[0]['id']} "
        f"({differ[0]['source']})",
        differ[:50],
        repair="memcli extract --reread, then memcli analyze: facts, releases and "
        "contradictions become what ingesting the updates today gives",
    )


def _schema(store: Store) -> Check:
    applied = store.applied_migrations()
    known = store.known_migrations()
    unknown = [m for m in applied if m not in known]
    missing = [m for m in known if m not in applied]
    version = f"schema version {len(applied)} ({applied[-1] if applied else 'none'})"
    if unknown:
        return Check(
            "schema",
            False,
            f"{version}: written by a newer memcli (unknown migrations: {', '.join(unknown)})",
            unknown,
            repair="upgrade memcli (pip install -U memcli) before using this database",
        )
    if missing:
        return Check(
            "schema",
            False,
            f"{version}: migrations not applied: {', '.join(missing)}",
            missing,
            repair="open the database with any memcli command to apply them; if that "
            "fails, " + REBUILD,
        )
    return Check("schema", True, f"{version}, all {len(known)} known migration(s) applied")


def _permissions(path: Path) -> Check:
    """The database and its WAL/SHM side files must not be readable by other users.

    SQLite creates the side files with the database file's mode, so when the database
    itself is too open only it is named: once it is fixed, the side files follow.
    """
    if str(path) == ":memory:":
        return Check("permissions", True, "in-memory database")
    loose = []
    for candidate in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), Path(f"{path}-journal")):
        try:
            mode = stat.S_IMODE(os.stat(candidate).st_mode)
        except FileNotFoundError:
            continue
        if mode & 0o077:
            loose.append({"file": str(candidate), "mode": oct(mode)})
            if candidate == path:
                break
    if not loose:
        return Check("permissions", True, "database files are private to their owner")
    return Check(
        "permissions",
        False,
        "readable by other users: " + ", ".join(f"{x['file']} ({x['mode']})" for x in loose),
        loose,
        repair="chmod 600 " + " ".join(x["file"] for x in loose),
    )
