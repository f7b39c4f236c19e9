"""The probe registry: no silent replacement of a registered id; plugins through entry points."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from promptcanary.core.models import CanaryPrompt, LLMResponse, ProbeResult
from promptcanary.core.probes import base
from promptcanary.core.probes.base import BaseProbe, get_probe_class, probe, register_probe
from promptcanary.errors import ProbeConfigError, exit_code_for


@pytest.fixture
def registry() -> Iterator[None]:
    """Restore the registry (and the plugin scan) after the test."""
    saved = dict(base._PROBE_REGISTRY)
    loaded = base.REGISTRY.plugins_loaded
    yield
    base._PROBE_REGISTRY.clear()
    base._PROBE_REGISTRY.update(saved)
    base.REGISTRY.plugins_loaded = loaded


def test_a_user_probe_cannot_take_a_builtin_id(registry: None) -> None:
    builtin = get_probe_class("json_validity")
    with pytest.raises(ProbeConfigError, match="'json_validity' is already registered") as info:

        @probe("json_validity")
        def mine(prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
            raise AssertionError("never called")

    assert exit_code_for(info.value) == 2
    assert get_probe_class("json_validity") is builtin


def test_two_classes_cannot_share_an_id_but_one_may_register_twice(registry: None) -> None:
    class First(BaseProbe):
        probe_id = "team_probe"

        def evaluate(self, prompt: CanaryPrompt, response: LLMResponse) -> ProbeResult:
            return self.result(prompt, passed=True, score=1.0)

    class Second(First):
        pass

    register_probe(First)
    register_probe(First)  # importing a module twice (tests, reloads) is harmless
    with pytest.raises(ProbeConfigError, match="cannot replace it"):
        register_probe(Second)
    assert get_probe_class("team_probe") is First


def test_an_installed_package_provides_probes_by_entry_point(
    registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "acme_probes.py").write_text(
        textwrap.dedent(
            """
            from promptcanary.core.probes.base import BaseProbe

            class Polite(BaseProbe):
                probe_id = "polite"

                def evaluate(self, prompt, response):
                    ok = "please" in response.content.lower()
                    return self.result(prompt, passed=ok, score=1.0 if ok else 0.0)
            """
        )
    )
    dist = tmp_path / "acme_probes-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-probes\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[promptcanary.probes]\npolite = acme_probes:Polite\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    base.REGISTRY.plugins_loaded = False

    cls = get_probe_class("polite")  # no module:Class string needed
    assert cls.__name__ == "Polite" and "polite" in base.registered_probes()
    sys.modules.pop("acme_probes", None)


def test_a_broken_plugin_is_a_config_error_naming_it(
    registry: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = tmp_path / "broken_probes-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: broken-probes\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[promptcanary.probes]\nbad = no_such_module_xyz:P\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    base.REGISTRY.plugins_loaded = False
    with pytest.raises(ProbeConfigError, match="bad = no_such_module_xyz:P"):
        get_probe_class("bad")
