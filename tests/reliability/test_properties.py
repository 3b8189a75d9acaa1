"""Property-based tests: the extractor and the readers never crash on any input, always
give the same answer for the same input, and never invent a fact from text that states
no relation."""

from __future__ import annotations

import json
import re
import string
from datetime import datetime
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from memcli.errors import InputError
from memcli.extract.core import core_cues
from memcli.extract.lexicon import TYPOS
from memcli.extract.rules import extract
from memcli.readers import content_hash, parse_document

EXTRACT_DIR = Path(__file__).resolve().parents[2] / "memcli" / "extract"
RULES_SOURCE = "\n".join(p.read_text() for p in sorted(EXTRACT_DIR.glob("*.py")))
# Every word the extractor mentions (keywords, stop words, names it knows) and every
# word of its generated lexicon (inflections, typo variants): random words avoiding all
# of them state no relation the reader could read.
KNOWN_WORDS = (
    {w.lower() for w in re.findall(r"[A-Za-z]+", RULES_SOURCE)}
    | {w for cue in core_cues() for w in re.findall(r"[a-z]+", cue)}
    | set(TYPOS)
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

free_word = st.text(alphabet=string.ascii_lowercase, min_size=3, max_size=9).filter(
    lambda w: w not in KNOWN_WORDS
)
word = st.one_of(free_word, free_word.map(str.capitalize))
separator = st.sampled_from([" ", " ", " ", ". ", ", ", "; ", ": ", " - ", " -> ", "\n", "\n- "])


@st.composite
def keywordless_text(draw: st.DrawFn) -> str:
    words = draw(st.lists(word, min_size=1, max_size=40))
    out = words[0]
    for w in words[1:]:
        out += draw(separator) + w
    return out + draw(st.sampled_from(["", ".", "!", "\n"]))


@SETTINGS
@given(st.text(max_size=400), st.one_of(st.none(), st.text(max_size=30)))
@example("The API migration is blocked on the auth service refactor.", "Alice")
@example("", None)
@example("\x00\ufeff\u2028\u202e", "\u202e")
def test_extract_never_crashes_and_is_deterministic(text: str, author: str | None) -> None:
    first = extract(text, author)
    second = extract(text, author)
    assert first == second
    for fact in first.facts:
        assert fact.source.name.strip() and fact.target.name.strip()


@SETTINGS
@given(keywordless_text(), st.one_of(st.none(), word))
def test_extract_invents_nothing_from_text_without_relations(text: str, author: str | None) -> None:
    extraction = extract(text, author)
    assert extraction.facts == []


RELATION_SENTENCES = [
    "The API migration is blocked on the auth service refactor.",
    "The backend team owns the auth service refactor.",
    "Bob shipped the payments integration.",
    "The checkout flow is no longer blocked by the payments integration.",
]


@SETTINGS
@given(
    st.lists(
        st.one_of(keywordless_text(), st.sampled_from(RELATION_SENTENCES)), min_size=1, max_size=6
    )
)
def test_facts_come_only_from_relation_sentences(parts: list[str]) -> None:
    """Noise around real sentences adds no fact: every fact quotes a relation sentence."""
    text = "\n".join(parts)
    for fact in extract(text, "Alice").facts:
        assert any(fact.sentence.strip() in s for s in parts if s in RELATION_SENTENCES)


# --- readers ---

SUFFIXES = ["a.md", "a.txt", "a.json", "a.jsonl", "a.markdown", "-", "noext"]
yaml_scalar = st.one_of(
    st.text(max_size=20),
    st.integers(),
    st.floats(allow_nan=True),
    st.booleans(),
    st.none(),
    st.sampled_from(
        ["2026-11-02", "2026-13-45", "99999999999999", "-1", "[a, b", "{x: ", "!!binary x"]
    ),
)


@st.composite
def front_matter_doc(draw: st.DrawFn) -> str:
    keys = draw(
        st.lists(
            st.one_of(
                st.sampled_from(["author", "date", "graph", "source", "occurred_at", "title"]),
                st.text(alphabet=string.ascii_letters + "_- 0123456789:", min_size=1, max_size=8),
            ),
            max_size=5,
        )
    )
    lines = [
        f"{k}: {json.dumps(draw(yaml_scalar)) if draw(st.booleans()) else draw(yaml_scalar)}"
        for k in keys
    ]
    body = draw(st.one_of(st.text(max_size=80), keywordless_text()))
    return "---\n" + "\n".join(lines) + "\n---\n" + body


json_values = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20)
    ),
    lambda children: st.one_of(
        st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def episode_object(draw: st.DrawFn) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key in ("content", "author", "occurred_at", "graph", "source", "facts", "extra"):
        if draw(st.booleans()):
            obj[key] = draw(
                st.one_of(
                    json_values,
                    st.sampled_from(
                        ["2026-11-02T09:00:00Z", "Alice", "blocked on x", "2026-02-30"]
                    ),
                    st.lists(
                        st.fixed_dictionaries(
                            {
                                "source": st.one_of(st.text(max_size=10), json_values),
                                "relation": st.sampled_from(["blocked_by", "owns", "likes", ""]),
                                "target": st.one_of(st.text(max_size=10), json_values),
                            }
                        ),
                        max_size=3,
                    ),
                )
            )
    return obj


@st.composite
def any_document(draw: st.DrawFn) -> tuple[str, str]:
    name = draw(st.sampled_from(SUFFIXES))
    text = draw(
        st.one_of(
            st.text(max_size=300),
            front_matter_doc(),
            episode_object().map(json.dumps),
            st.lists(episode_object().map(json.dumps), max_size=4).map("\n".join),
            st.lists(episode_object(), max_size=3).map(json.dumps),
            json_values.map(json.dumps),
        )
    )
    return name, text


def parse_outcome(name: str, text: str) -> Any:
    try:
        episodes, errors = parse_document(text, name, default_time="2026-01-01T00:00:00Z")
    except InputError as exc:
        return ("error", exc.source, exc.reason)
    return (episodes, [(e.source, e.reason) for e in errors])


@SETTINGS
@given(any_document())
@example(("a.md", "---\n1: x\n---\nt"))
@example(("a.md", "---\n- a\n---\nt"))
@example(("a.md", "---\ndate: 99999999999999\n---\nx"))
@example(("a.json", "[" * 100_000))
@example(("a.jsonl", '{"content": "a\u2028b", "occurred_at": "2026-01-01"}\n{bad'))
def test_readers_never_crash_and_are_deterministic(doc: tuple[str, str]) -> None:
    """Any input gives episodes or InputErrors with the source and a reason, never an
    exception, and the same answer twice."""
    name, text = doc
    first = parse_outcome(name, text)
    assert first == parse_outcome(name, text)
    if first[0] == "error":
        assert first[1].startswith(name if name != "-" else "-") and first[2]
        return
    episodes, errors = first
    for source, reason in errors:
        assert source.startswith(name) and reason
    for ep in episodes:
        assert ep.content.strip()
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", ep.occurred_at), ep.occurred_at


@SETTINGS
@given(
    st.lists(
        st.fixed_dictionaries(
            {
                "content": st.text(min_size=1, max_size=60).filter(str.strip),
                "author": st.one_of(st.none(), st.text(min_size=1, max_size=10).filter(str.strip)),
                "occurred_at": st.datetimes(
                    min_value=datetime(1900, 1, 1), max_value=datetime(2199, 12, 31)
                ).map(lambda d: d.strftime("%Y-%m-%dT%H:%M:%S").rjust(19, "0") + "Z"),
                "graph": st.text(min_size=1, max_size=10).filter(str.strip),
            }
        ),
        min_size=1,
        max_size=5,
    )
)
def test_jsonl_round_trips_every_record(records: list[dict[str, Any]]) -> None:
    """What json.dumps writes one a line, the JSONL reader reads back field for field,
    whatever characters the strings hold (U+2028, NUL, RTL marks, emoji)."""
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in records) + "\n"
    episodes, errors = parse_document(text, "x.jsonl", default_time=None)
    assert errors == []
    assert len(episodes) == len(records)
    for ep, rec in zip(episodes, records, strict=True):
        assert ep.content == rec["content"].strip()
        assert ep.occurred_at == rec["occurred_at"]
        assert ep.author == (rec["author"].strip() if rec["author"] else None)


@SETTINGS
@given(st.text(max_size=80), st.text(alphabet=" \t\n", min_size=1, max_size=3))
def test_content_hash_ignores_whitespace_layout(text: str, ws: str) -> None:
    spaced = ws.join(text.split())
    assert content_hash(text, "a", "t") == content_hash(spaced, "a", "t")
