"""promptfoo's first hour on the same suite, for loop_speed.py to time beside PromptCanary's.

Issue 29 asks that PromptCanary's first hour beat promptfoo's. On this machine one command's speed
changes by tens of percent from hour to hour, so a figure of promptfoo's taken on another day says
nothing about one of ours taken today: loop_speed.py runs both loops alternately, in one run, on
the same five prompts against the same loopback server.

promptfoo's loop, as its README starts a new user: ``promptfoo init --no-interactive`` in a new
folder, then the same five prompts and checks as PromptCanary's canary.yaml (valid JSON for the
JSON prompts, the expected keywords, no "As an AI language model") in promptfooconfig.yaml, then
``promptfoo eval --no-cache --repeat 30 -j 8`` (150 requests at PromptCanary's default
concurrency; ``--no-cache``: a second eval would otherwise answer from its cache without asking
the model) until the first line of its result table. Its telemetry and update check are off (no
network here), and its database lives in one folder for every run (kept warm, as Python's
compiled modules are for ours: a new user pays for creating it once, not counted).

Install it with ``npm install --prefix /tmp/promptfoo promptfoo@0.121`` and pass
``--promptfoo /tmp/promptfoo/node_modules/.bin/promptfoo`` to loop_speed.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import time
from pathlib import Path

from first_table import children_cpu, seconds_to_table

#: The five prompts of loop_speed.py's canary.yaml (the two `promptcanary init` writes and three
#: more) with the checks its probes make, in promptfoo's assertion types.
PROMPTS: list[tuple[str, list[dict[str, object]]]] = [
    (
        'Return only JSON: {"city": "Paris", "country": "France"}',
        [{"type": "is-json"}, {"type": "icontains-all", "value": ["Paris", "France"]}],
    ),
    (
        "What is the capital of France? Answer in one word.",
        [{"type": "icontains", "value": "Paris"}],
    ),
    ("Name a primary colour. One word.", []),
    ("What is 12 times 12? Answer with the number.", []),
    ('Return only JSON: {"ok": true}', []),
]


def config(url: str) -> str:
    """promptfooconfig.yaml for the five prompts against ``url`` (JSON is valid YAML)."""
    return json.dumps(
        {
            "description": "loop_speed",
            "prompts": ["{{q}}"],
            "providers": [{"id": "openai:chat:gpt-4o-mini", "config": {"apiBaseUrl": url}}],
            "defaultTest": {
                "assert": [{"type": "not-icontains", "value": "As an AI language model"}]
            },
            "tests": [{"vars": {"q": text}, "assert": checks} for text, checks in PROMPTS],
        },
        indent=2,
    )


def environment(state: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "PROMPTFOO_"))}
    env.update(
        OPENAI_API_KEY="sk-loopback",
        NO_COLOR="1",
        PROMPTFOO_DISABLE_TELEMETRY="1",
        PROMPTFOO_DISABLE_UPDATE="1",
        PROMPTFOO_CONFIG_DIR=str(state),
    )
    return env


def one_loop(exe: str, url: str, state: Path) -> tuple[float, float, float]:
    """(init, eval to the first table line) seconds in a new folder, and the CPU seconds both
    commands used (every thread, to the end of each process)."""
    env = environment(state)
    cpu = children_cpu()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        started = time.perf_counter()
        subprocess.run(
            [exe, "init", "--no-interactive"], cwd=folder, env=env, capture_output=True, check=True
        )
        init_s = time.perf_counter() - started
        (folder / "promptfooconfig.yaml").write_text(config(url), encoding="utf-8")
        cmd = [exe, "eval", "--no-cache", "--repeat", "30", "-j", "8", "--no-progress-bar"]
        # The table's top-left corner (after a colour code: promptfoo colours its borders even
        # with NO_COLOR set).
        table = seconds_to_table(cmd, folder, env, lambda line: "┌".encode() in line, "promptfoo")
    return init_s, table, children_cpu() - cpu


def version(exe: str) -> str:
    done = subprocess.run(
        [exe, "--version"], env=environment(Path(tempfile.gettempdir())), capture_output=True
    )
    lines = done.stdout.decode(errors="replace").split()
    return lines[-1] if lines else "?"
