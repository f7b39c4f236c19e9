"""Where a suite may send a key: only where the workflow file says.

canary.yaml is a data file of the pull request, and a reviewer reads its diff as data. Two of its
settings decide where a credential goes: an ``llm_judge`` probe's ``api_base`` (the URL its
requests, and the key with them, are sent to) and its ``api_key_env`` (which environment variable
is sent as the key). An edit naming ``api_key_env: DEPLOY_TOKEN`` and ``api_base:
https://anywhere`` would send that job secret to that URL. So in the Action both are refused unless
the workflow allows them by name — the ``judge-hosts`` and ``judge-key-env`` inputs, a change to
the workflow file, which a reviewer reads as code (and which rulesets and token scopes guard).

Every probe of the loaded suite is asked, by attribute, so a custom probe with an ``api_base`` or
``api_key_env`` parameter is held to the same rule.

What this leaves alone, on purpose: the judge's ``model:`` (and the suite's ``provider:``). Its
prefix picks which provider credential LiteLLM attaches (``anthropic/…`` sends
``ANTHROPIC_API_KEY``), but without an ``api_base`` that credential goes only to its own
provider's endpoint, or to the base URL the workflow itself set in the step's ``env:``
(``OPENAI_API_BASE``…): the suite can choose among the keys the step holds, never where they go.
Keep in the step's ``env:`` only the keys the suite should use.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from promptcanary.errors import ConfigError

if TYPE_CHECKING:
    from promptcanary.action.settings import ActionConfig
    from promptcanary.core.suite import CanarySuite


@dataclass(frozen=True)
class Refusal:
    """One setting of canary.yaml the workflow does not allow."""

    key: str
    """``api_base`` or ``api_key_env``."""
    shown: str
    """What the message shows: the host of an ``api_base`` (never the URL's user or path, which
    may hold a secret), or the variable's name."""
    allow: str
    """What to add to the workflow step to allow it."""
    line: int | None


def check_suite_reach(suite: CanarySuite, config: ActionConfig) -> None:
    """Refuse (exit 2) a suite whose judges name a host or key variable the workflow did not
    allow with ``judge-hosts`` / ``judge-key-env``.

    Raises:
        ConfigError: naming canary.yaml's line of the first refusal, every refusal, and the
            input to set.
    """
    refusals = refusals_for(suite, config.config_path, config.judge_hosts, config.judge_key_env)
    if not refusals:
        return
    first = refusals[0]
    listed = "; ".join(
        f"{'line ' + str(r.line) + ': ' if r.line else ''}{r.key}: {r.shown}" for r in refusals
    )
    allow = "\n".join(dict.fromkeys(r.allow for r in refusals))
    raise ConfigError(
        f"the suite sends a judge's requests or key where the workflow does not allow ({listed}). "
        "A judge's requests carry a key, so in the Action canary.yaml may name only the hosts "
        "and key variables the workflow names",
        file=config.config_path,
        line=first.line,
        field=first.key,
        hint=(
            "If this is intended, allow it in the workflow file (reviewed as code), under `with:` "
            f"of the PromptCanary step:\n{allow}\n(and pass the key's secret in the step's "
            "`env:`); otherwise remove it from canary.yaml."
        ),
    )


def refusals_for(
    suite: CanarySuite,
    config_path: Path,
    hosts: tuple[str, ...],
    key_env: tuple[str, ...],
) -> list[Refusal]:
    """Every ``api_base`` / ``api_key_env`` of the suite's probes outside what is allowed."""
    found: list[Refusal] = []
    lines = _lines(config_path)
    for probe in suite.probes:
        base = getattr(probe, "api_base", None)
        if isinstance(base, str) and base and not host_allowed(base, hosts):
            host = host_of(base) or "(no host)"
            found.append(
                Refusal("api_base", host, f"  judge-hosts: {host}", lines.get(("api_base", base)))
            )
        env = getattr(probe, "api_key_env", None)
        if isinstance(env, str) and env and env not in key_env:
            found.append(
                Refusal(
                    "api_key_env", env, f"  judge-key-env: {env}", lines.get(("api_key_env", env))
                )
            )
    return found


def host_of(url: str) -> str:
    """``host`` or ``host:port`` of ``url``, lower case ('' when it has none)."""
    try:
        parts = urlsplit(url if "://" in url else f"//{url}")
        host = (parts.hostname or "").lower()
        port = parts.port
    except ValueError:  # a port that is not a number
        return ""
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}" if port is not None else host


def host_allowed(url: str, hosts: tuple[str, ...]) -> bool:
    """True when ``url``'s host is allowed: an allowed ``host`` admits any port of it, an
    allowed ``host:port`` only that port."""
    full = host_of(url)
    if not full:
        return False
    bare = full.rsplit(":", 1)[0] if not full.endswith("]") and ":" in full else full
    return full in hosts or bare in hosts


def _lines(config_path: Path) -> dict[tuple[str, str], int]:
    """(key, value) -> the first line of canary.yaml where a mapping sets ``key: value``."""
    from promptcanary.core.config import line_of, load_yaml_file

    try:
        data = load_yaml_file(config_path)
    except ConfigError:
        return {}
    lines: dict[tuple[str, str], int] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key in ("api_base", "api_key_env") and isinstance(value, str):
                    line = line_of(node, key)
                    if line is not None:
                        lines.setdefault((key, value), line)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(data)
    return lines
