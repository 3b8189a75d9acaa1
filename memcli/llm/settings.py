"""Language-model settings: options, then the environment, then ``[llm]`` in the config
file, then defaults (see :func:`load_settings`), each with where it came from.

Cheap to import (standard library only): the CLI builds its option help from
:data:`MODES`, :data:`EXTRACTORS` and :data:`WRITERS` at start-up.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memcli.config import config_path as config_path  # re-exported: memcli.llm.config_path
from memcli.errors import UsageError

OPENAI_URL = "https://api.openai.com/v1"

# memcli's names for instructor's request shapes; each one is checked against a stub
# server in tests/test_llm_modes.py.
MODES: dict[str, str] = {
    "tools": "a forced function/tool call (OpenAI, vLLM, Ollama)",
    "json_schema": "response_format json_schema (OpenAI, Ollama, LM Studio, vLLM)",
    "json": "response_format json_object, the schema in the system prompt",
    "json_object_schema": (
        "response_format json_object with a schema: llama.cpp / llama-cpp-python "
        "turn it into a grammar, so even a small model answers in shape"
    ),
    "md_json": "no response_format: a ```json block (servers with no structured output)",
}
SYSTEM_ROLES = ("system", "user")
EXTRACTORS = ("rules", "llm", "auto")
WRITERS = ("template", "llm")


def default_mode(base_url: str | None) -> tuple[str, str]:
    """The request shape most likely to work at an endpoint, and why.

    OpenAI does forced tool calls best. Ollama (port 11434) and LM Studio (port 1234)
    accept ``json_schema``; LM Studio rejects ``json_object``. Other local servers
    (llama.cpp, vLLM, llama-cpp-python) all accept ``json_object``, and not all of them
    do tool calls.
    """
    from urllib.parse import urlsplit

    parts = urlsplit(base_url or OPENAI_URL)
    host = (parts.hostname or "").lower()
    if host == "api.openai.com":
        return "tools", "default for api.openai.com"
    if parts.port in (11434, 1234):
        server = "Ollama" if parts.port == 11434 else "LM Studio"
        return "json_schema", f"default for {server} (port {parts.port})"
    return "json", "default for an OpenAI-compatible local server"


@dataclass(frozen=True)
class LLMSettings:
    """Effective language-model settings and where each one came from."""

    base_url: str | None
    model: str | None
    api_key: str | None
    mode: str
    timeout: float
    max_retries: int
    reask: int
    concurrency: int
    backoff: float
    max_tokens: int
    system_role: str
    extractor: str
    writer: str
    sources: dict[str, str]
    config_path: Path

    @property
    def configured(self) -> bool:
        """A model is named: the llm extractor and writer can run."""
        return bool(self.model)

    @property
    def endpoint(self) -> str:
        return self.base_url or OPENAI_URL

    def masked_key(self) -> str | None:
        key = self.api_key
        if not key:
            return None
        return f"{key[:3]}...{key[-4:]}" if len(key) > 12 else "****"

    def require(self) -> None:
        """Raise a usage error saying how to configure a model, when none is."""
        if not self.configured:
            raise UsageError(
                "no language model configured",
                hint=(
                    "set MEMCLI_LLM_MODEL (and MEMCLI_LLM_BASE_URL for a local server such as "
                    f"http://127.0.0.1:8000/v1), or [llm] model in {self.config_path}; "
                    "see 'memcli config show'"
                ),
            )
        if self.base_url is None and not self.api_key:
            raise UsageError(
                f"no API key for {OPENAI_URL}",
                hint="set OPENAI_API_KEY, or MEMCLI_LLM_BASE_URL for a local server",
            )

    def as_dict(self) -> dict[str, Any]:
        """Every setting with its source; the key is masked."""
        values: dict[str, Any] = {
            "base_url": _redact(self.endpoint),  # a password in the URL is masked
            "model": self.model,
            "api_key": self.masked_key(),
            "mode": self.mode,
            "timeout": self.timeout,
            "max_retries": self.max_retries,
            "reask": self.reask,
            "concurrency": self.concurrency,
            "backoff": self.backoff,
            "max_tokens": self.max_tokens,
            "system_role": self.system_role,
            "extractor": self.extractor,
            "writer": self.writer,
        }
        return {
            "configured": self.configured,
            "config_file": str(self.config_path),
            "config_file_exists": self.config_path.is_file(),
            "settings": {
                k: {"value": v, "source": self.sources.get(k, "default")} for k, v in values.items()
            },
        }


# setting -> (environment variables in order, parser, default)
_Parser = Callable[[str, Any], Any]


def _str(name: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{name} must be a non-empty string")
    return value.strip()


def _url(name: str, value: Any) -> str:
    text = _str(name, value).rstrip("/")
    if not text.startswith(("http://", "https://")):
        raise ValueError(f"{name} must start with http:// or https:// (got {text!r})")
    return text


def _choice(options: tuple[str, ...]) -> _Parser:
    def parse(name: str, value: Any) -> str:
        text = _str(name, value).lower()
        if text not in options:
            raise ValueError(f"{name} must be one of {', '.join(options)} (got {value!r})")
        return text

    return parse


def _number(kind: type, low: float) -> _Parser:
    def parse(name: str, value: Any) -> Any:
        try:
            number = kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number (got {value!r})") from None
        if number < low:
            raise ValueError(f"{name} must be at least {low} (got {value!r})")
        return number

    return parse


_FIELDS: dict[str, tuple[tuple[str, ...], _Parser, Any]] = {
    "base_url": (("MEMCLI_LLM_BASE_URL", "OPENAI_BASE_URL"), _url, None),
    "model": (("MEMCLI_LLM_MODEL",), _str, None),
    "api_key": (("OPENAI_API_KEY",), _str, None),
    "mode": (("MEMCLI_LLM_MODE",), _choice(tuple(MODES)), None),
    "timeout": (("MEMCLI_LLM_TIMEOUT",), _number(float, 0.01), 120.0),
    "max_retries": (("MEMCLI_LLM_MAX_RETRIES",), _number(int, 0), 2),
    "reask": (("MEMCLI_LLM_REASK",), _number(int, 0), 2),
    "concurrency": (("MEMCLI_LLM_CONCURRENCY",), _number(int, 1), 4),
    "backoff": (("MEMCLI_LLM_BACKOFF",), _number(float, 0), 2.0),
    # Bounds one answer: a small local model without a grammar can ramble until its context
    # is full. An answer cut off here counts as invalid (a failure, never half-stored).
    "max_tokens": (("MEMCLI_LLM_MAX_TOKENS",), _number(int, 16), 2048),
    # "user" folds the instructions into the first user message, for chat templates that
    # drop the system role (llama-cpp-python's gemma format, some Mistral templates).
    "system_role": (("MEMCLI_LLM_SYSTEM_ROLE",), _choice(SYSTEM_ROLES), "system"),
    "extractor": (("MEMCLI_EXTRACTOR",), _choice(EXTRACTORS), "rules"),
    "writer": (("MEMCLI_WRITER",), _choice(WRITERS), "template"),
}


def _read_config(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
    except OSError as exc:  # unreadable (permissions), or gone since is_file()
        raise UsageError(
            f"cannot read the config file {path}: {exc.strerror or exc}",
            hint="fix its permissions, or point MEMCLI_CONFIG at another file",
        ) from None
    section = data.get("llm", {})
    if not isinstance(section, dict):
        raise UsageError(f"{path}: [llm] must be a table")
    unknown = sorted(set(section) - set(_FIELDS))
    if unknown:
        raise UsageError(
            f"{path}: unknown [llm] setting(s): {', '.join(unknown)}",
            hint=f"known settings: {', '.join(_FIELDS)}",
        )
    return section


def load_settings(options: Mapping[str, Any] | None = None) -> LLMSettings:
    """Resolve every setting: command option, then environment, then config file, then default.

    ``options`` holds command-line values (None when not given).
    """
    options = options or {}
    path = config_path()
    config = _read_config(path)
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for name, (env_vars, parse, default) in _FIELDS.items():
        raw: Any = None
        source = "default"
        if options.get(name) is not None:
            raw, source = options[name], "option"
        else:
            for var in env_vars:
                if os.environ.get(var):
                    raw, source = os.environ[var], f"env {var}"
                    break
            else:
                if name in config:
                    raw, source = config[name], f"config {path}"
        if raw is None:
            values[name] = default
        else:
            try:
                values[name] = parse(name, raw)
            except ValueError as exc:
                raise UsageError(f"{exc} ({source})") from None
        sources[name] = source
    if values["mode"] is None:
        values["mode"], sources["mode"] = default_mode(values["base_url"])
    return LLMSettings(**values, sources=sources, config_path=path)


def _redact(text: str) -> str:
    from memcli.redact import redact

    return redact(text)[0]
