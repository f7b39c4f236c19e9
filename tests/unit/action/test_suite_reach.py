"""Where a suite may send a key: canary.yaml's judge hosts and key variables against the
workflow's judge-hosts / judge-key-env."""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary.action.settings import load_config
from promptcanary.action.suite_reach import check_suite_reach, host_allowed, host_of, refusals_for
from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError, exit_code_for

SUITE = """\
name: reach
probes:
  - type: keyword_presence
    forbidden_keywords: [sorry]
  - type: llm_judge
    rubric: Is it polite?
    model: openai/judge
    api_base: https://user:pw@judge.example.com:8443/v1
    api_key_env: JUDGE_API_KEY
prompts:
  - id: one
    text: Say hello.
    probes:
      - type: llm_judge
        rubric: Is it short?
        model: anthropic/claude-3-5-haiku-latest
"""


@pytest.fixture
def suite_file(tmp_path: Path) -> Path:
    path = tmp_path / "canary.yaml"
    path.write_text(SUITE, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("url", "host"),
    [
        ("https://Judge.Example.com/v1", "judge.example.com"),
        ("http://localhost:8080", "localhost:8080"),
        ("https://user:secret@h.test:443/x", "h.test:443"),
        ("http://[::1]:9000/v1", "[::1]:9000"),
        ("judge.example.com:8000", "judge.example.com:8000"),
        ("https://h.test:notaport/", ""),
    ],
)
def test_the_host_of_an_api_base(url: str, host: str) -> None:
    assert host_of(url) == host


def test_an_allowed_host_admits_any_port_an_allowed_port_only_itself() -> None:
    assert host_allowed("https://judge.example.com:8443/v1", ("judge.example.com",))
    assert host_allowed("https://judge.example.com:8443/v1", ("judge.example.com:8443",))
    assert not host_allowed("https://judge.example.com:9000/v1", ("judge.example.com:8443",))
    assert not host_allowed("https://judge.example.com.evil.test/", ("judge.example.com",))
    assert not host_allowed("https://evil.test/?judge.example.com", ("judge.example.com",))
    assert host_allowed("http://[::1]:9000", ("[::1]",))
    assert not host_allowed("not a url", ("judge.example.com",))


def test_every_host_and_variable_the_workflow_did_not_name_is_refused_on_its_line(
    suite_file: Path,
) -> None:
    suite = CanarySuite.from_yaml(suite_file)
    refusals = refusals_for(suite, suite_file, (), ())
    assert [(r.key, r.shown, r.line) for r in refusals] == [
        ("api_base", "judge.example.com:8443", 8),
        ("api_key_env", "JUDGE_API_KEY", 9),
    ]
    allowed = refusals_for(suite, suite_file, ("judge.example.com",), ("JUDGE_API_KEY",))
    assert allowed == []  # the second judge names neither: it uses LiteLLM's own variables


def test_the_error_is_a_usage_error_naming_the_line_and_the_inputs(
    suite_file: Path, tmp_path: Path
) -> None:
    suite = CanarySuite.from_yaml(suite_file)
    config = load_config({"GITHUB_WORKSPACE": str(tmp_path), "INPUT_JUDGE_HOSTS": "other.test"})
    with pytest.raises(ConfigError) as raised:
        check_suite_reach(suite, config)
    error = raised.value
    assert exit_code_for(error) == 2 and (error.line, error.field) == (8, "api_base")
    assert "canary.yaml:8" in error.message
    assert "judge-hosts: judge.example.com:8443" in (error.hint or "")
    assert "judge-key-env: JUDGE_API_KEY" in (error.hint or "")
    assert "pw" not in error.message + (error.hint or "")  # the URL's password never shown
    ok = load_config(
        {
            "GITHUB_WORKSPACE": str(tmp_path),
            "INPUT_JUDGE_HOSTS": "judge.example.com:8443",
            "INPUT_JUDGE_KEY_ENV": "JUDGE_API_KEY",
        }
    )
    check_suite_reach(suite, ok)  # allowed: no error


CUSTOM_PROBE = """\
from promptcanary import BaseProbe


class Forwarding(BaseProbe):
    probe_id = "forwarding_reach_test"

    def __init__(self, api_base: str) -> None:
        self.api_base = api_base

    def evaluate(self, prompt, response):
        return self.result(prompt, passed=True, score=1.0, details="")
"""


def test_a_custom_probe_with_an_api_base_is_held_to_the_same_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "reach_probe_module.py").write_text(CUSTOM_PROBE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "canary.yaml"
    path.write_text(
        "name: custom\n"
        "probes:\n"
        "  - type: reach_probe_module:Forwarding\n"
        "    api_base: https://collector.test/ingest\n"
        "prompts: [hello]\n",
        encoding="utf-8",
    )
    suite = CanarySuite.from_yaml(path)
    [refusal] = refusals_for(suite, path, (), ())
    assert (refusal.key, refusal.shown, refusal.line) == ("api_base", "collector.test", 4)
