"""Corrections: retract or move an episode, rename or delete a graph.

Each runs inside the caller's transaction and leaves the full-text indexes consistent:
every write goes through the tables whose AFTER UPDATE and DELETE triggers keep ``*_fts``
in sync (see ``migrations.m003_search``); nothing here writes an index directly. New
rows are indexed once per transaction (``sync_search``, m006), so each correction first
indexes what is still pending: a delete trigger must only ever remove indexed rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from memcli.store.connection import StoreBase, chunks

# Tables holding a graph's rows that are reached through another table, not by graph_id,
# in the order a delete must clear them (children before parents).
_BY_OBSERVATION = ("observation_links", "observation_versions", "observation_evidence")


class CorrectionsMixin(StoreBase):
    def episode_row(self, episode_id: int) -> dict[str, Any] | None:
        rows = self.rows(
            "SELECT id, graph_id, content_hash, content, author, occurred_at, source, retracted_at,"
            " retract_reason FROM episodes WHERE id = ?",
            (episode_id,),
        )
        return rows[0] if rows else None

    def graph_tables(self) -> list[str]:
        """Every table with a ``graph_id`` column (found, so later tables are included)."""
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT m.name FROM sqlite_master m WHERE m.type = 'table' AND m.name != 'graphs'"
                " AND EXISTS (SELECT 1 FROM pragma_table_info(m.name) p WHERE p.name = 'graph_id')"
                " ORDER BY m.name"
            )
        ]

    def reset_ends_by(self, episode_ids: Iterable[int]) -> list[int]:
        """Undo the ends the contradiction rules gave facts because of these episodes
        (facts they invalidated become valid again); returns the episodes of those facts,
        whose rules must be applied again (``apply_contradictions``)."""
        self.sync_search()
        ids = sorted(set(episode_ids))
        touched: set[int] = set()
        for chunk, marks in chunks(ids):
            touched.update(
                r[0]
                for r in self.conn.execute(
                    f"SELECT DISTINCT episode_id FROM facts WHERE invalidated_by IN ({marks})",
                    chunk,
                )
            )
            self.conn.execute(
                "UPDATE facts SET invalid_at = NULL, expired_at = NULL, invalidated_by = NULL"
                f" WHERE invalidated_by IN ({marks})",
                chunk,
            )
        return sorted(touched - set(ids))

    def retract_episode(self, episode_id: int, reason: str | None, now: str) -> int:
        """Mark the episode retracted and end its facts that still hold at ``now`` (their
        end is the retraction: ``invalidated_by`` stays empty, the episode says why).
        Returns how many facts ended."""
        self.sync_search()
        self.conn.execute(
            "UPDATE episodes SET retracted_at = ?, retract_reason = ? WHERE id = ?",
            (now, reason, episode_id),
        )
        return self.conn.execute(
            "UPDATE facts SET invalid_at = max(valid_at, :now), expired_at = :now"
            " WHERE episode_id = :ep AND invalid_at IS NULL",
            {"now": now, "ep": episode_id},
        ).rowcount

    def episode_fact_ends(self, episode_id: int) -> list[dict[str, Any]]:
        """The episode's facts with both entities' (type, norm, name)."""
        return self.rows(
            """
            SELECT f.id, f.relation, s.type AS source_type, s.norm AS source_norm,
              s.name AS source_name, t.type AS target_type, t.norm AS target_norm,
              t.name AS target_name, f.source_id, f.target_id
            FROM facts f JOIN entities s ON s.id = f.source_id
            JOIN entities t ON t.id = f.target_id
            WHERE f.episode_id = ? ORDER BY f.id
            """,
            (episode_id,),
        )

    def move_episode_rows(self, episode_id: int, to_graph: str) -> None:
        """Move the episode and its facts to ``to_graph`` (entities re-pointed by the
        caller with ``repoint_fact``), dropping its old cluster row and signature links."""
        self.sync_search()
        self.conn.execute("DELETE FROM episode_clusters WHERE episode_id = ?", (episode_id,))
        self.conn.execute(
            "DELETE FROM fact_signatures WHERE fact_id IN"
            " (SELECT id FROM facts WHERE episode_id = ?)",
            (episode_id,),
        )
        self.conn.execute(
            "UPDATE facts SET invalid_at = NULL, expired_at = NULL WHERE episode_id = ?"
            " AND invalidated_by IS NOT NULL",
            (episode_id,),
        )
        self.conn.execute(
            "UPDATE facts SET invalidated_by = NULL WHERE episode_id = ?", (episode_id,)
        )
        self.conn.execute(
            "UPDATE facts SET graph_id = ? WHERE episode_id = ?", (to_graph, episode_id)
        )
        for table in ("stated_names", "releases"):  # keyed by names, not by entities
            self.conn.execute(
                f"UPDATE {table} SET graph_id = ? WHERE episode_id = ?", (to_graph, episode_id)
            )
        self.conn.execute("UPDATE episodes SET graph_id = ? WHERE id = ?", (to_graph, episode_id))

    def repoint_fact(self, fact_id: int, source_id: int, target_id: int) -> None:
        self.sync_search()
        self.conn.execute(
            "UPDATE facts SET source_id = ?, target_id = ? WHERE id = ?",
            (source_id, target_id, fact_id),
        )

    def drop_unused_entities(self, entity_ids: Iterable[int]) -> int:
        """Delete those of these entities no fact and no merge refers to any more."""
        self.sync_search()
        gone = 0
        for chunk, marks in chunks(entity_ids):
            unused = [
                r[0]
                for r in self.conn.execute(
                    f"""
                    SELECT n.id FROM entities n WHERE n.id IN ({marks})
                      AND NOT EXISTS (SELECT 1 FROM facts f
                                      WHERE f.source_id = n.id OR f.target_id = n.id)
                      AND NOT EXISTS (SELECT 1 FROM entity_merges m
                                      WHERE m.entity_id = n.id OR m.canonical_id = n.id)
                      AND NOT EXISTS (SELECT 1 FROM observation_evidence oe
                                      WHERE oe.item_type = 'entity' AND oe.item_id = n.id)
                    """,
                    chunk,
                )
            ]
            for sub, m in chunks(unused):
                self.conn.execute(f"DELETE FROM entity_aliases WHERE entity_id IN ({m})", sub)
                gone += self.conn.execute(f"DELETE FROM entities WHERE id IN ({m})", sub).rowcount
        self._forget()
        return gone

    def rename_graph(self, old: str, new: str) -> None:
        """Give graph ``old`` the name ``new``: a new graphs row, every row re-pointed,
        the old row removed (foreign keys hold at every step)."""
        self.sync_search()
        cols = [r[1] for r in self.conn.execute("PRAGMA table_info(graphs)") if r[1] != "id"]
        names = ", ".join(cols)
        self.conn.execute(
            f"INSERT INTO graphs (id, {names}) SELECT ?, {names} FROM graphs WHERE id = ?",
            (new, old),
        )
        for table in self.graph_tables():
            self.conn.execute(f"UPDATE {table} SET graph_id = ? WHERE graph_id = ?", (new, old))
        self.conn.execute("DELETE FROM graphs WHERE id = ?", (old,))
        self._forget()

    def delete_graph(self, graph_id: str) -> dict[str, int]:
        """Delete everything of a graph; returns how many rows of each table went.

        Evidence rows of other graphs' observations that point at this graph's episodes,
        facts or entities (an episode moved away after it was cited) go too, so nothing
        is left pointing at a missing row.
        """
        self.sync_search()
        counts: dict[str, int] = {}
        g = {"graph": graph_id}
        obs = "SELECT id FROM observations WHERE graph_id = :graph"
        counts["observation_links"] = self.conn.execute(
            f"DELETE FROM observation_links WHERE from_id IN ({obs}) OR to_id IN ({obs})", g
        ).rowcount
        for table in _BY_OBSERVATION[1:]:
            counts[table] = self.conn.execute(
                f"DELETE FROM {table} WHERE observation_id IN ({obs})", g
            ).rowcount
        for item, table in (("episode", "episodes"), ("fact", "facts"), ("entity", "entities")):
            counts["observation_evidence"] += self.conn.execute(
                "DELETE FROM observation_evidence WHERE item_type = :item AND item_id IN"
                f" (SELECT id FROM {table} WHERE graph_id = :graph)",
                {**g, "item": item},
            ).rowcount
        counts["fact_signatures"] = self.conn.execute(
            "DELETE FROM fact_signatures WHERE fact_id IN"
            " (SELECT id FROM facts WHERE graph_id = :graph)",
            g,
        ).rowcount
        counts["entity_aliases"] = self.conn.execute(
            "DELETE FROM entity_aliases WHERE entity_id IN"
            " (SELECT id FROM entities WHERE graph_id = :graph)",
            g,
        ).rowcount
        # Rows keyed by graph, children before parents; any later table with a graph_id
        # column is found by graph_tables() and cleared before these.
        last = ["observations", "facts", "signatures", "entity_merges", "entities", "episodes"]
        for table in [t for t in self.graph_tables() if t not in last] + last:
            counts[table] = self.conn.execute(
                f"DELETE FROM {table} WHERE graph_id = :graph", g
            ).rowcount
        counts["graphs"] = self.conn.execute("DELETE FROM graphs WHERE id = :graph", g).rowcount
        self._forget()
        return counts

    def retracted_among(
        self, episode_ids: Iterable[int], fact_ids: Iterable[int]
    ) -> tuple[set[int], set[int]]:
        """Which of these episodes are retracted, and which of these facts come from one."""
        eps = {
            r["id"]
            for r in self.rows_in(
                "SELECT id FROM episodes WHERE id IN ({marks}) AND retracted_at IS NOT NULL",
                episode_ids,
            )
        }
        facts = {
            r["id"]
            for r in self.rows_in(
                "SELECT f.id FROM facts f JOIN episodes e ON e.id = f.episode_id"
                " WHERE f.id IN ({marks}) AND e.retracted_at IS NOT NULL",
                fact_ids,
            )
        }
        return eps, facts

    # --- reading stored updates again (``memcli.reread``) ---

    # The episodes the rules reader read from their stored text alone.
    _REREADABLE = (
        "extractor = 'rules' AND extraction_status = 'done' AND retracted_at IS NULL"
        " AND format NOT IN ('github', 'jira', 'slack')"
    )

    def rereadable_episodes(self, graph_id: str | None) -> list[dict[str, Any]]:
        """Episodes whose facts the rules reader took from their stored text alone,
        oldest first: not retracted, no given facts, no model's reading, and not a
        tracker or chat export's text (read with the tracker's context, which is not
        stored)."""
        where, args = ("", []) if graph_id is None else (" AND graph_id = ?", [graph_id])
        return self.rows(
            "SELECT id, graph_id, content, author, occurred_at, unparsed FROM episodes"
            f" WHERE {self._REREADABLE}{where} ORDER BY id",
            args,
        )

    def episodes_not_reread(self, graph_id: str | None) -> int:
        """How many live episodes ``rereadable_episodes`` leaves out."""
        where, args = ("", []) if graph_id is None else (" AND graph_id = ?", [graph_id])
        return int(
            self.scalar(
                "SELECT count(*) FROM episodes WHERE retracted_at IS NULL"
                f" AND NOT ({self._REREADABLE}){where}",
                args,
            )
        )

    def delete_facts(self, fact_ids: Iterable[int]) -> int:
        """Delete facts the reader no longer reads, with their signature links and the
        evidence rows citing them (the next analyze, a full pass, redraws those
        observations). Call inside a transaction."""
        self.sync_search()
        gone = 0
        for chunk, marks in chunks(sorted(set(fact_ids))):
            self.conn.execute(f"DELETE FROM fact_signatures WHERE fact_id IN ({marks})", chunk)
            self.conn.execute(
                "DELETE FROM observation_evidence WHERE item_type = 'fact'"
                f" AND item_id IN ({marks})",
                chunk,
            )
            gone += self.conn.execute(f"DELETE FROM facts WHERE id IN ({marks})", chunk).rowcount
        return gone

    def clear_readings(self, episode_id: int, unparsed: str) -> None:
        """Drop an episode's releases and names set beside tickets, and store its
        sentences not understood, before a new reading's rows go in (``insert_releases``,
        ``insert_stated_names``)."""
        for table in ("releases", "stated_names"):
            self.conn.execute(f"DELETE FROM {table} WHERE episode_id = ?", (episode_id,))
        self.conn.execute("UPDATE episodes SET unparsed = ? WHERE id = ?", (unparsed, episode_id))

    def episode_readings(
        self, episode_id: int
    ) -> tuple[set[tuple[Any, ...]], set[tuple[Any, ...]]]:
        """(releases, stated names) an episode has stored, as the rows ``insert_releases``
        and ``insert_stated_names`` take, to tell whether a new reading changes them."""
        releases = {
            tuple(r)
            for r in self.conn.execute(
                "SELECT episode_id, graph_id, item_type, item_norm, valid_at, sentence"
                " FROM releases WHERE episode_id = ?",
                (episode_id,),
            )
        }
        stated = {
            tuple(r)
            for r in self.conn.execute(
                "SELECT episode_id, graph_id, ticket_norm, name, name_norm FROM stated_names"
                " WHERE episode_id = ?",
                (episode_id,),
            )
        }
        return releases, stated

    def wait_held_before(self, graph_id: str, item_id: int, blocker_id: int, at: str) -> bool:
        """Whether a live update says ``item`` waited on ``blocker`` at or before ``at``:
        what a release's derived ``unblocked_from`` fact needs to stay."""
        return (
            self.conn.execute(
                "SELECT 1 FROM facts f JOIN episodes e ON e.id = f.episode_id"
                " AND e.retracted_at IS NULL WHERE f.graph_id = ? AND f.relation = 'blocked_by'"
                " AND f.source_id = ? AND f.target_id = ? AND f.valid_at <= ? LIMIT 1",
                (graph_id, item_id, blocker_id, at),
            ).fetchone()
            is not None
        )

    def episode_fact_rows(self, episode_id: int) -> list[dict[str, Any]]:
        """The episode's facts: id, relation, both ends' ids, the source's type and key,
        when the fact began and its sentence."""
        return self.rows(
            "SELECT f.id, f.relation, f.source_id, f.target_id, f.valid_at, f.sentence,"
            " s.type AS source_type, s.norm AS source_norm"
            " FROM facts f JOIN entities s ON s.id = f.source_id"
            " WHERE f.episode_id = ? ORDER BY f.id",
            (episode_id,),
        )

    def set_fact_reading(self, fact_id: int, sentence: str, valid_at: str) -> None:
        """A fact read again from its sentence: the sentence and start the new reading
        gives (the caller runs the contradiction rules again)."""
        self.sync_search()
        self.conn.execute(
            "UPDATE facts SET sentence = ?, valid_at = ? WHERE id = ?",
            (sentence, valid_at, fact_id),
        )

    def newest_rereadable(self, limit: int) -> list[dict[str, Any]]:
        """The newest ``limit`` episodes ``rereadable_episodes`` would read, each with its
        stored facts as (source type, key, relation, target type, key, sentence) and its
        releases as (item type, key, sentence)."""
        episodes = self.rows(
            "SELECT id, graph_id, content, author, occurred_at, source FROM episodes"
            f" WHERE {self._REREADABLE} ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        by_id = {e["id"]: e for e in episodes}
        for e in episodes:
            e["facts"], e["releases"] = set(), set()
        for chunk, marks in chunks(list(by_id)):
            for eid, *key in self.conn.execute(
                "SELECT f.episode_id, s.type, s.norm, f.relation, t.type, t.norm, f.sentence"
                " FROM facts f JOIN entities s ON s.id = f.source_id"
                f" JOIN entities t ON t.id = f.target_id WHERE f.episode_id IN ({marks})",
                chunk,
            ):
                by_id[eid]["facts"].add(tuple(key))
            for eid, *key in self.conn.execute(
                "SELECT episode_id, item_type, item_norm, sentence FROM releases"
                f" WHERE episode_id IN ({marks})",
                chunk,
            ):
                by_id[eid]["releases"].add(tuple(key))
        return episodes
