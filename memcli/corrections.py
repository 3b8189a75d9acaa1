"""People steering what memcli stored: entity merges and corrections. The library.

Merges (``alias``, ``unmerge``, ``suggest_merges``, ``auto_resolve``) are recorded
decisions in ``entity_merges``: who, when, why, and when undone. Facts keep the entities
they were stated with; analysis reads each fact end as the entity it resolves to (see
``Store.entity_canon``). So a merge rewrites nothing and an unmerge restores everything
by stamping one row: the next analyze (always a full pass after a merge changes) forms,
regenerates or retires observations accordingly, with the usual history.

Corrections (``retract``, ``move_episode``, ``rename_graph``, ``delete_graph``) change
what is stored; observations stay read-only and follow on the next analyze.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from functools import partial
from typing import Any

from memcli import identity
from memcli.errors import NotFound, UsageError
from memcli.resolve import normalize
from memcli.store import Store, utcnow

PERSON = "person"
AUTO = "auto"


def _require_graph(store: Store, graph: str) -> None:
    if not store.graph_exists(graph):
        known = ", ".join(store.graph_ids()) or "none yet"
        raise NotFound(f"no graph named {graph!r} (graphs: {known})")


def _named(store: Store, graph: str, name: str, type_: str | None) -> list[dict[str, Any]]:
    norm = normalize(name)
    found = store.entities_named(graph, norm, name.strip()) if norm else []
    if type_ is not None:
        found = [e for e in found if e["type"] == type_]
    if not found:
        kind = f" {type_.replace('_', ' ')}" if type_ else ""
        raise NotFound(
            f"no{kind} entity named {name!r} in graph {graph!r}",
            hint=f"see 'memcli entities --graph {graph}'",
        )
    return found


def _scrubbed(reason: str | None) -> str | None:
    """A person's reason with any secret in it redacted: a reason is free text, stored
    and exported like an update, so it keeps the same promise."""
    if not reason:
        return reason
    from memcli.redact import redact

    return redact(reason)[0]


def _pair(
    store: Store, graph: str, name: str, to: str, type_: str | None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """The alias and canonical entities, of one type (asked for, or the only one both
    names share)."""
    left, right = _named(store, graph, name, type_), _named(store, graph, to, type_)
    common = sorted({e["type"] for e in left} & {e["type"] for e in right})
    if not common:
        raise UsageError(
            f"{name!r} ({', '.join(sorted({e['type'] for e in left}))}) and {to!r} "
            f"({', '.join(sorted({e['type'] for e in right}))}) are different kinds of "
            "entity: only a person, a team or a work item can be merged with its own kind"
        )
    if len(common) > 1:
        raise UsageError(
            f"{name!r} and {to!r} both name a {' and a '.join(common)}",
            hint="say which with --type",
        )
    pick = common[0]
    return (
        next(e for e in left if e["type"] == pick),
        next(e for e in right if e["type"] == pick),
    )


def alias(
    store: Store,
    graph: str,
    name: str,
    to: str,
    *,
    type_: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """Record that ``name`` is another name for ``to`` in ``graph``; reversible with
    ``unmerge``. Returns the merge (id, alias, canonical, reason, ...). Merging a name
    already merged into the same entity changes nothing."""
    _require_graph(store, graph)
    with store.transaction():
        a, c = _pair(store, graph, name, to, type_)
        if a["id"] == c["id"]:
            raise UsageError(f"{name!r} and {to!r} are already the same entity")
        canon = store.entity_canon(graph)
        if canon.get(a["id"]) == canon.get(c["id"], c["id"]):
            current = next(m for m in store.merges(graph) if m["entity_id"] == a["id"])
            return {**current, "changed": False}
        if a["id"] in canon:
            current = next(m for m in store.merges(graph) if m["entity_id"] == a["id"])
            raise UsageError(
                f"{a['name']!r} is already merged into {current['canonical']!r}",
                hint=f"undo that first: memcli entity unmerge {a['name']!r} --graph {graph}",
            )
        if canon.get(c["id"]) == a["id"]:
            raise UsageError(
                f"{c['name']!r} is merged into {a['name']!r}: merging back would make a loop",
                hint=f"unmerge {c['name']!r} first, or merge the other way round",
            )
        why = (
            _scrubbed(reason)
            or f"{a['name']!r} is another name for {c['name']!r} (a person said so)"
        )
        merge_id = store.record_merge(
            graph, a["id"], c["id"], decided_by=PERSON, reason=why, now=utcnow()
        )
        row = next(m for m in store.merges(graph) if m["id"] == merge_id)
    return {**row, "changed": True}


def unmerge(
    store: Store,
    graph: str,
    name: str,
    *,
    type_: str | None = None,
    reason: str | None = None,
) -> dict[str, Any]:
    """Undo the merge of ``name`` into another entity. The decision stays in the history
    (``undone_at``), and memcli never merges that pair automatically again."""
    _require_graph(store, graph)
    with store.transaction():
        found = _named(store, graph, name, type_)
        merges = {m["entity_id"]: m for m in store.merges(graph)}
        hits = [merges[e["id"]] for e in found if e["id"] in merges]
        if not hits:
            into = [
                m["alias"] for m in merges.values() if m["canonical_id"] in {e["id"] for e in found}
            ]
            hint = (
                f"names merged into it: {', '.join(sorted(into))}; unmerge those"
                if into
                else f"see the merges with 'memcli entities --graph {graph} --json'"
            )
            raise NotFound(f"{name!r} is not merged into anything in graph {graph!r}", hint=hint)
        if len(hits) > 1:
            raise UsageError(
                f"{name!r} names several merged entities", hint="say which with --type"
            )
        m = hits[0]
        store.undo_merge(
            m["id"],
            by=PERSON,
            reason=_scrubbed(reason) or "undone by a person with 'memcli entity unmerge'",
            now=utcnow(),
        )
        row = next(r for r in store.merges(graph, include_undone=True) if r["id"] == m["id"])
    return row


def restore(
    store: Store,
    graph: str,
    alias_name: str,
    canonical_name: str,
    type_: str,
    *,
    decided_by: str,
    reason: str,
    undone: bool,
    undo_reason: str | None,
) -> bool:
    """Record again a merge decision read from an export (see ``memcli.transfer``): a
    merge a person made, or one a person undid. Returns False when the store already
    holds the decision (importing twice changes nothing). Raises NotFound when a name
    is not in the graph, UsageError when a standing merge is in the way (the alias
    merged into something else, or the merge would make a loop)."""
    if not undone:
        made = alias(store, graph, alias_name, canonical_name, type_=type_, reason=reason or None)
        return bool(made["changed"])
    with store.transaction():
        a, c = _pair(store, graph, alias_name, canonical_name, type_)
        if (a["id"], c["id"]) in store.refused_merges(graph):
            return False
        now = utcnow()
        standing = next((m for m in store.merges(graph) if m["entity_id"] == a["id"]), None)
        if standing is not None and standing["canonical_id"] == c["id"]:
            merge_id = int(standing["id"])
        else:
            merge_id = store.record_merge(
                graph, a["id"], c["id"], decided_by=decided_by, reason=reason, now=now
            )
        store.undo_merge(
            merge_id, by=PERSON, reason=undo_reason or "undone by a person (imported)", now=now
        )
    return True


def _names(
    store: Store,
    graph: str,
    canon: dict[int, int],
    rows: Sequence[tuple[int, str, str, str]] | None = None,
) -> list[identity.Name]:
    """The graph's entities as identity sees them: merged aliases left out. ``rows``:
    the graph's ``identity_name_rows``, when the caller has them."""
    if rows is None:
        rows = store.identity_name_rows(graph)
    if canon:
        rows = [r for r in rows if r[0] not in canon]
    # rows become named tuples in C (``Name._make`` is a Python-level call per row)
    return list(map(partial(tuple.__new__, identity.Name), rows))


def suggest_merges(store: Store, graph: str) -> list[dict[str, Any]]:
    """Likely duplicates in ``graph`` with why (see ``memcli.identity``), most reasons
    first; ``automatic`` marks those the next analyze merges by itself."""
    _require_graph(store, graph)
    canon = store.entity_canon(graph)
    names = _names(store, graph, canon)
    by_id = {n.id: n for n in names}
    neighbours: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for entity, rel, other in store.entity_neighbours(graph):
        e, o = canon.get(entity, entity), canon.get(other, other)
        if e in by_id and o in by_id and e != o:
            neighbours[e].append((rel, by_id[o].name))
    found = identity.suggest(names, neighbours, refused=store.refused_merges(graph))
    return [c.as_dict() for c in found]


def _start(norm: str) -> str:
    """The first character of a name's first word: a name and every longer name it may
    stand for (``identity.auto_merges``) share it, and their type."""
    words = identity.tokens(norm)
    return words[0][0] if words else ""


def _batches(items: list[Any], size: int = 20) -> list[list[Any]]:
    """``items`` in runs of ``size``: names read together share one read of the store,
    and each then looks through what the others matched as well, so runs stay short."""
    return [items[i : i + size] for i in range(0, len(items), size)]


def _lead_key(kind: str, words: Sequence[str]) -> tuple[str, str, str]:
    """The names a name may stand for are read by its type, its first word and the first
    letter of its second: one read serves every name with the same key."""
    return (kind, words[0], words[1][0] if len(words) > 1 else "")


def _names_near(
    store: Store, graph: str, canon: dict[int, int], since: str, decided: str
) -> list[identity.Name]:
    """The names an automatic-merge check has to look at, merged aliases left out: the
    names created since ``since`` and both ends of merge decisions made or undone since
    ``decided`` ("touched"), the names that may stand for a touched one, and every name
    each of those may stand for, and so on.

    A check finds, for each name, every longer name it fits (``identity.relation``);
    these names hold all of them for each of these names, so what the check finds among
    them is what it finds among all names for them. A name that neither was touched nor
    fits a touched one fits what it fitted at the last check, which made its merge
    then if it had one."""
    types = sorted(identity.AUTO_TYPES)
    touched = [identity.Name(*r) for r in store.identity_rows_touched(graph, since, decided, types)]
    near = {n.id: n for n in touched if n.id not in canon}
    # One read per type and first character, for every name that shares them: what it
    # returns is a superset for each name, and ``identity.relation`` decides.
    inside: dict[tuple[str, str], list[identity.Name]] = defaultdict(list)
    for t in touched:
        start = _start(t.norm)
        if start:
            inside[(t.type, start)].append(t)
    for (kind, start), alike in sorted(inside.items()):
        for group in _batches(alike):
            rows = store.identity_rows_inside(graph, kind, start, [t.norm for t in group])
            for t in group:
                for r in rows:
                    s = identity.Name(*r)
                    if (
                        s.id not in canon
                        and s.id not in near
                        and identity.relation(s, t) is not None
                    ):
                        near[s.id] = s
    led_by: dict[tuple[str, str, str], list[identity.Name]] = {}
    frontier = list(near.values())
    while frontier:
        # the names each of this round may stand for, read together per type and
        # first character
        wanted: dict[tuple[str, str], dict[tuple[str, str, str], Sequence[str]]]
        wanted = defaultdict(dict)
        for x in frontier:
            words = identity.tokens(x.norm)
            if words and (key := _lead_key(x.type, words)) not in led_by:
                wanted[(x.type, words[0][0])][key] = words[:2]
        for (kind, _), keys in sorted(wanted.items()):
            for batch in _batches(list(keys)):
                names = [
                    identity.Name(*r)
                    for r in store.identity_rows_led_by(graph, kind, [keys[k] for k in batch])
                    if r[0] not in canon
                ]
                for key in batch:
                    led_by[key] = names
        grown = []
        for x in frontier:
            words = identity.tokens(x.norm)
            if not words:
                continue
            for n in led_by[_lead_key(x.type, words)]:
                if n.id not in near and identity.relation(x, n) is not None:
                    near[n.id] = n
                    grown.append(n)
        frontier = grown
    return sorted(near.values(), key=lambda n: n.id)


def auto_resolve(
    store: Store,
    graph: str,
    *,
    since: str | None = None,
    rows: Sequence[tuple[int, str, str, str]] | None = None,
) -> list[dict[str, Any]]:
    """Make the merges that are safe without asking (``identity.auto_merges`` and
    ``identity.short_forms``), each recorded with its evidence as decided by 'auto'.
    Call inside a transaction.

    ``since``: the start of the last analyze, when only ingest and merge decisions
    changed the names after it (none was dropped): only the names near those created
    since, or whose merge changed since the last check, are read (``_names_near``).
    ``rows``: the graph's ``Store.identity_name_rows``, when the caller read them in
    this transaction (an analyze hands the same rows to its load)."""
    _recheck_short_forms(store, graph)  # an undo makes this a full pass
    canon = store.entity_canon(graph)
    made = []
    now = utcnow()
    # The last check saw every name created before ``since``, so it ran after the
    # newest of them: merge decisions made since then may change what names fit.
    decided = None if since is None else store.identity_check_since(graph, since)
    if since is None or decided is None:
        names = _names(store, graph, canon, rows)
    else:
        names = _names_near(store, graph, canon, since, decided)
    found = identity.auto_merges(names, refused=store.refused_merges(graph))
    merged = {c.alias.id for c in found}
    # Short forms ("Tunde", "2210", "the auth stuff") among the same names; a name the
    # abbreviation check merged already is left to that merge.
    for c in _short_forms(store, graph, names, canon):
        if c.alias.id not in merged:
            merged.add(c.alias.id)
            found.append(c)
    for c in found:
        store.record_merge(
            graph, c.alias.id, c.canonical.id, decided_by=AUTO, reason=c.reasons[0], now=now
        )
        made.append(c.as_dict())
    return made


# How the reasons of the short forms that hold only while one name fits begin or read
# (``identity.short_forms``): a first name, a bare number, a project key.
_ONLY_ONE = re.compile(r"is the first name|is the number of the only|is the project of the only")


def _recheck_short_forms(store: Store, graph: str) -> bool:
    """Undo, by 'auto', each short-form merge made while one name fitted that no longer
    holds: "Tunde" once the graph has a second Tunde, "auth" once it has a second AUTH
    ticket. Read at once, those updates would not have merged it; a merge that came
    first must not stay for that alone. No refusal: the next check decides again.
    Whether any was undone (an undo marks the graph for a full pass)."""
    merges = [
        m for m in store.merges(graph) if m["decided_by"] == AUTO and _ONLY_ONE.search(m["reason"])
    ]
    if not merges:
        return False
    canon = store.entity_canon(graph)
    aliases = [
        identity.Name._make(r)
        for r in store.identity_rows_by_id(graph, [m["entity_id"] for m in merges])
    ]
    live = [a for a in aliases if a.type == "work_item"]
    numbers = [a for a in live if a.name.isdigit()]
    bases = [a for a in live if " " not in a.norm and not a.name.isdigit()]
    people = [identity.Name._make(r) for r in store.person_rows(graph) if r[0] not in canon]
    people += [a for a in aliases if a.type == "person"]
    tickets = [
        identity.Name._make(r)
        for r in store.rows_ending(graph, [n.name for n in numbers])
        if r[0] not in canon
    ]
    keyed = [
        identity.Name._make(r)
        for r in store.rows_keyed(graph, [b.norm for b in bases])
        if r[0] not in canon
    ]
    still = {
        (c.alias.id, c.canonical.id)
        for c in identity.short_forms(people, numbers, tickets, bases=[*bases, *keyed])
    }
    undone = False
    for m in merges:
        if m["canonical_id"] in canon or (m["entity_id"], m["canonical_id"]) in still:
            continue  # still the only fit, or a person merged the full name on: theirs
        why = "another name fits it too now: which one is meant is not said"
        store.undo_merge(m["id"], by=AUTO, reason=why, now=utcnow())
        undone = True
    return undone


def _short_forms(
    store: Store, graph: str, names: Sequence[identity.Name], canon: dict[int, int]
) -> list[identity.Candidate]:
    """The short-form merges (``identity.short_forms``) among ``names``, the names the
    automatic-merge check looked at (every name, or those near the new ones: a vague
    name, its base and that base's tickets share their first word, so they are near
    each other). People are read whole (a few hundred even in a large graph); the
    tickets a bare number or "same X" may stand for are looked up only when one is
    among ``names``."""
    people = [identity.Name._make(r) for r in store.person_rows(graph) if r[0] not in canon]
    numbers, sames, vague, bases = [], [], [], []
    for n in names:  # one pass: a full check looks at every name of the graph
        norm = n.norm
        if " " not in norm:
            if norm[:1].isdigit() and n.name.isdigit():
                numbers.append(n)
            else:
                bases.append(n)  # "auth": a vague name's base, or a project key
        elif norm.endswith(identity.VAGUE_ENDINGS):
            vague.append(n)
        elif norm[-1:].isdigit():
            bases.append(n)  # "auth 212": maybe a ticket of project "auth"
        elif norm.startswith("same "):
            sames.append(n)
    numbers, sames, vague, bases = (
        [n for n in group if n.type == "work_item"] for group in (numbers, sames, vague, bases)
    )
    tickets: list[identity.Name] = []
    if numbers or sames:
        endings = [n.name for n in numbers] + [s.norm.removeprefix("same ") for s in sames]
        tickets = [
            identity.Name._make(r) for r in store.rows_ending(graph, endings) if r[0] not in canon
        ]
    return identity.short_forms(
        people,
        numbers,
        tickets,
        sames=sames,
        vague=vague,
        bases=bases,
        refused=store.refused_merges(graph),
    )


def stated_resolve(store: Store, graph: str) -> list[dict[str, Any]]:
    """Make the merges the updates' own text asks for (``identity.stated_merges``): a
    name written beside a ticket id into that ticket, each recorded as decided by 'auto'
    with the update that said so. Call inside a transaction. Reads only the pairs whose
    name and ticket are both entities of the graph, so it runs on every analyze.

    A merge made this way is undone first, by 'auto', when no update says it any more
    (retracted, or moved to another graph: its only evidence is gone), or when a later
    update writes the same name beside another ticket (which one it means is no longer
    said: the updates read at once would not have merged it). Such an undo is no
    refusal; the pairs decide again at each analyze."""
    pairs = store.stated_pairs(graph)
    canon = store.entity_canon(graph)
    beside: dict[int, set[int]] = defaultdict(set)  # name -> the tickets it is written beside
    for _e, _w, t, n in pairs:
        beside[n].add(t)
    for m in store.merges(graph):
        if m["decided_by"] != AUTO or not m["reason"].startswith(identity.STATED):
            continue
        tickets = beside.get(m["entity_id"], set())
        if m["canonical_id"] not in tickets:
            why = "no update states it any more (retracted, or moved to another graph)"
        elif len({canon.get(t, t) for t in tickets}) > 1:
            why = "the name is written beside another ticket too: which one is not said"
        else:
            continue
        store.undo_merge(m["id"], by=AUTO, reason=why, now=utcnow())
    if not pairs:
        return []
    ids = {i for _e, _w, t, n in pairs for i in (t, n)}
    names = {r[0]: identity.Name._make(r) for r in store.identity_rows_by_id(graph, ids)}
    stated = [
        identity.Stated(episode, written, names[t], names[n]) for episode, written, t, n in pairs
    ]
    made = []
    now = utcnow()
    canon = store.entity_canon(graph)  # without the merges undone above
    for c in identity.stated_merges(stated, canon, refused=store.refused_merges(graph)):
        store.record_merge(
            graph, c.alias.id, c.canonical.id, decided_by=AUTO, reason=c.reasons[0], now=now
        )
        made.append(c.as_dict())
    return made


def merges(store: Store, graph: str, *, include_undone: bool = True) -> list[dict[str, Any]]:
    """Every merge decision of ``graph``, with who made it, when, why, and any undo."""
    _require_graph(store, graph)
    return store.merges(graph, include_undone=include_undone)


# --- corrections ---


def _episode(store: Store, episode_id: int) -> dict[str, Any]:
    row = store.episode_row(episode_id)
    if row is None:
        raise NotFound(
            f"no episode #{episode_id}", hint="see 'memcli search QUERY --scope episodes'"
        )
    return row


def _reapply(store: Store, episode_ids: list[int]) -> int:
    """Apply the contradiction rules of these episodes again (not retracted ones)."""
    ended = 0
    for i in episode_ids:
        row = store.episode_row(i)
        if row is not None and row["retracted_at"] is None:
            ended += store.apply_contradictions(i)
    return ended


def retract(store: Store, episode_id: int, *, reason: str | None = None) -> dict[str, Any]:
    """Withdraw an episode: it stays stored, marked retracted with ``reason``; its facts
    end at the retraction; what it had ended (a completion it reported) holds again
    unless another update ends it; analysis and search evidence leave it out. The next
    analyze regenerates or retires the observations it supported, saying why."""
    row = _episode(store, episode_id)
    if row["retracted_at"] is not None:
        raise UsageError(
            f"episode #{episode_id} was already retracted on {row['retracted_at'][:10]}"
            + (f": {row['retract_reason']}" if row["retract_reason"] else "")
        )
    now = utcnow()
    with store.transaction():
        ended = store.retract_episode(episode_id, reason, now)
        touched = store.reset_ends_by([episode_id])
        _reapply(store, touched)
        store.mark_needs_full(row["graph_id"])
    return {
        "episode_id": episode_id,
        "graph": row["graph_id"],
        "source": row["source"],
        "retracted_at": now,
        "reason": reason,
        "facts_ended": ended,
        "facts_restored_from": touched,
    }


def derived_facts(store: Store, episode_id: int) -> list[int]:
    """The ``unblocked_from`` facts an update's releases made for the waits of its graph
    ("X is unblocked" with no blocker named): each has a released item as its source
    and the release's sentence."""
    released = {
        (r["item_type"], r["item_norm"], r["sentence"]) for r in store.episode_releases(episode_id)
    }
    if not released:
        return []
    return [
        int(f["id"])
        for f in store.episode_fact_rows(episode_id)
        if f["relation"] == "unblocked_from"
        and (f["source_type"], f["source_norm"], f["sentence"]) in released
    ]


def move_episode(store: Store, episode_id: int, to_graph: str) -> dict[str, Any]:
    """Move an episode with its facts to ``to_graph`` (created if new). Its entities are
    resolved again in the new graph, its signatures re-derived, and the contradiction
    rules re-applied on both sides; both graphs' next analyze is a full pass."""
    from memcli.api import release_stored
    from memcli.signatures import fact_signatures

    row = _episode(store, episode_id)
    to_graph = to_graph.strip()
    if not to_graph:
        raise UsageError("empty graph name")
    old = row["graph_id"]
    if old == to_graph:
        raise UsageError(f"episode #{episode_id} is already in graph {to_graph!r}")
    same = store.episode_id_by_hash(to_graph, row["content_hash"])
    if same is not None:
        raise UsageError(
            f"graph {to_graph!r} already holds this update as episode #{same}",
            hint=f"retract #{episode_id} instead: memcli episode retract {episode_id}",
        )
    with store.transaction():
        store.ensure_graph(to_graph)
        touched = store.reset_ends_by([episode_id])
        # The facts its releases made for the old graph's waits stay behind: the new
        # graph's waits get theirs from ``release_stored`` below.
        store.delete_facts(derived_facts(store, episode_id))
        ends = store.episode_fact_ends(episode_id)
        store.move_episode_rows(episode_id, to_graph)
        old_entities: set[int] = set()
        for f in ends:
            src = store.upsert_entity(
                to_graph, f["source_name"], f["source_norm"], f["source_type"]
            )
            tgt = store.upsert_entity(
                to_graph, f["target_name"], f["target_norm"], f["target_type"]
            )
            store.repoint_fact(f["id"], src, tgt)
            store.add_signatures(
                to_graph,
                f["id"],
                fact_signatures(
                    (f["source_type"], f["source_norm"]),
                    f["relation"],
                    (f["target_type"], f["target_norm"]),
                ),
            )
            old_entities |= {f["source_id"], f["target_id"]}
        release_stored(store, episode_id)  # its releases and waits meet the new graph's
        if row["retracted_at"] is None:
            store.apply_contradictions(episode_id)
        _reapply(store, touched)
        store.end_contradicted()
        dropped = store.drop_unused_entities(old_entities)
        for g in (old, to_graph):
            store.mark_needs_full(g)
            store.bump_ingest(g)
    return {
        "episode_id": episode_id,
        "from": old,
        "to": to_graph,
        "facts": len(ends),
        "entities_dropped": dropped,
    }


def rename_graph(store: Store, old: str, new: str) -> dict[str, Any]:
    """Rename a graph: every episode, fact, entity, observation and run moves with it."""
    _require_graph(store, old)
    new = new.strip()
    if not new:
        raise UsageError("empty graph name")
    if store.graph_exists(new):
        raise UsageError(
            f"a graph named {new!r} already exists",
            hint="move single episodes with 'memcli episode move', or delete one graph first",
        )
    with store.transaction():
        store.rename_graph(old, new)
    return {"from": old, "to": new}


def delete_graph(store: Store, graph: str) -> dict[str, Any]:
    """Delete a graph and everything in it, in one transaction (all or nothing)."""
    _require_graph(store, graph)
    with store.transaction():
        counts = store.delete_graph(graph)
    return {"graph": graph, "deleted": {k: v for k, v in counts.items() if v}}
