#!/usr/bin/env python3
"""Trim an installed dependency tree to what the Action runs, then byte-compile it (image build).

    python docker/slim_site_packages.py SITE_PACKAGES [--strip] [--report]

Run with the target environment's interpreter by the Dockerfile's build stage, on the virtual
environment made from requirements.lock (pip installed it with ``--no-compile``). What goes, each
measured in docs/benchmarks.md ("Image"):

* the test suites inside numpy and scipy (``tests/`` folders) — never imported;
* scipy subpackages that ``import scipy.stats`` does not load (``io``, ``signal``, ``cluster``,
  ``odr``, ``fftpack``, ``misc``, ``datasets``, ``differentiate``) and ``numpy.distutils`` —
  PromptCanary uses scipy.stats only;
* LiteLLM's proxy-server web assets (``litellm/proxy/_experimental/out``: the admin UI's static
  build, ``litellm/proxy/swagger``) — a canary runs LiteLLM as a library, never its proxy server;
* botocore's API models of AWS services that LiteLLM never names (LiteLLM uses botocore for
  Bedrock and SageMaker): a service's model is kept when its name appears as a string in LiteLLM's
  sources, or when credentials need it (sts, sso, sso-oidc);
* C, C++, Cython and Fortran sources, headers and type stubs (``.c .h .pyx .pxd .pyi`` ...),
  needed only to build extensions or to type-check;
* with ``--strip``: symbol tables of the extension modules (``strip --strip-unneeded``; needs
  binutils in the build stage only) — not of the libraries auditwheel vendored in ``*.libs/``,
  which patchelf rewrote and strip would break;
* identical copies of large files (numpy and scipy vendor the same libgfortran) become hard links;
* every ``__pycache__`` left over.

Then everything is byte-compiled (``unchecked-hash`` .pyc: the image is immutable, so Python never
needs to stat a source to trust its bytecode), except the modules of LiteLLM's proxy server that a
LiteLLM call does not load: those stay source (a canary never runs them). The ones a call loads
are compiled too: they are found by the self-check that runs first, in a child process, using what
PromptCanary needs from each trimmed package (scipy.stats' tests, a LiteLLM call — mocked, offline
— and Bedrock clients), so that a cut too deep fails the build, not a user's run. ``--report`` prints the
installed size of each distribution, largest first.
"""

from __future__ import annotations

import argparse
import compileall
import hashlib
import json
import os
import py_compile
import re
import shutil
import subprocess
import sys
from pathlib import Path

#: Folders (relative to site-packages) removed whole.
DROP_DIRS = (
    "litellm/proxy/_experimental/out",
    "litellm/proxy/swagger",
    "numpy/distutils",
    *(
        f"scipy/{sub}"
        for sub in (
            "io",
            "signal",
            "cluster",
            "odr",
            "fftpack",
            "misc",
            "datasets",
            "differentiate",
        )
    ),
)
#: Packages whose ``tests`` folders are removed.
TEST_PACKAGES = ("numpy", "scipy")
#: File suffixes never needed at run time.
DROP_SUFFIXES = frozenset(
    (".c", ".cc", ".cpp", ".cxx", ".h", ".hpp", ".pyx", ".pxd", ".pxi", ".pyi", ".f", ".f90")
)
#: AWS services whose models botocore needs for credentials (assume-role, SSO profiles).
AWS_CREDENTIAL_SERVICES = frozenset(("sts", "sso", "sso-oidc"))
#: Python sources under here are not byte-compiled unless a LiteLLM call loads them.
LAZY_SOURCES = "litellm/proxy/"

#: Run in a child interpreter (the target environment's) after pruning: uses what PromptCanary
#: needs from each trimmed package, then prints the files every import so far loaded (a LiteLLM
#: call included: LiteLLM's mock_response never leaves the process).
_SELF_CHECK = """
import asyncio, json, sys
from scipy.stats import binom, false_discovery_control, hypergeom, mannwhitneyu
assert 0 < binom.sf(3, 10, 0.5) < 1 and 0 < hypergeom.pmf(2, 20, 7, 12) < 1
assert 0 < mannwhitneyu([1, 2, 3, 4], [3, 4, 5, 6, 7]).pvalue <= 1
assert len(false_discovery_control([0.01, 0.02, 0.5])) == 3
import litellm, github, jinja2, rich, typer, yaml, jsonschema, regex, pydantic
r = asyncio.run(litellm.acompletion(model="openai/gpt-4o-mini", api_key="sk-none",
                                    mock_response="ok", messages=[{"role": "user", "content": "hi"}]))
assert r.choices[0].message.content == "ok"
import boto3
for service in ("bedrock-runtime", "bedrock", "sagemaker-runtime", "sts"):
    boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="y",
                          region_name="us-east-1").client(service)
print("self-check ok")
print(json.dumps(sorted({getattr(m, "__file__", None) or "" for m in list(sys.modules.values())})))
"""


def _size(path: Path) -> int:
    """Bytes under ``path``, each hard-linked file once."""
    if path.is_file() or path.is_symlink():
        return path.lstat().st_size
    inodes = {}
    for p in path.rglob("*"):
        if p.is_file() and not p.is_symlink():
            st = p.lstat()
            inodes[(st.st_dev, st.st_ino)] = st.st_size
    return sum(inodes.values())


def _remove(path: Path) -> int:
    size = _size(path)
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink()
    return size


def _child(code: str) -> str:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    ).stdout


def _unused_aws_models(site: Path) -> list[Path]:
    """botocore/data/<service> folders whose service name LiteLLM's sources never mention."""
    data = site / "botocore" / "data"
    if not data.is_dir() or not (site / "litellm").is_dir():
        return []
    named: set[str] = set(AWS_CREDENTIAL_SERVICES)
    for source in (site / "litellm").rglob("*.py"):
        text = source.read_text(encoding="utf-8", errors="replace")
        named.update(re.findall(r"""["']([a-z0-9][a-z0-9-]*)["']""", text))
    return [d for d in sorted(data.iterdir()) if d.is_dir() and d.name not in named]


def prune(site: Path) -> dict[str, int]:
    """Remove what the Action never uses; bytes freed per category."""
    freed = dict.fromkeys(
        (
            "numpy/scipy tests",
            "unused scipy subpackages, numpy.distutils",
            "litellm proxy web assets",
            "botocore models of unused AWS services",
            "sources, headers, stubs",
            "__pycache__",
        ),
        0,
    )
    for rel in DROP_DIRS:
        if (site / rel).exists():
            key = (
                "litellm proxy web assets"
                if rel.startswith("litellm")
                else ("unused scipy subpackages, numpy.distutils")
            )
            freed[key] += _remove(site / rel)
    for pkg in TEST_PACKAGES:
        for tests in sorted((site / pkg).rglob("tests"), reverse=True):
            if tests.is_dir():
                freed["numpy/scipy tests"] += _remove(tests)
    for model in _unused_aws_models(site):
        freed["botocore models of unused AWS services"] += _remove(model)
    for path in sorted(site.rglob("*")):
        if path.is_file() and path.suffix in DROP_SUFFIXES:
            freed["sources, headers, stubs"] += _remove(path)
    for cache in sorted(site.rglob("__pycache__"), reverse=True):
        if cache.is_dir():
            freed["__pycache__"] += _remove(cache)
    return freed


def strip(site: Path) -> int:
    """``strip --strip-unneeded`` every extension module; bytes saved."""
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


def link_duplicates(site: Path, min_size: int = 256 * 1024) -> int:
    """Hard-link identical large files to one copy (a layer stores a hard link once); bytes saved."""
    seen: dict[tuple[int, str], Path] = {}
    saved = 0
    for path in sorted(site.rglob("*")):
        if not path.is_file() or path.is_symlink() or path.stat().st_size < min_size:
            continue
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        key = (path.stat().st_size, digest)
        first = seen.setdefault(key, path)
        if first is not path and not first.samefile(path):
            path.unlink()
            os.link(first, path)
            saved += key[0]
    return saved


def self_check(site: Path) -> list[Path]:
    """Run _SELF_CHECK (raises when a cut went too deep); the files it loaded."""
    out = _child(_SELF_CHECK).strip().splitlines()
    if len(out) < 2 or out[-2] != "self-check ok":
        raise SystemExit(f"self-check failed: {out}")
    return [Path(f) for f in json.loads(out[-1]) if f]


def compile_tree(site: Path, loaded: list[Path]) -> int:
    """Byte-compile ``site`` but LAZY_SOURCES, then the ``loaded`` files under it; how many."""
    mode = py_compile.PycInvalidationMode.UNCHECKED_HASH
    skip = re.compile(re.escape(str(site / LAZY_SOURCES)))
    if not compileall.compile_dir(str(site), quiet=1, workers=0, rx=skip, invalidation_mode=mode):
        raise SystemExit("byte-compiling failed")
    prefix = str(site / LAZY_SOURCES)
    lazy = [path for path in loaded if str(path).startswith(prefix) and path.suffix == ".py"]
    for path in lazy:
        py_compile.compile(str(path), doraise=True, invalidation_mode=mode)
    return len(lazy)


def report(site: Path) -> None:
    """Installed size of each distribution (its RECORD's files and their .pyc), largest first."""
    from importlib.metadata import distributions

    rows = []
    for dist in distributions(path=[str(site)]):
        files: set[Path] = set()
        for f in dist.files or []:
            p = Path(str(dist.locate_file(f)))
            if p.is_file():
                files.add(p)
            if p.suffix == ".py" and not str(f).startswith(".."):
                cache = p.parent / "__pycache__"
                if cache.is_dir():
                    files.update(cache.glob(f"{p.stem}.*.pyc"))
        total = sum(p.stat().st_size for p in files)
        rows.append((total, dist.metadata["Name"], dist.version))
    rows.sort(reverse=True)
    print(f"{'MB':>7}  distribution")
    for total, name, version in rows:
        print(f"{total / 1e6:7.1f}  {name} {version}")
    print(f"{sum(r[0] for r in rows) / 1e6:7.1f}  total ({len(rows)} distributions)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("site", type=Path)
    parser.add_argument("--strip", action="store_true", help="strip extension modules")
    parser.add_argument("--no-compile", action="store_true", help="prune only")
    parser.add_argument("--report", action="store_true", help="print sizes per distribution")
    args = parser.parse_args()
    site = args.site.resolve()
    before = _size(site)
    freed = prune(site)
    if args.strip:
        freed["extension modules' symbols"] = strip(site)
    freed["duplicate files (hard-linked)"] = link_duplicates(site)
    for what, n in freed.items():
        print(f"slim: {what}: -{n / 1e6:.1f} MB")
    loaded = self_check(site)
    print("slim: self-check ok (scipy.stats, a LiteLLM call, Bedrock clients)")
    if not args.no_compile:
        lazy = compile_tree(site, loaded)
        print(
            f"slim: byte-compiled (unchecked-hash), incl. {lazy} LiteLLM proxy modules a call loads"
        )
    print(f"slim: {before / 1e6:.1f} MB -> {_size(site) / 1e6:.1f} MB")
    if args.report:
        report(site)


if __name__ == "__main__":
    main()
