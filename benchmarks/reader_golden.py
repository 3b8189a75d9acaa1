"""Every output of the rules reader, dumped so a speed change can prove it changed nothing.

The reader is pure: the same (text, author) always gives the same ``Extraction``. This
script reads a fixed set of updates (the dev corpus, the author checks and a generated
corpus, plus each update read as if anonymous) and writes one JSON line per update with
every fact (source, types, relation, target, sentence, times), every unparsed sentence and
every trace entry. Two dumps from two source trees must be byte-identical.

Run::

    python benchmarks/reader_golden.py --out before.jsonl     # on the old code
    python benchmarks/reader_golden.py --out after.jsonl      # on the new code
    cmp before.jsonl after.jsonl

    python benchmarks/reader_golden.py --check before.jsonl   # dump and compare in one go

The held-out test corpus is never read here.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from generate import Config, generate  # noqa: E402

from memcli.extract.rules import extract  # noqa: E402
from memcli.models import Extraction  # noqa: E402


def _jsonl(path: Path) -> list[tuple[str, str, str | None]]:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
    return [(f"{path.stem}:{r['id']}", r["text"], r.get("author")) for r in rows]


def updates(generated: int, corpus: Path = HERE / "corpus") -> list[tuple[str, str, str | None]]:
    """(label, text, author) for every update the dump covers."""
    out: list[tuple[str, str, str | None]] = []
    for name in ("dev.jsonl", "reader_author_checks.jsonl"):
        if (corpus / name).exists():
            out += _jsonl(corpus / name)
    for path in sorted((ROOT / "sample_data").rglob("*.md")):
        out.append((f"sample:{path.name}", path.read_text(encoding="utf-8"), None))
    # Two generated corpora: the default mix, and one dense with owner naming, namesakes,
    # hubs and extra sentences, so every generator template is read.
    configs = [
        Config(seed=11, chains=generated // 10, noise=generated // 2),
        replace(
            Config(seed=12, chains=generated // 20, noise=generated // 4),
            owner_naming=1.0,
            namesakes=1.0,
            hub_team=0.5,
            hub_person=True,
            two_foundation=0.5,
            repeats=0.5,
            extra_sentences=1.5,
            lone_blockers=0.5,
        ),
    ]
    for n, cfg in enumerate(configs):
        corpus_ = generate(cfg)
        for ep in corpus_.episodes + corpus_.increment:
            out.append((f"gen{n}:{ep.source}", ep.content, ep.author))
    # The same texts read anonymously: the author rules take another path.
    out += [(f"{label}:anon", text, None) for label, text, author in out if author is not None]
    return out


def dump(extraction: Extraction) -> dict[str, object]:
    """Everything an Extraction holds, as plain JSON."""
    return {
        "facts": [
            [
                f.source.name,
                f.source.type.value,
                f.relation.value,
                f.target.name,
                f.target.type.value,
                f.sentence,
                f.valid_at,
                f.invalid_at,
            ]
            for f in extraction.facts
        ],
        "unparsed": extraction.unparsed,
        "trace": [[t.sentence, t.facts, t.frame, t.reason, t.cue] for t in extraction.trace],
        "status": extraction.status,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="write the dump here")
    parser.add_argument("--check", type=Path, help="compare with an earlier dump")
    parser.add_argument("--generated", type=int, default=2000, help="size of the generated mix")
    parser.add_argument(
        "--corpus", type=Path, default=HERE / "corpus", help="folder of dev.jsonl and the checks"
    )
    args = parser.parse_args()
    lines = []
    for label, text, author in updates(args.generated, args.corpus):
        row = {"id": label, "author": author, **dump(extract(text, author))}
        lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True))
    body = "\n".join(lines) + "\n"
    digest = hashlib.sha256(body.encode()).hexdigest()[:16]
    facts = sum(line.count('"facts": [[') for line in lines)
    print(f"{len(lines)} updates ({facts} with facts), sha256 {digest}")
    if args.out:
        args.out.write_text(body, encoding="utf-8")
    if args.check:
        want = args.check.read_text(encoding="utf-8").splitlines()
        have = body.splitlines()
        diffs = [(w, h) for w, h in zip(want, have, strict=False) if w != h]
        if len(want) != len(have):
            print(f"different number of updates: {len(want)} before, {len(have)} now")
        for w, h in diffs[:5]:
            print(f"- {w}\n+ {h}")
        if diffs or len(want) != len(have):
            print(f"{len(diffs)} updates differ")
            return 1
        print("identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
