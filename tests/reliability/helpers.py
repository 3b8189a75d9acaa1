"""Shared tools for the reliability suite: real processes, real files, database dumps."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

# Columns holding wall-clock time (when memcli did something), not world time: they
# differ between any two runs and are left out of state comparisons.
WALL_CLOCK = {
    "ingested_at",
    "created_at",
    "expired_at",
    "last_ingest_at",
    "updated_at",
    "started_at",
    "finished_at",
    "seconds",
    "applied_at",
}

PEOPLE = ["Alice", "Bob", "Clara", "Dan", "Eve", "Farid", "Gina", "Hugo", "Ines", "Jon"]
BLOCKERS = [
    "auth service refactor",
    "payments integration",
    "index migration",
    "billing engine rewrite",
    "kafka upgrade",
    "sso rollout",
    "schema migration",
    "vault upgrade",
]
TEAMS = ["backend team", "platform team", "identity team", "data team"]


def env(**extra: str) -> dict[str, str]:
    """The environment for a memcli subprocess: this one, minus debugging, plus extra."""
    out = {k: v for k, v in os.environ.items() if k != "MEMCLI_DEBUG"}
    out.update(extra)
    return out


def memcli_cmd(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "memcli", "--db", str(db), *args]


def run(
    db: Path, *args: str, cwd: Path | None = None, timeout: float = 120, **extra_env: str
) -> subprocess.CompletedProcess[str]:
    """Run memcli in a real process and wait for it."""
    return subprocess.run(
        memcli_cmd(db, *args),
        cwd=cwd,
        env=env(**extra_env),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def start(db: Path, *args: str, cwd: Path | None = None, **extra_env: str) -> subprocess.Popen[str]:
    """Start memcli in a real process without waiting."""
    return subprocess.Popen(
        memcli_cmd(db, *args),
        cwd=cwd,
        env=env(**extra_env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def update_text(i: int, graph: str = "g") -> str:
    """Status update number ``i``: every one yields facts (a blocker and an owner), so
    an episode stored without facts is visible in the database."""
    person = PEOPLE[i % len(PEOPLE)]
    blocker = BLOCKERS[i % len(BLOCKERS)]
    team = TEAMS[i % len(TEAMS)]
    day = 1 + (i // 24) % 28
    month = 1 + (i // (24 * 28)) % 12
    return (
        f"---\nauthor: {person}\ndate: 2026-{month:02d}-{day:02d}T{i % 24:02d}:{i % 60:02d}:00Z\n"
        f"graph: {graph}\n---\n"
        f"The workstream {i} is blocked on the {blocker}. "
        f"The {blocker} is owned by the {team}.\n"
    )


def write_updates(folder: Path, indexes: Iterable[int], graph: str = "g") -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in indexes:
        path = folder / f"u{i:05d}.md"
        path.write_text(update_text(i, graph), encoding="utf-8")
        paths.append(path)
    return paths


def connect_ro(db: Path) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)


def count(db: Path, table: str) -> int:
    """Rows in ``table`` as another process sees them now (0 before the schema exists)."""
    if not db.exists():
        return 0
    try:
        conn = connect_ro(db)
        try:
            return int(conn.execute(f"SELECT count(*) FROM {table}").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def wait_until(predicate: Callable[[], bool], proc: subprocess.Popen[str], limit: float) -> bool:
    """Poll ``predicate`` every few ms while ``proc`` runs; True once it holds."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if predicate():
            return True
        if proc.poll() is not None:
            return predicate()
        time.sleep(0.005)
    return False


def integrity(db: Path) -> list[str]:
    conn = sqlite3.connect(db)
    try:
        return [r[0] for r in conn.execute("PRAGMA integrity_check")]
    finally:
        conn.close()


def exact_dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of every memcli table, ids included, wall-clock columns left out.

    Two databases with equal exact dumps are the same to every memcli command.
    """
    conn = sqlite3.connect(db)
    try:
        tables = [
            r[0]
            for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table in tables:
            cols = [
                r[1] for r in conn.execute(f"PRAGMA table_info({table})") if r[1] not in WALL_CLOCK
            ]
            rows = conn.execute(f"SELECT {', '.join(cols)} FROM {table}").fetchall()
            out[table] = sorted(rows, key=repr)
        return out
    finally:
        conn.close()


def natural_dump(db: Path) -> dict[str, Any]:
    """The stored state by natural keys (content hashes, entity names), not row ids.

    For comparing runs whose episodes were stored in a different order: concurrent
    ingests interleave, so ids differ while the memory is the same.
    """
    conn = sqlite3.connect(db)
    try:
        ep = dict(conn.execute("SELECT id, content_hash FROM episodes"))
        ent = {
            i: (g, t, n)
            for i, g, t, n in conn.execute("SELECT id, graph_id, type, norm FROM entities")
        }
        facts = {
            i: (ep[e], ent[s], r, ent[t])
            for i, e, s, r, t in conn.execute(
                "SELECT id, episode_id, source_id, relation, target_id FROM facts"
            )
        }
        sigs = dict(conn.execute("SELECT id, key FROM signatures"))

        def item(kind: str, i: int) -> Any:
            return {"episode": ep, "fact": facts, "entity": ent}[kind][i]

        evidence: dict[int, set[Any]] = {}
        for o, kind, i, role in conn.execute(
            "SELECT observation_id, item_type, item_id, role FROM observation_evidence"
        ):
            evidence.setdefault(o, set()).add((kind, item(kind, i), role))
        return {
            "graphs": sorted(
                conn.execute(
                    "SELECT id, ingest_seq, analyzed_seq = ingest_seq, analyzed_config FROM graphs"
                )
            ),
            "episodes": sorted(
                conn.execute(
                    "SELECT graph_id, content_hash, content, author, occurred_at, source, format,"
                    " extractor, extraction_status, unparsed FROM episodes"
                )
            ),
            "entities": sorted(conn.execute("SELECT graph_id, type, norm, name FROM entities")),
            "aliases": sorted(
                (ent[i], a) for i, a in conn.execute("SELECT entity_id, alias FROM entity_aliases")
            ),
            "facts": sorted(
                (
                    facts[i],
                    sentence,
                    valid_at,
                    invalid_at,
                    ep.get(by) if by is not None else None,
                )
                for i, sentence, valid_at, invalid_at, by in conn.execute(
                    "SELECT id, sentence, valid_at, invalid_at, invalidated_by FROM facts"
                )
            ),
            "signatures": sorted(conn.execute("SELECT graph_id, kind, key FROM signatures")),
            "fact_signatures": sorted(
                (facts[f], sigs[s])
                for f, s in conn.execute("SELECT fact_id, signature_id FROM fact_signatures")
            ),
            "active_observations": sorted(
                (
                    g,
                    name,
                    summary,
                    kind,
                    rank,
                    start,
                    latest,
                    tuple(sorted(evidence.get(i, set()), key=repr)),
                )
                for i, g, name, summary, kind, rank, start, latest in conn.execute(
                    "SELECT id, graph_id, name, summary, kind, rank, start_at, latest_evidence_at"
                    " FROM observations WHERE status = 'active'"
                )
            ),
        }
    finally:
        conn.close()


def episodes_without_facts(db: Path) -> int:
    conn = sqlite3.connect(db)
    try:
        return int(
            conn.execute(
                "SELECT count(*) FROM episodes e"
                " WHERE NOT EXISTS (SELECT 1 FROM facts f WHERE f.episode_id = e.id)"
            ).fetchone()[0]
        )
    finally:
        conn.close()


def facts_by_episode(db: Path) -> dict[str, set[tuple[str, str, str]]]:
    """content hash -> {(source norm, relation, target norm)}: what each episode says."""
    conn = sqlite3.connect(db)
    try:
        out: dict[str, set[tuple[str, str, str]]] = {}
        for h, s, r, t in conn.execute(
            "SELECT e.content_hash, s.norm, f.relation, t.norm FROM episodes e"
            " LEFT JOIN facts f ON f.episode_id = e.id"
            " LEFT JOIN entities s ON s.id = f.source_id LEFT JOIN entities t ON t.id = f.target_id"
        ):
            out.setdefault(h, set())
            if r is not None:
                out[h].add((s, r, t))
        return out
    finally:
        conn.close()
