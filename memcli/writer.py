"""The deterministic observation writer: a name and a summary from a draft. Pure.

Every clause is generated from the draft's structure, which comes from stored facts, so
every claim in a summary traces to a fact id. It writes for any cluster size: long lists
are cut to a few names and "N more".
"""

from __future__ import annotations

from memcli.analysis import DEPENDENCY, Blocked, Draft, Entity
from memcli.models import EntityType, Relation

MAX_LISTED = 6
_NUMBERS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]


def number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def join(items: list[str], limit: int = MAX_LISTED) -> str:
    """'a', 'a and b', 'a, b and c', 'a, b, c and 4 more'."""
    if not items:
        return ""
    if len(items) > limit:
        shown = items[: limit - 1]
        return f"{', '.join(shown)} and {len(items) - len(shown)} more"
    if len(items) == 1:
        return items[0]
    return f"{', '.join(items[:-1])} and {items[-1]}"


def capitalize(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def the(entity: Entity) -> str:
    """A work item or team as a sentence mentions it; people by name."""
    if entity.type is EntityType.PERSON:
        return entity.name
    return f"the {entity.name}"


def possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def item_phrase(b: Blocked) -> str:
    """'Alice's API migration', 'the platform team's deploy', or 'the search rewrite'."""
    if b.entity.type is not EntityType.WORK_ITEM:
        return b.entity.name
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
    """(name, summary) for a draft."""
    if draft.kind == DEPENDENCY:
        return _dependency(draft)
    return _shared_context(draft)


def _dependency(d: Draft) -> tuple[str, str]:
    root = d.roots[0]
    n_blocked = len(d.blocked)
    if n_blocked >= 2:
        name = f"{capitalize(root.name)} blocking multiple workstreams"
    else:
        name = f"{capitalize(root.name)} blocking {d.blocked[0].entity.name}"

    sentences: list[str] = []
    owned = f", owned by {join([the(o) for o in d.root_owners], 3)}," if d.root_owners else ""
    scope = "workstream" if n_blocked == 1 else "workstreams"
    sentences.append(
        f"{capitalize(the(root))}{owned} is the root blocker for {number(n_blocked)} {scope}."
    )
    direct = d.direct
    direct_phrases = [item_phrase(b) for b in direct]
    if direct_phrases:
        verb = "waits" if len(direct_phrases) == 1 else "wait"
        clause = f"{capitalize(join(direct_phrases))} {verb} on it directly"
    else:
        clause = ""
    downstream_clauses = []
    owners_by_item = {b.entity.id: b.owners for b in d.blocked}
    by_via: dict[tuple[int, ...], list[Blocked]] = {}
    for b in d.downstream:
        by_via.setdefault(tuple(v.id for v in b.via), []).append(b)
    for via_ids, items in by_via.items():
        via_entities = [d.entities[i] for i in via_ids if i in d.entities]
        via = join([entity_phrase(v, owners_by_item) for v in via_entities], 3) or "other work"
        verb = "is" if len(items) == 1 else "are"
        downstream_clauses.append(
            f"{join([item_phrase(b) for b in items])} {verb} blocked downstream of {via}"
        )
    if clause and downstream_clauses:
        sentences.append(f"{clause}; {'; '.join(downstream_clauses)}.")
    elif clause:
        sentences.append(f"{clause}.")
    elif downstream_clauses:
        sentences.append(f"{capitalize('; '.join(downstream_clauses))}.")

    people = [p.name if p.type is EntityType.PERSON else the(p) for p in d.people]
    if len(people) >= 2:
        count = f"all {number(len(people))}" if len(people) > 2 else "both"
        sentences.append(f"Unblocking {the(root)} would clear {count}: {join(people)}.")
    elif len(people) == 1:
        sentences.append(f"Unblocking {the(root)} would clear {people[0]}.")
    else:
        sentences.append(
            f"Unblocking {the(root)} would clear {number(n_blocked)} waiting "
            f"{'item' if n_blocked == 1 else 'items'}."
        )
    return name, " ".join(sentences)


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
    statements = []
    for fact, count in d.shared[:MAX_LISTED]:
        src = d.entities[fact.source_id]
        tgt = d.entities[fact.target_id]
        statements.append(
            f"{the(src)} {_VERBS[fact.relation]} {the(tgt)} ({number(count)} updates)"
        )
    who = f" from {join(authors)}" if authors else ""
    summary = (
        f"{capitalize(number(len(d.episodes)))} updates{who} share the same facts: "
        f"{join(statements)}. Nothing in them waits on other work."
    )
    return name, summary
