"""Read stored updates again with the current rules reader.

The reader improves release after release, but an update is read once, at ingest: a
store filled by an older memcli keeps the older reading (facts it missed stay missed,
facts it misread stay stored, an "X is unblocked" stored before releases were read ends
nothing). ``reread`` brings each update the rules reader read from its text alone to
what ingesting it today would store:

* its facts become the new reading's: facts still read keep their rows (ids, times,
  evidence); facts no longer read are deleted with their signature links and the
  evidence rows citing them; new ones are added;
* its releases, the names it sets beside tickets and its sentences not understood are
  replaced; releases meet the graph's waits again (``api.release_stored``), and a fact a
  release derived is dropped once no update states the wait it ended;
* the contradiction rules run again for every update whose reading changed and for
  every update whose facts those had ended;
* each graph changed is marked for a full analyze, which redraws the observations.

Updates with given facts (imports, the API's JSON, the structure of tracker exports),
a model's reading, or a tracker's or chat export's text (read with the tracker's
context, which is not stored) are left as they are. One transaction per graph: a graph
is read again whole or not at all.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from memcli.api import (
    IngestReport,
    RulesExtractor,
    _resolve_key,
    _stated,
    _store_facts,
    release_stored,
    require_graph,
)
from memcli.contract import RereadResult
from memcli.models import EntityType, EpisodeInput, Extraction, Relation
from memcli.resolve import resolved
from memcli.store import Store

_UNBLOCKED = Relation.UNBLOCKED_FROM.value


@dataclass
class RereadReport:
    episodes: int = 0  # read again
    changed: int = 0  # whose stored reading changed
    facts_new: int = 0
    facts_removed: int = 0
    facts_ended: int = 0
    entities_new: int = 0
    left_as_is: int = 0  # live updates not read by the rules reader from their text alone
    graphs: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "changed": self.changed,
            "facts_new": self.facts_new,
            "facts_removed": self.facts_removed,
            "facts_ended": self.facts_ended,
            "entities_new": self.entities_new,
            "left_as_is": self.left_as_is,
            "graphs": sorted(self.graphs),
        }

    def record(self) -> RereadResult:
        """This report as the contract record ``extract --reread --json`` prints."""
        return RereadResult.model_validate(self.as_dict())


def reread(
    store: Store,
    graph: str | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> RereadReport:
    """Read every eligible stored update of ``graph`` (or of every graph) again with the
    current rules reader; see the module docstring. ``progress(done, total)`` is called
    as updates are read (a large store takes minutes)."""
    if graph is not None:
        require_graph(store, graph)
    rows = store.rereadable_episodes(graph)
    report = RereadReport(episodes=len(rows), left_as_is=store.episodes_not_reread(graph))
    seen = 0

    def step() -> None:
        nonlocal seen
        seen += 1
        if progress is not None and (seen % 100 == 0 or seen == len(rows)):
            progress(seen, len(rows))

    by_graph: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by_graph.setdefault(r["graph_id"], []).append(r)
    for g, episodes in by_graph.items():
        with store.transaction():
            _reread_graph(store, g, episodes, report, step)
    return report


def _reread_graph(
    store: Store,
    graph: str,
    rows: list[dict[str, Any]],
    report: RereadReport,
    step: Callable[[], None],
) -> None:
    from memcli.corrections import _reapply

    extract = RulesExtractor()
    changed: list[int] = []
    removed_entities: set[int] = set()
    derived: list[tuple[int, dict[str, Any]]] = []  # (episode, fact) kept while checked
    counts = IngestReport()
    for row in rows:
        step()
        eid = int(row["id"])
        extraction = extract(row["content"], row["author"])
        before = store.episode_fact_rows(eid)
        stored_before = counts.facts_new
        _store_facts(store, graph, eid, row["occurred_at"], extraction, counts)
        read = _triples(store, graph, row["occurred_at"], extraction)
        releases = _release_rows(eid, graph, row["occurred_at"], extraction)
        released = {(r[2], r[3]) for r in releases}
        gone: list[int] = []
        restated = False
        for f in before:
            now = read.get((f["source_id"], f["relation"], f["target_id"]))
            if now is not None:
                if now != (f["sentence"], f["valid_at"]):
                    store.set_fact_reading(f["id"], *now)
                    restated = True
                continue
            if f["relation"] == _UNBLOCKED and (f["source_type"], f["source_norm"]) in released:
                derived.append((eid, f))  # a release's fact: kept while its wait is stated
                continue
            gone.append(int(f["id"]))
            removed_entities |= {int(f["source_id"]), int(f["target_id"])}
        stated = _stated_rows(eid, graph, row)
        unparsed = json.dumps(extraction.unparsed, ensure_ascii=False)
        old_releases, old_stated = store.episode_readings(eid)
        added = counts.facts_new - stored_before
        if (
            gone
            or restated
            or added
            or old_releases != set(releases)
            or old_stated != stated
            or unparsed != row["unparsed"]
        ):
            changed.append(eid)
            report.facts_removed += store.delete_facts(gone)
            store.clear_readings(eid, unparsed)
            store.insert_releases(releases)
            store.insert_stated_names(stated)
    report.facts_new += counts.facts_new
    report.entities_new += counts.entities_new
    for eid, f in derived:
        if not store.wait_held_before(graph, f["source_id"], f["target_id"], f["valid_at"]):
            report.facts_removed += store.delete_facts([f["id"]])
            removed_entities |= {int(f["source_id"]), int(f["target_id"])}
            if eid not in changed:
                changed.append(eid)
    if not changed:
        return
    report.changed += len(changed)
    report.graphs.add(graph)
    for eid in changed:
        report.facts_new += len(release_stored(store, eid))
    touched = store.reset_ends_by(changed)
    _reapply(store, sorted(set(changed) | set(touched)))
    report.facts_ended += len(store.end_contradicted())
    store.drop_unused_entities(removed_entities)
    store.mark_needs_full(graph)
    store.bump_ingest(graph)


def _triples(
    store: Store, graph: str, occurred_at: str, extraction: Extraction
) -> dict[tuple[int, str, int], tuple[str, str]]:
    """(source id, relation, target id) of each fact of a reading, as stored, with the
    sentence and start ingest stores for it (the first of repeats, as ingest keeps)."""
    out: dict[tuple[int, str, int], tuple[str, str]] = {}
    created: list[int] = []
    for fact in extraction.facts:
        source_id = _resolve_key(store, graph, fact.source, created)[0]
        target_id = _resolve_key(store, graph, fact.target, created)[0]
        if source_id != target_id:
            triple = (source_id, fact.relation.value, target_id)
            out.setdefault(triple, (fact.sentence, fact.valid_at or occurred_at))
    return out


def _stated_rows(
    episode_id: int, graph: str, row: dict[str, Any]
) -> set[tuple[int, str, str, str, str]]:
    """The names beside tickets ingest stores for this text, one per key, first kept."""
    episode = EpisodeInput(
        content=row["content"],
        author=row["author"],
        occurred_at=row["occurred_at"],
        graph=graph,
        source="",
        format="text",
    )
    out: dict[tuple[str, str], tuple[int, str, str, str, str]] = {}
    for ticket, name, key in _stated(episode):
        ticket_key = resolved(ticket, EntityType.WORK_ITEM)[1]
        out.setdefault((ticket_key, key), (episode_id, graph, ticket_key, name, key))
    return set(out.values())


def _release_rows(
    episode_id: int, graph: str, occurred_at: str, extraction: Extraction
) -> list[tuple[int, str, str, str, str, str]]:
    """The release rows ingest stores for a reading (see ``api._released``)."""
    rows: dict[tuple[str, str], tuple[int, str, str, str, str, str]] = {}
    for r in extraction.releases:
        norm = resolved(r.item.name, r.item.type)[1]
        if norm:
            at = r.valid_at or occurred_at
            key = (r.item.type.value, norm)
            rows.setdefault(key, (episode_id, graph, *key, at, r.sentence))
    return list(rows.values())


__all__ = ["RereadReport", "reread"]


def stale(store: Store, newest: int = 500) -> tuple[int, list[dict[str, Any]]]:
    """(updates checked, those this version's reader reads differently): the newest
    ``newest`` updates ``reread`` would read, compared without writing anything. A
    store filled by an older memcli shows up here; ``memcli doctor`` reports it."""
    from memcli.extract.rules import extract

    rows = store.newest_rereadable(newest)
    differ = []
    for row in rows:
        again = extract(row["content"], row["author"])
        releases = {(r[2], r[3]) for r in _release_rows(0, "", "", again)}
        first: dict[tuple[str, ...], str] = {}  # a repeated fact keeps its first sentence
        for f in again.facts:
            source = (f.source.type.value, resolved(f.source.name, f.source.type)[1])
            target = (f.target.type.value, resolved(f.target.name, f.target.type)[1])
            if source != target:
                first.setdefault((*source, f.relation.value, *target), f.sentence)
        facts = {(*key, sentence) for key, sentence in first.items()}
        stored = {
            f
            for f in row["facts"]
            if not (f[2] == _UNBLOCKED and (f[0], f[1], f[5]) in row["releases"])
        }  # a release's derived facts follow from its releases, compared below
        if facts != stored or releases != {(t, n) for t, n, _ in row["releases"]}:
            differ.append({"id": row["id"], "graph": row["graph_id"], "source": row["source"]})
    return len(rows), differ
