"""Docker entrypoint of the PromptCanary GitHub Action (see action.yml).

``PROMPTCANARY_WARMUP=1`` imports LiteLLM in a background thread from the start, while the main
thread reads the inputs, the event, the suite and the baselines. Off by default: measured with
benchmarks/action_warmup.py it saved nothing (docs/benchmarks.md, "Image") — the import is
CPU-bound Python and the GIL runs it one thread at a time, and the main thread has only about
0.5 s of its own work before its first model call. A replayed run never calls a model: no warm-up.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

# LiteLLM must not fetch its price map from the network at import time.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _warm_up_litellm() -> None:
    """``import litellm``, ignoring every failure: the real import reports it, where it happens."""
    # Nothing is printed: an error message could quote the environment (provider keys).
    with contextlib.suppress(BaseException):
        import litellm  # noqa: F401


def start_warm_up(environ: os._Environ[str] | dict[str, str] = os.environ) -> bool:
    """Start the background import when asked for, unless the run is a replay (no model call)."""
    if environ.get("PROMPTCANARY_WARMUP", "0").strip().lower() not in {"1", "true", "yes", "on"}:
        return False
    if (environ.get("INPUT_REPLAY") or "").strip():
        return False
    threading.Thread(target=_warm_up_litellm, name="litellm-warm-up", daemon=True).start()
    return True


if __name__ == "__main__":
    start_warm_up()
    from promptcanary.action.main import main

    sys.exit(main())
