"""GitHub issues and pull requests, as ``gh`` and the REST API write them. Pure.

Accepted shapes (a file holds a list of them, or one):

* ``gh issue list --json ...`` / ``gh pr list --json ...`` / ``gh issue view --json``:
  camelCase keys (``author.login``, ``createdAt``, ``stateReason``, ``url``, ``comments``
  as a list, and on newer ``gh`` ``blockedBy`` / ``blocking``).
* REST issue objects (``GET /repos/{owner}/{repo}/issues``): snake_case keys
  (``user.login``, ``created_at``, ``state_reason``, ``html_url``, ``closed_by``, a
  ``pull_request`` key on pull requests; ``comments`` is only a count there).
* REST dependency listings (``.../issues/{N}/dependencies/blocked_by`` or ``/blocking``)
  saved as ``N.blocked_by.json`` / ``N.blocking.json``: every listed issue is read as an
  issue, and linked to issue N of ``--repo`` (else of the listed issue's repository).

Each issue becomes a work item named ``owner/repo#N``; see the package docstring for the
episodes it yields.
"""

from __future__ import annotations

import re
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

# The login GitHub shows for a deleted account; used when nobody else can be credited.
GHOST = "ghost"

_URL = re.compile(r"^https?://[^/]+/([\w.-]+)/([\w.-]+)/(?:issues|pull|pulls)/(\d+)(?:[/?#].*)?$")
_API_REPO = re.compile(r"/repos/([\w.-]+)/([\w.-]+)/?$")
_REPO = re.compile(r"^[\w.-]+/[\w.-]+$")
_LISTING = re.compile(r"(?:^|[/\\])(\d+)[._-](blocked_by|blocking)\.json$", re.IGNORECASE)


@dataclass
class _Issue:
    label: str
    key: str
    repo: str
    title: str
    author: str | None
    created: str
    assignees: list[str]
    closed: tuple[str, str, str] | None  # (time, how, by whom)
    body: str | None
    comments: list[tuple[str | None, str, str]]  # (author, time, text)
    links: list[tuple[str, str]] = field(default_factory=list)  # (blocked, blocker)


def check_repo(repo: str) -> str:
    """``owner/repo`` as given to ``--repo``; ValueError with the expected form otherwise."""
    repo = repo.strip().strip("/")
    if not _REPO.fullmatch(repo):
        raise ValueError(f"{repo!r} is not OWNER/REPO")
    return repo


def _ref(value: Any, repo: str | None, key: str) -> tuple[str, int]:
    """(repository, number) of an issue object, a URL or a bare number."""
    if isinstance(value, int) and not isinstance(value, bool):
        if repo is None:
            raise RecordError(f"{key}: issue {value} has no repository (pass --repo OWNER/REPO)")
        return repo, value
    if isinstance(value, str):
        m = _URL.match(value.strip())
        if m:
            return f"{m[1]}/{m[2]}", int(m[3])
        raise RecordError(f"{key}: {value!r} is not an issue URL")
    number = need(value, "number", int)
    for url_key in ("url", "html_url"):
        url = opt_str(value, url_key)
        if url and (m := _URL.match(url)):
            return f"{m[1]}/{m[2]}", number
    api = opt_str(value, "repository_url")
    if api and (m := _API_REPO.search(api)):
        return f"{m[1]}/{m[2]}", number
    owner = opt_str(value, "repository", "nameWithOwner")
    if owner:
        return owner, number
    if repo is None:
        raise RecordError(f"{key}: no repository in 'url' or 'html_url' (pass --repo OWNER/REPO)")
    return repo, number


def _login(value: Any) -> str | None:
    return opt_str(value, "login") if isinstance(value, dict) else None


def _closing(
    issue: dict[str, Any], assignees: list[str], author: str | None
) -> tuple[str, str, str] | None:
    """(time, how, by whom) when the issue or pull request is closed, else None.

    Closed as completed (or with no reason, which is what GitHub defaults to) or merged
    completes the item; closed as not planned, as a duplicate, or a pull request closed
    unmerged cancels it, which memcli also records as ``completed``: nobody waits on it
    any more. Credited to whoever closed or merged it when the export says, else the
    first assignee, else the author.
    """
    state = (opt_str(issue, "state") or "").lower()
    merged_at = (
        issue.get("mergedAt") or issue.get("merged_at") or opt(issue, "pull_request", "merged_at")
    )
    if state not in ("closed", "merged") and not merged_at:
        return None
    is_pr = (
        "pull_request" in issue
        or "mergedAt" in issue
        or "headRefName" in issue
        or any("/pull/" in str(issue.get(k) or "") for k in ("url", "html_url"))
    )
    reason = (opt_str(issue, "stateReason") or opt_str(issue, "state_reason") or "").lower()
    if merged_at:
        how, when, when_key = "merged", merged_at, "mergedAt"
    else:
        when = issue.get("closedAt") or issue.get("closed_at")
        when_key = "closedAt" if "closedAt" in issue else "closed_at"
        if is_pr:
            how = "closed without merging (cancelled)"
        elif reason in ("not_planned", "duplicate"):
            how = f"closed as {reason.replace('_', ' ')} (cancelled)"
        else:
            how = "closed as completed"
    if when is None:
        raise RecordError(f"state is {state or 'merged'} but {when_key!r} is missing")
    by = (
        _login(issue.get("mergedBy"))
        or _login(issue.get("merged_by"))
        or _login(issue.get("closed_by"))
        or (assignees[0] if assignees else None)
        or author
        or GHOST
    )
    return time_of(when, when_key), how, by


def _issue(raw: Any, label: str, repo: str | None) -> tuple[_Issue, list[tuple[str, str]]]:
    """One issue, and the dependency links it lists ((blocked, blocker) keys)."""
    if not isinstance(raw, dict):
        raise RecordError(f"expected an issue object, not {type(raw).__name__}")
    need(raw, "number", int)
    issue_repo, number = _ref(raw, repo, "issue")
    key = f"{issue_repo}#{number}"
    created_key = "createdAt" if "createdAt" in raw else "created_at"
    created = time_of(need(raw, created_key), created_key)
    author = _login(raw.get("author")) or _login(raw.get("user"))
    assignees: list[str] = []
    for a in items_of(raw.get("assignees"), "assignees") or (
        [raw["assignee"]] if isinstance(raw.get("assignee"), dict) else []
    ):
        login = _login(a)
        if login and login not in assignees:
            assignees.append(login)
    comments: list[tuple[str | None, str, str]] = []
    raw_comments = raw.get("comments")
    if isinstance(raw_comments, list | dict):  # REST gives a count here: nothing to read
        for i, c in enumerate(items_of(raw_comments, "comments")):
            where = f"comments[{i}]"
            if not isinstance(c, dict):
                raise RecordError(f"{where}: expected an object")
            text = c.get("body")
            if not isinstance(text, str) or not text.strip():
                continue
            c_key = "createdAt" if "createdAt" in c else "created_at"
            try:
                when = time_of(need(c, c_key), c_key)
            except RecordError as exc:
                raise RecordError(f"{where}: {exc}") from None
            comments.append((_login(c.get("author")) or _login(c.get("user")), when, text))
    body = raw.get("body")
    links: list[tuple[str, str]] = []
    for list_key, waits in (("blockedBy", True), ("blocked_by", True), ("blocking", False)):
        for i, other in enumerate(items_of(raw.get(list_key), list_key)):
            o_repo, o_number = _ref(other, issue_repo, f"{list_key}[{i}]")
            other_key = f"{o_repo}#{o_number}"
            links.append((key, other_key) if waits else (other_key, key))
    return (
        _Issue(
            label=label,
            key=key,
            repo=issue_repo,
            title=(opt_str(raw, "title") or "").strip(),
            author=author,
            created=created,
            assignees=assignees,
            closed=_closing(raw, assignees, author),
            body=body if isinstance(body, str) and body.strip() else None,
            comments=comments,
        ),
        links,
    )


def _episodes(issue: _Issue, source: str, closed_at: dict[str, str]) -> list[EpisodeInput]:
    item = work_item(issue.key)
    facts: list[ExtractedFact] = []
    lines = [f"{issue.key}: {issue.title}" if issue.title else issue.key]
    if issue.assignees:
        lines.append("Assigned to: " + ", ".join(issue.assignees))
        facts.extend(
            fact(person(a), Relation.OWNS, item, f"{issue.key} is assigned to {a}")
            for a in issue.assignees
        )
    link_lines, link_facts = link_lines_and_facts(issue.key, issue.links, issue.created, closed_at)
    lines.extend(link_lines)
    facts.extend(link_facts)
    episodes = [
        EpisodeInput(
            content="\n".join(lines),
            author=issue.author,
            occurred_at=issue.created,
            graph=None,
            source=source,
            format="github",
            facts=facts,
            aliases=((item, issue.title),) if issue.title else (),
        )
    ]
    if issue.body:
        episodes.append(_text(issue.body, issue.author, issue.created, issue, source))
    episodes.extend(_text(t, a, w, issue, source) for a, w, t in issue.comments)
    if issue.closed is not None:
        when, how, by = issue.closed
        episodes.append(
            EpisodeInput(
                content=f"{issue.key} {how}",
                author=by,
                occurred_at=when,
                graph=None,
                source=source,
                format="github",
                facts=[fact(person(by), Relation.COMPLETED, item, f"{issue.key} {how}")],
            )
        )
    return episodes


def _text(text: str, author: str | None, when: str, issue: _Issue, source: str) -> EpisodeInput:
    """An issue body or comment, for the reader: "#12" in it is this repository's #12,
    and "Blocked by #12" is this issue's wait."""
    return EpisodeInput(
        content=text,
        author=author,
        occurred_at=when,
        graph=None,
        source=source,
        format="github",
        ticket_prefix=issue.repo,
        subject=work_item(issue.key),
    )


def convert(data: Any, source: str, *, repo: str | None = None) -> Batch:
    """The episodes of one GitHub export file (see the module docstring for the shapes)."""
    listing = _LISTING.search(source)
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        data = data["items"]  # the search API's envelope
    if isinstance(data, list) and data and all(isinstance(page, list) for page in data):
        data = [issue for page in data for issue in page]  # gh api --paginate --slurp
    records = data if isinstance(data, list) else [data]
    if not isinstance(data, list | dict):
        raise InputError(source, f"expected a JSON array of issues, not {type(data).__name__}")
    batch = Batch(source)
    parsed: list[_Issue] = []
    links: list[tuple[str, str]] = []
    for i, raw in enumerate(records):
        label = f"issues[{i}]" if isinstance(data, list) else "issue"
        try:
            issue, listed = _issue(raw, label, repo)
        except RecordError as exc:
            batch.errors.append(InputError(f"{source}: {label}", str(exc)))
            continue
        parsed.append(issue)
        links.extend(listed)
        if listing:
            owner = repo or issue.repo
            target = f"{owner}#{listing[1]}"
            if listing[2].lower() == "blocked_by":
                links.append((target, issue.key))
            else:
                links.append((issue.key, target))
    # A link listed by both its issues is stated once, by the issue that waits when the
    # file holds it, else by the blocker.
    by_key = {issue.key: issue for issue in parsed}
    for blocked, blocker in sorted(set(links)):
        holder = by_key.get(blocked) or by_key.get(blocker)
        if holder is not None:
            holder.links.append((blocked, blocker))
    closed_at = {i.key: i.closed[0] for i in parsed if i.closed is not None}
    for issue in parsed:
        batch.records.append((issue.label, _episodes(issue, source, closed_at)))
    return batch
