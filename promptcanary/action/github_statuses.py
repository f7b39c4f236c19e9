"""Commit statuses (see :mod:`promptcanary.action.required_check` for why the required check is
one), over the client's REST calls.

A status is safe to send again after a 5xx answer: the same state on the same context is the same
verdict, and GitHub counts only the newest status of a context.
"""

from __future__ import annotations

from typing import Any

from promptcanary.action.github_repo import RepoClient

#: GitHub refuses (422) a status description over 140 characters; it does not cut it.
STATUS_DESCRIPTION_LIMIT = 140
#: The states a commit status can have; there is no neutral one.
STATUS_STATES = ("error", "failure", "pending", "success")


class Statuses(RepoClient):
    """Commit statuses."""

    def create_status(
        self,
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
        self.send(
            f"set the commit status '{context}'",
            lambda: self.request("POST", f"/statuses/{sha}", body),
            safe=True,
        )
