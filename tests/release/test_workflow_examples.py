"""The example workflows and the README pin what exists and agree with each other: every
third-party action by a full commit SHA, one PromptCanary ref everywhere, the sharded example's CLI
from that same ref, and none of the permissions a template does not need."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "workflows").glob("*.yml"))
USES = re.compile(r"uses:\s*([\w.-]+/[\w.-]+)@([^\s#]+)")


def _workflow(path: Path) -> dict[Any, Any]:
    data: dict[Any, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return data


def test_every_third_party_action_is_pinned_by_a_full_commit_sha() -> None:
    texts = {p.name: p.read_text(encoding="utf-8") for p in EXAMPLES}
    texts["README.md"] = (ROOT / "README.md").read_text(encoding="utf-8")
    texts.update({p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")})
    seen = 0
    for name, text in texts.items():
        for action, ref in USES.findall(text):
            if action.startswith("promptcanary/"):
                continue
            seen += 1
            assert re.fullmatch(r"[0-9a-f]{40}", ref), f"{name}: {action}@{ref}"
    assert seen >= 10


def test_one_promptcanary_ref_everywhere_and_the_sharded_cli_follows_it() -> None:
    refs = {
        ref
        for p in EXAMPLES
        for action, ref in USES.findall(p.read_text(encoding="utf-8"))
        if action == "promptcanary/promptcanary-action"
    }
    assert len(refs) == 1
    sharded = _workflow(ROOT / "examples" / "workflows" / "promptcanary-sharded.yml")
    assert sharded["env"]["PROMPTCANARY_REF"] == refs.pop()
    text = yaml.safe_dump(sharded)
    assert "promptcanary-action@${PROMPTCANARY_REF}" in text and "==" not in text


def test_no_example_or_doc_pins_a_version_that_was_never_published() -> None:
    # promptcanary-drift has no release yet; 0.2.x is the numbering of the older, other project.
    for path in [*EXAMPLES, ROOT / "README.md", *(ROOT / "docs").glob("*.md")]:
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"promptcanary-drift==0\.", text), path.name


def test_no_template_grants_actions_write_and_every_check_trigger_has_merge_group() -> None:
    for path in EXAMPLES:
        workflow = _workflow(path)
        for job in workflow["jobs"].values():
            assert (job.get("permissions") or {}).get("actions") != "write", path.name
        triggers = workflow[True]  # YAML 1.1 reads the key `on` as True
        if "pull_request" in triggers and triggers["pull_request"]["types"] != ["labeled"]:
            assert "merge_group" in triggers, path.name


def test_the_promote_workflows_queue_is_keyed_by_label() -> None:
    promote = _workflow(ROOT / "examples" / "workflows" / "promptcanary-promote.yml")
    group = promote["concurrency"]["group"]
    assert "github.event.label.name" in group and "github.event.pull_request.number" in group
    assert promote["concurrency"]["cancel-in-progress"] is False
