"""Releases (migration m008): "X is unblocked" with no blocker named, kept per update.

Ingest (``memcli.api.store_episodes``) turns a release into ``unblocked_from`` facts for
the item's waits, in both orders of arrival: a new release meets the stored waits of its
item (``waits_of``), a new wait meets the stored releases of its item (``releases_of``).
The queries read by the item's normalised key, through the ``facts_source`` and
``releases_item`` indexes, and only for the items a batch names.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from memcli.store.connection import StoreBase

_AT_ONCE = 2000  # keys bound as one JSON array


def _slices(keys: Iterable[str]) -> list[str]:
    ordered = sorted(set(keys))
    return [json.dumps(ordered[i : i + _AT_ONCE]) for i in range(0, len(ordered), _AT_ONCE)]


class ReleasesMixin(StoreBase):
    def insert_releases(self, rows: Iterable[tuple[int, str, str, str, str, str]]) -> None:
        """Record releases: (episode id, graph, item type, item key, valid_at, sentence)
        rows; an update that releases an item twice keeps its first sentence."""
        self.insert_many(
            "INSERT OR IGNORE INTO releases"
            " (episode_id, graph_id, item_type, item_norm, valid_at, sentence)",
            list(rows),
        )

    def waits_of(self, graph_id: str, item_type: str, norms: Iterable[str]) -> list[dict[str, Any]]:
        """The stored ``blocked_by`` facts of these items (by key): the item's and the
        blocker's id, type and key, when the wait began, its update and sentence.

        Retracted updates' waits are included on purpose: which facts a release adds
        must not depend on whether a wait was retracted before or after the release
        arrived (a fact ended by a retraction is ended either way)."""
        out: list[dict[str, Any]] = []
        for keys in _slices(norms):
            out += self.rows(
                """
                SELECT s.norm AS item_norm, s.id AS item_id, t.id AS blocker_id,
                  t.type AS blocker_type, t.norm AS blocker_norm, t.name AS blocker_name,
                  f.valid_at, f.episode_id, f.sentence
                FROM entities s JOIN facts f ON f.source_id = s.id AND f.relation = 'blocked_by'
                JOIN entities t ON t.id = f.target_id
                WHERE s.graph_id = ? AND s.type = ?
                  AND s.norm IN (SELECT value FROM json_each(?))
                ORDER BY f.id
                """,
                (graph_id, item_type, keys),
            )
        return out

    def releases_of(
        self, graph_id: str, item_type: str, norms: Iterable[str]
    ) -> list[dict[str, Any]]:
        """The stored releases of these items (by key), each with its update's content
        hash and retraction time (``retracted_at``, None unless retracted), and the
        blockers that update already says the item is unblocked from (``unblocked``:
        entity ids), so a fact is added once.

        Retracted updates' releases are included, as ``waits_of`` includes retracted
        waits: a wait stored before the retraction got its fact (ended by it), so one
        arriving after it gets the same fact, ended at the retraction."""
        out: list[dict[str, Any]] = []
        for keys in _slices(norms):
            out += self.rows(
                """
                SELECT r.item_norm, r.episode_id, r.valid_at, r.sentence,
                  e.content_hash, e.retracted_at,
                  (SELECT json_group_array(f.target_id) FROM facts f
                   JOIN entities s ON s.id = f.source_id
                   WHERE f.episode_id = r.episode_id AND f.relation = 'unblocked_from'
                     AND s.type = r.item_type AND s.norm = r.item_norm) AS unblocked
                FROM releases r JOIN episodes e ON e.id = r.episode_id
                WHERE r.graph_id = ? AND r.item_type = ?
                  AND r.item_norm IN (SELECT value FROM json_each(?))
                ORDER BY r.valid_at, r.episode_id
                """,
                (graph_id, item_type, keys),
            )
        for row in out:
            row["unblocked"] = set(json.loads(row["unblocked"]))
        return out

    def episode_releases(self, episode_id: int) -> list[dict[str, Any]]:
        """The releases one stored update makes: item type and key, time, sentence."""
        return self.rows(
            "SELECT item_type, item_norm, valid_at, sentence FROM releases"
            " WHERE episode_id = ? ORDER BY item_type, item_norm",
            (episode_id,),
        )

    def episode_waits(self, episode_id: int) -> list[dict[str, Any]]:
        """The ``blocked_by`` facts one stored update states: the item's type, key and
        id, the blocker's type, key and id, when the wait began, and its sentence."""
        return self.rows(
            """
            SELECT s.type AS item_type, s.norm AS item_norm, s.id AS item_id,
              t.type AS blocker_type, t.norm AS blocker_norm, t.id AS blocker_id, f.valid_at,
              f.sentence
            FROM facts f JOIN entities s ON s.id = f.source_id
            JOIN entities t ON t.id = f.target_id
            WHERE f.episode_id = ? AND f.relation = 'blocked_by'
            ORDER BY f.id
            """,
            (episode_id,),
        )

    def has_releases(self, graph_id: str) -> bool:
        """Whether the graph holds any release: a batch of waits skips the lookup when
        it holds none (most graphs, most of the time)."""
        return (
            self.conn.execute(
                "SELECT 1 FROM releases WHERE graph_id = ? LIMIT 1", (graph_id,)
            ).fetchone()
            is not None
        )
