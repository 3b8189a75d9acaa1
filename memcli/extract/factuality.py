"""Factuality: is a clause asserted, or hedged, conditional, negated, asked, planned?

The core (``memcli.extract.core``) decides factuality from token classes (a modal or
negator in the clause, an "if" clause, a "Decision:" label); ``why_not`` names the
reason for the trace when a sentence with a cue word gave no fact by another route.

The frames only read asserted clauses; this module names *why* a clause with a cue word
gave no fact, for ``--explain`` and for the trace (NegEx/ConText-style trigger lists with
the clause as scope). Order matters: the first label that applies is the reason.

Traps kept out on purpose: "no longer blocked" is an unblock, not a negation; "until" and
"once" after a dependency word are dependency triggers, not conditions.
"""

from __future__ import annotations

import re

_LABELS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (label, re.compile(pattern, re.IGNORECASE))
    for label, pattern in (
        ("question", r"\?\s*$|^(?:is|are|does|do|did|can|could|should|will|has|have)\s+\w+.*\?"),
        (
            "conditional",
            r"\b(?:if|unless|in case|assuming|suppose|supposing|whether|otherwise|"
            r"in the event)\b",
        ),
        (
            "hedged",
            r"\b(?:might|may|maybe|perhaps|probably|possibly|likely|hopefully|i think|we think"
            r"|i guess|not sure|should|almost|nearly|mostly|close to|about to|expect(?:ed|s)? to"
            r"|seems?|looks like|fingers crossed|tentatively|could)\b",
        ),
        ("reported", r"\b(?:said|says|according to|claims?|heard|told (?:me|us))\b"),
        (
            "planned",
            r"\b(?:will|going to|gonna|plan(?:s|ned)? to|intend|aim(?:s|ing)? to|next week"
            r"|next sprint|tomorrow|by (?:mon|tues|wednes|thurs|fri)day|eta)\b",
        ),
        ("negated", r"\b(?:not|never|no|nothing|nobody|none|n't|neither|nor|without)\b"),
    )
)


def lowercase_twin(pattern: re.Pattern[str]) -> re.Pattern[str] | None:
    """The pattern without IGNORECASE, to search lowercased ASCII text with; None when
    that could read differently (a capital, a cased letter outside ASCII or an inline
    case flag in the pattern).

    A case-blind search costs several times more than a plain one, and ``why_not`` runs
    its labels over whole clauses (``memcli.extract.text`` and ``context`` use it too).
    Over ASCII text the two agree: a letter in the pattern is lowercase ASCII, so it
    matches a text letter exactly when it matches that letter lowercased.
    """
    # escapes such as \S and group names keep their case
    bare = re.sub(r"\\.|\(\?P<\w+>|\(\?P=\w+\)", "", pattern.pattern)
    cased = any(ch.isupper() or (not ch.isascii() and ch.islower()) for ch in bare)
    if cased or "(?" in bare and re.search(r"\(\?[a-zA-Z-]*[iI]", bare):
        return None
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


_TWINS = tuple((label, lowercase_twin(pattern)) for label, pattern in _LABELS)
_LOWER_LABELS: tuple[tuple[str, re.Pattern[str]], ...] | None = (
    tuple((label, twin) for label, twin in _TWINS if twin is not None)
    if all(twin is not None for _, twin in _TWINS)
    else None
)


# Reasons the reader gives for a cue sentence it understood and chose not to turn into a
# fact: the factuality labels above, plus the reader's own "nothing blocks", "context
# only" and a release's reason (``memcli.extract.releases``: it opens with ``RELEASED``).
# ``--extractor auto`` does not send such sentences to a model: they were read.
UNDERSTOOD = frozenset(label for label, _ in _LABELS) | {"states that nothing blocks"}
RELEASED = "no blocker named"


def understood(reason: str | None) -> bool:
    """Whether a no-fact reason means the sentence was read and deliberately gave nothing.

    >>> understood("hedged"), understood("context only (names the topic item, states no fact)")
    (True, True)
    >>> understood(None), understood("no predicate")
    (False, False)
    """
    return reason is not None and (
        reason in UNDERSTOOD or reason.startswith(("context only", RELEASED))
    )


def why_not(clause: str) -> str | None:
    """The first non-asserted label that fits a clause, or None when it reads as asserted.

    >>> why_not("The export might be blocked on the schema change")
    'hedged'
    >>> why_not("If the schema change slips, the export is blocked") is None
    False
    >>> why_not("The export is blocked on the schema change") is None
    True
    """
    labels = _LABELS
    if _LOWER_LABELS is not None and clause.isascii():
        clause, labels = clause.lower(), _LOWER_LABELS
    for label, pattern in labels:
        if pattern.search(clause):
            return label
    return None
