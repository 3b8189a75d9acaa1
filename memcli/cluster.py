"""Connected components of the episode graph. Pure.

Episodes are nodes; two episodes are linked when they carry the same signature. Rather
than materialise the O(k^2) episode-episode edges of a signature carried by k episodes,
each signature unions its episodes in a chain, which gives the same components.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from itertools import compress
from operator import itemgetter


class UnionFind:
    """Union-find over integers with path halving; the smaller id always wins a union.

    Making the winner the smaller id (rather than the larger tree, as networkx does with
    ties broken by set order) means the root of every component is its minimum member,
    whatever order the unions came in: the same input always gives the same cluster ids.
    """

    __slots__ = ("parent",)

    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def add(self, x: int) -> None:
        self.parent.setdefault(x, x)

    def find(self, x: int) -> int:
        parent = self.parent
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, a: int, b: int) -> int:
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return ra
        if rb < ra:
            ra, rb = rb, ra
        self.parent[rb] = ra
        return ra


def components(incidences: Iterable[tuple[int, int]], nodes: Iterable[int] = ()) -> dict[int, int]:
    """Map every episode to its cluster id, the smallest episode id in its component.

    ``incidences`` are (episode id, signature id) pairs; ``nodes`` adds episodes that carry
    no signature (they form clusters of one).

    >>> components([(3, 10), (5, 10), (5, 11), (9, 11), (4, 12)])
    {3: 3, 4: 4, 5: 3, 9: 3}
    """
    uf = UnionFind()
    first_carrier: dict[int, int] = {}
    for episode, signature in incidences:
        uf.add(episode)
        seen = first_carrier.get(signature)
        if seen is None:
            first_carrier[signature] = episode
        else:
            uf.union(seen, episode)
    for node in nodes:
        uf.add(node)
    # Smallest-id-wins makes every root its component's minimum member.
    return {node: uf.find(node) for node in sorted(uf.parent)}


def group(membership: dict[int, int]) -> dict[int, list[int]]:
    """Cluster id -> sorted member episode ids."""
    out: dict[int, list[int]] = defaultdict(list)
    for node, root in sorted(membership.items()):
        out[root].append(node)
    return dict(out)


# --- giant-component control ---------------------------------------------------------
#
# On real volumes a few signatures are carried by nearly every episode (a team that owns
# everything, a person who restates the same fact daily) and connected components
# collapse into one useless cluster. Three deterministic, explainable controls:
#
# 1. hub cut: a *literal* signature carried by more than ``max_signature_episodes``
#    episodes links nothing. Blocker signatures are exempt: many updates waiting on one
#    piece of work is the pattern itself, not noise.
# 2. time window (opt-in, off by default): a signature links two of its carriers only
#    when they are at most ``window_seconds`` apart (single linkage along the time line).
#    Without it a link holds while its facts are valid; old roots are marked stale by
#    analysis instead of being cut apart.
# 3. size cap: a cluster larger than ``max_cluster`` is split by removing its most
#    common signatures first (literal before blocker) until every part fits.
#
# The thresholds are absolute counts, not shares of the graph, so a signature's effect
# changes only when its own carriers change; incremental analysis relies on that.


@dataclass(frozen=True, slots=True)
class Controls:
    # No episode-gap window by default: a link through a blocker holds while its fact is
    # valid, however far apart the updates are (``--window`` opts in to the cut).
    window_seconds: float | None = None
    max_signature_episodes: int | None = 50
    max_cluster: int | None = 1000
    # A root blocker nobody has confirmed for this long is shown as stale (not cut).
    stale_after_seconds: float | None = 21 * 86400.0


@dataclass(slots=True)
class Clustering:
    membership: dict[int, int]  # episode -> cluster id (smallest member), after splits
    component: dict[int, int]  # episode -> component id, before size-cap splits
    hubs: list[tuple[int, int]] = field(default_factory=list)  # (signature, carriers)
    window_breaks: int = 0  # carrier pairs a signature did not link for the window
    splits: list[tuple[int, int, list[int]]] = field(default_factory=list)
    # (component id, size, signatures removed to split it)


def cluster_episodes(
    incidences: Iterable[tuple[int, int]],
    *,
    nodes: Iterable[int] = (),
    kinds: Mapping[int, str] | None = None,
    blockers: Collection[int] = (),
    times: dict[int, float] | None = None,
    controls: Controls = Controls(),  # noqa: B008 (frozen, never mutated)
) -> Clustering:
    """Components of the episode graph under the giant-component controls.

    ``kinds`` maps signature id -> 'literal' or 'blocker' (unknown: literal), or
    ``blockers`` lists the blocker signatures (every other one is literal); ``times``
    maps episode id -> epoch seconds (needed for the window).
    """
    pairs = incidences if isinstance(incidences, list) else list(incidences)
    blocker = set(blockers)
    if kinds:
        blocker.update(s for s, k in kinds.items() if k != "literal")
    all_nodes = set(nodes)
    all_nodes.update(map(itemgetter(0), pairs))
    order = sorted(all_nodes)
    # How many incidences each signature has: a hub is counted before anything is linked.
    counts = Counter(map(itemgetter(1), pairs))
    result = Clustering(membership={}, component={})
    limit = controls.max_signature_episodes
    hubs: set[int] = set()
    if limit is not None:
        result.hubs = sorted((s, n) for s, n in counts.items() if n > limit and s not in blocker)
        hubs = {s for s, _ in result.hubs}

    # The union-find inlined over a plain dict (the same smallest-id-wins rule as
    # ``UnionFind``): a graph of 100k updates makes hundreds of thousands of unions, and
    # method calls were most of their cost. A parent is always smaller than its child.
    # Episode ids are dense: a list indexed by id when they are (C indexing, no hash),
    # a dict otherwise (ids spread over other graphs' updates would make a list of
    # mostly unused ints: at twice the graph's size it weighs what the dict does).
    parent: dict[int, int] | list[int]
    if order and order[0] >= 0 and order[-1] < 2 * len(order) + 1024:
        parent = list(range(order[-1] + 1))
    else:
        parent = dict(zip(order, order, strict=True))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = x = parent[parent[x]]  # path halving
        return x

    def union(a: int, b: int) -> None:
        ra, rb = find(a), find(b)
        if ra != rb:
            if rb < ra:
                ra, rb = rb, ra
            parent[rb] = ra

    # Only signatures with two or more incidences that are not hubs can link anything:
    # the rest (most of them) are dropped in C, without a Python step per incidence.
    linking = dict.fromkeys(s for s, n in counts.items() if n > 1 and s not in hubs)
    linking_pairs = list(compress(pairs, map(linking.__contains__, map(itemgetter(1), pairs))))
    window = controls.window_seconds
    if window is None or times is None:
        # Each signature links its carriers to its first one (``union`` inlined: this
        # loop runs once per incidence).
        first: dict[int, int] = {}
        setdefault = first.setdefault
        for episode, signature in linking_pairs:
            ra = setdefault(signature, episode)
            if ra == episode:
                continue
            rb = episode
            while parent[ra] != ra:  # ``find`` inlined: two per incidence
                parent[ra] = ra = parent[parent[ra]]
            while parent[rb] != rb:
                parent[rb] = rb = parent[parent[rb]]
            if ra != rb:
                if rb < ra:
                    ra, rb = rb, ra
                parent[rb] = ra
    else:
        carriers: dict[int, list[int]] = defaultdict(list)
        for episode, signature in linking_pairs:
            carriers[signature].append(episode)
        # Every episode's place in (time, id) order, once: sorting each signature's
        # carriers by it is a C-level key lookup, not a tuple built per comparison key.
        by_time = sorted(order, key=lambda e: (times.get(e, 0.0), e))
        position = {e: i for i, e in enumerate(by_time)}
        for signature in sorted(carriers):
            ordered = sorted(carriers[signature], key=position.__getitem__)
            time_of = [times.get(e, 0.0) for e in ordered]
            for i in range(len(ordered) - 1):
                if time_of[i + 1] - time_of[i] <= window:
                    union(ordered[i], ordered[i + 1])
                else:
                    result.window_breaks += 1
    # Parents are smaller than their children, so in id order a parent's root is known
    # before its children are reached: one pass, no walks.
    component: dict[int, int] = {}
    for node in order:
        p = parent[node]
        component[node] = node if p == node else component[p]
    result.component = component
    result.membership = dict(component)

    cap = controls.max_cluster
    if cap is not None:
        sizes = Counter(component.values())
        big = {c for c, n in sizes.items() if n > cap}
        if big:
            # Each oversized component's carriers of each signature, in one pass over
            # the incidences (with the window, one signature's carriers can sit in
            # several components).
            inside: dict[int, defaultdict[int, list[int]]] = {c: defaultdict(list) for c in big}
            for episode, signature in linking_pairs:
                local = inside.get(component[episode])
                if local is not None:
                    local[signature].append(episode)
            members_of: dict[int, list[int]] = {c: [] for c in big}
            for node in order:
                c = component[node]
                if c in big:
                    members_of[c].append(node)
            for comp in sorted(big):
                members = members_of[comp]
                linked = {s: eps for s, eps in inside[comp].items() if len(eps) > 1}
                removed = _split(members, linked, blocker, times, window, cap, result.membership)
                result.splits.append((comp, len(members), removed))
    return result


def _split(
    members: list[int],
    active: dict[int, list[int]],  # signature -> its carriers inside this component
    blockers: Collection[int],
    times: dict[int, float] | None,
    window: float | None,
    cap: int,
    membership: dict[int, int],
) -> list[int]:
    """Split one oversized component in place: remove its k most common signatures
    (literal before blocker, then by carriers inside the component, then id) for the
    smallest k that leaves every part within the cap.

    Removing signatures never joins parts, so the largest part shrinks as k grows and k
    is found in one pass that adds signatures back, least common first, until a part
    would exceed the cap: O(incidences), not one union-find per candidate k.
    """
    local = active  # this component's carriers of each of its signatures (2 or more)
    if window is not None and times is not None:
        # sorted once by time, not once per binary-search step
        for eps in local.values():
            eps.sort(key=lambda e: (times.get(e, 0.0), e))
    order = sorted(local, key=lambda s: (s in blockers, -len(local[s]), s))

    def parts(k: int) -> dict[int, int]:
        # smallest id wins, so a parent is smaller than its child (``cluster_episodes``)
        up = {e: e for e in members}

        def root(x: int) -> int:
            while up[x] != x:
                up[x] = x = up[up[x]]
            return x

        def link(a: int, b: int) -> None:
            ra, rb = root(a), root(b)
            if ra != rb:
                if rb < ra:
                    ra, rb = rb, ra
                up[rb] = ra

        for sig in order[k:]:
            eps = local[sig]
            if window is not None and times is not None:
                for a, b in zip(eps, eps[1:], strict=False):
                    if times.get(b, 0.0) - times.get(a, 0.0) <= window:
                        link(a, b)
            else:
                first = eps[0]
                for other in eps[1:]:  # ``link`` inlined: once per carrier
                    ra, rb = first, other
                    while up[ra] != ra:
                        up[ra] = ra = up[up[ra]]
                    while up[rb] != rb:
                        up[rb] = rb = up[up[rb]]
                    if ra != rb:
                        if rb < ra:
                            ra, rb = rb, ra
                        up[rb] = ra
        out: dict[int, int] = {}
        for e in sorted(members):
            p = up[e]
            out[e] = e if p == e else out[p]
        return out

    # Add signatures back from the least common (k = len(order)) towards the most common
    # (k = 0), tracking the largest part with union by size: the first k whose
    # signature would make a part too large is the answer. One pass, not a union-find
    # per binary-search step; the same k as the search over "fits" would find.
    index = {e: n for n, e in enumerate(members)}
    parent = list(range(len(members)))
    size = [1] * len(members)

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(a: int, b: int) -> int:
        ra, rb = find(index[a]), find(index[b])
        if ra == rb:
            return size[ra]
        if size[ra] < size[rb]:
            ra, rb = rb, ra
        parent[rb] = ra
        size[ra] += size[rb]
        return size[ra]

    lo = len(order)
    if cap >= 1:
        while lo > 0:
            eps = local[order[lo - 1]]
            if window is not None and times is not None:
                pairs = [
                    (a, b)
                    for a, b in zip(eps, eps[1:], strict=False)
                    if times.get(b, 0.0) - times.get(a, 0.0) <= window
                ]
            else:
                pairs = [(eps[0], other) for other in eps[1:]]
            if any(join(a, b) > cap for a, b in pairs):
                break
            lo -= 1
    membership.update(parts(lo))
    return order[:lo]
