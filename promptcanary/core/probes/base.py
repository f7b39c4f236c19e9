"""Probe base class and the ``@probe`` decorator: how a probe is written.

A probe looks at one response and returns a :class:`ProbeResult`. Every probe instance remembers
the arguments it was constructed with (:attr:`BaseProbe.params`), so a run records exactly what was
measured and a probe can be rebuilt from a stored run or a YAML template.

Which class a YAML ``type:`` names is the registry's business (:mod:`.registry`); the one registry
of ``BaseProbe`` classes is :data:`REGISTRY`, and its functions are importable from here under
their promptcanary 0.2 names (``register_probe``, ``get_probe``, ``get_probe_registry``...).
"""

from __future__ import annotations

import abc
import functools
import hashlib
import inspect
import json
from collections.abc import Callable
from typing import Any

from promptcanary.core.models import (
    CanaryPrompt,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProbeSpec,
)
from promptcanary.core.probes.registry import (
    ENTRY_POINT_GROUP,
    ProbeRegistry,
    validate_probe_params,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "REGISTRY",
    "BaseProbe",
    "build_probe",
    "get_probe",
    "get_probe_class",
    "get_probe_registry",
    "params_digest",
    "probe",
    "register_probe",
    "registered_probes",
    "runs_inline",
    "validate_probe_params",
]


class BaseProbe(abc.ABC):
    """Abstract base class for all PromptCanary probes.

    Subclasses set the class attributes below and implement :meth:`evaluate`. Constructor
    parameters are recorded automatically (see :attr:`params`), so keep them JSON-serialisable.

    Attributes:
        probe_id: Stable machine-readable identifier (snake_case); the YAML ``type:``.
        name: Human-readable display name.
        category: High-level :class:`ProbeCategory`.
        description: One-sentence description shown in reports.
    """

    probe_id: str = "base"
    name: str = "Base Probe"
    category: ProbeCategory = ProbeCategory.CUSTOM
    description: str = ""

    #: Set (on the class itself, see :func:`runs_inline`) only by built-ins whose ``evaluate`` is
    #: a few comparisons or substring tests: the runner scores those on its event loop, since
    #: handing them to a probe thread costs more than they do (issue 23). Never inherited.
    _runs_inline: bool = False

    _params: dict[str, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # Like promptcanary 0.2, a concrete subclass that names its own probe_id is usable as a
        # YAML ``type:`` at once. A name already taken is left alone: defining a class never
        # silently replaces a built-in (and @register_probe refuses to).
        own_id = cls.__dict__.get("probe_id")
        if isinstance(own_id, str) and own_id and not inspect.isabstract(cls):
            REGISTRY.adopt(own_id, cls)
        # Wrap the subclass's own __init__ so the bound constructor arguments are recorded,
        # whatever the subclass does with them (inspect_ai's registry does the same).
        if "__init__" in cls.__dict__:
            original = cls.__dict__["__init__"]
            signature = inspect.signature(original)

            @functools.wraps(original)
            def __init__(self: BaseProbe, *args: Any, **kw: Any) -> None:  # noqa: N807
                if not hasattr(self, "_params") or type(self).__init__ is __init__:
                    bound = signature.bind(self, *args, **kw)
                    bound.apply_defaults()
                    params = dict(bound.arguments)
                    params.pop("self", None)
                    for name, p in signature.parameters.items():
                        if p.kind is inspect.Parameter.VAR_KEYWORD and name in params:
                            params.update(params.pop(name))
                        elif p.kind is inspect.Parameter.VAR_POSITIONAL:
                            params.pop(name, None)
                    self._params = params
                original(self, *args, **kw)

            cls.__init__ = __init__  # type: ignore[method-assign,assignment]

    @property
    def params(self) -> dict[str, Any]:
        """The constructor arguments this probe was built with (defaults included)."""
        return dict(getattr(self, "_params", {}))

    @property
    def asks_model(self) -> str | None:
        """The model this probe sends a request of its own to for each answer it scores (the
        ``llm_judge`` probe's judge), so that a run's plan counts those requests too; None for
        a probe that sends none."""
        return None

    @property
    def type_name(self) -> str:
        """The name that rebuilds this probe: a built-in's registry name, else ``module:Class``.

        Custom probes always use ``module:Class`` — even registered ones — so a YAML template or
        a stored run names something that can be imported without any prior setup.
        """
        cls = type(self)
        registered = REGISTRY.classes.get(cls.probe_id)
        if registered is cls and cls.__module__.startswith("promptcanary."):
            return cls.probe_id
        return f"{cls.__module__}:{cls.__qualname__}"

    def spec(self, probe_id: str | None = None) -> ProbeSpec:
        """Describe this probe (id, type, parameters) for storing in a run."""
        return ProbeSpec(
            probe_id=probe_id or self.probe_id,
            type=self.type_name,
            name=self.name,
            category=self.category,
            params=_jsonable(self.params),
        )

    def __call__(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Make probes callable directly: ``probe(prompt, response)``."""
        return self.evaluate(prompt, response)

    @abc.abstractmethod
    def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
        """Run this probe and return a structured result.

        Args:
            prompt:   The :class:`CanaryPrompt` that was sent.
            response: The :class:`LLMResponse` received.

        Returns:
            A :class:`ProbeResult` with score, pass/fail, and details.
        """

    def result(
        self,
        prompt: CanaryPrompt,
        *,
        passed: bool,
        score: float,
        details: str = "",
        errored: bool = False,
        cost_usd: float | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> ProbeResult:
        """Build a :class:`ProbeResult` for this probe (score clamped to 0..1).

        ``cost_usd`` is the cost of model calls the probe made itself (an LLM judge);
        ``metadata`` the probe's structured findings (JSON-friendly values).
        """
        return ProbeResult(
            probe_id=self.probe_id,
            probe_name=self.name,
            category=self.category,
            prompt_id=prompt.id,
            passed=passed,
            score=min(1.0, max(0.0, float(score))),
            details=details,
            errored=errored,
            cost_usd=cost_usd,
            metadata=metadata or {},
        )

    def _make_result(
        self,
        prompt_id: str,
        *,
        passed: bool,
        score: float,
        details: str = "",
        metadata: dict[str, Any] | None = None,
    ) -> ProbeResult:
        """promptcanary 0.2's helper for subclasses: :meth:`result` addressed by prompt id.

        Kept under its old name because custom probes written for 0.2 call it. The score is
        clamped to 0..1.
        """
        return ProbeResult(
            probe_id=self.probe_id,
            probe_name=self.name,
            category=self.category,
            prompt_id=prompt_id,
            passed=passed,
            score=min(1.0, max(0.0, float(score))),
            details=details,
            metadata=metadata or {},
        )

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({args})"


def runs_inline(probe: object) -> bool:
    """Whether the runner may score ``probe`` on its event loop instead of a probe thread.

    Only a class that sets ``_runs_inline`` in its own body: a subclass (a user's, whose
    ``evaluate`` may block or hang) goes to a thread, under ``probe_timeout``, like any plugin.
    """
    return bool(type(probe).__dict__.get("_runs_inline", False))


def _jsonable(value: Any) -> Any:
    """Make probe parameters JSON-friendly (tuples → lists, enums → values, sets → sorted)."""
    return json.loads(json.dumps(value, default=_json_default, sort_keys=True))


def _json_default(value: Any) -> Any:
    if isinstance(value, type):  # arg_types: {"city": str} is recorded as "str"
        return value.__name__
    if isinstance(value, (set, frozenset)):
        return sorted(value, key=str)
    if hasattr(value, "value"):
        return value.value
    return repr(value)


def params_digest(params: dict[str, Any]) -> str:
    """Short stable hash of probe parameters (used to tell same-type probes apart)."""
    payload = json.dumps(_jsonable(params), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:6]


# ── @probe decorator ─────────────────────────────────────────────────────────────────────────


def probe(
    probe_id: str,
    *,
    name: str = "",
    category: ProbeCategory = ProbeCategory.CUSTOM,
    description: str = "",
) -> Callable[[Callable[[CanaryPrompt, LLMResponse], ProbeResult]], type[BaseProbe]]:
    """Decorator that turns a plain function into a registered ``BaseProbe`` class.

    Usage::

        @probe("my_probe", name="My Custom Probe", category=ProbeCategory.CUSTOM)
        def greets(prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
            passed = "hello" in response.content.lower()
            return ProbeResult(probe_id="my_probe", probe_name="My Custom Probe",
                               category=ProbeCategory.CUSTOM, prompt_id=prompt.id,
                               passed=passed, score=1.0 if passed else 0.0)

    The decorated name becomes the probe class: instantiate it (``greets()``) or use
    ``type: my_probe`` in canary.yaml.
    """

    def decorator(fn: Callable[[CanaryPrompt, LLMResponse], ProbeResult]) -> type[BaseProbe]:
        display = name or fn.__name__.replace("_", " ").title()

        def evaluate(self: BaseProbe, p: CanaryPrompt, r: LLMResponse) -> ProbeResult:
            return fn(p, r)

        cls = type(
            fn.__name__,
            (BaseProbe,),
            {
                "probe_id": probe_id,
                "name": display,
                "category": category,
                "description": description or (inspect.getdoc(fn) or "").split("\n")[0],
                "evaluate": evaluate,
                "__module__": fn.__module__,
                "__qualname__": fn.__qualname__,
                "__doc__": fn.__doc__,
            },
        )
        REGISTRY.claim(probe_id, cls)
        return cls

    return decorator


# ── The registry ─────────────────────────────────────────────────────────────────────────────

#: The registry of probe classes by their YAML ``type:`` name (see :mod:`.registry`).
REGISTRY = ProbeRegistry[BaseProbe](BaseProbe)
#: The registry's table itself (promptcanary 0.2's name): YAML type name → probe class.
_PROBE_REGISTRY = REGISTRY.classes
register_probe = REGISTRY.register
registered_probes = REGISTRY.registered
get_probe_registry = REGISTRY.registered  # promptcanary 0.2's name for registered_probes
get_probe = REGISTRY.get
get_probe_class = REGISTRY.resolve
build_probe = REGISTRY.build
