"""How the reader read each sentence of an update: the data behind ``--explain``.

``explain(text, author)`` runs the default reader and pairs every sentence with the
frame that read it and the facts it gave, or the reason nothing did. Pure:
``memcli.api.explain_episode`` does the same for an update already stored (its content
and author, re-read with the current reader, so the answer reflects today's rules
rather than those at ingest).
"""

from __future__ import annotations

from typing import Any

from memcli.extract.releases import RELEASE_FRAME


def explain(text: str, author: str | None) -> list[dict[str, Any]]:
    """One dict per sentence: sentence, frame, reason, cue and the facts it gave."""
    from memcli.extract.rules import extract

    extraction = extract(text, author)
    by_sentence: dict[str, list[dict[str, str]]] = {}
    for f in extraction.facts:
        by_sentence.setdefault(f.sentence, []).append(
            {
                "source": f.source.name,
                "source_type": f.source.type.value,
                "relation": f.relation.value,
                "target": f.target.name,
                "target_type": f.target.type.value,
            }
        )
    return [
        {
            "sentence": t.sentence,
            "frame": t.frame,
            "reason": t.reason,
            "cue": t.cue,
            "facts": by_sentence.pop(t.sentence, []) if t.facts else [],
        }
        for t in extraction.trace
    ]


def describe(line: dict[str, Any]) -> str:
    """One human line for a sentence's reading: what read it, or why nothing did."""
    if line["facts"]:
        facts = "; ".join(f"{f['source']} {f['relation']} {f['target']}" for f in line["facts"])
        return f"read by {line['frame']}: {facts}"
    if line["frame"] == RELEASE_FRAME:
        return f"read as a release: {line['reason']}"
    if line["frame"]:
        return f"read by {line['frame']}, no fact: {line['reason']}"
    return f"not understood: {line['reason'] or 'no predicate'}"
