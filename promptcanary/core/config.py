"""Reading canary.yaml: YAML with line numbers, and clear errors that name file, line and field.

The suite's own options (``provider``, ``samples``, ``concurrency``...) are collected in
:class:`SuiteSettings`; the CLI and the Action use them as defaults under their own flags.
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from promptcanary.errors import ConfigError, SuiteNotFoundError, validation_parts

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryPrompt
    from promptcanary.core.probes.base import BaseProbe


# Defaults that the settings model and the verdict engine share. They live with the settings
# (core/verdict/adaptive.py's AdaptivePolicy imports them from here, never the other way round);
# the adaptive ones were chosen from benchmarks/verdicts.py --adaptive (docs/benchmarks.md).
DEFAULT_BASELINE_SAMPLES = 30
DEFAULT_SCREENING = 3
DEFAULT_BATCH = 10
DEFAULT_CAP = 50
DEFAULT_SCREEN_ALPHA = 0.3
DEFAULT_FUTILITY = 0.5
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_EFFECT = 0.1


class Price(BaseModel):
    """What a model costs, in USD per million tokens (canary.yaml ``price:``), for a model
    LiteLLM has no price for (a local server, a new or private model); it replaces LiteLLM's."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    input_per_million: float = Field(ge=0)
    """USD per million input (prompt) tokens."""
    output_per_million: float = Field(ge=0)
    """USD per million output (completion) tokens."""

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for these tokens."""
        return (
            prompt_tokens * self.input_per_million + completion_tokens * self.output_per_million
        ) / 1e6


class SuiteSettings(BaseModel):
    """Run and comparison defaults a canary.yaml may set next to its prompts and probes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    provider: str | None = None
    """LiteLLM model string used when none is given on the command line."""
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    """Sampling temperature override."""
    max_tokens: int | None = Field(default=None, gt=0)
    """max_tokens override."""
    seed: int | Literal["none"] | None = None
    """Seed override: a number; ``none`` to send no seed at all; unset (or ``null``): no
    override, the provider's own (42). A model that does not accept a seed is sent none."""
    samples: int | Literal["auto"] = "auto"
    """How many times each prompt is sent in a check run: ``auto`` (default) screens every
    prompt with ``screening_samples`` and confirms only the pairs that look changed (see
    docs/verdicts.md); an integer sends every prompt that many times (the fixed rule). A plain
    ``run`` with ``auto`` and nothing to compare sends each prompt once."""
    baseline_samples: int = Field(default=DEFAULT_BASELINE_SAMPLES, ge=1, le=1000)
    """Samples per prompt when a baseline is recorded with ``samples: auto`` (paid once per
    baseline, not on every check)."""
    screening_samples: int = Field(default=DEFAULT_SCREENING, ge=2, le=100)
    """``samples: auto``: samples per prompt in the screening phase."""
    confirmation_batch: int = Field(default=DEFAULT_BATCH, ge=1, le=1000)
    """``samples: auto``: confirmation samples drawn per round for each prompt still open."""
    confirmation_cap: int = Field(default=DEFAULT_CAP, ge=2, le=1000)
    """``samples: auto``: most confirmation samples per prompt."""
    screen_alpha: float = Field(default=DEFAULT_SCREEN_ALPHA, gt=0.0, lt=1.0)
    """``samples: auto``: a gain seen in screening goes to confirmation when its p-value is at
    most this (a drop of at least ``min_effect`` always goes; the verdict is made on fresh
    samples)."""
    futility: float = Field(default=DEFAULT_FUTILITY, gt=0.0, le=1.0)
    """``samples: auto``: confirmation stops early once its p-value is above this (1: never)."""
    concurrency: int = Field(default=8, ge=1, le=512)
    """Requests in flight at once."""
    max_cost_usd: float | None = Field(default=None, gt=0)
    """Stop issuing requests once this much has been spent. A model without a known price (in
    LiteLLM's map or ``price:``) is refused: the limit could not be enforced."""
    price: Price | None = None
    """The model's price per million tokens, used instead of LiteLLM's (which has none for
    local servers and many new models): ``{input_per_million: 0.15, output_per_million: 0.6}``."""
    timeout: float = Field(default=60.0, gt=0)
    """Per-request timeout in seconds."""
    max_attempts: int = Field(default=4, ge=1, le=20)
    """Attempts per request, retries included."""
    stop_after_connection_failures: int = Field(default=5, ge=0, le=1000)
    """Stop the run when this many attempts in a row could not connect and nothing has answered
    (a server that is not there); 0: never, retry every request as usual."""
    max_error_rate: float = Field(default=0.2, ge=0.0, le=1.0)
    """Above this error rate a comparison is inconclusive."""
    regression_threshold: float = Field(default=0.05, ge=0.0, le=1.0)
    """Minimum score drop for a single-sample regression (0: any drop; never an unchanged pair)."""
    improvement_threshold: float = Field(default=0.05, ge=0.0, le=1.0)
    """Minimum score gain for a single-sample improvement (0: any gain; never an unchanged pair)."""
    alpha: float = Field(default=DEFAULT_ALPHA, gt=0.0, lt=1.0)
    """False discovery rate for multi-sample tests."""
    min_effect: float = Field(default=DEFAULT_MIN_EFFECT, ge=0.0, le=1.0)
    """Minimum drop in pass rate / mean score for a multi-sample regression."""

    @field_validator("provider")
    @classmethod
    def _provider_not_blank(cls, v: str | None) -> str | None:
        # The same rule as ProviderConfig.model_id, reported here with the file's line number.
        if v is not None and not v.strip():
            raise ValueError(
                "must not be empty; give a LiteLLM model string such as openai/gpt-4o-mini"
            )
        return v.strip() if v is not None else None

    @field_validator("seed", mode="before")
    @classmethod
    def _seed(cls, value: Any) -> Any:
        from promptcanary.core.models.seed import parse_seed

        return parse_seed(value)

    @field_validator("samples", mode="before")
    @classmethod
    def _samples(cls, value: Any) -> Any:
        # One clear message instead of pydantic's two (one per member of the union).
        if isinstance(value, str) and value.strip().lower() == "auto":
            return "auto"
        if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000:
            return value
        raise ValueError('must be "auto" or an integer from 1 to 1000')

    @model_validator(mode="after")
    def _futility_above_alpha(self) -> SuiteSettings:
        if self.futility <= self.alpha:
            raise ValueError(
                f"futility ({self.futility:g}) must be above alpha ({self.alpha:g}): a pair "
                "stopped early must be one that could not have been flagged"
            )
        return self

    @property
    def adaptive(self) -> bool:
        """True when check runs use the adaptive policy (``samples: auto``)."""
        return self.samples == "auto"

    @property
    def fixed_samples(self) -> int:
        """Samples per prompt for a plain run: the integer setting, 1 with ``auto``."""
        return self.samples if isinstance(self.samples, int) else 1


#: Top-level keys of canary.yaml besides the settings.
SUITE_KEYS = ("name", "description", "tags", "default_system_prompt", "probes", "prompts")
SETTINGS_KEYS = tuple(SuiteSettings.model_fields)
PROMPT_KEYS = (
    "id",
    "text",
    "tags",
    "description",
    "system_prompt",
    "expected_keywords",
    "tools",
    "metadata",
    "probes",
    "skip_probes",
    "behaviour",
)
#: ``behaviour:`` values of a prompt: compare its answers with the baseline's, or not.
BEHAVIOUR_VALUES = ("compare", "ignore")
#: Prompt keys resolved against the suite's probes (core/scoping.py), not by CanaryPrompt.
PROMPT_SCOPE_KEYS = ("probes", "skip_probes")


def line_of(node: Any, key: str | None = None) -> int | None:
    """Line of a loaded mapping (or of one of its keys), when known."""
    from promptcanary.core.yaml_lines import LineDict

    if isinstance(node, LineDict):
        if key is not None and key in node.key_lines:
            return node.key_lines[key]
        return node.line
    return None


def load_yaml_file(path: str | Path) -> Any:
    """Parse a YAML file with line numbers; errors become :class:`ConfigError` naming the file."""
    from promptcanary.files import MAX_YAML_BYTES, read_text

    p = Path(path)
    if not p.exists():
        raise SuiteNotFoundError(
            "file not found" + ("" if p.is_absolute() else f" (looked in {Path.cwd()})"),
            file=p,
            hint="Create one with `promptcanary init`, or pass the right path with -c/--config.",
        )
    text = read_text(
        p,
        what="suite file",
        limit=MAX_YAML_BYTES,
        error=ConfigError,
        hint="Create one with `promptcanary init`, or pass the right path with -c/--config.",
    )
    # PyYAML is imported here, not at module level: commands that only read JSON never need it.
    import yaml

    from promptcanary.core.yaml_lines import load_with_lines

    try:
        return load_with_lines(text)
    except ConfigError as exc:
        raise exc.relocate(file=p) from exc
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else None
        tab = _tab_column(text, exc.problem_mark)
        if tab is not None:
            raise ConfigError(
                f"invalid YAML: a tab character (column {tab}); YAML indents with spaces only",
                file=p,
                line=line,
                hint="Replace the tab with spaces (most editors: convert indentation to spaces).",
            ) from exc
        raise ConfigError(
            f"invalid YAML: {exc.problem or exc}", file=p, line=line, hint="Fix the YAML syntax."
        ) from exc
    except yaml.YAMLError as exc:
        raise ConfigError(f"invalid YAML: {exc}", file=p) from exc


def _tab_column(text: str, mark: Any) -> int | None:
    """1-based column of the tab PyYAML stumbled on (at its mark, or in the indentation of that
    line), else None. PyYAML's own words for it ("found character that cannot start any token")
    do not say it is a tab, which is invisible in most editors."""
    if mark is None:
        return None
    lines = text.splitlines()
    if not 0 <= mark.line < len(lines):
        return None
    row = lines[mark.line]
    if 0 <= mark.column < len(row) and row[mark.column] == "\t":
        return int(mark.column) + 1
    indent = row[: len(row) - len(row.lstrip(" \t"))]
    return indent.index("\t") + 1 if "\t" in indent else None


def unknown_key_error(
    key: str, allowed: tuple[str, ...], *, where: str, line: int | None
) -> ConfigError:
    """A ConfigError for an unknown key, with a did-you-mean suggestion."""
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"Did you mean '{close[0]}'?" if close else f"Allowed keys: {', '.join(allowed)}."
    return ConfigError(f"unknown key '{key}' in {where}", line=line, field=key, hint=hint)


def parse_settings(data: dict[str, Any]) -> SuiteSettings:
    """Build :class:`SuiteSettings` from the top-level mapping (settings keys only)."""
    values = {k: data[k] for k in SETTINGS_KEYS if k in data}
    try:
        return SuiteSettings.model_validate(values)
    except ValidationError as exc:
        loc, msg, value = validation_parts(exc)
        key = loc[0] if loc else "futility"
        shown = value if loc else data.get(key)
        raise ConfigError(
            f"{msg} (got {shown!r})",
            line=line_of(data, key),
            field=key,
        ) from exc


def parse_header(config: Any) -> tuple[str, SuiteSettings]:
    """Check the top level of a canary.yaml mapping; return the suite name and its settings."""
    if not isinstance(config, dict):
        raise ConfigError(
            "the file must be a YAML mapping with at least 'name', 'probes' and 'prompts'",
            hint="See `promptcanary init` for a commented example.",
        )
    allowed = SUITE_KEYS + SETTINGS_KEYS
    for key in config:
        if key not in allowed:
            raise unknown_key_error(
                str(key), allowed, where="the suite", line=line_of(config, str(key))
            )
    name = config.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(
            "a non-empty 'name' is required (baselines are filed under it)",
            line=line_of(config, "name"),
            field="name",
        )
    return name.strip(), parse_settings(config)


def load_header(path: str | Path) -> tuple[str, SuiteSettings]:
    """The suite name and settings of a canary.yaml, without building its probes and prompts.

    For commands that compare saved runs and only need the suite's name and thresholds.
    """
    try:
        return parse_header(load_yaml_file(path))
    except ConfigError as exc:
        raise exc.relocate(file=path) from exc


def parse_probes(config: dict[str, Any]) -> tuple[list[BaseProbe], list[str | None]]:
    """The probes of a canary.yaml mapping, built and validated, with their explicit ids.

    Their scoping keys (``prompts:``, ``tags:``) are read by :mod:`promptcanary.core.scoping`.
    The list may be left out when prompts bring their own probes (``probes:`` on a prompt).
    """
    raw = config.get("probes")
    if raw is None or raw == []:
        prompts = config.get("prompts")
        if isinstance(prompts, list) and any(
            isinstance(p, dict) and p.get("probes") for p in prompts
        ):
            return [], []
    raw = _required_list(config, "probes", "Add at least one probe, e.g. `- type: json_validity`.")
    probes: list[BaseProbe] = []
    ids: list[str | None] = []
    for index, item in enumerate(raw):
        line = line_of(item) or line_of(config, "probes")
        probe, explicit_id = build_probe_entry(item, f"probes[{index}]", line, scoped=True)
        probes.append(probe)
        ids.append(explicit_id)
    return probes, ids


#: Keys of a suite probe entry that say where it applies (see core/scoping.py), not parameters.
PROBE_SCOPE_KEYS = ("prompts", "tags")


def build_probe_entry(
    item: Any, where: str, line: int | None, *, scoped: bool = False
) -> tuple[BaseProbe, str | None]:
    """One probe entry (``- json_validity`` or ``{type: ..., id: ..., params...}``), built.

    ``scoped``: the entry may carry scoping keys, which are left out of the parameters.
    """
    from promptcanary.core.probes.base import build_probe

    if isinstance(item, str):
        item = {"type": item}
    if not isinstance(item, dict) or not isinstance(item.get("type"), str):
        raise ConfigError(
            "each probe needs a 'type' (e.g. `- type: json_validity` or `- json_validity`)",
            line=line,
            field=where,
        )
    skip = ("type", "id", *(PROBE_SCOPE_KEYS if scoped else ()))
    params = {k: v for k, v in item.items() if k not in skip}
    explicit_id = item.get("id")
    if explicit_id is not None and (not isinstance(explicit_id, str) or not explicit_id):
        raise ConfigError("'id' must be a non-empty string", line=line, field=f"{where}.id")
    try:
        probe = build_probe(item["type"], params)
    except ConfigError as exc:
        key = exc.field if exc.field and exc.field in item else None
        field = f"{where}.{exc.field}" if exc.field else where
        raise type(exc)(
            exc.detail,
            line=(line_of(item, key) if key else None) or line,
            field=field,
            hint=exc.hint,
        ) from exc
    return probe, explicit_id


def _required_list(config: dict[str, Any], key: str, hint: str) -> list[Any]:
    """``config[key]``, which must be a non-empty list (the hint shows a first entry)."""
    raw = config.get(key)
    if not isinstance(raw, list) or not raw:
        raise ConfigError(
            f"a non-empty list {key!r} is required",
            line=line_of(config, key),
            field=key,
            hint=hint,
        )
    return raw


def parse_prompts(config: dict[str, Any]) -> list[CanaryPrompt]:
    """The prompts of a canary.yaml mapping (shorthand strings accepted)."""
    from promptcanary.core.models import CanaryPrompt

    raw = _required_list(
        config,
        "prompts",
        'Add at least one prompt, e.g. `- text: "What is the capital of France?"`.',
    )
    prompts: list[CanaryPrompt] = []
    for index, item in enumerate(raw):
        where = f"prompts[{index}]"
        line = line_of(item) or line_of(config, "prompts")
        if isinstance(item, str):
            item = {"text": item}
        if not isinstance(item, dict):
            raise ConfigError(
                "each prompt must be a string or a mapping with 'text'", line=line, field=where
            )
        for key in item:
            if key not in PROMPT_KEYS:
                raise unknown_key_error(
                    str(key), PROMPT_KEYS, where=where, line=line_of(item, str(key))
                )
        if "behaviour" in item and item["behaviour"] not in BEHAVIOUR_VALUES:
            raise ConfigError(
                f"must be one of {', '.join(BEHAVIOUR_VALUES)} (got {item['behaviour']!r})",
                line=line_of(item, "behaviour") or line,
                field=f"{where}.behaviour",
                hint="Use `behaviour: ignore` on a prompt whose answers are meant to vary "
                "(creative writing): its answers are then never tested for a behaviour change.",
            )
        try:
            fields = {k: v for k, v in item.items() if k not in PROMPT_SCOPE_KEYS}
            prompts.append(CanaryPrompt.model_validate(fields))
        except ValidationError as exc:
            loc, msg, _ = validation_parts(exc)
            key = loc[0] if loc else "text"
            raise ConfigError(
                msg,
                line=line_of(item, key) or line,
                field=f"{where}.{key}",
            ) from exc
    return prompts
