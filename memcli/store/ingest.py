"""Ingest writes: graphs, episodes, entities, facts, signatures; the contradiction rules."""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from operator import itemgetter
from typing import Any

from memcli.identity import may_be_one_person
from memcli.store.connection import StoreBase, chunks, utcnow
from memcli.store.schema import ENTITY_ALIASES, FACT_TEXT

# The contradiction rules, applied to the facts a batch writes before they go in
# (``IngestMixin.insert_fact_rows``), or inside a savepoint once per transaction
# (``IngestMixin.end_contradicted``). "b contradicts a" when, on the same target:
#   1. a is ``blocked_by(_, X)`` and b ``completed(_, X)``, a valid at or before b;
#   2. a is ``blocked_by(S, X)`` and b ``unblocked_from(S, X)``, a valid at or before b;
#   3. a is ``owns(Q, X)`` and b ``owns(P, X)``, P != Q of the same entity type (a person
#      replaces a person, a team a team), a valid before b; not when P and Q may be one
#      person under a short and a full name ("Tunde", "Tunde Adeyemi": see
#      ``memcli.identity.may_be_one_person``).
# Every pair with a new fact on either side counts, so an older update ingested after a
# newer one is stored already ended. A fact ends at its earliest contradiction whatever
# order the updates arrive in: its earliest contradictor is picked (ties by the
# episodes' content hashes, so invalidated_by names the same episode in every order),
# and an end only ever moves earlier; an end the update itself stated (invalidated_by
# NULL) wins a tie. A retracted episode contradicts nothing.
#
# The pairs are found in Python over the facts of the targets involved, read in one
# query: joined in SQL they cost a random row read per pair (an update's owner meets
# every earlier owner of its work item), several times what reading each fact once does.
# Each fact's row (the rows are sorted by ``_in_order``, as the rules need them):
_FACT_ROW = """
    SELECT f.id, f.relation, f.source_id, f.target_id, f.valid_at, f.invalid_at,
        ef.content_hash, f.episode_id, e.content_hash, e.retracted_at IS NOT NULL,
        s.type, s.norm
    FROM facts f JOIN episodes e ON e.id = f.episode_id
    JOIN entities s ON s.id = f.source_id
    LEFT JOIN episodes ef ON ef.id = f.invalidated_by
"""
# The facts of some targets; those of a transaction's new ones are left out by ranges
# of their ids, which SQLite tests on the target index before it reads a row.
_TARGET_FACTS = _FACT_ROW + "WHERE f.target_id IN (SELECT value FROM json_each(?))"
_FACTS_BY_ID = _FACT_ROW + "WHERE f.id IN (SELECT value FROM json_each(?))"
_TARGETS_AT_ONCE = 2000


def _older(spans: list[tuple[int, int]]) -> str:
    between = " OR ".join(["f.id BETWEEN ? AND ?"] * len(spans))
    return f"{_TARGET_FACTS} AND NOT ({between})" if spans else _TARGET_FACTS


_SPANS = 50  # at most this many ranges of new ids in the query; more: filtered here


def _spans(ids: list[int]) -> list[tuple[int, int]]:
    """Sorted ``ids`` as ranges of consecutive ids: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    out: list[tuple[int, int]] = []
    for i in ids:
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


# Facts by time, then by their episode's content hash (a key SQLite-free and C-fast:
# the kept rows of a busy target are sorted again by every batch that names it).
_in_order = itemgetter(4, 8)


# Rows of ``_TARGET_FACTS`` an ingest keeps between its transactions (see
# ``IngestMixin._target_rows``); a few hundred bytes each.
TARGET_ROWS_KEPT = 100_000
_ENDING = {"blocked_by": ("completed", "unblocked_from"), "owns": ("owns",)}


def _contradicts(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Whether fact row ``b`` ends fact row ``a`` (rows of ``_TARGET_FACTS``)."""
    if b[9]:  # retracted
        return False
    if a[1] == "blocked_by":
        if b[1] == "completed":
            return bool(a[4] <= b[4])
        return bool(b[1] == "unblocked_from" and b[2] == a[2] and a[4] <= b[4])
    return bool(
        a[1] == "owns"
        and b[1] == "owns"
        and b[2] != a[2]
        and a[4] < b[4]
        and a[10] == b[10]
        and not (a[10] == "person" and may_be_one_person(a[11], b[11]))
    )


def _ends(
    rows: list[tuple[Any, ...]], new: set[int], relations: set[str]
) -> list[tuple[str, int, int, str]]:
    """(end, ending episode, fact id, the ending episode's hash) of every fact of ``rows``
    (one target's facts, in (valid_at, content hash) order) whose end a pair with a new
    fact sets or moves. ``relations``: those of the target's new facts (a rule none of
    them takes part in has nothing to do)."""
    out = []
    for ended, ending in _ENDING.items():
        if ended not in relations and relations.isdisjoint(ending):
            continue
        enders = [b for b in rows if b[1] in ending]
        if not enders:
            continue
        new_enders = [b for b in enders if b[0] in new]
        for a in rows:
            if a[1] != ended:
                continue
            a_new = a[0] in new
            if not (a_new or new_enders):
                continue
            # A stored fact meets only the new enders: a pair needs a new fact.
            for b in enders if a_new else new_enders:  # in order: the earliest first
                if _contradicts(a, b):
                    at, digest = b[4], b[8]
                    end, by_digest = a[5], a[6]
                    if (
                        end is None
                        or end > at
                        or (end == at and by_digest is not None and by_digest > digest)
                    ):
                        out.append((at, b[7], a[0], digest))
                    break
    return out


# Page cache of a connection while it ingests, in KiB (SQLite's default is 2 MiB). An
# ingest touches the facts table's six indexes at scattered keys; with the default cache
# most of those pages are read again for every episode (a tenth of the CPU at 5k
# updates). Bounded: the cache fills up whatever the size of the input, and an ingest's
# memory must follow its largest file, not the total.
INGEST_CACHE_KIB = 8 * 1024
TEMP_STORE_MEMORY = 2  # ``PRAGMA temp_store``: 0 default, 1 file, 2 memory


class IngestMixin(StoreBase):
    _keep_targets = False  # inside ``bulk_writes``: keep ``_target_rows``

    @contextmanager
    def bulk_writes(self) -> Iterator[None]:
        """A bigger page cache and statement journals in memory for the length of one
        ingest, then the settings it had.

        A statement that writes many rows (``insert_many``, the search sync) keeps the
        pages it changes in a statement journal, so that a failing row takes back the
        statement alone; past 64 KiB SQLite writes that journal to a temporary file
        (18,000 page writes for a 5k-update file, more system time than its inserts).
        With ``temp_store`` in memory it stays in memory, and is dropped after each
        statement. Changed only outside a transaction (SQLite refuses it inside one);
        the change drops the connection's temporary tables, which analyze creates
        again (``CREATE TEMP TABLE IF NOT EXISTS``) whenever it uses them."""
        before = int(self.scalar("PRAGMA cache_size"))
        self.conn.execute(f"PRAGMA cache_size = -{INGEST_CACHE_KIB}")
        temp_store = None
        if not self.conn.in_transaction:
            temp_store = int(self.scalar("PRAGMA temp_store"))
            if temp_store == TEMP_STORE_MEMORY:
                temp_store = None
            else:
                self.conn.execute(f"PRAGMA temp_store = {TEMP_STORE_MEMORY}")
        self._keep_targets = True
        try:
            yield
        finally:
            self._keep_targets = False
            self._forget_targets()
            self.conn.execute(f"PRAGMA cache_size = {before}")
            if temp_store is not None and not self.conn.in_transaction:
                self.conn.execute(f"PRAGMA temp_store = {temp_store}")

    @contextmanager
    def _indexes_built_after(self, table: str, count: int) -> Iterator[None]:
        """Insert ``count`` rows into ``table`` inside this block. When they outnumber
        the rows stored (a first ingest), the table's secondary indexes are dropped
        first and built again after, each in one sorted pass instead of taking every
        row at a random place (as ``apply`` does with the evidence item index): the
        5k corpus's facts went in 0.13 to 0.10 s of CPU. The indexes come back as they
        were defined, and the rows are the same. Unique indexes stay (they check the
        rows). In the write transaction: a rollback takes the drop back with the rows,
        and one that SQLite made itself (the transaction is gone) leaves nothing to do.
        """
        indexes: list[str] = []
        if count and (
            self.conn.execute(f"SELECT 1 FROM {table} LIMIT 1 OFFSET ?", (count - 1,)).fetchone()
            is None
        ):
            found = self.conn.execute(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
                " AND sql IS NOT NULL AND sql NOT LIKE 'CREATE UNIQUE%' ORDER BY rowid",
                (table,),
            ).fetchall()
            for name, sql in found:
                self.conn.execute(f"DROP INDEX [{name}]")
                indexes.append(str(sql))
        try:
            yield
        finally:
            if indexes and self.conn.in_transaction:
                for sql in indexes:
                    self.conn.execute(sql)

    def _forget(self) -> None:
        super()._forget()
        # (graph, name as written, type) -> (entity id, normalised key): the same names
        # recur in thousands of facts; an entry is as good as the entity cache's.
        self._names: dict[tuple[str, str, str], tuple[int, str]] = {}
        self._forget_targets()
        # fact id -> its ``_TARGET_FACTS`` row, for facts this transaction wrote
        # (``insert_fact_rows``); dropped with a rolled-back savepoint, whose facts are
        # then read back (those still stored).
        self._written: dict[int, tuple[Any, ...]] = {}

    def _forget_targets(self) -> None:
        # target id -> its facts as ``_TARGET_FACTS`` reads them, kept by an ingest
        # (``bulk_writes``) from one transaction to the next: the work items that
        # updates keep naming have their facts read by every batch otherwise. Dropped
        # when a transaction rolls back and when another connection commits (``PRAGMA
        # data_version``); least recently used targets go past ``TARGET_ROWS_KEPT`` rows
        # (or the connection's ``cache_entries``, if lower).
        self._target_rows: OrderedDict[int, list[tuple[Any, ...]]] = OrderedDict()
        self._target_rows_kept = 0
        self._targets_version: Any = None

    def _cached(self) -> int:
        return super()._cached() + len(self._names) + self._target_rows_kept

    def known_name(self, graph_id: str, name: str, type_: str) -> tuple[int, str] | None:
        """(entity id, key) of a name as written, if this connection resolved it already
        (``remember_name``): its entity and alias are stored."""
        return self._names.get((graph_id, name, type_))

    def remember_name(
        self, graph_id: str, name: str, type_: str, entity_id: int, norm: str
    ) -> None:
        self._names[(graph_id, name, type_)] = (entity_id, norm)

    # --- the search indexes, synced once per transaction (migration m006) ---

    def _discard_pending(self) -> None:
        self._forget_targets()
        self._written = {}
        self._unindexed_episodes: set[int] = set()
        self._unindexed_entities: set[int] = set()
        self._unindexed_facts: set[int] = set()
        self._aliased: set[int] = set()  # entities given a new alias
        # facts the contradiction rules have not seen yet (``end_contradicted``)
        self._uncontradicted: set[int] = set()
        # facts this transaction wrote already ended (``insert_fact_rows``), which
        # ``end_contradicted`` counts with the ones it ends
        self._ended_on_insert: set[int] = set()

    def sync_search(self) -> None:
        """Index every episode, entity, alias and fact written since the last sync.

        Runs in the write transaction, just before it commits (``transaction()``), and
        before a correction that the remaining update and delete triggers would see
        half-indexed. One statement per table and chunk of ids instead of the per-row
        insert triggers this replaced (m006); the documents are the same text. A row that
        a rolled-back savepoint took back is simply not found; one already indexed (an
        update trigger re-indexed it) is not indexed twice.
        """
        if self._unindexed_episodes:
            for chunk, marks in chunks(self._unindexed_episodes):
                self.conn.execute(
                    "INSERT INTO episodes_fts (rowid, content, author)"
                    f" SELECT id, content, author FROM episodes WHERE id IN ({marks})",
                    chunk,
                )
            self._unindexed_episodes.clear()
        if self._unindexed_entities:
            for chunk, marks in chunks(self._unindexed_entities):
                self.conn.execute(
                    "INSERT INTO entity_docs (entity_id, name, aliases)"
                    f" SELECT id, name, {ENTITY_ALIASES.format(entity='entities.id')}"
                    f" FROM entities WHERE id IN ({marks}) AND NOT EXISTS"
                    " (SELECT 1 FROM entity_docs d WHERE d.entity_id = entities.id)",
                    chunk,
                )
        aliased = self._aliased - self._unindexed_entities
        self._unindexed_entities.clear()
        self._aliased.clear()
        for chunk, marks in chunks(aliased):
            self.conn.execute(
                "UPDATE entity_docs SET aliases ="
                f" {ENTITY_ALIASES.format(entity='entity_docs.entity_id')}"
                f" WHERE entity_id IN ({marks})",
                chunk,
            )
        if self._unindexed_facts:
            for chunk, marks in chunks(self._unindexed_facts):
                self.conn.execute(
                    "INSERT INTO fact_docs (fact_id, text)"
                    f" SELECT id, {FACT_TEXT.format(fact='facts.id')}"
                    f" FROM facts WHERE id IN ({marks}) AND NOT EXISTS"
                    " (SELECT 1 FROM fact_docs d WHERE d.fact_id = facts.id)",
                    chunk,
                )
            self._unindexed_facts.clear()

    def ensure_graph(self, graph_id: str) -> None:
        self.conn.execute(
            "INSERT INTO graphs (id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING",
            (graph_id, utcnow()),
        )

    def bump_ingest(self, graph_id: str, by: int = 1) -> None:
        """Count ``by`` more ingests (files) that added to the graph."""
        self.conn.execute(
            "UPDATE graphs SET ingest_seq = ingest_seq + ?, last_ingest_at = ? WHERE id = ?",
            (by, utcnow(), graph_id),
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

    def upsert_entity(
        self, graph_id: str, name: str, norm: str, type_: str, *, now: str | None = None
    ) -> int:
        """The entity with this normalised key and type, created on first sight."""
        existing = self.entity_id(graph_id, norm, type_)
        if existing is None:
            cur = self.conn.execute(
                "INSERT INTO entities (graph_id, name, norm, type, created_at)"
                " VALUES (?, ?, ?, ?, ?)",
                (graph_id, name, norm, type_, now or utcnow()),
            )
            assert cur.lastrowid is not None
            existing = cur.lastrowid
            self._entities[(graph_id, type_, norm)] = existing
            self._unindexed_entities.add(existing)
        self.add_alias(existing, name)
        return existing

    def resolve_entity(
        self, graph_id: str, name: str, norm: str, type_: str, *, now: str | None = None
    ) -> tuple[int, bool]:
        """``upsert_entity`` in one statement for a name not seen in this transaction:
        (entity id, whether this call created it)."""
        key = (graph_id, type_, norm)
        entity_id = self._entities.get(key)
        created = False
        if entity_id is None:
            row = self.conn.execute(
                "INSERT INTO entities (graph_id, name, norm, type, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (graph_id, type, norm) DO NOTHING"
                " RETURNING id",
                (graph_id, name, norm, type_, now or utcnow()),
            ).fetchone()
            created = row is not None
            entity_id = int(row[0]) if created else self.entity_id(graph_id, norm, type_)
            assert entity_id is not None
            if created:
                self._unindexed_entities.add(entity_id)
            self._entities[key] = entity_id
        self.add_alias(entity_id, name)
        return entity_id, created

    def add_alias(self, entity_id: int, alias: str) -> None:
        """Record another name for an entity (search and lookups find it by this name)."""
        if (entity_id, alias) not in self._aliases:
            if self.conn.execute(
                "INSERT OR IGNORE INTO entity_aliases (entity_id, alias) VALUES (?, ?)",
                (entity_id, alias),
            ).rowcount:
                self._aliased.add(entity_id)
            self._aliases.add((entity_id, alias))

    def insert_facts(
        self,
        episode_id: int,
        rows: list[tuple[str, int, str, int, str, str, str | None]],
        *,
        now: str | None = None,
    ) -> dict[tuple[int, str, int], int]:
        """Insert one episode's facts in one statement; the id of each fact stored now,
        by (source id, relation, target id). A fact the episode already states is left
        out (of two equal facts, the first is the one kept).

        Rows: (graph, source id, relation, target id, sentence, valid_at, invalid_at).
        """
        if not rows:
            return {}
        now = now or utcnow()
        before = self.scalar("SELECT coalesce(max(id), 0) FROM facts")
        self.conn.executemany(
            """
            INSERT OR IGNORE INTO facts (graph_id, episode_id, source_id, relation, target_id,
              sentence, valid_at, invalid_at, created_at, expired_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            [
                (
                    g,
                    episode_id,
                    src,
                    rel,
                    tgt,
                    sentence,
                    valid,
                    invalid,
                    now,
                    now if invalid else None,
                )
                for g, src, rel, tgt, sentence, valid, invalid in rows
            ],
        )
        stored = {
            (int(src), str(rel), int(tgt)): int(fact_id)
            for fact_id, src, rel, tgt in self.conn.execute(
                "SELECT id, source_id, relation, target_id FROM facts"
                " WHERE episode_id = ? AND id > ?",
                (episode_id, before),
            )
        }
        self._unindexed_facts.update(stored.values())
        self._uncontradicted.update(stored.values())
        return stored

    # --- a batch of episodes, one statement per table (``memcli.api.store_episodes``) ---
    #
    # The writer resolves a whole batch in Python and hands each table its rows at once;
    # ids are given here, in the order of the rows, from the table's largest id: inside
    # the write transaction nobody else inserts, so they are the ids SQLite would give
    # one row at a time.

    def _next_id(self, table: str) -> int:
        return int(self.scalar(f"SELECT coalesce(max(id), 0) FROM {table}")) + 1

    def stored_hashes(self, graph_id: str, hashes: Iterable[str]) -> dict[str, str]:
        """content hash -> occurred_at of the graph's episodes with one of ``hashes``."""
        wanted = sorted(set(hashes))
        out: dict[str, str] = {}
        for i in range(0, len(wanted), _TARGETS_AT_ONCE):
            for digest, at in self.conn.execute(
                "SELECT content_hash, occurred_at FROM episodes WHERE graph_id = ?"
                " AND content_hash IN (SELECT value FROM json_each(?))",
                (graph_id, json.dumps(wanted[i : i + _TARGETS_AT_ONCE])),
            ):
                out[str(digest)] = str(at)
        return out

    def ensure_graphs(self, graph_ids: Iterable[str], *, now: str) -> None:
        self.conn.executemany(
            "INSERT INTO graphs (id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING",
            [(g, now) for g in graph_ids],
        )

    def entity_ids(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str, str], int]:
        """The id of every stored entity among ``keys`` ((graph, type, normalised name)),
        from the cache or one query per graph and type; keys not stored are left out."""
        out: dict[tuple[str, str, str], int] = {}
        missing: dict[tuple[str, str], list[str]] = {}
        for key in keys:
            cached = self._entities.get(key)
            if cached is not None:
                out[key] = cached
            else:
                missing.setdefault(key[:2], []).append(key[2])
        for (graph_id, type_), norms in missing.items():
            for i in range(0, len(norms), _TARGETS_AT_ONCE):
                for entity_id, norm in self.conn.execute(
                    "SELECT id, norm FROM entities WHERE graph_id = ? AND type = ?"
                    " AND norm IN (SELECT value FROM json_each(?))",
                    (graph_id, type_, json.dumps(norms[i : i + _TARGETS_AT_ONCE])),
                ):
                    key = (graph_id, type_, str(norm))
                    self._entities[key] = out[key] = int(entity_id)
        return out

    def insert_entities(self, rows: list[tuple[str, str, str, str]], *, now: str) -> list[int]:
        """Create entities ((graph, type, normalised name, name) none of which is stored
        yet) in one statement; their ids, in order."""
        if not rows:
            return []
        first = self._next_id("entities")
        ids = list(range(first, first + len(rows)))
        self.insert_many(
            "INSERT INTO entities (id, graph_id, name, norm, type, created_at)",
            [
                (entity_id, g, name, norm, type_, now)
                for entity_id, (g, type_, norm, name) in zip(ids, rows, strict=True)
            ],
        )
        for entity_id, (g, type_, norm, _name) in zip(ids, rows, strict=True):
            self._entities[(g, type_, norm)] = entity_id
        self._unindexed_entities.update(ids)
        return ids

    def add_aliases(self, pairs: Iterable[tuple[int, str]], *, new: set[int]) -> None:
        """Record (entity id, name) pairs as aliases in one statement (``add_alias`` for
        many). ``new``: entities created in this batch, which have no alias yet; for the
        others the stored aliases are read, so only an alias never seen marks its entity
        for the search sync, as ``add_alias`` does."""
        todo = list(dict.fromkeys(p for p in pairs if p not in self._aliases))
        if not todo:
            return
        old = {entity_id for entity_id, _ in todo if entity_id not in new}
        stored: set[tuple[int, str]] = set()
        for chunk, marks in chunks(old):
            stored.update(
                (int(e), str(a))
                for e, a in self.conn.execute(
                    f"SELECT entity_id, alias FROM entity_aliases WHERE entity_id IN ({marks})",
                    chunk,
                )
            )
        fresh = [p for p in todo if p not in stored]
        self.insert_many("INSERT INTO entity_aliases (entity_id, alias)", fresh)
        self._aliased.update(entity_id for entity_id, _ in fresh)
        self._aliases.update(todo)

    def insert_stated_names(self, rows: Iterable[tuple[int, str, str, str, str]]) -> None:
        """Record names written beside a ticket id: (episode id, graph, ticket key, name,
        name key) rows (migration m007)."""
        self.insert_many(
            "INSERT OR IGNORE INTO stated_names"
            " (episode_id, graph_id, ticket_norm, name, name_norm)",
            list(rows),
        )

    def insert_episodes(self, rows: list[tuple[Any, ...]]) -> list[int]:
        """Insert episodes in one statement; their ids, in order. Rows: (graph,
        content hash, content, author, occurred_at, ingested_at, source, format,
        extractor, extraction status, unparsed as JSON)."""
        if not rows:
            return []
        first = self._next_id("episodes")
        ids = list(range(first, first + len(rows)))
        self.insert_many(
            "INSERT INTO episodes (id, graph_id, content_hash, content, author, occurred_at,"
            " ingested_at, source, format, extractor, extraction_status, unparsed)",
            [(i, *row) for i, row in zip(ids, rows, strict=True)],
        )
        self._unindexed_episodes.update(ids)
        return ids

    def insert_fact_rows(
        self,
        rows: list[tuple[str, int, int, str, int, str, str, str | None]],
        about: list[tuple[str, str, str]],
        *,
        now: str,
    ) -> list[int]:
        """Insert facts no episode states yet (no two rows of one episode equal) in one
        statement; their ids, in order. Rows: (graph, episode id, source id, relation,
        target id, sentence, valid_at, invalid_at); ``about`` each fact's (episode
        content hash, source entity type, source key), which the contradiction rules
        then need not read back."""
        if not rows:
            return []
        first = self._next_id("facts")
        ids = list(range(first, first + len(rows)))
        for i, row, (digest, source_type, source_norm) in zip(ids, rows, about, strict=True):
            # as ``_TARGET_FACTS`` reads it: not ended by another fact, not retracted
            self._written[i] = (
                i,
                row[3],
                row[2],
                row[4],
                row[6],
                row[7],
                None,
                row[1],
                digest,
                0,
                source_type,
                source_norm,
            )
        # The contradiction rules run before the rows go in, outside a savepoint: a new
        # fact is written with its end (an UPDATE of each ended row cost more than the
        # rules); stored facts the new ones end are updated. Inside a savepoint, which
        # may be taken back, they run at the commit (``end_contradicted``).
        ends: dict[int, tuple[str, int]] = {}
        if self._savepoints:
            self._uncontradicted.update(ids)
        else:
            self._ended_on_insert.update(self._end_contradicted(ids, unwritten=ends))
        values: list[tuple[Any, ...]] = []
        for i, row in zip(ids, rows, strict=True):
            end = ends.get(i)
            if end is None:
                values.append((i, *row, now, now if row[7] else None, None))
            else:
                values.append((i, *row[:7], end[0], now, now, end[1]))
        with self._indexes_built_after("facts", len(values)):
            self.insert_many(
                "INSERT INTO facts (id, graph_id, episode_id, source_id, relation, target_id,"
                " sentence, valid_at, invalid_at, created_at, expired_at, invalidated_by)",
                values,
            )
        self._unindexed_facts.update(ids)
        return ids

    def signature_ids_of(self, keys: Iterable[tuple[str, str, str]]) -> dict[tuple[str, str], int]:
        """(graph, key) -> id of every (graph, kind, key), those not stored created in one
        statement in the order given (``signature_ids`` across graphs)."""
        out: dict[tuple[str, str], int] = {}
        wanted: dict[tuple[str, str], str] = {}
        for graph_id, kind, key in keys:
            if (graph_id, key) not in wanted:
                wanted[(graph_id, key)] = kind  # the first kind given for a key wins
        unknown: dict[str, list[str]] = {}
        for gk in wanted:
            sig_id = self._signatures.get(gk)
            if sig_id is None:
                unknown.setdefault(gk[0], []).append(gk[1])
            else:
                out[gk] = sig_id
        for graph_id, names in unknown.items():
            for i in range(0, len(names), _TARGETS_AT_ONCE):
                for sig_id, key in self.conn.execute(
                    "SELECT id, key FROM signatures WHERE graph_id = ?"
                    " AND key IN (SELECT value FROM json_each(?))",
                    (graph_id, json.dumps(names[i : i + _TARGETS_AT_ONCE])),
                ):
                    self._signatures[(graph_id, key)] = out[(graph_id, key)] = int(sig_id)
        missing = [gk for gk in wanted if gk not in out]
        if missing:
            first = self._next_id("signatures")
            rows = [(first + n, g, wanted[(g, k)], k) for n, (g, k) in enumerate(missing)]
            self.insert_many("INSERT INTO signatures (id, graph_id, kind, key)", rows)
            for sig_id, g, _kind, k in rows:
                self._signatures[(g, k)] = out[(g, k)] = sig_id
        return out

    def signature_ids(self, graph_id: str, keys: Iterable[tuple[str, str]]) -> dict[str, int]:
        """The id of every (kind, key), those not seen before created in one statement,
        in the order given (``signature_id`` for many keys)."""
        wanted: dict[str, str] = {}
        for kind, key in keys:
            wanted.setdefault(key, kind)  # the first kind given for a key wins
        out: dict[str, int] = {}
        missing: list[tuple[str, str, str]] = []
        for key, kind in wanted.items():
            sig_id = self._signatures.get((graph_id, key))
            if sig_id is None:
                missing.append((graph_id, kind, key))
            else:
                out[key] = sig_id
        if missing:
            self.conn.executemany(
                "INSERT INTO signatures (graph_id, kind, key) VALUES (?, ?, ?)"
                " ON CONFLICT (graph_id, key) DO NOTHING",
                missing,
            )
            for sig_id, key in self.conn.execute(
                "SELECT id, key FROM signatures WHERE graph_id = ?"
                " AND key IN (SELECT value FROM json_each(?))",
                (graph_id, json.dumps([key for _g, _kind, key in missing])),
            ):
                self._signatures[(graph_id, key)] = out[key] = int(sig_id)
        return out

    def add_signatures(self, graph_id: str, fact_id: int, keys: Iterable[tuple[str, str]]) -> None:
        self.link_signatures(
            [(fact_id, self.signature_id(graph_id, kind, key)) for kind, key in keys]
        )

    def signature_id(self, graph_id: str, kind: str, key: str) -> int:
        """The id of this signature key in the graph, created on first sight (cached: a
        key's id never changes once created)."""
        sig_id = self._signatures.get((graph_id, key))
        if sig_id is None:
            row = self.conn.execute(
                "INSERT INTO signatures (graph_id, kind, key) VALUES (?, ?, ?)"
                " ON CONFLICT (graph_id, key) DO NOTHING RETURNING id",
                (graph_id, kind, key),
            ).fetchone()
            value = (
                row[0]
                if row is not None
                else self.scalar(
                    "SELECT id FROM signatures WHERE graph_id = ? AND key = ?", (graph_id, key)
                )
            )
            sig_id = int(value)
            self._signatures[(graph_id, key)] = sig_id
        return sig_id

    def link_signatures(self, pairs: list[tuple[int, int]]) -> None:
        """(fact id, signature id) rows, in one statement for a whole episode."""
        with self._indexes_built_after("fact_signatures", len(pairs)):
            self.insert_many("INSERT OR IGNORE INTO fact_signatures (fact_id, signature_id)", pairs)

    # --- contradiction rules, applied in the ingest transaction ---

    def apply_contradictions(self, episode_id: int) -> int:
        """Apply the contradiction rules to the facts of one stored episode again (a
        correction moved or restored them); how many facts were ended or moved earlier.
        """
        ids = [
            int(r[0])
            for r in self.conn.execute("SELECT id FROM facts WHERE episode_id = ?", (episode_id,))
        ]
        return len(self._end_contradicted(ids))

    def end_contradicted(self) -> list[int]:
        """End the facts that the facts written since the last call contradict, and
        those new facts that stored ones contradict, in both time directions; the ids
        of the facts whose end was set or moved earlier, each once.

        Called once per ingest transaction (a batch of files), not per episode: one
        statement over all the new facts, where per-episode rules cost one to three
        statements an update. The ends are the same, since a fact ends at its earliest
        contradiction whatever order the facts arrive in (see ``_TARGET_FACTS``).
        A transaction that commits with facts still pending runs it first.
        """
        early = self._ended_on_insert
        self._ended_on_insert = set()
        if not self._uncontradicted:
            return sorted(early)
        ids = sorted(self._uncontradicted)
        self._uncontradicted.clear()
        later = self._end_contradicted(ids)
        return sorted(early.union(later)) if early else later

    def _end_contradicted(
        self, ids: list[int], *, unwritten: dict[int, tuple[str, int]] | None = None
    ) -> list[int]:
        """End what the facts ``ids`` contradict (see ``end_contradicted``); the ids of
        the facts ended or moved. ``unwritten``: the facts ``ids`` are not inserted yet
        (their rows are in ``_written``); their own ends go into it, fact id -> (end,
        ending episode), instead of an UPDATE."""
        if not ids:
            return []
        new = set(ids)
        keep = self._keep_targets
        if keep:
            version = self.scalar("PRAGMA data_version")
            if version != self._targets_version:  # another connection committed
                self._forget_targets()
                self._targets_version = version
        # The new facts' rows, by target: as written, or read back.
        fresh: dict[int, list[tuple[Any, ...]]] = {}
        unread = []
        for fact_id in ids:
            row = self._written.pop(fact_id, None)
            if row is None:
                unread.append(fact_id)
            else:
                fresh.setdefault(row[3], []).append(row)
        for i in range(0, len(unread), _TARGETS_AT_ONCE):
            chunk = json.dumps(unread[i : i + _TARGETS_AT_ONCE])
            for row in self.conn.execute(_FACTS_BY_ID, (chunk,)):
                fresh.setdefault(row[3], []).append(row)
        # The other facts of those targets: kept from an earlier transaction, else read
        # without the new ones (ranges of consecutive ids, tested on the index).
        spans = _spans(sorted(new))
        if len(spans) > _SPANS:
            spans = []  # filtered below
        older = _older(spans)
        bounds = [b for span in spans for b in span]
        targets = sorted(fresh)
        now = utcnow()
        out: list[int] = []
        # Targets in slices: memory follows a slice's facts, not a whole batch's.
        for i in range(0, len(targets), _TARGETS_AT_ONCE):
            by_target: dict[int, list[tuple[Any, ...]]] = {}
            unknown = []
            for target in targets[i : i + _TARGETS_AT_ONCE]:
                kept = self._target_rows.pop(target, None) if keep else None
                if kept is None:
                    unknown.append(target)
                    by_target[target] = []
                else:  # a target whose other facts are kept needs only its new ones
                    self._target_rows_kept -= len(kept)
                    by_target[target] = [r for r in kept if r[0] not in new]
            if unknown:
                for row in self.conn.execute(older, (json.dumps(unknown), *bounds)):
                    if row[0] not in new:
                        by_target[row[3]].append(row)
            for target, rows in by_target.items():
                rows += fresh[target]
                rows.sort(key=_in_order)
            ends_of = {
                target: _ends(rows, new, {r[1] for r in fresh[target]})
                for target, rows in by_target.items()
            }
            ended = [e for ends in ends_of.values() for e in ends]
            stored = ended
            if unwritten is not None:
                stored = []
                for e in ended:
                    if e[2] in new:
                        unwritten[e[2]] = (e[0], e[1])
                    else:
                        stored.append(e)
            self.conn.executemany(
                "UPDATE facts SET invalid_at = ?, expired_at = ?, invalidated_by = ? WHERE id = ?",
                [(at, now, by, fact_id) for at, by, fact_id, _ in stored],
            )
            out += [fact_id for _, _, fact_id, _ in ended]
            if keep:
                self._keep(by_target, ends_of)
        return out

    def _keep(
        self,
        by_target: dict[int, list[tuple[Any, ...]]],
        ends_of: dict[int, list[tuple[str, int, int, str]]],
    ) -> None:
        """Keep these targets' rows, with the ends just written (``ends_of``: per
        target), for the next transaction."""
        for target, rows in by_target.items():
            ended = ends_of.get(target)
            if ended:
                moved = {fact_id: (at, digest) for at, _by, fact_id, digest in ended}
                for n, row in enumerate(rows):
                    end = moved.get(row[0])
                    if end is not None:
                        rows[n] = (*row[:5], end[0], end[1], *row[7:])
            self._target_rows[target] = rows
            self._target_rows_kept += len(rows)
        bound = min(TARGET_ROWS_KEPT, self.cache_entries)
        while self._target_rows_kept > bound and self._target_rows:
            _target, rows = self._target_rows.popitem(last=False)
            self._target_rows_kept -= len(rows)

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
