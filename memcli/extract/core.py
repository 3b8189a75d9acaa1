"""The compositional core: clauses -> token classes -> frames -> argument spans.

Each clause is tokenised once and every token mapped to a one-character class (see
``_CLASS``): noun-phrase material, a trigger of one relation in one voice, "by", a
preposition, a negator, a modal, a subordinator, a pronoun, a ticket reference. The frame
table (``FRAMES``) is a list of rows (relation, voice, pattern over classes, which group
is which role); all rows are compiled into one alternation over the class string, and a
match's groups are mapped back to token spans, i.e. to the raw argument text that
``memcli.extract.context`` resolves into typed, normalised entities.
"""

from __future__ import annotations

import re

from memcli.extract.context import _Outcome, _Reader

# --------------------------------------------------------------------------------------
# Action items: "ACTION: Dana to migrate the cron jobs", "AI - Sam to chase VEND-88"
# --------------------------------------------------------------------------------------

_ACTION = re.compile(
    r"(?:action(?:\s+items?)?|ai|todo|to-do|follow-?ups?|next steps?)\s*(?::|-|–|—)\s*"
    r"(?P<who>.+?)\s+(?:to|will|is to|should|needs to|has to)\s+(?P<verb>[a-z]+)"
    r"(?P<particle>(?:\s+(?:up|on|out|with|over|through|back|together|in|off))*)"
    r"\s+(?P<obj>.+)",
    re.IGNORECASE,
)
_ACTION_TAIL = re.compile(
    r"\s+(?:once|by|before|after|when|if|from|with|for|via|at|on|in|until|so|to|weekly"
    r"|daily|asap|next|this|each|every|and report|and share)\b.*",
    re.IGNORECASE,
)
_ACTION_VAGUE = re.compile(
    r"(?:a|an|the)?\s*(?:revised\s+|new\s+|updated\s+)?(?:eta|date|estimate|update|status"
    r"|numbers|answer|thoughts|options|notes|time|call|meeting|slot)s?",
    re.IGNORECASE,
)
_OBJ_START_PREP = re.compile(r"(?:with|to|about|for|at|in|into|from)\b", re.IGNORECASE)


def read_action(reader: _Reader, text: str, who: str | None = None) -> _Outcome | None:
    """An action-item line: its assignee owns the object of the action's verb.

    ``who`` is the assignee's full name when the caller knows it (minutes roster).
    """
    m = _ACTION.fullmatch(text)
    if m is None:
        return None
    obj = _ACTION_TAIL.sub("", m["obj"]).strip(" .;,")
    if not obj or _OBJ_START_PREP.match(obj) or _ACTION_VAGUE.fullmatch(obj):
        return None
    out = reader.owns(who or m["who"], obj)
    if out is not None:
        out.frame = "action-item"
    return out


def action_assignee(text: str) -> str | None:
    """The raw assignee of an action-item line, or None."""
    m = _ACTION.fullmatch(text)
    return m["who"] if m else None
