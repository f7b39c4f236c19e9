"""Two decisions taken before any model call, from what GitHub says (pure: the caller reads GitHub
and passes the facts in).

- **The gate cannot be emptied by the pull request it judges** (:func:`emptied_gate`). A pull
  request that deletes or renames the committed baseline of (suite, model) would be compared with
  nothing: ``no-baseline``, exit 0, a passing check. When the base branch has a baseline for that
  pair and the head has none, the check fails instead, unless the workflow allows it.
- **A promotion that already landed is not paid for again** (:func:`promotion_state`). GitHub's
  "Re-run jobs" replays the same ``labeled`` payload: without reading the pull request first, a
  re-run measured a full baseline again, then failed with ``branch-moved`` and replaced the sticky
  comment with "not promoted" although the baseline had landed. The pull request as it is now
  (state, labels, head) decides instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from promptcanary.core.render.safety import md_code
from promptcanary.storage.names import is_baseline_name

#: A promotion commit's message (:func:`promotion_message` makes it one line of at most 200
#: characters); a re-run recognises the promotion it already made by it.
PROMOTION_MESSAGE = "PromptCanary: promote baseline for {suite} on {model}"


def promotion_message(suite_name: str, model_id: str) -> str:
    """The promotion commit's message for (suite, model): one line, at most 200 characters."""
    return " ".join(PROMOTION_MESSAGE.format(suite=suite_name, model=model_id).split())[:200]


# ── the gate cannot be emptied ───────────────────────────────────────────────────────────────


def baselines_of(names: Sequence[str], suite_name: str, model_id: str) -> list[str]:
    """The names among ``names`` (a folder listing) that are baselines of (suite, model), by the
    store's file names (``{suite}__{model}__{timestamp}_{id}.json``, 0.2's too), by name."""
    return sorted(n for n in names if is_baseline_name(n, suite_name, model_id))


@dataclass(frozen=True)
class GateDecision:
    """What to do when the head has no baseline for (suite, model)."""

    action: Literal["compare", "no-baseline", "fail"]
    """compare: the head has a baseline (nothing to decide); no-baseline: report the run alone,
    as before (the base branch has none either, or the workflow allows dropping it); fail: the
    pull request removed the baseline the base branch has."""
    reason: str = ""
    """Markdown for the summary and the comment (empty for ``compare``)."""


def emptied_gate(
    *,
    head_has_baseline: bool,
    base_ref: str,
    base_baselines: Sequence[str],
    baseline_folder: str,
    allowed: bool,
) -> GateDecision:
    """Decide a check whose head has no baseline of (suite, model).

    Args:
        head_has_baseline: The checked-out head has a baseline of the pair.
        base_ref: The pull request's base branch (``main``).
        base_baselines: The pair's baseline files in ``baseline_folder`` on ``base_ref``
            (:func:`baselines_of` of the folder's listing there).
        baseline_folder: The folder searched, relative to the repository.
        allowed: The workflow allows a pull request to drop the baseline (an input).
    """
    if head_has_baseline:
        return GateDecision("compare")
    if not base_baselines:
        return GateDecision("no-baseline")
    newest = md_code(f"{baseline_folder}/{base_baselines[-1]}", 200)
    base = md_code(base_ref, 100)
    if allowed:
        return GateDecision(
            "no-baseline",
            f"The base branch {base} has a baseline of this suite and model ({newest}) and this "
            "pull request has none; the workflow allows that, so the run is reported alone.",
        )
    return GateDecision(
        "fail",
        f"The base branch {base} has a baseline of this suite and model ({newest}), but this "
        "pull request has none: it deletes or renames the baseline the check compares with (or "
        "was branched before that baseline was added and checked out without the base branch), "
        "and comparing with nothing would pass. No model was called. Restore the file (or merge "
        "the base branch in), promote a new baseline with the promote label, or, if dropping "
        "the baseline is intended, set `allow-baseline-removal: true` in the workflow.",
    )


# ── a promotion that already landed ──────────────────────────────────────────────────────────


@dataclass(frozen=True)
class PullRequestNow:
    """The pull request as GitHub answers it now (``GET /repos/{o}/{r}/pulls/{n}``), and its head
    commit (``GET /repos/{o}/{r}/git/commits/{sha}``)."""

    state: str
    """``open`` or ``closed``."""
    merged: bool
    labels: tuple[str, ...]
    head_sha: str
    head_parents: tuple[str, ...]
    """The parents of the head commit."""
    head_message: str
    """The head commit's message."""


@dataclass(frozen=True)
class PromotionState:
    """What a promotion run does before measuring anything."""

    action: Literal["promote", "skip", "moved"]
    """promote: measure and commit as usual; skip: no model call, nothing written, the sticky
    comment left as it is; moved: no model call, ``branch-moved`` as after a run (someone else
    pushed since the label)."""
    reason: str = ""
    """Markdown for the summary (empty for ``promote``)."""
    landed: bool = False
    """The promotion of this label had already landed (a re-run)."""


def promotion_state(
    *,
    event_head_sha: str,
    promote_label: str,
    suite_name: str,
    model_id: str,
    now: PullRequestNow,
) -> PromotionState:
    """Decide from the pull request as it is now whether a ``labeled`` run still promotes.

    ``event_head_sha`` is the head the label was added on (the event's ``pull_request.head.sha``,
    which a re-run replays unchanged). Labels compare ignoring case, as GitHub does.
    """
    message = promotion_message(suite_name, model_id)
    landed = (
        now.head_sha != event_head_sha
        and now.head_parents == (event_head_sha,)
        and " ".join(now.head_message.split()).startswith(message)
    )
    has_label = promote_label.lower() in (label.lower() for label in now.labels)
    head = md_code(now.head_sha[:12], 20)
    if now.merged or now.state == "closed":
        state = "merged" if now.merged else "closed"
        return PromotionState(
            "skip",
            f"Not promoted: the pull request is {state} now (this run replays an older event). "
            "Nothing was measured or written.",
            landed=landed,
        )
    if landed:
        return PromotionState(
            "skip",
            f"Already promoted: the head {head} is the promotion commit of this label, on top of "
            "the commit it measured (this run replays that event, e.g. a re-run). No model was "
            "called and nothing was written; add the label again to promote the current head.",
            landed=True,
        )
    if not has_label:
        return PromotionState(
            "skip",
            f"Not promoted: the label {md_code(promote_label, 60)} is no longer on the pull "
            "request (removed since this run's event). Nothing was measured; add it again to "
            "promote the current head.",
        )
    if now.head_sha != event_head_sha:
        return PromotionState(
            "moved",
            f"Not promoted: the branch moved since the label was added (its head is now {head}, "
            "not the commit the label was added on), so nothing was measured or committed. "
            "Remove and re-add the label to promote the new head.",
        )
    return PromotionState("promote")
