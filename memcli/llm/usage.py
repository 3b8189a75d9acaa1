"""Accounting for one run's model calls: calls, cache hits, tokens, failures."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any


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
        from memcli.redact import redact

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
