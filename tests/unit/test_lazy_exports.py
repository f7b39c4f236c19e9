"""The lazily re-exporting packages below the root (``promptcanary.core.models``,
``promptcanary.pipeline``): ``__all__``, the export table and the ``TYPE_CHECKING`` imports name
the same objects from the same modules, every name resolves to its module's object, and importing
the package builds nothing. (The root package: tests/unit/test_exports.py.)"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

PACKAGES = ["promptcanary.core.models", "promptcanary.pipeline"]


def _imports(package: ModuleType, *, under_type_checking: bool) -> dict[str, str]:
    """name -> module of the package's own ``from ... import`` statements: at the top level, or
    inside ``if TYPE_CHECKING:``."""
    tree = ast.parse(Path(str(package.__file__)).read_text(encoding="utf-8"))
    statements: list[ast.stmt] = []
    for node in tree.body:
        guarded = (
            isinstance(node, ast.If)
            and isinstance(node.test, ast.Name)
            and node.test.id == "TYPE_CHECKING"
        )
        if guarded and under_type_checking:
            statements.extend(node.body)  # type: ignore[attr-defined]
        elif not under_type_checking:
            statements.append(node)
    names: dict[str, str] = {}
    for stmt in statements:
        if isinstance(stmt, ast.ImportFrom) and (stmt.module or "").startswith("promptcanary"):
            for alias in stmt.names:
                names[alias.asname or alias.name] = str(stmt.module)
    return names


@pytest.mark.parametrize("name", PACKAGES)
def test_all_the_lazy_table_and_the_type_checking_imports_agree(name: str) -> None:
    package = importlib.import_module(name)
    lazy: dict[str, str] = package._EXPORTS
    eager = _imports(package, under_type_checking=False)
    eager.pop("lazy_exports")  # the loader itself (promptcanary/_lazy.py), not an export
    typed = _imports(package, under_type_checking=True)
    assert not set(eager) & set(lazy), "a name both imported and in the lazy table"
    assert sorted(package.__all__) == sorted([*eager, *lazy])
    assert typed == lazy  # same module on both sides: mypy sees the object users get


@pytest.mark.parametrize("name", PACKAGES)
def test_every_name_is_its_module_s_object(name: str) -> None:
    package = importlib.import_module(name)
    for export, module in package._EXPORTS.items():
        assert getattr(package, export) is getattr(importlib.import_module(module), export)
    assert set(dir(package)) >= set(package.__all__)
    with pytest.raises(AttributeError, match="NoSuchThing"):
        package.NoSuchThing  # noqa: B018


def test_pipeline_measure_is_the_function_though_it_names_a_module_too() -> None:
    import promptcanary.pipeline

    module = importlib.import_module("promptcanary.pipeline.measure")
    assert promptcanary.pipeline.measure is module.measure


def test_importing_the_packages_builds_nothing() -> None:
    code = (
        "import sys, promptcanary.core.models, promptcanary.pipeline\n"
        "built = ('pydantic', 'promptcanary.core.models.', 'promptcanary.pipeline.usecases')\n"
        "print(sorted(m for m in sys.modules if m.startswith(built)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    # pipeline/measure.py is loaded at once (see the package): it imports nothing heavy.
    assert proc.stdout.strip() == "[]", proc.stdout
