"""`promptcanary run`'s accept hint when the run cannot be kept anywhere.

Run through a loopback LLM server, a run that cannot be kept beside its suite is kept in the
temporary folder (tests/integration/test_first_requests.py). That nothing can be written at all
— neither there nor in any temporary folder — cannot be arranged for a process running as root,
so here the keeping itself fails (a mock: no wire to fake).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from promptcanary.commands import run as run_module
from promptcanary.commands.run import RunArgs
from promptcanary.core.models import CanaryRunResult, ProviderConfig


def test_a_run_kept_nowhere_gets_no_accept_hint_but_how_to_record_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("promptcanary.files.save_elsewhere", lambda path, text: None)
    (tmp_path / ".promptcanary").write_text("a file where the folder would go")
    run = CanaryRunResult(suite_name="s", provider=ProviderConfig(model_id="openai/x"))
    args = RunArgs(config=tmp_path / "canary.yaml", provider="openai/x", temperature=0.5)
    assert run_module._kept_for_the_hint(run, args) is None
    said = " ".join(capsys.readouterr().err.split())
    assert "Could not keep this run to accept it later" in said
    assert f"To record a baseline, run promptcanary run -c {tmp_path / 'canary.yaml'}" in said
    assert "--temperature 0.5 --save-baseline" in said  # the answer-shaping flags kept
    assert "(it asks the model again)" in said
