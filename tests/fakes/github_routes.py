"""Request handling of the GitHub fake (:mod:`tests.fakes.github_server`): one method per REST
endpoint, working on the server's state. Split from the server so each file stays readable."""

from __future__ import annotations

import base64
import hashlib
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote

from tests.fakes.github_answers import BODY_LIMIT, Answer, _invalid, _not_found, _refused
from tests.fakes.github_checks_routes import ChecksRoutes
from tests.fakes.github_status_routes import StatusRoutes

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHubServer, FakeRepo, Token

__all__ = ["BODY_LIMIT", "Answer", "Router"]


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


class Router(ChecksRoutes, StatusRoutes):
    """Dispatches one request against the server's state (called under the server lock)."""

    def __init__(
        self,
        fake: FakeGitHubServer,
        method: str,
        path: str,
        query: dict[str, str],
        body: dict[str, Any],
        token: Token,
        raw_body: Any = None,
    ) -> None:
        self.fake, self.method, self.path, self.query = fake, method, path, query
        self.body, self.token = body, token
        self.raw_body = raw_body

    def route(self) -> tuple[int, Any, dict[str, str]]:
        if self.method != "GET" and not self.token.write:
            raise _refused()
        if self.path == "/user":
            if not self.token.can_read_user:
                raise _refused()
            return 200, self.fake._user(self.token.login), {}
        if self.path == "/graphql" and self.method == "POST":
            return self.graphql()
        m = re.fullmatch(r"/repos/([^/]+/[^/]+)(/.*)?", self.path)
        if not m or m.group(1) not in self.fake.repos:
            raise _not_found()
        repo, rest = self.fake.repos[m.group(1)], m.group(2) or ""
        for pattern, (method, scope, handler) in self._routes():
            hit = re.fullmatch(pattern, rest)
            if hit and method == self.method:
                if method != "GET" and not self.token.may_write(scope):
                    raise _refused()
                return handler(repo, *hit.groups())
        raise _not_found()

    def _routes(self) -> list[tuple[str, tuple[str, str, Any]]]:
        return [
            (r"", ("GET", "", self.get_repo)),
            (r"/issues", ("GET", "", self.list_issues)),
            (r"/pulls", ("GET", "", self.list_pulls)),
            (r"/pulls/(\d+)", ("GET", "", self.get_pull)),
            (r"/issues", ("POST", "issues", self.create_issue)),
            (r"/issues/(\d+)", ("GET", "", self.get_issue)),
            (r"/issues/(\d+)", ("PATCH", "issues", self.edit_issue)),
            (r"/issues/(\d+)/comments", ("GET", "", self.list_comments)),
            (r"/issues/(\d+)/comments", ("POST", "issues", self.create_comment)),
            (r"/issues/comments/(\d+)", ("PATCH", "issues", self.edit_comment)),
            (r"/issues/comments/(\d+)", ("DELETE", "issues", self.delete_comment)),
            (r"/issues/(\d+)/labels", ("POST", "issues", self.add_labels)),
            (r"/issues/(\d+)/labels/(.+)", ("DELETE", "issues", self.remove_label)),
            (r"/labels", ("POST", "labels", self.create_label)),
            (r"/labels/(.+)", ("GET", "", self.get_label)),
            (r"/contents", ("GET", "", self.get_contents)),
            (r"/contents/(.+)", ("GET", "", self.get_contents)),
            (r"/contents/(.+)", ("PUT", "contents", self.put_contents)),
            (r"/git/commits/([0-9a-f]{40})", ("GET", "", self.get_git_commit)),
            (r"/git/blobs", ("POST", "contents", self.create_blob)),
            (r"/git/trees", ("POST", "contents", self.create_tree)),
            (r"/git/commits", ("POST", "contents", self.create_git_commit)),
            (r"/git/ref/heads/(.+)", ("GET", "", self.get_ref)),
            (r"/git/refs/heads/(.+)", ("PATCH", "contents", self.update_ref)),
            (r"/actions/workflows/([^/]+)/dispatches", ("POST", "actions", self.dispatch)),
            *self._checks_routes(),
            *self._status_routes(),
        ]

    # ── GraphQL: the two queries the Action sends ──
    def graphql(self) -> tuple[int, Any, dict[str, str]]:
        if not self.token.graphql:
            raise _refused()
        query = str(self.body.get("query", ""))
        variables = self.body.get("variables") or {}
        if re.search(r"\bviewer\s*\{\s*login", query):
            return 200, {"data": {"viewer": {"login": self.token.login}}}, {}
        if re.search(r"\bnodes\s*\(", query):
            return 200, {"data": {"nodes": [self._node(i) for i in variables.get("ids", [])]}}, {}
        return 200, {"errors": [{"message": f"the fake does not know this query: {query}"}]}, {}

    def _node(self, node_id: str) -> dict[str, Any] | None:
        for repo in self.fake.repos.values():
            for comment in repo.comments.values():
                if comment["node_id"] == node_id:
                    return {
                        "__typename": "IssueComment",
                        "id": node_id,
                        "isMinimized": comment["id"] in repo.minimized,
                        # GraphQL names a bot by its slug: "my-app", not "my-app[bot]".
                        "author": {"login": comment["user"]["login"].removesuffix("[bot]")},
                    }
        return None

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
                "id": repo.id,
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

    def list_pulls(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        """Open pull requests, filtered by ``head=owner:branch`` as GitHub does."""
        state = self.query.get("state", "open")
        head = self.query.get("head", "")
        owner = repo.full_name.split("/", 1)[0]
        items = [
            {
                "number": i["number"],
                "state": i["state"],
                "html_url": i["html_url"],
                "head": {"ref": i["_head_ref"], "label": f"{owner}:{i['_head_ref']}"},
            }
            for i in sorted(repo.issues.values(), key=lambda i: -i["number"])
            if "_head_ref" in i
            and (state == "all" or i["state"] == state)
            and (not head or head == f"{owner}:{i['_head_ref']}")
        ]
        return self._page(items, f"/repos/{repo.full_name}/pulls")

    def get_pull(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        """A pull request as it is now: state, merged, labels, head (its branch's head commit
        now, not the one of an older event) and base."""
        issue = self._get(repo, number)
        if "_head_ref" not in issue:
            raise _not_found()
        head = issue["_head_ref"]
        return (
            200,
            {
                "number": issue["number"],
                "state": issue["state"],
                "merged": issue.get("_merged", False),
                "labels": issue["labels"],
                "html_url": issue["html_url"],
                "head": {"ref": head, "sha": repo.heads.get(head, "")},
                "base": {"ref": issue.get("_base_ref", repo.default_branch)},
            },
            {},
        )

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

    def delete_comment(self, repo: FakeRepo, cid: str) -> tuple[int, Any, dict[str, str]]:
        if repo.comments.pop(int(cid), None) is None:
            raise _not_found()
        return 204, None, {}

    def add_labels(self, repo: FakeRepo, number: str) -> tuple[int, Any, dict[str, str]]:
        issue = self._get(repo, number)
        # PyGithub sends a bare list of (URL-quoted) names; the API also takes {"labels": [...]}.
        raw = self.raw_body
        names = raw if isinstance(raw, list) else (raw or {}).get("labels", [])
        for name in (unquote(str(n)) for n in names):
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

    def create_label(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        name = str(self.body.get("name") or "")
        if not name:
            raise _invalid("Validation Failed: name is missing")
        if name.lower() in {n.lower() for n in repo.labels}:
            raise Answer(
                422, {"message": "Validation Failed", "errors": [{"code": "already_exists"}]}
            )
        label = self.fake._label(repo, name)
        label["color"] = self.body.get("color", "ededed")
        label["description"] = self.body.get("description")
        return 201, label, {}

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

    def get_contents(self, repo: FakeRepo, path: str = "") -> tuple[int, Any, dict[str, str]]:
        """A file at ``ref`` (a branch or a commit; the default branch without one), or a
        folder's entries (files and folders, by name, as GitHub lists them); 404 for neither."""
        ref = self.query.get("ref", repo.default_branch)
        path = unquote(path).strip("/")
        if ref in repo.files:
            files = repo.files[ref]
        elif ref in repo.git_commits:
            tree = repo.trees[repo.git_commits[ref]["tree"]]
            files = {p: {"content": repo.blobs[b], "sha": b} for p, b in tree.items()}
        else:
            raise Answer(404, {"message": f"No commit found for the ref {ref}"})
        entry = files.get(path)
        if entry is not None:
            return 200, self._file_json(repo, path, entry, ref), {}
        prefix = f"{path}/" if path else ""
        listed: dict[str, dict[str, Any]] = {}
        for name, item in sorted(files.items()):
            if not name.startswith(prefix):
                continue
            first, _, deeper = name[len(prefix) :].partition("/")
            full = prefix + first
            if deeper:
                listed.setdefault(first, {"type": "dir", "name": first, "path": full})
            else:
                listed[first] = {**self._file_json(repo, full, item, ref), "content": None}
        if not listed:
            raise _not_found()
        return 200, [listed[name] for name in sorted(listed)], {}

    def put_contents(self, repo: FakeRepo, path: str) -> tuple[int, Any, dict[str, str]]:
        path = unquote(path)
        branch = self.body.get("branch", repo.default_branch)
        if not self.body.get("message"):
            raise _invalid('Invalid request.\n\n"message" wasn\'t supplied.')
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
        blob_sha = self.fake._blob(repo, content)
        parent = repo.heads[branch]
        tree = dict(repo.trees[repo.git_commits[parent]["tree"]])
        tree[path] = blob_sha
        commit_sha = hashlib.sha1(f"{branch}{path}{len(repo.git_commits)}".encode()).hexdigest()
        repo.git_commits[commit_sha] = {
            "tree": self.fake._store_tree(repo, tree),
            "parents": [parent],
            "message": self.body["message"],
        }
        repo.heads[branch] = commit_sha
        self.fake._checkout(repo, branch)
        entry = repo.files[branch][path]
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

    # ── git data ──
    def _commit_json(self, repo: FakeRepo, sha: str) -> dict[str, Any]:
        commit = repo.git_commits[sha]
        api = f"{self.fake.base_url}/repos/{repo.full_name}/git"
        return {
            "sha": sha,
            "node_id": f"C_{sha[:10]}",
            "message": commit["message"],
            "tree": {"sha": commit["tree"], "url": f"{api}/trees/{commit['tree']}"},
            "parents": [{"sha": p, "url": f"{api}/commits/{p}"} for p in commit["parents"]],
            "url": f"{api}/commits/{sha}",
            "html_url": f"https://github.test/{repo.full_name}/commit/{sha}",
        }

    def get_git_commit(self, repo: FakeRepo, sha: str) -> tuple[int, Any, dict[str, str]]:
        if sha not in repo.git_commits:
            raise _not_found()
        return 200, self._commit_json(repo, sha), {}

    def create_blob(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        if self.body.get("encoding") != "base64":
            raise _invalid("the fake only takes base64 blobs")
        try:
            content = base64.b64decode(self.body.get("content", ""), validate=True)
        except ValueError as exc:
            raise _invalid("content is not valid Base64") from exc
        sha = self.fake._blob(repo, content)
        return 201, {"sha": sha, "url": f"{self.fake.base_url}/repos/x/git/blobs/{sha}"}, {}

    def create_tree(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        base = self.body.get("base_tree")
        if base is not None and base not in repo.trees:
            raise _invalid("base_tree is not a valid tree")
        entries = dict(repo.trees[base]) if base else {}
        for item in self.body.get("tree", []):
            if item.get("mode") not in ("100644", "100755") or item.get("type") != "blob":
                raise _invalid("tree.mode / tree.type is not a file blob")
            if item.get("sha") not in repo.blobs:
                raise _invalid("tree.sha is not a valid blob")
            entries[item["path"]] = item["sha"]
        sha = self.fake._store_tree(repo, entries)
        return 201, {"sha": sha, "url": f"{self.fake.base_url}/repos/x/git/trees/{sha}"}, {}

    def create_git_commit(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        message, tree = self.body.get("message"), self.body.get("tree")
        parents = list(self.body.get("parents") or [])
        if not message:
            raise _invalid('Invalid request.\n\n"message" wasn\'t supplied.')
        if tree not in repo.trees or any(p not in repo.git_commits for p in parents):
            raise _invalid("Tree SHA or parent SHA does not exist")
        sha = hashlib.sha1(f"{tree}{parents}{message}".encode()).hexdigest()
        repo.git_commits[sha] = {"tree": tree, "parents": parents, "message": message}
        return 201, self._commit_json(repo, sha), {}

    def _ref_json(self, repo: FakeRepo, branch: str) -> dict[str, Any]:
        sha = repo.heads[branch]
        return {
            "ref": f"refs/heads/{branch}",
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/git/refs/heads/{branch}",
            "object": {"sha": sha, "type": "commit"},
        }

    def get_ref(self, repo: FakeRepo, branch: str) -> tuple[int, Any, dict[str, str]]:
        branch = unquote(branch)
        if branch not in repo.heads:
            raise _not_found()
        return 200, self._ref_json(repo, branch), {}

    def update_ref(self, repo: FakeRepo, branch: str) -> tuple[int, Any, dict[str, str]]:
        branch = unquote(branch)
        sha = self.body.get("sha")
        if branch not in repo.heads:
            raise _invalid("Reference does not exist")
        if sha not in repo.git_commits:
            raise _invalid("Object does not exist")
        if not self.body.get("force") and not self.fake._descends(repo, sha, repo.heads[branch]):
            raise _invalid("Update is not a fast forward")
        if branch in repo.protected:
            raise _invalid(repo.protected[branch])
        repo.heads[branch] = sha
        self.fake._checkout(repo, branch)
        commit = repo.git_commits[sha]
        parent_tree = (
            repo.trees[repo.git_commits[commit["parents"][0]]["tree"]] if commit["parents"] else {}
        )
        changed = sorted(
            p for p, b in repo.trees[commit["tree"]].items() if parent_tree.get(p) != b
        )
        repo.commits.append(
            {
                "sha": sha,
                "message": commit["message"],
                "branch": branch,
                "path": changed[0] if len(changed) == 1 else changed,
                "paths": changed,
                "parents": list(commit["parents"]),
                "author": self.token.login,
                "html_url": f"https://github.test/{repo.full_name}/commit/{sha}",
            }
        )
        return 200, self._ref_json(repo, branch), {}

    def dispatch(self, repo: FakeRepo, workflow: str) -> tuple[int, Any, dict[str, str]]:
        workflow = unquote(workflow)
        if workflow not in repo.workflows:
            raise _not_found()
        if not repo.workflows[workflow]:
            raise _invalid("Workflow does not have 'workflow_dispatch' trigger")
        ref = str(self.body.get("ref") or "")
        if ref.removeprefix("refs/heads/") not in repo.heads:
            raise _invalid(f"No ref found for: {ref}")
        repo.dispatches.append(
            {
                "workflow": workflow,
                "ref": ref,
                "inputs": self.body.get("inputs") or {},
                "login": self.token.login,
            }
        )
        if repo.run_delay:  # GitHub creates the run after answering, not before
            repo.run_hidden[len(repo.dispatches) - 1] = repo.run_delay
        return 204, None, {}
