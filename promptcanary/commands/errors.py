"""The CLI's error boundary: every failure becomes one clear message and a documented exit code."""

from __future__ import annotations

import functools
import os
import sys
import traceback
from pathlib import Path
from typing import Any

from promptcanary.errors import (
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_USAGE,
    ConfigError,
    PromptCanaryError,
    RunInterruptedError,
    exit_code_for,
    redact,
)


def print_error(exc: PromptCanaryError) -> None:
    """Print ``exc`` as ``error: <message>`` plus its hint, on stderr."""
    sys.stderr.write(f"error: {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"hint: {exc.hint}\n")


#: ProviderConfig fields: the command-line flag that sets each, and what it accepts.
_PROVIDER_FLAGS = {
    "model_id": ("--provider", "Pass a LiteLLM model string, e.g. -p openai/gpt-4o-mini."),
    "temperature": ("--temperature", "Use a temperature from 0 to 2 (0 is best for canaries)."),
    "max_tokens": ("--max-tokens", "Use a whole number greater than 0, e.g. 1024."),
    "seed": ("--seed", 'Use a whole number, e.g. 42, or "none" to send no seed.'),
}


def _flag_error(exc: Exception) -> ConfigError | None:
    """A bad --temperature / --max-tokens / --provider value, as a usage error naming the flag.

    These flags reach the model's :class:`~promptcanary.core.models.ProviderConfig` unchanged, and
    its own bounds (temperature 0-2, max_tokens > 0, a non-empty model id) refuse them there with a
    pydantic error; canary.yaml values were checked earlier, with their line numbers.
    """
    from pydantic import ValidationError

    if not isinstance(exc, ValidationError) or exc.title != "ProviderConfig":
        return None
    err = exc.errors()[0]
    field = str(err["loc"][0]) if err["loc"] else ""
    if field not in _PROVIDER_FLAGS:
        return None
    flag, hint = _PROVIDER_FLAGS[field]
    message = str(err["msg"]).removeprefix("Value error, ")
    return ConfigError(f"{message} (got {err.get('input')!r})", field=flag, hint=hint)


def _validation_message(exc: BaseException) -> str | None:
    """One line for a pydantic ValidationError (a value the data models refuse), else None.

    Options are range-checked in cli.py, and files are checked where they are read; this is the
    net under both, so a value a model refuses (a flag passed on into ``ProviderConfig``, say) is
    a usage error that names the field, never "a bug in PromptCanary".
    """
    if type(exc).__name__ != "ValidationError" or not type(exc).__module__.startswith("pydantic"):
        return None
    errors = exc.errors()  # type: ignore[attr-defined]
    if not errors:
        return redact(str(exc).splitlines()[0])
    first = errors[0]
    where = ".".join(str(part) for part in first.get("loc", ())) or "value"
    got = first.get("input")
    shown = f" (got {got!r})" if isinstance(got, (int, float, str, bool)) else ""
    model = getattr(exc, "title", "") or "value"
    return redact(f"invalid {model} field '{where}': {first.get('msg', 'invalid')}{shown}")


def _interruption(exc: BaseException) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt that ``exc`` is, or was raised while handling; None if none."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _say_interrupted(argv: list[str] | None, interrupt: BaseException | None = None) -> int:
    """One line on stderr, no traceback. A live run keeps the answers it had received
    (:class:`RunInterruptedError` says where): the line says how many, the file, and the command
    that resumes. Otherwise nothing of the run or comparison was saved: they write their files
    only once complete."""
    words = list(argv if argv is not None else sys.argv[1:])
    command = next((w for w in words if not w.startswith("-")), "")
    if command not in ("run", "compare"):
        sys.stderr.write("Interrupted.\n")
    elif isinstance(interrupt, RunInterruptedError) and interrupt.path is not None:
        sys.stderr.write(
            redact(
                f"Interrupted: `promptcanary {command}` stopped; kept {interrupt.kept:,} "
                f"answer(s) in {interrupt.path}; resume with: "
                f"{resume_command(words, interrupt.path)}"
            )
            + "\n"
        )
    else:
        sys.stderr.write(f"Interrupted: `promptcanary {command}` stopped; nothing was saved.\n")
    return EXIT_INTERRUPTED


def resume_command(words: list[str], path: Path) -> str:
    """The command line that was interrupted, resuming from ``path`` (an earlier ``--resume``
    replaced: the new file holds its answers too). It is printed, so ``--api-base`` is shown
    without credentials, query or fragment, as everywhere else."""
    import shlex

    from promptcanary.core.run.breaker import display_url

    kept: list[str] = []
    previous = ""
    for word in words:
        if previous == "--resume":
            pass
        elif previous == "--api-base":
            kept.append(display_url(word))
        elif word.startswith("--api-base="):
            kept.append("--api-base=" + display_url(word.removeprefix("--api-base=")))
        elif word != "--resume" and not word.startswith("--resume="):
            kept.append(word)
        previous = word
    return shlex.join(["promptcanary", *kept, "--resume", str(path)])


@functools.cache
def _command(app: Any) -> Any:
    """The click command typer makes of ``app``, made once per process: typer reads every
    command's signature to build it (~25 ms), which ``app()`` would do again on each call (the
    tests run the CLI in process hundreds of times)."""
    import typer.main

    command = typer.main.get_command(app)
    _full_descriptions(command)
    return command


def _full_descriptions(command: Any) -> None:
    """List each command with the whole first paragraph of its help in ``--help``: click cuts
    what it derives to the width left over (45 characters), mid-sentence."""
    for sub in getattr(command, "commands", {}).values():
        if sub.help and not sub.short_help:
            sub.short_help = " ".join(sub.help.split("\n\n")[0].split())
        _full_descriptions(sub)


def run_cli(app: Any, argv: list[str] | None) -> int:
    """Run the typer ``app`` without click's own exit handling and map errors to exit codes."""
    # Standalone mode: click itself reports usage errors (exit 2) and turns typer.Exit into
    # SystemExit; our own errors propagate to here (so typer's pretty tracebacks never show).
    try:
        _command(app)(args=argv, prog_name="promptcanary")
    except SystemExit as exc:
        interrupt = _interruption(exc)
        if interrupt is not None:  # typer turns Ctrl-C into a silent exit 130
            return _say_interrupted(argv, interrupt)
        code = exc.code
        if code is None:
            return 0
        return code if isinstance(code, int) else EXIT_USAGE
    except RunInterruptedError as exc:  # a KeyboardInterrupt too, with the answers kept
        return _say_interrupted(argv, exc)
    except PromptCanaryError as exc:
        print_error(exc)
        return exit_code_for(exc)
    except KeyboardInterrupt:
        return _say_interrupted(argv)
    except BrokenPipeError:
        return 0
    except RecursionError:  # data nested deeper than any limit we check reached a recursive step
        sys.stderr.write(
            "error: the input is nested too deeply to process.\n"
            "hint: See docs/limits.md for the limits on suites, runs and baselines.\n"
        )
        return EXIT_USAGE
    except Exception as exc:  # a bug: say so plainly, without dumping internals by default
        usage = _flag_error(exc)
        if usage is not None:
            print_error(usage)
            return exit_code_for(usage)
        message = _validation_message(exc)
        if message is not None:
            sys.stderr.write(f"error: {message}\n")
            return EXIT_USAGE
        if os.environ.get("PROMPTCANARY_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {redact(str(exc))}\n"
            "This is a bug in PromptCanary. Re-run with PROMPTCANARY_DEBUG=1 for details and "
            "please report it.\n"
        )
        return EXIT_INTERNAL
    return 0
