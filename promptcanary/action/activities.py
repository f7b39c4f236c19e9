"""Deciding what to do from the event and the inputs.

``main`` stays a straight line because the branching lives here: :func:`decide` turns the mode
input and the event payload into a :class:`Plan`, and :func:`missing_provider_credentials` says whether
the model can be called at all (a fork PR gets empty secrets).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from promptcanary.action.settings import ActionConfig, GitHubContext
from promptcanary.core.render.safety import md_code
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.providers.credentials import MissingCredentialsError

Activity = Literal["check", "promote", "watch", "skip", "fork"]

PR_EVENTS = ("pull_request", "pull_request_target")


@dataclass(frozen=True)
class Plan:
    """What this run will do."""

    activity: Activity
    """check: measure and gate; promote: measure and commit a baseline; watch: measure and keep
    an issue; skip: do nothing but explain why; fork: no model call, publish the required check
    as "not measured" on a fork's pull request (a ``workflow_run`` companion, see
    :func:`fork_plan`)."""
    reason: str = ""
    """Why the run is skipped (shown in the summary), or a note on the choice."""
    pr_number: int | None = None
    """The pull request to comment on, if any."""
    promote_branch: str | None = None
    """Where a promoted baseline is committed."""
    promote_parent: str | None = None
    """The commit that was measured: the promotion commit's parent, and the only commit the
    branch may still point at when the baseline lands (the pull request's head SHA)."""
    unmeasured: bool = False
    """The skip is one where GitHub withholds secrets (fork, Dependabot): ``fail-on-skip``
    turns it into a failure."""
    head_sha: str | None = None
    """The commit the verdict goes on when it is not the event's pull request head or
    ``GITHUB_SHA`` (a fork's head, from a ``workflow_run`` event)."""


def decide(config: ActionConfig, context: GitHubContext) -> Plan:
    """The plan for this run: the ``mode`` input, or in ``auto`` mode the event, decides.

    Raises:
        ConfigError: ``mode: promote`` on an event that names no branch to commit to.
    """
    pr = context.pull_request
    pr_number = _pr_number(context)
    mode = config.mode
    if mode == "auto" and context.event_name == "workflow_run":
        return fork_plan(context)
    if mode == "auto":
        mode = _auto_mode(config, context)
        if mode == "skip":
            label = _label_name(context.event)
            return Plan(
                "skip",
                reason=(
                    f"The pull request was labeled {md_code(label, 60)}, which is not the "
                    f"promotion label ({md_code(config.promote_label, 60)}): nothing to do."
                ),
                pr_number=pr_number,
            )
    if pr is not None and is_fork(pr):
        return Plan("skip", reason=_fork_reason(mode), pr_number=pr_number, unmeasured=True)
    if mode == "promote":
        if pr is not None and (pr.get("state") == "closed" or pr.get("merged")):
            state = "merged" if pr.get("merged") else "closed"
            return Plan(
                "skip",
                reason=(
                    f"Not promoted: pull request #{pr_number} is {state}. A baseline is only "
                    "promoted from an open pull request (GitHub sends the `labeled` event for "
                    "closed ones too). Reopen it and add the label again, or promote on the "
                    "base branch with `mode: promote` from a `workflow_dispatch` run."
                ),
                pr_number=pr_number,
            )
        branch = _head_branch(pr) if pr is not None else context.branch
        if not branch:
            raise ConfigError(
                f"'mode: promote' needs a pull request or a branch to commit to, but the event "
                f"'{context.event_name}' on ref '{context.ref}' names none",
                field="with.mode",
                hint="Promote from a pull_request 'labeled' event, or a push / "
                "workflow_dispatch on a branch.",
            )
        parent = _head_sha(pr) if pr is not None else context.sha
        return Plan("promote", pr_number=pr_number, promote_branch=branch, promote_parent=parent)
    if mode == "watch":
        return Plan("watch", pr_number=None)
    return Plan("check", pr_number=pr_number)


#: Said with every fork skip: the fork's suite is code, not data, once it runs with secrets.
FORK_SECRETS_WARNING = (
    "Before measuring a fork's change from a branch of this repository, review it like code: "
    "that run executes the fork's canary.yaml and custom probes with this repository's secrets "
    "(provider keys, the workflow's token)."
)


def fork_plan(context: GitHubContext) -> Plan:
    """A ``workflow_run`` event (the fork companion, examples/workflows/promptcanary-fork.yml):
    the run it follows was a pull request's check; when that pull request comes from a fork,
    its own run had no secrets and a read-only token and published nothing, so this one marks
    the required check on the fork's head as not measured. Anything else is left alone (the
    check workflow published its own verdict)."""
    run = context.event.get("workflow_run")
    run = run if isinstance(run, dict) else {}
    head_repo = run.get("head_repository") if isinstance(run.get("head_repository"), dict) else {}
    base_repo = run.get("repository") if isinstance(run.get("repository"), dict) else {}
    sha = str(run.get("head_sha") or "")
    if run.get("event") not in PR_EVENTS or not sha:
        return Plan(
            "skip",
            reason=(
                f"This `workflow_run` follows a {md_code(str(run.get('event') or '?'), 40)} run, "
                "not a pull request's check: nothing to mark."
            ),
        )
    fork = is_fork({"head": {"repo": head_repo or None}, "base": {"repo": base_repo}})
    if not fork:
        return Plan(
            "skip",
            reason="The pull request of this `workflow_run` is not from a fork: its own check "
            "published the verdict, nothing to mark.",
        )
    who = md_code(str((head_repo or {}).get("full_name") or "a deleted fork"), 100)
    return Plan(
        "fork",
        reason=(
            f"This pull request comes from a fork ({who}): GitHub gives its check workflow no "
            "secrets and a read-only token, so no model was called and nothing was measured. "
            "The required check is marked *not measured* so the pull request does not wait "
            "for it forever (set `fail-on-skip: true` in this workflow to fail it instead). A "
            "maintainer can measure the change from a branch of this repository, or after "
            "merging. " + FORK_SECRETS_WARNING
        ),
        unmeasured=True,
        head_sha=sha,
    )


def _fork_reason(mode: str) -> str:
    return (
        "A pull request from a fork cannot be promoted: its branch belongs to another "
        "repository, and this workflow's token may not push to it. A maintainer can promote "
        "the baseline after merging, or from a branch of this repository. " + FORK_SECRETS_WARNING
        if mode == "promote"
        else "This pull request comes from a fork: GitHub gives its workflow no secrets, so no "
        "model was called and the check passes unmeasured. A maintainer can measure the change "
        "from a branch of this repository, or after merging. " + FORK_SECRETS_WARNING
    )


def _auto_mode(config: ActionConfig, context: GitHubContext) -> str:
    if context.event_name == "schedule":
        return "watch"
    if context.event_name in PR_EVENTS and context.event.get("action") == "labeled":
        # GitHub compares label names case-insensitively (and so does an `if:` in a workflow).
        label = _label_name(context.event)
        return "promote" if label.lower() == config.promote_label.lower() else "skip"
    return "check"


def is_fork(pull_request: Mapping[str, Any]) -> bool:
    """True when the PR's head lives in another repository (or a deleted one).

    Decided by identity, never by ``head.repo.fork``: that flag says "this repository is a fork"
    and is true on both sides of a same-repository pull request in a forked repository.
    """
    head_repo = (pull_request.get("head") or {}).get("repo")
    base_repo = (pull_request.get("base") or {}).get("repo") or {}
    if not isinstance(head_repo, dict):
        return True  # the fork was deleted: nothing we may push to
    head_id, base_id = head_repo.get("id"), base_repo.get("id")
    other_id = head_id is not None and base_id is not None and head_id != base_id
    head_name = str(head_repo.get("full_name", "")).lower()
    return other_id or head_name != str(base_repo.get("full_name", "")).lower()


#: Who opens Dependabot's pull requests; its runs get Dependabot secrets, not Actions secrets.
DEPENDABOT = "dependabot[bot]"


def secrets_withheld(context: GitHubContext) -> bool:
    """True when GitHub gives this run no Actions secrets: a fork's pull request or Dependabot.
    Only there may a missing provider key end in a skip."""
    pr = context.pull_request
    return (pr is not None and is_fork(pr)) or context.actor == DEPENDABOT


def _label_name(event: Mapping[str, Any]) -> str:
    label = event.get("label")
    return str(label.get("name", "")) if isinstance(label, dict) else ""


def _head_branch(pr: Mapping[str, Any]) -> str | None:
    ref = (pr.get("head") or {}).get("ref")
    return str(ref) if ref else None


def _head_sha(pr: Mapping[str, Any]) -> str | None:
    sha = (pr.get("head") or {}).get("sha")
    return str(sha) if sha else None


def _pr_number(context: GitHubContext) -> int | None:
    pr = context.pull_request
    if pr is None:
        return None
    number = pr.get("number", context.event.get("number"))
    return int(number) if isinstance(number, int) else None


# ── Provider credentials ──────────────────────────────────────────────────────────────────────────────


def missing_provider_credentials(
    model: str, environ: Mapping[str, str]
) -> MissingCredentialsError | None:
    """What ``model``'s provider needs and ``environ`` lacks (API key, endpoint, AWS or Google
    credentials...; see :mod:`promptcanary.providers.credentials`), judged from the model's
    prefix without importing LiteLLM; None when nothing is missing or the provider is unknown."""
    from promptcanary.providers.credentials import missing_credentials, provider_of

    return missing_credentials(model, provider_of(model), environ)
