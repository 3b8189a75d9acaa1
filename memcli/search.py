"""Search: any text in, a safe FTS5 query and a ranking out. Pure: no database.

A person or an agent types words, not FTS5 syntax. :func:`parse_query` keeps the letters
and digits of the text and quotes each run as an FTS5 string, so quotes, ``AND``/``OR``/
``NEAR``, ``*``, ``^``, ``column:`` filters and unbalanced parentheses are all just words
(or nothing) and no input can produce an FTS5 syntax error. The query first asks for
every content word (``"auth" AND "refactor"``); when nothing matches all of them it falls
back to any of them (per kind of record), so a question like "what is blocking kafka?"
still finds the Kafka upgrade. Stop words are dropped unless the text has nothing else.

Ranking (see :func:`observation_score` and :func:`fuse`):

* every scope starts from SQLite's BM25 (``bm25()`` is lower-is-better; we negate it);
* observations also weigh how many episodes support them and how recent their latest
  evidence is, relative to the newest evidence among the candidates (world time, so the
  order does not drift with the wall clock);
* scope ``all`` merges the per-scope rankings with reciprocal-rank fusion; a ranking
  that only matched some of the terms counts half, and an observation also collects a
  half-weight share of the score of its own evidence (facts and episodes) that matched,
  so the pattern a set of matching facts adds up to comes first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from memcli.models import SearchScope

MAX_TERMS = 32  # a pasted paragraph is still a query, not a 1,000-term OR
HIGHLIGHT = ("**", "**")  # snippet() markers: Markdown bold, pastes into chat
RRF_K = 60  # the usual reciprocal-rank-fusion constant
EVIDENCE_SHARE = 0.5  # weight of an observation's matching evidence in scope "all"
ANY_WEIGHT = 0.5  # weight, in scope "all", of a list that matched only some of the terms

_WORD = re.compile(r"[^\W_]+")  # letters and digits of any script; "_" splits, as in FTS5

STOPWORDS = frozenset(
    """
    a about all an and any are as at be been but by can could did do does for from had has
    have how i if in into is it its me my near no not of on or our should so than that the
    their them then there these they this to us was we were what when where which who whom
    why will with would you your
    """.split()
)


# What to search: one kind of record, or all of them fused (the contract's enum).
Scope = SearchScope


# Result "type" per scope, and the order ties are broken in under scope "all".
RESULT_TYPE = {
    Scope.OBSERVATIONS: "observation",
    Scope.FACTS: "fact",
    Scope.EPISODES: "episode",
    Scope.ENTITIES: "entity",
}
SCOPE_ORDER = list(RESULT_TYPE.values())


def quote(term: str) -> str:
    """One FTS5 string token: double quotes around, inner quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


@dataclass(frozen=True, slots=True)
class Query:
    """A user's text reduced to the terms FTS5 will look for."""

    text: str
    terms: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.terms

    def match_all(self) -> str:
        """Every term must occur (FTS5 implicit AND, spelled out)."""
        return " AND ".join(quote(t) for t in self.terms)

    def match_any(self) -> str:
        """At least one term must occur; BM25 still favours documents with more of them."""
        return " OR ".join(quote(t) for t in self.terms)

    def forms(self) -> list[tuple[str, str]]:
        """(label, MATCH expression) to try in order: all terms, then any term."""
        if self.empty:
            return []
        if len(self.terms) == 1:
            return [("all", self.match_all())]
        return [("all", self.match_all()), ("any", self.match_any())]


def parse_query(text: str) -> Query:
    """Terms of ``text``: letter/digit runs, lower-cased, de-duplicated, stop words dropped
    unless nothing else is left, at most :data:`MAX_TERMS`."""
    words: list[str] = []
    seen: set[str] = set()
    for raw in _WORD.findall(text or ""):
        word = raw.lower()
        if word not in seen:
            seen.add(word)
            words.append(word)
    content = [w for w in words if w not in STOPWORDS]
    return Query(text=text, terms=tuple((content or words)[:MAX_TERMS]))


def _days(value: str) -> float:
    """Days since the epoch for a stored 'YYYY-MM-DDTHH:MM:SSZ' timestamp."""
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() / 86400


def observation_score(
    bm25: float,
    episodes: int,
    latest_evidence_at: str | None,
    newest_evidence_at: str | None,
    *,
    active: bool = True,
    half_life_days: float = 14.0,
) -> float:
    """Relevance of an observation: text match, boosted by evidence and recency.

    The text match decides; evidence count adds up to about +50% for a large pattern
    (logarithmic, so ten episodes are not ten times one), recency up to +25% with a
    two-week half-life measured back from the newest candidate. Retired observations
    (shown only on request) count half.
    """
    relevance = max(-bm25, 0.0)
    evidence = 1.0 + 0.2 * math.log1p(max(episodes, 0))
    recency = 1.0
    if latest_evidence_at and newest_evidence_at:
        age = max(_days(newest_evidence_at) - _days(latest_evidence_at), 0.0)
        recency = 0.75 + 0.25 * 0.5 ** (age / half_life_days)
    return relevance * evidence * recency * (1.0 if active else 0.5)


Key = tuple[str, int]  # (result type, id)


def fuse(
    ranked: Mapping[str, Sequence[int]],
    *,
    weights: Mapping[str, float] | None = None,
    evidence: Mapping[int, Sequence[Key]] | None = None,
    k: int = RRF_K,
) -> list[tuple[Key, float]]:
    """Reciprocal-rank fusion of per-type rankings (best first), best first.

    ``ranked`` maps a result type to ids in rank order. Each item scores ``weight / (k +
    rank)`` (``weights`` per type, default 1); an observation also gets
    :data:`EVIDENCE_SHARE` of the score of every item in ``evidence[observation id]``
    that appears in the rankings. Ties go to the type order of :data:`SCOPE_ORDER`, then
    the smaller id, so the order is deterministic.
    """
    base: dict[Key, float] = {}
    for type_, ids in ranked.items():
        weight = (weights or {}).get(type_, 1.0)
        for position, item in enumerate(ids, start=1):
            base[(type_, item)] = weight / (k + position)
    total = dict(base)
    for obs_id, items in (evidence or {}).items():
        key = ("observation", obs_id)
        if key in total:
            total[key] += EVIDENCE_SHARE * sum(base.get(i, 0.0) for i in set(items))
    order = {t: i for i, t in enumerate(SCOPE_ORDER)}
    return sorted(total.items(), key=lambda kv: (-kv[1], order.get(kv[0][0], 99), kv[0][1]))
