"""Analysis reads and writes: what one analyze needs, and writing its result."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from itertools import compress, repeat
from operator import is_, itemgetter, ne
from typing import TYPE_CHECKING, Any

from memcli.models import EntityType, Relation
from memcli.resolve import TICKET
from memcli.store.connection import chunks
from memcli.store.identity import IdentityMixin

if TYPE_CHECKING:
    # Imported by the methods that build or read its records: every Store includes this
    # room, and a read command (``observations --json``) would otherwise load the whole
    # analysis module (~10 ms of CPU) for nothing.
    from memcli import analysis

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


@dataclass(slots=True)
class AppliedRun:
    """Observation ids by what ``Store.apply`` did to them."""

    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)


# A fact's relation as its place in ``_RELATIONS``, computed by SQLite: a small int
# is one shared object, where the text would be a new string per fact to decode and hash.
_RELATIONS = tuple(Relation)
_RELATION_CODE = (
    "CASE f.relation "
    + " ".join(f"WHEN '{r.value}' THEN {i}" for i, r in enumerate(_RELATIONS))
    + " END"
)
# a Fact's source, relation and target; a row's first column
_SOURCE, _RELATION, _TARGET, _FIRST = itemgetter(2), itemgetter(3), itemgetter(4), itemgetter(0)
_BLOCKED_BY = Relation.BLOCKED_BY

_TYPES = tuple(EntityType)
_TYPE_CODE = (
    "CASE type " + " ".join(f"WHEN '{t.value}' THEN {i}" for i, t in enumerate(_TYPES)) + " END"
)

# Rows written as one JSON array per statement at most (``json_each`` unpacks them in C).
_JSON_ROWS = 50_000
_TICKET_ID = re.compile(TICKET)


class AnalysisMixin(IdentityMixin):
    """What one analyze reads and writes.

    ``load_analysis`` reads everything a pass needs in a few set-based queries and
    ``dependency_cones`` walks the blocked_by chains of its clusters; ``apply`` writes the
    result in the caller's transaction. The scope (the episodes an incremental pass
    redoes, or None for the whole graph) is an argument: inside a call it fills a temp
    table the queries join on, emptied again before the call returns.
    """

    @contextmanager
    def _scoped(self, episode_ids: Iterable[int] | None) -> Iterator[bool]:
        if episode_ids is None:
            yield False
            return
        self.conn.execute("CREATE TEMP TABLE IF NOT EXISTS scope (episode_id INTEGER PRIMARY KEY)")
        self.conn.execute("DELETE FROM temp.scope")
        self.conn.executemany(
            "INSERT OR IGNORE INTO temp.scope (episode_id) VALUES (?)",
            ((i,) for i in sorted(episode_ids)),
        )
        try:
            yield True
        finally:
            self.conn.execute("DELETE FROM temp.scope")

    @staticmethod
    def _from(table: str, key: str, scoped: bool) -> str:
        """``<table> f``, driven from the scope table in a scoped run.

        CROSS JOIN fixes the loop order: walk the (small) scope and look rows up by
        episode, instead of scanning the graph's rows and probing the scope.
        """
        if not scoped:
            return f"{table} f"
        return f"temp.scope sc CROSS JOIN {table} f ON f.{key} = sc.episode_id"

    def analysis_watermark(self, graph_id: str) -> tuple[int, int]:
        """(newest episode id, newest fact id) of a graph: newest first by a scan of the
        table, which stops at the graph's newest row (its index would count them all)."""
        with self._lock:
            row = self.conn.execute(
                "SELECT (SELECT id FROM episodes WHERE +graph_id = :g ORDER BY id DESC LIMIT 1),"
                " (SELECT id FROM facts WHERE +graph_id = :g ORDER BY id DESC LIMIT 1)",
                {"g": graph_id},
            ).fetchone()
        return int(row[0] or 0), int(row[1] or 0)

    def episodes_over(self, graph_id: str, count: int) -> bool:
        """Whether the graph holds more than ``count`` episodes: reads ``count`` + 1
        index entries at most, not the whole graph."""
        with self._lock:
            return (
                self.conn.execute(
                    "SELECT 1 FROM episodes WHERE graph_id = ? LIMIT 1 OFFSET ?",
                    (graph_id, count),
                ).fetchone()
                is not None
            )

    def _titled(self, graph_id: str | None, entities: dict[int, analysis.Entity]) -> None:
        """Give a ticket named by its id alone the first name an update wrote beside it
        (``stated_names``), for the prose: "AUTH-212 (auth refactor) blocking ...". The
        records keep the entity's own name."""
        conn = self.conn
        # entities of one graph (which one, when None, is not at hand)
        where, args = ("", []) if graph_id is None else (" WHERE graph_id = ?", [graph_id])
        if conn.execute(f"SELECT 1 FROM stated_names{where} LIMIT 1", args).fetchone() is None:
            return
        ids = [
            i
            for i, e in entities.items()
            if e.type is EntityType.WORK_ITEM and _TICKET_ID.fullmatch(e.name)
        ]
        titles: dict[int, str] = {}
        for chunk, m in chunks(ids):
            for i, title in conn.execute(
                "SELECT e.id, s.name FROM entities e JOIN stated_names s"
                " ON s.graph_id = e.graph_id AND s.ticket_norm = e.norm"
                " JOIN episodes ep ON ep.id = s.episode_id AND ep.retracted_at IS NULL"
                f" WHERE e.id IN ({m}) ORDER BY s.episode_id",
                chunk,
            ):
                titles.setdefault(i, title)
        for i, title in titles.items():
            entities[i] = entities[i]._replace(name=f"{entities[i].name} ({title})")

    def load_analysis(
        self,
        graph_id: str,
        *,
        scope: Iterable[int] | None,
        kinds: Sequence[str],
        with_times: bool = True,
        as_of: str | None = None,
        recheck: Iterable[int] = (),
        entity_rows: list[tuple[int, str, str, str]] | None = None,
    ) -> analysis.AnalysisInput:
        """Everything one analysis pass reads, as plain data (see ``AnalysisInput``).
        ``recheck``: in a scoped pass, active root observations whose staleness may
        have flipped (``stale_candidates``); those outside the scope are rebuilt from
        their stored evidence (``AnalysisInput.recheck_roots``). ``entity_rows``: the
        graph's ``identity_name_rows`` as read in this transaction, when the caller has
        them: a pass over the whole graph reads no entity row again, and empties the
        list first thing (its rows go before the facts are read, whose tuples take their
        memory)."""
        scope_set = frozenset(scope) if scope is not None else None
        with self._lock, self._scoped(scope_set) as scoped:
            return self._load(
                graph_id, scope_set, scoped, kinds, with_times, as_of, set(recheck), entity_rows
            )

    def _load(
        self,
        graph_id: str,
        scope: frozenset[int] | None,
        scoped: bool,
        kinds: Sequence[str],
        with_times: bool,
        as_of: str | None,
        recheck: set[int],
        entity_rows: list[tuple[int, str, str, str]] | None = None,
    ) -> analysis.AnalysisInput:
        from memcli import analysis

        conn = self.conn
        new_entity = partial(tuple.__new__, analysis.Entity)
        type_of = {t.value: t for t in EntityType}
        named: dict[int, analysis.Entity] | None = None
        if entity_rows is not None and not scoped:
            named = {i: new_entity((i, name, type_of[t])) for i, name, _norm, t in entity_rows}
            entity_rows.clear()
        where, params = validity(as_of)
        g = {"graph": graph_id, **params}
        times: dict[int, float] = {}
        episodes: dict[int, analysis.Episode] = {}
        episode_sql = (
            f" FROM {self._from('episodes', 'id', scoped)} WHERE f.graph_id = :graph"
            " AND f.retracted_at IS NULL"
        )
        if with_times:
            for i, author, occurred_at, source, t in conn.execute(
                "SELECT f.id, f.author, f.occurred_at, f.source,"
                f" CAST(strftime('%s', f.occurred_at) AS INTEGER){episode_sql}",
                g,
            ):
                times[i] = float(t or 0)
                episodes[i] = analysis.Episode(i, author, occurred_at, source)
        else:
            # rows become named tuples in C, not through a Python-level constructor; an
            # author is one string object however many updates they wrote
            new_episode = partial(tuple.__new__, analysis.Episode)
            authors: dict[str | None, str | None] = {}
            author_of = authors.setdefault
            episodes = {
                i: new_episode((i, author_of(a, a), at, source))
                for i, a, at, source in conn.execute(
                    f"SELECT f.id, f.author, f.occurred_at, f.source{episode_sql}", g
                )
            }
        nodes = list(episodes)
        # A whole graph is read in table order ("+f.graph_id" keeps SQLite off the
        # graph_id index, whose row-by-row lookups cost more than the scan), the facts
        # driving the join; duplicates (two facts of one episode with one signature) go
        # in Python, cheaper than SQLite's DISTINCT b-tree.
        graph_term = "f.graph_id = :graph" if scoped else "+f.graph_id = :graph"
        # Merged entities (memcli.identity): facts, signatures and roots are read as the
        # entity each end resolves to; a fact joining an entity to itself drops out, and
        # so do waits ended under another name of the same entity.
        canon = self.entity_canon(graph_id)
        if canon and as_of is None:
            where += self.fill_merge_ended(graph_id, canon)
        if as_of is not None:  # now, a retracted episode's facts have ended; then, not
            where += (
                " AND f.episode_id NOT IN (SELECT id FROM episodes"
                " WHERE graph_id = :graph AND retracted_at IS NOT NULL)"
            )
        incidences, blockers = self._incidences(graph_id, g, scoped, graph_term, where, kinds)
        if canon:
            sig_map = self.canonical_signatures(graph_id, canon, kinds)
            mapped: set[tuple[int, int]] = set()
            for episode, sig in incidences:
                to = sig_map.get(sig, sig)
                if to is not None:
                    mapped.add((episode, to))
            incidences = sorted(mapped)
            blockers |= self._blocker_signatures(
                graph_id, {to for to in sig_map.values() if to is not None}
            )
        fact_sql = (
            f"SELECT f.id, f.episode_id, f.source_id, {_RELATION_CODE}, f.target_id"
            f" FROM {self._from('facts', 'episode_id', scoped)}"
            f" WHERE {graph_term} AND {where} ORDER BY f.id"
        )
        relation_of = _RELATIONS
        new_fact = partial(tuple.__new__, analysis.Fact)
        if canon:
            facts = [
                analysis.Fact(i, e, canon.get(src, src), relation_of[rel], canon.get(tgt, tgt))
                for i, e, src, rel, tgt in conn.execute(fact_sql, g)
                if canon.get(src, src) != canon.get(tgt, tgt)
            ]
            self.clear_merge_ended()
        else:
            # Each episode and entity id is one int object however many facts name it
            # (SQLite hands out a new one per row): tens of megabytes on a large graph.
            same_episode = {e: e for e in episodes}
            same_entity: dict[int, int] = {}
            ep_of, ent_of = same_episode.get, same_entity.setdefault
            facts = [
                new_fact((i, ep_of(e, e), ent_of(src, src), relation_of[rel], ent_of(tgt, tgt)))
                for i, e, src, rel, tgt in conn.execute(fact_sql, g)
            ]
            del same_episode, same_entity
        entity_ids = set(map(_SOURCE, facts))  # in C, as the sets below
        entity_ids.update(map(_TARGET, facts))
        entities: dict[int, analysis.Entity] = {}
        if scoped:
            for chunk, m in chunks(entity_ids):
                for i, name, t in conn.execute(
                    f"SELECT id, name, type FROM entities WHERE id IN ({m})", chunk
                ):
                    entities[i] = new_entity((i, name, type_of[t]))
        elif named is not None:  # the whole table in id order, as read already
            entities = named
            for i in sorted(named.keys() - entity_ids):
                del entities[i]
        else:
            # the whole table in order ("+graph_id": a scan, not an index walk), the
            # type as its place in ``_TYPES`` (as a fact's relation)
            types = _TYPES
            for i, name, t in conn.execute(
                f"SELECT id, name, {_TYPE_CODE} FROM entities WHERE +graph_id = ?", (graph_id,)
            ):
                if i in entity_ids:
                    entities[i] = new_entity((i, name, types[t]))
        self._titled(graph_id, entities)

        # Active observations (in a scoped run, those with evidence in the scope, and
        # the bottlenecks of the owners the run may redo) and their evidence, in one
        # query each.
        active_sql = "o.graph_id = :graph AND o.status = 'active'"
        active_from, join = "observations o", "JOIN"
        owners: frozenset[int] | None = None
        if scoped:
            # the scope's observations and the extra ones, in a temp table the reads
            # start from (a few hundred rows, not every evidence row of the graph)
            owners = self._scope_owners(graph_id, canon, recheck)
            active_from = "temp.extra_observations x CROSS JOIN observations o ON o.id = x.id"
            join = "CROSS JOIN"
        # Of the entities only the roots, and of the facts only those that have ended:
        # lifecycle and retire reasons read episodes, roots and ended facts
        # (``ActiveObservation``); the rest are most of the rows.
        evidence: dict[int, list[tuple[str, int, str]]] = defaultdict(list)
        words: dict[str, str] = {}  # one string object per item type and role, not per row
        for oid, t, i, role in conn.execute(
            "SELECT oe.observation_id, oe.item_type, oe.item_id, oe.role"
            f" FROM {active_from} {join} observation_evidence oe ON oe.observation_id = o.id"
            f" WHERE {active_sql} AND (oe.item_type = 'episode'"
            " OR (oe.item_type = 'entity' AND oe.role = 'root'))"
            " ORDER BY oe.observation_id, oe.item_type, oe.item_id",
            {"graph": graph_id},
        ):
            evidence[oid].append((words.setdefault(t, t), i, words.setdefault(role, role)))
        # The evidence facts that have ended, with what retire reasons need of them, and
        # the active observations they are evidence of (by the item index: a few rows).
        ended = {
            int(i): analysis.EndedFact(int(i), at, by, withdrawn, why)
            for i, at, by, withdrawn, why in conn.execute(
                "SELECT DISTINCT f.id, f.invalid_at, f.invalidated_by, r.id, r.retract_reason"
                f" FROM {active_from}"
                f" {join} observation_evidence oe ON oe.observation_id = o.id"
                " AND oe.item_type = 'fact'"
                f" {join} facts f ON f.id = oe.item_id AND f.invalid_at IS NOT NULL"
                " LEFT JOIN episodes r ON r.id = f.episode_id AND r.retracted_at IS NOT NULL"
                f" WHERE {active_sql}",
                {"graph": graph_id},
            )
        }
        heads = conn.execute(
            f"SELECT o.id, o.pattern_key, o.kind, o.fingerprint FROM {active_from}"
            f" WHERE {active_sql} ORDER BY o.id",
            {"graph": graph_id},
        ).fetchall()
        active_ids = {h[0] for h in heads}
        ended_rows: list[tuple[int, int, str]] = []
        for chunk, m in chunks(ended):
            ended_rows += [
                (oid, i, role)
                for oid, i, role in conn.execute(
                    "SELECT observation_id, item_id, role FROM observation_evidence"
                    f" WHERE item_type = 'fact' AND item_id IN ({m})",
                    chunk,
                )
                if oid in active_ids
            ]
        for oid, i, role in sorted(ended_rows):  # after its entities and episodes, by id
            evidence[oid].append(("fact", i, words.setdefault(role, role)))
        active = [
            analysis.ActiveObservation(oid, key, kind, fp, tuple(evidence.get(oid, ())))
            for oid, key, kind, fp in heads
        ]

        # The rechecked roots outside the scope, rebuilt from their stored evidence.
        rechecked: list[analysis.OutsideRoot] = []
        outside_entities: dict[int, analysis.Entity] = {}
        outside_episodes: dict[int, analysis.Episode] = {}
        if scoped and recheck:
            inside: set[int] = set()
            for chunk, m in chunks(recheck):
                inside.update(
                    r[0]
                    for r in conn.execute(
                        "SELECT DISTINCT oe.observation_id FROM temp.scope sc"
                        " CROSS JOIN observation_evidence oe ON oe.item_type = 'episode'"
                        f" AND oe.item_id = sc.episode_id WHERE oe.observation_id IN ({m})",
                        chunk,
                    )
                )
            loaded = {o.id for o in active}
            rechecked, outside_entities, outside_episodes = self._stored_roots(
                (recheck & loaded) - inside, canon
            )

        # When each candidate root (work waited on) stopped waiting on anything itself.
        candidates = set(
            map(_TARGET, compress(facts, map(is_, map(_RELATION, facts), repeat(_BLOCKED_BY))))
        )
        candidates.update(o.root for o in rechecked)
        since_sql = (
            "SELECT source_id, max(invalid_at) FROM facts WHERE graph_id = ?"
            " AND relation = 'blocked_by' AND invalid_at IS NOT NULL"
        )
        root_since: dict[int, str] = {}
        if scoped:
            asked = candidates | {a for a, b in canon.items() if b in candidates}
            # by the (source, relation) index: "+graph_id" keeps SQLite off the graph's
            # every wait
            scoped_sql = since_sql.replace("WHERE graph_id", "WHERE +graph_id")
            for chunk, m in chunks(asked):
                root_since.update(
                    conn.execute(
                        f"{scoped_sql} AND source_id IN ({m}) GROUP BY source_id",
                        [graph_id, *chunk],
                    )
                )
        else:
            root_since = {
                k: v
                for k, v in conn.execute(f"{since_sql} GROUP BY source_id", (graph_id,))
                if k in candidates or k in canon
            }
        if canon:
            merged_since: dict[int, str] = {}
            for k, v in root_since.items():
                into = canon.get(k, k)
                if into in candidates and v > merged_since.get(into, ""):
                    merged_since[into] = v
            root_since = merged_since

        # What retire reasons need: completions of active observations' roots, their
        # roots' names, their evidence facts that have ended, and the episodes involved.
        roots = sorted(
            {i for o in active for t, i, r in o.evidence if t == "entity" and r == "root"}
        )
        members = self.members_of(canon, set(roots)) if canon else {}
        completions = {
            canon.get(r["target_id"], r["target_id"]): analysis.Completion(
                canon.get(r["target_id"], r["target_id"]), r["episode_id"], r["valid_at"]
            )
            for r in self.rows_in(
                # ordered by time, so the latest completion of each item is the one kept
                # "+graph_id": the (target, relation) index, not every completion of
                # the graph; id breaks ties in time
                "SELECT target_id, episode_id, valid_at FROM facts WHERE +graph_id = ?"
                " AND relation = 'completed' AND target_id IN ({marks}) ORDER BY valid_at, id",
                sorted({m for r in roots for m in members.get(r, {r})}),
                graph_id,
            )
        }
        names = {
            r["id"]: r["name"]
            for r in self.rows_in("SELECT id, name FROM entities WHERE id IN ({marks})", roots)
        }
        involved = (
            {c.episode_id for c in completions.values()}
            | {f.invalidated_by for f in ended.values() if f.invalidated_by is not None}
            | {f.retracted_from for f in ended.values() if f.retracted_from is not None}
        )
        sources = {
            r["id"]: r["source"]
            for r in self.rows_in("SELECT id, source FROM episodes WHERE id IN ({marks})", involved)
        }
        present = conn.execute(
            "SELECT max(occurred_at) FROM episodes WHERE graph_id = ?", (graph_id,)
        ).fetchone()[0]
        merged_names = {
            r["id"]: r["name"]
            for r in self.rows_in(
                "SELECT id, name FROM entities WHERE id IN ({marks})",
                {canon[r] for r in roots if r in canon},
            )
        }
        outside: list[analysis.OutsideRoot] = []
        if owners is not None:
            outside, more_entities, more_episodes = self._outside_roots(
                graph_id, owners, {o.id for o in active}, canon
            )
            outside_entities.update(more_entities)
            outside_episodes.update(more_episodes)
            conn.execute("DELETE FROM temp.extra_observations")
        return analysis.AnalysisInput(
            owners=owners,
            recheck_roots=rechecked,
            outside_roots=outside,
            outside_entities=outside_entities,
            outside_episodes=outside_episodes,
            present=present or "",
            graph=graph_id,
            scope=scope,
            nodes=nodes,
            incidences=incidences,
            blockers=blockers,
            times=times if with_times else None,
            facts=facts,
            entities=entities,
            episodes=episodes,
            active=active,
            root_since=root_since,
            completions=completions,
            ended_facts=ended,
            names=names,
            sources=sources,
            merged_into={r: merged_names[canon[r]] for r in roots if canon.get(r) in merged_names},
        )

    def _scope_owners(
        self, graph_id: str, canon: Mapping[int, int], recheck: set[int]
    ) -> frozenset[int]:
        """The owners whose bottleneck a scoped run may change: whoever owns (or owned)
        work in the scope, and the owners of active bottlenecks with evidence in it.
        ``temp.extra_observations`` gets the observations the run loads: those with
        evidence in the scope, these owners' active bottlenecks and the ``recheck``
        observations, so the run continues or retires each bottleneck even when none of
        its evidence is in the scope."""
        from memcli import analysis

        conn = self.conn
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS extra_observations (id INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM temp.extra_observations")
        # from the scope's episodes by the item index (the loads keep the active ones)
        conn.execute(
            "INSERT OR IGNORE INTO temp.extra_observations (id)"
            " SELECT oe.observation_id FROM temp.scope sc CROSS JOIN observation_evidence oe"
            " ON oe.item_type = 'episode' AND oe.item_id = sc.episode_id"
        )
        owners = {
            canon.get(r[0], r[0])
            for r in conn.execute(
                "SELECT DISTINCT f.source_id FROM temp.scope sc"
                " CROSS JOIN facts f ON f.episode_id = sc.episode_id WHERE f.relation = 'owns'"
            )
        }
        for (key,) in conn.execute(
            "SELECT o.pattern_key FROM temp.extra_observations x"
            " CROSS JOIN observations o ON o.id = x.id"
            " WHERE o.graph_id = ? AND o.status = 'active' AND o.kind = ?",
            (graph_id, analysis.OWNER_BOTTLENECK),
        ):
            owners.add(int(str(key).split(":")[1]))
        keys = {f"owner:{o}" for o in owners}
        conn.executemany(
            "INSERT OR IGNORE INTO temp.extra_observations (id) VALUES (?)",
            (
                (i,)
                for i, key in conn.execute(
                    "SELECT id, pattern_key FROM observations WHERE graph_id = ?"
                    " AND status = 'active' AND kind = ?",
                    (graph_id, analysis.OWNER_BOTTLENECK),
                )
                if key in keys
            ),
        )
        conn.executemany(
            "INSERT OR IGNORE INTO temp.extra_observations (id) VALUES (?)",
            ((i,) for i in sorted(recheck)),
        )
        return frozenset(owners)

    def _outside_roots(
        self, graph_id: str, owners: frozenset[int], loaded: set[int], canon: Mapping[int, int]
    ) -> tuple[list[analysis.OutsideRoot], dict[int, analysis.Entity], dict[int, analysis.Episode]]:
        """The active root observations of ``owners`` that a scoped run does not redo
        (not in ``loaded``), each with its component, cluster and evidence facts, and the
        ends and episodes of those facts. Their components are outside the scope, so
        their drafts are what a full pass makes (``analysis.build_drafts``)."""
        from memcli import analysis

        conn = self.conn
        ids: set[int] = set()
        for chunk, m in chunks(owners):
            ids.update(
                r[0]
                for r in conn.execute(
                    "SELECT oe.observation_id FROM observation_evidence oe"
                    " JOIN observations o ON o.id = oe.observation_id"
                    f" WHERE oe.item_type = 'entity' AND oe.role = 'owner' AND oe.item_id IN ({m})"
                    " AND o.graph_id = ? AND o.status = 'active' AND o.kind IN (?, ?)",
                    [*chunk, graph_id, *analysis.ROOT_KINDS],
                )
            )
        return self._stored_roots(ids - loaded, canon)

    def _stored_roots(
        self, ids: set[int], canon: Mapping[int, int]
    ) -> tuple[list[analysis.OutsideRoot], dict[int, analysis.Entity], dict[int, analysis.Episode]]:
        """Root observations as stored: each one's component, cluster, pattern key and
        evidence facts, and the ends and episodes of those facts."""
        from memcli import analysis

        conn = self.conn
        if not ids:
            return [], {}, {}
        # The roots in a temp table the reads join on: one statement per read.
        conn.execute("CREATE TEMP TABLE IF NOT EXISTS stored_roots (id INTEGER PRIMARY KEY)")
        conn.execute("DELETE FROM temp.stored_roots")
        conn.executemany(
            "INSERT INTO temp.stored_roots (id) VALUES (?)", ((i,) for i in sorted(ids))
        )
        # each root's component: that of its first episode (its episodes share one)
        head = {
            oid: (str(key), int(cluster_id), component)
            for oid, key, cluster_id, component in conn.execute(
                "SELECT o.id, o.pattern_key, o.cluster_id, (SELECT ec.component_id"
                " FROM observation_evidence oe"
                " JOIN episode_clusters ec ON ec.episode_id = oe.item_id"
                " WHERE oe.observation_id = o.id AND oe.item_type = 'episode'"
                " ORDER BY oe.item_id LIMIT 1)"
                " FROM temp.stored_roots t CROSS JOIN observations o ON o.id = t.id"
            )
        }
        relation_of = {r.value: r for r in Relation}
        # rows become named tuples in C (``_load``); a fact two roots share is one tuple
        new_fact = partial(tuple.__new__, analysis.Fact)
        new_entity = partial(tuple.__new__, analysis.Entity)
        new_episode = partial(tuple.__new__, analysis.Episode)
        to = canon.get
        facts: dict[int, analysis.Fact] = {}
        fact_ids: dict[int, list[analysis.Fact]] = defaultdict(list)
        for oid, i, e, src, rel, tgt in conn.execute(
            "SELECT oe.observation_id, f.id, f.episode_id, f.source_id, f.relation, f.target_id"
            " FROM temp.stored_roots t"
            " CROSS JOIN observation_evidence oe ON oe.observation_id = t.id"
            " AND oe.item_type = 'fact'"
            " CROSS JOIN facts f ON f.id = oe.item_id"
            " ORDER BY oe.observation_id, oe.item_id"  # the key's order: no sort
        ):
            fact = facts.get(i)
            if fact is None:
                fact = facts[i] = new_fact((i, e, to(src, src), relation_of[rel], to(tgt, tgt)))
            fact_ids[oid].append(fact)
        conn.execute("DELETE FROM temp.stored_roots")
        type_of = {t.value: t for t in EntityType}
        entities: dict[int, analysis.Entity] = {}
        for chunk, m in chunks({i for f in facts.values() for i in (f.source_id, f.target_id)}):
            for i, name, kind in conn.execute(
                f"SELECT id, name, type FROM entities WHERE id IN ({m})", chunk
            ):
                entities[i] = new_entity((i, name, type_of[kind]))
        self._titled(None, entities)
        episodes: dict[int, analysis.Episode] = {}
        for chunk, m in chunks({f.episode_id for f in facts.values()}):
            for i, author, occurred_at, source in conn.execute(
                f"SELECT id, author, occurred_at, source FROM episodes WHERE id IN ({m})", chunk
            ):
                episodes[i] = new_episode((i, author, occurred_at, source))
        outside = [
            analysis.OutsideRoot(
                component=int(head[oid][2]),
                cluster_id=head[oid][1],
                # pattern key root:<root>, or root:<root>:c<component>
                root=int(head[oid][0].split(":")[1]),
                facts=tuple(fact_ids[oid]),  # by id, as the evidence's key orders them
                pattern_key=head[oid][0],
            )
            for oid in sorted(ids)
        ]
        return outside, entities, episodes

    def _incidences(
        self,
        graph_id: str,
        g: dict[str, Any],
        scoped: bool,
        graph_term: str,
        where: str,
        kinds: Sequence[str],
    ) -> tuple[list[tuple[int, int]], set[int]]:
        """(episode, signature) pairs of the valid facts, without repeats, and which of
        those signatures are blocker signatures (the rest are literal)."""
        conn = self.conn
        if scoped:
            # a few rows: the signature kind comes with each one
            marks = ", ".join(f":k{i}" for i in range(len(kinds)))
            pairs: dict[tuple[int, int], None] = {}
            blockers: set[int] = set()
            for e, sig, kind in conn.execute(
                f"""
                SELECT f.episode_id, fs.signature_id, s.kind
                FROM {self._from("facts", "episode_id", True)}
                CROSS JOIN fact_signatures fs ON fs.fact_id = f.id
                CROSS JOIN signatures s ON s.id = fs.signature_id
                WHERE {graph_term} AND s.kind IN ({marks}) AND {where}
                """,
                {**g, **{f"k{i}": k for i, k in enumerate(kinds)}},
            ):
                pairs[(e, sig)] = None
                if kind != "literal":
                    blockers.add(sig)
            return list(pairs), blockers
        # The whole graph: the pairs alone (joining every row to its signature costs
        # more than the rest of the query), and the blocker signatures in one scan.
        rows: Iterable[tuple[int, int]] = dict.fromkeys(
            conn.execute(
                f"""
                SELECT f.episode_id, fs.signature_id
                FROM facts f CROSS JOIN fact_signatures fs ON fs.fact_id = f.id
                WHERE {graph_term} AND {where}
                """,
                g,
            )
        )
        blockers = set(
            map(
                _FIRST,
                conn.execute(
                    "SELECT id FROM signatures WHERE +graph_id = ? AND kind = 'blocker'",
                    (graph_id,),
                ),
            )
        )
        if "blocker" not in kinds:
            return [r for r in rows if r[1] not in blockers], set()
        if "literal" not in kinds:
            return [r for r in rows if r[1] in blockers], blockers
        return list(rows), blockers

    def _blocker_signatures(self, graph_id: str, ids: Iterable[int]) -> set[int]:
        return {
            r["id"]
            for r in self.rows_in(
                "SELECT id FROM signatures WHERE kind = 'blocker' AND id IN ({marks})", ids
            )
        }

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
        # New facts by their id range ("+f.graph_id": not the graph's whole index).
        changed = self.rows(
            """
            SELECT f.id, f.episode_id, CAST(strftime('%s', e.occurred_at) AS INTEGER) AS t
            FROM facts f JOIN episodes e ON e.id = f.episode_id
            WHERE f.id > :max_fact AND +f.graph_id = :graph
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
                # by the id range ("+graph_id": not the graph's every episode)
                "SELECT id FROM episodes WHERE +graph_id = :graph AND id > :max_ep",
                {"graph": graph_id, "max_ep": max_episode_id},
            )
        }
        seeds |= {r["episode_id"] for r in changed}
        time_of = {r["episode_id"]: float(r["t"] or 0) for r in changed}
        by_sig: dict[int, set[int]] = defaultdict(set)
        kind_of: dict[int, str] = {}
        fact_ids = [r["id"] for r in changed]
        episode_of = {r["id"]: r["episode_id"] for r in changed}
        for chunk, marks in chunks(fact_ids):
            for fact_id, sig, kind in self.conn.execute(
                "SELECT fs.fact_id, fs.signature_id, s.kind FROM fact_signatures fs"
                " JOIN signatures s ON s.id = fs.signature_id"
                f" WHERE fs.fact_id IN ({marks})",
                chunk,
            ):
                if kind in kinds:
                    by_sig[sig].add(episode_of[fact_id])
                    kind_of[sig] = kind
        carriers_of: dict[int, set[tuple[int, Any]]] = defaultdict(set)
        for chunk, marks in chunks(by_sig):
            for sig, episode, t in self.conn.execute(
                f"""
                SELECT DISTINCT fs.signature_id, f.episode_id,
                  CAST(strftime('%s', e.occurred_at) AS INTEGER)
                FROM fact_signatures fs
                JOIN facts f ON f.id = fs.fact_id AND f.invalid_at IS NULL
                JOIN episodes e ON e.id = f.episode_id
                WHERE fs.signature_id IN ({marks})
                """,
                chunk,
            ):
                carriers_of[sig].add((episode, t))
        for sig, touched in sorted(by_sig.items()):
            carriers = sorted(carriers_of[sig])
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
                    SELECT e2.component_id FROM temp.seeds s
                    CROSS JOIN episode_clusters e2 ON e2.episode_id = s.episode_id)
                """,
                (graph_id,),
            )
        }
        self.conn.execute("DELETE FROM temp.seeds")
        return seeds | members

    def present(self, graph_id: str, max_episode_id: int | None = None) -> str | None:
        """The newest world time of a graph's episodes (of those up to an id, if given)."""
        sql = "SELECT max(occurred_at) FROM episodes WHERE graph_id = ?"
        args: list[Any] = [graph_id]
        if max_episode_id is not None:
            sql += " AND id <= ?"
            args.append(max_episode_id)
        with self._lock:
            row = self.conn.execute(sql, args).fetchone()
        return str(row[0]) if row and row[0] else None

    def stale_candidates(self, graph_id: str, stale_from: str, stale_to: str) -> set[int]:
        """Active root observations that may have gone stale as the graph's present
        moved: first confirmed before ``stale_to`` and last restated on or after
        ``stale_from``. An incremental pass rechecks them (``load_analysis``) instead of
        redoing their components: staleness moves with time alone, not with evidence."""
        from memcli import analysis

        return {
            r[0]
            for r in self.conn.execute(
                "SELECT o.id FROM observations o WHERE o.graph_id = ? AND o.status = 'active'"
                " AND o.kind = ? AND o.start_at < ? AND o.latest_evidence_at >= ?",
                (graph_id, analysis.DEPENDENCY, stale_to, stale_from),
            )
        }

    def save_membership(
        self, graph_id: str, membership: dict[int, int], component: dict[int, int], *, full: bool
    ) -> None:
        """Store each episode's cluster and component; ``full``: these are all of the
        graph's episodes (rows for any other episode go). Only rows that changed are
        written: a re-run over a graph that barely moved writes next to nothing."""
        stored: dict[int, tuple[int, int]] = {}
        sql = "SELECT episode_id, cluster_id, component_id FROM episode_clusters"
        if full:
            for e, c, comp in self.conn.execute(f"{sql} WHERE graph_id = ?", (graph_id,)):
                stored[e] = (c, comp)
        else:
            for chunk, marks in chunks(membership):
                for e, c, comp in self.conn.execute(f"{sql} WHERE episode_id IN ({marks})", chunk):
                    stored[e] = (c, comp)
        if full:
            gone = [(e,) for e in stored if e not in membership]
            self.conn.executemany("DELETE FROM episode_clusters WHERE episode_id = ?", gone)
        # each episode's row, and whether it differs from the stored one, made in C
        episodes = sorted(membership)
        clusters = list(map(membership.__getitem__, episodes))
        components = list(map(component.__getitem__, episodes))
        rows = zip(episodes, clusters, components, strict=True)
        changed = (
            list(
                compress(
                    rows, map(ne, map(stored.get, episodes), zip(clusters, components, strict=True))
                )
            )
            if stored
            else list(rows)
        )
        # as JSON arrays SQLite unpacks in C (a bound row per episode cost twice as much)
        for part in range(0, len(changed), _JSON_ROWS):
            self.conn.execute(
                "INSERT OR REPLACE INTO episode_clusters (episode_id, graph_id, cluster_id,"
                " component_id) SELECT json_extract(value, '$[0]'), ?,"
                " json_extract(value, '$[1]'), json_extract(value, '$[2]')"
                " FROM json_each(?)",
                (graph_id, json.dumps(changed[part : part + _JSON_ROWS])),
            )

    def signature_keys(self, ids: Iterable[int]) -> dict[int, tuple[str, str]]:
        out: dict[int, tuple[str, str]] = {}
        with self._lock:  # rows as tuples, not dicts: ~17k at 100k
            for chunk, marks in chunks(ids):
                for i, kind, key in self.conn.execute(
                    f"SELECT id, kind, key FROM signatures WHERE id IN ({marks})", chunk
                ):
                    out[i] = (kind, key)
        return out

    def dependency_cones(
        self,
        graph_id: str,
        membership: dict[int, int],
        as_of: str | None = None,
        *,
        scoped: bool = False,
    ) -> list[tuple[int, int, int, int]]:
        """Walk blocked_by chains inside each group of episodes with a recursive CTE.

        ``membership`` maps episode id -> group id; analyze passes the components (the
        clusters before size-cap splits), so a split never cuts a root's dependents
        apart. A chain is followed only through facts of the same group. Returns
        (group id, root entity id, node entity id, depth) rows; depth 0 is the root
        itself. A root is work that others in the group wait on and that waits on
        nothing in the group. The walk is cycle-safe: UNION drops repeated rows and the
        depth stops at 64, so a cycle neither loops it nor contributes a root (cycles
        are found by ``analysis`` from the facts instead).

        ``scoped``: ``membership`` is a small part of the graph (an incremental pass's
        scope), so the walk's edges are read from its episodes' facts; otherwise from the
        graph's waits, each looked up in ``membership`` (for a whole graph a third of
        the cost; for a few episodes, a fortieth).
        """
        where, params = validity(as_of)
        self.conn.execute(
            "CREATE TEMP TABLE IF NOT EXISTS cluster_members ("
            " episode_id INTEGER PRIMARY KEY, cluster_id INTEGER NOT NULL)"
        )
        self.conn.execute("DELETE FROM temp.cluster_members")
        # bound rows: for two integers into a temp table, cheaper than unpacking JSON
        self.conn.executemany(
            "INSERT INTO temp.cluster_members (episode_id, cluster_id) VALUES (?, ?)",
            sorted(membership.items()),
        )
        # Merged entities: each fact end read as what it resolves to (see entity_canon).
        canon = self.entity_canon(graph_id)
        ends = ("f.source_id", "f.target_id")
        merged = ""
        if canon:
            self.conn.execute(
                "CREATE TEMP TABLE IF NOT EXISTS canon ("
                " entity_id INTEGER PRIMARY KEY, canonical_id INTEGER NOT NULL)"
            )
            self.conn.execute("DELETE FROM temp.canon")
            self.conn.executemany(
                "INSERT INTO temp.canon (entity_id, canonical_id) VALUES (?, ?)",
                sorted(canon.items()),
            )
            ends = (
                "coalesce(cs.canonical_id, f.source_id)",
                "coalesce(ct.canonical_id, f.target_id)",
            )
            merged = (
                " LEFT JOIN temp.canon cs ON cs.entity_id = f.source_id"
                " LEFT JOIN temp.canon ct ON ct.entity_id = f.target_id"
            )
            if as_of is None:
                where += self.fill_merge_ended(graph_id, canon)
        members = (
            "temp.cluster_members cm CROSS JOIN facts f ON f.episode_id = cm.episode_id"
            if scoped
            else "facts f JOIN temp.cluster_members cm ON cm.episode_id = f.episode_id"
        )
        cur = self.conn.execute(
            f"""
            WITH RECURSIVE
            edges(cluster_id, src, tgt) AS (
                SELECT DISTINCT cm.cluster_id, {ends[0]}, {ends[1]}
                FROM {members}
                {merged}
                WHERE f.graph_id = :graph AND f.relation = 'blocked_by' AND {where}
                  AND {ends[0]} != {ends[1]}
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
        rows: list[tuple[int, int, int, int]] = cur.fetchall()  # integer columns: ints
        self.conn.execute("DELETE FROM temp.cluster_members")
        if canon:
            self.conn.execute("DELETE FROM temp.canon")
            self.clear_merge_ended()
        return rows

    def _insert_observation(self, row: dict[str, Any]) -> int:
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
        return cur.lastrowid

    def _update_observation(self, obs_id: int, row: dict[str, Any]) -> None:
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

    def _stored_evidence(self, ids: Iterable[int]) -> dict[int, set[tuple[str, int, str]]]:
        """Each observation's evidence rows as stored: (item type, item id, role), one
        read per observation (its key's range) whose rows go into the set in C."""
        sql = "SELECT item_type, item_id, role FROM observation_evidence WHERE observation_id = ?"
        return {oid: set(self.conn.execute(sql, (oid,))) for oid in sorted(set(ids))}

    def _write_evidence(
        self,
        rows: list[tuple[int, str, int, str]],
        whole: Sequence[tuple[int, str]] = (),
        whole_rows: int = 0,
    ) -> None:
        """Write evidence rows: ``rows`` one by one, and ``whole`` (observation id, its
        ``whole_rows`` rows in all as a JSON array of [type, id, role]) unpacked by
        SQLite in C, half the cost of binding each row."""
        # A plain INSERT (no conflict handling: half the cost of OR REPLACE): the rows
        # are new observations' or new rows of updated ones (a row whose role changed
        # was deleted first).
        sql = (
            "INSERT INTO observation_evidence (observation_id, item_type, item_id, role)"
            " VALUES (?, ?, ?, ?)"
        )
        count = len(rows) + whole_rows
        index = None
        # A batch larger than the table (a first pass): the item index is built once
        # over all the rows instead of taking each row at a random place (a third of the
        # batch's cost), and comes back as it was defined. "Larger" is asked with an
        # OFFSET as far as the batch: never a count of a large table.
        larger = count and (
            self.conn.execute(
                "SELECT 1 FROM observation_evidence LIMIT 1 OFFSET ?", (count - 1,)
            ).fetchone()
            is None
        )
        if larger:
            index = self.conn.execute(
                "SELECT sql FROM sqlite_master WHERE type = 'index'"
                " AND name = 'observation_evidence_item'"
            ).fetchone()
            if index is not None and index[0]:
                self.conn.execute("DROP INDEX observation_evidence_item")
            else:
                index = None
        self.conn.executemany(sql, rows)
        self.conn.executemany(
            "INSERT INTO observation_evidence (observation_id, item_type, item_id, role)"
            " SELECT ?, json_extract(value, '$[0]'), json_extract(value, '$[1]'),"
            " json_extract(value, '$[2]') FROM json_each(?)",
            whole,
        )
        if index is not None:
            self.conn.execute(index[0])

    def _snapshot(self, versions: list[tuple[str, int]]) -> None:
        """Record each observation's current version (its row as just written), from
        (evidence as JSON, observation id) pairs."""
        self.conn.executemany(
            """
            INSERT OR REPLACE INTO observation_versions (observation_id, version, name, summary,
              kind, start_at, latest_evidence_at, evidence, created_at)
            SELECT id, version, name, summary, kind, start_at, latest_evidence_at, ?, updated_at
            FROM observations WHERE id = ?
            """,
            versions,
        )

    def apply(
        self,
        result: analysis.AnalysisResult,
        prose: Mapping[str, tuple[str, str, str]],
        *,
        now: str,
    ) -> AppliedRun:
        """Write one analysis result: keep, update, retire and create observations, link
        new ones to those they supersede, and save the cluster membership. ``prose`` maps
        each updated or new draft's pattern key to (name, summary, writer). Call inside
        the analyze transaction.

        Only what changed is written: a kept observation gets at most its rank and
        cluster id; evidence and a version are written for updated and new ones only,
        all in one batch each."""
        done = AppliedRun()
        graph = result.graph

        def row(d: analysis.Draft) -> dict[str, Any]:
            name, summary, writer = prose[d.pattern_key]
            return {
                "valid_from": d.valid_from,
                "graph_id": graph,
                "name": name,
                "summary": summary,
                "kind": d.kind,
                "pattern_key": d.pattern_key,
                "cluster_id": d.cluster_id,
                "fingerprint": d.fingerprint,
                "rank": d.rank,
                "start_at": d.start_at,
                "latest_evidence_at": d.latest_evidence_at,
                "now": now,
                "writer": writer,
            }

        evidence: list[tuple[int, str, int, str]] = []
        whole: list[tuple[int, str]] = []  # a new observation's evidence, as JSON
        whole_rows = [0]  # how many rows those hold
        versions: list[tuple[str, int]] = []

        gone: list[tuple[int, str, int]] = []

        def record(obs_id: int, d: analysis.Draft, stored: set[tuple[str, int, str]]) -> None:
            # An updated observation's evidence is written as a difference with what is
            # stored (a bottleneck that gains one root keeps tens of thousands of rows).
            # the evidence as the pure core encoded it for the fingerprint
            as_json = d.evidence_json or json.dumps(d.evidence())
            if stored:
                rows = set(d.evidence())
                gone.extend((obs_id, t, i) for t, i, r in stored - rows)
                evidence.extend((obs_id, t, i, r) for t, i, r in sorted(rows - stored))
            else:
                whole.append((obs_id, as_json))
                whole_rows[0] += len(d.episodes) + len(d.fact_roles) + len(d.entity_roles)
            versions.append((as_json, obs_id))

        with self._savepoint():
            # The cluster table first: written after the evidence (a large batch of
            # pages already dirty in the page cache), its rows cost about three times as
            # much.
            self.save_membership(
                graph,
                result.clustering.membership,
                result.clustering.component,
                full=result.scope is None,
            )
            # Same pattern, same evidence: only bookkeeping that is not part of the
            # version, and only where it moved.
            self.conn.executemany(
                "UPDATE observations SET rank = ?, cluster_id = ? WHERE id = ?"
                " AND (rank != ? OR cluster_id IS NOT ?)",
                [
                    (d.rank, d.cluster_id, obs_id, d.rank, d.cluster_id)
                    for obs_id, d in result.plan.keep
                ],
            )
            done.unchanged.extend(obs_id for obs_id, _ in result.plan.keep)
            stored = self._stored_evidence(obs_id for obs_id, _ in result.plan.update)
            for obs_id, d in result.plan.update:
                self._update_observation(obs_id, row(d))
                record(obs_id, d, stored.pop(obs_id, set()))
                done.updated.append(obs_id)
            for r in result.retire:
                self.conn.execute(
                    """
                    UPDATE observations SET status = 'retired', retire_reason = ?, end_at = ?,
                      retired_by_episode = ?, updated_at = ?
                    WHERE id = ?
                    """,
                    (r.reason, r.end_at, r.episode_id, now, r.observation_id),
                )
                done.retired.append(r.observation_id)
            links: list[tuple[int, int, str]] = []
            for d, supersedes in result.plan.create:
                obs_id = self._insert_observation(row(d))
                record(obs_id, d, set())
                links.extend((obs_id, older, now) for older in supersedes)
                done.created.append(obs_id)
            self.conn.executemany(
                "DELETE FROM observation_evidence"
                " WHERE observation_id = ? AND item_type = ? AND item_id = ?",
                sorted(gone),
            )
            self._write_evidence(evidence, whole, whole_rows[0])
            self._snapshot(versions)
            self.conn.executemany(
                "INSERT OR IGNORE INTO observation_links (from_id, to_id, kind, created_at)"
                " VALUES (?, ?, 'supersedes', ?)",
                links,
            )
        return done

    @contextmanager
    def _savepoint(self) -> Iterator[None]:
        """``apply``'s writes as one unit inside the caller's transaction, by a plain
        SAVEPOINT: the nested ``transaction()`` would load sqlite-utils for it (a
        quarter of a second of imports, more than an incremental pass's own writes).
        Outside a transaction, a transaction of its own."""
        if not self.conn.in_transaction:
            with self.transaction():
                yield
            return
        self.conn.execute("SAVEPOINT memcli_apply")
        try:
            yield
        except BaseException:
            self.conn.execute("ROLLBACK TO memcli_apply")
            self.conn.execute("RELEASE memcli_apply")
            raise
        self.conn.execute("RELEASE memcli_apply")

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
            "UPDATE graphs SET analyzed_seq = ?, analyzed_config = ?, needs_full = 0 WHERE id = ?",
            (seq, config, graph_id),
        )
