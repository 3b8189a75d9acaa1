"""Connected components of the episode graph. Pure.

Episodes are nodes; two episodes are linked when they carry the same signature. Rather
than materialise the O(k^2) episode-episode edges of a signature carried by k episodes,
each signature unions its episodes in a chain, which gives the same components.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable


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
