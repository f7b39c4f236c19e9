"""The lazily loading packages (the root, ``core.models``, ``pipeline``) compute ``__all__`` from
their export table, which a type checker cannot read; what it reads instead is the import under
``if TYPE_CHECKING:`` spelt ``import Name as Name`` (an explicit re-export). Without the alias,
``from promptcanary import CanarySuite`` is an error under ``mypy --strict`` in a user's project
(the package ships py.typed)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

PACKAGES = ["promptcanary", "promptcanary.core.models", "promptcanary.pipeline"]


def _imports(name: str) -> list[tuple[ast.alias, bool]]:
    """(alias, under TYPE_CHECKING) for each promptcanary name the package's ``__init__``
    imports at the top level or inside ``if TYPE_CHECKING:``."""
    source = Path(str(importlib.import_module(name).__file__)).read_text(encoding="utf-8")
    found: list[tuple[ast.alias, bool]] = []
    for node in ast.parse(source).body:
        guarded = (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        )
        for stmt in node.body if isinstance(node, ast.If) and guarded else [node]:
            if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("promptcanary"):
                found.extend((alias, guarded) for alias in stmt.names)
    return found


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_is_an_explicit_re_export(name: str) -> None:
    package = importlib.import_module(name)
    public = set(package.__all__) - {"__version__"}
    aliased = {a.name for a, _ in _imports(name) if a.asname == a.name}
    assert public - aliased == set(), "in __all__ but not imported as `Name as Name`"


@pytest.mark.parametrize("name", PACKAGES)
def test_every_type_checking_import_is_public(name: str) -> None:
    package = importlib.import_module(name)
    typed = [a for a, guarded in _imports(name) if guarded]
    assert typed, "expected an `if TYPE_CHECKING:` block"
    assert {a.asname or a.name for a in typed} <= set(package.__all__)
    assert set(package.__all__) - {"__version__"} >= set(package._EXPORTS)
