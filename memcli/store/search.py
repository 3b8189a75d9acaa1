"""Full-text search (FTS5, BM25) and the evidence lookups that go with its hits."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from typing import Any

from memcli.errors import StoreError
from memcli.store.connection import StoreBase


class SearchMixin(StoreBase):
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
            WHERE episodes_fts MATCH :match AND e.graph_id = :graph AND e.retracted_at IS NULL
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
