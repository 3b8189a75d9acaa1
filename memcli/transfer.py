"""Export a graph as JSON Lines and import it again: no lock-in, and a repair path.

The export format is the JSON episode format every memcli reader already accepts (see
``memcli.readers``): one object a line with ``content``, ``author``, ``occurred_at``,
``graph``, ``source`` and ``facts`` ({source, relation, target, source_type,
target_type, sentence}). Facts given this way bypass extraction, so an import
reproduces exactly the facts that were stored, whatever extractor made them. An update
that said an item is unblocked without naming its blocker also carries ``releases``
({item, item_type, sentence}): the facts it gave are among its ``facts`` already, and
the release ends a wait imported after it, as it did where it was first stored. Ended facts
are exported like the others and end again on import through the contradiction rules,
which work in both directions of time; observations are not exported, ``memcli
analyze`` derives them again from the evidence.

An episode whose extraction never finished is exported without ``facts``, so the
import extracts it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from memcli.api import require_graph
from memcli.store import Store

FORMATS = ("jsonl",)


def episode_object(row: dict[str, Any]) -> dict[str, Any]:
    """One stored episode (with its facts) as a JSON episode object."""
    obj: dict[str, Any] = {
        "content": row["content"],
        "author": row["author"],
        "occurred_at": row["occurred_at"],
        "graph": row["graph_id"],
        "source": row["source"],
    }
    if row["extraction_status"] == "done":
        obj["facts"] = [
            {
                "source": f["source"],
                "relation": f["relation"],
                "target": f["target"],
                "source_type": f["source_type"],
                "target_type": f["target_type"],
                "sentence": f["sentence"],
            }
            for f in row["facts"]
        ]
        if row.get("releases"):
            obj["releases"] = row["releases"]
    return obj


def jsonl_line(obj: dict[str, Any]) -> str:
    """One JSON Lines record. U+2028/U+2029 are escaped: JSON allows them raw inside a
    string, but many line-oriented tools treat them as line breaks."""
    text = json.dumps(obj, ensure_ascii=False)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029") + "\n"


def export_graph(store: Store, graph: str) -> Iterator[tuple[str, int]]:
    """(JSON line, number of facts) for every episode of ``graph``, oldest id first."""
    require_graph(store, graph)
    for row in store.export_episodes(graph):
        obj = episode_object(row)
        yield jsonl_line(obj), len(obj.get("facts", []))


def import_format(text: str) -> str:
    """'json' for a JSON array document, else 'jsonl' (an export is one object a line)."""
    return "json" if text.lstrip().startswith("[") else "jsonl"
