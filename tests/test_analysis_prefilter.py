"""The cheap test that skips most cones before a draft is built must agree with the
draft's own test: a prefilter stricter than ``_is_pattern`` would silently drop
observations (nothing else would notice), a looser one only costs time.

Cones are generated the way the store's recursive CTE returns them: a root at depth 0,
every other node waiting (through at least one fact) on a node one step closer, extra
waits that never shorten a path, owners of any node, reporters that repeat or are
missing.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import analysis
from memcli.analysis import Entity, Episode, Fact
from memcli.models import EntityType, Relation

AUTHORS = ["Ines", "Kofi", "Mei", None]
TYPES = [EntityType.WORK_ITEM, EntityType.WORK_ITEM, EntityType.PERSON, EntityType.TEAM]


@st.composite
def cones(draw: st.DrawFn) -> tuple[dict[int, int], list[Fact], list[Fact], dict, dict]:
    n_eps = draw(st.integers(1, 4))
    episodes = {
        i: Episode(i, draw(st.sampled_from(AUTHORS)), f"2026-11-0{i}T09:00:00Z", f"u{i}.md")
        for i in range(1, n_eps + 1)
    }
    episode = st.integers(1, n_eps)
    size = draw(st.integers(2, 6))
    entities = {i: Entity(i, f"item {i}", draw(st.sampled_from(TYPES))) for i in range(size)}
    nodes = {0: 0}
    waits: list[Fact] = []
    fid = 0
    for node in range(1, size):
        parent = draw(st.integers(0, node - 1))
        nodes[node] = nodes[parent] + 1
        fid += 1
        waits.append(Fact(fid, draw(episode), node, Relation.BLOCKED_BY, parent))
    for _ in range(draw(st.integers(0, 3))):  # more waits, none a shortcut
        source = draw(st.integers(1, size - 1))
        target = draw(st.integers(0, size - 1))
        if target != source and nodes[target] >= nodes[source] - 1:
            fid += 1
            waits.append(Fact(fid, draw(episode), source, Relation.BLOCKED_BY, target))
    owners = {100 + i: Entity(100 + i, f"owner {i}", EntityType.PERSON) for i in range(3)}
    entities.update(owners)
    owns: list[Fact] = []
    for _ in range(draw(st.integers(0, 3))):
        fid += 1
        owner = draw(st.sampled_from(sorted(owners)))
        owns.append(Fact(fid, draw(episode), owner, Relation.OWNS, draw(st.integers(0, size - 1))))
    return nodes, waits, owns, entities, episodes


@settings(max_examples=400, deadline=None)
@given(cones())
def test_prefilter_keeps_every_cone_that_is_a_pattern(
    cone: tuple[dict[int, int], list[Fact], list[Fact], dict, dict],
) -> None:
    nodes, waits, owns, entities, episodes = cone
    draft = analysis._dependency_draft(7, 0, nodes, waits, owns, entities, episodes)
    assert analysis._may_be_pattern(nodes, waits, owns, entities, episodes) == (
        analysis._is_pattern(draft)
    )


def test_a_lone_wait_reported_by_one_person_is_skipped_and_two_reporters_are_kept() -> None:
    entities = {
        1: Entity(1, "ledger export", EntityType.WORK_ITEM),
        2: Entity(2, "schema freeze", EntityType.WORK_ITEM),
        3: Entity(3, "Kofi", EntityType.PERSON),
    }
    episodes = {
        1: Episode(1, "Mei", "2026-11-01T09:00:00Z", "a.md"),
        2: Episode(2, "Kofi", "2026-11-02T09:00:00Z", "b.md"),
    }
    nodes = {2: 0, 1: 1}
    wait = Fact(1, 1, 1, Relation.BLOCKED_BY, 2)
    assert not analysis._may_be_pattern(nodes, [wait], [], entities, episodes)
    owner = Fact(2, 2, 3, Relation.OWNS, 2)  # a second reporter names the root's owner
    assert analysis._may_be_pattern(nodes, [wait], [owner], entities, episodes)
