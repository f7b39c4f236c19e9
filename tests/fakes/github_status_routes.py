"""Routes of the GitHub fake for commit statuses and check suites (a mixin of
:class:`tests.fakes.github_routes.Router`), answering and refusing as GitHub does.

Commit statuses (docs.github.com/rest/commits/statuses): ``POST /statuses/{sha}`` needs the
``statuses`` permission, a commit that exists, a ``state`` of error / failure / pending / success,
a ``description`` of at most 140 characters and a ``target_url`` that is a URL; at most 1000
statuses per (sha, context). ``GET /commits/{ref}/statuses`` lists them newest first;
``GET /commits/{ref}/status`` combines the newest of each context (failure if any is error or
failure, pending if there are none or any is pending, else success).

Check suites (docs.github.com/rest/guides/using-the-rest-api-to-interact-with-checks): one per
workflow run for GitHub Actions (:meth:`FakeGitHubServer.add_workflow_run`); a check run created
through the API goes into a suite GitHub chooses — the oldest suite of the creating app on that
commit, whatever workflow the creating job belongs to (GitHub staff and many reports: the creator
cannot choose it) — or into a new suite when the app has none there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from tests.fakes.github_answers import Answer, _invalid, _not_found

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHubServer, FakeRepo, Token

STATUS_STATES = ("error", "failure", "pending", "success")
#: GitHub refuses a longer description with 422 (it does not cut it).
DESCRIPTION_LIMIT = 140
#: Statuses GitHub keeps per (sha, context); the next one is refused.
STATUSES_PER_CONTEXT = 1000


def _validation_failed(field: str, message: str) -> Answer:
    return Answer(
        422,
        {
            "message": "Validation Failed",
            "errors": [
                {"resource": "Status", "code": "custom", "field": field, "message": message}
            ],
        },
    )


class StatusRoutes:
    """Mixin: needs ``fake``, ``body``, ``query`` and ``token`` from the router."""

    fake: FakeGitHubServer
    body: dict[str, Any]
    query: dict[str, str]
    token: Token

    def _status_routes(self) -> list[tuple[str, tuple[str, str, Any]]]:
        return [
            (r"/statuses/([^/]+)", ("POST", "statuses", self.create_status)),
            (r"/commits/([^/]+)/statuses", ("GET", "", self.list_statuses)),
            (r"/commits/([^/]+)/status", ("GET", "", self.combined_status)),
            (r"/commits/([^/]+)/check-suites", ("GET", "", self.list_check_suites)),
            (r"/check-suites/(\d+)", ("GET", "", self.get_check_suite)),
        ]

    # ── commit statuses ──
    def _status_json(self, repo: FakeRepo, status: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": status["id"],
            "node_id": f"SC_kw{status['id']}",
            "state": status["state"],
            "description": status["description"],
            "target_url": status["target_url"],
            "context": status["context"],
            "created_at": status["created_at"],
            "updated_at": status["created_at"],
            "creator": self.fake._user(status["login"]),
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/statuses/{status['sha']}",
        }

    def create_status(self, repo: FakeRepo, sha: str) -> tuple[int, Any, dict[str, str]]:
        sha = unquote(sha)
        if sha not in repo.git_commits:
            raise _invalid(f"No commit found for SHA: {sha}")
        state = self.body.get("state")
        if state not in STATUS_STATES:
            raise _validation_failed("state", f"state is not included in the list: {state!r}")
        description = self.body.get("description")
        if description is not None and len(str(description)) > DESCRIPTION_LIMIT:
            raise _validation_failed(
                "description",
                f"description is too long (maximum is {DESCRIPTION_LIMIT} characters)",
            )
        target = self.body.get("target_url")
        if target is not None and urlsplit(str(target)).scheme not in ("http", "https"):
            raise _validation_failed("target_url", "target_url must be a valid URL")
        context = str(self.body.get("context") or "default")
        same = [s for s in repo.statuses if s["sha"] == sha and s["context"] == context]
        if len(same) >= STATUSES_PER_CONTEXT:
            raise _validation_failed(
                "context", "This SHA and context has reached the maximum number of statuses."
            )
        status = {
            "id": self.fake._next_id(),
            "sha": sha,
            "state": state,
            "description": description,
            "target_url": target,
            "context": context,
            "login": self.token.login,
            "app": self.token.app,
            "created_at": f"2026-01-01T00:00:{len(repo.statuses) % 60:02d}Z",
        }
        repo.statuses.append(status)
        return 201, self._status_json(repo, status), {}

    def _sha_of(self, repo: FakeRepo, ref: str) -> str:
        ref = unquote(ref)
        sha = repo.heads.get(ref.removeprefix("heads/"), ref)
        if sha not in repo.git_commits:
            raise _not_found()
        return sha

    def list_statuses(self, repo: FakeRepo, ref: str) -> tuple[int, Any, dict[str, str]]:
        sha = self._sha_of(repo, ref)
        newest_first = [s for s in reversed(repo.statuses) if s["sha"] == sha]
        return 200, [self._status_json(repo, s) for s in newest_first], {}

    def combined_status(self, repo: FakeRepo, ref: str) -> tuple[int, Any, dict[str, str]]:
        sha = self._sha_of(repo, ref)
        latest = self.fake.latest_statuses(repo.full_name, sha)
        states = [s["state"] for s in latest.values()]
        if any(s in ("error", "failure") for s in states):
            state = "failure"
        elif not states or "pending" in states:
            state = "pending"
        else:
            state = "success"
        return (
            200,
            {
                "state": state,
                "sha": sha,
                "total_count": len(latest),
                "statuses": [self._status_json(repo, s) for s in latest.values()],
            },
            {},
        )

    # ── check suites ──
    def _suite_json(self, repo: FakeRepo, suite: dict[str, Any]) -> dict[str, Any]:
        runs = [r for r in repo.check_runs.values() if r["check_suite_id"] == suite["id"]]
        done = all(r["status"] == "completed" for r in runs)
        return {
            "id": suite["id"],
            "head_sha": suite["head_sha"],
            "app": {"slug": suite["app"]},
            "status": "completed" if runs and done else "in_progress" if runs else "queued",
            "conclusion": _suite_conclusion(runs) if runs and done else None,
            "latest_check_runs_count": len(runs),
            "workflow": suite["workflow"],
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/check-suites/{suite['id']}",
        }

    def list_check_suites(self, repo: FakeRepo, ref: str) -> tuple[int, Any, dict[str, str]]:
        sha = self._sha_of(repo, ref)
        app = self.query.get("app_slug")
        suites = [
            self._suite_json(repo, s)
            for s in repo.check_suites.values()
            if s["head_sha"] == sha and (app is None or s["app"] == app)
        ]
        return 200, {"total_count": len(suites), "check_suites": suites}, {}

    def get_check_suite(self, repo: FakeRepo, suite_id: str) -> tuple[int, Any, dict[str, str]]:
        suite = repo.check_suites.get(int(suite_id))
        if suite is None:
            raise _not_found()
        return 200, self._suite_json(repo, suite), {}


#: The order GitHub ranks a suite's conclusions in: the suite reports the highest.
_CONCLUSION_PRIORITY = (
    "action_required",
    "cancelled",
    "timed_out",
    "failure",
    "neutral",
    "skipped",
    "success",
)


def _suite_conclusion(runs: list[dict[str, Any]]) -> str:
    conclusions = {str(r["conclusion"]) for r in runs}
    return next((c for c in _CONCLUSION_PRIORITY if c in conclusions), "success")


__all__ = ["DESCRIPTION_LIMIT", "STATUS_STATES", "StatusRoutes"]
