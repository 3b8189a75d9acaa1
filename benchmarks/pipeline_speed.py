"""Ingest and analyze speed of the real pipeline, side by side with a yardstick.

Every figure is measured in one run, one process per measurement (wall time, CPU time
and peak RSS of that process), so that a busy machine slows the yardstick and memcli
alike and the ratio stays meaningful:

* **ingest, JSONL with given facts**: ``memcli ingest`` of the corpus's ``facts/`` files
  next to a yardstick that does the least such an ingest must (read each line, parse the
  JSON, insert the update and its facts in one transaction per file, with an FTS5 index
  over the text);
* **ingest, Markdown through the rules reader**: ``memcli ingest`` of the corpus's ``md/``
  files next to a yardstick that reads each file, parses its front matter, splits
  sentences, runs one regex per sentence and inserts the update and ~5 rows in one
  transaction with an FTS5 index;
* **analyze**: a full pass, a forced full re-run (nothing changes) and the incremental
  pass after the corpus's 30 new updates, each as ``memcli analyze --json``.

``--baseline DIR`` runs the same commands with another memcli checkout (a source tree:
its directory goes on ``PYTHONPATH``) on a copy of the same database, for before/after
figures in the same run.

    python benchmarks/pipeline_speed.py --size 10000
    python benchmarks/pipeline_speed.py --size 100000 --baseline ../memcli-main
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import cached  # noqa: E402
from perf import OUT, scale_config  # noqa: E402

YARDSTICK = r"""
import json, sqlite3, sys
from pathlib import Path
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.executescript('''
PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS updates (id INTEGER PRIMARY KEY, author TEXT, at TEXT,
  content TEXT);
CREATE TABLE IF NOT EXISTS facts (id INTEGER PRIMARY KEY, update_id INTEGER, source TEXT,
  relation TEXT, target TEXT, sentence TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS updates_fts USING fts5(content, content='updates',
  content_rowid='id');
''')
n = 0
for path in sorted(Path(sys.argv[2]).glob("*.jsonl")):
    db.execute("BEGIN")
    for line in path.read_text(encoding="utf-8").splitlines():
        rec = json.loads(line)
        cur = db.execute("INSERT INTO updates (author, at, content) VALUES (?, ?, ?)",
                         (rec.get("author"), rec.get("occurred_at"), rec["content"]))
        uid = cur.lastrowid
        db.execute("INSERT INTO updates_fts (rowid, content) VALUES (?, ?)",
                   (uid, rec["content"]))
        db.executemany(
            "INSERT INTO facts (update_id, source, relation, target, sentence)"
            " VALUES (?, ?, ?, ?, ?)",
            [(uid, f["source"]["name"] if isinstance(f["source"], dict) else f["source"],
              f["relation"],
              f["target"]["name"] if isinstance(f["target"], dict) else f["target"],
              f.get("sentence", "")) for f in rec.get("facts", [])])
        n += 1
    db.execute("COMMIT")
print(n)
"""

# The least a Markdown ingest must do: read each file, parse its front matter, split the
# body into sentences, one regex per sentence, insert the update and ~5 rows in one
# transaction with an FTS5 index over the text.
YARDSTICK_MD = r"""
import re, sqlite3, sys
from pathlib import Path
import frontmatter
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.executescript('''
PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;
CREATE TABLE IF NOT EXISTS updates (id INTEGER PRIMARY KEY, author TEXT, at TEXT,
  content TEXT);
CREATE TABLE IF NOT EXISTS facts (id INTEGER PRIMARY KEY, update_id INTEGER, source TEXT,
  relation TEXT, target TEXT, sentence TEXT);
CREATE VIRTUAL TABLE IF NOT EXISTS updates_fts USING fts5(content, content='updates',
  content_rowid='id');
''')
SPLIT = re.compile(r"(?<=[.!?])\s+")
RULE = re.compile(r"(?i)^(?:my |the )?(.+?) (?:is|are) (?:blocked on|waiting for|waiting on"
                  r"|owned by) (.+?)\.?$")
n = 0
db.execute("BEGIN")
for path in sorted(Path(sys.argv[2]).rglob("*.md")):
    post = frontmatter.loads(path.read_text(encoding="utf-8"))
    cur = db.execute("INSERT INTO updates (author, at, content) VALUES (?, ?, ?)",
                     (str(post.get("author")), str(post.get("date")), post.content))
    uid = cur.lastrowid
    db.execute("INSERT INTO updates_fts (rowid, content) VALUES (?, ?)", (uid, post.content))
    rows = []
    for sentence in SPLIT.split(post.content):
        m = RULE.match(sentence)
        rows.append((uid, m and m.group(1), "r", m and m.group(2), sentence))
    db.executemany("INSERT INTO facts (update_id, source, relation, target, sentence)"
                   " VALUES (?, ?, ?, ?, ?)", rows[:5])
    n += 1
db.execute("COMMIT")
print(n)
"""

# The rules reader's own share of a Markdown ingest: the same files read and parsed as
# memcli does, then only ``extract(text, author)`` timed (CPU seconds of that loop).
READER_SHARE = r"""
import sys, time
from memcli.extract.rules import extract
from memcli.readers import parse_document
from memcli.sources import expand
eps = [e for item in expand([sys.argv[1]])
       for e in parse_document(item.text, item.source, default_time=item.default_time)[0]]
t = time.process_time()
for e in eps:
    extract(e.content, e.author)
print(f"{len(eps)} {time.process_time() - t:.3f}")
"""

WRAPPER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.PIPE)
out = p.stdout.read()
_, status, ru = os.wait4(p.pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump({"seconds": time.perf_counter() - t, "rss_mb": ru.ru_maxrss / 1024,
               "cpu": ru.ru_utime + ru.ru_stime, "code": os.waitstatus_to_exitcode(status),
               "stdout": out.decode()}, f)
"""


def new_components(path: Path, graph: str = "bench", day: str = "2026-12-19") -> Path:
    """30 updates in ten components nobody wrote about before, dated a day after the
    corpus: in each, two people wait on a new root and say the platform team owns it
    (the team's bottleneck spans the graph: 891 roots at 100k), and the team's lead
    restates who owns it. An incremental pass redoes those 30 updates and rebuilds the
    team's other roots from their stored evidence, not a component of the graph."""
    lines = []
    for k in range(10):
        root = f"relay {k} overhaul"
        for j, who in enumerate(["Ilsa", "Ottar"]):
            item = f"{who.lower()} beacon {k} rollout"
            text = f"My {item} is blocked on the {root}, which the platform team owns."
            lines.append(
                {
                    "source": f"newcomp-{k}-{j}",
                    "author": who,
                    "occurred_at": f"{day}T{9 + j:02d}:{10 + k:02d}:00Z",
                    "graph": graph,
                    "content": text,
                    "facts": [
                        {
                            "source": item,
                            "relation": "blocked_by",
                            "target": root,
                            "source_type": "work_item",
                            "target_type": "work_item",
                            "sentence": text,
                        },
                        {
                            "source": "platform team",
                            "relation": "owns",
                            "target": root,
                            "source_type": "team",
                            "target_type": "work_item",
                            "sentence": text,
                        },
                    ],
                }
            )
        text = f"The platform team owns the {root}."
        lines.append(
            {
                "source": f"newcomp-{k}-owner",
                "author": "Wendeline",
                "occurred_at": f"{day}T12:{10 + k:02d}:00Z",
                "graph": graph,
                "content": text,
                "facts": [
                    {
                        "source": "platform team",
                        "relation": "owns",
                        "target": root,
                        "source_type": "team",
                        "target_type": "work_item",
                        "sentence": text,
                    }
                ],
            }
        )
    path.mkdir(parents=True, exist_ok=True)
    out = path / "new-components.jsonl"
    out.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    return path


def measured(
    cmd: list[str], env: dict[str, str] | None = None, cwd: Path | None = None
) -> dict[str, object]:
    """Run ``cmd`` in its own process: wall and CPU seconds, peak RSS, stdout. ``cwd``:
    where it runs (``python -m`` and ``-c`` put that directory first on the path)."""
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        report = f.name
    subprocess.run([sys.executable, "-c", WRAPPER, report, *cmd], check=True, env=env, cwd=cwd)
    data: dict[str, object] = json.loads(Path(report).read_text())
    os.unlink(report)
    if data["code"] != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return data


def memcli(db: Path, *args: str, tree: Path | None = None) -> dict[str, object]:
    env = dict(os.environ)
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    # ``python -m`` puts the working directory first on sys.path: run from the tree, or
    # a checkout in the working directory would be measured instead of the baseline.
    return measured([sys.executable, "-m", "memcli", "--db", str(db), *args], env, cwd=tree)


def analyze_seconds(run: dict[str, object]) -> str:
    [report] = json.loads(str(run["stdout"]))
    return (
        f"{report['seconds']:.2f} s in analyze, {run['seconds']:.2f} s wall, "
        f"{run['cpu']:.2f} s CPU, {run['rss_mb']:.0f} MB; mode {report['mode']}, "
        f"{report['episodes']} episodes, {len(report['created'])} created, "
        f"{len(report['unchanged'])} unchanged"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=10000, help="corpus size (episodes)")
    p.add_argument("--baseline", type=Path, help="another memcli source tree to compare")
    p.add_argument("--db", type=Path, help="reuse this ingested database (skip ingest)")
    p.add_argument("--ingest-only", action="store_true", help="measure ingest, skip analyze")
    p.add_argument("--jsonl-only", action="store_true", help="skip the Markdown ingest")
    args = p.parse_args(argv)
    # --jsonl-only generates no Markdown: a million files would cost more than the run.
    formats = ("facts",) if args.jsonl_only else ("md", "text", "facts")
    corpus = cached(scale_config(args.size), OUT / f"scale-{args.size}", formats)
    work = OUT / "pipeline"
    work.mkdir(parents=True, exist_ok=True)
    trees: list[tuple[str, Path | None]] = [("this tree", None)]
    if args.baseline:
        trees.append(("baseline", args.baseline.resolve()))
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    n = sum(1 for f in (corpus / "facts").glob("*.jsonl") for _ in f.open(encoding="utf-8"))
    fresh = work / "fresh.db"
    if args.db is None:
        for path in work.glob("*.db*"):
            path.unlink()
        y = measured(
            [sys.executable, "-c", YARDSTICK, str(work / "yardstick.db"), str(corpus / "facts")]
        )
        say(
            f"yardstick ingest, {n} updates: {n / float(y['seconds']):.0f}/s wall, "
            f"{n / float(y['cpu']):.0f}/s of CPU ({y['seconds']:.1f} s wall, {y['cpu']:.1f} s CPU)"
        )
        for label, tree in trees:
            db = work / f"{label.replace(' ', '-')}.db"
            run = memcli(db, "ingest", str(corpus / "facts"), "--quiet", tree=tree)
            say(
                f"{label}: ingest, JSONL with given facts, {n} updates: "
                f"{n / float(run['seconds']):.0f}/s wall, {n / float(run['cpu']):.0f}/s of CPU "
                f"({run['seconds']:.1f} s wall, {run['cpu']:.1f} s CPU, {run['rss_mb']:.0f} MB); "
                f"{float(run['cpu']) / float(y['cpu']):.0f}x the yardstick's CPU"
            )
        if not args.jsonl_only:
            n_md = sum(1 for _ in (corpus / "md").rglob("*.md"))
            y = measured(
                [
                    sys.executable,
                    "-c",
                    YARDSTICK_MD,
                    str(work / "yardstick-md.db"),
                    str(corpus / "md"),
                ]
            )
            say(
                f"yardstick ingest, Markdown, {n_md} files: {n_md / float(y['seconds']):.0f}/s wall, "
                f"{n_md / float(y['cpu']):.0f}/s of CPU ({y['seconds']:.1f} s wall, {y['cpu']:.1f} s CPU)"
            )
            for label, tree in trees:
                db = work / f"md-{label.replace(' ', '-')}.db"
                run = memcli(db, "ingest", str(corpus / "md"), "--quiet", tree=tree)
                say(
                    f"{label}: ingest, Markdown through the rules reader, {n_md} files: "
                    f"{n_md / float(run['seconds']):.0f}/s wall, {n_md / float(run['cpu']):.0f}/s of CPU "
                    f"({run['seconds']:.1f} s wall, {run['cpu']:.1f} s CPU, {run['rss_mb']:.0f} MB); "
                    f"{float(run['cpu']) / float(y['cpu']):.0f}x the yardstick's CPU"
                )
            for label, tree in trees:
                env = dict(os.environ)
                if tree is not None:
                    env["PYTHONPATH"] = str(tree)
                share = measured(
                    [sys.executable, "-c", READER_SHARE, str(corpus / "md")], env, tree
                )
                count, cpu = str(share["stdout"]).split()
                say(
                    f"{label}: of which the rules reader alone, extract() on {count} updates: "
                    f"{float(cpu):.1f} s CPU ({int(count) / float(cpu):.0f}/s)"
                )
        fresh = work / "this-tree.db"
    else:
        shutil.copy(args.db, fresh)
    for label, tree in [] if args.ingest_only else trees:
        db = work / f"analyze-{label.replace(' ', '-')}.db"
        shutil.copy(fresh, db)
        say(
            f"{label}: analyze, full: {analyze_seconds(memcli(db, 'analyze', '--json', tree=tree))}"
        )
        forced = memcli(db, "analyze", "--json", "--force", tree=tree)
        say(f"{label}: analyze, forced re-run: {analyze_seconds(forced)}")
        # On a copy: 30 updates in new components (an incremental pass), then back to
        # the corpus's own 30 new updates on the store as it was.
        side = work / f"side-{label.replace(' ', '-')}.db"
        shutil.copy(db, side)
        memcli(side, "ingest", str(new_components(work / "new-components")), "--quiet", tree=tree)
        say(
            f"{label}: analyze after 30 updates in new components: "
            f"{analyze_seconds(memcli(side, 'analyze', '--json', tree=tree))}"
        )
        side.unlink()
        memcli(db, "ingest", str(corpus / "increment" / "facts"), "--quiet", tree=tree)
        say(
            f"{label}: analyze after 30 new updates: {analyze_seconds(memcli(db, 'analyze', '--json', tree=tree))}"
        )
        obs = memcli(db, "observations", "--json", tree=tree)
        say(f"{label}: observations --json: {obs['seconds'] * 1000:.0f} ms wall")
    (OUT / "pipeline-speed.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
