"""Fact end times do not depend on ingest order: a fact ends at its earliest
contradiction, and ``invalidated_by`` names that update, whatever order they arrive in."""

from __future__ import annotations

import sqlite3
import tempfile
from itertools import permutations
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import api
from memcli.sources import SourceText
from memcli.store import Store

ITEMS = ["search page", "billing export", "audit trail"]
BLOCKERS = ["token service", "queue migration"]
PEOPLE = ["Nadia", "Oskar", "Petra"]


def update(kind: str, item: str, other: str, day: int) -> str:
    sentence = {
        "blocked": f"The {item} is blocked on the {other}.",
        "unblocked": f"The {item} is no longer waiting on the {other}.",
        "shipped": f"The {other} shipped.",
        "owner": f"The {item} is owned by {other}.",
    }[kind]
    return f"---\nauthor: Quinn\ndate: 2026-05-{day:02d}\n---\n{sentence}\n"


def fact_table(texts: list[str]) -> list[tuple[Any, ...]]:
    """Ingest ``texts`` in this order into a fresh database; every fact by name."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "order.db"
        with Store(db) as store:
            sources = [
                SourceText(f"u{i}.md", t, "2026-06-01T00:00:00Z") for i, t in enumerate(texts)
            ]
            report = api.ingest(store, sources)
            assert report.ok, report.errors
        conn = sqlite3.connect(db)
        try:
            return sorted(
                conn.execute(
                    """
                    SELECT s.name, f.relation, t.name, f.valid_at, f.invalid_at, e.content
                    FROM facts f JOIN entities s ON s.id = f.source_id
                    JOIN entities t ON t.id = f.target_id
                    LEFT JOIN episodes e ON e.id = f.invalidated_by
                    """
                ).fetchall(),
                key=repr,
            )
        finally:
            conn.close()


def test_wait_ends_at_the_earliest_contradiction_in_either_order() -> None:
    blocked = update("blocked", "search page", "token service", 10)
    unblocked = update("unblocked", "search page", "token service", 20)
    shipped = update("shipped", "", "token service", 21)
    tables = [fact_table(list(order)) for order in permutations([blocked, unblocked, shipped])]
    assert all(t == tables[0] for t in tables)
    [wait] = [f for f in tables[0] if f[1] == "blocked_by"]
    assert wait[4] == "2026-05-20T00:00:00Z"
    assert "no longer waiting" in wait[5]


events = st.lists(
    st.tuples(
        st.sampled_from(["blocked", "unblocked", "shipped", "owner"]),
        st.sampled_from(ITEMS),
        st.integers(0, 2),
        st.integers(1, 12),
    ),
    min_size=2,
    max_size=9,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events=events, data=st.data())
def test_any_order_gives_the_same_fact_table(
    events: list[tuple[str, str, int, int]], data: st.DataObject
) -> None:
    texts = []
    for kind, item, other, day in events:
        name = PEOPLE[other] if kind == "owner" else BLOCKERS[other % len(BLOCKERS)]
        text = update(kind, "" if kind == "shipped" else item, name, day)
        if text not in texts:
            texts.append(text)
    reference = fact_table(texts)
    for _ in range(2):
        shuffled = data.draw(st.permutations(texts))
        assert fact_table(shuffled) == reference
