"""The probe registry: which class a YAML ``type:`` names, and building a probe from canary.yaml.

A ``type:`` is a registered name — a built-in, a class that registered itself
(``@register_probe``, ``@probe``, or a subclass naming its own ``probe_id``), or a probe an installed
package declares under the ``promptcanary.probes`` entry-point group — or a
``package.module:ClassName``. A registered name is never silently replaced (pluggy's rule): the
built-ins load first, and a second class claiming a taken name is refused.

The one registry of the package is ``promptcanary.core.probes.base.REGISTRY`` (a
:class:`ProbeRegistry` of ``BaseProbe`` classes), whose methods ``base`` also exposes under their
promptcanary 0.2 names (``get_probe``, ``register_probe``...). This module does not import the
probe base class, so that the base class can register its subclasses without an import cycle.
"""

from __future__ import annotations

import difflib
import functools
import importlib
import inspect
import typing
import warnings
from typing import Any, Generic, TypeVar

from pydantic import ConfigDict, ValidationError, create_model

from promptcanary.errors import ConfigError, ProbeConfigError, validation_parts

__all__ = [
    "BUILTINS",
    "ENTRY_POINT_GROUP",
    "ProbeRegistry",
    "validate_probe_params",
]

#: Entry-point group through which installed packages provide probes (name = YAML ``type:``).
ENTRY_POINT_GROUP = "promptcanary.probes"
#: The package whose import registers every built-in probe.
BUILTINS = "promptcanary.core.probes"

P = TypeVar("P")


class ProbeRegistry(Generic[P]):
    """Probe classes by their YAML ``type:`` name.

    Args:
        base: The class every probe class derives from (``BaseProbe``): what a plugin or a
            ``module:Class`` name must be to be accepted.
    """

    def __init__(self, base: type) -> None:
        self.base = base
        self.classes: dict[str, type[P]] = {}
        self.builtins_loaded = False
        self.plugins_loaded = False

    # ── registering ──

    def register(self, cls: type[P]) -> type[P]:
        """Class decorator: make ``cls`` resolvable by its ``probe_id`` from YAML ``type:``.

        Raises:
            ProbeConfigError: another class already holds that id (a built-in or another
                plugin): a registry never lets one probe silently replace another.
        """
        self.claim(_probe_id(cls), cls)
        return cls

    def claim(self, probe_id: str, cls: type[P]) -> None:
        """Register ``cls`` as ``probe_id``; the same class again is harmless (a module imported
        twice), another class is refused (see :meth:`register`)."""
        self.load_builtins()  # so a user's class can never take a built-in's id before it loads
        existing = self.classes.get(probe_id)
        if existing is not None and _qualified(existing) != _qualified(cls):
            raise ProbeConfigError(
                f"probe id '{probe_id}' is already registered by {_qualified(existing)}; "
                f"{_qualified(cls)} cannot replace it",
                hint="Give your probe another id, e.g. @probe('my_" + probe_id + "').",
            )
        self.classes[probe_id] = cls

    def adopt(self, probe_id: str, cls: type[P]) -> None:
        """Register a class that names its own ``probe_id`` when it is defined (promptcanary
        0.2's behaviour), unless the name is taken: defining a class never replaces another."""
        self.load_builtins()  # built-ins first, so a user's class never takes their names
        self.classes.setdefault(probe_id, cls)

    def load_builtins(self) -> None:
        """Import the built-in probes (they register themselves); done lazily, once."""
        if not self.builtins_loaded:
            self.builtins_loaded = True
            importlib.import_module(BUILTINS)

    def load_plugins(self) -> None:
        """Register the probes installed packages declare under :data:`ENTRY_POINT_GROUP`."""
        if self.plugins_loaded:
            return
        self.plugins_loaded = True
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
            if not self.is_probe_class(obj):
                raise ProbeConfigError(f"the probe plugin {where} is not a BaseProbe subclass")
            if self.classes.get(ep.name) is not obj:
                self.claim(ep.name, obj)

    def is_probe_class(self, obj: object) -> typing.TypeGuard[type[P]]:
        return isinstance(obj, type) and issubclass(obj, self.base)

    # ── looking up ──

    def registered(self) -> dict[str, type[P]]:
        """A copy of the registry: YAML type name → probe class (installed plugins included)."""
        self.load_builtins()
        self.load_plugins()
        return dict(self.classes)

    def get(self, probe_id: str) -> type[P]:
        """The registered probe class for a YAML ``type:`` name.

        Raises:
            KeyError: nothing is registered under ``probe_id`` (the message lists what is).
        """
        self.load_builtins()
        try:
            return self.classes[probe_id]
        except KeyError:
            known = ", ".join(sorted(self.classes))
            raise KeyError(f"no probe registered as {probe_id!r}. Known types: {known}") from None

    def resolve(self, type_name: str) -> type[P]:
        """Resolve a YAML ``type:`` (registry name or ``package.module:ClassName``) to a class.

        Raises:
            LookupError: unknown name (the message lists the known ones).
        """
        self.load_builtins()
        if type_name not in self.classes and ":" not in type_name:
            self.load_plugins()
        if type_name in self.classes:
            return self.classes[type_name]
        if ":" in type_name:
            return self.import_class(type_name)
        known = ", ".join(sorted(self.classes))
        close = difflib.get_close_matches(type_name, list(self.classes), n=1)
        guess = f" Did you mean '{close[0]}'?" if close else ""
        raise LookupError(f"unknown probe type '{type_name}'.{guess} Known types: {known}")

    def import_class(self, type_name: str) -> type[P]:
        """The class named by a ``package.module:ClassName`` probe type.

        The user's module runs when it is imported: whatever it raises (or a ``sys.exit`` in it)
        is reported as a LookupError naming the module and the first line of the exception,
        never as a crash of PromptCanary.
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
                f"importing module '{module_name}' for probe '{type_name}' failed: "
                f"{_first_line(exc)}"
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
        if not self.is_probe_class(obj):
            raise LookupError(f"'{type_name}' is not a BaseProbe subclass")
        return obj

    # ── building from canary.yaml ──

    def build(self, type_name: str, params: dict[str, Any]) -> P:
        """Instantiate a probe from its YAML type and parameters, validating the parameters.

        Raises:
            ProbeConfigError: unknown type, unknown parameter, wrong type or missing parameter.
                The message names the probe, the parameter and the accepted choices.
        """
        try:
            cls = self.resolve(type_name)
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
    cls: type, params: dict[str, Any], *, type_name: str | None = None
) -> dict[str, Any]:
    """Check ``params`` against the constructor signature of ``cls`` and coerce them."""
    label = type_name or _probe_id(cls)
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


def _signature_fields(cls: Any) -> tuple[dict[str, inspect.Parameter], bool]:
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
def _params_model(cls: Any) -> Any:
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


def _probe_id(cls: type) -> str:
    return str(getattr(cls, "probe_id", ""))


def _qualified(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _first_line(exc: BaseException) -> str:
    """``ExcType: first line of its message`` — enough to recognise, short enough to read."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0]}" if text else type(exc).__name__
