"""The rules reader's fast paths read exactly what the plain code they replace read.

Each shortcut in the reader's hot path (where time phrases may start, which tokens the
context pass visits, ...) stands in for a simpler, slower formulation. These tests hold
each one to the formulation it replaced, on text built from the very words the patterns
name, so a new alternative added to a pattern without its shortcut fails here rather than
silently changing what the reader extracts.
"""

from __future__ import annotations

import itertools
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.extract import context, core, factuality, phrases, reader
from memcli.extract import text as normalise
from memcli.extract.rules import extract


def _blank_times_plainly(text: str) -> str:
    """Time phrases blanked the plain way: ``_TIME.finditer`` over the whole sentence."""
    spans = []
    for m in core._TIME.finditer(text):
        lead = core._TIME_LEAD.search(text, max(0, m.start() - 30), m.start())
        spans.append((lead.start() if lead else m.start(), m.end()))
    spans = sorted(spans + core._month_spans(text))  # months named alone: not a shortcut
    for start, end in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return text


# Every word the time pattern spells (day names are built from "mon" + "day"), digits,
# ordinals, clock times, ticket-like tokens and letters that fold to ASCII case-blind.
_WORDS = sorted(set(re.findall(r"[a-z]+", core._TIME.pattern))) + [
    "1",
    "12",
    "3rd",
    "21st",
    "10:30",
    "#4",
    "INFRA-12",
    "mid-week",
    "\u017funday",  # long s: a case-blind "sunday"
    "MONDAY",
    "Jan.",
    "the",
    "last",
    "since",
    "Q3",
    "\u0130",
]
_SEPARATORS = [" ", "", "-", ", ", ".", "_", "/"]


def test_every_time_word_alone_and_in_pairs_is_blanked_as_before() -> None:
    for word in _WORDS:
        for text in (word, word.title(), f"blocked on X since {word}", f"{word} 5"):
            assert core._blank_times(text) == _blank_times_plainly(text), text
    for a, b in itertools.product(_WORDS, repeat=2):
        for sep in (" ", "", "-"):
            text = f"waiting on {a}{sep}{b} for the export"
            assert core._blank_times(text) == _blank_times_plainly(text), text


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(_WORDS), st.sampled_from(_SEPARATORS)), min_size=1, max_size=9
    ),
    st.booleans(),
)
def test_time_phrases_are_blanked_where_the_full_pattern_finds_them(
    parts: list[tuple[str, str]], title: bool
) -> None:
    text = "".join(word + sep for word, sep in parts)
    text = text.title() if title else text
    assert core._blank_times(text) == _blank_times_plainly(text)


def test_a_time_phrase_is_never_read_as_part_of_a_blocker() -> None:
    got = extract("The ledger export is blocked on the schema change since Monday.", "Ana")
    assert [(f.source.name, f.relation.value, f.target.name) for f in got.facts] == [
        ("Ana", "owns", "ledger export"),
        ("ledger export", "blocked_by", "schema change"),
    ]


def _why_not_plainly(clause: str) -> str | None:
    """The first factuality label whose case-blind pattern finds the clause."""
    return next((label for label, p in factuality._LABELS if p.search(clause)), None)


_CLAUSE_WORDS = sorted(
    {w for _, p in factuality._LABELS for w in re.findall(r"[a-z']+", p.pattern)}
) + ["The", "export", "IS", "Blocked", "MIGHT", "n't", "?", "X", "\u017fhould", "\u212a"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_CLAUSE_WORDS), min_size=1, max_size=8), st.booleans())
def test_factuality_labels_are_read_case_blind_as_before(words: list[str], title: bool) -> None:
    clause = " ".join(words)
    clause = clause.title() if title else clause
    assert factuality.why_not(clause) == _why_not_plainly(clause)


def test_every_factuality_word_gives_the_same_label_in_any_case() -> None:
    for word in _CLAUSE_WORDS:
        for clause in (word, word.upper(), f"The export is {word} blocked on X", f"{word}?"):
            assert factuality.why_not(clause) == _why_not_plainly(clause), clause


# Every case-blind pattern the reader screens with a plain twin over lowercased ASCII.
_TWINNED = (
    [
        (context._ROSTER, context._ROSTER_LOWER),
        (context._ACTION_LINE, context._ACTION_LINE_LOWER),
        (normalise._FILLER_START, normalise._FILLER_START_LOWER),
        (normalise._DURATION, normalise._DURATION_LOWER),
        (core._SENTENCE_HINT, core._SENTENCE_HINT_LOWER),
    ]
    + [
        (pattern, twin)
        for (_, pattern), (_, twin) in zip(
            factuality._LABELS, factuality._LOWER_LABELS or (), strict=True
        )
    ]
    + [
        (pattern, twin)
        for (pattern, _), twin in zip(
            normalise._CONTRACTIONS, normalise._CONTRACTION_TWINS, strict=True
        )
    ]
)
_TWIN_WORDS = (
    sorted({w for pattern, _ in _TWINNED for w in re.findall(r"[a-z]+", pattern.pattern)})
    + ["Raj", "-", ":", "ACTION", "Attendees", "\n", "*", "So", "?", "1", "'s", "n't", "'S"]
    + [
        "she's",
        "SHE'S",
        "Dana's",
        "it's",
        "can't",
        "Won't",
        "I'm",
        "they're",
        "we've",
        "I'll",
        "he'd",
        "x's",
        "shan't",
        "isn't",
    ]
)


def test_every_screened_pattern_but_one_has_its_twin() -> None:
    # "I'm" keeps a capital in its pattern: it is never screened, always searched
    assert [p.pattern for p, twin in _TWINNED if twin is None] == [r"\b(I)'m\b"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_TWIN_WORDS), min_size=1, max_size=8), st.booleans())
def test_plain_twins_find_what_the_case_blind_patterns_find(words: list[str], title: bool) -> None:
    sample = " ".join(words)
    sample = sample.title() if title else sample
    for pattern, twin in _TWINNED:
        if twin is None:
            continue
        assert bool(twin.search(sample.lower())) == bool(pattern.search(sample)), pattern.pattern
        assert bool(twin.match(sample.lower())) == bool(pattern.match(sample)), pattern.pattern


def test_minutes_are_recognised_whatever_the_case_of_the_attendance_line() -> None:
    for label in ("Attendees", "ATTENDEES", "attendees", "In Attendance"):
        got = extract(
            f"{label}: Raj Patel, Lena Ortiz (notes)\nRaj: the ledger export is done", "Lena Ortiz"
        )
        assert [(f.source.name, f.relation.value, f.target.name) for f in got.facts] == [
            ("Raj Patel", "completed", "ledger export")
        ], label


def _contractions_plainly(s: str) -> str:
    low = s.lower()
    for (pattern, repl), hint in zip(
        normalise._CONTRACTIONS, normalise._CONTRACTION_HINTS, strict=True
    ):
        if hint in low:
            s = pattern.sub(repl, s)
    return s


def test_contractions_are_expanded_as_before_in_any_case() -> None:
    for sentence in (
        "She's blocked on the ledger export",
        "SHE'S BLOCKED ON THE LEDGER EXPORT",
        "Dana's been waiting on the audit log fix",
        "The export's stuck and we can't ship, it's Ana's",
        "I'm on the search revamp and they're done with it",
    ):
        # the normaliser expands exactly what the unscreened loop expands
        assert normalise._contract(sentence) == _contractions_plainly(sentence), sentence


@settings(max_examples=200, deadline=None)
@given(st.from_regex(core._TICKET, fullmatch=True))
def test_every_ticket_reference_has_a_digit(ticket: str) -> None:
    # noun phrases look for ticket references only when the phrase has a digit
    assert core._DIGIT.search(ticket)


_TOKEN_TEXT = st.lists(
    st.sampled_from(list("aZ9_ '’&.+/-%—–>,;:()\t\u00e9") + ["PR", "mr", "org/repo", "v4.2"]),
    max_size=20,
).map("".join)


@settings(max_examples=500, deadline=None)
@given(_TOKEN_TEXT)
def test_tokens_of_a_text_without_a_hash_are_found_by_the_plain_pattern(text: str) -> None:
    # the tokeniser runs the shorter pattern when the sentence has no "#"
    assert "#" not in text
    assert core._TOKEN_PLAIN.findall(text) == core._TOKEN.findall(text)


def test_the_plain_token_pattern_finds_every_word_form_as_before() -> None:
    for text in (
        "R&D and CI/CD shipped v4.2.0 right-to-left, X's at 82% -> done; (maybe) — ok",
        "org/repo and PR 62 / mr 7 - the export",
        "Ana’s fix: the ledger-export’s schema + auth",
    ):
        assert core._TOKEN_PLAIN.findall(text) == core._TOKEN.findall(text), text


def _drop_symbols_plainly(text: str) -> str:
    """Symbols dropped the plain way: every character of the sentence looked at."""
    import unicodedata

    if text.isascii():
        return text
    out = "".join(
        "\x00" if ch > "\x7f" and unicodedata.category(ch) in ("So", "Sk", "Cs", "Co") else ch
        for ch in text
    ).replace("\ufe0f", "")
    out = re.sub(r"\s*\x00[\x00\s]*", " \x00 ", out).strip(" \x00")
    return out.replace(" \x00 ", ", ")


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("ab \x00,é’—🎉🙌✅\ufe0f^`©") + ["\u2603"]), max_size=30)
)
def test_symbols_are_dropped_as_before(text: str) -> None:
    assert normalise._drop_symbols(text) == _drop_symbols_plainly(text)


def test_an_emoji_inside_a_sentence_still_ends_a_clause() -> None:
    for text in ("merged 🎉 lmk if it breaks", "not blocked anymore 🙌 huge thanks", "café ✅"):
        assert normalise._drop_symbols(text) == _drop_symbols_plainly(text), text


_ITEM_WORDS = sorted(set(re.findall(r"[a-z]+", phrases._ITEM_SPLIT.pattern))) + [
    "AND",
    "And",
    "Priya's",
    "export",
    "#12",
    ",",
    "&",
    "+",
    "stand",
]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(_ITEM_WORDS), st.sampled_from([" ", "", ", "])), max_size=8)
)
def test_item_lists_are_split_where_the_pattern_splits_them(parts: list[tuple[str, str]]) -> None:
    text = "".join(word + sep for word, sep in parts)
    assert phrases.split_items(text) == phrases._ITEM_SPLIT.split(text)


def _words_of(pattern: re.Pattern[str]) -> list[str]:
    return sorted(set(re.findall(r"[a-z]+", pattern.pattern)))


_SCREENED_PHRASE_WORDS = (
    _words_of(phrases._CONTAINER)
    + _words_of(phrases._AGENT_VERB_HEAD)
    + ["The", "ON", "For", "\u017fhips", "Lands", "export", "Priya", "X"]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.sampled_from(_SCREENED_PHRASE_WORDS), min_size=1, max_size=7),
    st.sampled_from([" ", "  ", "\t", " \u00a0"]),
)
def test_phrase_screens_pass_every_phrase_their_pattern_finds(words: list[str], sep: str) -> None:
    text = sep.join(words)
    folded = set(text.casefold().split())
    if phrases._CONTAINER.match(text):
        assert not phrases._CONTAINER_LINKS.isdisjoint(folded), text
    if phrases._AGENT_VERB_HEAD.fullmatch(text):
        assert not phrases._AGENT_VERB_WORDS.isdisjoint(folded), text


def test_container_and_agent_verb_heads_are_still_read() -> None:
    assert phrases._parse_phrase("the rest of the ledger export").core == "ledger export"
    assert phrases._parse_phrase("Priya ships the export").owners == ("Priya",)


_TIME_PHRASE_WORDS = _words_of(phrases._TIME_PHRASE) + [
    "3",
    "Q3",
    "q5",
    "\u017funday",
    "Monday",
    "mondays",
    "SPRINT",
    "weekday",
    "export",
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_TIME_PHRASE_WORDS), min_size=1, max_size=5))
def test_every_time_phrase_ends_in_a_listed_word(words: list[str]) -> None:
    text = " ".join(words)
    if phrases._TIME_PHRASE.fullmatch(text):
        assert text.rsplit(None, 1)[-1].casefold() in phrases._TIME_PHRASE_ENDS, text


def test_every_weekday_and_period_is_a_time_phrase_ending() -> None:
    for day in ("mon", "tues", "wednes", "thurs", "fri", "satur", "sun"):
        assert phrases._TIME_PHRASE.fullmatch(f"{day}day")
        assert f"{day}day" in phrases._TIME_PHRASE_ENDS
    for text in ("end of the quarter", "a few more days", "eow", "Q4", "the weekend", "3 hours"):
        assert phrases._TIME_PHRASE.fullmatch(text), text
        assert not phrases._valid_core(text), text


_LINE_WORDS = _words_of(normalise._SECTION_LINE) + [
    "-",
    "*",
    "**",
    "•",
    "1.",
    "2)",
    "\u0663.",
    "[x]",
    "[ ]",
    ":",
    "Done:",
    "the",
    "export",
]


@settings(max_examples=500, deadline=None)
@given(
    st.lists(st.sampled_from(_LINE_WORDS), min_size=1, max_size=5),
    st.sampled_from([" ", "  ", "\t", ""]),
    st.sampled_from(["", " ", "\t "]),
)
def test_line_screens_pass_every_line_their_pattern_finds(
    words: list[str], sep: str, indent: str
) -> None:
    line = indent + sep.join(words)
    if normalise._SECTION_LINE.fullmatch(line):
        assert len(line.split(None, 3)) <= 3, line
    if normalise._BULLET.match(line):
        lead = line.lstrip()[:1]
        assert lead in normalise._BULLET_MARKS or lead.isdigit(), line


# Opening screens: a pattern that can only start with a few ASCII letters is run only
# when the text opens with one of them (or with a symbol or a non-ASCII letter). Each
# screen must pass every text its pattern matches, whatever the case of the words.
_OPENING_SCREENS = [
    (phrases._LEADING_ARTICLE.match, lambda t: phrases._may_open(t, phrases._ARTICLE_LEADS)),
    (
        phrases._POSSESSIVE_DET.fullmatch,
        lambda t: phrases._may_open(t, phrases._POSSESSIVE_DET_LEADS),
    ),
    (phrases._DEMONSTRATIVE.match, lambda t: phrases._may_open(t, phrases._DEMONSTRATIVE_LEADS)),
    (reader._ACTION_START.match, reader._may_start_action),
    (normalise._HEADING.match, lambda t: t.lstrip()[:1] in normalise._HEADING_LEADS),
]
_OPENING_WORDS = sorted(
    {
        w
        for match, _screen in _OPENING_SCREENS
        for w in re.findall(r"[a-z-]+|#+|[-=*_`]{3}", match.__self__.pattern)
    }
)


@settings(max_examples=600, deadline=None)
@given(
    st.sampled_from(["", " ", "\t", "- ", "* ", "(", "\u0130", "\u0131", "\u017f", "\u212a", "é"]),
    st.sampled_from(_OPENING_WORDS),
    st.sampled_from([str, str.upper, str.title]),
    st.sampled_from(["", " ", " the export", " two more words", ": Dana to", "\n"]),
)
def test_opening_screens_pass_every_text_their_pattern_matches(
    lead: str, word: str, case: object, tail: str
) -> None:
    text = lead + case(word) + tail  # type: ignore[operator]
    for match, screen in _OPENING_SCREENS:
        if match(text) is not None:
            assert screen(text), (match, text)


def test_the_opening_screens_still_let_their_lines_through() -> None:
    assert phrases._strip_determiners("the ledger export", []) == "ledger export"
    owners: list[str] = []
    assert phrases._strip_determiners("Their ledger export", owners) == "ledger export"
    assert owners == []  # "their" names no one the reader can resolve
    out = extract("# Notes\nAction: Dana to rotate the signing keys.", "Lee")
    assert [(f.source.name, f.target.name) for f in out.facts] == [("Dana", "signing keys")]


def test_a_letter_or_digit_is_what_the_alnum_pattern_finds() -> None:
    # sentence_lines takes a piece whose first character is alphanumeric without a search
    for code in range(0x3000):
        ch = chr(code)
        assert bool(normalise._ALNUM.fullmatch(ch)) == ch.isalnum(), hex(code)


@settings(max_examples=300, deadline=None)
@given(st.from_regex(normalise._WEEKDAY_END, fullmatch=True))
def test_a_weekday_at_the_end_ends_in_day(word: str) -> None:
    # the normaliser tries the weekday pattern only on a last word ending in "day"
    low = word.lower()
    if normalise._WEEKDAY_END.fullmatch(low):
        assert low.endswith("day")


@settings(max_examples=300, deadline=None)
@given(st.from_regex(phrases._GERUND_CLAUSE, fullmatch=False))
def test_a_gerund_clause_in_ascii_text_has_ing(text: str) -> None:
    # _valid_core tries the gerund-clause pattern only on text with "ing" (or non-ASCII)
    if phrases._GERUND_CLAUSE.match(text) and text.isascii():
        assert "ing" in text.lower()


def _valid_core_plainly(core: str) -> bool:
    """``phrases._valid_core`` as it was written before it lowered the phrase once."""
    if not core or not any(ch.isalnum() for ch in core):
        return False
    words = core.split()
    if len(words) > 8 or words[0].lower() in phrases._PREPOSITIONS:
        return False
    if len(core) == 1 and core.isalnum():
        return False
    for k, word in enumerate(words):
        bare = word.strip(phrases._PUNCT)
        if bare.lower() in phrases._CLAUSE_WORDS and not phrases._ACRONYM.fullmatch(bare):
            if (
                k == len(words) - 1
                and bare.lower().endswith("ing")
                and (
                    k >= 2
                    or (
                        k == 1
                        and words[0][:1].islower()
                        and bare.lower() not in phrases._NO_HEAD_ING
                    )
                )
            ):
                continue
            return False
    low = core.lower()
    if low in phrases._VAGUE or (
        low.rsplit(None, 1)[-1].casefold() in phrases._TIME_PHRASE_ENDS
        and phrases._TIME_PHRASE.fullmatch(low)
    ):
        return False
    lows = [w.lower() for w in words]
    if lows[0] == "next" or (
        lows[0] == "same" and (len(lows) == 1 or "as" in lows or lows[-1] in phrases._SAME_VAGUE)
    ):
        return False
    if len(words) == 2 and words[0].endswith(("'s", "’s")) and words[1].lower() in ("side", "end"):
        return False
    for k, word in enumerate(words):
        low_word = word.lower()
        if low_word in phrases._EVERYDAY and (
            (k == len(words) - 1 and (k == 0 or words[k - 1].lower() in phrases._CASUAL))
            or (k < len(words) - 1 and low_word in phrases._PERSONAL)
        ):
            return False
    if ("/" in core or "%" in core or "pts" in low or "points" in low) and phrases._SCORE.search(
        core
    ):
        return False
    return not (phrases._QUANTITY.match(core) or phrases._GERUND_CLAUSE.match(core))


_CORE_WORDS = sorted(
    {
        *list(phrases._CLAUSE_WORDS)[:40],
        *phrases._EVERYDAY,
        *phrases._PERSONAL,
        *phrases._CASUAL,
        *phrases._PREPOSITIONS,
        "next",
        "same",
        "as",
        "thing",
        "store's",
        "side",
        "handling",
        "export",
        "API",
        "IS",
        "\u0130ng",
        "runn\u0130ng",
        "two",
        "21/34",
        "pts",
        "80%",
        "today",
        "reviewing",
        "the",
    }
)


@settings(max_examples=1500, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(_CORE_WORDS),
            st.sampled_from([str, str.upper, str.title]),
            st.sampled_from(["", ",", ".", "-", "(", "'"]),
        ),
        min_size=1,
        max_size=10,
    )
)
def test_item_phrases_are_judged_as_before(parts: list[tuple[str, object, str]]) -> None:
    core = " ".join(case(word) + punct for word, case, punct in parts)  # type: ignore[operator]
    assert phrases._valid_core.__wrapped__(core) == _valid_core_plainly(core), core
