"""Run every benchmark and print one report: chain recall, then performance and targets.

    python benchmarks/run_all.py                 # recall + perf at 10k and 100k
    python benchmarks/run_all.py --quick         # recall + perf at 2k (a minute or so)
    python benchmarks/run_all.py --analyze-args "--window 14d"   # compare analyze settings

The performance half needs the ``bench`` extra for the scipy comparison
(``pip install -e '.[bench]'``); without it that ratio is reported as skipped. The
report is also written to ``benchmarks/out/report.md``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import perf  # noqa: E402
import recall  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="perf at 2k episodes only")
    p.add_argument("--sizes", default=None, help="perf corpus sizes (default 10000,100000)")
    p.add_argument("--analyze-args", default="", help="extra options for memcli analyze")
    p.add_argument("--timeout", type=float, default=300, help="seconds before analyze stops")
    p.add_argument("--seeds", type=int, default=1, help="recall corpora per cell")
    p.add_argument("--profile", action="store_true", help="write profiles (see perf.py)")
    args = p.parse_args(argv)
    started = time.perf_counter()

    print("# Recall of planted chains\n", flush=True)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        recall.main(
            ["--scenario", "clean", "--scenario", "hubs", "--what-if", "--seeds", str(args.seeds)]
        )
    recall_text = buf.getvalue()
    print(recall_text, flush=True)

    print("# Performance\n", flush=True)
    sizes = args.sizes or ("2000" if args.quick else "10000,100000")
    perf_args = ["--sizes", sizes, "--timeout", str(args.timeout)]
    if args.analyze_args:
        perf_args += ["--analyze-args", args.analyze_args]
    if args.profile:
        perf_args.append("--profile")
    res = perf.main(perf_args)
    report = (
        "# Recall of planted chains\n\n"
        + recall_text
        + "\n# Performance\n\n"
        + perf.render(res)
        + f"\n\n(total {time.perf_counter() - started:.0f} s)\n"
    )
    (perf.OUT / "report.md").write_text(report, encoding="utf-8")
    print(f"\n(total {time.perf_counter() - started:.0f} s; report in {perf.OUT / 'report.md'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
