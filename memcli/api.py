"""The library under the CLI: ingest, analyze and read, over an open :class:`Store`.

The CLI only parses options and prints what these functions return; agents and scripts
can call them directly. Long operations report progress through an optional callback
instead of printing.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from memcli import analysis, cluster, lifecycle, writer
from memcli.config import DEFAULT_GRAPH
from memcli.errors import InputError, NotFound, UsageError
from memcli.models import EntityRef, EntityType, EpisodeInput, Extraction, Relation
from memcli.readers import content_hash, parse_document
from memcli.resolve import display_name, normalize
from memcli.signatures import SignatureMode, fact_signatures
from memcli.sources import SourceText
from memcli.store import Store, utcnow


class Extractor(Protocol):
    name: str

    def __call__(self, text: str, author: str | None) -> Extraction: ...


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
    graphs: set[str] = field(default_factory=set)

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
            "not_understood": [{"source": s, "sentence": t} for s, t in self.explain],
        }


def _graph_for(episode: EpisodeInput, override: str | None) -> str:
    graph = override or episode.graph or DEFAULT_GRAPH
    return graph.strip() or DEFAULT_GRAPH


def _resolve(store: Store, graph: str, ref: EntityRef, created: list[int]) -> int:
    name = display_name(ref.name, ref.type)
    norm = normalize(name)
    if not norm:
        raise ValueError(f"entity name {ref.name!r} is empty after normalisation")
    existing = store.entity_id(graph, norm, ref.type.value)
    entity_id = store.upsert_entity(graph, name, norm, ref.type.value)
    if existing is None:
        created.append(entity_id)
    return entity_id


def store_episode(
    store: Store,
    episode: EpisodeInput,
    graph: str,
    extractor: Extractor,
    report: IngestReport,
) -> int | None:
    """Store one episode with its facts and signatures; None when it is a duplicate.

    Call inside a transaction: the episode and its facts land together.
    """
    digest = content_hash(episode.content, episode.author, episode.occurred_at)
    if store.episode_id_by_hash(graph, digest) is not None:
        report.episodes_duplicate += 1
        return None
    if episode.facts is not None:
        extraction = Extraction(facts=list(episode.facts), unparsed=[])
        extractor_name = "given"
    else:
        extraction = extractor(episode.content, episode.author)
        extractor_name = extractor.name
    store.ensure_graph(graph)
    episode_id = store.insert_episode(
        {
            "graph_id": graph,
            "content_hash": digest,
            "content": episode.content,
            "author": episode.author,
            "occurred_at": episode.occurred_at,
            "ingested_at": utcnow(),
            "source": episode.source,
            "format": episode.format,
            "extractor": extractor_name,
            "extraction_status": extraction.status,
            "unparsed": json.dumps(extraction.unparsed, ensure_ascii=False),
        }
    )
    _store_facts(store, graph, episode_id, episode.occurred_at, extraction, report)
    report.episodes_new += 1
    if extraction.status == "pending":
        report.episodes_pending += 1
    report.unparsed += len(extraction.unparsed)
    report.explain.extend((episode.source, s) for s in extraction.unparsed)
    report.graphs.add(graph)
    return episode_id


def _store_facts(
    store: Store,
    graph: str,
    episode_id: int,
    occurred_at: str,
    extraction: Extraction,
    report: IngestReport,
) -> None:
    """Resolve, store and sign an episode's facts, then apply the contradiction rules.

    A fact the episode already has is skipped, so this can run again for an episode whose
    extraction is retried (``extract_pending``).
    """
    created: list[int] = []
    for fact in extraction.facts:
        source_id = _resolve(store, graph, fact.source, created)
        target_id = _resolve(store, graph, fact.target, created)
        if source_id == target_id:
            continue
        fact_id = store.insert_fact(
            graph,
            episode_id,
            source_id,
            fact.relation.value,
            target_id,
            fact.sentence,
            fact.valid_at or occurred_at,
            fact.invalid_at,
        )
        if fact_id is None:
            continue
        report.facts_new += 1
        src = (fact.source.type.value, normalize(display_name(fact.source.name, fact.source.type)))
        tgt = (fact.target.type.value, normalize(display_name(fact.target.name, fact.target.type)))
        store.add_signatures(graph, fact_id, fact_signatures(src, fact.relation, tgt))
    report.facts_ended += store.apply_contradictions(episode_id)
    report.entities_new += len(created)


def _to_extract(
    store: Store, inputs: list[SourceText | InputError], graph: str | None
) -> list[tuple[str, str | None]]:
    """(text, author) of every new episode in ``inputs`` that needs an extractor."""
    out: list[tuple[str, str | None]] = []
    for item in inputs:
        if isinstance(item, InputError):
            continue
        try:
            episodes, _ = parse_document(item.text, item.source, default_time=item.default_time)
        except InputError:
            continue
        for ep in episodes:
            digest = content_hash(ep.content, ep.author, ep.occurred_at)
            if ep.facts is None and store.episode_id_by_hash(_graph_for(ep, graph), digest) is None:
                out.append((ep.content, ep.author))
    return out


def ingest(
    store: Store,
    inputs: Iterable[SourceText | InputError],
    *,
    graph: str | None = None,
    extractor: Extractor | None = None,
    progress: Callable[[str], None] | None = None,
) -> IngestReport:
    """Ingest many inputs. One transaction per input file: it lands whole or not at all."""
    extractor = extractor or RulesExtractor()
    report = IngestReport()
    prepare = getattr(extractor, "prepare", None)
    if prepare is not None:
        # A model-backed extractor does its network calls here, concurrently and before
        # any write transaction, so the database is never locked while a model thinks.
        inputs = list(inputs)
        prepare(_to_extract(store, inputs, graph))
    for item in inputs:
        report.files += 1
        if isinstance(item, InputError):
            report.files_failed += 1
            report.errors.append((item.source, item.reason))
            if progress:
                progress(item.source)
            continue
        try:
            episodes, record_errors = parse_document(
                item.text, item.source, default_time=item.default_time
            )
        except InputError as exc:
            report.files_failed += 1
            report.errors.append((exc.source, exc.reason))
            if progress:
                progress(item.source)
            continue
        for err in record_errors:
            report.episodes_failed += 1
            report.errors.append((err.source, err.reason))
        if episodes:
            before = (report.episodes_new, report.facts_new, report.entities_new)
            snapshot = _counters(report)
            try:
                with store.transaction():
                    touched: set[str] = set()
                    for episode in episodes:
                        target_graph = _graph_for(episode, graph)
                        if store_episode(store, episode, target_graph, extractor, report):
                            touched.add(target_graph)
                    for g in sorted(touched):
                        store.bump_ingest(g)
            except (ValueError, KeyError) as exc:
                _restore(report, snapshot)
                report.files_failed += 1
                report.errors.append((item.source, f"could not store: {exc}"))
            del before
        if record_errors and not episodes:
            report.files_failed += 1
        if progress:
            progress(item.source)
    return report


def _counters(report: IngestReport) -> dict[str, Any]:
    return {
        k: (list(v) if isinstance(v, list) else set(v) if isinstance(v, set) else v)
        for k, v in vars(report).items()
    }


def _restore(report: IngestReport, snapshot: dict[str, Any]) -> None:
    for k, v in snapshot.items():
        setattr(report, k, v)


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
        report.done += 1
        report.facts_new += counts.facts_new
        report.facts_ended += counts.facts_ended
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
        }


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
    config = json.dumps({"signatures": signatures.value, "writer": writer_name})
    write = write or writer.write
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
        seq = info["ingest_seq"]
        max_episode = int(
            store.scalar("SELECT coalesce(max(id), 0) FROM episodes WHERE graph_id = ?", (graph,))
        )
        last = store.last_run(graph)
        scope: set[int] | None = None
        if incremental and not force and last is not None and last["config"] == config:
            affected = store.affected_episodes(
                graph, last["started_at"], int(last["max_episode_id"]), signatures.kinds()
            )
            total = int(store.scalar("SELECT count(*) FROM episodes WHERE graph_id = ?", (graph,)))
            if len(affected) * 2 < total:
                scope = affected
        report.mode = "full" if scope is None else "incremental"
        store.set_scope(scope)
        try:
            _analyze_scope(store, graph, report, signatures, writer_name, write, now)
        finally:
            store.set_scope(None)
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
                "seconds": report.seconds,
            }
        )
        store.mark_analyzed(graph, int(seq), config)
    return report


def _analyze_scope(
    store: Store,
    graph: str,
    report: AnalyzeReport,
    signatures: SignatureMode,
    writer_name: str,
    write: Writer,
    now: str,
) -> None:
    """One analysis pass over the current scope (the whole graph, or affected episodes)."""
    incidences = store.signature_incidences(graph, signatures.kinds())
    nodes = store.episode_ids(graph)
    membership = cluster.components(incidences, nodes)
    groups = cluster.group(membership)
    report.episodes = len(nodes)
    report.clusters = len(groups)
    report.multi_episode_clusters = sum(1 for m in groups.values() if len(m) > 1)
    cones = store.dependency_cones(graph, membership)
    fact_rows = store.analysis_facts(graph)
    facts = [
        analysis.Fact(f.id, f.episode_id, f.source_id, Relation(f.relation), f.target_id)
        for f in fact_rows
    ]
    entity_rows = store.entities_by_id({f.source_id for f in facts} | {f.target_id for f in facts})
    entities = {
        i: analysis.Entity(i, r["name"], EntityType(r["type"])) for i, r in entity_rows.items()
    }
    episode_rows = store.episodes_by_id({f.episode_id for f in facts})
    episodes = {
        i: analysis.Episode(i, r["author"], r["occurred_at"], r["source"])
        for i, r in episode_rows.items()
    }
    drafts = analysis.build_drafts(
        membership=membership,
        cones=cones,
        facts=facts,
        entities=entities,
        episodes=episodes,
        writer=writer_name,
    )
    active = store.active_observations(graph)
    existing = [
        lifecycle.Existing(
            id=o["id"],
            pattern_key=o["pattern_key"],
            kind=o["kind"],
            fingerprint=o["fingerprint"],
            episode_ids=frozenset(i for t, i, _ in o["evidence"] if t == "episode"),
        )
        for o in active
    ]
    p = lifecycle.plan(drafts, existing)

    prepare = getattr(write, "prepare", None)
    if prepare is not None:
        # Model-backed writers fetch all prose first (concurrently, cached).
        prepare([d for _, d in p.update] + [d for d, _ in p.create])

    def row(d: analysis.Draft) -> dict[str, Any]:
        written = write(d)
        name, summary = written[0], written[1]
        return {
            "graph_id": graph,
            "name": name,
            "summary": summary,
            "kind": d.kind,
            "pattern_key": d.pattern_key,
            "cluster_id": d.cluster_id,
            "fingerprint": d.fingerprint,
            "rank": d.rank,
            "start_at": d.start_at,
            "latest_evidence_at": d.latest_evidence_at,
            "now": now,
            "writer": written[2] if len(written) > 2 else writer_name,
        }

    for obs_id, d in p.keep:
        store.touch_observation(obs_id, d.rank, d.cluster_id)
        report.unchanged.append(obs_id)
    for obs_id, d in p.update:
        store.update_observation(obs_id, row(d), d.evidence())
        report.updated.append(obs_id)
    by_id = {o["id"]: o for o in active}
    for obs_id in p.retire:
        reason, end_at, episode_id = _retire_reason(store, graph, by_id[obs_id], now)
        store.retire_observation(obs_id, reason, end_at, episode_id, now)
        report.retired.append(obs_id)
    for d, supersedes in p.create:
        obs_id = store.insert_observation(row(d), d.evidence())
        for older in supersedes:
            store.link_observations(obs_id, older, now)
        report.created.append(obs_id)
    store.save_membership(graph, membership, full=not store._scoped)


def _retire_reason(
    store: Store, graph: str, obs: dict[str, Any], now: str
) -> tuple[str, str, int | None]:
    """Why an observation no longer holds: its root completed, its evidence ended, or it
    split or merged into other patterns."""
    roots = [i for t, i, r in obs["evidence"] if t == "entity" and r == "root"]
    done = store.completions(graph, roots)
    if done:
        hit = max(done.values(), key=lambda r: (r["valid_at"], r["episode_id"]))
        ep = store.episodes_by_id([hit["episode_id"]])[hit["episode_id"]]
        name = store.entities_by_id(roots)[hit["target_id"]]["name"]
        return (
            f"root resolved: {name} was completed in episode #{ep['id']} ({ep['source']})",
            hit["valid_at"],
            int(ep["id"]),
        )
    fact_ids = [i for t, i, _ in obs["evidence"] if t == "fact"]
    ended: list[dict[str, Any]] = []
    for i in range(0, len(fact_ids), 500):
        chunk = fact_ids[i : i + 500]
        marks = ",".join("?" * len(chunk))
        ended += store.rows(
            f"SELECT id, invalid_at, invalidated_by FROM facts WHERE id IN ({marks})"
            " AND invalid_at IS NOT NULL",
            chunk,
        )
    if ended:
        last = max(ended, key=lambda r: (r["invalid_at"], r["invalidated_by"] or 0))
        by = last["invalidated_by"]
        source = ""
        if by is not None:
            by_ep = store.episodes_by_id([by]).get(by)
            source = f" ({by_ep['source']})" if by_ep else ""
        return (
            f"evidence ended: {len(ended)} supporting fact(s) no longer hold, "
            f"contradicted by episode #{by}{source}",
            last["invalid_at"],
            by,
        )
    return ("pattern changed: its evidence now forms other observations", now, None)


# --- reads ---


def require_graph(store: Store, graph: str) -> None:
    if not store.graph_exists(graph):
        known = ", ".join(store.graph_ids()) or "none yet"
        raise NotFound(f"no graph named {graph!r} (graphs: {known})")


def _chunks(ids: list[int], size: int = 500) -> Iterable[list[int]]:
    for i in range(0, len(ids), size):
        yield ids[i : i + size]


def observations(
    store: Store, graph: str | None = None, status: str = "active", ids: list[int] | None = None
) -> list[dict[str, Any]]:
    """Observations as the documented JSON contract, most leverage first."""
    if status not in ("active", "retired", "all"):
        raise UsageError(f"unknown status {status!r}: use active, retired or all")
    where: list[str] = ["1 = 1"]
    params: list[Any] = []
    if graph is not None:
        require_graph(store, graph)
        where.append("graph_id = ?")
        params.append(graph)
    if status != "all":
        where.append("status = ?")
        params.append(status)
    if ids is not None:
        where.append(f"id IN ({','.join('?' * len(ids))})")
        params.extend(ids)
    rows = store.rows(
        f"SELECT * FROM observations WHERE {' AND '.join(where)}"
        " ORDER BY status = 'retired', rank DESC, id",
        params,
    )
    if not rows:
        return []
    obs_ids = [r["id"] for r in rows]
    evidence: dict[int, list[tuple[str, int, str]]] = {i: [] for i in obs_ids}
    for chunk in _chunks(obs_ids):
        for oid, t, item, role in store.conn.execute(
            "SELECT observation_id, item_type, item_id, role FROM observation_evidence"
            f" WHERE observation_id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            evidence[oid].append((t, item, role))
    all_eps = sorted({i for ev in evidence.values() for t, i, _ in ev if t == "episode"})
    all_facts = sorted({i for ev in evidence.values() for t, i, _ in ev if t == "fact"})
    all_ents = sorted({i for ev in evidence.values() for t, i, _ in ev if t == "entity"})
    episodes: dict[int, dict[str, Any]] = {}
    for chunk in _chunks(all_eps):
        for r in store.rows(
            "SELECT id, source, author, occurred_at FROM episodes"
            f" WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            episodes[r["id"]] = r
    facts: dict[int, dict[str, Any]] = {}
    for chunk in _chunks(all_facts):
        for r in store.rows(
            "SELECT f.id, s.name AS source, f.relation, t.name AS target, f.episode_id,"
            " f.valid_at, f.invalid_at, f.sentence FROM facts f"
            " JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id"
            f" WHERE f.id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            facts[r["id"]] = r
    entities: dict[int, dict[str, Any]] = {}
    for chunk in _chunks(all_ents):
        for r in store.rows(
            f"SELECT id, name, type FROM entities WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            entities[r["id"]] = r
    links: dict[int, dict[str, list[int]]] = {
        i: {"supersedes": [], "superseded_by": []} for i in obs_ids
    }
    for chunk in _chunks(obs_ids):
        marks = ",".join("?" * len(chunk))
        for a, b in store.conn.execute(
            f"SELECT from_id, to_id FROM observation_links WHERE from_id IN ({marks})"
            f" OR to_id IN ({marks})",
            chunk + chunk,
        ):
            if a in links:
                links[a]["supersedes"].append(b)
            if b in links:
                links[b]["superseded_by"].append(a)
    role_order = {"root": 0, "owner": 1, "direct": 2, "downstream": 3, "member": 4}
    out = []
    for r in rows:
        ev = evidence[r["id"]]
        ents = sorted(
            ({**entities[i], "role": role} for t, i, role in ev if t == "entity" and i in entities),
            key=lambda e: (role_order.get(e["role"], 9), e["name"].lower(), e["id"]),
        )
        eps = sorted(
            (episodes[i] for t, i, _ in ev if t == "episode" and i in episodes),
            key=lambda e: (e["occurred_at"], e["id"]),
        )
        fs = sorted(
            ({**facts[i], "role": role} for t, i, role in ev if t == "fact" and i in facts),
            key=lambda f: (f["valid_at"], f["episode_id"], f["id"]),
        )
        out.append(
            {
                "id": r["id"],
                "graph": r["graph_id"],
                "name": r["name"],
                "summary": r["summary"],
                "status": r["status"],
                "kind": r["kind"],
                "rank": r["rank"],
                "root_entities": [e["name"] for e in ents if e["role"] == "root"],
                "entities": ents,
                "episodes": eps,
                "facts": fs,
                "start_at": r["start_at"],
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
            }
        )
    return out


def observation(store: Store, obs_id: int) -> dict[str, Any]:
    """One observation, with the other observations of its cluster as context."""
    found = observations(store, None, "all", ids=[obs_id])
    if not found:
        raise NotFound(f"no observation with id {obs_id}")
    obs = found[0]
    siblings = store.rows(
        "SELECT id, name, status FROM observations WHERE graph_id = ? AND cluster_id = ?"
        " AND id != ? AND status = 'active' ORDER BY rank DESC, id",
        (obs["graph"], obs["cluster_id"], obs_id),
    )
    obs["cluster"] = {"id": obs["cluster_id"], "observations": siblings}
    return obs


def history(store: Store, obs_id: int) -> list[dict[str, Any]]:
    rows = store.rows(
        "SELECT version, name, summary, kind, start_at, latest_evidence_at, evidence, created_at"
        " FROM observation_versions WHERE observation_id = ? ORDER BY version",
        (obs_id,),
    )
    if not rows:
        raise NotFound(f"no observation with id {obs_id}")
    for r in rows:
        ev = json.loads(r.pop("evidence"))
        r["episodes"] = [i for t, i, _ in ev if t == "episode"]
        r["facts"] = [i for t, i, _ in ev if t == "fact"]
    return rows


def facts(
    store: Store, graph: str, *, include_ended: bool = False, as_of: str | None = None
) -> list[dict[str, Any]]:
    require_graph(store, graph)
    where = "f.graph_id = :graph"
    params: dict[str, Any] = {"graph": graph}
    if as_of is not None:
        where += " AND f.valid_at <= :as_of AND (f.invalid_at IS NULL OR f.invalid_at > :as_of)"
        params["as_of"] = as_of
    elif not include_ended:
        where += " AND f.invalid_at IS NULL"
    return store.rows(
        f"""
        SELECT f.id, s.name AS source, s.type AS source_type, f.relation, t.name AS target,
          t.type AS target_type, f.episode_id, e.source AS episode_source, e.author,
          f.valid_at, f.invalid_at, f.created_at, f.expired_at, f.invalidated_by, f.sentence
        FROM facts f JOIN entities s ON s.id = f.source_id JOIN entities t ON t.id = f.target_id
        JOIN episodes e ON e.id = f.episode_id
        WHERE {where} ORDER BY f.valid_at, f.id
        """,
        params,
    )


def entities(store: Store, graph: str) -> list[dict[str, Any]]:
    require_graph(store, graph)
    rows = store.rows(
        """
        SELECT n.id, n.name, n.type,
          (SELECT count(*) FROM facts f WHERE (f.source_id = n.id OR f.target_id = n.id)
             AND f.invalid_at IS NULL) AS current_facts,
          (SELECT count(DISTINCT f.episode_id) FROM facts f
             WHERE f.source_id = n.id OR f.target_id = n.id) AS episodes,
          (SELECT json_group_array(alias) FROM entity_aliases a WHERE a.entity_id = n.id)
             AS aliases
        FROM entities n WHERE n.graph_id = ? ORDER BY n.type, lower(n.name)
        """,
        (graph,),
    )
    for r in rows:
        r["aliases"] = sorted(json.loads(r["aliases"]))
    return rows
