"""The checks behind memcli doctor: integrity, foreign keys, full-text indexes, orphans."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from memcli.store.connection import StoreBase


class HealthMixin(StoreBase):
    # --- integrity checks (memcli doctor) ---

    def applied_migrations(self) -> list[str]:
        """Names of the migrations this database has applied, in order."""
        from memcli.store.migrations import migrations

        return [m.name for m in migrations.applied(self.db)]

    @staticmethod
    def known_migrations() -> list[str]:
        """Names of the migrations this version of memcli knows, in order."""
        from memcli.store.migrations import MIGRATION_NAMES

        return list(MIGRATION_NAMES)

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

    def fts_integrity_check(self) -> None:
        """Raise if any search index disagrees with the rows it indexes (tests, doctor)."""
        for fts in ("episodes_fts", "observations_fts", "entity_docs_fts", "fact_docs_fts"):
            self.conn.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")
