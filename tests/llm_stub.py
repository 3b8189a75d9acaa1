"""A local OpenAI-compatible chat completions server for tests (standard library only).

The only thing a test may fake is the remote model. This server speaks the wire protocol
the openai client uses (POST /v1/chat/completions), records every request, and answers
with recorded structured responses in whatever shape the request asked for: a tool call
when it sent ``tools``, a ```json block when it sent no ``response_format``, plain JSON
content otherwise. Tests can also script raw replies (429, 500, slow answers).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

MODEL = "stub-model"


@dataclass
class Reply:
    status: int = 200
    body: Any = None  # dict -> JSON; str -> raw text
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0


def completion(body: dict[str, Any], answer: Any, *, tokens: tuple[int, int] = (50, 20)) -> Reply:
    """A chat completion carrying ``answer`` in the shape the request asked for."""
    text = answer if isinstance(answer, str) else json.dumps(answer)
    if body.get("tools"):
        name = body["tools"][0]["function"]["name"]
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}
            ],
        }
    elif "response_format" not in body:
        message = {"role": "assistant", "content": f"Here it is:\n```json\n{text}\n```"}
    else:
        message = {"role": "assistant", "content": text}
    return Reply(
        body={
            "id": "chatcmpl-stub",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", MODEL),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": tokens[0],
                "completion_tokens": tokens[1],
                "total_tokens": sum(tokens),
            },
        }
    )


def kind(body: dict[str, Any]) -> str:
    """What memcli asks for, read from its instructions: the system message, or the start
    of the first user message when they are folded there (system_role=user; instructor
    may still add a system message of its own)."""
    messages = body.get("messages", [])
    system = " ".join(str(m.get("content")) for m in messages if m.get("role") == "system")
    first_user = next((m for m in messages if m.get("role") == "user"), {})
    system += " " + str(first_user.get("content", ""))[:200]
    if "You extract entities and facts" in system:
        return "extract"
    if "You write one observation" in system:
        return "write"
    return "other"


def user_text(body: dict[str, Any]) -> str:
    return "\n".join(
        str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "user"
    )


def fact_ids(body: dict[str, Any]) -> list[int]:
    return [int(i) for i in re.findall(r"^- fact (\d+):", user_text(body), re.MULTILINE)]


def valid_prose(body: dict[str, Any]) -> dict[str, Any]:
    """An answer the writer's validation accepts: it names nothing and cites real facts."""
    ids = fact_ids(body)
    return {
        "name": "Shared dependency across workstreams",
        "summary": "Several workstreams wait on one piece of work. Clearing it clears them.",
        "findings": [{"text": "The waiting work is listed in the facts.", "fact_ids": ids[:2]}],
    }


class StubLLM:
    """Recorded answers by request kind; ``script`` replies go first, in order."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.script: deque[Reply | Callable[[dict[str, Any]], Reply]] = deque()
        self.extractions: dict[str, dict[str, Any]] = {}  # text in the update -> answer
        self.prose: Callable[[dict[str, Any]], Any] = valid_prose
        self.gate = 0  # hold each request until this many are in flight (max 2 s)
        self.inflight = 0
        self.max_inflight = 0
        self._cond = threading.Condition()
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_port}/v1"

    def of_kind(self, name: str) -> list[dict[str, Any]]:
        return [r["body"] for r in self.requests if kind(r["body"]) == name]

    def answer(self, body: dict[str, Any]) -> Reply:
        if self.script:
            item = self.script.popleft()
            return item(body) if callable(item) else item
        if kind(body) == "extract":
            text = user_text(body)
            for needle, answer in self.extractions.items():
                if needle in text:
                    return completion(body, answer)
            return completion(body, {"entities": [], "facts": []})
        if kind(body) == "write":
            return completion(body, self.prose(body))
        return Reply(status=400, body={"error": {"message": "unknown request"}})

    def handle(self, body: dict[str, Any], headers: dict[str, str], path: str) -> Reply:
        with self._cond:
            self.requests.append({"body": body, "headers": headers, "path": path})
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
            self._cond.notify_all()
            if self.gate:
                self._cond.wait_for(lambda: self.inflight >= self.gate, timeout=2)
        try:
            return self.answer(body)
        finally:
            with self._cond:
                self.inflight -= 1


def _handler(stub: StubLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server API)
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            headers = {k.lower(): v for k, v in self.headers.items()}
            reply = stub.handle(body, headers, self.path)
            if reply.delay:
                time.sleep(reply.delay)
            data = (
                reply.body.encode()
                if isinstance(reply.body, str)
                else json.dumps(reply.body or {}).encode()
            )
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass


@pytest.fixture
def llm_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubLLM]:
    """A stub model server, configured as memcli's model through the environment."""
    stub = StubLLM()
    server = _Server(("127.0.0.1", 0), _handler(stub))
    stub.server = server
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv("MEMCLI_LLM_BASE_URL", stub.url)
    monkeypatch.setenv("MEMCLI_LLM_MODEL", MODEL)
    monkeypatch.setenv("MEMCLI_LLM_BACKOFF", "0.01")
    monkeypatch.setenv("MEMCLI_LLM_TIMEOUT", "10")
    for var in ("MEMCLI_LLM_MODE", "MEMCLI_EXTRACTOR", "MEMCLI_WRITER", "MEMCLI_CONFIG"):
        monkeypatch.delenv(var, raising=False)
    try:
        yield stub
    finally:
        server.shutdown()
        server.server_close()
