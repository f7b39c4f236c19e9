"""The release workflow's shape: what the rest of the release depends on (zizmor and the schema
check run in .ci/lint_action.sh; these pin down the decisions docs/releasing.md describes)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    data = yaml.safe_load((ROOT / ".github/workflows/release.yml").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _steps(workflow: dict[Any, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [(job, step) for job, spec in workflow["jobs"].items() for step in spec["steps"]]


def test_runs_on_version_tags_only(workflow: dict[Any, Any]) -> None:
    # PyYAML reads the `on:` key as True.
    # release/vX.Y.Z starts it; vX.Y.Z itself is made by the pin job on the release commit.
    assert workflow[True] == {"push": {"tags": ["release/v[0-9]+.[0-9]+.[0-9]+"]}}


def test_least_privilege(workflow: dict[Any, Any]) -> None:
    assert workflow["permissions"] == {}
    perms = {job: spec["permissions"] for job, spec in workflow["jobs"].items()}
    assert perms == {
        "dist": {"contents": "read"},
        "image": {
            "contents": "read",
            "packages": "write",
            "id-token": "write",
            "attestations": "write",
        },
        "pypi": {"id-token": "write"},
        "pin": {"contents": "write"},
    }


def test_third_party_actions_pinned_by_full_sha(workflow: dict[Any, Any]) -> None:
    uses = [step["uses"] for _, step in _steps(workflow) if "uses" in step]
    assert uses
    for ref in uses:
        assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), ref


def test_checkouts_keep_no_credentials(workflow: dict[Any, Any]) -> None:
    for _, step in _steps(workflow):
        if step.get("uses", "").startswith("actions/checkout@"):
            assert step["with"]["persist-credentials"] is False


def test_image_is_multi_arch_with_sbom_and_provenance(workflow: dict[Any, Any]) -> None:
    steps = dict((s.get("uses", "").split("@")[0], s) for _, s in _steps(workflow))
    build = steps["docker/build-push-action"]["with"]
    assert build["platforms"] == "linux/amd64,linux/arm64"
    assert build["push"] is True and build["sbom"] is True
    attest = steps["actions/attest-build-provenance"]["with"]
    assert attest["subject-digest"] == "${{ steps.build.outputs.digest }}"
    assert attest["push-to-registry"] is True


def test_pypi_uses_trusted_publishing(workflow: dict[Any, Any]) -> None:
    job = workflow["jobs"]["pypi"]
    assert job["environment"]["name"] == "pypi"
    publish = [s for s in job["steps"] if s.get("uses", "").startswith("pypa/")]
    assert len(publish) == 1
    assert "password" not in publish[0].get("with", {})  # OIDC, no token
    assert publish[0]["with"]["attestations"] is True


def test_pin_job_rewrites_action_yml_with_the_digest_and_moves_the_major_tag(
    workflow: dict[Any, Any],
) -> None:
    job = workflow["jobs"]["pin"]
    script = "\n".join(s.get("run", "") for s in job["steps"])
    assert 'python .ci/pin_action_image.py --image "$IMAGE:$VERSION@$DIGEST"' in script
    assert 'move "v${VERSION%%.*}"' in script
    env = {k: v for s in job["steps"] for k, v in s.get("env", {}).items()}
    assert env["DIGEST"] == "${{ needs.image.outputs.digest }}"


def test_a_pypi_failure_does_not_hold_back_the_action_release(workflow: dict[Any, Any]) -> None:
    jobs = workflow["jobs"]
    assert set(jobs["pin"]["needs"]) == {"dist", "image"}
    assert "pypi" not in str(jobs["image"].get("needs", ""))
    assert jobs["pypi"]["needs"] == ["dist"]


def test_the_version_tag_is_created_only_on_the_pinned_commit(workflow: dict[Any, Any]) -> None:
    steps = workflow["jobs"]["pin"]["steps"]
    names = [s.get("name", s.get("uses", "")) for s in steps]
    pin = next(i for i, n in enumerate(names) if n.startswith("Rewrite action.yml"))
    tag = next(i for i, n in enumerate(names) if "create vX.Y.Z" in n)
    assert pin < tag
    script = steps[tag]["run"]
    # Created (POST, which GitHub refuses for an existing ref), never moved (PATCH) like vX.
    assert 'gh api "repos/$REPOSITORY/git/refs" -f ref="refs/tags/$TAG" -f sha="$commit"' in script
    assert 'move "$TAG"' not in script
    assert steps[tag]["env"]["TAG"] == "v${{ needs.dist.outputs.version }}"


def test_the_image_must_be_pullable_anonymously_before_any_tag(workflow: dict[Any, Any]) -> None:
    steps = workflow["jobs"]["pin"]["steps"]
    names = [s.get("name", "") for s in steps]
    check = names.index("The pinned image can be pulled anonymously")
    assert check < next(i for i, n in enumerate(names) if "create vX.Y.Z" in n)
    script = steps[check]["run"]
    assert "https://ghcr.io/token?service=ghcr.io&scope=repository:$name:pull" in script
    assert '"https://ghcr.io/v2/$name/manifests/$DIGEST"' in script
    assert "docker login" not in script and "GITHUB_TOKEN" not in script  # anonymous


def test_a_release_commit_is_not_released_again(workflow: dict[Any, Any]) -> None:
    # A tag moved by a token that starts workflows (RELEASE_TOKEN) triggers the workflow again on
    # the release commit: the first job notices the pinned image and every other job is skipped.
    first = workflow["jobs"]["dist"]["steps"][1]
    assert first["id"] == "version"
    assert """grep -q '^  image: "docker://' action.yml""" in first["run"]
    for job in ("image", "pypi", "pin"):
        assert workflow["jobs"][job]["if"] == "needs.dist.outputs.release == 'true'"
