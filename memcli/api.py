"""The library under the CLI: ingest, analyze and read, over an open :class:`Store`.

The CLI only parses options and prints what these functions return; agents and scripts
can call them directly. Long operations report progress through an optional callback
instead of printing.

The read functions live in :mod:`memcli.reads` and an analyze run in
:mod:`memcli.analyze` (a read command or ``memcli analyze`` imports those alone, without
the readers, redaction, connectors and extractor ingest needs); this module re-exports
them, so ``memcli.api`` stays the one name a library user imports.
"""

from __future__ import annotations

import gc
import json
import re
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import chain
from typing import TYPE_CHECKING, Any

from memcli.config import DEFAULT_GRAPH
from memcli.connectors import Batch
from memcli.errors import InputError, NotFound, UsageError
from memcli.extract import Extractor
from memcli.extract.aliases import stated_names
from memcli.models import (
    EntityRef,
    EntityType,
    EpisodeInput,
    ExtractedFact,
    Extraction,
    Relation,
    SentenceTrace,
)
from memcli.readers import (
    content_hash,
    episode_key,
    episode_keys,
    parse_document,
    unknown_keys_message,
)
from memcli.reads import (
    dependency_picture,
    entities,
    entity_records,
    entity_timeline,
    episodes,
    explain_episode,
    facts,
    graphs,
    history,
    observation,
    observation_json,
    observation_record,
    observation_records,
    observation_view,
    observation_views,
    observations,
    report,
    require_graph,
    search,
)
from memcli.redact import merge, redact_episode
from memcli.resolve import display_name, normalize, resolved
from memcli.signatures import SignatureMode, fact_signatures
from memcli.sources import SourceText
from memcli.store import Store, utcnow

if TYPE_CHECKING:
    from memcli.analyze import AnalyzeReport, Writer, analyze
    from memcli.contract import (
        AnalyzeResult,
        EntitySummary,
        EntityTimeline,
        Episode,
        ExtractResult,
        GraphInfo,
        IngestResult,
        Observation,
        ObservationDetail,
        ObservationVersion,
        ObservationView,
        Report,
        SearchResult,
        StoredFact,
    )

# The contract's records and an analyze run, importable from here as they always were,
# loaded on first use (PEP 562): the contract loads pydantic (~50 ms of CPU) and
# ``memcli.analyze`` the analysis core, corrections and the writer (~15 ms), none of
# which an ingest that prints no records needs.
_ANALYZE = frozenset({"AnalyzeReport", "Writer", "analyze"})
_CONTRACT = frozenset(
    {
        "AnalyzeResult",
        "EntitySummary",
        "EntityTimeline",
        "Episode",
        "ExtractResult",
        "GraphInfo",
        "IngestResult",
        "Observation",
        "ObservationDetail",
        "ObservationVersion",
        "ObservationView",
        "Report",
        "SearchResult",
        "StoredFact",
    }
)


def __getattr__(name: str) -> Any:
    if name in _CONTRACT:
        from memcli import contract

        return getattr(contract, name)
    if name in _ANALYZE:
        import memcli.analyze

        return getattr(memcli.analyze, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_CONTRACT, *_ANALYZE})


# The library's names: this module's ingest, extract and analyze functions, and the read
# functions of memcli.reads (a read command imports that module alone).
__all__ = [
    # The contract's records the functions return, and the error a missing id raises,
    # importable from here as they always were.
    "AnalyzeResult",
    "EntitySummary",
    "EntityTimeline",
    "GraphInfo",
    "NotFound",
    "Observation",
    "ObservationDetail",
    "ObservationVersion",
    "ObservationView",
    "Report",
    "SearchResult",
    "StoredFact",
    "SignatureMode",
    "AnalyzeReport",
    "BATCH_BYTES",
    "BATCH_FILES",
    "ExtractReport",
    "IngestReport",
    "RulesExtractor",
    "Writer",
    "add",
    "analyze",
    "dependency_picture",
    "entities",
    "entity_records",
    "entity_timeline",
    "episodes",
    "explain_episode",
    "extract_pending",
    "facts",
    "graphs",
    "history",
    "ingest",
    "ingest_records",
    "observation",
    "observation_json",
    "observation_record",
    "observation_records",
    "observation_view",
    "observation_views",
    "observations",
    "report",
    "require_graph",
    "search",
    "split_speaker",
    "store_episode",
    "release_stored",
    "store_episodes",
]


class RulesExtractor:
    """The embedded deterministic extractor (no network, no model)."""

    name = "rules"

    def __call__(self, text: str, author: str | None) -> Extraction:
        from memcli.extract.rules import extract

        return extract(text, author)


@dataclass
class IngestReport:
    files: int = 0
    files_failed: int = 0
    episodes_new: int = 0
    episodes_duplicate: int = 0
    episodes_failed: int = 0
    entities_new: int = 0
    facts_new: int = 0
    facts_ended: int = 0
    unparsed: int = 0
    episodes_pending: int = 0  # stored with rules facts only: the model could not be used
    merge_decisions: int = 0  # recorded from an export's merge lines (``memcli import``)
    errors: list[tuple[str, str]] = field(default_factory=list)
    explain: list[tuple[str, str]] = field(default_factory=list)  # (source, sentence)
    # (source, how the extractor read one sentence), for ``ingest --explain``
    trace: list[tuple[str, SentenceTrace]] = field(default_factory=list)
    graphs: set[str] = field(default_factory=set)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (source, message)
    redactions: dict[str, dict[str, int]] = field(default_factory=dict)  # source -> kind -> n
    files_stored: int = 0  # files whose transaction committed
    # (files stored, files given) when a lock time-out stopped the batch part-way
    incomplete: tuple[int, int] | None = None

    @property
    def secrets_redacted(self) -> int:
        return sum(sum(kinds.values()) for kinds in self.redactions.values())

    @property
    def ok(self) -> bool:
        return not self.errors

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": self.files,
            "files_failed": self.files_failed,
            "episodes": {
                "new": self.episodes_new,
                "duplicate": self.episodes_duplicate,
                "failed": self.episodes_failed,
            },
            "entities_new": self.entities_new,
            "facts_new": self.facts_new,
            "facts_ended": self.facts_ended,
            "sentences_not_understood": self.unparsed,
            "extraction_pending": self.episodes_pending,
            "merge_decisions": self.merge_decisions,
            "graphs": sorted(self.graphs),
            "errors": [{"source": s, "reason": r} for s, r in self.errors],
            "warnings": [{"source": s, "message": m} for s, m in self.warnings],
            "secrets_redacted": self.secrets_redacted,
            "redactions": [
                {"source": s, "count": sum(kinds.values()), "kinds": dict(sorted(kinds.items()))}
                for s, kinds in self.redactions.items()
            ],
            "not_understood": [{"source": s, "sentence": t} for s, t in self.explain],
            "sentences": [
                {
                    "source": s,
                    "sentence": t.sentence,
                    "facts": t.facts,
                    "frame": t.frame,
                    "reason": t.reason,
                }
                for s, t in self.trace
            ],
            "incomplete": None
            if self.incomplete is None
            else {"files_stored": self.incomplete[0], "files": self.incomplete[1]},
        }

    def record(self) -> IngestResult:
        """This report as the contract record ``ingest --json`` prints."""
        from memcli.contract import IngestResult

        return IngestResult.model_validate(self.as_dict())


def _graph_for(episode: EpisodeInput, override: str | None) -> str:
    graph = override or episode.graph or DEFAULT_GRAPH
    return graph.strip() or DEFAULT_GRAPH


def _resolve_key(store: Store, graph: str, ref: EntityRef, created: list[int]) -> tuple[int, str]:
    """(entity id, normalised key) of ``ref``, the entity created on first sight (its id
    appended to ``created``) and the name recorded as one of its aliases."""
    type_ = ref.type.value
    known = store.known_name(graph, ref.name, type_)
    if known is not None:
        return known
    name, norm = resolved(ref.name, ref.type)
    if not norm:
        raise ValueError(f"entity name {ref.name!r} is empty after normalisation")
    entity_id, new = store.resolve_entity(graph, name, norm, type_)
    if new:
        created.append(entity_id)
    store.remember_name(graph, ref.name, type_, entity_id, norm)
    return entity_id, norm


def store_episode(
    store: Store,
    episode: EpisodeInput,
    graph: str,
    extractor: Extractor,
    report: IngestReport,
    *,
    redact: bool = True,
    origin: str | None = None,
) -> int | None:
    """Store one episode with its facts and signatures; None when it is a duplicate.

    ``store_episodes`` for one episode (see there).
    """
    return store_episodes(store, [(episode, graph, origin)], extractor, report, redact=redact)[0]


_Key = tuple[str, str, str]  # an entity: (graph, type, normalised name)
_RELATION_VALUES = {r: r.value for r in Relation}


@dataclass
class _NewEpisode:
    """An episode of a batch that is not stored yet, resolved in Python."""

    episode: EpisodeInput
    graph: str
    digest: str
    extraction: Extraction
    extractor: str
    facts: list[tuple[_Key, str, _Key, ExtractedFact]]  # (source, relation, target, fact)
    stated: list[tuple[str, str, str]]  # (ticket key, name, name key): ``_stated``

    @property
    def waits(self) -> list[tuple[_Key, _Key, str]]:
        """(item, blocker, valid_at) of each ``blocked_by`` fact this episode states."""
        return [
            (src, tgt, fact.valid_at or self.episode.occurred_at)
            for src, relation, tgt, fact in self.facts
            if relation == "blocked_by"
        ]


def store_episodes(
    store: Store,
    items: Sequence[tuple[EpisodeInput, str, str | None]],
    extractor: Extractor,
    report: IngestReport,
    *,
    redact: bool = True,
) -> list[int | None]:
    """Store episodes ((episode, graph, origin) each) with their facts and signatures:
    the id of each, None for a duplicate (of a stored episode or of an earlier one in
    ``items``). The rows are the ones a call per episode, in order, would write.

    Call inside a transaction: the episodes and their facts land together. Every write
    of an update passes here (ingest, import, the Python client, MCP), so this is where
    secrets are redacted (``memcli.redact``), before the content hash, the extractor and
    the store see the text; ``redact=False`` opts out. What was found is counted in
    ``report.redactions`` under ``origin`` (the input file), else the episode's source.

    The whole batch is read and resolved in Python first (duplicates checked in one
    query per graph, names resolved against the id caches and one query per graph and
    type), then each table gets one statement: a statement per episode cost more than
    the episode's own rows. A ValueError (a name empty once normalised) is raised before
    anything is written; the caller then stores the episodes one by one to say which.
    """
    now = utcnow()
    batch: list[tuple[EpisodeInput, str, str, str | None]] = []
    for episode, graph, origin in items:
        if redact:
            episode, found = redact_episode(episode)
            if found:
                merge(report.redactions.setdefault(origin or episode.source, {}), found)
        batch.append((episode, graph, *episode_keys(episode)))
    # A dated update also matches the same words stored without a date at that time
    # (an undated update exported and imported back).
    wanted: dict[str, list[str]] = {}
    for _ep, graph, digest, undated in batch:
        hashes = wanted.setdefault(graph, [])
        hashes.append(digest)
        if undated is not None:
            hashes.append(undated)
    known: dict[tuple[str, str], str] = {}  # (graph, hash) -> occurred_at
    for graph, hashes in wanted.items():
        for digest, at in store.stored_hashes(graph, hashes).items():
            known[(graph, digest)] = at

    # (graph, name as written, type) -> key; the type as the member itself, since an
    # enum member's ``value`` is a Python-level call (the same names recur in every fact)
    names: dict[tuple[str, str, EntityType], _Key] = {}
    ids: dict[_Key, int] = {}
    first_name: dict[_Key, str] = {}  # display name of a key's first sight
    aliases: list[tuple[_Key, str]] = []

    def resolve(graph: str, ref: EntityRef) -> _Key:
        seen = (graph, ref.name, ref.type)
        key = names.get(seen)
        if key is not None:
            return key
        type_ = ref.type.value
        cached = store.known_name(graph, ref.name, type_)
        if cached is not None:
            key = (graph, type_, cached[1])
            ids[key] = cached[0]
        else:
            name, norm = resolved(ref.name, ref.type)
            if not norm:
                raise ValueError(f"entity name {ref.name!r} is empty after normalisation")
            key = (graph, type_, norm)
            first_name.setdefault(key, name)
            aliases.append((key, name))
        names[seen] = key
        return key

    slots: list[int | None] = []  # per item: index into ``new``, None for a duplicate
    new: list[_NewEpisode] = []
    for episode, graph, digest, undated in batch:
        if (graph, digest) in known or (
            undated is not None and known.get((graph, undated)) == episode.occurred_at
        ):
            report.episodes_duplicate += 1
            slots.append(None)
            continue
        known[(graph, digest)] = episode.occurred_at
        if episode.facts is not None:
            extraction = Extraction(
                facts=list(episode.facts), unparsed=[], releases=list(episode.releases)
            )
            extractor_name = "given"
        else:
            extraction = extractor(episode.content, episode.author)
            extractor_name = extractor.name
        if episode.ticket_prefix or episode.subject:
            extraction = replace(
                extraction,
                facts=[_in_context(f, episode) for f in extraction.facts],
                releases=[
                    replace(r, item=_prefixed(r.item, episode.ticket_prefix))
                    for r in extraction.releases
                ],
            )
        facts = []
        for fact in extraction.facts:
            ref = fact.source
            src = names.get((graph, ref.name, ref.type)) or resolve(graph, ref)
            ref = fact.target
            tgt = names.get((graph, ref.name, ref.type)) or resolve(graph, ref)
            if src == tgt:
                if episode.facts is not None:
                    report.warnings.append(
                        (
                            episode.source,
                            f"fact ({fact.source.name}, {fact.relation.value}, "
                            f"{fact.target.name}) skipped: its source and target are the "
                            "same entity",
                        )
                    )
                continue
            facts.append((src, _RELATION_VALUES[fact.relation], tgt, fact))
        for ref, alias in episode.aliases:
            if alias.strip():
                aliases.append((resolve(graph, ref), alias.strip()))
        # A ticket written beside a name is a work item even when no fact names it: the
        # name merges into it at analyze, and so does its bare number ("2210").
        beside = _stated(episode)
        for ticket in dict.fromkeys(t for t, _name, _key in beside):
            resolve(graph, EntityRef(ticket, EntityType.WORK_ITEM))
        slots.append(len(new))
        new.append(_NewEpisode(episode, graph, digest, extraction, extractor_name, facts, beside))
    if not new:
        return [None] * len(slots)
    releases = _released(store, new, ids)
    late = _late_waits(store, new)

    # Nothing is written before this point.
    store.ensure_graphs(dict.fromkeys(n.graph for n in new), now=now)
    ids.update(store.entity_ids(k for k in first_name if k not in ids))
    created = [k for k in first_name if k not in ids]
    made = store.insert_entities([(*k, first_name[k]) for k in created], now=now)
    ids.update(zip(created, made, strict=True))
    report.entities_new += len(made)
    for (graph, written, _type), key in names.items():
        store.remember_name(graph, written, key[1], ids[key], key[2])
    store.add_aliases(((ids[k], alias) for k, alias in aliases), new=set(made))

    episode_ids = store.insert_episodes(
        [
            (
                n.graph,
                n.digest,
                n.episode.content,
                n.episode.author,
                n.episode.occurred_at,
                now,
                n.episode.source,
                n.episode.format,
                n.extractor,
                n.extraction.status,
                _unparsed_json(n.extraction.unparsed),
            )
            for n in new
        ]
    )
    store.insert_stated_names(
        (episode_id, n.graph, resolved(t, EntityType.WORK_ITEM)[1], name, key)
        for n, episode_id in zip(new, episode_ids, strict=True)
        for t, name, key in n.stated
    )
    store.insert_releases(
        (episode_ids[i], graph, key[1], key[2], at, sentence)
        for i, graph, key, at, sentence in releases
    )
    rows: list[tuple[str, int, int, str, int, str, str, str | None]] = []
    # Per row its (source id, relation, target id); per distinct one, in the order first
    # seen, its (source, relation, target) keys, for the signatures. Ids stand for keys
    # one to one, and a tuple of ids hashes faster than one of keys.
    signed: list[tuple[int, str, int]] = []
    keys: dict[tuple[int, str, int], tuple[_Key, str, _Key]] = {}
    about: list[tuple[str, str, str]] = []  # per row: the episode's hash, source's type, key
    for n, episode_id in zip(new, episode_ids, strict=True):
        stated: set[tuple[int, str, int]] = set()
        graph, digest, occurred_at = n.graph, n.digest, n.episode.occurred_at
        for src, relation, tgt, fact in n.facts:
            triple = (ids[src], relation, ids[tgt])
            if triple in stated:
                continue  # a repeat of the same fact is stored once
            stated.add(triple)
            rows.append(
                (
                    graph,
                    episode_id,
                    triple[0],
                    relation,
                    triple[2],
                    fact.sentence,
                    fact.valid_at or occurred_at,
                    fact.invalid_at,
                )
            )
            signed.append(triple)
            if triple not in keys:
                keys[triple] = (src, relation, tgt)
            about.append((digest, src[1], src[2]))
    retracted: dict[int, dict[tuple[int, int], _Unblock]] = {}
    for episode_id, digest, src, tgt, sentence, at, says, gone in late:  # stored releases
        if ids[tgt] in says:
            continue  # that update says so already
        if gone is not None:  # written after, read back with the retraction's flag
            retracted.setdefault(episode_id, {}).setdefault(
                (ids[src], ids[tgt]), (src[0], sentence, at, max(at, gone), src[1:], tgt[1:])
            )
            continue
        rows.append((src[0], episode_id, ids[src], "unblocked_from", ids[tgt], sentence, at, None))
        triple = (ids[src], "unblocked_from", ids[tgt])
        signed.append(triple)
        if triple not in keys:
            keys[triple] = (src, "unblocked_from", tgt)
        about.append((digest, src[1], src[2]))
    fact_ids = store.insert_fact_rows(rows, about, now=now)
    report.facts_new += len(fact_ids)
    # Signatures per distinct (source, relation, target): the same fact recurs across a
    # batch. Keys come in the order of the facts, so new signatures get the ids a
    # statement per episode gave them.
    keys_of = {
        t: (src[0], fact_signatures(src[1:], relation, tgt[1:]))
        for t, (src, relation, tgt) in keys.items()
    }
    sig_ids = store.signature_ids_of(
        (graph, kind, key) for graph, sigs in keys_of.values() for kind, key in sigs
    )
    linked = {
        t: [sig_ids[(graph, key)] for _kind, key in sigs] for t, (graph, sigs) in keys_of.items()
    }
    store.link_signatures(
        [
            (fact_id, sig_id)
            for fact_id, t in zip(fact_ids, signed, strict=True)
            for sig_id in linked[t]
        ]
    )
    report.facts_new += len(_insert_unblocks(store, retracted))

    for n in new:
        extraction = n.extraction
        report.episodes_new += 1
        if extraction.status == "pending":
            report.episodes_pending += 1
        report.unparsed += len(extraction.unparsed)
        report.explain.extend((n.episode.source, s) for s in extraction.unparsed)
        report.trace.extend((n.episode.source, t) for t in extraction.trace)
        report.graphs.add(n.graph)
    return [None if slot is None else episode_ids[slot] for slot in slots]


def _unparsed_json(unparsed: list[str]) -> str:
    """The sentences not understood as stored: ``json.dumps``, which an update read in
    full (and every update with given facts) needs no call of."""
    return json.dumps(unparsed, ensure_ascii=False) if unparsed else "[]"


def _released(
    store: Store, new: list[_NewEpisode], ids: dict[_Key, int]
) -> list[tuple[int, str, _Key, str, str]]:
    """Turn the batch's releases ("X is unblocked", no blocker named) into facts, and
    return them as rows to store: (index in ``new``, graph, item key, valid_at, sentence).

    A release of X at t adds ``unblocked_from(X, B)`` to its own update (its sentence,
    time t) for every ``blocked_by(X, B)`` valid at or before t, stored or in this
    batch; the contradiction rules then end those waits as they end any. A wait that
    had ended before t gets the fact too: which waits had ended depends on what has
    arrived so far, and the facts an update adds must not depend on the order of
    arrival (the earlier end stands: an end only ever moves earlier). Updates with
    given facts have no releases. The stored waits' entities go into ``ids``.
    """
    wanted: dict[tuple[str, str], list[tuple[int, _Key, str, str, EntityRef]]] = {}
    for i, n in enumerate(new):
        for r in n.extraction.releases:
            norm = resolved(r.item.name, r.item.type)[1]
            if norm:
                key = (n.graph, r.item.type.value, norm)
                at = r.valid_at or n.episode.occurred_at
                wanted.setdefault(key[:2], []).append((i, key, at, r.sentence, r.item))
    if not wanted:
        return []
    waits: dict[_Key, list[tuple[_Key, str, str]]] = {}  # item -> (blocker, name, valid_at)
    for n in new:
        for src, tgt, at in n.waits:
            waits.setdefault(src, []).append((tgt, "", at))
    # A wait the same update states after its release ("X is unblocked. Now X is
    # blocked on Y.") shares the update's time but came later: the release leaves it.
    later: set[tuple[int, _Key, _Key]] = set()
    for i, n in enumerate(new):
        if n.extraction.releases:
            content = n.episode.content
            for r in n.extraction.releases:
                for src, relation, tgt, fact in n.facts:
                    if relation == "blocked_by" and _said_after(content, fact.sentence, r.sentence):
                        later.add((i, src, tgt))
    for (graph, type_), found in wanted.items():
        for w in store.waits_of(graph, type_, {key[2] for _i, key, *_rest in found}):
            item = (graph, type_, w["item_norm"])
            blocker = (graph, w["blocker_type"], w["blocker_norm"])
            ids[item], ids[blocker] = w["item_id"], w["blocker_id"]
            waits.setdefault(item, []).append((blocker, w["blocker_name"], w["valid_at"]))
    out = []
    for found in wanted.values():
        for i, key, at, sentence, ref in found:
            n = new[i]
            for blocker, name, since in waits.get(key, []):
                if since <= at and blocker != key and (i, key, blocker) not in later:
                    target = EntityRef(name or blocker[2], EntityType(blocker[1]))
                    fact = ExtractedFact(ref, Relation.UNBLOCKED_FROM, target, sentence, at)
                    n.facts.append((key, Relation.UNBLOCKED_FROM.value, blocker, fact))
            out.append((i, n.graph, key, at, sentence))
    return out


def _late_waits(
    store: Store, new: list[_NewEpisode]
) -> list[tuple[int, str, _Key, _Key, str, str, set[int], str | None]]:
    """The facts stored releases add for the batch's new waits, so that the order of
    arrival does not matter: a wait ``blocked_by(X, B)`` valid at t meets every stored
    release of X (from an update not retracted) at or after t, and that release's
    update gains ``unblocked_from(X, B)`` (its sentence, its time), once. A retracted
    update's release gives the fact too, ended at the retraction, as it would be had the
    wait arrived before the retraction. Rows: (release's episode id, its content hash,
    item key, blocker key, sentence, valid_at, the ids of the blockers that update
    already states the item is unblocked from, its retraction time or None)."""
    # Most graphs hold no release: one probe per graph, and the batch's waits are not
    # even gathered.
    graphs = {g for g in dict.fromkeys(n.graph for n in new) if store.has_releases(g)}
    if not graphs:
        return []
    wanted: dict[tuple[str, str], dict[str, list[tuple[_Key, _Key, str]]]] = {}
    for n in new:
        if n.graph in graphs:
            for src, tgt, at in n.waits:
                wanted.setdefault(src[:2], {}).setdefault(src[2], []).append((src, tgt, at))
    out = []
    added: set[tuple[int, _Key, _Key]] = set()  # (release's update, item, blocker)
    for (graph, type_), by_norm in wanted.items():
        for r in store.releases_of(graph, type_, by_norm):
            for src, tgt, since in by_norm[r["item_norm"]]:
                episode_id = r["episode_id"]
                if since <= r["valid_at"] and (episode_id, src, tgt) not in added and src != tgt:
                    added.add((episode_id, src, tgt))
                    out.append(
                        (
                            episode_id,
                            r["content_hash"],
                            src,
                            tgt,
                            r["sentence"],
                            r["valid_at"],
                            r["unblocked"],
                            r["retracted_at"],
                        )
                    )
    return out


# An unblocked_from fact a release adds to its update, by (item id, blocker id): (graph,
# sentence, valid_at, invalid_at, item's (type, key), blocker's (type, key)).
_Unblock = tuple[str, str, str, str | None, tuple[str, str], tuple[str, str]]


def release_stored(store: Store, episode_id: int) -> list[int]:
    """Meet a stored update's releases and waits with those of the graph it is in now,
    as ingest does for a new update (``_released``, ``_late_waits``); the ids of the
    ``unblocked_from`` facts added. For an update that changed graph
    (``corrections.move_episode``) or gained waits after it was stored
    (``extract_pending``): otherwise the facts would depend on where the update was
    first ingested, or on whether the model answered at once.

    Its releases (unless it is retracted) meet the graph's waits valid at or before
    them; its waits meet the graph's releases at or after them (a retracted update's
    fact ends at its retraction). Facts an update states already are left out; the
    caller's transaction ends what the new facts contradict.
    """
    row = store.episode_row(episode_id)
    if row is None:
        return []
    graph = row["graph_id"]
    content = str(row["content"])
    adds: dict[int, dict[tuple[int, int], _Unblock]] = {}  # release's update -> facts
    if row["retracted_at"] is None:
        for r in store.episode_releases(episode_id):
            for w in store.waits_of(graph, r["item_type"], [r["item_norm"]]):
                if w["episode_id"] == episode_id and _said_after(
                    content, w["sentence"], r["sentence"]
                ):
                    continue  # "X is unblocked. Now X is blocked on Y.": Y holds
                if w["valid_at"] <= r["valid_at"] and w["blocker_id"] != w["item_id"]:
                    item = (r["item_type"], r["item_norm"])
                    _add_unblock(adds, episode_id, graph, item, w, r, None)
    for w in store.episode_waits(episode_id):
        if w["blocker_id"] == w["item_id"]:
            continue
        for r in store.releases_of(graph, w["item_type"], [w["item_norm"]]):
            if r["episode_id"] == episode_id and _said_after(content, w["sentence"], r["sentence"]):
                continue
            if w["valid_at"] <= r["valid_at"] and w["blocker_id"] not in r["unblocked"]:
                gone = r["retracted_at"]
                until = None if gone is None else max(r["valid_at"], gone)
                item = (w["item_type"], w["item_norm"])
                _add_unblock(adds, r["episode_id"], graph, item, w, r, until)
    return _insert_unblocks(store, adds)


def _add_unblock(
    adds: dict[int, dict[tuple[int, int], _Unblock]],
    release_id: int,
    graph: str,
    item: tuple[str, str],
    wait: Mapping[str, Any],
    release: Mapping[str, Any],
    until: str | None,
) -> None:
    """Record, once, the ``unblocked_from`` fact the release of update ``release_id``
    adds for a stored ``wait`` of ``item`` ((type, key)): rows of ``waits_of`` /
    ``episode_waits`` and ``episode_releases`` / ``releases_of``, the release's sentence
    and time."""
    adds.setdefault(release_id, {}).setdefault(
        (wait["item_id"], wait["blocker_id"]),
        (
            graph,
            release["sentence"],
            release["valid_at"],
            until,
            item,
            (wait["blocker_type"], wait["blocker_norm"]),
        ),
    )


def _said_after(content: str, wait: str, release: str) -> bool:
    """Whether an update states the sentence ``wait`` after its own ``release``: both
    carry the update's one time, so only the order of their sentences in its text
    tells."""
    freed = content.find(release)
    return freed >= 0 and content.find(wait) > freed


def _insert_unblocks(store: Store, adds: dict[int, dict[tuple[int, int], _Unblock]]) -> list[int]:
    """Write the ``unblocked_from`` facts releases add (per update), with signatures; the
    ids of those stored (one an update states already is left out). The contradiction
    rules read them back at the commit, their update's retraction with them."""
    added: list[int] = []
    signed: list[tuple[str, int, list[tuple[str, str]]]] = []
    for release_id, pairs in adds.items():
        stored = store.insert_facts(
            release_id,
            [
                (graph, src, Relation.UNBLOCKED_FROM.value, tgt, sentence, at, until)
                for (src, tgt), (graph, sentence, at, until, _s, _t) in pairs.items()
            ],
        )
        for (src, tgt), (graph, _sentence, _at, _until, src_key, tgt_key) in pairs.items():
            fact_id = stored.get((src, Relation.UNBLOCKED_FROM.value, tgt))
            if fact_id is not None:
                added.append(fact_id)
                keys = fact_signatures(src_key, Relation.UNBLOCKED_FROM, tgt_key)
                signed.append((graph, fact_id, list(keys)))
    if signed:
        ids = store.signature_ids_of((g, kind, key) for g, _, keys in signed for kind, key in keys)
        store.link_signatures(
            [(fact_id, ids[(g, key)]) for g, fact_id, keys in signed for _, key in keys]
        )
    return added


_BARE_TICKET = re.compile(r"#\d+")


def _stated(episode: EpisodeInput) -> list[tuple[str, str, str]]:
    """(ticket, name, name key) of each name an update sets beside a ticket id, in its
    text ("the auth refactor (AUTH-212)") or as an issue's title (``aliases``): analyze
    merges the name into the ticket when a fact names it (``identity.stated_merges``)."""
    pairs = stated_names(episode.content)
    pairs += [
        (ref.name, alias) for ref, alias in episode.aliases if ref.type is EntityType.WORK_ITEM
    ]
    out = []
    for ticket, name in pairs:
        if episode.ticket_prefix and _BARE_TICKET.fullmatch(ticket):
            ticket = episode.ticket_prefix + ticket
        ticket_key = resolved(ticket, EntityType.WORK_ITEM)[1]
        shown, key = resolved(name, EntityType.WORK_ITEM)
        if ticket_key and key and ticket_key != key:
            out.append((ticket, shown, key))
    return out


# A tracker reference: "owner/repo#12", "#12", "PAY-118". Only a wait on one of these is
# moved from a tracker text's author to its subject: a wait the reader found on a loose
# phrase ("a managed queue") stays the author's, so it cannot re-root the tracker's chain.
_TICKET = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|[A-Z][A-Z0-9_]*-\d+")


def _prefixed(ref: EntityRef, prefix: str | None) -> EntityRef:
    """A bare "#N" work item of a tracker item's text as "<prefix>#N" (its repository's
    #N); any other reference unchanged. Facts and releases alike."""
    if prefix and ref.type is EntityType.WORK_ITEM:
        shown = display_name(ref.name, ref.type)
        if _BARE_TICKET.fullmatch(shown):
            return EntityRef(prefix + shown, ref.type)
    return ref


def _in_context(fact: ExtractedFact, episode: EpisodeInput) -> ExtractedFact:
    """A fact read from a tracker item's text, in that item's context (see EpisodeInput):
    bare "#N" work items become "<ticket_prefix>#N", and the author's own wait on another
    ticket becomes the subject's."""
    prefix = episode.ticket_prefix
    source, target = _prefixed(fact.source, prefix), _prefixed(fact.target, prefix)
    if (
        episode.subject is not None
        and _TICKET.fullmatch(display_name(target.name, target.type))
        and episode.author
        and fact.relation in (Relation.BLOCKED_BY, Relation.UNBLOCKED_FROM)
        and source.type is EntityType.PERSON
        and normalize(display_name(source.name, source.type))
        == normalize(display_name(episode.author, EntityType.PERSON))
    ):
        source = episode.subject
    return replace(fact, source=source, target=target)


def _store_facts(
    store: Store,
    graph: str,
    episode_id: int,
    occurred_at: str,
    extraction: Extraction,
    report: IngestReport,
) -> None:
    """Resolve, store and sign the facts a retried extraction found for a stored episode
    (``extract_pending``; ingest writes through ``store_episodes``). The contradiction
    rules run once per transaction over all its new facts (``Store.end_contradicted``),
    not here.

    A fact whose two ends are one entity says nothing about a dependency and is skipped.
    A fact the episode already has is skipped, so this can run again for an episode whose
    extraction is retried again.
    """
    created: list[int] = []
    rows: list[tuple[str, int, str, int, str, str, str | None]] = []
    given: list[tuple[ExtractedFact, tuple[int, str, int], str, str]] = []
    for fact in extraction.facts:
        source_id, source_key = _resolve_key(store, graph, fact.source, created)
        target_id, target_key = _resolve_key(store, graph, fact.target, created)
        if source_id == target_id:
            continue
        relation = fact.relation.value
        rows.append(
            (
                graph,
                source_id,
                relation,
                target_id,
                fact.sentence,
                fact.valid_at or occurred_at,
                fact.invalid_at,
            )
        )
        given.append((fact, (source_id, relation, target_id), source_key, target_key))
    # One statement for the episode's facts and one for its new signatures; ids come
    # out in the order the facts were given, as a statement per fact gave them.
    stored = store.insert_facts(episode_id, rows)
    signed: list[tuple[int, list[tuple[str, str]]]] = []
    for fact, key, source_key, target_key in given:
        fact_id = stored.pop(key, None)  # a repeat of the same fact is stored once
        if fact_id is None:
            continue
        report.facts_new += 1
        src = (fact.source.type.value, source_key)
        tgt = (fact.target.type.value, target_key)
        signed.append((fact_id, list(fact_signatures(src, fact.relation, tgt))))
    ids = store.signature_ids(graph, (k for _, keys in signed for k in keys))
    store.link_signatures([(fact_id, ids[key]) for fact_id, keys in signed for _, key in keys])
    report.entities_new += len(created)


def _stored_id(
    store: Store, graph: str, episode: EpisodeInput, digest: str | None = None
) -> int | None:
    """The id of this update if the graph already holds it (``digest``: its
    ``episode_key``, when the caller has it).

    A dated update also matches the same words stored without a date of their own at
    that time (an undated update exported and imported back)."""
    found = store.episode_id_by_hash(graph, digest or episode_key(episode))
    if found is None and episode.dated:
        undated = content_hash(episode.content, episode.author, None)
        found = store.episode_id_by_hash(graph, undated, occurred_at=episode.occurred_at)
    return found


def _to_extract(
    store: Store,
    inputs: list[SourceText | InputError],
    graph: str | None,
    *,
    redact: bool,
    fmt: str | None,
) -> list[tuple[str, str | None]]:
    """(text, author) of every new episode in ``inputs`` that needs an extractor.

    The text is exactly what ``store_episode`` will later hand the extractor: read with
    the same format and redacted the same way, so no secret reaches a model here.
    """
    out: list[tuple[str, str | None]] = []
    for item in inputs:
        if isinstance(item, InputError):
            continue
        try:
            episodes, _ = parse_document(
                item.text, item.source, default_time=item.default_time, fmt=fmt
            )
        except InputError:
            continue
        for ep in episodes:
            if redact:
                ep, _found = redact_episode(ep)
            if ep.facts is None and _stored_id(store, _graph_for(ep, graph), ep) is None:
                out.append((ep.content, ep.author))
    return out


# Files are stored in batches, one transaction each. A batch holds at most as many files
# as were read before it (1, 1, 2, 4, ...: never more at stake than already stored, so a
# short run commits file by file as it always did) and at most these many files or bytes
# (memory follows the largest file: one of a megabyte or more is a batch of its own).
BATCH_FILES = 256
BATCH_BYTES = 1 << 20


# The cyclic garbage collector is off while ingest runs (the first of concurrent calls
# turns it off, the last one out restores it). Ingest makes millions of small tuples,
# strings and records that live until their batch is written and hold no cycles (a 5k
# Markdown ingest leaves 10 unreachable objects, a 5k JSONL one none): every collection
# walked the whole live batch and found nothing, a tenth of the CPU of a JSONL ingest
# with CPython's default threshold and still ~5% with the threshold at 50,000. What a
# run does leave in cycles is collected as usual once it returns.
_gc_lock = threading.Lock()
_gc_users = 0
_gc_was_enabled = True


@contextmanager
def _fewer_collections() -> Iterator[None]:
    global _gc_users, _gc_was_enabled
    with _gc_lock:
        if _gc_users == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0 and _gc_was_enabled:
                gc.enable()


def ingest(
    store: Store,
    inputs: Iterable[SourceText | InputError],
    *,
    graph: str | None = None,
    extractor: Extractor | None = None,
    progress: Callable[[str], None] | None = None,
    redact: bool = True,
    fmt: str | None = None,
) -> IngestReport:
    """Ingest many inputs. An input file lands whole or not at all.

    Files are stored in batches, each one transaction (see ``BATCH_FILES``): a commit
    per file cost more than the file's own writes. A batch is read before its
    transaction begins, so no input is read while the database is locked, and it never
    holds more files than were read before it: a crash or a lock time-out loses at most
    the batch in flight, which a re-run stores (re-ingest is idempotent), and the report
    says exactly how many files were stored. When a file in a batch fails, the batch is
    rolled back and stored again a transaction per file, which reports that file (or
    record, ``FILE:LINE``) and stores the others exactly as before.

    Secrets are redacted (``memcli.redact``) from each episode before its content hash,
    extraction and storage, unless ``redact`` is False. ``fmt`` forces a format
    ('json', 'jsonl', 'markdown', 'text') instead of detecting it per input.
    """
    extractor = extractor or RulesExtractor()
    report = IngestReport()
    prepare = getattr(extractor, "prepare", None)
    if prepare is not None:
        # A model-backed extractor does its network calls here, concurrently and before
        # any write transaction, so the database is never locked while a model thinks.
        inputs = list(inputs)
        prepare(_to_extract(store, inputs, graph, redact=redact, fmt=fmt))
    items = iter(inputs)
    run = _Run(store, graph, extractor, report, progress, redact, fmt)
    with store.bulk_writes(), _fewer_collections():
        while batch := _next_batch(items, report.files):
            if not run.batch(batch, items):
                break  # a lock time-out stopped the run
    return report


def _next_batch(
    items: Iterator[SourceText | InputError], seen: int
) -> list[SourceText | InputError]:
    """The next inputs to store in one transaction (see ``BATCH_FILES``)."""
    batch: list[SourceText | InputError] = []
    size = 0
    for item in items:
        batch.append(item)
        size += len(item.text) if isinstance(item, SourceText) else 0
        if len(batch) >= min(BATCH_FILES, max(1, seen)) or size >= BATCH_BYTES:
            break
    return batch


class _StoreFailed(Exception):
    """A file of a batch could not be stored: the batch goes file by file."""


class _Locked(Exception):
    """The batch's transaction could not begin: another writer holds the database."""

    def __init__(self, index: int) -> None:
        self.index = index  # the file of the batch that needed it


@dataclass
class _Run:
    """One ``ingest`` call: its store, settings and report."""

    store: Store
    graph: str | None
    extractor: Extractor
    report: IngestReport
    progress: Callable[[str], None] | None
    redact: bool
    fmt: str | None
    # Facts whose end this run set or moved: ``facts_ended`` counts each once, however
    # many transactions of the run moved it. Added to after a commit only, so a batch
    # taken back never counts.
    ended: set[int] = field(default_factory=set)

    def count_ended(self, ids: Iterable[int]) -> None:
        self.ended.update(ids)
        self.report.facts_ended = len(self.ended)

    def batch(
        self, batch: list[SourceText | InputError], rest: Iterator[SourceText | InputError]
    ) -> bool:
        """Store ``batch`` in one transaction; False when a lock time-out stopped the run."""
        report = self.report
        mark = _mark(report)
        # Every file of the batch is read (pure) before its transaction begins, then all
        # their episodes are written together (``store_episodes``: one statement per
        # table for the whole batch).
        files: list[tuple[int, SourceText | InputError, list[EpisodeInput]]] = []
        for index, item in enumerate(batch):
            episodes = self.read(item)
            if episodes:
                files.append((index, item, episodes))
        ended: list[int] = []
        try:
            with ExitStack() as stack:
                if files:
                    try:
                        stack.enter_context(self.store.transaction())
                    except sqlite3.OperationalError as exc:
                        if "locked" not in str(exc) and "busy" not in str(exc):
                            raise
                        raise _Locked(files[0][0]) from exc
                    try:
                        _store_files(
                            self.store,
                            [(item.source, episodes) for _, item, episodes in files],
                            self.graph,
                            self.extractor,
                            report,
                            redact=self.redact,
                        )
                    except (ValueError, KeyError, _LineFailed) as exc:
                        raise _StoreFailed from exc
                    # the rules once for the whole batch, in its transaction
                    ended = self.store.end_contradicted()
        except _Locked as locked:
            # Nothing of this batch was written. The report is taken back to the file
            # that needed the database, as if the batch had been read up to it; the
            # files before it had nothing to store and are reported as they are.
            _rewind(report, mark)
            for item in batch[: locked.index + 1]:
                self.read(item)
            for item in batch[: locked.index]:
                self.advance(item)
            item = batch[locked.index]
            self.locked(item, sum(1 for _ in chain(batch[locked.index + 1 :], rest)))
            return False
        except (_StoreFailed, sqlite3.OperationalError) as exc:
            if isinstance(exc, sqlite3.OperationalError) and (
                "locked" not in str(exc) and "busy" not in str(exc)
            ):
                raise
            # Taken back whole; file by file, each failure is reported where it is.
            _rewind(report, mark)
            for index, item in enumerate(batch):
                if not self.one(item, chain(batch[index + 1 :], rest)):
                    return False
            return True
        stored = len(files)
        report.files_stored += stored
        self.count_ended(ended)
        for item in batch:
            self.advance(item)
        return True

    def read(self, item: SourceText | InputError) -> list[EpisodeInput]:
        """Count and parse one input (pure): its episodes, its errors in the report."""
        report = self.report
        report.files += 1
        if isinstance(item, InputError):
            report.files_failed += 1
            report.errors.append((item.source, item.reason))
            return []
        try:
            episodes, record_errors = parse_document(
                item.text, item.source, default_time=item.default_time, fmt=self.fmt
            )
        except InputError as exc:
            report.files_failed += 1
            report.errors.append((exc.source, exc.reason))
            return []
        for err in record_errors:
            report.episodes_failed += 1
            report.errors.append((err.source, err.reason))
        episodes = _screen(episodes, item.source, report)
        if record_errors and not episodes:
            report.files_failed += 1
        return episodes

    def advance(self, item: SourceText | InputError) -> None:
        if self.progress:
            self.progress(item.source)

    def one(self, item: SourceText | InputError, rest: Iterator[SourceText | InputError]) -> bool:
        """Store one input in its own transaction; False when a lock time-out stopped
        the run (``rest``: the inputs after it, counted for the report)."""
        report = self.report
        episodes = self.read(item)
        if episodes:
            mark = _mark(report)  # rewound if the file's transaction rolls back
            lines_failed = 0
            store_file = partial(
                _store_file,
                self.store,
                episodes,
                self.graph,
                self.extractor,
                report,
                item.source,
                redact=self.redact,
                ended=self.count_ended,
            )
            try:
                try:
                    lines_failed = store_file()
                except _LineFailed:
                    # A record could not be stored. Its file is taken back whole and
                    # stored again with a savepoint per record, which stores the others
                    # and reports that one as FILE:LINE, exactly as if it had run so.
                    _rewind(report, mark)
                    mark = _mark(report)
                    lines_failed = store_file(careful=True)
            except (ValueError, KeyError) as exc:
                _rewind(report, mark)
                report.files_failed += 1
                report.errors.append((item.source, f"could not store: {exc}"))
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) and "busy" not in str(exc):
                    raise
                _rewind(report, mark)
                self.locked(item, sum(1 for _ in rest))
                return False
            else:
                report.files_stored += 1
            if lines_failed and lines_failed == len(episodes):
                report.files_failed += 1
        self.advance(item)
        return True

    def locked(self, item: SourceText | InputError, after: int) -> None:
        """Another writer held the database past the busy timeout at ``item``. The files
        before it are committed; stop here rather than wait again for each of the
        ``after`` files left, and say exactly what a re-run will finish."""
        report = self.report
        total = report.files + after
        report.files_failed += 1
        report.incomplete = (report.files_stored, total)
        report.errors.append(
            (
                item.source,
                "database is locked (another writer held it longer than"
                f" MEMCLI_BUSY_TIMEOUT allows): stored {report.files_stored} of"
                f" {total} file(s); re-run to finish (re-ingest is idempotent)",
            )
        )
        self.advance(item)


class _LineFailed(Exception):
    """A JSONL record failed while its file was stored without per-record savepoints."""


def _store_file(
    store: Store,
    episodes: list[EpisodeInput],
    graph: str | None,
    extractor: Extractor,
    report: IngestReport,
    source: str,
    *,
    redact: bool,
    careful: bool = False,
    ended: Callable[[list[int]], None] | None = None,
) -> int:
    """Store one file's episodes in one transaction; returns how many records failed.

    JSONL records are written all at once into the file's transaction
    (``_store_files``): a savepoint per record costs more than the rest of the record's
    writes (SQLite and the report snapshot), and records almost never fail. When one
    does, ``_LineFailed`` rolls the whole file back, and the caller stores it again with
    ``careful`` set: a savepoint per record (``_store_line``), so that record alone is
    reported and left out.
    """
    lines_failed = 0
    ended_ids: list[int] = []
    with store.transaction():
        if careful:
            touched: set[str] = set()
            for episode in episodes:
                target_graph = _graph_for(episode, graph)
                outcome = _store_line(
                    store, episode, target_graph, extractor, report, source, redact=redact
                )
                if outcome == "new":
                    touched.add(target_graph)
                lines_failed += outcome == "failed"
            for g in sorted(touched):
                store.bump_ingest(g)
        else:
            _store_files(store, [(source, episodes)], graph, extractor, report, redact=redact)
        ended_ids = store.end_contradicted()
    if ended is not None:  # committed: the file's ended facts count
        ended(ended_ids)
    return lines_failed


def _store_files(
    store: Store,
    files: list[tuple[str, list[EpisodeInput]]],
    graph: str | None,
    extractor: Extractor,
    report: IngestReport,
    *,
    redact: bool,
) -> None:
    """Store the episodes of several files (source, episodes) at once, in the open
    transaction (``store_episodes``), and count an ingest for each graph a file added
    to. A JSONL record that cannot be stored raises ``_LineFailed``: the caller stores
    the file again record by record (``_store_file`` with ``careful``)."""
    items = [(e, _graph_for(e, graph), source) for source, episodes in files for e in episodes]
    try:
        ids = store_episodes(store, items, extractor, report, redact=redact)
    except (ValueError, KeyError) as exc:
        if any(e.line is not None for e, _, _ in items):
            raise _LineFailed(str(exc)) from exc
        raise
    touched: dict[str, int] = {}  # graph -> files that added to it
    at = 0
    for _source, parsed in files:
        part = range(at, at + len(parsed))
        at += len(parsed)
        for g in {items[i][1] for i in part if ids[i] is not None}:
            touched[g] = touched.get(g, 0) + 1
    for g in sorted(touched):
        store.bump_ingest(g, touched[g])


def _store_line(
    store: Store,
    episode: EpisodeInput,
    graph: str,
    extractor: Extractor,
    report: IngestReport,
    source: str,
    *,
    redact: bool,
) -> str:
    """Store one JSONL record in a savepoint: a line that cannot be stored is reported as
    FILE:LINE and rolled back alone, and the file's other lines still land. Returns
    'new', 'duplicate' or 'failed'."""
    record = _mark(report)  # per line: list lengths, not copies (a large file is linear)
    try:
        with store.transaction():
            stored = store_episode(
                store, episode, graph, extractor, report, redact=redact, origin=source
            )
    except (ValueError, KeyError) as exc:
        _rewind(report, record)
        report.episodes_failed += 1
        report.errors.append((f"{source}:{episode.line}", f"could not store: {exc}"))
        return "failed"
    return "duplicate" if stored is None else "new"


def _screen(episodes: list[EpisodeInput], source: str, report: IngestReport) -> list[EpisodeInput]:
    """Warn about ignored front-matter keys, before anything is stored.

    One warning per file, not per record: a JSONL export from another tool with an extra
    "id" in every line says so once.
    """
    out = []
    ignored: dict[str, int] = {}
    for episode in episodes:
        for key in episode.ignored_keys:
            ignored[key] = ignored.get(key, 0) + 1
        out.append(episode)
    if ignored:
        message = unknown_keys_message(sorted(ignored))
        if len(episodes) > 1:
            most = max(ignored.values())
            message += f" (in {most} of {len(episodes)} records)"
        report.warnings.append((source, message))
    return out


def _counters(report: IngestReport) -> dict[str, Any]:
    def copy(v: Any) -> Any:
        if isinstance(v, dict):
            return {k: copy(x) for k, x in v.items()}
        return list(v) if isinstance(v, list) else set(v) if isinstance(v, set) else v

    return {k: copy(v) for k, v in vars(report).items()}


def _mark(report: IngestReport) -> dict[str, Any]:
    """A cheap snapshot for one record: counters, list lengths and copies of the small
    sets and dicts. ``_counters`` copies every list, which per record of a large export
    would cost time quadratic in the sentences not understood."""
    return {
        k: len(v) if isinstance(v, list) else _counters_copy(v) for k, v in vars(report).items()
    }


def _rewind(report: IngestReport, mark: dict[str, Any]) -> None:
    for k, v in mark.items():
        current = getattr(report, k)
        if isinstance(current, list):
            del current[v:]
        else:
            setattr(report, k, v)


def _counters_copy(v: Any) -> Any:
    if isinstance(v, dict):
        return {k: _counters_copy(x) for k, x in v.items()}
    return set(v) if isinstance(v, set) else v


def _restore(report: IngestReport, snapshot: dict[str, Any]) -> None:
    for k, v in snapshot.items():
        setattr(report, k, v)


def ingest_records(
    store: Store,
    batches: Iterable[Batch | InputError],
    *,
    graph: str | None = None,
    extractor: Extractor | None = None,
    progress: Callable[[str], None] | None = None,
    redact: bool = True,
) -> IngestReport:
    """Store what connectors read from tracker and chat exports (``memcli.connectors``).

    One transaction per export file and a savepoint per record inside it: a record that
    cannot be stored is reported as FILE: RECORD and rolled back alone (an issue lands
    with all its episodes or none), the file's other records still land. Records the
    connector could not read arrive as ``batch.errors`` and are reported the same way.
    """
    extractor = extractor or RulesExtractor()
    report = IngestReport()
    prepare = getattr(extractor, "prepare", None)
    if prepare is not None:
        batches = list(batches)
        texts: list[tuple[str, str | None]] = []
        for batch in batches:
            if isinstance(batch, InputError):
                continue
            for _label, episodes in batch.records:
                for ep in episodes:
                    if redact:
                        ep, _found = redact_episode(ep)
                    if ep.facts is None and _stored_id(store, _graph_for(ep, graph), ep) is None:
                        texts.append((ep.content, ep.author))
        prepare(texts)
    items = iter(batches)
    ended: set[int] = set()  # facts whose end this run set or moved, each counted once
    for batch in items:
        report.files += 1
        if isinstance(batch, InputError):
            report.files_failed += 1
            report.errors.append((batch.source, batch.reason))
            if progress:
                progress(batch.source)
            continue
        for err in batch.errors:
            report.episodes_failed += 1
            report.errors.append((err.source, err.reason))
        snapshot = _counters(report)
        try:
            with store.transaction():
                touched: set[str] = set()
                for label, episodes in batch.records:
                    record = _mark(report)
                    try:
                        with store.transaction():
                            for episode in episodes:
                                target = _graph_for(episode, graph)
                                stored = store_episode(
                                    store,
                                    episode,
                                    target,
                                    extractor,
                                    report,
                                    redact=redact,
                                    origin=batch.source,
                                )
                                if stored:
                                    touched.add(target)
                    except (ValueError, KeyError) as exc:
                        _rewind(report, record)
                        report.episodes_failed += 1
                        report.errors.append(
                            (f"{batch.source}: {label}", f"could not store: {exc}")
                        )
                for g in sorted(touched):
                    store.bump_ingest(g)
                ended_now = store.end_contradicted()
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            _restore(report, snapshot)
            total = report.files + sum(1 for _ in items)
            report.files_failed += 1
            report.incomplete = (report.files_stored, total)
            report.errors.append(
                (
                    batch.source,
                    "database is locked (another writer held it longer than"
                    f" MEMCLI_BUSY_TIMEOUT allows): stored {report.files_stored} of"
                    f" {total} file(s); re-run to finish (re-import is idempotent)",
                )
            )
            break
        else:
            report.files_stored += 1
            ended.update(ended_now)
            report.facts_ended = len(ended)
        if batch.errors and not batch.records:
            report.files_failed += 1
        if progress:
            progress(batch.source)
    return report


@dataclass
class ExtractReport:
    episodes: int = 0
    done: int = 0
    still_pending: int = 0
    facts_new: int = 0
    facts_ended: int = 0
    entities_new: int = 0
    graphs: set[str] = field(default_factory=set)

    def as_dict(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "done": self.done,
            "still_pending": self.still_pending,
            "facts_new": self.facts_new,
            "facts_ended": self.facts_ended,
            "entities_new": self.entities_new,
            "graphs": sorted(self.graphs),
        }

    def record(self) -> ExtractResult:
        """This report as the contract record ``extract --json`` prints."""
        from memcli.contract import ExtractResult

        return ExtractResult.model_validate(self.as_dict())


def extract_pending(store: Store, extractor: Extractor, graph: str | None = None) -> ExtractReport:
    """Retry the model extraction of episodes stored while the model was unreachable.

    Their rules facts stay; the model's facts are added (a fact already stored is
    skipped), the contradiction rules run again, and the graph is marked changed so the
    next analyze sees the new facts. An episode the model still cannot read stays pending.
    """
    if graph is not None:
        require_graph(store, graph)
    rows = store.pending_episodes(graph)
    report = ExtractReport(episodes=len(rows))
    ended: set[int] = set()
    prepare = getattr(extractor, "prepare", None)
    if prepare is not None:
        prepare([(r["content"], r["author"]) for r in rows])
    for r in rows:
        extraction = extractor(r["content"], r["author"])
        if extraction.status == "pending":
            report.still_pending += 1
            continue
        counts = IngestReport()
        with store.transaction():
            _store_facts(store, r["graph_id"], r["id"], r["occurred_at"], extraction, counts)
            counts.facts_new += len(release_stored(store, r["id"]))
            store.set_extraction(
                r["id"], status="done", extractor=extractor.name, unparsed=extraction.unparsed
            )
            store.bump_ingest(r["graph_id"])
            ended_now = store.end_contradicted()
        report.done += 1
        report.facts_new += counts.facts_new
        ended.update(ended_now)
        report.facts_ended = len(ended)
        report.entities_new += counts.entities_new
        report.graphs.add(r["graph_id"])
    return report


# "Alice: ...", "Alice Ng (user): ..." as chat logs and Zep messages write a speaker.
_SPEAKER = re.compile(
    r"^\s*([A-Z][\w'.-]*(?: [A-Z][\w'.-]*){0,2})(?: \([^)]{1,30}\))?:\s+(\S.*)$", re.S
)
# Words that open a line with a colon without naming anyone.
_NOT_SPEAKERS = frozenset(
    "note notes update updates status summary fyi re subject todo warning error info done "
    "next today yesterday tomorrow blocked blocker blockers question answer action why "
    "what when where how context background eta ps".split()
)


def split_speaker(text: str, *, message: bool) -> tuple[str | None, str]:
    """``("Alice", "I am blocked ...")`` for ``"Alice: I am blocked ..."``: the speaker of
    a message becomes its author, so "I", "she" and "my" resolve to them. For plain text
    (``message`` False) a label such as "Note:" or "Status:" is not taken for a name."""
    m = _SPEAKER.match(text)
    if not m:
        return None, text
    name = m.group(1).strip()
    if not message and name.lower() in _NOT_SPEAKERS:
        return None, text
    return name, m.group(2).strip()


def add(
    store: Store,
    graph: str,
    data: Any,
    *,
    type: str = "text",
    author: str | None = None,
    occurred_at: Any = None,
    source: str | None = None,
    extractor: Extractor | None = None,
    redact: bool = True,
) -> list[Episode]:
    """Add one update (``type="text"``; ``type="message"`` when it opens with its
    speaker, "Alice: ...", who becomes the author unless ``author`` is given; plain text
    opening with a name and a colon is read the same way) or memcli JSON episodes (``type="json"``: an
    object or a list of objects with ``content`` and optionally ``author``,
    ``occurred_at``, ``source``, ``facts``) to ``graph``, in one transaction.

    The text is stored as given (no front matter is read). ``author``, ``occurred_at``
    (default: now) and ``source`` (default ``api``) apply to text, and are defaults for
    JSON objects that do not name their own. Adding the same update twice stores it
    once. Returns the episodes (see :func:`episodes`) with ``created`` False for
    duplicates. Run :func:`analyze` afterwards to bring observations up to date.
    Secrets are redacted as in :func:`ingest` unless ``redact`` is False.
    """
    from memcli.readers import episode_from_json, to_utc

    when = (
        to_utc(occurred_at, source="occurred_at", field="occurred_at") if occurred_at else utcnow()
    )
    where = source or "api"
    if not graph or not graph.strip():
        raise UsageError("graph_id must be a non-empty string")
    graph = graph.strip()
    if type in ("text", "message"):
        if not isinstance(data, str) or not data.strip():
            raise UsageError(f"data must be non-empty text for type={type!r}")
        if not (author and author.strip()):
            speaker, said = split_speaker(data, message=type == "message")
            if speaker:
                author, data = speaker, said
        items = [
            EpisodeInput(
                content=data.strip(),
                author=author.strip() if author and author.strip() else None,
                occurred_at=when,
                graph=graph,
                source=where,
                format="text",
                dated=bool(occurred_at),
            )
        ]
    elif type == "json":
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise UsageError(f"data is not valid JSON: {exc.msg} (line {exc.lineno})") from None
        objects = data if isinstance(data, list) else [data]
        if not objects:
            raise UsageError("data is an empty list: nothing to add")
        items = []
        for i, obj in enumerate(objects):
            if isinstance(obj, dict) and author and not obj.get("author"):
                obj = {**obj, "author": author}
            label = f"{where}[{i}]" if isinstance(data, list) else where
            items.append(episode_from_json(obj, label, when))
    else:
        raise UsageError(f"unknown type {type!r}: use 'text', 'message' or 'json'")

    report = IngestReport(files=1)
    results: list[tuple[int, bool]] = []
    try:
        with store.transaction():
            for item in items:
                new_id = store_episode(
                    store, item, graph, extractor or RulesExtractor(), report, redact=redact
                )
                if new_id is None:
                    if redact:
                        item, _found = redact_episode(item)  # the key it was stored under
                    old_id = _stored_id(store, graph, item)
                    assert old_id is not None
                    results.append((old_id, False))
                else:
                    results.append((new_id, True))
            if any(created for _, created in results):
                store.bump_ingest(graph)
    except (ValueError, KeyError) as exc:
        raise UsageError(f"could not store the episode: {exc}") from None
    stored = {e.id: e for e in episodes(store, graph, ids=[i for i, _ in results])}
    return [stored[i].model_copy(update={"created": created}) for i, created in results]
