# The PromptCanary GitHub Action (action.yml: runs.using docker). Releases publish this image
# prebuilt to ghcr.io and pin it by digest in the release's action.yml (docs/releasing.md); on main,
# `image: Dockerfile` builds it from source.
#
# Two stages. The build stage installs the dependencies from requirements.lock, hash-checked
# (--require-hashes) and without resolution (--no-deps), so nothing unlocked can slip in; `pip
# check` proves the locked set complete. Every package comes as a wheel: no compiler. Then
# docker/slim_site_packages.py removes what the Action never runs (numpy/scipy test suites,
# LiteLLM's proxy web UI, C sources, headers, stubs), strips extension modules' symbols and
# byte-compiles the rest. The final stage is the slim Python image plus that virtual environment
# and the package: no git (nothing runs it), no pip cache, no build tools.
# Sizes and what each part costs: docs/benchmarks.md ("Image").
#
# The package is copied next to entrypoint.py, not installed. No WORKDIR reliance: the runner
# mounts the workspace at /github/workspace and sets the working directory; every path comes from
# GITHUB_WORKSPACE and the inputs. Runs as root, as GitHub requires for Docker actions; it writes
# only its report files (and, when promoting, the new baseline file in the workspace).
FROM python:3.11-slim-bookworm AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    PYTHONDONTWRITEBYTECODE=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True

# binutils (strip) in this stage only. Debian security updates change its exact version.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends binutils \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.lock /tmp/requirements.lock
RUN python -m venv --without-pip /opt/venv \
    && python -m pip --python /opt/venv/bin/python install --no-compile --require-hashes \
        --no-deps --only-binary=:all: -r /tmp/requirements.lock \
    && python -m pip --python /opt/venv/bin/python check

COPY docker/slim_site_packages.py /tmp/slim_site_packages.py
RUN /opt/venv/bin/python /tmp/slim_site_packages.py --strip --report \
        "$(/opt/venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"

COPY promptcanary /opt/promptcanary/promptcanary
COPY entrypoint.py /opt/promptcanary/entrypoint.py
RUN python -m compileall -q --invalidation-mode unchecked-hash /opt/promptcanary


FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    PATH=/opt/venv/bin:$PATH \
    PYTHONPATH=/opt/promptcanary

COPY --from=build /opt/venv /opt/venv
COPY --from=build /opt/promptcanary /opt/promptcanary

ENTRYPOINT ["/opt/venv/bin/python", "/opt/promptcanary/entrypoint.py"]
