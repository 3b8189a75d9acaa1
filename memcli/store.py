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
import sqlite3
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

SCHEMA_VERSION = 2  # number of the newest migration below


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
            start_at TEXT,
            latest_evidence_at TEXT,
            end_at TEXT,
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
            seconds REAL
        );
        CREATE INDEX analysis_runs_graph ON analysis_runs(graph_id, id);
        -- Cluster of every episode as of the last analyze: lets the next run re-cluster
        -- only what new evidence can reach.
        CREATE TABLE episode_clusters (
            episode_id INTEGER PRIMARY KEY REFERENCES episodes(id),
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            cluster_id INTEGER NOT NULL
        );
        CREATE INDEX episode_clusters_cluster ON episode_clusters(graph_id, cluster_id);
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


class Store:
    """An open memcli database. Applies pending migrations on open."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self.path = Path(path)
        if str(path) != ":memory:":
            if not self.path.exists():
                if not create:
                    raise StoreError(
                        f"no memcli database at {self.path}",
                        hint="run 'memcli ingest' first, or pass --db / set MEMCLI_DB",
                    )
                self.path.parent.mkdir(parents=True, exist_ok=True)
                # user-only permissions: status updates are private
                fd = os.open(self.path, os.O_CREAT | os.O_WRONLY, 0o600)
                os.close(fd)
            elif self.path.is_dir():
                raise StoreError(f"{self.path} is a directory, not a database file")
        try:
            conn = sqlite3.connect(
                str(self.path), timeout=busy_timeout_ms() / 1000, check_same_thread=False
            )
            self.db = Database(conn, execute_plugins=False)
            self.conn = conn
            conn.execute(f"PRAGMA busy_timeout = {busy_timeout_ms()}")
            conn.execute("PRAGMA foreign_keys = ON")
            if str(path) != ":memory:":
                with self.db.ensure_autocommit_on():
                    conn.execute("PRAGMA journal_mode = WAL")
            conn.execute("PRAGMA synchronous = NORMAL")
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(
                f"cannot open {self.path} as a memcli database: {exc}",
                hint="check the path given with --db or MEMCLI_DB",
            ) from None

    def _migrate(self) -> None:
        if not migrations.pending(self.db):
            return
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
        """A write transaction taken up front (BEGIN IMMEDIATE), or a savepoint if nested."""
        if self.conn.in_transaction:
            with self.db.atomic():
                yield self
            return
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self
        except BaseException:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            raise
        else:
            self.conn.execute("COMMIT")

    # --- small helpers ---

    def rows(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        keys = [d[0] for d in cur.description]
        return [dict(zip(keys, row, strict=True)) for row in cur.fetchall()]

    def scalar(self, sql: str, params: Sequence[Any] | dict[str, Any] = ()) -> Any:
        row = self.conn.execute(sql, params).fetchone()
        return row[0] if row else None

    def schema_version(self) -> int:
        return len(migrations.applied(self.db))

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

    def episode_id_by_hash(self, graph_id: str, content_hash: str) -> int | None:
        value = self.scalar(
            "SELECT id FROM episodes WHERE graph_id = ? AND content_hash = ?",
            (graph_id, content_hash),
        )
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
        value = self.scalar(
            "SELECT id FROM entities WHERE graph_id = ? AND type = ? AND norm = ?",
            (graph_id, type_, norm),
        )
        return int(value) if value is not None else None

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
        self.conn.execute(
            "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?, ?)",
            (existing, name),
        )
        return existing

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
            self.conn.execute(
                "INSERT INTO signatures (graph_id, kind, key) VALUES (?, ?, ?)"
                " ON CONFLICT(graph_id, key) DO NOTHING",
                (graph_id, kind, key),
            )
            sig_id = self.scalar(
                "SELECT id FROM signatures WHERE graph_id = ? AND key = ?", (graph_id, key)
            )
            self.conn.execute(
                "INSERT OR IGNORE INTO fact_signatures (fact_id, signature_id) VALUES (?, ?)",
                (fact_id, sig_id),
            )

    # --- contradiction rules, applied in the ingest transaction ---

    def apply_contradictions(self, episode_id: int) -> int:
        """End facts that this episode's state changes contradict, in both time directions.

        Rules (deterministic, scoped to the same entity and relation):
        1. ``completed(_, X)`` at t ends every ``blocked_by(_, X)`` that became valid at or
           before t. A ``blocked_by(_, X)`` stated after t stays valid (it was reopened).
        2. ``unblocked_from(S, X)`` at t ends ``blocked_by(S, X)`` valid at or before t.
        3. ``owns(P, X)`` at t ends ``owns(Q, X)`` for Q != P of the same entity type (a
           person replaces a person, a team a team) that became valid before t.
        Each rule also runs the other way round, so an older update ingested after a newer
        one is stored already ended and cannot resurrect what the newer one ended.
        Returns how many facts were ended.
        """
        now = utcnow()
        ended = 0
        # This episode's state changes end older facts.
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
                invalidated_by = c.episode_id
            FROM (SELECT target_id, min(valid_at) AS valid_at, min(episode_id) AS episode_id
                  FROM facts WHERE episode_id = :ep AND relation = 'completed'
                  GROUP BY target_id) AS c
            WHERE facts.relation = 'blocked_by' AND facts.target_id = c.target_id
              AND facts.valid_at <= c.valid_at
              AND (facts.invalid_at IS NULL OR facts.invalid_at > c.valid_at)
              AND facts.graph_id = (SELECT graph_id FROM episodes WHERE id = :ep)
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = u.valid_at, expired_at = :now,
                invalidated_by = u.episode_id
            FROM (SELECT source_id, target_id, valid_at, episode_id
                  FROM facts WHERE episode_id = :ep AND relation = 'unblocked_from') AS u
            WHERE facts.relation = 'blocked_by' AND facts.source_id = u.source_id
              AND facts.target_id = u.target_id AND facts.valid_at <= u.valid_at
              AND (facts.invalid_at IS NULL OR facts.invalid_at > u.valid_at)
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = o.valid_at, expired_at = :now,
                invalidated_by = o.episode_id
            FROM (SELECT f.source_id, f.target_id, f.valid_at, f.episode_id, s.type
                  FROM facts f JOIN entities s ON s.id = f.source_id
                  WHERE f.episode_id = :ep AND f.relation = 'owns') AS o
            WHERE facts.relation = 'owns' AND facts.target_id = o.target_id
              AND facts.source_id != o.source_id AND facts.valid_at < o.valid_at
              AND (SELECT type FROM entities WHERE id = facts.source_id) = o.type
              AND (facts.invalid_at IS NULL OR facts.invalid_at > o.valid_at)
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
        # Newer state changes already stored end this episode's own facts.
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
                invalidated_by = c.episode_id
            FROM (SELECT f.id AS fid, min(x.valid_at) AS valid_at, min(x.episode_id) AS episode_id
                  FROM facts f JOIN facts x ON x.target_id = f.target_id
                    AND x.relation = 'completed' AND x.valid_at >= f.valid_at
                    AND x.episode_id != f.episode_id
                  WHERE f.episode_id = :ep AND f.relation = 'blocked_by'
                  GROUP BY f.id) AS c
            WHERE facts.id = c.fid AND facts.invalid_at IS NULL
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
                invalidated_by = c.episode_id
            FROM (SELECT f.id AS fid, min(x.valid_at) AS valid_at, min(x.episode_id) AS episode_id
                  FROM facts f JOIN facts x ON x.target_id = f.target_id
                    AND x.source_id = f.source_id
                    AND x.relation = 'unblocked_from' AND x.valid_at >= f.valid_at
                    AND x.episode_id != f.episode_id
                  WHERE f.episode_id = :ep AND f.relation = 'blocked_by'
                  GROUP BY f.id) AS c
            WHERE facts.id = c.fid AND facts.invalid_at IS NULL
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
        ended += self.conn.execute(
            """
            UPDATE facts SET invalid_at = c.valid_at, expired_at = :now,
                invalidated_by = c.episode_id
            FROM (SELECT f.id AS fid, min(x.valid_at) AS valid_at, min(x.episode_id) AS episode_id
                  FROM facts f
                  JOIN entities fs ON fs.id = f.source_id
                  JOIN facts x ON x.target_id = f.target_id AND x.relation = 'owns'
                    AND x.source_id != f.source_id AND x.valid_at > f.valid_at
                  JOIN entities xs ON xs.id = x.source_id AND xs.type = fs.type
                  WHERE f.episode_id = :ep AND f.relation = 'owns'
                  GROUP BY f.id) AS c
            WHERE facts.id = c.fid AND facts.invalid_at IS NULL
            """,
            {"ep": episode_id, "now": now},
        ).rowcount
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

    def _scope_join(self, alias: str = "f") -> str:
        if not self._scoped:
            return ""
        return f" JOIN temp.scope sc ON sc.episode_id = {alias}.episode_id"

    def analysis_facts(self, graph_id: str, as_of: str | None = None) -> list[FactRow]:
        """Every fact of the graph (or scope) that is valid now (or at ``as_of``)."""
        where, params = validity(as_of)
        cur = self.conn.execute(
            f"""
            SELECT f.id, f.episode_id, f.source_id, f.relation, f.target_id, f.valid_at,
                   f.invalid_at
            FROM facts f{self._scope_join()} WHERE f.graph_id = :graph AND {where}
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

    def signature_incidences(
        self, graph_id: str, kinds: Sequence[str], as_of: str | None = None
    ) -> list[tuple[int, int]]:
        """(episode id, signature id) pairs carried by currently valid facts."""
        where, params = validity(as_of)
        marks = ", ".join(f":k{i}" for i in range(len(kinds)))
        cur = self.conn.execute(
            f"""
            SELECT DISTINCT f.episode_id, fs.signature_id
            FROM facts f{self._scope_join()}
            JOIN fact_signatures fs ON fs.fact_id = f.id
            JOIN signatures s ON s.id = fs.signature_id
            WHERE f.graph_id = :graph AND s.kind IN ({marks}) AND {where}
            """,
            {"graph": graph_id, **{f"k{i}": k for i, k in enumerate(kinds)}, **params},
        )
        return [(int(a), int(b)) for a, b in cur]

    def last_run(self, graph_id: str) -> dict[str, Any] | None:
        rows = self.rows(
            "SELECT * FROM analysis_runs WHERE graph_id = ? ORDER BY id DESC LIMIT 1",
            (graph_id,),
        )
        return rows[0] if rows else None

    def affected_episodes(
        self, graph_id: str, since: str, max_episode_id: int, kinds: Sequence[str]
    ) -> set[int]:
        """Episodes whose cluster new evidence can change since the last run.

        New episodes, episodes with facts ended since then, every episode that shares a
        signature with one of those facts, and every member of their previous clusters.
        Facts are only ever added or ended, so nothing outside this set can change.
        """
        marks = ", ".join("?" * len(kinds))
        changed = """
            SELECT id, episode_id FROM facts
            WHERE graph_id = :graph
              AND (episode_id > :max_ep OR expired_at >= :since OR created_at >= :since)
        """
        seeds = {
            r[0]
            for r in self.conn.execute(
                "SELECT id FROM episodes WHERE graph_id = :graph AND id > :max_ep",
                {"graph": graph_id, "max_ep": max_episode_id},
            )
        }
        seeds |= {
            r[1]
            for r in self.conn.execute(
                changed, {"graph": graph_id, "max_ep": max_episode_id, "since": since}
            )
        }
        sql = f"""
            WITH changed(id) AS (
                SELECT id FROM facts WHERE graph_id = ?
                  AND (episode_id > ? OR expired_at >= ? OR created_at >= ?)
            ),
            sigs(signature_id) AS (
                SELECT DISTINCT fs.signature_id FROM fact_signatures fs
                JOIN changed c ON c.id = fs.fact_id
                JOIN signatures s ON s.id = fs.signature_id AND s.kind IN ({marks})
            )
            SELECT DISTINCT f.episode_id FROM sigs
            JOIN fact_signatures fs ON fs.signature_id = sigs.signature_id
            JOIN facts f ON f.id = fs.fact_id AND f.invalid_at IS NULL
        """
        seeds |= {
            r[0] for r in self.conn.execute(sql, [graph_id, max_episode_id, since, since, *kinds])
        }
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
                WHERE ec.graph_id = ? AND ec.cluster_id IN (
                    SELECT e2.cluster_id FROM episode_clusters e2
                    JOIN temp.seeds s ON s.episode_id = e2.episode_id)
                """,
                (graph_id,),
            )
        }
        self.conn.execute("DELETE FROM temp.seeds")
        return seeds | members

    def save_membership(self, graph_id: str, membership: dict[int, int], *, full: bool) -> None:
        if full:
            self.conn.execute("DELETE FROM episode_clusters WHERE graph_id = ?", (graph_id,))
        self.conn.executemany(
            "INSERT OR REPLACE INTO episode_clusters (episode_id, graph_id, cluster_id)"
            " VALUES (?, ?, ?)",
            ((e, graph_id, c) for e, c in membership.items()),
        )

    def signature_keys(self, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        out: dict[int, tuple[str, str]] = {}
        id_list = list(ids)
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for sid, kind, key in self.conn.execute(
                f"SELECT id, kind, key FROM signatures WHERE id IN ({marks})", chunk
            ):
                out[sid] = (kind, key)
        return out

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
        out: dict[int, dict[str, Any]] = {}
        id_list = sorted(set(ids))
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"SELECT id, name, type, norm FROM entities WHERE id IN ({marks})", chunk
            ):
                out[row["id"]] = row
        return out

    def episodes_by_id(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        out: dict[int, dict[str, Any]] = {}
        id_list = sorted(set(ids))
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"SELECT id, author, occurred_at, source FROM episodes WHERE id IN ({marks})",
                chunk,
            ):
                out[row["id"]] = row
        return out

    def completions(self, graph_id: str, entity_ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        """For each work item, its latest completed fact (who, when, which episode)."""
        out: dict[int, dict[str, Any]] = {}
        id_list = sorted(set(entity_ids))
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"""
                SELECT target_id, episode_id, valid_at FROM facts
                WHERE graph_id = ? AND relation = 'completed' AND target_id IN ({marks})
                ORDER BY valid_at
                """,
                [graph_id, *chunk],
            ):
                out[row["target_id"]] = row
        return out

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
              cluster_id, fingerprint, rank, start_at, latest_evidence_at, created_at,
              updated_at, version, writer)
            VALUES (:graph_id, :name, :summary, 'active', :kind, :pattern_key, :cluster_id,
              :fingerprint, :rank, :start_at, :latest_evidence_at, :now, :now, 1, :writer)
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
              start_at = :start_at, latest_evidence_at = :latest_evidence_at,
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
              episodes, clusters, created, updated, retired, unchanged, max_episode_id, seconds)
            VALUES (:graph_id, :started_at, :finished_at, :mode, :config, :episodes,
              :clusters, :created, :updated, :retired, :unchanged, :max_episode_id, :seconds)
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
        out: dict[int, dict[str, Any]] = {}
        id_list = sorted(set(ids))
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for row in self.rows(
                f"SELECT id, author, occurred_at, content FROM episodes WHERE id IN ({marks})",
                chunk,
            ):
                out[row["id"]] = row
        return out

    def fact_sentences(self, ids: Iterable[int]) -> dict[int, str]:
        out: dict[int, str] = {}
        id_list = sorted(set(ids))
        for i in range(0, len(id_list), 500):
            chunk = id_list[i : i + 500]
            marks = ",".join("?" * len(chunk))
            for fid, sentence in self.conn.execute(
                f"SELECT id, sentence FROM facts WHERE id IN ({marks})", chunk
            ):
                out[int(fid)] = str(sentence)
        return out

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
