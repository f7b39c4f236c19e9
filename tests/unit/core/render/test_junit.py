"""JUnit XML (core/render/junit.py), read back as CI reporters read it: junitparser (the parser
behind several of them) for results and counts, ElementTree for the rules of the JUnit schema
Jenkins validates against (written out in :func:`check_jenkins_rules`)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from junitparser import Failure, JUnitXml, Skipped

from promptcanary.core.models import ProbeCategory
from promptcanary.core.reporter import DriftReporter, RunReporter
from tests.unit.core.render.samples import (
    HOSTILE,
    LONG_LINE,
    assert_golden,
    behaviour_report,
    comparison,
    drift_report,
    run_result,
)

#: What a testcase may hold, in the schema's order (one result at most, then the output).
RESULTS = {"failure", "error", "skipped"}
OUTPUTS = ["system-out", "system-err"]


def check_jenkins_rules(text: str) -> ET.Element:
    """The constraints of the JUnit schema Jenkins' xUnit plugin validates (junit-10.xsd), as
    assertions: element nesting and order, required attributes, and counts that agree."""
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites"
    totals = dict.fromkeys(("tests", "failures", "errors", "skipped"), 0)
    for suite in root:
        assert suite.tag == "testsuite"
        assert suite.get("name") and suite.get("tests") is not None
        assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", suite.get("timestamp", ""))
        children = [child.tag for child in suite]
        assert children[0] == "properties" and "properties" not in children[1:]
        assert set(children[1:]) <= {"testcase"}
        # suite[0], the <properties> just checked (not find(...) or []: an element's truth value
        # is deprecated since Python 3.12, and is its number of children).
        for prop in suite[0]:
            assert prop.tag == "property" and prop.get("name") and prop.get("value") is not None
        cases = suite.findall("testcase")
        counts = {
            "tests": len(cases),
            "failures": sum(c.find("failure") is not None for c in cases),
            "errors": sum(c.find("error") is not None for c in cases),
            "skipped": sum(c.find("skipped") is not None for c in cases),
        }
        for key, value in counts.items():
            assert suite.get(key) == str(value), (suite.get("name"), key)
            totals[key] += value
        for case in cases:
            assert case.get("name") and case.get("classname")
            float(case.get("time", "0"))
            tags = [child.tag for child in case]
            results = [t for t in tags if t in RESULTS]
            assert len(results) <= 1
            assert tags == results + [t for t in OUTPUTS if t in tags]
            for result in case:
                if result.tag in RESULTS:
                    assert "\n" not in result.get("message", "")
    for key, value in totals.items():
        assert root.get(key) == str(value)
    return root


def outcomes(text: str) -> dict[tuple[str, str], str]:
    """(classname, name) -> passed / failure / skipped, through junitparser."""
    found = {}
    for suite in JUnitXml.fromstring(text):
        for case in suite:
            kinds = {type(r) for r in case.result}
            outcome = "failure" if Failure in kinds else "skipped" if Skipped in kinds else "passed"
            assert (case.classname, case.name) not in found, "a name GitLab would drop"
            found[(case.classname, case.name)] = outcome
    return found


def test_a_case_per_pair_failing_when_it_regressed_skipped_when_not_measured() -> None:
    text = DriftReporter(drift_report()).to_junit()
    check_jenkins_rules(text)
    assert outcomes(text) == {
        ("checkout-agent.probes", "keyword_presence on p0001"): "failure",
        ("checkout-agent.probes", "step_by_step on p0002"): "failure",
        ("checkout-agent.probes", "json_validity on p0003"): "passed",  # improved
        ("checkout-agent.probes", "keyword_presence on p0004"): "passed",
        ("checkout-agent.probes", "step_by_step on p0005"): "passed",
        ("checkout-agent.probes", "json_validity on p0006"): "skipped",  # inconclusive
    }
    xml = JUnitXml.fromstring(text)
    assert (xml.tests, xml.failures, xml.errors, xml.skipped) == (6, 2, 0, 1)
    root = ET.fromstring(text)
    (regression,) = [f for f in root.iter("failure") if "p0001" in (f.text or "") and f.get("type")]
    assert regression.get("type") == "regression"
    assert regression.get("message", "").startswith("score 1.00 → 0.00 (−1.00): Invalid JSON")
    assert "baseline answer:" in (regression.text or "")
    (skipped,) = root.iter("skipped")
    assert skipped.get("message", "").startswith("could not be measured — not evidence of drift")
    assert "rate limited (429)" in skipped.get("message", "")
    improved = [c for c in root.iter("testcase") if c.get("name") == "json_validity on p0003"]
    assert improved[0].findtext("system-out") == "improved: score 0.20 → 1.00"


def test_a_case_per_prompt_whose_answers_changed() -> None:
    text = DriftReporter(behaviour_report()).to_junit()
    root = check_jenkins_rules(text)
    found = outcomes(text)
    assert found[("checkout-agent.answers", "answers of prompt-1")] == "failure"
    assert found[("checkout-agent.answers", "answers of prompt-2")] == "failure"
    # The suite-level answer test is a case of its own: it rejected here.
    assert found[("checkout-agent.answers", "answers across the suite")] == "failure"
    report = behaviour_report()
    assert report.behaviour_suite is not None
    calm = report.model_copy(
        update={
            "behaviour_changes": [],
            "behaviour_suite": report.behaviour_suite.model_copy(update={"changed": False}),
        }
    )
    held = DriftReporter(calm).to_junit()
    check_jenkins_rules(held)
    assert outcomes(held) == {
        ("checkout-agent.probes", "keyword_presence on p0004"): "passed",
        ("checkout-agent.probes", "step_by_step on p0005"): "passed",
        ("checkout-agent.answers", "answers across the suite"): "passed",
    }
    assert "Answer test across the suite: no change detected" in held
    assert [s.get("name") for s in root] == ["checkout-agent · probes", "checkout-agent · answers"]
    (first, _, suite) = [f for f in root.iter("failure") if f.get("type") == "behaviour-change"]
    assert suite.get("message") == "the answers across the suite moved"
    assert first.get("message") == (
        "7 of 10 answers now open with 'Sure! Great question.' and are 2.8× longer"
    )
    assert "typical current answer: Sure! Great question. The capital of France is Paris." in (
        first.text or ""
    )


def test_the_report_as_ci_reporters_get_it() -> None:
    report = drift_report(
        [
            comparison(1, baseline=1.0, current=0.0, samples=10, method="fisher"),
            comparison(3, kind="improvement", baseline=0.2, current=1.0, samples=10),
            comparison(4, kind="stable", baseline=0.0, current=0.0, samples=10),
            comparison(6, kind="inconclusive", baseline=1.0, current=0.0, samples=10),
        ],
        samples=10,
    )
    assert_golden("drift_junit.xml", DriftReporter(report).to_junit())


@pytest.mark.parametrize("text", [HOSTILE, LONG_LINE, "]]> & < > \" ' \ufffe\uffff"])
def test_anything_a_model_answers_stays_well_formed(text: str) -> None:
    pair = comparison(
        1, baseline=1.0, current=0.0, response=text, category=ProbeCategory.SAFETY
    ).model_copy(update={"prompt_text": text, "current_details": text, "prompt_id": text[:40]})
    report = drift_report([pair]).model_copy(update={"suite_name": text[:60]})
    xml = DriftReporter(report).to_junit()
    assert len(xml) < 60_000  # a 100 kB answer is clipped
    root = check_jenkins_rules(xml)
    (failure,) = root.iter("failure")
    assert "\x00" not in (failure.text or "") and "\x1b" not in (failure.text or "")
    if text is HOSTILE:
        assert "<script>document.body" in (failure.text or "")  # kept as text, escaped in XML
        assert "<script>" not in xml


def test_a_run_without_a_baseline_fails_the_pairs_a_sample_failed() -> None:
    text = RunReporter(run_result(n_prompts=4, failing=(1,), error=2)).to_junit()
    check_jenkins_rules(text)
    assert outcomes(text) == {
        ("checkout-agent.probes", "json_validity on p0"): "passed",
        ("checkout-agent.probes", "json_validity on p1"): "failure",
        ("checkout-agent.probes", "json_validity on p2"): "skipped",
        ("checkout-agent.probes", "json_validity on p3"): "passed",
    }
    (failure,) = ET.fromstring(text).iter("failure")
    assert failure.get("type") == "probe-failed"
    assert failure.get("message") == "passed 0/1: Invalid JSON."
