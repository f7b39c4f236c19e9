"""The fork companion: the required check on a fork's pull request, marked as not measured.

A ``pull_request`` run from a fork gets no secrets and a read-only token, so the check workflow
measures nothing and can publish nothing: a required ``PromptCanary: <suite> (<model>)`` would
wait forever ("Expected — Waiting for status to be reported"). A ``workflow_run`` workflow that
follows the check workflow runs in this repository's context with a writable token (GitHub: "The
workflow started by the ``workflow_run`` event is able to access secrets and write tokens, even if
the previous workflow was not"; it runs only from the default branch). It needs no secret: it
reads this repository's canary.yaml (the default branch's checkout, never the fork's code) for the
check's name and publishes the commit status and check run of that name on the fork's head, as
success / neutral, or as a failure with ``fail-on-skip: true``. No model is called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from promptcanary.action.session import skipped

if TYPE_CHECKING:
    from promptcanary.action.outcome import Outcome
    from promptcanary.action.session import Session

#: The title (and status description) of the check a fork's pull request gets.
NOT_MEASURED = "Not measured: pull request from a fork (GitHub gives it no secrets)"


def not_measured(s: Session) -> Outcome:
    """Publish the fork's required check as not measured (see the module docstring)."""
    return skipped(s, s.plan.reason, unmeasured=True, check=s.suite_and_model(), title=NOT_MEASURED)
