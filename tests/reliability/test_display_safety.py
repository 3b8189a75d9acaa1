"""Stored text cannot drive the terminal: control characters (ESC sequences, OSC 8
hyperlinks, OSC 0 titles, C1 controls) are neutralised in human output and error lines,
while the database and --json keep the text exactly as written."""

from __future__ import annotations

import json
from pathlib import Path

from tests.reliability.helpers import run

CLEAR = "\x1b[2J\x1b[H"
TITLE = "\x1b]0;owned\x07"
LINK = "\x1b]8;;https://evil.example/\x1b\\"
LINK_END = "\x1b]8;;\x1b\\"
CSI8 = "\x9b31m"  # the 8-bit CSI

BLOCKER = f"{TITLE}vault{CLEAR} upgrade"
WORK = [f"{LINK}key rotation{LINK_END}", f"audit{CSI8} export", "backup\x07 policy"]
AUTHOR = f"Mallory{TITLE}"

BAD = ("\x1b", "\x07", "\x9b")


def episodes() -> str:
    lines = []
    for i, work in enumerate(WORK):
        lines.append(
            json.dumps(
                {
                    "content": f"The {work} is blocked on the {BLOCKER}.{CLEAR}",
                    "author": AUTHOR,
                    "occurred_at": f"2026-11-0{i + 2}",
                    "graph": "g",
                    "source": f"chat/{LINK}{i}",
                    "facts": [
                        {
                            "source": work,
                            "relation": "blocked_by",
                            "target": BLOCKER,
                            "sentence": f"The {work} waits on the {BLOCKER}.",
                        }
                    ],
                }
            )
        )
    return "\n".join(lines) + "\n"


def assert_clean(out: str, what: str) -> None:
    assert not [c for c in BAD if c in out], f"{what} let a control character through: {out!r}"


def test_human_output_never_carries_terminal_controls(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    data = tmp_path / "hostile.jsonl"
    data.write_text(episodes(), encoding="utf-8")
    result = run(db, "ingest", str(data))
    assert result.returncode == 0, result.stderr
    assert run(db, "analyze", "--graph", "g").returncode == 0

    commands = [
        ["graphs"],
        ["facts", "--graph", "g"],
        ["entities", "--graph", "g"],
        ["observations", "--graph", "g"],
        ["observation", "show", "1"],
        ["observation", "show", "1", "--mermaid"],
        ["search", "--graph", "g", "vault upgrade", "--scope", "all"],
        ["search", "--graph", "g", "key rotation", "--scope", "episodes"],
        ["entity", "show", "--graph", "g", BLOCKER],
        ["report", "--graph", "g", "--no-record"],
        ["visualize", "--graph", "g"],
        ["visualize", "--graph", "g", "--format", "dot"],
    ]
    shown = 0
    for args in commands:
        result = run(db, *args)
        assert result.returncode == 0, (args, result.stderr)
        assert_clean(result.stdout + result.stderr, " ".join(args))
        shown += "vault" in result.stdout
    assert shown >= 8, "the hostile names are shown, just defused"

    # an error line that quotes stored or given text: a file whose name holds an escape
    bad = tmp_path / f"evil{CLEAR}.md"
    bad.write_text("---\nauthor: Bob\n---\n", encoding="utf-8")
    result = run(db, "ingest", str(bad))
    assert result.returncode != 0
    assert "evil" in result.stderr
    assert_clean(result.stdout + result.stderr, "an ingest error")

    # --json (and the database) keep the text exactly as written
    result = run(db, "entities", "--graph", "g", "--json")
    assert result.returncode == 0, result.stderr
    names = {e["name"] for e in json.loads(result.stdout)}
    assert BLOCKER in names and set(WORK) <= names
    found = json.loads(
        run(db, "search", "--graph", "g", "rotation", "--scope", "episodes", "--json").stdout
    )
    assert found and all(
        r["title"].startswith(AUTHOR) and r["evidence"]["sources"][0].startswith(f"chat/{LINK}")
        for r in found
    )
