"""Union-find determinism, checked against networkx (a test-only oracle) and the SQL CTE."""

from __future__ import annotations

import random
import sqlite3

import networkx as nx
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.cluster import UnionFind, components, group

incidences = st.lists(
    st.tuples(st.integers(1, 40), st.integers(1000, 1015)), max_size=80, unique=True
)


def oracle(pairs: list[tuple[int, int]]) -> dict[int, int]:
    g = nx.Graph()
    for episode, signature in pairs:
        g.add_edge(("e", episode), ("s", signature))
    out = {}
    for comp in nx.connected_components(g):
        episodes = sorted(n[1] for n in comp if n[0] == "e")
        for e in episodes:
            out[e] = episodes[0]
    return out


@settings(max_examples=200, deadline=None)
@given(incidences)
def test_components_match_networkx(pairs: list[tuple[int, int]]) -> None:
    assert components(pairs) == oracle(pairs)


@settings(max_examples=100, deadline=None)
@given(incidences, st.randoms(use_true_random=False))
def test_same_input_in_any_order_gives_the_same_cluster_ids(
    pairs: list[tuple[int, int]], rnd: random.Random
) -> None:
    shuffled = list(pairs)
    rnd.shuffle(shuffled)
    assert components(shuffled) == components(pairs)


@settings(max_examples=60, deadline=None)
@given(incidences)
def test_components_match_recursive_cte(pairs: list[tuple[int, int]]) -> None:
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE inc (episode INTEGER, sig INTEGER)")
    conn.executemany("INSERT INTO inc VALUES (?, ?)", pairs)
    rows = conn.execute(
        """
        WITH RECURSIVE
          links(a, b) AS (SELECT x.episode, y.episode FROM inc x JOIN inc y ON x.sig = y.sig),
          reach(root, node) AS (
            SELECT DISTINCT episode, episode FROM inc
            UNION
            SELECT reach.root, links.b FROM reach JOIN links ON links.a = reach.node)
        SELECT node, min(root) FROM reach GROUP BY node
        """
    ).fetchall()
    assert components(pairs) == dict(rows)


def test_isolated_nodes_are_their_own_cluster() -> None:
    assert components([(5, 1), (7, 1)], nodes=[9, 5]) == {5: 5, 7: 5, 9: 9}
    assert group({5: 5, 7: 5, 9: 9}) == {5: [5, 7], 9: [9]}


def test_smaller_id_wins_every_union() -> None:
    uf = UnionFind()
    uf.union(9, 4)
    uf.union(12, 9)
    uf.union(2, 12)
    assert {uf.find(x) for x in (2, 4, 9, 12)} == {2}


# --- giant-component control ---

DAY = 86400.0


def test_hub_literal_signature_links_nothing_but_blockers_are_exempt() -> None:
    from memcli.cluster import Controls, cluster_episodes

    hub = [(e, 100) for e in range(1, 8)]  # a fact restated by 7 episodes
    blocker = [(e, 200) for e in range(10, 18)]  # 8 episodes waiting on one thing
    result = cluster_episodes(
        hub + blocker,
        kinds={100: "literal", 200: "blocker"},
        controls=Controls(window_seconds=None, max_signature_episodes=5, max_cluster=None),
    )
    assert result.hubs == [(100, 7)]
    assert len({result.membership[e] for e in range(1, 8)}) == 7
    assert {result.membership[e] for e in range(10, 18)} == {10}


def test_window_links_only_nearby_carriers() -> None:
    from memcli.cluster import Controls, cluster_episodes

    times = {1: 0.0, 2: 3 * DAY, 3: 60 * DAY, 4: 62 * DAY}
    result = cluster_episodes(
        [(1, 9), (2, 9), (3, 9), (4, 9)],
        times=times,
        controls=Controls(window_seconds=28 * DAY, max_signature_episodes=None, max_cluster=None),
    )
    assert result.membership == {1: 1, 2: 1, 3: 3, 4: 3}
    assert result.window_breaks == 1


def test_size_cap_splits_by_most_common_signature_first() -> None:
    from memcli.cluster import Controls, cluster_episodes

    # two groups of 4, each held by its own signature, bridged by a common one
    pairs = [(e, 1) for e in range(1, 5)] + [(e, 2) for e in range(5, 9)]
    pairs += [(e, 3) for e in (1, 2, 3, 5, 6, 7)]  # the most common: removed first
    result = cluster_episodes(
        pairs,
        controls=Controls(window_seconds=None, max_signature_episodes=None, max_cluster=5),
    )
    assert result.splits == [(1, 8, [3])]
    assert result.membership == {1: 1, 2: 1, 3: 1, 4: 1, 5: 5, 6: 5, 7: 5, 8: 5}
    assert set(result.component.values()) == {1}


@settings(max_examples=100, deadline=None)
@given(incidences)
def test_no_controls_is_plain_components(pairs: list[tuple[int, int]]) -> None:
    from memcli.cluster import Controls, cluster_episodes

    result = cluster_episodes(
        pairs, controls=Controls(window_seconds=None, max_signature_episodes=None, max_cluster=None)
    )
    assert result.membership == components(pairs)


@settings(max_examples=100, deadline=None)
@given(incidences, st.integers(1, 12))
def test_sparse_episode_ids_cluster_as_dense_ones(pairs: list[tuple[int, int]], cap: int) -> None:
    """Dense ids are clustered over a list indexed by id, sparse ones over a dict: the
    same clusters either way, ids spread apart or not, size cap included."""
    from memcli.cluster import Controls, cluster_episodes

    controls = Controls(window_seconds=None, max_signature_episodes=None, max_cluster=cap)
    far = 10**9  # no list that long is made: the dict holds these
    dense = cluster_episodes(pairs, controls=controls)
    sparse = cluster_episodes([(e * far, s) for e, s in pairs], controls=controls)
    assert sparse.membership == {e * far: c * far for e, c in dense.membership.items()}
    assert sparse.component == {e * far: c * far for e, c in dense.component.items()}
    assert sparse.splits == [(c * far, n, removed) for c, n, removed in dense.splits]


@settings(max_examples=150, deadline=None)
@given(
    incidences,
    st.integers(1, 12),
    st.dictionaries(st.integers(1, 40), st.integers(0, 20), max_size=40),
    st.sampled_from([None, 3.0]),
)
def test_size_cap_removes_the_fewest_signatures_that_fit(
    pairs: list[tuple[int, int]], cap: int, days: dict[int, int], window: float | None
) -> None:
    """The split removes the smallest k most common signatures that leave every part
    within the cap, checked against trying every k with a fresh union-find."""
    from memcli.cluster import Controls, cluster_episodes

    times = {e: float(days.get(e, 0)) for e, _ in pairs}
    kinds = {s: "blocker" if s % 3 == 0 else "literal" for _, s in pairs}
    result = cluster_episodes(
        pairs,
        kinds=kinds,
        times=times,
        controls=Controls(window_seconds=window, max_signature_episodes=None, max_cluster=cap),
    )
    for comp, size, removed in result.splits:
        members = {e for e, c in result.component.items() if c == comp}
        assert size == len(members) > cap
        local: dict[int, list[int]] = {}
        for e, s in pairs:
            if e in members:
                local.setdefault(s, []).append(e)
        local = {s: eps for s, eps in local.items() if len(eps) > 1}
        order = sorted(local, key=lambda s: (kinds[s] != "literal", -len(local[s]), s))

        k = next(
            k
            for k in range(len(order) + 1)
            if _largest_part(members, order[k:], local, times, window) <= cap
        )
        assert removed == order[:k]
    assert all(len(m) <= cap for m in group(result.membership).values())


def _largest_part(
    members: set[int],
    signatures: list[int],
    local: dict[int, list[int]],
    times: dict[int, float],
    window: float | None,
) -> int:
    uf = UnionFind()
    for e in members:
        uf.add(e)
    for s in signatures:
        eps = sorted(local[s], key=lambda e: (times[e], e))
        for a, b in zip(eps, eps[1:], strict=False):
            if window is None or times[b] - times[a] <= window:
                uf.union(a, b)
    return max(len(m) for m in group({e: uf.find(e) for e in members}).values())


@settings(max_examples=150, deadline=None)
@given(
    incidences,
    st.dictionaries(st.integers(1, 40), st.integers(0, 20), max_size=40),
    st.integers(0, 6),
)
def test_window_and_hub_cut_match_a_plain_union_find(
    pairs: list[tuple[int, int]], days: dict[int, int], hub: int
) -> None:
    """Components under the window and the hub cut equal a reference built with
    ``UnionFind`` over the same links: time-consecutive carriers within the window, of
    every signature that is not a literal hub."""
    from memcli.cluster import Controls, cluster_episodes

    times = {e: float(days.get(e, 0)) for e, _ in pairs}
    kinds = {s: "blocker" if s % 4 == 0 else "literal" for _, s in pairs}
    result = cluster_episodes(
        pairs,
        kinds=kinds,
        times=times,
        controls=Controls(window_seconds=2.0, max_signature_episodes=hub, max_cluster=None),
    )
    uf = UnionFind()
    carriers: dict[int, list[int]] = {}
    for e, s in pairs:
        uf.add(e)
        carriers.setdefault(s, []).append(e)
    breaks = 0
    for s, eps in carriers.items():
        if len(eps) > hub and kinds[s] == "literal":
            continue
        eps = sorted(eps, key=lambda e: (times[e], e))
        for a, b in zip(eps, eps[1:], strict=False):
            if times[b] - times[a] <= 2.0:
                uf.union(a, b)
            else:
                breaks += 1
    assert result.component == {e: uf.find(e) for e in sorted(uf.parent)}
    assert result.window_breaks == breaks
