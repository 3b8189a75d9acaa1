"""Secrets: every pattern is caught, ordinary text is untouched, nothing secret is stored
or handed to an extractor (which may be a language model)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memcli import api
from memcli.models import Extraction
from memcli.redact import PATTERNS, _redact_all, redact
from memcli.sources import expand
from memcli.store import Store
from tests.conftest import Cli, update

GH = "ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8"  # 36 characters after the prefix
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0"
    ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
PEM = (
    "-----BEGIN RSA PRIVATE KEY-----\n"
    "MIIEpAIBAAKCAQEA7bq98R3gT2Vqk1f3yM4n9c2xZ0r8J5uX6hQ1pW3eL0sK9dF2\n"
    "aB3cD4eF5gH6iJ7kL8mN9oP0qR1sT2uV3wX4yZ5==\n"
    "-----END RSA PRIVATE KEY-----"
)

# Made-up values shaped like each vendor's credentials (none is a real secret).
HEX32 = "3f9a1c7e5b2d8f4a6c0e9b1d7a3f5c8e"
ALNUM36 = "Zq8Xw2Vb6Nm4Lk0Jh7Gf5Ds3Ap9Oi1Uy2TrE"
STRIPE_LIVE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
STRIPE_RESTRICTED = "rk_live_" + "51HxYzAbCdEfGhIjKlMnOpQrStUv"
STRIPE_TEST = "sk_test_" + "26PHem9AhJZvU623DfE1x4sd"
GOOGLE = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
ANTHROPIC = "sk-ant-api03-" + "Xy7_Qw3-Er5Ty9Ui1Op" * 5 + "AA"
PYPI = "pypi-AgEIcHlwaS5vcmcCJ" + "Dk3NmY0ZTc4LWFiMTItNDVlZi04ODQ2LTBhNTg3Y2FkZTk0OQ" * 2
AZURE = "Zm9vYmFyYmF6" * 7 + "qux12+/AbCd=="
TELEGRAM = "5812309467:AAHd3fLk9Qw-ErTy7UiOp2AsDfGh4JkLzXc"

# (text, secret, kind) for each vendor format
VENDOR: list[tuple[str, str, str]] = [
    (f"The billing worker uses {STRIPE_LIVE} in prod.", STRIPE_LIVE, "stripe_key"),
    (f"Restricted key {STRIPE_RESTRICTED} for reports.", STRIPE_RESTRICTED, "stripe_key"),
    (f"STRIPE_KEY={STRIPE_TEST}", STRIPE_TEST, "stripe_key"),
    (f"Maps load with key={GOOGLE} today.", GOOGLE, "google_api_key"),
    (
        "OAuth client secret GOCSPX-" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7b in the console.",
        "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",
        "google_oauth_secret",
    ),
    (f"The agent runs with {ANTHROPIC} for now.", ANTHROPIC, "anthropic_key"),
    (
        "HF token hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi pulls the model.",
        "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",
        "huggingface_token",
    ),
    (f"Publish with npm_{ALNUM36} from CI.", f"npm_{ALNUM36}", "npm_token"),
    (f"Upload token {PYPI} is scoped to one project.", PYPI, "pypi_token"),
    (
        "Mail goes out via SG."
        + "aB3dE6gH9jK2mN5pQ8sT1v"
        + "."
        + "Wx4yZ7b0Cd3Ef6Gh9Ij2Kl5Mn8Op1Qr4St7Uv0Wx3Yz"
        + " now.",
        "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",
        "sendgrid_key",
    ),
    (f"SMS sends with SK{HEX32} from the worker.", f"SK{HEX32}", "twilio_key"),
    (f"Mailgun key-{HEX32} was rotated.", f"key-{HEX32}", "mailgun_key"),
    (f"Storefront app shpat_{HEX32} has write scope.", f"shpat_{HEX32}", "shopify_token"),
    (f"Droplets via dop_v1_{HEX32}{HEX32} only.", f"dop_v1_{HEX32}{HEX32}", "digitalocean_token"),
    (
        f"The notebook job uses dapi{'0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d'}.",
        "dapi0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d",
        "databricks_token",
    ),
    (
        "Vault login hvs.CAESIJx7QmVp2Lk9Fd3Wz8Ty5Rb1Nc6Hg4Sa0 done.",
        "hvs.CAESIJx7QmVp2Lk9Fd3Wz8Ty5Rb1Nc6Hg4Sa0",
        "vault_token",
    ),
    (
        f"Dashboards provisioned with glsa_{ALNUM36[:32]}_{HEX32[:8]} today.",
        f"glsa_{ALNUM36[:32]}_{HEX32[:8]}",
        "grafana_token",
    ),
    (
        f"Collections sync with PMAK-{HEX32[:24]}-{HEX32}ab nightly.",
        f"PMAK-{HEX32[:24]}-{HEX32}ab",
        "postman_key",
    ),
    (
        "Alerts use NRAK-7QW3ER5TY9UI1OP2AS4DF6GH8JK today.",
        "NRAK-7QW3ER5TY9UI1OP2AS4DF6GH8JK",
        "newrelic_key",
    ),
    (f"Issues sync via lin_api_{ALNUM36}Ab3d now.", f"lin_api_{ALNUM36}Ab3d", "linear_key"),
    (
        "Payments use sq0atp-Xy7Qw3Er5Ty9Ui1Op2AsDf in the sandbox.",
        "sq0atp-Xy7Qw3Er5Ty9Ui1Op2AsDf",
        "square_token",
    ),
    (f"Release upload uses sntryu_{HEX32}{HEX32} in CI.", f"sntryu_{HEX32}{HEX32}", "sentry_token"),
    (f"The bot runs as {TELEGRAM} in the ops chat.", TELEGRAM, "telegram_bot_token"),
    (
        "Backups are encrypted to AGE-SECRET-KEY-1"
        + "QYZ3W7X9L2KDF8H4N6P0RT5VJCGMSA"
        + "EU3W7X9L2KDF8H4N6P0RT5VJCGXY .",
        "AGE-SECRET-KEY-1QYZ3W7X9L2KDF8H4N6P0RT5VJCGMSAEU3W7X9L2KDF8H4N6P0RT5VJCGXY",
        "age_secret_key",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=atlasdata;AccountKey="
        + AZURE
        + ";EndpointSuffix=core.windows.net",
        AZURE,
        "azure_storage_key",
    ),
    (
        "Deploys post to https://discord.com/api/webhooks/112233445566778899/"
        "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7b0Cd3Ef6 now.",
        "https://discord.com/api/webhooks/112233445566778899/Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7b0Cd3Ef6",
        "discord_webhook",
    ),
    (
        "Runner uses glrt-Xy7Qw3Er5Ty9Ui1Op2AsDf to register.",
        "glrt-Xy7Qw3Er5Ty9Ui1Op2AsDf",
        "gitlab_token",
    ),
    (
        "App-level xapp-1-A04BCDEFGH1-7711223344556-" + HEX32 + " for socket mode.",
        "xapp-1-A04BCDEFGH1-7711223344556-" + HEX32,
        "slack_token",
    ),
    ("MAPBOX_ACCESS_KEY=pk9Xy7Qw3Er5Ty9Ui1Op", "pk9Xy7Qw3Er5Ty9Ui1Op", "api_key"),
    ('{"signingSecret": "Wq4Er7Ty0Ui3Op6As9Df"}', "Wq4Er7Ty0Ui3Op6As9Df", "secret"),
    ("NPM_AUTH_TOKEN: 7f3e9a1c5b2d8f4a6c0e", "7f3e9a1c5b2d8f4a6c0e", "token"),
]

# (text containing a secret, the secret itself, the kind reported)
SECRETS: list[tuple[str, str, str]] = [
    ("Rotated AKIAIOSFODNN7EXAMPLE after the leak.", "AKIAIOSFODNN7EXAMPLE", "aws_access_key"),
    ("Temp creds ASIAY34FZKBOKMUTVV7A expire soon.", "ASIAY34FZKBOKMUTVV7A", "aws_access_key"),
    (f"aws_secret_access_key = {AWS_SECRET}", AWS_SECRET, "aws_secret_key"),
    (f'export AWS_SECRET_ACCESS_KEY="{AWS_SECRET}"', AWS_SECRET, "aws_secret_key"),
    (f"CI uses {GH} to push.", GH, "github_token"),
    ("gho_" + "Z9y8X7w6V5" * 3 + "u4T3s2", "gho_" + "Z9y8X7w6V5" * 3 + "u4T3s2", "github_token"),
    (
        "PAT github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb ok",
        "github_pat_11AAAAAAA0aaaaaaaaaaaa_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb",
        "github_token",
    ),
    (
        "GitLab glpat-xY7zQ2wE9rT4uI1oP3aS in the runner.",
        "glpat-xY7zQ2wE9rT4uI1oP3aS",
        "gitlab_token",
    ),
    (
        "Bot token xoxb-1234567890-0987654321-AbCdEfGhIj",
        "xoxb-1234567890-0987654321-AbCdEfGhIj",
        "slack_token",
    ),
    ("User token xoxp-99887766-55443322-aabbcc", "xoxp-99887766-55443322-aabbcc", "slack_token"),
    (
        "Alerts go to https://hooks.slack.com/services/T0AAA1BBB/B0CCC2DDD/xYz123AbC456dEf789 now.",
        "https://hooks.slack.com/services/T0AAA1BBB/B0CCC2DDD/xYz123AbC456dEf789",
        "slack_webhook",
    ),
    (
        "Key sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ leaked.",
        "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ",
        "openai_key",
    ),
    (
        "New key sk-proj-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef is in the vault.",
        "sk-proj-Ab3De6Gh9Jk2Mn5Pq8St1Vw4Yz7Bc0Ef",
        "openai_key",
    ),
    (f"The key:\n{PEM}\nThe deploy is blocked.", PEM, "private_key"),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB\n"
        "The paste was cut off.",
        "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAAB",
        "private_key",
    ),
    (
        "curl -H 'Authorization: Bearer abc123.def456_ghi' https://api.internal",
        "abc123.def456_ghi",
        "bearer_token",
    ),
    (
        "Used bearer Zm9vYmFyYmF6cXV4MTIzNDU2 in the test.",
        "Zm9vYmFyYmF6cXV4MTIzNDU2",
        "bearer_token",
    ),
    ("Header Authorization: Basic dXNlcjpodW50ZXIy", "dXNlcjpodW50ZXIy", "basic_auth"),
    (f"Authorization: Bearer {JWT}", JWT, "jwt"),
    (f"Session cookie {JWT} expired.", JWT, "jwt"),
    ("Set password=hunter2 on staging.", "hunter2", "password"),
    ("DB_PASSWORD=correct-horse-battery", "correct-horse-battery", "password"),
    ("Use passwd=Tr0ub4dor3 here.", "Tr0ub4dor3", "password"),
    ("mysql -u root pwd=s3cr3t!", "s3cr3t", "password"),
    ("The webhook secret=whsec_9f8e7d6c5b4a lives in CI.", "whsec_9f8e7d6c5b4a", "secret"),
    ("Call ?token=abc123def456&page=2 to test.", "abc123def456", "token"),
    ("Set api_key=a1b2c3d4e5 in the app.", "a1b2c3d4e5", "api_key"),
    ('Config {"password": "p@ss w0rd", "user": "svc"}', "p@ss w0rd", "password"),
    ("client_secret: 'Xy9-Zq8-Wv7'", "Xy9-Zq8-Wv7", "secret"),
    ("password: hunter22 for the demo account", "hunter22", "password"),
    ("Connect to postgres://admin:S3cretPass@db.internal:5432/app", "S3cretPass", "url_password"),
    ("Cache at redis://:r3dis-pass@cache:6379/0", "r3dis-pass", "url_password"),
    ("amqp://guest:guest@rabbit//", ":guest@", "url_password"),
    *VENDOR,
]

# Ordinary status updates that talk about tokens, keys and passwords: byte-identical.
ORDINARY = [
    "The token bucket rate limiter is blocked on the gateway upgrade.",
    "The password reset flow shipped on Tuesday.",
    "We moved the classifier from sk-learn to a plain logistic regression.",
    "The key decision: Alice owns the API migration.",
    "See https://example.com/docs?page=2&sort=asc for the plan.",
    "Secret: nobody knows why CI is slow this week.",
    "Token: the auth team is on it.",
    "Bearer of bad news: the release slipped.",
    "The bearer token rotation work is blocked on the vault upgrade.",
    "AKIA is the prefix our scanner alerts on.",
    "Password policy review is waiting on legal.",
    "git clone https://github.com/acme/payments.git and ssh git@github.com:acme/infra.git",
    "Email bob@example.com or ping @bob on Slack.",
    "The secret sauce is caching; the api keys are rotated monthly.",
    "-----BEGIN PUBLIC KEY----- blocks are fine to share.",
    "Ratio 3:2 and the meeting at 10:30 moved to https://meet.example.com/abc-defg-hij.",
    "Password: TBD. Token: see the vault. Secret: ask Dana.",
    "The auth token refresh is owned by the identity team.",
    "We use ${GITHUB_TOKEN} and password=<your password> and secret=*** in the docs.",
    "Deploy to https://user@host.example.com/path is done.",
    "sk-this-is-not-a-key and sk-12 are fine.",
    "The keyboard shortcut ctrl+k=search shipped.",
    "ghp_ prefixes identify GitHub tokens; glpat- identifies GitLab ones.",
    "xoxb- tokens belong to bots.",
    "JWT parsing (eyJ...) is handled by the gateway.",
    "Tokenization of names is blocked by the unicode fix.",
    "The pwd command prints the working directory.",
    "Naïve café owners in São Paulo: 東京 team shipped the 🚀 release.",
    # near misses of the vendor formats: a prefix alone, too short, the wrong alphabet
    "The task_test_runner and sk_live_ prefixes are documented; rk_live_short too.",
    "AIza keys are restricted by referrer; AIzaShort is not one.",
    "GOCSPX- is the prefix of Google OAuth client secrets.",
    "sk-ant- keys go in the vault; sk-ant-api03-short is not one.",
    "hf_transfer speeds up downloads; hf_hub is the library.",
    "npm_config_cache and npm_lifecycle_event are npm variables.",
    "pypi-AgE is how upload tokens start; pypi-mirror is a host.",
    "SG.one and SG.two are the Singapore clusters.",
    "SKU-1234 and SKUs: the SKabc inventory report shipped.",
    "The key-value store and key-rotation work shipped.",
    "shpat_ tokens are for custom apps; shpat_xyz is a placeholder.",
    "dop_v1_ is the DigitalOcean prefix; dop_v1_abc is too short.",
    "The dapi module moved to the dapper lib.",
    "hvs. is the Vault service token prefix; hvs.short is not one.",
    "glsa_ tokens belong to Grafana service accounts.",
    "PMAK- is the Postman key prefix.",
    "NRAK-is the New Relic prefix; NRAK-SHORT is not a key.",
    "lin_api_ is the Linear prefix.",
    "sq0atp- and sq0csp- are Square prefixes.",
    "sntrys_ and sntryu_ are Sentry prefixes.",
    "The bot 12345:ABC is a placeholder; call 555-1234 for help.",
    "AGE-SECRET-KEY-1 starts an age identity.",
    "AccountKey=<your key> goes in local.settings.json.",
    "Posted to https://discord.com/channels/1234/5678 for the team.",
    "The sort_key=created_at and partition_key=tenant_id indexes shipped.",
    "Set cache_key: user-42 and primary_key=id on the table.",
    "The monkey: banana joke was in the retro.",
    "STRIPE_KEY=${STRIPE_KEY} in the deploy template.",
    "glrt- tokens register runners; glrt-short is not one.",
    "xapp-1 is the Slack app-level prefix.",
]


@pytest.mark.parametrize(("text", "secret", "kind"), SECRETS, ids=[s[2] for s in SECRETS])
def test_each_secret_is_caught(text: str, secret: str, kind: str) -> None:
    cleaned, counts = redact(text)
    assert secret not in cleaned
    assert f"[REDACTED:{kind}]" in cleaned
    assert counts == {kind: 1}
    assert redact(cleaned) == (cleaned, {}), "redaction must be idempotent"


def test_every_pattern_is_tested() -> None:
    assert {p.kind for p in PATTERNS} - {"assignment", "named_assignment"} <= {
        k for _, _, k in SECRETS
    }
    assert {"password", "secret", "token", "api_key"} <= {k for _, _, k in SECRETS}


def test_only_the_secret_goes() -> None:
    text = "Deploy blocked: DB_PASSWORD=hunter2 and postgres://svc:pw123@db/app, see the runbook."
    assert redact(text)[0] == (
        "Deploy blocked: DB_PASSWORD=[REDACTED:password] and "
        "postgres://svc:[REDACTED:url_password]@db/app, see the runbook."
    )


@pytest.mark.parametrize("text", ORDINARY)
def test_ordinary_text_is_byte_identical(text: str) -> None:
    assert redact(text) == (text, {})


def test_sample_data_is_untouched() -> None:
    root = Path(__file__).resolve().parents[2] / "sample_data"
    files = sorted(root.rglob("*.md"))
    assert files
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert redact(text) == (text, {}), path


@settings(deadline=None)
@given(st.text(max_size=300))
def test_redaction_is_idempotent_and_total(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, {})


@settings(deadline=None)
@given(
    st.lists(st.sampled_from([s for s, _, _ in SECRETS] + ORDINARY), min_size=1, max_size=6),
    st.sampled_from([" ", "\n", "\n\n", "; "]),
)
def test_secrets_mixed_with_prose_never_survive(parts: list[str], sep: str) -> None:
    cleaned, counts = redact(sep.join(parts))
    for text, secret, _ in SECRETS:
        if text in parts:
            assert secret not in cleaned
    assert sum(counts.values()) == sum(1 for p in parts if p not in ORDINARY)


class SpyExtractor:
    """An extractor that records what it is given, as a language model would see it."""

    name = "spy"

    def __init__(self) -> None:
        self.seen: list[str] = []

    def __call__(self, text: str, author: str | None) -> Extraction:
        self.seen.append(text)
        return Extraction()


def raw_bytes(db: Path) -> bytes:
    data = b""
    for suffix in ("", "-wal", "-shm"):
        path = Path(f"{db}{suffix}")
        if path.exists():
            data += path.read_bytes()
    return data


def test_nothing_secret_is_stored_or_sent_to_the_extractor(
    tmp_path: Path, write: Callable[..., Path]
) -> None:
    body = "\n".join(text for text, _, _ in SECRETS)
    md = write("leaky.md", update("Alice", "2026-11-02", body))
    given_facts = write(
        "facts.json",
        json.dumps(
            {
                "content": f"Deploy token {GH} rotated.",
                "author": "Bob",
                "occurred_at": "2026-11-03",
                "graph": "project-atlas",
                "source": "https://ci:hunter2pass@ci.example.com/job/1",
                "facts": [
                    {
                        "source": "key rotation",
                        "relation": "blocked_by",
                        "target": "vault upgrade",
                        "sentence": f"Rotation waits on the vault, key {GH}",
                    }
                ],
            }
        ),
    )
    db = tmp_path / "spy.db"
    spy = SpyExtractor()
    with Store(db) as store:
        report = api.ingest(store, expand([str(md), str(given_facts)]), extractor=spy)
        assert report.ok and report.episodes_new == 2
    assert spy.seen and all(secret not in t for t in spy.seen for _, secret, _ in SECRETS)
    stored = raw_bytes(db)
    for _, secret, _ in SECRETS:
        assert secret.encode() not in stored, secret
    assert GH.encode() not in stored and b"hunter2pass" not in stored
    assert report.redactions[str(md)] and sum(report.redactions[str(md)].values()) == len(SECRETS)
    assert report.redactions[str(given_facts)] == {"github_token": 2, "url_password": 1}


def test_ingest_reports_redactions_per_file(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    leaky = write("leaky.md", update("Alice", "2026-11-02", f"CI token {GH}; password=hunter2."))
    clean = write("clean.md", update("Bob", "2026-11-03", "The password reset flow shipped."))
    result = cli("ingest", str(leaky), str(clean))
    assert f"Redacted: {leaky}: 2 secret(s) (github_token, password)" in result.stderr
    assert "2 secret(s) redacted" in result.stderr
    assert str(clean) not in result.stderr
    # re-ingest: the content hash is taken after redaction, so it is a duplicate
    report = cli.json("ingest", str(leaky), str(clean))
    assert report["episodes"]["duplicate"] == 2
    assert report["secrets_redacted"] == 2
    assert report["redactions"] == [
        {"source": str(leaky), "count": 2, "kinds": {"github_token": 1, "password": 1}}
    ]
    conn = sqlite3.connect(db_path)
    [content] = conn.execute("SELECT content FROM episodes WHERE author = 'Alice'").fetchone()
    conn.close()
    assert content == "CI token [REDACTED:github_token]; password=[REDACTED:password]."


def test_no_redact_opts_out(cli: Cli, write: Callable[..., Path], db_path: Path) -> None:
    leaky = write("leaky.md", update("Alice", "2026-11-02", f"CI token {GH}."))
    report = cli.json("ingest", "--no-redact", str(leaky))
    assert report["secrets_redacted"] == 0 and report["redactions"] == []
    conn = sqlite3.connect(db_path)
    [content] = conn.execute("SELECT content FROM episodes").fetchone()
    conn.close()
    assert GH in content


# Repeated fragments of the patterns themselves: the inputs that make a careless regex
# backtrack quadratically (a 10 MiB update would then take hours, not seconds).
ADVERSARIAL = [
    "a.",
    "a-",
    "password:",
    "password=",
    "token:",
    '"token":',
    "api_key:",
    "bearer ",
    "authorization: bearer ",
    "sk-1",
    "eyJaaaaaaaaaa.",
    "x://a:",
    "-----BEGIN A PRIVATE KEY-----a",
    "secret: 'a",
    "a_",
    "a_key=",
    "a_b_c_d_e_f_key: '",
    "MY_KEY=a1",
    "sk_live_a",
    "1234567:A",
    "AccountKey=",
    "SG.a",
]


def test_redaction_stays_linear_on_adversarial_input() -> None:
    """Each input is 200 KB; linear patterns take well under a second for all of them,
    a quadratic one takes minutes. The bound is generous so a busy machine passes."""
    started = time.perf_counter()
    for fragment in ADVERSARIAL:
        redact(fragment * (200_000 // len(fragment)))
    assert time.perf_counter() - started < 20


def _bare_forms(secret: str) -> list[str]:
    """A secret on its own, in prose and after punctuation, with no name next to it."""
    return [secret, f"see {secret} here", f"({secret})", f"we ship it.{secret}"]


@pytest.mark.parametrize(("text", "secret", "kind"), SECRETS, ids=[s[2] for s in SECRETS])
def test_the_pre_check_never_hides_a_secret(text: str, secret: str, kind: str) -> None:
    # redact skips its patterns on text its one-scan pre-check rules out; for every
    # sample, alone or in prose, that gives exactly what the full pattern set gives.
    for sample in [text, *_bare_forms(secret)]:
        assert redact(sample) == _redact_all(sample), sample


# Vendor tokens whose body can be lower-case letters only: no digit, capital or symbol
# for the pre-check to see, only their length.
LOWER_CASE_TOKENS = ["dapi" + "abcdefgh" * 4, "hvs." + "qwertyuiopasdfghjklzxcvb"]


@pytest.mark.parametrize("secret", LOWER_CASE_TOKENS)
def test_the_pre_check_sees_lower_case_tokens(secret: str) -> None:
    assert secret not in redact(f"see {secret} here")[0]
    for sample in _bare_forms(secret):
        assert redact(sample) == _redact_all(sample), sample


@settings(deadline=None)
@given(st.text(alphabet=st.sampled_from("abcdefghxyzAKZ019_-+/=.: "), max_size=80))
def test_the_pre_check_agrees_with_the_full_set(text: str) -> None:
    assert redact(text) == _redact_all(text)
