"""A stateful loopback fake of the GitHub REST endpoints the Action uses.

Reached through the real PyGithub (``base_url`` = :attr:`FakeGitHubServer.base_url`, which the
Action reads from ``GITHUB_API_URL``). It keeps repositories, issues / pull requests, comments,
labels, branches as a small commit graph (blobs, trees, commits, refs) with the files at each
head, and behaves like GitHub where the Action depends on it:

- comments and issues are paginated (``per_page``, ``page``) with ``Link`` headers;
- ``GET /user`` answers 403 for installation tokens (the workflow's default token and GitHub App
  tokens), 200 for a personal token; GraphQL ``viewer { login }`` answers for all of them (an
  App's login carries the ``[bot]`` suffix; a comment's GraphQL ``author.login`` drops it);
- comments can be minimized (hidden): only GraphQL ``isMinimized`` shows it, REST never does;
- a read-only token gets 403 on every write; a token with :attr:`Token.permissions` gets 403 on
  writes its scopes do not cover (``contents``, ``issues``/``pull-requests``, ``actions``);
  an unknown token 401;
- a comment or issue body over 65,536 characters gets 422; a contents PUT or a git commit
  without ``message`` gets 422;
- ``PATCH /git/refs/heads/<b>`` with ``force: false`` refuses a commit that does not descend from
  the branch head (422 "Update is not a fast forward"), and :meth:`FakeGitHubServer.push` moves a
  head the way a developer's push does;
- workflow dispatches are recorded in :attr:`FakeRepo.dispatches` (404 unknown workflow, 422
  without a ``workflow_dispatch`` trigger) and listed as workflow runs — after
  :attr:`FakeRepo.run_delay` reads of the list, as GitHub creates the run asynchronously; ``GET``
  of a workflow answers 404 for a file that does not exist;
- creating a repository label needs ``issues: write`` (``pull-requests: write`` is not enough);
- check runs (:attr:`FakeRepo.check_runs`) need ``checks: write`` and a GitHub App's token
  (a personal token gets 403); a head SHA that is not a commit, more than 50 annotations in one
  request, a summary over 65,535 characters or an annotation without its required fields get
  422; a PATCH appends annotations;
- check suites (:attr:`FakeRepo.check_suites`): one per workflow run
  (:meth:`FakeGitHubServer.add_workflow_run`, whose jobs are check runs in it); a check run
  created through the API is filed into the oldest suite of its app on that commit, not the one
  of the job that created it (see :mod:`tests.fakes.github_status_routes`);
- commit statuses (:attr:`FakeRepo.statuses`) need ``statuses: write``, a commit that exists, a
  valid state, a description of at most 140 characters and a URL as ``target_url``; the combined
  status and :meth:`FakeGitHubServer.required_check` judge them as GitHub's merge box does;
- ``GET /pulls/{n}`` answers a pull request as it is now (its head is its branch's head, its
  labels those on it now); ``GET /contents/{path}?ref=`` answers a file or lists a folder at a
  branch or a commit (404 when neither exists there);
- ``GET /collaborators/{user}/permission`` answers from :attr:`FakeRepo.collaborators`
  (``maintain`` reads as ``write`` and ``triage`` as ``read``, as GitHub does);
- a protected branch (:meth:`FakeGitHubServer.protect`) refuses ref updates with 422;
- :meth:`FakeGitHubServer.rate_limit` answers a secondary rate limit (403 or 429, with or
  without ``Retry-After``);
- any request can be made to fail with :meth:`FakeGitHubServer.fail`, also *after* it succeeded
  (a 502 on a write that was applied), or answered with a malformed body after it landed
  (:meth:`FakeGitHubServer.garble`).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

from tests.fakes.github_routes import BODY_LIMIT, Answer, Router
from tests.fakes.loopback import LoopbackHTTPServer

__all__ = [
    "APP_LOGIN",
    "APP_TOKEN",
    "BODY_LIMIT",
    "DEFAULT_TOKEN",
    "HEAD_SHA",
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
    graphql: bool = True
    """False: POST /graphql answers 403."""
    permissions: dict[str, str] | None = None
    """Scope -> "read" / "write" (``contents``, ``issues``, ``pull-requests``, ``actions``,
    ``checks``, ``statuses``); None: every scope is writable (when :attr:`write`)."""

    @property
    def app(self) -> str | None:
        """The GitHub App this token belongs to (``github-actions`` for the workflow's token),
        or None for a personal token, which may not create check runs."""
        if self.can_read_user or not self.login.endswith("[bot]"):
            return None
        return self.login.removesuffix("[bot]")

    def may_write(self, scope: str) -> bool:
        """``issues`` (comments, labels on an issue or PR) is covered by ``issues`` or
        ``pull-requests``; ``labels`` (creating a repository label) only by ``issues`` (GitHub's
        rule since 2025); every other scope by itself."""
        if not self.write:
            return False
        if self.permissions is None:
            return True
        if scope == "issues":
            scopes: tuple[str, ...] = ("issues", "pull-requests")
        elif scope == "labels":
            scopes = ("issues",)
        else:
            scopes = (scope,)
        return any(self.permissions.get(s) == "write" for s in scopes)


DEFAULT_TOKEN = "ghs_defaulttoken000000000000000000000"
READ_ONLY_TOKEN = "ghs_readonlytoken0000000000000000000"
#: A GitHub App installation token: GET /user refused, GraphQL viewer is the App's bot.
APP_TOKEN = "ghs_apptoken0000000000000000000000000"
APP_LOGIN = "promptcanary-app[bot]"
#: The head commit of the pull requests in the @octokit/webhooks-examples payloads.
HEAD_SHA = "ec26c3e57ca3a959ca5aad62de7213c562f8c821"


@dataclass
class Failure:
    method: str
    path: re.Pattern[str]
    status: int
    times: int | None
    message: str
    after: bool = False
    """True: the request is carried out first, then answered with ``status``."""
    headers: dict[str, str] = field(default_factory=dict)
    """Headers of the refusal (``Retry-After``)."""
    raw: bytes | None = None
    """With ``after``: the request is carried out and answered with its own status, but with
    this body instead of its JSON (a reply cut off mid-way: :meth:`FakeGitHubServer.garble`)."""


@dataclass
class FakeRepo:
    """State of one repository."""

    full_name: str
    default_branch: str = "main"
    id: int = 1
    issues: dict[int, dict[str, Any]] = field(default_factory=dict)
    comments: dict[int, dict[str, Any]] = field(default_factory=dict)
    labels: dict[str, dict[str, Any]] = field(default_factory=dict)
    # branch -> path -> {"content": bytes, "sha": str}
    files: dict[str, dict[str, dict[str, Any]]] = field(default_factory=dict)
    # commits that moved a branch through the API (contents PUT or ref update), oldest first
    commits: list[dict[str, Any]] = field(default_factory=list)
    # the git object store: branch heads, commits, trees (path -> blob sha), blobs
    heads: dict[str, str] = field(default_factory=dict)
    git_commits: dict[str, dict[str, Any]] = field(default_factory=dict)
    trees: dict[str, dict[str, str]] = field(default_factory=dict)
    blobs: dict[str, bytes] = field(default_factory=dict)
    # comment ids hidden by a maintainer (visible through GraphQL isMinimized only)
    minimized: set[int] = field(default_factory=set)
    # workflow file name -> True when it has a workflow_dispatch trigger
    workflows: dict[str, bool] = field(default_factory=dict)
    # workflow dispatches received: {"workflow", "ref", "inputs", "login"}
    dispatches: list[dict[str, Any]] = field(default_factory=list)
    # GitHub answers a dispatch before the run exists: a new dispatch's run is missing from
    # this many reads of the runs list (0: it is there at once)
    run_delay: int = 0
    run_hidden: dict[int, int] = field(default_factory=dict)
    # check runs by id: {"name", "head_sha", "status", "conclusion", "output", "annotations",
    # "app", "check_suite_id"}
    check_runs: dict[int, dict[str, Any]] = field(default_factory=dict)
    # check suites by id, oldest first: {"id", "head_sha", "app", "workflow" (None when the
    # suite was created for a check run of an app outside a workflow run)}
    check_suites: dict[int, dict[str, Any]] = field(default_factory=dict)
    # commit statuses, oldest first: {"id", "sha", "state", "description", "target_url",
    # "context", "login", "app", "created_at"}
    statuses: list[dict[str, Any]] = field(default_factory=list)
    # login -> role (admin, maintain, write, triage, read); anyone else has "none"
    collaborators: dict[str, str] = field(default_factory=dict)
    # branch -> the message a protected-branch rule or ruleset refuses ref updates with
    protected: dict[str, str] = field(default_factory=dict)

    def comments_on(self, number: int) -> list[dict[str, Any]]:
        """Comments of issue/PR ``number``, oldest first."""
        return [c for c in self.comments.values() if c["issue_number"] == number]


class FakeGitHubServer(LoopbackHTTPServer):
    """Threaded loopback GitHub API. Use as a context manager; see the module docstring."""

    def __init__(self, *, tokens: dict[str, Token] | None = None) -> None:
        self.tokens: dict[str, Token] = {
            DEFAULT_TOKEN: Token("github-actions[bot]"),
            READ_ONLY_TOKEN: Token("github-actions[bot]", write=False),
            APP_TOKEN: Token(APP_LOGIN),
        }
        self.tokens.update(tokens or {})
        self.repos: dict[str, FakeRepo] = {}
        self.requests: list[tuple[str, str, int]] = []
        self.failures: list[Failure] = []
        self._ids = 1000
        self._lock = threading.RLock()

    # ── lifecycle ──
    @property
    def base_url(self) -> str:
        return self.root

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        return _make_handler(self)

    # ── seeding ──
    def add_repo(
        self,
        full_name: str,
        *,
        branches: tuple[str, ...] = ("main",),
        workflows: dict[str, bool] | None = None,
    ) -> FakeRepo:
        """A repository whose ``branches`` each start with an empty root commit; ``workflows``
        maps workflow file names to whether they have a ``workflow_dispatch`` trigger."""
        repo = FakeRepo(full_name, default_branch=branches[0], id=186853002 + len(self.repos))
        repo.workflows = dict(workflows or {})
        self.repos[full_name] = repo
        for branch in branches:
            self.set_head(full_name, branch, self._commit_sha(f"root {branch}"))
        return repo

    def set_head(self, full_name: str, branch: str, sha: str, *, files: dict | None = None) -> None:
        """Point ``branch`` at commit ``sha`` (created with ``files`` when it does not exist)."""
        repo = self.repos[full_name]
        with self._lock:
            if sha not in repo.git_commits:
                tree = self._tree(repo, dict(files or {}))
                repo.git_commits[sha] = {"tree": tree, "parents": [], "message": "seed"}
            repo.heads[branch] = sha
            self._checkout(repo, branch)

    def push(self, full_name: str, branch: str, files: dict[str, bytes]) -> str:
        """Another commit on ``branch`` (a developer's push): returns the new head."""
        repo = self.repos[full_name]
        with self._lock:
            parent = repo.heads[branch]
            current = dict(repo.trees[repo.git_commits[parent]["tree"]])
            for path, content in files.items():
                current[path] = self._blob(repo, content)
            sha = self._commit_sha(f"push {branch} {len(repo.git_commits)}")
            repo.git_commits[sha] = {
                "tree": self._store_tree(repo, current),
                "parents": [parent],
                "message": "a developer's push",
            }
            repo.heads[branch] = sha
            self._checkout(repo, branch)
            return sha

    def minimize(self, full_name: str, comment_id: int) -> None:
        """Hide a comment the way a maintainer does ("Hide" in the comment's menu)."""
        self.repos[full_name].minimized.add(comment_id)

    def add_pull_request(
        self,
        full_name: str,
        number: int,
        *,
        head_ref: str,
        head_sha: str = HEAD_SHA,
        state: str = "open",
        merged: bool = False,
        base_ref: str | None = None,
    ) -> dict[str, Any]:
        """A pull request from ``head_ref`` (pointed at ``head_sha``) into ``base_ref`` (the
        default branch when None); ``GET /pulls/{n}`` answers its state, labels and head now."""
        repo = self.repos[full_name]
        self.set_head(full_name, head_ref, head_sha)
        issue = self._issue(
            repo,
            number,
            title=f"PR {number}",
            body="",
            login="octocat",
            labels=[],
            pull_request=True,
        )
        issue["state"] = state
        issue["_head_ref"] = head_ref
        issue["_merged"] = merged
        issue["_base_ref"] = base_ref or repo.default_branch
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
        after: bool = False,
        headers: dict[str, str] | None = None,
    ) -> None:
        """Answer ``status`` to matching requests (``times`` of them, or all when None);
        with ``after`` the request is carried out first (a write that succeeded, then a 502)."""
        self.failures.append(
            Failure(
                method.upper(),
                re.compile(path_regex),
                status,
                times,
                message,
                after,
                dict(headers or {}),
            )
        )

    def garble(self, method: str, path_regex: str, raw: bytes, *, times: int | None = None) -> None:
        """Carry out matching requests, then answer them with ``raw`` as the body (its status
        kept): a malformed reply PyGithub cannot read, after the write landed."""
        self.failures.append(
            Failure(method.upper(), re.compile(path_regex), 0, times, "", after=True, raw=raw)
        )

    def rate_limit(
        self,
        method: str,
        path_regex: str,
        *,
        times: int = 1,
        retry_after: int | None = None,
        status: int = 403,
    ) -> None:
        """Refuse matching requests the way GitHub's secondary rate limit does: 403 (or 429)
        "You have exceeded a secondary rate limit", with ``Retry-After`` when given."""
        self.fail(
            method,
            path_regex,
            status,
            times=times,
            message="You have exceeded a secondary rate limit. Please wait a few minutes "
            "before you try again.",
            headers={"Retry-After": str(retry_after)} if retry_after is not None else None,
        )

    def protect(self, full_name: str, branch: str, *, ruleset: bool = False) -> None:
        """Make ref updates of ``branch`` fail the way a branch protection rule (422 "Protected
        branch update failed") or a repository ruleset (422 "Repository rule violations found")
        refuses a push."""
        self.repos[full_name].protected[branch] = (
            "Repository rule violations found\n\nChanges must be made through a pull request."
            if ruleset
            else f"Protected branch update failed for refs/heads/{branch}."
        )

    # ── check suites, statuses and the merge box ──
    def add_workflow_run(
        self,
        full_name: str,
        workflow: str,
        head_sha: str = HEAD_SHA,
        *,
        jobs: tuple[str, ...] = ("check",),
    ) -> dict[str, Any]:
        """A GitHub Actions workflow run starting on ``head_sha``: its check suite, with one
        check run per job, ``in_progress`` (what a job's own check is while it runs)."""
        repo = self.repos[full_name]
        with self._lock:
            suite = self._new_suite(repo, head_sha, "github-actions", workflow)
            for job in jobs:
                run_id = self._next_id()
                repo.check_runs[run_id] = {
                    "id": run_id,
                    "name": job,
                    "head_sha": head_sha,
                    "status": "in_progress",
                    "conclusion": None,
                    "output": {"title": None, "summary": None, "text": None},
                    "annotations": [],
                    "requests": 0,
                    "app": "github-actions",
                    "check_suite_id": suite["id"],
                    "job": True,
                }
            return suite

    def finish_workflow_run(self, full_name: str, suite: dict[str, Any], conclusion: str) -> None:
        """The workflow run of ``suite`` ends (``success``, ``failure``, ``cancelled``...): its
        jobs' own check runs complete with ``conclusion``; check runs the API created in that
        suite are left as they are (nothing completes them but their creator)."""
        with self._lock:
            for run in self.repos[full_name].check_runs.values():
                if run["check_suite_id"] == suite["id"] and run.get("job"):
                    run["status"], run["conclusion"] = "completed", conclusion

    def suite_for(self, repo: FakeRepo, head_sha: str, app: str) -> int:
        """The suite a check run created through the API lands in: the oldest suite of ``app``
        on ``head_sha`` (whatever workflow created the run), else a new one."""
        for suite in repo.check_suites.values():
            if suite["head_sha"] == head_sha and suite["app"] == app:
                return int(suite["id"])
        return int(self._new_suite(repo, head_sha, app, None)["id"])

    def _new_suite(
        self, repo: FakeRepo, head_sha: str, app: str, workflow: str | None
    ) -> dict[str, Any]:
        suite: dict[str, Any] = {
            "id": self._next_id(),
            "head_sha": head_sha,
            "app": app,
            "workflow": workflow,
        }
        repo.check_suites[suite["id"]] = suite
        return suite

    def latest_statuses(self, full_name: str, sha: str) -> dict[str, dict[str, Any]]:
        """The newest status of each context on ``sha`` (what the combined status counts)."""
        latest: dict[str, dict[str, Any]] = {}
        for status in self.repos[full_name].statuses:
            if status["sha"] == sha:
                latest[status["context"]] = status
        return latest

    def required_check(self, full_name: str, sha: str, name: str) -> str:
        """What the merge box says of the required check ``name`` on ``sha``: ``expected``
        (nothing reported: "Expected — Waiting for status to be reported"), ``pending``,
        ``failure`` or ``success``. GitHub requires both a check run and a status of that name
        when both exist; a check run passes when it completed as success, neutral or skipped,
        a status only as success."""
        repo = self.repos[full_name]
        runs = [r for r in repo.check_runs.values() if r["head_sha"] == sha and r["name"] == name]
        status = self.latest_statuses(full_name, sha).get(name)
        states: list[str] = []
        if runs:
            run = max(runs, key=lambda r: int(r["id"]))  # the newest check run of that name
            if run["status"] != "completed":
                states.append("pending")
            elif run["conclusion"] in ("success", "neutral", "skipped"):
                states.append("success")
            else:
                states.append("failure")
        if status is not None:
            states.append(
                {"success": "success", "pending": "pending"}.get(status["state"], "failure")
            )
        if not states:
            return "expected"
        for verdict in ("failure", "pending"):
            if verdict in states:
                return verdict
        return "success"

    def count(self, method: str, path_regex: str) -> int:
        """How many requests matched (any status)."""
        rx = re.compile(path_regex)
        return sum(1 for m, p, _ in self.requests if m == method and rx.search(p))

    # ── git objects ──
    @staticmethod
    def _commit_sha(seed: str) -> str:
        return hashlib.sha1(seed.encode()).hexdigest()

    def _blob(self, repo: FakeRepo, content: bytes) -> str:
        sha = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()
        repo.blobs[sha] = content
        return sha

    def _store_tree(self, repo: FakeRepo, entries: dict[str, str]) -> str:
        sha = hashlib.sha1(repr(sorted(entries.items())).encode()).hexdigest()
        repo.trees[sha] = dict(entries)
        return sha

    def _tree(self, repo: FakeRepo, files: dict[str, bytes]) -> str:
        return self._store_tree(repo, {p: self._blob(repo, c) for p, c in files.items()})

    def _checkout(self, repo: FakeRepo, branch: str) -> None:
        """Refresh ``repo.files[branch]`` from the branch head's tree."""
        tree = repo.trees[repo.git_commits[repo.heads[branch]]["tree"]]
        repo.files[branch] = {
            path: {"content": repo.blobs[sha], "sha": sha} for path, sha in tree.items()
        }

    def _descends(self, repo: FakeRepo, sha: str, ancestor: str) -> bool:
        """True when ``ancestor`` is ``sha`` or one of its ancestors."""
        todo, seen = [sha], set()
        while todo:
            current = todo.pop()
            if current == ancestor:
                return True
            if current in seen or current not in repo.git_commits:
                continue
            seen.add(current)
            todo.extend(repo.git_commits[current]["parents"])
        return False

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
            "node_id": f"IC_kw{cid}",
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
        # TCP_NODELAY, as API servers set it: headers and body are two writes, and Nagle's
        # algorithm would hold the body back for the client's delayed ACK, ~40 ms a request.
        disable_nagle_algorithm = True

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
                late = self._late_failure(method, path, status)
                if late is not None and late.raw is not None:
                    payload = late.raw
                elif late is not None:
                    status, payload, headers = late.status, {"message": late.message}, late.headers
                fake.requests.append((method, path, status))
            if isinstance(payload, bytes):
                data = payload
            else:
                data = b"" if status == 204 else json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)

        def _late_failure(self, method: str, path: str, status: int) -> Failure | None:
            if status >= 300:
                return None
            for failure in fake.failures:
                if (
                    failure.after
                    and failure.method == method
                    and failure.path.search(path)
                    and failure.times != 0
                ):
                    if failure.times is not None:
                        failure.times -= 1
                    return failure
            return None

        def _dispatch(
            self, method: str, path: str, query: dict[str, str], body: Any
        ) -> tuple[int, Any, dict[str, str]]:
            for failure in fake.failures:
                if (
                    not failure.after
                    and failure.method == method
                    and failure.path.search(path)
                    and failure.times != 0
                ):
                    if failure.times is not None:
                        failure.times -= 1
                    raise Answer(failure.status, {"message": failure.message}, failure.headers)
            auth = self.headers.get("Authorization", "")
            token = fake.tokens.get(auth.split(" ", 1)[-1]) if auth else None
            if token is None:
                raise Answer(401, {"message": "Bad credentials"})
            return Router(
                fake, method, path, query, body if isinstance(body, dict) else {}, token, body
            ).route()

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _handle  # noqa: N815

    return Handler
