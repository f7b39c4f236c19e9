"""What a command line or the Action's inputs change for one run, validated once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from promptcanary.errors import (
    ConfigError,
)

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.run.options import RunOverrides


#: compare()'s keywords that a command line or the Action may set for one comparison: each a
#: field of :class:`Overrides` and a setting of canary.yaml of the same name.
THRESHOLDS = (
    "regression_threshold",
    "improvement_threshold",
    "alpha",
    "min_effect",
    "max_error_rate",
)


@dataclass(frozen=True)
class Overrides:
    """What a command line or the Action's inputs change for one run; None keeps canary.yaml's."""

    model: str | None = None
    """LiteLLM model string; None: the replayed run's model, else the suite's ``provider:``."""
    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | Literal["none"] | None = None
    """Seed override; ``"none"``: send no seed; None: canary.yaml's, else the provider's (42)."""
    samples: int | str | None = None
    """Times each prompt is sent, or ``"auto"`` (adaptive checks); None: the suite's setting (a
    replay: as many as were saved)."""
    baseline_samples: int | None = None
    """Samples per prompt when recording a baseline with ``samples: auto``; None: the suite's."""
    concurrency: int | None = None
    """Requests in flight at once; None: the suite's ``concurrency``."""
    workers: int | None = None
    """Processes that share a fixed-sample run (see core/run/workers.py); None: one."""
    max_cost_usd: float | None = None
    """Stop sending once the run has cost this much (USD); None: the suite's cap, if any."""
    api_base: str | None = None
    """Base URL of an OpenAI-compatible server (LiteLLM's ``api_base``)."""
    replay: Path | None = None
    """Answer from this saved run (or baseline file) instead of calling a model."""
    resume: Path | None = None
    """Answer from this interrupted run what it answered, and ask the model only the rest."""
    batch: bool = False
    """Send the suite as one provider batch job (about half the price, answers within 24 h)
    instead of request by request; see :func:`measure_batch`."""
    batch_timeout_s: float = 24 * 3600.0
    """Stop waiting for the batch after this long (it keeps running at the provider)."""
    batch_poll_s: float = 10.0
    """First wait between batch status checks (grows by half each poll, up to 5 min)."""
    batch_id: str | None = None
    """Fetch this earlier batch instead of submitting a new one (implies ``batch``)."""
    # The comparison's settings (:data:`THRESHOLDS`); None: canary.yaml's, whose documentation
    # (docs/verdicts.md) says what each decides.
    regression_threshold: float | None = None
    improvement_threshold: float | None = None
    alpha: float | None = None
    """The false discovery rate of the multi-sample tests, between 0 and 1 exclusive."""
    min_effect: float | None = None
    max_error_rate: float | None = None

    def __post_init__(self) -> None:
        for name in THRESHOLDS:
            value = getattr(self, name)
            if name == "alpha":  # a level, not a share: 0 and 1 make no test (checked below)
                continue
            if value is not None and not 0.0 <= value <= 1.0:
                raise ConfigError(f"must be between 0 and 1 (got {value})", field=name)
        if self.batch_timeout_s <= 0 or self.batch_poll_s <= 0:
            raise ConfigError("must be a positive duration", field="--batch-timeout")
        if (self.batch or self.batch_id) and self.max_cost_usd is not None:
            raise ConfigError(
                "a batch is sent whole: a spending cap cannot stop it part-way",
                field="--max-cost",
                hint="Drop --max-cost and size the batch beforehand (prompts × samples; "
                "`promptcanary plan`), or run without --batch.",
            )
        if (self.batch or self.batch_id) and self.replay is not None:
            raise ConfigError(
                "--batch sends requests; --replay sends none",
                field="--batch",
                hint="Use one of the two.",
            )
        if self.resume is not None and (self.replay is not None or self.batch or self.batch_id):
            other = "--replay" if self.replay is not None else "--batch"
            raise ConfigError(
                f"cannot be combined with {other}: a resumed run asks the model, request by "
                "request, only what the interrupted run did not answer",
                field="--resume",
                hint="Use one of the two.",
            )
        if self.alpha is not None and not 0.0 < self.alpha < 1.0:
            raise ConfigError(
                f"must be between 0 and 1, exclusive (got {self.alpha})", field="alpha"
            )

    def run_settings(self, samples: int | None = None) -> RunOverrides:
        """The suite settings these overrides replace in a run, ``CanarySuite.run()``'s keywords;
        ``samples`` as the caller decided it (``samples`` here may be "auto", which each way of
        measuring resolves for itself)."""
        return {
            "samples": samples,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "concurrency": self.concurrency,
            "max_cost_usd": self.max_cost_usd,
        }

    def thresholds(self, settings: SuiteSettings) -> dict[str, float]:
        """compare()'s keyword arguments: each override, else the suite's setting."""

        mine = {name: getattr(self, name) for name in THRESHOLDS}
        return {
            name: getattr(settings, name) if value is None else value
            for name, value in mine.items()
        }

    def error_limit(self, settings: SuiteSettings) -> float:
        """The error rate above which a run is not evidence about the model."""
        return settings.max_error_rate if self.max_error_rate is None else self.max_error_rate


def parse_samples(value: int | str | None, *, field: str = "samples") -> int | str | None:
    """A samples setting: ``"auto"`` or an integer from 1 to 1000 (None: not given).

    Raises:
        ConfigError: anything else, naming ``field``.
    """
    if value is None or (
        isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 1000
    ):
        return value
    text = str(value).strip().lower()
    if text == "auto":
        return "auto"
    if text.isdigit() and 1 <= int(text) <= 1000:
        return int(text)
    raise ConfigError(f'must be "auto" or an integer from 1 to 1000 (got {value!r})', field=field)


def parse_duration(value: str | float, *, field: str) -> float:
    """Seconds from ``90``, ``90s``, ``30m`` or ``24h``.

    Raises:
        ConfigError: anything else, or a duration that is not positive, naming ``field``.
    """
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        seconds = float(value)
    else:
        text = str(value).strip().lower()
        unit = {"s": 1.0, "m": 60.0, "h": 3600.0}.get(text[-1:])
        number = text[:-1] if unit is not None else text
        try:
            seconds = float(number) * (unit or 1.0)
        except ValueError:
            seconds = -1.0
    if not seconds > 0 or seconds != seconds or seconds == float("inf"):
        raise ConfigError(
            f"must be a positive duration such as 90s, 30m or 24h (got {value!r})", field=field
        )
    return seconds
