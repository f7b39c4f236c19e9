"""`promptcanary init`: scaffold canary.yaml, baselines/, .env.example and a GitHub workflow."""

from __future__ import annotations

import json
import re
from pathlib import Path

from promptcanary.commands.common import stdout_console
from promptcanary.errors import EXIT_OK, ConfigError

CANARY_YAML = """\
# PromptCanary suite: prompts sent to the model and probes that score every response.
# Reference: https://github.com/promptcanary/promptcanary#canaryyaml-reference
name: {name}
description: "Canary prompts guarding our production LLM features."

# Default model (a LiteLLM model string); `-p` on the command line overrides it.
provider: openai/gpt-4o-mini

# Send each prompt several times to get statistically sound verdicts (see docs/verdicts.md).
samples: 1
concurrency: 8
# max_cost_usd: 1.00          # stop sending requests once this much was spent

# Every probe runs on every response. `type:` is the probe name; other keys are its parameters.
probes:
  - type: json_validity
  - type: keyword_presence
    forbidden_keywords: ["As an AI language model"]
  - type: expected_keywords   # uses each prompt's expected_keywords

prompts:
  # Without `id:`, a prompt's id is derived from its text, so it stays stable across runs.
  - text: 'Return only JSON: {{"city": "Paris", "country": "France"}}'
  - text: "What is the capital of France? Answer in one word."
    expected_keywords: ["Paris"]
"""

ENV_EXAMPLE = """\
# Copy to .env and fill in; never commit real keys.
OPENAI_API_KEY=
# ANTHROPIC_API_KEY=
# OPENAI_API_BASE=http://localhost:8000/v1   # any OpenAI-compatible endpoint
"""


def _workflow() -> str:
    # The same file as examples/workflows/promptcanary-pr.yml (a test keeps them identical).
    from importlib.resources import files

    return (files("promptcanary.commands") / "templates" / "promptcanary-pr.yml").read_text(
        encoding="utf-8"
    )


def _default_name(directory: Path) -> str:
    base = directory.resolve().name or "my-suite"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-") or "my-suite"


def run_init(*, name: str | None, directory: Path, force: bool) -> int:
    from promptcanary.files import check_writable_dir

    # Every destination is checked before the first file is written: never half a scaffold.
    check_writable_dir(directory, flag="--dir")
    suite_name = name or _default_name(directory)
    files = {
        directory / "canary.yaml": CANARY_YAML.format(name=json.dumps(suite_name)),
        directory / ".env.example": ENV_EXAMPLE,
        directory / ".github" / "workflows" / "promptcanary.yml": _workflow(),
        directory / "baselines" / ".gitkeep": "",
    }
    for path in files:
        for folder in (path.parent, *path.parent.parents):
            if folder == directory:
                break
            if folder.exists() and not folder.is_dir():
                raise ConfigError(f"{folder} is a file, but a folder is needed there", field="init")
        if path.is_dir():
            raise ConfigError(f"{path} is a folder, but a file is needed there", field="init")
    existing = [p for p in files if p.exists() and p.name != ".gitkeep"]
    if existing and not force:
        raise ConfigError(
            "already exists: " + ", ".join(str(p) for p in existing),
            field="init",
            hint="Pass --force to overwrite.",
        )
    console = stdout_console()
    for path, text in files.items():
        if path.name == ".gitkeep" and path.exists():
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}", field="init") from exc
        console.print(f"created {path}")
    console.print(
        "\nNext: set OPENAI_API_KEY, then\n"
        "  promptcanary run -c canary.yaml --save-baseline   # record the known-good behaviour\n"
        "  promptcanary compare -c canary.yaml               # later: check for drift"
    )
    return EXIT_OK
