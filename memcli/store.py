"""The one module that talks to SQLite: schema, migrations, writes and queries.

Everything else in memcli hands plain data to this module and gets plain data back.
Writes happen inside ``Store.transaction()`` (``BEGIN IMMEDIATE``), so an episode and its
facts land together or not at all, and two processes (cron plus a person) queue on the
busy timeout instead of failing half-way.

Timestamps are ISO 8601 UTC strings ("2026-11-02T09:00:00Z"); they sort as text.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlite_utils import Database, Migrations

from memcli.config import busy_timeout_ms
from memcli.errors import StoreError
from memcli.models import EntityType, Relation

migrations = Migrations("memcli")

# ``PRAGMA application_id`` of every memcli database: "MeMc" in ASCII. Fixed forever.
APPLICATION_ID = 0x4D654D63

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


# --- migrations (append-only: never edit one that has shipped; add mNNN_* below) ---


@migrations()
def m001_initial(db: Database) -> None:
    relations = ", ".join(f"'{r.value}'" for r in Relation)
    types = ", ".join(f"'{t.value}'" for t in EntityType)
    db.executescript(
        f"""
        CREATE TABLE graphs (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            last_ingest_at TEXT,
            ingest_seq INTEGER NOT NULL DEFAULT 0,   -- bumped by every ingest that adds data
            analyzed_seq INTEGER NOT NULL DEFAULT -1, -- ingest_seq seen by the last analyze
            analyzed_config TEXT                      -- settings of the last analyze
        );
        CREATE TABLE episodes (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            content_hash TEXT NOT NULL,
            content TEXT NOT NULL,
            author TEXT,
            occurred_at TEXT NOT NULL,     -- world time, from the update itself
            ingested_at TEXT NOT NULL,     -- when memcli stored it
            source TEXT NOT NULL,          -- path as given to ingest, or JSON "source"
            format TEXT NOT NULL,
            extractor TEXT NOT NULL,
            extraction_status TEXT NOT NULL DEFAULT 'done',
            unparsed TEXT NOT NULL DEFAULT '[]',
            UNIQUE (graph_id, content_hash)
        );
        CREATE INDEX episodes_graph_time ON episodes(graph_id, occurred_at);
        CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            name TEXT NOT NULL,
            norm TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ({types})),
            created_at TEXT NOT NULL,
            UNIQUE (graph_id, type, norm)
        );
        CREATE TABLE entity_aliases (
            entity_id INTEGER NOT NULL REFERENCES entities(id),
            alias TEXT NOT NULL,
            PRIMARY KEY (entity_id, alias)
        ) WITHOUT ROWID;
        CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            source_id INTEGER NOT NULL REFERENCES entities(id),
            relation TEXT NOT NULL CHECK (relation IN ({relations})),
            target_id INTEGER NOT NULL REFERENCES entities(id),
            sentence TEXT NOT NULL DEFAULT '',
            valid_at TEXT NOT NULL,        -- world time the fact became true
            invalid_at TEXT,               -- world time it stopped being true
            created_at TEXT NOT NULL,      -- when memcli learned it
            expired_at TEXT,               -- when memcli learned it had ended
            invalidated_by INTEGER REFERENCES episodes(id),
            UNIQUE (episode_id, source_id, relation, target_id)
        );
        CREATE INDEX facts_graph_rel ON facts(graph_id, relation);
        CREATE INDEX facts_target ON facts(target_id, relation);
        CREATE INDEX facts_source ON facts(source_id, relation);
        CREATE INDEX facts_episode ON facts(episode_id);
        CREATE TABLE signatures (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            kind TEXT NOT NULL CHECK (kind IN ('literal', 'blocker')),
            key TEXT NOT NULL,
            UNIQUE (graph_id, key)
        );
        CREATE TABLE fact_signatures (
            fact_id INTEGER NOT NULL REFERENCES facts(id),
            signature_id INTEGER NOT NULL REFERENCES signatures(id),
            PRIMARY KEY (fact_id, signature_id)
        ) WITHOUT ROWID;
        CREATE INDEX fact_signatures_sig ON fact_signatures(signature_id);
        CREATE TABLE observations (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            name TEXT NOT NULL,
            summary TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('active', 'retired')),
            kind TEXT NOT NULL,
            pattern_key TEXT NOT NULL,     -- identity across runs, e.g. root:<entity id>
            cluster_id INTEGER,            -- smallest episode id of the parent cluster
            fingerprint TEXT NOT NULL,     -- hash of structure + evidence
            rank INTEGER NOT NULL DEFAULT 0,
            start_at TEXT,                 -- earliest supporting evidence
            valid_from TEXT,               -- when the pattern began to hold (world time)
            latest_evidence_at TEXT,
            end_at TEXT,                   -- when it stopped holding (world time)
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            version INTEGER NOT NULL DEFAULT 1,
            retire_reason TEXT,
            retired_by_episode INTEGER REFERENCES episodes(id),
            writer TEXT NOT NULL DEFAULT 'template'
        );
        CREATE INDEX observations_graph ON observations(graph_id, status);
        CREATE TABLE observation_evidence (
            observation_id INTEGER NOT NULL REFERENCES observations(id),
            item_type TEXT NOT NULL CHECK (item_type IN ('episode', 'fact', 'entity')),
            item_id INTEGER NOT NULL,
            role TEXT NOT NULL,
            PRIMARY KEY (observation_id, item_type, item_id)
        ) WITHOUT ROWID;
        CREATE INDEX observation_evidence_item ON observation_evidence(item_type, item_id);
        CREATE TABLE observation_versions (
            observation_id INTEGER NOT NULL REFERENCES observations(id),
            version INTEGER NOT NULL,
            name TEXT NOT NULL,
            summary TEXT NOT NULL,
            kind TEXT NOT NULL,
            start_at TEXT,
            latest_evidence_at TEXT,
            evidence TEXT NOT NULL,        -- JSON: [[item_type, item_id, role], ...]
            created_at TEXT NOT NULL,
            PRIMARY KEY (observation_id, version)
        ) WITHOUT ROWID;
        CREATE TABLE observation_links (
            from_id INTEGER NOT NULL REFERENCES observations(id),  -- the newer observation
            to_id INTEGER NOT NULL REFERENCES observations(id),    -- the one it supersedes
            kind TEXT NOT NULL DEFAULT 'supersedes',
            created_at TEXT NOT NULL,
            PRIMARY KEY (from_id, to_id)
        ) WITHOUT ROWID;
        CREATE TABLE analysis_runs (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            started_at TEXT NOT NULL,
            finished_at TEXT,
            mode TEXT NOT NULL,
            config TEXT NOT NULL,
            episodes INTEGER NOT NULL DEFAULT 0,
            clusters INTEGER NOT NULL DEFAULT 0,
            created INTEGER NOT NULL DEFAULT 0,
            updated INTEGER NOT NULL DEFAULT 0,
            retired INTEGER NOT NULL DEFAULT 0,
            unchanged INTEGER NOT NULL DEFAULT 0,
            max_episode_id INTEGER NOT NULL DEFAULT 0, -- newest episode this run saw
            max_fact_id INTEGER NOT NULL DEFAULT 0,    -- newest fact this run saw
            seconds REAL
        );
        CREATE INDEX analysis_runs_graph ON analysis_runs(graph_id, id);
        -- Cluster of every episode as of the last analyze: lets the next run re-cluster
        -- only what new evidence can reach.
        CREATE TABLE episode_clusters (
            episode_id INTEGER PRIMARY KEY REFERENCES episodes(id),
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            cluster_id INTEGER NOT NULL,     -- after size-cap splits
            component_id INTEGER NOT NULL    -- before them: the unit incremental runs redo
        );
        CREATE INDEX episode_clusters_component ON episode_clusters(graph_id, component_id);
        CREATE INDEX facts_expired ON facts(graph_id, expired_at);
        """
    )


@migrations()
def m002_llm_cache(db: Database) -> None:
    """Every validated language-model answer, so re-ingest and re-analyze cost nothing.

    The key is what the answer depends on: a hash of the exact prompt content, the model
    and the prompt version. Only answers that passed validation are stored.
    """
    db.executescript(
        """
        CREATE TABLE IF NOT EXISTS llm_cache (
            content_hash TEXT NOT NULL,
            model TEXT NOT NULL,
            prompt_version TEXT NOT NULL,   -- e.g. 'extract/1', 'write/1'
            response TEXT NOT NULL,         -- the validated answer, JSON
            prompt_tokens INTEGER NOT NULL DEFAULT 0,
            completion_tokens INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL,
            hits INTEGER NOT NULL DEFAULT 0,
            last_hit_at TEXT,
            PRIMARY KEY (content_hash, model, prompt_version)
        ) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS episodes_pending ON episodes(graph_id, extraction_status)
            WHERE extraction_status != 'done';
        """
    )


# Full-text search (FTS5, BM25). Every index is an external-content FTS5 table keyed by an
# explicit integer primary key (implicit rowids are not stable across VACUUM) and kept in
# sync by AFTER triggers only: a BEFORE trigger would also fire for an INSERT OR IGNORE
# that then inserts nothing, and an external-content index deleted with the wrong old
# values is silently corrupt. Episodes and observations are indexed straight from their
# own rows. Entities (name + every alias) and facts ("source relation target sentence")
# are composed from several tables, so each gets a small document table, itself kept up
# to date by triggers, and the index reads that. Never write these tables with INSERT OR
# REPLACE: with recursive_triggers off, the implicit delete fires no trigger.
SEARCH_TOKENIZER = "porter unicode61 remove_diacritics 2"

# fact text as indexed: "payments integration blocked by auth service refactor <sentence>"
_FACT_TEXT = """
    (SELECT s.name || ' ' || replace(f.relation, '_', ' ') || ' ' || t.name || ' ' || f.sentence
     FROM facts f JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
     WHERE f.id = {fact})
"""
_ALIASES = """
    (SELECT coalesce(group_concat(alias, ' '), '')
     FROM (SELECT alias FROM entity_aliases WHERE entity_id = {entity} ORDER BY alias))
"""


def _fts_sync_triggers(table: str, key: str, columns: list[str]) -> str:
    """AFTER INSERT/DELETE/UPDATE triggers that mirror ``table`` into ``{table}_fts``."""
    fts = f"{table}_fts"
    cols = ", ".join(columns)
    new = ", ".join(f"new.{c}" for c in columns)
    old = ", ".join(f"old.{c}" for c in columns)
    delete = f"INSERT INTO {fts} ({fts}, rowid, {cols}) VALUES ('delete', old.{key}, {old});"
    insert = f"INSERT INTO {fts} (rowid, {cols}) VALUES (new.{key}, {new});"
    return f"""
        CREATE TRIGGER {table}_fts_ai AFTER INSERT ON {table} BEGIN {insert} END;
        CREATE TRIGGER {table}_fts_ad AFTER DELETE ON {table} BEGIN {delete} END;
        CREATE TRIGGER {table}_fts_au AFTER UPDATE OF {key}, {cols} ON {table}
        BEGIN {delete} {insert} END;
    """


@migrations()
def m003_search(db: Database) -> None:
    """FTS5 indexes over episodes, observations, entities and facts; the report watermark."""
    tok = SEARCH_TOKENIZER
    db.executescript(
        f"""
        CREATE VIRTUAL TABLE episodes_fts USING fts5(
            content, author, content='episodes', content_rowid='id', tokenize='{tok}');
        {_fts_sync_triggers("episodes", "id", ["content", "author"])}

        CREATE VIRTUAL TABLE observations_fts USING fts5(
            name, summary, content='observations', content_rowid='id', tokenize='{tok}');
        {_fts_sync_triggers("observations", "id", ["name", "summary"])}

        CREATE TABLE entity_docs (
            entity_id INTEGER PRIMARY KEY,     -- = entities.id
            name TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT ''   -- every surface form, space separated
        );
        CREATE VIRTUAL TABLE entity_docs_fts USING fts5(
            name, aliases, content='entity_docs', content_rowid='entity_id', tokenize='{tok}');
        {_fts_sync_triggers("entity_docs", "entity_id", ["name", "aliases"])}
        CREATE TRIGGER entities_docs_ai AFTER INSERT ON entities BEGIN
            INSERT INTO entity_docs (entity_id, name, aliases)
            VALUES (new.id, new.name, {_ALIASES.format(entity="new.id")});
        END;
        CREATE TRIGGER entities_docs_ad AFTER DELETE ON entities BEGIN
            DELETE FROM entity_docs WHERE entity_id = old.id;
        END;
        CREATE TRIGGER entities_docs_au AFTER UPDATE OF name ON entities BEGIN
            UPDATE entity_docs SET name = new.name WHERE entity_id = new.id;
            UPDATE fact_docs SET text = {_FACT_TEXT.format(fact="fact_docs.fact_id")}
            WHERE fact_id IN (SELECT id FROM facts WHERE source_id = new.id OR target_id = new.id);
        END;
        CREATE TRIGGER entity_aliases_docs_ai AFTER INSERT ON entity_aliases BEGIN
            UPDATE entity_docs SET aliases = {_ALIASES.format(entity="new.entity_id")}
            WHERE entity_id = new.entity_id;
        END;
        CREATE TRIGGER entity_aliases_docs_ad AFTER DELETE ON entity_aliases BEGIN
            UPDATE entity_docs SET aliases = {_ALIASES.format(entity="old.entity_id")}
            WHERE entity_id = old.entity_id;
        END;
        CREATE TRIGGER entity_aliases_docs_au AFTER UPDATE ON entity_aliases BEGIN
            UPDATE entity_docs SET aliases = {_ALIASES.format(entity="old.entity_id")}
            WHERE entity_id = old.entity_id;
            UPDATE entity_docs SET aliases = {_ALIASES.format(entity="new.entity_id")}
            WHERE entity_id = new.entity_id;
        END;

        CREATE TABLE fact_docs (
            fact_id INTEGER PRIMARY KEY,       -- = facts.id
            text TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE fact_docs_fts USING fts5(
            text, content='fact_docs', content_rowid='fact_id', tokenize='{tok}');
        {_fts_sync_triggers("fact_docs", "fact_id", ["text"])}
        CREATE TRIGGER facts_docs_ai AFTER INSERT ON facts BEGIN
            INSERT INTO fact_docs (fact_id, text) VALUES (new.id, {_FACT_TEXT.format(fact="new.id")});
        END;
        CREATE TRIGGER facts_docs_ad AFTER DELETE ON facts BEGIN
            DELETE FROM fact_docs WHERE fact_id = old.id;
        END;
        CREATE TRIGGER facts_docs_au
        AFTER UPDATE OF id, source_id, relation, target_id, sentence ON facts BEGIN
            DELETE FROM fact_docs WHERE fact_id = old.id;
            INSERT INTO fact_docs (fact_id, text) VALUES (new.id, {_FACT_TEXT.format(fact="new.id")});
        END;

        -- Existing data (a database created before this migration).
        INSERT INTO entity_docs (entity_id, name, aliases)
            SELECT id, name, {_ALIASES.format(entity="entities.id")} FROM entities;
        INSERT INTO fact_docs (fact_id, text)
            SELECT id, {_FACT_TEXT.format(fact="facts.id")} FROM facts;
        INSERT INTO episodes_fts (episodes_fts) VALUES ('rebuild');
        INSERT INTO observations_fts (observations_fts) VALUES ('rebuild');

        -- What the last 'memcli report' of a graph saw: the next one reports changes
        -- against this snapshot (exact, unlike comparing second-precision timestamps).
        CREATE TABLE report_marks (
            graph_id TEXT PRIMARY KEY REFERENCES graphs(id),
            last_report_at TEXT NOT NULL,
            observations TEXT NOT NULL DEFAULT '{{}}'  -- JSON: {{id: [version, status]}}
        );
        """
    )


@migrations()
def m004_application_id(db: Database) -> None:
    """Mark the file as memcli's (``PRAGMA application_id``), so that memcli can tell its
    own databases from another application's and refuse to change the latter."""
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


# The newest migration's number, counted rather than written down so that branches which
# each append a migration do not have to agree on a constant.
SCHEMA_VERSION = len(migrations._migrations)


# --- rows handed out by queries ---


@dataclass(frozen=True, slots=True)
class FactRow:
    id: int
    episode_id: int
    source_id: int
    relation: str
    target_id: int
    valid_at: str
    invalid_at: str | None


VALID_SQL = "(f.valid_at <= :as_of AND (f.invalid_at IS NULL OR f.invalid_at > :as_of))"
CURRENT_SQL = "(f.invalid_at IS NULL)"


def validity(as_of: str | None) -> tuple[str, dict[str, Any]]:
    """The WHERE fragment selecting facts valid now, or valid at ``as_of`` (world time)."""
    if as_of is None:
        return CURRENT_SQL, {}
    return VALID_SQL, {"as_of": as_of}


# The contradiction rules as SQL, each with the relations that must be in the new
# episode for it to apply (see Store.apply_contradictions). Parameters: :ep, :now and
# :hash (the content hash of episode :ep).
#
# A fact ends at its earliest contradiction, whatever order the updates arrive in: a
# rule only ever moves an end earlier (``_EARLIER``). Two contradictions at the same
# instant are ordered by their episodes' content hashes, so invalidated_by names the same
# episode in every order; an end the update itself stated (invalidated_by NULL) wins
# such a tie.
_EARLIER = """
    (facts.invalid_at IS NULL OR facts.invalid_at > {at}
     OR (facts.invalid_at = {at} AND facts.invalidated_by IS NOT NULL
         AND (SELECT content_hash FROM episodes WHERE id = facts.invalidated_by) > {hash}))
"""


def _reverse_rule(relation: str, join: str) -> str:
    """A fact of episode :ep ended by the earliest contradicting fact already stored."""
    return f"""
        UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
            invalidated_by = c.episode_id
        FROM (SELECT f.id AS fid, x.valid_at, x.episode_id, ex.content_hash AS hash,
                row_number() OVER (PARTITION BY f.id
                                   ORDER BY x.valid_at, ex.content_hash) AS n
              FROM facts f {join}
              JOIN episodes ex ON ex.id = x.episode_id
              WHERE f.episode_id = :ep AND f.relation = '{relation}'
                AND x.episode_id != f.episode_id) AS c
        WHERE facts.id = c.fid AND c.n = 1
          AND {_EARLIER.format(at="c.valid_at", hash="c.hash")}
        """


_CONTRADICTION_RULES: list[tuple[str, frozenset[str]]] = [
    # completion ends earlier waits
    (
        f"""
        UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
            invalidated_by = c.episode_id
        FROM (SELECT target_id, min(valid_at) AS valid_at, episode_id
              FROM facts WHERE episode_id = :ep AND relation = 'completed'
              GROUP BY target_id) AS c
        WHERE facts.relation = 'blocked_by' AND facts.target_id = c.target_id
          AND facts.valid_at <= c.valid_at
          AND {_EARLIER.format(at="c.valid_at", hash=":hash")}
        """,
        frozenset({"completed"}),
    ),
    # unblocking ends the wait
    (
        f"""
        UPDATE facts SET invalid_at = u.valid_at, expired_at = :now,
            invalidated_by = u.episode_id
        FROM (SELECT source_id, target_id, min(valid_at) AS valid_at, episode_id
              FROM facts WHERE episode_id = :ep AND relation = 'unblocked_from'
              GROUP BY source_id, target_id) AS u
        WHERE facts.relation = 'blocked_by' AND facts.source_id = u.source_id
          AND facts.target_id = u.target_id AND facts.valid_at <= u.valid_at
          AND {_EARLIER.format(at="u.valid_at", hash=":hash")}
        """,
        frozenset({"unblocked_from"}),
    ),
    # a new owner ends the previous owner
    (
        f"""
        UPDATE facts SET invalid_at = o.valid_at, expired_at = :now,
            invalidated_by = o.episode_id
        FROM (SELECT f.source_id, f.target_id, min(f.valid_at) AS valid_at, f.episode_id,
                s.type
              FROM facts f JOIN entities s ON s.id = f.source_id
              WHERE f.episode_id = :ep AND f.relation = 'owns'
              GROUP BY f.source_id, f.target_id) AS o
        WHERE facts.relation = 'owns' AND facts.target_id = o.target_id
          AND facts.source_id != o.source_id AND facts.valid_at < o.valid_at
          AND (SELECT type FROM entities WHERE id = facts.source_id) = o.type
          AND {_EARLIER.format(at="o.valid_at", hash=":hash")}
        """,
        frozenset({"owns"}),
    ),
    # a later completion ends this wait
    (
        _reverse_rule(
            "blocked_by",
            "JOIN facts x ON x.target_id = f.target_id AND x.relation = 'completed'"
            " AND x.valid_at >= f.valid_at",
        ),
        frozenset({"blocked_by"}),
    ),
    # a later unblocking ends this wait
    (
        _reverse_rule(
            "blocked_by",
            "JOIN facts x ON x.target_id = f.target_id AND x.source_id = f.source_id"
            " AND x.relation = 'unblocked_from' AND x.valid_at >= f.valid_at",
        ),
        frozenset({"blocked_by"}),
    ),
    # a later owner ends this ownership
    (
        _reverse_rule(
            "owns",
            "JOIN entities fs ON fs.id = f.source_id"
            " JOIN facts x ON x.target_id = f.target_id AND x.relation = 'owns'"
            " AND x.source_id != f.source_id AND x.valid_at > f.valid_at"
            " JOIN entities xs ON xs.id = x.source_id AND xs.type = fs.type",
        ),
        frozenset({"owns"}),
    ),
]


class Store:
    """An open memcli database. Applies pending migrations on open."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        self.read_only: str | None = None
        # One connection, many threads (a Client shared by an agent's workers): a write
        # transaction belongs to the thread that began it, so the others wait here
        # instead of joining it as a savepoint and committing or losing each other's
        # work. Reentrant: a thread nests its own transactions.
        self._lock = threading.RLock()
        self._forget()
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
            self.db = Database(conn, execute_plugins=False)
            self.conn = conn
            try:
                conn.execute(f"PRAGMA busy_timeout = {timeout_ms}")
                conn.execute("PRAGMA foreign_keys = ON")
                if not memory:
                    self._refuse_foreign()
                if not memory and self.read_only is None:
                    with self.db.ensure_autocommit_on():
                        conn.execute("PRAGMA journal_mode = WAL")
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
        if app_id == 0 and Migrations.migrations_table in tables:
            mine = self.scalar(
                f"SELECT count(*) FROM [{Migrations.migrations_table}] WHERE migration_set = ?",
                [migrations.name],
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

    # Ids of rows this connection has seen: ingest resolves the same few entities and
    # signatures thousands of times. Rows are never deleted, so an entry only goes stale
    # when its transaction rolls back; ``_forget`` runs then.
    def _forget(self) -> None:
        self._entities: dict[tuple[str, str, str], int] = {}
        self._aliases: set[tuple[int, str]] = set()
        self._signatures: dict[tuple[str, str], int] = {}

    def _migrate(self) -> None:
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
        # nothing pending.
        with self.transaction():
            pending = migrations.pending(self.db)
            migrations.ensure_migrations_table(self.db)
            for migration in pending:
                migration.fn(self.db)
                migrations._record_applied(self.db, migration.name)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[Store]:
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
                try:
                    with self.db.atomic():
                        yield self
                except BaseException:
                    self._forget()  # ids cached inside the rolled-back savepoint
                    raise
                return
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield self
            except BaseException:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
                self._forget()
                raise
            else:
                self.conn.execute("COMMIT")

    # --- small helpers ---

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

    @staticmethod
    def _chunks(ids: Iterable[int], size: int = 500) -> Iterator[tuple[list[int], str]]:
        """Distinct ids in chunks SQLite can bind, each with its ``?,?,...`` marks."""
        id_list = sorted(set(ids))
        for i in range(0, len(id_list), size):
            chunk = id_list[i : i + size]
            yield chunk, ",".join("?" * len(chunk))

    def rows_in(self, sql: str, ids: Iterable[int], *before: Any) -> list[dict[str, Any]]:
        """Rows of ``sql`` for every id, its ``{marks}`` filled one chunk of ids at a time
        (SQLite caps bound parameters). ``before`` binds ahead of the ids."""
        out: list[dict[str, Any]] = []
        for chunk, marks in self._chunks(ids):
            out += self.rows(sql.format(marks=marks), [*before, *chunk])
        return out

    def schema_version(self) -> int:
        return len(migrations.applied(self.db))

    # --- integrity checks (memcli doctor) ---

    def applied_migrations(self) -> list[str]:
        """Names of the migrations this database has applied, in order."""
        return [m.name for m in migrations.applied(self.db)]

    @staticmethod
    def known_migrations() -> list[str]:
        """Names of the migrations this version of memcli knows, in order."""
        return [m.name for m in migrations._migrations]

    def integrity_check(self) -> list[str]:
        """SQLite's own check of pages, indexes and constraints: [] when the file is sound."""
        found = [str(r[0]) for r in self.conn.execute("PRAGMA integrity_check(50)")]
        return [] if found == ["ok"] else found

    def foreign_key_check(self) -> list[dict[str, Any]]:
        """Rows whose declared foreign key points at nothing."""
        return [
            {"table": t, "rowid": rowid, "parent": parent}
            for t, rowid, parent, _ in self.conn.execute("PRAGMA foreign_key_check")
        ]

    def fts_tables(self) -> list[dict[str, Any]]:
        """Every full-text table (fts3/4/5) with its external content table, if any."""
        out = []
        for name, sql in self.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL%'"
        ):
            module = re.search(r"\bUSING\s+(fts[345])\b", sql or "", re.IGNORECASE)
            if module is None:
                continue
            content = re.search(r"\bcontent\s*=\s*(['\"]?)([^'\",)]*)\1", sql, re.IGNORECASE)
            out.append(
                {
                    "name": name,
                    "module": module.group(1).lower(),
                    "content": content.group(2) if content else None,
                }
            )
        return out

    def fts_integrity(self, table: dict[str, Any]) -> str | None:
        """Run the table's 'integrity-check' command; the error text, or None when sound.

        For an fts5 table with an external content table, rank 1 also compares the index
        with that table's rows (without it only the index's own structure is checked).
        The command is an INSERT that changes nothing, so it runs in a write transaction.
        """
        quoted = '"' + str(table["name"]).replace('"', '""') + '"'
        if table["module"] == "fts5" and table["content"]:
            sql = f"INSERT INTO {quoted}({quoted}, rank) VALUES ('integrity-check', 1)"
        else:
            sql = f"INSERT INTO {quoted}({quoted}) VALUES ('integrity-check')"
        with self.transaction():
            try:
                self.conn.execute(sql)
            except sqlite3.DatabaseError as exc:
                return str(exc)
        return None

    # Rows that point at rows that do not exist. Foreign keys catch most of these as
    # they happen; these also cover the polymorphic evidence links and databases edited
    # with foreign keys off. Each query returns the offending rows' ids.
    ORPHAN_CHECKS: tuple[tuple[str, str], ...] = (
        (
            "facts whose episode is missing",
            "SELECT f.id FROM facts f WHERE NOT EXISTS"
            " (SELECT 1 FROM episodes e WHERE e.id = f.episode_id)",
        ),
        (
            "facts whose source or target entity is missing",
            "SELECT f.id FROM facts f"
            " WHERE NOT EXISTS (SELECT 1 FROM entities n WHERE n.id = f.source_id)"
            " OR NOT EXISTS (SELECT 1 FROM entities n WHERE n.id = f.target_id)",
        ),
        (
            "facts ended by an episode that is missing",
            "SELECT f.id FROM facts f WHERE f.invalidated_by IS NOT NULL AND NOT EXISTS"
            " (SELECT 1 FROM episodes e WHERE e.id = f.invalidated_by)",
        ),
        (
            "fact_signatures rows whose fact or signature is missing",
            "SELECT fs.fact_id FROM fact_signatures fs"
            " WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.id = fs.fact_id)"
            " OR NOT EXISTS (SELECT 1 FROM signatures s WHERE s.id = fs.signature_id)",
        ),
        (
            "entity aliases whose entity is missing",
            "SELECT a.entity_id FROM entity_aliases a WHERE NOT EXISTS"
            " (SELECT 1 FROM entities n WHERE n.id = a.entity_id)",
        ),
        (
            "observation evidence pointing to a missing episode, fact or entity",
            "SELECT oe.observation_id FROM observation_evidence oe WHERE"
            " (oe.item_type = 'episode' AND NOT EXISTS"
            "   (SELECT 1 FROM episodes e WHERE e.id = oe.item_id))"
            " OR (oe.item_type = 'fact' AND NOT EXISTS"
            "   (SELECT 1 FROM facts f WHERE f.id = oe.item_id))"
            " OR (oe.item_type = 'entity' AND NOT EXISTS"
            "   (SELECT 1 FROM entities n WHERE n.id = oe.item_id))",
        ),
        (
            "evidence, versions or links of a missing observation",
            "SELECT x.observation_id FROM (SELECT observation_id FROM observation_evidence"
            " UNION ALL SELECT observation_id FROM observation_versions"
            " UNION ALL SELECT from_id FROM observation_links"
            " UNION ALL SELECT to_id FROM observation_links) x"
            " WHERE NOT EXISTS (SELECT 1 FROM observations o WHERE o.id = x.observation_id)",
        ),
        (
            "episode cluster rows whose episode is missing",
            "SELECT c.episode_id FROM episode_clusters c WHERE NOT EXISTS"
            " (SELECT 1 FROM episodes e WHERE e.id = c.episode_id)",
        ),
        (
            "episodes, entities or facts whose graph is missing",
            "SELECT x.graph_id FROM (SELECT graph_id FROM episodes"
            " UNION ALL SELECT graph_id FROM entities UNION ALL SELECT graph_id FROM facts) x"
            " WHERE NOT EXISTS (SELECT 1 FROM graphs g WHERE g.id = x.graph_id)",
        ),
    )

    def orphans(self) -> list[dict[str, Any]]:
        """Each orphan check that found rows: what, how many, and up to 10 of their ids."""
        out = []
        for what, sql in self.ORPHAN_CHECKS:
            ids = [r[0] for r in self.conn.execute(sql)]
            if ids:
                out.append({"what": what, "count": len(ids), "sample": sorted(set(ids))[:10]})
        return out

    def pending_extractions(self) -> list[dict[str, Any]]:
        """Episodes stored without finished extraction (their facts are missing)."""
        return self.rows(
            "SELECT id, graph_id AS graph, source, extraction_status FROM episodes"
            " WHERE extraction_status != 'done' ORDER BY id"
        )

    def episodes_without_extraction_record(self) -> list[dict[str, Any]]:
        """Rules-extracted episodes marked done with no fact and no unparsed sentence:
        either an update that states nothing or one whose facts were lost."""
        return self.rows(
            "SELECT e.id, e.graph_id AS graph, e.source, e.content, e.author FROM episodes e"
            " WHERE e.extraction_status = 'done' AND e.extractor = 'rules'"
            " AND e.unparsed = '[]'"
            " AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.episode_id = e.id) ORDER BY e.id"
        )

    # --- export (memcli export) ---

    def export_episodes(self, graph_id: str, batch: int = 500) -> Iterator[dict[str, Any]]:
        """Every episode of a graph in id order, each with its facts (all of them, ended
        ones too: the contradiction rules end them again on import). Read in batches, so
        a large graph is never held in memory at once."""
        last = 0
        while True:
            episodes = self.rows(
                "SELECT id, content, author, occurred_at, graph_id, source, extraction_status"
                " FROM episodes WHERE graph_id = ? AND id > ? ORDER BY id LIMIT ?",
                (graph_id, last, batch),
            )
            if not episodes:
                return
            ids = [e["id"] for e in episodes]
            facts: dict[int, list[dict[str, Any]]] = {i: [] for i in ids}
            marks = ",".join("?" * len(ids))
            for row in self.rows(
                "SELECT f.episode_id, s.name AS source, f.relation, t.name AS target,"
                " s.type AS source_type, t.type AS target_type, f.sentence"
                " FROM facts f JOIN entities s ON s.id = f.source_id"
                " JOIN entities t ON t.id = f.target_id"
                f" WHERE f.episode_id IN ({marks}) ORDER BY f.id",
                ids,
            ):
                facts[row.pop("episode_id")].append(row)
            for e in episodes:
                e["facts"] = facts[e["id"]]
                yield e
            last = ids[-1]

    # --- graphs ---

    def ensure_graph(self, graph_id: str) -> None:
        self.conn.execute(
            "INSERT INTO graphs (id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING",
            (graph_id, utcnow()),
        )

    def graph_exists(self, graph_id: str) -> bool:
        return self.scalar("SELECT 1 FROM graphs WHERE id = ?", (graph_id,)) is not None

    def graph_ids(self) -> list[str]:
        return [r[0] for r in self.conn.execute("SELECT id FROM graphs ORDER BY id")]

    def graph(self, graph_id: str) -> dict[str, Any] | None:
        rows = self.rows("SELECT * FROM graphs WHERE id = ?", (graph_id,))
        return rows[0] if rows else None

    def graphs_with_counts(self) -> list[dict[str, Any]]:
        return self.rows(
            """
            SELECT g.id AS graph, g.created_at, g.last_ingest_at,
              (SELECT count(*) FROM episodes e WHERE e.graph_id = g.id) AS episodes,
              (SELECT count(*) FROM entities n WHERE n.graph_id = g.id) AS entities,
              (SELECT count(*) FROM facts f WHERE f.graph_id = g.id) AS facts,
              (SELECT count(*) FROM facts f WHERE f.graph_id = g.id
                 AND f.invalid_at IS NULL) AS current_facts,
              (SELECT count(*) FROM observations o WHERE o.graph_id = g.id
                 AND o.status = 'active') AS active_observations,
              (SELECT max(finished_at) FROM analysis_runs r
                 WHERE r.graph_id = g.id) AS last_analyzed_at
            FROM graphs g ORDER BY g.id
            """
        )

    def bump_ingest(self, graph_id: str) -> None:
        self.conn.execute(
            "UPDATE graphs SET ingest_seq = ingest_seq + 1, last_ingest_at = ? WHERE id = ?",
            (utcnow(), graph_id),
        )

    # --- episodes, entities, facts ---

    def episode_id_by_hash(
        self, graph_id: str, content_hash: str, *, occurred_at: str | None = None
    ) -> int | None:
        """The episode with this hash (and, if given, this time) in the graph."""
        sql = "SELECT id FROM episodes WHERE graph_id = ? AND content_hash = ?"
        params: tuple[str, ...] = (graph_id, content_hash)
        if occurred_at is not None:
            sql += " AND occurred_at = ?"
            params += (occurred_at,)
        value = self.scalar(sql, params)
        return int(value) if value is not None else None

    def insert_episode(self, row: dict[str, Any]) -> int:
        cur = self.conn.execute(
            """
            INSERT INTO episodes (graph_id, content_hash, content, author, occurred_at,
              ingested_at, source, format, extractor, extraction_status, unparsed)
            VALUES (:graph_id, :content_hash, :content, :author, :occurred_at,
              :ingested_at, :source, :format, :extractor, :extraction_status, :unparsed)
            """,
            row,
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def entity_id(self, graph_id: str, norm: str, type_: str) -> int | None:
        key = (graph_id, type_, norm)
        cached = self._entities.get(key)
        if cached is not None:
            return cached
        value = self.scalar(
            "SELECT id FROM entities WHERE graph_id = ? AND type = ? AND norm = ?",
            (graph_id, type_, norm),
        )
        if value is None:
            return None
        self._entities[key] = int(value)
        return int(value)

    def upsert_entity(self, graph_id: str, name: str, norm: str, type_: str) -> int:
        """The entity with this normalised key and type, created on first sight."""
        existing = self.entity_id(graph_id, norm, type_)
        if existing is None:
            cur = self.conn.execute(
                "INSERT INTO entities (graph_id, name, norm, type, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (graph_id, name, norm, type_, utcnow()),
            )
            assert cur.lastrowid is not None
            existing = cur.lastrowid
            self._entities[(graph_id, type_, norm)] = existing
        if (existing, name) not in self._aliases:
            self.conn.execute(
                "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?, ?)",
                (existing, name),
            )
            self._aliases.add((existing, name))
        return existing

    def add_alias(self, entity_id: int, alias: str) -> None:
        """Record another name for an entity (search and lookups find it by this name)."""
        if (entity_id, alias) not in self._aliases:
            self.conn.execute(
                "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?, ?)",
                (entity_id, alias),
            )
            self._aliases.add((entity_id, alias))

    def insert_fact(
        self,
        graph_id: str,
        episode_id: int,
        source_id: int,
        relation: str,
        target_id: int,
        sentence: str,
        valid_at: str,
        invalid_at: str | None = None,
    ) -> int | None:
        """Insert one fact; None if the episode already states it.

        ``invalid_at`` is set when the update itself says when the fact stopped holding.
        """
        now = utcnow()
        cur = self.conn.execute(
            """
            INSERT OR IGNORE INTO facts (graph_id, episode_id, source_id, relation, target_id,
              sentence, valid_at, invalid_at, created_at, expired_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            (
                graph_id,
                episode_id,
                source_id,
                relation,
                target_id,
                sentence,
                valid_at,
                invalid_at,
                now,
                now if invalid_at else None,
            ),
        )
        return cur.lastrowid if cur.rowcount else None

    def add_signatures(self, graph_id: str, fact_id: int, keys: Iterable[tuple[str, str]]) -> None:
        for kind, key in keys:
            sig_id = self._signatures.get((graph_id, key))
            if sig_id is None:
                self.conn.execute(
                    "INSERT INTO signatures (graph_id, kind, key) VALUES (?, ?, ?)"
                    " ON CONFLICT(graph_id, key) DO NOTHING",
                    (graph_id, kind, key),
                )
                sig_id = int(
                    self.scalar(
                        "SELECT id FROM signatures WHERE graph_id = ? AND key = ?",
                        (graph_id, key),
                    )
                )
                self._signatures[(graph_id, key)] = sig_id
            self.conn.execute(
                "INSERT OR IGNORE INTO fact_signatures (fact_id, signature_id) VALUES (?, ?)",
                (fact_id, sig_id),
            )

    # --- contradiction rules, applied in the ingest transaction ---

    def apply_contradictions(self, episode_id: int, relations: Iterable[str] | None = None) -> int:
        """End facts that this episode's state changes contradict, in both time directions.

        Rules (deterministic, scoped to the same entity and relation):
        1. ``completed(_, X)`` at t ends every ``blocked_by(_, X)`` that became valid at or
           before t. A ``blocked_by(_, X)`` stated after t stays valid (it was reopened).
        2. ``unblocked_from(S, X)`` at t ends ``blocked_by(S, X)`` valid at or before t.
        3. ``owns(P, X)`` at t ends ``owns(Q, X)`` for Q != P of the same entity type (a
           person replaces a person, a team a team) that became valid before t.
        Each rule also runs the other way round, so an older update ingested after a newer
        one is stored already ended and cannot resurrect what the newer one ended. A fact
        ends at its earliest contradiction (ties broken by content hash), so the fact
        table is the same whatever order the updates arrive in.
        ``relations`` (the relations this episode stated, when known) skips the rules that
        cannot apply. Returns how many facts were ended.
        """
        rels = set(relations) if relations is not None else {r.value for r in Relation}
        now = utcnow()
        ended = 0
        digest = self.scalar("SELECT content_hash FROM episodes WHERE id = ?", (episode_id,))
        params = {"ep": episode_id, "now": now, "hash": digest}
        for rule, needs in _CONTRADICTION_RULES:
            if needs & rels:
                ended += self.conn.execute(rule, params).rowcount
        return ended

    # --- reads for analysis ---
    #
    # Analysis may be scoped to a set of episodes (an incremental run): ``set_scope``
    # fills a temp table the queries below join on.

    _scoped = False

    def set_scope(self, episode_ids: Iterable[int] | None) -> None:
        """Restrict the analysis reads below to these episodes (None: the whole graph)."""
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS scope (episode_id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM temp.scope")
        self._scoped = episode_ids is not None
        if episode_ids is not None:
            self.conn.executemany(
                "INSERT OR IGNORE INTO temp.scope (episode_id) VALUES (?)",
                ((i,) for i in sorted(episode_ids)),
            )

    def _facts_from(self) -> str:
        """``facts f``, driven from the scope table in a scoped run.

        CROSS JOIN fixes the loop order: walk the (small) scope and look facts up by
        episode, instead of scanning the graph's facts and probing the scope.
        """
        if not self._scoped:
            return "facts f"
        return "temp.scope sc CROSS JOIN facts f ON f.episode_id = sc.episode_id"

    def analysis_facts(self, graph_id: str, as_of: str | None = None) -> list[FactRow]:
        """Every fact of the graph (or scope) that is valid now (or at ``as_of``)."""
        where, params = validity(as_of)
        cur = self.conn.execute(
            f"""
            SELECT f.id, f.episode_id, f.source_id, f.relation, f.target_id, f.valid_at,
                   f.invalid_at
            FROM {self._facts_from()} WHERE f.graph_id = :graph AND {where}
            ORDER BY f.id
            """,
            {"graph": graph_id, **params},
        )
        return [FactRow(*row) for row in cur]

    def episode_ids(self, graph_id: str) -> list[int]:
        if self._scoped:
            return [r[0] for r in self.conn.execute("SELECT episode_id FROM temp.scope")]
        return [
            r[0]
            for r in self.conn.execute("SELECT id FROM episodes WHERE graph_id = ?", (graph_id,))
        ]

    def episode_times(self, graph_id: str) -> dict[int, float]:
        """Episode id -> world time as epoch seconds (for the linking window)."""
        cur = self.conn.execute(
            f"""
            SELECT f.id, CAST(strftime('%s', f.occurred_at) AS INTEGER)
            FROM {self._episodes_from()} WHERE f.graph_id = ?
            """,
            (graph_id,),
        )
        return {int(a): float(b or 0) for a, b in cur}

    def _episodes_from(self) -> str:
        """``episodes f``, driven from the scope table in a scoped run."""
        if not self._scoped:
            return "episodes f"
        return "temp.scope sc CROSS JOIN episodes f ON f.id = sc.episode_id"

    def signature_incidences(
        self, graph_id: str, kinds: Sequence[str], as_of: str | None = None
    ) -> list[tuple[int, int, str]]:
        """(episode id, signature id, kind) carried by currently valid facts."""
        where, params = validity(as_of)
        marks = ", ".join(f":k{i}" for i in range(len(kinds)))
        cur = self.conn.execute(
            f"""
            SELECT DISTINCT f.episode_id, fs.signature_id, s.kind
            FROM {self._facts_from()}
            JOIN fact_signatures fs ON fs.fact_id = f.id
            JOIN signatures s ON s.id = fs.signature_id
            WHERE f.graph_id = :graph AND s.kind IN ({marks}) AND {where}
            """,
            {"graph": graph_id, **{f"k{i}": k for i, k in enumerate(kinds)}, **params},
        )
        return [(int(a), int(b), str(c)) for a, b, c in cur]

    def last_run(self, graph_id: str) -> dict[str, Any] | None:
        rows = self.rows(
            "SELECT * FROM analysis_runs WHERE graph_id = ? ORDER BY id DESC LIMIT 1",
            (graph_id,),
        )
        return rows[0] if rows else None

    def affected_episodes(
        self,
        graph_id: str,
        since: str,
        max_episode_id: int,
        kinds: Sequence[str],
        max_fact_id: int = 0,
        *,
        window_seconds: float | None = None,
        hub_threshold: int | None = None,
    ) -> set[int]:
        """Episodes whose cluster new evidence can change since the last run.

        Changed facts are those added since the last run (fact id watermark) or ended
        since it. Their episodes, the other carriers of their signatures, and every member
        of those episodes' previous components are affected. Two carriers need no redo:
        those farther than the linking window from every changed episode (their links
        among themselves cannot change), and all carriers of a literal signature that was
        a hub before and still is one (it links nothing either way). Facts are only ever
        added or ended, so nothing outside this set can change.
        """
        changed = self.rows(
            """
            SELECT f.id, f.episode_id, CAST(strftime('%s', e.occurred_at) AS INTEGER) AS t
            FROM facts f JOIN episodes e ON e.id = f.episode_id
            WHERE f.id > :max_fact AND f.graph_id = :graph
            UNION
            SELECT f.id, f.episode_id, CAST(strftime('%s', e.occurred_at) AS INTEGER) AS t
            FROM facts f JOIN episodes e ON e.id = f.episode_id
            WHERE f.graph_id = :graph AND f.expired_at >= :since
            """,
            {"graph": graph_id, "since": since, "max_fact": max_fact_id},
        )
        seeds = {
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM episodes WHERE graph_id = :graph AND id > :max_ep",
                {"graph": graph_id, "max_ep": max_episode_id},
            )
        }
        seeds |= {r["episode_id"] for r in changed}
        time_of = {r["episode_id"]: float(r["t"] or 0) for r in changed}
        by_sig: dict[int, set[int]] = defaultdict(set)
        kind_of: dict[int, str] = {}
        fact_ids = [r["id"] for r in changed]
        episode_of = {r["id"]: r["episode_id"] for r in changed}
        for i in range(0, len(fact_ids), 500):
            chunk = fact_ids[i : i + 500]
            for fact_id, sig, kind in self.conn.execute(
                "SELECT fs.fact_id, fs.signature_id, s.kind FROM fact_signatures fs"
                " JOIN signatures s ON s.id = fs.signature_id"
                f" WHERE fs.fact_id IN ({','.join('?' * len(chunk))})",
                chunk,
            ):
                if kind in kinds:
                    by_sig[sig].add(episode_of[fact_id])
                    kind_of[sig] = kind
        for sig, touched in sorted(by_sig.items()):
            carriers = self.conn.execute(
                """
                SELECT DISTINCT f.episode_id, CAST(strftime('%s', e.occurred_at) AS INTEGER)
                FROM fact_signatures fs
                JOIN facts f ON f.id = fs.fact_id AND f.invalid_at IS NULL
                JOIN episodes e ON e.id = f.episode_id
                WHERE fs.signature_id = ?
                """,
                (sig,),
            ).fetchall()
            if (
                hub_threshold is not None
                and kind_of[sig] == "literal"
                and len(carriers) - len(touched) > hub_threshold
            ):
                continue  # a hub before and after: it links nothing either way
            if window_seconds is None:
                seeds.update(int(e) for e, _ in carriers)
                continue
            times = [time_of[e] for e in touched]
            lo, hi = min(times) - window_seconds, max(times) + window_seconds
            seeds.update(int(e) for e, t in carriers if lo <= float(t or 0) <= hi)
        if not seeds:
            return set()
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS seeds (episode_id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM temp.seeds")
        self.conn.executemany(
            "INSERT OR IGNORE INTO temp.seeds (episode_id) VALUES (?)", ((i,) for i in seeds)
        )
        members = {
            r[0]
            for r in self.conn.execute(
                """
                SELECT ec.episode_id FROM episode_clusters ec
                WHERE ec.graph_id = ? AND ec.component_id IN (
                    SELECT e2.component_id FROM episode_clusters e2
                    JOIN temp.seeds s ON s.episode_id = e2.episode_id)
                """,
                (graph_id,),
            )
        }
        self.conn.execute("DELETE FROM temp.seeds")
        return seeds | members

    def save_membership(
        self, graph_id: str, membership: dict[int, int], component: dict[int, int], *, full: bool
    ) -> None:
        if full:
            self.conn.execute("DELETE FROM episode_clusters WHERE graph_id = ?", (graph_id,))
        self.conn.executemany(
            "INSERT OR REPLACE INTO episode_clusters (episode_id, graph_id, cluster_id,"
            " component_id) VALUES (?, ?, ?, ?)",
            ((e, graph_id, c, component[e]) for e, c in membership.items()),
        )

    def signature_keys(self, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        return {
            r["id"]: (r["kind"], r["key"])
            for r in self.rows_in("SELECT id, kind, key FROM signatures WHERE id IN ({marks})", ids)
        }

    def dependency_cones(
        self, graph_id: str, membership: dict[int, int], as_of: str | None = None
    ) -> list[tuple[int, int, int, int]]:
        """Walk blocked_by chains inside each cluster with a recursive CTE.

        ``membership`` maps episode id -> cluster id. A chain is followed only through
        facts of the same cluster, so clusters stay the unit of analysis. Returns
        (cluster id, root entity id, node entity id, depth) rows; depth 0 is the root
        itself. A root is work that others in the cluster wait on and that waits on
        nothing in the cluster. Cycles stop at depth 64 and contribute no root.
        """
        where, params = validity(as_of)
        self.conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS cluster_members ("
            " episode_id INTEGER PRIMARY KEY, cluster_id INTEGER NOT NULL)"
        )
        self.conn.execute("DELETE FROM temp.cluster_members")
        self.conn.executemany(
            "INSERT INTO temp.cluster_members (episode_id, cluster_id) VALUES (?, ?)",
            sorted(membership.items()),
        )
        cur = self.conn.execute(
            f"""
            WITH RECURSIVE
            edges(cluster_id, src, tgt) AS (
                SELECT DISTINCT cm.cluster_id, f.source_id, f.target_id
                FROM facts f JOIN temp.cluster_members cm ON cm.episode_id = f.episode_id
                WHERE f.graph_id = :graph AND f.relation = 'blocked_by' AND {where}
            ),
            roots(cluster_id, root) AS (
                SELECT DISTINCT e.cluster_id, e.tgt FROM edges e
                WHERE NOT EXISTS (
                    SELECT 1 FROM edges o WHERE o.cluster_id = e.cluster_id AND o.src = e.tgt)
            ),
            cone(cluster_id, root, node, depth) AS (
                SELECT cluster_id, root, root, 0 FROM roots
                UNION
                SELECT c.cluster_id, c.root, e.src, c.depth + 1
                FROM cone c JOIN edges e ON e.cluster_id = c.cluster_id AND e.tgt = c.node
                WHERE c.depth < 64
            )
            SELECT cluster_id, root, node, min(depth) FROM cone
            GROUP BY cluster_id, root, node
            ORDER BY cluster_id, root, node
            """,
            {"graph": graph_id, **params},
        )
        rows = [(int(a), int(b), int(c), int(d)) for a, b, c, d in cur]
        self.conn.execute("DELETE FROM temp.cluster_members")
        return rows

    def entities_by_id(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        sql = "SELECT id, name, type, norm FROM entities WHERE id IN ({marks})"
        return {r["id"]: r for r in self.rows_in(sql, ids)}

    def episodes_by_id(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        sql = "SELECT id, author, occurred_at, source FROM episodes WHERE id IN ({marks})"
        return {r["id"]: r for r in self.rows_in(sql, ids)}

    def root_since(self, graph_id: str, entity_id: int) -> str | None:
        """When this work stopped waiting on anything: its latest ended blocked_by fact."""
        value = self.scalar(
            "SELECT max(invalid_at) FROM facts WHERE graph_id = ? AND source_id = ?"
            " AND relation = 'blocked_by' AND invalid_at IS NOT NULL",
            (graph_id, entity_id),
        )
        return str(value) if value is not None else None

    def completions(self, graph_id: str, entity_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """For each work item, its latest completed fact (who, when, which episode)."""
        sql = """
            SELECT target_id, episode_id, valid_at FROM facts
            WHERE graph_id = ? AND relation = 'completed' AND target_id IN ({marks})
            ORDER BY valid_at
        """
        # ordered by time, so the latest completion of each item is the one kept
        return {r["target_id"]: r for r in self.rows_in(sql, entity_ids, graph_id)}

    # --- observations ---

    def active_observations(self, graph_id: str) -> list[dict[str, Any]]:
        """Active observations; in a scoped run, only those with evidence in the scope."""
        if self._scoped:
            obs = self.rows(
                """
                SELECT * FROM observations WHERE graph_id = ? AND status = 'active'
                  AND id IN (SELECT oe.observation_id FROM observation_evidence oe
                             JOIN temp.scope sc ON sc.episode_id = oe.item_id
                             WHERE oe.item_type = 'episode')
                ORDER BY id
                """,
                (graph_id,),
            )
        else:
            obs = self.rows(
                "SELECT * FROM observations WHERE graph_id = ? AND status = 'active' ORDER BY id",
                (graph_id,),
            )
        for o in obs:
            o["evidence"] = self.evidence(o["id"])
        return obs

    def evidence(self, observation_id: int) -> list[tuple[str, int, str]]:
        return [
            (r[0], int(r[1]), r[2])
            for r in self.conn.execute(
                "SELECT item_type, item_id, role FROM observation_evidence"
                " WHERE observation_id = ? ORDER BY item_type, item_id",
                (observation_id,),
            )
        ]

    def insert_observation(self, row: dict[str, Any], evidence: list[tuple[str, int, str]]) -> int:
        cur = self.conn.execute(
            """
            INSERT INTO observations (graph_id, name, summary, status, kind, pattern_key,
              cluster_id, fingerprint, rank, start_at, valid_from, latest_evidence_at,
              created_at, updated_at, version, writer)
            VALUES (:graph_id, :name, :summary, 'active', :kind, :pattern_key, :cluster_id,
              :fingerprint, :rank, :start_at, :valid_from, :latest_evidence_at, :now, :now, 1,
              :writer)
            """,
            row,
        )
        assert cur.lastrowid is not None
        obs_id = cur.lastrowid
        self._write_evidence(obs_id, evidence)
        self._snapshot(obs_id)
        return obs_id

    def update_observation(
        self, obs_id: int, row: dict[str, Any], evidence: list[tuple[str, int, str]]
    ) -> None:
        self.conn.execute(
            """
            UPDATE observations SET name = :name, summary = :summary, kind = :kind,
              cluster_id = :cluster_id, fingerprint = :fingerprint, rank = :rank,
              start_at = :start_at, valid_from = min(coalesce(valid_from, :valid_from), :valid_from),
              latest_evidence_at = :latest_evidence_at,
              updated_at = :now, version = version + 1, writer = :writer
            WHERE id = :id
            """,
            {**row, "id": obs_id},
        )
        self.conn.execute("DELETE FROM observation_evidence WHERE observation_id = ?", (obs_id,))
        self._write_evidence(obs_id, evidence)
        self._snapshot(obs_id)

    def touch_observation(self, obs_id: int, rank: int, cluster_id: int | None) -> None:
        """Same pattern, same evidence: only bookkeeping that is not part of the version."""
        self.conn.execute(
            "UPDATE observations SET rank = ?, cluster_id = ? WHERE id = ?"
            " AND (rank != ? OR cluster_id IS NOT ?)",
            (rank, cluster_id, obs_id, rank, cluster_id),
        )

    def retire_observation(
        self, obs_id: int, reason: str, end_at: str, episode_id: int | None, now: str
    ) -> None:
        self.conn.execute(
            """
            UPDATE observations SET status = 'retired', retire_reason = ?, end_at = ?,
              retired_by_episode = ?, updated_at = ?
            WHERE id = ?
            """,
            (reason, end_at, episode_id, now, obs_id),
        )

    def link_observations(self, newer: int, older: int, now: str) -> None:
        self.conn.execute(
            "INSERT OR IGNORE INTO observation_links (from_id, to_id, kind, created_at)"
            " VALUES (?, ?, 'supersedes', ?)",
            (newer, older, now),
        )

    def _write_evidence(self, obs_id: int, evidence: list[tuple[str, int, str]]) -> None:
        self.conn.executemany(
            "INSERT OR REPLACE INTO observation_evidence (observation_id, item_type, item_id, role)"
            " VALUES (?, ?, ?, ?)",
            [(obs_id, t, i, r) for t, i, r in evidence],
        )

    def _snapshot(self, obs_id: int) -> None:
        obs = self.rows("SELECT * FROM observations WHERE id = ?", (obs_id,))[0]
        self.conn.execute(
            """
            INSERT OR REPLACE INTO observation_versions (observation_id, version, name, summary,
              kind, start_at, latest_evidence_at, evidence, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            (
                obs_id,
                obs["version"],
                obs["name"],
                obs["summary"],
                obs["kind"],
                obs["start_at"],
                obs["latest_evidence_at"],
                json.dumps(self.evidence(obs_id)),
                obs["updated_at"],
            ),
        )

    def record_run(self, row: dict[str, Any]) -> int:
        cur = self.conn.execute(
            """
            INSERT INTO analysis_runs (graph_id, started_at, finished_at, mode, config,
              episodes, clusters, created, updated, retired, unchanged, max_episode_id,
              max_fact_id, seconds)
            VALUES (:graph_id, :started_at, :finished_at, :mode, :config, :episodes,
              :clusters, :created, :updated, :retired, :unchanged, :max_episode_id,
              :max_fact_id, :seconds)
            """,
            row,
        )
        assert cur.lastrowid is not None
        return cur.lastrowid

    def mark_analyzed(self, graph_id: str, seq: int, config: str) -> None:
        self.conn.execute(
            "UPDATE graphs SET analyzed_seq = ?, analyzed_config = ? WHERE id = ?",
            (seq, config, graph_id),
        )

    # --- search (m003_search); callers build ``match`` with memcli.search, never raw ---

    def _search(self, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
        """Run a MATCH query; an FTS5 syntax error is the caller's bug, not the user's."""
        try:
            return self.rows(sql, params)
        except sqlite3.OperationalError as exc:
            if "fts5" in str(exc) or "MATCH" in str(exc):
                raise StoreError(
                    f"search query could not be run: {exc}",
                    hint="this is a memcli bug; please report the query text",
                ) from None
            raise

    def search_observations(
        self,
        graph_id: str,
        match: str,
        *,
        include_retired: bool,
        limit: int,
        marks: tuple[str, str],
    ) -> list[dict[str, Any]]:
        """Observations matching ``match``, best BM25 first (a name hit weighs 4x)."""
        status = "" if include_retired else " AND o.status = 'active'"
        return self._search(
            f"""
            SELECT o.id, o.name, o.summary, o.status, o.kind, o.rank, o.start_at,
              o.latest_evidence_at, o.end_at, o.retire_reason,
              (SELECT count(*) FROM observation_evidence oe WHERE oe.observation_id = o.id
                 AND oe.item_type = 'episode') AS episodes,
              bm25(observations_fts, 4.0, 1.0) AS bm25,
              snippet(observations_fts, -1, :open, :close, '…', 16) AS snippet
            FROM observations_fts JOIN observations o ON o.id = observations_fts.rowid
            WHERE observations_fts MATCH :match AND o.graph_id = :graph{status}
            ORDER BY bm25, o.id LIMIT :limit
            """,
            {
                "match": match,
                "graph": graph_id,
                "limit": limit,
                "open": marks[0],
                "close": marks[1],
            },
        )

    def search_facts(
        self, graph_id: str, match: str, *, include_ended: bool, limit: int, marks: tuple[str, str]
    ) -> list[dict[str, Any]]:
        """Facts matching ``match`` on "source relation target sentence"; current ones only
        unless ``include_ended``."""
        current = "" if include_ended else " AND f.invalid_at IS NULL"
        return self._search(
            f"""
            SELECT f.id, s.name AS source, f.relation, t.name AS target, f.sentence,
              f.episode_id, e.source AS episode_source, e.author, f.valid_at, f.invalid_at,
              f.invalidated_by,
              bm25(fact_docs_fts) AS bm25,
              snippet(fact_docs_fts, 0, :open, :close, '…', 16) AS snippet
            FROM fact_docs_fts JOIN facts f ON f.id = fact_docs_fts.rowid
            JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
            JOIN episodes e ON e.id = f.episode_id
            WHERE fact_docs_fts MATCH :match AND f.graph_id = :graph{current}
            ORDER BY bm25, f.id LIMIT :limit
            """,
            {
                "match": match,
                "graph": graph_id,
                "limit": limit,
                "open": marks[0],
                "close": marks[1],
            },
        )

    def search_episodes(
        self, graph_id: str, match: str, *, limit: int, marks: tuple[str, str]
    ) -> list[dict[str, Any]]:
        """Episodes matching ``match`` in their text or author (an author hit weighs 2x)."""
        return self._search(
            """
            SELECT e.id, e.author, e.occurred_at, e.source,
              bm25(episodes_fts, 1.0, 2.0) AS bm25,
              snippet(episodes_fts, -1, :open, :close, '…', 16) AS snippet
            FROM episodes_fts JOIN episodes e ON e.id = episodes_fts.rowid
            WHERE episodes_fts MATCH :match AND e.graph_id = :graph
            ORDER BY bm25, e.id LIMIT :limit
            """,
            {
                "match": match,
                "graph": graph_id,
                "limit": limit,
                "open": marks[0],
                "close": marks[1],
            },
        )

    def search_entities(
        self, graph_id: str, match: str, *, limit: int, marks: tuple[str, str]
    ) -> list[dict[str, Any]]:
        """Entities matching ``match`` in their name or any alias (a name hit weighs 2x)."""
        return self._search(
            """
            SELECT n.id, n.name, n.type,
              bm25(entity_docs_fts, 2.0, 1.0) AS bm25,
              snippet(entity_docs_fts, -1, :open, :close, '…', 12) AS snippet
            FROM entity_docs_fts JOIN entities n ON n.id = entity_docs_fts.rowid
            WHERE entity_docs_fts MATCH :match AND n.graph_id = :graph
            ORDER BY bm25, n.id LIMIT :limit
            """,
            {
                "match": match,
                "graph": graph_id,
                "limit": limit,
                "open": marks[0],
                "close": marks[1],
            },
        )

    def _id_pairs(self, sql: str, ids: Sequence[int], *extra: Any) -> dict[int, list[Any]]:
        """Run ``sql`` (two columns: key, value; ``{marks}`` for the id list) in chunks."""
        out: dict[int, list[Any]] = {i: [] for i in ids}
        for chunk, marks in self._chunks(ids):
            for key, value in self.conn.execute(sql.format(marks=marks), [*extra, *chunk]):
                if value is not None and value not in out[key]:
                    out[key].append(value)
        return {k: sorted(v) for k, v in out.items()}

    def observation_evidence_ids(
        self, obs_ids: Sequence[int], item_type: str
    ) -> dict[int, list[int]]:
        """For each observation, the ids of its evidence items of one type."""
        return self._id_pairs(
            "SELECT observation_id, item_id FROM observation_evidence"
            " WHERE item_type = ? AND observation_id IN ({marks})",
            obs_ids,
            item_type,
        )

    def citing_observations(
        self, item_type: str, item_ids: Sequence[int], *, active_only: bool = True
    ) -> dict[int, list[int]]:
        """For each episode, fact or entity, the observations that cite it as evidence."""
        status = " AND o.status = 'active'" if active_only else ""
        return self._id_pairs(
            "SELECT oe.item_id, oe.observation_id FROM observation_evidence oe"
            " JOIN observations o ON o.id = oe.observation_id"
            f" WHERE oe.item_type = ?{status} AND oe.item_id IN ({{marks}})",
            item_ids,
            item_type,
        )

    def episode_fact_ids(self, episode_ids: Sequence[int]) -> dict[int, list[int]]:
        """For each episode, the facts extracted from it."""
        return self._id_pairs(
            "SELECT episode_id, id FROM facts WHERE episode_id IN ({marks})", episode_ids
        )

    def _by_either_end(
        self, value: str, entity_ids: Sequence[int], where: str = ""
    ) -> dict[int, list[int]]:
        """For each entity, ``value`` of every fact it is the source or the target of."""
        out = self._id_pairs(
            f"SELECT source_id, {value} FROM facts WHERE source_id IN ({{marks}}){where}",
            entity_ids,
        )
        for key, values in self._id_pairs(
            f"SELECT target_id, {value} FROM facts WHERE target_id IN ({{marks}}){where}",
            entity_ids,
        ).items():
            out[key] = sorted(set(out[key]) | set(values))
        return out

    def entity_fact_ids(
        self, entity_ids: Sequence[int], *, current_only: bool = True
    ) -> dict[int, list[int]]:
        """For each entity, the facts it is the source or the target of."""
        return self._by_either_end(
            "id", entity_ids, " AND invalid_at IS NULL" if current_only else ""
        )

    def entity_episode_ids(self, entity_ids: Sequence[int]) -> dict[int, list[int]]:
        """For each entity, the episodes with a fact about it."""
        return self._by_either_end("episode_id", entity_ids)

    def episode_sources(self, episode_ids: Iterable[int]) -> dict[int, str]:
        return {i: r["source"] for i, r in self.episodes_by_id(episode_ids).items()}

    def entity_aliases(self, entity_ids: Sequence[int]) -> dict[int, list[str]]:
        return self._id_pairs(
            "SELECT entity_id, alias FROM entity_aliases WHERE entity_id IN ({marks})", entity_ids
        )

    def newest_evidence_at(self, graph_id: str) -> str | None:
        value = self.scalar(
            "SELECT max(latest_evidence_at) FROM observations WHERE graph_id = ?", (graph_id,)
        )
        return str(value) if value is not None else None

    def fts_integrity_check(self) -> None:
        """Raise if any search index disagrees with the rows it indexes (tests, doctor)."""
        for fts in ("episodes_fts", "observations_fts", "entity_docs_fts", "fact_docs_fts"):
            self.conn.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")

    # --- episodes, entity timelines, dependency pictures, report marks ---

    def episode_rows(
        self,
        *,
        graph_id: str | None = None,
        ids: Sequence[int] | None = None,
        lastn: int | None = None,
    ) -> list[dict[str, Any]]:
        """Whole episodes (text included), oldest first; ``lastn``: only the newest n."""
        where: list[str] = ["1 = 1"]
        params: list[Any] = []
        if graph_id is not None:
            where.append("graph_id = ?")
            params.append(graph_id)
        if ids is not None:
            where.append(f"id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        sql = (
            "SELECT id, graph_id AS graph, content, author, occurred_at, ingested_at, source,"
            f" format, extractor, unparsed FROM episodes WHERE {' AND '.join(where)}"
            " ORDER BY occurred_at DESC, id DESC"
        )
        if lastn is not None:
            sql += " LIMIT ?"
            params.append(lastn)
        rows = self.rows(sql, params)
        for r in rows:
            r["unparsed"] = json.loads(r["unparsed"])
        return rows[::-1]

    def fact_rows(
        self, *, episode_ids: Sequence[int] = (), entity_ids: Sequence[int] = ()
    ) -> list[dict[str, Any]]:
        """Facts stated by these episodes or about these entities, in world-time order,
        each with its episode and the episode that ended it (if any)."""
        found: dict[int, dict[str, Any]] = {}
        for column, ids in (
            ("f.episode_id", episode_ids),
            ("f.source_id", entity_ids),
            ("f.target_id", entity_ids),
        ):
            id_list = sorted(set(ids))
            for i in range(0, len(id_list), 500):
                chunk = id_list[i : i + 500]
                for row in self.rows(
                    f"""
                    SELECT f.id, s.name AS source, s.type AS source_type, f.relation,
                      t.name AS target, t.type AS target_type, f.episode_id,
                      e.source AS episode_source, e.author, e.occurred_at, f.valid_at,
                      f.invalid_at, f.invalidated_by, x.source AS invalidated_by_source,
                      f.sentence
                    FROM facts f JOIN entities s ON s.id = f.source_id
                    JOIN entities t ON t.id = f.target_id
                    JOIN episodes e ON e.id = f.episode_id
                    LEFT JOIN episodes x ON x.id = f.invalidated_by
                    WHERE {column} IN ({",".join("?" * len(chunk))})
                    """,
                    chunk,
                ):
                    found[row["id"]] = row
        return sorted(found.values(), key=lambda r: (r["valid_at"], r["id"]))

    def entities_named(self, graph_id: str, norm: str, name: str) -> list[dict[str, Any]]:
        """Entities whose normalised name is ``norm`` or with an alias equal to ``name``
        (case-insensitive)."""
        rows = self.rows(
            """
            SELECT id, name, type FROM entities WHERE graph_id = :graph AND (norm = :norm
              OR id IN (SELECT entity_id FROM entity_aliases WHERE lower(alias) = lower(:name)))
            ORDER BY type, id
            """,
            {"graph": graph_id, "norm": norm, "name": name},
        )
        aliases = self.entity_aliases([r["id"] for r in rows])
        for r in rows:
            r["aliases"] = aliases[r["id"]]
        return rows

    def dependency_facts(
        self, graph_id: str, *, fact_ids: Sequence[int] | None = None
    ) -> list[dict[str, Any]]:
        """blocked_by and owns facts with entity names and types: the graph's current ones,
        or exactly ``fact_ids`` (current or ended, e.g. an observation's evidence)."""
        where = "f.invalid_at IS NULL"
        params: list[Any] = [graph_id]
        if fact_ids is not None:
            if not fact_ids:
                return []
            where = f"f.id IN ({','.join('?' * len(fact_ids))})"
            params += list(fact_ids)
        return self.rows(
            f"""
            SELECT f.id, f.source_id, s.name AS source, s.type AS source_type, f.relation,
              f.target_id, t.name AS target, t.type AS target_type, f.episode_id
            FROM facts f JOIN entities s ON s.id = f.source_id
            JOIN entities t ON t.id = f.target_id
            WHERE f.graph_id = ? AND {where} AND f.relation IN ('blocked_by', 'owns')
            ORDER BY f.id
            """,
            params,
        )

    def entity_roles(self, obs_ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(observation id, entity id, role) for these observations."""
        sql = (
            "SELECT observation_id, item_id, role FROM observation_evidence"
            " WHERE item_type = 'entity' AND observation_id IN ({marks})"
        )
        return [
            (int(r["observation_id"]), int(r["item_id"]), str(r["role"]))
            for r in self.rows_in(sql, obs_ids)
        ]

    def last_report(self, graph_id: str) -> tuple[str, dict[int, tuple[int, str]]] | None:
        """When the last report of a graph ran, and each observation's (version, status)
        as it saw them."""
        rows = self.rows(
            "SELECT last_report_at, observations FROM report_marks WHERE graph_id = ?",
            (graph_id,),
        )
        if not rows:
            return None
        seen = json.loads(rows[0]["observations"])
        return rows[0]["last_report_at"], {int(k): (int(v[0]), str(v[1])) for k, v in seen.items()}

    def mark_report(self, graph_id: str, at: str, seen: dict[int, tuple[int, str]]) -> None:
        with self.transaction():
            self.conn.execute(
                "INSERT INTO report_marks (graph_id, last_report_at, observations) VALUES (?, ?, ?)"
                " ON CONFLICT(graph_id) DO UPDATE SET last_report_at = excluded.last_report_at,"
                " observations = excluded.observations",
                (graph_id, at, json.dumps({str(k): list(v) for k, v in sorted(seen.items())})),
            )

    # --- language model: answer cache and pending extractions ---

    def llm_cache_get(self, content_hash: str, model: str, prompt_version: str) -> str | None:
        """A stored validated answer, counting the hit; None when there is none."""
        row = self.conn.execute(
            "SELECT response FROM llm_cache"
            " WHERE content_hash = ? AND model = ? AND prompt_version = ?",
            (content_hash, model, prompt_version),
        ).fetchone()
        if row is None:
            return None
        with self.transaction():
            self.conn.execute(
                "UPDATE llm_cache SET hits = hits + 1, last_hit_at = ?"
                " WHERE content_hash = ? AND model = ? AND prompt_version = ?",
                (utcnow(), content_hash, model, prompt_version),
            )
        return str(row[0])

    def llm_cache_put(
        self,
        content_hash: str,
        model: str,
        prompt_version: str,
        response: str,
        prompt_tokens: int,
        completion_tokens: int,
    ) -> None:
        with self.transaction():
            self.conn.execute(
                """
                INSERT INTO llm_cache (content_hash, model, prompt_version, response,
                  prompt_tokens, completion_tokens, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (content_hash, model, prompt_version) DO UPDATE SET
                  response = excluded.response, created_at = excluded.created_at
                """,
                (
                    content_hash,
                    model,
                    prompt_version,
                    response,
                    prompt_tokens,
                    completion_tokens,
                    utcnow(),
                ),
            )

    def pending_episodes(self, graph_id: str | None = None) -> list[dict[str, Any]]:
        """Episodes whose model extraction has not happened yet, oldest first."""
        where = "extraction_status = 'pending'"
        params: list[Any] = []
        if graph_id is not None:
            where += " AND graph_id = ?"
            params.append(graph_id)
        return self.rows(
            "SELECT id, graph_id, content, author, occurred_at, source, extractor, unparsed"
            f" FROM episodes WHERE {where} ORDER BY id",
            params,
        )

    def set_extraction(
        self, episode_id: int, *, status: str, extractor: str, unparsed: list[str]
    ) -> None:
        self.conn.execute(
            "UPDATE episodes SET extraction_status = ?, extractor = ?, unparsed = ? WHERE id = ?",
            (status, extractor, json.dumps(unparsed, ensure_ascii=False), episode_id),
        )

    def episode_texts(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """id -> author, occurred_at, content: what an observation writer may quote."""
        sql = "SELECT id, author, occurred_at, content FROM episodes WHERE id IN ({marks})"
        return {r["id"]: r for r in self.rows_in(sql, ids)}

    def fact_sentences(self, ids: Iterable[int]) -> dict[int, str]:
        sql = "SELECT id, sentence FROM facts WHERE id IN ({marks})"
        return {int(r["id"]): str(r["sentence"]) for r in self.rows_in(sql, ids)}

    def entity_names(self, graph_id: str) -> list[tuple[int, str, str]]:
        """(entity id, surface name, type) for every name and alias in the graph."""
        return [
            (int(i), str(n), str(t))
            for i, n, t in self.conn.execute(
                """
                SELECT n.id, a.alias, n.type FROM entities n
                JOIN entity_aliases a ON a.entity_id = n.id WHERE n.graph_id = ?
                UNION SELECT id, name, type FROM entities WHERE graph_id = ?
                """,
                (graph_id, graph_id),
            )
        ]
