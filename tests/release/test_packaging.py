"""The published artefacts: build the sdist and wheel, check them, install the wheel, run it.

This is what the release workflow's `dist` job does before publishing to PyPI. The wheel goes into
a fresh venv with `--no-deps`; its dependencies come from the running environment's site-packages,
added to the new venv's path *after* its own (a plain path entry: the running environment's
editable install of this checkout is not activated), so the test needs no download beyond the
build backend and proves that the installed wheel — not this checkout — answers.
"""

from __future__ import annotations

import email
import os
import re
import shlex
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DIST_NAME = "promptcanary-drift"
#: The packages' type stubs (the lazily loading packages' __init__.pyi), as archive paths.
STUBS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "promptcanary").rglob("*.pyi"))
# Also e2e: a build and a fresh venv take tens of seconds, so the quick subset
# (-m "not e2e and not browser") leaves them to the full run.
pytestmark = [pytest.mark.packaging, pytest.mark.e2e]


def _run(cmd: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTHONPATH", None)
    return subprocess.run(
        cmd, capture_output=True, text=True, check=False, env=env, timeout=600, **kwargs
    )  # type: ignore[call-overload]


def _readme_quickstart() -> list[str]:
    """The README's try-it command, without its `pip install ... &&` prefix."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Try it", 1)[1]
    block = re.search(r"```bash\n(.+?)\n```", section, re.S)
    assert block is not None
    command = block.group(1).strip().split("&&")[-1].strip()
    assert command.startswith("promptcanary compare"), command
    return shlex.split(command)


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    # No --sdist/--wheel: build makes the sdist, then the wheel from the unpacked sdist, which
    # proves the sdist complete (and leaves no build/ folder in the checkout).
    built = _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)])
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    wheels, sdists = sorted(out.glob("*.whl")), sorted(out.glob("*.tar.gz"))
    assert len(wheels) == 1 and len(sdists) == 1, list(out.iterdir())
    return {"wheel": wheels[0], "sdist": sdists[0]}


def test_metadata_and_contents(dists: dict[str, Path]) -> None:
    from promptcanary import __version__

    wheel, sdist = dists["wheel"], dists["sdist"]
    assert wheel.name == f"promptcanary_drift-{__version__}-py3-none-any.whl"
    assert sdist.name == f"promptcanary_drift-{__version__}.tar.gz"
    checked = _run([sys.executable, "-m", "twine", "check", "--strict", str(wheel), str(sdist)])
    assert checked.returncode == 0, checked.stdout + checked.stderr

    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        info = f"promptcanary_drift-{__version__}.dist-info"
        meta = email.message_from_bytes(zf.read(f"{info}/METADATA"))
        entry_points = zf.read(f"{info}/entry_points.txt").decode()
    assert meta["Name"] == DIST_NAME
    assert meta["Version"] == __version__
    assert meta["License-Expression"] == "MIT"
    assert not [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    assert "Typing :: Typed" in (meta.get_all("Classifier") or [])
    assert any(
        u.startswith("Repository, https://github.com/") for u in meta.get_all("Project-URL") or []
    )
    assert "promptcanary = promptcanary.cli:main" in entry_points
    assert f"{info}/licenses/LICENSE" in names
    assert "promptcanary/py.typed" in names
    # The stubs: what type checkers read for the lazily loading packages, and what lazy_loader
    # reads at import (without them `import promptcanary` fails).
    assert STUBS and set(STUBS) <= names
    assert any(n.startswith("promptcanary/core/templates/") for n in names)
    assert not [n for n in names if n.startswith(("tests/", "examples/", "benchmarks/"))]

    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert {"pyproject.toml", "README.md", "LICENSE", "promptcanary/py.typed", *STUBS} <= members


def test_wheel_installs_and_runs_the_readme_quickstart(
    dists: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(target)
    python = target / "bin" / "python"
    site = Path(
        _run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
        ).stdout.strip()
    )
    # The running environment's packages (the wheel's dependencies), after the venv's own.
    (site / "zz_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = _run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--no-cache-dir",
            "-q",
            str(dists["wheel"]),
        ]
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr

    script = target / "bin" / "promptcanary"
    where = _run(
        [str(python), "-c", "import promptcanary; print(promptcanary.__file__)"], cwd=tmp_path
    )
    assert where.stdout.strip().startswith(str(site)), where.stdout + where.stderr

    version = _run([str(script), "version"], cwd=tmp_path)
    from promptcanary import __version__

    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"PromptCanary {__version__}"

    args = _readme_quickstart()
    compared = _run([str(script), *args[1:]], cwd=ROOT)
    assert compared.returncode == 0, compared.stdout[-2000:] + compared.stderr[-2000:]
    assert "regression" in compared.stdout.lower(), compared.stdout[-2000:]

    # Every dependency the wheel declares is satisfied (here, by the running environment).
    checked = _run([sys.executable, "-m", "pip", "--python", str(python), "check"])
    assert checked.returncode == 0, checked.stdout + checked.stderr
