"""Typer builds no pydantic validator for an option left unset or at its default (start-up
time, issue 29).

Typer (0.2x) coerces every parameter's value through a pydantic ``TypeAdapter`` it builds on
first use, per parameter: ``compare`` has some forty options, nearly all unset (``None``), and
building their adapters took 0.1-0.17 s of a 0.5 s command (and imported pydantic where nothing
else needs it). Typer's coercion of ``None`` never reads the adapter (``RuntimeParam.coerce``:
``None`` stays ``None``, or ``()`` for a multi-value parameter), nor does it need it for a
``str`` given as a ``str`` or a ``Path`` given as a path or as text (its validators pass them
through, see :func:`_without_adapter`); so :func:`install` makes such a parameter skip building
it, then goes on exactly as Typer does (the required check, then the callback). Any other value
takes Typer's own path, adapter and all (`init` then imports no pydantic at all).
A Typer without lazily built adapters (older releases use click types) is left untouched.
"""

from __future__ import annotations

from typing import Any


def install() -> bool:
    """Patch Typer's parameter class once; True when this Typer builds adapters (patched)."""
    try:
        from typer._click.exceptions import MissingParameter
        from typer.core import _TyperParameter
    except ImportError:  # an older Typer: click types, no adapters to spare
        return False
    if not hasattr(_TyperParameter, "get_runtime_param"):
        return False
    typer_process = _TyperParameter.process_value
    if getattr(typer_process, "_skips_unset", False):
        return True

    def process_value(self: Any, ctx: Any, value: Any) -> Any:
        if self._runtime_param is not None:
            return typer_process(self, ctx, value)
        if value is None:
            value = () if (self.multiple or self.nargs == -1) else None
        else:
            done, value = _without_adapter(self, ctx, value)
            if not done:
                return typer_process(self, ctx, value)
        if self.required and self.value_is_missing(value):
            raise MissingParameter(ctx=ctx, param=self)
        if self.callback is not None:
            value = self.callback(ctx, self, value)
        return value

    process_value._skips_unset = True  # type: ignore[attr-defined]
    process_value.__wrapped__ = typer_process  # type: ignore[attr-defined]
    _TyperParameter.process_value = process_value  # type: ignore[method-assign]
    return True


def _without_adapter(param: Any, ctx: Any, value: Any) -> tuple[bool, Any]:
    """(True, the value Typer's validator would return) for a single value whose validator only
    passes it through: a ``str`` option given a ``str`` (Typer's ``_parse_cli_str`` returns it),
    an ``int`` or ``float`` option without a range given a number of its type (a default),
    a ``Path`` option given a ``Path`` (a default such as ``Path(".")``) or text (Typer's path
    validator only makes the path and calls ``coerce_cli_path``, called here). Else (False,
    value): Typer's own path."""
    from pathlib import Path

    descriptor = param.type_descriptor
    info = descriptor.parameter_info
    single = not param.multiple and param.nargs == 1
    if not single or descriptor.file_annotation is not None or info.parser is not None:
        return False, value
    annotation = descriptor.annotation
    if annotation is str and type(value) is str:
        return True, value
    if annotation in (int, float) and type(value) is annotation:
        # A number default (plan's --alpha 0.05): pydantic returns the same number, and only
        # a range (min/max) could refuse or clamp it.
        return (info.min is None and info.max is None), value
    path_type = info.path_type or annotation
    paths = all(isinstance(t, type) and issubclass(t, Path) for t in (annotation, path_type))
    if paths and (isinstance(value, path_type) or type(value) is str):
        from typer._param_types import coerce_cli_path

        # Typer turns text into a path with pydantic's Path validator: Path(text), the same
        # path for any text (tests/unit/commands/test_typer_unset.py); its checks follow here.
        given = value if isinstance(value, path_type) else path_type(value)
        return True, coerce_cli_path(given, info, path_type=path_type, param=param, ctx=ctx)
    return False, value
