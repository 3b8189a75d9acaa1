"""The batch writer (``api.store_episodes``) resolves a whole file or batch in Python and
writes each table at once. What it stores must be exactly what storing the same records
one at a time stores (every row, every id), also when a record in the middle cannot be
stored, when a batch repeats an update, and when a batch names a new entity twice."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from memcli import api, corrections
from memcli.connectors import Batch
from memcli.models import EntityRef, EntityType, EpisodeInput, ExtractedFact, Relation
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import Cli
from tests.test_ingest_batches import rows

FILE_TIME = 1775030400  # 2026-04-01T08:00:00Z: the time an undated record is given
FILE_TIME_ISO = "2026-04-01T08:00:00Z"


def fact(source: str, relation: str, target: str, **types: str) -> dict[str, str]:
    return {"source": source, "relation": relation, "target": target, **types}


def record(day: int, text: str, *facts: dict[str, str], dated: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"content": text, "author": "Ines", "facts": list(facts)}
    if dated:
        out["occurred_at"] = f"2026-04-{day:02d}T09:00:00Z"
    return out


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    os.utime(path, (FILE_TIME, FILE_TIME))
    return path


def one_at_a_time(records: list[dict[str, Any]], path: Path, db: Path) -> dict[str, Any]:
    """The reference: the same file holding one record at a time, each its own ingest
    call. Every table but ``graphs`` (whose ingest count counts the calls) must equal the
    batch's."""
    with Store(db) as store:
        for r in records:
            api.ingest(store, expand([str(write_lines(path, [r]))]))
    out = rows(db)
    del out["graphs"]
    return out


def batched(db: Path) -> dict[str, Any]:
    out = rows(db)
    assert [g[:2] for g in out.pop("graphs")] == [("default", 1)]  # one file, one ingest
    return out


def test_a_record_that_cannot_be_stored_mid_file_leaves_no_trace_and_the_rest_whole(
    cli: Cli, tmp_path: Path
) -> None:
    records = [
        record(1, "The relay waits on the vault migration.", fact("relay", "blocked_by", "vault")),
        record(
            2,
            "Ines owns the relay; the anchor waits on it.",
            fact("Ines", "owns", "relay", source_type="person"),
            fact("anchor", "blocked_by", "relay"),
        ),
        # names a new entity and a completion first, then a name empty once normalised:
        # the completion, taken back with its record, must not end the anchor's wait
        record(
            3,
            "The ghost service waits on a name made of dashes; Omar finished the relay.",
            fact("ghost service", "blocked_by", "vault"),
            fact("Omar", "completed", "relay"),
            fact("---", "blocked_by", "vault"),
        ),
        record(4, "Vault migration done.", fact("Ines", "completed", "vault")),
        record(5, "The beacon waits on the relay.", fact("beacon", "blocked_by", "relay")),
    ]
    path = write_lines(tmp_path / "updates.jsonl", records)
    db = tmp_path / "m.db"
    result = cli("--db", str(db), "ingest", str(path), "--json", ok=False)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["errors"] == [
        {
            "source": f"{path}:3",
            "reason": "could not store: entity name '---' is empty after normalisation",
        }
    ]
    assert report["episodes"] == {"new": 4, "duplicate": 0, "failed": 1}
    assert report["facts_new"] == 5 and report["entities_new"] == 5
    assert report["facts_ended"] == 1  # the relay's wait on the vault, by Ines's completion
    with sqlite3.connect(db) as conn:
        names = {n for (n,) in conn.execute("SELECT norm FROM entities")}
        assert names == {"relay", "vault", "ines", "anchor", "beacon"}  # no ghost, no Omar
        anchor = "SELECT invalid_at FROM facts WHERE source_id = (SELECT id FROM entities WHERE norm = 'anchor')"
        assert conn.execute(anchor).fetchall() == [(None,)]
        assert conn.execute(
            "SELECT count(*) FROM episodes WHERE content LIKE '%ghost%'"
        ).fetchone() == (0,)
    # the same rows and ids as storing the four good records one by one
    good = [r for i, r in enumerate(records) if i != 2]
    assert batched(db) == one_at_a_time(good, path, tmp_path / "one.db")
    with Store(db) as store:
        store.fts_integrity_check()


def test_an_update_repeated_inside_one_file_is_stored_once(tmp_path: Path) -> None:
    a = record(1, "The relay waits on the vault.", fact("relay", "blocked_by", "vault"))
    b = record(2, "The beacon waits on the relay.", fact("beacon", "blocked_by", "relay"))
    undated = record(
        0, "The vault waits on the keys.", fact("vault", "blocked_by", "keys"), dated=False
    )
    # the same words, dated at the time the undated copy was given: the same update
    dated_copy = {**undated, "occurred_at": FILE_TIME_ISO}
    records = [a, b, dict(a), undated, dated_copy, dict(b)]
    db = tmp_path / "m.db"
    path = write_lines(tmp_path / "u.jsonl", records)
    with Store(db) as store:
        report = api.ingest(store, expand([str(path)]))
    assert (report.episodes_new, report.episodes_duplicate) == (3, 3)
    assert report.facts_new == 3
    with sqlite3.connect(db) as conn:
        assert conn.execute(
            "SELECT count(*), count(DISTINCT content) FROM episodes"
        ).fetchone() == (3, 3)
        assert conn.execute(
            "SELECT occurred_at FROM episodes WHERE content LIKE '%keys%'"
        ).fetchone() == (FILE_TIME_ISO,)
    assert batched(db) == one_at_a_time(records, path, tmp_path / "one.db")


def test_a_new_entity_named_twice_in_one_file_is_one_entity_with_both_names(
    tmp_path: Path,
) -> None:
    records = [
        record(
            1,
            "The Ledger Export waits on the vault migration.",
            fact("The Ledger Export", "blocked_by", "vault migration"),
        ),
        record(
            2,
            "ledger export! is still waiting on the Vault Migration.",
            fact("ledger export!", "blocked_by", "Vault Migration"),
        ),
        record(3, "dana owns the ledger-export.", fact("dana", "owns", "ledger-export")),
    ]
    db = tmp_path / "m.db"
    path = write_lines(tmp_path / "u.jsonl", records)
    with Store(db) as store:
        report = api.ingest(store, expand([str(path)]))
    assert (report.entities_new, report.facts_new) == (3, 3)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT name, type FROM entities ORDER BY id").fetchall() == [
            ("Ledger Export", "work_item"),  # the name each was first seen by
            ("vault migration", "work_item"),
            ("Dana", "person"),
        ]
        aliases = conn.execute(
            "SELECT entity_id, alias FROM entity_aliases ORDER BY entity_id, alias"
        ).fetchall()
        assert aliases == [
            (1, "Ledger Export"),
            (1, "ledger export"),
            (1, "ledger-export"),
            (2, "Vault Migration"),
            (2, "vault migration"),
            (3, "Dana"),
        ]
        # the search document holds every name, also those given later in the batch
        (doc,) = conn.execute("SELECT aliases FROM entity_docs WHERE entity_id = 1").fetchone()
        assert all(name in doc for name in ("Ledger Export", "ledger export", "ledger-export"))
    assert batched(db) == one_at_a_time(records, path, tmp_path / "one.db")


def write_batches(folder: Path) -> list[Path]:
    """Files that ingest stores in several batches (1, 1, 2, 4, ...), every one naming the
    same few work items, so each batch meets the facts of the ones before."""
    folder.mkdir()
    paths = []
    for i in range(12):
        day = i + 1
        facts = [
            fact(f"relay {i % 3}", "blocked_by", "vault"),
            fact("Ines" if i % 2 else "Omar", "owns", f"relay {i % 3}", source_type="person"),
        ]
        if i % 4 == 3:
            facts.append(fact("Omar", "completed", "vault", source_type="person"))
        if i % 5 == 4:
            facts.append(fact(f"relay {i % 3}", "unblocked_from", "vault"))
        recs = [record(day, f"Update {i} on the relays and the vault.", *facts)]
        paths.append(write_lines(folder / f"u{i:02d}.jsonl", recs))
    return paths


def test_facts_kept_between_batches_end_what_reading_them_again_ends(tmp_path: Path) -> None:
    # An ingest keeps each work item's facts from one batch to the next instead of
    # reading them again; with the rows dropped after every commit (a bound of 0) or
    # evicted all the time (a bound of a few rows) every end must come out the same.
    write_batches(tmp_path / "in")
    out = {}
    for entries in (10**9, 0, 7):
        db = tmp_path / f"m{entries}.db"
        with Store(db, cache_entries=entries) as store:
            api.ingest(store, expand([str(tmp_path / "in")]))
        out[entries] = rows(db)
    assert out[0] == out[10**9] and out[7] == out[10**9]
    ends = [f for f in out[0]["facts"] if f[9] is not None]  # invalid_at
    assert len(ends) > 10


def test_a_retraction_by_another_process_between_batches_is_seen(tmp_path: Path) -> None:
    # Omar's completion of the vault (first file) would end every later wait on it; it is
    # retracted by another connection while the ingest is between two batches. The
    # waits stored after that must hold, as if they had been ingested in a later run.
    folder = tmp_path / "in"
    folder.mkdir()
    done = record(5, "The vault is done.", fact("Omar", "completed", "vault", source_type="person"))
    write_lines(folder / "a1.jsonl", [done])
    write_lines(
        folder / "a2.jsonl", [record(1, "The relay waits.", fact("relay", "blocked_by", "vault"))]
    )
    write_lines(
        folder / "a3.jsonl", [record(2, "The beacon waits.", fact("beacon", "blocked_by", "vault"))]
    )
    write_lines(
        folder / "a4.jsonl", [record(3, "The anchor waits.", fact("anchor", "blocked_by", "vault"))]
    )
    db = tmp_path / "m.db"

    def retract_after_a2(source: str) -> None:
        if source.endswith("a2.jsonl"):
            with Store(db) as other:
                corrections.retract(other, 1, reason="it was not done")

    with Store(db) as store:
        api.ingest(store, expand([str(folder)]), progress=retract_after_a2)
    with sqlite3.connect(db) as conn:
        ends = dict(
            conn.execute(
                "SELECT e.norm, f.invalid_at FROM facts f JOIN entities e ON e.id = f.source_id"
                " WHERE f.relation = 'blocked_by'"
            ).fetchall()
        )
    # the relay's wait, ended by the completion, holds again since the retraction
    assert ends == {"relay": None, "beacon": None, "anchor": None}


def test_a_record_taken_back_after_its_first_update_was_written_ends_nothing(
    tmp_path: Path,
) -> None:
    # An export record is stored whole or not at all: here its first update (Omar owns
    # and completed the relay) is written, then its second cannot be; the record is
    # rolled back, and the next record's fact takes the first of its fact ids. The
    # completion must not end the anchor's wait on the relay.
    def update(day: int, text: str, *facts: ExtractedFact) -> EpisodeInput:
        return EpisodeInput(
            content=text,
            author="Ines",
            occurred_at=f"2026-04-{day:02d}T09:00:00Z",
            graph=None,
            source="export.json",
            format="jira",
            facts=list(facts),
        )

    def wi(name: str) -> EntityRef:
        return EntityRef(name, EntityType.WORK_ITEM)

    omar = EntityRef("Omar", EntityType.PERSON)

    batch = Batch(
        "export.json",
        records=[
            (
                "issues[0]",
                [
                    update(
                        1,
                        "Anchor waits.",
                        ExtractedFact(wi("anchor"), Relation.BLOCKED_BY, wi("relay")),
                    )
                ],
            ),
            (
                "issues[1]",
                [
                    update(
                        2,
                        "Relay done.",
                        ExtractedFact(omar, Relation.OWNS, wi("relay")),
                        ExtractedFact(omar, Relation.COMPLETED, wi("relay")),
                    ),
                    update(
                        3,
                        "Dashes wait.",
                        ExtractedFact(wi("---"), Relation.BLOCKED_BY, wi("relay")),
                    ),
                ],
            ),
            (
                "issues[2]",
                [
                    update(
                        4,
                        "Beacon waits.",
                        ExtractedFact(wi("beacon"), Relation.BLOCKED_BY, wi("relay")),
                    )
                ],
            ),
        ],
    )
    db = tmp_path / "m.db"
    with Store(db) as store:
        report = api.ingest_records(store, [batch])
    assert [source for source, _ in report.errors] == ["export.json: issues[1]"]
    assert (report.episodes_new, report.facts_ended) == (2, 0)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT invalid_at FROM facts").fetchall() == [(None,), (None,)]
        assert conn.execute(
            "SELECT count(*) FROM episodes WHERE content = 'Relay done.'"
        ).fetchone() == (0,)


def test_insert_many_writes_every_row_in_order_across_statements(tmp_path: Path) -> None:
    """Many rows per statement, in chunks under SQLite's cap on bound parameters: the rows
    a statement per row writes, in the same order, also for a chunk cut short and for
    ``OR IGNORE`` repeats (the first one kept)."""
    from memcli.store import connection

    with Store(tmp_path / "m.db") as store:
        store.conn.execute("CREATE TEMP TABLE t (n INTEGER, s TEXT, UNIQUE (n))")
        rows = [(n % 1234, f"row {n}") for n in range(2 * connection.ROWS_PER_INSERT + 7)]
        store.insert_many("INSERT OR IGNORE INTO temp.t (n, s)", rows)
        got = store.conn.execute("SELECT n, s FROM temp.t ORDER BY rowid").fetchall()
        first: dict[int, str] = {}
        for n, s in rows:
            first.setdefault(n, s)
        assert got == list(first.items())
        store.insert_many("INSERT INTO temp.t (n, s)", [])  # nothing to do
        wide = [tuple(range(n, n + 40)) for n in range(60)]  # 2,400 values: several chunks
        cols = ", ".join(f"c{i}" for i in range(40))
        store.conn.execute(f"CREATE TEMP TABLE w ({cols})")
        store.conn.setlimit(sqlite3.SQLITE_LIMIT_VARIABLE_NUMBER, 999)
        store.insert_many(f"INSERT INTO temp.w ({cols})", wide)
        assert store.conn.execute(f"SELECT {cols} FROM temp.w ORDER BY rowid").fetchall() == wide


def test_an_ingest_keeps_statement_journals_in_memory_and_restores_the_setting(
    tmp_path: Path,
) -> None:
    path = write_lines(
        tmp_path / "a.jsonl", [record(1, "Ana owns the API.", fact("Ana", "owns", "API"))]
    )
    with Store(tmp_path / "m.db") as store:
        seen: list[int] = []
        with store.bulk_writes():
            seen.append(int(store.scalar("PRAGMA temp_store")))
        assert seen == [2]
        assert int(store.scalar("PRAGMA temp_store")) == 0
        api.ingest(store, expand([str(path)]))
        assert int(store.scalar("PRAGMA temp_store")) == 0
        with store.transaction():  # inside a transaction the setting is left alone
            store.conn.execute("CREATE TEMP TABLE x (a)")
            with store.bulk_writes():
                assert int(store.scalar("PRAGMA temp_store")) == 0
        assert store.scalar("SELECT count(*) FROM facts") == 1


def _indexes(store: Store) -> list[tuple[str, str]]:
    return sorted(
        (str(name), str(sql))
        for name, sql in store.conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL"
        )
    )


def test_a_first_ingest_builds_the_indexes_after_its_rows_and_they_come_back_whole(
    tmp_path: Path,
) -> None:
    """A batch larger than the table (a first ingest) drops the facts' secondary indexes
    and builds them after its rows: every index is back, defined as before, and the
    rows equal those of an ingest one record at a time; a later, smaller batch keeps
    them."""
    with Store(tmp_path / "new.db") as store:
        defined = _indexes(store)
    records = [
        record(day, f"Update {day}.", fact(f"item {day}", "blocked_by", "vault"))
        for day in range(1, 9)
    ]
    path = write_lines(tmp_path / "a.jsonl", records)
    with Store(tmp_path / "batch.db") as store:
        dropped: list[str] = []
        store.conn.set_trace_callback(
            lambda sql: dropped.append(sql) if sql.startswith("DROP INDEX") else None
        )
        api.ingest(store, expand([str(path)]))
        assert dropped  # the first file is larger than the empty table
        assert _indexes(store) == defined
        dropped.clear()
        later = write_lines(
            tmp_path / "b.jsonl", records[:1] + [record(9, "More.", fact("x", "owns", "y"))]
        )
        api.ingest(store, expand([str(later)]))
        assert dropped == []  # two records against the eight stored
        assert _indexes(store) == defined
        assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    every = [*records, record(9, "More.", fact("x", "owns", "y"))]
    reference = one_at_a_time(every, tmp_path / "one.jsonl", tmp_path / "one.db")
    stored = rows(tmp_path / "batch.db")
    for table in ("facts", "fact_signatures", "signatures", "entities", "fact_docs"):
        assert stored[table] == reference[table]


def test_a_failed_insert_leaves_every_index_in_place(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as store:
        defined = _indexes(store)
        try:
            with store.transaction():
                with store._indexes_built_after("facts", 10):
                    assert _indexes(store) != defined
                    raise RuntimeError("refused")
        except RuntimeError:
            pass
        assert _indexes(store) == defined
        with store.transaction():  # a caller that goes on inside its transaction
            try:
                with store._indexes_built_after("fact_signatures", 10):
                    raise RuntimeError("refused")
            except RuntimeError:
                pass
            assert _indexes(store) == defined
