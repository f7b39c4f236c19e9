# The PromptCanary GitHub Action (action.yml: runs.using docker).
#
# - Slim official Python image (the Python requirements.lock was resolved for: see
#   .ci/check_lock.py), plus git; no compilers: every dependency installs from a wheel.
# - Dependencies come only from requirements.lock, hash-checked (--require-hashes) and without
#   dependency resolution (--no-deps), so nothing unlocked can slip in; `pip check` proves the
#   locked set is complete.
# - The package is not installed, just copied next to entrypoint.py (no build tools needed).
# - No WORKDIR reliance: the runner mounts the workspace at /github/workspace and sets the working
#   directory; every path the Action uses comes from GITHUB_WORKSPACE and the inputs.
# - Runs as root, as GitHub requires for Docker actions; it writes only its report files (and, when
#   promoting, the new baseline file in the workspace).
FROM python:3.11-slim-bookworm

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore \
    LITELLM_LOCAL_MODEL_COST_MAP=True \
    PYTHONPATH=/opt/promptcanary

# Debian security updates change git's exact version; pinning it would break rebuilds.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends git \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.lock /tmp/requirements.lock
RUN pip install --require-hashes --no-deps --only-binary=:all: -r /tmp/requirements.lock \
    && pip check \
    && rm /tmp/requirements.lock

COPY promptcanary /opt/promptcanary/promptcanary
COPY entrypoint.py /opt/promptcanary/entrypoint.py
# Byte-compile once at build time: the container is read-mostly and starts faster.
RUN python -m compileall -q /opt/promptcanary

ENTRYPOINT ["python", "/opt/promptcanary/entrypoint.py"]
