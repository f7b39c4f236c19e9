"""CanarySuite: a named set of prompts and probes, loaded from canary.yaml, that runs against a
provider and produces a :class:`CanaryRunResult`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from promptcanary.core.config import (
    SETTINGS_KEYS,
    SuiteSettings,
    line_of,
    load_yaml_file,
    parse_header,
    parse_probes,
    parse_prompts,
)
from promptcanary.core.models import CanaryPrompt, CanaryRunResult, ProbeSpec
from promptcanary.core.probes.base import BaseProbe
from promptcanary.core.scoping import (
    EVERYWHERE,
    ProbeScope,
    applies,
    assign_probe_ids,
    derived_id,
    resolve,
)
from promptcanary.core.text import clip
from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from promptcanary.core.run.options import ProgressCallback, RunOptions, RunOverrides
    from promptcanary.providers.base import BaseLLMProvider


class CanarySuite:
    """Holds a collection of prompts and probes, and drives the canary run.

    Args:
        name: Human-readable name for this suite (baselines are filed under it).
        prompts: List of :class:`CanaryPrompt` objects.
        probes: List of :class:`BaseProbe` instances (each runs on the prompts its scope and
            the prompts' own ``probes``/``skip_probes`` give it; see :meth:`probes_for`).
        description: Optional description shown in reports.
        tags: Optional tags for categorisation.
        default_system_prompt: System prompt for prompts that set none.
        settings: Run/compare defaults (samples, concurrency, provider...), usually from YAML.
        probe_ids: Explicit ids for the probes (same order); None entries are derived.
        probe_scopes: Where each probe applies (same order); None or omitted: everywhere.

    Example::

        suite = CanarySuite(
            name="production-agent",
            prompts=[CanaryPrompt(text="Return JSON: {name: 'Alice', age: 30}")],
            probes=[JsonValidityProbe(), StepByStepProbe(expect_steps=False)],
        )
        result = suite.run(LiteLLMProvider("openai/gpt-4o-mini"))
        print(result.overall_score)
    """

    def __init__(
        self,
        name: str,
        prompts: list[CanaryPrompt],
        probes: list[BaseProbe],
        *,
        description: str = "",
        tags: list[str] | None = None,
        default_system_prompt: str | None = None,
        settings: SuiteSettings | None = None,
        probe_ids: list[str | None] | None = None,
        probe_scopes: list[ProbeScope | None] | None = None,
    ) -> None:
        if not prompts:
            raise ValueError("CanarySuite requires at least one prompt.")
        if not probes:
            raise ValueError("CanarySuite requires at least one probe.")
        if not isinstance(name, str) or not name.strip():
            raise ValueError("CanarySuite requires a non-empty name.")

        self.name = name
        self.prompts = list(prompts)
        self.probes = list(probes)
        self.description = description
        self.tags = tags or []
        self.default_system_prompt = default_system_prompt
        self.settings = settings or SuiteSettings()
        _check_unique_prompt_ids(self.prompts)
        self.probe_ids = assign_probe_ids(self.probes, probe_ids)
        scopes = list(probe_scopes) if probe_scopes is not None else []
        if len(scopes) > len(self.probes):
            raise ValueError("CanarySuite got more probe scopes than probes.")
        scopes += [None] * (len(self.probes) - len(scopes))
        self.probe_scopes: list[ProbeScope] = [s or EVERYWHERE for s in scopes]
        _check_prompt_scopes(self.prompts, self.probe_ids)

    def __repr__(self) -> str:
        return (
            f"CanarySuite(name={self.name!r}, prompts={len(self.prompts)}, "
            f"probes={len(self.probes)})"
        )

    # ── Loading ──────────────────────────────────────────────────────────────────────────────

    @classmethod
    def from_yaml(cls, path: str | Path) -> CanarySuite:
        """Load a CanarySuite from a YAML configuration file.

        Expected YAML structure::

            name: my-suite
            description: Tests production agent behaviour.
            probes:
              - type: json_validity
              - type: step_by_step
                expect_steps: false
              - json_validity              # shorthand for {type: json_validity}
            prompts:
              - text: "What is the capital of France?"
                expected_keywords: ["Paris"]
              - "Shorthand prompt text"    # shorthand for {text: ...}

        Raises:
            ConfigError: (also a ``ValueError``-free, user-facing error) naming the file, line and
                field that are wrong. A missing file raises ConfigError too.
        """
        p = Path(path)
        data = load_yaml_file(p)
        try:
            return cls._from_dict(data)
        except ConfigError as exc:
            raise exc.relocate(file=p) from exc

    @classmethod
    def from_dict(cls, config: dict[str, Any]) -> CanarySuite:
        """Build a suite from an already-parsed YAML mapping."""
        return cls._from_dict(config)

    @classmethod
    def _from_dict(cls, config: Any) -> CanarySuite:
        name, settings = parse_header(config)
        probes, probe_ids = parse_probes(config)
        prompts = parse_prompts(config)
        scoped = resolve(config, probes, probe_ids, prompts)
        description = config.get("description") or ""
        default_system_prompt = config.get("default_system_prompt")
        tags = config.get("tags") or []
        for key, value, kind in (
            ("description", description, str),
            ("default_system_prompt", default_system_prompt, (str, type(None))),
            ("tags", tags, list),
        ):
            if not isinstance(value, kind):
                raise ConfigError(
                    f"must be a {'list' if kind is list else 'string'}",
                    line=line_of(config, key),
                    field=key,
                )
        return cls(
            name=name,
            prompts=scoped.prompts,
            probes=scoped.probes,
            description=description,
            tags=[str(t) for t in tags],
            default_system_prompt=default_system_prompt,
            settings=settings,
            probe_ids=scoped.explicit_ids,
            probe_scopes=list(scoped.scopes),
        )

    # ── Running ──────────────────────────────────────────────────────────────────────────────

    def run(
        self,
        provider: BaseLLMProvider,
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | Literal["none"] | None = None,
        show_progress: bool = True,
        concurrency: int | None = None,
        samples: int | None = None,
        max_cost_usd: float | None = None,
        timeout: float | None = None,
        max_attempts: int | None = None,
        progress: ProgressCallback | None = None,
        workers: int | None = None,
    ) -> CanaryRunResult:
        """Run all prompts against the provider, apply all probes, return results.

        Prompts run concurrently (``concurrency`` requests in flight); results keep the suite's
        order. A provider error for one prompt is recorded on its response and its probe results
        are marked errored; a probe that raises becomes a failed result. Neither stops the run.

        Args:
            provider:      The LLM provider to query.
            temperature:   Override default temperature (0.0 recommended).
            max_tokens:    Override max_tokens.
            seed:          Override seed for reproducibility ("none": send no seed).
            show_progress: Whether to show a Rich progress bar.
            concurrency:   Requests in flight at once (default: suite setting, 8).
            samples:       Times each prompt is sent (default: suite setting, 1).
            max_cost_usd:  Stop issuing requests once this much was spent.
            timeout:       Per-request timeout in seconds.
            max_attempts:  Attempts per request, retries included.
            progress:      Optional callback receiving progress events (instead of the bar).
            workers:       Processes sharing the run (Linux; see core/run/workers.py; default 1).

        Returns:
            A fully-populated :class:`CanaryRunResult`.
        """
        # The keywords are spelt out (not a RunOverrides **kwargs as in arun) because this is the
        # documented signature of the library's API: help() and inspect.signature show each one.
        from promptcanary.core.run.runner import run_suite

        options = self._options(
            show_progress=show_progress,
            workers=workers,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            concurrency=concurrency,
            samples=samples,
            max_cost_usd=max_cost_usd,
            timeout=timeout,
            max_attempts=max_attempts,
        )
        return run_suite(self, self._priced(provider, options), options, progress=progress)

    async def arun(
        self,
        provider: BaseLLMProvider,
        *,
        show_progress: bool = False,
        progress: ProgressCallback | None = None,
        **overrides: Unpack[RunOverrides],
    ) -> CanaryRunResult:
        """Async variant of :meth:`run` for callers already inside an event loop: the same
        settings keywords (``RunOverrides``: temperature, max_tokens, seed, concurrency, samples,
        max_cost_usd, timeout, max_attempts), no workers (the run shares the caller's loop)."""
        from promptcanary.core.run.runner import arun_suite

        options = self._options(show_progress=show_progress, **overrides)
        return await arun_suite(self, self._priced(provider, options), options, progress=progress)

    def _priced(self, provider: BaseLLMProvider, options: RunOptions) -> BaseLLMProvider:
        """``provider`` with the suite's ``price:``; a spending cap on a model with no known
        price is refused here, before the first request (ConfigError, exit 2)."""
        from promptcanary.core.pricing import priced

        return priced(provider, self.settings.price, options.max_cost_usd)

    def _options(self, **overrides: Any) -> RunOptions:
        """The suite's settings with every override that is not None applied."""
        from promptcanary.core.run.options import RunOptions, RunOverrides

        # A misspelt keyword is refused as Python would, even with the value None.
        for key in overrides.keys() - RunOverrides.__annotations__.keys():
            if key not in ("show_progress", "workers"):
                raise TypeError(f"run() got an unexpected keyword argument {key!r}")
        return RunOptions.from_settings(self.settings, **overrides)

    def probes_for(self, prompt: CanaryPrompt) -> list[tuple[BaseProbe, str]]:
        """The probes that run on ``prompt``, with their ids, in suite order.

        A probe runs on a prompt its scope covers (unscoped: every prompt) unless the prompt
        skips it, and on every prompt that names it in its own ``probes``.
        """
        return [
            (probe, pid)
            for probe, pid, scope in zip(self.probes, self.probe_ids, self.probe_scopes)
            if applies(scope, pid, prompt)
        ]

    def probe_specs(self) -> list[ProbeSpec]:
        """What each probe is (id, type, parameters) and where it applies, for a stored run."""
        specs = []
        for probe, pid, scope in zip(self.probes, self.probe_ids, self.probe_scopes):
            spec = probe.spec(pid)
            if not scope.everywhere:
                spec = spec.model_copy(
                    update={
                        "prompts": list(scope.prompts) if scope.prompts is not None else None,
                        "tags": list(scope.tags) if scope.tags is not None else None,
                    }
                )
            specs.append(spec)
        return specs

    def system_prompt_for(self, prompt: CanaryPrompt) -> str | None:
        """The system prompt sent with ``prompt``: its own, else the suite default."""
        return prompt.system_prompt or self.default_system_prompt

    # ── Writing ──────────────────────────────────────────────────────────────────────────────

    def to_dict(self) -> dict[str, Any]:
        """The suite as a canary.yaml mapping (probe parameters and prompt ids included)."""
        data: dict[str, Any] = {"name": self.name}
        if self.description:
            data["description"] = self.description
        if self.tags:
            data["tags"] = list(self.tags)
        if self.default_system_prompt:
            data["default_system_prompt"] = self.default_system_prompt
        defaults = SuiteSettings()
        for key in SETTINGS_KEYS:
            value = getattr(self.settings, key)
            if value != getattr(defaults, key):
                data[key] = value
        probes: list[dict[str, Any]] = []
        for probe, pid, scope in zip(self.probes, self.probe_ids, self.probe_scopes):
            spec = probe.spec(pid)
            entry: dict[str, Any] = {"type": spec.type}
            if pid != derived_id(probe, self.probes):
                entry["id"] = pid
            if scope.prompts is not None:
                entry["prompts"] = list(scope.prompts)
            if scope.tags is not None:
                entry["tags"] = list(scope.tags)
            entry.update(spec.params)
            probes.append(entry)
        data["probes"] = probes
        prompts: list[dict[str, Any]] = []
        for cp in self.prompts:
            entry = {"id": cp.id, "text": cp.text}
            for key in ("description", "system_prompt"):
                if getattr(cp, key):
                    entry[key] = getattr(cp, key)
            for key in ("tags", "expected_keywords", "tools", "metadata", "probes", "skip_probes"):
                if getattr(cp, key):
                    entry[key] = getattr(cp, key)
            prompts.append(entry)
        data["prompts"] = prompts
        return data

    def to_yaml_template(self) -> str:
        """Render this suite back to a YAML config string that ``from_yaml`` rebuilds exactly."""
        import yaml

        return yaml.safe_dump(
            self.to_dict(), default_flow_style=False, allow_unicode=True, sort_keys=False
        )


# ── Helpers ──────────────────────────────────────────────────────────────────────────────────


def _check_unique_prompt_ids(prompts: list[CanaryPrompt]) -> None:
    seen: dict[str, int] = {}
    for index, prompt in enumerate(prompts):
        if prompt.id in seen:
            first = seen[prompt.id]
            raise ConfigError(
                f"prompts #{first + 1} ({_excerpt(prompts[first].text)!r}) and #{index + 1} "
                f"({_excerpt(prompt.text)!r}) have the same id '{prompt.id}'",
                field="prompts",
                hint="Give one of them an explicit `id:`, or remove the duplicate prompt.",
            )
        seen[prompt.id] = index


def _check_prompt_scopes(prompts: list[CanaryPrompt], probe_ids: list[str]) -> None:
    # canary.yaml is checked with line numbers while it is read (core/scoping.py); this catches
    # the same mistake in a suite built in code.
    known = set(probe_ids)
    for index, prompt in enumerate(prompts):
        for key in ("probes", "skip_probes"):
            for pid in getattr(prompt, key):
                if pid not in known:
                    raise ConfigError(
                        f"unknown probe '{pid}'",
                        field=f"prompts[{index}].{key}",
                        hint=f"Known probe ids: {', '.join(probe_ids)}.",
                    )


def _excerpt(text: str, limit: int = 40) -> str:
    return clip(text, limit, flatten=True)
