"""Observation identity across analysis runs. Pure.

Observations are read-only: nobody edits them, the evidence does. Each run computes the
drafts the evidence supports now and this module decides, against the active
observations, what happens to each:

* same pattern (a dependency draft with the same root, whether it is confirmed or has
  gone stale: ``dependency_chain`` and ``stale_blocker`` are one root's two states, or a shared-context draft that
  overlaps exactly one active shared-context observation and nothing else), same
  fingerprint: **keep**, nothing is written;
* same pattern, new fingerprint: **update** in place, version + 1;
* an active observation no draft continues: **retire**, with a reason and end time
  supplied by the caller (root completed, evidence ended, or pattern split/merged);
* a draft no active observation continues: **create**, linked with ``supersedes`` to
  every observation retired in this run whose evidence episodes it shares.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from memcli.analysis import ROOT_KINDS, SHARED_CONTEXT, Draft


@dataclass(frozen=True, slots=True)
class Existing:
    id: int
    pattern_key: str
    kind: str
    fingerprint: str
    episode_ids: frozenset[int]


@dataclass(slots=True)
class Plan:
    keep: list[tuple[int, Draft]] = field(default_factory=list)
    update: list[tuple[int, Draft]] = field(default_factory=list)
    create: list[tuple[Draft, list[int]]] = field(default_factory=list)  # draft, supersedes
    retire: list[int] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.update or self.create or self.retire)


def plan(drafts: Iterable[Draft], existing: Iterable[Existing]) -> Plan:
    """Decide keep / update / create / retire. Deterministic in input order."""
    drafts = list(drafts)
    active = sorted(existing, key=lambda e: e.id)
    by_key = {e.pattern_key: e for e in active if e.kind != SHARED_CONTEXT}
    result = Plan()
    matched: set[int] = set()
    unmatched: list[Draft] = []

    for d in drafts:
        hit = by_key.get(d.pattern_key) if d.kind != SHARED_CONTEXT else None
        if hit is not None and (
            hit.kind == d.kind or (hit.kind in ROOT_KINDS and d.kind in ROOT_KINDS)
        ):
            matched.add(hit.id)
            _keep_or_update(result, hit, d)
        else:
            unmatched.append(d)

    # Shared-context patterns have no root to name them: follow them by evidence overlap,
    # but only one-to-one; a split or a merge retires and re-creates with links.
    contexts = [e for e in active if e.kind == SHARED_CONTEXT and e.id not in matched]
    ctx_drafts = [d for d in unmatched if d.kind == SHARED_CONTEXT]
    overlaps: dict[int, list[int]] = defaultdict(list)  # existing id -> draft indexes
    draft_overlaps: dict[int, list[int]] = defaultdict(list)
    # which contexts hold each episode: a draft meets only the contexts it shares an
    # episode with, not every context of the graph
    holders: dict[int, list[int]] = defaultdict(list)
    for e in contexts:  # in id order
        for episode in e.episode_ids:
            holders[episode].append(e.id)
    for i, d in enumerate(ctx_drafts):
        hits = sorted({h for ep in d.episodes for h in holders.get(ep.id, ())})
        for h in hits:
            overlaps[h].append(i)
            draft_overlaps[i].append(h)
    continued: set[int] = set()
    for e in contexts:
        idx = overlaps.get(e.id, [])
        if len(idx) == 1 and draft_overlaps[idx[0]] == [e.id]:
            matched.add(e.id)
            continued.add(idx[0])
            _keep_or_update(result, e, ctx_drafts[idx[0]])
    continued_ids = {id(ctx_drafts[i]) for i in continued}
    unmatched = [d for d in unmatched if id(d) not in continued_ids]

    result.retire = [e.id for e in active if e.id not in matched]
    gone = set(result.retire)
    retired = [e for e in active if e.id in gone]
    for d in unmatched:
        supersedes: list[int] = []
        if retired:
            eps = {e.id for e in d.episodes}
            supersedes = [e.id for e in retired if eps & e.episode_ids]
        result.create.append((d, supersedes))
    return result


def _keep_or_update(result: Plan, existing: Existing, draft: Draft) -> None:
    if existing.fingerprint == draft.fingerprint:
        result.keep.append((existing.id, draft))
    else:
        result.update.append((existing.id, draft))
