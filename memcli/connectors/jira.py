"""Jira issues, as the REST search returns them. Pure.

Accepted: a search result ``{"issues": [...]}`` (``/rest/api/2/search``, or Cloud's
``/rest/api/3/search/jql``), a plain list of issues, or one issue (``/rest/api/N/issue/KEY``).
Each issue is ``{"key", "fields": {...}}``; descriptions and comment bodies may be plain
strings (API v2) or Atlassian Document Format (v3), whose text nodes are joined.

Links whose type name is a dependency type (``DEPENDENCY_LINKS`` by default, or the
user's list) become ``blocked_by`` facts; the direction is read from the phrase the link
shows on this issue ("is blocked by", "depends on", "blocks", "is required by", ...).
Every other link type (Relates, Duplicate, Cloners, ...) is ignored.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from memcli.connectors import (
    Batch,
    RecordError,
    fact,
    items_of,
    link_lines_and_facts,
    need,
    opt,
    opt_str,
    person,
    time_of,
    work_item,
)
from memcli.errors import InputError
from memcli.models import EpisodeInput, ExtractedFact, Relation

DEPENDENCY_LINKS: tuple[str, ...] = ("Blocks", "Dependency", "Depends", "Required")
# Resolutions that mean the work was done; any other resolution (Won't Do, Won't Fix,
# Duplicate, Cancelled, Cannot Reproduce, ...) cancels the item, recorded as completed too.
DONE_RESOLUTIONS = frozenset({"done", "fixed", "complete", "completed", "resolved"})

# The phrase a link shows on the issue that holds it: does that issue wait, or block?
_WAITS = re.compile(
    r"\b(?:is blocked by|blocked by|depends on|is dependent on|dependent on|requires|"
    r"needs|is waiting (?:on|for)|waits (?:on|for))\b",
    re.IGNORECASE,
)
_BLOCKS = re.compile(
    r"\b(?:blocks|is blocking|is prerequisite (?:of|for)|prerequisite (?:of|for)|"
    r"is required by|required by|is depended on by|is needed by)\b",
    re.IGNORECASE,
)
_KEY = re.compile(r"^[A-Z][A-Z0-9_]*-\d+$", re.IGNORECASE)


@dataclass
class _Issue:
    label: str
    key: str
    summary: str
    reporter: str | None
    created: str
    assignee: str | None
    resolved: tuple[str, str, str] | None  # (time, how, by whom)
    description: str | None
    comments: list[tuple[str | None, str, str]]  # (author, time, text)
    links: list[tuple[str, str]] = field(default_factory=list)  # (blocked, blocker)


def adf_text(node: Any) -> str:
    """Plain text of an Atlassian Document Format node (or a v2 string as it is).

    Text nodes are joined; a mention or emoji gives its text, a link card its URL; block
    nodes (paragraphs, list items, headings) end a line, so sentences stay apart.

    >>> adf_text({"type": "doc", "version": 1, "content": [{"type": "paragraph", "content": [
    ...     {"type": "text", "text": "Waiting on OPS-7, ask "},
    ...     {"type": "mention", "attrs": {"id": "5b10", "text": "@Li Wei"}}]}]})
    'Waiting on OPS-7, ask @Li Wei\\n'
    """
    if node is None:
        return ""
    if isinstance(node, str):
        return node
    if isinstance(node, list):
        return "".join(adf_text(n) for n in node)
    if not isinstance(node, dict):
        return ""
    kind = node.get("type")
    if kind == "text":
        return str(node.get("text") or "")
    if kind == "hardBreak":
        return "\n"
    if kind in ("mention", "emoji", "status", "date"):
        return str(opt(node, "attrs", "text") or "")
    if kind in ("inlineCard", "blockCard", "embedCard"):
        return str(opt(node, "attrs", "url") or "")
    inner = adf_text(node.get("content") or [])
    if kind in ("paragraph", "heading", "listItem", "blockquote", "codeBlock", "tableRow", "panel"):
        return inner.rstrip() + "\n"
    return inner


def _name(user: Any) -> str | None:
    if not isinstance(user, dict):
        return None
    return opt_str(user, "displayName") or opt_str(user, "name") or opt_str(user, "accountId")


def _link(link: Any, key: str, where: str, kinds: set[str]) -> tuple[str, str] | None:
    """(blocked, blocker) for a dependency link on issue ``key``; None for other types."""
    if not isinstance(link, dict):
        raise RecordError(f"{where}: expected an object")
    kind = link.get("type")
    if not isinstance(kind, dict):
        raise RecordError(f"{where}: missing key 'type'")
    if str(kind.get("name") or "").strip().lower() not in kinds:
        return None
    for side, phrase_key, default_waits in (
        ("inwardIssue", "inward", True),
        ("outwardIssue", "outward", False),
    ):
        other = link.get(side)
        if other is None:
            continue
        try:
            other_key = need(other, "key")
        except RecordError as exc:
            raise RecordError(f"{where}: {side}: {exc}") from None
        phrase = str(kind.get(phrase_key) or "")
        # Read the phrase: "X is blocked by Y" / "X depends on Y" wait; "X blocks Y" and
        # "X is required by Y" block. A phrase that says neither follows Jira's own
        # Blocks type: the inward side waits, the outward side blocks.
        waits = (
            True if _WAITS.search(phrase) else False if _BLOCKS.search(phrase) else default_waits
        )
        return (key, other_key.strip()) if waits else (other_key.strip(), key)
    raise RecordError(f"{where}: neither 'inwardIssue' nor 'outwardIssue'")


def _resolution(
    fields: dict[str, Any], assignee: str | None, reporter: str | None
) -> tuple[str, str, str] | None:
    resolution = opt_str(fields, "resolution", "name")
    done_status = opt_str(fields, "status", "statusCategory", "key") == "done"
    if resolution is None and not done_status:
        return None
    when = fields.get("resolutiondate")
    if when is None:
        if resolution is None:
            return None  # a done status without a date: nothing to time it by
        raise RecordError(f"resolution {resolution!r} but 'resolutiondate' is missing")
    if resolution is None:
        how = f"is {opt_str(fields, 'status', 'name') or 'done'}"
    elif resolution.lower() in DONE_RESOLUTIONS:
        how = f"resolved as {resolution}"
    else:
        how = f"resolved as {resolution} (cancelled)"
    return time_of(when, "resolutiondate"), how, assignee or reporter or "Jira"


def _issue(raw: Any, label: str, kinds: set[str]) -> _Issue:
    key = need(raw, "key").strip()
    if not _KEY.match(key):
        raise RecordError(f"key {key!r} is not an issue key like PROJ-12")
    fields = need(raw, "fields", dict)
    try:
        created = time_of(need(fields, "created"), "created")
    except RecordError as exc:
        raise RecordError(f"fields: {exc}") from None
    reporter = _name(fields.get("reporter")) or _name(fields.get("creator"))
    assignee = _name(fields.get("assignee"))
    comments: list[tuple[str | None, str, str]] = []
    for i, c in enumerate(items_of(opt(fields, "comment", "comments"), "comment.comments")):
        where = f"comment.comments[{i}]"
        if not isinstance(c, dict):
            raise RecordError(f"{where}: expected an object")
        text = adf_text(c.get("body")).strip()
        if not text:
            continue
        try:
            when = time_of(need(c, "created"), "created")
        except RecordError as exc:
            raise RecordError(f"{where}: {exc}") from None
        comments.append((_name(c.get("author")), when, text))
    links = []
    for i, link in enumerate(items_of(fields.get("issuelinks"), "issuelinks")):
        pair = _link(link, key, f"issuelinks[{i}]", kinds)
        if pair is not None:
            links.append(pair)
    description = adf_text(fields.get("description")).strip()
    issue = _Issue(
        label=label,
        key=key,
        summary=(opt_str(fields, "summary") or ""),
        reporter=reporter,
        created=created,
        assignee=assignee,
        resolved=_resolution(fields, assignee, reporter),
        description=description or None,
        comments=comments,
    )
    issue.links = links
    return issue


def _episodes(issue: _Issue, source: str, resolved_at: dict[str, str]) -> list[EpisodeInput]:
    item = work_item(issue.key)
    facts: list[ExtractedFact] = []
    lines = [f"{issue.key}: {issue.summary}" if issue.summary else issue.key]
    if issue.assignee:
        lines.append(f"Assignee: {issue.assignee}")
        facts.append(
            fact(
                person(issue.assignee),
                Relation.OWNS,
                item,
                f"{issue.key} is assigned to {issue.assignee}",
            )
        )
    link_lines, link_facts = link_lines_and_facts(
        issue.key, issue.links, issue.created, resolved_at
    )
    lines.extend(link_lines)
    facts.extend(link_facts)
    episodes = [
        EpisodeInput(
            content="\n".join(lines),
            author=issue.reporter,
            occurred_at=issue.created,
            graph=None,
            source=source,
            format="jira",
            facts=facts,
            aliases=((item, issue.summary),) if issue.summary else (),
        )
    ]
    if issue.description:
        episodes.append(_text(issue.description, issue.reporter, issue.created, issue.key, source))
    episodes.extend(_text(t, a, w, issue.key, source) for a, w, t in issue.comments)
    if issue.resolved is not None:
        when, how, by = issue.resolved
        episodes.append(
            EpisodeInput(
                content=f"{issue.key} {how}",
                author=by,
                occurred_at=when,
                graph=None,
                source=source,
                format="jira",
                facts=[fact(person(by), Relation.COMPLETED, item, f"{issue.key} {how}")],
            )
        )
    return episodes


def _text(text: str, author: str | None, when: str, key: str, source: str) -> EpisodeInput:
    """A description or comment, for the reader: "Waiting on OPS-7" is this issue's wait."""
    return EpisodeInput(
        content=text,
        author=author,
        occurred_at=when,
        graph=None,
        source=source,
        format="jira",
        subject=work_item(key),
    )


def convert(data: Any, source: str, *, dependency_links: Iterable[str] = DEPENDENCY_LINKS) -> Batch:
    """The episodes of one Jira export file (see the module docstring for the shapes)."""
    kinds = {k.strip().lower() for k in dependency_links if k.strip()}
    if isinstance(data, dict) and "issues" in data:
        records = data["issues"]
        if not isinstance(records, list):
            raise InputError(source, "'issues' must be a list")
        labels = [f"issues[{i}]" for i in range(len(records))]
    elif isinstance(data, list):
        records, labels = data, [f"[{i}]" for i in range(len(data))]
    elif isinstance(data, dict) and "fields" in data:
        records, labels = [data], ["issue"]
    else:
        raise InputError(source, 'expected a Jira search result ({"issues": [...]}) or issues')
    batch = Batch(source)
    parsed: list[_Issue] = []
    for raw, label in zip(records, labels, strict=True):
        try:
            parsed.append(_issue(raw, label, kinds))
        except RecordError as exc:
            batch.errors.append(InputError(f"{source}: {label}", str(exc)))
    # Each link appears on both of its issues: state it once, on the waiting issue when
    # the file holds it, else on the blocker.
    by_key = {issue.key: issue for issue in parsed}
    pairs = sorted({pair for issue in parsed for pair in issue.links})
    for issue in parsed:
        issue.links = []
    for blocked, blocker in pairs:
        holder = by_key.get(blocked) or by_key.get(blocker)
        if holder is not None:
            holder.links.append((blocked, blocker))
    resolved_at = {i.key: i.resolved[0] for i in parsed if i.resolved is not None}
    for issue in parsed:
        batch.records.append((issue.label, _episodes(issue, source, resolved_at)))
    return batch
