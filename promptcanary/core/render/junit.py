"""JUnit XML: a report as the test results every CI shows (GitHub's test-report actions, GitLab's
merge-request widget, Jenkins' ``junit`` step).

What is a test case, and how it ends (docs/reports.md, "JUnit XML", says why):

* one per (probe, prompt) pair compared, named ``PROBE on PROMPT`` in the class ``SUITE.probes``:
  a **failure** when it regressed; **skipped** when it could not be measured (inconclusive: not
  evidence of drift, so neither red nor green); passed otherwise (stable, improved);
* one per prompt whose answers changed (``answers of PROMPT`` in ``SUITE.answers``): a
  **failure** (the answer test is a test, and it failed); and the suite-level answer test
  (``answers across the suite``), failing when the answers across the suite moved. A finding
  the Action's watch re-tested on fresh answers and did not confirm (``retest`` in the JSON
  report) passes, its evidence and the re-test's outcome as the output: it is not a behaviour
  change;
* when nothing was compared (every prompt and probe new or changed since the baseline), one
  **skipped** case, ``nothing compared``, with the summary;
* for a run without a baseline, one per pair: a failure when a sample failed the probe.

No ``<error>`` element is written: CI reporters count an error as a broken test run, and the
only broken thing here is the model's behaviour (a failure) or a measurement (skipped). The
job's own result stays the exit code (``--fail-on-*``): every reporter above shows the file
without deciding it.

Test cases come from :data:`DRIFT_CASES`, one function per kind: a new kind of finding in a
drift report is one more function there.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from promptcanary.core.models import ProbeResult
from promptcanary.core.render import fmt
from promptcanary.core.render.context import PROMPT_CHARS, RESPONSE_CHARS, PairView, ReportView
from promptcanary.core.render.run import RunView
from promptcanary.core.render.safety import clean_text, one_line
from promptcanary.core.text import clip
from promptcanary.errors import redact

Outcome = Literal["passed", "failure", "skipped"]

#: Failures shown with the prompt and both answers (the rest with their evidence only): a CI
#: uploads the file, and GitLab refuses one over 30 MB.
MAX_DETAILS = 300
#: Characters of a one-line message (the attribute every reporter shows first).
MESSAGE_CHARS = 300

#: What XML 1.0 cannot hold even escaped (clean_text already made C0 controls visible).
_NOT_XML = re.compile("[\ufffe\uffff]")


@dataclass(frozen=True)
class Case:
    """One test case: what was tested, how it ended, and the words for it."""

    classname: str
    name: str
    outcome: Outcome = "passed"
    message: str = ""
    """One line: why it failed or was skipped (reporters show it first)."""
    kind: str = ""
    """The failure's ``type``: ``regression``, ``behaviour-change``, ``probe-failed``."""
    details: str = ""
    """The failure's text: evidence, prompt, answers."""
    output: str = ""
    """``system-out``: what a passing case still says (improved, failing on both sides)."""


@dataclass(frozen=True)
class Suite:
    """A ``<testsuite>``: cases of one kind."""

    name: str
    cases: list[Case]


def drift_to_junit(view: ReportView) -> str:
    """The drift report as a JUnit XML document (UTF-8 text)."""
    report = view.report
    made = [Suite(f"{view.suite} · {name}", list(make(view))) for name, make in DRIFT_CASES]
    suites = [suite for suite in made if suite.cases]  # an empty suite reads as a broken run
    properties = {
        "model": view.model,
        "baseline": report.baseline_snapshot_id,
        "verdict": view.verdict,
        "severity": view.severity,
        "summary": view.summary,
    }
    if view.who:
        properties["who-changed"] = view.who
    return _document(
        f"PromptCanary: {view.suite} on {view.model}",
        suites,
        properties,
        timestamp=report.created_at.strftime("%Y-%m-%dT%H:%M:%S"),
    )


def _probe_cases(view: ReportView) -> Iterator[Case]:
    """One case per compared pair: regressions (worst first, with details), then the rest."""
    classname = f"{view.suite}.probes"
    if view.report.nothing_compared:
        # No pair to list: one skipped case says so, where an empty file would read as a run
        # with nothing wrong (or, to some reporters, as a broken one).
        yield Case(classname, "nothing compared", "skipped", message=one_line(view.summary, 600))
        return
    regressions = {id(pv.c): pv for pv in view.regressions}
    for i, pv in enumerate(view.regressions):
        yield Case(
            classname,
            _pair_name(pv.probe_id, pv.prompt_id),
            "failure",
            message=f"score {pv.scores} ({pv.delta}): {pv.reason or 'regressed'}",
            kind="regression",
            details=_pair_details(pv, full=i < MAX_DETAILS),
        )
    for c in view.report.comparisons:
        if id(c) in regressions:
            continue
        name = _pair_name(one_line(c.probe_id, 80), one_line(c.prompt_id, 60))
        if c.inconclusive:
            why = redact(one_line(c.inconclusive_reason or "no usable result", 300))
            words = fmt.INCONCLUSIVE_WORDS if not c.measured else fmt.UNDECIDED_WORDS
            yield Case(classname, name, "skipped", message=f"{words}: {why}")
            continue
        notes = []
        if c.improvement:
            notes.append(
                f"improved: score {fmt.score(c.baseline_score)} → {fmt.score(c.current_score)}"
            )
        elif not c.baseline_passed and not c.current_passed:
            notes.append("failing on both sides: no change, so no drift")
        if c.flaky:
            notes.append(f"flaky baseline: {fmt.flaky_note(c)}")
        yield Case(classname, name, output="; ".join(notes))


def _behaviour_cases(view: ReportView) -> Iterator[Case]:
    """One failing case per prompt whose answers changed."""
    classname = f"{view.suite}.answers"
    for bv in view.behaviour:
        old, new = bv.diff_lines
        lines = [bv.prompt_line, *(f"• {b}" for b in bv.bullets), bv.evidence]
        lines += [f"typical baseline answer: {old}", f"typical current answer: {new}"]
        if bv.withdrawn:
            # The watch's re-test on fresh answers did not confirm it: not a failing test.
            yield Case(classname, f"answers of {bv.prompt_id}", output="\n".join(lines))
            continue
        yield Case(
            classname,
            f"answers of {bv.prompt_id}",
            "failure",
            message=bv.summary,
            kind="behaviour-change",
            details="\n".join(line for line in lines if line),
        )


def _suite_answer_cases(view: ReportView) -> Iterator[Case]:
    """The suite-level answer test, when the report has one: a failure when the answers across
    the suite moved, passed otherwise (its sentence as the output either way)."""
    suite = view.report.behaviour_suite
    if suite is None or not view.behaviour_suite:
        return
    name = "answers across the suite"
    retest = view.report.retest
    if suite.changed and retest is not None and not retest.suite_confirmed:
        again = "not re-tested" if retest.suite_confirmed is None else "not confirmed"
        output = f"{view.behaviour_suite}\n{again} on fresh answers (the watch's re-test)"
        yield Case(f"{view.suite}.answers", name, output=output)
    elif suite.changed:
        yield Case(
            f"{view.suite}.answers",
            name,
            "failure",
            message="the answers across the suite moved",
            kind="behaviour-change",
            details=view.behaviour_suite,
        )
    else:
        yield Case(f"{view.suite}.answers", name, output=view.behaviour_suite)


def _answer_cases(view: ReportView) -> Iterator[Case]:
    yield from _behaviour_cases(view)
    yield from _suite_answer_cases(view)


#: The kinds of test case of a drift report, each with its ``<testsuite>`` name.
DRIFT_CASES: tuple[tuple[str, Callable[[ReportView], Iterator[Case]]], ...] = (
    ("probes", _probe_cases),
    ("answers", _answer_cases),
)


def run_to_junit(view: RunView) -> str:
    """A run without a baseline: one case per (probe, prompt) pair, failing when a sample failed
    the probe (what ``run --fail-on-failure`` gates on), skipped when no sample was measured."""
    run = view.run
    grouped: dict[tuple[str, str], list[ProbeResult]] = defaultdict(list)
    for r in run.probe_results:
        grouped[(r.probe_id, r.prompt_id)].append(r)
    failing = {(p.probe_id, p.prompt_id): p for p in view.failing}
    classname = f"{view.suite}.probes"
    cases = []
    for (probe_id, prompt_id), results in grouped.items():
        name = _pair_name(one_line(probe_id, 80), one_line(prompt_id, 60))
        measured = [r for r in results if not r.errored]
        pair = failing.get((one_line(probe_id, 80), one_line(prompt_id, 60)))
        if not measured:
            error = redact(one_line(results[0].details or "no usable result", 300))
            cases.append(Case(classname, name, "skipped", message=f"not measured: {error}"))
        elif pair is not None:
            details = [f"passed {pair.passed_text} samples, score {pair.mean:.2f}"]
            if pair.index <= MAX_DETAILS:
                details += [
                    f"prompt:\n{_block(pair.prompt_text, PROMPT_CHARS)}"
                    if pair.prompt_text
                    else "",
                    f"first failing answer:\n{_block(pair.response_text, RESPONSE_CHARS)}"
                    if pair.response_text
                    else "",
                ]
            cases.append(
                Case(
                    classname,
                    name,
                    "failure",
                    message=f"passed {pair.passed_text}: {pair.reason}",
                    kind="probe-failed",
                    details="\n".join(d for d in details if d),
                )
            )
        else:
            cases.append(Case(classname, name))
    properties = {"model": view.model, "run": run.run_id, "score": view.overall}
    return _document(
        f"PromptCanary: {view.suite} on {view.model}",
        [Suite(f"{view.suite} · probes", cases)],
        properties,
        timestamp=run.started_at.strftime("%Y-%m-%dT%H:%M:%S"),
    )


# ── Writing ──────────────────────────────────────────────────────────────────────────────────


def _pair_name(probe_id: str, prompt_id: str) -> str:
    # Unique in the file: GitLab keeps only the first of two cases with the same name.
    return f"{probe_id} on {prompt_id}"


def _pair_details(pv: PairView, *, full: bool) -> str:
    lines = [
        f"probe {pv.probe} ({pv.category}) on prompt {pv.prompt_id}",
        f"evidence: {pv.evidence}",
        f"reason: {pv.reason}" if pv.reason else "",
    ]
    if full:
        c = pv.c
        lines += [
            f"prompt:\n{_block(c.prompt_text, PROMPT_CHARS)}" if c.prompt_text else "",
            f"baseline answer:\n{_block(c.baseline_response, RESPONSE_CHARS)}"
            if c.baseline_response
            else "",
            f"current answer:\n{_block(c.current_response, RESPONSE_CHARS)}"
            if c.current_response
            else "",
        ]
    return "\n".join(line for line in lines if line)


def _block(text: str | None, limit: int) -> str:
    """Text as written, cut at ``limit``: a CI's viewer wraps lines itself (the reports' excerpts
    hard-wrap long lines to protect their layout, which would split words here)."""
    return clip(clean_text(text), limit)


def _text(value: str, *, one: bool = False) -> str:
    """``value`` as XML can hold it: cleaned (control characters made visible), on one line for
    an attribute (a parser folds newlines there). Longer texts were clipped by their views."""
    text = one_line(value, MESSAGE_CHARS) if one else clean_text(value)
    return _NOT_XML.sub("\N{REPLACEMENT CHARACTER}", text)


def _document(name: str, suites: list[Suite], properties: dict[str, str], *, timestamp: str) -> str:
    root = ET.Element("testsuites", name=_text(name, one=True))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        counts = {
            "tests": len(suite.cases),
            "failures": sum(c.outcome == "failure" for c in suite.cases),
            "errors": 0,
            "skipped": sum(c.outcome == "skipped" for c in suite.cases),
        }
        attributes = {"name": _text(suite.name, one=True)}
        for key, count in counts.items():
            totals[key] += count
            attributes[key] = str(count)
        attributes.update(time="0", timestamp=timestamp)
        element = ET.SubElement(root, "testsuite", attributes)
        props = ET.SubElement(element, "properties")
        for key, text in properties.items():
            ET.SubElement(props, "property", name=key, value=_text(text, one=True))
        for case in suite.cases:
            _case(element, case)
    for key, total in totals.items():
        root.set(key, str(total))
    root.set("time", "0")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, "unicode") + "\n"


def _case(parent: ET.Element, case: Case) -> None:
    element = ET.SubElement(
        parent,
        "testcase",
        name=_text(case.name, one=True),
        classname=_text(case.classname, one=True),
        time="0",
    )
    if case.outcome == "failure":
        failure = ET.SubElement(
            element, "failure", message=_text(case.message, one=True), type=case.kind
        )
        failure.text = _text(case.details)
    elif case.outcome == "skipped":
        ET.SubElement(element, "skipped", message=_text(case.message, one=True))
    if case.output:
        ET.SubElement(element, "system-out").text = _text(case.output)
