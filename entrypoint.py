"""Docker entrypoint of the PromptCanary GitHub Action (see action.yml).

Importing LiteLLM takes seconds (most of the Action's start-up before its first model call), and
nothing needs it until the first request. So it is imported in a background thread from the
start, while the main thread reads the inputs, the event, the suite and the baselines and asks
GitHub about the pull request; the first model call then finds it (half) loaded. Measured in
docs/benchmarks.md ("Image" section). A replayed run never calls a model: no warm-up then.
``PROMPTCANARY_WARMUP=0`` turns it off.
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
    """Start the background import unless disabled or the run is a replay (no model call)."""
    if environ.get("PROMPTCANARY_WARMUP", "1").strip().lower() in {"0", "false", "no", "off"}:
        return False
    if (environ.get("INPUT_REPLAY") or "").strip():
        return False
    threading.Thread(target=_warm_up_litellm, name="litellm-warm-up", daemon=True).start()
    return True


if __name__ == "__main__":
    start_warm_up()
    from promptcanary.action.main import main

    sys.exit(main())
