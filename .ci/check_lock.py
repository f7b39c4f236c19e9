#!/usr/bin/env python3
"""Check that requirements.lock (the Docker image's hash-locked dependencies) matches pyproject.

    python .ci/check_lock.py            # check (CI): exit 1 with what is wrong
    python .ci/check_lock.py --update   # regenerate the lock with `uv pip compile --generate-hashes`

The lock is in sync when:
1. its header records the sha256 of pyproject's ``[project].dependencies`` as they are now (any
   edit to them — a new package, a changed bound — needs a regenerated lock);
2. every dependency of pyproject is pinned in the lock (``name==version``) at a version its
   specifier allows (so a poisoned release excluded in pyproject can never be locked);
3. every pinned package carries at least one ``--hash`` (pip's ``--require-hashes`` needs them).
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LOCK = ROOT / "requirements.lock"
#: The Docker image's Python (see Dockerfile).
PYTHON_VERSION = "3.11"
FINGERPRINT_PREFIX = "# pyproject-dependencies-sha256: "
COMPILE_COMMAND = "python .ci/check_lock.py --update"


def _module(*names: str) -> Any:
    """The first of ``names`` that imports (tomllib / tomli, packaging / pip's vendored copy)."""
    for name in names:
        try:
            return importlib.import_module(name)
        except ModuleNotFoundError:
            continue
    raise ModuleNotFoundError(f"none of {', '.join(names)} is installed")


def _specifiers() -> tuple[Any, Any]:
    """(Requirement, canonicalize_name) from packaging, or the copy pip always vendors."""
    requirements = _module("packaging.requirements", "pip._vendor.packaging.requirements")
    utils = _module("packaging.utils", "pip._vendor.packaging.utils")
    return requirements.Requirement, utils.canonicalize_name


def dependencies() -> list[str]:
    """pyproject's runtime dependencies, as written."""
    toml = _module("tomllib", "tomli")  # tomli on Python 3.10
    data = toml.loads(PYPROJECT.read_text(encoding="utf-8"))
    return list(data["project"]["dependencies"])


def fingerprint(deps: list[str]) -> str:
    """sha256 of the dependency list (order and whitespace insensitive)."""
    canonical = json.dumps(sorted(" ".join(d.split()) for d in deps))
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def parse_lock(text: str) -> dict[str, tuple[str, int]]:
    """canonical name -> (pinned version, number of hashes)."""
    _, canonicalize_name = _specifiers()
    pins: dict[str, tuple[str, int]] = {}
    current: str | None = None
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip().rstrip("\\").strip()
        if not line:
            continue
        m = re.match(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;]+)", line)
        if m:
            current = canonicalize_name(m.group(1))
            pins[current] = (m.group(2), 0)
            line = line[m.end() :]
        hashes = len(re.findall(r"--hash=sha256:[0-9a-f]{64}", line))
        if hashes and current is not None:
            version, count = pins[current]
            pins[current] = (version, count + hashes)
    return pins


def check() -> list[str]:
    """Every problem found (empty when the lock is in sync)."""
    if not LOCK.is_file():
        return [f"{LOCK.name} is missing: run `{COMPILE_COMMAND}`"]
    requirement, canonicalize_name = _specifiers()
    text = LOCK.read_text(encoding="utf-8")
    deps = dependencies()
    problems = []
    recorded = next(
        (
            ln[len(FINGERPRINT_PREFIX) :].strip()
            for ln in text.splitlines()
            if ln.startswith(FINGERPRINT_PREFIX)
        ),
        None,
    )
    if recorded != fingerprint(deps):
        problems.append(
            "pyproject's dependencies changed since the lock was generated "
            f"(recorded {recorded or 'nothing'}, now {fingerprint(deps)})"
        )
    pins = parse_lock(text)
    if not pins:
        problems.append(f"{LOCK.name} pins no package")
    for dep in deps:
        req = requirement(dep)
        if req.marker is not None and not req.marker.evaluate({"python_version": PYTHON_VERSION}):
            continue
        name = canonicalize_name(req.name)
        if name not in pins:
            problems.append(f"{req.name} (from pyproject) is not pinned in {LOCK.name}")
        elif not req.specifier.contains(pins[name][0], prereleases=True):
            problems.append(
                f"{req.name}=={pins[name][0]} in {LOCK.name} does not satisfy pyproject's '{dep}'"
            )
    for name, (version, hashes) in sorted(pins.items()):
        if hashes == 0:
            problems.append(f"{name}=={version} has no --hash (pip --require-hashes needs one)")
    return problems


def update() -> None:
    """Regenerate the lock for the image's Python on Linux, hashes for every file."""
    uv = shutil.which("uv")
    if uv is None:
        sys.exit("`uv` is needed to regenerate the lock: pip install uv")
    deps = dependencies()
    result = subprocess.run(
        [
            uv,
            "pip",
            "compile",
            "-",
            "--generate-hashes",
            "--python-version",
            PYTHON_VERSION,
            "--python-platform",
            "linux",
            "--no-header",
            "--quiet",
            "--index-url",
            "https://pypi.org/simple",
        ],
        input="\n".join(deps) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.exit(result.stderr)
    header = (
        "# Hash-locked runtime dependencies of the PromptCanary GitHub Action's Docker image\n"
        f"# (Python {PYTHON_VERSION}, Linux), resolved from pyproject.toml [project].dependencies.\n"
        f"# Regenerate with: {COMPILE_COMMAND}   (CI checks it is in sync: .ci/check_lock.py)\n"
        f"{FINGERPRINT_PREFIX}{fingerprint(deps)}\n"
    )
    LOCK.write_text(header + result.stdout, encoding="utf-8")
    print(f"wrote {LOCK.relative_to(ROOT)} ({len(parse_lock(result.stdout))} packages)")


def main() -> None:
    if "--update" in sys.argv[1:]:
        update()
    problems = check()
    if problems:
        print(f"{LOCK.name} is out of sync with pyproject.toml:", file=sys.stderr)
        for problem in problems:
            print(f"  - {problem}", file=sys.stderr)
        print(f"Fix: `{COMPILE_COMMAND}` (needs uv) and commit the result.", file=sys.stderr)
        sys.exit(1)
    print(
        f"{LOCK.name} is in sync with pyproject.toml ({len(parse_lock(LOCK.read_text()))} "
        "packages, all hashed)"
    )


if __name__ == "__main__":
    main()
