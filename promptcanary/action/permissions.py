"""Which permission of the job's token each GitHub write needs, and the one line that says so when
GitHub refuses it.

GitHub answers a write an installation token (the workflow's ``GITHUB_TOKEN``, a GitHub App's)
may not make with ``403 Resource not accessible by integration``: the status alone does not say
which permission is missing, but the operation does. A generic "403 Forbidden" (or a list of
every permission the Action might use) leaves the user to guess; this module names the one
permission and the ``permissions:`` line that grants it.

A ``pull_request`` run from a fork is the exception: GitHub gives it a read-only token whatever
the workflow's ``permissions:`` say, so no line can fix it there (the fork companion,
``workflow_run``, publishes the check instead; docs/action.md, "Forks").
"""

from __future__ import annotations

from dataclasses import dataclass

from promptcanary.action.failure_line import FailureLine, Quoted
from promptcanary.errors import GitHubError


@dataclass(frozen=True)
class Permission:
    """One ``permissions:`` entry of a job, and what the Action does with it."""

    scope: str
    """The key under ``permissions:`` (``pull-requests``, ``issues``, ``checks``...)."""
    level: str = "write"
    """``write`` for every write; ``read`` for the few reads a private repository gates."""

    @property
    def line(self) -> str:
        """The YAML line, e.g. ``pull-requests: write``."""
        return f"{self.scope}: {self.level}"


#: The sticky comment on a pull request (``issues: write`` is accepted too).
COMMENTS = Permission("pull-requests")
#: Creating the promote label, taking it off a pull request, the watch issue and its label.
ISSUES = Permission("issues")
#: The check run ``PromptCanary: <suite> (<model>)``.
CHECKS = Permission("checks")
#: The commit status of the same name.
STATUSES = Permission("statuses")
#: A promotion's baseline commit.
CONTENTS = Permission("contents")
#: Starting the check workflow after a promotion (``check-workflow``).
ACTIONS = Permission("actions")
#: Reading the pull request of a dispatched check, in a private repository.
PULLS_READ = Permission("pull-requests", "read")


def is_permission_refusal(exc: GitHubError) -> bool:
    """True for a 403 that is not a rate limit: the token may not do this."""
    return exc.status == 403 and not exc.rate_limited


def fix_line(permission: Permission, *, read_only_event: bool = False) -> str:
    """What grants ``permission``, in one sentence: the ``permissions:`` YAML to add."""
    if read_only_event:
        return (
            "GitHub gives a pull request from a fork a read-only token on `pull_request` "
            "events, whatever `permissions:` says: the fork companion workflow "
            "(`workflow_run`, examples/workflows/promptcanary-fork.yml) publishes the check."
        )
    # A `permissions:` block sets every scope it leaves out to none: adding one line must not
    # drop the others (actions/checkout needs `contents: read`).
    return (
        f"The token lacks `{permission.line}`: add `{permission.line}` to the job's "
        "`permissions:` (keeping the lines already there: a permission left out is `none`), or "
        "give that permission to the token passed as `github-token`."
    )


def refusal_line(
    what: str, exc: GitHubError, permission: Permission, *, read_only_event: bool = False
) -> FailureLine:
    """One line for a refused operation: what failed, GitHub's answer, and — for a missing
    permission — the one permission and its YAML; any other refusal keeps its own hint.
    ``what`` may name a label or a branch, and the message is GitHub's: both stay quoted."""
    if not is_permission_refusal(exc):
        hint = f" {exc.hint}" if exc.hint else ""
        return FailureLine.of(Quoted(f"Could not {what}. {exc.message}"), hint)
    said = FailureLine.of(" (", Quoted(exc.github_message), ")") if exc.github_message else ""
    return FailureLine.of(
        Quoted(f"Could not {what}"),
        ": GitHub answered HTTP 403",
        said,
        ". ",
        fix_line(permission, read_only_event=read_only_event),
    )


def with_permission(exc: GitHubError, permission: Permission) -> GitHubError:
    """``exc`` with its hint naming ``permission`` when it is a permission refusal (its class,
    message and status kept), else ``exc`` itself."""
    if not is_permission_refusal(exc):
        return exc
    exc.hint = fix_line(permission)
    return exc
