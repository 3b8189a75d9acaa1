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
from memcli.analysis import DEPENDENCY, Blocked, Draft, Entity, Episode
from memcli.models import EntityType

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
    for i in range(n_down):
        t = draw(blocked_type)
        # via: earlier work items (direct ones by index, downstream ones after them)
        candidates = [j for j, (tt, _) in enumerate(direct) if tt is WORK]
        candidates += [n_direct + j for j, (tt, _, _) in enumerate(downstream) if tt is WORK]
        if not candidates:
            break
        via = draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=2, unique=True))
        downstream.append((t, owners() if t is WORK else [], via))
        del i
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
    chosen = {
        e.id: e
        for e in (pool[i] for i in spec.root_owners)  # root owners
    }
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
    del chosen
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
