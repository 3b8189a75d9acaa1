"""Dump everything ingest writes, to check that a speed change stores the same rows.

Ingests each corpus into a fresh database with ``memcli ingest --json`` (the CLI of the
given source tree, in its own process), then dumps every table of the database (search
indexes included: their shadow tables as a digest per row) as sorted text, with the
columns that hold the wall clock of the run masked, and the ingest report beside it.
Ids are kept as they are: two trees that store the same rows with the same ids give
identical dumps. Run it once per source tree and compare the two directories:

    python benchmarks/ingest_dump.py OUT/before --tree ../memcli-before
    python benchmarks/ingest_dump.py OUT/after
    diff -r OUT/before OUT/after && echo identical

The corpora: the generated 5k Markdown and JSONL (with and without given facts), the
sample data, and ``awkward/``, written here: JSONL files with bad lines, duplicates
inside one file, an entity first seen twice in one file, dated and undated copies of
one update, a record whose entity name is empty once normalised (the store refuses it:
the file is stored again record by record), and Markdown files batched together with a
JSON document that the store refuses.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import cached  # noqa: E402
from perf import OUT, scale_config  # noqa: E402

# Columns that hold the wall clock of the run, not what was stored.
CLOCK = {
    "ingested_at",
    "created_at",
    "expired_at",
    "last_ingest_at",
    "applied_at",
}


def _fact(src: str, rel: str, tgt: str, **extra: str) -> dict[str, str]:
    return {"source": src, "relation": rel, "target": tgt, **extra}


def awkward(root: Path) -> Path:
    """Small inputs that take every path of the writer (see the module docstring)."""
    out = root / "awkward"
    (out / "mixed").mkdir(parents=True, exist_ok=True)
    lines = [
        {
            "content": "The ledger export waits on the schema freeze.",
            "author": "Nadia",
            "occurred_at": "2026-03-02T09:00:00Z",
            "facts": [
                _fact("ledger export", "blocked_by", "schema freeze"),
                _fact("Ledger Export", "blocked_by", "the schema freeze"),  # same fact
                _fact("Nadia", "owns", "ledger export", source_type="person"),
            ],
        },
        "{not json at all",
        {
            "content": "Schema freeze shipped.",
            "author": "Omar",
            "occurred_at": "2026-03-04T09:00:00Z",
            "facts": [_fact("Omar", "completed", "schema freeze")],
        },
        {"content": "A record with a relation nobody knows.", "facts": [_fact("a", "likes", "b")]},
        {
            "content": "The ledger export waits on the schema freeze.",  # a duplicate
            "author": "Nadia",
            "occurred_at": "2026-03-02T09:00:00Z",
            "facts": [_fact("ledger export", "blocked_by", "schema freeze")],
        },
        {
            "content": "Undated: the audit trail waits on the ledger export.",
            "author": "Pia",
            "facts": [_fact("audit trail", "blocked_by", "ledger export")],
        },
        {
            "content": "The --- waits on nothing.",  # an entity name empty once normalised
            "author": "Quinn",
            "occurred_at": "2026-03-05T09:00:00Z",
            "facts": [_fact("---", "blocked_by", "ledger export")],
        },
        {
            "content": "Team Rho took over the ledger export from Nadia.",
            "author": "Rho lead",
            "occurred_at": "2026-03-06T09:00:00Z",
            "facts": [
                _fact("rho", "owns", "ledger export", source_type="team"),
                _fact("ledger export", "blocked_by", "ledger export"),  # one entity: a warning
            ],
        },
        {"content": "", "author": "nobody"},
    ]
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    (out / "bad-lines.jsonl").write_text(text, encoding="utf-8")
    for i in range(6):
        body = (
            f"The report builder {i} is blocked on the metrics pipeline. "
            f"Sam owns the report builder {i}."
        )
        (out / "mixed" / f"u{i}.md").write_text(
            f"---\nauthor: Sam\ndate: 2026-04-0{i + 1}\n---\n{body}\n", encoding="utf-8"
        )
    (out / "mixed" / "u2-again.md").write_text(
        "---\nauthor: Sam\ndate: 2026-04-03\n---\n"
        "The report builder 2 is blocked on the metrics pipeline. "
        "Sam owns the report builder 2.\n",
        encoding="utf-8",
    )
    (out / "mixed" / "x-refused.json").write_text(
        json.dumps(
            {
                "content": "A document the store refuses whole.",
                "occurred_at": "2026-04-09T09:00:00Z",
                "facts": [_fact("...", "owns", "metrics pipeline")],
            }
        ),
        encoding="utf-8",
    )
    (out / "mixed" / "y-broken.md").write_text(
        "---\nauthor: Sam\ndate: 2026-04-10\nno closing fence\n", encoding="utf-8"
    )
    # An undated record takes its file's time: fixed, so two runs store the same time.
    for path in out.rglob("*.*"):
        os.utime(path, (1772323200, 1772323200))  # 2026-03-01
    return out


def dump_db(db: Path, out: Path) -> None:
    conn = sqlite3.connect(db)
    tables = [
        str(r[0])
        for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    ]
    for table in tables:
        cur = conn.execute(f"SELECT * FROM [{table}]")
        cols = [d[0] for d in cur.description]
        rows = []
        for row in cur:
            shown = []
            for col, value in zip(cols, row, strict=True):
                if col in CLOCK and value is not None:
                    value = "<clock>"
                elif isinstance(value, bytes):
                    value = "blob:" + hashlib.blake2b(value, digest_size=8).hexdigest()
                shown.append(value)
            rows.append(json.dumps(shown, ensure_ascii=False))
        rows.sort()
        (out / f"{table}.txt").write_text(
            "\t".join(cols) + "\n" + "".join(r + "\n" for r in rows), encoding="utf-8"
        )
    conn.close()


def dump(tree: Path, out: Path, corpus: Path, odd: Path) -> dict[str, int]:
    """Ingest each corpus with the CLI of ``tree`` into a fresh database and dump it
    under ``out``; each run's exit code."""
    repo = HERE.parent
    runs = {
        "md": [corpus / "md"],
        "facts": [corpus / "facts"],
        "text": [corpus / "text"],
        "sample": [repo / "sample_data"],
        "awkward": [odd / "bad-lines.jsonl", odd / "mixed", odd / "bad-lines.jsonl"],
    }
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)
    codes = {}
    tmp = tempfile.mkdtemp()
    for name, paths in runs.items():
        target = out / name
        target.mkdir(parents=True, exist_ok=True)
        db = Path(tmp) / f"{name}.db"
        cmd = [sys.executable, "-m", "memcli", "--db", str(db), "ingest", "--json"]
        done = subprocess.run(
            [*cmd, *map(str, paths)], env=env, cwd=tree, capture_output=True, text=True
        )
        (target / "_report.json").write_text(
            f"exit {done.returncode}\n{done.stdout}{done.stderr}", encoding="utf-8"
        )
        dump_db(db, target)
        codes[name] = done.returncode
    shutil.rmtree(tmp)
    return codes


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", type=Path, help="directory for the dumps")
    p.add_argument("--tree", type=Path, help="memcli source tree to run (default: this one)")
    p.add_argument("--size", type=int, default=5000, help="generated corpus size")
    args = p.parse_args(argv)
    corpus = cached(scale_config(args.size), OUT / f"scale-{args.size}", ("md", "text", "facts"))
    tree = (args.tree or HERE.parent).resolve()
    for name, code in dump(tree, args.out, corpus, awkward(OUT)).items():
        print(f"{name}: exit {code}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
