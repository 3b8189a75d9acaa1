"""What a language model costs memcli: calls, requests, tokens and time per episode and per
observation, and what the cache saves on a second pass.

    python benchmarks/llm_calls.py                      # against the test stub server
    python benchmarks/llm_calls.py --base-url http://127.0.0.1:8765/v1 --model gemma3-270m \\
        --mode json_object_schema --system-role user    # against a real server

Runs each sample project through ``--extractor auto`` and ``--writer llm`` in a fresh
database, then ingests the same updates into a second graph and re-analyzes: the second
pass should cost no calls.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from memcli import api  # noqa: E402
from memcli.llm import LLM, Usage, load_settings  # noqa: E402
from memcli.llm.extract import LLMExtractor  # noqa: E402
from memcli.llm.write import LLMWriter  # noqa: E402
from memcli.sources import expand  # noqa: E402
from memcli.store import Store  # noqa: E402


def row(label: str, usage: Usage, n: int, unit: str, seconds: float) -> str:
    d = usage.as_dict()
    per = f"{d['calls'] / n:.2f}" if n else "-"
    return (
        f"{label:<28} {n:>3} {unit:<12} calls {d['calls']:>3} ({per}/{unit[:-1] or unit})"
        f"  requests {d['requests']:>3}  cache hits {d['cache_hits']:>3}"
        f"  tokens {d['tokens']['total']:>6}  failures {d['failures']}"
        f"  fallbacks {d['fallbacks']}  {seconds:6.1f} s"
    )


def run(project: Path, llm: LLM, store: Store) -> None:
    files = [str(p) for p in sorted(project.glob("*.md"))]
    for graph in (project.name, f"{project.name}-again"):
        llm.usage = Usage()
        started = time.perf_counter()
        report = api.ingest(
            store, expand(files), graph=graph, extractor=LLMExtractor(llm, floor=True)
        )
        print(
            row(
                f"ingest {graph}",
                llm.usage,
                report.episodes_new,
                "episodes",
                time.perf_counter() - started,
            )
        )
        llm.usage = Usage()
        started = time.perf_counter()
        writer = LLMWriter(llm, store, graph)
        result = api.analyze(store, graph, writer_name=writer.name, write=writer)
        written = len(result.created) + len(result.updated)
        print(
            row(
                f"analyze {graph}",
                llm.usage,
                written,
                "observations",
                time.perf_counter() - started,
            )
        )
    llm.usage = Usage()
    started = time.perf_counter()
    writer = LLMWriter(llm, store, project.name)
    api.analyze(store, project.name, writer_name=writer.name, write=writer, force=True)
    print(
        row(
            f"analyze --force {project.name}",
            llm.usage,
            0,
            "observations",
            time.perf_counter() - started,
        )
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--base-url")
    parser.add_argument("--model")
    parser.add_argument("--mode")
    parser.add_argument("--system-role")
    args = parser.parse_args()
    server: Any = None
    if args.base_url is None:
        import threading
        from http.server import ThreadingHTTPServer

        from tests.llm_stub import MODEL, StubLLM, _handler

        stub = StubLLM()
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(stub))
        stub.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()
        args.base_url, args.model = stub.url, MODEL
    options = {"base_url": args.base_url, "model": args.model, "mode": args.mode}
    if args.system_role:
        os.environ["MEMCLI_LLM_SYSTEM_ROLE"] = args.system_role
    settings = load_settings(options)
    print(f"model {settings.model} at {settings.endpoint}, mode {settings.mode}")
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.db") as store:
        llm = LLM(settings, store)
        for project in ("project-atlas", "orbit"):
            run(ROOT / "sample_data" / project, llm, store)
    if server is not None:
        server.shutdown()


if __name__ == "__main__":
    main()
