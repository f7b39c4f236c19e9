"""The public names of ``promptcanary``: ``__all__``, the lazy export table and the
``TYPE_CHECKING`` imports (what IDEs and mypy see) must list the same names from the same modules,
and importing the package must stay cheap."""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import promptcanary

INIT = Path(promptcanary.__file__)


def _type_checking_imports() -> dict[str, str]:
    """name -> module of every import inside ``if TYPE_CHECKING:`` in promptcanary/__init__.py."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    blocks = [
        node
        for node in tree.body
        if isinstance(node, ast.If)
        and isinstance(node.test, ast.Name)
        and node.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1, "expected exactly one `if TYPE_CHECKING:` block"
    names: dict[str, str] = {}
    for stmt in blocks[0].body:
        assert isinstance(stmt, ast.ImportFrom) and stmt.module, ast.dump(stmt)
        for alias in stmt.names:
            name = alias.asname or alias.name
            assert name not in names, f"{name} imported twice under TYPE_CHECKING"
            names[name] = stmt.module
    return names


def test_all_lazy_table_and_type_checking_list_agree() -> None:
    lazy = promptcanary._EXPORTS
    typed = _type_checking_imports()
    assert sorted(promptcanary.__all__) == sorted(["__version__", *lazy])
    assert len(promptcanary.__all__) == len(set(promptcanary.__all__))
    assert set(typed) == set(lazy), {
        "only in TYPE_CHECKING": sorted(set(typed) - set(lazy)),
        "only in the lazy table": sorted(set(lazy) - set(typed)),
    }
    # Same module on both sides, so the type checker sees the object users get.
    mismatched = {n: (typed[n], lazy[n]) for n in lazy if typed[n] != lazy[n]}
    assert not mismatched


def test_every_export_resolves_to_the_object_of_its_module() -> None:
    for name, module in promptcanary._EXPORTS.items():
        value = getattr(promptcanary, name)
        assert value is getattr(importlib.import_module(module), name), name
    assert set(dir(promptcanary)) >= set(promptcanary.__all__)


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        promptcanary.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_importing_the_package_loads_nothing_heavy() -> None:
    code = (
        "import sys, promptcanary\n"
        "heavy = ('litellm', 'scipy', 'jinja2', 'promptcanary.core.probes', 'pydantic')\n"
        "print(sorted(m for m in sys.modules if m.startswith(heavy)))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "[]", proc.stdout


def test_probe_export_does_not_load_litellm() -> None:
    code = (
        "import sys\n"
        "from promptcanary import JsonValidityProbe, ToolCallSchemaProbe\n"
        "print('litellm' in sys.modules, 'scipy' in sys.modules)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert proc.stdout.strip() == "False False", proc.stdout
