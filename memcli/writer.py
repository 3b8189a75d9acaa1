"""The deterministic observation writer: a name and a summary from a draft. Pure.

Every clause is generated from the draft's structure, which comes from stored facts, so
every claim in a summary traces to a fact id. The words follow fixed rules:

* a *workstream* is a blocked work item; a person or team is never counted as one (a
  blocked person "is blocked", and is counted among the people);
* people and teams are counted and named separately ("1 person", "2 people", "1 team");
* "both" is said only of exactly two, "all three" of three, "all N" beyond;
* numbers up to ten are words, larger ones digits.

A summary stays short whatever the cluster size: each list names at most a few items,
most leverage first, and says "and N more"; the full lists stay in the evidence and the
JSON. No summary is longer than :data:`MAX_SUMMARY` characters: when the detailed
wording would be longer, fewer names are listed, and at the last the summary is just the
counts.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from typing import TypeVar

from memcli.analysis import (
    CRITICAL_PATH,
    CYCLE,
    DEPENDENCY,
    OWNER_BOTTLENECK,
    STALE_BLOCKER,
    Blocked,
    Draft,
    Entity,
)
from memcli.models import EntityType, Relation
from memcli.resolve import TICKET

T = TypeVar("T")

MAX_LISTED = 6
# The hard upper bound on a template summary, in characters, for any cluster size.
MAX_SUMMARY = 600
# How long a list may be before it is cut to one name fewer and "N more" (and k - 2
# downstream groups are spelled out), tried in turn until the summary fits.
_DETAIL = (5, 4, 3, 2)
# a ticket id, alone or with its title ("AUTH-212 (auth refactor)"): a proper name
_TICKET_ID = re.compile(rf"{TICKET}(?: \(.*\))?")
_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def counted(n: int, singular: str, plural: str) -> str:
    """'one workstream', 'two workstreams', '1 person' is never 'one people'."""
    return f"{number(n)} {singular if n == 1 else plural}"


def every(n: int) -> str:
    """The quantifier for a whole group of n >= 2: 'both', 'all three', 'all 12'."""
    return "both" if n == 2 else f"all {number(n)}"


def join(items: list[str], limit: int = MAX_LISTED) -> str:
    """'a', 'a and b', 'a, b and c', 'a, b, c and 4 more'."""
    if not items:
        return ""
    if len(items) > limit:
        shown = items[: max(limit - 1, 1)]
        return f"{', '.join(shown)} and {len(items) - len(shown)} more"
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def the(entity: Entity) -> str:
    """A work item or team as a sentence mentions it; people and ticket ids ("AUTH-212",
    "#488": proper names, which take no article) by name."""
    if entity.type is EntityType.PERSON or _TICKET_ID.fullmatch(entity.name):
        return entity.name
    return f"the {entity.name}"


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def item_phrase(b: Blocked) -> str:
    """'Alice's API migration', 'the platform team's deploy', or 'the search rewrite'."""
    if b.entity.type is not EntityType.WORK_ITEM:
        return the(b.entity)
    if not b.owners:
        return the(b.entity)
    owner = b.owners[0] if len(b.owners) == 1 else None
    if owner is None:
        names = join([o.name for o in b.owners], limit=3)
        return f"{names}'s {b.entity.name}"
    lead = owner.name if owner.type is EntityType.PERSON else f"the {owner.name}"
    return f"{possessive(lead)} {b.entity.name}"


def entity_phrase(entity: Entity, owners_by_item: dict[int, list[Entity]]) -> str:
    owners = owners_by_item.get(entity.id, [])
    return item_phrase(Blocked(entity, 0, [], owners, []))


def write(draft: Draft) -> tuple[str, str]:
    """(name, summary) for a draft; the summary is at most MAX_SUMMARY characters."""
    if draft.kind == DEPENDENCY:
        return _dependency(draft)
    if draft.kind == STALE_BLOCKER:
        return _stale(draft)
    if draft.kind == CYCLE:
        return _cycle(draft)
    if draft.kind == OWNER_BOTTLENECK:
        return _owner(draft)
    if draft.kind == CRITICAL_PATH:
        return _critical_path(draft)
    return _shared_context(draft)


def _fit(wording: Callable[[int], str], last: Callable[[int], str], room: int = MAX_SUMMARY) -> str:
    """The most detailed wording (``wording(k)``: lists of at most k names) within
    ``room``; else the last resort, given the room it has."""
    for k in _DETAIL:
        text = wording(k)
        if len(text) <= room:
            return text
    return last(room)


def clip(text: str, room: int) -> str:
    """``text`` cut to at most ``room`` characters, with an ellipsis when cut."""
    if len(text) <= room:
        return text
    return text[: max(room - 1, 0)].rstrip() + "\u2026"


def _is_work(e: Entity) -> bool:
    return e.type is EntityType.WORK_ITEM


class _Cone:
    """A dependency draft read for writing: who counts as what, most leverage first."""

    def __init__(self, d: Draft) -> None:
        self.root = d.roots[0]
        self.root_owners = d.root_owners
        children: dict[int, list[int]] = defaultdict(list)
        for b in d.blocked:
            for v in b.via:
                children[v.id].append(b.entity.id)
        reach: dict[int, int] = {}
        for b in d.blocked:
            seen: set[int] = set()
            todo = list(children.get(b.entity.id, ()))
            while todo:
                node = todo.pop()
                if node not in seen and node != b.entity.id:
                    seen.add(node)
                    todo.extend(children.get(node, ()))
            reach[b.entity.id] = len(seen)
        self.reach = reach

        self.work = [b for b in d.blocked if _is_work(b.entity)]
        self.direct_work = [b for b in d.direct if _is_work(b.entity)]
        # Blocked people, then blocked teams: each kind in a list of its own.
        self.direct_waiting = [
            [b for b in d.direct if b.entity.type is kind]
            for kind in (EntityType.PERSON, EntityType.TEAM)
        ]
        # Downstream, grouped by what they wait on and by kind (work, people, teams).
        order = {EntityType.WORK_ITEM: 0, EntityType.PERSON: 1, EntityType.TEAM: 2}
        groups: dict[tuple[tuple[int, ...], EntityType], list[Blocked]] = {}
        for b in d.downstream:
            key = (tuple(v.id for v in b.via), b.entity.type)
            groups.setdefault(key, []).append(b)
        self.groups = sorted(
            groups.items(),
            key=lambda kv: (
                order[kv[0][1]],
                -sum(1 + reach.get(b.entity.id, 0) for b in kv[1]),
            ),
        )
        self.entities = d.entities
        self.owners_by_item = {b.entity.id: b.owners for b in d.blocked}
        # People and teams whose work is blocked (or who are blocked), most blocked first.
        load: dict[int, int] = defaultdict(int)
        for b in d.blocked:
            if not _is_work(b.entity):
                load[b.entity.id] += 1
            for o in b.owners:
                load[o.id] += 1
        self.load = load
        self.persons = [p for p in d.people if p.type is EntityType.PERSON]
        self.teams = [p for p in d.people if p.type is EntityType.TEAM]

    def blocked(self, bs: list[Blocked], k: int) -> list[Blocked]:
        """``bs`` ordered for ``join(..., k)``: the names it shows are the most leverage."""
        return _pick(bs, k, lambda b: -self.reach.get(b.entity.id, 0))

    def cleared(self, es: list[Entity], k: int) -> list[Entity]:
        return _pick(es, k, lambda e: -self.load[e.id])


def _pick(items: list[T], k: int, rank: Callable[[T], int]) -> list[T]:
    """``items`` (in name order) reordered so that ``join(..., k)`` names the ones ranked
    highest, in name order, and counts the rest as "and N more"."""
    if len(items) <= k:
        return items
    shown = max(k - 1, 1)
    top = sorted(items, key=rank)[:shown]  # stable: ties keep name order
    chosen = {id(x) for x in top}
    return [x for x in items if id(x) in chosen] + [x for x in items if id(x) not in chosen]


def _stale(d: Draft) -> tuple[str, str]:
    """A root blocker nobody has confirmed for a while: the dependency wording, and the
    date it was last confirmed."""
    c = _Cone(d)
    date = d.confirmed_at[:10]
    tail = f" Nobody has confirmed it since {date}: it may be stale."
    name = f"Stale blocker: {d.roots[0].name} (last confirmed {date})"
    body = _fit(
        partial(_dependency_summary, c),
        partial(_dependency_counts, c),
        room=MAX_SUMMARY - len(tail),
    )
    return name, body + tail


def _tally(ents: list[Entity]) -> str:
    """'two workstreams, one person and one team' (empty when there is nothing)."""
    w = sum(1 for e in ents if _is_work(e))
    p = sum(1 for e in ents if e.type is EntityType.PERSON)
    t = len(ents) - w - p
    return join(
        [
            counted(n, s, pl)
            for n, s, pl in (
                (w, "workstream", "workstreams"),
                (p, "person", "people"),
                (t, "team", "teams"),
            )
            if n
        ]
    )


def _behind(d: Draft, k: int, what: str) -> str:
    """'Blocked behind it: Alice's API and the search rewrite (two workstreams), and
    Alice.' or '' when nothing waits."""
    work = [b for b in d.blocked if _is_work(b.entity)]
    waiting = work + [b for b in d.blocked if not _is_work(b.entity)]
    if not waiting:
        return ""
    ordered = _pick(waiting, k, lambda b: b.depth)
    names = join([item_phrase(b) for b in ordered], k)
    people = [p.name if p.type is EntityType.PERSON else the(p) for p in d.people]
    who = f"; their work stalls for {join(people, k)}" if people else ""
    return f" Blocked behind {what}: {names} ({_tally([b.entity for b in waiting])}){who}."


def _cycle(d: Draft) -> tuple[str, str]:
    """'Deadlock: the A and the B wait on each other' and everything behind it.
    ``d.path`` is one shortest cycle in wait order; ``d.roots`` every item caught in the
    tangle (each waits, directly or not, on every other)."""
    loop = d.path
    n = len(d.roots)
    name = f"Deadlock: {join([e.name for e in d.roots], 3)} wait on each other"

    def summary(k: int) -> str:
        pairs = list(zip(loop, [*loop[1:], loop[0]], strict=True))
        steps = [f"{the(a)} waits on {the(b)}" for a, b in pairs[:k]]
        if len(pairs) > k:
            steps[-1] = f"{number(len(pairs) - k + 1)} more waits lead back to {the(loop[0])}"
        head = capitalize(join(steps, k + 1))
        extra = n - len(loop)
        if extra:
            head += (
                f"; {counted(extra, 'more work item is', 'more work items are')} caught in"
                " the same tangle"
            )
        head += (
            f": {every(n)} wait on each other, so {'neither' if n == 2 else 'none'} can finish"
            " first."
        )
        owners = [the(o) for o in d.root_owners]
        owned = f" The cycle's work is owned by {join(owners, k)}." if owners else ""
        return head + owned + _behind(d, k, "the cycle")

    def counts(room: int) -> str:
        behind = _tally([b.entity for b in d.blocked])
        tail = f" {capitalize(behind)} {_be(len(d.blocked))} blocked behind it." if behind else ""
        body = (
            f" and {counted(n - 1, 'more work item', 'more work items')} wait on each other.{tail}"
        )
        return capitalize(clip(the(d.roots[0]), room - len(body))) + body

    return name, _fit(summary, counts)


def _owner(d: Draft) -> tuple[str, str]:
    """'The platform team owns three root blockers' with the work waiting on them."""
    owner = d.root_owners[0]
    who = owner.name if owner.type is EntityType.PERSON else f"the {owner.name}"
    roots = d.roots
    name = f"{capitalize(who)} owns {counted(len(roots), 'root blocker', 'root blockers')}"

    def summary(k: int) -> str:
        listed = join([the(r) for r in roots], k)
        waiting = _tally([b.entity for b in d.blocked])
        text = (
            f"{capitalize(who)} owns {counted(len(roots), 'root blocker', 'root blockers')}: "
            f"{listed}. In all, {waiting} {_be(len(d.blocked))} waiting on "
            f"{'it' if len(roots) == 1 else 'them'}."
        )
        people = [p.name if p.type is EntityType.PERSON else the(p) for p in d.people]
        if people:
            text += f" Their work stalls for {join(people, k)}."
        return text

    def counts(room: int) -> str:
        waiting = _tally([b.entity for b in d.blocked])
        body = (
            f" owns {counted(len(roots), 'root blocker', 'root blockers')}; {waiting} "
            f"{_be(len(d.blocked))} waiting on them."
        )
        return capitalize(clip(who, room - len(body))) + body

    return name, _fit(summary, counts)


def _critical_path(d: Draft) -> tuple[str, str]:
    """'The longest chain of waits is four hops: the A waits on the B, which waits on
    ...'."""
    chain = d.path
    hops = len(chain) - 1
    bottom = chain[-1]
    name = f"Critical path: {counted(hops, 'hop', 'hops')} down to {the(bottom)}"

    def summary(k: int) -> str:
        steps = [the(e) for e in chain]
        if len(steps) > k + 1:
            skipped = len(steps) - k
            steps = [*steps[: k - 1], f"{number(skipped)} more items", steps[-1]]
        text = f"The longest chain of waits is {counted(hops, 'hop', 'hops')}: {steps[0]} waits"
        text += f" on {steps[1]}" + "".join(f", which waits on {s}" for s in steps[2:]) + "."
        owners = [the(o) for o in d.root_owners]
        owned = f", owned by {join(owners, k)}," if owners else ""
        return (
            text
            + f" Nothing on it can finish before {the(bottom)}{owned} does; every step adds its"
            " own wait."
        )

    def counts(room: int) -> str:
        body = f"The longest chain of waits is {counted(hops, 'hop', 'hops')}, down to "
        return body + clip(the(bottom), room - len(body) - 1) + "."

    return name, _fit(summary, counts)


def _dependency(d: Draft) -> tuple[str, str]:
    c = _Cone(d)
    n_work = len(c.work)
    if n_work >= 2:
        name = f"{capitalize(c.root.name)} blocking multiple workstreams"
    elif n_work == 1:
        name = f"{capitalize(c.root.name)} blocking {c.work[0].entity.name}"
    else:
        name = f"{capitalize(c.root.name)} blocking {join([the(b.entity) for b in d.blocked], 3)}"
    return name, _fit(partial(_dependency_summary, c), partial(_dependency_counts, c))


def _lead(c: _Cone, limit: int, root: str | None = None) -> str:
    """'The auth service refactor, owned by the backend team, is the root blocker for
    three workstreams.'"""
    root_text = root if root is not None else the(c.root)
    owners = [the(o) for o in c.root_owners]
    owned = f", owned by {join(owners, limit)}," if owners else ""
    n_work = len(c.work)
    target = f" for {counted(n_work, 'workstream', 'workstreams')}" if n_work else ""
    return f"{capitalize(root_text)}{owned} is the root blocker{target}."


def _be(n: int) -> str:
    return "is" if n == 1 else "are"


def _dependency_summary(c: _Cone, k: int) -> str:
    """The full wording: lists longer than ``k`` cut to ``k - 1`` names and "N more",
    at most ``k - 2`` downstream groups spelled out (the rest counted)."""
    sentences = [_lead(c, k)]
    clauses: list[str] = []
    if c.direct_work:
        verb = "waits" if len(c.direct_work) == 1 else "wait"
        clauses.append(
            f"{join([item_phrase(b) for b in c.blocked(c.direct_work, k)], k)} {verb} on it directly"
        )
    for waiting in c.direct_waiting:
        if waiting:
            names = [the(b.entity) for b in c.blocked(waiting, k)]
            clauses.append(f"{join(names, k)} {_be(len(names))} blocked on it directly")
    shown = c.groups[: max(k - 2, 0)]
    for (via_ids, _), items in shown:
        via_entities = [c.entities[i] for i in via_ids if i in c.entities]
        via = join([entity_phrase(v, c.owners_by_item) for v in via_entities], 2) or "other work"
        clauses.append(
            f"{join([item_phrase(b) for b in c.blocked(items, k)], k)} {_be(len(items))} "
            f"blocked downstream of {via}"
        )
    rest = [b for _, items in c.groups[len(shown) :] for b in items]
    if rest:
        more = " more" if shown else ""
        w = sum(1 for b in rest if _is_work(b.entity))
        p = sum(1 for b in rest if b.entity.type is EntityType.PERSON)
        t = len(rest) - w - p
        parts = [
            counted(n, f"{more} {s}".strip(), f"{more} {pl}".strip())
            for n, s, pl in (
                (w, "workstream", "workstreams"),
                (p, "person", "people"),
                (t, "team", "teams"),
            )
            if n
        ]
        below = (
            "further downstream"
            if shown or c.direct_work or any(c.direct_waiting)
            else "downstream"
        )
        clauses.append(f"{join(parts)} {_be(len(rest))} blocked {below}")
    if clauses:
        sentences.append(capitalize("; ".join(clauses)) + ".")
    sentences.append(f"Unblocking {the(c.root)} would clear {_cleared(c, k)}.")
    return " ".join(sentences)


def _cleared(c: _Cone, k: int) -> str:
    """Whom unblocking the root clears: 'all three: Alice, Bob and Clara' (when the
    people are as many as the workstreams), 'both people (Alice and Bob) and the data
    team', or, with nobody named, the workstreams."""
    persons = [p.name for p in c.cleared(c.persons, k)]
    teams = [the(t) for t in c.cleared(c.teams, k)]
    if persons and not teams and len(persons) == len(c.work) and len(persons) >= 2:
        return f"{every(len(persons))}: {join(persons, k)}"
    parts = []
    for names, noun in ((persons, "people"), (teams, "teams")):
        if len(names) == 1:
            parts.append(names[0])
        elif names:
            parts.append(f"{every(len(names))} {noun} ({join(names, k)})")
    if parts:
        return " and ".join(parts)
    if len(c.work) == 1:
        return item_phrase(c.work[0])
    return f"{every(len(c.work))} workstreams"


def _dependency_counts(c: _Cone, room: int) -> str:
    """The last resort: counts only, the root's name clipped so the whole fits ``room``."""

    def tally(bs: list[Blocked] | list[Entity]) -> str:
        ents = [b.entity if isinstance(b, Blocked) else b for b in bs]
        w = sum(1 for e in ents if _is_work(e))
        p = sum(1 for e in ents if e.type is EntityType.PERSON)
        t = len(ents) - w - p
        return join(
            [
                counted(n, s, pl)
                for n, s, pl in (
                    (w, "workstream", "workstreams"),
                    (p, "person", "people"),
                    (t, "team", "teams"),
                )
                if n
            ]
        )

    direct = c.direct_work + c.direct_waiting[0] + c.direct_waiting[1]
    tail = ""
    if direct:
        tail += f" {capitalize(tally(direct))} {'waits' if len(direct) == 1 else 'wait'} on it directly."
    cleared = tally(c.persons + c.teams)
    if cleared:
        tail += f" Unblocking it would clear {cleared}."
    n_work = len(c.work)
    target = f" for {counted(n_work, 'workstream', 'workstreams')}" if n_work else ""
    body = f" is the root blocker{target}.{tail}"
    return capitalize(clip(the(c.root), room - len(body))) + body


_VERBS = {
    Relation.OWNS: "owns",
    Relation.BLOCKED_BY: "is waiting on",
    Relation.COMPLETED: "completed",
    Relation.UNBLOCKED_FROM: "is no longer waiting on",
}


def _shared_context(d: Draft) -> tuple[str, str]:
    topic = d.roots[0]
    name = f"Shared context: {topic.name}"
    authors = sorted({e.author for e in d.episodes if e.author})
    n = len(d.episodes)

    def statements(k: int) -> list[str]:
        said = []
        for fact, count in d.shared[: len(d.shared) if len(d.shared) <= k else k - 1]:
            src = d.entities[fact.source_id]
            tgt = d.entities[fact.target_id]
            said.append(f"{the(src)} {_VERBS[fact.relation]} {the(tgt)} ({number(count)} updates)")
        return said

    def summary(k: int) -> str:
        said = statements(k)
        rest = len(d.shared) - len(said)
        listed = join(said + [counted(rest, "more fact", "more facts")] if rest else said)
        who = f" from {join(authors, k)}" if authors else ""
        return (
            f"{capitalize(number(n))} updates{who} share the same facts: {listed}. "
            "Nothing in them waits on other work."
        )

    def counts(room: int) -> str:
        facts = counted(len(d.shared), "fact", "facts")
        people = f" from {counted(len(authors), 'author', 'authors')}" if authors else ""
        head = f"{capitalize(number(n))} updates{people} share {facts} about "
        return head + clip(the(topic), room - len(head) - 1) + "."

    return name, _fit(summary, counts)
