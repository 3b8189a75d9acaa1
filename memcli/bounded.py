"""Replies that fit an agent's context: pages of compact records within a character budget.

At 10k updates a graph's observations are megabytes of JSON, more than an agent's whole
context. The MCP tools therefore answer with one page (``limit`` records from
``offset``) of compact records, cut further until the JSON fits ``max_chars``, and say
what they left out (``total``, ``truncated``, ``next_offset``) so the agent can ask for
the next page or fetch one record's detail by id.

Pure: contract records in, contract records out (no store, no I/O).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from memcli.contract import (
    AnalyzeResult,
    AnalyzeSummary,
    Episode,
    EpisodeBrief,
    ObservationBrief,
    ObservationView,
    Page,
    Record,
    Report,
    ReportView,
    SearchHit,
    SearchResult,
)
from memcli.errors import UsageError

DEFAULT_LIMIT = 10
DEFAULT_MAX_CHARS = 20_000
IDS = 10  # evidence ids kept per search hit / analyze list
CITATIONS = 3  # evidence citations kept per report item
EXCERPT = 200

P = TypeVar("P", bound=Page)
T = TypeVar("T")


def check(limit: int, offset: int = 0, max_chars: int = DEFAULT_MAX_CHARS) -> None:
    """Reject a window an agent cannot mean, with the allowed range."""
    if limit < 1:
        raise UsageError(f"limit must be at least 1, not {limit}")
    if offset < 0:
        raise UsageError(f"offset must be 0 or more, not {offset}")
    if max_chars < 1000:
        raise UsageError(f"max_chars must be at least 1000, not {max_chars}")


def size(record: Record) -> int:
    """Characters of the record's JSON, as the reply carries it."""
    return len(record.model_dump_json())


def first_sentence(text: str, cap: int = 240) -> str:
    """The first sentence of ``text`` (at most ``cap`` characters): a one-line summary."""
    line = " ".join(text.split())
    m = re.match(r"(.+?[.!?])(\s|$)", line)
    out = m.group(1) if m else line
    return out if len(out) <= cap else out[: cap - 1].rstrip() + "…"


def page(
    make: Callable[[list[T]], P],
    items: Sequence[T],
    *,
    offset: int,
    limit: int,
    max_chars: int,
    total: int | None = None,
) -> P:
    """``items[offset:offset+limit]`` as the page ``make`` builds, dropping items from
    the end until its JSON fits ``max_chars`` (at least one item is kept)."""
    whole = len(items) if total is None else total
    window = list(items[offset : offset + limit])
    while True:
        out = make(window)
        end = offset + len(window)
        out.total, out.offset, out.returned = whole, offset, len(window)
        out.next_offset = end if end < whole else None
        out.truncated = end < whole
        if len(window) <= 1 or size(out) <= max_chars:
            return out
        window = window[: max(1, len(window) * 3 // 4)]


def observation_brief(o: ObservationView) -> ObservationBrief:
    """``o`` needs no evidence lists: their totals are the counts (``evidence=0``)."""
    return ObservationBrief(
        id=o.id,
        graph_id=o.graph,
        name=o.name,
        summary=first_sentence(o.summary),
        status=o.status,
        kind=o.kind,
        leverage=o.leverage,
        root_entities=o.root_entities,
        entities=o.entities_total,
        episodes=o.episodes_total,
        facts=o.facts_total,
        latest_evidence_at=o.latest_evidence_at,
        updated_at=o.updated_at,
    )


def observation_view(o: ObservationView, *, limit: int, max_chars: int) -> ObservationView:
    """``o`` (its lists already cut to ``limit`` by the store) cut further until it fits
    ``max_chars``; the totals still count the whole lists."""
    n = limit
    while True:
        view = o.model_copy(
            update={
                "entities": o.entities[:n],
                "episodes": o.episodes[:n],
                "facts": o.facts[:n],
                "truncated": max(o.entities_total, o.episodes_total, o.facts_total) > n,
            }
        )
        if n <= 1 or size(view) <= max_chars:
            return view
        n = max(1, n * 3 // 4)


def episode_brief(e: Episode) -> EpisodeBrief:
    text = " ".join(e.content.split())
    excerpt = text if len(text) <= EXCERPT else text[: EXCERPT - 1].rstrip() + "…"
    return EpisodeBrief(
        id=e.id,
        source=e.source,
        author=e.author,
        occurred_at=e.occurred_at,
        excerpt=excerpt,
        facts=len(e.facts),
    )


def episode_within(e: Episode, max_chars: int) -> tuple[Episode, bool]:
    """The episode with its text (and then its facts) cut until it fits ``max_chars``."""
    cut = False
    while size(e) > max_chars:
        cut = True
        if len(e.content) > 1000:
            e = e.model_copy(update={"content": e.content[: len(e.content) // 2] + "…"})
        elif len(e.facts) > 1:
            e = e.model_copy(update={"facts": e.facts[: len(e.facts) // 2]})
        else:
            break
    return e, cut


def search_hit(r: SearchResult) -> SearchHit:
    ev = r.evidence
    return SearchHit(
        type=r.type,
        id=r.id,
        title=r.title,
        snippet=r.snippet,
        score=r.score,
        position=r.position,
        match=r.match,
        status=r.status,
        date=r.date,
        episode_ids=ev.episode_ids[:IDS],
        fact_ids=ev.fact_ids[:IDS],
        observation_ids=ev.observation_ids[:IDS],
        sources=ev.sources[: IDS // 2],
        episodes_total=len(ev.episode_ids),
        facts_total=len(ev.fact_ids),
    )


def analyze_summary(r: AnalyzeResult) -> AnalyzeSummary:
    return AnalyzeSummary(
        graph_id=r.graph,
        skipped=r.skipped,
        reason=r.reason,
        episodes=r.episodes,
        clusters=r.clusters,
        created=r.created[:IDS],
        updated=r.updated[:IDS],
        retired=r.retired[:IDS],
        created_total=len(r.created),
        updated_total=len(r.updated),
        retired_total=len(r.retired),
        unchanged_total=len(r.unchanged),
    )


def report_view(
    report: Report, render: Callable[[dict[str, Any]], str], *, limit: int, max_chars: int
) -> ReportView:
    """The report with ``limit`` items a section (each with a few citations), cut
    further until JSON and Markdown together fit ``max_chars``."""
    sections = ("act_on", "new", "updated", "retired", "context")
    full = {s: getattr(report, s) for s in sections}
    n = limit
    while True:
        kept: dict[str, list[Any]] = {}
        for s in sections:
            kept[s] = [
                item.model_copy(update={"evidence": item.evidence[:CITATIONS]})
                if hasattr(item, "evidence")
                else item
                for item in full[s][:n]
            ]
        head = report.model_dump(exclude=set(sections))
        shown = Report.model_validate({**head, **kept})
        view = ReportView.model_validate(
            {
                **{k: v for k, v in head.items() if k != "graph"},
                **kept,
                **{f"{s}_total": len(full[s]) for s in sections},
                "graph_id": report.graph,
                "truncated": any(len(full[s]) > n for s in sections),
                "markdown": render(shown.model_dump(mode="json")),
            }
        )
        if n <= 1 or size(view) <= max_chars:
            return view
        n = max(1, n * 3 // 4)
