"""Find credentials in status updates and replace them before anything is stored. Pure.

People paste things into status updates: a token in a curl line, a connection string, a
``.env`` excerpt. memcli keeps updates forever and may send them to a language model, so
the ingest path replaces every secret it recognises with a marker naming its kind
(``[REDACTED:github_token]``) before the content hash, the extractor or the store see the
text. ``memcli ingest --no-redact`` opts out.

Design choices:

* **Recognisable shapes only.** Each pattern is a documented token format (AWS key ids,
  GitHub/GitLab/Slack/OpenAI tokens, PEM private keys, JWTs), a credential in a context
  that names it (``password=``, ``Authorization: Bearer``, ``aws_secret_access_key =``,
  ``scheme://user:pass@host``), never a guess from entropy. Ordinary prose that mentions
  tokens ("token bucket", "password reset flow", "sk-learn", "the key decision") stays
  byte-identical; ``tests/reliability/test_redact.py`` holds that corpus.
* **Only the secret goes.** For an assignment the name stays (``password=[REDACTED:
  password]``) so the sentence still reads; for a URL only the password part goes.
* **Idempotent.** Redacting redacted text changes nothing: no pattern matches a marker,
  so exported and re-imported updates keep their content hash.
* **Ordered.** Specific formats run before generic assignments, so ``token=ghp_...`` is
  counted once, as a ``github_token``.

Not detected (documented limits): a bare 40-character AWS secret key with no name next
to it, passwords written in prose ("the password is hunter2"), and vendor formats not
listed in ``PATTERNS``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from memcli.models import EntityRef, EpisodeInput, ExtractedFact

MARKER = "[REDACTED:{kind}]"
_NOT_REDACTED = r"""(?!["']?\[REDACTED:)"""  # never re-redact a marker (idempotence)


@dataclass(frozen=True, slots=True)
class Pattern:
    """One secret shape. Only the ``secret`` group is replaced (the whole match if the
    pattern has none); ``kind`` names it in the marker and in the counts."""

    kind: str
    regex: re.Pattern[str]
    kind_of: Callable[[re.Match[str]], str] | None = None  # kind chosen per match


# Values of assignments: a quoted string, or a run of characters that cannot end a
# token in a config line, a URL query or a shell command.
_VALUE = r"""(?:"[^"\n]+"|'[^'\n]+'|[^\s"'`,;&<>)\]}]*[^\s"'`,;&<>)\]}.!?:])"""
_PLACEHOLDER = r"(?!\$\{?[A-Za-z_]|\{\{|<[A-Za-z_]|\*{3,})"  # $VAR, ${VAR}, {{x}}, <x>, ***


def _assignment_kind(m: re.Match[str]) -> str:
    """password=, passwd=, pwd= -> password; *token= -> token; *secret= -> secret;
    api_key= -> api_key."""
    key = m.group("key").lower()
    if key in ("password", "passwd", "pwd"):
        return "password"
    if key.endswith("token"):
        return "token"
    if key.endswith("key"):
        return "api_key"
    return "secret"


PATTERNS: tuple[Pattern, ...] = (
    Pattern(
        "private_key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:(?:(?!-----BEGIN ).)*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"|(?:\s+[A-Za-z0-9+/=]{20,})*)",  # a paste cut short: the base64 lines after it
            re.DOTALL,
        ),
    ),
    Pattern(
        "jwt",
        re.compile(r"(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
    ),
    Pattern(
        "slack_webhook",
        re.compile(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]+"),
    ),
    Pattern(
        "url_password",
        re.compile(
            r"\b[A-Za-z][A-Za-z0-9+.-]{0,30}://[^\s:/@?#\[\]]*:"
            + _NOT_REDACTED
            + r"(?P<secret>[^\s@/]+)@"
        ),
    ),
    Pattern("aws_access_key", re.compile(r"(?<![A-Z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Z0-9])")),
    Pattern(
        "aws_secret_key",
        re.compile(
            r"(?i:aws_?secret_?(?:access_?)?key|secret_?access_?key)[\"']?\s*[:=]\s*[\"']?"
            + _NOT_REDACTED
            + r"(?P<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])"
        ),
    ),
    Pattern(
        "github_token",
        re.compile(
            r"(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})"
            r"(?![A-Za-z0-9_])"
        ),
    ),
    Pattern("gitlab_token", re.compile(r"(?<![A-Za-z0-9_-])glpat-[A-Za-z0-9_-]{20,}")),
    Pattern("slack_token", re.compile(r"(?<![A-Za-z0-9_-])xox[baprs]-[A-Za-z0-9-]{10,}")),
    Pattern(
        "openai_key",
        # sk-..., sk-proj-...: at least 20 characters with a digit, so "sk-learn" or
        # "sk-this-is-fine" never match.
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]{0,64}?[0-9])[A-Za-z0-9_-]{20,}"),
    ),
    Pattern(
        "bearer_token",
        re.compile(
            r"(?i:authorization\s*:\s*bearer\s+)"
            + _NOT_REDACTED
            + r"(?P<secret>[A-Za-z0-9._~+/=-]+)"
            r"|(?i:\bbearer\s+)"
            + _NOT_REDACTED
            + r"(?P<bare>(?=[A-Za-z0-9._~+/=-]{0,64}?[0-9])[A-Za-z0-9._~+/=-]{16,})"
        ),
    ),
    Pattern(
        "basic_auth",
        re.compile(r"(?i:authorization\s*:\s*basic\s+)(?P<secret>[A-Za-z0-9+/=]{8,})"),
    ),
    Pattern(
        "assignment",
        # password=..., "token": "...", api_key: 'x'. A bare "key: value" with a colon
        # counts only when the value looks like a credential (a digit or symbol in one
        # word), so prose such as "Secret: nobody knows" stays as written.
        re.compile(
            r"(?<![A-Za-z0-9])[\"']?(?P<key>(?i:client[_-]?secret|access[_-]?token|auth[_-]?token"
            r"|refresh[_-]?token|api[_-]?key|apikey|password|passwd|pwd|secret|token))[\"']?"
            r"(?:\s*=\s*" + _NOT_REDACTED + _PLACEHOLDER + r"(?P<secret>" + _VALUE + r")"
            r"|\s*:\s*" + _NOT_REDACTED + _PLACEHOLDER + r"(?P<quoted>\"[^\"\n]+\"|'[^'\n]+')"
            r"|:\s*"
            + _NOT_REDACTED
            + _PLACEHOLDER
            + r"(?P<word>(?=[^\s\"']{0,64}?[0-9!#$%^&*+/=@~])[^\s\"'`,;<>]{6,}))"
        ),
        kind_of=_assignment_kind,
    ),
)


def _replace(pattern: Pattern, counts: dict[str, int]) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        kind = pattern.kind_of(m) if pattern.kind_of else pattern.kind
        group = next(
            (g for g in ("secret", "bare", "quoted", "word") if m.groupdict().get(g) is not None),
            None,
        )
        whole = m.group(0)
        if group is None:
            counts[kind] = counts.get(kind, 0) + 1
            return MARKER.format(kind=kind)
        start, end = m.start(group) - m.start(), m.end(group) - m.start()
        value = whole[start:end]
        quote = value[0] if len(value) >= 2 and value[0] in "\"'" and value[-1] == value[0] else ""
        counts[kind] = counts.get(kind, 0) + 1
        marker = f"{quote}{MARKER.format(kind=kind)}{quote}"
        return whole[:start] + marker + whole[end:]

    return sub


def redact(text: str) -> tuple[str, dict[str, int]]:
    """``text`` with every recognised secret replaced, and how many of each kind.

    >>> redact("deploy with token=ghp_" + "a1" * 18)
    ('deploy with token=[REDACTED:github_token]', {'github_token': 1})
    >>> redact("the token bucket limiter shipped")
    ('the token bucket limiter shipped', {})
    """
    counts: dict[str, int] = {}
    for pattern in PATTERNS:
        if pattern.kind == "private_key" and "PRIVATE KEY" not in text:
            continue  # the one pattern that can scan far; skip it when it cannot match
        text = pattern.regex.sub(_replace(pattern, counts), text)
    return text, counts


def merge(into: dict[str, int], counts: dict[str, int]) -> None:
    """Add ``counts`` to ``into`` (per-kind totals across fields or files)."""
    for kind, n in counts.items():
        into[kind] = into.get(kind, 0) + n


def redact_episode(episode: EpisodeInput) -> tuple[EpisodeInput, dict[str, int]]:
    """The episode with secrets removed from every text field that gets stored.

    Content, author and source label, and for given facts their entity names and
    sentences. The graph name is left alone: it is chosen by the user, not pasted.
    """
    counts: dict[str, int] = {}

    def clean(value: str) -> str:
        text, found = redact(value)
        merge(counts, found)
        return text

    facts = None
    if episode.facts is not None:
        facts = [
            ExtractedFact(
                EntityRef(clean(f.source.name), f.source.type),
                f.relation,
                EntityRef(clean(f.target.name), f.target.type),
                clean(f.sentence),
            )
            for f in episode.facts
        ]
    cleaned = replace(
        episode,
        content=clean(episode.content),
        author=clean(episode.author) if episode.author is not None else None,
        source=clean(episode.source),
        facts=facts,
    )
    return cleaned, counts
