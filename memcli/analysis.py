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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from memcli import cluster
from memcli.models import EntityType, ObservationKind, Relation
from memcli.signatures import describe

if TYPE_CHECKING:
    from memcli.lifecycle import Plan

DEPENDENCY = ObservationKind.DEPENDENCY_CHAIN
SHARED_CONTEXT = ObservationKind.SHARED_CONTEXT


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
    evidence: tuple[tuple[str, int, str], ...]  # (item type, item id, role)

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
    incidences: list[tuple[int, int, str]]  # (episode, signature, kind), valid facts only
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
    # root of an active observation -> name of the entity it is now merged into
    merged_into: dict[int, str] = field(default_factory=dict)


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
        ((e, s) for e, s, _ in inp.incidences),
        nodes=inp.nodes,
        kinds={s: k for _, s, k in inp.incidences},
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
    recursive walk of blocked_by chains inside those clusters; ``signature_keys`` name
    the signatures the controls cut (for the explanation).
    """
    from memcli import lifecycle  # lifecycle imports this module

    membership = clustering.membership
    groups = cluster.group(membership)
    drafts = build_drafts(
        membership=membership,
        cones=cones,
        facts=inp.facts,
        entities=inp.entities,
        episodes=inp.episodes,
        writer=writer,
        components={membership[e]: c for e, c in clustering.component.items()},
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
        clusters=len(groups),
        multi_episode_clusters=sum(1 for m in groups.values() if len(m) > 1),
    )


def valid_from(draft: Draft, root_since: Mapping[int, str]) -> str:
    """When the pattern began to hold: its earliest evidence, or, for a dependency, later
    if its root only became a root when what it waited on ended; for a shared context,
    when a second update joined the first."""
    start = draft.start_at
    if draft.kind == DEPENDENCY:
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
        obs.id, "pattern changed: its evidence now forms other observations", now, None
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
