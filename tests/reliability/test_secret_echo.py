"""Secrets are not echoed back: not in an error line that quotes a bad value, not in
``memcli config show`` when the model URL carries a password."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from memcli import Client
from memcli.errors import MemcliError
from tests.conftest import Cli, update

GH = "ghp_" + "Mn4Bv8Cx2Zl6Kj0Hg5Fd9Sa3Qw7Er1Ty5Ui9"
STRIPE = "sk_live_" + "9xQ2wE4rT6yU8iO0pA1sD3fG"
URL_PASS = "Hunter2-urlpass"


def test_bad_date_holding_a_token_is_not_echoed(
    cli: Cli, write: Callable[..., Path], db_path: Path
) -> None:
    bad = write("bad.md", update("Alice", GH, "The deploy is blocked on the vault upgrade."))
    worse = write("worse.md", update("Bob", f"{STRIPE}", "The billing work shipped."))
    result = cli("ingest", str(bad), str(worse), ok=False)
    assert result.exit_code == 1
    assert "is not an ISO 8601 date" in result.stderr, result.stderr
    assert "[REDACTED:github_token]" in result.stderr
    assert GH not in result.stdout + result.stderr
    assert STRIPE not in result.stdout + result.stderr
    report = json.loads(cli("ingest", "--json", str(bad), str(worse), ok=False).stdout)
    reasons = json.dumps(report["errors"])
    assert "is not an ISO 8601 date" in reasons and GH not in reasons and STRIPE not in reasons


def test_python_errors_do_not_carry_the_secret(tmp_path: Path) -> None:
    with Client(tmp_path / "c.db") as client:
        try:
            client.graph.add(graph_id="g", data="The release shipped.", occurred_at=GH)
        except MemcliError as exc:
            assert GH not in str(exc) and GH not in exc.message
        else:
            raise AssertionError("a token is not a date")


def test_config_show_masks_a_password_in_the_base_url(cli: Cli) -> None:
    url = f"https://svc:{URL_PASS}@llm.example.com/v1"
    text = cli("config", "show", "--llm-base-url", url, "--llm-model", "m1").stdout
    assert URL_PASS not in text
    assert "llm.example.com/v1" in text
    data = json.loads(cli("config", "show", "--llm-base-url", url, "--json").stdout)
    base = data["settings"]["base_url"]["value"]
    assert URL_PASS not in base and base.startswith("https://svc:") and "@llm.example.com" in base


def test_a_bad_base_url_error_does_not_echo_the_password(cli: Cli) -> None:
    result = cli("config", "show", "--llm-base-url", f"ftp://svc:{URL_PASS}@h/v1", ok=False)
    assert result.exit_code != 0
    assert "http" in result.stderr
    assert URL_PASS not in result.stdout + result.stderr
