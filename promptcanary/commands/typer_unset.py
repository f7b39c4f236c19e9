"""Typer builds no pydantic validator for an option left unset (start-up time, issue 29).

Typer (0.2x) coerces every parameter's value through a pydantic ``TypeAdapter`` it builds on
first use, per parameter: ``compare`` has some forty options, nearly all unset (``None``), and
building their adapters took 0.1-0.17 s of a 0.5 s command (and imported pydantic where nothing
else needs it). Typer's coercion of ``None`` never reads the adapter (``RuntimeParam.coerce``:
``None`` stays ``None``, or ``()`` for a multi-value parameter), so :func:`install` makes a
parameter whose value is ``None`` skip building it, then goes on exactly as Typer does (the
required check, then the callback). Any other value takes Typer's own path, adapter and all.
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
        if value is not None or self._runtime_param is not None:
            return typer_process(self, ctx, value)
        value = () if (self.multiple or self.nargs == -1) else None
        if self.required and self.value_is_missing(value):
            raise MissingParameter(ctx=ctx, param=self)
        if self.callback is not None:
            value = self.callback(ctx, self, value)
        return value

    process_value._skips_unset = True  # type: ignore[attr-defined]
    process_value.__wrapped__ = typer_process  # type: ignore[attr-defined]
    _TyperParameter.process_value = process_value  # type: ignore[method-assign]
    return True
