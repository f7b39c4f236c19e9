"""Helpers shared by the CLI commands: loading suites, runs and providers; picking directories."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.errors import ConfigError, InputError

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

    from promptcanary.core.models import CanaryRunResult, DriftReport
    from promptcanary.core.models.seed import SeedSetting
    from promptcanary.pipeline import Overrides, Ports
    from promptcanary.pipeline.cost import RunPlan
    from promptcanary.storage.file import FileBaselineStore


def start_litellm_warm_up(replay: Path | None) -> bool:
    """With ``PROMPTCANARY_WARMUP=1``: import LiteLLM in a background thread while the suite and
    baselines load, for a command that will call a model (not a replay).

    Off by default, as in the Action's entrypoint: measured with benchmarks/first_request.py it
    made the first request later, not sooner (docs/benchmarks.md, "First request"). The import is
    seconds of Python and the main thread meanwhile parses canary.yaml and the baseline JSON;
    both hold the GIL, so they take turns, and the switching costs more than the little either
    spends off the GIL.
    """
    import os
    import threading

    flag = os.environ.get("PROMPTCANARY_WARMUP", "0").strip().lower()
    if replay is not None or flag not in {"1", "true", "yes", "on"}:
        return False

    def warm() -> None:
        # Nothing is printed: the real import, where it happens, reports any failure. The same
        # import as the provider's (no network, the garbage collector paused while it runs).
        import contextlib

        from promptcanary.providers.litellm import import_litellm

        with contextlib.suppress(BaseException):
            import_litellm()

    threading.Thread(target=warm, name="litellm-warm-up", daemon=True).start()
    return True


def stdout_console() -> Console:
    """Rich on stdout: colour on a terminal; in a CI log or a file, wide lines (never wrapped at
    a guessed 80 columns: see :func:`~promptcanary.core.render.console.fit_to_output`)."""
    from promptcanary.core.render.console import output_console

    return output_console()


def stderr_console() -> Console:
    """Rich on stderr, sized as :func:`stdout_console`."""
    from promptcanary.core.render.console import output_console

    return output_console(stderr=True)


def say(line: str) -> None:
    """One status line on stderr, never wrapped: the paths and ids in it stay whole in a CI log
    and paste as they are (rich would fold a path longer than the width, and read ``[x]`` in
    it as markup)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def wrote(what: str, path: Path) -> None:
    """Say that ``what`` was written to ``path`` (every file a command writes is named)."""
    say(f"Wrote {what} → {path}")


def in_ci() -> bool:
    """True when a CI service says so (``CI`` set, as GitHub Actions, GitLab and most do)."""
    import os

    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def load_env_files(config: Path | None, *, env_file: Path | None = None) -> list[Path]:
    """Read ``.env`` files into the environment; returns the files read.

    - ``env_file`` (``--env-file``): that file only, in CI or not;
    - else, outside CI: ``.env`` in the suite's folder and in the current folder (as `init`'s
      .env.example suggests);
    - else (``CI`` set): none. In CI a ``.env`` is a file of the checkout, so a pull request could
      add one setting ``OPENAI_BASE_URL`` and send the job's key elsewhere; the workflow's own
      ``env:`` is where CI sets variables. A ``.env`` left unread is said once on stderr.

    A variable already set to a value is never overridden; an empty one counts as unset (an empty
    key is a missing key).
    """
    import os

    from dotenv import dotenv_values

    folders = ([config.parent] if config is not None else []) + [Path.cwd()]
    found = [
        f / ".env" for f in dict.fromkeys(f.resolve() for f in folders) if (f / ".env").is_file()
    ]
    if env_file is not None:
        if not env_file.is_file():
            raise InputError(
                f"--env-file {env_file}: no such file", hint="Give the path of a .env file."
            )
        files = [env_file]
    elif in_ci():
        if found:
            stderr_console().print(
                f"Not reading {', '.join(str(f) for f in found)}: CI is set, and in CI a .env "
                "file comes from the checkout (a pull request could change where the keys go). "
                "Set variables in the workflow's env:, or pass --env-file to read one.",
                soft_wrap=True,
            )
        files = []
    else:
        files = found
    for env in files:
        try:
            values = dotenv_values(env, encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"{env}: cannot read the file ({exc})") from exc
        for key, value in values.items():
            if value and not os.environ.get(key):
                os.environ[key] = value
    return files


def default_baseline_dir(baseline_dir: Path | None, config: Path | None) -> Path:
    """--baseline-dir if given; else baselines/ next to canary.yaml; else ./baselines (the
    pipeline's rule, the same the Action follows)."""
    from promptcanary.pipeline import baseline_dir as resolve

    return resolve(baseline_dir, config)


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
    """A saved run (or the run inside a baseline file); see :func:`promptcanary.pipeline.load_run`."""
    from promptcanary.pipeline import load_run as _load

    return _load(path)


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
    output_junit: Path | None = None,
    history: list[Any] | None = None,
    accept_hint: str | None = None,
) -> None:
    """Write the drift report in each format given a path (``history``: for the formats that
    show the stored baselines, see ``Format.uses_history``; ``accept_hint``: how to accept the
    change, else the reporter's default)."""
    from promptcanary.core.models import ReportFormat

    paths = {
        ReportFormat.MARKDOWN: output_md,
        ReportFormat.HTML: output_html,
        ReportFormat.JSON: output_json,
        ReportFormat.JUNIT: output_junit,
    }
    if not any(paths.values()):
        return
    from promptcanary.core.reporter import FORMATS, DriftReporter

    shown = any(FORMATS[fmt].uses_history for fmt, path in paths.items() if path is not None)
    hint = {} if accept_hint is None else {"accept_hint": accept_hint}
    reporter = DriftReporter(report, history=history if shown else None, **hint)
    for fmt, path in paths.items():
        if path is not None:
            reporter.write(fmt, path)
            wrote(FORMATS[fmt].title, path)


def save_baseline_hint(
    config: Path | None,
    *,
    provider: str | None = None,
    baseline_dir: Path | None = None,
    replay: Path | None = None,
    flags: RunFlags | None = None,
) -> str:
    """How to make a baseline, as a command to paste (the report's accept hint, Markdown):
    the suite's file always (``-c``: a suite in a subfolder is not ./canary.yaml), the model
    and the baseline folder when the command at hand named them, ``--replay`` to save a run
    already measured instead of measuring again; measuring again, the ``flags`` that shape the
    answers (:meth:`RunFlags.answer_flags`)."""
    import shlex

    words = ["promptcanary", "run", "-c", str(config or "canary.yaml")]
    if provider:
        words += ["-p", provider]
    if replay is not None:
        words += ["--replay", str(replay)]
    elif flags is not None:
        words += flags.answer_flags()
    if baseline_dir is not None:
        words += ["--baseline-dir", str(baseline_dir)]
    words.append("--save-baseline")
    return f"run `{shlex.join(words)}` and commit the files it names"


@dataclass
class RunFlags:
    """Options shared by `run` and `compare` that shape the run (see cli.py for their help)."""

    provider: str | None = None
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | str | None = None
    """A whole number or "none" (parsed in :meth:`overrides`)."""
    concurrency: int | None = None
    samples: int | str | None = None
    workers: int | None = None
    max_cost: float | None = None
    api_base: str | None = None
    replay: Path | None = None
    """``--replay``: answer from a saved run (or baseline), sending nothing."""
    resume: Path | None = None
    """``--resume``: answer from an interrupted run what it answered; ask the model the rest."""
    batch: bool = False
    batch_timeout: str = "24h"
    batch_poll: str = "10s"
    batch_id: str | None = None
    baseline_dir: Path | None = None
    output_md: Path | None = None
    output_html: Path | None = None
    output_junit: Path | None = None
    no_progress: bool = False
    quiet: bool = False
    yes: bool = False
    env_file: Path | None = None
    """``--env-file``: the one .env file read (in CI, none is read without it)."""

    def answer_flags(self) -> list[str]:
        """The flags given that change what the model answers or where it is asked, as typed: a
        baseline measured without them would answer another question (``--api-base``: the
        public endpoint instead of the user's server). The URL is shown without credentials,
        query or fragment: the hint is printed and written into reports."""
        words: list[str] = []
        if self.api_base:
            from promptcanary.core.run.breaker import display_url

            words += ["--api-base", display_url(self.api_base)]
        for flag, value in (
            ("--temperature", self.temperature),
            ("--max-tokens", self.max_tokens),
            ("--seed", self.seed),
            ("--env-file", self.env_file),
        ):
            if value is not None:
                words += [flag, str(value)]
        return words

    def overrides(self, **extra: Any) -> Overrides:
        """The flags that change the run (and, for compare, the thresholds) as one value."""
        from promptcanary.pipeline import Overrides, parse_duration, parse_samples

        return Overrides(
            model=self.provider,
            temperature=self.temperature,
            max_tokens=self.max_tokens,
            seed=_seed(self.seed),
            samples=parse_samples(self.samples, field="--samples"),
            concurrency=self.concurrency,
            workers=self.workers,
            max_cost_usd=self.max_cost,
            api_base=self.api_base,
            replay=self.replay,
            resume=self.resume,
            batch=self.batch or self.batch_id is not None,
            batch_timeout_s=parse_duration(self.batch_timeout, field="--batch-timeout"),
            batch_poll_s=parse_duration(self.batch_poll, field="--batch-poll"),
            batch_id=self.batch_id,
            **extra,
        )


def _seed(value: int | str | None) -> SeedSetting:
    from promptcanary.core.models.seed import parse_seed

    try:
        return parse_seed(value)
    except ValueError as exc:
        raise ConfigError(str(exc), field="--seed") from None


def cli_ports(
    flags: RunFlags, store: FileBaselineStore, *, keep: Callable[[CanaryRunResult], None]
) -> Ports:
    """The CLI's side of a use case: progress and status lines on stderr, the plan announced
    (and asked, see :func:`announce_plan`) in the terminal, ``keep`` given the measured run at
    once, LiteLLM's prices."""
    from promptcanary.pipeline import Ports, litellm_price

    return Ports(
        store=store,
        progress=progress_callback(not flags.no_progress and not flags.quiet),
        notify=None if flags.quiet else (lambda line: stderr_console().print(line)),
        announce=lambda ready: announce_plan(ready.plan, yes=flags.yes, quiet=flags.quiet),
        keep=keep,
        pricer=litellm_price,
    )


def interactive() -> bool:
    """True when a person can answer a question: stdin is a terminal and no CI is declared
    (``CI`` set, as GitHub Actions, GitLab and most CI services do)."""
    if in_ci():
        return False
    try:
        return bool(sys.stdin.isatty())
    except (AttributeError, ValueError):  # no stdin, or a closed one
        return False


def announce_plan(plan: RunPlan | None, *, yes: bool, quiet: bool) -> None:
    """Print what the run will send and cost; in a terminal, ask first when that is over the
    thresholds (pipeline/cost.py; ``--yes`` skips the question, CI is never asked).

    Raises:
        ConfigError: the question was answered no (exit 2, nothing sent).
    """
    if plan is None:  # a replay sends nothing
        return
    import os

    from promptcanary.errors import ConfigError
    from promptcanary.pipeline.cost import ConfirmThresholds, needs_confirmation

    ask = (
        not yes
        and needs_confirmation(plan, ConfirmThresholds.from_env(os.environ))
        and interactive()
    )
    if quiet and not ask:
        return
    sys.stderr.write(plan.line() + "\n")
    if not ask:
        return
    sys.stderr.write("Send them? [y/N] ")
    sys.stderr.flush()
    answer = sys.stdin.readline().strip().lower()
    if answer in ("y", "yes"):
        return
    raise ConfigError(
        "not confirmed: nothing was sent",
        field="--yes",
        hint="Pass --yes (-y) to send without asking; PROMPTCANARY_CONFIRM_REQUESTS and "
        "PROMPTCANARY_CONFIRM_USD move the thresholds (1000 requests, $1).",
    )
