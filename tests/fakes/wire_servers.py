"""Loopback servers speaking four providers' own wire protocols (non-streaming).

Each is reached through the real LiteLLM with ``api_base`` pointing here, so LiteLLM's translation
(OpenAI-shaped request → the provider's request → the provider's reply → an OpenAI-shaped
response) is exercised end to end:

* :class:`AnthropicServer` — Messages API, ``POST /v1/messages``, ``x-api-key``; ``tool_use``
  content blocks; ``usage.input_tokens`` / ``output_tokens``.
* :class:`GeminiServer` — ``POST /v1beta/models/{model}:generateContent``, the key in
  ``x-goog-api-key`` or ``?key=``; ``functionCall`` parts; ``usageMetadata``.
* :class:`OllamaServer` — ``POST /api/chat``; ``message.tool_calls`` with object arguments;
  ``prompt_eval_count`` / ``eval_count``. No key.
* :class:`AzureServer` — ``POST /openai/deployments/{deployment}/chat/completions?api-version=…``,
  ``api-key`` header; the OpenAI chat-completions body.

Replies are scripted once for all four by a function of the last user message's text, returning
the text to answer or an :class:`Answer` (tool calls, token counts, an HTTP status). Every request
is kept in :attr:`WireServer.requests` (path, query, lower-cased headers, JSON body).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.fakes.loopback import LoopbackHTTPServer


@dataclass
class Answer:
    """One scripted answer, in no provider's shape."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    """(function name, arguments) of each native tool call."""
    prompt_tokens: int = 10
    completion_tokens: int | None = None
    """None: one per word of ``text``."""
    status: int = 200
    """Anything but 200 answers with the provider's error body."""

    def output_tokens(self) -> int:
        if self.completion_tokens is not None:
            return self.completion_tokens
        return max(1, len(self.text.split()))


Script = Callable[[str], "Answer | str"]


@dataclass
class Seen:
    """One request as it arrived."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: dict[str, Any]


class WireServer(LoopbackHTTPServer):
    """Threaded loopback server; subclasses say how their protocol reads and answers."""

    #: What a user passes as --api-base, relative to the server's root ("" = the root itself).
    base_path = ""

    def __init__(self, reply: Script | None = None, *, key: str | None = "test-key") -> None:
        self.reply: Script = reply or (lambda text: "OK")
        self.key = key
        self.requests: list[Seen] = []
        self._lock = threading.Lock()

    # ── lifecycle ──
    @property
    def api_base(self) -> str:
        """The ``--api-base`` that reaches this server through LiteLLM."""
        return self.root + self.base_path

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _handler(self)

    # ── one request ──
    def handle(self, seen: Seen) -> tuple[int, dict[str, Any]]:
        with self._lock:
            self.requests.append(seen)
        problem = self.check(seen)
        if problem is not None:
            return problem
        scripted = self.reply(self.user_text(seen.body))
        answer = Answer(text=scripted) if isinstance(scripted, str) else scripted
        if answer.status != 200:
            return answer.status, self.error(answer.status, "scripted error")
        return 200, self.encode(answer, seen)

    # ── protocol hooks ──
    def check(self, seen: Seen) -> tuple[int, dict[str, Any]] | None:
        """The error reply for a request at the wrong path or without the right key."""
        raise NotImplementedError

    def user_text(self, body: dict[str, Any]) -> str:
        raise NotImplementedError

    def encode(self, answer: Answer, seen: Seen) -> dict[str, Any]:
        raise NotImplementedError

    def error(self, status: int, message: str) -> dict[str, Any]:
        raise NotImplementedError


def _text_of(content: Any) -> str:
    """Text of a message's content: a string, or a list of text parts/blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(part.get("text", "")) for part in content if isinstance(part, dict)
        ).strip()
    return ""


def _last_user(messages: list[dict[str, Any]], key: str = "content") -> str:
    for message in reversed(messages):
        if message.get("role") == "user":
            return _text_of(message.get(key))
    return ""


class AnthropicServer(WireServer):
    """Anthropic Messages API. LiteLLM appends ``/v1/messages`` to the api_base: the host only."""

    def check(self, seen: Seen) -> tuple[int, dict[str, Any]] | None:
        if seen.path != "/v1/messages":
            return 404, self.error(404, f"Not found: {seen.path}")
        if self.key is not None and seen.headers.get("x-api-key") != self.key:
            return 401, {
                "type": "error",
                "error": {"type": "authentication_error", "message": "invalid x-api-key"},
            }
        if "anthropic-version" not in seen.headers:
            return 400, self.error(400, "anthropic-version header is required")
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return _last_user(body.get("messages", []))

    def encode(self, answer: Answer, seen: Seen) -> dict[str, Any]:
        content: list[dict[str, Any]] = (
            [{"type": "text", "text": answer.text}] if answer.text else []
        )
        for i, (name, args) in enumerate(answer.tool_calls):
            content.append(
                {"type": "tool_use", "id": f"toolu_{i:02d}", "name": name, "input": args}
            )
        return {
            "id": "msg_fake",
            "type": "message",
            "role": "assistant",
            "model": seen.body.get("model", "claude-fake"),
            "content": content,
            "stop_reason": "tool_use" if answer.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {
                "input_tokens": answer.prompt_tokens,
                "output_tokens": answer.output_tokens(),
            },
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = "api_error" if status >= 500 else "invalid_request_error"
        return {"type": "error", "error": {"type": kind, "message": message}}


class GeminiServer(WireServer):
    """Gemini API generateContent. LiteLLM appends ``/models/{model}:generateContent`` to the
    api_base, so it ends with the API version: ``…/v1beta``."""

    base_path = "/v1beta"

    def check(self, seen: Seen) -> tuple[int, dict[str, Any]] | None:
        prefix, _, method = seen.path.rpartition(":")
        if not prefix.startswith("/v1beta/models/") or method != "generateContent":
            return 404, self.error(404, f"Not found: {seen.path}")
        key = seen.headers.get("x-goog-api-key") or seen.query.get("key")
        if self.key is not None and key != self.key:
            # What the real API says for a wrong key: 400 INVALID_ARGUMENT, reason API_KEY_INVALID.
            return 400, {
                "error": {
                    "code": 400,
                    "message": "API key not valid. Please pass a valid API key.",
                    "status": "INVALID_ARGUMENT",
                    "details": [
                        {
                            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                            "reason": "API_KEY_INVALID",
                        }
                    ],
                }
            }
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return _last_user(body.get("contents", []), key="parts")

    def encode(self, answer: Answer, seen: Seen) -> dict[str, Any]:
        parts: list[dict[str, Any]] = [{"text": answer.text}] if answer.text else []
        parts += [{"functionCall": {"name": n, "args": a}} for n, a in answer.tool_calls]
        out = answer.output_tokens()
        model = seen.path.rpartition(":")[0].removeprefix("/v1beta/models/")
        return {
            "candidates": [
                {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
            ],
            "usageMetadata": {
                "promptTokenCount": answer.prompt_tokens,
                "candidatesTokenCount": out,
                "totalTokenCount": answer.prompt_tokens + out,
            },
            "modelVersion": model,
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        kind = {404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED"}.get(status, "INTERNAL")
        return {"error": {"code": status, "message": message, "status": kind}}


class OllamaServer(WireServer):
    """Ollama's chat API (``ollama_chat/…``; ``ollama/…`` uses ``/api/generate``). No key."""

    def __init__(self, reply: Script | None = None) -> None:
        super().__init__(reply, key=None)

    def check(self, seen: Seen) -> tuple[int, dict[str, Any]] | None:
        if seen.path != "/api/chat":
            return 404, self.error(404, "404 page not found")
        if seen.body.get("stream") not in (False, None):
            return 400, self.error(400, "this fake only answers stream: false")
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return _last_user(body.get("messages", []))

    def encode(self, answer: Answer, seen: Seen) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": answer.text}
        if answer.tool_calls:
            # Ollama's arguments are an object, not a JSON string as in OpenAI's protocol.
            message["tool_calls"] = [
                {"function": {"name": n, "arguments": a}} for n, a in answer.tool_calls
            ]
        return {
            "model": seen.body.get("model", "llama3"),
            "created_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "prompt_eval_count": answer.prompt_tokens,
            "eval_count": answer.output_tokens(),
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": message}


class AzureServer(WireServer):
    """Azure OpenAI: the OpenAI chat body under a deployment's path, ``api-key`` header, and a
    required ``api-version``. LiteLLM builds the path from the api_base (the resource's root)."""

    def check(self, seen: Seen) -> tuple[int, dict[str, Any]] | None:
        tail = seen.path.removeprefix("/openai/deployments/").partition("/")[2]
        if not seen.path.startswith("/openai/deployments/") or tail != "chat/completions":
            return 404, self.error(404, "Resource not found")
        if not seen.query.get("api-version"):
            return 404, self.error(404, "Resource not found")  # what Azure says without one
        if self.key is not None and seen.headers.get("api-key") != self.key:
            return 401, {
                "error": {
                    "code": "401",
                    "message": "Access denied due to invalid subscription key or wrong API "
                    "endpoint.",
                }
            }
        return None

    def user_text(self, body: dict[str, Any]) -> str:
        return _last_user(body.get("messages", []))

    def encode(self, answer: Answer, seen: Seen) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": answer.text or None}
        if answer.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": n, "arguments": json.dumps(a)},
                }
                for i, (n, a) in enumerate(answer.tool_calls)
            ]
        out = answer.output_tokens()
        return {
            "id": "chatcmpl-azure",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": "gpt-4o-mini-2024-07-18",  # Azure reports the model behind the deployment
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if answer.tool_calls else "stop",
                }
            ],
            "usage": {
                "prompt_tokens": answer.prompt_tokens,
                "completion_tokens": out,
                "total_tokens": answer.prompt_tokens + out,
            },
        }

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": str(status), "message": message}}


def _handler(server: WireServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as API servers set it: headers and body are two writes, and Nagle's
        # algorithm would hold the body back for the client's delayed ACK, ~40 ms a request.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            url = urlsplit(self.path)
            seen = Seen(
                path=url.path,
                query=dict(parse_qsl(url.query)),
                headers={k.lower(): v for k, v in self.headers.items()},
                body=body if isinstance(body, dict) else {},
            )
            try:
                status, payload = server.handle(seen)
            except Exception as exc:  # a bug in a test's script: say so on the wire
                status, payload = 500, {"error": f"fake server: {exc!r}"}
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass

    return Handler
