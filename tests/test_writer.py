"""The template writer's words: counts that match the evidence, grammatical lists, and a
hard bound on length whatever the cluster size.

The property test builds random dependency drafts (random numbers of direct and
downstream blocked items, blocked people and teams, owners, random names), reads every
number in the summary back against the draft's counts, and checks that no person or team
is listed as a workstream. The golden tests pin the fixed wordings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memcli import writer
from memcli.analysis import DEPENDENCY, SHARED_CONTEXT, Blocked, Draft, Entity, Episode, Fact
from memcli.models import EntityType, Relation

WORK, PERSON, TEAM = EntityType.WORK_ITEM, EntityType.PERSON, EntityType.TEAM
WORDS = {w: i for i, w in enumerate(writer._NUMBERS)}
NUM = r"(?:\d+|" + "|".join(WORDS) + r")"


def value(token: str) -> int:
    token = token.lower()
    return WORDS[token] if token in WORDS else int(token)


def quantifier(n: int) -> str:
    return "both" if n == 2 else f"all {writer.number(n)}"


# --- building drafts -------------------------------------------------------------------


@dataclass
class Spec:
    """What a random cone holds, before it is turned into a Draft."""

    root_owners: list[int]  # indexes into the owner pool
    direct: list[tuple[EntityType, list[int]]]  # (type, owners) of each direct blocked entity
    downstream: list[tuple[EntityType, list[int], list[int]]]  # (type, owners, via indexes)
    pool: list[EntityType]  # the owner pool: people and teams
    names: list[str]


# Names without vowels are never English words, so no name reads as a number word;
# a digit suffix ("pg16") checks that digits inside names are not taken for counts.
syllable = st.text(alphabet="bcdfghjklmnprstvwxz", min_size=2, max_size=7)
name_st = st.builds(
    lambda words, digits: " ".join(words) + digits,
    st.lists(syllable, min_size=1, max_size=3),
    st.sampled_from(["", "", "", "2", "16", "300"]),
)


@st.composite
def specs(draw: st.DrawFn) -> Spec:
    big = draw(st.booleans())
    pool = draw(st.lists(st.sampled_from([PERSON, TEAM]), min_size=0, max_size=25 if big else 6))
    owner_ids = st.lists(st.integers(0, max(len(pool) - 1, 0)), max_size=3, unique=True)

    def owners() -> list[int]:
        return draw(owner_ids) if pool else []

    blocked_type = st.sampled_from([WORK, WORK, WORK, PERSON, TEAM])
    n_direct = draw(st.integers(1, 30 if big else 5))
    direct = [(draw(blocked_type), []) for _ in range(n_direct)]
    direct = [(t, owners() if t is WORK else []) for t, _ in direct]
    n_down = draw(st.integers(0, 60 if big else 6))
    downstream: list[tuple[EntityType, list[int], list[int]]] = []
    for _ in range(n_down):
        t = draw(blocked_type)
        # via: earlier work items (direct ones by index, downstream ones after them)
        candidates = [j for j, (tt, _) in enumerate(direct) if tt is WORK]
        candidates += [n_direct + j for j, (tt, _, _) in enumerate(downstream) if tt is WORK]
        if not candidates:
            break
        via = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=2, unique=True))
        downstream.append((t, owners() if t is WORK else [], via))
    n_names = 1 + len(pool) + len(direct) + len(downstream)
    long_names = draw(st.booleans()) and big
    names = draw(
        st.lists(
            st.text(alphabet="bcdfghjklmnprstvwxz ", min_size=60, max_size=90).map(
                lambda s: "x" + " ".join(s.split()) + "q"
            )
            if long_names
            else name_st,
            min_size=n_names,
            max_size=n_names,
            unique_by=str.lower,
        )
    )
    return Spec(draw(owner_ids) if pool else [], direct, downstream, pool, names)


def build(spec: Spec) -> Draft:
    """A draft shaped as analysis.build_drafts shapes one."""
    names = iter(spec.names)
    next_id = iter(range(1, 10_000))

    def entity(t: EntityType) -> Entity:
        name = next(names)
        if t is PERSON:
            name = name.capitalize()
        elif t is TEAM:
            name = f"{name} team"
        return Entity(next(next_id), name, t)

    def key(e: Entity) -> tuple[str, int]:
        return (e.name.lower(), e.id)

    root = entity(WORK)
    pool = [entity(t) for t in spec.pool]
    blocked: list[Blocked] = []
    by_index: list[Entity] = []
    for t, own in spec.direct:
        e = entity(t)
        by_index.append(e)
        blocked.append(Blocked(e, 1, [root], sorted((pool[i] for i in own), key=key), []))
    depth = {e.id: 1 for e in by_index}
    for t, own, via in spec.downstream:
        e = entity(t)
        vias = sorted((by_index[i] for i in via), key=key)
        d = 1 + min(depth[v.id] for v in vias)
        vias = [v for v in vias if depth[v.id] == d - 1]
        depth[e.id] = d
        by_index.append(e)
        blocked.append(Blocked(e, d, vias, sorted((pool[i] for i in own), key=key), []))
    blocked.sort(key=lambda b: (b.depth, key(b.entity)))
    people: dict[int, Entity] = {}
    for b in blocked:
        if b.entity.type is not WORK:
            people[b.entity.id] = b.entity
        for o in b.owners:
            people[o.id] = o
    entities = {e.id: e for e in [root, *pool, *by_index]}
    return Draft(
        pattern_key=f"root:{root.id}",
        kind=DEPENDENCY,
        cluster_id=1,
        roots=[root],
        root_owners=sorted((pool[i] for i in spec.root_owners), key=key),
        blocked=blocked,
        people=sorted(people.values(), key=key),
        shared=[],
        entity_roles={},
        fact_roles={},
        episodes=[Episode(1, "someone", "2026-11-02T09:00:00Z", "a.md")],
        entities=entities,
        facts={},
        rank=0,
        start_at="2026-11-02T09:00:00Z",
        latest_evidence_at="2026-11-02T09:00:00Z",
    )


# --- reading the prose back ------------------------------------------------------------


def tokenize(d: Draft, summary: str) -> str:
    """The summary with every name replaced by its kind: <R> the root, <W> a work item
    (with its owners, as the writer phrases it), <P> a person, <T> a team."""
    phrases: dict[str, str] = {}
    root = d.roots[0]
    phrases[writer.the(root)] = "<R>"
    owners_by_item = {b.entity.id: b.owners for b in d.blocked}
    for b in d.blocked:
        if b.entity.type is WORK:
            phrases[writer.item_phrase(b)] = "<W>"
            phrases[writer.entity_phrase(b.entity, owners_by_item)] = "<W>"
    for e in [*d.people, *d.root_owners, *(b.entity for b in d.blocked)]:
        if e.type is not WORK:
            phrases[writer.the(e)] = "<P>" if e.type is PERSON else "<T>"
    text = summary
    for phrase in sorted(phrases, key=len, reverse=True):
        for form in {phrase, writer.capitalize(phrase)}:
            text = re.sub(rf"(?<![\w<]){re.escape(form)}(?![\w>])", phrases[phrase], text)
    return text


@dataclass
class Listed:
    tokens: list[str]  # "<W>", "<P>", "<T>", or ("N", noun) counts as "N noun"
    counts: list[tuple[int, str]]  # "three more workstreams" -> (3, "workstreams")
    more: int  # "and 4 more"

    @property
    def total(self) -> int:
        return len(self.tokens) + self.more + sum(n for n, _ in self.counts)


def parse_list(text: str) -> Listed:
    more = 0
    m = re.fullmatch(r"(.+) and (\d+) more", text)
    if m:
        text, more = m.group(1), int(m.group(2))
    parts = re.split(r", | and ", text)
    tokens, counts = [], []
    for p in parts:
        if re.fullmatch(r"<[WPTR]>", p):
            tokens.append(p)
            continue
        c = re.fullmatch(rf"({NUM}) (?:more )?(workstreams?|people|person|teams?)", p)
        assert c, f"unexpected list element {p!r} in {text!r}"
        n, noun = value(c.group(1)), c.group(2)
        assert (n == 1) == (noun in ("workstream", "person", "team")), f"agreement: {p!r}"
        counts.append(
            (n, {"workstream": "workstreams", "person": "people", "team": "teams"}.get(noun, noun))
        )
    return Listed(tokens, counts, more)


def check(d: Draft, summary: str) -> None:  # noqa: C901 - one reader for the whole grammar
    assert len(summary) <= writer.MAX_SUMMARY, len(summary)
    work = [b for b in d.blocked if b.entity.type is WORK]
    direct_work = [b for b in d.direct if b.entity.type is WORK]
    direct_other = [b for b in d.direct if b.entity.type is not WORK]
    down = d.downstream
    persons = [p for p in d.people if p.type is PERSON]
    teams = [p for p in d.people if p.type is TEAM]
    text = tokenize(d, summary)
    sentences = re.split(r"(?<=\.) (?=[A-Z<\d])", text)
    assert all(s.endswith(".") for s in sentences), text

    lead = re.fullmatch(
        rf"(<R>|.+\u2026)(?:, owned by (?P<owners>.+),)? is the root blocker"
        rf"(?: for (?P<n>{NUM}) (?P<noun>workstreams?))?\.",
        sentences[0],
    )
    assert lead, sentences[0]
    if work:
        assert lead["n"] and value(lead["n"]) == len(work), sentences[0]
        assert (lead["noun"] == "workstream") == (len(work) == 1)
    else:
        assert lead["n"] is None
    counts_form = "Unblocking <R>" not in text  # the last resort: counts, no names
    if lead["owners"]:
        assert parse_list(lead["owners"]).total == len(d.root_owners)
    else:
        assert not d.root_owners or counts_form, text

    seen = {"workstreams": 0, "people": 0, "teams": 0}
    kinds = {"<W>": "workstreams", "<P>": "people", "<T>": "teams"}
    saw_direct_work = saw_direct_other = False
    cleared = None
    for sentence in sentences[1:]:
        body = sentence[:-1]
        m = re.fullmatch(r"Unblocking (?:<R>|it) would clear (.+)", body)
        if m:
            cleared = m.group(1)
            continue
        for clause in body.split("; "):
            clause = clause[:1].lower() + clause[1:] if clause[:1].isalpha() else clause
            if c := re.fullmatch(r"(.+) (waits|wait) on it directly", clause):
                items = parse_list(c.group(1))
                if items.counts:  # the counts-only wording: every kind waiting directly
                    total = {noun: n for n, noun in items.counts}
                    assert total.get("workstreams", 0) == len(direct_work)
                    assert total.get("people", 0) == sum(
                        b.entity.type is PERSON for b in direct_other
                    )
                    assert total.get("teams", 0) == sum(b.entity.type is TEAM for b in direct_other)
                    saw_direct_other = bool(direct_other)
                    saw_direct_work = bool(direct_work)
                    assert (c.group(2) == "waits") == (items.total == 1), clause
                    continue
                else:
                    assert set(items.tokens) == {"<W>"}, f"not only work items listed: {clause!r}"
                    assert items.total == len(direct_work), clause
                assert (c.group(2) == "waits") == (items.total == 1), clause
                saw_direct_work = True
            elif c := re.fullmatch(r"(.+) (is|are) blocked on it directly", clause):
                items = parse_list(c.group(1))
                assert set(items.tokens) in ({"<P>"}, {"<T>"}) and not items.counts, clause
                kind = PERSON if items.tokens[0] == "<P>" else TEAM
                assert items.total == sum(b.entity.type is kind for b in direct_other), clause
                assert (c.group(2) == "is") == (items.total == 1), clause
                saw_direct_other = True
            elif c := re.fullmatch(r"(.+) (is|are) blocked downstream of (.+)", clause):
                items = parse_list(c.group(1))
                # each list holds one kind: work items, people or teams
                assert len(set(items.tokens)) == 1, f"mixed list: {clause!r}"
                seen[kinds[items.tokens[0]]] += items.total
                assert (c.group(2) == "is") == (items.total == 1), clause
                via = parse_list(c.group(3)) if c.group(3) != "other work" else None
                if via is not None:
                    assert set(via.tokens) <= {"<W>", "<R>"}, clause
                    assert via.total in {len(b.via) for b in down}, clause
            elif c := re.fullmatch(r"(.+) (is|are) blocked (?:further )?downstream", clause):
                items = parse_list(c.group(1))
                assert not items.tokens and not items.more, clause
                for n, noun in items.counts:
                    seen[noun] += n
                assert (c.group(2) == "is") == (items.total == 1), clause
            else:
                raise AssertionError(f"unexpected clause {clause!r} in {text!r}")
    # Every sentence and clause matched one of the patterns above, whose every number
    # was read back, so no number in the prose goes unchecked.
    assert saw_direct_work == bool(direct_work), text
    if not counts_form:
        assert saw_direct_other == bool(direct_other), text
        assert seen["workstreams"] == sum(b.entity.type is WORK for b in down), text
        assert seen["people"] == sum(b.entity.type is PERSON for b in down), text
        assert seen["teams"] == sum(b.entity.type is TEAM for b in down), text
    if cleared is None:
        assert counts_form and not persons and not teams, text
    else:
        check_cleared(cleared, persons, teams, work, text)


def check_cleared(
    cleared: str, persons: list[Entity], teams: list[Entity], work: list[Blocked], text: str
) -> None:
    if m := re.fullmatch(rf"(both|all {NUM}): (.+)", cleared):
        assert not teams and len(persons) == len(work) >= 2, text
        assert m.group(1) == quantifier(len(persons)), text
        items = parse_list(m.group(2))
        assert set(items.tokens) == {"<P>"} and items.total == len(persons), text
        return
    if m := re.fullmatch(r"(both|all \S+) workstreams", cleared):
        assert not persons and not teams and m.group(1) == quantifier(len(work)), text
        return
    if cleared == "<W>":
        assert not persons and not teams and len(work) == 1, text
        return
    if re.fullmatch(
        rf"{NUM} (people|person|teams?)(?: and {NUM} (people|person|teams?))?", cleared
    ):
        items = parse_list(cleared)
        total = {noun: n for n, noun in items.counts}
        assert total.get("people", 0) == len(persons) and total.get("teams", 0) == len(teams)
        return
    found = {"people": 0, "teams": 0}
    rest = cleared
    for m in re.finditer(rf"(both|all {NUM}) (people|teams) \(([^)]*)\)", cleared):
        n = {"people": len(persons), "teams": len(teams)}[m.group(2)]
        assert m.group(1) == quantifier(n), f"{m.group(0)!r} for {n}"
        items = parse_list(m.group(3))
        assert set(items.tokens) == {"<P>" if m.group(2) == "people" else "<T>"}, text
        assert items.total == n, text
        found[m.group(2)] = n
        rest = rest.replace(m.group(0), "")
    for token in filter(None, re.split(r"\s*\band\b\s*", rest.strip())):
        assert token in ("<P>", "<T>"), f"unexpected {token!r} in {text!r}"
        kind = "people" if token == "<P>" else "teams"
        assert found[kind] == 0
        found[kind] = 1
    assert found == {"people": len(persons), "teams": len(teams)}, text


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(specs())
def test_every_number_in_a_summary_matches_the_evidence(spec: Spec) -> None:
    draft = build(spec)
    _, summary = writer.write(draft)
    check(draft, summary)
    assert "  " not in summary and ".." not in summary


# --- golden wordings -------------------------------------------------------------------


def kind_of(name: str) -> EntityType:
    """'Alice' (one capitalised word) a person, 'data team' a team, else a work item."""
    if name[:1].isupper() and " " not in name:
        return PERSON
    return TEAM if name.endswith(" team") else WORK


def cone(
    root: str,
    direct: list[tuple[str, list[str]]],
    downstream: list[tuple[str, list[str], list[str]]] = (),  # type: ignore[assignment]
    root_owners: list[str] = (),  # type: ignore[assignment]
) -> Draft:
    """A literal draft: (name, owners) directly blocked; (name, owners, via) downstream."""
    ids: dict[str, Entity] = {}

    def ent(name: str) -> Entity:
        if name not in ids:
            ids[name] = Entity(len(ids) + 1, name, kind_of(name))
        return ids[name]

    r = ent(root)
    blocked = [Blocked(ent(n), 1, [r], [ent(o) for o in owners], []) for n, owners in direct]
    depth = {b.entity.name: 1 for b in blocked}
    for n, owners, via in downstream:
        depth[n] = 1 + depth[via[0]]
        blocked.append(
            Blocked(ent(n), depth[n], [ent(v) for v in via], [ent(o) for o in owners], [])
        )
    key = lambda e: (e.name.lower(), e.id)  # noqa: E731
    blocked.sort(key=lambda b: (b.depth, key(b.entity)))
    people = {b.entity.id: b.entity for b in blocked if b.entity.type is not WORK}
    people.update({o.id: o for b in blocked for o in b.owners})
    return Draft(
        pattern_key="root:1",
        kind=DEPENDENCY,
        cluster_id=1,
        roots=[r],
        root_owners=[ent(o) for o in root_owners],
        blocked=blocked,
        people=sorted(people.values(), key=key),
        shared=[],
        entity_roles={},
        fact_roles={},
        episodes=[],
        entities={e.id: e for e in ids.values()},
        facts={},
        rank=0,
        start_at="",
        latest_evidence_at="",
    )


def test_the_canonical_wording_is_kept() -> None:
    d = cone(
        "auth service refactor",
        [("API migration", ["Alice"]), ("payments integration", ["Bob"])],
        [("checkout flow", ["Clara"], ["payments integration"])],
        root_owners=["backend team"],
    )
    assert writer.write(d) == (
        "Auth service refactor blocking multiple workstreams",
        "The auth service refactor, owned by the backend team, is the root blocker for three "
        "workstreams. Alice's API migration and Bob's payments integration wait on it "
        "directly; Clara's checkout flow is blocked downstream of Bob's payments integration. "
        "Unblocking the auth service refactor would clear all three: Alice, Bob and Clara.",
    )


def test_a_blocked_person_is_not_counted_as_a_workstream() -> None:
    d = cone("billing schema", [("new schema", ["Dev"]), ("Dev", [])])
    assert writer.write(d)[1] == (
        "The billing schema is the root blocker for one workstream. Dev's new schema waits "
        "on it directly; Dev is blocked on it directly. Unblocking the billing schema would "
        "clear Dev."
    )


def test_both_and_all_three_agree_with_what_they_count() -> None:
    d = cone(
        "ledger cutover",
        [("invoice export", ["Ana"]), ("refund flow", ["Ben"]), ("tax report", ["Ana"])],
    )
    assert writer.write(d)[1] == (
        "The ledger cutover is the root blocker for three workstreams. Ana's invoice export, "
        "Ben's refund flow and Ana's tax report wait on it directly. Unblocking the ledger "
        "cutover would clear both people (Ana and Ben)."
    )


def test_people_and_teams_are_counted_apart() -> None:
    d = cone(
        "queue upgrade",
        [("audit feed", ["Ana"]), ("usage panel", ["Ben"]), ("price sync", ["data team"])],
    )
    assert writer.write(d)[1] == (
        "The queue upgrade is the root blocker for three workstreams. Ana's audit feed, the "
        "data team's price sync and Ben's usage panel wait on it directly. Unblocking the "
        "queue upgrade would clear both people (Ana and Ben) and the data team."
    )


def test_one_item_and_no_owner_reads_in_the_singular() -> None:
    d = cone("gateway split", [("search index", [])], [("report page", [], ["search index"])])
    assert writer.write(d)[1] == (
        "The gateway split is the root blocker for two workstreams. The search index waits "
        "on it directly; the report page is blocked downstream of the search index. "
        "Unblocking the gateway split would clear both workstreams."
    )


def big_cone(n_direct: int = 120, fan: int = 4) -> Draft:
    """A hub: n_direct items each owned by its own person, each with ``fan`` downstream
    items owned by further people, and a few teams among the owners."""
    direct = [(f"service {i:03d} port", [f"Owner{i:03d}"]) for i in range(n_direct)]
    downstream = [
        (f"client {i:03d}-{j} sync", [f"Helper{i:03d}{j}" if j else "data team"], [direct[i][0]])
        for i in range(n_direct)
        for j in range(fan)
    ]
    return cone("storage engine swap", direct, downstream, root_owners=["platform team"])


def test_a_huge_cluster_gives_a_short_summary_naming_the_top_items() -> None:
    d = big_cone()
    name, summary = writer.write(d)
    assert name == "Storage engine swap blocking multiple workstreams"
    assert summary == (
        "The storage engine swap, owned by the platform team, is the root blocker for 600 "
        "workstreams. Owner000's service 000 port, Owner001's service 001 port and 118 more "
        "wait on it directly; the data team's client 000-0 sync, Helper0001's client 000-1 "
        "sync and 2 more are blocked downstream of Owner000's service 000 port; 476 more "
        "workstreams are blocked further downstream. Unblocking the storage engine swap would "
        "clear all 480 people (Helper0001, Helper0002 and 478 more) and the data team."
    )
    assert len(summary) <= writer.MAX_SUMMARY
    # The full lists stay in the draft (the evidence and JSON).
    assert len(d.blocked) == 600


def test_long_names_fall_back_to_counts_within_the_bound() -> None:
    long = " ".join(["very long name"] * 50)
    d = cone(
        "root " + long,
        [(f"item {i} {long}", [f"Person{i}"]) for i in range(5)],
        root_owners=["infra team"],
    )
    summary = writer.write(d)[1]
    assert len(summary) <= writer.MAX_SUMMARY
    assert summary.endswith(
        "\u2026 is the root blocker for five workstreams. Five workstreams wait on it "
        "directly. Unblocking it would clear five people."
    )


def test_shared_context_lists_the_top_facts_and_counts_the_rest() -> None:
    people = [Entity(i, f"P{i}", PERSON) for i in range(1, 9)]
    topic = Entity(100, "design doc", WORK)
    facts = [(Fact(i, 1, p.id, Relation.OWNS, topic.id), 9 - i) for i, p in enumerate(people, 1)]
    eps = [Episode(i, f"P{i}", f"2026-11-0{i}T09:00:00Z", f"{i}.md") for i in range(1, 9)]
    d = Draft(
        pattern_key="context:1",
        kind=SHARED_CONTEXT,
        cluster_id=1,
        roots=[topic],
        root_owners=[],
        blocked=[],
        people=[],
        shared=facts,
        entity_roles={},
        fact_roles={},
        episodes=eps,
        entities={e.id: e for e in [*people, topic]},
        facts={},
        rank=0,
        start_at="",
        latest_evidence_at="",
    )
    assert writer.write(d)[1] == (
        "Eight updates from P1, P2, P3, P4 and 4 more share the same facts: P1 owns the "
        "design doc (eight updates), P2 owns the design doc (seven updates), P3 owns the "
        "design doc (six updates), P4 owns the design doc (five updates) and four more facts. "
        "Nothing in them waits on other work."
    )


@settings(max_examples=100, deadline=None)
@given(
    n_facts=st.integers(1, 40),
    n_authors=st.integers(2, 30),
    extra=st.integers(0, 20),
    long_topic=st.booleans(),
)
def test_shared_context_counts_read_back(
    n_facts: int, n_authors: int, extra: int, long_topic: bool
) -> None:
    people = [Entity(i, f"Pp{i}", PERSON) for i in range(1, n_facts + 1)]
    topic = Entity(999, "zz " * 300 if long_topic else "design doc", WORK)
    n_eps = n_authors + extra
    shared = [(Fact(i, 1, p.id, Relation.OWNS, topic.id), 2 + i % 5) for i, p in enumerate(people)]
    eps = [Episode(i, f"Au{i % n_authors}", "2026-11-02T09:00:00Z", "x.md") for i in range(n_eps)]
    d = Draft(
        pattern_key="context:1",
        kind=SHARED_CONTEXT,
        cluster_id=1,
        roots=[topic],
        root_owners=[],
        blocked=[],
        people=[],
        shared=shared,
        entity_roles={},
        fact_roles={},
        episodes=eps,
        entities={e.id: e for e in [*people, topic]},
        facts={},
        rank=0,
        start_at="",
        latest_evidence_at="",
    )
    summary = writer.write(d)[1]
    assert len(summary) <= writer.MAX_SUMMARY
    head = re.match(rf"({NUM}) updates from (.+?) share ", summary, re.IGNORECASE)
    assert head and value(head.group(1)) == n_eps
    if m := re.fullmatch(rf".* share ({NUM}) facts? about .+\.", summary):  # counts only
        assert value(m.group(1)) == n_facts and value(head.group(1)) == n_eps
        return
    who = parse_list(re.sub(r"Au\d+", "<P>", head.group(2)))
    assert who.total == n_authors
    stated = re.findall(rf"Pp(\d+) owns the design doc \(({NUM}) updates\)", summary)
    assert all(value(n) == 2 + (int(i) - 1) % 5 for i, n in stated)
    more = re.search(rf"and ({NUM}) more facts?\.", summary)
    assert len(stated) + (value(more.group(1)) if more else 0) == n_facts
