"""The CLI's error boundary: every failure becomes one clear message and a documented exit code."""

from __future__ import annotations

import os
import sys
import traceback
from typing import Any

from promptcanary.errors import (
    EXIT_INTERNAL,
    EXIT_USAGE,
    PromptCanaryError,
    exit_code_for,
    redact,
)


def print_error(exc: PromptCanaryError) -> None:
    """Print ``exc`` as ``error: <message>`` plus its hint, on stderr."""
    sys.stderr.write(f"error: {exc.message}\n")
    if exc.hint:
        sys.stderr.write(f"hint: {exc.hint}\n")


def run_cli(app: Any, argv: list[str] | None) -> int:
    """Run the typer ``app`` without click's own exit handling and map errors to exit codes."""
    # Standalone mode: click itself reports usage errors (exit 2) and turns typer.Exit into
    # SystemExit; our own errors propagate to here.
    try:
        app(args=argv, prog_name="promptcanary")
    except SystemExit as exc:
        code = exc.code
        if code is None:
            return 0
        return code if isinstance(code, int) else EXIT_USAGE
    except PromptCanaryError as exc:
        print_error(exc)
        return exit_code_for(exc)
    except KeyboardInterrupt:
        sys.stderr.write("Interrupted.\n")
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: say so plainly, without dumping internals by default
        if os.environ.get("PROMPTCANARY_DEBUG"):
            traceback.print_exc()
        sys.stderr.write(
            f"internal error: {type(exc).__name__}: {redact(str(exc))}\n"
            "This is a bug in PromptCanary. Re-run with PROMPTCANARY_DEBUG=1 for details and "
            "please report it.\n"
        )
        return EXIT_INTERNAL
    return 0
