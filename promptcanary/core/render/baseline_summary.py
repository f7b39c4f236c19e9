"""A baseline's summary in Markdown: what a reviewer reads when a baseline is promoted.

The baseline's JSON keeps every answer; this file says per prompt how often each probe passed and
what the typical answers were, with their shares. The store rewrites one such file per (suite,
model) with every new baseline, so the file's diff in a pull request is the change of accepted
behaviour: a prompt that changed shows as a few changed lines, the others do not move.

Two things keep unchanged prompts still. No figure that varies from request to request (latency,
tokens, cost) is shown. And a model that varies its wording moves every share a little between
two recordings: the caller passes ``keep``, the sections of the previous summary for the prompts
whose answers and probe results did not change significantly (the store decides with the
comparison engine), and those are written back verbatim, each naming the baseline its figures
come from. A changed prompt gets fresh figures and names the new baseline.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence

from promptcanary.core.answers import PromptAnswers, answers_of
from promptcanary.core.models import BaselineSnapshot, ProbeResult
from promptcanary.core.render.fmt import plural
from promptcanary.core.render.safety import md_code, md_text

__all__ = ["TYPICAL", "render_summary", "section_key", "sections"]

#: Typical answers listed per prompt (the others are counted together).
TYPICAL = 3
_ANSWER_CHARS = 160
_PROMPT_CHARS = 120
_DETAIL_CHARS = 100


def render_summary(
    snapshot: BaselineSnapshot, *, file_name: str, keep: Mapping[str, str] | None = None
) -> str:
    """The summary of ``snapshot``, saved as ``file_name``, in Markdown.

    ``keep``: prompt id -> a section of an earlier summary (from :func:`sections`) to write back
    unchanged instead of this baseline's figures for that prompt.
    """
    run = snapshot.run_result
    provider = run.provider
    seed = "none" if provider.seed is None else str(provider.seed)
    served = sorted({r.response_model for r in run.llm_responses if r.response_model})
    settings = (
        f"{plural(len(run.prompts), 'prompt')} × {plural(run.samples, 'sample')} · temperature "
        f"{provider.temperature:g} · max_tokens {provider.max_tokens:,} · seed {seed}"
    )
    if served:
        settings += f" · answered by {', '.join(md_text(m, 80) for m in served)}"
    lines = [
        "<!-- Written by PromptCanary with each baseline of this suite and model: this file's "
        "diff is what changed. -->",
        f"# Baseline: {md_text(snapshot.suite_name, 120)} on {md_text(provider.model_id, 120)}",
        "",
        f"- Newest baseline: {md_code(file_name, 200)}, saved "
        f"{snapshot.created_at:%Y-%m-%d %H:%M} UTC",
    ]
    if snapshot.note:
        lines.append(f"- Note: {md_text(snapshot.note, 300)}")
    lines.append(f"- {settings}")
    lines.append(
        "- A prompt whose answers and probe results did not change significantly keeps the "
        "figures of the baseline it names."
    )
    by_prompt: dict[str, list[ProbeResult]] = defaultdict(list)
    for r in run.probe_results:
        by_prompt[r.prompt_id].append(r)
    answers = answers_of(run.llm_responses)
    order = [p.id for p in run.prompts] or list(answers)
    texts = {p.id: p.text for p in run.prompts}
    kept = keep or {}
    for prompt_id in order:
        if prompt_id in kept:
            lines += ["", kept[prompt_id]]
            continue
        lines += ["", _heading(prompt_id), ""]
        if prompt_id in texts:
            lines += [f"> {md_text(texts[prompt_id], _PROMPT_CHARS)}", ""]
        lines.append(f"Figures of {md_code(file_name, 200)}:")
        lines += _probe_lines(by_prompt.get(prompt_id, []))
        lines += _answer_lines(answers.get(prompt_id))
    return "\n".join(lines) + "\n"


def sections(summary: str) -> dict[str, str]:
    """The per-prompt sections of a summary this module wrote, keyed by the heading's text.

    Use :func:`section_key` to look a prompt up. Headings that appear twice (two ids cut to the
    same 120 characters) are left out: their sections cannot be told apart.
    """
    found: dict[str, str] = {}
    twice: set[str] = set()
    parts = summary.rstrip("\n").split("\n\n## ")
    for part in parts[1:]:
        heading, _, _ = part.partition("\n")
        if heading in found:
            twice.add(heading)
        found[heading] = "## " + part
    return {k: v for k, v in found.items() if k not in twice}


def section_key(prompt_id: str) -> str:
    """The key of ``prompt_id``'s section in :func:`sections`."""
    return _heading(prompt_id)[3:]


def _heading(prompt_id: str) -> str:
    return f"## {md_text(prompt_id, 120)}"


def _probe_lines(results: Sequence[ProbeResult]) -> list[str]:
    by_probe: dict[str, list[ProbeResult]] = defaultdict(list)
    for r in results:
        by_probe[r.probe_id].append(r)
    out = []
    for probe_id, rows in by_probe.items():
        measured = [r for r in rows if not r.errored]
        passed = sum(1 for r in measured if r.passed)
        line = f"- {md_code(probe_id, 80)} passed {passed}/{len(measured)}"
        failing = [r.details for r in measured if not r.passed]
        if failing:
            common = max(dict.fromkeys(failing), key=failing.count)
            line += f"; failing: {md_text(common, _DETAIL_CHARS)}"
        if len(measured) < len(rows):
            line += f" ({len(rows) - len(measured)} errored)"
        out.append(line)
    return out or ["- no probe applies"]


def _answer_lines(answers: PromptAnswers | None) -> list[str]:
    if answers is None:
        return ["", "No answers."]
    errored = f", {answers.errors} errored" if answers.errors else ""
    head = f"{plural(answers.total, 'answer')}, {answers.distinct:,} distinct{errored}:"
    shown, rest = answers.top(TYPICAL)
    lines = ["", head]
    lines += [f"- {a.percent} {md_code(a.text, _ANSWER_CHARS) or '(empty)'}" for a in shown]
    if rest:
        others = answers.distinct - len(shown)
        lines.append(f"- {round(100 * rest / answers.total)} % in {plural(others, 'other answer')}")
    return lines
