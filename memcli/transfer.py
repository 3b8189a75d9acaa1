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

What a person decided about names is exported too, after the episodes, one line each:
``{"merge": {alias, alias_type, canonical, canonical_type, decided_by, reason,
undone, undo_reason}, "graph": ...}``. A merge a person made is made again on import;
a merge a person undid is imported undone, so the next analyze does not make it again
from the text that suggested it. Merges analyze made by itself are left out: analyze
makes them again from the same evidence.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NamedTuple

from memcli.api import require_graph
from memcli.errors import InputError
from memcli.models import EntityType
from memcli.sources import SourceText
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


class ExportLine(NamedTuple):
    """One line of an export: its text, the facts it carries, and whether it is an
    episode (else a merge decision)."""

    text: str
    facts: int
    episode: bool = True


def export_graph(store: Store, graph: str) -> Iterator[ExportLine]:
    """Every episode of ``graph``, oldest id first, then the merge decisions a person
    made or undid (see the module docstring)."""
    require_graph(store, graph)
    for row in store.export_episodes(graph):
        obj = episode_object(row)
        yield ExportLine(jsonl_line(obj), len(obj.get("facts", [])))
    for obj in decision_objects(store, graph):
        yield ExportLine(jsonl_line(obj), 0, episode=False)


def decision_objects(store: Store, graph: str) -> list[dict[str, Any]]:
    """The merges of ``graph`` a person made (still standing) or undid, oldest first."""
    from memcli.corrections import PERSON

    out = []
    for m in store.merges(graph, include_undone=True):
        undone = m["undone_at"] is not None
        if (m["undone_by"] if undone else m["decided_by"]) != PERSON:
            continue
        out.append(
            {
                "merge": {
                    "alias": m["alias"],
                    "alias_type": m["type"],
                    "canonical": m["canonical"],
                    "canonical_type": m["type"],  # a merge never crosses types
                    "decided_by": m["decided_by"],
                    "reason": m["reason"],
                    "undone": undone,
                    "undo_reason": m["undo_reason"],
                },
                "graph": graph,
            }
        )
    return out


@dataclass(frozen=True)
class MergeDecision:
    """A merge decision read from an export line (``where`` is FILE:LINE)."""

    where: str
    graph: str | None
    alias: str
    alias_type: str
    canonical: str
    canonical_type: str
    decided_by: str
    reason: str
    undone: bool
    undo_reason: str | None


_TYPES = {t.value for t in EntityType}


def _decision(obj: dict[str, Any], where: str) -> MergeDecision:
    raw = obj["merge"]
    if not isinstance(raw, dict):
        raise InputError(where, "'merge' must be an object (alias, canonical, ...)")
    texts: dict[str, str] = {}
    for key in ("alias", "canonical"):
        name = raw.get(key)
        if not isinstance(name, str) or not name.strip():
            raise InputError(where, f"a merge decision needs a non-empty {key!r} string")
        texts[key] = name.strip()
        kind = raw.get(f"{key}_type")
        if kind not in _TYPES:
            allowed = ", ".join(sorted(_TYPES))
            raise InputError(where, f"merge {key}_type must be one of {allowed}, not {kind!r}")
        texts[f"{key}_type"] = kind
    if texts["alias_type"] != texts["canonical_type"]:
        raise InputError(where, "a merge joins two entities of the same type")
    graph = obj.get("graph")
    if graph is not None and not (isinstance(graph, str) and graph.strip()):
        raise InputError(where, "'graph' must be a non-empty string")
    undone = raw.get("undone", False)
    if not isinstance(undone, bool):
        raise InputError(where, "merge 'undone' must be true or false")
    reason, undo_reason = raw.get("reason"), raw.get("undo_reason")
    return MergeDecision(
        where=where,
        graph=graph.strip() if isinstance(graph, str) else None,
        alias=texts["alias"],
        alias_type=texts["alias_type"],
        canonical=texts["canonical"],
        canonical_type=texts["canonical_type"],
        decided_by=str(raw.get("decided_by") or "person"),
        reason=reason if isinstance(reason, str) and reason.strip() else "",
        undone=undone,
        undo_reason=undo_reason if isinstance(undo_reason, str) else None,
    )


def take_decisions(
    items: Iterable[SourceText | InputError],
) -> tuple[list[SourceText | InputError], list[MergeDecision]]:
    """Split the merge decisions out of JSON Lines inputs. Each decision line is blanked
    (not removed) so the episodes keep their line numbers in error messages; a bad
    decision line becomes an error for its FILE:LINE, and the rest is read as usual."""
    out: list[SourceText | InputError] = []
    decisions: list[MergeDecision] = []
    for item in items:
        if not isinstance(item, SourceText) or '"merge"' not in item.text:
            out.append(item)
            continue
        lines = item.text.split("\n")
        errors: list[InputError] = []
        for number, line in enumerate(lines, start=1):
            if '"merge"' not in line:
                continue
            try:
                obj = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                continue  # the episode reader reports it
            if not isinstance(obj, dict) or "merge" not in obj or "content" in obj:
                continue
            lines[number - 1] = ""
            try:
                decisions.append(_decision(obj, f"{item.source}:{number}"))
            except InputError as exc:
                errors.append(exc)
        out.append(dataclasses.replace(item, text="\n".join(lines)))
        out.extend(errors)
    return out, decisions


def import_format(text: str) -> str:
    """'json' for a JSON array document, else 'jsonl' (an export is one object a line)."""
    return "json" if text.lstrip().startswith("[") else "jsonl"


def restore_decisions(
    store: Store,
    decisions: Iterable[MergeDecision],
    *,
    graph: str | None = None,
    redact: bool = True,
) -> tuple[int, list[tuple[str, str]], dict[str, dict[str, int]]]:
    """Record the imported merge decisions after the episodes they name are stored.
    Returns (decisions recorded, errors as (FILE:LINE, reason), secrets redacted per
    FILE:LINE). A decision that cannot be recorded is reported and the others still are;
    one already recorded is skipped, so importing twice changes nothing."""
    from memcli import corrections
    from memcli.config import DEFAULT_GRAPH
    from memcli.errors import MemcliError
    from memcli.redact import redact as scrub

    recorded = 0
    errors: list[tuple[str, str]] = []
    redactions: dict[str, dict[str, int]] = {}

    def clean(text: str, where: str) -> str:
        if not redact or not text:
            return text
        text, found = scrub(text)
        for kind, n in found.items():
            counts = redactions.setdefault(where, {})
            counts[kind] = counts.get(kind, 0) + n
        return text

    for d in decisions:
        into = (graph or d.graph or DEFAULT_GRAPH).strip() or DEFAULT_GRAPH
        try:
            recorded += corrections.restore(
                store,
                into,
                clean(d.alias, d.where),
                clean(d.canonical, d.where),
                d.alias_type,
                decided_by=d.decided_by,
                reason=clean(d.reason, d.where),
                undone=d.undone,
                undo_reason=clean(d.undo_reason or "", d.where) or None,
            )
        except MemcliError as exc:
            hint = f" ({exc.hint})" if exc.hint else ""
            errors.append((d.where, f"merge decision not recorded: {exc.message}{hint}"))
    return recorded, errors, redactions
