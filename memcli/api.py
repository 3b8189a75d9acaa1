"""The library under the CLI: ingest, analyze and read, over an open :class:`Store`.

The CLI only parses options and prints what these functions return; agents and scripts
can call them directly. Long operations report progress through an optional callback
instead of printing.
"""

from __future__ import annotations

import gc
import json
import re
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from itertools import chain
from typing import Any

from memcli import analysis, cluster, corrections, writer
from memcli.config import DEFAULT_GRAPH
from memcli.connectors import Batch
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
from memcli.errors import InputError, NotFound, UsageError
from memcli.extract import Extractor
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
from memcli.redact import merge, redact_episode
from memcli.resolve import display_name, normalize, resolved
from memcli.search import (
    ANY_WEIGHT,
    HIGHLIGHT,
    Query,
    Scope,
    fuse,
    observation_score,
    parse_query,
)
from memcli.signatures import SignatureMode, fact_signatures
from memcli.sources import SourceText
from memcli.store import Store, utcnow


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


@dataclass
class _NewEpisode:
    """An episode of a batch that is not stored yet, resolved in Python."""

    episode: EpisodeInput
    graph: str
    digest: str
    extraction: Extraction
    extractor: str
    facts: list[tuple[_Key, str, _Key, ExtractedFact]]  # (source, relation, target, fact)


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

    names: dict[tuple[str, str, str], _Key] = {}  # (graph, name as written, type) -> key
    ids: dict[_Key, int] = {}
    first_name: dict[_Key, str] = {}  # display name of a key's first sight
    aliases: list[tuple[_Key, str]] = []

    def resolve(graph: str, ref: EntityRef) -> _Key:
        type_ = ref.type.value
        seen = (graph, ref.name, type_)
        key = names.get(seen)
        if key is not None:
            return key
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
            extraction = Extraction(facts=list(episode.facts), unparsed=[])
            extractor_name = "given"
        else:
            extraction = extractor(episode.content, episode.author)
            extractor_name = extractor.name
        if episode.ticket_prefix or episode.subject:
            extraction = replace(
                extraction, facts=[_in_context(f, episode) for f in extraction.facts]
            )
        facts = []
        for fact in extraction.facts:
            src, tgt = resolve(graph, fact.source), resolve(graph, fact.target)
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
            facts.append((src, fact.relation.value, tgt, fact))
        for ref, alias in episode.aliases:
            if alias.strip():
                aliases.append((resolve(graph, ref), alias.strip()))
        slots.append(len(new))
        new.append(_NewEpisode(episode, graph, digest, extraction, extractor_name, facts))
    if not new:
        return [None] * len(slots)

    # Nothing is written before this point.
    store.ensure_graphs(dict.fromkeys(n.graph for n in new), now=now)
    ids.update(store.entity_ids(k for k in first_name if k not in ids))
    created = [k for k in first_name if k not in ids]
    made = store.insert_entities([(*k, first_name[k]) for k in created], now=now)
    ids.update(zip(created, made, strict=True))
    report.entities_new += len(made)
    for (graph, written, type_), key in names.items():
        store.remember_name(graph, written, type_, ids[key], key[2])
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
                json.dumps(n.extraction.unparsed, ensure_ascii=False),
            )
            for n in new
        ]
    )
    rows: list[tuple[str, int, int, str, int, str, str, str | None]] = []
    signed: list[tuple[_Key, str, _Key]] = []  # per row: (source, relation, target) keys
    about: list[tuple[str, str]] = []  # per row: the episode's hash, the source's type
    for n, episode_id in zip(new, episode_ids, strict=True):
        stated: set[tuple[int, str, int]] = set()
        for src, relation, tgt, fact in n.facts:
            triple = (ids[src], relation, ids[tgt])
            if triple in stated:
                continue  # a repeat of the same fact is stored once
            stated.add(triple)
            rows.append(
                (
                    n.graph,
                    episode_id,
                    triple[0],
                    relation,
                    triple[2],
                    fact.sentence,
                    fact.valid_at or n.episode.occurred_at,
                    fact.invalid_at,
                )
            )
            signed.append((src, relation, tgt))
            about.append((n.digest, src[1]))
    fact_ids = store.insert_fact_rows(rows, about, now=now)
    report.facts_new += len(fact_ids)
    # Signatures per distinct (source, relation, target): the same fact recurs across a
    # batch. Keys come in the order of the facts, so new signatures get the ids a
    # statement per episode gave them.
    keys_of = {
        t: fact_signatures((t[0][1], t[0][2]), t[1], (t[2][1], t[2][2]))
        for t in dict.fromkeys(signed)
    }
    sig_ids = store.signature_ids_of(
        (t[0][0], kind, key) for t, keys in keys_of.items() for kind, key in keys
    )
    linked = {t: [sig_ids[(t[0][0], key)] for _kind, key in keys] for t, keys in keys_of.items()}
    store.link_signatures(
        [
            (fact_id, sig_id)
            for fact_id, t in zip(fact_ids, signed, strict=True)
            for sig_id in linked[t]
        ]
    )

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


_BARE_TICKET = re.compile(r"#\d+")
# A tracker reference: "owner/repo#12", "#12", "PAY-118". Only a wait on one of these is
# moved from a tracker text's author to its subject: a wait the reader found on a loose
# phrase ("a managed queue") stays the author's, so it cannot re-root the tracker's chain.
_TICKET = re.compile(r"(?:[\w.-]+/[\w.-]+)?#\d+|[A-Z][A-Z0-9_]*-\d+")


def _in_context(fact: ExtractedFact, episode: EpisodeInput) -> ExtractedFact:
    """A fact read from a tracker item's text, in that item's context (see EpisodeInput):
    bare "#N" work items become "<ticket_prefix>#N", and the author's own wait on another
    ticket becomes the subject's."""
    prefix = episode.ticket_prefix

    def name(ref: EntityRef) -> EntityRef:
        if prefix and ref.type is EntityType.WORK_ITEM:
            shown = display_name(ref.name, ref.type)
            if _BARE_TICKET.fullmatch(shown):
                return EntityRef(prefix + shown, ref.type)
        return ref

    source, target = name(fact.source), name(fact.target)
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


# Allocations between two collections of the youngest generation while ingest runs
# (CPython's default is 700). Ingest makes millions of small tuples and strings that live
# until the batch is written and hold no cycles; collecting every 700 of them cost a
# tenth of the CPU of a JSONL ingest. Raised for the length of the call (the first of
# concurrent calls raises it, the last one out restores it).
INGEST_GC_THRESHOLD = 50_000
_gc_lock = threading.Lock()
_gc_users = 0
_gc_before: tuple[int, int, int] = gc.get_threshold()


@contextmanager
def _fewer_collections() -> Iterator[None]:
    global _gc_users, _gc_before
    with _gc_lock:
        if _gc_users == 0:
            _gc_before = gc.get_threshold()
            gc.set_threshold(max(_gc_before[0], INGEST_GC_THRESHOLD), *_gc_before[1:])
        _gc_users += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_users -= 1
            if _gc_users == 0:
                gc.set_threshold(*_gc_before)


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
            try:
                try:
                    lines_failed = _store_file(
                        self.store,
                        episodes,
                        self.graph,
                        self.extractor,
                        report,
                        item.source,
                        redact=self.redact,
                        ended=self.count_ended,
                    )
                except _LineFailed:
                    # A record could not be stored. Its file is taken back whole and
                    # stored again with a savepoint per record, which stores the others
                    # and reports that one as FILE:LINE, exactly as if it had run so.
                    _rewind(report, mark)
                    mark = _mark(report)
                    lines_failed = _store_file(
                        self.store,
                        episodes,
                        self.graph,
                        self.extractor,
                        report,
                        item.source,
                        redact=self.redact,
                        careful=True,
                        ended=self.count_ended,
                    )
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
    for _source, episodes in files:
        part = range(at, at + len(episodes))
        at += len(episodes)
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


# --- analysis ---


@dataclass
class AnalyzeReport:
    graph: str
    skipped: bool = False
    reason: str = ""
    episodes: int = 0
    clusters: int = 0
    multi_episode_clusters: int = 0
    created: list[int] = field(default_factory=list)
    updated: list[int] = field(default_factory=list)
    retired: list[int] = field(default_factory=list)
    unchanged: list[int] = field(default_factory=list)
    seconds: float = 0.0
    mode: str = ""
    explain: list[str] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)  # automatic merges made

    def as_dict(self) -> dict[str, Any]:
        return {
            "graph": self.graph,
            "skipped": self.skipped,
            "reason": self.reason,
            "mode": self.mode,
            "episodes": self.episodes,
            "clusters": self.clusters,
            "multi_episode_clusters": self.multi_episode_clusters,
            "created": self.created,
            "updated": self.updated,
            "retired": self.retired,
            "unchanged": self.unchanged,
            "seconds": round(self.seconds, 4),
            "explain": self.explain,
            "merged": self.merged,
        }

    def record(self) -> AnalyzeResult:
        """This report as the contract record ``analyze --json`` prints."""
        return AnalyzeResult.model_validate(self.as_dict())


# (name, summary), or (name, summary, writer) when the prose came from another writer
# than the configured one (a language model writer that fell back to the template).
Writer = Callable[[analysis.Draft], tuple[str, str] | tuple[str, str, str]]


def analyze(
    store: Store,
    graph: str,
    *,
    signatures: SignatureMode = SignatureMode.EXTENDED,
    writer_name: str = "template",
    write: Writer | None = None,
    force: bool = False,
    incremental: bool = True,
    settle_seconds: float | None = None,
    controls: cluster.Controls | None = None,
) -> AnalyzeReport:
    """Cluster the graph's episodes and bring its observations in line with the evidence.

    A no-op when nothing was ingested since the last run with the same settings. Otherwise
    an incremental run re-clusters only the episodes new evidence can reach (see
    ``Store.affected_episodes``) when that is under half the graph, and gives the same
    observations a full pass would. The whole run holds the write lock, so two analyzes
    of one database never interleave: the second waits, then finds nothing to do.
    """
    started = time.perf_counter()
    report = AnalyzeReport(graph=graph)
    if store.graph(graph) is None:
        raise NotFound(f"no graph named {graph!r}", hint="see 'memcli graphs'")
    controls = controls or cluster.Controls()
    config = json.dumps(
        {
            "signatures": signatures.value,
            "writer": writer_name,
            "window": controls.window_seconds,
            "max_signature_episodes": controls.max_signature_episodes,
            "max_cluster": controls.max_cluster,
            "stale_after": controls.stale_after_seconds,
        }
    )
    write = write or writer.write
    if settle_seconds is not None and not force:
        quiet = _seconds_since(store.graph(graph) or {}, "last_ingest_at")
        if quiet is not None and quiet < settle_seconds:
            report.skipped = True
            report.reason = f"last ingest {quiet:.0f}s ago; waiting for {settle_seconds:.0f}s of quiet (--settle)"
            report.seconds = time.perf_counter() - started
            return report
    with store.transaction():
        info = store.graph(graph)
        assert info is not None
        if (
            not force
            and info["analyzed_seq"] == info["ingest_seq"]
            and info["analyzed_config"] == config
        ):
            report.skipped = True
            report.reason = "nothing new since the last analyze"
            report.seconds = time.perf_counter() - started
            return report
        now = utcnow()
        # Safe abbreviations merge first (recorded, reversible): a new merge makes this
        # a full pass, as does any merge, unmerge or correction since the last run. Only
        # a new name can make a new safe merge, so a run that adds none skips the check.
        last = store.last_run(graph)
        if last is None or store.entities_created_since(graph, last["started_at"]):
            report.merged = corrections.auto_resolve(store, graph)
        info = store.graph(graph)
        assert info is not None
        seq = info["ingest_seq"]
        max_episode, max_fact, total = store.analysis_watermark(graph)
        scope: set[int] | None = None
        recheck: set[int] = set()
        canon = store.entity_canon(graph)
        if (
            incremental
            and not force
            and not info["needs_full"]
            and last is not None
            and last["config"] == config
            and not (
                canon
                and store.changes_touch(
                    graph,
                    last["started_at"],
                    int(last["max_fact_id"]),
                    set(canon) | set(canon.values()),
                )
            )
        ):
            affected = store.affected_episodes(
                graph,
                last["started_at"],
                int(last["max_episode_id"]),
                signatures.kinds(),
                max_fact_id=int(last["max_fact_id"]),
                window_seconds=controls.window_seconds,
                hub_threshold=controls.max_signature_episodes,
            )
            if len(affected) * 2 < total:
                scope = affected
                recheck = _recheck(store, graph, int(last["max_episode_id"]), controls)
        report.mode = "full" if scope is None else "incremental"
        _analyze_scope(
            store, graph, scope, report, signatures, writer_name, write, now, controls, recheck
        )
        report.seconds = time.perf_counter() - started
        store.record_run(
            {
                "graph_id": graph,
                "started_at": now,
                "finished_at": utcnow(),
                "mode": report.mode,
                "config": config,
                "episodes": report.episodes,
                "clusters": report.clusters,
                "created": len(report.created),
                "updated": len(report.updated),
                "retired": len(report.retired),
                "unchanged": len(report.unchanged),
                "max_episode_id": max_episode,
                "max_fact_id": max_fact,
                "seconds": report.seconds,
            }
        )
        store.mark_analyzed(graph, int(seq), config)
    return report


def _recheck(
    store: Store, graph: str, last_max_episode: int, controls: cluster.Controls
) -> set[int]:
    """What an incremental pass rechecks beyond the reach of new facts: the active roots
    whose staleness the move of the graph's present may flip. They are rebuilt from
    their stored evidence, as are an owner's roots outside the scope (see
    ``Store.load_analysis``): neither redoes a component."""
    if controls.stale_after_seconds is None:
        return set()
    before, now = store.present(graph, last_max_episode), store.present(graph)
    if not (before and now and now > before):
        return set()
    gap = timedelta(seconds=controls.stale_after_seconds)
    return store.stale_candidates(graph, _shift(before, -gap), _shift(now, -gap))


def _shift(when: str, by: timedelta) -> str:
    moved = datetime.fromisoformat(when.replace("Z", "+00:00")) + by
    return moved.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _seconds_since(row: dict[str, Any], key: str) -> float | None:
    value = row.get(key)
    if not value:
        return None
    then = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return max(0.0, (datetime.now(UTC) - then).total_seconds())


def _analyze_scope(
    store: Store,
    graph: str,
    scope: set[int] | None,
    report: AnalyzeReport,
    signatures: SignatureMode,
    writer_name: str,
    write: Writer,
    now: str,
    controls: cluster.Controls,
    recheck: set[int] | None = None,
) -> None:
    """One analysis pass over ``scope`` (None: the whole graph): the store loads plain
    data, the pure core decides, the writer adds prose, the store writes it all."""
    inp = store.load_analysis(
        graph,
        scope=scope,
        recheck=recheck or (),
        kinds=signatures.kinds(),
        with_times=controls.window_seconds is not None,
    )
    clustering = analysis.cluster_input(inp, controls)
    inp.incidences = []  # the largest list of the run: let it go before the cones
    cones = store.dependency_cones(graph, clustering.component)
    keys = store.signature_keys(analysis.cut_signatures(clustering))
    result = analysis.run(
        inp,
        clustering,
        cones,
        controls=controls,
        writer=writer_name,
        now=now,
        signature_keys=keys,
    )
    del inp, cones  # the drafts keep what they need: the rest goes before the writes
    prepare = getattr(write, "prepare", None)
    if prepare is not None:
        # Model-backed writers fetch all prose first (concurrently, cached).
        prepare(result.to_write)
    prose: dict[str, tuple[str, str, str]] = {}
    for d in result.to_write:
        written = write(d)
        prose[d.pattern_key] = (
            written[0],
            written[1],
            written[2] if len(written) > 2 else writer_name,
        )
    applied = store.apply(result, prose, now=now)
    report.explain.extend(result.explain)
    report.episodes = result.episodes
    report.clusters = result.clusters
    report.multi_episode_clusters = result.multi_episode_clusters
    report.unchanged = applied.unchanged
    report.updated = applied.updated
    report.retired = applied.retired
    report.created = applied.created


# --- reads ---


def require_graph(store: Store, graph: str) -> None:
    if not store.graph_exists(graph):
        known = ", ".join(store.graph_ids()) or "none yet"
        raise NotFound(f"no graph named {graph!r} (graphs: {known})")


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
    if status not in ("active", "retired", "all"):
        raise UsageError(f"unknown status {status!r}: use active, retired or all")
    if evidence is not None and evidence < 0:
        raise UsageError(f"evidence must be 0 or more, not {evidence}")
    if graph is not None:
        require_graph(store, graph)
    rows = store.observation_rows(graph, status, ids=ids, as_of=as_of, limit=limit)
    if not rows:
        return []
    obs_ids = [r["id"] for r in rows]
    roots: dict[int, tuple[list[str], str | None]]
    totals: dict[int, tuple[int, int, int]] = {}
    if evidence is None:
        lists = store.evidence_lists(obs_ids)
        roots = {i: _root_confirmation(*lists[i]) for i in obs_ids}
    else:  # the lists are cut: the store reads what the whole lists would have said
        heads = store.evidence_heads(obs_ids, evidence)
        lists = {i: heads[i][0] for i in obs_ids}
        totals = {i: heads[i][1] for i in obs_ids}
        roots = store.root_confirmations(obs_ids)
    links = store.observation_link_map(obs_ids)
    out = []
    for r in rows:
        status = r["status"]
        if as_of is not None:
            # The state at that moment: every row selected held then, whatever now.
            status = "active" if r["end_at"] is None or r["end_at"] > as_of else "retired"
        ents, eps, fs = lists[r["id"]]
        root_names, confirmed = roots[r["id"]]
        # Keys in the order of memcli.contract.Observation's fields.
        record = {
            "id": r["id"],
            "graph": r["graph_id"],
            "name": r["name"],
            "summary": r["summary"],
            "status": status,
            "kind": r["kind"],
            "rank": r["rank"],
            "leverage": r["rank"],
            "root_entities": root_names,
            "entities": ents,
            "episodes": eps,
            "facts": fs,
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
            "supersedes": sorted(links[r["id"]]["supersedes"]),
            "superseded_by": sorted(links[r["id"]]["superseded_by"]),
            "writer": r["writer"],
            "stale": r["kind"] == analysis.STALE_BLOCKER,
            "confirmed_at": r["latest_evidence_at"] if confirmed is None else confirmed,
            "status_now": r["status"],
        }
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


def _root_confirmation(
    entities: list[dict[str, Any]], episodes: list[dict[str, Any]], facts: list[dict[str, Any]]
) -> tuple[list[str], str | None]:
    """From an observation's whole evidence: its root entities' names and the date of the
    latest evidence episode that stated a wait on, or an owner of, one of them."""
    roots = [e["name"] for e in entities if e["role"] == "root"]
    confirming = {
        f["episode_id"]
        for f in facts
        if f["target"] in roots and f["relation"] in ("blocked_by", "owns")
    }
    confirmed = [e["occurred_at"] for e in episodes if e["id"] in confirming]
    return roots, max(confirmed) if confirmed else None


def observation(store: Store, obs_id: int) -> ObservationDetail:
    """One observation, with the other observations of its cluster as context."""
    return ObservationDetail.model_validate(observation_record(store, obs_id))


def observation_views(
    store: Store, graph: str, status: str = "active", *, evidence: int
) -> list[ObservationView]:
    """:func:`observations` with each evidence list cut to ``evidence`` items in SQL (0:
    counts only), typed as the views they are: what an agent's bounded reply needs,
    whatever the evidence holds."""
    records = observation_records(store, graph, status, evidence=evidence)
    return [ObservationView.model_validate(r) for r in records]


def observation_view(store: Store, obs_id: int, evidence: int) -> ObservationView:
    """One observation (any status) as in :func:`observation_views`."""
    found = observation_records(store, None, "all", ids=[obs_id], evidence=evidence)
    if not found:
        raise NotFound(f"no observation with id {obs_id}")
    return ObservationView.model_validate(found[0])


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
    require_graph(store, graph)
    return [
        StoredFact.model_validate(r)
        for r in store.fact_list(graph, include_ended=include_ended, as_of=as_of)
    ]


def entities(store: Store, graph: str) -> list[EntitySummary]:
    """A graph's entities by type and name, with their aliases and how much cites them;
    ``merged_into`` names the entity a merged one resolves to (``memcli entity alias``)."""
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
    return {
        k: f[k]
        for k in (
            "id",
            "source",
            "relation",
            "target",
            "episode_id",
            "valid_at",
            "invalid_at",
            "sentence",
        )
    }


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


def entity_timeline(store: Store, graph: str, name: str) -> EntityTimeline:
    """Every fact about the entity called ``name`` in ``graph``, valid and ended, in the
    order they became true, each with the episode that stated it and the one that ended it.

    ``name`` matches an entity's normalised name or any alias it was written as; a name
    used for both a person and a work item returns both entities' facts. Entities merged
    into it (``memcli entity alias``) are listed and their facts included, each entity
    with ``merged_into`` (None unless it is merged into another).
    """
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
    active = [
        o for o in observation_records(store, graph, "active") if o["kind"] in analysis.ROOT_KINDS
    ]
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
