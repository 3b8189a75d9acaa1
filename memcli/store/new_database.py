"""A new database in one step: the schema every migration adds up to, written directly.

Running the migrations needs sqlite-utils, and importing it costs more than the rest of
a one-update ingest (it imports numpy too, when numpy is installed). An empty file
therefore gets the final schema from these statements in one transaction
(``StoreBase._create``), and the migrations table records every migration as applied,
as sqlite-utils' ``Migrations.apply`` leaves it; from then on the file is an ordinary
migrated database.
An existing database is still brought up to date by the migrations, through
sqlite-utils' public API (``memcli.store.migrations``, the one definition of the schema).

The statements are generated from a database the migrations built, by
``python -m tests.test_new_database``; ``tests/test_new_database.py`` fails when they
differ (sqlite_master, every table's rows, the header pragmas), so a new migration
comes with a regenerated module.
"""

from __future__ import annotations

STATEMENTS: tuple[str, ...] = (
    """CREATE TABLE "_sqlite_migrations" (
   "id" INTEGER PRIMARY KEY,
   "migration_set" TEXT,
   "name" TEXT,
   "applied_at" TEXT
)""",
    """CREATE UNIQUE INDEX "idx__sqlite_migrations_migration_set_name"
    ON "_sqlite_migrations" ("migration_set", "name")""",
    """CREATE TABLE graphs (
            id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            last_ingest_at TEXT,
            ingest_seq INTEGER NOT NULL DEFAULT 0,   -- bumped by every ingest that adds data
            analyzed_seq INTEGER NOT NULL DEFAULT -1, -- ingest_seq seen by the last analyze
            analyzed_config TEXT                      -- settings of the last analyze
        , needs_full INTEGER NOT NULL DEFAULT 0)""",
    """CREATE TABLE episodes (
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
            unparsed TEXT NOT NULL DEFAULT '[]', retracted_at TEXT, retract_reason TEXT,
            UNIQUE (graph_id, content_hash)
        )""",
    """CREATE INDEX episodes_graph_time ON episodes(graph_id, occurred_at)""",
    """CREATE TABLE entities (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            name TEXT NOT NULL,
            norm TEXT NOT NULL,
            type TEXT NOT NULL CHECK (type IN ('person', 'team', 'work_item')),
            created_at TEXT NOT NULL,
            UNIQUE (graph_id, type, norm)
        )""",
    """CREATE TABLE entity_aliases (
            entity_id INTEGER NOT NULL REFERENCES entities(id),
            alias TEXT NOT NULL,
            PRIMARY KEY (entity_id, alias)
        ) WITHOUT ROWID""",
    """CREATE TABLE facts (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            source_id INTEGER NOT NULL REFERENCES entities(id),
            relation TEXT NOT NULL CHECK (relation IN ('blocked_by', 'owns', 'completed', 'unblocked_from')),
            target_id INTEGER NOT NULL REFERENCES entities(id),
            sentence TEXT NOT NULL DEFAULT '',
            valid_at TEXT NOT NULL,        -- world time the fact became true
            invalid_at TEXT,               -- world time it stopped being true
            created_at TEXT NOT NULL,      -- when memcli learned it
            expired_at TEXT,               -- when memcli learned it had ended
            invalidated_by INTEGER REFERENCES episodes(id),
            UNIQUE (episode_id, source_id, relation, target_id)
        )""",
    """CREATE INDEX facts_graph_rel ON facts(graph_id, relation)""",
    """CREATE INDEX facts_target ON facts(target_id, relation)""",
    """CREATE INDEX facts_source ON facts(source_id, relation)""",
    """CREATE INDEX facts_episode ON facts(episode_id)""",
    """CREATE TABLE signatures (
            id INTEGER PRIMARY KEY,
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            kind TEXT NOT NULL CHECK (kind IN ('literal', 'blocker')),
            key TEXT NOT NULL,
            UNIQUE (graph_id, key)
        )""",
    """CREATE TABLE fact_signatures (
            fact_id INTEGER NOT NULL REFERENCES facts(id),
            signature_id INTEGER NOT NULL REFERENCES signatures(id),
            PRIMARY KEY (fact_id, signature_id)
        ) WITHOUT ROWID""",
    """CREATE INDEX fact_signatures_sig ON fact_signatures(signature_id)""",
    """CREATE TABLE observations (
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
        )""",
    """CREATE INDEX observations_graph ON observations(graph_id, status)""",
    """CREATE TABLE observation_evidence (
            observation_id INTEGER NOT NULL REFERENCES observations(id),
            item_type TEXT NOT NULL CHECK (item_type IN ('episode', 'fact', 'entity')),
            item_id INTEGER NOT NULL,
            role TEXT NOT NULL,
            PRIMARY KEY (observation_id, item_type, item_id)
        ) WITHOUT ROWID""",
    """CREATE INDEX observation_evidence_item ON observation_evidence(item_type, item_id)""",
    """CREATE TABLE observation_versions (
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
        ) WITHOUT ROWID""",
    """CREATE TABLE observation_links (
            from_id INTEGER NOT NULL REFERENCES observations(id),  -- the newer observation
            to_id INTEGER NOT NULL REFERENCES observations(id),    -- the one it supersedes
            kind TEXT NOT NULL DEFAULT 'supersedes',
            created_at TEXT NOT NULL,
            PRIMARY KEY (from_id, to_id)
        ) WITHOUT ROWID""",
    """CREATE TABLE analysis_runs (
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
        )""",
    """CREATE INDEX analysis_runs_graph ON analysis_runs(graph_id, id)""",
    """CREATE TABLE episode_clusters (
            episode_id INTEGER PRIMARY KEY REFERENCES episodes(id),
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            cluster_id INTEGER NOT NULL,     -- after size-cap splits
            component_id INTEGER NOT NULL    -- before them: the unit incremental runs redo
        )""",
    """CREATE INDEX episode_clusters_component ON episode_clusters(graph_id, component_id)""",
    """CREATE INDEX facts_expired ON facts(graph_id, expired_at)""",
    """CREATE TABLE llm_cache (
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
        ) WITHOUT ROWID""",
    """CREATE INDEX episodes_pending ON episodes(graph_id, extraction_status)
            WHERE extraction_status != 'done'""",
    """CREATE VIRTUAL TABLE episodes_fts USING fts5(
            content, author, content='episodes', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER episodes_fts_ad AFTER DELETE ON episodes BEGIN INSERT INTO episodes_fts (episodes_fts, rowid, content, author) VALUES ('delete', old.id, old.content, old.author); END""",
    """CREATE TRIGGER episodes_fts_au AFTER UPDATE OF id, content, author ON episodes
        BEGIN INSERT INTO episodes_fts (episodes_fts, rowid, content, author) VALUES ('delete', old.id, old.content, old.author); INSERT INTO episodes_fts (rowid, content, author) VALUES (new.id, new.content, new.author); END""",
    """CREATE VIRTUAL TABLE observations_fts USING fts5(
            name, summary, content='observations', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER observations_fts_ai AFTER INSERT ON observations BEGIN INSERT INTO observations_fts (rowid, name, summary) VALUES (new.id, new.name, new.summary); END""",
    """CREATE TRIGGER observations_fts_ad AFTER DELETE ON observations BEGIN INSERT INTO observations_fts (observations_fts, rowid, name, summary) VALUES ('delete', old.id, old.name, old.summary); END""",
    """CREATE TRIGGER observations_fts_au AFTER UPDATE OF id, name, summary ON observations
        BEGIN INSERT INTO observations_fts (observations_fts, rowid, name, summary) VALUES ('delete', old.id, old.name, old.summary); INSERT INTO observations_fts (rowid, name, summary) VALUES (new.id, new.name, new.summary); END""",
    """CREATE TABLE entity_docs (
            entity_id INTEGER PRIMARY KEY,     -- = entities.id
            name TEXT NOT NULL,
            aliases TEXT NOT NULL DEFAULT ''   -- every surface form, space separated
        )""",
    """CREATE VIRTUAL TABLE entity_docs_fts USING fts5(
            name, aliases, content='entity_docs', content_rowid='entity_id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER entity_docs_fts_ai AFTER INSERT ON entity_docs BEGIN INSERT INTO entity_docs_fts (rowid, name, aliases) VALUES (new.entity_id, new.name, new.aliases); END""",
    """CREATE TRIGGER entity_docs_fts_ad AFTER DELETE ON entity_docs BEGIN INSERT INTO entity_docs_fts (entity_docs_fts, rowid, name, aliases) VALUES ('delete', old.entity_id, old.name, old.aliases); END""",
    """CREATE TRIGGER entity_docs_fts_au AFTER UPDATE OF entity_id, name, aliases ON entity_docs
        BEGIN INSERT INTO entity_docs_fts (entity_docs_fts, rowid, name, aliases) VALUES ('delete', old.entity_id, old.name, old.aliases); INSERT INTO entity_docs_fts (rowid, name, aliases) VALUES (new.entity_id, new.name, new.aliases); END""",
    """CREATE TRIGGER entities_docs_ad AFTER DELETE ON entities BEGIN
            DELETE FROM entity_docs WHERE entity_id = old.id;
        END""",
    """CREATE TRIGGER entities_docs_au AFTER UPDATE OF name ON entities BEGIN
            UPDATE entity_docs SET name = new.name WHERE entity_id = new.id;
            UPDATE fact_docs SET text = 
    (SELECT s.name || ' ' || replace(f.relation, '_', ' ') || ' ' || t.name || ' ' || f.sentence
     FROM facts f JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
     WHERE f.id = fact_docs.fact_id)

            WHERE fact_id IN (SELECT id FROM facts WHERE source_id = new.id OR target_id = new.id);
        END""",
    """CREATE TRIGGER entity_aliases_docs_ad AFTER DELETE ON entity_aliases BEGIN
            UPDATE entity_docs SET aliases = 
    (SELECT coalesce(group_concat(alias, ' '), '')
     FROM (SELECT alias FROM entity_aliases WHERE entity_id = old.entity_id ORDER BY alias))

            WHERE entity_id = old.entity_id;
        END""",
    """CREATE TRIGGER entity_aliases_docs_au AFTER UPDATE ON entity_aliases BEGIN
            UPDATE entity_docs SET aliases = 
    (SELECT coalesce(group_concat(alias, ' '), '')
     FROM (SELECT alias FROM entity_aliases WHERE entity_id = old.entity_id ORDER BY alias))

            WHERE entity_id = old.entity_id;
            UPDATE entity_docs SET aliases = 
    (SELECT coalesce(group_concat(alias, ' '), '')
     FROM (SELECT alias FROM entity_aliases WHERE entity_id = new.entity_id ORDER BY alias))

            WHERE entity_id = new.entity_id;
        END""",
    """CREATE TABLE fact_docs (
            fact_id INTEGER PRIMARY KEY,       -- = facts.id
            text TEXT NOT NULL
        )""",
    """CREATE VIRTUAL TABLE fact_docs_fts USING fts5(
            text, content='fact_docs', content_rowid='fact_id', tokenize='porter unicode61 remove_diacritics 2')""",
    """CREATE TRIGGER fact_docs_fts_ai AFTER INSERT ON fact_docs BEGIN INSERT INTO fact_docs_fts (rowid, text) VALUES (new.fact_id, new.text); END""",
    """CREATE TRIGGER fact_docs_fts_ad AFTER DELETE ON fact_docs BEGIN INSERT INTO fact_docs_fts (fact_docs_fts, rowid, text) VALUES ('delete', old.fact_id, old.text); END""",
    """CREATE TRIGGER fact_docs_fts_au AFTER UPDATE OF fact_id, text ON fact_docs
        BEGIN INSERT INTO fact_docs_fts (fact_docs_fts, rowid, text) VALUES ('delete', old.fact_id, old.text); INSERT INTO fact_docs_fts (rowid, text) VALUES (new.fact_id, new.text); END""",
    """CREATE TRIGGER facts_docs_ad AFTER DELETE ON facts BEGIN
            DELETE FROM fact_docs WHERE fact_id = old.id;
        END""",
    """CREATE TRIGGER facts_docs_au
        AFTER UPDATE OF id, source_id, relation, target_id, sentence ON facts BEGIN
            DELETE FROM fact_docs WHERE fact_id = old.id;
            INSERT INTO fact_docs (fact_id, text) VALUES (new.id, 
    (SELECT s.name || ' ' || replace(f.relation, '_', ' ') || ' ' || t.name || ' ' || f.sentence
     FROM facts f JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
     WHERE f.id = new.id)
);
        END""",
    """CREATE TABLE report_marks (
            graph_id TEXT PRIMARY KEY REFERENCES graphs(id),
            last_report_at TEXT NOT NULL,
            observations TEXT NOT NULL DEFAULT '{}'  -- JSON: {id: [version, status]}
        )""",
    """CREATE TABLE entity_merges (
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
        )""",
    """CREATE UNIQUE INDEX entity_merges_active ON entity_merges(entity_id)
            WHERE undone_at IS NULL""",
    """CREATE INDEX entity_merges_graph ON entity_merges(graph_id, undone_at)""",
    """CREATE TABLE stated_names (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            ticket_norm TEXT NOT NULL,     -- the ticket's key ("auth 212")
            name_norm TEXT NOT NULL,       -- the name's key ("auth refactor")
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            name TEXT NOT NULL,            -- the name as written beside the ticket
            PRIMARY KEY (episode_id, ticket_norm, name_norm)
        ) WITHOUT ROWID""",
    """CREATE INDEX stated_names_graph ON stated_names(graph_id, ticket_norm)""",
    """CREATE TABLE releases (
            episode_id INTEGER NOT NULL REFERENCES episodes(id),
            item_type TEXT NOT NULL,       -- the item's entity type ("work_item")
            item_norm TEXT NOT NULL,       -- the item's key ("api migration")
            graph_id TEXT NOT NULL REFERENCES graphs(id),
            valid_at TEXT NOT NULL,        -- when it was released (world time)
            sentence TEXT NOT NULL,        -- the sentence that said so
            PRIMARY KEY (episode_id, item_type, item_norm)
        ) WITHOUT ROWID""",
    """CREATE INDEX releases_item ON releases(graph_id, item_type, item_norm, valid_at)""",
    """INSERT INTO episodes_fts (episodes_fts) VALUES ('rebuild')""",
    """INSERT INTO observations_fts (observations_fts) VALUES ('rebuild')""",
)  # end of STATEMENTS
