"""The language-model client: one OpenAI-compatible endpoint behind instructor.

All network calls go through :class:`LLM`, which caches validated answers in SQLite
(keyed by content hash, model and prompt version), bounds concurrency, retries transient
failures with backoff, stops calling an endpoint that is down, and counts calls, cache
hits, tokens and failures (:class:`memcli.llm.usage.Usage`). openai and instructor are
imported inside the methods that call them.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from memcli.llm.settings import LLMSettings
from memcli.llm.usage import Usage

if TYPE_CHECKING:
    from pydantic import BaseModel

    from memcli.store import Store

# instructor logs every failed attempt at ERROR; memcli reports failures itself (the
# summary line), so keep them off a person's terminal unless logging is configured.
logging.getLogger("instructor").addHandler(logging.NullHandler())

# Own bounded retry on top of the openai client's retries: one more round after a pause,
# for an endpoint that is overloaded (429/5xx) or slow for longer than its retries last.
OWN_RETRY_ROUNDS = 1
# Consecutive unreachable calls after which the rest of a run stops calling the endpoint
# (episodes stay pending; `memcli extract --pending` retries them later).
UNREACHABLE_LIMIT = 2


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
