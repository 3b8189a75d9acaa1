"""One analyze run over a store: what is new, which components to redo, the pure
analysis (:func:`memcli.analysis.run`), then one write of its result.

Kept apart from ingest (``memcli.api``) so that ``memcli analyze`` loads neither the
readers, the redaction rules, the connectors nor the extractor; ``memcli.api``
re-exports :func:`analyze`, :class:`AnalyzeReport` and :data:`Writer`.
"""

from __future__ import annotations

import gc
import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from memcli import analysis, cluster, corrections, writer
from memcli.errors import NotFound
from memcli.signatures import SignatureMode
from memcli.store import Store, utcnow

if TYPE_CHECKING:
    from memcli.contract import AnalyzeResult


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
        """This report as the contract record ``analyze --json`` prints (``as_dict`` is
        the same record as plain data, keys in its order: the CLI prints that, without
        loading the contract's models)."""
        from memcli.contract import AnalyzeResult

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
    with store.transaction(), _collector_paused():
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
        # a new name can make a new safe merge, so a run that adds none skips the check,
        # and one that adds a few looks only at the names near them (unless a name was
        # dropped since: a full pass is due then, and the check reads every name).
        last = store.last_run(graph)
        # A check of every name reads every entity row: a full pass's load takes the
        # same rows (nothing in a run writes an entity), not a second read of the table.
        entity_rows = None
        if last is None:
            entity_rows = store.identity_name_rows(graph)
            report.merged = corrections.auto_resolve(store, graph, rows=entity_rows)
        elif store.entities_created_since(graph, last["started_at"]):
            since = None if info["needs_full"] else last["started_at"]
            if since is None:
                entity_rows = store.identity_name_rows(graph)
            report.merged = corrections.auto_resolve(store, graph, since=since, rows=entity_rows)
        # Names written beside a ticket: a new update may pair two old names.
        report.merged += corrections.stated_resolve(store, graph)
        info = store.graph(graph)
        assert info is not None
        seq = info["ingest_seq"]
        max_episode, max_fact = store.analysis_watermark(graph)
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
            if store.episodes_over(graph, len(affected) * 2):
                scope = affected
                recheck = _recheck(store, graph, int(last["max_episode_id"]), controls)
        report.mode = "full" if scope is None else "incremental"
        if scope is not None:
            entity_rows = None  # a scoped load reads its own few
        _analyze_scope(
            store,
            graph,
            scope,
            report,
            signatures,
            writer_name,
            write,
            now,
            controls,
            recheck,
            entity_rows=entity_rows,
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


@contextmanager
def _collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for one run, back as it was after. A pass builds
    hundreds of thousands of tuples that live until it ends and form no cycles: each
    full collection the allocations trigger walks all of them again (a tenth of an
    incremental pass) and frees nothing; what they hold goes by reference counting."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


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
    *,
    entity_rows: list[tuple[int, str, str, str]] | None = None,
) -> None:
    """One analysis pass over ``scope`` (None: the whole graph): the store loads plain
    data, the pure core decides, the writer adds prose, the store writes it all.
    ``entity_rows``: the graph's ``Store.identity_name_rows``, read by this run (the
    load empties the list as it reads it)."""
    inp = store.load_analysis(
        graph,
        scope=scope,
        recheck=recheck or (),
        kinds=signatures.kinds(),
        with_times=controls.window_seconds is not None,
        entity_rows=entity_rows,
    )
    clustering = analysis.cluster_input(inp, controls)
    inp.incidences = []  # the largest list of the run: let it go before the cones
    cones = store.dependency_cones(graph, clustering.component, scoped=scope is not None)
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
