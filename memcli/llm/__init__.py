"""Language-model backends: settings, the client, the answer cache and call accounting.

memcli works offline by default (rules extractor, template writer). With a model
configured it can read updates the rules cannot and write observation prose, but a model
never decides structure: which episodes cluster and which facts count stay with the
algorithms in :mod:`memcli.analysis`. Everything a model returns is validated first.

Any OpenAI-compatible endpoint works (OpenAI, Ollama, vLLM, llama.cpp's server,
llama-cpp-python, LM Studio). Settings come from command options, then the environment,
then ``[llm]`` in ``$MEMCLI_HOME/config.toml``, then defaults (see :func:`load_settings`).

Nothing here imports openai or instructor at module level: importing the CLI stays cheap
and the offline path never needs them. All network calls go through :class:`LLM`, which
caches validated answers in SQLite (keyed by content hash, model and prompt version),
bounds concurrency, retries transient failures with backoff, stops calling an endpoint
that is down, and counts calls, cache hits, tokens and failures.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import tomllib
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from memcli.config import user_dir
from memcli.errors import UsageError
from memcli.redact import redact

if TYPE_CHECKING:
    from pydantic import BaseModel

    from memcli.store import Store

OPENAI_URL = "https://api.openai.com/v1"

# instructor logs every failed attempt at ERROR; memcli reports failures itself (the
# summary line), so keep them off a person's terminal unless logging is configured.
logging.getLogger("instructor").addHandler(logging.NullHandler())

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

# Own bounded retry on top of the openai client's retries: one more round after a pause,
# for an endpoint that is overloaded (429/5xx) or slow for longer than its retries last.
OWN_RETRY_ROUNDS = 1
# Consecutive unreachable calls after which the rest of a run stops calling the endpoint
# (episodes stay pending; `memcli extract --pending` retries them later).
UNREACHABLE_LIMIT = 2


def config_path() -> Path:
    """``MEMCLI_CONFIG``, else ``config.toml`` in the per-user memcli directory."""
    env = os.environ.get("MEMCLI_CONFIG")
    return Path(env) if env else user_dir() / "config.toml"


def default_mode(base_url: str | None) -> tuple[str, str]:
    """The request shape most likely to work at an endpoint, and why.

    OpenAI does forced tool calls best. Ollama (port 11434) and LM Studio (port 1234)
    accept ``json_schema``; LM Studio rejects ``json_object``. Other local servers
    (llama.cpp, vLLM, llama-cpp-python) all accept ``json_object``, and not all of them
    do tool calls.
    """
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
            "base_url": redact(self.endpoint)[0],  # a password in the URL is masked
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
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path} is not valid TOML: {exc}") from None
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


# --- accounting ---


@dataclass
class Usage:
    """What the model cost in one run; printed as a summary line and in --json output."""

    calls: int = 0  # answers asked of the model (not served from the cache)
    requests: int = 0  # HTTP requests sent: client retries and re-asks included
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    failures: int = 0  # calls that ended without a usable answer
    reasks: int = 0  # answers rejected by validation and asked again
    dropped_facts: int = 0  # extracted facts that failed validation on the last attempt
    fallbacks: int = 0  # observations written by the template after the model failed
    sentences_total: int = 0  # sentences in the updates a model-backed extractor handled
    sentences_sent: int = 0  # of those, sentences put to the model (cache hits excluded)
    updates_skipped: int = 0  # updates auto mode left to the rules: nothing to ask
    errors: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **counts: int) -> None:
        with self._lock:
            for key, n in counts.items():
                setattr(self, key, getattr(self, key) + n)

    def error(self, message: str) -> None:
        message = redact(message)[0]  # an endpoint's error may quote the URL or the key
        with self._lock:
            if message not in self.errors and len(self.errors) < 5:
                self.errors.append(message)

    def as_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "requests": self.requests,
            "cache_hits": self.cache_hits,
            "tokens": {
                "prompt": self.prompt_tokens,
                "completion": self.completion_tokens,
                "total": self.prompt_tokens + self.completion_tokens,
            },
            "failures": self.failures,
            "reasks": self.reasks,
            "dropped_facts": self.dropped_facts,
            "fallbacks": self.fallbacks,
            "sentences_total": self.sentences_total,
            "sentences_sent": self.sentences_sent,
            "updates_skipped": self.updates_skipped,
            "errors": list(self.errors),
        }

    def line(self, model: str) -> str:
        total = self.prompt_tokens + self.completion_tokens
        text = (
            f"llm {model}: {self.calls} call(s) ({self.requests} request(s)), "
            f"{self.cache_hits} cache hit(s), {total} tokens "
            f"({self.prompt_tokens} prompt + {self.completion_tokens} completion), "
            f"{self.failures} failure(s)"
        )
        if self.reasks:
            text += f", {self.reasks} re-ask(s)"
        if self.dropped_facts:
            text += f", {self.dropped_facts} invalid fact(s) dropped"
        if self.fallbacks:
            text += f", {self.fallbacks} observation(s) fell back to the template"
        if self.sentences_total:
            text += f", {self.sentences_sent} of {self.sentences_total} sentence(s) sent"
        if self.updates_skipped:
            text += f", {self.updates_skipped} update(s) needed no call"
        return text


# --- the client ---


@dataclass
class Ask:
    """One structured question: messages in, an instance of ``response_model`` out.

    ``context`` is handed to the response model's validators (pydantic validation
    context); memcli adds ``attempt`` and ``max_attempts`` so a validator can re-ask on an
    early attempt and drop what is still invalid on the last one.
    """

    prompt_version: str
    messages: list[dict[str, str]]
    response_model: type[BaseModel]
    context: dict[str, Any] = field(default_factory=dict)

    def content_hash(self) -> str:
        """Hash of everything the answer depends on besides model and prompt version."""
        payload = json.dumps(
            [self.messages, self.response_model.__name__], ensure_ascii=False, sort_keys=True
        )
        return hashlib.blake2b(payload.encode(), digest_size=16).hexdigest()


@dataclass
class Answer:
    value: BaseModel | None = None
    error: str = ""
    transient: bool = False  # unreachable, rate limited, timed out: worth retrying later
    cached: bool = False
    context: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.value is not None


class LLM:
    """An OpenAI-compatible model behind instructor, with a cache in the memcli database.

    Cache reads and writes happen on the calling thread (SQLite); only network calls run
    in worker threads, at most ``settings.concurrency`` at a time.
    """

    def __init__(self, settings: LLMSettings, store: Store | None = None) -> None:
        settings.require()
        self.settings = settings
        self.store = store
        self.usage = Usage()
        self._client: Any = None
        self._client_lock = threading.Lock()
        self._unreachable = 0
        self._broken = ""  # set when the endpoint rejected us: no point calling again

    @property
    def model(self) -> str:
        assert self.settings.model
        return self.settings.model

    # -- cache --

    def _cached(self, ask: Ask) -> Answer | None:
        if self.store is None:
            return None
        text = self.store.llm_cache_get(ask.content_hash(), self.model, ask.prompt_version)
        if text is None:
            return None
        context = dict(ask.context, attempt=1, max_attempts=1)
        try:
            value = ask.response_model.model_validate_json(text, context=context)
        except ValueError:
            return None  # stored under an older validator: ask again
        self.usage.add(cache_hits=1)
        return Answer(value=value, cached=True, context=context)

    def _save(self, ask: Ask, answer: Answer) -> None:
        if self.store is None or answer.value is None or answer.cached:
            return
        tokens = answer.context.get("_tokens", (0, 0))
        self.store.llm_cache_put(
            ask.content_hash(),
            self.model,
            ask.prompt_version,
            answer.value.model_dump_json(),
            tokens[0],
            tokens[1],
        )

    # -- calls --

    def ask(self, ask: Ask) -> Answer:
        return self.ask_many([ask])[0]

    def ask_many(self, asks: list[Ask]) -> list[Answer]:
        """Answer every question: from the cache, else from the model, concurrently."""
        answers: list[Answer | None] = [self._cached(a) for a in asks]
        todo = [i for i, a in enumerate(answers) if a is None]
        if len(todo) > 1 and self.settings.concurrency > 1:
            with ThreadPoolExecutor(max_workers=self.settings.concurrency) as pool:
                fetched = list(pool.map(lambda i: self._call(asks[i]), todo))
        else:
            fetched = [self._call(asks[i]) for i in todo]
        for i, answer in zip(todo, fetched, strict=True):
            answers[i] = answer
            self._save(asks[i], answer)
        return [a for a in answers if a is not None]

    def _openai(self) -> Any:
        with self._client_lock:
            if self._client is None:
                import openai

                def count(_request: Any) -> None:
                    self.usage.add(requests=1)

                self._client = openai.OpenAI(
                    base_url=self.settings.endpoint,
                    # Local servers need no key, but the client insists on one.
                    api_key=self.settings.api_key or "not-needed",
                    timeout=self.settings.timeout,
                    max_retries=self.settings.max_retries,
                    http_client=openai.DefaultHttpx2Client(
                        timeout=self.settings.timeout, event_hooks={"request": [count]}
                    ),
                )
            return self._client

    def _call(self, ask: Ask) -> Answer:
        """One structured call with validation, re-asks and bounded retries. No SQLite."""
        import instructor
        import openai
        from instructor.core import IncompleteOutputException, InstructorRetryException

        if self._broken:
            return Answer(error=self._broken, transient=True)
        if self._unreachable >= UNREACHABLE_LIMIT:
            return Answer(error="model endpoint unreachable earlier in this run", transient=True)
        self.usage.add(calls=1)
        context = dict(ask.context, attempt=0, max_attempts=self.settings.reask + 1)
        tokens = [0, 0]

        def on_response(response: Any) -> None:
            context["attempt"] += 1
            usage = getattr(response, "usage", None)
            if usage is not None:
                p, c = int(usage.prompt_tokens or 0), int(usage.completion_tokens or 0)
                tokens[0] += p
                tokens[1] += c
                self.usage.add(prompt_tokens=p, completion_tokens=c)

        def on_parse_error(*_args: Any, **kwargs: Any) -> None:
            if not kwargs.get("is_last_attempt"):
                self.usage.add(reasks=1)

        client = instructor.from_openai(self._openai(), mode=_instructor_mode(self.settings.mode))
        client.on("completion:response", on_response)
        client.on("parse:error", on_parse_error)
        extra: dict[str, Any] = {}
        if self.settings.mode == "json_object_schema":
            schema = ask.response_model.model_json_schema()
            extra["extra_body"] = {"response_format": {"type": "json_object", "schema": schema}}
        error = ""
        for round_ in range(OWN_RETRY_ROUNDS + 1):
            context["attempt"] = 0
            try:
                value = client.chat.completions.create(
                    model=self.model,
                    messages=_place_system(ask.messages, self.settings.system_role),
                    response_model=ask.response_model,
                    max_retries=self.settings.reask,
                    context=context,
                    temperature=0,
                    max_tokens=self.settings.max_tokens,
                    **extra,
                )
            except InstructorRetryException as exc:
                cause = exc.__cause__
                if isinstance(cause, openai.APIStatusError) and not _transient_status(cause):
                    self._broken = f"the endpoint rejected the request: {_describe(cause)}"
                    self.usage.error(self._broken)
                    self.usage.add(failures=1)
                    return Answer(error=self._broken, transient=True)
                if isinstance(cause, openai.APIError) and not isinstance(
                    cause, openai.APIResponseValidationError
                ):
                    error = _describe(cause)
                    if round_ < OWN_RETRY_ROUNDS and self._unreachable < UNREACHABLE_LIMIT:
                        time.sleep(self.settings.backoff * (2**round_))
                        continue
                    if isinstance(cause, openai.APIConnectionError):  # includes timeouts
                        self._unreachable += 1
                    self.usage.error(error)
                    self.usage.add(failures=1)
                    return Answer(error=error, transient=True)
                error = f"invalid answer after {exc.n_attempts} attempt(s): {_why(exc)}"
                self.usage.error(error)
                self.usage.add(failures=1)
                return Answer(error=error)
            except IncompleteOutputException:
                error = "the answer was cut off (max tokens)"
                self.usage.error(error)
                self.usage.add(failures=1)
                return Answer(error=error)
            self._unreachable = 0
            context["_tokens"] = tuple(tokens)
            return Answer(value=value, context=context)
        raise AssertionError("unreachable")  # pragma: no cover


def _place_system(messages: list[dict[str, str]], role: str) -> list[dict[str, str]]:
    """The messages as sent: instructions as a system message, or folded into the first
    user message (the way Gemma's own template does it)."""
    if role == "system":
        return [dict(m) for m in messages]
    system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
    rest = [dict(m) for m in messages if m["role"] != "system"]
    for m in rest:
        if m["role"] == "user":
            m["content"] = f"{system}\n\n{m['content']}" if system else m["content"]
            break
    else:
        rest.insert(0, {"role": "user", "content": system})
    return rest


def _instructor_mode(mode: str) -> Any:
    from instructor import Mode

    return {
        "tools": Mode.TOOLS,
        "json_schema": Mode.JSON_SCHEMA,
        "json": Mode.JSON,
        "json_object_schema": Mode.JSON,  # plus a schema in response_format, see LLM._call
        "md_json": Mode.MD_JSON,
    }[mode]


def _transient_status(exc: Any) -> bool:
    status = int(getattr(exc, "status_code", 0) or 0)
    return status in (408, 409, 429) or status >= 500


def _describe(exc: Exception) -> str:
    status = getattr(exc, "status_code", None)
    name = type(exc).__name__
    text = _first_line(exc)
    return f"{name} {status}: {text}" if status else f"{name}: {text}"


def _why(exc: Any) -> str:
    """The last validation problem of a failed structured call, in one line."""
    attempts = getattr(exc, "failed_attempts", None) or []
    last = attempts[-1].exception if attempts else exc
    errors = getattr(last, "errors", None)
    if callable(errors):
        try:
            first = errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            msg = " ".join(str(first.get("msg", "")).split())
            return f"{where}: {msg}"[:300] if where else msg[:300]
        except (IndexError, TypeError, AttributeError):
            pass
    return _first_line(last)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else type(exc).__name__
