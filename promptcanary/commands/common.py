"""Helpers shared by the CLI commands: loading suites, runs and providers; picking directories."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.errors import ConfigError, InputError

if TYPE_CHECKING:
    from rich.console import Console

    from promptcanary.core.models import CanaryRunResult, DriftReport
    from promptcanary.core.suite import CanarySuite
    from promptcanary.providers.base import BaseLLMProvider


def stdout_console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True, highlight=False)


def load_suite(path: Path) -> CanarySuite:
    from promptcanary.core.suite import CanarySuite

    return CanarySuite.from_yaml(path)


def default_baseline_dir(baseline_dir: Path | None, config: Path | None) -> Path:
    """--baseline-dir if given; else baselines/ next to canary.yaml; else ./baselines."""
    if baseline_dir is not None:
        return baseline_dir
    if config is not None:
        return config.parent / "baselines"
    return Path("baselines")


def resolve_model(provider: str | None, suite: CanarySuite | None, *, replay: Path | None) -> str:
    """The model to call: -p, else `provider:` in canary.yaml (a replay brings its own)."""
    if provider:
        return provider
    if suite is not None and suite.settings.provider:
        return suite.settings.provider
    if replay is not None:
        return ""
    raise ConfigError(
        "no model given",
        field="--provider",
        hint="Pass -p/--provider (e.g. -p openai/gpt-4o-mini) or set `provider:` in canary.yaml.",
    )


def make_provider(model: str, *, api_base: str | None, replay: Path | None) -> BaseLLMProvider:
    """A ReplayProvider for --replay, else a LiteLLMProvider (LiteLLM is imported only on call)."""
    if replay is not None:
        from promptcanary.providers.replay import ReplayProvider

        return ReplayProvider(load_run(replay))
    from promptcanary.providers.litellm import LiteLLMProvider

    extra: dict[str, Any] = {"api_base": api_base} if api_base else {}
    return LiteLLMProvider(model, **extra)


def read_json(path: Path, what: str) -> Any:
    from promptcanary.files import read_bytes

    raw = read_bytes(path, what=what, error=InputError)
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise InputError(f"{path}: not valid JSON ({exc})") from exc
    except RecursionError as exc:  # json.loads recurses once per nesting level
        raise InputError(f"{path}: not valid JSON (nested too deeply)") from exc


def load_run(path: Path) -> CanaryRunResult:
    """Load a saved run JSON (written by `run -o`), with a clear error if it is not one.

    A baseline file holds a run too and is accepted.
    """
    from pydantic import ValidationError

    from promptcanary.core.models import BaselineSnapshot, CanaryRunResult
    from promptcanary.files import read_bytes

    raw = read_bytes(path, what="run file", error=InputError)
    try:
        return CanaryRunResult.model_validate_json(raw)
    except ValidationError:
        pass
    try:
        return BaselineSnapshot.model_validate_json(raw).run_result
    except ValidationError:
        pass
    data = read_json(path, "run file")  # slow path: only to explain what is wrong
    if isinstance(data, dict) and "run_result" in data:
        data = data["run_result"]
    try:
        CanaryRunResult.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = ".".join(str(p) for p in err["loc"])
        raise InputError(
            f"{path}: not a PromptCanary run: field '{loc}': {err['msg']}",
            hint="Pass a file written by `promptcanary run -o run.json`.",
        ) from exc
    raise InputError(f"{path}: not a PromptCanary run")


def write_text(path: Path, text: str) -> None:
    """Write an output file; if that fails, keep the text elsewhere and say where."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        from promptcanary.errors import StorageError
        from promptcanary.files import save_elsewhere

        kept = save_elsewhere(path, text)
        where = f"; saved it to {kept} instead" if kept else "; nothing was saved"
        raise StorageError(f"{path}: cannot write ({exc.strerror or exc}){where}") from exc


def progress_callback(enabled: bool) -> Any:
    """A progress callback for the runner: a bar on a TTY, periodic lines otherwise, or none."""
    from promptcanary.core.run.progress import make_progress

    return make_progress(enabled, stream=sys.stderr)


def write_report_files(
    report: DriftReport,
    *,
    output_md: Path | None,
    output_html: Path | None,
    output_json: Path | None,
    history: list[Any] | None = None,
) -> None:
    if not (output_md or output_html or output_json):
        return
    from promptcanary.core.reporter import DriftReporter

    reporter = DriftReporter(report, history=history)
    if output_md:
        reporter.to_markdown(output_md)
    if output_html:
        reporter.to_html(output_html)
    if output_json:
        reporter.to_json(output_json)


@dataclass
class RunFlags:
    """Options shared by `run` and `compare` that shape the run (see cli.py for their help)."""

    provider: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | None = None
    concurrency: int | None = None
    samples: int | None = None
    max_cost: float | None = None
    api_base: str | None = None
    replay: Path | None = None
    baseline_dir: Path | None = None
    output_md: Path | None = None
    output_html: Path | None = None
    no_progress: bool = False
    quiet: bool = False


def execute_run(suite: CanarySuite, provider: BaseLLMProvider, flags: RunFlags) -> CanaryRunResult:
    """Run ``suite`` with the command-line overrides, showing progress unless told not to."""
    samples = flags.samples
    if samples is None and flags.replay is not None:
        samples = getattr(provider, "samples", None)  # replay as many samples as were saved
    return suite.run(
        provider,
        temperature=flags.temperature,
        max_tokens=flags.max_tokens,
        seed=flags.seed,
        concurrency=flags.concurrency,
        samples=samples,
        max_cost_usd=flags.max_cost,
        show_progress=False,
        progress=progress_callback(not flags.no_progress and not flags.quiet),
    )
