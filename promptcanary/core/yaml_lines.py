"""A YAML loader that remembers line numbers, so config errors can say where they are."""

from __future__ import annotations

from typing import Any

import yaml

from promptcanary.errors import ConfigError


class LineDict(dict[str, Any]):
    """A dict that remembers the YAML line (1-based) of itself and of each of its keys."""

    line: int | None = None
    key_lines: dict[str, int]


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose mappings are :class:`LineDict` with line numbers."""


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    mapping = LineDict()
    mapping.line = node.start_mark.line + 1
    mapping.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in mapping:
            raise ConfigError(
                f"duplicate key '{key}'",
                line=key_node.start_mark.line + 1,
                field=str(key),
                hint="Each key may appear once per mapping.",
            )
        mapping[key] = loader.construct_object(value_node, deep=True)
        mapping.key_lines[str(key)] = key_node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def load_with_lines(text: str) -> Any:
    """Parse YAML text safely; mappings come back as :class:`LineDict`."""
    return yaml.load(text, Loader=_LineLoader)
