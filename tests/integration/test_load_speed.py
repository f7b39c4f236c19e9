"""A 5 MB canary.yaml loads in well under the time the old loader took (issue 14).

The target is under a second on a quiet machine (benchmarks/load_speed.py prints the figure). CI
machines are shared, so this guards with CPU time and a generous bound: the recursive pure-Python
loader used before took about 10 s of CPU for the same file, the current one about 0.75 s.
"""

from __future__ import annotations

import time
from pathlib import Path

from promptcanary.core.suite import CanarySuite

PROMPT = """\
  - id: p{i}
    text: "Customer {i} asks: where is my order #{i}? Answer in two sentences, then as JSON."
    system_prompt: You are the support assistant of an online shop. Be brief and factual.
    tags: [support, orders, batch-{batch}]
    expected_keywords: ["order", "{i}"]
    metadata: {{owner: team-{batch}, priority: {priority}}}
"""


def test_a_5_mb_suite_loads_in_a_bounded_time(tmp_path: Path) -> None:
    parts = ["name: big\nprobes: [json_validity, expected_keywords]\nprompts:\n"]
    size, i = len(parts[0]), 0
    while size < 5 * 1024 * 1024:
        parts.append(PROMPT.format(i=i, batch=i % 50, priority=i % 3))
        size += len(parts[-1])
        i += 1
    path = tmp_path / "canary.yaml"
    path.write_text("".join(parts), encoding="utf-8")

    started = time.process_time()
    suite = CanarySuite.from_yaml(path)
    took = time.process_time() - started

    assert len(suite.prompts) == i and suite.prompts[-1].metadata["owner"] == f"team-{(i - 1) % 50}"
    assert took < 3.0, f"a 5 MB suite took {took:.2f} s of CPU to load"
