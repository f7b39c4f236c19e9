"""What shapes one run besides the suite and the provider: :class:`RunOptions`, and the
progress callback type.

Kept apart from the runner so the suite, the engine and the runner can all depend on it without
depending on each other.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypedDict

from promptcanary.core.run.retry import RetryPolicy
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.core.config import SuiteSettings
    from promptcanary.core.models import CanaryPrompt, ProbeSpec
    from promptcanary.core.probes.base import BaseProbe

__all__ = ["ProgressCallback", "RunOptions", "RunOverrides", "RunnableSuite"]

#: Receives progress events ``(event, data)``: start, done, retry, end (see core/run/progress.py).
ProgressCallback = Callable[[str, dict[str, Any]], None]


class RunnableSuite(Protocol):
    """What running needs from a suite. :class:`~promptcanary.core.suite.CanarySuite` is one;
    core/run depends on this, not on core/suite, which calls into core/run to run itself."""

    name: str
    prompts: list[CanaryPrompt]

    def probes_for(self, prompt: CanaryPrompt) -> list[tuple[BaseProbe, str]]:
        """The probes that run on ``prompt``, with their ids, in suite order."""
        ...

    def probe_specs(self) -> list[ProbeSpec]:
        """Every probe's id, type and parameters, as recorded in a run."""
        ...

    def system_prompt_for(self, prompt: CanaryPrompt) -> str | None:
        """The system prompt sent with ``prompt``."""
        ...


class RunOverrides(TypedDict, total=False):
    """The suite settings one call of ``CanarySuite.run()`` / ``arun()`` may replace; one left
    out or None keeps canary.yaml's (see :meth:`RunOptions.from_settings`)."""

    temperature: float | None
    max_tokens: int | None
    seed: int | Literal["none"] | None
    """``"none"`` sends no seed."""
    concurrency: int | None
    samples: int | None
    max_cost_usd: float | None
    timeout: float | None
    max_attempts: int | None


@dataclass(frozen=True)
class RunOptions:
    """Everything that shapes one run besides the suite and the provider."""

    temperature: float | None = None
    max_tokens: int | None = None
    seed: int | Literal["none"] | None = None
    """Seed override; ``"none"`` sends no seed; None keeps the provider's."""
    show_progress: bool = True
    concurrency: int = 8
    samples: int = 1
    max_cost_usd: float | None = None
    timeout: float = 60.0
    """Per-request timeout in seconds (each attempt)."""
    max_attempts: int = 4
    """Attempts per request, retries included."""
    retry_base_delay: float = 0.5
    """Backoff scale in seconds (the n-th retry waits up to base * 2**(n-1), full jitter)."""
    retry_max_delay: float = 30.0
    """Cap of one backoff wait, in seconds."""
    probe_timeout: float | None = 120.0
    """A probe still running after this many seconds is recorded as errored (None: no limit)."""
    adaptive: bool = True
    """Lower the concurrency on 429 and raise it again after successes (AIMD)."""
    sample_offset: int = 0
    """Index of the first sample (an adaptive run's confirmation rounds continue the numbering,
    so a replay provider answers each sample with its own saved response)."""
    stop_after_connection_failures: int = 5
    """Stop the run when this many attempts in a row could not connect and nothing has answered
    yet (see core/run/breaker.py); 0: never stop for that, retry every request as usual."""
    workers: int = 1
    """Processes that share the run (each with its own event loop and ``concurrency / workers``
    slots; see core/run/workers.py). 1: this process only. Linux only; ignored elsewhere."""

    def __post_init__(self) -> None:
        for name, minimum in (
            ("concurrency", 1),
            ("samples", 1),
            ("max_attempts", 1),
            ("workers", 1),
            ("stop_after_connection_failures", 0),
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or value < minimum:
                raise ConfigError(f"must be an integer >= {minimum}, got {value!r}", field=name)
        if self.max_cost_usd is not None and self.max_cost_usd <= 0:
            raise ConfigError(f"must be > 0, got {self.max_cost_usd!r}", field="max_cost_usd")
        if self.timeout <= 0:
            raise ConfigError(f"must be > 0 seconds, got {self.timeout!r}", field="timeout")

    @classmethod
    def from_settings(cls, settings: SuiteSettings, **overrides: Any) -> RunOptions:
        """Suite settings, with every override that is not None taking precedence."""
        base = cls(
            temperature=settings.temperature,
            max_tokens=settings.max_tokens,
            seed=settings.seed,
            concurrency=settings.concurrency,
            samples=settings.fixed_samples,
            max_cost_usd=settings.max_cost_usd,
            timeout=settings.timeout,
            max_attempts=settings.max_attempts,
            stop_after_connection_failures=settings.stop_after_connection_failures,
        )
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})

    def retry_policy(self) -> RetryPolicy:
        """The retry policy these options describe."""
        return RetryPolicy(
            max_attempts=self.max_attempts,
            base_delay_s=self.retry_base_delay,
            max_delay_s=self.retry_max_delay,
        )
