"""A loopback HTTP server that speaks the OpenAI chat-completions protocol.

Tests reach it through the real LiteLLM stack (``openai/<model>`` with ``api_base`` pointing here),
so everything between PromptCanary and the wire is exercised. Replies are scripted by a plain
function of the request body:

    def reply(request: dict) -> Reply | str: ...

A ``str`` is the assistant's content; a :class:`Reply` can also set an HTTP status, headers,
tool calls, the reported model, fingerprint, usage, a delay or a raw (malformed) body.
"""

from __future__ import annotations

import json
import math
import socket
import ssl
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted answer."""

    content: str | None = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] | None = None
    model: str | None = None
    system_fingerprint: str | None = "fp_test"
    finish_reason: str | None = None
    prompt_tokens: int = 10
    completion_tokens: int | None = None
    delay_s: float = 0.0
    raw_body: bytes | None = None
    error_message: str = "scripted error"


ReplyFn = Callable[[dict[str, Any]], "Reply | str"]


def last_user_text(request: dict[str, Any]) -> str:
    """The text of the last user message of a chat-completions request."""
    for message in reversed(request.get("messages", [])):
        if message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(part.get("text", "") for part in content if isinstance(part, dict))
            return str(content or "")
    return ""


class _Server(ThreadingHTTPServer):
    # socketserver listens with a backlog of 5: at 64 concurrent connections the kernel drops the
    # rest of the SYNs and clients wait a 1 s retransmit, so the server, not the client under
    # test, set the pace (2,000 requests at concurrency 64 took 32 s for a raw aiohttp client).
    request_queue_size = 1024
    #: Connections still to be refused: each is reset on accept, before a byte is read, as a
    #: server that is not up yet would (see FakeLLMServer(refuse_first=...)).
    refuse_left = 0
    refused = 0

    def verify_request(self, request: Any, client_address: Any) -> bool:
        if self.refuse_left <= 0:
            return True
        self.refuse_left -= 1
        self.refused += 1
        # Linger 0: close() sends a reset, not an orderly end, so the client sees a broken
        # connection rather than an empty answer.
        request.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        return False


class FakeLLMServer:
    """Threaded loopback OpenAI-compatible server with scripted replies.

    Attributes:
        requests: every request body received, in arrival order.
        max_in_flight: the highest number of requests being served at the same time.
    """

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        latency_s: float = 0.0,
        rate_limit_per_s: float | None = None,
        refuse_first: int = 0,
        tls: ssl.SSLContext | None = None,
    ) -> None:
        self.reply: ReplyFn = reply or (lambda req: "OK")
        #: A server-side TLS context: the server speaks HTTPS (``base_url`` says https).
        self.tls = tls
        self.latency_s = latency_s
        self.rate_limit_per_s = rate_limit_per_s
        self.refuse_first = refuse_first
        self.requests: list[dict[str, Any]] = []
        #: The HTTP headers of each request, in order (e.g. ``Authorization``).
        self.headers: list[dict[str, str]] = []
        #: The method and path of each request, in order (e.g. ``POST /v1/chat/completions``).
        self.request_lines: list[str] = []
        self.max_in_flight = 0
        self.rate_limited = 0
        self._in_flight = 0
        self._lock = threading.Lock()
        self._window: list[float] = []
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ── lifecycle ──
    @property
    def port(self) -> int:
        assert self._server is not None, "server not started"
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """Base URL to give LiteLLM as ``api_base`` (ends with /v1)."""
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}/v1"

    def start(self) -> FakeLLMServer:
        handler = _make_handler(self)
        self._server = _Server(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        if self.tls is not None:
            self._server.socket = self.tls.wrap_socket(self._server.socket, server_side=True)
        self._server.request_queue_size = 256
        self._server.refuse_left = self.refuse_first
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    @property
    def refused(self) -> int:
        """Connections reset on accept so far (``refuse_first``)."""
        return self._server.refused if self._server is not None else 0

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeLLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ── behaviour ──
    def _admit(self) -> bool:
        """Sliding one-second window rate limiter; False means answer 429."""
        return self._admit_or_wait() is None

    def _admit_or_wait(self) -> float | None:
        """None when the request is admitted, else seconds until the window has room again
        (what a real provider puts in ``retry-after-ms``)."""
        if self.rate_limit_per_s is None:
            return None
        now = time.monotonic()
        with self._lock:
            self._window = [t for t in self._window if now - t < 1.0]
            if len(self._window) >= self.rate_limit_per_s:
                self.rate_limited += 1
                return max(0.001, self._window[0] + 1.0 - now)
            self._window.append(now)
            return None

    def _enter(
        self, body: dict[str, Any], headers: dict[str, str] | None = None, line: str = ""
    ) -> None:
        with self._lock:
            self.requests.append(body)
            self.headers.append(headers or {})
            self.request_lines.append(line)
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)

    def _leave(self) -> None:
        with self._lock:
            self._in_flight -= 1


def _completion_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    content = reply.content
    completion_tokens = (
        reply.completion_tokens
        if reply.completion_tokens is not None
        else max(1, len((content or "").split()))
    )
    message: dict[str, Any] = {"role": "assistant", "content": content}
    finish = reply.finish_reason or "stop"
    if reply.tool_calls:
        message["tool_calls"] = reply.tool_calls
        finish = reply.finish_reason or "tool_calls"
    body: dict[str, Any] = {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model or request.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": reply.prompt_tokens + completion_tokens,
        },
    }
    if reply.system_fingerprint is not None:
        body["system_fingerprint"] = reply.system_fingerprint
    return body


def _make_handler(server: FakeLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as API servers set it: headers and body are two writes, and Nagle's
        # algorithm would hold the body back for the client's delayed ACK, ~40 ms a request.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            pass

        def _send(self, status: int, payload: bytes, headers: dict[str, str]) -> None:
            self.send_response(status)
            # A scripted Content-Type (e.g. text/html for a proxy's error page) replaces ours.
            if not any(k.lower() == "content-type" for k in headers):
                self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for k, v in headers.items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(payload)

        def do_GET(self) -> None:
            self._send(200, json.dumps({"object": "list", "data": []}).encode(), {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b"{}"
            try:
                body = json.loads(raw or b"{}")
            except json.JSONDecodeError:
                body = {}
            server._enter(body, dict(self.headers.items()), f"{self.command} {self.path}")
            try:
                wait = server._admit_or_wait()
                if wait is not None:
                    err = {"error": {"message": "Rate limit exceeded", "type": "rate_limit"}}
                    retry_ms = str(math.ceil(wait * 1000))
                    self._send(429, json.dumps(err).encode(), {"retry-after-ms": retry_ms})
                    return
                scripted = server.reply(body)
                reply = Reply(content=scripted) if isinstance(scripted, str) else scripted
                delay = server.latency_s + reply.delay_s
                if delay:
                    time.sleep(delay)
                if reply.raw_body is not None:
                    self._send(reply.status, reply.raw_body, reply.headers)
                    return
                if reply.status != 200:
                    err = {
                        "error": {
                            "message": reply.error_message,
                            "type": "error",
                            "code": str(reply.status),
                        }
                    }
                    self._send(reply.status, json.dumps(err).encode(), reply.headers)
                    return
                payload = json.dumps(_completion_body(body, reply)).encode()
                self._send(200, payload, reply.headers)
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                server._leave()

    return Handler


def main(argv: list[str] | None = None) -> None:
    """Serve from a separate process (benchmarks): prints the base URL, runs until killed.

    ``python -m tests.fakes.llm_server --latency 0.1 [--rate-limit 20] [--content OK]``
    """
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds per answer")
    parser.add_argument("--rate-limit", type=float, default=None, help="requests per second")
    parser.add_argument("--content", default="OK", help="the assistant's reply")
    parser.add_argument("--model", default=None, help="model name to report")
    args = parser.parse_args(argv)
    content, model = args.content, args.model
    server = FakeLLMServer(
        lambda request: Reply(content=content, model=model),
        latency_s=args.latency,
        rate_limit_per_s=args.rate_limit,
    ).start()
    print(server.base_url, flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
