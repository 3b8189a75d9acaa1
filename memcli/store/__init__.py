"""The one package that talks to SQLite: schema, migrations, writes and queries.

Everything else in memcli hands plain data to this package and gets plain data back;
no module outside it runs SQL (``tests/test_layering.py`` checks). Writes happen inside
``Store.transaction()`` (``BEGIN IMMEDIATE``), so an episode and its facts land together
or not at all, and two processes (cron plus a person) queue on the busy timeout instead
of failing half-way.

One module per room, each holding that room's SQL and nothing else:

- ``connection``: open, pragmas, application id, read-only media, transactions, the
  chunked ``IN (...)`` helper;
- ``migrations``: the numbered, append-only schema migrations;
- ``ingest``: episode, entity, fact and signature writes; the contradiction rules;
- ``releases``: "X is unblocked" with no blocker named, and the lookups that turn it
  into facts at ingest;
- ``analysis``: what one analyze reads (``load_analysis``) and writes (``apply``);
- ``reads``: what the library's read functions return;
- ``search``: full-text search and the evidence of its hits;
- ``health``: the checks behind ``memcli doctor``;
- ``llm_cache``: validated language-model answers;
- ``identity``: entity merges and how analysis reads through them;
- ``corrections``: retracting and moving episodes, renaming and deleting graphs.

Timestamps are ISO 8601 UTC strings ("2026-11-02T09:00:00Z"); they sort as text.
"""

from __future__ import annotations

from memcli.store.analysis import AnalysisMixin, FactRow, validity
from memcli.store.connection import (
    APPLICATION_ID,
    READ_ONLY_DIR,
    READ_ONLY_FILE,
    SCHEMA_MIGRATIONS,
    StoreBase,
    chunks,
    read_only_reason,
    utcnow,
)
from memcli.store.corrections import CorrectionsMixin
from memcli.store.health import HealthMixin
from memcli.store.identity import IdentityMixin
from memcli.store.ingest import IngestMixin
from memcli.store.llm_cache import LLMCacheMixin
from memcli.store.reads import ReadsMixin
from memcli.store.releases import ReleasesMixin
from memcli.store.schema import SEARCH_TOKENIZER
from memcli.store.search import SearchMixin

# The newest migration's number, from the names the open path knows (tests/test_store.py
# keeps them equal to the migrations module's, which imports sqlite-utils).
SCHEMA_VERSION = len(SCHEMA_MIGRATIONS)


class Store(
    IngestMixin,
    ReleasesMixin,
    AnalysisMixin,
    IdentityMixin,
    CorrectionsMixin,
    ReadsMixin,
    SearchMixin,
    HealthMixin,
    LLMCacheMixin,
    StoreBase,
):
    """An open memcli database. Applies pending migrations on open."""


__all__ = [
    "APPLICATION_ID",
    "READ_ONLY_DIR",
    "READ_ONLY_FILE",
    "SCHEMA_VERSION",
    "SEARCH_TOKENIZER",
    "FactRow",
    "Store",
    "StoreBase",
    "chunks",
    "read_only_reason",
    "utcnow",
    "validity",
]
