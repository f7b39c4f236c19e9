"""Request handling of the GitHub fake (:mod:`tests.fakes.github_server`): one method per REST
endpoint, working on the server's state. Split from the server so each file stays readable."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHubServer, FakeRepo, Token

#: GitHub's limit for an issue or comment body.
BODY_LIMIT = 65_536


class Answer(Exception):  # noqa: N818 - a reply, not an error
    def __init__(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.status, self.payload, self.headers = status, payload, headers or {}


def _not_found() -> Answer:
    return Answer(404, {"message": "Not Found"})


def _too_long(resource: str) -> Answer:
    return Answer(
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


class Router:
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
            raise Answer(403, {"message": "Resource not accessible by integration"})
        if self.path == "/user":
            if not self.token.can_read_user:
                raise Answer(403, {"message": "Resource not accessible by integration"})
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
            raise Answer(404, {"message": "Label does not exist"})
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
            raise Answer(404, {"message": f"Branch {branch} not found"})
        try:
            content = base64.b64decode(self.body["content"], validate=True)
        except (KeyError, ValueError) as exc:
            raise Answer(422, {"message": "content is not valid Base64"}) from exc
        existing = repo.files[branch].get(path)
        if existing is not None and self.body.get("sha") != existing["sha"]:
            raise Answer(
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
