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

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from memcli.models import EntityType, ObservationKind, Relation

DEPENDENCY = ObservationKind.DEPENDENCY_CHAIN
SHARED_CONTEXT = ObservationKind.SHARED_CONTEXT


@dataclass(frozen=True, slots=True)
class Entity:
    id: int
    name: str
    type: EntityType


@dataclass(frozen=True, slots=True)
class Episode:
    id: int
    author: str | None
    occurred_at: str
    source: str


@dataclass(frozen=True, slots=True)
class Fact:
    id: int
    episode_id: int
    source_id: int
    relation: Relation
    target_id: int


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

    def evidence(self) -> list[tuple[str, int, str]]:
        rows = [("episode", e.id, "support") for e in self.episodes]
        rows += [("fact", fid, role) for fid, role in self.fact_roles.items()]
        rows += [("entity", eid, role) for eid, role in self.entity_roles.items()]
        return sorted(rows)

    @property
    def direct(self) -> list[Blocked]:
        return [b for b in self.blocked if b.depth == 1]

    @property
    def downstream(self) -> list[Blocked]:
        return [b for b in self.blocked if b.depth > 1]


def fingerprint(draft: Draft, writer: str) -> str:
    """What must change for an observation to get a new version."""
    payload = [draft.kind, draft.pattern_key, draft.evidence(), writer]
    return hashlib.blake2b(json.dumps(payload).encode(), digest_size=12).hexdigest()


def _name_key(entity: Entity) -> tuple[str, int]:
    return (entity.name.lower(), entity.id)


def build_drafts(
    *,
    membership: dict[int, int],
    cones: list[tuple[int, int, int, int]],
    facts: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
    writer: str = "template",
    components: dict[int, int] | None = None,
) -> list[Draft]:
    """Every observation the current evidence supports, ranked by leverage.

    ``membership`` maps episode -> cluster; ``cones`` are (cluster, root, node, depth) rows
    from the store's recursive walk; ``facts`` are the currently valid facts;
    ``components`` maps cluster id -> component id where size-cap splits happened.
    """
    by_cluster_facts: dict[int, list[Fact]] = defaultdict(list)
    for f in facts:
        cluster = membership.get(f.episode_id)
        if cluster is not None:
            by_cluster_facts[cluster].append(f)
    cluster_sizes = Counter(membership.values())

    # One observation per root and component. A root normally sits in one cluster; when
    # the size cap split a component's dependents over several clusters, the root's cone
    # is the union across them. (With literal signatures a root can also appear in two
    # unrelated components: those stay two observations.)
    component_of = components or {}
    cone_nodes: dict[tuple[int, int], dict[int, int]] = defaultdict(dict)
    root_clusters: dict[tuple[int, int], set[int]] = defaultdict(set)
    for cluster, root, node, depth in cones:
        key = (component_of.get(cluster, cluster), root)
        nodes_of_root = cone_nodes[key]
        nodes_of_root[node] = min(depth, nodes_of_root.get(node, depth))
        root_clusters[key].add(cluster)

    # Each cluster's facts indexed once (waits by who waits, ownership by what is owned),
    # so a root's draft costs the size of its cone, not of its cluster.
    waits_by_source: dict[int, dict[int, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    owns_by_target: dict[int, dict[int, list[Fact]]] = defaultdict(lambda: defaultdict(list))
    for cluster, cluster_facts in by_cluster_facts.items():
        for f in cluster_facts:
            if f.relation is Relation.BLOCKED_BY:
                waits_by_source[cluster][f.source_id].append(f)
            elif f.relation is Relation.OWNS:
                owns_by_target[cluster][f.target_id].append(f)

    drafts: list[Draft] = []
    clusters_with_roots: set[int] = set()
    roots_seen = Counter(root for _, root in cone_nodes)
    for (component, root), nodes in sorted(cone_nodes.items()):
        clusters = sorted(root_clusters[(component, root)])
        if sum(cluster_sizes[c] for c in clusters) < 2 or len(nodes) < 2:
            continue
        waits = [f for c in clusters for n in nodes for f in waits_by_source[c].get(n, ())]
        owns = [f for c in clusters for n in nodes for f in owns_by_target[c].get(n, ())]
        draft = _dependency_draft(clusters[0], root, nodes, waits, owns, entities, episodes)
        if not _is_pattern(draft):
            continue
        clusters_with_roots.update(clusters)
        if roots_seen[root] > 1:
            draft.pattern_key = f"root:{root}:c{component}"
        drafts.append(draft)

    for cluster, size in sorted(cluster_sizes.items()):
        if size < 2 or cluster in clusters_with_roots:
            continue
        context = _context_draft(cluster, by_cluster_facts[cluster], entities, episodes)
        if context is not None:
            drafts.append(context)

    for d in drafts:
        d.fingerprint = fingerprint(d, writer)
    drafts.sort(key=lambda d: (-d.rank, d.kind, d.pattern_key))
    return drafts


def _authors(episodes: list[Episode]) -> int:
    """Distinct reporters; an episode with no author counts as its own reporter."""
    return len({e.author if e.author else f"#{e.id}" for e in episodes})


def _is_pattern(draft: Draft) -> bool:
    """Worth an observation: one root blocking two or more things, or a chain that
    several people's updates put together. A lone "X is blocked on Y", reported by one
    person (however often), is a fact, not a pattern."""
    return len(draft.blocked) >= 2 or _authors(draft.episodes) >= 2


def _dependency_draft(
    cluster: int,
    root_id: int,
    nodes: dict[int, int],
    waits: list[Fact],
    owns: list[Fact],
    entities: dict[int, Entity],
    episodes: dict[int, Episode],
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

    def ents(ids: set[int] | list[int]) -> list[Entity]:
        return sorted((entities[i] for i in ids if i in entities), key=_name_key)

    blocked = [
        Blocked(
            entity=entities[node],
            depth=depth,
            via=ents(waits_on[node]),
            owners=ents(owners_of[node]),
            fact_ids=sorted(facts_of[node]),
        )
        for node, depth in nodes.items()
        if depth >= 1 and node in entities
    ]
    blocked.sort(key=lambda b: (b.depth, _name_key(b.entity)))
    root = entities[root_id]
    root_owners = ents(owners_of[root_id])

    roles: dict[int, str] = {root_id: "root"}
    for o in root_owners:
        roles[o.id] = "owner"
    for b in blocked:
        role = "direct" if b.depth == 1 else "downstream"
        roles.setdefault(b.entity.id, role)
        for o in b.owners:
            roles.setdefault(o.id, role)

    people: dict[int, Entity] = {}
    for b in blocked:
        if b.entity.type is not EntityType.WORK_ITEM:
            people[b.entity.id] = b.entity
        for o in b.owners:
            people[o.id] = o
    fact_roles = {f.id: "dependency" for f in edge_facts}
    fact_roles.update({f.id: "ownership" for f in owner_facts})
    episode_ids = {f.episode_id for f in edge_facts} | {f.episode_id for f in owner_facts}
    eps = sorted((episodes[i] for i in episode_ids), key=lambda e: (e.occurred_at, e.id))
    work_items = {b.entity.id for b in blocked if b.entity.type is EntityType.WORK_ITEM}
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
        rank=len(work_items) + len(people),
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
    stated_by: dict[tuple[int, str, int], set[int]] = defaultdict(set)
    first: dict[tuple[int, str, int], list[Fact]] = defaultdict(list)
    for f in cluster_facts:
        key = (f.source_id, f.relation.value, f.target_id)
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
    if len(episode_ids) < 2 or _authors([episodes[i] for i in episode_ids]) < 2:
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
