"""The lazily loading packages (the root, ``core.models``, ``core.render``, ``pipeline``):
each names its exports once, in ``__init__.pyi``, which lazy_loader reads at run time and type
checkers read instead of ``__init__.py``. The stub and the runtime name the same things, every
name resolves to its module's object and is loaded once, and importing a package builds nothing.
(Root-only checks: tests/unit/test_exports.py; the stubs' form: test_typed_reexports.py.)"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGES = [
    "promptcanary",
    "promptcanary.core.models",
    "promptcanary.core.render",
    "promptcanary.pipeline",
]


def stub_of(package: str) -> ast.Module:
    """The parsed ``__init__.pyi`` of ``package``."""
    init = Path(str(importlib.import_module(package).__file__))
    return ast.parse(init.with_suffix(".pyi").read_text(encoding="utf-8"))


def stub_exports(package: str) -> dict[str, str]:
    """name -> absolute module of each ``from .x import Name as Name`` in the package's stub."""
    names: dict[str, str] = {}
    for stmt in stub_of(package).body:
        if isinstance(stmt, ast.ImportFrom):
            for alias in stmt.names:
                name = alias.asname or alias.name
                assert name not in names, f"{package}: {name} named twice in the stub"
                names[name] = f"{package}.{stmt.module}"
    return names


def _fresh(code: str) -> str:
    """What ``code`` prints in a new interpreter (module state, caches and all, untouched)."""
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    return proc.stdout.strip()


@pytest.mark.parametrize("name", PACKAGES)
def test_the_stub_and_the_runtime_name_the_same_things(name: str) -> None:
    package = importlib.import_module(name)
    stub = stub_exports(name)
    assert stub, "the stub names no export"
    eager = {"__version__"} if name == "promptcanary" else set()  # set in __init__.py itself
    assert sorted(package.__all__) == sorted([*stub, *eager])
    assert sorted(dir(package)) == sorted(package.__all__)


@pytest.mark.parametrize("name", PACKAGES)
def test_every_name_is_its_module_s_object(name: str) -> None:
    package = importlib.import_module(name)
    for export, module in stub_exports(name).items():
        assert getattr(package, export) is getattr(importlib.import_module(module), export), export
    with pytest.raises(AttributeError, match="NoSuchThing"):
        package.NoSuchThing  # noqa: B018


@pytest.mark.parametrize("name", PACKAGES)
def test_a_name_is_loaded_once_then_kept_on_the_package(name: str) -> None:
    # A fresh interpreter: in this one another test may have loaded the names already.
    export = sorted(stub_exports(name))[0]
    code = (
        f"import {name} as package\n"
        f"before = {export!r} in vars(package)\n"
        f"value = package.{export}\n"
        f"print(before, vars(package).get({export!r}) is value)\n"
    )
    assert _fresh(code) == "False True"


def test_pipeline_measure_is_the_function_though_it_names_a_module_too() -> None:
    # Importing promptcanary.pipeline.measure (another module does, or a user) makes the import
    # system set the package's `measure` to that module; the name must still be the function.
    code = (
        "import promptcanary.pipeline, importlib, types\n"
        "module = importlib.import_module('promptcanary.pipeline.measure')\n"
        "print(isinstance(module, types.ModuleType), promptcanary.pipeline.measure is module.measure)\n"
    )
    assert _fresh(code) == "True True"


def test_importing_the_packages_builds_nothing() -> None:
    code = (
        "import sys, promptcanary, promptcanary.core.models, promptcanary.core.render\n"
        "import promptcanary.pipeline\n"
        "built = ('pydantic', 'jinja2', 'rich', 'promptcanary.core.models.',\n"
        "         'promptcanary.core.render.', 'promptcanary.pipeline.')\n"
        "print(sorted(m for m in sys.modules if m.startswith(built)))\n"
    )
    assert _fresh(code) == "[]"
