"""Sentences per second of the rules reader, beside a yardstick, in the same run.

The texts are the blind evaluation corpus when it is present (``benchmarks/corpus/
dev.jsonl``: real-looking updates in five styles), else the Markdown updates under
``sample_data/``. Each update is read whole, as ingest does, and the rate counts the
sentences the reader traced. The yardstick is the cheapest possible reader: one compiled
regex search per sentence. The ratio between the two travels between machines better
than either figure alone.

The second figure is per update, as ingest sees one: generated Markdown updates
(``benchmarks/generate.py``, front matter and all) parsed by memcli's Markdown reader and
read whole, so it includes the reader's per-update set-up (discourse state, minutes
roster, sentence splitting) beside its per-sentence work. Every text is read once in a
warm-up pass before the clock starts.

Run::

    python benchmarks/reader_speed.py            # prints both rates
    python benchmarks/reader_speed.py --repeat 20
    python benchmarks/reader_speed.py --markdown 5000   # more generated updates
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Callable
from pathlib import Path

from memcli.extract.rules import extract
from memcli.readers import parse_markdown

ROOT = Path(__file__).resolve().parent.parent


def updates() -> list[tuple[str, str | None]]:
    """(text, author) pairs to read: the dev corpus if present, else the sample data."""
    dev = ROOT / "benchmarks" / "corpus" / "dev.jsonl"
    if dev.exists():
        rows = [json.loads(line) for line in dev.read_text(encoding="utf-8").splitlines() if line]
        return [(r["text"], r.get("author")) for r in rows]
    out: list[tuple[str, str | None]] = []
    for path in sorted((ROOT / "sample_data").rglob("*.md")):
        body = path.read_text(encoding="utf-8").split("---", 2)[-1]
        author = path.stem.split("-")[-1].capitalize()
        out.append((body, author))
    return out


def markdown_updates(count: int) -> list[tuple[str, str]]:
    """(source, Markdown file text) for ``count`` generated updates (chains and noise)."""
    import sys

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from generate import Config, _md, generate

    corpus = generate(Config(seed=3, chains=max(1, count // 12), noise=count - count // 3))
    episodes = (corpus.episodes + corpus.increment)[:count]
    return [(ep.source, _md(ep, "bench")) for ep in episodes]


def per_update(count: int, repeat: int) -> None:
    """Parse and read generated Markdown updates, one at a time, as ingest does; the
    parse (front matter) and the read are also timed on their own."""
    files = markdown_updates(count)
    episodes = [parse_markdown(text, source, None, "markdown") for source, text in files]
    sentences = sum(len(extract(ep.content, ep.author).trace) for ep in episodes)
    print(f"markdown updates: {len(files)}  sentences: {sentences}  passes: {repeat}")
    n = len(files) * repeat

    def clock(label: str, work: Callable[[], None]) -> None:
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(repeat):
            work()
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(
            f"{label:11}{n / wall:10,.0f} updates/s ({1e6 * wall / n:6.1f} us/update)"
            f"  CPU {n / cpu:8,.0f} updates/s ({1e6 * cpu / n:6.1f} us/update)"
        )

    def both() -> None:
        for source, text in files:
            episode = parse_markdown(text, source, None, "markdown")
            extract(episode.content, episode.author)

    def parse() -> None:
        for source, text in files:
            parse_markdown(text, source, None, "markdown")

    def read() -> None:
        for episode in episodes:
            extract(episode.content, episode.author)

    clock("parse+read", both)
    clock("parse", parse)
    clock("read", read)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10, help="passes over the texts")
    parser.add_argument(
        "--markdown", type=int, default=2000, help="generated Markdown updates (0: skip)"
    )
    args = parser.parse_args()
    texts = updates()
    sentences = [t.sentence for text, author in texts for t in extract(text, author).trace]
    yard = re.compile(r"\b(?:blocked|waiting|owns|shipped)\b", re.IGNORECASE)

    start = time.perf_counter()
    for _ in range(args.repeat):
        for sentence in sentences:
            yard.search(sentence)
    yard_rate = len(sentences) * args.repeat / (time.perf_counter() - start)

    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(args.repeat):
        for text, author in texts:
            extract(text, author)
    rate = len(sentences) * args.repeat / (time.perf_counter() - start)
    cpu_rate = len(sentences) * args.repeat / (time.process_time() - cpu)

    print(f"updates: {len(texts)}  sentences: {len(sentences)}  passes: {args.repeat}")
    print(f"reader     {rate:12,.0f} sentences/s  ({1e6 / rate:7.1f} us/sentence)")
    print(f"reader CPU {cpu_rate:12,.0f} sentences/s  (process time: steadier on a busy machine)")
    print(f"yardstick  {yard_rate:12,.0f} sentences/s  ({1e6 / yard_rate:7.1f} us/sentence)")
    print(f"ratio      {yard_rate / rate:12.1f}x slower than one regex search")
    if args.markdown:
        per_update(args.markdown, max(1, args.repeat // 5))


if __name__ == "__main__":
    main()
