"""The pure core of analyze on literal inputs: no database, no files.

``analysis.run`` gets what ``Store.load_analysis`` would load (plus the cones the
store's recursive CTE would return) and must decide the drafts, the lifecycle plan and
the retire reasons by itself.
"""

from __future__ import annotations

from memcli import analysis, cluster, lifecycle
from memcli.analysis import (
    ActiveObservation,
    AnalysisInput,
    Completion,
    EndedFact,
    Entity,
    Episode,
    Fact,
)
from memcli.models import EntityType, Relation

NOW = "2026-11-20T12:00:00Z"
NO_CONTROLS = cluster.Controls(window_seconds=None, max_signature_episodes=None, max_cluster=None)

W, P, T = EntityType.WORK_ITEM, EntityType.PERSON, EntityType.TEAM
ENTITIES = {
    1: Entity(1, "auth service refactor", W),
    2: Entity(2, "payments integration", W),
    3: Entity(3, "checkout redesign", W),
    4: Entity(4, "mobile login", W),
    10: Entity(10, "Priya", P),
    11: Entity(11, "Tomasz", P),
    12: Entity(12, "Lena", P),
    20: Entity(20, "platform team", T),
}
EPISODES = {
    101: Episode(101, "Priya", "2026-11-02T09:00:00Z", "updates/priya.md"),
    102: Episode(102, "Tomasz", "2026-11-03T09:00:00Z", "updates/tomasz.md"),
    103: Episode(103, "Lena", "2026-11-04T09:00:00Z", "updates/lena.md"),
}
WAITS, OWNS = Relation.BLOCKED_BY, Relation.OWNS
# Priya's payments work waits on the auth refactor (owned by the platform team); Tomasz's
# checkout waits on Priya's payments work; Lena's mobile login waits on the refactor too.
FACTS = [
    Fact(1001, 101, 2, WAITS, 1),
    Fact(1002, 101, 10, OWNS, 2),
    Fact(1003, 101, 20, OWNS, 1),
    Fact(1004, 102, 3, WAITS, 2),
    Fact(1005, 102, 11, OWNS, 3),
    Fact(1006, 103, 4, WAITS, 1),
    Fact(1007, 103, 12, OWNS, 4),
]
# Blocker signatures: of the refactor (Priya, Lena) and of the payments work (Priya as the
# waiting work item, Tomasz as the waiter on it).
INCIDENCES = [(101, 900), (103, 900), (101, 901), (102, 901)]
BLOCKERS = {900, 901}
# What the recursive CTE returns for the one cluster (id 101): the refactor is the root.
CONES = [(101, 1, 1, 0), (101, 1, 2, 1), (101, 1, 4, 1), (101, 1, 3, 2)]


def chain_input(
    active: list[ActiveObservation] | None = None,
    facts: list[Fact] | None = None,
    **extra: object,
) -> AnalysisInput:
    fields: dict[str, object] = {
        "graph": "atlas",
        "scope": None,
        "nodes": sorted(EPISODES),
        "incidences": INCIDENCES,
        "blockers": BLOCKERS,
        "times": None,
        "facts": FACTS if facts is None else facts,
        "entities": ENTITIES,
        "episodes": EPISODES,
        "active": active or [],
        "root_since": {},
        "completions": {},
        "ended_facts": {},
        "names": {},
        "sources": {},
    }
    fields.update(extra)
    return AnalysisInput(**fields)  # type: ignore[arg-type]


def run(
    inp: AnalysisInput, cones: list[tuple[int, int, int, int]] = CONES
) -> analysis.AnalysisResult:
    clustering = analysis.cluster_input(inp, NO_CONTROLS)
    return analysis.run(inp, clustering, cones, controls=NO_CONTROLS, writer="template", now=NOW)


def test_three_person_chain_gives_one_draft_rooted_at_the_refactor() -> None:
    result = run(chain_input())
    assert result.clustering.membership == {101: 101, 102: 101, 103: 101}
    [draft] = result.drafts
    assert draft.kind == analysis.DEPENDENCY
    assert draft.pattern_key == "root:1"
    assert [e.name for e in draft.roots] == ["auth service refactor"]
    assert [o.name for o in draft.root_owners] == ["platform team"]
    assert [b.entity.name for b in draft.direct] == ["mobile login", "payments integration"]
    assert [b.entity.name for b in draft.downstream] == ["checkout redesign"]
    assert [v.name for v in draft.downstream[0].via] == ["payments integration"]
    names = {ENTITIES[i].name: role for i, role in draft.entity_roles.items()}
    assert names == {
        "auth service refactor": "root",
        "platform team": "owner",
        "payments integration": "direct",
        "Priya": "direct",
        "mobile login": "direct",
        "Lena": "direct",
        "checkout redesign": "downstream",
        "Tomasz": "downstream",
    }
    assert [e.id for e in draft.episodes] == [101, 102, 103]
    assert draft.valid_from == "2026-11-02T09:00:00Z"
    # nothing was active: one observation to create, superseding nothing
    assert [(d.pattern_key, sup) for d, sup in result.plan.create] == [("root:1", [])]
    assert result.plan.keep == result.plan.update == [] and result.retire == []
    assert result.to_write == [draft]


def test_root_that_stopped_waiting_holds_from_then() -> None:
    result = run(chain_input(root_since={1: "2026-11-05T00:00:00Z"}))
    assert result.drafts[0].valid_from == "2026-11-05T00:00:00Z"


def test_a_lone_wait_is_a_fact_not_an_observation() -> None:
    lone = [f for f in FACTS if f.episode_id == 101]
    inp = chain_input(facts=lone, nodes=[101, 102], incidences=[(101, 900), (102, 900)])
    assert run(inp, [(101, 1, 1, 0), (101, 1, 2, 1)]).drafts == []


def observation_of(draft: analysis.Draft, obs_id: int, fingerprint: str) -> ActiveObservation:
    return ActiveObservation(
        obs_id, draft.pattern_key, draft.kind, fingerprint, tuple(draft.evidence())
    )


def test_unchanged_evidence_keeps_and_new_evidence_updates_in_place() -> None:
    [draft] = run(chain_input()).drafts
    same = run(chain_input(active=[observation_of(draft, 7, draft.fingerprint)]))
    assert [(i, d.pattern_key) for i, d in same.plan.keep] == [(7, "root:1")]
    assert same.to_write == [] and same.retire == []

    # Before Lena's update the observation had other evidence: it is updated, not re-made.
    changed = run(chain_input(active=[observation_of(draft, 7, "fingerprint-before")]))
    assert [(i, d.pattern_key) for i, d in changed.plan.update] == [(7, "root:1")]
    assert changed.plan.create == [] and changed.retire == []
    assert changed.to_write == [changed.plan.update[0][1]]


def test_completed_root_retires_the_observation_with_its_reason() -> None:
    [draft] = run(chain_input()).drafts
    obs = observation_of(draft, 7, draft.fingerprint)
    # The refactor shipped: every wait on it ended, so no draft continues the pattern.
    result = run(
        chain_input(
            active=[obs],
            facts=[f for f in FACTS if f.relation is OWNS],
            incidences=[],
            completions={1: Completion(1, 104, "2026-11-10T09:00:00Z")},
            names={1: "auth service refactor"},
            sources={104: "updates/platform.md"},
        ),
        cones=[],
    )
    assert result.drafts == [] and result.plan.retire == [7]
    assert result.retire == [
        analysis.Retirement(
            7,
            "root resolved: auth service refactor was completed in episode #104 "
            "(updates/platform.md)",
            "2026-11-10T09:00:00Z",
            104,
        )
    ]


def test_ended_evidence_and_changed_patterns_retire_with_their_reasons() -> None:
    [draft] = run(chain_input()).drafts
    obs = observation_of(draft, 7, draft.fingerprint)
    ended = run(
        chain_input(
            active=[obs],
            facts=[],
            incidences=[],
            ended_facts={
                1001: EndedFact(1001, "2026-11-08T00:00:00Z", 105),
                1006: EndedFact(1006, "2026-11-09T00:00:00Z", 106),
            },
            sources={105: "updates/a.md", 106: "updates/b.md"},
        ),
        cones=[],
    )
    assert ended.retire == [
        analysis.Retirement(
            7,
            "evidence ended: 2 supporting fact(s) no longer hold, contradicted by episode "
            "#106 (updates/b.md)",
            "2026-11-09T00:00:00Z",
            106,
        )
    ]
    gone = run(chain_input(active=[obs], facts=[], incidences=[]), cones=[])
    assert gone.retire == [
        analysis.Retirement(
            7, "pattern changed: its evidence now forms other observations", NOW, None
        )
    ]


def test_plan_links_a_new_pattern_to_the_retired_one_it_shares_updates_with() -> None:
    [draft] = run(chain_input()).drafts
    old = lifecycle.Existing(
        id=3,
        pattern_key="root:99",
        kind=analysis.DEPENDENCY,
        fingerprint="x",
        episode_ids=frozenset({101, 250}),
    )
    p = lifecycle.plan([draft], [old])
    assert p.retire == [3]
    assert [(d.pattern_key, sup) for d, sup in p.create] == [("root:1", [3])]
    assert p.changed


def test_plan_follows_a_shared_context_one_to_one_only() -> None:
    def context(cluster_id: int, episode_ids: list[int]) -> analysis.Draft:
        eps = [Episode(i, f"author{i}", f"2026-11-0{i % 9 + 1}T00:00:00Z", f"u{i}.md")
               for i in episode_ids]  # fmt: skip
        return analysis.Draft(
            pattern_key=f"context:{cluster_id}",
            kind=analysis.SHARED_CONTEXT,
            cluster_id=cluster_id,
            roots=[ENTITIES[1]],
            root_owners=[],
            blocked=[],
            people=[],
            shared=[],
            entity_roles={},
            fact_roles={},
            episodes=eps,
            entities={},
            facts={},
            rank=0,
            start_at=eps[0].occurred_at,
            latest_evidence_at=eps[-1].occurred_at,
            fingerprint=f"fp{cluster_id}",
        )

    existing = lifecycle.Existing(5, "context:1", analysis.SHARED_CONTEXT, "old", frozenset({1, 2}))
    # the same context under a new cluster id: continued (updated), not re-created
    moved = lifecycle.plan([context(2, [2, 3])], [existing])
    assert [(i, d.pattern_key) for i, d in moved.update] == [(5, "context:2")]
    assert moved.retire == [] and moved.create == []
    # split in two: the old one retires and both new ones say they supersede it
    split = lifecycle.plan([context(1, [1, 4]), context(2, [2, 5])], [existing])
    assert split.retire == [5]
    assert [sup for _, sup in split.create] == [[5], [5]]


def test_the_critical_path_is_the_longest_chain_and_on_a_tie_the_one_named_first() -> None:
    """Two chains of three waits end in one root, and a shorter one beside them: the
    path is a longest chain; between the two it is the one whose first item's name
    comes first."""
    items = {
        i: Entity(i, name, W)
        for i, name in {
            30: "zinc rollout",
            31: "zinc schema",
            32: "apple rollout",
            33: "apple schema",
            34: "mango cache",
            35: "shared base image",
            36: "kiwi probe",
        }.items()
    }
    items[37] = Entity(37, "fig task", W)
    items[38] = Entity(38, "plum app", W)

    def path_of(waits: list[tuple[int, int]]) -> analysis.Draft:
        facts = [Fact(2000 + k, 101 + k % 3, a, WAITS, b) for k, (a, b) in enumerate(waits)]
        inp = chain_input(facts=facts, entities={**ENTITIES, **items})
        [path] = [d for d in run(inp, cones=[]).drafts if d.kind == analysis.CRITICAL_PATH]
        return path

    # 30 -> 31 -> 34 -> 35 and 32 -> 33 -> 34 -> 35 (three hops each); 36 -> 35 (one)
    waits = [(30, 31), (31, 34), (32, 33), (33, 34), (34, 35), (36, 35)]
    path = path_of(waits)
    assert [e.name for e in path.path] == [
        "apple rollout",
        "apple schema",
        "mango cache",
        "shared base image",
    ]
    assert path.pattern_key == "path:35" and path.rank == 2
    # 38 -> 37, which waits on both 31 and 33 (as long either way): four hops, through
    # the one named first
    path = path_of([*waits, (37, 31), (37, 33), (38, 37)])
    assert [e.name for e in path.path] == [
        "plum app",
        "fig task",
        "apple schema",
        "mango cache",
        "shared base image",
    ]
    assert path.rank == 3


def test_a_fingerprint_is_the_hash_of_kind_key_evidence_and_writer_as_json() -> None:
    """The fingerprint is written out from the evidence's JSON (kept for the store): it
    must stay the hash of the four as one JSON list, or every stored observation would
    look changed."""
    import hashlib
    import json

    [draft] = run(chain_input()).drafts
    whole = json.dumps([draft.kind, draft.pattern_key, draft.evidence(), "template"])
    assert draft.fingerprint == hashlib.blake2b(whole.encode(), digest_size=12).hexdigest()
    assert draft.evidence_json == json.dumps(draft.evidence())
    assert (
        analysis.fingerprint(draft, "llm")
        == hashlib.blake2b(
            json.dumps([draft.kind, draft.pattern_key, draft.evidence(), "llm"]).encode(),
            digest_size=12,
        ).hexdigest()
    )


def test_parts_of_a_split_component_each_get_their_own_shared_context() -> None:
    """The size cap splits one component in two; each part's shared context holds the
    facts its own updates restate, not those restated across the parts."""
    people = {i: Entity(i, name, P) for i, name in {10: "Ines", 11: "Omar", 12: "Yuki"}.items()}
    episodes = {
        i: Episode(i, author, f"2026-11-0{i - 200}T09:00:00Z", f"updates/{i}.md")
        for i, author in {201: "Ines", 202: "Omar", 203: "Yuki", 204: "Ravi"}.items()
    }
    owns = Relation.OWNS
    facts = [
        Fact(3001, 201, 10, owns, 1),
        Fact(3002, 202, 10, owns, 1),
        Fact(3003, 203, 11, owns, 2),
        Fact(3004, 204, 11, owns, 2),
        Fact(3005, 201, 12, owns, 3),  # restated across the two parts only
        Fact(3006, 203, 12, owns, 3),
    ]
    # signature 800 joins all four updates; 801 and 802 each join a pair
    incidences = [(201, 800), (202, 800), (203, 800), (204, 800)]
    incidences += [(201, 801), (202, 801), (203, 802), (204, 802)]
    inp = chain_input(
        facts=facts,
        nodes=sorted(episodes),
        incidences=incidences,
        blockers=set(),
        episodes=episodes,
        entities={**ENTITIES, **people},
    )
    controls = cluster.Controls(window_seconds=None, max_signature_episodes=None, max_cluster=2)
    clustering = analysis.cluster_input(inp, controls)
    assert set(clustering.component.values()) == {201}
    assert clustering.membership == {201: 201, 202: 201, 203: 203, 204: 203}
    keys = {800: ("literal", "platform|owns|deploy")}  # the signature the cap removed
    result = analysis.run(
        inp, clustering, [], controls=controls, writer="template", now=NOW, signature_keys=keys
    )
    contexts = {d.pattern_key: sorted(d.facts) for d in result.drafts}
    assert contexts == {"context:201": [3001, 3002], "context:203": [3003, 3004]}


def test_every_kind_of_draft_keeps_its_evidence_as_json_dumps_writes_it() -> None:
    """The evidence text the fingerprint hashes (and a new version stores) is formatted
    row by row: it must be ``json.dumps(draft.evidence())`` for every kind of draft,
    with and without a cycle in the wait graph (a graph without one skips the search
    for strong components)."""
    import json

    items = {i: Entity(i, f"piece {i}", W) for i in range(40, 46)}
    # 40 -> 41 -> 42 -> 43 -> 1 (a path of four hops into the refactor); 44 <-> 45 (a cycle)
    waits = [(40, 41), (41, 42), (42, 43), (43, 1), (44, 45), (45, 44)]
    extra = [Fact(3000 + k, 101 + k % 3, a, WAITS, b) for k, (a, b) in enumerate(waits)]
    owned = [Fact(3100, 102, 20, OWNS, 4), Fact(3101, 103, 20, OWNS, 44)]
    for facts in ([*FACTS, *extra, *owned], [*FACTS, *extra[:4], *owned]):
        inp = chain_input(facts=facts, entities={**ENTITIES, **items})
        drafts = run(inp).drafts
        kinds = {d.kind for d in drafts}
        assert analysis.CRITICAL_PATH in kinds
        assert (analysis.CYCLE in kinds) == (len(facts) > len(FACTS) + 6)
        for d in drafts:
            assert d.evidence_json == json.dumps(d.evidence())
            assert d.fingerprint == analysis.fingerprint(d, "template")
