"""The read half of the library: what the read commands, the MCP tools and the Python
client return, built from the store's reads as the contract's records.

Kept apart from the ingest and analyze functions (``memcli.api``) so that a read
command loads neither the readers, the redaction rules, the connectors nor the writer.
``memcli.api`` re-exports every name here: library users import from either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from memcli.errors import NotFound, UsageError
from memcli.models import ObservationKind
from memcli.resolve import normalize
from memcli.search import (
    ANY_WEIGHT,
    HIGHLIGHT,
    Query,
    Scope,
    fuse,
    observation_score,
    parse_query,
)
from memcli.store import Store, utcnow
from memcli.store.reads import FACT_REF_KEYS

if TYPE_CHECKING:
    # The records are built only by the functions that return them: a command that
    # prints plain records (``observations --json``) never imports pydantic.
    from memcli.contract import (
        EntitySummary,
        EntityTimeline,
        Episode,
        GraphInfo,
        Observation,
        ObservationDetail,
        ObservationVersion,
        ObservationView,
        Report,
        SearchResult,
        StoredFact,
    )


def require_graph(store: Store, graph: str) -> None:
    store.require_graph(graph)


def observations(
    store: Store,
    graph: str | None = None,
    status: str = "active",
    ids: list[int] | None = None,
    as_of: str | None = None,
    limit: int | None = None,
    evidence: int | None = None,
) -> list[Observation]:
    """Observations (:class:`memcli.contract.Observation`), most leverage first (the
    first ``limit`` of them when given).

    ``as_of`` (world time) selects the observations that held then, whatever their
    status now: those whose pattern had formed (``valid_from``) and not yet ended, each
    shown with the status it had then (``status``; ``status_now`` is today's).
    ``confirmed_at`` is the date of the latest update that restated an observation's
    roots; ``stale`` is true for a root blocker nobody has confirmed for a while.

    ``evidence``: at most that many entities, episodes and facts per observation (the
    first of each list, in the order the full lists have; 0 keeps none). Each record is
    then a :class:`memcli.contract.ObservationView`, as the MCP server's, whose
    ``entities_total``, ``episodes_total`` and ``facts_total`` count the full lists and
    ``truncated`` says whether any was cut. The store cuts the lists, so memory follows
    the limit, not the evidence (a root blocking thousands of items cites them all).
    """
    from memcli.contract import Observation, ObservationView

    model = Observation if evidence is None else ObservationView
    return [
        model.model_validate(r)
        for r in observation_records(
            store, graph, status, ids=ids, as_of=as_of, limit=limit, evidence=evidence
        )
    ]


def observation_records(
    store: Store,
    graph: str | None = None,
    status: str = "active",
    *,
    ids: list[int] | None = None,
    as_of: str | None = None,
    limit: int | None = None,
    evidence: int | None = None,
) -> list[dict[str, Any]]:
    """The records of :func:`observations` as plain JSON data: each dict has the keys of
    :class:`memcli.contract.Observation` (``ObservationView`` with ``evidence``) in the
    contract's order, so it prints as the record would. For a caller that only prints
    them: validating ~10k nested evidence records per listing costs more than reading
    them (tests hold the two forms to the same JSON)."""
    rows = _observation_rows(
        store, graph, status, ids=ids, as_of=as_of, limit=limit, evidence=evidence
    )
    return _records(store, rows, as_of, evidence)


def _records(
    store: Store, rows: list[dict[str, Any]], as_of: str | None, evidence: int | None
) -> list[dict[str, Any]]:
    """:func:`observation_records` of these observation rows."""
    if not rows:
        return []
    obs_ids = [r["id"] for r in rows]
    roots: dict[int, tuple[list[str], str | None]]
    totals: dict[int, tuple[int, int, int]] = {}
    if evidence is None:
        lists = store.evidence_lists(obs_ids)
        roots = {
            i: _root_confirmation(
                [e["name"] for e in ents if e["role"] == "root"],
                [(f["target"], f["relation"], f["episode_id"]) for f in fs],
                {e["id"]: e["occurred_at"] for e in eps},
            )
            for i, (ents, eps, fs) in lists.items()
        }
    else:  # the lists are cut: the store reads what the whole lists would have said
        heads = store.evidence_heads(obs_ids, evidence)
        lists = {i: heads[i][0] for i in obs_ids}
        totals = {i: heads[i][1] for i in obs_ids}
        roots = store.root_confirmations(obs_ids)
    links = store.observation_link_map(obs_ids)
    out = []
    for r in rows:
        record = _observation_record(r, as_of, *roots[r["id"]], links[r["id"]])
        record["entities"], record["episodes"], record["facts"] = lists[r["id"]]
        if evidence is not None:
            # memcli.contract.ObservationView's own fields, after Observation's.
            n_ents, n_eps, n_facts = totals[r["id"]]
            record["graph_id"] = r["graph_id"]
            record["entities_total"] = n_ents
            record["episodes_total"] = n_eps
            record["facts_total"] = n_facts
            record["truncated"] = max(n_ents, n_eps, n_facts) > evidence
        out.append(record)
    return out


def observation_json(
    store: Store,
    graph: str | None = None,
    status: str = "active",
    *,
    as_of: str | None = None,
    limit: int | None = None,
    evidence: int | None = None,
) -> tuple[list[str], bool]:
    """The records of :func:`observation_records`, each as its compact JSON text (the
    bytes ``json.dumps(record, ensure_ascii=False, separators=(",", ":"))`` writes, which
    are the bytes the contract's ``model_dump_json`` writes), the first ``limit`` of them,
    and whether more observations matched than were returned.

    For a command that prints them: with every evidence item (``evidence`` None) SQLite
    writes each evidence list's JSON itself, so Python neither builds a dict per item
    nor encodes it again (tests hold the bytes to the models'); only the listed
    observations' evidence is read."""
    rows = _observation_rows(
        store, graph, status, as_of=as_of, limit=limit + 1 if limit else None, evidence=evidence
    )
    more = bool(limit) and len(rows) > (limit or 0)
    if more:
        rows = rows[:limit]
    if evidence is not None:  # cut lists: the records, encoded here
        return [_json_text(r) for r in _records(store, rows, as_of, evidence)], more
    if not rows:
        return [], more
    obs_ids = [r["id"] for r in rows]
    lists = store.evidence_json(obs_ids)
    links = store.observation_link_map(obs_ids)
    texts = []
    for r in rows:
        ev = lists[r["id"]]
        record = _observation_record(
            r, as_of, *_root_confirmation(ev.roots, ev.claims, ev.dates), links[r["id"]]
        )
        # The evidence lists go where their keys are (the contract's order).
        fields = list(record.items())
        at = list(record).index("entities")
        head, tail = _json_text(dict(fields[:at])), _json_text(dict(fields[at + 3 :]))
        texts.append(
            f'{head[:-1]},"entities":{ev.entities},"episodes":{ev.episodes},'
            f'"facts":{ev.facts},{tail[1:]}'
        )
    return texts, more


def _json_text(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def _observation_rows(
    store: Store,
    graph: str | None,
    status: str,
    *,
    ids: list[int] | None = None,
    as_of: str | None = None,
    limit: int | None = None,
    evidence: int | None = None,
) -> list[dict[str, Any]]:
    if status not in ("active", "retired", "all"):
        raise UsageError(f"unknown status {status!r}: use active, retired or all")
    if evidence is not None and evidence < 0:
        raise UsageError(f"evidence must be 0 or more, not {evidence}")
    if graph is not None:
        require_graph(store, graph)
    return store.observation_rows(graph, status, ids=ids, as_of=as_of, limit=limit)


def _observation_record(
    r: dict[str, Any],
    as_of: str | None,
    root_names: list[str],
    confirmed: str | None,
    links: dict[str, list[int]],
) -> dict[str, Any]:
    """An observation row as its record, keys in the order of
    :class:`memcli.contract.Observation`'s fields, without the evidence lists (the caller
    sets ``entities``, ``episodes`` and ``facts``, whose keys are already in place)."""
    status = r["status"]
    if as_of is not None:
        # The state at that moment: every row selected held then, whatever now.
        status = "active" if r["end_at"] is None or r["end_at"] > as_of else "retired"
    return {
        "id": r["id"],
        "graph": r["graph_id"],
        "name": r["name"],
        "summary": r["summary"],
        "status": status,
        "kind": r["kind"],
        "rank": r["rank"],
        "leverage": r["rank"],
        "root_entities": root_names,
        "entities": None,
        "episodes": None,
        "facts": None,
        "start_at": r["start_at"],
        "valid_from": r["valid_from"],
        "latest_evidence_at": r["latest_evidence_at"],
        "end_at": r["end_at"],
        "created_at": r["created_at"],
        "updated_at": r["updated_at"],
        "version": r["version"],
        "retire_reason": r["retire_reason"],
        "retired_by_episode": r["retired_by_episode"],
        "cluster_id": r["cluster_id"],
        "supersedes": sorted(links["supersedes"]),
        "superseded_by": sorted(links["superseded_by"]),
        "writer": r["writer"],
        "stale": r["kind"] == ObservationKind.STALE_BLOCKER,
        "confirmed_at": r["latest_evidence_at"] if confirmed is None else confirmed,
        "status_now": r["status"],
    }


def _root_confirmation(
    roots: list[str], claims: list[tuple[str, str, int]], dates: dict[int, str]
) -> tuple[list[str], str | None]:
    """From an observation's whole evidence (its root entities' names, each fact's
    target, relation and episode, each episode's date): the root names and the date of
    the latest evidence episode that stated a wait on, or an owner of, one of them."""
    confirming = {
        episode
        for target, relation, episode in claims
        if target in roots and relation in ("blocked_by", "owns")
    }
    confirmed = [when for episode, when in dates.items() if episode in confirming]
    return roots, max(confirmed) if confirmed else None


def observation_views(
    store: Store, graph: str, status: str = "active", *, evidence: int
) -> list[ObservationView]:
    """:func:`observations` with each evidence list cut to ``evidence`` items in SQL (0:
    counts only), typed as the views they are: what an agent's bounded reply needs,
    whatever the evidence holds."""
    from memcli.contract import ObservationView

    records = observation_records(store, graph, status, evidence=evidence)
    return [ObservationView.model_validate(r) for r in records]


def observation_view(store: Store, obs_id: int, evidence: int) -> ObservationView:
    """One observation (any status) as in :func:`observation_views`."""
    from memcli.contract import ObservationView

    found = observation_records(store, None, "all", ids=[obs_id], evidence=evidence)
    if not found:
        raise NotFound(f"no observation with id {obs_id}")
    return ObservationView.model_validate(found[0])


def observation(store: Store, obs_id: int) -> ObservationDetail:
    """One observation, with the other observations of its cluster as context."""
    from memcli.contract import ObservationDetail

    return ObservationDetail.model_validate(observation_record(store, obs_id))


def observation_record(store: Store, obs_id: int) -> dict[str, Any]:
    """The record of :func:`observation` as plain JSON data, keys in the order of
    :class:`memcli.contract.ObservationDetail`'s fields (see :func:`observation_records`)."""
    found = observation_records(store, None, "all", ids=[obs_id])
    if not found:
        raise NotFound(f"no observation with id {obs_id}")
    obs = found[0]
    siblings = store.cluster_siblings(obs["graph"], obs["cluster_id"], obs_id)
    obs["cluster"] = {"id": obs["cluster_id"], "observations": siblings}
    return obs


def history(store: Store, obs_id: int) -> list[ObservationVersion]:
    """Every version of an observation, oldest first, with its evidence ids."""
    from memcli.contract import ObservationVersion

    rows = store.observation_versions(obs_id)
    if not rows:
        raise NotFound(f"no observation with id {obs_id}")
    for r in rows:
        ev = json.loads(r.pop("evidence"))
        r["episodes"] = [i for t, i, _ in ev if t == "episode"]
        r["facts"] = [i for t, i, _ in ev if t == "fact"]
    return [ObservationVersion.model_validate(r) for r in rows]


def facts(
    store: Store, graph: str, *, include_ended: bool = False, as_of: str | None = None
) -> list[StoredFact]:
    """A graph's facts in world-time order: current ones, all, or those valid ``as_of``."""
    from memcli.contract import StoredFact

    require_graph(store, graph)
    return [
        StoredFact.model_validate(r)
        for r in store.fact_list(graph, include_ended=include_ended, as_of=as_of)
    ]


def entities(store: Store, graph: str) -> list[EntitySummary]:
    """A graph's entities by type and name, with their aliases and how much cites them;
    ``merged_into`` names the entity a merged one resolves to (``memcli entity alias``)."""
    from memcli.contract import EntitySummary

    return [EntitySummary.model_validate(r) for r in entity_records(store, graph)]


def entity_records(store: Store, graph: str) -> list[dict[str, Any]]:
    """The records of :func:`entities` as plain JSON data, keys in the order of
    :class:`memcli.contract.EntitySummary`'s fields (see :func:`observation_records`)."""
    require_graph(store, graph)
    rows = store.entity_list(graph)
    canon = store.entity_canon(graph)
    names = {r["id"]: r["name"] for r in rows}
    for r in rows:
        r["merged_into"] = names.get(canon[r["id"]]) if r["id"] in canon else None
    return rows


def graphs(store: Store) -> list[GraphInfo]:
    """Every graph in the database with its counts."""
    from memcli.contract import GraphInfo

    return [GraphInfo.model_validate(r) for r in store.graphs_with_counts()]


# --- search, report, entity timeline, dependency pictures, adding one episode ---
#
# The Python client (memcli.client), the MCP server and the CLI all call these.


def search(
    store: Store,
    graph: str,
    query: str,
    *,
    scope: str = "observations",
    limit: int = 10,
    include_ended: bool = False,
) -> list[SearchResult]:
    """Records of ``graph`` that match ``query``, best first, each with why and evidence.

    Any text is a valid query (see :mod:`memcli.search`). Every result (a
    :class:`memcli.contract.SearchResult`) has ``type``, ``id``, ``title``, ``snippet``
    (the matching words in ``**bold**``), ``score``, ``position`` (also ``rank``), ``match`` ("all" terms or only "any"), ``status``, ``date`` and ``evidence``
    (``episode_ids``, ``fact_ids``, ``observation_ids``, ``sources``), plus ``details``
    specific to its type. Ended facts and retired observations only with
    ``include_ended``. Text with no letters or digits matches nothing.
    """
    from memcli.contract import SearchResult

    require_graph(store, graph)
    try:
        chosen = Scope(scope)
    except ValueError:
        allowed = ", ".join(s.value for s in Scope)
        raise UsageError(f"unknown search scope {scope!r}: use {allowed}") from None
    if limit < 1:
        raise UsageError(f"limit must be at least 1, not {limit}")
    hits = _search_scope(store, graph, parse_query(query), chosen, limit, include_ended)
    return [SearchResult.model_validate(r) for r in hits]


def _search_scope(
    store: Store, graph: str, query: Query, scope: Scope, limit: int, include_ended: bool
) -> list[dict[str, Any]]:
    """Each requested kind of record: all terms, else any term; then fused for "all"."""
    every = scope is Scope.ALL
    pool = max(limit, 25) if every else limit
    finders: dict[str, Callable[[str], list[dict[str, Any]]]] = {}
    if scope in (Scope.OBSERVATIONS, Scope.ALL):
        # Fetch more than asked: evidence and recency re-rank the BM25 order.
        finders["observation"] = lambda m: _observation_hits(
            store, graph, m, include_ended, pool * 3
        )
    if scope in (Scope.FACTS, Scope.ALL):
        finders["fact"] = lambda m: _fact_hits(store, graph, m, include_ended, pool)
    if scope in (Scope.EPISODES, Scope.ALL):
        finders["episode"] = lambda m: _episode_hits(store, graph, m, pool)
    if scope in (Scope.ENTITIES, Scope.ALL):
        finders["entity"] = lambda m: _entity_hits(store, graph, m, pool)
    hits: dict[str, list[dict[str, Any]]] = {}
    weights: dict[str, float] = {}
    for type_, find in finders.items():
        hits[type_] = []
        for label, match in query.forms():
            found = find(match)
            if found:
                for r in found:
                    r["match"] = label
                hits[type_] = found
                weights[type_] = 1.0 if label == "all" else ANY_WEIGHT
                break
    if every:
        by_key = {(t, r["id"]): r for t, rs in hits.items() for r in rs}
        evidence = {
            r["id"]: [("fact", i) for i in r["evidence"]["fact_ids"]]
            + [("episode", i) for i in r["evidence"]["episode_ids"]]
            for r in hits["observation"]
        }
        fused = fuse(
            {t: [r["id"] for r in rs] for t, rs in hits.items()},
            weights=weights,
            evidence=evidence,
        )
        results = []
        for key, score in fused:
            by_key[key]["score"] = score
            results.append(by_key[key])
    else:
        results = next(iter(hits.values()))
    results = results[:limit]
    for position, r in enumerate(results, start=1):
        r["rank"] = position
        r["position"] = position
    return results


def _evidence(
    store: Store,
    episode_ids: list[int],
    fact_ids: list[int],
    observation_ids: list[int],
    sources: dict[int, str] | None = None,
) -> dict[str, Any]:
    withdrawn, withdrawn_facts = store.retracted_among(episode_ids, fact_ids)
    if withdrawn or withdrawn_facts:  # a retracted update is never cited as evidence
        episode_ids = [i for i in episode_ids if i not in withdrawn]
        fact_ids = [i for i in fact_ids if i not in withdrawn_facts]
    known = sources if sources is not None else store.episode_sources(episode_ids)
    return {
        "episode_ids": episode_ids,
        "fact_ids": fact_ids,
        "observation_ids": observation_ids,
        "sources": sorted({known[i] for i in episode_ids if i in known}),
    }


def _observation_hits(
    store: Store, graph: str, match: str, include_ended: bool, limit: int
) -> list[dict[str, Any]]:
    rows = store.search_observations(
        graph, match, include_retired=include_ended, limit=limit, marks=HIGHLIGHT
    )
    ids = [r["id"] for r in rows]
    eps = store.observation_evidence_ids(ids, "episode")
    facts = store.observation_evidence_ids(ids, "fact")
    sources = store.episode_sources({i for v in eps.values() for i in v})
    newest = max((r["latest_evidence_at"] for r in rows if r["latest_evidence_at"]), default=None)
    out = []
    for r in rows:
        out.append(
            {
                "type": "observation",
                "id": r["id"],
                "graph": graph,
                "title": r["name"],
                "snippet": r["snippet"],
                "score": observation_score(
                    r["bm25"],
                    r["episodes"],
                    r["latest_evidence_at"],
                    newest,
                    active=r["status"] == "active",
                ),
                "status": r["status"],
                "date": r["latest_evidence_at"],
                "evidence": _evidence(store, eps[r["id"]], facts[r["id"]], [], sources),
                "details": {
                    "kind": r["kind"],
                    "summary": r["summary"],
                    "leverage": r["rank"],
                    "start_at": r["start_at"],
                    "latest_evidence_at": r["latest_evidence_at"],
                    "end_at": r["end_at"],
                    "retire_reason": r["retire_reason"],
                },
            }
        )
    out.sort(key=lambda x: (-x["score"], x["id"]))
    return out


def _fact_hits(
    store: Store, graph: str, match: str, include_ended: bool, limit: int
) -> list[dict[str, Any]]:
    rows = store.search_facts(
        graph, match, include_ended=include_ended, limit=limit, marks=HIGHLIGHT
    )
    cited = store.citing_observations("fact", [r["id"] for r in rows])
    return [
        {
            "type": "fact",
            "id": r["id"],
            "graph": graph,
            "title": f"{r['source']} {r['relation']} {r['target']}",
            "snippet": r["snippet"],
            "score": -r["bm25"],
            "status": "ended" if r["invalid_at"] else "current",
            "date": r["valid_at"],
            "evidence": _evidence(
                store,
                [r["episode_id"]],
                [r["id"]],
                cited[r["id"]],
                {r["episode_id"]: r["episode_source"]},
            ),
            "details": {
                k: r[k]
                for k in (
                    "source",
                    "relation",
                    "target",
                    "sentence",
                    "author",
                    "valid_at",
                    "invalid_at",
                    "invalidated_by",
                )
            },
        }
        for r in rows
    ]


def _episode_hits(store: Store, graph: str, match: str, limit: int) -> list[dict[str, Any]]:
    rows = store.search_episodes(graph, match, limit=limit, marks=HIGHLIGHT)
    ids = [r["id"] for r in rows]
    facts = store.episode_fact_ids(ids)
    cited = store.citing_observations("episode", ids)
    return [
        {
            "type": "episode",
            "id": r["id"],
            "graph": graph,
            "title": f"{r['author'] or 'unknown author'}, {r['occurred_at'][:10]}",
            "snippet": r["snippet"],
            "score": -r["bm25"],
            "status": None,
            "date": r["occurred_at"],
            "evidence": _evidence(
                store, [r["id"]], facts[r["id"]], cited[r["id"]], {r["id"]: r["source"]}
            ),
            "details": {k: r[k] for k in ("author", "occurred_at", "source")},
        }
        for r in rows
    ]


def _entity_hits(store: Store, graph: str, match: str, limit: int) -> list[dict[str, Any]]:
    rows = store.search_entities(graph, match, limit=limit, marks=HIGHLIGHT)
    ids = [r["id"] for r in rows]
    facts = store.entity_fact_ids(ids)
    eps = store.entity_episode_ids(ids)
    cited = store.citing_observations("entity", ids)
    aliases = store.entity_aliases(ids)
    return [
        {
            "type": "entity",
            "id": r["id"],
            "graph": graph,
            "title": r["name"],
            "snippet": r["snippet"],
            "score": -r["bm25"],
            "status": None,
            "date": None,
            "evidence": _evidence(store, eps[r["id"]], facts[r["id"]], cited[r["id"]]),
            "details": {"type": r["type"], "aliases": aliases[r["id"]]},
        }
        for r in rows
    ]


def episodes(
    store: Store,
    graph: str | None = None,
    *,
    ids: list[int] | None = None,
    lastn: int | None = None,
) -> list[Episode]:
    """Whole episodes, oldest first, each with the facts read from it.

    ``lastn`` keeps only the newest n of the graph. Facts have the shape of an
    observation's facts (``id``, ``source``, ``relation``, ``target``, ``episode_id``,
    ``valid_at``, ``invalid_at``, ``sentence``).
    """
    from memcli.contract import Episode

    if graph is not None:
        require_graph(store, graph)
    if lastn is not None and lastn < 1:
        raise UsageError(f"lastn must be at least 1, not {lastn}")
    rows = store.episode_rows(graph_id=graph, ids=ids, lastn=lastn)
    by_episode: dict[int, list[dict[str, Any]]] = {r["id"]: [] for r in rows}
    for f in store.fact_rows(episode_ids=list(by_episode)):
        by_episode[f["episode_id"]].append(_fact_ref(f))
    for r in rows:
        r["facts"] = by_episode[r["id"]]
    return [Episode.model_validate(r) for r in rows]


def _fact_ref(f: dict[str, Any]) -> dict[str, Any]:
    return {k: f[k] for k in FACT_REF_KEYS}


def entity_timeline(store: Store, graph: str, name: str) -> EntityTimeline:
    """Every fact about the entity called ``name`` in ``graph``, valid and ended, in the
    order they became true, each with the episode that stated it and the one that ended it.

    ``name`` matches an entity's normalised name or any alias it was written as; a name
    used for both a person and a work item returns both entities' facts. Entities merged
    into it (``memcli entity alias``) are listed and their facts included, each entity
    with ``merged_into`` (None unless it is merged into another).
    """
    from memcli.contract import EntityTimeline

    require_graph(store, graph)
    norm = normalize(name)
    found = store.entities_named(graph, norm, name.strip()) if norm else []
    if not found:
        close = [r.title for r in search(store, graph, name, scope="entities", limit=5)]
        raise NotFound(
            f"no entity named {name!r} in graph {graph!r}",
            hint=(f"did you mean: {', '.join(close)}?" if close else None)
            or f"see 'memcli entities --graph {graph}'",
        )
    canon = store.entity_canon(graph)
    if canon:
        named = {e["id"] for e in found}
        extra = sorted(a for a, c in canon.items() if c in named and a not in named)
        aliases = store.entity_aliases(extra)
        found += [
            {"id": i, "name": r["name"], "type": r["type"], "aliases": aliases[i]}
            for i, r in sorted(store.entities_by_id(extra).items())
        ]
        every = store.entities_by_id(set(canon.values()))
        for e in found:
            into = canon.get(e["id"])
            e["merged_into"] = every[into]["name"] if into in every else None
    facts = []
    for f in store.fact_rows(entity_ids=[e["id"] for e in found]):
        facts.append(
            {
                **_fact_ref(f),
                "status": "ended" if f["invalid_at"] else "current",
                "source_type": f["source_type"],
                "target_type": f["target_type"],
                "episode": {
                    "id": f["episode_id"],
                    "source": f["episode_source"],
                    "author": f["author"],
                    "occurred_at": f["occurred_at"],
                },
                "invalidated_by": (
                    {"id": f["invalidated_by"], "source": f["invalidated_by_source"]}
                    if f["invalidated_by"] is not None
                    else None
                ),
            }
        )
    return EntityTimeline.model_validate(
        {"graph": graph, "name": name, "entities": found, "facts": facts}
    )


def report(
    store: Store,
    graph: str,
    *,
    since: str | None = None,
    record: bool = False,
    now: str | None = None,
    learned: bool = False,
) -> Report:
    """The digest of one graph (see :mod:`memcli.digest`): blockers ranked by leverage,
    what is new or updated and what retired (and why) since ``since``, else since the
    last recorded report (against what that report saw), else ever. ``since`` is world
    time (when things happened: a pattern began, new evidence was dated, a pattern
    ended); ``learned`` measures it in memcli time instead (when memcli learned them).
    ``record`` makes this report the graph's last report, the baseline of the next one."""
    from memcli import digest
    from memcli.contract import Report

    require_graph(store, graph)
    generated = now or utcnow()
    last = store.last_report(graph)
    previous = last[0] if last else None
    seen = last[1] if last and since is None else None
    window = since if since is not None else previous
    source = "option" if since is not None else "last report" if last else "first report"
    rows = observation_records(store, graph, "all")
    retired_by = store.episodes_by_id(
        {o["retired_by_episode"] for o in rows if o["retired_by_episode"] is not None}
    )
    result = digest.build(
        graph,
        rows,
        since=window,
        seen=seen,
        since_source=source,
        clock="learned" if learned or since is None else "world",
        generated_at=generated,
        episodes=retired_by,
    )
    result["previous_report_at"] = previous
    if record:
        store.mark_report(graph, generated, {o["id"]: (o["version"], o["status"]) for o in rows})
    return Report.model_validate(result)


def dependency_picture(
    store: Store, graph: str | None = None, *, observation_id: int | None = None
) -> Any:
    """What ``memcli visualize`` draws (a :class:`memcli.visualize.Picture`): the graph's
    current blocked_by and owns facts with its active dependency observations marked, or,
    with ``observation_id``, just that observation's own chain (its evidence facts, even
    ended ones)."""
    from memcli.visualize import Pattern, build

    def pattern(o: dict[str, Any]) -> Pattern:
        return Pattern(
            id=o["id"],
            name=o["name"],
            rank=o["rank"],
            members=frozenset(e["id"] for e in o["entities"]),
            roots=frozenset(e["id"] for e in o["entities"] if e["role"] == "root"),
        )

    if observation_id is not None:
        obs = observation_record(store, observation_id)
        facts = store.dependency_facts(obs["graph"], fact_ids=[f["id"] for f in obs["facts"]])
        title = f"{obs['graph']}: observation #{obs['id']} {obs['name']}"
        return build(title, _through_merges(store, obs["graph"], facts), [pattern(obs)])
    if graph is None:
        raise UsageError("name a graph or an observation to draw")
    require_graph(store, graph)
    from memcli.analysis import ROOT_KINDS

    active = [o for o in observation_records(store, graph, "active") if o["kind"] in ROOT_KINDS]
    title = f"{graph}: who waits on what (current facts)"
    facts = _through_merges(store, graph, store.dependency_facts(graph))
    return build(title, facts, [pattern(o) for o in active])


def _through_merges(store: Store, graph: str, facts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Fact rows with each end drawn as the entity it resolves to (one node per merged
    entity, as analysis counts it); a fact that joins an entity to itself is left out."""
    canon = store.entity_canon(graph)
    if not canon:
        return facts
    names = store.entities_by_id(set(canon.values()))
    out = []
    for f in facts:
        f = dict(f)
        for end in ("source", "target"):
            into = canon.get(f[f"{end}_id"])
            if into is not None and into in names:
                f[f"{end}_id"], f[end] = into, names[into]["name"]
        if f["source_id"] != f["target_id"]:
            out.append(f)
    return out


def explain_episode(store: Store, episode_id: int) -> dict[str, Any]:
    """Re-read a stored update with today's reader: each sentence with the frame that
    read it, or why nothing did. Raises NotFound naming the id when there is none."""
    from memcli.extract.explain import explain

    row = store.episode_text(episode_id)
    if row is None:
        raise NotFound(f"no episode with id {episode_id} (see: memcli facts, memcli search)")
    return {
        "episode_id": row["id"],
        "source": row["source"],
        "author": row["author"],
        "occurred_at": row["occurred_at"],
        "sentences": explain(row["content"], row["author"]),
    }
