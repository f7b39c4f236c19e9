"""A stand-in for the GitHub Actions runner starting the Docker action.

It builds the environment a container action gets — ``GITHUB_*`` variables, the event file, the
``GITHUB_OUTPUT`` / ``GITHUB_STEP_SUMMARY`` files, a workspace and a runner temp folder — and the
``INPUT_*`` variables exactly as action.yml maps them in ``runs.env`` (defaults included, and the
runner's own dashed ``INPUT_FAIL-ON-SEVERITY`` form next to them), then runs
``python entrypoint.py`` as a subprocess.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
WEBHOOKS = ROOT / "tests" / "fixtures" / "webhooks"


def load_event(name: str) -> dict[str, Any]:
    """A webhook payload from tests/fixtures/webhooks (a fresh copy each time)."""
    data: dict[str, Any] = json.loads((WEBHOOKS / f"{name}.json").read_text(encoding="utf-8"))
    return data


def parse_output_file(text: str) -> dict[str, str]:
    """Parse ``$GITHUB_OUTPUT`` the way the runner does (``k=v`` and ``k<<DELIM`` blocks)."""
    out: dict[str, str] = {}
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            out[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
            continue
        if "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
        i += 1
    return out


@dataclass
class ActionRun:
    """What one run of the entrypoint left behind."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str

    def commands(self, name: str) -> list[str]:
        """The messages of every ``::name ...::message`` workflow command printed."""
        rx = re.compile(rf"^::{name}(?: [^:]*)?::(.*)$")
        return [m.group(1) for line in self.stdout.splitlines() if (m := rx.match(line))]


@dataclass
class FakeRunner:
    """One job's runner: a workspace and temp folder under ``root``; :meth:`run` runs one step."""

    root: Path
    api_url: str
    repository: str = "Codertocat/Hello-World"
    token: str = "ghs_defaulttoken000000000000000000000"
    provider_env: dict[str, str] = field(default_factory=dict)
    workflow_file: str = "promptcanary-pr.yml"
    """The running workflow (``GITHUB_WORKFLOW_REF``)."""
    actor: str = "octocat"
    """``GITHUB_ACTOR``: who started the run."""
    python: str = sys.executable
    """The interpreter running entrypoint.py (another venv: set PYTHONPATH in extra_env)."""
    run_counter: int = 0

    def __post_init__(self) -> None:
        self.workspace = self.root / "workspace"
        self.runner_temp = self.root / "runner_temp"
        self.workspace.mkdir(parents=True, exist_ok=True)
        self.runner_temp.mkdir(parents=True, exist_ok=True)
        (self.workspace / ".git").mkdir(exist_ok=True)  # the checkout's root
        self.action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))

    def inputs_env(self, inputs: dict[str, str]) -> dict[str, str]:
        """``INPUT_*`` as the runner sets them for this action.yml and these ``with:`` values."""
        declared: dict[str, Any] = self.action["inputs"]
        unknown = set(inputs) - set(declared)
        assert not unknown, f"inputs not in action.yml: {unknown}"
        values: dict[str, str] = {}
        for name, spec in declared.items():
            value = inputs.get(name, str(spec.get("default", "")))
            values[name] = value.replace("${{ github.token }}", self.token)
        env = {}
        for name, value in values.items():  # the runner's own (dashed) form
            env["INPUT_" + name.replace(" ", "_").upper()] = value
        for key, expr in self.action["runs"].get("env", {}).items():
            m = re.fullmatch(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", str(expr))
            assert m, f"runs.env.{key} is not a plain inputs expression: {expr!r}"
            env[key] = values[m.group(1)]
        return env

    def prepare(
        self,
        *,
        event_name: str,
        event: dict[str, Any],
        inputs: dict[str, str] | None = None,
        ref: str = "refs/heads/master",
        extra_env: dict[str, str] | None = None,
    ) -> tuple[dict[str, str], Path]:
        """A fresh step: its environment and its folder (event, output and summary files)."""
        self.run_counter += 1
        step = self.root / f"step{self.run_counter}"
        step.mkdir()
        event_path = step / "event.json"
        event_path.write_text(json.dumps(event), encoding="utf-8")
        (step / "output").touch()
        (step / "summary").touch()
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self.root / "home"),
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_ACTION": "__self",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event_path),
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": self.repository.split("/")[0],
            "GITHUB_API_URL": self.api_url,
            "GITHUB_SERVER_URL": "https://github.test",
            "GITHUB_GRAPHQL_URL": self.api_url + "/graphql",
            "GITHUB_RUN_ID": str(4000 + self.run_counter),
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_SHA": "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
            "GITHUB_REF": ref,
            "GITHUB_WORKFLOW_REF": f"{self.repository}/.github/workflows/{self.workflow_file}@{ref}",
            "GITHUB_ACTOR": self.actor,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(step / "output"),
            "GITHUB_STEP_SUMMARY": str(step / "summary"),
            "GITHUB_ENV": str(step / "env"),
            "GITHUB_PATH": str(step / "path"),
            "RUNNER_TEMP": str(self.runner_temp),
            "RUNNER_OS": "Linux",
            **self.provider_env,
            **self.inputs_env(inputs or {}),
            **(extra_env or {}),
        }
        return env, step

    def run(self, *, timeout: float = 180, **step: Any) -> ActionRun:
        """Run ``python entrypoint.py`` once with a fresh step environment (see :meth:`prepare`)."""
        env, folder = self.prepare(**step)
        proc = subprocess.run(
            [self.python, str(ROOT / "entrypoint.py")],
            cwd=self.workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return _collect(proc.returncode, proc.stdout, proc.stderr, folder)

    def run_in_process(
        self, main: Callable[..., int], *, main_kwargs: dict[str, Any], **step: Any
    ) -> ActionRun:
        """Call ``main(environ, stream, **main_kwargs)`` in this process with the same step
        environment (for dependencies passed in: providers, GitHub clients)."""
        env, folder = self.prepare(**step)
        stream = io.StringIO()
        code = main(env, stream, **main_kwargs)
        return _collect(code, stream.getvalue(), "", folder)


def _collect(code: int, stdout: str, stderr: str, step: Path) -> ActionRun:
    return ActionRun(
        returncode=code,
        stdout=stdout,
        stderr=stderr,
        outputs=parse_output_file((step / "output").read_text(encoding="utf-8")),
        summary=(step / "summary").read_text(encoding="utf-8"),
    )
