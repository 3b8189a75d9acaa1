"""Reads behind the library's read functions: graphs, episodes, facts, entities, observations."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, NamedTuple

from memcli.errors import NotFound
from memcli.store.connection import StoreBase, chunks

# A fact as the contract cites it (``memcli.contract.Fact``'s keys, in its order; evidence
# adds ``role``).
FACT_REF_KEYS = (
    "id",
    "source",
    "relation",
    "target",
    "episode_id",
    "valid_at",
    "invalid_at",
    "sentence",
)

# An observation's evidence lists: entities, episodes, facts (as the contract orders them).
EvidenceLists = tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]

# For each list: the contract's keys; the evidence item type and the table its ids name
# (as ``x``); further joins for the columns; the columns that fill the keys (``oe`` is
# the evidence row); the order the library lists them in (by ``oe`` and ``x`` alone).
# facts.source_id / target_id are foreign keys: those joins never drop a fact.
_EVIDENCE_SQL: tuple[tuple[tuple[str, ...], str, str, str, str, str], ...] = (
    (
        ("id", "name", "type", "role"),
        "entity",
        "entities",
        "",
        "x.id, x.name, x.type, oe.role",
        "CASE oe.role WHEN 'root' THEN 0 WHEN 'owner' THEN 1 WHEN 'direct' THEN 2"
        " WHEN 'downstream' THEN 3 WHEN 'member' THEN 4 ELSE 9 END, memcli_lower(x.name), x.id",
    ),
    (
        ("id", "source", "author", "occurred_at"),
        "episode",
        "episodes",
        "",
        "x.id, x.source, x.author, x.occurred_at",
        "x.occurred_at, x.id",
    ),
    (
        (*FACT_REF_KEYS, "role"),
        "fact",
        "facts",
        " JOIN entities s ON s.id = x.source_id JOIN entities t ON t.id = x.target_id",
        "x.id, s.name, x.relation, t.name, x.episode_id, x.valid_at, x.invalid_at, x.sentence,"
        " oe.role",
        "x.valid_at, x.episode_id, x.id",
    ),
)


# What :meth:`ReadsMixin.evidence_json` reads beside each list's JSON: an entity's role and
# name, an episode's id and date, a fact's target, relation and episode.
_FOR_ROOTS = ("oe.role, x.name", "x.id, x.occurred_at", "t.name, x.relation, x.episode_id")


def _json_object(keys: Sequence[str], columns: str) -> str:
    """``json_object('key', column, ...)`` for one list of :data:`_EVIDENCE_SQL` (its
    columns are plain column references, one per key)."""
    exprs = [c.strip() for c in columns.split(",")]
    return "json_object(" + ", ".join(f"'{k}', {c}" for k, c in zip(keys, exprs, strict=True)) + ")"


class EvidenceJson(NamedTuple):
    """One observation's evidence lists as JSON text, and what its root and its
    confirmation are computed from (see :meth:`ReadsMixin.evidence_json`)."""

    entities: str  # a JSON array: the items of EvidenceLists' first list, as JSON
    episodes: str
    facts: str
    roots: list[str]  # the names of the root entities, in the list's order
    claims: list[tuple[str, str, int]]  # each fact's (target, relation, episode id)
    dates: dict[int, str]  # each episode's id -> occurred_at


class ReadsMixin(StoreBase):
    # --- export (memcli export) ---

    def export_episodes(self, graph_id: str, batch: int = 500) -> Iterator[dict[str, Any]]:
        """Every episode of a graph in id order, each with its facts (all of them, ended
        ones too: the contradiction rules end them again on import). Retracted episodes
        are left out: imported elsewhere they would hold again. Read in batches, so
        a large graph is never held in memory at once."""
        last = 0
        while True:
            episodes = self.rows(
                "SELECT id, content, author, occurred_at, graph_id, source, extraction_status"
                " FROM episodes WHERE graph_id = ? AND id > ? AND retracted_at IS NULL"
                " ORDER BY id LIMIT ?",
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
            released: dict[int, list[dict[str, Any]]] = {}
            for row in self.rows(
                "SELECT episode_id, item_norm AS item, item_type, sentence FROM releases"
                f" WHERE episode_id IN ({marks}) ORDER BY episode_id, item_type, item_norm",
                ids,
            ):
                released.setdefault(row.pop("episode_id"), []).append(row)
            for e in episodes:
                e["facts"] = facts[e["id"]]
                e["releases"] = released.get(e["id"], [])
                yield e
            last = ids[-1]

    # --- graphs ---
    def graph_exists(self, graph_id: str) -> bool:
        return self.scalar("SELECT 1 FROM graphs WHERE id = ?", (graph_id,)) is not None

    def require_graph(self, graph_id: str) -> None:
        """Raise ``NotFound`` naming the graphs there are when ``graph_id`` is not one."""
        if not self.graph_exists(graph_id):
            known = ", ".join(self.graph_ids()) or "none yet"
            raise NotFound(f"no graph named {graph_id!r} (graphs: {known})")

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

    def entities_by_id(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        sql = "SELECT id, name, type, norm FROM entities WHERE id IN ({marks})"
        return {r["id"]: r for r in self.rows_in(sql, ids)}

    def episode_text(self, episode_id: int) -> dict[str, Any] | None:
        """One episode's stored content and author (what ``memcli explain`` re-reads)."""
        rows = self.rows(
            "SELECT id, author, source, occurred_at, content FROM episodes WHERE id = ?",
            [episode_id],
        )
        return rows[0] if rows else None

    def episodes_by_id(self, ids: Iterable[int]) -> dict[int, dict[str, Any]]:
        sql = "SELECT id, author, occurred_at, source FROM episodes WHERE id IN ({marks})"
        return {r["id"]: r for r in self.rows_in(sql, ids)}

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

    # --- observations as the library returns them (api.observations, history) ---

    def observation_rows(
        self,
        graph_id: str | None,
        status: str,
        *,
        ids: Sequence[int] | None = None,
        as_of: str | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """Observation rows, most leverage first. ``as_of`` (world time) selects those
        that held then, whatever their status now; else ``status`` (active, retired, all)."""
        where: list[str] = ["1 = 1"]
        params: list[Any] = []
        if graph_id is not None:
            where.append("graph_id = ?")
            params.append(graph_id)
        if as_of is not None:
            where.append("valid_from <= ? AND (end_at IS NULL OR end_at > ?)")
            params.extend([as_of, as_of])
        elif status != "all":
            where.append("status = ?")
            params.append(status)
        if ids is not None:
            where.append(f"id IN ({','.join('?' * len(ids))})")
            params.extend(ids)
        return self.rows(
            f"SELECT * FROM observations WHERE {' AND '.join(where)}"
            # at a past moment every row selected held then: rank alone orders them
            + (
                " ORDER BY rank DESC, id"
                if as_of is not None
                else " ORDER BY status = 'retired', rank DESC, id"
            )
            + (f" LIMIT {int(limit)}" if limit else ""),
            params,
        )

    def evidence_lists(self, obs_ids: Sequence[int]) -> dict[int, EvidenceLists]:
        """For each observation, its evidence entities, episodes and facts as the contract
        lists them (each a dict with the contract's keys in its order), sorted in SQL:
        entities by role (root, owner, direct, downstream, member), name ignoring case,
        id; episodes by date, id; facts by ``valid_at``, episode, id. An item whose row
        is gone (a deleted episode or entity) is left out."""
        out: dict[int, EvidenceLists] = {i: ([], [], []) for i in obs_ids}
        with self._lock:
            self._case_fold()
            for slot, (keys, item, table, joins, columns, order) in enumerate(_EVIDENCE_SQL):
                for chunk, marks in chunks(obs_ids):
                    for obs_id, *values in self.conn.execute(
                        f"SELECT oe.observation_id, {columns} FROM observation_evidence oe"
                        f" JOIN {table} x ON x.id = oe.item_id{joins}"
                        f" WHERE oe.item_type = '{item}' AND oe.observation_id IN ({marks})"
                        f" ORDER BY oe.observation_id, {order}",
                        chunk,
                    ):
                        out[obs_id][slot].append(dict(zip(keys, values, strict=True)))
        return out

    def evidence_json(self, obs_ids: Sequence[int]) -> dict[int, EvidenceJson]:
        """:meth:`evidence_lists` written as JSON by SQLite: each list is the text
        ``json.dumps(list, ensure_ascii=False, separators=(",", ":"))`` gives for the
        dicts :meth:`evidence_lists` returns (each item is a ``json_object`` in the
        contract's key order; SQLite escapes what Python's encoder escapes: quotes,
        backslashes and control characters, the latter in the same short or ``\\u00XX``
        forms, lowercase; the columns hold text, integers and nulls, never a float, which
        the two write differently). For a caller that prints the lists: building ~10k
        dicts in Python only to encode them again cost more than reading the rows.

        Beside the text, each row's few columns the record's ``root_entities`` and
        ``confirmed_at`` are computed from (:class:`EvidenceJson`), read in the same
        pass."""
        items: dict[int, tuple[list[str], list[str], list[str]]] = {
            i: ([], [], []) for i in obs_ids
        }
        roots: dict[int, list[str]] = {i: [] for i in obs_ids}
        claims: dict[int, list[tuple[str, str, int]]] = {i: [] for i in obs_ids}
        dates: dict[int, dict[int, str]] = {i: {} for i in obs_ids}
        with self._lock:
            self._case_fold()
            for slot, (keys, item, table, joins, columns, order) in enumerate(_EVIDENCE_SQL):
                for chunk, marks in chunks(obs_ids):
                    rows = self.conn.execute(
                        f"SELECT oe.observation_id, {_json_object(keys, columns)}, {_FOR_ROOTS[slot]}"
                        f" FROM observation_evidence oe JOIN {table} x ON x.id = oe.item_id{joins}"
                        f" WHERE oe.item_type = '{item}' AND oe.observation_id IN ({marks})"
                        f" ORDER BY oe.observation_id, {order}",
                        chunk,
                    )
                    if slot == 0:
                        for obs_id, text, role, name in rows:
                            items[obs_id][0].append(text)
                            if role == "root":
                                roots[obs_id].append(name)
                    elif slot == 1:
                        for obs_id, text, episode_id, occurred_at in rows:
                            items[obs_id][1].append(text)
                            dates[obs_id][episode_id] = occurred_at
                    else:
                        for obs_id, text, target, relation, episode_id in rows:
                            items[obs_id][2].append(text)
                            claims[obs_id].append((target, relation, episode_id))
        return {
            i: EvidenceJson(
                "[" + ",".join(ents) + "]",
                "[" + ",".join(eps) + "]",
                "[" + ",".join(fs) + "]",
                roots[i],
                claims[i],
                dates[i],
            )
            for i, (ents, eps, fs) in items.items()
        }

    def evidence_heads(
        self, obs_ids: Sequence[int], limit: int
    ) -> dict[int, tuple[EvidenceLists, tuple[int, int, int]]]:
        """For each observation, the first ``limit`` items of each list of
        :meth:`evidence_lists` and the length of each whole list.

        Cut in SQL: a window function ranks each observation's items by the list's order
        (reading only the columns the order needs) and counts them, and only the kept
        items are read whole, so what Python holds follows ``limit``, not the evidence
        (a root that blocks thousands of items cites them all)."""
        lists: dict[int, EvidenceLists] = {i: ([], [], []) for i in obs_ids}
        totals: dict[int, list[int]] = {i: [0, 0, 0] for i in obs_ids}
        with self._lock:
            self._case_fold()
            for slot, (keys, item, table, joins, columns, order) in enumerate(_EVIDENCE_SQL):
                for chunk, marks in chunks(obs_ids):
                    for obs_id, rank, total, *values in self.conn.execute(
                        f"""
                        WITH ranked AS (
                          SELECT oe.observation_id, oe.item_id, oe.role,
                            row_number() OVER (PARTITION BY oe.observation_id
                              ORDER BY {order}) AS k,
                            count(*) OVER (PARTITION BY oe.observation_id) AS total
                          FROM observation_evidence oe JOIN {table} x ON x.id = oe.item_id
                          WHERE oe.item_type = '{item}' AND oe.observation_id IN ({marks})
                        )
                        SELECT oe.observation_id, oe.k, oe.total, {columns}
                        FROM ranked oe JOIN {table} x ON x.id = oe.item_id{joins}
                        WHERE oe.k <= max(?, 1) ORDER BY oe.observation_id, oe.k
                        """,
                        [*chunk, limit],
                    ):
                        totals[obs_id][slot] = total
                        if rank <= limit:  # limit 0: the first row only counts
                            lists[obs_id][slot].append(dict(zip(keys, values, strict=True)))
        return {i: (lists[i], (totals[i][0], totals[i][1], totals[i][2])) for i in obs_ids}

    def _case_fold(self) -> None:
        # Python's str.lower, not SQLite's lower() (ASCII only): the order the library
        # always had for names outside ASCII.
        self.conn.create_function("memcli_lower", 1, str.lower, deterministic=True)

    def root_confirmations(self, obs_ids: Sequence[int]) -> dict[int, tuple[list[str], str | None]]:
        """For each observation, the names of its root entities (in the order of
        :meth:`evidence_lists`) and the date of the latest evidence episode that stated
        a wait on, or an owner of, one of them (None when none did)."""
        out: dict[int, tuple[list[str], str | None]] = {i: ([], None) for i in obs_ids}
        with self._lock:
            self._case_fold()
            for chunk, marks in chunks(obs_ids):
                for obs_id, name in self.conn.execute(
                    "SELECT oe.observation_id, n.name FROM observation_evidence oe"
                    " JOIN entities n ON n.id = oe.item_id"
                    f" WHERE oe.item_type = 'entity' AND oe.role = 'root'"
                    f" AND oe.observation_id IN ({marks})"
                    " ORDER BY oe.observation_id, memcli_lower(n.name), n.id",
                    chunk,
                ):
                    out[obs_id][0].append(name)
                for obs_id, when in self.conn.execute(
                    f"""
                    WITH roots AS MATERIALIZED (
                      SELECT oe.observation_id AS obs, n.name FROM observation_evidence oe
                      JOIN entities n ON n.id = oe.item_id
                      WHERE oe.item_type = 'entity' AND oe.role = 'root'
                        AND oe.observation_id IN ({marks})
                    )
                    SELECT oe.observation_id, max(e.occurred_at)
                    FROM observation_evidence oe JOIN facts f ON f.id = oe.item_id
                    JOIN entities s ON s.id = f.source_id
                    JOIN entities t ON t.id = f.target_id
                    JOIN episodes e ON e.id = f.episode_id
                    WHERE oe.item_type = 'fact' AND oe.observation_id IN ({marks})
                      AND f.relation IN ('blocked_by', 'owns')
                      AND EXISTS (SELECT 1 FROM roots r
                                  WHERE r.obs = oe.observation_id AND r.name = t.name)
                      AND EXISTS (SELECT 1 FROM observation_evidence x
                                  WHERE x.observation_id = oe.observation_id
                                    AND x.item_type = 'episode' AND x.item_id = f.episode_id)
                    GROUP BY oe.observation_id
                    """,
                    chunk + chunk,
                ):
                    out[obs_id] = (out[obs_id][0], when)
        return out

    def observation_link_map(self, obs_ids: Sequence[int]) -> dict[int, dict[str, list[int]]]:
        """For each observation, what it supersedes and what supersedes it."""
        links: dict[int, dict[str, list[int]]] = {
            i: {"supersedes": [], "superseded_by": []} for i in obs_ids
        }
        with self._lock:
            for chunk, marks in chunks(obs_ids):
                for a, b in self.conn.execute(
                    f"SELECT from_id, to_id FROM observation_links WHERE from_id IN ({marks})"
                    f" OR to_id IN ({marks})",
                    chunk + chunk,
                ):
                    if a in links:
                        links[a]["supersedes"].append(b)
                    if b in links:
                        links[b]["superseded_by"].append(a)
        return links

    def cluster_siblings(
        self, graph_id: str, cluster_id: int | None, obs_id: int
    ) -> list[dict[str, Any]]:
        """The other active observations of an observation's cluster."""
        return self.rows(
            "SELECT id, name, status FROM observations WHERE graph_id = ? AND cluster_id = ?"
            " AND id != ? AND status = 'active' ORDER BY rank DESC, id",
            (graph_id, cluster_id, obs_id),
        )

    def observation_versions(self, obs_id: int) -> list[dict[str, Any]]:
        """Every version of an observation, oldest first, evidence as stored (JSON)."""
        return self.rows(
            "SELECT version, name, summary, kind, start_at, latest_evidence_at, evidence,"
            " created_at FROM observation_versions WHERE observation_id = ? ORDER BY version",
            (obs_id,),
        )

    def fact_list(
        self, graph_id: str, *, include_ended: bool = False, as_of: str | None = None
    ) -> list[dict[str, Any]]:
        """A graph's facts (current ones, all, or those valid at ``as_of``) in world time."""
        where = "f.graph_id = :graph"
        params: dict[str, Any] = {"graph": graph_id}
        if as_of is not None:
            where += " AND f.valid_at <= :as_of AND (f.invalid_at IS NULL OR f.invalid_at > :as_of)"
            params["as_of"] = as_of
        elif not include_ended:
            where += " AND f.invalid_at IS NULL"
        return self.rows(
            f"""
            SELECT f.id, s.name AS source, s.type AS source_type, f.relation,
              t.name AS target, t.type AS target_type, f.episode_id,
              e.source AS episode_source, e.author, f.valid_at, f.invalid_at, f.created_at,
              f.expired_at, f.invalidated_by, f.sentence
            FROM facts f JOIN entities s ON s.id = f.source_id
            JOIN entities t ON t.id = f.target_id
            JOIN episodes e ON e.id = f.episode_id
            WHERE {where} ORDER BY f.valid_at, f.id
            """,
            params,
        )

    def entity_list(self, graph_id: str) -> list[dict[str, Any]]:
        """A graph's entities with counts of current facts and episodes, and aliases.

        The counts come from one pass over the graph's facts, grouped by entity (a fact
        counts once for each end, once for an entity at both ends): counting per entity
        through the facts' indexes read the same rows ten thousand times over."""
        rows = self.rows(
            """
            WITH ends AS (
              SELECT f.source_id AS entity, f.episode_id, f.invalid_at FROM facts f
              WHERE f.graph_id = :graph
              UNION ALL
              SELECT f.target_id, f.episode_id, f.invalid_at FROM facts f
              WHERE f.graph_id = :graph AND f.target_id != f.source_id
            ), counts AS (
              SELECT entity, count(*) FILTER (WHERE invalid_at IS NULL) AS current_facts,
                count(DISTINCT episode_id) AS episodes
              FROM ends GROUP BY entity
            )
            SELECT n.id, n.name, n.type, coalesce(c.current_facts, 0) AS current_facts,
              coalesce(c.episodes, 0) AS episodes,
              (SELECT json_group_array(alias) FROM entity_aliases a WHERE a.entity_id = n.id)
                 AS aliases
            FROM entities n LEFT JOIN counts c ON c.entity = n.id
            WHERE n.graph_id = :graph ORDER BY n.type, lower(n.name)
            """,
            {"graph": graph_id},
        )
        for r in rows:
            r["aliases"] = sorted(json.loads(r["aliases"]))
        return rows
