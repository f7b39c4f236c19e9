"""Probe base class, the ``@probe`` decorator and the registry that resolves YAML ``type:`` names.

A probe looks at one response and returns a :class:`ProbeResult`. Every probe instance remembers
the arguments it was constructed with (:attr:`BaseProbe.params`), so a run records exactly what was
measured and a probe can be rebuilt from a stored run or a YAML template.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import importlib
import inspect
import json
import typing
import warnings
from collections.abc import Callable
from typing import Any

from pydantic import ConfigDict, ValidationError, create_model

from promptcanary.core.models import (
    CanaryPrompt,
    LLMResponse,
    ProbeCategory,
    ProbeResult,
    ProbeSpec,
)
from promptcanary.errors import ConfigError, ProbeConfigError, validation_parts

#: Registry of probe classes by their YAML ``type:`` name (== the class's ``probe_id``).
_PROBE_REGISTRY: dict[str, type[BaseProbe]] = {}


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
        if isinstance(own_id, str) and own_id:
            _load_builtins()  # built-ins first, so a user's class never takes their names
        if (
            isinstance(own_id, str)
            and own_id
            and own_id not in _PROBE_REGISTRY
            and not inspect.isabstract(cls)
        ):
            _PROBE_REGISTRY[own_id] = cls
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
    def type_name(self) -> str:
        """The name that rebuilds this probe: a built-in's registry name, else ``module:Class``.

        Custom probes always use ``module:Class`` — even registered ones — so a YAML template or
        a stored run names something that can be imported without any prior setup.
        """
        cls = type(self)
        registered = _PROBE_REGISTRY.get(cls.probe_id)
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


# ── Registry ─────────────────────────────────────────────────────────────────────────────────


def register_probe(cls: type[BaseProbe]) -> type[BaseProbe]:
    """Class decorator: make ``cls`` resolvable by its ``probe_id`` from YAML ``type:``.

    Raises:
        ProbeConfigError: another class already holds that id (a built-in or another plugin):
            a registry never lets one probe silently replace another.
    """
    _claim(cls.probe_id, cls)
    return cls


def _claim(probe_id: str, cls: type[BaseProbe]) -> None:
    _load_builtins()  # so a user's class can never take a built-in's id before it loads
    existing = _PROBE_REGISTRY.get(probe_id)
    if existing is not None and _qualified(existing) != _qualified(cls):
        raise ProbeConfigError(
            f"probe id '{probe_id}' is already registered by {_qualified(existing)}; "
            f"{_qualified(cls)} cannot replace it",
            hint="Give your probe another id, e.g. @probe('my_" + probe_id + "').",
        )
    _PROBE_REGISTRY[probe_id] = cls


def _qualified(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


#: Entry-point group through which installed packages provide probes (name = YAML ``type:``).
ENTRY_POINT_GROUP = "promptcanary.probes"
_plugins_loaded = False


def _load_plugins() -> None:
    """Register the probes installed packages declare under :data:`ENTRY_POINT_GROUP`."""
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        where = f"entry point '{ep.name} = {ep.value}' (group {ENTRY_POINT_GROUP})"
        try:
            obj = ep.load()
        except Exception as exc:  # the plugin's own code: report it, never crash the run
            first = (str(exc).splitlines() or [""])[0]
            raise ProbeConfigError(
                f"cannot load the probe plugin {where}: {type(exc).__name__}: {first}"
            ) from exc
        if not (isinstance(obj, type) and issubclass(obj, BaseProbe)):
            raise ProbeConfigError(f"the probe plugin {where} is not a BaseProbe subclass")
        if _PROBE_REGISTRY.get(ep.name) is not obj:
            _claim(ep.name, obj)


def registered_probes() -> dict[str, type[BaseProbe]]:
    """A copy of the registry: YAML type name → probe class (installed plugins included)."""
    _load_builtins()
    _load_plugins()
    return dict(_PROBE_REGISTRY)


def get_probe_registry() -> dict[str, type[BaseProbe]]:
    """A copy of the registry (promptcanary 0.2's name for :func:`registered_probes`)."""
    return registered_probes()


def get_probe(probe_id: str) -> type[BaseProbe]:
    """The registered probe class for a YAML ``type:`` name.

    Raises:
        KeyError: nothing is registered under ``probe_id`` (the message lists what is).
    """
    _load_builtins()
    try:
        return _PROBE_REGISTRY[probe_id]
    except KeyError:
        known = ", ".join(sorted(_PROBE_REGISTRY))
        raise KeyError(f"no probe registered as {probe_id!r}. Known types: {known}") from None


def get_probe_class(type_name: str) -> type[BaseProbe]:
    """Resolve a YAML ``type:`` (registry name or ``package.module:ClassName``) to a class.

    Raises:
        LookupError: unknown name (the message lists the known ones).
    """
    _load_builtins()
    if type_name not in _PROBE_REGISTRY and ":" not in type_name:
        _load_plugins()
    if type_name in _PROBE_REGISTRY:
        return _PROBE_REGISTRY[type_name]
    if ":" in type_name:
        return _import_probe_class(type_name)
    import difflib

    known = ", ".join(sorted(_PROBE_REGISTRY))
    close = difflib.get_close_matches(type_name, list(_PROBE_REGISTRY), n=1)
    guess = f" Did you mean '{close[0]}'?" if close else ""
    raise LookupError(f"unknown probe type '{type_name}'.{guess} Known types: {known}")


def _import_probe_class(type_name: str) -> type[BaseProbe]:
    """The class named by a ``package.module:ClassName`` probe type.

    The user's module runs when it is imported: whatever it raises (or a ``sys.exit`` in it) is
    reported as a LookupError naming the module and the first line of the exception, never as a
    crash of PromptCanary.
    """
    module_name, _, attr = type_name.partition(":")
    form = "Write a custom probe type as 'package.module:ClassName'."
    if not module_name or not attr:
        raise LookupError(f"probe type '{type_name}' needs a module and a class name. {form}")
    if module_name.startswith("."):
        raise LookupError(
            f"probe type '{type_name}': relative module names are not supported. {form}"
        )
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise LookupError(
            f"cannot import module '{module_name}' for probe '{type_name}': {exc}. "
            "Is it installed, or on PYTHONPATH?"
        ) from exc
    except (Exception, SystemExit) as exc:
        raise LookupError(
            f"importing module '{module_name}' for probe '{type_name}' failed: {_first_line(exc)}"
        ) from exc
    obj: Any = module
    for part in attr.split("."):
        try:
            obj = getattr(obj, part, None) if part else None
        except Exception as exc:  # a module-level __getattr__ may raise anything
            raise LookupError(
                f"module '{module_name}': reading '{attr}' failed: {_first_line(exc)}"
            ) from exc
        if obj is None:
            raise LookupError(f"module '{module_name}' has no attribute '{attr}'")
    if not (isinstance(obj, type) and issubclass(obj, BaseProbe)):
        raise LookupError(f"'{type_name}' is not a BaseProbe subclass")
    return obj


def _first_line(exc: BaseException) -> str:
    """``ExcType: first line of its message`` — enough to recognise, short enough to read."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__


def build_probe(type_name: str, params: dict[str, Any]) -> BaseProbe:
    """Instantiate a probe from its YAML type and parameters, validating the parameters.

    Raises:
        ProbeConfigError: unknown type, unknown parameter, wrong type or missing parameter. The
            message names the probe, the parameter and the accepted choices.
    """
    try:
        cls = get_probe_class(type_name)
    except LookupError as exc:
        raise ProbeConfigError(str(exc), field="type") from exc
    try:
        validated = validate_probe_params(cls, params, type_name=type_name)
    except ConfigError:
        raise
    except Exception as exc:  # a custom probe's signature pydantic cannot turn into a schema
        raise ProbeConfigError(
            f"probe '{type_name}': cannot read its parameters: {_first_line(exc)}"
        ) from exc
    try:
        return cls(**validated)
    except (TypeError, ValueError) as exc:
        raise ProbeConfigError(f"probe '{type_name}': {exc}") from exc
    except ConfigError:
        raise
    except Exception as exc:  # a custom probe's constructor may raise anything
        raise ProbeConfigError(
            f"probe '{type_name}': creating it failed: {_first_line(exc)}"
        ) from exc


def validate_probe_params(
    cls: type[BaseProbe], params: dict[str, Any], *, type_name: str | None = None
) -> dict[str, Any]:
    """Check ``params`` against the constructor signature of ``cls`` and coerce them."""
    label = type_name or cls.probe_id
    fields, accepts_any = _signature_fields(cls)
    unknown = [k for k in params if k not in fields]
    if unknown and not accepts_any:
        known = ", ".join(fields) or "(none)"
        raise ProbeConfigError(
            f"probe '{label}' has no parameter '{unknown[0]}'. Parameters of '{label}': {known}",
            field=unknown[0],
        )
    model = _params_model(cls)
    try:
        checked = model.model_validate({k: v for k, v in params.items() if k in fields})
    except ValidationError as exc:
        parts, msg, value = validation_parts(exc)
        loc = ".".join(parts) or "?"
        raise ProbeConfigError(
            f"probe '{label}' parameter '{loc}': {msg} (got {value!r})",
            field=loc,
        ) from exc
    out = {k: getattr(checked, k) for k in params if k in fields}
    out.update({k: v for k, v in params.items() if k not in fields})
    return out


def _signature_fields(cls: type[BaseProbe]) -> tuple[dict[str, inspect.Parameter], bool]:
    init = getattr(cls.__init__, "__wrapped__", cls.__init__)
    if init is object.__init__:
        # No constructor of its own: the probe takes no parameters (object's *args/**kwargs
        # signature must not read as "accepts anything").
        return {}, False
    sig = inspect.signature(init)
    fields: dict[str, inspect.Parameter] = {}
    accepts_any = False
    for name, p in sig.parameters.items():
        if name == "self" or p.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        if p.kind is inspect.Parameter.VAR_KEYWORD:
            accepts_any = True
            continue
        fields[name] = p
    return fields, accepts_any


@functools.cache
def _params_model(cls: type[BaseProbe]) -> Any:
    init = getattr(cls.__init__, "__wrapped__", cls.__init__)
    try:
        hints = typing.get_type_hints(init)
    except Exception:  # unresolved forward refs in a user probe: fall back to no type checks
        hints = {}
    fields, _ = _signature_fields(cls)
    definitions: dict[str, Any] = {}
    for name, p in fields.items():
        annotation = hints.get(name, Any)
        default = ... if p.default is inspect.Parameter.empty else p.default
        definitions[name] = (annotation, default)
    with warnings.catch_warnings():
        # A probe parameter may be called "schema" (json_schema, tool_call_schema); on this
        # throw-away validation model, shadowing BaseModel.schema is harmless.
        warnings.filterwarnings("ignore", message=".*shadows an attribute", category=UserWarning)
        return create_model(
            f"{cls.__name__}Params",
            __config__=ConfigDict(arbitrary_types_allowed=True, strict=True),
            **definitions,
        )


_builtins_loaded = False


def _load_builtins() -> None:
    # Importing the package registers every built-in probe; done lazily to avoid import cycles.
    global _builtins_loaded
    if not _builtins_loaded:
        _builtins_loaded = True
        importlib.import_module("promptcanary.core.probes")


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
        _claim(probe_id, cls)
        return cls

    return decorator
