"""A stateful loopback fake of the GitHub REST endpoints the Action uses.

Reached through the real PyGithub (``base_url`` = :attr:`FakeGitHubServer.base_url`, which the
Action reads from ``GITHUB_API_URL``). It keeps repositories, issues / pull requests, comments,
labels and files per branch, and behaves like GitHub where the Action depends on it:

- comments and issues are paginated (``per_page``, ``page``) with ``Link`` headers;
- ``GET /user`` answers 403 for the workflow's default token (as GitHub does for installation
  tokens), 200 for a personal token;
- a read-only token gets 403 on every write; an unknown token 401;
- a comment or issue body over 65,536 characters gets 422;
- any request can be made to fail with :meth:`FakeGitHubServer.fail`.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from tests.fakes.github_routes import BODY_LIMIT, Answer, Router

__all__ = [
    "BODY_LIMIT",
    "DEFAULT_TOKEN",
    "READ_ONLY_TOKEN",
    "FakeGitHubServer",
    "FakeRepo",
    "Token",
]


@dataclass(frozen=True)
class Token:
    """What a token may do."""

    login: str
    """Who comments / commits with it."""
    write: bool = True
    """False: every write answers 403."""
    can_read_user: bool = False
    """False: GET /user answers 403 (installation tokens, like the default GITHUB_TOKEN)."""


DEFAULT_TOKEN = "ghs_defaulttoken000000000000000000000"
READ_ONLY_TOKEN = "ghs_readonlytoken0000000000000000000"


@dataclass
class Failure:
    method: str
    path: re.Pattern[str]
    status: int
    times: int | None
    message: str


@dataclass
class FakeRepo:
    """State of one repository."""

    full_name: str
    default_branch: str = "main"
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    # branch -> path -> {"content": bytes, "sha": str}
    files: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # commits made through the contents API, oldest first
    commits: list[dict[str, Any]] = field(default_factory=list)

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        """Comments of issue/PR ``number``, oldest first."""
        return [c for c in self.comments.values() if c["issue_number"] == number]


class FakeGitHubServer:
    """Threaded loopback GitHub API. Use as a context manager; see the module docstring."""

    def __init__(self, *, tokens: dict[str, Token] | None = None) -> None:
        self.tokens: dict[str, Token] = {
            DEFAULT_TOKEN: Token("github-actions[bot]"),
            READ_ONLY_TOKEN: Token("github-actions[bot]", write=False),
        }
        self.tokens.update(tokens or {})
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[tuple[str, str, int]] = []
        self.failures: list[Failure] = []
        self._ids = 1000
        self._lock = threading.RLock()
        self._server: ThreadingHTTPServer | None = None

    # ── lifecycle ──
    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeGitHubServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _make_handler(self))
        self._server.daemon_threads = True
        threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> FakeGitHubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ── seeding ──
    def add_repo(self, full_name: str, *, branches: tuple[str, ...] = ("main",)) -> FakeRepo:
        repo = FakeRepo(full_name, default_branch=branches[0])
        repo.files = {b: {} for b in branches}
        self.repos[full_name] = repo
        return repo

    def add_pull_request(self, full_name: str, number: int, *, head_ref: str) -> dict[str, Any]:
        repo = self.repos[full_name]
        repo.files.setdefault(head_ref, {})
        issue = self._issue(
            repo,
            number,
            title=f"PR {number}",
            body="",
            login="octocat",
            labels=[],
            pull_request=True,
        )
        repo.issues[number] = issue
        return issue

    def add_comment(self, full_name: str, number: int, body: str, *, login: str) -> dict[str, Any]:
        repo = self.repos[full_name]
        with self._lock:
            return self._new_comment(repo, number, body, login)

    def fail(
        self,
        method: str,
        path_regex: str,
        status: int,
        *,
        times: int | None = None,
        message: str = "Resource not accessible by integration",
    ) -> None:
        """Answer ``status`` to matching requests (``times`` of them, or all when None)."""
        self.failures.append(
            Failure(method.upper(), re.compile(path_regex), status, times, message)
        )

    def count(self, method: str, path_regex: str) -> int:
        """How many requests matched (any status)."""
        rx = re.compile(path_regex)
        return sum(1 for m, p, _ in self.requests if m == method and rx.search(p))

    # ── object builders ──
    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    def _user(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": abs(hash(login)) % 10**8,
            "type": "Bot" if login.endswith("[bot]") else "User",
            "url": f"{self.base_url}/users/{quote(login)}",
        }

    def _issue(
        self,
        repo: FakeRepo,
        number: int,
        *,
        title: str,
        body: str,
        login: str,
        labels: list[str],
        pull_request: bool = False,
    ) -> dict[str, Any]:
        api = f"{self.base_url}/repos/{repo.full_name}"
        kind = "pull" if pull_request else "issues"
        issue: dict[str, Any] = {
            "id": self._next_id(),
            "number": number,
            "title": title,
            "body": body,
            "state": "open",
            "state_reason": None,
            "labels": [],
            "user": self._user(login),
            "url": f"{api}/issues/{number}",
            "html_url": f"https://github.test/{repo.full_name}/{kind}/{number}",
            "comments_url": f"{api}/issues/{number}/comments",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }
        if pull_request:
            issue["pull_request"] = {"url": f"{api}/pulls/{number}"}
        for name in labels:
            issue["labels"].append(self._label(repo, name))
        return issue

    def _label(self, repo: FakeRepo, name: str) -> dict[str, Any]:
        if name not in repo.labels:
            repo.labels[name] = {
                "id": self._next_id(),
                "name": name,
                "color": "ededed",
                "description": None,
                "url": f"{self.base_url}/repos/{repo.full_name}/labels/{quote(name, safe='')}",
            }
        return repo.labels[name]

    def _new_comment(self, repo: FakeRepo, number: int, body: str, login: str) -> dict[str, Any]:
        cid = self._next_id()
        comment = {
            "id": cid,
            "issue_number": number,
            "body": body,
            "user": self._user(login),
            "url": f"{self.base_url}/repos/{repo.full_name}/issues/comments/{cid}",
            "html_url": f"https://github.test/{repo.full_name}/pull/{number}#issuecomment-{cid}",
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }
        repo.comments[cid] = comment
        return comment


def _make_handler(fake: FakeGitHubServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _handle(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            split = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(split.query).items()}
            method, path = self.command, split.path
            try:
                body = json.loads(raw) if raw else {}
            except ValueError:
                body = {}
            with fake._lock:
                try:
                    status, payload, headers = self._dispatch(method, path, query, body)
                except Answer as answer:
                    status, payload, headers = answer.status, answer.payload, answer.headers
                fake.requests.append((method, path, status))
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _dispatch(
            self, method: str, path: str, query: dict[str, str], body: Any
        ) -> tuple[int, Any, dict[str, str]]:
            for failure in fake.failures:
                if failure.method == method and failure.path.search(path) and failure.times != 0:
                    if failure.times is not None:
                        failure.times -= 1
                    raise Answer(failure.status, {"message": failure.message})
            auth = self.headers.get("Authorization", "")
            token = fake.tokens.get(auth.split(" ", 1)[-1]) if auth else None
            if token is None:
                raise Answer(401, {"message": "Bad credentials"})
            return Router(
                fake, method, path, query, body if isinstance(body, dict) else {}, token
            ).route()

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle  # noqa: N815

    return Handler
