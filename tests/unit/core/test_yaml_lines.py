"""core/yaml_lines.py: the same values as PyYAML's safe loader, with lines, and hard limits."""

from __future__ import annotations

import datetime

import pytest
import yaml

from promptcanary.core.yaml_lines import MAX_ALIAS_NODES, MAX_DEPTH, LineDict, load_with_lines
from promptcanary.errors import ConfigError

SAME_AS_SAFE_LOAD = [
    "a: 1\nb: [1, 2.5, true, null, ~, 2024-01-01, '3', \"x\", on, no, -1, +2, .5, 0x1f, .inf]\n",
    "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n",
    "one: &a {x: 1}\ntwo: &b {x: 2, z: 3}\nc:\n  <<: [*a, *b]\n",
    "- a\n- &x [1, 2]\n- *x\n- {k: *x}\n",
    "",
    "42",
    "k:\nl: ''\nm: |\n  block\n  text\n",
    "k: !!binary aGVsbG8=\ns: !!str 12\nf: !!float 1\n",
    "t: 2001-12-14t21:59:43.10-05:00\n",
    "'quoted key': 1\n1: int key\nnull: null key\n",
    "<<: {a: 1}\nb: 2\n",
]


@pytest.mark.parametrize("text", SAME_AS_SAFE_LOAD)
def test_values_match_pyyaml_safe_load(text: str) -> None:
    assert load_with_lines(text) == yaml.safe_load(text)


def test_mappings_remember_their_lines() -> None:
    data = load_with_lines("name: x\nprobes:\n  - type: regex\n    pattern: a\n")
    assert isinstance(data, LineDict) and data.line == 1
    assert data.key_lines == {"name": 1, "probes": 2}
    probe = data["probes"][0]
    assert probe.line == 3 and probe.key_lines == {"type": 3, "pattern": 4}


def test_merged_keys_keep_the_line_where_they_were_written() -> None:
    data = load_with_lines("d: &d\n  a: 1\nx:\n  <<: *d\n  b: 2\n")
    assert data["x"] == {"a": 1, "b": 2}
    assert data["x"].key_lines == {"a": 2, "b": 5}


def test_aliases_share_one_object_like_pyyaml() -> None:
    data = load_with_lines("a: &x [1]\nb: *x\n")
    assert data["a"] is data["b"]


def test_depth_limit_is_exact() -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    assert load_with_lines(ok) is not None
    too_deep = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(ConfigError, match=f"nested more than {MAX_DEPTH} levels deep"):
        load_with_lines(too_deep)


def test_libyaml_own_depth_guard_reads_like_ours() -> None:
    with pytest.raises(ConfigError, match="nested more than") as info:
        load_with_lines("x:\n  y: " + "[" * 20_000)
    assert info.value.line == 2


def test_alias_expansion_limit_is_exact() -> None:
    # An anchored list of n strings stands for n + 1 values; k aliases of it expand to k(n + 1).
    n = 999
    items = ", ".join(["a"] * n)
    fits = MAX_ALIAS_NODES // (n + 1)
    text = f"base: &b [{items}]\nuses:\n" + "  - *b\n" * fits
    assert len(load_with_lines(text)["uses"]) == fits
    with pytest.raises(ConfigError, match="aliases expand to more than 100,000 values") as info:
        load_with_lines(text + "  - *b\n")
    assert info.value.line == fits + 3


def test_a_billion_laughs_is_refused_at_once() -> None:
    lines = ["x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"x{i}: &x{i} [" + ", ".join([f"*x{i - 1}"] * 9) + "]" for i in range(1, 10)]
    with pytest.raises(ConfigError, match="aliases expand"):
        load_with_lines("\n".join(lines))


@pytest.mark.parametrize(
    "text, says, line",
    [
        ("a: 1\na: 2\n", "duplicate key 'a'", 2),
        ("a: !!python/object/apply:os.system [x]\n", "unsupported YAML tag", 1),
        ("a: !!python/name:os.system\n", "unsupported YAML tag", 1),
        ("a: !!set {x}\n", "unsupported YAML tag", 1),
        ("a:\n  b: !custom x\n", "unsupported YAML tag '!custom'", 2),
        ("a: *nope\n", "has no anchor", 1),
        ("a: &r [1, *r]\n", "refers to a value that contains it", 1),
        ("--- a\n--- b\n", "more than one YAML document", 2),
        ("? [1]\n: x\n", "mapping key must be a plain value", 1),
        ("x:\n  <<: 5\n", "'<<' merges a mapping", 2),
        ("a: !!int nope\n", "invalid value", 1),
    ],
)
def test_refused_with_their_line(text: str, says: str, line: int) -> None:
    with pytest.raises(ConfigError, match=says) as info:
        load_with_lines(text)
    assert info.value.line == line


def test_a_stray_merge_key_as_a_value_is_text() -> None:
    assert load_with_lines("- <<\n") == ["<<"]
    assert load_with_lines("<<") == "<<"


def test_timestamps_and_dates_are_built() -> None:
    assert load_with_lines("d: 2024-01-02\n") == {"d": datetime.date(2024, 1, 2)}
