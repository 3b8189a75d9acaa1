"""Reduce each fact to the signatures that link episodes. Pure.

A *literal* signature is the fact itself: (source, relation, target), with the entities
by resolved key and type. Two updates that state the same fact share it.

A *blocker* signature names one work item of a dependency alone: "X is part of a
dependency". A ``blocked_by`` fact yields it for its target (what is waited on) and, when
the waiting side is a work item too, for its source. People rarely restate who owns what
they wait on, so literal signatures alone split most real dependency patterns into
fragments: with blocker signatures every update that waits on the same work links to the
others, and "X waits on Y" links to "Y waits on Z", so a chain holds together even when
nobody names an owner. A person or team that waits is never a blocker signature: that
would link everything one person reports.

The key format is a stored contract (prefix ``s1``): change it only with a new prefix and a
migration that re-derives the table.
"""

from __future__ import annotations

from enum import StrEnum

from memcli.models import Relation

PREFIX = "s1"


class SignatureMode(StrEnum):
    """Which signatures link episodes during analysis."""

    LITERAL = "literal"
    EXTENDED = "extended"

    def kinds(self) -> tuple[str, ...]:
        if self is SignatureMode.LITERAL:
            return ("literal",)
        return ("literal", "blocker")


def fact_signatures(
    source: tuple[str, str], relation: Relation | str, target: tuple[str, str]
) -> list[tuple[str, str]]:
    """(kind, key) pairs for one fact; entities given as (type, normalised name).

    >>> for kind, key in fact_signatures(("work_item", "api"), "blocked_by", ("work_item", "auth")):
    ...     print(kind, key)
    literal s1|work_item:api|blocked_by|work_item:auth
    blocker s1|*|blocked_by|work_item:auth
    blocker s1|*|blocked_by|work_item:api
    """
    rel = relation if relation in _VALUES else Relation(relation).value
    src = f"{source[0]}:{source[1]}"
    tgt = f"{target[0]}:{target[1]}"
    keys = [("literal", f"{PREFIX}|{src}|{rel}|{tgt}")]
    if rel == _BLOCKED_BY:
        keys.append(("blocker", f"{PREFIX}|*|{rel}|{tgt}"))
        if source[0] == "work_item":
            keys.append(("blocker", f"{PREFIX}|*|{rel}|{src}"))
    return keys


# The relations' values: a set look-up checks a relation as written (ingest asks for
# every distinct fact of a batch; the enum's constructor is a Python-level call). A
# member of the StrEnum is found too, and formats as its value.
_VALUES = frozenset(r.value for r in Relation)
_BLOCKED_BY = Relation.BLOCKED_BY.value


def describe(key: str) -> str:
    """A signature key as a person reads it: (backend team, owns, auth service refactor)."""
    parts = key.split("|")
    if len(parts) != 4:
        return key
    _, src, rel, tgt = parts
    src_name = "*" if src == "*" else src.split(":", 1)[-1]
    return f"({src_name}, {rel}, {tgt.split(':', 1)[-1]})"
