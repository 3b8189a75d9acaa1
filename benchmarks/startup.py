"""Start-up cost of the CLI, beside a bare interpreter start measured in the same run.

Every agent call and every shell pipeline starts a new memcli process, so what
``import memcli.cli`` costs is paid on every command. This prints, as medians of
``--runs`` runs:

* a bare interpreter start (``python -c pass``): the yardstick, the floor any Python CLI
  pays on this machine right now;
* ``import typer``: the floor of any memcli command (the parser; typer 0.28, pinned,
  coerces options without pydantic);
* ``import memcli.cli`` (wall time of the process, and the cumulative figure
  ``python -X importtime`` reports for the module);
* ``memcli --help``;
* ``memcli ingest`` of one new JSONL update into a new database (the file removed
  before each run): what creating a store costs beside the start-up;
* with ``--size N`` (default 10,000; 0 skips it): ``memcli observations --json``, the
  same with ``--evidence 10`` (bounded lists) and ``memcli entities --json`` on an
  analyzed store of N generated updates (built once under ``out/``, from JSONL with
  given facts, so building it is quick); then, on a copy of that store, ``memcli
  ingest`` of one new update (a different one each run) and ``memcli analyze`` with
  nothing new to analyze (the warm-up run takes the new updates): the start-up every
  cron tick and every agent's write pays.

Every tree measured is byte-compiled first (``compileall``), as an installed package
is: a source tree run with ``PYTHONDONTWRITEBYTECODE`` set, or never run before, would
otherwise compile each of its modules on every start (~60 ms for a read command).

With ``--baseline DIR`` (another memcli source tree, e.g. a checkout of main) each memcli
figure is also measured for that tree, the two runs alternating so both see the same
load; both then run as ``python -m memcli`` from a neutral directory with the tree on
``PYTHONPATH``; ``--baseline-python PY`` runs the baseline with another interpreter (one
with other versions of the dependencies installed).

Targets (issue 13): ``import memcli.cli`` <= 60 ms, ``observations --json`` <= 120 ms wall
at 10k updates.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
sys.path.insert(0, str(HERE))


# The second yardstick: what any command pays before memcli does anything, the parser.
# (typer 0.29 coerced every option through a pydantic TypeAdapter, ~80 ms a command
# more; typer is pinned below it.)
TYPER_FLOOR_NAME = "import typer (the parser's floor)"
TYPER_FLOOR = "import typer"


def memcli_command() -> list[str]:
    """The installed ``memcli`` script beside this interpreter (what a user runs), else
    ``python -m memcli``."""
    script = Path(sys.executable).parent / "memcli"
    return [str(script)] if script.exists() else [sys.executable, "-m", "memcli"]


def wall(
    argv: list[str], env: dict[str, str] | None = None, cwd: str | None = None
) -> tuple[float, float]:
    """(wall seconds, CPU seconds) one process takes from start to exit. CPU time (user
    + system) is the steadier figure on a machine other work is using."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd
    )
    _pid, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(argv)} failed")
    return elapsed, usage.ru_utime + usage.ru_stime


def byte_compile(tree: Path, python: str = sys.executable) -> None:
    """Write the bytecode of ``tree``'s memcli package, as installing it would."""
    subprocess.run(
        [python, "-m", "compileall", "-q", str(tree / "memcli")],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def read_commands(size: int) -> dict[str, list[str]]:
    """The read commands measured on the store of ``size`` updates (arguments after
    ``memcli``)."""
    db = str(store(size))
    return {
        f"memcli observations --json ({size:,} updates)": ["--db", db, "observations", "--json"],
        f"memcli observations --json --evidence 10 ({size:,})": [
            *("--db", db, "observations", "--json", "--evidence", "10")
        ],
        f"memcli entities --json ({size:,})": ["--db", db, "entities", "-g", "bench", "--json"],
    }


class OneUpdate:
    """A one-line JSONL file holding an update no earlier run wrote, so that each run of
    ``memcli ingest`` stores one new update (a repeated one would only be found)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.runs = 0

    def __call__(self) -> str:
        self.runs += 1
        path = self.directory / "one.jsonl"
        update = {
            "source": f"startup-{self.runs}",
            "author": "Dana",
            "occurred_at": "2026-02-01T09:00:00Z",
            "graph": "bench",
            "content": f"The search rewrite {self.runs} is blocked by the index migration.",
        }
        path.write_text(json.dumps(update) + "\n", encoding="utf-8")
        return str(path)


def ingest_into_new_db(
    argv: list[str], env: dict[str, str] | None, cwd: str | None, *, work: Path
) -> tuple[float, float]:
    """One run of ``memcli ingest`` of one update into a database that does not exist
    yet (``argv``: the command up to ``memcli``)."""
    db = work / "new.db"
    for side in ("", "-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    one = OneUpdate(work)
    return wall([*argv, "--db", str(db), "ingest", one()], env, cwd)


# One figure's run: (memcli argv up to the command, environment, working directory).
Run = Callable[[list[str], dict[str, str] | None, str | None], tuple[float, float]]


def write_commands(size: int, work: Path) -> dict[str, Run]:
    """The write-side start-up figures: name -> run(memcli argv, env, cwd). With ``size``,
    the existing store is a copy of the read store under ``work`` (one per ``work``)."""
    work.mkdir(parents=True, exist_ok=True)
    cases: dict[str, Run] = {
        "memcli ingest (one update, new database)": functools.partial(
            ingest_into_new_db, work=work
        ),
    }
    if size:
        db = work / f"startup-{size}.db"
        for side in ("-wal", "-shm"):
            Path(f"{db}{side}").unlink(missing_ok=True)
        shutil.copyfile(store(size), db)
        one = OneUpdate(work)
        cases[f"memcli ingest (one new update, {size:,} store)"] = lambda argv, env, cwd: wall(
            [*argv, "--db", str(db), "ingest", one()], env, cwd
        )
        cases[f"memcli analyze (nothing new, {size:,} store)"] = lambda argv, env, cwd: wall(
            [*argv, "--db", str(db), "analyze", "-g", "bench"], env, cwd
        )
    return cases


def import_time_ms() -> float:
    """``-X importtime``'s cumulative microseconds for memcli.cli, in ms."""
    run = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import memcli.cli"],
        check=True,
        capture_output=True,
        text=True,
    )
    for line in run.stderr.splitlines():
        m = re.match(r"import time:\s+\d+ \|\s+(\d+) \| memcli\.cli$", line)
        if m:
            return int(m.group(1)) / 1000
    raise RuntimeError("memcli.cli not in -X importtime output")


def medians_ms(fn: Callable[[], tuple[float, float]], runs: int) -> tuple[float, float]:
    """Median wall and CPU milliseconds over ``runs`` runs (after one warm-up run)."""
    fn()  # warm the file cache
    samples = [fn() for _ in range(runs)]
    return (
        statistics.median(w for w, _ in samples) * 1000,
        statistics.median(c for _, c in samples) * 1000,
    )


def paired_medians_ms(
    fns: list[Callable[[], tuple[float, float]]], runs: int
) -> list[tuple[float, float]]:
    """:func:`medians_ms` of each of ``fns``, their runs alternating."""
    samples: list[list[tuple[float, float]]] = [[] for _ in fns]
    for i in range(runs + 1):
        for fn, out in zip(fns, samples, strict=True):
            sample = fn()
            if i:  # the first round warms the file cache
                out.append(sample)
    return [
        (
            statistics.median(w for w, _ in s) * 1000,
            statistics.median(c for _, c in s) * 1000,
        )
        for s in samples
    ]


def compare(baseline: Path, size: int, runs: int, baseline_python: str | None = None) -> None:
    """Every memcli figure for this tree and for ``baseline``, runs alternating.
    ``baseline_python``: the interpreter (with its own installed dependencies) that runs
    the baseline tree, to measure a change of a dependency's version; by default the
    one running this script runs both."""
    py = sys.executable
    neutral = tempfile.mkdtemp()  # no memcli in the working directory to shadow either
    trees = {"this tree": HERE.parent, f"baseline ({baseline})": baseline}
    python_of = {"this tree": py, f"baseline ({baseline})": baseline_python or py}
    for tree, path in trees.items():
        byte_compile(path, python_of[tree])
    cases: dict[str, list[str]] = {
        "import memcli.cli (whole process)": ["-c", "import memcli.cli"],
        "memcli --help": ["-m", "memcli", "--help"],
    }
    if size:
        for name, args in read_commands(size).items():
            cases[name] = ["-m", "memcli", *args]
    rows: list[tuple[str, tuple[float, float] | float]] = [
        (
            "bare interpreter (python -c pass)",
            medians_ms(lambda: wall([py, "-c", "pass"], cwd=neutral), runs),
        ),
        (TYPER_FLOOR_NAME, medians_ms(lambda: wall([py, "-c", TYPER_FLOOR], cwd=neutral), runs)),
    ]
    env_of = {
        tree: {**os.environ, "NO_COLOR": "1", "PYTHONPATH": str(path)}
        for tree, path in trees.items()
    }
    for name, args in cases.items():
        argv_of = {tree: [python_of[tree], *args] for tree in trees}
        # A tree without the command (an option newer than it) is left out of that row.
        able = [tree for tree in trees if _runs(argv_of[tree], env_of[tree], neutral)]
        figures = paired_medians_ms(
            [functools.partial(wall, argv_of[tree], env_of[tree], neutral) for tree in able],
            runs,
        )
        rows += [(f"{name}, {tree}", f) for tree, f in zip(able, figures, strict=True)]
    # Write-side start-up: each tree writes its own copy of the store.
    per_tree = {
        tree: write_commands(size, OUT / "startup-writes" / str(i)) for i, tree in enumerate(trees)
    }
    for name in per_tree["this tree"]:
        figures = paired_medians_ms(
            [
                functools.partial(
                    per_tree[tree][name], [python_of[tree], "-m", "memcli"], env_of[tree], neutral
                )
                for tree in trees
            ],
            runs,
        )
        rows += [(f"{name}, {tree}", f) for tree, f in zip(trees, figures, strict=True)]
    print_rows(rows, runs)


def _runs(argv: list[str], env: dict[str, str], cwd: str) -> bool:
    try:
        wall(argv, env, cwd)
    except RuntimeError:
        return False
    return True


def print_rows(rows: list[tuple[str, tuple[float, float] | float]], runs: int) -> None:
    width = max(len(name) for name, _ in rows)
    load = os.getloadavg()[0]
    print(
        f"{'figure':<{width}}  wall ms   CPU ms   (medians of {runs} runs; "
        f"{os.cpu_count()} cores, load average {load:.1f})"
    )
    for name, value in rows:
        if isinstance(value, tuple):
            print(f"{name:<{width}}  {value[0]:7.1f}  {value[1]:7.1f}")
        else:
            print(f"{name:<{width}}  {value:7.1f}        -")


def store(n: int) -> Path:
    """An analyzed store of ``n`` generated updates (JSONL with given facts)."""
    from generate import cached
    from perf import scale_config

    db = OUT / "db" / f"startup-{n}.db"
    if db.exists():
        return db
    db.parent.mkdir(parents=True, exist_ok=True)
    corpus = cached(scale_config(n), OUT / f"scale-{n}", ("facts",))
    memcli = [*memcli_command(), "--db", str(db)]
    print(f"building {db} from {corpus / 'facts'} ...", file=sys.stderr, flush=True)
    subprocess.run([*memcli, "ingest", str(corpus / "facts"), "--quiet"], check=True)
    subprocess.run([*memcli, "analyze"], check=True, stdout=subprocess.DEVNULL)
    return db


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=15, help="runs per figure (median)")
    p.add_argument("--size", type=int, default=10000, help="updates in the read store (0: skip)")
    p.add_argument(
        "--baseline", type=Path, metavar="DIR", help="another memcli source tree to compare"
    )
    p.add_argument(
        "--baseline-python",
        metavar="PY",
        help="the interpreter that runs the baseline tree, with the dependencies installed"
        " for it (default: this one)",
    )
    args = p.parse_args(argv)
    if args.baseline:
        compare(args.baseline.resolve(), args.size, args.runs, args.baseline_python)
        return
    py = sys.executable
    env = {**os.environ, "NO_COLOR": "1"}
    memcli = memcli_command()
    byte_compile(HERE.parent)
    rows: list[tuple[str, tuple[float, float] | float]] = [
        (
            "bare interpreter (python -c pass)",
            medians_ms(lambda: wall([py, "-c", "pass"]), args.runs),
        ),
        (TYPER_FLOOR_NAME, medians_ms(lambda: wall([py, "-c", TYPER_FLOOR]), args.runs)),
        (
            "import memcli.cli (whole process)",
            medians_ms(lambda: wall([py, "-c", "import memcli.cli"]), args.runs),
        ),
        (
            "import memcli.cli (-X importtime, cumulative)",
            statistics.median(times := [import_time_ms() for _ in range(args.runs)]),
        ),
        # On a busy machine the fastest run is the closest to the intrinsic cost.
        ("import memcli.cli (-X importtime, fastest run)", min(times)),
        ("memcli --help", medians_ms(lambda: wall([*memcli, "--help"], env), args.runs)),
    ]
    if args.size:
        for name, cmd in read_commands(args.size).items():
            run = functools.partial(wall, [*memcli, *cmd], env)
            rows.append((name, medians_ms(run, args.runs)))
    for name, case in write_commands(args.size, OUT / "startup-writes" / "main").items():
        rows.append((name, medians_ms(functools.partial(case, memcli, env, None), args.runs)))
    print_rows(rows, args.runs)


if __name__ == "__main__":
    main()
