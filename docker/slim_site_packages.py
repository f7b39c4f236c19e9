#!/usr/bin/env python3
"""Trim an installed dependency tree to what the Action runs, then byte-compile it (image build).

    python docker/slim_site_packages.py SITE_PACKAGES [--strip] [--report]

Run by the Dockerfile's build stage on the virtual environment made from requirements.lock (pip
installed it with ``--no-compile``). What goes, each measured in docs/benchmarks.md ("Image"):

* the test suites shipped inside numpy and scipy (``tests/`` folders) — never imported;
* LiteLLM's proxy-server web assets (``litellm/proxy/_experimental/out``: the admin UI's static
  build, ``litellm/proxy/swagger``) — a canary runs LiteLLM as a library, never its proxy server;
* C, C++, Cython and Fortran sources, headers and type stubs (``.c .h .pyx .pxd .pyi`` ...),
  needed only to build extensions or to type-check;
* with ``--strip``: symbol tables of the extension modules (``strip --strip-unneeded``; needs
  binutils in the build stage only) — not of the libraries auditwheel vendored in ``*.libs/``,
  which patchelf rewrote and strip would break;
* every ``__pycache__`` left over.

Then everything is byte-compiled (``unchecked-hash`` .pyc: the image is immutable, so Python never
needs to stat a source to trust its bytecode) — except the Python modules of LiteLLM's proxy server
that a LiteLLM call does not load: they are kept as source (a canary never runs them; the few that
another provider might load compile in milliseconds). The ones a call loads (found by a mocked,
offline ``litellm.acompletion``) are compiled too. ``--report`` prints the installed size of each distribution, largest first.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Folders (relative to site-packages) removed whole.
DROP_DIRS = ("litellm/proxy/_experimental/out", "litellm/proxy/swagger")
#: Packages whose ``tests`` / ``testing/tests`` folders are removed.
TEST_PACKAGES = ("numpy", "scipy")
#: File suffixes never needed at run time.
DROP_SUFFIXES = (
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".h",
    ".hpp",
    ".pyx",
    ".pxd",
    ".pxi",
    ".pyi",
    ".f",
    ".f90",
)
#: Python sources under here are not byte-compiled unless `import litellm` loads them.
LAZY_SOURCES = "litellm/proxy/"


def _size(path: Path) -> int:
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def _remove(path: Path) -> int:
    size = _size(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    return size


def prune(site: Path) -> dict[str, int]:
    """Remove what the Action never uses; bytes freed per category."""
    freed = {
        "tests": 0,
        "litellm proxy web assets": 0,
        "sources, headers, stubs": 0,
        "__pycache__": 0,
    }
    for rel in DROP_DIRS:
        if (site / rel).exists():
            freed["litellm proxy web assets"] += _remove(site / rel)
    for pkg in TEST_PACKAGES:
        for tests in sorted((site / pkg).rglob("tests"), reverse=True):
            if tests.is_dir():
                freed["tests"] += _remove(tests)
    for path in sorted(site.rglob("*")):
        if path.is_file() and path.suffix in DROP_SUFFIXES:
            freed["sources, headers, stubs"] += _remove(path)
    for cache in sorted(site.rglob("__pycache__"), reverse=True):
        if cache.is_dir():
            freed["__pycache__"] += _remove(cache)
    return freed


def strip(site: Path) -> int:
    """``strip --strip-unneeded`` every shared library; bytes saved."""
    tool = shutil.which("strip")
    if tool is None:
        raise SystemExit("--strip needs binutils' strip")
    saved = 0
    for lib in sorted(site.rglob("*.so*")):
        if not lib.is_file() or lib.is_symlink() or not (lib.suffix == ".so" or ".so." in lib.name):
            continue
        if any(part.endswith(".libs") for part in lib.relative_to(site).parts):
            # Libraries vendored by auditwheel (numpy.libs/, scipy.libs/ ...) were rewritten by
            # patchelf: strip leaves them unloadable ("ELF load command ... not page-aligned").
            continue
        before = lib.stat().st_size
        subprocess.run([tool, "--strip-unneeded", str(lib)], check=True)
        saved += before - lib.stat().st_size
    return saved


#: A model call that never leaves the process (LiteLLM's mock_response), to see what a call loads.
_MOCK_CALL = """
import asyncio, json, sys
import litellm
asyncio.run(litellm.acompletion(model="openai/gpt-4o-mini", api_key="sk-none", mock_response="ok",
                                messages=[{"role": "user", "content": "hi"}]))
print(json.dumps(sorted({getattr(m, "__file__", None) or "" for m in list(sys.modules.values())})))
"""


def _loaded_lazy_modules(site: Path) -> list[Path]:
    """Files under LAZY_SOURCES that a (mocked, offline) LiteLLM call loads, in a child process."""
    code = _MOCK_CALL
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONDONTWRITEBYTECODE": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout
    prefix = str(site / LAZY_SOURCES)
    return [Path(f) for f in json.loads(out.splitlines()[-1]) if f.startswith(prefix)]


def compile_tree(site: Path) -> int:
    """Byte-compile ``site`` (see the module docstring); number of lazy modules compiled too."""
    mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
    skip = re.compile(re.escape(str(site / LAZY_SOURCES)))
    ok = compileall.compile_dir(str(site), quiet=1, workers=0, rx=skip, invalidation_mode=mode)
    if not ok:
        raise SystemExit("byte-compiling failed")
    loaded = _loaded_lazy_modules(site)
    for path in loaded:
        py_compile.compile(str(path), doraise=True, invalidation_mode=mode)
    return len(loaded)


def report(site: Path) -> None:
    """Installed size of each distribution (files listed in its RECORD), largest first."""
    from importlib.metadata import distributions

    rows = []
    for dist in distributions(path=[str(site)]):
        total = 0
        for f in dist.files or []:
            p = Path(str(dist.locate_file(f)))
            if p.is_file():
                total += p.stat().st_size
        # .pyc written after install are not in RECORD: count each package's __pycache__ too.
        for f in dist.files or []:
            if str(f).endswith(".py") and not str(f).startswith(".."):
                src = site / str(f)
                cache = src.parent / "__pycache__"
                if cache.is_dir():
                    total += sum(p.stat().st_size for p in cache.glob(f"{src.stem}.*.pyc"))
        rows.append((total, dist.metadata["Name"], dist.version))
    rows.sort(reverse=True)
    print(f"{'MB':>7}  distribution")
    for total, name, version in rows:
        print(f"{total / 1e6:7.1f}  {name} {version}")
    print(f"{sum(r[0] for r in rows) / 1e6:7.1f}  total ({len(rows)} distributions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("site", type=Path)
    parser.add_argument("--strip", action="store_true", help="strip shared libraries")
    parser.add_argument("--no-compile", action="store_true", help="prune only")
    parser.add_argument("--report", action="store_true", help="print sizes per distribution")
    args = parser.parse_args()
    site = args.site.resolve()
    before = _size(site)
    freed = prune(site)
    if args.strip:
        freed["shared-library symbols"] = strip(site)
    for what, n in freed.items():
        print(f"slim: {what}: -{n / 1e6:.1f} MB")
    if not args.no_compile:
        lazy = compile_tree(site)
        print(
            f"slim: byte-compiled (unchecked-hash), incl. {lazy} LiteLLM proxy modules a call loads"
        )
    print(f"slim: {before / 1e6:.1f} MB -> {_size(site) / 1e6:.1f} MB")
    if args.report:
        report(site)


if __name__ == "__main__":
    main()
