"""Schema migrations: numbered, append-only, applied on open in one write transaction.

Applied through sqlite-utils' public ``Migrations`` API. Never edit a migration that
has shipped; add ``mNNN_*`` below, its name to ``connection.SCHEMA_MIGRATIONS``, and
regenerate ``new_database.py`` (``python -m tests.test_new_database``), which a new,
empty database is created from in one step; tests fail until all three agree.
"""

from __future__ import annotations

from collections.abc import Callable

from sqlite_utils import Database, Migrations

from memcli.models import EntityType, Relation
from memcli.store.schema import ENTITY_ALIASES as _ALIASES
from memcli.store.schema import FACT_TEXT as _FACT_TEXT
from memcli.store.schema import SEARCH_TOKENIZER

migrations = Migrations("memcli")

# Names of the migrations this version knows, in order (kept here rather than read
# from sqlite-utils' private list).
MIGRATION_NAMES: list[str] = []


def migration(fn: Callable[[Database], None]) -> Callable[[Database], None]:
    """Register ``fn`` as the next migration of the memcli set."""
    MIGRATION_NAMES.append(fn.__name__)
    return migrations()(fn)


# ``PRAGMA application_id`` of every memcli database: "MeMc" in ASCII. Fixed forever.
APPLICATION_ID = 0x4D654D63

# --- migrations (append-only: never edit one that has shipped; add mNNN_* below) ---


@migration
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


@migration
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


@migration
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


@migration
def m004_application_id(db: Database) -> None:
    """Mark the file as memcli's (``PRAGMA application_id``), so that memcli can tell its
    own databases from another application's and refuse to change the latter."""
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")


@migration
def m005_identity_corrections(db: Database) -> None:
    """Entity merges a person (or the conservative resolver) decided, and corrections.

    ``entity_merges`` records every decision to treat one entity as another, who made it,
    when and why; undoing one stamps ``undone_*`` instead of deleting the row, so history
    keeps both. Facts keep the entities they were stated with: analysis maps them through
    the active merges when it reads. ``episodes.retracted_*`` marks an update a person
    withdrew (kept, shown as retracted, left out of analysis). ``graphs.needs_full``
    makes the next analyze a full pass after a change incremental runs cannot see.
    """
    db.executescript(
        """
        CREATE TABLE entity_merges (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            entity_id INTEGER NOT NULL REFERENCES entities(id),     -- the alias
            canonical_id INTEGER NOT NULL REFERENCES entities(id),  -- what it means
            decided_by TEXT NOT NULL,      -- 'person' or 'auto' (memcli.identity)
            reason TEXT NOT NULL,
            created_at TEXT NOT NULL,
            undone_at TEXT,                -- set by unmerge; the row stays
            undone_by TEXT,
            undo_reason TEXT
        );
        CREATE UNIQUE INDEX entity_merges_active ON entity_merges(entity_id)
            WHERE undone_at IS NULL;
        CREATE INDEX entity_merges_graph ON entity_merges(graph_id, undone_at);
        ALTER TABLE episodes ADD COLUMN retracted_at TEXT;
        ALTER TABLE episodes ADD COLUMN retract_reason TEXT;
        ALTER TABLE graphs ADD COLUMN needs_full INTEGER NOT NULL DEFAULT 0;
        """
    )


# The text of one entity's and one fact's search document, for the explicit sync that
# replaced the insert triggers (m006; ``IngestMixin.sync_search``).


@migration
def m006_search_sync_at_commit(db: Database) -> None:
    """New rows reach the search indexes once per transaction, not once per row.

    The AFTER INSERT triggers of m003 on episodes, entities, entity_aliases and facts
    indexed each row as it was written: a statement per row into FTS5 (and, per alias,
    the entity's alias list rebuilt), about four fifths of an ingest's time in SQLite.
    The ingest writes now record which rows they added and ``IngestMixin.sync_search``
    indexes all of them in a few set-based statements just before the transaction
    commits (``StoreBase.transaction``), so what search finds after every commit is the
    same as before. The update and delete triggers stay: corrections are rare, and they
    first index whatever is still pending (``sync_search``), so those triggers always
    see indexed rows.
    """
    db.executescript(
        """
        DROP TRIGGER IF EXISTS episodes_fts_ai;
        DROP TRIGGER IF EXISTS entities_docs_ai;
        DROP TRIGGER IF EXISTS entity_aliases_docs_ai;
        DROP TRIGGER IF EXISTS facts_docs_ai;
        """
    )


@migration
def m007_stated_names(db: Database) -> None:
    """Names a writer set beside a ticket id ("the auth refactor (AUTH-212)"), one row
    per pair and update (``memcli.extract.aliases``).

    Kept as normalised keys, not entities: a name written only beside its ticket is not
    a piece of work of its own. Analyze merges the two entities when facts name both
    (``memcli.identity.stated_merges``); a retracted update's pairs no longer count.
    The key's columns come first: SQLite 3.40's integrity check reports the other NOT
    NULL columns of a WITHOUT ROWID table as NULL when they sit between its key columns.
    """
    db.executescript(
        """
        CREATE TABLE stated_names (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            ticket_norm TEXT NOT NULL,     -- the ticket's key ("auth 212")
            name_norm TEXT NOT NULL,       -- the name's key ("auth refactor")
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            name TEXT NOT NULL,            -- the name as written beside the ticket
            PRIMARY KEY (episode_id, ticket_norm, name_norm)
        ) WITHOUT ROWID;
        CREATE INDEX stated_names_graph ON stated_names(graph_id, ticket_norm);
        """
    )


@migration
def m008_releases(db: Database) -> None:
    """Items an update says are no longer blocked without naming the blocker ("The API
    migration is unblocked."), one row per item and update (``memcli.extract.releases``).

    Ingest turns each into ``unblocked_from`` facts for the item's waits valid at its
    time; the row is kept so that a wait ingested later (an older update arriving late)
    is ended by it too, whatever the order. The item is a normalised key, not an
    entity: an item no stored fact names is no entity of the graph, and the key moves
    with its update to another graph unchanged. ``valid_at`` is the release's world
    time (the update's, unless the text gives one). Key columns first, as in m007.
    """
    db.executescript(
        """
        CREATE TABLE releases (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            item_type TEXT NOT NULL,       -- the item's entity type ("work_item")
            item_norm TEXT NOT NULL,       -- the item's key ("api migration")
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            valid_at TEXT NOT NULL,        -- when it was released (world time)
            sentence TEXT NOT NULL,        -- the sentence that said so
            PRIMARY KEY (episode_id, item_type, item_norm)
        ) WITHOUT ROWID;
        CREATE INDEX releases_item ON releases(graph_id, item_type, item_norm, valid_at);
        """
    )


# The newest migration's number, counted rather than written down so that branches which
# each append a migration do not have to agree on a constant.
SCHEMA_VERSION = len(MIGRATION_NAMES)
