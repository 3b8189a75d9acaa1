"""Names written by anyone cannot become live HTML in the Markdown report, nor a Mermaid
directive or a broken label in the pictures."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.reliability.helpers import run

IMG = "<img src=x onerror=alert(1)>"
INIT = '%%{init: {"theme": "dark", "securityLevel": "loose"}}%%'
BREAKOUT = 'vault"] --> evil["pwned'
BLOCKER = f"{IMG} rollout"
WORK = [f"{INIT} dashboard", f"{BREAKOUT} migration", "*bold* [link](https://evil.example)"]


def load(tmp_path: Path) -> Path:
    db = tmp_path / "m.db"
    lines = [
        json.dumps(
            {
                "content": f"The work {i} is blocked on the rollout.",
                "author": f"{IMG}Eve" if i == 0 else "Dan",
                "occurred_at": f"2026-11-0{i + 2}",
                "graph": "g",
                "source": f"chat/`{i}`<b>",
                "facts": [
                    {
                        "source": work,
                        "relation": "blocked_by",
                        "target": BLOCKER,
                        "sentence": f"The {work} waits on the {BLOCKER}.",
                    },
                    {
                        "source": f"{IMG} team",
                        "relation": "owns",
                        "target": BLOCKER,
                        "sentence": "The rollout belongs to them.",
                    },
                ],
            }
        )
        for i, work in enumerate(WORK)
    ]
    data = tmp_path / "hostile.jsonl"
    data.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert run(db, "ingest", str(data)).returncode == 0
    assert run(db, "analyze", "--graph", "g").returncode == 0
    return db


def test_report_markdown_escapes_names(tmp_path: Path) -> None:
    db = load(tmp_path)
    result = run(db, "report", "--graph", "g", "--no-record")
    assert result.returncode == 0, result.stderr
    md = result.stdout
    assert "Unblock the" in md and "rollout" in md
    outside_code = re.sub(r"`[^`\n]*`", "", md)
    assert "<" not in outside_code, "no raw HTML outside code spans"
    assert "&lt;img src=x onerror=alert(1)&gt;" in md
    assert "\\*bold\\* \\[link\\]" in md  # no emphasis, no live link
    assert "`chat/ 0 <b>`" in md  # a backtick in a source cannot end its code span
    # the JSON keeps the names as written
    data = json.loads(run(db, "report", "--graph", "g", "--no-record", "--json").stdout)
    assert BLOCKER in json.dumps(data, ensure_ascii=False)


LABEL = re.compile(r'^\s*(?:subgraph obs\d+|e\d+)\["[^"\[\]{}%`]*"\]$')


def check_mermaid(text: str) -> None:
    assert "%%{" not in text and "}%%" not in text
    assert "<img" not in text
    for line in text.splitlines():
        if '["' in line:
            assert LABEL.match(line), line
    assert len([ln for ln in text.splitlines() if " -->|blocks| " in ln]) == 3


def test_mermaid_labels_are_inert(tmp_path: Path) -> None:
    db = load(tmp_path)
    result = run(db, "visualize", "--graph", "g")
    assert result.returncode == 0, result.stderr
    check_mermaid(result.stdout)
    assert "dashboard" in result.stdout and "migration" in result.stdout
    shown = run(db, "observation", "show", "1", "--mermaid")
    assert shown.returncode == 0, shown.stderr
    check_mermaid(shown.stdout)
