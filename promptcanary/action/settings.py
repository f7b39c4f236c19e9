"""The Action's inputs and the runner's context, read from the environment into typed objects.

The runner does not enforce ``required`` or any type, so every input is validated here and a bad
value fails with a message naming the input and the values it accepts. Inputs are read from
``INPUT_<UPPER_SNAKE>`` and, failing that, from the runner's own ``INPUT_<UPPER-WITH-DASHES>``
form. The runner sets ``INPUT_CONFIG`` for a one-word input itself; action.yml's ``runs.env`` maps
only the hyphenated ones (``INPUT_BASELINE_DIR``), never an input onto its own name (nektos/act
passes such a self-reference through unevaluated).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from promptcanary.action.comment import DEFAULT_PROMOTE_LABEL
from promptcanary.errors import ConfigError
from promptcanary.pipeline.locations import baseline_dir

SEVERITY_CHOICES = ("low", "medium", "high", "critical", "never")
#: A promotion dispatches no workflow unless `check-workflow` names one: the required check is
#: the commit status the promotion publishes itself, a dispatched run is a second paid model run
#: whose job check GitHub keeps off the pull request, and dispatching needs `actions: write` in
#: a job that runs the pull request's suite.
DEFAULT_CHECK_WORKFLOW = "none"
MODE_CHOICES = ("auto", "check", "promote", "watch")

#: Every input with its default ("" = not set: the suite's own setting applies).
INPUT_DEFAULTS: dict[str, str] = {
    "config": "canary.yaml",
    "provider": "",
    "baseline-dir": "",
    "fail-on-severity": "medium",
    "github-token": "",
    "comment": "true",
    "promote-label": DEFAULT_PROMOTE_LABEL,
    "regression-threshold": "",
    "improvement-threshold": "",
    "concurrency": "",
    "samples": "",
    "baseline-samples": "",
    "temperature": "",
    "max-tokens": "",
    "seed": "",
    "working-directory": ".",
    "mode": "auto",
    "fail-on-inconclusive": "false",
    "fail-on-suite-change": "false",
    "fail-on-behaviour-change": "false",
    "replay": "",
    "check-workflow": DEFAULT_CHECK_WORKFLOW,
    "fail-on-skip": "false",
    "judge-hosts": "",
    "judge-key-env": "",
    "allow-baseline-removal": "false",
}


@dataclass(frozen=True)
class ActionConfig:
    """Validated inputs. Paths are absolute. The token is left out of ``repr`` so logging is safe."""

    config_path: Path
    provider: str | None
    baseline_dir: Path
    fail_on_severity: str
    github_token: str = field(repr=False)
    comment: bool
    promote_label: str
    regression_threshold: float | None
    improvement_threshold: float | None
    concurrency: int | None
    samples: int | str | None
    """Times each prompt is sent, or "auto" (adaptive checks); None: the suite's setting."""
    baseline_samples: int | None
    """Samples per prompt of a promoted baseline with ``samples: auto``; None: the suite's."""
    temperature: float | None
    max_tokens: int | None
    seed: int | Literal["none"] | None
    """A whole number, "none" (send no seed), or None: the suite's setting."""
    working_directory: Path
    mode: str
    fail_on_inconclusive: bool
    replay_path: Path | None
    check_workflow: str = DEFAULT_CHECK_WORKFLOW
    """Workflow file started on the branch after a promotion when it exists ("none", the
    default: start nothing)."""
    fail_on_skip: bool = False
    """Exit 3 instead of 0 when no model was called for a fork or Dependabot pull request."""
    fail_on_suite_change: bool = False
    """Fail the check when canary.yaml changed since the baseline (require a promotion)."""
    fail_on_behaviour_change: bool = False
    """Fail the check when the answers of some prompt changed although every probe held."""
    judge_hosts: tuple[str, ...] = ()
    """Hosts (``host`` or ``host:port``, lower case) an ``api_base`` in canary.yaml may name;
    empty: none (see :mod:`.suite_reach`)."""
    judge_key_env: tuple[str, ...] = ()
    """Variables an ``api_key_env`` in canary.yaml may name; empty: none."""
    allow_baseline_removal: bool = False
    """Report a pull request without its base branch's baseline as no-baseline instead of
    failing it (see :mod:`.guards`)."""


@dataclass(frozen=True)
class GitHubContext:
    """What the runner tells a step about the run, the repository and the triggering event."""

    event_name: str
    event: dict[str, Any]
    repository: str
    api_url: str
    server_url: str
    run_id: str
    sha: str
    ref: str
    workspace: Path
    runner_temp: Path | None
    actor: str = ""
    """Who started the run (``GITHUB_ACTOR``): ``dependabot[bot]`` gets no Actions secrets."""
    workflow_ref: str = ""
    """``owner/repo/.github/workflows/<file>@<ref>`` of the running workflow."""

    @property
    def workflow_file(self) -> str | None:
        """File name of the running workflow (from ``GITHUB_WORKFLOW_REF``), if known."""
        path = self.workflow_ref.split("@", 1)[0]
        name = path.rsplit("/", 1)[-1]
        return name if "/.github/workflows/" in path and name else None

    @property
    def run_url(self) -> str | None:
        """Link to this workflow run, when the runner said which run it is."""
        if not (self.repository and self.run_id):
            return None
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def pull_request(self) -> dict[str, Any] | None:
        """The event's pull request object, if the event is about one."""
        pr = self.event.get("pull_request")
        return pr if isinstance(pr, dict) else None

    @property
    def branch(self) -> str | None:
        """The branch a push / dispatch ran on (``refs/heads/<name>``), else None."""
        prefix = "refs/heads/"
        return self.ref[len(prefix) :] if self.ref.startswith(prefix) else None


def read_input(environ: Mapping[str, str], name: str) -> str:
    """The raw value of input ``name`` (kebab-case), stripped; the default when unset or empty."""
    snake = "INPUT_" + name.replace("-", "_").replace(" ", "_").upper()
    dashed = "INPUT_" + name.replace(" ", "_").upper()
    for key in (snake, dashed):
        value = environ.get(key)
        if value is not None and value.strip():
            return value.strip()
    return INPUT_DEFAULTS.get(name, "")


def load_config(environ: Mapping[str, str]) -> ActionConfig:
    """Validate every input and resolve paths against the workspace and ``working-directory``.

    Raises:
        ConfigError: naming the input, the value given and the values allowed.
    """
    workspace = _workspace(environ)
    workdir = _resolve(workspace, read_input(environ, "working-directory"))
    replay = read_input(environ, "replay")
    config_path = _resolve(workdir, read_input(environ, "config"))
    given = read_input(environ, "baseline-dir")
    return ActionConfig(
        config_path=config_path,
        provider=read_input(environ, "provider") or None,
        # The pipeline's rule, as the CLI's: next to canary.yaml unless given; a given folder
        # stays relative to working-directory (as it always was).
        # Absolute but not resolved: a promotion checks each component for a symlink that
        # leaves the workspace (promote.check_in_workspace) and must see it to name it.
        baseline_dir=Path(
            os.path.abspath(
                baseline_dir(Path(given).expanduser() if given else None, config_path, base=workdir)
            )
        ),
        fail_on_severity=_choice(environ, "fail-on-severity", SEVERITY_CHOICES),
        github_token=read_input(environ, "github-token") or environ.get("GITHUB_TOKEN", ""),
        comment=_boolean(environ, "comment"),
        promote_label=_label(environ, "promote-label"),
        regression_threshold=_number(environ, "regression-threshold", 0.0, 1.0),
        improvement_threshold=_number(environ, "improvement-threshold", 0.0, 1.0),
        concurrency=_integer(environ, "concurrency", 1, 512),
        samples=_samples(environ, "samples"),
        baseline_samples=_integer(environ, "baseline-samples", 2, 1000),
        temperature=_number(environ, "temperature", 0.0, 2.0),
        max_tokens=_integer(environ, "max-tokens", 1, 1_000_000),
        seed=_seed(environ, "seed"),
        working_directory=workdir,
        mode=_choice(environ, "mode", MODE_CHOICES),
        fail_on_inconclusive=_boolean(environ, "fail-on-inconclusive"),
        replay_path=_resolve(workdir, replay) if replay else None,
        check_workflow=_workflow_file(environ, "check-workflow"),
        fail_on_skip=_boolean(environ, "fail-on-skip"),
        fail_on_suite_change=_boolean(environ, "fail-on-suite-change"),
        fail_on_behaviour_change=_boolean(environ, "fail-on-behaviour-change"),
        judge_hosts=_hosts(environ, "judge-hosts"),
        judge_key_env=_variables(environ, "judge-key-env"),
        allow_baseline_removal=_boolean(environ, "allow-baseline-removal"),
    )


def load_context(environ: Mapping[str, str]) -> GitHubContext:
    """The runner's ``GITHUB_*`` variables and the event payload at ``GITHUB_EVENT_PATH``."""
    event: dict[str, Any] = {}
    event_path = environ.get("GITHUB_EVENT_PATH")
    if event_path and Path(event_path).is_file():
        from promptcanary.files import read_text

        text = read_text(event_path, what="event payload", error=ConfigError)
        try:
            loaded = json.loads(text)
        except (ValueError, RecursionError) as exc:
            raise ConfigError(f"cannot read the event payload: {exc}", file=event_path) from exc
        if isinstance(loaded, dict):
            event = loaded
    temp = environ.get("RUNNER_TEMP")
    return GitHubContext(
        event_name=environ.get("GITHUB_EVENT_NAME", ""),
        event=event,
        repository=environ.get("GITHUB_REPOSITORY", ""),
        api_url=environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
        server_url=environ.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/"),
        run_id=environ.get("GITHUB_RUN_ID", ""),
        sha=environ.get("GITHUB_SHA", ""),
        ref=environ.get("GITHUB_REF", ""),
        workspace=_workspace(environ),
        runner_temp=Path(temp) if temp else None,
        actor=environ.get("GITHUB_ACTOR", ""),
        workflow_ref=environ.get("GITHUB_WORKFLOW_REF", ""),
    )


# ── validation helpers ─────────────────────────────────────────────────────────────────────────


def _workspace(environ: Mapping[str, str]) -> Path:
    return Path(environ.get("GITHUB_WORKSPACE") or Path.cwd()).resolve()


def _resolve(base: Path, value: str) -> Path:
    path = Path(value).expanduser()
    return (path if path.is_absolute() else base / path).resolve()


def _invalid(name: str, value: str, allowed: str) -> ConfigError:
    return ConfigError(
        f"'{name}' input must be {allowed} but got {value!r}",
        field=f"with.{name}",
        hint=f"Fix `{name}:` under `with:` in the workflow step that uses PromptCanary.",
    )


def _choice(environ: Mapping[str, str], name: str, choices: tuple[str, ...]) -> str:
    raw = read_input(environ, name)
    value = raw.lower()
    if value not in choices:
        raise _invalid(name, raw, "one of " + ", ".join(f"'{c}'" for c in choices))
    return value


def _boolean(environ: Mapping[str, str], name: str) -> bool:
    raw = read_input(environ, name)
    value = raw.lower()
    if value not in ("true", "false"):
        raise _invalid(name, raw, "boolean value 'true' or 'false'")
    return value == "true"


def _number(environ: Mapping[str, str], name: str, low: float, high: float) -> float | None:
    raw = read_input(environ, name)
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not low <= value <= high:  # also rejects NaN
        raise _invalid(name, raw, f"a number from {low:g} to {high:g}")
    return value


def _seed(environ: Mapping[str, str], name: str) -> int | Literal["none"] | None:
    raw = read_input(environ, name)
    if not raw:
        return None
    if raw.strip().lower() == "none":
        return "none"
    try:
        return int(raw)
    except ValueError:
        raise _invalid(name, raw, 'a whole number, or "none" to send no seed') from None


def _integer(
    environ: Mapping[str, str], name: str, low: int | None, high: int | None
) -> int | None:
    raw = read_input(environ, name)
    if not raw:
        return None
    bounds = (
        f"a whole number from {low} to {high}"
        if low is not None and high is not None
        else "a whole number"
    )
    try:
        value = int(raw)
    except ValueError:
        raise _invalid(name, raw, bounds) from None
    if (low is not None and value < low) or (high is not None and value > high):
        raise _invalid(name, raw, bounds)
    return value


def _samples(environ: Mapping[str, str], name: str) -> int | str | None:
    raw = read_input(environ, name)
    if not raw:
        return None
    text = raw.strip().lower()
    if text == "auto":
        return "auto"
    if text.isdigit() and 1 <= int(text) <= 1000:
        return int(text)
    raise _invalid(name, raw, '"auto" or a whole number from 1 to 1000')


def _label(environ: Mapping[str, str], name: str) -> str:
    raw = read_input(environ, name)
    # GitHub allows up to 50 characters in a label name.
    if len(raw) > 50 or any(ch in raw for ch in "\r\n"):
        raise _invalid(name, raw, "a label name of at most 50 characters on one line")
    return raw


def _workflow_file(environ: Mapping[str, str], name: str) -> str:
    raw = read_input(environ, name)
    if raw.lower() in ("", "none"):
        return raw.lower()
    file = raw.rsplit("/", 1)[-1]  # ".github/workflows/x.yml" names the same file as "x.yml"
    if not (file.endswith((".yml", ".yaml")) or file.isdigit()) or any(c in file for c in "\r\n@"):
        raise _invalid(
            name,
            raw,
            "a workflow file name under .github/workflows (e.g. 'promptcanary-pr.yml'), a "
            "workflow id, or 'none'",
        )
    return file


def _items(raw: str) -> list[str]:
    """The entries of a list input: separated by commas, spaces or new lines (a YAML block)."""
    return [item for item in re.split(r"[\s,]+", raw) if item]


def _hosts(environ: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Host names (``judge.example.com``, ``localhost:8080``); a URL gives its host."""
    raw = read_input(environ, name)
    hosts = []
    for item in _items(raw):
        netloc = urlsplit(item).netloc if "://" in item else item
        host = netloc.rsplit("@", 1)[-1].lower()
        if not _HOST_RE.fullmatch(host):
            raise _invalid(
                name,
                item,
                "host names (e.g. 'judge.example.com' or 'localhost:8080'), separated by commas "
                "or new lines",
            )
        hosts.append(host)
    return tuple(dict.fromkeys(hosts))


def _variables(environ: Mapping[str, str], name: str) -> tuple[str, ...]:
    """Environment variable names; never one of the runner's (they hold the job's tokens)."""
    from promptcanary.core.probes.judge import RESERVED_ENV_PREFIXES

    raw = read_input(environ, name)
    names = []
    for item in _items(raw):
        if not _ENV_NAME_RE.fullmatch(item):
            raise _invalid(
                name, item, "environment variable names (e.g. 'JUDGE_API_KEY'), not values"
            )
        if item.upper().startswith(RESERVED_ENV_PREFIXES):
            raise _invalid(
                name,
                item,
                "a variable of your own: the runner's "
                + ", ".join(p + "*" for p in RESERVED_ENV_PREFIXES)
                + " variables hold the job's tokens",
            )
        names.append(item)
    return tuple(dict.fromkeys(names))


#: A host name or IP address, with an optional port (``[::1]:8080`` for IPv6).
_HOST_RE = re.compile(
    r"(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*"
    r"|\[[0-9a-f:.]+\])(?::\d{1,5})?"
)
_ENV_NAME_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
