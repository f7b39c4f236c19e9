"""The decisions taken before any model call: a pull request cannot empty the gate it is judged
by, and a promotion that already landed is not paid for again (pure functions; phase B wires
them to what GitHub answers)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from promptcanary.action.guards import (
    PROMOTION_MESSAGE,
    GateDecision,
    PullRequestNow,
    baselines_of,
    emptied_gate,
    promotion_state,
)
from promptcanary.core.models import BaselineSnapshot, CanaryRunResult, ProviderConfig
from promptcanary.storage.file import filename_for

SUITE, MODEL = "support-bot", "openai/gpt-4o-mini"
HEAD = "a" * 40
LABEL = "promptcanary:promote"


def stored_name(suite: str, model: str) -> str:
    """The name the store really gives a baseline of (suite, model)."""
    run = CanaryRunResult(suite_name=suite, provider=ProviderConfig(model_id=model))
    return filename_for(BaselineSnapshot(suite_name=suite, provider=run.provider, run_result=run))


# ── the gate cannot be emptied ───────────────────────────────────────────────────────────────


def test_baselines_of_picks_the_pairs_files_by_the_stores_own_names() -> None:
    mine = stored_name(SUITE, MODEL)
    names = [
        stored_name(SUITE, "anthropic/claude"),
        mine,
        stored_name("other", MODEL),
        "README.md",
        f"{mine}.bak",
    ]
    assert baselines_of(names, SUITE, MODEL) == [mine]
    # promptcanary 0.2's names (a timestamp to the second, the model's '/' as '-') are found too,
    # as the store finds them.
    old = "support-bot__openai-gpt-4o-mini__20250301T120000_0123abcd.json"
    assert baselines_of([old, *names], SUITE, MODEL) == sorted([old, mine])


def gate(head: bool, base: list[str], *, allowed: bool = False) -> GateDecision:
    return emptied_gate(
        head_has_baseline=head,
        base_ref="main",
        base_baselines=base,
        baseline_folder="suite/baselines",
        allowed=allowed,
    )


def test_a_head_with_a_baseline_is_compared_as_always() -> None:
    decision = gate(True, ["x.json"])
    assert decision.action == "compare" and decision.reason == ""


def test_a_first_baseline_nobody_had_is_no_baseline_as_before() -> None:
    assert gate(False, []).action == "no-baseline"


def test_a_pull_request_that_drops_the_bases_baseline_fails() -> None:
    decision = gate(False, ["old.json", "newest.json"])
    assert decision.action == "fail"
    assert "`main`" in decision.reason and "`suite/baselines/newest.json`" in decision.reason
    assert "promote a new baseline" in decision.reason


def test_the_workflow_may_allow_dropping_it() -> None:
    decision = gate(False, ["newest.json"], allowed=True)
    assert decision.action == "no-baseline" and "allows that" in decision.reason


# ── a promotion that already landed ──────────────────────────────────────────────────────────

PROMOTION = PROMOTION_MESSAGE.format(suite=SUITE, model=MODEL)
OPEN = PullRequestNow(
    state="open",
    merged=False,
    labels=("bug", "PromptCanary:Promote"),
    head_sha=HEAD,
    head_parents=("f" * 40,),
    head_message="a developer's change",
)


def decide(now: PullRequestNow) -> str:
    return promotion_state(
        event_head_sha=HEAD, promote_label=LABEL, suite_name=SUITE, model_id=MODEL, now=now
    ).action


def test_the_label_on_the_head_it_was_added_to_promotes() -> None:
    assert decide(OPEN) == "promote"  # labels compare ignoring case


def test_a_rerun_after_the_promotion_landed_skips_without_touching_anything() -> None:
    landed = replace(
        OPEN,
        labels=("bug",),  # the promotion took the label off
        head_sha="b" * 40,
        head_parents=(HEAD,),
        head_message=PROMOTION + "\n",
    )
    state = promotion_state(
        event_head_sha=HEAD, promote_label=LABEL, suite_name=SUITE, model_id=MODEL, now=landed
    )
    assert (state.action, state.landed) == ("skip", True)
    assert "Already promoted" in state.reason and "No model was called" in state.reason
    # Landed although the label is still on (taking it off failed): still nothing to do.
    assert decide(replace(landed, labels=(LABEL,))) == "skip"


def test_a_long_suite_name_is_matched_as_promote_py_cuts_the_message() -> None:
    suite = "a-suite-with-a-long-name " * 10
    written = " ".join(PROMOTION_MESSAGE.format(suite=suite, model=MODEL).split())[:200]
    landed = replace(OPEN, head_sha="b" * 40, head_parents=(HEAD,), head_message=written)
    state = promotion_state(
        event_head_sha=HEAD, promote_label=LABEL, suite_name=suite, model_id=MODEL, now=landed
    )
    assert state.landed and state.action == "skip"


@pytest.mark.parametrize(
    ("change", "action", "says"),
    [
        ({"labels": ("bug",)}, "skip", "no longer on the pull request"),
        ({"state": "closed"}, "skip", "is closed now"),
        ({"state": "closed", "merged": True}, "skip", "is merged now"),
        ({"head_sha": "c" * 40, "head_parents": (HEAD,)}, "moved", "the branch moved"),
        # A promotion commit of another suite on top is someone else's change for this one.
        (
            {
                "head_sha": "c" * 40,
                "head_parents": (HEAD,),
                "head_message": PROMOTION_MESSAGE.format(suite="other", model=MODEL),
            },
            "moved",
            "the branch moved",
        ),
    ],
)
def test_what_changed_since_the_event_decides_before_any_model_call(
    change: dict[str, object], action: str, says: str
) -> None:
    state = promotion_state(
        event_head_sha=HEAD,
        promote_label=LABEL,
        suite_name=SUITE,
        model_id=MODEL,
        now=replace(OPEN, **change),  # type: ignore[arg-type]
    )
    assert state.action == action and says in state.reason and not state.landed
