"""Commit statuses, and a check run that is started before the run and completed after it, over
the client's REST calls (see :mod:`promptcanary.action.required_check` for why both).

A status is safe to send again after a 5xx answer: the same state on the same context is the same
verdict, and GitHub counts only the newest status of a context. Starting or completing a check run
is not (a second check run of the name, annotations appended twice), so after a 5xx each is read
back first, as every other write that is not safe to repeat (:mod:`.github_calls`).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from promptcanary.action.github_calls import RepoApi
from promptcanary.action.github_runs import (
    ANNOTATIONS_PER_REQUEST,
    CheckRunRef,
    append_rest,
    check_run_ref,
)

#: GitHub refuses (422) a status description over 140 characters; it does not cut it.
STATUS_DESCRIPTION_LIMIT = 140
#: The states a commit status can have; there is no neutral one.
STATUS_STATES = ("error", "failure", "pending", "success")


def create_status(
    client: RepoApi,
    *,
    sha: str,
    state: str,
    context: str,
    description: str,
    target_url: str | None,
) -> None:
    """Set the commit status ``context`` of ``sha`` (needs ``statuses: write``)."""
    body: dict[str, Any] = {
        "state": state,
        "context": context,
        "description": description[:STATUS_DESCRIPTION_LIMIT],
    }
    if target_url:
        body["target_url"] = target_url
    client.send(
        f"set the commit status '{context}'",
        lambda: client.request("POST", f"/statuses/{sha}", body),
        safe=True,
    )


def start_check_run(
    client: RepoApi,
    *,
    name: str,
    head_sha: str,
    title: str,
    summary: str,
    details_url: str | None,
) -> CheckRunRef:
    """A check run ``name`` on ``head_sha``, ``in_progress`` until :func:`complete_check_run`."""
    body: dict[str, Any] = {
        "name": name,
        "head_sha": head_sha,
        "status": "in_progress",
        "output": {"title": title, "summary": summary},
    }
    if details_url:
        body["details_url"] = details_url

    def existing() -> CheckRunRef | None:
        data = client.request(
            "GET", f"/commits/{head_sha}/check-runs?check_name={quote(name, safe='')}"
        )
        for run in data.get("check_runs") or []:
            output = run.get("output") or {}
            if run.get("status") == "in_progress" and output.get("title") == title:
                return CheckRunRef(int(run["id"]), str(run.get("html_url") or ""))
        return None

    created = client.send(
        f"start the check run '{name}'",
        lambda: client.request("POST", "/check-runs", body),
        read_back=existing,
    )
    return check_run_ref(created)


def complete_check_run(
    client: RepoApi,
    run_id: int,
    *,
    conclusion: str,
    title: str,
    summary: str,
    annotations: list[dict[str, Any]],
) -> CheckRunRef:
    """Complete the started check run ``run_id`` with ``conclusion`` and its report; annotations
    beyond the first 50 are appended by further updates of 50."""
    first, rest = annotations[:ANNOTATIONS_PER_REQUEST], annotations[ANNOTATIONS_PER_REQUEST:]
    body = {
        "status": "completed",
        "conclusion": conclusion,
        "output": {"title": title, "summary": summary, "annotations": first},
    }

    def completed() -> CheckRunRef | None:
        run = client.request("GET", f"/check-runs/{run_id}")
        output = run.get("output") or {}
        if (
            run.get("status") == "completed"
            and run.get("conclusion") == conclusion
            and int(output.get("annotations_count") or 0) >= len(first)
        ):
            return CheckRunRef(int(run["id"]), str(run.get("html_url") or ""))
        return None

    done = client.send(
        f"complete check run {run_id}",
        lambda: client.request("PATCH", f"/check-runs/{run_id}", body),
        read_back=completed,
    )
    ref = check_run_ref(done)
    append_rest(client, ref.id, title=title, summary=summary, rest=rest, sent=len(first))
    return ref
