"""The release step that points action.yml at the digest-pinned image (.ci/pin_action_image.py)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / ".ci" / "pin_action_image.py"
DIGEST = "sha256:" + "0123456789abcdef" * 4
IMAGE = f"ghcr.io/promptcanary/promptcanary-action:1.2.3@{DIGEST}"


@pytest.fixture(scope="module")
def pin_mod() -> ModuleType:
    spec = importlib.util.spec_from_file_location("pin_action_image", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def action_text() -> str:
    return (ROOT / "action.yml").read_text(encoding="utf-8")


def test_main_builds_from_source(action_text: str) -> None:
    # main keeps `image: Dockerfile` so `uses: ./` in CI builds the image from this checkout.
    assert yaml.safe_load(action_text)["runs"]["image"] == "Dockerfile"


def test_only_runs_image_changes(pin_mod: ModuleType, action_text: str) -> None:
    new = pin_mod.pin(action_text, IMAGE)
    before, after = yaml.safe_load(action_text), yaml.safe_load(new)
    assert after["runs"]["image"] == f"docker://{IMAGE}"
    assert after["inputs"] == before["inputs"]
    assert after["outputs"] == before["outputs"]
    assert after["runs"]["env"] == before["runs"]["env"]
    assert after["runs"]["using"] == "docker"
    after["runs"]["image"] = before["runs"]["image"]
    assert after == before
    # A one-line textual change: comments, quoting and key order elsewhere are untouched.
    changed = [
        (a, b) for a, b in zip(action_text.splitlines(), new.splitlines(), strict=True) if a != b
    ]
    assert changed == [("  image: Dockerfile", f'  image: "docker://{IMAGE}"')]


def test_repinning_a_pinned_file(pin_mod: ModuleType, action_text: str) -> None:
    once = pin_mod.pin(action_text, IMAGE)
    other = IMAGE.replace(DIGEST, "sha256:" + "f" * 64)
    twice = pin_mod.pin(once, other)
    assert yaml.safe_load(twice)["runs"]["image"] == f"docker://{other}"
    assert pin_mod.pin(once, IMAGE) == once


@pytest.mark.parametrize(
    "ref, why",
    [
        ("ghcr.io/promptcanary/promptcanary-action:1.2.3", "has no digest"),
        ("ghcr.io/promptcanary/promptcanary-action:1.2.3@sha256:abc", "64 lowercase hex"),
        (f"ghcr.io/promptcanary/promptcanary-action:1.2.3@{DIGEST.upper()}", "64 lowercase"),
        (f"ghcr.io/promptcanary/promptcanary-action:1.2.3@md5:{'0' * 32}", "not 'sha256:'"),
        (f"ghcr.io/PromptCanary/promptcanary-action:1.2.3@{DIGEST}", "lowercase repository"),
        (f"ghcr.io/promptcanary/promptcanary-action@{DIGEST}", "a tag"),
        ("", "has no digest"),
    ],
)
def test_bad_references_are_refused(
    pin_mod: ModuleType, action_text: str, ref: str, why: str
) -> None:
    with pytest.raises(pin_mod.PinError, match=why):
        pin_mod.pin(action_text, ref)


def test_docker_scheme_prefix_is_accepted(pin_mod: ModuleType) -> None:
    assert pin_mod.validate_image(f"docker://{IMAGE}") == IMAGE


def test_refuses_a_file_without_exactly_one_runs_image(pin_mod: ModuleType) -> None:
    with pytest.raises(pin_mod.PinError, match="exactly one"):
        pin_mod.pin("name: x\nruns:\n  using: docker\n", IMAGE)
    # `image:` nested deeper (e.g. under env) is not runs.image.
    text = "name: x\nruns:\n  using: docker\n  env:\n    image: Dockerfile\n"
    with pytest.raises(pin_mod.PinError, match="exactly one"):
        pin_mod.pin(text, IMAGE)
    with pytest.raises(pin_mod.PinError, match="not 'docker'"):
        pin_mod.pin("name: x\nruns:\n  using: node20\n  image: x\n", IMAGE)


def test_command_line(tmp_path: Path) -> None:
    out = tmp_path / "action.yml"
    ok = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--image",
            IMAGE,
            "--action",
            str(ROOT / "action.yml"),
            "--output",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert yaml.safe_load(out.read_text())["runs"]["image"] == f"docker://{IMAGE}"
    refused = subprocess.run(
        [sys.executable, str(SCRIPT), "--image", IMAGE.split("@")[0], "--action", str(out)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert refused.returncode == 2
    assert "no digest" in refused.stderr
    # A refused pin leaves the file as it was.
    assert yaml.safe_load(out.read_text())["runs"]["image"] == f"docker://{IMAGE}"
