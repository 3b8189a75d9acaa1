"""Language-model settings: precedence, sources, the masked key, defaults per endpoint,
errors a user can act on, the cache migration, and that the CLI loads no model library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memcli.store import Store
from tests.conftest import ROOT, Cli
from tests.llm_stub import StubLLM
from tests.test_llm_extract import ALICE, ALICE_ANSWER


def test_importing_the_cli_does_not_import_openai_or_instructor() -> None:
    code = (
        "import sys, memcli.cli, memcli.cli.config_cmd, memcli.llm\n"
        "bad = [m for m in ('openai', 'instructor') if m in sys.modules]\n"
        "print(','.join(bad) or 'clean')"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True
    )
    assert out.stdout.strip() == "clean"


def test_nothing_configured(cli: Cli) -> None:
    data = cli.json("config", "show")
    assert data["configured"] is False
    s = data["settings"]
    assert s["base_url"] == {"value": "https://api.openai.com/v1", "source": "default"}
    assert s["model"] == {"value": None, "source": "default"}
    assert s["mode"] == {"value": "tools", "source": "default for api.openai.com"}
    assert s["extractor"]["value"] == "rules" and s["writer"]["value"] == "template"
    human = cli("config", "show")
    assert "No language model configured" in human.stderr
    assert "setting" in human.stdout and "source" in human.stdout


def test_environment_and_masked_key(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    monkeypatch.setenv("MEMCLI_LLM_MODEL", "gpt-test")
    data = cli.json("config", "show")
    assert data["configured"] is True
    assert data["settings"]["api_key"] == {"value": "sk-...cdef", "source": "env OPENAI_API_KEY"}
    assert data["settings"]["model"] == {"value": "gpt-test", "source": "env MEMCLI_LLM_MODEL"}
    assert secret not in cli("config", "show").stdout
    assert secret not in cli("config", "show", "--json").stdout


@pytest.mark.parametrize(
    ("url", "mode", "why"),
    [
        ("https://api.openai.com/v1", "tools", "api.openai.com"),
        ("http://127.0.0.1:11434/v1", "json_schema", "Ollama"),
        ("http://localhost:1234/v1", "json_schema", "LM Studio"),
        ("http://127.0.0.1:8000/v1", "json", "local server"),
        ("http://gpu-box:8080/v1", "json", "local server"),
    ],
)
def test_default_mode_per_endpoint(
    cli: Cli, monkeypatch: pytest.MonkeyPatch, url: str, mode: str, why: str
) -> None:
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", url)
    got = cli.json("config", "show")["settings"]["mode"]
    assert got["value"] == mode and why in got["source"]


def test_config_file_then_environment_then_option(
    cli: Cli, memcli_env: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    memcli_env.mkdir(parents=True, exist_ok=True)
    path = memcli_env / "config.toml"
    path.write_text(
        "[llm]\n"
        'base_url = "http://127.0.0.1:8080/v1/"\n'
        'model = "from-file"\n'
        'mode = "json_object_schema"\n'
        "concurrency = 2\n"
        'extractor = "auto"\n'
        'api_key = "file-key-0123456789"\n'
    )
    s = cli.json("config", "show")["settings"]
    src = f"config {path}"
    assert s["base_url"] == {"value": "http://127.0.0.1:8080/v1", "source": src}
    assert s["model"] == {"value": "from-file", "source": src}
    assert s["mode"] == {"value": "json_object_schema", "source": src}
    assert s["concurrency"] == {"value": 2, "source": src}
    assert s["extractor"] == {"value": "auto", "source": src}
    assert s["api_key"] == {"value": "fil...6789", "source": src}

    monkeypatch.setenv("MEMCLI_LLM_MODEL", "from-env")
    assert cli.json("config", "show")["settings"]["model"]["source"] == "env MEMCLI_LLM_MODEL"
    opt = cli.json("config", "show", "--llm-model", "from-option")["settings"]["model"]
    assert opt == {"value": "from-option", "source": "option"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[llm]\nmode = "grammar"\n', "mode must be one of tools, json_schema, json"),
        ('[llm]\nmodle = "x"\n', "unknown [llm] setting(s): modle"),
        ("[llm\n", "is not valid TOML"),
        ('[llm]\nbase_url = "localhost:8000"\n', "must start with http:// or https://"),
        ("[llm]\nconcurrency = 0\n", "concurrency must be at least 1"),
    ],
)
def test_bad_settings_are_usage_errors(cli: Cli, memcli_env: Path, text: str, message: str) -> None:
    memcli_env.mkdir(parents=True, exist_ok=True)
    (memcli_env / "config.toml").write_text(text)
    result = cli("config", "show", ok=False)
    assert result.exit_code == 2 and message in result.stderr


def test_openai_without_a_key_says_what_to_set(
    cli: Cli, atlas: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMCLI_LLM_MODEL", "gpt-test")
    result = cli("ingest", str(atlas / "2026-11-02-alice.md"), "--extractor", "llm", ok=False)
    assert result.exit_code == 2 and "OPENAI_API_KEY" in result.stderr


def test_instructions_folded_into_the_user_turn(
    cli: Cli, llm_server: StubLLM, atlas: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """system_role=user, for chat templates that drop system messages (llama-cpp-python's
    gemma format does): memcli's instructions lead the first user message instead."""
    monkeypatch.setenv("MEMCLI_LLM_SYSTEM_ROLE", "user")
    monkeypatch.setenv("MEMCLI_LLM_MODE", "json_object_schema")
    llm_server.extractions[ALICE] = ALICE_ANSWER
    report = cli.json("ingest", str(atlas / "2026-11-02-alice.md"), "--extractor", "llm")
    assert report["facts_new"] == 3
    [body] = [r["body"] for r in llm_server.requests]
    systems = [m["content"] for m in body["messages"] if m["role"] == "system"]
    assert not any("You extract entities" in c for c in systems)
    first_user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    assert first_user.startswith("You extract entities and facts")
    assert "<update>" in first_user


def test_cache_migration(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as store:
        names = [r[0] for r in store.conn.execute("SELECT name FROM _sqlite_migrations")]
        assert names[:3] == ["m001_initial", "m002_llm_cache", "m003_search"]
        cols = [r[1] for r in store.conn.execute("PRAGMA table_info(llm_cache)")]
        assert cols[:3] == ["content_hash", "model", "prompt_version"]
        pk = [r[1] for r in store.conn.execute("PRAGMA table_info(llm_cache)") if r[5]]
        assert pk == ["content_hash", "model", "prompt_version"]
        store.llm_cache_put("h", "m", "extract/1", '{"a": 1}', 3, 4)
        assert store.llm_cache_get("h", "m", "extract/1") == '{"a": 1}'
        assert store.llm_cache_get("h", "m", "extract/2") is None


def test_an_unreadable_config_file_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    """A config path that cannot be read (here: a directory where the file should be,
    which even root cannot read as text) names the file and exits 2."""
    import os

    where = tmp_path / "config.toml"
    where.mkdir()
    env = {**os.environ, "MEMCLI_CONFIG": str(where), "MEMCLI_DB": str(tmp_path / "m.db")}
    env.pop("MEMCLI_DEBUG", None)
    result = subprocess.run(
        [sys.executable, "-m", "memcli", "config", "show"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert "Traceback" not in result.stderr
    assert result.returncode == 2 and str(where) in result.stderr
