"""Names of a package loaded on first use (PEP 562), for the package root, ``core.models`` and
``pipeline``: a command then imports the modules it reads, not every module the package re-exports
(start-up time, issue 29).

Each such package lists its names once for the loader (``_EXPORTS``: name -> module), computes
``__all__`` from that table, and imports the same names under ``if TYPE_CHECKING:`` as
``Name as Name``: a type checker cannot evaluate a computed ``__all__``, and under
``mypy --strict`` (no implicit re-export) only the alias makes ``from promptcanary import X``
valid in a user's project. tests/unit/test_exports.py, test_lazy_exports.py and
test_typed_reexports.py keep the three in step."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``: ``exports`` maps each public name to
    the module that defines it; a name is imported once, then kept in the package's namespace."""
    namespace = sys.modules[package].__dict__

    def attribute(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def names() -> list[str]:
        return sorted(namespace["__all__"])

    return attribute, names
