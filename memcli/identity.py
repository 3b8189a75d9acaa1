"""Which differently written names are probably one entity, and which are safe to merge.
Pure.

``memcli.resolve`` merges only names with equal normalised keys. People also shorten:
"pg16" for "Postgres 16 migration", "staging env" for "staging environment rebuild".
This module finds such pairs and says why, in two tiers:

- **automatic** (``auto_merges``): the short name abbreviates the long one word by word
  and covers at least two of its words ("pg16" = pg~postgres, 16; "staging env"), or is
  its acronym written in capitals ("ASR" for "auth service refactor"; "api" stays a
  suggestion); both are work items or both teams;
  and the short name has exactly one such long name in the graph. A pair a person has
  unmerged is never merged again.
- **short forms** (``short_forms``): a first name alone for the one person whose full
  name starts with it, a ticket's bare number for the one ticket with that number.
  These are the only people merged without a person.
- **stated** (``stated_merges``): a name the text itself sets beside a ticket id.
- **suggested** (``suggest``): every abbreviation, acronym or leading-words pair, and
  names that share a word and a neighbour (the same owner, the same blocker, the same
  work waiting on them). A person decides with ``memcli entity alias``.

Everything else stays apart: "billing engine rewrite" and "billing engine rollout" share
two words but neither abbreviates the other, so they are at most suggested (when they
also share a neighbour), never merged. A wrong merge fuses two patterns invisibly; a
missed one is a suggestion away.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress, repeat
from operator import itemgetter, lt
from typing import NamedTuple

_RUN = re.compile(r"[^\W\d_]+|\d+")

# Words too common in work-item names to say two names are related.
STOPWORDS = frozenset(
    "a an and the of for to in on at by with from new old our their work task project "
    "team item update fix".split()
)

# Kinds an automatic merge may join. People are never merged without a person.
AUTO_TYPES = frozenset({"work_item", "team"})

# Neighbours that hint at one entity under two names: the same owner, or blocking the
# same work. Two items waiting on one blocker is the pattern itself, not a hint.
IDENTITY_NEIGHBOURS = frozenset({"owned by", "block"})


class Name(NamedTuple):
    """One entity as identity sees it: id, display name, normalised key, type. A named
    tuple, built in C: a check reads every name of the graph."""

    id: int
    name: str
    norm: str
    type: str


@dataclass(slots=True)
class Candidate:
    """A likely duplicate: ``alias`` probably means ``canonical``, with the reasons."""

    alias: Name
    canonical: Name
    reasons: list[str] = field(default_factory=list)
    automatic: bool = False  # safe to merge without asking (see module docstring)

    def as_dict(self) -> dict[str, object]:
        return {
            "alias": {"id": self.alias.id, "name": self.alias.name, "type": self.alias.type},
            "canonical": {
                "id": self.canonical.id,
                "name": self.canonical.name,
                "type": self.canonical.type,
            },
            "reasons": list(self.reasons),
            "automatic": self.automatic,
        }


@lru_cache(maxsize=1 << 16)
def tokens(norm: str) -> tuple[str, ...]:
    """Words of a normalised name, letters and digits apart: "pg16" -> ("pg", "16")."""
    return tuple(_RUN.findall(norm))


def _abbreviates(short: str, long: str) -> bool:
    """``short`` is a strict abbreviation of the word ``long``: same first letter, its
    letters in order, shorter ("env" ~ environment, "pg" ~ postgres)."""
    if not (short.isalpha() and long.isalpha()) or len(short) < 2 or len(short) >= len(long):
        return False
    if short[0] != long[0]:
        return False
    rest = iter(long[1:])
    return all(ch in rest for ch in short[1:])


def relation(short: Name, long: Name) -> tuple[str, str] | None:
    """How ``short`` may name ``long``: (kind, reason) with kind "acronym",
    "abbreviation" (word by word, at least one word shortened) or "leading words";
    None when it does not.

    >>> relation(Name(1, "pg16", "pg16", "work_item"),
    ...          Name(2, "Postgres 16 migration", "postgres 16 migration", "work_item"))
    ('abbreviation', "'pg16' abbreviates 'Postgres 16 migration' word by word (pg~postgres, 16)")
    """
    if short.type != long.type or short.norm == long.norm or len(short.norm) >= len(long.norm):
        return None
    s, words = tokens(short.norm), tokens(long.norm)
    if not s or not words:
        return None
    letters = [w for w in long.norm.split() if w]
    if len(s) == 1 and s[0].isalpha() and len(s[0]) >= 2 and len(letters) >= 2:
        if s[0] == "".join(w[0] for w in letters):
            return "acronym", f"'{short.name}' is the acronym of '{long.name}'"
    if len(s) > len(words):
        return None
    parts: list[str] = []
    shortened = False
    for a, b in zip(s, words, strict=False):
        if a == b:
            parts.append(a)
        elif _abbreviates(a, b) and (len(s) > 1 or b.startswith(a)):
            # one word alone must be a prefix ("env", not "kai" for "karin")
            parts.append(f"{a}~{b}")
            shortened = True
        else:
            return None
    if shortened:
        return (
            "abbreviation",
            f"'{short.name}' abbreviates '{long.name}' word by word ({', '.join(parts)})",
        )
    return "leading words", f"'{short.name}' is the first words of '{long.name}'"


class _Node:
    """A trie of names by their words: ``kids`` by the next word, ``below`` every name
    whose words start with this node's path."""

    __slots__ = ("kids", "below", "by_letter")

    def __init__(self) -> None:
        self.kids: dict[str, _Node] = {}
        self.below: list[Name] = []
        self.by_letter: dict[str, list[tuple[str, _Node]]] | None = None

    def starting(self, letter: str) -> list[tuple[str, _Node]]:
        """The next words starting with ``letter`` (a word matches only those)."""
        if self.by_letter is None:
            self.by_letter = defaultdict(list)
            for w, kid in self.kids.items():
                self.by_letter[w[0]].append((w, kid))
        return self.by_letter.get(letter, [])


def _matches(short: str, long: str, alone: bool) -> bool:
    """Word ``short`` may stand for word ``long`` (as ``relation`` compares them)."""
    return short == long or (_abbreviates(short, long) and (not alone or long.startswith(short)))


def _pairs(
    names: Sequence[Name],
    shorts: Sequence[Name] | None = None,
    words_of: Mapping[int, tuple[str, ...]] | None = None,
) -> dict[int, list[tuple[Name, str, str]]]:
    """For each name (of ``shorts``, default all), the longer names of ``names`` it may
    stand for: (long, kind, reason).

    A shortened name matches a longer one word by word from the first (each word equal
    or abbreviating, so with the same first letter), or is its acronym. The longer names
    are filed in a trie by their words, and each short name walks it, so only names
    that match word by word are compared in full (``relation``), not every name that
    shares some first letters; a word's matches at a node are worked out once.
    ``words_of``: each name's words, when the caller has them already.
    """
    roots: dict[str, _Node] = defaultdict(_Node)
    acronyms: dict[tuple[str, str], list[Name]] = defaultdict(list)
    known = words_of
    words_of = {}
    for n in names:
        # ``tokens`` without its cache: every name once
        t = known[n.id] if known is not None else tuple(_RUN.findall(n.norm))
        words_of[n.id] = t
        if not t:
            continue
        node = roots[n.type]
        for w in t:
            kid = node.kids.get(w)
            if kid is None:
                kid = node.kids[w] = _Node()
            node = kid
            node.below.append(n)
        spaced = n.norm.split()
        if len(spaced) >= 2:
            acronyms[(n.type, "".join([w[0] for w in spaced]))].append(n)
    memo: dict[tuple[int, str, bool], list[_Node]] = {}

    def step(node: _Node, word: str, alone: bool) -> list[_Node]:
        kids = node.kids
        if len(kids) < 8:  # a deep node: comparing them all is cheap
            return [kid for w, kid in kids.items() if w[0] == word[0] and _matches(word, w, alone)]
        key = (id(node), word, alone)
        hit = memo.get(key)
        if hit is None:
            hit = memo[key] = [kid for w, kid in node.starting(word[0]) if _matches(word, w, alone)]
        return hit

    out: dict[int, list[tuple[Name, str, str]]] = {}
    for short in names if shorts is None else shorts:
        s = words_of.get(short.id) or (known or {}).get(short.id) or tokens(short.norm)
        if not s:
            continue
        frontier = [roots[short.type]] if short.type in roots else []
        alone = len(s) == 1
        for word in s:
            frontier = [kid for node in frontier for kid in step(node, word, alone)]
            if not frontier:
                break
        size = len(short.norm)
        found: dict[int, Name] = {}
        for node in frontier:
            for n in node.below:
                if len(n.norm) > size:
                    found[n.id] = n
        if alone:
            for n in acronyms.get((short.type, s[0]), ()):
                if len(n.norm) > size:
                    found[n.id] = n
        fits = []
        for i in sorted(found):
            rel = relation(short, found[i])
            if rel is not None:
                fits.append((found[i], rel[0], rel[1]))
        if fits:
            out[short.id] = fits
    return out


def _is_safe(short: Name, kind: str) -> bool:
    if short.type not in AUTO_TYPES:
        return False
    if kind == "acronym":  # written in capitals: "ASR" is an acronym, "api" may be a word
        letters = [ch for ch in short.name if ch.isalpha()]
        return bool(letters) and all(ch.isupper() for ch in letters)
    return kind == "abbreviation" and len(tokens(short.norm)) >= 2


def _narrowed(
    names: Sequence[Name],
) -> tuple[list[Name], list[Name], dict[int, tuple[str, ...]]]:
    """The names that may be merged automatically, and the names they may stand for:
    (shorts, longs, each name's words).

    A merge needs the short name to be safe (``_is_safe``) whatever it fits: an
    acronym written in capitals (one word), or an abbreviation of two or more words
    with at least one word shortened. The word at place ``i`` of an abbreviation is
    shortened from the word at place ``i`` of a longer name of the same type, so a name
    none of whose words abbreviates a word at its place in another name of its type
    can only be "leading words" of one: it is never merged, and is not compared. The
    longer names a short one may fit start with a word its first word matches, or have
    it as their acronym; only those are filed. What is merged is what comparing every
    pair gives (``tests/test_identity.py`` checks it); on a large graph few names pass.
    """
    findall = _RUN.findall
    # ``tokens`` of each name without the expression where it is not needed: a name of
    # letters and spaces alone (most) is its words split at the spaces
    words_of = {
        n.id: tuple(n.norm.split()) if n.norm.replace(" ", "").isalpha() else tuple(findall(n.norm))
        for n in names
    }
    by_type: dict[str, list[tuple[str, ...]]] = defaultdict(list)
    for n in names:
        by_type[n.type].append(words_of[n.id])
    at: dict[tuple[str, int], set[str]] = defaultdict(set)
    for kind, all_words in by_type.items():
        lengths = list(map(len, all_words))
        for i in range(max(lengths)):  # the names with an i-th word, in C
            longer = compress(all_words, map(lt, repeat(i), lengths))
            at[(kind, i)] = set(map(itemgetter(i), longer))
    # words that abbreviate another word at the same place in a name of the same type
    shortened: dict[tuple[str, int], set[str]] = {}
    for key, words in at.items():
        by_letter: dict[str, list[str]] = defaultdict(list)
        for w in words:
            by_letter[w[0]].append(w)
        shortened[key] = {
            a
            for a in words
            if a.isalpha() and any(_abbreviates(a, b) for b in by_letter[a[0]] if len(b) > len(a))
        }
    anywhere = set().union(*shortened.values())
    shorts: list[Name] = []
    for n in names:
        t = words_of[n.id]
        if len(t) >= 2:
            if not anywhere.isdisjoint(t) and any(
                w in shortened[(n.type, i)] for i, w in enumerate(t)
            ):
                shorts.append(n)
        elif t and t[0].isalpha() and len(t[0]) >= 2 and _is_safe(n, "acronym"):
            shorts.append(n)
    if not shorts:
        return [], [], words_of
    fit: dict[tuple[str, int, str], set[str]] = {}

    def fits_at(kind: str, i: int, word: str) -> set[str]:
        """The words at place ``i`` of names of this type that ``word`` may stand for."""
        hit = fit.get((kind, i, word))
        if hit is None:
            hit = fit[(kind, i, word)] = {
                w for w in at.get((kind, i), ()) if w[0] == word[0] and _matches(word, w, False)
            }
        return hit

    # A longer name a short one fits starts with words the short one's first words fit:
    # its first word for a one-word short, its first two for the others.
    any_next: set[tuple[str, str]] = set()  # (type, first word): any second word
    seconds: dict[tuple[str, str], set[str]] = defaultdict(set)  # (type, first) -> second
    initials: set[tuple[str, str]] = set()  # (type, acronym) a one-word short may be
    for n in shorts:
        t = words_of[n.id]
        if len(t) == 1:
            initials.add((n.type, t[0]))
            any_next.update((n.type, w) for w in fits_at(n.type, 0, t[0]))
        else:
            second = fits_at(n.type, 1, t[1])
            for w in fits_at(n.type, 0, t[0]):
                seconds[(n.type, w)] |= second
    longs: list[Name] = []
    for n in names:
        t = words_of[n.id]
        if not t:
            continue
        head = (n.type, t[0])
        if head in any_next or (len(t) >= 2 and head in seconds and t[1] in seconds[head]):
            longs.append(n)
        elif initials:
            spaced = n.norm.split()
            if len(spaced) >= 2 and (n.type, "".join([w[0] for w in spaced])) in initials:
                longs.append(n)
    return shorts, longs, words_of


def auto_merges(
    names: Sequence[Name], *, refused: Iterable[tuple[int, int]] = ()
) -> list[Candidate]:
    """The merges safe to make without asking (see the module docstring), each with its
    evidence. ``names`` are the graph's entities as they resolve now (merged aliases
    left out); ``refused`` are (alias, canonical) pairs a person has unmerged."""
    no = set(refused)
    names = [n for n in names if n.type in AUTO_TYPES]  # both ends share one type
    by_id = {n.id: n for n in names}
    shorts, longs, words_of = _narrowed(names)
    out = []
    for short_id, found in sorted(_pairs(longs, shorts, words_of).items()):
        if len(found) != 1:
            continue  # ambiguous: several longer names fit
        long, kind, reason = found[0]
        short = by_id[short_id]
        if not _is_safe(short, kind) or (short.id, long.id) in no:
            continue
        out.append(
            Candidate(
                short,
                long,
                [f"{reason}; no other {short.type.replace('_', ' ')} in the graph fits"],
                automatic=True,
            )
        )
    # A name that is itself an alias's target stays the target: never chain two merges.
    aliases = {c.alias.id for c in out}
    return [c for c in out if c.canonical.id not in aliases]


def suggest(
    names: Sequence[Name],
    neighbours: Mapping[int, Iterable[tuple[str, str]]],
    *,
    refused: Iterable[tuple[int, int]] = (),
    max_group: int = 50,
) -> list[Candidate]:
    """Likely duplicates with why, most reasons first.

    ``neighbours`` maps an entity to (relation, other entity's name) pairs such as
    ("owned by", "data team") or ("block", "API migration"); only those two relations
    count ("wait on" is ignored). A pair sharing only neighbours, or only words, is not
    suggested: a rare shared word (used by few names of that kind) together with a
    shared neighbour, or a name relation. Neighbours held by more than ``max_group``
    entities (a team that owns everything) say nothing and are skipped.
    """
    no = set(refused)
    by_id = {n.id: n for n in names}
    found: dict[tuple[int, int], Candidate] = {}

    def add(alias: Name, canonical: Name, reason: str) -> None:
        if (alias.id, canonical.id) in no or (canonical.id, alias.id) in no:
            return
        key = (alias.id, canonical.id)
        if (canonical.id, alias.id) in found:
            key = (canonical.id, alias.id)
        c = found.setdefault(key, Candidate(by_id[key[0]], by_id[key[1]]))
        if reason not in c.reasons:
            c.reasons.append(reason)

    pairs = _pairs(names)
    for short_id, fits in pairs.items():
        for long, kind, reason in fits:
            add(by_id[short_id], long, reason)
            if len(fits) == 1 and _is_safe(by_id[short_id], kind):
                found[(short_id, long.id)].automatic = True
            elif len(fits) > 1:
                others = ", ".join(f"'{f[0].name}'" for f in fits if f[0].id != long.id)
                add(
                    by_id[short_id], long, f"ambiguous: '{by_id[short_id].name}' also fits {others}"
                )

    # A word says something only when few names of that kind use it: "migration" in
    # three names of a small graph does, "rollout" in six hundred does not.
    seen: dict[tuple[str, str], int] = defaultdict(int)
    per_type: dict[str, int] = defaultdict(int)
    for n in names:
        per_type[n.type] += 1
        for w in set(tokens(n.norm)):
            seen[(n.type, w)] += 1

    def rare(kind: str, words: list[str]) -> list[str]:
        limit = max(3, per_type[kind] // 50)
        return [w for w in words if seen[(kind, w)] <= limit]

    shared: dict[tuple[str, str, str], list[int]] = defaultdict(list)
    for entity_id, items in neighbours.items():
        if entity_id in by_id:
            for rel, other in set(items):
                if rel in IDENTITY_NEIGHBOURS:
                    shared[(by_id[entity_id].type, rel, other)].append(entity_id)
    for (_, rel, other), members in sorted(shared.items()):
        if len(members) < 2 or len(members) > max_group:
            continue
        for i, a in enumerate(sorted(members)):
            for b in sorted(members)[i + 1 :]:
                x, y = by_id[a], by_id[b]
                words = rare(x.type, _shared_words(x.norm, y.norm))
                if not words and (a, b) not in found and (b, a) not in found:
                    continue
                short, long = (x, y) if len(x.norm) <= len(y.norm) else (y, x)
                if words:
                    add(short, long, f"shared words: {', '.join(words)}")
                add(short, long, f"same neighbour: both {rel} {other}")
    return sorted(
        found.values(),
        key=lambda c: (not c.automatic, -len(c.reasons), c.canonical.name.lower(), c.alias.id),
    )


def _shared_words(a: str, b: str) -> list[str]:
    left = {w for w in tokens(a) if w not in STOPWORDS and len(w) > 1}
    return sorted(left & {w for w in tokens(b) if w not in STOPWORDS and len(w) > 1})


class Stated(NamedTuple):
    """A name a writer set beside a ticket id (``memcli.extract.aliases``), as the
    store found both among the graph's work items: the update that said it, the name as
    written there, and the two entities."""

    episode_id: int
    written: str
    ticket: Name
    name: Name


# How the reason of a merge ``stated_merges`` asks for begins: analyze finds these
# merges again to undo one whose update no longer says it.
STATED = "written beside "


def stated_merges(
    stated: Iterable[Stated],
    canon: Mapping[int, int],
    *,
    refused: Iterable[tuple[int, int]] = (),
) -> list[Candidate]:
    """The merges the text itself asks for: each name into the ticket written beside it,
    with the update that said so as the reason. ``canon``: the graph's merges so far
    (alias -> entity); ``refused``: (alias, canonical) pairs a person has unmerged.

    A name stays apart when it is already merged into something (a person's decision
    or an earlier merge holds), when it is written beside two different tickets (which
    one it means is not said), when the ticket is itself merged into another entity,
    or when a person undid this very merge. The ticket is the
    one kept: it is the name every tool and every update agrees on, and a ticket with
    two names written beside it takes both without chaining them.
    """
    no = set(refused)
    tickets: dict[int, set[int]] = defaultdict(set)
    first: dict[int, Stated] = {}
    for s in stated:
        target = canon.get(s.ticket.id, s.ticket.id)
        tickets[s.name.id].add(target)
        first.setdefault(s.name.id, s)
    out = []
    for name_id, targets in tickets.items():
        s = first[name_id]
        if len(targets) != 1 or name_id in canon:
            continue
        (target,) = targets
        if target == name_id or target != s.ticket.id or (name_id, target) in no:
            continue  # a ticket merged into another name is a person's to follow up
        reason = f"{STATED}{s.ticket.name} as {s.written!r} (update {s.episode_id})"
        out.append(Candidate(s.name, s.ticket, [reason], automatic=True))
    return out


_TICKET_NUMBER = re.compile(r"[A-Z][A-Z0-9]{1,9}-(\d+)")


def _initial(word: str) -> bool:
    """One letter, with or without its full stop: "K.", "K"."""
    return len(word.rstrip(".")) == 1 and word[0].isalpha()


def may_be_one_person(a: str, b: str) -> bool:
    """Whether two people's keys can name one person: one is the other's first name(s)
    ("tunde" and "tunde adeyemi") or first name and the initial of the last ("tomasz k"
    and "tomasz kowalski"). Ingest uses it so that "Tunde is on X" does not end Tunde
    Adeyemi's ownership of X as if a new owner had taken it over; analyze decides later
    whether the two are merged (``short_forms``)."""
    return _short_of(a.split(), b.split()) or _short_of(b.split(), a.split())


def _short_of(short: list[str], long: list[str]) -> bool:
    """``short`` is the first words of ``long``, or those and its last word's initial."""
    if not short or len(short) > len(long) or short == long:
        return False
    if len(short) < len(long) and long[: len(short)] == short:
        return True
    head, last = short[:-1], short[-1]
    return len(last) == 1 and bool(head) and long[: len(head)] == head and long[-1][0] == last


def short_forms(
    people: Sequence[Name],
    numbers: Sequence[Name],
    tickets: Sequence[Name],
    *,
    sames: Sequence[Name] = (),
    vague: Sequence[Name] = (),
    bases: Sequence[Name] = (),
    refused: Iterable[tuple[int, int]] = (),
) -> list[Candidate]:
    """Short forms people write for a name everyone knows, merged when the graph holds
    exactly one name they can stand for:

    - a first name alone ("Tunde", "Mei-Ling"), or with an initial ("Tomasz K."), for
      the one person whose full name fits ("Tunde Adeyemi", "Tomasz Kowalski"):
      teammates say "waiting on Tunde", the author's own updates carry the full name;
    - a ticket's number alone ("until 2210 lands", at least two digits) for the one
      ticket with that number ("WMS-2210"), as people drop the project key in chat;
    - "the same refactor" (a work item "same refactor", written when the update itself
      names no refactor) for the one work item whose name ends with "refactor": the
      writer says it is one named before;
    - "the auth stuff", "the auth work", "the auth thing" for "auth" (a vague last word
      adds nothing to a name), and a project key alone ("auth") for the project's one
      ticket ("AUTH-212") when it is the only one in the graph.

    ``people`` are the graph's persons, ``numbers`` its work items named by digits
    alone, ``sames`` those named "same ...", ``tickets`` its work items that may end in
    one of those numbers or heads, ``vague`` its work items ending in a vague word,
    ``bases`` its work items named by one word and its tickets ("auth 212"), all as they resolve now (merged aliases
    left out). Two Tundes, or a 2210 in two projects,
    stay apart: which one is meant is not said. A pair a person unmerged stays apart.
    """
    no = set(refused)
    out = []
    full: dict[str, list[Name]] = defaultdict(list)
    for p in people:
        words = p.name.split()
        if len(words) >= 2 and not _initial(words[-1]):
            full[words[0].casefold()].append(p)
    for p in people:
        words = p.name.split()
        if len(words) == 1:
            found = full.get(words[0].casefold(), [])
            why = "the first name"
        elif len(words) == 2 and _initial(words[1]):  # "Tomasz K." for "Tomasz Kowalski"
            letter = words[1][0].casefold()
            found = [
                f
                for f in full.get(words[0].casefold(), [])
                if f.name.split()[-1][:1].casefold() == letter
            ]
            why = "the first name and initial"
        else:
            continue
        if len(found) == 1 and (p.id, found[0].id) not in no:
            why = f"{p.name!r} is {why} of the only {found[0].name} in the graph"
            out.append(Candidate(p, found[0], [why], automatic=True))
    numbered: dict[str, list[Name]] = defaultdict(list)
    for t in tickets:
        m = _TICKET_NUMBER.fullmatch(t.name)
        if m:
            numbered[m.group(1)].append(t)
    for n in numbers:
        found = numbered.get(n.name, []) if n.name.isdigit() and len(n.name) >= 2 else []
        if len(found) == 1 and (n.id, found[0].id) not in no:
            why = f"{n.name!r} is the number of the only ticket {found[0].name} in the graph"
            out.append(Candidate(n, found[0], [why], automatic=True))
    for same in sames:
        head = same.norm.removeprefix("same ")
        found = [
            t
            for t in tickets
            if t.norm.endswith(" " + head)  # not a bare "refactor": another mention
            and not t.norm.startswith("same ")
            and t.type == same.type
        ]
        if head != same.norm and len(found) == 1 and (same.id, found[0].id) not in no:
            why = f"{same.name!r} refers back to the only {head} in the graph, {found[0].name}"
            out.append(Candidate(same, found[0], [why], automatic=True))
    plain = {b.norm: b for b in bases if " " not in b.norm}
    keyed: dict[str, list[Name]] = defaultdict(list)
    for b in bases:
        key, _, number = b.norm.partition(" ")
        if number.isdigit() and _TICKET_NUMBER.fullmatch(b.name):
            keyed[key].append(b)
    for v in vague:
        head, _, last = v.norm.rpartition(" ")
        if last == "work" and head in WORK_COMPOUNDS:
            continue  # "the paper work" is paperwork, not the paper
        base = plain.get(head)
        if base is not None and base.id != v.id and (v.id, base.id) not in no:
            why = f"{v.name!r} says no more than {base.name!r}"
            out.append(Candidate(v, base, [why], automatic=True))
    for key, base in plain.items():
        found = keyed.get(key, [])
        if len(found) == 1 and (base.id, found[0].id) not in no:
            why = f"{base.name!r} is the project of the only {key.upper()} ticket in the graph"
            out.append(Candidate(base, found[0], [why], automatic=True))
    return out


# Last words that add nothing to a work item's name: "the auth stuff" is "auth".
VAGUE_ENDINGS = (" stuff", " thing", " things", " work", " bits")
# Words that make one English word with "work" and mean something else than the word
# alone: "the paper work" (forms to fill in) is not "the paper" (an article).
WORK_COMPOUNDS = frozenset(
    """paper ground leg frame home net art team field road foot guess busy clock patch
    case needle fret wood iron stone brick metal glass""".split()
)
