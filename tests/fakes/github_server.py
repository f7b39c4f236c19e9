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

import base64
import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

#: GitHub's limit for an issue or comment body.
BODY_LIMIT = 65_536


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


class _Answer(Exception):  # noqa: N818 - a reply, not an error
    def __init__(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.status, self.payload, self.headers = status, payload, headers or {}


def _not_found() -> _Answer:
    return _Answer(404, {"message": "Not Found"})


def _too_long(resource: str) -> _Answer:
    return _Answer(
        422,
        {
            "message": "Validation Failed",
            "errors": [
                {
                    "resource": resource,
                    "code": "custom",
                    "field": "body",
                    "message": f"body is too long (maximum is {BODY_LIMIT} characters)",
                }
            ],
        },
    )


class _Router:
    """Dispatches one request against the server's state (called under the server lock)."""

    def __init__(
        self,
        fake: FakeGitHubServer,
        method: str,
        path: str,
        query: dict[str, str],
        body: dict[str, Any],
        token: Token,
    ) -> None:
        self.fake, self.method, self.path, self.query = fake, method, path, query
        self.body, self.token = body, token

    def route(self) -> tuple[int, Any, dict[str, str]]:
        if self.method != "GET" and not self.token.write:
            raise _Answer(403, {"message": "Resource not accessible by integration"})
        if self.path == "/user":
            if not self.token.can_read_user:
                raise _Answer(403, {"message": "Resource not accessible by integration"})
            return 200, self.fake._user(self.token.login), {}
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", self.path)
        if not m or m.group(1) not in self.fake.repos:
            raise _not_found()
        repo, rest = self.fake.repos[m.group(1)], m.group(2) or ""
        for pattern, handler in self._routes():
            hit = re.fullmatch(pattern, rest)
            if hit and handler[0] == self.method:
                return handler[1](repo, *hit.groups())
        raise _not_found()

    def _routes(self) -> list[tuple[str, tuple[str, Any]]]:
        return [
            (r"", ("GET", self.get_repo)),
            (r"/issues", ("GET", self.list_issues)),
            (r"/issues", ("POST", self.create_issue)),
            (r"/issues/(\d+)", ("GET", self.get_issue)),
            (r"/issues/(\d+)", ("PATCH", self.edit_issue)),
            (r"/issues/(\d+)/comments", ("GET", self.list_comments)),
            (r"/issues/(\d+)/comments", ("POST", self.create_comment)),
            (r"/issues/comments/(\d+)", ("PATCH", self.edit_comment)),
            (r"/issues/(\d+)/labels", ("POST", self.add_labels)),
            (r"/issues/(\d+)/labels/(.+)", ("DELETE", self.remove_label)),
            (r"/labels/(.+)", ("GET", self.get_label)),
            (r"/contents/(.+)", ("GET", self.get_contents)),
            (r"/contents/(.+)", ("PUT", self.put_contents)),
        ]

    # ── pagination ──
    def _page(self, items: list[Any], path: str) -> tuple[int, Any, dict[str, str]]:
        per_page = min(int(self.query.get("per_page", 30)), 100)
        page = max(int(self.query.get("page", 1)), 1)
        last = max(1, -(-len(items) // per_page))
        chunk = items[(page - 1) * per_page : page * per_page]
        links = []
        params = {k: v for k, v in self.query.items() if k not in ("page", "per_page")}
        extra = "".join(f"&{k}={quote(v)}" for k, v in sorted(params.items()))

        def url(n: int) -> str:
            return f"{self.fake.base_url}{path}?per_page={per_page}&page={n}{extra}"

        if page < last:
            links += [f'<{url(page + 1)}>; rel="next"', f'<{url(last)}>; rel="last"']
        if page > 1:
            links += [f'<{url(1)}>; rel="first"', f'<{url(page - 1)}>; rel="prev"']
        return 200, chunk, ({"Link": ", ".join(links)} if links else {})

    # ── handlers ──
    def get_repo(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        owner, name = repo.full_name.split("/")
        return (
            200,
            {
                "id": 1,
                "name": name,
                "full_name": repo.full_name,
                "owner": self.fake._user(owner),
                "default_branch": repo.default_branch,
                "url": f"{self.fake.base_url}/repos/{repo.full_name}",
            },
            {},
        )

    def _get(self, repo: FakeRepo, number: str) -> dict[str, Any]:
        issue = repo.issues.get(int(number))
        if issue is None:
            raise _not_found()
        return issue

    def list_issues(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        state = self.query.get("state", "open")
        wanted = [x for x in self.query.get("labels", "").split(",") if x]
        items = [
            i
            for i in sorted(repo.issues.values(), key=lambda i: -i["number"])
            if (state == "all" or i["state"] == state)
            and all(w in {lab["name"] for lab in i["labels"]} for w in wanted)
        ]
        return self._page(items, f"/repos/{repo.full_name}/issues")

    def create_issue(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        body = self.body.get("body") or ""
        if len(body) > BODY_LIMIT:
            raise _too_long("Issue")
        number = max(repo.issues, default=0) + 1
        issue = self.fake._issue(
            repo,
            number,
            title=self.body.get("title", ""),
            body=body,
            login=self.token.login,
            labels=list(self.body.get("labels", [])),
        )
        repo.issues[number] = issue
        return 201, issue, {}

    def get_issue(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        return 200, self._get(repo, number), {}

    def edit_issue(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        issue = self._get(repo, number)
        if len(self.body.get("body") or "") > BODY_LIMIT:
            raise _too_long("Issue")
        for key in ("title", "body", "state", "state_reason"):
            if key in self.body:
                issue[key] = self.body[key]
        if "labels" in self.body:
            issue["labels"] = [self.fake._label(repo, n) for n in self.body["labels"]]
        return 200, issue, {}

    def list_comments(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        self._get(repo, number)
        return self._page(
            repo.comments_on(int(number)), f"/repos/{repo.full_name}/issues/{number}/comments"
        )

    def create_comment(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        self._get(repo, number)
        body = self.body.get("body") or ""
        if len(body) > BODY_LIMIT:
            raise _too_long("IssueComment")
        return 201, self.fake._new_comment(repo, int(number), body, self.token.login), {}

    def edit_comment(self, repo: FakeRepo, cid: str) -> tuple[int, Any, dict[str, str]]:
        comment = repo.comments.get(int(cid))
        if comment is None:
            raise _not_found()
        body = self.body.get("body") or ""
        if len(body) > BODY_LIMIT:
            raise _too_long("IssueComment")
        comment["body"] = body
        comment["updated_at"] = "2026-01-02T00:00:00Z"
        return 200, comment, {}

    def add_labels(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        issue = self._get(repo, number)
        names = self.body.get("labels", []) if isinstance(self.body, dict) else []
        for name in names:
            if name not in {lab["name"] for lab in issue["labels"]}:
                issue["labels"].append(self.fake._label(repo, name))
        return 200, issue["labels"], {}

    def remove_label(self, repo: FakeRepo, number: str, name: str) -> tuple[int, Any, dict]:
        issue = self._get(repo, number)
        name = unquote(name)
        if name not in {lab["name"] for lab in issue["labels"]}:
            raise _Answer(404, {"message": "Label does not exist"})
        issue["labels"] = [lab for lab in issue["labels"] if lab["name"] != name]
        return 200, issue["labels"], {}

    def get_label(self, repo: FakeRepo, name: str) -> tuple[int, Any, dict[str, str]]:
        label = repo.labels.get(unquote(name))
        if label is None:
            raise _not_found()
        return 200, label, {}

    def _file_json(self, repo: FakeRepo, path: str, entry: dict[str, Any], branch: str) -> dict:
        return {
            "type": "file",
            "encoding": "base64",
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": entry["sha"],
            "size": len(entry["content"]),
            "content": base64.b64encode(entry["content"]).decode(),
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/contents/{path}?ref={branch}",
            "html_url": f"https://github.test/{repo.full_name}/blob/{branch}/{path}",
        }

    def get_contents(self, repo: FakeRepo, path: str) -> tuple[int, Any, dict[str, str]]:
        branch = self.query.get("ref", repo.default_branch)
        entry = repo.files.get(branch, {}).get(unquote(path))
        if entry is None:
            raise _not_found()
        return 200, self._file_json(repo, unquote(path), entry, branch), {}

    def put_contents(self, repo: FakeRepo, path: str) -> tuple[int, Any, dict[str, str]]:
        path = unquote(path)
        branch = self.body.get("branch", repo.default_branch)
        if branch not in repo.files:
            raise _Answer(404, {"message": f"Branch {branch} not found"})
        try:
            content = base64.b64decode(self.body["content"], validate=True)
        except (KeyError, ValueError) as exc:
            raise _Answer(422, {"message": "content is not valid Base64"}) from exc
        existing = repo.files[branch].get(path)
        if existing is not None and self.body.get("sha") != existing["sha"]:
            raise _Answer(
                409 if "sha" in self.body else 422,
                {"message": f'"sha" wasn\'t supplied or does not match for {path}'},
            )
        blob_sha = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        entry = {"content": content, "sha": blob_sha}
        repo.files[branch][path] = entry
        commit_sha = hashlib.sha1(f"{branch}{path}{len(repo.commits)}".encode()).hexdigest()
        commit = {
            "sha": commit_sha,
            "message": self.body.get("message", ""),
            "branch": branch,
            "path": path,
            "author": self.token.login,
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/git/commits/{commit_sha}",
            "html_url": f"https://github.test/{repo.full_name}/commit/{commit_sha}",
        }
        repo.commits.append(commit)
        status = 200 if existing is not None else 201
        return status, {"content": self._file_json(repo, path, entry, branch), "commit": commit}, {}


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
                except _Answer as answer:
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
                    raise _Answer(failure.status, {"message": failure.message})
            auth = self.headers.get("Authorization", "")
            token = fake.tokens.get(auth.split(" ", 1)[-1]) if auth else None
            if token is None:
                raise _Answer(401, {"message": "Bad credentials"})
            return _Router(
                fake, method, path, query, body if isinstance(body, dict) else {}, token
            ).route()

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle  # noqa: N815

    return Handler
