"""``redact`` screens a text with a few cheap string checks and searches only the patterns
whose evidence is there; the result must be exactly what the full pattern set gives
(``_redact_all``), for every text. Generated texts mix the sample secrets, pieces of
them, the words that name credentials, long prose words and stray characters."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memcli.redact import _redact_all, redact
from tests.reliability.test_redact import LOWER_CASE_TOKENS, ORDINARY, SECRETS

SECRET_VALUES = [secret for _, secret, _ in SECRETS] + LOWER_CASE_TOKENS
SECRET_TEXTS = [text for text, _, _ in SECRETS]
NAMES = [
    "password=",
    "PASSWD: ",
    "pwd=",
    "api_key=",
    "apiKey: ",
    "client-secret=",
    "AUTH_TOKEN=",
    "token: ",
    "Secret: ",
    "Authorization: Bearer ",
    "authorization: basic ",
    "bearer ",
    "AccountKey=",
    "SharedAccessKey=",
    "aws_secret_access_key = ",
    "key-",
    "-----BEGIN RSA PRIVATE KEY-----",
    "https://",
    "postgres://",
    "://",
]
VALUES = ["abcdefgh12345678", "hunter2!hunter2!", "Zm9vYmFy1234567890==", "'s3cr3t'", "x9"]
PROSE = [
    "Infrastructure",
    "Investigating",
    "reconciliation",
    "the",
    "shipped",
    "Straightforward",
    "microservices",
]


def piece(secret: str) -> st.SearchStrategy[str]:
    """A secret, or a slice of it: near misses sit on the screen's edges."""
    return st.tuples(st.integers(0, len(secret)), st.integers(0, len(secret))).map(
        lambda ij: secret[min(ij) : max(ij)]
    )


fragment = st.one_of(
    st.sampled_from(SECRET_VALUES),
    st.sampled_from(SECRET_VALUES).flatmap(piece),
    st.sampled_from(SECRET_TEXTS + ORDINARY),
    st.sampled_from(NAMES),
    st.tuples(st.sampled_from(NAMES), st.sampled_from(VALUES)).map("".join),
    st.sampled_from(PROSE),
    st.text(alphabet=st.sampled_from("abcxyzAKQZ0179_-+/=.:@\"' \n"), max_size=30),
    st.sampled_from(["ſecret=hunter2!x", "\u212aEY=abc123def456", "é", "\u00a0"]),
)
separator = st.sampled_from(["", " ", "\n", "=", ": ", ".", "_", "-", "\t"])


@settings(deadline=None, max_examples=400)
@given(st.lists(st.tuples(fragment, separator), min_size=1, max_size=6))
def test_the_screen_agrees_with_the_full_set(parts: list[tuple[str, str]]) -> None:
    text = "".join(a + b for a, b in parts)
    assert redact(text) == _redact_all(text)


@given(st.sampled_from(SECRET_VALUES), st.sampled_from(PROSE), separator)
def test_a_secret_beside_prose_is_seen(secret: str, word: str, sep: str) -> None:
    for text in (word + sep + secret, secret + sep + word, f"{word} {secret}{sep}"):
        assert redact(text) == _redact_all(text), text


@settings(deadline=None, max_examples=300)
@given(st.lists(st.tuples(fragment, separator).map("".join), min_size=7, max_size=7))
def test_an_update_is_screened_field_by_field_as_the_fields_joined(fields: list[str]) -> None:
    """``redact_episode`` screens each field on its own (remembering the short ones):
    an update passes exactly when no field holds evidence of a secret, and then every
    field redacts to itself; otherwise the fields are redacted one by one."""
    from memcli.models import EntityRef, EntityType, EpisodeInput, ExtractedFact, Relation
    from memcli.redact import _evidence, _plain_episode, redact_episode

    content, author, source, src, tgt, sentence, alias = fields
    episode = EpisodeInput(
        content=content or "x",
        author=author,
        occurred_at="2026-05-01T09:00:00Z",
        graph=None,
        source=source,
        format="json",
        facts=[
            ExtractedFact(
                EntityRef(src or "a", EntityType.WORK_ITEM),
                Relation.BLOCKED_BY,
                EntityRef(tgt or "b", EntityType.WORK_ITEM),
                sentence,
            )
        ],
        aliases=((EntityRef(src or "a", EntityType.WORK_ITEM), alias),),
    )
    parts = [episode.content, author, source, src or "a", tgt or "b", sentence, src or "a", alias]
    joined = "\n".join(parts)
    plain = joined.isascii() and _evidence(joined) is None
    assert _plain_episode(episode) == plain
    if plain:
        assert all(redact(p) == (p, {}) for p in parts)
        assert redact_episode(episode) == (episode, {})
