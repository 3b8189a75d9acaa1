"""Opening a memcli database: pragmas, application id, read-only media, transactions.

Everything else in memcli hands plain data to this module and gets plain data back.
Writes happen inside ``Store.transaction()`` (``BEGIN IMMEDIATE``), so an episode and its
facts land together or not at all, and two processes (cron plus a person) queue on the
busy timeout instead of failing half-way.

Timestamps are ISO 8601 UTC strings ("2026-11-02T09:00:00Z"); they sort as text.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from memcli.config import busy_timeout_ms
from memcli.errors import StoreError
from memcli.store.new_database import STATEMENTS

if TYPE_CHECKING:
    from sqlite_utils import Database

# Opening a database that is up to date needs neither sqlite-utils nor the migrations
# module that imports it: importing sqlite-utils costs more than a whole read command
# (and numpy with it, when numpy is installed). These mirror memcli.store.migrations
# (tests/test_store.py keeps them equal: add a migration's name here too); a database
# with migrations pending loads the real thing. A new, empty database gets the schema
# they add up to in one step (memcli.store.new_database: regenerate it with
# python -m tests.test_new_database after adding a migration).
SCHEMA_MIGRATIONS = (
    "m001_initial",
    "m002_llm_cache",
    "m003_search",
    "m004_application_id",
    "m005_identity_corrections",
    "m006_search_sync_at_commit",
    "m007_stated_names",
    "m008_releases",
)
# Id-cache entries a connection keeps between commits (~150 bytes each): a 1M-update
# ingest held ~1.8 GB without a bound; re-reading an id after a drop costs one query.
CACHE_ENTRIES = 300_000
MIGRATION_SET = "memcli"  # the name of memcli's set in sqlite-utils' migrations table
MIGRATIONS_TABLE = "_sqlite_migrations"  # sqlite-utils' Migrations.migrations_table
APPLICATION_ID = 0x4D654D63  # ``PRAGMA application_id``: "MeMc", fixed forever

# Rows per statement of ``StoreBase.insert_many`` (fewer when SQLite's cap on bound
# parameters says so): 200 to 1,000 measured alike, a statement per row a third slower.
ROWS_PER_INSERT = 500

READ_ONLY_FILE = "the database file is read-only"
READ_ONLY_DIR = "the directory is read-only: SQLite needs to create the -wal/-shm files there"


def read_only_reason(path: Path) -> str | None:
    """Why an existing database can only be read here, or None when it can be written.

    SQLite writes the file and creates its -wal and -shm side files next to it, so both
    the file and its directory must be writable (as this process sees them).
    """
    if not os.access(path, os.W_OK):
        return READ_ONLY_FILE
    if not os.access(path.parent, os.W_OK):
        return READ_ONLY_DIR
    return None


def _read_only_uri(path: Path) -> str:
    """A read-only ``file:`` URI. When the directory cannot hold new side files and no
    write-ahead log waits to be read, the file is opened as immutable: nothing can change
    it from here, and SQLite then needs no -shm file."""
    uri = Path(os.path.abspath(path)).as_uri() + "?mode=ro"
    wal = Path(f"{path}-wal")
    if not os.access(path.parent, os.W_OK) and not (wal.exists() and wal.stat().st_size):
        uri += "&immutable=1"
    return uri


def utcnow() -> str:
    """Wall-clock time as stored: second precision, UTC, 'Z' suffix."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def chunks(ids: Iterable[int], size: int = 500) -> Iterator[tuple[list[int], str]]:
    """Distinct ids in chunks SQLite can bind, each with its ``?,?,...`` marks.

    The one helper for ``IN (...)`` lists in the store: SQLite caps bound parameters."""
    id_list = sorted(set(ids))
    for i in range(0, len(id_list), size):
        chunk = id_list[i : i + size]
        yield chunk, ",".join("?" * len(chunk))


class StoreBase:
    """An open memcli database. Applies pending migrations on open.

    The rooms of the store (ingest, analysis, reads, search, health, the model cache)
    are mixins over this class; each holds its own SQL and nothing else.
    """

    def __init__(
        self, path: str | Path, *, create: bool = True, cache_entries: int = CACHE_ENTRIES
    ) -> None:
        self.path = Path(path)
        self.cache_entries = cache_entries
        self.read_only: str | None = None
        # One connection, many threads (a Client shared by an agent's workers): a write
        # transaction belongs to the thread that began it, so the others wait here
        # instead of joining it as a savepoint and committing or losing each other's
        # work. Reentrant: a thread nests its own transactions.
        self._lock = threading.RLock()
        self._forget()
        self._discard_pending()
        memory = str(path) == ":memory:"
        if not memory:
            if not self.path.exists():
                if not create:
                    raise StoreError(
                        f"no memcli database at {self.path} (run memcli ingest to create one)",
                        hint="check the path given with --db or MEMCLI_DB",
                    )
                self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
                # user-only permissions: status updates are private
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            elif self.path.is_dir():
                raise StoreError(f"{self.path} is a directory, not a database file")
            self.read_only = read_only_reason(self.path)
        timeout_ms = busy_timeout_ms()
        try:
            target = str(self.path)
            if self.read_only is not None:
                target = _read_only_uri(self.path)
            conn = sqlite3.connect(
                target,
                timeout=timeout_ms / 1000,
                check_same_thread=False,
                uri=self.read_only is not None,
            )
            self.conn = conn
            self._db: Database | None = None
            try:
                conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
                conn.execute("PRAGMA foreign_keys = ON")
                conn.execute("PRAGMA recursive_triggers = ON")  # as sqlite-utils sets it
                if not memory:
                    self._refuse_foreign()
                if not memory and self.read_only is None:
                    # Outside any transaction (the driver opens none for a PRAGMA).
                    level = conn.isolation_level
                    conn.isolation_level = None
                    try:
                        conn.execute("PRAGMA journal_mode = WAL")
                    finally:
                        conn.isolation_level = level
                conn.execute("PRAGMA synchronous = NORMAL")
                self._migrate()
            except BaseException:
                conn.close()
                raise
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open {self.path} as a memcli database: {exc}",
                hint="check the path given with --db or MEMCLI_DB",
            ) from None

    def _refuse_foreign(self) -> None:
        """Stop before touching a database that belongs to another application.

        A memcli database carries memcli's ``application_id``; one written before that
        mark existed is known by memcli's rows in the migrations table (the migration
        that sets the mark runs next). An empty file is a new memcli database. Anything
        else is refused before a single byte of it is changed.
        """
        app_id = int(self.scalar("PRAGMA application_id") or 0)
        if app_id == APPLICATION_ID:
            return
        tables = [
            str(r[0])
            for r in self.conn.execute(
                "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') ORDER BY name"
            )
        ]
        if app_id == 0 and not tables:
            return
        if app_id == 0 and MIGRATIONS_TABLE in tables:
            mine = self.scalar(
                f"SELECT count(*) FROM [{MIGRATIONS_TABLE}] WHERE migration_set = ?",
                [MIGRATION_SET],
            )
            if mine:
                return
        found = []
        if app_id:
            found.append(f"application_id {app_id:#x}")
        if tables:
            shown = ", ".join(tables[:5]) + (", ..." if len(tables) > 5 else "")
            found.append(f"{len(tables)} table(s) of its own: {shown}")
        raise StoreError(
            f"{self.path} is not a memcli database (found {'; '.join(found)}); "
            "refusing to change it",
            hint="pass --db (or set MEMCLI_DB) to a memcli database or to a new file",
        )

    _savepoints = 0  # open savepoints (``transaction()`` nested in a transaction)

    # Ids of rows this connection has seen: ingest resolves the same few entities and
    # signatures thousands of times. Rows are never deleted, so an entry only goes stale
    # when its transaction rolls back; ``_forget`` runs then.
    def _forget(self) -> None:
        self._entities: dict[tuple[str, str, str], int] = {}
        self._aliases: set[tuple[int, str]] = set()
        self._signatures: dict[tuple[str, str], int] = {}

    def _cached(self) -> int:
        """Entries the id caches hold: they grow with the distinct names and signatures a
        connection writes, so a long ingest (or ``watch``) drops them past
        ``cache_entries`` after a commit, when every cached id is durable."""
        return len(self._entities) + len(self._aliases) + len(self._signatures)

    @property
    def db(self) -> Database:
        """sqlite-utils' view of the connection (migrations, nested transactions),
        made on first use."""
        if self._db is None:
            from sqlite_utils import Database

            # recursive_triggers is already on (set at open); made inside a transaction,
            # the wrapper must not run statements of its own.
            self._db = Database(self.conn, execute_plugins=False, recursive_triggers=False)
        return self._db

    def _up_to_date(self) -> bool:
        """Whether every migration this version knows is applied, read without
        sqlite-utils (see SCHEMA_MIGRATIONS)."""
        try:
            applied = {
                str(r[0])
                for r in self.conn.execute(
                    f"SELECT name FROM [{MIGRATIONS_TABLE}] WHERE migration_set = ?",
                    [MIGRATION_SET],
                )
            }
        except sqlite3.OperationalError:  # no migrations table: a new database
            return False
        return applied.issuperset(SCHEMA_MIGRATIONS)

    # Rows written in the open transaction that the search indexes do not hold yet; the
    # ingest room records them and indexes them in bulk before the commit
    # (``IngestMixin.sync_search``). Here only the hooks, so every transaction runs them.
    def _discard_pending(self) -> None:
        """Forget the rows waiting to be indexed (their transaction rolled back)."""

    def sync_search(self) -> None:
        """Index the rows this transaction wrote (see ``IngestMixin.sync_search``)."""

    def end_contradicted(self) -> list[int]:
        """Apply the contradiction rules to the facts this transaction wrote (see
        ``IngestMixin.end_contradicted``); the facts ended."""
        return []

    def _empty(self) -> bool:
        """Whether the file holds no schema at all (a new database)."""
        return bool(self.scalar("SELECT count(*) FROM sqlite_master") == 0)

    def _create(self) -> None:
        """Write the schema every migration adds up to into an empty database, and
        record each migration as applied the way sqlite-utils does (see
        :mod:`memcli.store.new_database`)."""
        for sql in STATEMENTS:
            self.conn.execute(sql)
        # The time format sqlite-utils records: str() of an aware UTC datetime.
        applied_at = str(datetime.now(UTC))
        self.conn.executemany(
            f"INSERT INTO [{MIGRATIONS_TABLE}] (migration_set, name, applied_at) VALUES (?, ?, ?)",
            [(MIGRATION_SET, name, applied_at) for name in SCHEMA_MIGRATIONS],
        )
        self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")

    def _migrate(self) -> None:
        if self._up_to_date():
            return
        if self.read_only is None and self._empty():
            # One migrator at a time: a second process waits on the write lock, then
            # finds the schema there and nothing pending.
            with self.transaction():
                if self._empty():
                    self._create()
                    return
        if self._up_to_date():
            return
        from memcli.store.migrations import migrations

        pending = migrations.pending(self.db)
        if not pending:
            return
        if self.read_only is not None:
            raise StoreError(
                f"{self.path} needs upgrading to this memcli's schema "
                f"({', '.join(m.name for m in pending)}), but {self.read_only}",
                hint="run any memcli command once on a writable copy or location",
            )
        # One migrator at a time: a second process waits on the write lock, then finds
        # nothing pending. Each migration runs in a savepoint inside this transaction.
        with self.transaction():
            migrations.apply(self.db)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Self]:
        """A write transaction taken up front (BEGIN IMMEDIATE), or a savepoint if nested.

        Held by one thread at a time; another thread's transaction waits for it.
        """
        if self.read_only is not None:
            raise StoreError(
                f"cannot write to {self.path}: {self.read_only}",
                hint="reads work as it is; make it writable to ingest, import or analyze",
            )
        with self._lock:
            if self.conn.in_transaction:
                self._savepoints += 1
                try:
                    with self.db.atomic():
                        yield self
                except BaseException:
                    self._forget()  # ids cached inside the rolled-back savepoint
                    raise
                finally:
                    self._savepoints -= 1
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
                self.end_contradicted()  # what the writer did not apply itself
                self.sync_search()  # in this transaction: it commits with the rows
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                self._forget()
                self._discard_pending()
                raise
            else:
                self.conn.execute("COMMIT")
                if self._cached() > self.cache_entries:
                    self._forget()  # memory follows a batch, not the store

    # --- small helpers ---

    def insert_many(self, head: str, rows: Sequence[Sequence[Any]]) -> None:
        """``head`` (``INSERT ... (columns)``) for every row, many rows per statement
        (``VALUES (...), (...), ...``), in order: the rows ``executemany`` would insert.

        A statement per row re-runs its per-statement set-up for each row: a CHECK's
        ``IN (...)`` list builds its lookup table again every time (a third of a fact
        insert). Chunks stay under SQLite's cap on bound parameters."""
        if not rows:
            return
        width = len(rows[0])
        limit = self.conn.getlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER)
        size = max(1, min(ROWS_PER_INSERT, limit // width))
        one = "(" + ",".join("?" * width) + ")"
        full = f"{head} VALUES {','.join([one] * size)}"
        execute = self.conn.execute
        for i in range(0, len(rows), size):
            part = rows[i : i + size]
            sql = full if len(part) == size else f"{head} VALUES {','.join([one] * len(part))}"
            execute(sql, list(chain.from_iterable(part)))

    def rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        with self._lock:
            return self._rows(sql, params)

    def _rows(self, sql: str, params: Sequence[Any] | dict[str, Any]) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        keys = [d[0] for d in cur.description]
        return [dict(zip(keys, row, strict=True)) for row in cur.fetchall()]

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        with self._lock:
            row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def rows_in(self, sql: str, ids: Iterable[int], *before: Any) -> list[dict[str, Any]]:
        """Rows of ``sql`` for every id, its ``{marks}`` filled one chunk of ids at a time
        (SQLite caps bound parameters). ``before`` binds ahead of the ids."""
        out: list[dict[str, Any]] = []
        for chunk, marks in chunks(ids):
            out += self.rows(sql.format(marks=marks), [*before, *chunk])
        return out

    def schema_version(self) -> int:
        from memcli.store.migrations import migrations

        return len(migrations.applied(self.db))

    def _id_pairs(self, sql: str, ids: Sequence[int], *extra: Any) -> dict[int, list[Any]]:
        """Run ``sql`` (two columns: key, value; ``{marks}`` for the id list) in chunks."""
        out: dict[int, list[Any]] = {i: [] for i in ids}
        with self._lock:
            for chunk, marks in chunks(ids):
                for key, value in self.conn.execute(sql.format(marks=marks), [*extra, *chunk]):
                    if value is not None and value not in out[key]:
                        out[key].append(value)
        return {k: sorted(v) for k, v in out.items()}
