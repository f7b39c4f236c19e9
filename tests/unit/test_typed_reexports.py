"""What type checkers read for the lazily loading packages (the root, ``core.models``,
``core.render``, ``pipeline``): their ``__init__.pyi``, instead of ``__init__.py``. Each public
name must be imported there as ``Name as Name`` (an explicit re-export): without the alias,
``from promptcanary import CanarySuite`` is an error under ``mypy --strict`` in a user's project
(the package ships py.typed). lazy_loader reads the same stub at run time and accepts only
``from .module import ...`` lines."""

from __future__ import annotations

import ast
import importlib

import pytest

from tests.unit.test_lazy_exports import PACKAGES, stub_of


@pytest.mark.parametrize("name", PACKAGES)
def test_every_public_name_is_an_explicit_re_export(name: str) -> None:
    package = importlib.import_module(name)
    imports = [s for s in stub_of(name).body if isinstance(s, ast.ImportFrom)]
    aliases = [alias for stmt in imports for alias in stmt.names]
    assert [a.name for a in aliases if a.asname != a.name] == [], "not imported as `Name as Name`"
    assert set(package.__all__) - {"__version__"} == {a.name for a in aliases}


@pytest.mark.parametrize("name", PACKAGES)
def test_the_stub_holds_only_what_lazy_loader_reads(name: str) -> None:
    for stmt in stub_of(name).body:
        if isinstance(stmt, ast.ImportFrom):
            # level 1, a module, no star: anything else lazy_loader.attach_stub rejects.
            assert (stmt.level, bool(stmt.module)) == (1, True), ast.unparse(stmt)
            assert "*" not in [a.name for a in stmt.names], ast.unparse(stmt)
        else:
            # Only the root's version, which __init__.py sets itself (setuptools reads it there).
            assert name == "promptcanary", ast.unparse(stmt)
            assert ast.unparse(stmt) == "__version__: str"
