"""`promptcanary init [NAME]`: scaffold canary.yaml, baselines/, .env.example and the GitHub
workflows (the check, promotion by label, and the required check on forks' pull requests)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from promptcanary.errors import EXIT_OK, ConfigError

CANARY_YAML = """\
# PromptCanary suite: prompts sent to the model and probes that score every response.
# Reference: https://github.com/promptcanary/promptcanary-action#canaryyaml-reference
name: {name}
description: "Canary prompts guarding our production LLM features."

# Default model (a LiteLLM model string); `-p` on the command line overrides it.
provider: openai/gpt-4o-mini

# How many times each prompt is sent. `auto` (the default): the baseline is recorded once with
# `baseline_samples` per prompt; each check screens every prompt 3 times and sends more samples
# only where a result looks different, so a drop is confirmed before it fails a check
# (docs/verdicts.md). An integer sends every prompt that many times instead.
samples: auto
baseline_samples: 30
concurrency: 8
# max_cost_usd: 1.00          # stop sending requests once this much was spent

# Probes score responses. `type:` is the probe name; other keys are its parameters. A probe runs
# on every prompt unless scoped: `tags:` or `prompts:` (ids) on a probe limit it to the prompts
# that match; a prompt can add probes of its own (`probes:`) or skip suite-wide ones
# (`skip_probes:`).
probes:
  - type: json_validity
    tags: [json]              # only prompts tagged `json` are expected to answer in JSON
  - type: keyword_presence
    forbidden_keywords: ["As an AI language model"]
  - type: expected_keywords   # uses each prompt's expected_keywords

prompts:
  # Without `id:`, a prompt's id is derived from its text (and system prompt): editing the text
  # makes it a new prompt. Give long-lived prompts an explicit `id:`.
  - text: 'Return only JSON: {{"city": "Paris", "country": "France"}}'
    tags: [json]
    expected_keywords: ["Paris", "France"]
  - text: "What is the capital of France? Answer in one word."
    expected_keywords: ["Paris"]
"""

ENV_EXAMPLE = """\
# Copy to .env and fill in; never commit real keys.
OPENAI_API_KEY=
# ANTHROPIC_API_KEY=
# OPENAI_API_BASE=http://localhost:8000/v1   # any OpenAI-compatible endpoint
"""


#: The workflows written, under the names the promote workflow refers to (`check-workflow`).
WORKFLOWS = ("promptcanary-pr.yml", "promptcanary-promote.yml", "promptcanary-fork.yml")


def _workflow(name: str) -> str:
    # The same files as examples/workflows/ (a test keeps them identical).
    from importlib.resources import files

    return (files("promptcanary.commands") / "templates" / name).read_text(encoding="utf-8")


#: What ``init`` adds to .gitignore, each with the comment saying why, when the line is missing.
_IGNORED = (
    (".env", "# Provider keys for promptcanary (see .env.example)"),
    (".promptcanary/", "# Runs interrupted with Ctrl-C, kept to resume from (docs/runs.md)"),
)


def _gitignore(directory: Path) -> dict[Path, str]:
    """.gitignore with ``.env`` (keys must never be committed) and ``.promptcanary/`` (working
    files) added; other lines are kept."""
    path = directory / ".gitignore"
    try:
        current = path.read_text(encoding="utf-8") if path.is_file() else ""
    except (OSError, UnicodeDecodeError):
        return {}
    present = {line.strip() for line in current.splitlines()}
    added = "".join(f"{why}\n{line}\n" for line, why in _IGNORED if line not in present)
    if not added:
        return {}
    sep = "" if not current or current.endswith("\n") else "\n"
    return {path: f"{current}{sep}{added}"}


def _default_name(directory: Path) -> str:
    base = directory.resolve().name or "my-suite"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-") or "my-suite"


SUITE_README = """\
# {name}: a PromptCanary suite

`canary.yaml` holds the prompts and probes; `baselines/` the known-good runs to compare with.

```bash
export OPENAI_API_KEY=...            # see .env.example
promptcanary run -c {config} --save-baseline   # record the known-good behaviour
promptcanary compare -c {config}               # later: check for drift
```

Commit `canary.yaml` and `baselines/`. The pull-request workflows are in
`.github/workflows/promptcanary-pr.yml`, `promptcanary-promote.yml` and `promptcanary-fork.yml`
(forks' pull requests) at the repository root.
"""

#: The `config:` lines of the workflow template, pointed at a suite in a sub-folder.
_CONFIG_LINE = re.compile(r"^(\s*config:\s*)canary\.yaml\s*$", re.MULTILINE)


def _folder_name(name: str) -> str:
    """NAME as a folder: refuse what would land outside --dir or be unusable as a path."""
    candidate = Path(name)
    if (
        not name.strip()
        or candidate.is_absolute()
        or len(candidate.parts) != 1
        or name in (".", "..")
    ):
        raise ConfigError(
            f"{name!r} is not a plain folder name",
            field="NAME",
            hint="Give a name like my-suite (use --dir to choose where it is created).",
        )
    return name


def run_init(*, name: str | None, directory: Path, force: bool) -> int:
    """Scaffold a suite. Layout (see README, `promptcanary init`):

    - without NAME: canary.yaml, .env.example, baselines/ in ``directory`` (suite named after it);
    - with NAME: those plus README.md in a new folder ``directory/NAME/`` (suite named NAME), as
      promptcanary 0.2 did.

    Either way the workflows go to ``directory/.github/workflows/`` — GitHub reads workflows only
    from the repository root, never from a sub-folder — pointing at the suite's canary.yaml.
    """
    from promptcanary.files import check_writable_dir

    # Every destination is checked before the first file is written: never half a scaffold.
    check_writable_dir(directory, flag="--dir")
    if name is None:
        suite_dir, suite_name, config_path = directory, _default_name(directory), "canary.yaml"
    else:
        folder = _folder_name(name)
        suite_dir, suite_name, config_path = directory / folder, name, f"{folder}/canary.yaml"
    # Paths in the workflow and the hints are relative to the repository folder (--dir).
    workflows = [directory / ".github" / "workflows" / w for w in WORKFLOWS]
    files = {
        suite_dir / "canary.yaml": CANARY_YAML.format(name=json.dumps(suite_name)),
        suite_dir / ".env.example": ENV_EXAMPLE,
        **_gitignore(directory),
        suite_dir / "baselines" / ".gitkeep": "",
    }
    if name is not None:
        files[suite_dir / "README.md"] = SUITE_README.format(name=name, config=config_path)
    for path in workflows:
        files[path] = _CONFIG_LINE.sub(rf"\g<1>{config_path}", _workflow(path.name))
    for path in files:
        for parent in (path.parent, *path.parent.parents):
            if parent == directory:
                break
            if parent.exists() and not parent.is_dir():
                raise ConfigError(f"{parent} is a file, but a folder is needed there", field="init")
        if path.is_dir():
            raise ConfigError(f"{path} is a folder, but a file is needed there", field="init")
    existing = [p for p in files if p.exists() and p.name not in (".gitkeep", ".gitignore")]
    # A second suite (init other-suite) keeps the repository's workflows rather than failing.
    kept = [w for w in workflows if name is not None and w.exists() and not force]
    conflicts = [p for p in existing if p not in kept]
    if conflicts and not force:
        raise ConfigError(
            "already exists: " + ", ".join(str(p) for p in conflicts),
            field="init",
            hint="Pass --force to overwrite.",
        )
    for path, text in files.items():
        if (path.name == ".gitkeep" and path.exists()) or path in kept:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"cannot write {path}: {exc.strerror or exc}", field="init") from exc
        _out(f"created {path}")
    for path in kept:
        _out(
            f"kept {path} (it exists): add a step with `config: {config_path}` to check "
            "this suite too"
        )
    _out(
        "\nNext: set OPENAI_API_KEY, then\n"
        f"  promptcanary run -c {config_path} --save-baseline   # record the known-good behaviour\n"
        f"  promptcanary compare -c {config_path}               # later: check for drift\n"
        "On GitHub: add the OPENAI_API_KEY repository secret; the check runs on every pull "
        "request\nand the label promptcanary:promote accepts a run as the new baseline "
        "(see docs/action.md)."
    )
    return EXIT_OK


def _out(text: str) -> None:
    """Plain lines, as they are: no layout to do, so no rich console (~30 ms of start-up), and a
    path is printed whole and never read as markup (``[x]``) or an emoji code (``:x:``)."""
    sys.stdout.write(text + "\n")
