"""Glue: environment in, exit code out.

:func:`main` is what ``entrypoint.py`` calls. It masks secrets before printing anything, reads the
inputs and the runner's context, builds the GitHub client and hands everything to :func:`action`,
which is a straight line: :mod:`.activities` decided the branching, the pipeline's use case
(:func:`promptcanary.pipeline.check` or :func:`~promptcanary.pipeline.baseline_run`) measures and
judges, and :mod:`.flows` tells GitHub. Every I/O dependency of :func:`action` is a parameter.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, TextIO

from promptcanary import pipeline
from promptcanary.action import flows, forks, preflight, render
from promptcanary.action.activities import (
    Plan,
    decide,
    missing_provider_credentials,
    secrets_withheld,
)
from promptcanary.action.github import GitHubClient
from promptcanary.action.outcome import Outcome, ReportFiles, reports_dir
from promptcanary.action.promote import WorkspaceStore
from promptcanary.action.settings import ActionConfig, GitHubContext, load_config, load_context
from promptcanary.action.tokens import withhold_job_tokens, without_job_tokens
from promptcanary.action.workflow import Workflow, escaped_line
from promptcanary.core.render.safety import md_code
from promptcanary.errors import (
    EXIT_INTERNAL,
    BaselineRemovedError,
    PromptCanaryError,
    exit_code_for,
    redact,
)
from promptcanary.providers.credentials import MissingCredentialsError

if TYPE_CHECKING:
    from promptcanary.providers.base import BaseLLMProvider

#: Heads the outputs printed to the log when the runner's output file cannot be written.
OUTPUTS_NOT_WRITTEN = "PromptCanary: the step outputs, not written to the runner's file:"

#: Builds the GitHub client from the inputs and context (None: no token, no repository).
GitHubFactory = Callable[[ActionConfig, GitHubContext], "GitHubClient | None"]


def action(
    config: ActionConfig,
    context: GitHubContext,
    *,
    github: GitHubClient | None,
    workflow: Workflow,
    environ: Mapping[str, str],
    make_provider: pipeline.ProviderFactory = pipeline.make_provider,
) -> Outcome:
    """Run the Action once: decide, run the pipeline's use case, report, gate."""
    plan = decide(config, context)
    if context.event_name == "pull_request_target":
        workflow.warning(
            "pull_request_target runs with secrets and a write token: make sure the canary "
            "files come from the base branch, never from the pull request's head (see "
            "docs/action.md, 'Why not pull_request_target?').",
            title="PromptCanary",
        )
    where = render.Where(run_url=context.run_url, promote_label=config.promote_label)
    session = flows.Session(config, context, plan, workflow, github, where)
    # A check started on the commit (pending status, check run in progress) that an error then
    # stops is settled as that error: left pending, it would say the job stopped early and ask
    # for a re-run, when the job ended on an error its log names (a cancelled job cannot settle
    # it, and stays pending: see required_check).
    with session.required.settled_on_error():
        return _act(session, plan, environ, make_provider)


def _act(
    session: flows.Session,
    plan: Plan,
    environ: Mapping[str, str],
    make_provider: pipeline.ProviderFactory,
) -> Outcome:
    """The activity :func:`action` decided: skip, the fork companion, a promotion or a check."""
    config, context, workflow = session.config, session.context, session.workflow
    if plan.activity == "skip":
        return flows.skipped(
            session, _with_withheld(plan, config, environ), unmeasured=plan.unmeasured
        )
    if plan.activity == "fork":  # the workflow_run companion: no model call, no secret
        return forks.not_measured(session)
    if plan.activity == "promote":
        # Before any model call: a label added by someone who may not promote costs nothing.
        refusal = flows.promotion_refusal(session)
        if refusal is not None:
            return flows.skipped(session, refusal)
        # A re-run of a promotion that landed, or a label taken off since: nothing to pay for.
        settled = preflight.promotion_now(session)
        if settled is not None:
            return settled
    overrides, policy = _overrides(config), _gate_policy(config)
    ports = pipeline.Ports(
        store=WorkspaceStore(config.baseline_dir, context.workspace),
        make_provider=partial(_with_credentials, make_provider, environ),
        # Just before the first request, after the provider is made: no GitHub write for a run
        # that cannot call its model.
        announce=partial(flows.starting, session),
        # A check without a baseline asks the base branch: a pull request cannot empty its gate.
        missing_baseline=partial(preflight.missing_baseline, session),
        # The watch re-tests a behaviour-only finding on fresh answers: say what that sends.
        retesting=partial(flows.retesting, session),
        pricer=pipeline.litellm_price,
    )
    try:
        if plan.activity == "promote":
            note = _promotion_note(session)
            request = pipeline.BaselineRunRequest(
                config.config_path, overrides, save=True, note=note, compare_with_previous=True
            )
            result: pipeline.Check | pipeline.BaselineRun = pipeline.baseline_run(request, ports)
        else:
            # The first run on a repository has no baseline yet: it reports the run alone.
            # The watch confirms a behaviour-only finding on fresh answers before it accuses.
            check = pipeline.CheckRequest(
                config.config_path,
                overrides,
                policy,
                require_baseline=False,
                confirm_behaviour=plan.activity == "watch",
            )
            result = pipeline.check(check, ports)
    except BaselineRemovedError as removed:  # before the first request
        return preflight.baseline_removed(session, removed)
    except MissingCredentialsError as error:  # raised only where the provider is made
        if not secrets_withheld(context):
            # Anywhere GitHub does give secrets, missing credentials are a mistake (a typo in
            # the secret's name, a secret never created): a green skip would hide it forever.
            raise _in_the_step(error) from None
        from promptcanary.core.config import load_header

        run_check = (load_header(config.config_path)[0], error.model)
        return flows.skipped(
            session,
            _withheld_reason(error),
            unmeasured=True,
            check=run_check if plan.activity == "check" else None,
        )
    run = result.run
    folder = reports_dir(context, warn=lambda text: workflow.warning(text, title="PromptCanary"))
    files = ReportFiles(folder, run.suite_name, run.provider.model_id, owner_of=context.workspace)
    try:
        if isinstance(result, pipeline.BaselineRun):
            return flows.promoted(session, result, files, policy)
        if result.report is None:
            return flows.no_baseline(session, result, files)
        return flows.compared(session, result, files)
    except Exception as exc:
        # Once the gate has decided, failing to tell GitHub must not turn its verdict into
        # exit 4 (a crash) or lose it; before that, a failure is a bug and stays one.
        if session.decided is None:
            raise
        return session.after_publish_failed(exc)


def _overrides(config: ActionConfig) -> pipeline.Overrides:
    """The inputs that change the run or the comparison (empty inputs keep canary.yaml's)."""
    return pipeline.Overrides(
        model=config.provider,
        temperature=config.temperature,
        max_tokens=config.max_tokens,
        seed=config.seed,
        samples=config.samples,
        baseline_samples=config.baseline_samples,
        concurrency=config.concurrency,
        replay=config.replay_path,
        regression_threshold=config.regression_threshold,
        improvement_threshold=config.improvement_threshold,
    )


def _gate_policy(config: ActionConfig) -> pipeline.GatePolicy:
    """When the check fails: ``fail-on-severity``, ``fail-on-inconclusive``,
    ``fail-on-suite-change``, ``fail-on-behaviour-change``."""
    return pipeline.GatePolicy(
        fail_on_severity=config.fail_on_severity,
        fail_on_inconclusive=config.fail_on_inconclusive,
        fail_on_suite_change=config.fail_on_suite_change,
        fail_on_behaviour_change=config.fail_on_behaviour_change,
    )


def _promotion_note(session: flows.Session) -> str:
    """Stored with a promoted baseline: what promoted it."""
    note = f"promoted by PromptCanary ({session.context.event_name}"
    return note + (f", PR #{session.plan.pr_number})" if session.plan.pr_number else ")")


def _with_credentials(
    make_provider: pipeline.ProviderFactory,
    environ: Mapping[str, str],
    model: str,
    overrides: pipeline.Overrides,
) -> BaseLLMProvider:
    """The provider, once the environment holds the model's credentials (a replay needs none);
    preflight may then find what the model's prefix did not say (a bare name LiteLLM routes to
    a cloud), with the same :class:`MissingCredentialsError`."""
    missing = None if overrides.replay else missing_provider_credentials(model, environ)
    if missing is not None:
        raise missing
    return make_provider(model, overrides)


def connect_github(config: ActionConfig, context: GitHubContext) -> GitHubClient | None:
    """The client for this repository, or None without a token (nothing is fetched yet)."""
    if not config.github_token or not context.repository:
        return None
    return GitHubClient.connect(
        token=config.github_token, api_url=context.api_url, repository=context.repository
    )


def main(
    environ: Mapping[str, str] | None = None,
    stream: TextIO | None = None,
    *,
    github_factory: GitHubFactory = connect_github,
    make_provider: pipeline.ProviderFactory = pipeline.make_provider,
) -> int:
    """The entry point: returns the process exit code (0 ok or skipped, 1 drift, 2 usage or a
    missing provider key, 3 inconclusive with ``fail-on-inconclusive`` or a skip for withheld
    secrets with ``fail-on-skip``, 4 a bug, 5 a promotion that committed nothing; see
    :mod:`promptcanary.errors`)."""
    env = os.environ if environ is None else environ
    workflow = Workflow(env, stream)
    # Before anything else is printed: the runner hides these values in every later line.
    workflow.mask(_secret_values(env))
    try:
        config = load_config(env)
        context = load_context(env)
        # The GitHub token now lives in `config` only: canary.yaml and custom probes run in this
        # process and must not find the job's tokens in the environment (see .tokens).
        if env is os.environ:
            withhold_job_tokens(os.environ)
        env = without_job_tokens(env)
        outcome = action(
            config,
            context,
            github=github_factory(config, context),
            workflow=workflow,
            environ=env,
            make_provider=make_provider,
        )
    except PromptCanaryError as exc:
        message = exc.message + (f" {exc.hint}" if exc.hint else "")
        workflow.error(message, title="PromptCanary")
        workflow.add_summary(f"## 🐤 PromptCanary: error\n\n{md_code(message, 2000)}")
        return exit_code_for(exc)
    except Exception as exc:  # a bug: show it (redacted); exit 4 like the CLI, never 1 ("drift")
        workflow.error(
            f"PromptCanary crashed: {type(exc).__name__}: {redact(str(exc))}. This is a bug in "
            "PromptCanary; please report it.",
            title="PromptCanary",
        )
        workflow.print_untrusted(redact(traceback.format_exc()))
        return EXIT_INTERNAL
    _set_outputs(workflow, outcome)
    line = outcome.report.summary if outcome.report is not None else f"result: {outcome.result}"
    workflow.print_untrusted(f"PromptCanary: {line}")
    return outcome.exit_code


def _set_outputs(workflow: Workflow, outcome: Outcome) -> None:
    """The step outputs. The gate has decided by now: a runner file that cannot be written (a
    full disk, no permission, a folder) must neither turn its exit code into a crash nor hide
    the verdict. One warning names the file and the OS error, and the outputs go to the log,
    where a reader (not a later step) still finds them."""
    values = outcome.outputs()
    error = workflow.set_outputs(values)
    if error is None:
        return
    reason = f"{type(error).__name__}: {error.strerror or error}"
    workflow.warning(
        redact(
            f"Could not write the step outputs to {workflow.output_file}: {reason}. The verdict "
            f"stands (exit code {outcome.exit_code}); later steps read these outputs as empty, "
            "so they are printed in this log."
        ),
        title="PromptCanary",
    )
    lines = [f"{name}={escaped_line(value)}" for name, value in values.items()]
    workflow.print_untrusted("\n".join([OUTPUTS_NOT_WRITTEN, *lines]))


def _secret_values(environ: Mapping[str, str]) -> list[str]:
    from promptcanary.errors import secret_env_values

    return secret_env_values(dict(environ))


def _with_withheld(plan: Plan, config: ActionConfig, environ: Mapping[str, str]) -> str:
    """A fork's skip reason, naming what GitHub withheld when the ``provider`` input says which
    model would run (the fork's canary.yaml is never loaded for it: it is the fork's code)."""
    if not plan.unmeasured or not config.provider or config.replay_path is not None:
        return plan.reason
    missing = missing_provider_credentials(config.provider, environ)
    if missing is None:
        return plan.reason
    return f"{plan.reason} Withheld from this run: {_listed(missing)}."


def _listed(error: MissingCredentialsError) -> str:
    """``API key (`OPENAI_API_KEY`)``, or ``A (…), B (…) and C (…)``, for a summary."""
    parts = [
        f"{need.what} ({' or '.join(md_code(name, 80) for name in need.names)})"
        for need in error.needs
    ]
    return ", ".join(parts[:-1]) + " and " + parts[-1] if parts[1:] else parts[0]


def _withheld_reason(error: MissingCredentialsError) -> str:
    """The skip's summary, naming what GitHub withheld (a key; or AWS credentials and region)."""
    several = len(error.needs) > 1
    return (
        f"No provider credentials: {_listed(error)} {'are' if several else 'is'} empty, so "
        f"{md_code(error.model, 100)} cannot be called and no model was called. GitHub gives no "
        "Actions secrets to pull requests from forks or to Dependabot, so this check passes "
        "unmeasured (set `fail-on-skip: true` to fail it instead). For Dependabot, add "
        f"{'them' if several else 'it'} as Dependabot secrets."
    )


def _in_the_step(error: MissingCredentialsError) -> MissingCredentialsError:
    """The same error, its hint saying where a workflow sets variables (the step's ``env:``)."""
    first = error.needs[0].names[0].split(" + ")[0]
    return MissingCredentialsError(
        error.model,
        list(error.needs),
        hint=(
            f"Add `{first}: ${{{{ secrets.{first} }}}}` under `env:` of the PromptCanary step "
            "(and likewise each variable named above), and check that the repository secret "
            f"{first} exists under that exact name (Settings → Secrets and variables → Actions)."
        ),
    )
