"""From clusters and dependency cones to observation drafts. Pure.

An algorithm decides all structure here: which episodes, facts and entities support an
observation, which work is the root blocker, who is blocked directly and who downstream.
Writers (template or language model) only turn a finished :class:`Draft` into prose.

One dependency observation is written per root blocker, with the facts of that root's
cone (everything that waits on it, directly or through other work); an episode may
support several. A cluster with no dependency but two or more episodes sharing facts
gets one shared-context observation.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import compress, repeat
from operator import is_, itemgetter
from typing import TYPE_CHECKING, Any, NamedTuple

from memcli import cluster
from memcli.models import EntityType, ObservationKind, Relation
from memcli.signatures import describe

if TYPE_CHECKING:
    from memcli.lifecycle import Plan

try:
    # the module hashlib's blake2b comes from: importing hashlib loads OpenSSL first
    # (a few milliseconds of every analyze and read process, for a hash it does not use)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - an interpreter without the builtin module
    from hashlib import blake2b

# Observation kinds are defined once, in ``memcli.models.ObservationKind`` (the JSON
# ``kind``); these names are analysis's own shorthand for them.
DEPENDENCY = ObservationKind.DEPENDENCY_CHAIN
SHARED_CONTEXT = ObservationKind.SHARED_CONTEXT
CYCLE = ObservationKind.DEPENDENCY_CYCLE
OWNER_BOTTLENECK = ObservationKind.OWNER_BOTTLENECK
STALE_BLOCKER = ObservationKind.STALE_BLOCKER
CRITICAL_PATH = ObservationKind.CRITICAL_PATH
KINDS = tuple(ObservationKind)
# One root blocker is one observation over its whole life: it is a dependency chain while
# it is confirmed and a stale blocker when nobody has confirmed it for a while.
ROOT_KINDS = (DEPENDENCY, STALE_BLOCKER)
# Enum members as plain module names: reading ``Relation.BLOCKED_BY`` goes through the
# enum's descriptor, and the loops below read it once per fact.
_BLOCKED_BY = Relation.BLOCKED_BY
_OWNS = Relation.OWNS
_WORK_ITEM = EntityType.WORK_ITEM
# A fact's (episode, source, relation, target), and of that (source, relation, target).
_WHO_WHAT = itemgetter(1, 2, 3, 4)
_WHAT = itemgetter(1, 2, 3)
_EPISODE = itemgetter(1)
_RELATION = itemgetter(3)  # of a Fact
_TARGET = itemgetter(4)  # of a Fact
_AUTHOR = itemgetter(1)  # of an Episode
_WHEN = itemgetter(2, 0)  # an Episode's (occurred_at, id): the order of a draft's episodes
_ID = itemgetter(0)  # of an Entity or an Episode


# Entities, episodes and facts are named tuples rather than frozen dataclasses: an
# analysis of a large graph builds hundreds of thousands of them, and a tuple is built
# in C (a frozen dataclass's __init__ sets each field through object.__setattr__).


class Entity(NamedTuple):
    id: int
    name: str
    type: EntityType


class Episode(NamedTuple):
    id: int
    author: str | None
    occurred_at: str
    source: str


class Fact(NamedTuple):
    id: int
    episode_id: int
    source_id: int
    relation: Relation
    target_id: int


class OutsideRoot(NamedTuple):
    """A root observation outside an incremental pass's scope, whose owner has work in
    the scope: its component cannot have changed, so its stored evidence (the waits of
    its cone and who owns its items) rebuilds the draft a full pass would make, for the
    owner bottlenecks that count it."""

    component: int
    cluster_id: int
    root: int
    facts: tuple[Fact, ...]
    pattern_key: str = ""


@dataclass(slots=True)
class Blocked:
    """A work item (or person) waiting on the root, and how."""

    entity: Entity
    depth: int
    via: list[Entity]  # what it waits on directly (the root when depth == 1)
    owners: list[Entity]
    fact_ids: list[int]


@dataclass(slots=True)
class Draft:
    """One observation's structure and evidence, before any prose is written."""

    pattern_key: str
    kind: str
    cluster_id: int
    roots: list[Entity]
    root_owners: list[Entity]
    blocked: list[Blocked]
    people: list[Entity]  # people (and teams) whose work is blocked, sorted by name
    shared: list[tuple[Fact, int]]  # shared-context facts and how many episodes state them
    entity_roles: dict[int, str]
    fact_roles: dict[int, str]
    episodes: list[Episode]  # in date order
    entities: dict[int, Entity]
    facts: dict[int, Fact]
    rank: int
    start_at: str
    latest_evidence_at: str
    fingerprint: str = ""
    notes: list[str] = field(default_factory=list)
    valid_from: str = ""  # when the pattern began to hold (set by ``run``)
    # the latest update that restated the root (a wait on it, or who owns it)
    confirmed_at: str = ""
    # the items in order: a cycle (each waits on the next, the last on the first) or a
    # critical path (from the item that waits longest down to what it waits on)
    path: list[Entity] = field(default_factory=list)
    # ``evidence()`` as JSON, kept when the fingerprint is taken (``build_drafts``): the
    # store writes the same text for a new version instead of encoding it again
    evidence_json: str = ""

    def evidence(self) -> list[tuple[str, int, str]]:
        """(item type, item id, role) rows, sorted. The types sort "entity", "episode",
        "fact", and within a type an id has one role: each type's rows in id order, one
        after the other, are the rows sorted."""
        rows = [("entity", eid, role) for eid, role in sorted(self.entity_roles.items())]
        rows += [("episode", i, "support") for i in sorted([e.id for e in self.episodes])]
        rows += [("fact", fid, role) for fid, role in sorted(self.fact_roles.items())]
        return rows

    @property
    def direct(self) -> list[Blocked]:
        return [b for b in self.blocked if b.depth == 1]

    @property
    def downstream(self) -> list[Blocked]:
        return [b for b in self.blocked if b.depth > 1]


# ``Draft.evidence()`` rows as ``json.dumps`` writes them: an id is an int and a role
# one of the module's own words (nothing to escape), so each row is formatted in C.
_ENTITY_ROW = '["entity", %d, "%s"]'.__mod__
_EPISODE_ROW = '["episode", %d, "support"]'.__mod__
_FACT_ROW = '["fact", %d, "%s"]'.__mod__


def _evidence_json(draft: Draft) -> str:
    """``json.dumps(draft.evidence())``, without the rows as tuples in between."""
    rows = list(map(_ENTITY_ROW, sorted(draft.entity_roles.items())))
    rows += map(_EPISODE_ROW, sorted(map(_ID, draft.episodes)))
    rows += map(_FACT_ROW, sorted(draft.fact_roles.items()))
    return f"[{', '.join(rows)}]"


def fingerprint(draft: Draft, writer: str, evidence_json: str | None = None) -> str:
    """What must change for an observation to get a new version: the hash of
    ``[kind, pattern key, evidence, writer]`` as JSON (``evidence_json``: the evidence
    already encoded)."""
    if evidence_json is None:
        evidence_json = json.dumps(draft.evidence())
    # json.dumps of the list, written out: its items joined with ", " between brackets
    payload = (
        f"[{json.dumps(draft.kind)}, {json.dumps(draft.pattern_key)}, {evidence_json},"
        f" {json.dumps(writer)}]"
    )
    return blake2b(payload.encode(), digest_size=12).hexdigest()


def _name_key(entity: Entity) -> tuple[str, int]:
    return (entity.name.lower(), entity.id)


def _blocked_order(b: Blocked) -> tuple[int, str, int]:
    """Blocked items by depth, then name: ``(b.depth, _name_key(b.entity))`` flat."""
    e = b.entity
    return (b.depth, e.name.lower(), e.id)


def build_drafts(
    *,
    membership: dict[int, int],
    cones: list[tuple[int, int, int, int]],
    facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
    writer: str = "template",
    components: dict[int, int] | None = None,
    present: str | None = None,
    stale_after: float | None = None,
    owners: frozenset[int] | None = None,
    outside_roots: Sequence[OutsideRoot] = (),
    outside_entities: Mapping[int, Entity] | None = None,
    outside_episodes: Mapping[int, Episode] | None = None,
    recheck_roots: Sequence[OutsideRoot] = (),
) -> list[Draft]:
    """Every observation the current evidence supports, ranked by leverage.

    ``membership`` maps episode -> cluster; ``components`` maps episode -> component (the
    cluster before size-cap splits; None: the clusters are the components); ``cones``
    are (component, root, node, depth) rows from the store's recursive walk over each
    component; ``facts`` are the currently valid facts. ``present`` is the newest world
    time the graph knows and ``stale_after`` (seconds) how long a root blocker may go
    unconfirmed before it is shown as stale (None: never).

    An owner bottleneck spans components. In an incremental pass ``owners`` are the
    owners it may redo (those with work in the scope, or whose bottleneck has evidence
    in it; None: every owner), and ``outside_roots`` the stored roots of those owners
    outside the scope (with ``outside_entities`` and ``outside_episodes``, the ends and
    episodes of their facts): each owner's draft is built over all of its roots, as in
    a full pass, without redoing the components that hold them. ``recheck_roots`` are
    stored roots outside the scope whose staleness the move of ``present`` may flip:
    rebuilt the same way, they are drafts of this pass.
    """
    if outside_roots or recheck_roots:
        entities = {**entities, **(outside_entities or {})}
        episodes = {**episodes, **(outside_episodes or {})}
    component_of = components if components is not None else membership
    by_component: dict[int, list[Fact]] = defaultdict(list)
    component_get = component_of.get
    for f in facts:
        comp = component_get(f.episode_id)
        if comp is not None:
            by_component[comp].append(f)
    component_sizes = Counter(component_of.values())
    # The waits of each component, in the facts' order: a few of the facts, found in C.
    relations = list(map(_RELATION, facts))
    waits_of: dict[int, list[Fact]] = defaultdict(list)
    for f in compress(facts, map(is_, relations, repeat(_BLOCKED_BY))):
        comp = component_get(f.episode_id)
        if comp is not None:
            waits_of[comp].append(f)

    # One observation per root and component: the cone is walked over the whole
    # component, so the size cap (which splits a component into clusters) never splits
    # a root's dependents. (With literal signatures, or an explicit --window, one root
    # can sit in two unrelated components: those stay two observations.)
    cone_nodes: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)
    for comp, root, node, depth in cones:
        nodes_of_root = cone_nodes[(comp, root)]
        nodes_of_root[node] = min(depth, nodes_of_root.get(node, depth))

    # Each component's facts indexed once (waits by who waits, ownership by what is
    # owned), so a root's draft costs the size of its cone, not of its component; only
    # components with a cone (most have none) are indexed, and of their ownership only
    # that of cone nodes (the facts naming one are found in C), in the facts' order.
    waits_by_source: dict[int, dict[int, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    owns_by_target: dict[int, dict[int, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    cone_comps = {comp for comp, _ in cone_nodes}
    for comp in cone_comps:
        by_source = waits_by_source[comp]
        for f in waits_of.get(comp, ()):
            by_source[f.source_id].append(f)
    in_cones: set[int] = set().union(*cone_nodes.values())
    ownership = list(compress(facts, map(is_, relations, repeat(_OWNS))))
    del relations
    ownership = list(compress(ownership, map(in_cones.__contains__, map(_TARGET, ownership))))
    for comp, target, f in zip(
        map(component_get, map(_EPISODE, ownership)),
        map(_TARGET, ownership),
        ownership,
        strict=True,
    ):
        if comp in cone_comps:
            owns_by_target[comp][target].append(f)
    del ownership

    drafts: list[Draft] = []
    clusters_with_patterns: set[int] = set()
    roots_seen = Counter(root for _, root in cone_nodes)
    root_drafts: list[Draft] = []
    placed: list[tuple[int, int, Draft]] = []  # (component, root, draft)
    for (comp, root), nodes in sorted(cone_nodes.items()):
        if component_sizes[comp] < 2 or len(nodes) < 2:
            continue
        waits_of_node, owns_of_node = waits_by_source[comp].get, owns_by_target[comp].get
        waits = [f for n in nodes for f in waits_of_node(n, ())]
        owns = [f for n in nodes for f in owns_of_node(n, ())]
        if not _may_be_pattern(nodes, waits, owns, entities, episodes):
            continue  # most cones are a lone blocker: no draft is built for them
        draft = _dependency_draft(comp, root, nodes, waits, owns, entities, episodes)
        if not _is_pattern(draft):
            continue
        draft.cluster_id = min(map(membership.get, map(_ID, draft.episodes), repeat(comp)))
        if roots_seen[root] > 1:
            draft.pattern_key = f"root:{root}:c{comp}"
        _mark_stale(draft, present, stale_after)
        root_drafts.append(draft)
        placed.append((comp, root, draft))
    for o in recheck_roots:
        draft = _outside_draft(o, entities, episodes)
        draft.pattern_key = o.pattern_key
        _mark_stale(draft, present, stale_after)
        root_drafts.append(draft)
        placed.append((o.component, o.root, draft))
    drafts.extend(root_drafts)

    for comp in sorted(waits_of):  # no wait at all: no cycle and no path
        wait_graph = _waits(waits_of[comp])
        if not wait_graph[0]:
            continue
        comp_facts = by_component[comp]
        # Most wait graphs have no cycle (a topological order covers them): no strong
        # components to find, no cycle drafts, and the order serves the critical path.
        acyclic = _topological(wait_graph[0])
        if acyclic is None:
            parts = _strong_components(wait_graph[0])
            cycle_drafts = _cycle_drafts(comp, comp_facts, entities, episodes, wait_graph, parts)
        else:
            parts, cycle_drafts = [], []
        path = _critical_path_draft(
            comp, comp_facts, entities, episodes, wait_graph, parts, acyclic
        )
        for d in [*cycle_drafts, *([path] if path else [])]:
            d.cluster_id = min(membership.get(e.id, comp) for e in d.episodes)
            drafts.append(d)
    if outside_roots or recheck_roots:
        for o in outside_roots:
            placed.append((o.component, o.root, _outside_draft(o, entities, episodes)))
        # the order of a full pass (component, then root): an entity's role in an
        # owner's draft is the one it has in the first of the owner's roots
        placed.sort(key=lambda p: (p[0], p[1]))
    drafts.extend(_owner_drafts([d for _, _, d in placed], entities, owners))
    for d in drafts:
        clusters_with_patterns.update(
            map(membership.get, map(_ID, d.episodes), repeat(d.cluster_id))
        )

    # Shared context: clusters of two or more episodes without another pattern.
    context_clusters = {
        c
        for c, size in Counter(membership.values()).items()
        if size >= 2 and c not in clusters_with_patterns
    }
    # A cluster's facts are its component's (in the same order), but in a component the
    # size cap split: only those are grouped again, not every fact of the graph.
    split = (
        {component_of[e] for e, c in membership.items() if c != component_of[e]}
        if components is not None
        else set()
    )
    by_cluster_facts: dict[int, list[Fact]] = defaultdict(list)
    for comp in sorted(split):
        for f in by_component.get(comp, ()):
            c = membership.get(f.episode_id)
            if c in context_clusters:
                by_cluster_facts[c].append(f)
    for c in sorted(context_clusters):
        comp = component_of[c]
        cluster_facts = by_cluster_facts[c] if comp in split else by_component.get(comp, [])
        context = _context_draft(c, cluster_facts, entities, episodes)
        if context is not None:
            drafts.append(context)

    for d in drafts:
        d.evidence_json = _evidence_json(d)
        d.fingerprint = fingerprint(d, writer, d.evidence_json)
    drafts.sort(key=lambda d: (-d.rank, d.kind, d.pattern_key))
    return drafts


def _epoch(when: str) -> float:
    return datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp()


def _mark_stale(draft: Draft, present: str | None, stale_after: float | None) -> None:
    """Note when the root was last confirmed (an update waiting on it or naming its
    owner) and, when that is more than ``stale_after`` seconds before ``present``, make
    the draft a stale blocker: still shown, with the date, but ranked at a quarter."""
    root = draft.roots[0].id
    confirming = {
        f.episode_id
        for f in draft.facts.values()
        if f.target_id == root and f.relation in (_BLOCKED_BY, _OWNS)
    }
    dates = [e.occurred_at for e in draft.episodes if e.id in confirming]
    draft.confirmed_at = max(dates) if dates else draft.latest_evidence_at
    if present is None or stale_after is None:
        return
    if _epoch(present) - _epoch(draft.confirmed_at) > stale_after:
        draft.kind = STALE_BLOCKER
        draft.rank = (draft.rank + 3) // 4


def _strong_components(edges: Mapping[int, set[int]]) -> list[list[int]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[int] = []
    out: list[list[int]] = []
    counter = 0
    for start in sorted(edges):
        if start in index:
            continue
        # each node's next steps in descending order, taken from the end: ascending
        # order without shifting a list per step
        work: list[tuple[int, list[int]]] = [(start, sorted(edges.get(start, ()), reverse=True))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, todo = work[-1]
            if todo:
                nxt = todo.pop()
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, sorted(edges.get(nxt, ()), reverse=True)))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                part: list[int] = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    part.append(top)
                    if top == node:
                        break
                out.append(sorted(part))
    return out


def _topological(edges: Mapping[int, Iterable[int]]) -> list[int] | None:
    """The nodes of a wait graph, each before everything it waits on (Kahn's order, in
    no particular order among the ready ones), or None when the graph has a cycle."""
    indegree: dict[int, int] = {}
    for tgts in edges.values():
        for b in tgts:
            indegree[b] = indegree.get(b, 0) + 1
    ready = [n for n in edges if n not in indegree]
    ready.extend(n for n in indegree if n not in edges and indegree[n] == 0)
    order: list[int] = []
    while ready:
        n = ready.pop()
        order.append(n)
        for b in edges.get(n, ()):
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    return order if len(order) == len(edges.keys() | indegree.keys()) else None


def _waits(comp_facts: list[Fact]) -> tuple[dict[int, set[int]], dict[tuple[int, int], list[Fact]]]:
    """blocked_by edges (who waits -> on what) and the facts that state each edge."""
    edges: dict[int, set[int]] = defaultdict(set)
    stated: dict[tuple[int, int], list[Fact]] = defaultdict(list)
    for f in comp_facts:
        if f.relation is _BLOCKED_BY and f.source_id != f.target_id:
            edges[f.source_id].add(f.target_id)
            stated[(f.source_id, f.target_id)].append(f)
    return edges, stated


def _pattern_draft(
    *,
    kind: str,
    key: str,
    comp: int,
    roots: list[int],
    blocked: dict[int, tuple[int, set[int]]],  # entity -> (depth, what it waits on)
    edge_facts: list[Fact],
    comp_facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
    path: list[int],
) -> Draft:
    """A draft for a structure found in the wait graph (a cycle or a path): its roots,
    the items blocked behind it, their owners, and every fact that states them."""
    involved = set(roots) | set(blocked)
    owner_facts = [f for f in comp_facts if f.relation is _OWNS and f.target_id in involved]
    owners_of: dict[int, set[int]] = defaultdict(set)
    for f in owner_facts:
        owners_of[f.target_id].add(f.source_id)

    def ents(ids: Iterable[int]) -> list[Entity]:
        return sorted((entities[i] for i in ids if i in entities), key=_name_key)

    facts_of: dict[int, list[int]] = defaultdict(list)
    for f in edge_facts:
        facts_of[f.source_id].append(f.id)
    items = [
        Blocked(entities[n], depth, ents(via), ents(owners_of[n]), sorted(facts_of[n]))
        for n, (depth, via) in blocked.items()
        if n in entities
    ]
    items.sort(key=lambda b: (b.depth, _name_key(b.entity)))
    roles: dict[int, str] = dict.fromkeys(roots, "root")
    root_owners = ents({o for r in roots for o in owners_of[r]})
    for o in root_owners:
        roles.setdefault(o.id, "owner")
    people: dict[int, Entity] = {}
    for b in items:
        roles.setdefault(b.entity.id, "direct" if b.depth == 1 else "downstream")
        if b.entity.type is not _WORK_ITEM:
            people[b.entity.id] = b.entity
        for o in b.owners:
            roles.setdefault(o.id, "direct" if b.depth == 1 else "downstream")
            people[o.id] = o
    fact_roles = {f.id: "dependency" for f in edge_facts}
    fact_roles.update({f.id: "ownership" for f in owner_facts})
    used = {f.id: f for f in edge_facts + owner_facts}
    eps = sorted(
        (episodes[f.episode_id] for f in used.values()), key=lambda e: (e.occurred_at, e.id)
    )
    eps = list(dict.fromkeys(eps))
    work = sum(1 for i in involved if i in entities and entities[i].type is _WORK_ITEM)
    return Draft(
        pattern_key=key,
        kind=kind,
        cluster_id=comp,
        roots=ents(roots),
        root_owners=root_owners,
        blocked=items,
        people=sorted(people.values(), key=_name_key),
        shared=[],
        entity_roles=roles,
        fact_roles=fact_roles,
        episodes=eps,
        entities={i: entities[i] for i in roles if i in entities},
        facts=used,
        rank=work + len(people),
        start_at=eps[0].occurred_at,
        latest_evidence_at=eps[-1].occurred_at,
        path=[entities[i] for i in path if i in entities],
    )


Waits = tuple[dict[int, set[int]], dict[tuple[int, int], list[Fact]]]


def _cycle_drafts(
    comp: int,
    comp_facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
    waits: Waits,
    parts: list[list[int]],
) -> list[Draft]:
    """One draft per deadlock: a set of items that wait on each other (a strongly
    connected part of the wait graph), with everything that waits on it, directly or
    through other work. No recursive walk: cycles cannot loop it. ``waits`` and
    ``parts`` are ``_waits(comp_facts)`` and its strong components."""
    if all(len(part) < 2 for part in parts):
        return []  # no cycle (most components): no index of who waits on what
    edges, stated = waits
    waiters: dict[int, set[int]] = defaultdict(set)
    for src, tgts in edges.items():
        for t in tgts:
            waiters[t].add(src)
    drafts = []
    for part in parts:
        if len(part) < 2:
            continue
        members = set(part)
        # everyone behind the cycle, by distance (breadth first from the cycle)
        blocked: dict[int, tuple[int, set[int]]] = {}
        frontier = sorted(members)
        depth = 0
        while frontier:
            depth += 1
            nxt: list[int] = []
            for node in frontier:
                for w in sorted(waiters.get(node, ())):
                    if w in members:
                        continue
                    if w not in blocked:
                        blocked[w] = (depth, set())
                        nxt.append(w)
                    if blocked[w][0] == depth:
                        blocked[w][1].add(node)
            frontier = nxt
        inside = [
            f for (a, b), fs in sorted(stated.items()) if a in members and b in members for f in fs
        ]
        behind = [
            f
            for (a, b), fs in sorted(stated.items())
            if a in blocked and (b in members or b in blocked)
            for f in fs
        ]
        drafts.append(
            _pattern_draft(
                kind=CYCLE,
                key=f"cycle:{min(members)}",
                comp=comp,
                roots=sorted(members),
                blocked=blocked,
                edge_facts=inside + behind,
                comp_facts=comp_facts,
                entities=entities,
                episodes=episodes,
                path=_cycle_order(members, edges, entities),
            )
        )
    return drafts


def _cycle_order(
    members: set[int], edges: Mapping[int, set[int]], entities: dict[int, Entity]
) -> list[int]:
    """A shortest cycle through the first member by name, in wait order (each waits on
    the next, the last on the first). Neighbours are tried in name order, so the answer
    does not depend on entity ids (that is, on the order updates arrived in)."""

    def key(i: int) -> tuple[str, int]:
        return _name_key(entities[i]) if i in entities else ("", i)

    start = min(members, key=key)
    previous: dict[int, int] = {}
    queue = [start]
    while queue and start not in previous:
        nxt: list[int] = []
        for node in queue:
            for t in sorted(edges.get(node, ()), key=key):
                if t not in members or t in previous:
                    continue
                previous[t] = node
                if t == start:
                    break
                nxt.append(t)
            if start in previous:
                break
        queue = nxt
    back: list[int] = []
    node = previous.get(start, start)
    while node != start:
        back.append(node)
        node = previous[node]
    return [start, *reversed(back)]


def _critical_path_draft(
    comp: int,
    comp_facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
    waits: Waits,
    parts: list[list[int]],
    acyclic: list[int] | None = None,
) -> Draft | None:
    """The longest chain of waits in a component (edges inside a cycle left out, so
    the chain is finite), when it is longer than two hops. Ties go to the chain whose
    names come first, so the choice is deterministic. ``acyclic``: the wait graph's
    topological order, when it has no cycle (``parts`` then hold no cycle either)."""
    edges, stated = waits
    # How long the longest chain is needs no names: most components have none over two
    # hops, and are done before a name is looked at. The length of the longest chain
    # from each node does not depend on which topological order computes it.
    if acyclic is not None:
        rough: list[int] | None = acyclic
        dag_edges: Mapping[int, Iterable[int]] = edges
    else:
        cyclic: set[tuple[int, int]] = set()
        for part in parts:
            if len(part) >= 2:
                inside = set(part)
                cyclic.update((a, b) for a in part for b in edges.get(a, ()) if b in inside)
        dag_edges = {a: [b for b in tgts if (a, b) not in cyclic] for a, tgts in edges.items()}
        rough = _topological(dag_edges)
    if not rough:
        return None
    longest: dict[int, int] = {}
    for n in reversed(rough):  # targets before the items that wait on them
        hops = 0
        for b in dag_edges.get(n, ()):
            if longest[b] >= hops:
                hops = longest[b] + 1
        longest[n] = hops
    if max(longest.values()) <= 2:
        return None
    in_cycle: set[tuple[int, int]] = set()
    for part in parts:
        if len(part) < 2:
            continue  # a lone node has no edge to itself (``_waits`` leaves those out)
        members = set(part)
        in_cycle.update((a, b) for a in part for b in edges.get(a, ()) if b in members)
    if in_cycle:
        dag: dict[int, list[int]] = {
            a: sorted(b for b in tgts if (a, b) not in in_cycle) for a, tgts in edges.items()
        }
    else:  # no cycle (most components): every wait is an edge of the DAG
        dag = {a: sorted(tgts) for a, tgts in edges.items()}
    nodes = set(dag) | {b for tgts in dag.values() for b in tgts}

    def key(i: int) -> tuple[str, int]:
        return _name_key(entities[i]) if i in entities else ("", i)

    # The longest chain from each node down to a root, ties to the chain whose names
    # come first. Each node's key (its name, then its id) is its own, so two chains
    # compare by their first nodes: a node needs only its length and its next node.
    indegree: dict[int, int] = dict.fromkeys(nodes, 0)
    for tgts in dag.values():
        for b in tgts:
            indegree[b] += 1
    order: list[int] = []
    ready = sorted((n for n in nodes if indegree[n] == 0), key=key)
    while ready:
        n = ready.pop()
        order.append(n)
        for b in dag.get(n, ()):
            indegree[b] -= 1
            if indegree[b] == 0:
                ready.append(b)
    if not order:
        return None
    keys = {n: key(n) for n in order}
    length: dict[int, int] = {}
    after: dict[int, int] = {}
    for n in reversed(order):  # targets before the items that wait on them
        hops, step = 0, n
        for b in dag.get(n, ()):
            if length[b] + 1 > hops or (length[b] + 1 == hops and keys[b] < keys[step]):
                hops, step = length[b] + 1, b
        length[n] = hops
        if hops:
            after[n] = step
    top = min(order, key=lambda n: (-length[n], keys[n]))
    hops = length[top]
    chain = [top]
    while chain[-1] in after:
        chain.append(after[chain[-1]])
    if hops <= 2:
        return None
    bottom = chain[-1]
    blocked = {n: (len(chain) - 1 - i, {chain[i + 1]}) for i, n in enumerate(chain[:-1])}
    edge_facts = [f for a, b in zip(chain, chain[1:], strict=False) for f in stated[(a, b)]]
    draft = _pattern_draft(
        kind=CRITICAL_PATH,
        key=f"path:{bottom}",
        comp=comp,
        roots=[bottom],
        blocked=blocked,
        edge_facts=edge_facts,
        comp_facts=comp_facts,
        entities=entities,
        episodes=episodes,
        path=chain,
    )
    # A path ranks by the waits it adds beyond the first hop: below the root blocker it
    # ends in, which is the thing to act on.
    draft.rank = hops - 1
    return draft


def _outside_draft(
    o: OutsideRoot, entities: Mapping[int, Entity], episodes: Mapping[int, Episode]
) -> Draft:
    """The draft of a stored root from its evidence facts: its cone is the root and
    everything that waits on it through them, each at its shortest distance (what the
    store's walk gives), so ``_dependency_draft`` makes what a full pass makes."""
    waiting_on: dict[int, list[Fact]] = defaultdict(list)
    for f in o.facts:
        if f.relation is _BLOCKED_BY:
            waiting_on[f.target_id].append(f)
    nodes = {o.root: 0}
    frontier = [o.root]
    while frontier:
        nxt: list[int] = []
        for n in frontier:
            for f in waiting_on.get(n, ()):
                if f.source_id not in nodes:
                    nodes[f.source_id] = nodes[n] + 1
                    nxt.append(f.source_id)
        frontier = nxt
    waits = [f for f in o.facts if f.relation is _BLOCKED_BY and f.source_id in nodes]
    owns = [f for f in o.facts if f.relation is _OWNS and f.target_id in nodes]
    draft = _dependency_draft(o.component, o.root, nodes, waits, owns, entities, episodes)
    draft.cluster_id = o.cluster_id
    return draft


def _owner_drafts(
    root_drafts: list[Draft],
    entities: Mapping[int, Entity],
    owners: frozenset[int] | None = None,
) -> list[Draft]:
    """A person or team who owns two or more root blockers, with all the work waiting
    on them: one draft per owner (of ``owners`` when given), its evidence the union of
    those roots' evidence."""
    by_owner: dict[int, list[Draft]] = defaultdict(list)
    for d in root_drafts:
        for o in d.root_owners:
            if owners is None or o.id in owners:
                by_owner[o.id].append(d)
    out = []
    for owner_id, owned in sorted(by_owner.items()):
        roots = {d.roots[0].id for d in owned}
        if len(roots) < 2 or owner_id not in entities:
            continue
        blocked: dict[int, Blocked] = {}
        roles: dict[int, str] = {}
        fact_roles: dict[int, str] = {}
        used: dict[int, Fact] = {}
        eps: dict[int, Episode] = {}
        people: dict[int, Entity] = {}
        for d in owned:
            for b in d.blocked:
                if b.entity.id in roots:
                    continue
                have = blocked.get(b.entity.id)
                if have is None or b.depth < have.depth:
                    blocked[b.entity.id] = b
            roles.update({i: r for i, r in d.entity_roles.items() if i not in roles})
            fact_roles.update(d.fact_roles)
            used.update(d.facts)
            eps.update(zip(map(_ID, d.episodes), d.episodes, strict=True))
            people.update(zip(map(_ID, d.people), d.people, strict=True))
        for r in roots:
            roles[r] = "root"
        roles[owner_id] = "owner"
        people.pop(owner_id, None)
        items = sorted(blocked.values(), key=_blocked_order)
        ordered = sorted(eps.values(), key=_WHEN)
        work = sum(1 for b in items if b.entity.type is _WORK_ITEM)
        out.append(
            Draft(
                pattern_key=f"owner:{owner_id}",
                kind=OWNER_BOTTLENECK,
                cluster_id=min(d.cluster_id for d in owned),
                roots=sorted((entities[r] for r in roots if r in entities), key=_name_key),
                root_owners=[entities[owner_id]],
                blocked=items,
                people=sorted(people.values(), key=_name_key),
                shared=[],
                entity_roles=roles,
                fact_roles=fact_roles,
                episodes=ordered,
                entities={i: entities[i] for i in roles if i in entities},
                facts=used,
                rank=work + len(people),
                start_at=ordered[0].occurred_at,
                latest_evidence_at=ordered[-1].occurred_at,
            )
        )
    return out


def _reporters_at_least(episodes: Iterable[Episode], n: int) -> bool:
    """At least ``n`` distinct reporters (an episode with no author counts as its own
    reporter), stopping as soon as it is known: clusters can hold a thousand updates."""
    seen: set[str] = set()
    for e in episodes:
        seen.add(e.author if e.author else f"#{e.id}")
        if len(seen) >= n:
            return True
    return False


def _is_pattern(draft: Draft) -> bool:
    """Worth an observation: one root blocking two or more things, or a chain that
    several people's updates put together. A lone "X is blocked on Y", reported by one
    person (however often), is a fact, not a pattern."""
    return len(draft.blocked) >= 2 or _reporters_at_least(draft.episodes, 2)


def _may_be_pattern(
    nodes: dict[int, int],
    waits: list[Fact],
    owns: list[Fact],
    entities: Mapping[int, Entity],
    episodes: Mapping[int, Episode],
) -> bool:
    """``_is_pattern`` of the draft ``_dependency_draft`` would build from these, without
    building it: two blocked items, or two reporters among the episodes of its waits
    inside the cone and of its ownership facts."""
    # two nodes, one of them at depth 0 (the root), hold one blocked item at most
    if len(nodes) > 2 or 0 not in nodes.values():
        blocked = 0
        for node, depth in nodes.items():
            if depth >= 1 and node in entities:
                blocked += 1
                if blocked >= 2:
                    return True
    stated = {f.episode_id for f in waits if f.target_id in nodes and nodes[f.source_id] >= 1}
    stated.update(f.episode_id for f in owns)
    return _reporters_at_least((episodes[i] for i in stated), 2)


def _dependency_draft(
    cluster: int,
    root_id: int,
    nodes: dict[int, int],
    waits: list[Fact],
    owns: list[Fact],
    entities: Mapping[int, Entity],
    episodes: Mapping[int, Episode],
) -> Draft:
    """``waits``: blocked_by facts whose source is in the cone; ``owns``: owns facts whose
    target is in the cone."""
    edge_facts = [f for f in waits if f.target_id in nodes and nodes[f.source_id] >= 1]
    owner_facts = owns
    owners_of: dict[int, set[int]] = defaultdict(set)
    for f in owner_facts:
        owners_of[f.target_id].add(f.source_id)

    waits_on: dict[int, set[int]] = defaultdict(set)
    facts_of: dict[int, list[int]] = defaultdict(list)
    for f in edge_facts:
        # "via" is what the node waits on one step closer to the root.
        if nodes[f.target_id] == nodes[f.source_id] - 1:
            waits_on[f.source_id].add(f.target_id)
        facts_of[f.source_id].append(f.id)

    def ents(ids: set[int] | None) -> list[Entity]:
        if not ids:
            return []
        if len(ids) == 1:  # most items wait on one thing and have one owner, or none
            return [entities[i] for i in ids if i in entities]
        return sorted((entities[i] for i in ids if i in entities), key=_name_key)

    # One pass per cone node (a draft is built for every root of a graph, and for every
    # root of an owner an incremental pass does not redo): lookups that find nothing
    # build nothing, and the sort keys are computed in one call each.
    get_via, get_owners, get_facts = waits_on.get, owners_of.get, facts_of.get
    blocked = [
        Blocked(
            entities[node],
            depth,
            ents(get_via(node)),
            ents(get_owners(node)),
            sorted(get_facts(node, ())),
        )
        for node, depth in nodes.items()
        if depth >= 1 and node in entities
    ]
    blocked.sort(key=_blocked_order)
    root = entities[root_id]
    root_owners = ents(get_owners(root_id))

    roles: dict[int, str] = {root_id: "root"}
    for o in root_owners:
        roles[o.id] = "owner"
    people: dict[int, Entity] = {}
    work_items = 0  # one Blocked per cone node: each work item is counted once
    for b in blocked:
        role = "direct" if b.depth == 1 else "downstream"
        e = b.entity
        roles.setdefault(e.id, role)
        if e.type is _WORK_ITEM:
            work_items += 1
        else:
            people[e.id] = e
        for o in b.owners:
            roles.setdefault(o.id, role)
            people[o.id] = o
    fact_roles = {f.id: "dependency" for f in edge_facts}
    fact_roles.update({f.id: "ownership" for f in owner_facts})
    episode_ids = {f.episode_id for f in edge_facts} | {f.episode_id for f in owner_facts}
    eps = sorted(map(episodes.__getitem__, episode_ids), key=_WHEN)
    used = {f.id: f for f in edge_facts + owner_facts}
    return Draft(
        pattern_key=f"root:{root_id}",
        kind=DEPENDENCY,
        cluster_id=cluster,
        roots=[root],
        root_owners=root_owners,
        blocked=blocked,
        people=sorted(people.values(), key=_name_key),
        shared=[],
        entity_roles=roles,
        fact_roles=fact_roles,
        episodes=eps,
        entities={i: entities[i] for i in roles if i in entities},
        facts=used,
        rank=work_items + len(people),
        start_at=eps[0].occurred_at,
        latest_evidence_at=eps[-1].occurred_at,
    )


def _context_draft(
    cluster: int,
    cluster_facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
) -> Draft | None:
    """Episodes that restate the same facts, with no dependency between them."""
    # Most clusters are one person's updates, or restate nothing: their reporters, and
    # how many episodes state each fact (counted in C), settle those before anything is
    # built per fact.
    told = set(map(_EPISODE, cluster_facts))
    if len(told) < 2:
        return None
    authors = set(map(_AUTHOR, map(episodes.__getitem__, told)))
    if None in authors or "" in authors:  # each such update is its own reporter
        if not _reporters_at_least((episodes[i] for i in told), 2):
            return None
    elif len(authors) < 2:
        return None
    stated = Counter(map(_WHAT, set(map(_WHO_WHAT, cluster_facts))))
    if not any(n >= 2 for n in stated.values()):
        return None
    stated_by: dict[tuple[int, str, int], set[int]] = defaultdict(set)
    first: dict[tuple[int, str, int], list[Fact]] = defaultdict(list)
    for f in cluster_facts:
        key = (f.source_id, f.relation, f.target_id)  # a StrEnum: the value without .value
        stated_by[key].add(f.episode_id)
        first[key].append(f)
    shared_keys = sorted(
        (k for k, eps in stated_by.items() if len(eps) >= 2),
        key=lambda k: (-len(stated_by[k]), k),
    )
    if not shared_keys:
        return None
    used = [f for k in shared_keys for f in first[k]]
    episode_ids = {f.episode_id for f in used}
    if len(episode_ids) < 2 or not _reporters_at_least((episodes[i] for i in episode_ids), 2):
        return None  # one person restating their own facts is not a shared context
    roles: dict[int, str] = {}
    for f in used:
        roles.setdefault(f.source_id, "member")
        roles.setdefault(f.target_id, "member")
    eps = sorted((episodes[i] for i in episode_ids), key=lambda e: (e.occurred_at, e.id))
    topic = Counter()  # type: Counter[int]
    for k in shared_keys:
        topic[k[2]] += len(stated_by[k])
    top = max(topic.items(), key=lambda kv: (kv[1], -kv[0]))[0]
    return Draft(
        pattern_key=f"context:{cluster}",
        kind=SHARED_CONTEXT,
        cluster_id=cluster,
        roots=[entities[top]],
        root_owners=[],
        blocked=[],
        people=[],
        shared=[(first[k][0], len(stated_by[k])) for k in shared_keys],
        entity_roles=roles,
        fact_roles={f.id: "shared" for f in used},
        episodes=eps,
        entities={i: entities[i] for i in roles if i in entities},
        facts={f.id: f for f in used},
        rank=0,
        start_at=eps[0].occurred_at,
        latest_evidence_at=eps[-1].occurred_at,
    )


def as_dict(draft: Draft) -> dict[str, Any]:
    """The structural analysis as plain data (for LLM writers and --explain)."""
    return {
        "kind": draft.kind,
        "roots": [e.name for e in draft.roots],
        "root_owners": [e.name for e in draft.root_owners],
        "direct": [
            {"item": b.entity.name, "owners": [o.name for o in b.owners], "facts": b.fact_ids}
            for b in draft.direct
        ],
        "downstream": [
            {
                "item": b.entity.name,
                "via": [v.name for v in b.via],
                "owners": [o.name for o in b.owners],
                "facts": b.fact_ids,
            }
            for b in draft.downstream
        ],
        "people_blocked": [p.name for p in draft.people],
    }


# --- one analysis run: plain data in (from the store), plain data out (to the store) ---


@dataclass(frozen=True, slots=True)
class ActiveObservation:
    """An active observation as the lifecycle sees it, with its evidence."""

    id: int
    pattern_key: str
    kind: str
    fingerprint: str
    # (item type, item id, role): its episodes, root entities and the facts that have
    # ended (what the lifecycle and retire reasons read; ``Store.load_analysis`` leaves
    # the rest out; a fact that has not ended is skipped by ``retire_reason`` anyway)
    evidence: tuple[tuple[str, int, str], ...]

    @property
    def episode_ids(self) -> frozenset[int]:
        return frozenset(i for t, i, _ in self.evidence if t == "episode")


@dataclass(frozen=True, slots=True)
class Completion:
    """The latest ``completed`` fact of a work item."""

    entity_id: int
    episode_id: int
    valid_at: str


@dataclass(frozen=True, slots=True)
class EndedFact:
    id: int
    invalid_at: str
    invalidated_by: int | None
    retracted_from: int | None = None  # its episode, when a person retracted that episode
    retract_reason: str | None = None


@dataclass(slots=True)
class AnalysisInput:
    """Everything one analysis pass reads, loaded by ``Store.load_analysis``.

    ``scope`` is the episodes an incremental pass redoes (None: the whole graph); every
    other field is already restricted to it.
    """

    graph: str
    scope: frozenset[int] | None
    nodes: list[int]  # every episode in scope
    incidences: list[tuple[int, int]]  # (episode, signature), valid facts only, no repeats
    times: dict[int, float] | None  # episode -> epoch seconds (for the linking window)
    facts: list[Fact]  # currently valid facts of the scope
    entities: dict[int, Entity]  # ends of those facts
    episodes: dict[int, Episode]  # episodes of those facts
    active: list[ActiveObservation]  # active observations with evidence in the scope
    root_since: dict[int, str]  # entity -> latest end of a wait it had (candidate roots)
    completions: dict[int, Completion]  # root entity of an active observation -> latest
    ended_facts: dict[int, EndedFact]  # evidence facts of active observations now ended
    names: dict[int, str]  # entity -> name, for the roots of active observations
    sources: dict[int, str]  # episode -> source, for completions and ending episodes
    present: str = ""  # the newest world time of the whole graph (staleness is against it)
    # root of an active observation -> name of the entity it is now merged into
    merged_into: dict[int, str] = field(default_factory=dict)
    # the blocker signatures among the incidences' (every other one is literal)
    blockers: set[int] = field(default_factory=set)
    # an incremental pass's owner bottlenecks (see ``build_drafts``): the owners it may
    # redo (None: every owner), their stored roots outside the scope, and the ends and
    # episodes of those roots' facts
    owners: frozenset[int] | None = None
    outside_roots: list[OutsideRoot] = field(default_factory=list)
    outside_entities: dict[int, Entity] = field(default_factory=dict)
    outside_episodes: dict[int, Episode] = field(default_factory=dict)
    # stored roots outside the scope whose staleness the move of the present may flip
    recheck_roots: list[OutsideRoot] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Retirement:
    observation_id: int
    reason: str
    end_at: str
    episode_id: int | None


@dataclass(slots=True)
class AnalysisResult:
    """What ``run`` decided; ``Store.apply`` writes it, after a writer adds prose."""

    graph: str
    scope: frozenset[int] | None
    clustering: cluster.Clustering
    drafts: list[Draft]
    plan: Plan
    retire: list[Retirement]
    explain: list[str]
    episodes: int
    clusters: int
    multi_episode_clusters: int

    @property
    def to_write(self) -> list[Draft]:
        """Drafts that need prose: the updated and the new ones."""
        return [d for _, d in self.plan.update] + [d for d, _ in self.plan.create]


def cluster_input(inp: AnalysisInput, controls: cluster.Controls) -> cluster.Clustering:
    """The clustering of an analysis input under the giant-component controls."""
    return cluster.cluster_episodes(
        inp.incidences,
        nodes=inp.nodes,
        blockers=inp.blockers,
        times=inp.times if controls.window_seconds is not None else None,
        controls=controls,
    )


def cut_signatures(clustering: cluster.Clustering) -> list[int]:
    """Signatures the controls cut (hubs, size-cap removals): ``run`` names them."""
    return [s for s, _ in clustering.hubs] + [
        s for _, _, removed in clustering.splits for s in removed
    ]


def run(
    inp: AnalysisInput,
    clustering: cluster.Clustering,
    cones: list[tuple[int, int, int, int]],
    *,
    controls: cluster.Controls,
    writer: str,
    now: str,
    signature_keys: Mapping[int, tuple[str, str]] | None = None,
) -> AnalysisResult:
    """Drafts, the lifecycle plan and retire reasons for one pass. Pure.

    ``clustering`` is ``cluster_input(inp, controls)``; ``cones`` are the store's
    recursive walk of blocked_by chains inside its components (``clustering.component``); ``signature_keys`` name
    the signatures the controls cut (for the explanation).
    """
    from memcli import lifecycle  # lifecycle imports this module

    membership = clustering.membership
    sizes = Counter(membership.values())
    drafts = build_drafts(
        membership=membership,
        cones=cones,
        facts=inp.facts,
        entities=inp.entities,
        episodes=inp.episodes,
        writer=writer,
        components=clustering.component,
        present=inp.present or None,
        stale_after=controls.stale_after_seconds,
        owners=inp.owners,
        outside_roots=inp.outside_roots,
        outside_entities=inp.outside_entities,
        outside_episodes=inp.outside_episodes,
        recheck_roots=inp.recheck_roots,
    )
    for d in drafts:
        d.valid_from = valid_from(d, inp.root_since)
    existing = [
        lifecycle.Existing(
            id=o.id,
            pattern_key=o.pattern_key,
            kind=o.kind,
            fingerprint=o.fingerprint,
            episode_ids=o.episode_ids,
        )
        for o in inp.active
    ]
    p = lifecycle.plan(drafts, existing)
    by_id = {o.id: o for o in inp.active}
    return AnalysisResult(
        graph=inp.graph,
        scope=inp.scope,
        clustering=clustering,
        drafts=drafts,
        plan=p,
        retire=[retire_reason(by_id[i], inp, now) for i in p.retire],
        explain=explain_controls(clustering, controls, signature_keys or {}),
        episodes=len(inp.nodes),
        clusters=len(sizes),
        multi_episode_clusters=sum(1 for n in sizes.values() if n > 1),
    )


def valid_from(draft: Draft, root_since: Mapping[int, str]) -> str:
    """When the pattern began to hold: its earliest evidence, or, for a dependency, later
    if its root only became a root when what it waited on ended; for a shared context,
    when a second update joined the first."""
    start = draft.start_at
    if draft.kind in ROOT_KINDS:
        since = root_since.get(draft.roots[0].id)
        return max(start, since) if since else start
    if len(draft.episodes) > 1:
        return draft.episodes[1].occurred_at
    return start


def retire_reason(obs: ActiveObservation, inp: AnalysisInput, now: str) -> Retirement:
    """Why an observation no longer holds: its root completed, its evidence ended, or it
    split or merged into other patterns."""
    roots = [i for t, i, r in obs.evidence if t == "entity" and r == "root"]
    done = [inp.completions[r] for r in roots if r in inp.completions]
    if done:
        hit = max(done, key=lambda c: (c.valid_at, c.episode_id))
        return Retirement(
            obs.id,
            f"root resolved: {inp.names[hit.entity_id]} was completed in episode "
            f"#{hit.episode_id} ({inp.sources[hit.episode_id]})",
            hit.valid_at,
            hit.episode_id,
        )
    ended = [inp.ended_facts[i] for t, i, _ in obs.evidence if t == "fact" and i in inp.ended_facts]
    withdrawn = [f for f in ended if f.retracted_from is not None]
    if withdrawn:
        last = max(withdrawn, key=lambda f: (f.invalid_at, f.retracted_from or 0))
        ep = last.retracted_from
        source = f" ({inp.sources[ep]})" if ep is not None and ep in inp.sources else ""
        why = f": {last.retract_reason}" if last.retract_reason else ""
        return Retirement(
            obs.id,
            f"evidence retracted: episode #{ep}{source} was retracted{why}",
            last.invalid_at,
            None,
        )
    if ended:
        last = max(ended, key=lambda f: (f.invalid_at, f.invalidated_by or 0))
        by = last.invalidated_by
        source = f" ({inp.sources[by]})" if by is not None and by in inp.sources else ""
        return Retirement(
            obs.id,
            f"evidence ended: {len(ended)} supporting fact(s) no longer hold, "
            f"contradicted by episode #{by}{source}",
            last.invalid_at,
            by,
        )
    into = [(inp.names.get(r, str(r)), inp.merged_into[r]) for r in roots if r in inp.merged_into]
    if into:
        return Retirement(
            obs.id,
            f"merged: {into[0][0]} is now another name for {into[0][1]} (memcli entity merges)",
            now,
            None,
        )
    return Retirement(
        obs.id,
        "pattern changed: its evidence now forms other observations",
        inp.present or now,
        None,
    )


def explain_controls(
    clustering: cluster.Clustering,
    controls: cluster.Controls,
    keys: Mapping[int, tuple[str, str]],
) -> list[str]:
    """Say what the giant-component controls cut, and why."""
    out: list[str] = []
    for sig, count in clustering.hubs:
        out.append(
            f"hub cut: {describe(keys[sig][1])} is stated in {count} episodes "
            f"(more than --max-signature-episodes {controls.max_signature_episodes}); "
            "it links nothing"
        )
    if clustering.window_breaks:
        days = (controls.window_seconds or 0) / 86400
        out.append(
            f"time window: {clustering.window_breaks} link(s) between consecutive episodes "
            f"sharing a signature were not made, being more than {days:g} days apart (--window)"
        )
    for comp, size, removed in clustering.splits:
        names = ", ".join(describe(keys[s][1]) for s in removed[:10])
        if len(removed) > 10:
            names += f" and {len(removed) - 10} more"
        out.append(
            f"size cap: cluster {comp} had {size} episodes (over --max-cluster "
            f"{controls.max_cluster}); split by removing {len(removed)} signature(s): {names}"
        )
    if not out:
        out.append("nothing was cut: no hub signatures, window breaks or oversized clusters")
    return out
