#!/usr/bin/env bash
# The Python versions pyproject.toml claims, each tested: for every interpreter under
# $(pyenv root)/versions (or each given as an argument) that requires-python admits, a venv
# .venvXY in the checkout (git-ignored; reused while it holds the same Python), the package
# installed as the README's test command installs it, and the quick subset run in it. Prints one
# line per version: the tests passed / failed, how long they took, and the install's time.
#
#   bash .ci/pythons.sh                         # every version pyenv has
#   bash .ci/pythons.sh 3.10.13 3.13.0          # these, by their name under $(pyenv root)/versions
#   bash .ci/pythons.sh /usr/bin/python3.12     # or interpreters, by path
#
# Not part of .ci/run: each version costs an install and a 1.5-2.5 min test run on two cores.
# PYTHONS_WORKERS sets pytest-xdist's workers (default 2). Each version's install and test output
# goes to ${TMPDIR:-/tmp}/promptcanary-pythons/<version>.log. Exit 0 when every version tested passed, 1 when one failed
# (or could not be installed), 2 on an argument that is no interpreter.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1 LITELLM_LOCAL_MODEL_COST_MAP=True
workers=${PYTHONS_WORKERS:-2}
# Outside the checkout: a test (test_fuzz_inputs) fails when a file in it changes while it runs.
logs=${TMPDIR:-/tmp}/promptcanary-pythons

# requires-python = ">=3.10": the oldest version the package claims.
minimum=$(sed -n 's/^requires-python = ">=\([0-9][0-9]*\)\.\([0-9][0-9]*\)"$/\1 \2/p' pyproject.toml)
if [ -z "$minimum" ]; then
  echo 'pythons: pyproject.toml has no requires-python = ">=X.Y" line to read the oldest version from' >&2
  exit 2
fi
read -r min_major min_minor <<<"$minimum"

pyenv_root() {
  if command -v pyenv >/dev/null 2>&1; then pyenv root; else echo "${PYENV_ROOT:-$HOME/.pyenv}"; fi
}

# The interpreter of a pyenv version folder: bin/python3, or bin/python (Python 2 has no python3).
in_version() {
  if [ -x "$1/bin/python3" ]; then echo "$1/bin/python3"; else echo "$1/bin/python"; fi
}

interpreters=()
if [ $# -gt 0 ]; then
  for arg in "$@"; do
    if [[ "$arg" == */* ]]; then
      python=$arg
    else
      python=$(in_version "$(pyenv_root)/versions/$arg")
    fi
    if [ ! -x "$python" ] || [ -d "$python" ]; then
      echo "pythons: '$arg' is no Python interpreter (looked for $python); give a path to one, or a name under $(pyenv_root)/versions" >&2
      exit 2
    fi
    interpreters+=("$python")
  done
else
  versions=$(pyenv_root)/versions
  if [ ! -d "$versions" ]; then
    echo "pythons: no $versions (pyenv not installed?); give the interpreters to test as arguments" >&2
    exit 2
  fi
  while IFS= read -r dir; do
    python=$(in_version "$dir")
    if [ -x "$python" ]; then
      interpreters+=("$python")
    fi
  done < <(printf '%s\n' "$versions"/* | sort -V)
  if [ ${#interpreters[@]} -eq 0 ]; then
    echo "pythons: no interpreter under $versions/*/bin; give the interpreters to test as arguments" >&2
    exit 2
  fi
fi

duration() {
  local s=$1
  if [ "$s" -ge 60 ]; then printf '%d min %02d s' $((s / 60)) $((s % 60)); else printf '%d s' "$s"; fi
}

# A count from pytest's last line ("2391 passed, 1 failed, 2 errors in 120.91s"), 0 if absent;
# $1 is a regex for the word.
count() {
  local n
  n=$(tail -n 1 "$2" | grep -oE "[0-9]+ $1" | cut -d' ' -f1 || true)
  echo "${n:-0}"
}

echo "== test dependencies beyond Python packages (.ci/install-test-deps.sh)"
bash .ci/install-test-deps.sh >/dev/null
mkdir -p "$logs"

failed=0
for python in "${interpreters[@]}"; do
  # print() with one argument: Python 2 answers too, and is then skipped.
  version=$("$python" -c 'import sys; print(".".join(str(n) for n in sys.version_info[:3]))')
  read -r major minor <<<"$("$python" -c 'import sys; print("%d %d" % sys.version_info[:2])')"
  if [ "$major" -lt "$min_major" ] || { [ "$major" -eq "$min_major" ] && [ "$minor" -lt "$min_minor" ]; }; then
    printf '%-8s skipped: requires-python is >=%s.%s\n' "$version" "$min_major" "$min_minor"
    continue
  fi
  venv=.venv$major$minor
  log=$logs/$version.log
  # A venv of another patch release (or a broken one) is made again.
  if [ "$("$venv/bin/python" -c 'import platform; print(platform.python_version())' 2>/dev/null)" != "$version" ]; then
    rm -rf "$venv"
    "$python" -m venv "$venv"
  fi
  started=$(date +%s)
  if ! { "$venv/bin/python" -m pip install -q --upgrade pip \
    && "$venv/bin/python" -m pip install -q -e ".[dev]"; } >"$log" 2>&1; then
    printf '%-8s FAILED: install failed after %s (%s)\n' "$version" "$(duration $(($(date +%s) - started)))" "$log"
    failed=1
    continue
  fi
  installed=$(($(date +%s) - started))
  started=$(date +%s)
  status=0
  "$venv/bin/python" -m pytest -m "not e2e and not browser" -n "$workers" --dist loadfile \
    --no-loadscope-reorder -q -p no:cacheprovider >>"$log" 2>&1 || status=$?
  took=$(($(date +%s) - started))
  passed=$(count passed "$log")
  failures=$(( $(count failed "$log") + $(count 'errors?' "$log") ))
  if [ "$status" -eq 0 ]; then verdict=passed; else verdict=FAILED; failed=1; fi
  printf '%-8s %-6s %5d passed %3d failed  tests %s  (install %s, %s)\n' \
    "$version" "$verdict" "$passed" "$failures" "$(duration "$took")" "$(duration "$installed")" "$log"
done
exit "$failed"
