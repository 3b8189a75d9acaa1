"""Find credentials in status updates and replace them before anything is stored. Pure.

People paste things into status updates: a token in a curl line, a connection string, a
``.env`` excerpt. memcli keeps updates forever and may send them to a language model, so
the ingest path replaces every secret it recognises with a marker naming its kind
(``[REDACTED:github_token]``) before the content hash, the extractor or the store see the
text. ``memcli ingest --no-redact`` opts out.

Design choices:

* **Recognisable shapes only.** Each pattern is a documented token format (AWS key ids,
  GitHub/GitLab/Slack/Stripe/Google/OpenAI/Anthropic and other vendors' tokens, PEM
  private keys, JWTs; the vendor list follows the public gitleaks and detect-secrets rule
  sets), a credential in a context that names it (``password=``, ``Authorization:
  Bearer``, ``STRIPE_KEY=`` with a credential-shaped value, ``scheme://user:pass@host``),
  never a guess from entropy. Every quantifier is bounded or unambiguous, so a pattern
  runs in linear time on any input. Ordinary prose that mentions
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
from functools import lru_cache

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
    Pattern(
        "gitlab_token",
        # personal, deploy, runner, pipeline-trigger, feed, SCIM, incoming-mail, CI-build
        # and OAuth-secret tokens share the gl...- prefix
        re.compile(
            r"(?<![A-Za-z0-9_-])(?:glpat|gldt|glrt|glptt|glft|glsoat|glimt|glcbt|gloas)-"
            r"[A-Za-z0-9_-]{20,}"
        ),
    ),
    Pattern(
        "slack_token",
        re.compile(
            r"(?<![A-Za-z0-9_-])(?:(?:xoxe\.)?xox[abeoprs]-[A-Za-z0-9-]{10,}"
            r"|xapp-[0-9]-[A-Za-z0-9-]{10,})"
        ),
    ),
    Pattern(
        "discord_webhook",
        re.compile(
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/"
            r"[A-Za-z0-9_-]{20,}"
        ),
    ),
    Pattern(
        "stripe_key",
        re.compile(r"(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}\b"),
    ),
    Pattern(
        "google_api_key", re.compile(r"(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])")
    ),
    Pattern("google_oauth_secret", re.compile(r"(?<![A-Za-z0-9_-])GOCSPX-[A-Za-z0-9_-]{28}\b")),
    Pattern(
        "anthropic_key",
        re.compile(r"(?<![A-Za-z0-9_-])sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}"),
    ),
    Pattern(
        "openai_key",
        # sk-..., sk-proj-...: at least 20 characters with a digit, so "sk-learn" or
        # "sk-this-is-fine" never match.
        re.compile(r"(?<![A-Za-z0-9_-])sk-(?=[A-Za-z0-9_-]{0,64}?[0-9])[A-Za-z0-9_-]{20,}"),
    ),
    Pattern("huggingface_token", re.compile(r"(?<![A-Za-z0-9_])hf_[A-Za-z]{34}(?![A-Za-z0-9_])")),
    Pattern("npm_token", re.compile(r"(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])")),
    Pattern("pypi_token", re.compile(r"(?<![A-Za-z0-9_-])pypi-AgE[A-Za-z0-9_-]{50,}")),
    Pattern(
        "sendgrid_key",
        re.compile(r"(?<![A-Za-z0-9_-])SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])"),
    ),
    Pattern("twilio_key", re.compile(r"(?<![A-Za-z0-9])SK[0-9a-f]{32}(?![A-Za-z0-9])")),
    Pattern("mailgun_key", re.compile(r"(?<![A-Za-z0-9_-])key-[0-9a-f]{32}(?![A-Za-z0-9])")),
    Pattern(
        "shopify_token",
        re.compile(r"(?<![A-Za-z0-9_])shp(?:at|ca|pa|ss)_[A-Fa-f0-9]{32}(?![A-Za-z0-9])"),
    ),
    Pattern(
        "digitalocean_token",
        re.compile(r"(?<![A-Za-z0-9_])do[opr]_v1_[a-f0-9]{64}(?![A-Za-z0-9])"),
    ),
    Pattern(
        "databricks_token",
        re.compile(r"(?<![A-Za-z0-9_])dapi[a-h0-9]{32}(?:-[0-9])?(?![A-Za-z0-9])"),
    ),
    Pattern("vault_token", re.compile(r"(?<![A-Za-z0-9_.])hv[sb]\.[A-Za-z0-9_-]{24,}")),
    Pattern(
        "grafana_token",
        re.compile(
            r"(?<![A-Za-z0-9_])(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2})"
            r"(?![A-Za-z0-9])"
        ),
    ),
    Pattern(
        "postman_key",
        re.compile(r"(?<![A-Za-z0-9_-])PMAK-[a-f0-9]{24}-[a-f0-9]{34}(?![A-Za-z0-9])"),
    ),
    Pattern("newrelic_key", re.compile(r"(?<![A-Za-z0-9_-])NRAK-[A-Z0-9]{27}(?![A-Za-z0-9])")),
    Pattern("linear_key", re.compile(r"(?<![A-Za-z0-9_])lin_api_[A-Za-z0-9]{40}(?![A-Za-z0-9])")),
    Pattern(
        "square_token",
        re.compile(r"(?<![A-Za-z0-9_-])sq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}(?![A-Za-z0-9_-])"),
    ),
    Pattern(
        "sentry_token",
        re.compile(r"(?<![A-Za-z0-9_])(?:sntrys_[A-Za-z0-9+/=_-]{40,}|sntryu_[a-f0-9]{64})"),
    ),
    Pattern(
        "telegram_bot_token",
        re.compile(r"(?<![A-Za-z0-9_:])[0-9]{5,16}:A[A-Za-z0-9_-]{34}(?![A-Za-z0-9_-])"),
    ),
    Pattern("age_secret_key", re.compile(r"AGE-SECRET-KEY-1[02-9AC-HJ-NP-Z]{58}(?![A-Za-z0-9])")),
    Pattern(
        "azure_storage_key",
        # the key of a storage connection string (AccountKey=...) or a shared access key
        re.compile(
            r"(?i:AccountKey|SharedAccessKey)\s*=\s*"
            + _NOT_REDACTED
            + r"(?P<secret>[A-Za-z0-9+/]{40,}={0,2})"
        ),
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
    Pattern(
        "named_assignment",
        # STRIPE_KEY=..., apiKey: "...", APP_SIGNING_SECRET=...: any name ending in key,
        # secret or token, but only with a value shaped like a credential (16 or more
        # token characters with a letter and a digit), so "sort_key=created_at" stays.
        re.compile(
            r"(?<![A-Za-z0-9])[\"']?(?P<key>(?:[A-Za-z0-9]{1,40}[_.-]){0,5}[A-Za-z0-9]{0,40}"
            r"(?i:key|secret|token))[\"']?\s*[:=]\s*[\"']?"
            + _NOT_REDACTED
            + r"(?P<secret>(?=[A-Za-z0-9_+/=.~-]{0,200}?[0-9])(?=[A-Za-z0-9_+/=.~-]{0,200}?[A-Za-z])"
            r"[A-Za-z0-9_+/=.~-]{15,500}[A-Za-z0-9_+/=~-])(?![A-Za-z0-9_+/=~-])"
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


# What every pattern above needs somewhere in the text, as one cheap scan: a name that
# marks a credential (key, secret, token, password, pwd, bearer, authorization: every
# assignment, header and PEM pattern), a URL, or a run of 11 or more token characters
# that holds something other than lower-case letters (every vendor token: its prefix
# or body has a digit, a capital, "_", "-" or "+/=", and is at least 11 long), or 24 or
# more of any (the all-lower-case bodies: dapi..., hvs....). Text with none of these
# cannot match any pattern, so ``redact`` returns it as it is without the full set.
# A new pattern must keep this true: tests/reliability/test_redact.py checks every
# sample secret against the full set with and without this scan.
_CANDIDATE = re.compile(
    r"(?i:key|secret|token|passw|pwd|bearer|authorization)|://"
    r"|(?<![A-Za-z0-9_+/=-])(?:[A-Za-z0-9_+/=-]{24}"
    r"|(?=[A-Za-z0-9_+/=-]{11})[a-z]*[0-9_+/=A-Z-])"
)


# A cheaper screen for ASCII text (nearly every update), in three kinds of evidence, each
# a few C-level string operations instead of one regex tried at every position:
# * "name": the text, lower-cased, holds one of ``_NAMES``. Every match of the patterns
#   in ``_BY_NAME`` holds one (a PEM header's KEY, ``aws_secret_access_key``, ``key-``,
#   ``AccountKey``, ``Bearer``, ``Authorization``, each assignment's name);
# * "url": the text holds "://" (the patterns in ``_BY_URL``);
# * "run": a run of token characters (``_RUN``) of 24 or more, or of 11 or more with a
#   digit, symbol or capital anywhere but its first character (``_suspicious``). Every
#   other pattern's match holds one: a vendor prefix or body with "_", "-", a digit or a
#   second capital (``AKIA``, ``AIza``, ``eyJ``, ``SK`` + hex, ``GOCSPX-``), or a body of
#   24 or more (``dapi``, ``hvs.``, ``SG.``, a Telegram bot's ``:A...``). A capital
#   followed by lower-case letters ("Infrastructure") is prose, and no longer counts.
# Only the patterns whose evidence is present are searched; if none matches, no pattern
# of the full set can (the text is returned as it is), and if one does, the full set runs
# in its order, so the result is always exactly ``_redact_all``'s. Non-ASCII text keeps
# the one-scan pre-check above: lower-casing is not how a case-insensitive pattern
# matches there ("ſ" matches "s"). tests/reliability/test_redact_screen.py holds the
# screen to the full set on generated text.
_NAMES = ("key", "secret", "token", "passw", "pwd", "bearer", "authorization")
_RUN = re.compile(r"[A-Za-z0-9_+/=-]{11,}")
_BY_NAME = frozenset(
    {
        "private_key",
        "aws_secret_key",
        "mailgun_key",
        "azure_storage_key",
        "bearer_token",
        "basic_auth",
        "assignment",
        "named_assignment",
    }
)
_BY_URL = frozenset({"slack_webhook", "url_password", "discord_webhook"})


def _suspicious(text: str) -> bool:
    """Whether ``text`` holds a run of token characters that a vendor token needs."""
    for word in text.split():  # a run never spans white space; most words are short
        if len(word) > 10:
            for run in _RUN.findall(word):
                if len(run) >= 24:
                    return True
                tail = run[1:]
                if not (run[0].isalpha() and tail.isalpha() and tail.islower()):
                    return True
    return False


def _evidence(text: str) -> tuple[bool, bool, bool] | None:
    """(name, url, run) evidence in ASCII ``text``; None when there is none, and then no
    pattern can match. Each kind of evidence lies within a word (a line break between two
    texts joins none), so texts joined by line breaks have none if and only if each of
    them has none."""
    lower = text.lower()
    name = any(word in lower for word in _NAMES)
    url = "://" in text
    run = _suspicious(text)
    if not (name or url or run):
        return None
    return name, url, run


def _screened(name: bool, url: bool, run: bool) -> tuple[Pattern, ...]:
    return tuple(
        p
        for p in PATTERNS
        if (name and p.kind in _BY_NAME)
        or (url and p.kind in _BY_URL)
        or (run and p.kind not in _BY_NAME | _BY_URL)
    )


_SCREENED = {
    (name, url, run): _screened(name, url, run)
    for name in (False, True)
    for url in (False, True)
    for run in (False, True)
}


def redact(text: str) -> tuple[str, dict[str, int]]:
    """``text`` with every recognised secret replaced, and how many of each kind.

    >>> redact("deploy with token=ghp_" + "a1" * 18)
    ('deploy with token=[REDACTED:github_token]', {'github_token': 1})
    >>> redact("the token bucket limiter shipped")
    ('the token bucket limiter shipped', {})
    """
    if not text.isascii():
        if _CANDIDATE.search(text) is None:
            return text, {}
        return _redact_all(text)
    evidence = _evidence(text)
    if evidence is None:
        return text, {}
    for pattern in _SCREENED[evidence]:
        if pattern.kind == "private_key" and "PRIVATE KEY" not in text:
            continue
        if pattern.regex.search(text) is not None:
            return _redact_all(text)
    return text, {}


def _redact_all(text: str) -> tuple[str, dict[str, int]]:
    """Every pattern in turn over ``text`` (``redact`` without its pre-check)."""
    counts: dict[str, int] = {}
    for pattern in PATTERNS:
        if pattern.kind == "private_key" and "PRIVATE KEY" not in text:
            continue  # the one pattern that can scan far; skip it when it cannot match
        text = pattern.regex.sub(_replace(pattern, counts), text)
    return text, counts


@lru_cache(maxsize=16384)
def _redact_short(text: str) -> tuple[str, tuple[tuple[str, int], ...]]:
    """``redact`` remembered: entity names, authors, sources and fact sentences repeat
    across a batch (the same team in thousands of facts), and redaction is pure."""
    out, counts = redact(text)
    return out, tuple(counts.items())


SHORT = 256  # fields up to this length go through the cache; whole updates do not


def merge(into: dict[str, int], counts: dict[str, int]) -> None:
    """Add ``counts`` to ``into`` (per-kind totals across fields or files)."""
    for kind, n in counts.items():
        into[kind] = into.get(kind, 0) + n


@lru_cache(maxsize=16384)
def _plain(text: str) -> bool:
    """Whether ``text`` is ASCII with no evidence of a secret (``_evidence``), so that no
    pattern can match it: remembered, for the short fields that recur across a batch
    (names, authors, sources, the sentences of given facts)."""
    return text.isascii() and _evidence(text) is None


def _plain_episode(episode: EpisodeInput) -> bool:
    """Whether no field of ``episode`` that gets stored can hold a secret: each field
    screened on its own (the content as it is, the others remembered by ``_plain``).
    The same answer as one screen of the fields joined by line breaks, which has no
    evidence exactly when no field has any (see ``_evidence``)."""
    content = episode.content
    if not (content.isascii() and _evidence(content) is None):
        return False
    if not (_plain(episode.author or "") and _plain(episode.source)):
        return False
    if episode.facts is not None:
        for f in episode.facts:
            if not (_plain(f.source.name) and _plain(f.target.name) and _plain(f.sentence)):
                return False
    if episode.subject is not None and not _plain(episode.subject.name):
        return False
    return all(_plain(ref.name) and _plain(alias) for ref, alias in episode.aliases)


def redact_episode(episode: EpisodeInput) -> tuple[EpisodeInput, dict[str, int]]:
    """The episode with secrets removed from every text field that gets stored.

    Content, author and source label, and for given facts their entity names and
    sentences. The graph name is left alone: it is chosen by the user, not pasted.
    """
    # Nearly every update has no evidence of a secret in any field, and is returned as
    # it is; otherwise each field is redacted on its own.
    if _plain_episode(episode):
        return episode, {}
    counts: dict[str, int] = {}

    def clean(value: str) -> str:
        if len(value) <= SHORT:
            text, found = _redact_short(value)
            if found:
                merge(counts, dict(found))
            return text
        text, counts_found = redact(value)
        merge(counts, counts_found)
        return text

    def clean_fact(f: ExtractedFact) -> ExtractedFact:
        source, target, sentence = clean(f.source.name), clean(f.target.name), clean(f.sentence)
        if (
            source == f.source.name
            and target == f.target.name
            and sentence == f.sentence
            and f.valid_at is None
            and f.invalid_at is None
        ):
            return f  # equal to the fact rebuilt below: skip building it
        return ExtractedFact(
            EntityRef(source, f.source.type),
            f.relation,
            EntityRef(target, f.target.type),
            sentence,
        )

    facts = None
    if episode.facts is not None:
        facts = [clean_fact(f) for f in episode.facts]
    cleaned = replace(
        episode,
        content=clean(episode.content),
        author=clean(episode.author) if episode.author is not None else None,
        source=clean(episode.source),
        facts=facts,
        subject=None
        if episode.subject is None
        else EntityRef(clean(episode.subject.name), episode.subject.type),
        aliases=tuple(
            (EntityRef(clean(ref.name), ref.type), clean(alias)) for ref, alias in episode.aliases
        ),
    )
    return cleaned, counts
