"""The verdict as a named check run: its name, conclusion, title, summary and annotations.

Pure functions: :mod:`.flows` publishes what they build through the client. The check run is
named after the suite and the model (``PromptCanary: <suite> (<model>)``) — the same pair the
sticky comment and the baselines are keyed by — so two suites, or one suite on two models, never
share a name and one cannot stand in for the other as a required check.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from promptcanary.core.render.safety import one_line

if TYPE_CHECKING:
    from promptcanary.core.models import DriftReport
    from promptcanary.core.suite import CanarySuite

#: GitHub's limit for a check run's ``output.summary``.
SUMMARY_LIMIT = 65_535
#: The title is one line; GitHub documents no limit, so it is kept as short as an annotation's.
TITLE_LIMIT = 255
#: At most this many regressions become annotations (5 requests of 50); the summary has all.
MAX_ANNOTATIONS = 250
#: The results that end in a plain green check; any other exit-0 result is neutral.
SUCCESS_RESULTS = ("passed", "promoted")


def check_name(suite_name: str, model_id: str) -> str:
    """The check run's name for (suite, model): stable across runs, one line."""
    return f"PromptCanary: {one_line(suite_name, 80)} ({one_line(model_id, 80)})"


def conclusion_for(result: str, exit_code: int) -> str:
    """failure when the step fails; success when it passed or promoted; neutral otherwise (no
    baseline yet, inconclusive or skipped without failing — GitHub counts neutral as passing
    for a required check, as the step's exit 0 does)."""
    if exit_code != 0:
        return "failure"
    return "success" if result in SUCCESS_RESULTS else "neutral"


def title_for(line: str) -> str:
    """The report's first line as the check run's title."""
    return one_line(line, TITLE_LIMIT)


def summary_for(markdown: str, marker: str) -> str:
    """The report without its hidden marker line, within GitHub's summary limit."""
    from promptcanary.action.render import Where, fit_body

    body = markdown.removeprefix(marker).lstrip("\n")
    return fit_body(body, Where(run_url=None, promote_label=""), limit=SUMMARY_LIMIT)


def prompt_lines(config_path: Path, suite: CanarySuite) -> tuple[dict[str, int], dict[str, int]]:
    """(prompt id -> line, probe id -> line) in canary.yaml: the line of each entry under
    ``prompts:`` and ``probes:``, matched to the suite's prompts and probes by position."""
    from promptcanary.core.config import line_of, load_yaml_file
    from promptcanary.errors import PromptCanaryError

    try:
        data = load_yaml_file(config_path)
    except PromptCanaryError:
        return {}, {}
    if not isinstance(data, dict):
        return {}, {}
    found: list[dict[str, int]] = []
    # Inline probes of a prompt join the suite's probes after those under `probes:`; only
    # the ones listed there are matched by position.
    prompt_ids = [p.id for p in suite.prompts]
    for key, ids in (("prompts", prompt_ids), ("probes", list(suite.probe_ids))):
        entries = data.get(key)
        lines: dict[str, int] = {}
        if isinstance(entries, list):
            for entry, item_id in zip(entries, ids):
                line = line_of(entry) or line_of(data, key)
                if line:
                    lines[item_id] = line
        found.append(lines)
    return found[0], found[1]


def annotations_for(
    report: DriftReport,
    *,
    path: str,
    prompt_line: dict[str, int],
    probe_line: dict[str, int],
    failing: bool,
) -> list[dict[str, Any]]:
    """One annotation per regression, on the prompt's line in canary.yaml (``path`` relative to
    the repository root): ``failure`` when the check fails, ``warning`` when it passes."""
    level = "failure" if failing else "warning"
    out: list[dict[str, Any]] = []
    for pair in report.regressions[:MAX_ANNOTATIONS]:
        line = prompt_line.get(pair.prompt_id) or probe_line.get(pair.probe_id) or 1
        out.append(
            {
                "path": path,
                "start_line": line,
                "end_line": line,
                "annotation_level": level,
                "title": one_line(f"Regression: {pair.prompt_id} × {pair.probe_id}", TITLE_LIMIT),
                "message": (
                    f"The probe '{one_line(pair.probe_name, 120)}' regressed on the prompt "
                    f"'{one_line(pair.prompt_id, 120)}': score {pair.baseline_score:.2f} → "
                    f"{pair.current_score:.2f} ({pair.score_delta:+.2f}) against the baseline."
                ),
            }
        )
    return out
