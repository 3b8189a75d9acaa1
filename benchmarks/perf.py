"""Performance figures for memcli at 10k and 100k episodes, checked against targets.

Each figure comes from a real ``python -m memcli`` process, started by a small wrapper
process that reports the command's own wall time, CPU time and peak RSS (``os.wait4``;
see ``_WRAPPER`` for why not straight from here). An analyze that runs past
``--timeout`` is stopped and reported as such; ``--stages`` times each analysis stage
in-process, so a stopped analyze still shows where the time goes:

* ingest rate with the rules extractor (JSONL without facts) at each size, Markdown files
  at the smallest size, and JSONL with true facts (extraction bypassed: store cost alone);
* full analyze (the first one, which writes every observation) and a forced re-analyze;
* incremental analyze after the corpus's 30 extra updates on the largest store, with the
  ``mode`` that ``analyze --json`` reports;
* ``observations --json`` and ``--help`` latency (median of 5 runs, start-up included);
* the clustering step alone: ``memcli.cluster.components`` on the stored incidences,
  against scipy's ``connected_components`` and networkx on the same incidences;
* giant components: the largest cluster's share of episodes and the planted chains
  recovered whole, with and without hubs; ``--analyze-args`` passes extra options to
  ``memcli analyze`` (window, frequency cut, size cap) to compare settings.

Corpora are generated once and cached under ``benchmarks/out/``. Run
``python benchmarks/perf.py`` (``--sizes 10000`` for a quick pass, ``--profile`` to
write pyinstrument/cProfile reports of ingest and analyze).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import Config, cached  # noqa: E402
from recall import score  # noqa: E402

OUT = HERE / "out"
GRAPH = "bench"

TARGETS = {
    "ingest": "ingest >= 3,000 updates/s",
    "analyze": "full analyze of 100k episodes < 5 s",
    "incremental": "incremental analyze of 30 updates < 10% of full",
    "cluster": "clustering step <= 3x scipy",
    "rss": "peak RSS < 500 MB at 100k",
    "observations": "observations --json < 300 ms on the 100k store",
}


def scale_config(n: int, *, hubs: bool = True, seed: int = 11) -> Config:
    """About ``n`` episodes and 6 facts each: ~3% of episodes start a chain."""
    chains = max(20, n * 3 // 100)
    weeks = max(4, min(52, n // 2000))
    hub_days = weeks * 5 if hubs else 0
    noise = max(0, n - int(chains * 4.8) - hub_days)
    return Config(
        seed=seed,
        chains=chains,
        owner_naming=0.8,
        noise=noise,
        weeks=weeks,
        people=max(60, n // 200),
        teams=20,
        namesakes=0.3,
        hub_team=0.3 if hubs else 0.0,
        hub_person=hubs,
        two_foundation=0.2,
        extra_sentences=3.0,
        noise_sentences=(5, 8),
        lone_blockers=0.1,
        increment=30,
        graph=GRAPH,
    )


@dataclass
class Run:
    seconds: float
    rss_mb: float
    stdout: str
    stderr: str
    code: int
    cpu: float = 0.0  # user + system seconds of the process: steadier than wall time


# Peak RSS on Linux: a child's ru_maxrss includes the memory of the process it was forked
# from, up to its exec. Measured straight from this (large) process, a 30 MB command would
# report this process's size. So a small wrapper process starts the command and reports
# the command's own wall time, CPU time and peak RSS from os.wait4.
_WRAPPER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[2:])
_, status, ru = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump({"seconds": time.perf_counter() - t, "rss_kb": ru.ru_maxrss,
               "cpu": ru.ru_utime + ru.ru_stime, "code": os.waitstatus_to_exitcode(status)}, f)
"""


def run_measured(
    cmd: list[str], env: dict[str, str] | None = None, timeout: float | None = None
) -> Run:
    """Run ``cmd``: its wall time, CPU time and peak RSS. Stopped after ``timeout`` s
    (``code`` is then -9 and ``seconds`` the time it was given)."""
    with (
        tempfile.TemporaryFile("w+", encoding="utf-8") as out,
        tempfile.TemporaryFile("w+", encoding="utf-8") as err,
        tempfile.TemporaryDirectory() as tmp,
    ):
        report = Path(tmp) / "rusage.json"
        started = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-c", _WRAPPER, str(report), *cmd],
            stdout=out,
            stderr=err,
            env=env,
            start_new_session=True,  # its own process group, so a timeout stops both
        )
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the group this function created
            proc.wait()
        seconds = time.perf_counter() - started
        out.seek(0)
        err.seek(0)
        if report.exists():
            r = json.loads(report.read_text(encoding="utf-8"))
            return Run(
                r["seconds"], r["rss_kb"] / 1024, out.read(), err.read(), r["code"], r["cpu"]
            )
        return Run(seconds, 0.0, out.read(), err.read(), -9)


def memcli_run(db: Path, *args: str, check: bool = True, timeout: float | None = None) -> Run:
    env = {**os.environ, "NO_COLOR": "1", "MEMCLI_MAX_FILE_BYTES": str(64 * 1024 * 1024)}
    run = run_measured([sys.executable, "-m", "memcli", "--db", str(db), *args], env, timeout)
    if check and run.code != 0 and not (timeout and run.seconds >= timeout):
        raise SystemExit(f"memcli {' '.join(args)} exited {run.code}: {run.stderr[-2000:]}")
    return run


def timed_out(run: Run, timeout: float | None) -> bool:
    return bool(timeout) and run.code != 0 and run.seconds >= (timeout or 0)


@dataclass
class Results:
    rows: list[dict[str, Any]] = field(default_factory=list)
    targets: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ingest_rates: list[tuple[int, str, float]] = field(default_factory=list)
    peak: list[tuple[str, float]] = field(default_factory=list)
    obs_ms: float = 0.0

    def add(self, figure: str, size: str, value: str, command: str, rss: float | None = None):
        self.rows.append(
            {
                "figure": figure,
                "size": size,
                "value": value,
                "rss_mb": None if rss is None else round(rss),
                "command": command,
            }
        )
        print(f"  {figure} [{size}]: {value}" + (f"  (peak RSS {rss:.0f} MB)" if rss else ""))

    def target(self, key: str, measured: str, ok: bool | None) -> None:
        status = "n/a" if ok is None else ("met" if ok else "MISSED")
        self.targets = [t for t in self.targets if t["target"] != TARGETS[key]]  # latest wins
        self.targets.append({"target": TARGETS[key], "measured": measured, "status": status})


def _label(n: int) -> str:
    return f"{n // 1000}k" if n >= 1000 else str(n)


def ingest_figures(res: Results, corpus: Path, n: int, db_dir: Path, md: bool, facts: bool) -> Path:
    """Ingest the corpus (up to three ways); returns the extractor-built database."""
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    episodes = truth["episodes"]
    label = f"{_label(n)} ({episodes} episodes, {truth['facts']} facts)"
    db = db_dir / f"text-{n}.db"
    run = memcli_run(db, "ingest", str(corpus / "text"), "--quiet")
    rate = episodes / run.seconds
    res.add(
        "ingest, rules extractor, JSONL",
        label,
        f"{rate:,.0f} updates/s ({run.seconds:.1f} s wall, {run.cpu:.1f} s CPU)",
        f"memcli ingest {corpus.name}/text --quiet",
        run.rss_mb,
    )
    res.ingest_rates.append((n, "JSONL, extractor", rate))
    res.peak.append((f"ingest JSONL {_label(n)}", run.rss_mb))
    if md:
        markdown_ingest(res, corpus, n, db_dir)
    if not facts:
        res.notes.append(
            f"ingest of true facts (no extraction) measured at 10k only; skipped at {_label(n)}"
            " to keep the run short"
        )
        return db
    facts_db = db_dir / f"facts-{n}.db"
    run = memcli_run(facts_db, "ingest", str(corpus / "facts"), "--quiet")
    rate = episodes / run.seconds
    res.add(
        "ingest, true facts JSONL (no extraction)",
        label,
        f"{rate:,.0f} updates/s ({run.seconds:.1f} s wall, {run.cpu:.1f} s CPU)",
        f"memcli ingest {corpus.name}/facts --quiet",
        run.rss_mb,
    )
    res.ingest_rates.append((n, "JSONL, given facts", rate))
    facts_db.unlink()
    return db


def markdown_ingest(res: Results, corpus: Path, n: int, db_dir: Path) -> None:
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    episodes = truth["episodes"]
    label = f"{_label(n)} ({episodes} episodes, {truth['facts']} facts)"
    if True:
        md_db = db_dir / f"md-{n}.db"
        run = memcli_run(md_db, "ingest", str(corpus / "md"), "--quiet")
        rate = episodes / run.seconds
        res.add(
            "ingest, rules extractor, Markdown files",
            label,
            f"{rate:,.0f} updates/s ({run.seconds:.1f} s wall, {run.cpu:.1f} s CPU)",
            f"memcli ingest {corpus.name}/md --quiet",
            run.rss_mb,
        )
        res.ingest_rates.append((n, "Markdown, extractor", rate))
        md_db.unlink()


def analyze_figures(
    res: Results, db: Path, n: int, extra: list[str], timeout: float, *, forced: bool = True
) -> dict[str, Any] | None:
    """The first analyze of a fresh store, then (``forced``) a re-run with nothing new."""
    run = memcli_run(db, "analyze", "--json", *extra, timeout=timeout)
    if timed_out(run, timeout):
        res.add(
            "analyze, first (full, writes every observation)",
            _label(n),
            f"did not finish: stopped after {timeout:.0f} s",
            "memcli analyze --json " + " ".join(extra),
            run.rss_mb,
        )
        res.peak.append((f"analyze {_label(n)} (stopped)", run.rss_mb))
        return None
    report = json.loads(run.stdout)[0]
    res.add(
        "analyze, first (full, writes every observation)",
        _label(n),
        f"{run.seconds:.2f} s wall ({run.cpu:.2f} s CPU), {report['seconds']:.2f} s in analyze;"
        f" mode {report['mode']};"
        f" {report['clusters']} clusters, {len(report['created'])} observations",
        "memcli analyze --json " + " ".join(extra),
        run.rss_mb,
    )
    res.peak.append((f"analyze {_label(n)}", run.rss_mb))
    if not forced:
        return {"first": report, "first_wall": run.seconds, "forced": None}
    again = memcli_run(db, "analyze", "--json", "--force", *extra, timeout=timeout)
    if timed_out(again, timeout):
        return {"first": report, "first_wall": run.seconds, "forced": None}
    freport = json.loads(again.stdout)[0]
    res.add(
        "analyze, forced re-run (nothing new)",
        _label(n),
        f"{again.seconds:.2f} s wall ({again.cpu:.2f} s CPU), {freport['seconds']:.2f} s in"
        f" analyze; mode {freport['mode']}; {len(freport['unchanged'])} unchanged",
        "memcli analyze --json --force " + " ".join(extra),
        again.rss_mb,
    )
    return {"first": report, "first_wall": run.seconds, "forced": freport}


def stages(db: Path) -> None:
    """Time each step of the real analyze pipeline in-process (printed as it finishes,
    for a caller that may stop this process): the store's load, the union-find, the
    dependency CTE, the pure core, the template writer and the store's apply (after the
    automatic name merges a first analyze makes). Runs a
    full pass inside a transaction that is rolled back, so the database is unchanged."""
    from memcli import analysis, cluster, corrections, writer
    from memcli.signatures import SignatureMode
    from memcli.store import Store, utcnow

    cpu = [time.process_time()]

    def say(name: str, started: float, detail: str) -> None:
        # wall seconds, then this process's CPU seconds for the step (steadier on a
        # shared machine)
        used = time.process_time() - cpu[0]
        cpu[0] = time.process_time()
        print(
            f"{name}\t{time.perf_counter() - started:.3f}\t{detail}; {used:.2f} s CPU", flush=True
        )

    class Rollback(Exception):
        pass

    controls = cluster.Controls()
    with Store(db) as store:
        try:
            with store.transaction():
                t = time.perf_counter()
                cpu[0] = time.process_time()
                merged = corrections.auto_resolve(store, GRAPH)
                say("corrections.auto_resolve (names)", t, f"{len(merged)} merges")
                t = time.perf_counter()
                inp = store.load_analysis(
                    GRAPH,
                    scope=None,
                    kinds=SignatureMode.EXTENDED.kinds(),
                    with_times=controls.window_seconds is not None,  # as api.analyze
                )
                say(
                    "store.load_analysis",
                    t,
                    f"{len(inp.incidences)} incidences, {len(inp.facts)} facts, "
                    f"{len(inp.active)} active observations",
                )
                t = time.perf_counter()
                clustering = analysis.cluster_input(inp, controls)
                say(
                    "analysis.cluster_input (union-find)",
                    t,
                    f"{len(set(clustering.membership.values()))} clusters",
                )
                t = time.perf_counter()
                cones = store.dependency_cones(GRAPH, clustering.component)
                keys = store.signature_keys(analysis.cut_signatures(clustering))
                say("store.dependency_cones (recursive CTE)", t, f"{len(cones)} cone rows")
                t = time.perf_counter()
                now = utcnow()
                result = analysis.run(
                    inp,
                    clustering,
                    cones,
                    controls=controls,
                    writer="template",
                    now=now,
                    signature_keys=keys,
                )
                say("analysis.run (drafts, lifecycle plan)", t, f"{len(result.drafts)} drafts")
                t = time.perf_counter()
                prose = {d.pattern_key: (*writer.write(d), "template") for d in result.to_write}
                say("writer.write (template)", t, f"{len(prose)} written")
                t = time.perf_counter()
                applied = store.apply(result, prose, now=now)
                say(
                    "store.apply",
                    t,
                    f"{len(applied.created)} created, {len(applied.updated)} updated, "
                    f"{len(applied.retired)} retired, {len(applied.unchanged)} unchanged",
                )
                raise Rollback
        except Rollback:
            pass


def stage_figures(res: Results, db: Path, n: int, timeout: float) -> None:
    run = run_measured(
        [sys.executable, str(Path(__file__).resolve()), "--stages", str(db)], None, timeout
    )
    parts = []
    for line in run.stdout.splitlines():
        name, seconds, detail = line.split("\t")
        parts.append(f"{name} {float(seconds):.2f} s ({detail})")
    if timed_out(run, timeout):
        parts.append(f"next step still running after {timeout:.0f} s")
    res.add(
        "analyze steps, in-process (the real pipeline, rolled back)",
        _label(n),
        "; ".join(parts),
        f"python benchmarks/perf.py --stages DB (stopped after {timeout:.0f} s)",
        run.rss_mb,
    )


def read_figures(res: Results, db: Path, n: int) -> list[dict[str, Any]]:
    times, rss = [], 0.0
    out = ""
    for _ in range(5):
        run = memcli_run(db, "observations", "--json")  # the default page: top 50
        times.append(run.seconds)
        rss = max(rss, run.rss_mb)
    out = memcli_run(db, "observations", "--json", "--limit", "0").stdout  # all, for scoring
    obs = json.loads(out)
    med = statistics.median(times)
    res.add(
        "observations --json (median of 5, start-up included)",
        _label(n),
        f"{med * 1000:.0f} ms ({len(obs)} observations, {len(out) / 1e6:.1f} MB of JSON)",
        "memcli observations --json",
        rss,
    )
    res.obs_ms = med * 1000
    res.peak.append((f"observations --json {_label(n)}", rss))
    helps = []
    for _ in range(5):
        run = memcli_run(db, "--help")
        helps.append(run.seconds)
    res.add(
        "--help (start-up, median of 5)",
        "-",
        f"{statistics.median(helps) * 1000:.0f} ms",
        "memcli --help",
        run.rss_mb,
    )
    if "search" in run.stdout.split("Commands")[-1]:
        times = [memcli_run(db, "search", "auth", "--json", check=False).seconds for _ in range(5)]
        res.add(
            "search --json (median of 5)",
            _label(n),
            f"{statistics.median(times) * 1000:.0f} ms",
            "memcli search auth --json",
        )
    else:
        res.notes.append("`memcli search` does not exist on this branch: search latency skipped.")
    return obs


def incremental_figures(
    res: Results, db: Path, corpus: Path, n: int, full_seconds: float, extra: list[str]
) -> tuple[float, str]:
    inc_db = db.with_name(f"inc-{n}.db")
    shutil.copy(db, inc_db)
    for suffix in ("-wal", "-shm"):
        if Path(str(db) + suffix).exists():
            shutil.copy(Path(str(db) + suffix), Path(str(inc_db) + suffix))
    ing = memcli_run(inc_db, "ingest", str(corpus / "increment" / "text"), "--quiet")
    run = memcli_run(inc_db, "analyze", "--json", *extra)
    report = json.loads(run.stdout)[0]
    ratio = report["seconds"] / full_seconds if full_seconds else float("nan")
    res.add(
        "analyze after 30 new updates",
        _label(n),
        f"{run.seconds:.2f} s wall, {report['seconds']:.2f} s in analyze, mode "
        f"{report['mode']}, {report['episodes']} episodes re-clustered; "
        f"{ratio:.0%} of the full analyze (ingest of the 30: {ing.seconds:.2f} s)",
        "memcli ingest increment/text && memcli analyze --json",
        run.rss_mb,
    )
    res.peak.append((f"analyze after 30 new updates {_label(n)}", run.rss_mb))
    inc_db.unlink()
    for suffix in ("-wal", "-shm"):
        Path(str(inc_db) + suffix).unlink(missing_ok=True)
    return ratio, str(report["mode"])


def cluster_figures(res: Results, db: Path, n: int) -> None:
    """memcli's union-find against scipy and networkx on the same stored incidences."""
    from memcli import cluster
    from memcli.signatures import SignatureMode
    from memcli.store import Store

    with Store(db) as store, store.transaction():
        inp = store.load_analysis(
            GRAPH, scope=None, kinds=SignatureMode.EXTENDED.kinds(), with_times=False
        )
        incidences = list(inp.incidences)
        nodes = inp.nodes

    def best(fn: Any, repeat: int = 3) -> tuple[float, Any]:
        times, value = [], None
        for _ in range(repeat):
            t = time.perf_counter()
            value = fn()
            times.append(time.perf_counter() - t)
        return min(times), value

    t_memcli, membership = best(lambda: cluster.components(incidences, nodes))
    parts = Counter(membership.values())
    line = f"memcli {t_memcli * 1000:.0f} ms"
    try:
        import numpy as np
        from scipy.sparse import coo_matrix
        from scipy.sparse.csgraph import connected_components

        def scipy_run() -> Any:
            ep = np.fromiter((e for e, _ in incidences), dtype=np.int64, count=len(incidences))
            sg = np.fromiter((s for _, s in incidences), dtype=np.int64, count=len(incidences))
            node_ids = np.asarray(nodes, dtype=np.int64)
            ep_index = np.unique(np.concatenate([ep, node_ids]))
            sg_index = np.unique(sg)
            rows = np.searchsorted(ep_index, ep)
            cols = np.searchsorted(sg_index, sg) + len(ep_index)
            size = len(ep_index) + len(sg_index)
            graph = coo_matrix((np.ones(len(rows), dtype=np.int8), (rows, cols)), (size, size))
            count, labels = connected_components(graph.tocsr(), directed=False)
            return ep_index, labels[: len(ep_index)], count

        t_scipy, (ep_index, labels, _) = best(scipy_run)
        scipy_parts = Counter(labels.tolist())
        same = sorted(parts.values()) == sorted(scipy_parts.values())
        line += f"; scipy {t_scipy * 1000:.0f} ms (arrays + csgraph)"
        ratio = t_memcli / t_scipy
        line += f"; memcli/scipy {ratio:.1f}x"
        res.target("cluster", f"{ratio:.1f}x scipy at {_label(n)}", ratio <= 3.0)
        if not same:
            res.notes.append("scipy and memcli disagree on component sizes: check!")
    except ImportError:
        res.notes.append("scipy not installed (pip install -e '.[bench]'): scipy ratio skipped")
        res.target("cluster", "scipy missing", None)
    try:
        import networkx as nx

        def nx_run() -> Any:
            g = nx.Graph()
            g.add_nodes_from(("e", e) for e in nodes)
            g.add_edges_from((("e", e), ("s", s)) for e, s in incidences)
            return list(nx.connected_components(g))

        t_nx, comps = best(nx_run, repeat=1)
        nx_sizes = sorted(sum(1 for x in c if x[0] == "e") for c in comps)
        if nx_sizes != sorted(parts.values()):
            res.notes.append("networkx and memcli disagree on component sizes: check!")
        line += f"; networkx {t_nx * 1000:.0f} ms; memcli/networkx {t_memcli / t_nx:.2f}x"
    except ImportError:
        res.notes.append("networkx not installed: networkx ratio skipped")
    res.add(
        "clustering step alone (best of 3)",
        f"{_label(n)} ({len(incidences)} incidences)",
        line,
        "perf.py: store.load_analysis -> cluster.components",
    )


def giant_figures(
    res: Results, db: Path, corpus: Path, label: str, obs: list[dict[str, Any]]
) -> None:
    truth = json.loads((corpus / "truth.json").read_text(encoding="utf-8"))
    conn = sqlite3.connect(db)
    sizes = Counter(
        c
        for (c,) in conn.execute(
            "SELECT cluster_id FROM episode_clusters WHERE graph_id = ?", (GRAPH,)
        )
    )
    conn.close()
    total = sum(sizes.values()) or 1
    largest = max(sizes.values(), default=0)
    s = score(obs, truth)
    res.add(
        "giant component and recall",
        label,
        f"largest cluster {largest} episodes = {largest / total:.0%} of {total}; "
        f"{sum(1 for v in sizes.values() if v > 1)} clusters of 2+; chains whole "
        f"{s['whole']}/{s['chains']} ({s['whole'] / max(s['chains'], 1):.0%}), split "
        f"{s['split']}, missed {s['missed']}; wrong roots {s['wrong_roots']} "
        f"({s['wrong_lone']} lone blockers); noise episodes pulled {s['noise_pulled']}",
        "perf.py: episode_clusters after analyze; observations --json scored",
    )


def profile_ingest_only(db: Path, corpus: Path, n: int) -> None:
    """When analyze cannot finish, still profile an ingest slice on the full store."""
    profile(db, corpus, n, analyze=False)


def profile(db: Path, corpus: Path, n: int, analyze: bool = True) -> None:
    """pyinstrument (else cProfile) reports of an in-process ingest slice and analyze."""
    from memcli import api
    from memcli.sources import expand
    from memcli.store import Store

    target = OUT / "profiles"
    target.mkdir(parents=True, exist_ok=True)
    scratch = db.with_name("profile.db")
    shutil.copy(db, scratch)
    part = sorted((corpus / "text").glob("*.jsonl"))[0]
    ingest_db = db.with_name("profile-ingest.db")
    ingest_db.unlink(missing_ok=True)

    def do_ingest() -> None:
        with Store(ingest_db) as store:
            api.ingest(store, expand([str(part)]))

    def do_analyze() -> None:
        with Store(scratch) as store:
            api.analyze(store, GRAPH, force=True)  # forced: a full pass

    def do_increment() -> None:
        with Store(scratch) as store:
            api.ingest(store, expand([str(corpus / "increment" / "text")]))

    jobs = [("ingest-first-5k-fresh-db", do_ingest), ("ingest-30-on-full-store", do_increment)]
    if analyze:
        jobs.append(("analyze", do_analyze))
    for name, fn in jobs:
        try:
            from pyinstrument import Profiler

            prof = Profiler(interval=0.002)
            prof.start()
            fn()
            prof.stop()
            text = prof.output_text(unicode=False, color=False, show_all=False)
        except ImportError:
            import cProfile
            import io
            import pstats

            pr = cProfile.Profile()
            pr.enable()
            fn()
            pr.disable()
            buf = io.StringIO()
            pstats.Stats(pr, stream=buf).sort_stats("cumulative").print_stats(40)
            text = buf.getvalue()
        path = target / f"{name}-{_label(n)}.txt"
        path.write_text(text, encoding="utf-8")
        print(f"  profile written: {path}")
    scratch.unlink()
    ingest_db.unlink(missing_ok=True)


def main(argv: list[str] | None = None) -> Results:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000", help="comma list of corpus sizes")
    p.add_argument("--analyze-args", default="", help="extra options for memcli analyze")
    p.add_argument("--no-hubs-check", action="store_true", help="skip the no-hub corpus")
    p.add_argument("--profile", action="store_true", help="write profiles of ingest/analyze")
    p.add_argument("--keep", action="store_true", help="keep the databases under out/db")
    p.add_argument(
        "--timeout", type=float, default=300, help="seconds before an analyze is stopped"
    )
    p.add_argument("--stages", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.stages:
        stages(args.stages)
        raise SystemExit(0)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    extra = shlex.split(args.analyze_args)
    res = Results()
    db_dir = OUT / "db"
    db_dir.mkdir(parents=True, exist_ok=True)
    biggest = max(sizes)
    analyzed: dict[int, dict[str, Any]] = {}
    obs_ms: dict[int, float] = {}
    incremental: dict[int, tuple[float, str]] = {}
    for n in sizes:
        print(f"== {n} episodes", flush=True)
        fmts = ("text", "facts", "md") if n <= 10000 else ("text",)
        t = time.perf_counter()
        corpus = cached(scale_config(n), OUT / f"scale-{n}", fmts)
        print(f"  corpus ready in {time.perf_counter() - t:.1f} s: {corpus}", flush=True)
        for f in db_dir.glob(f"*-{n}.db*"):
            f.unlink()
        db = ingest_figures(res, corpus, n, db_dir, md=n == sizes[0], facts=n <= 10000)
        cluster_figures(res, db, n)
        stage_figures(res, db, n, args.timeout)
        a = analyze_figures(res, db, n, extra, args.timeout)
        if a is not None:
            analyzed[n] = a
            obs = read_figures(res, db, n)
            obs_ms[n] = res.obs_ms
            incremental[n] = incremental_figures(res, db, corpus, n, a["first"]["seconds"], extra)
            giant_figures(res, db, corpus, f"{_label(n)}, hubs", obs)
            if args.profile:
                profile(db, corpus, n)
        elif args.profile:
            profile_ingest_only(db, corpus, n)
        if not args.keep:
            for f in db_dir.glob(f"*-{n}.db*"):
                f.unlink()
    # Giant components without hubs, at the smallest size (cheap), for comparison.
    if not args.no_hubs_check:
        n = sizes[0]
        corpus = cached(scale_config(n, hubs=False), OUT / f"scale-{n}-nohubs", ("text",))
        db = db_dir / f"nohubs-{n}.db"
        for f in db_dir.glob(f"nohubs-{n}.db*"):
            f.unlink()
        memcli_run(db, "ingest", str(corpus / "text"), "--quiet")
        memcli_run(db, "analyze", *extra, timeout=args.timeout)
        obs = json.loads(memcli_run(db, "observations", "--json", "--limit", "0").stdout)
        giant_figures(res, db, corpus, f"{_label(n)}, no hubs", obs)
        if not args.keep:
            for f in db_dir.glob(f"nohubs-{n}.db*"):
                f.unlink()
    evaluate(res, biggest, analyzed, obs_ms, incremental, args.timeout)
    print()
    text = render(res)
    print(text)
    (OUT / "perf-results.md").write_text(text + "\n", encoding="utf-8")
    return res


def evaluate(
    res: Results,
    biggest: int,
    analyzed: dict[int, dict[str, Any]],
    obs_ms: dict[int, float],
    incremental: dict[int, tuple[float, str]],
    timeout: float,
) -> None:
    """Targets are for 100k: a figure only measured at a smaller size can still show a
    miss (every one of them grows with the store)."""
    big = _label(biggest)
    rates = [(n, kind, r) for n, kind, r in res.ingest_rates if kind.endswith("extractor")]
    res.target(
        "ingest",
        ", ".join(f"{r:,.0f}/s ({kind}, {_label(n)})" for n, kind, r in rates),
        min(r for _, _, r in rates) >= 3000,
    )
    if biggest in analyzed:
        a = analyzed[biggest]
        res.target(
            "analyze",
            f"{a['first']['seconds']:.1f} s first"
            + (f", {a['forced']['seconds']:.1f} s forced" if a["forced"] else "")
            + f" at {big}",
            (a["first"]["seconds"] < 5) if biggest >= 100000 else None,
        )
    else:
        done = max(analyzed, default=None)
        seen = (
            f"; {analyzed[done]['first']['seconds']:.1f} s at {_label(done)}"
            if done is not None
            else ""
        )
        res.target("analyze", f"did not finish in {timeout:.0f} s at {big}{seen}", False)
    if incremental:
        n = max(incremental)
        ratio, mode = incremental[n]
        res.target(
            "incremental",
            f"{ratio:.0%} of full, mode {mode} (at {_label(n)})",
            ratio < 0.10 and mode == "incremental" and (n == biggest or None),  # type: ignore[arg-type]
        )
    else:
        res.target("incremental", f"no analyzed store at {big}", None)
    if obs_ms:
        n = max(obs_ms)
        ms = obs_ms[n]
        ok: bool | None = ms < 300 if n == biggest else (False if ms >= 300 else None)
        res.target("observations", f"{ms:.0f} ms at {_label(n)}", ok)
    else:
        res.target("observations", f"no analyzed store at {big}", None)
    peaks = [(k, v) for k, v in res.peak if big in k.split()]
    if peaks:
        worst = max(peaks, key=lambda kv: kv[1])
        ok = worst[1] < 500 if biggest >= 100000 else (False if worst[1] >= 500 else None)
        res.target("rss", f"{worst[1]:.0f} MB ({worst[0]})", ok)


def render(res: Results) -> str:
    lines = ["| figure | size | measured | peak RSS | command |", "|---|---|---|---|---|"]
    for r in res.rows:
        rss = f"{r['rss_mb']} MB" if r["rss_mb"] is not None else "-"
        lines.append(f"| {r['figure']} | {r['size']} | {r['value']} | {rss} | `{r['command']}` |")
    lines += ["", "| target | measured | status |", "|---|---|---|"]
    order = list(TARGETS.values())
    targets = sorted(res.targets, key=lambda t: order.index(t["target"]))
    lines += [f"| {t['target']} | {t['measured']} | {t['status']} |" for t in targets]
    if res.notes:
        lines += [""] + [f"- {n}" for n in dict.fromkeys(res.notes)]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
