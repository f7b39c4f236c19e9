"""A loopback HTTP server that speaks OpenAI's files + batches protocol.

Tests reach it through the real LiteLLM stack (``litellm.create_file`` / ``create_batch`` /
``retrieve_batch`` / ``file_content`` with ``api_base`` pointing here), so the batch path is
exercised down to the wire. It implements:

* ``POST /v1/files`` (multipart upload, purpose "batch") → a file object;
* ``POST /v1/batches`` → a batch in status ``validating``;
* ``GET /v1/batches/{id}`` → the batch, one status further per poll:
  validating → in_progress → ``final_status`` (completed, failed, expired) after
  ``polls_to_finish`` polls; ``polls_to_finish=None`` never finishes;
* ``GET /v1/files/{id}/content`` → the bytes of an uploaded or produced file.

Each batch line is answered with the same scripted ``reply`` function as :mod:`llm_server`
(a :class:`~tests.fakes.llm_server.Reply` with a non-200 status becomes a line of the error file).
Any other path answers 404 and is recorded in :attr:`FakeBatchServer.paths`, so a test can assert
that no ``/chat/completions`` call was made.
"""

from __future__ import annotations

import json
import threading
import time
from email.parser import BytesParser
from email.policy import HTTP
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.llm_server import Reply, ReplyFn, _completion_body
from tests.fakes.loopback import LoopbackHTTPServer


class FakeBatchServer(LoopbackHTTPServer):
    """Threaded loopback OpenAI files + batches server.

    Attributes:
        paths: "METHOD /path" of every request, in arrival order.
        files: file id → bytes (uploads and produced output / error files).
        batches: batch id → the batch object as last served.
        lines: every request line of every uploaded batch file, parsed.
    """

    def __init__(
        self,
        reply: ReplyFn | None = None,
        *,
        polls_to_finish: int | None = 2,
        final_status: str = "completed",
        partial: int = 0,
    ) -> None:
        self.reply: ReplyFn = reply or (lambda request: "OK")
        self.polls_to_finish = polls_to_finish
        self.final_status = final_status
        #: With final_status "expired": how many lines were answered before the window closed.
        self.partial = partial
        self.paths: list[str] = []
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.polls: dict[str, int] = {}
        self.lines: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    @property
    def base_url(self) -> str:
        return self.root + "/v1"

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    # ── protocol ──

    def upload(self, content: bytes, purpose: str) -> dict[str, Any]:
        with self._lock:
            file_id = f"file-{len(self.files) + 1}"
            self.files[file_id] = content
        return _file_object(file_id, len(content), purpose)

    def create_batch(self, body: dict[str, Any]) -> dict[str, Any]:
        with self._lock:
            batch_id = f"batch_{len(self.batches) + 1}"
            batch = {
                "id": batch_id,
                "object": "batch",
                "endpoint": body.get("endpoint"),
                "input_file_id": body.get("input_file_id"),
                "completion_window": body.get("completion_window"),
                "status": "validating",
                "created_at": int(time.time()),
                "output_file_id": None,
                "error_file_id": None,
                "errors": None,
                "request_counts": {"total": 0, "completed": 0, "failed": 0},
                "metadata": body.get("metadata"),
            }
            self.batches[batch_id] = batch
            self.polls[batch_id] = 0
        return batch

    def retrieve(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            self.polls[batch_id] += 1
            polls = self.polls[batch_id]
            if batch["status"] in ("validating", "in_progress"):
                if self.polls_to_finish is not None and polls >= self.polls_to_finish:
                    self._finish(batch)
                elif polls >= 1:
                    batch["status"] = "in_progress"
            return dict(batch)

    def _finish(self, batch: dict[str, Any]) -> None:
        """Answer every line of the batch's input (called with the lock held)."""
        if self.final_status != "completed" and not self.partial:
            batch["status"] = self.final_status
            if self.final_status == "failed":
                batch["errors"] = {
                    "object": "list",
                    "data": [{"code": "invalid_request", "message": "scripted failure"}],
                }
            return
        raw = self.files.get(batch["input_file_id"], b"")
        out: list[str] = []
        errors: list[str] = []
        answered = 0
        for text in raw.decode("utf-8").splitlines():
            if not text.strip():
                continue
            line = json.loads(text)
            self.lines.append(line)
            answered += 1
            if self.final_status != "completed" and answered > self.partial:
                expired = {
                    "code": "batch_expired",
                    "message": "This request could not be "
                    "executed before the completion window expired.",
                }
                errors.append(
                    json.dumps(
                        {
                            "id": "r",
                            "custom_id": line["custom_id"],
                            "response": None,
                            "error": expired,
                        }
                    )
                )
                continue
            scripted = self.reply(line["body"])
            reply = Reply(content=scripted) if isinstance(scripted, str) else scripted
            if reply.status != 200:
                error = {"message": reply.error_message, "code": str(reply.status)}
                response = {"status_code": reply.status, "body": {"error": error}}
                errors.append(
                    json.dumps({"id": "r", "custom_id": line["custom_id"], "response": response})
                )
                continue
            body = _completion_body(line["body"], reply)
            out.append(
                json.dumps(
                    {
                        "id": "r",
                        "custom_id": line["custom_id"],
                        "response": {"status_code": 200, "request_id": "req", "body": body},
                        "error": None,
                    }
                )
            )
        batch["status"] = self.final_status
        n = len(self.files)
        batch["output_file_id"] = f"file-{n + 1}"
        self.files[f"file-{n + 1}"] = ("\n".join(out) + "\n").encode()
        if errors:
            batch["error_file_id"] = f"file-{n + 2}"
            self.files[f"file-{n + 2}"] = ("\n".join(errors) + "\n").encode()
        batch["request_counts"] = {
            "total": len(out) + len(errors),
            "completed": len(out),
            "failed": len(errors),
        }


def _file_object(file_id: str, size: int, purpose: str) -> dict[str, Any]:
    return {
        "id": file_id,
        "object": "file",
        "bytes": size,
        "created_at": int(time.time()),
        "filename": "batch.jsonl",
        "purpose": purpose,
        "status": "processed",
    }


def _multipart(content_type: str, raw: bytes) -> tuple[bytes, str]:
    """The uploaded file's bytes and the ``purpose`` field of a multipart/form-data body."""
    message = BytesParser(policy=HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + raw
    )
    content, purpose = b"", ""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if name == "file":
            content = payload
        elif name == "purpose":
            purpose = payload.decode()
    return content, purpose


def _make_handler(server: FakeBatchServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # TCP_NODELAY, as API servers set it: headers and body are two writes, and Nagle's
        # algorithm would hold the body back for the client's delayed ACK, ~40 ms a request.
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # silence stderr
            pass

        def _send(self, status: int, body: Any, *, raw: bytes | None = None) -> None:
            payload = raw if raw is not None else json.dumps(body).encode()
            self.send_response(status)
            ctype = "application/octet-stream" if raw is not None else "application/json"
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def _not_found(self) -> None:
            self._send(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})

        def do_GET(self) -> None:
            path = self.path.split("?")[0]
            server.paths.append(f"GET {path}")
            parts = path.strip("/").split("/")
            if len(parts) == 3 and parts[:2] == ["v1", "batches"]:
                batch = server.retrieve(parts[2])
                return self._not_found() if batch is None else self._send(200, batch)
            if len(parts) == 4 and parts[:2] == ["v1", "files"] and parts[3] == "content":
                content = server.files.get(parts[2])
                return self._not_found() if content is None else self._send(200, None, raw=content)
            return self._not_found()

        def do_POST(self) -> None:
            path = self.path.split("?")[0]
            server.paths.append(f"POST {path}")
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if path == "/v1/files":
                content, purpose = _multipart(self.headers.get("Content-Type", ""), raw)
                return self._send(200, server.upload(content, purpose))
            if path == "/v1/batches":
                return self._send(200, server.create_batch(json.loads(raw or b"{}")))
            return self._not_found()

    return Handler
