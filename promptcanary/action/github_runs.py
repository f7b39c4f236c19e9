"""Check runs (the Checks API) and workflow dispatches, over the client's REST calls.

A check run is created completed at once, or started ``in_progress`` before the model is called
and completed after (see :mod:`promptcanary.action.required_check`). Both kinds of write must not
be sent twice blindly: a second check run of the same name would be the one GitHub shows,
annotations would be appended twice, and a second dispatch pays for a second model run. After a
5xx answer each is read back first (see :mod:`promptcanary.action.github_calls`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from promptcanary.action.github_calls import call, poll
from promptcanary.action.github_repo import RepoClient
from promptcanary.errors import GitHubError

#: GitHub takes at most this many annotations per check-run request; more go in updates.
ANNOTATIONS_PER_REQUEST = 50
#: The pauses before each look for a dispatched run after a 5xx answer (a minute in all).
#: GitHub answers a dispatch before it creates the run, so the run shows in the runs list a
#: moment later; a dispatch whose run has not shown within this is taken as lost and sent again
#: (a lost dispatch would leave the new head without its check; a second one pays a second run).
DISPATCH_READ_BACK_S = (5.0, 10.0, 15.0, 30.0)


@dataclass(frozen=True)
class CheckRunRef:
    """A check run we created."""

    id: int
    html_url: str


def check_run_ref(answer: Any) -> CheckRunRef:
    """The check run GitHub answered with (its JSON), or the one a read-back already found."""
    if isinstance(answer, CheckRunRef):
        return answer
    return CheckRunRef(int(answer["id"]), str(answer.get("html_url") or ""))


class Runs(RepoClient):
    """Check runs and workflow dispatches."""

    def create_check_run(
        self,
        *,
        name: str,
        head_sha: str,
        conclusion: str,
        title: str,
        summary: str,
        annotations: list[dict[str, Any]],
        details_url: str | None = None,
    ) -> CheckRunRef:
        """A completed check run ``name`` on ``head_sha``; annotations beyond the first 50 are added
        by updates of 50 (GitHub appends them). ``details_url``: where its "Details" link goes
        (without one GitHub links the app's page, not the workflow run)."""
        first, rest = annotations[:ANNOTATIONS_PER_REQUEST], annotations[ANNOTATIONS_PER_REQUEST:]
        body: dict[str, Any] = {
            "name": name,
            "head_sha": head_sha,
            "status": "completed",
            "conclusion": conclusion,
            "output": {"title": title, "summary": summary, "annotations": first},
        }
        ref = self._post_check_run(
            f"create the check run '{name}'",
            body,
            details_url,
            # The same title and summary: ours, created before the 5xx.
            lambda run, output: (output.get("title"), output.get("summary")) == (title, summary),
        )
        self.append_rest(ref.id, title=title, summary=summary, rest=rest, sent=len(first))
        return ref

    def start_check_run(
        self,
        *,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        details_url: str | None,
    ) -> CheckRunRef:
        """A check run ``name`` on ``head_sha``, ``in_progress`` until :meth:`complete_check_run`.
        After a 5xx it is looked for (in progress, same title) before it is sent again."""
        body: dict[str, Any] = {
            "name": name,
            "head_sha": head_sha,
            "status": "in_progress",
            "output": {"title": title, "summary": summary},
        }
        return self._post_check_run(
            f"start the check run '{name}'",
            body,
            details_url,
            lambda run, output: run.get("status") == "in_progress" and output.get("title") == title,
        )

    def _post_check_run(
        self,
        what: str,
        body: dict[str, Any],
        details_url: str | None,
        ours: Callable[[Any, Any], bool],
    ) -> CheckRunRef:
        """POST the check run ``body`` (with ``details_url`` when there is one); after a 5xx, the
        run of that name on that commit for which ``ours(run, output)`` holds is taken as the
        one sent, before it is sent again."""
        if details_url:
            body["details_url"] = details_url
        created = self.send(
            what,
            lambda: self.request("POST", "/check-runs", body),
            read_back=lambda: self._find_check_run(body["head_sha"], body["name"], ours),
        )
        return check_run_ref(created)

    def complete_check_run(
        self,
        run_id: int,
        *,
        conclusion: str,
        title: str,
        summary: str,
        annotations: list[dict[str, Any]],
    ) -> CheckRunRef:
        """Complete the started check run ``run_id`` with ``conclusion`` and its report;
        annotations beyond the first 50 are appended by further updates of 50. After a 5xx the
        run is read back (completed with this conclusion) before it is sent again."""
        first = annotations[:ANNOTATIONS_PER_REQUEST]
        rest = annotations[ANNOTATIONS_PER_REQUEST:]
        body = {
            "status": "completed",
            "conclusion": conclusion,
            "output": {"title": title, "summary": summary, "annotations": first},
        }

        def completed() -> CheckRunRef | None:
            run = self.request("GET", f"/check-runs/{run_id}")
            output = run.get("output") or {}
            if (
                run.get("status") == "completed"
                and run.get("conclusion") == conclusion
                and int(output.get("annotations_count") or 0) >= len(first)
            ):
                return check_run_ref(run)
            return None

        done = self.send(
            f"complete check run {run_id}",
            lambda: self.request("PATCH", f"/check-runs/{run_id}", body),
            read_back=completed,
        )
        ref = check_run_ref(done)
        self.append_rest(ref.id, title=title, summary=summary, rest=rest, sent=len(first))
        return ref

    def _find_check_run(
        self, head_sha: str, name: str, ours: Callable[[Any, Any], bool]
    ) -> CheckRunRef | None:
        """The check run ``name`` on ``head_sha`` for which ``ours(run, output)`` holds: a
        creation answered 5xx that landed after all."""
        data = self.request(
            "GET", f"/commits/{head_sha}/check-runs?check_name={quote(name, safe='')}"
        )
        for run in data.get("check_runs") or []:
            if ours(run, run.get("output") or {}):
                return check_run_ref(run)
        return None

    def append_rest(
        self,
        run_id: int,
        *,
        title: str,
        summary: str,
        rest: list[dict[str, Any]],
        sent: int,
    ) -> None:
        """Add the annotations beyond the ``sent`` ones already on the check run, 50 a request."""
        total = sent
        for start in range(0, len(rest), ANNOTATIONS_PER_REQUEST):
            batch = rest[start : start + ANNOTATIONS_PER_REQUEST]
            total += len(batch)
            self._append_annotations(
                run_id, title=title, summary=summary, batch=batch, expected=total
            )

    def _append_annotations(
        self,
        run_id: int,
        *,
        title: str,
        summary: str,
        batch: list[dict[str, Any]],
        expected: int,
    ) -> None:
        """Add ``batch`` to the check run's annotations (a PATCH appends: never sent twice)."""

        def landed() -> bool | None:
            run = self.request("GET", f"/check-runs/{run_id}")
            return (
                True
                if int((run.get("output") or {}).get("annotations_count") or 0) >= expected
                else None
            )

        self.send(
            f"add annotations to check run {run_id}",
            lambda: self.request(
                "PATCH",
                f"/check-runs/{run_id}",
                {"output": {"title": title, "summary": summary, "annotations": batch}},
            ),
            read_back=landed,
        )

    def workflow_exists(self, workflow: str) -> bool:
        """True when ``workflow`` (a file name under .github/workflows, or an id) exists on the
        default branch; False on 404. Other refusals raise :class:`GitHubError`."""
        try:
            call(
                f"read the workflow '{workflow}'",
                lambda: self.request("GET", f"/actions/workflows/{quote(workflow, safe='')}"),
            )
        except GitHubError as exc:
            if exc.status == 404:
                return False
            raise
        return True

    def dispatch_workflow(self, workflow: str, *, ref: str) -> None:
        """Start ``workflow`` on ``ref`` (needs ``actions: write`` and an ``on: workflow_dispatch``
        trigger). After a 5xx answer the workflow's dispatched runs on ``ref`` are counted again: a
        new one means the dispatch landed and it is not sent twice."""
        path = f"/actions/workflows/{quote(workflow, safe='')}"
        runs_query = f"{path}/runs?event=workflow_dispatch&branch={quote(ref, safe='')}"

        def count() -> int | None:
            try:
                data = call(
                    f"list the runs of '{workflow}'", lambda: self.request("GET", runs_query)
                )
            except GitHubError:
                return None
            return int(data.get("total_count") or 0)

        before = count()

        def new_run() -> bool | None:
            after = count()
            return True if after is not None and before is not None and after > before else None

        def landed() -> bool | None:
            if before is None:
                return None
            return poll(new_run, pauses=DISPATCH_READ_BACK_S, pause=self.sender.pause)

        self.send(
            f"start the workflow '{workflow}' on '{ref}'",
            lambda: self.request("POST", f"{path}/dispatches", {"ref": ref}),
            read_back=landed if before is not None else None,
        )
