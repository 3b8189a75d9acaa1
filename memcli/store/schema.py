"""The search documents' SQL, shared by the migration that made the indexes (m003) and
the commit-time sync that fills them (``IngestMixin.sync_search``, since m006).

Kept apart from ``migrations.py`` because that module imports sqlite-utils, which the
read path never loads: the ingest room and ``memcli.store`` import these from here.
Never change a value: m003 applied it, and documents written later must read the same.
"""

from __future__ import annotations

SEARCH_TOKENIZER = "porter unicode61 remove_diacritics 2"

# fact text as indexed: "payments integration blocked by auth service refactor <sentence>"
FACT_TEXT = """
    (SELECT s.name || ' ' || replace(f.relation, '_', ' ') || ' ' || t.name || ' ' || f.sentence
     FROM facts f JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
     WHERE f.id = {fact})
"""
ENTITY_ALIASES = """
    (SELECT coalesce(group_concat(alias, ' '), '')
     FROM (SELECT alias FROM entity_aliases WHERE entity_id = {entity} ORDER BY alias))
"""
