"""The digest behind ``memcli report``: what a team should act on, what changed, what
ended and why. Pure: observations (the JSON contract) in, a report dict and Markdown out.

Ranked by leverage: an observation's ``rank`` is how many people and work items
unblocking its root would clear, so the first item is the unblock that helps most. "New",
"updated" and "retired" are measured in memcli time (when memcli learned it) against
``since``: the previous report, or a date the reader chose. Evidence is cited by episode
id, author, world date and source, so every line can be checked.
"""

from __future__ import annotations

import re
from typing import Any

from memcli.models import ObservationKind, ObservationStatus
from memcli.writer import join

DEPENDENCY = ObservationKind.DEPENDENCY_CHAIN
# The Markdown report stays readable at any size: the first FULL blockers are shown in
# full, each of their lists (waiting, downstream, evidence) cut to LISTED entries and
# "N more"; the rest are one line each. The JSON form keeps everything.
FULL = 10
LISTED = 5


def _date(value: str | None) -> str:
    return value[:10] if value else "-"


def _evidence(obs: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "episode_id": e["id"],
            "author": e["author"],
            "date": e["occurred_at"],
            "source": e["source"],
        }
        for e in obs["episodes"]
    ]


Seen = dict[int, tuple[int, str]]  # observation id -> (version, status) at the last report


def _change(obs: dict[str, Any], since: str | None, seen: Seen | None = None) -> str | None:
    """'new', 'updated' or None: against what the last report saw, else by timestamp."""
    if seen is not None:
        if obs["id"] not in seen:
            return "new"
        return "updated" if obs["version"] > seen[obs["id"]][0] else None
    if since is None or obs["created_at"] >= since:
        return "new"
    if obs["updated_at"] >= since and obs["version"] > 1:
        return "updated"
    return None


def action(obs: dict[str, Any], since: str | None, seen: Seen | None = None) -> dict[str, Any]:
    """One dependency observation as something to act on: the root to unblock, who owns
    it, and everything waiting on it (directly, or downstream through other work)."""
    facts = obs["facts"]
    owners_of: dict[str, list[str]] = {}
    waits_on: dict[str, list[str]] = {}
    for f in facts:
        if f["relation"] == "owns":
            owners_of.setdefault(f["target"], [])
            if f["source"] not in owners_of[f["target"]]:
                owners_of[f["target"]].append(f["source"])
        elif f["relation"] == "blocked_by":
            waits_on.setdefault(f["source"], [])
            if f["target"] not in waits_on[f["source"]]:
                waits_on[f["source"]].append(f["target"])
    roots = obs["root_entities"]
    blocked: dict[str, list[dict[str, Any]]] = {"direct": [], "downstream": []}
    people: list[str] = []
    teams: list[str] = []
    work_items: list[str] = []
    for e in obs["entities"]:
        if e["role"] not in blocked:
            continue
        if e["type"] == "work_item":
            work_items.append(e["name"])
        elif e["type"] == "team":
            teams.append(e["name"])
        else:
            people.append(e["name"])
        if e["type"] == "work_item" or e["name"] in waits_on:
            blocked[e["role"]].append(
                {
                    "item": e["name"],
                    "type": e["type"],
                    "owners": sorted(owners_of.get(e["name"], []), key=str.lower),
                    "via": sorted(waits_on.get(e["name"], []), key=str.lower),
                }
            )
    return {
        "observation_id": obs["id"],
        "name": obs["name"],
        "root": roots[0] if roots else obs["name"],
        "root_owners": [e["name"] for e in obs["entities"] if e["role"] == "owner"],
        "root_owner_types": [e["type"] for e in obs["entities"] if e["role"] == "owner"],
        "leverage": obs["rank"],
        "people": sorted(people, key=str.lower),
        "teams": sorted(teams, key=str.lower),
        "work_items": sorted(work_items, key=str.lower),
        "direct": blocked["direct"],
        "downstream": blocked["downstream"],
        "summary": obs["summary"],
        "change": _change(obs, since, seen),
        "version": obs["version"],
        "start_at": obs["start_at"],
        "latest_evidence_at": obs["latest_evidence_at"],
        "evidence": _evidence(obs),
        "fact_ids": [f["id"] for f in facts],
    }


def _ref(obs: dict[str, Any]) -> dict[str, Any]:
    return {
        "observation_id": obs["id"],
        "name": obs["name"],
        "kind": obs["kind"],
        "status": obs["status"],
        "version": obs["version"],
        "created_at": obs["created_at"],
        "updated_at": obs["updated_at"],
        "summary": obs["summary"],
        "evidence": _evidence(obs),
    }


def build(
    graph: str,
    observations: list[dict[str, Any]],
    *,
    since: str | None,
    seen: Seen | None = None,
    since_source: str,
    generated_at: str,
    episodes: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """The report as data. ``observations``: every observation of the graph (any
    status); ``seen``: what the last report saw (None: compare timestamps with ``since``);
    ``episodes``: id -> {id, author, occurred_at, source} for the episodes that retired an
    observation; ``since_source``: "option", "last report" or "first report"."""
    active = [o for o in observations if o["status"] == ObservationStatus.ACTIVE]
    # Most leverage first; among equals, the freshest evidence, then the oldest id.
    act_on = sorted((o for o in active if o["kind"] == DEPENDENCY), key=lambda o: o["id"])
    act_on.sort(key=lambda o: o["latest_evidence_at"] or "", reverse=True)
    act_on.sort(key=lambda o: -o["rank"])

    def newly_retired(o: dict[str, Any]) -> bool:
        if o["status"] != ObservationStatus.RETIRED:
            return False
        if seen is not None:
            return seen.get(o["id"], (0, ObservationStatus.ACTIVE))[1] != ObservationStatus.RETIRED
        return since is None or o["updated_at"] >= since

    retired = sorted(
        (o for o in observations if newly_retired(o)),
        key=lambda o: (o["updated_at"], o["id"]),
        reverse=True,
    )
    retired_items = []
    for o in retired:
        by = episodes.get(o["retired_by_episode"]) if o["retired_by_episode"] else None
        retired_items.append(
            {
                **_ref(o),
                "reason": o["retire_reason"],
                "retired_at": o["updated_at"],
                "ended_at": o["end_at"],
                "by_episode": (
                    {
                        "episode_id": by["id"],
                        "author": by["author"],
                        "date": by["occurred_at"],
                        "source": by["source"],
                    }
                    if by
                    else None
                ),
                "superseded_by": o["superseded_by"],
            }
        )
    return {
        "graph": graph,
        "generated_at": generated_at,
        "since": since,
        "since_source": since_source,
        "act_on": [action(o, since, seen) for o in act_on],
        "new": [_ref(o) for o in active if _change(o, since, seen) == "new"],
        "updated": [_ref(o) for o in active if _change(o, since, seen) == "updated"],
        "retired": retired_items,
        "context": [_ref(o) for o in active if o["kind"] != DEPENDENCY],
    }


def _counted(n: int, singular: str, plural: str) -> str:
    return f"{n} {singular if n == 1 else plural}"


def _cut(entries: list[str], sep: str = "; ") -> str:
    """At most LISTED entries, then "and N more"."""
    if len(entries) <= LISTED:
        return sep.join(entries)
    return f"{sep.join(entries[:LISTED])}{sep}and {len(entries) - LISTED} more"


def _who(entry: dict[str, Any]) -> str:
    owners = entry["owners"]
    return f"{entry['item']} ({join(owners, limit=3)})" if owners else entry["item"]


def _cite(ev: dict[str, Any]) -> str:
    source = re.sub(r"[`\s]+", " ", ev["source"]).strip()  # a code span: no backtick ends it
    return f"#{ev['episode_id']} {ev['author'] or 'unknown'} {_date(ev['date'])} `{source}`"


# Characters that would make a name act as Markdown or HTML rather than read as text.
_MD_SPECIAL = re.compile(r"[\\`*\[\]|]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
_HTML = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}


def _md(text: str) -> str:
    """Text from updates (names, summaries, reasons) made inert in Markdown: HTML is
    escaped (``<img onerror=...>`` shows as text), emphasis, code, link and table
    characters are backslash-escaped, and a line break cannot start a new block."""
    text = re.sub(r"[\r\n\u2028\u2029\x85]+", " ", text)
    text = re.sub(r"[&<>]", lambda m: _HTML[m.group()], text)
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(), text)


def _inert(value: Any, key: str = "") -> Any:
    """The report with every string but sources (shown in code spans) passed to _md."""
    if isinstance(value, str):
        return value if key == "source" else _md(value)
    if isinstance(value, dict):
        return {k: _inert(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_inert(v, key) for v in value]
    return value


def _stamp(value: str) -> str:
    return value.replace("T", " ").replace("Z", " UTC")


def _since_text(report: dict[str, Any]) -> str:
    """' since the last report (...)', ' since <date>', or '' for a first report."""
    if report["since"] is None:
        return ""
    if report["since_source"] == "last report":
        return f" since the last report ({_stamp(report['since'])})"
    return f" since {_stamp(report['since'])}"


def render_markdown(report: dict[str, Any]) -> str:
    """Plain Markdown that reads well pasted into chat or email. Names come from
    whoever wrote the updates, so every one is escaped (:func:`_md`) before it is placed."""
    report = _inert(report)
    lines: list[str] = []
    since = _since_text(report)
    generated = _stamp(report["generated_at"])
    lines.append(f"# {report['graph']}: what to act on")
    lines.append("")
    n = len(report["act_on"])
    lines.append(
        f"_Generated {generated}. {n} blocker{'s' if n != 1 else ''} to clear. "
        + (f"Changes{since}._" if since else "First report: everything is new._")
    )
    lines.append("")
    lines.append("## Act on first")
    lines.append("")
    if not report["act_on"]:
        lines.append("Nothing is blocked right now.")
        lines.append("")
    else:
        lines.append(
            "Ranked by leverage: how many people, teams and work items unblocking the root "
            "would clear."
        )
        lines.append("")
    for i, item in enumerate(report["act_on"], start=1):
        named = [
            name if kind == "person" else f"the {name}"
            for name, kind in zip(item["root_owners"], item["root_owner_types"], strict=True)
        ]
        owners = f" (owned by {join(named, limit=3)})" if named else ""
        change = f" · **{item['change']}**" if item["change"] else ""
        show = f"`memcli observation show {item['observation_id']}`"
        if i > FULL:
            lines.append(
                f"{i}. **Unblock the {item['root']}**{owners}{change}: clears "
                f"{item['leverage']}; {show}"
            )
            continue
        lines.append(f"{i}. **Unblock the {item['root']}**{owners}{change}")
        teams = [f"the {t}" for t in item.get("teams", [])]
        parts = [
            f"{_counted(len(names), singular, plural)} ({join(names)})"
            for names, singular, plural in (
                (item["people"], "person", "people"),
                (teams, "team", "teams"),
                (item["work_items"], "work item", "work items"),
            )
            if names
        ]
        lines.append(f"   - Clears {item['leverage']}: {join(parts)}")
        if item["direct"]:
            lines.append(f"   - Waiting on it: {_cut([_who(b) for b in item['direct']])}")
        for b in item["downstream"][:LISTED]:
            via = f", via {join(b['via'], limit=3)}" if b["via"] else ""
            lines.append(f"   - Downstream: {_who(b)}{via}")
        if len(item["downstream"]) > LISTED:
            more = len(item["downstream"]) - LISTED
            lines.append(f"   - Downstream: {more} more ({show} lists all)")
        lines.append(f"   - Evidence: {_cut([_cite(ev) for ev in item['evidence']])}")
        lines.append(
            f"   - Observation #{item['observation_id']} (v{item['version']}, "
            f"{_date(item['start_at'])} .. {_date(item['latest_evidence_at'])}): {show}"
        )
    if len(report["act_on"]) > FULL:
        rest = len(report["act_on"]) - FULL
        lines.append("")
        lines.append(
            f"_The first {FULL} are in full; {_counted(rest, 'more is', 'more are')} one line "
            "each. `memcli observation show ID` shows one in full, `memcli report --format "
            "json` all of them._"
        )
    lines.append("")
    lines.append(f"## New{since}")
    lines.append("")
    lines.extend(
        f"- #{o['observation_id']} {o['name']} (first seen {_date(o['created_at'])})"
        for o in report["new"]
    )
    if not report["new"]:
        lines.append("- None.")
    lines.append("")
    if report["since"] is not None:
        lines.append(f"## Updated{since}")
        lines.append("")
        lines.extend(
            f"- #{o['observation_id']} {o['name']} (now v{o['version']}, "
            f"{_date(o['updated_at'])}): {o['summary']}"
            for o in report["updated"]
        )
        if not report["updated"]:
            lines.append("- None.")
        lines.append("")
    lines.append(f"## Retired{since}")
    lines.append("")
    for o in report["retired"]:
        line = f"- #{o['observation_id']} {o['name']}: {o['reason'] or 'no reason recorded'}"
        by = o["by_episode"]
        if by:
            line += f". Evidence: {_cite(by)}"
        if o["superseded_by"]:
            line += f". Superseded by {', '.join('#' + str(i) for i in o['superseded_by'])}"
        lines.append(line + ".")
    if not report["retired"]:
        lines.append("- None.")
    if report["context"]:
        lines.append("")
        lines.append("## Also noted (shared context, nothing blocked)")
        lines.append("")
        lines.extend(
            f"- #{o['observation_id']} {o['name']}: {o['summary']}" for o in report["context"]
        )
    return "\n".join(lines).rstrip() + "\n"
