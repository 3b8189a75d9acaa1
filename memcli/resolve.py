"""Entity resolution: which surface names are the same entity. Pure.

Conservative on purpose: two names are one entity only when their normalised keys are
equal and their types match. "The Auth Service Refactor", "auth service refactor" and
"auth-service refactor" share a key; "billing engine rewrite" and "billing engine rollout"
do not, and a person named Platform never merges with the platform team. A wrong merge
fuses two patterns into one and cannot be seen from the output; a missed merge at worst
splits one, which the blocker signatures often repair.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from memcli.models import EntityType

# A work item's id as written: "PAY-118", "#12", "acme/api#12". A proper name: prose
# writes it without an article.
TICKET = r"(?:[\w.-]+/[\w.-]+#\d+|#\d+|[A-Z][A-Z0-9]{1,9}-\d+)"
_ARTICLES = re.compile(r"^(?:the|a|an|our|their|this|that)\s+", re.IGNORECASE)
_POSSESSIVE = re.compile(r"['\u2019]s\b|(?<=s)['\u2019](?=\s|$)")
_PUNCT = re.compile(r"[^\w\s]+")
_SPACE = re.compile(r"\s+")


def normalize(name: str) -> str:
    """The key two names must share to be one entity.

    >>> normalize("The Auth-Service Refactor!")
    'auth service refactor'
    >>> normalize("Bob's")
    'bob'
    """
    text = unicodedata.normalize("NFKC", name).strip()
    text = _POSSESSIVE.sub("", text)
    text = _PUNCT.sub(" ", text)
    text = _SPACE.sub(" ", text).strip().lower()
    previous = None
    while previous != text:
        previous = text
        text = _ARTICLES.sub("", text)
    return text


def display_name(name: str, type_: EntityType) -> str:
    """A tidy name to show: articles and stray punctuation gone, people capitalised."""
    text = unicodedata.normalize("NFKC", name)
    previous = None
    while previous != text:  # "'); x" -> "x", not " x": strip spaces and punctuation alike
        previous = text
        text = text.strip().strip(".,;:!?\"'()[]")
    text = _SPACE.sub(" ", text)
    previous = None
    while previous != text:
        previous = text
        text = _ARTICLES.sub("", text)
    if type_ is EntityType.PERSON and text and text[0].islower():
        text = " ".join(part[:1].upper() + part[1:] for part in text.split(" "))
    return text


@lru_cache(maxsize=65536)
def resolved(name: str, type_: EntityType) -> tuple[str, str]:
    """(display name, normalised key) of a surface name, remembered: ingest resolves the
    same few thousand names (people, teams, work items) in every fact of a batch."""
    shown = display_name(name, type_)
    return shown, normalize(shown)
