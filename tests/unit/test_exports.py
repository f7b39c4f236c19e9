"""The root package ``promptcanary``: its version and its cheap import. (What it exports and how:
tests/unit/test_lazy_exports.py, test_typed_reexports.py.)"""

from __future__ import annotations

import subprocess
import sys

import promptcanary


def test_the_version_is_public_beside_the_lazy_names() -> None:
    assert isinstance(promptcanary.__version__, str)
    assert "__version__" in promptcanary.__all__ and "__version__" in dir(promptcanary)
    assert len(promptcanary.__all__) == len(set(promptcanary.__all__))


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
