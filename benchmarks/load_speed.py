"""How fast canary.yaml is read, and how fast hostile documents are refused.

Issue 14's target: a 5 MB suite loads (``CanarySuite.from_yaml``: file, YAML, probes, prompts) in
under a second. Printed side by side, in the same process, with PyYAML's own loaders on the same
text (the pure-Python ``SafeLoader`` the project used before, and libyaml's ``CSafeLoader``), which
only parse and build no suite. Then the time to refuse an alias bomb and a 20,000-level nesting.

    python benchmarks/load_speed.py [--mb 5] [--rounds 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from promptcanary.core.suite import CanarySuite
from promptcanary.errors import ConfigError

HEADER = """\
name: big-suite
description: A generated suite of realistic prompts, to time loading.
samples: 1
probes:
  - json_validity
  - type: keyword_presence
    forbidden_keywords: ["As an AI language model"]
  - expected_keywords
  - type: response_length
    max_chars: 2000
prompts:
"""

PROMPT = """\
  - id: p{i}
    text: "Customer {i} asks: where is my order #{i}? Answer in two sentences, then as JSON."
    system_prompt: You are the support assistant of an online shop. Be brief and factual.
    tags: [support, orders, batch-{batch}]
    expected_keywords: ["order", "{i}"]
    metadata: {{owner: team-{batch}, priority: {priority}}}
"""


def make_suite(target_bytes: int) -> str:
    # One tool definition, anchored on the first prompt and reused by every 100th (as suites do).
    parts = [HEADER]
    parts.append(
        "  - id: with-tools\n    text: Look up order 1.\n    tools: &lookup\n"
        "      - type: function\n        function:\n          name: lookup_order\n"
        "          parameters: {type: object, properties: {order_id: {type: string}}}\n"
    )
    size = sum(len(p) for p in parts)
    i = 0
    while size < target_bytes:
        chunk = PROMPT.format(i=i, batch=i % 50, priority=i % 3)
        if i % 100 == 99:
            chunk += "    tools: *lookup\n"
        parts.append(chunk)
        size += len(chunk)
        i += 1
    return "".join(parts)


def timed(fn: Callable[[], Any], rounds: int) -> tuple[float, float, float]:
    """(median wall s, min wall s, median CPU s) over ``rounds`` calls."""
    walls, cpus = [], []
    for _ in range(rounds):
        w, c = time.perf_counter(), time.process_time()
        fn()
        cpus.append(time.process_time() - c)
        walls.append(time.perf_counter() - w)
    return statistics.median(walls), min(walls), statistics.median(cpus)


def refuse(text: str) -> float:
    start = time.perf_counter()
    try:
        from promptcanary.core.yaml_lines import load_with_lines

        load_with_lines(text)
    except ConfigError as exc:
        print(f"    refused: {exc.message}")
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=5.0, help="suite size in MB")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-pure-python", action="store_true", help="skip the slow baseline")
    args = parser.parse_args()

    text = make_suite(int(args.mb * 1024 * 1024))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "canary.yaml"
        path.write_text(text, encoding="utf-8")
        suite = CanarySuite.from_yaml(path)
        print(
            f"suite: {len(text) / 1024 / 1024:.1f} MB, {len(suite.prompts):,} prompts, "
            f"{len(suite.probes)} probes; libyaml: {yaml.__with_libyaml__}"
        )
        rows = [("CanarySuite.from_yaml (this project)", lambda: CanarySuite.from_yaml(path))]
        rows.append(
            ("yaml.load CSafeLoader (parse only)", lambda: yaml.load(text, Loader=yaml.CSafeLoader))
        )
        if not args.skip_pure_python:
            rows.append(
                ("yaml.load SafeLoader (before)", lambda: yaml.load(text, Loader=yaml.SafeLoader))
            )
        print(f"{'loader':<40} {'median':>8} {'min':>8} {'cpu':>8}")
        for label, fn in rows:
            rounds = 1 if "before" in label else args.rounds
            median, low, cpu = timed(fn, rounds)
            print(f"{label:<40} {median:>7.2f}s {low:>7.2f}s {cpu:>7.2f}s")

    print("hostile documents:")
    bomb = ["name: s", "x0: &x0 [lol,lol,lol,lol,lol,lol,lol,lol,lol]"]
    bomb += [f"x{i}: &x{i} [" + ",".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 10)]
    print(f"  alias bomb (9^9 values): {refuse(chr(10).join(bomb)) * 1000:.1f} ms")
    deep = "tags: " + "[" * 20_000 + "]" * 20_000
    print(f"  nesting 20,000 deep:     {refuse(deep) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
