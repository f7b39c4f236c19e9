"""Routes of the GitHub fake for check runs, collaborator permissions and workflows (a mixin of
:class:`tests.fakes.github_routes.Router`), refusing what GitHub refuses.

Only a GitHub App creates check runs (an installation token: the workflow's ``GITHUB_TOKEN``
is the GitHub Actions app's); a personal token is refused with 403. Every check run belongs to a
check suite of its app on its commit: see :mod:`tests.fakes.github_status_routes` for which one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import unquote

from tests.fakes.github_answers import Answer, _invalid, _not_found

if TYPE_CHECKING:
    from tests.fakes.github_server import FakeGitHubServer, FakeRepo, Token

#: GitHub's limits for a check run's output.
SUMMARY_LIMIT = 65_535
ANNOTATIONS_PER_REQUEST = 50
ANNOTATION_TITLE_LIMIT = 255
CHECK_STATUSES = ("queued", "in_progress", "completed")
CHECK_CONCLUSIONS = (
    "action_required",
    "cancelled",
    "failure",
    "neutral",
    "success",
    "skipped",
    "timed_out",
)
ANNOTATION_LEVELS = ("notice", "warning", "failure")
#: What ``GET /collaborators/{user}/permission`` says for each role (its ``permission`` key
#: knows only admin, write, read and none; ``role_name`` keeps the role).
ROLE_PERMISSION = {
    "admin": "admin",
    "maintain": "write",
    "write": "write",
    "triage": "read",
    "read": "read",
}


class ChecksRoutes:
    """Mixin: needs ``fake``, ``body``, ``query`` and ``token`` from the router."""

    fake: FakeGitHubServer
    body: dict[str, Any]
    query: dict[str, str]
    token: Token

    def _checks_routes(self) -> list[tuple[str, tuple[str, str, Any]]]:
        return [
            (r"/check-runs", ("POST", "checks", self.create_check_run)),
            (r"/check-runs/(\d+)", ("PATCH", "checks", self.update_check_run)),
            (r"/check-runs/(\d+)", ("GET", "", self.get_check_run)),
            (r"/commits/([^/]+)/check-runs", ("GET", "", self.list_check_runs)),
            (r"/check-suites/(\d+)/check-runs", ("GET", "", self.list_suite_check_runs)),
            (r"/collaborators/([^/]+)/permission", ("GET", "", self.collaborator_permission)),
            (r"/actions/workflows/([^/]+)", ("GET", "", self.get_workflow)),
            (r"/actions/workflows/([^/]+)/runs", ("GET", "", self.list_workflow_runs)),
        ]

    # ── check runs ──
    def _check_json(self, repo: FakeRepo, run: dict[str, Any]) -> dict[str, Any]:
        output = dict(run["output"])
        output["annotations_count"] = len(run["annotations"])
        return {
            "id": run["id"],
            "name": run["name"],
            "head_sha": run["head_sha"],
            "status": run["status"],
            "conclusion": run["conclusion"],
            # GitHub links the app's page when the integrator gives no URL.
            "details_url": run.get("details_url") or f"https://github.test/apps/{run['app']}",
            "output": output,
            "app": {"slug": run["app"]},
            "check_suite": {"id": run["check_suite_id"]},
            "url": f"{self.fake.base_url}/repos/{repo.full_name}/check-runs/{run['id']}",
            "html_url": f"https://github.test/{repo.full_name}/runs/{run['id']}",
        }

    def _output(self, run: dict[str, Any]) -> None:
        """Validate and apply ``output`` (annotations are appended, as GitHub does)."""
        output = self.body.get("output")
        if output is None:
            return
        if not isinstance(output, dict) or not output.get("title") or "summary" not in output:
            raise _invalid('Invalid request.\n\n"title", "summary" weren\'t supplied.')
        for key in ("summary", "text"):
            if len(str(output.get(key) or "")) > SUMMARY_LIMIT:
                raise _invalid(
                    f"Invalid request.\n\nOnly {SUMMARY_LIMIT} characters are allowed; "
                    f"{len(output[key])} were supplied in output.{key}."
                )
        annotations = output.get("annotations") or []
        if len(annotations) > ANNOTATIONS_PER_REQUEST:
            raise _invalid(
                f"Invalid request.\n\nOnly {ANNOTATIONS_PER_REQUEST} annotations are allowed "
                "per request."
            )
        for item in annotations:
            missing = [
                k
                for k in ("path", "start_line", "end_line", "annotation_level", "message")
                if not item.get(k)
            ]
            if missing or item["annotation_level"] not in ANNOTATION_LEVELS:
                raise _invalid(f"Invalid request.\n\nInvalid annotation: {missing or item}")
            if len(str(item.get("title") or "")) > ANNOTATION_TITLE_LIMIT:
                raise _invalid("Invalid request.\n\nAnnotation title is too long.")
        run["output"] = {k: output.get(k) for k in ("title", "summary", "text")}
        run["annotations"].extend(annotations)

    def _status(self, run: dict[str, Any]) -> None:
        status = self.body.get("status", run["status"])
        conclusion = self.body.get("conclusion", run["conclusion"])
        if conclusion is not None and "status" not in self.body:
            status = "completed"  # GitHub: giving a conclusion completes the run
        if status not in CHECK_STATUSES or (
            conclusion is not None and conclusion not in CHECK_CONCLUSIONS
        ):
            raise _invalid("Invalid request.\n\nstatus or conclusion is not valid.")
        if status == "completed" and conclusion is None:
            raise _invalid('Invalid request.\n\n"conclusion" is required when completed.')
        run["status"], run["conclusion"] = status, conclusion

    def create_check_run(self, repo: FakeRepo) -> tuple[int, Any, dict[str, str]]:
        name, sha = str(self.body.get("name") or ""), str(self.body.get("head_sha") or "")
        app = self.token.app
        if app is None:
            raise Answer(403, {"message": "You must authenticate via a GitHub App."})
        if not name:
            raise _invalid('Invalid request.\n\n"name" wasn\'t supplied.')
        if sha not in repo.git_commits:
            raise _invalid(f"No commit found for SHA: {sha}")
        run: dict[str, Any] = {
            "id": self.fake._next_id(),
            "name": name,
            "app": app,
            "check_suite_id": self.fake.suite_for(repo, sha, app),
            "head_sha": sha,
            "status": "queued",
            "conclusion": None,
            "output": {"title": None, "summary": None, "text": None},
            "annotations": [],
            "requests": 1,
        }
        self._status(run)
        self._output(run)
        if self.body.get("details_url"):
            run["details_url"] = str(self.body["details_url"])
        repo.check_runs[run["id"]] = run
        return 201, self._check_json(repo, run), {}

    def _run(self, repo: FakeRepo, run_id: str) -> dict[str, Any]:
        run = repo.check_runs.get(int(run_id))
        if run is None:
            raise _not_found()
        return run

    def update_check_run(self, repo: FakeRepo, run_id: str) -> tuple[int, Any, dict[str, str]]:
        run = self._run(repo, run_id)
        self._status(run)
        self._output(run)
        if self.body.get("details_url"):
            run["details_url"] = str(self.body["details_url"])
        run["requests"] += 1
        return 200, self._check_json(repo, run), {}

    def get_check_run(self, repo: FakeRepo, run_id: str) -> tuple[int, Any, dict[str, str]]:
        return 200, self._check_json(repo, self._run(repo, run_id)), {}

    def list_suite_check_runs(self, repo: FakeRepo, suite_id: str) -> tuple[int, Any, dict]:
        if int(suite_id) not in repo.check_suites:
            raise _not_found()
        runs = [
            self._check_json(repo, r)
            for r in repo.check_runs.values()
            if r["check_suite_id"] == int(suite_id)
        ]
        return 200, {"total_count": len(runs), "check_runs": runs}, {}

    def list_check_runs(self, repo: FakeRepo, ref: str) -> tuple[int, Any, dict[str, str]]:
        sha = repo.heads.get(unquote(ref), unquote(ref))
        name = self.query.get("check_name")
        runs = [
            self._check_json(repo, r)
            for r in sorted(repo.check_runs.values(), key=lambda r: -int(r["id"]))
            if r["head_sha"] == sha and (name is None or r["name"] == name)
        ]
        return 200, {"total_count": len(runs), "check_runs": runs}, {}

    # ── who may promote ──
    def collaborator_permission(self, repo: FakeRepo, login: str) -> tuple[int, Any, dict]:
        login = unquote(login)
        # The owner of a user-owned repository is its admin.
        default = "admin" if login == repo.full_name.split("/", 1)[0] else "none"
        role = repo.collaborators.get(login, default)
        user = self.fake._user(login)
        return (
            200,
            {"permission": ROLE_PERMISSION.get(role, "none"), "role_name": role, "user": user},
            {},
        )

    # ── workflows ──
    def get_workflow(self, repo: FakeRepo, workflow: str) -> tuple[int, Any, dict[str, str]]:
        workflow = unquote(workflow)
        if workflow not in repo.workflows:
            raise _not_found()
        index = sorted(repo.workflows).index(workflow)
        return (
            200,
            {
                "id": 161335 + index,
                "name": workflow,
                "path": f".github/workflows/{workflow}",
                "state": "active",
            },
            {},
        )

    def list_workflow_runs(self, repo: FakeRepo, workflow: str) -> tuple[int, Any, dict]:
        """The runs dispatches started, newest first (``event`` and ``branch`` filter)."""
        workflow = unquote(workflow)
        if workflow not in repo.workflows:
            raise _not_found()
        branch, event = self.query.get("branch"), self.query.get("event")
        shown = []
        for i, d in enumerate(repo.dispatches):
            if repo.run_hidden.get(i, 0) > 0:  # not created yet: one read fewer to wait
                repo.run_hidden[i] -= 1
                continue
            shown.append((i, d))
        runs = [
            {
                "id": 30433642 + i,
                "event": "workflow_dispatch",
                "head_branch": d["ref"].removeprefix("refs/heads/"),
                "path": f".github/workflows/{workflow}",
                "status": "queued",
            }
            for i, d in shown
            if d["workflow"] == workflow
        ]
        runs = [
            r
            for r in reversed(runs)
            if (branch is None or r["head_branch"] == branch)
            and (event is None or r["event"] == event)
        ]
        return 200, {"total_count": len(runs), "workflow_runs": runs}, {}


__all__ = ["Answer", "ChecksRoutes"]
