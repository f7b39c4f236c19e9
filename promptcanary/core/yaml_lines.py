"""A YAML loader that remembers line numbers and refuses hostile documents before building them.

Objects are built straight from the parser's event stream (libyaml when PyYAML has it), with an
explicit stack instead of recursion. That is what makes the limits cheap to enforce while the
document is read, before anything large exists in memory:

* :data:`MAX_DEPTH` — collections nested deeper are refused (a value nested 20,000 levels deep
  used to end in ``RecursionError``);
* :data:`MAX_ALIAS_NODES` — the values aliases stand for, counted as if expanded (a "billion
  laughs" bomb is refused after a few thousand steps instead of growing memory for minutes);
* the document size, checked by the caller (:data:`promptcanary.files.MAX_YAML_BYTES`).

It is also about five times faster than composing nodes and constructing them with PyYAML's
recursive constructor: a 5 MB suite loads in well under a second. Only the safe YAML types are
built (strings, numbers, booleans, null, timestamps, binary); any other tag, ``!!python/object``
included, is refused with its line.
"""

from __future__ import annotations

import gc
from typing import Any

import yaml

from promptcanary.errors import ConfigError

__all__ = ["MAX_ALIAS_NODES", "MAX_DEPTH", "LineDict", "load_with_lines"]

#: Deepest nesting of lists and mappings accepted. Real suites stay under 20 (tool schemas).
MAX_DEPTH = 100
#: Most values that aliases (``*name``) may stand for in one document, counted expanded.
MAX_ALIAS_NODES = 100_000

_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_STR_TAG = "tag:yaml.org,2002:str"
_MERGE_TAG = "tag:yaml.org,2002:merge"
_LIMITS_HINT = "See docs/limits.md for the limits on canary.yaml."


class LineDict(dict[str, Any]):
    """A dict that remembers the YAML line (1-based) of itself and of each of its keys."""

    line: int | None = None
    key_lines: dict[str, int]


class _Merge:
    """Marks the ``<<`` merge key while its mapping is being built."""


_MERGE = _Merge()


class _Frame:
    """A list or mapping being built: its value so far, and how many values it stands for."""

    __slots__ = ("anchor", "key", "key_line", "line", "merges", "size", "value")

    def __init__(self, value: list[Any] | LineDict, line: int, anchor: str | None) -> None:
        self.value = value
        self.line = line
        self.anchor = anchor
        self.size = 1
        self.key: Any = _NO_KEY
        self.key_line = line
        self.merges: list[LineDict] = []


_NO_KEY = object()


def _fail(message: str, mark: Any, hint: str | None = None) -> ConfigError:
    line = mark.line + 1 if mark is not None else None
    return ConfigError(message, line=line, hint=hint)


def _loader_classes() -> tuple[type[Any], type[Any]]:
    """(parser, constructor): the C parser when PyYAML was built with libyaml."""
    parser = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader
    return parser, yaml.SafeLoader


class _Builder:
    """Turns one document's events into Python objects, enforcing the limits as it goes."""

    def __init__(self) -> None:
        _, constructor_cls = _loader_classes()
        # One SafeLoader serves as resolver (plain scalar -> tag) and constructor (tag -> value).
        self.safe = constructor_cls("")
        self.stack: list[_Frame] = []
        self.anchors: dict[str, tuple[Any, int]] = {}
        self.open_anchors: set[str] = set()
        self.alias_nodes = 0
        self.root: Any = None

    # ── values ──

    def scalar(self, event: Any) -> Any:
        tag = event.tag
        if tag is None or tag == "!":
            tag = self.safe.resolve(yaml.ScalarNode, event.value, event.implicit)
        if tag == _STR_TAG:
            return event.value
        if tag == _MERGE_TAG:
            return _MERGE
        constructor = self.safe.yaml_constructors.get(tag)
        if constructor is None or tag.startswith("tag:yaml.org,2002:python/"):
            raise _fail(
                f"unsupported YAML tag '{tag}'",
                event.start_mark,
                "canary.yaml holds plain data: strings, numbers, booleans, lists and mappings.",
            )
        node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
        try:
            return constructor(self.safe, node)
        except yaml.YAMLError as exc:
            raise _fail(f"invalid value {event.value!r}: {exc}", event.start_mark) from exc
        except (ValueError, OverflowError) as exc:
            raise _fail(f"invalid value {event.value!r} for {tag}", event.start_mark) from exc

    def add(self, value: Any, size: int, event: Any) -> None:
        """Put a finished value into the collection being built (or make it the document)."""
        if not self.stack:
            self.root = _plain(value)
            return
        frame = self.stack[-1]
        frame.size += size
        if isinstance(frame.value, list):
            frame.value.append(_plain(value))
            return
        if frame.key is _NO_KEY:  # this value is a key
            if isinstance(value, (list, dict)):
                raise _fail(
                    "a mapping key must be a plain value, not a list or mapping", event.start_mark
                )
            frame.key = value
            frame.key_line = event.start_mark.line + 1
            return
        key, frame.key = frame.key, _NO_KEY
        if key is _MERGE:
            self.merge(frame, value, event)
            return
        mapping = frame.value
        if key in mapping:
            raise ConfigError(
                f"duplicate key '{key}'",
                line=frame.key_line,
                field=str(key),
                hint="Each key may appear once per mapping.",
            )
        mapping[key] = _plain(value)
        mapping.key_lines[str(key)] = frame.key_line

    def merge(self, frame: _Frame, value: Any, event: Any) -> None:
        sources = value if isinstance(value, list) else [value]
        if not sources or not all(isinstance(s, LineDict) for s in sources):
            raise _fail("'<<' merges a mapping or a list of mappings", event.start_mark)
        frame.merges.extend(sources)

    # ── collections ──

    def start(self, event: Any, value: list[Any] | LineDict, default_tag: str) -> None:
        if event.tag not in (None, "!", default_tag):
            raise _fail(
                f"unsupported YAML tag '{event.tag}'",
                event.start_mark,
                "canary.yaml holds plain data: strings, numbers, booleans, lists and mappings.",
            )
        if len(self.stack) >= MAX_DEPTH:
            raise _fail(
                f"nested more than {MAX_DEPTH} levels deep",
                event.start_mark,
                _LIMITS_HINT,
            )
        line = event.start_mark.line + 1
        if isinstance(value, LineDict):
            value.line = line
            value.key_lines = {}
        self.stack.append(_Frame(value, line, event.anchor))
        if event.anchor:
            self.open_anchors.add(event.anchor)

    def end(self, event: Any) -> None:
        frame = self.stack.pop()
        value = frame.value
        if isinstance(value, LineDict) and frame.merges:
            value = _merged(value, frame.merges)
        if frame.anchor:
            self.open_anchors.discard(frame.anchor)
            self.anchors[frame.anchor] = (value, frame.size)
        if self.stack:  # fast path: a finished list or mapping goes into a list or under its key
            parent = self.stack[-1]
            container, key = parent.value, parent.key
            if isinstance(container, list):
                container.append(value)
                parent.size += frame.size
                return
            if key is not _NO_KEY and key is not _MERGE and key not in container:
                container[key] = value
                container.key_lines[str(key)] = parent.key_line
                parent.key = _NO_KEY
                parent.size += frame.size
                return
        self.add(value, frame.size, event)

    def alias(self, event: yaml.AliasEvent) -> None:
        name = event.anchor
        if name in self.open_anchors:
            raise _fail(f"alias '*{name}' refers to a value that contains it", event.start_mark)
        if name not in self.anchors:
            raise _fail(f"alias '*{name}' has no anchor '&{name}' before it", event.start_mark)
        value, size = self.anchors[name]
        self.alias_nodes += size
        if self.alias_nodes > MAX_ALIAS_NODES:
            raise _fail(
                f"aliases expand to more than {MAX_ALIAS_NODES:,} values "
                "(a document that multiplies itself through aliases)",
                event.start_mark,
                _LIMITS_HINT,
            )
        self.add(value, size, event)


def _plain(value: Any) -> Any:
    """A stray ``<<`` anywhere but a key position is just the text ``<<``."""
    return "<<" if value is _MERGE else value


def _merged(own: LineDict, sources: list[LineDict]) -> LineDict:
    """``own`` with the keys of ``<<`` sources it does not set itself (first source wins)."""
    out = LineDict()
    out.line = own.line
    out.key_lines = {}
    for source in sources:
        for key, value in source.items():
            if key not in out and key not in own:
                out[key] = value
                if str(key) in source.key_lines:
                    out.key_lines[str(key)] = source.key_lines[str(key)]
    out.update(own)
    out.key_lines.update(own.key_lines)
    return out


def load_with_lines(text: str) -> Any:
    """Parse one YAML document safely; mappings come back as :class:`LineDict`.

    Raises:
        ConfigError: a limit is exceeded, a tag is not plain data, a key repeats, an alias is
            undefined or recursive, or the stream holds more than one document (with its line).
        yaml.YAMLError: the text is not YAML (the caller reports its position).
    """
    parser_cls, _ = _loader_classes()
    builder = _Builder()
    # Plain scalars starting with any other character are strings: no resolver regex to try.
    resolvable = frozenset(builder.safe.yaml_implicit_resolvers)
    resolve = builder.safe.resolve
    known: dict[str, str] = {}
    stack = builder.stack
    scalar_event, mapping_start, sequence_start = (
        yaml.ScalarEvent,
        yaml.MappingStartEvent,
        yaml.SequenceStartEvent,
    )
    ends = (yaml.MappingEndEvent, yaml.SequenceEndEvent)
    loader = parser_cls(text)
    documents = 0
    # Hundreds of thousands of small objects and no cycles (an alias inside its own anchor is
    # refused): the cyclic collector's passes would only rescan them, and everything else alive.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        while loader.check_event():
            event = loader.get_event()
            kind = type(event)
            if kind is scalar_event:
                # Fast path for the bulk of a suite: untagged strings without an anchor.
                value = event.value
                slow = event.tag is not None or event.anchor
                if not slow and event.implicit[0] and (not value or value[0] in resolvable):
                    # A plain scalar that might be a number, boolean or null: keys and enum-like
                    # values repeat, so their resolution is remembered.
                    tag = known.get(value)
                    if tag is None:
                        tag = resolve(yaml.ScalarNode, value, (True, False))
                        if len(value) <= 64:
                            known[value] = tag
                    slow = tag != _STR_TAG
                if slow:
                    value = builder.scalar(event)
                    if event.anchor:
                        builder.anchors[event.anchor] = (value, 1)
                if stack and value is not _MERGE:
                    frame = stack[-1]
                    container = frame.value
                    key = frame.key
                    if isinstance(container, list):
                        container.append(value)
                    elif key is _NO_KEY:
                        frame.key = value
                        frame.key_line = event.start_mark.line + 1
                    elif key is not _MERGE and key not in container:
                        container[key] = value
                        container.key_lines[str(key)] = frame.key_line
                        frame.key = _NO_KEY
                    else:
                        builder.add(value, 1, event)
                        continue
                    frame.size += 1
                    continue
                builder.add(value, 1, event)
            elif kind is mapping_start or kind is sequence_start:
                if event.tag is None and not event.anchor and len(stack) < MAX_DEPTH:
                    # Fast path for the common case: untagged, unanchored, within the limit.
                    line = event.start_mark.line + 1
                    collection: list[Any] | LineDict
                    if kind is mapping_start:
                        collection = LineDict()
                        collection.line = line
                        collection.key_lines = {}
                    else:
                        collection = []
                    stack.append(_Frame(collection, line, None))
                elif kind is mapping_start:
                    builder.start(event, LineDict(), _MAP_TAG)
                else:
                    builder.start(event, [], _SEQ_TAG)
            elif kind in ends:
                builder.end(event)
            elif kind is yaml.AliasEvent:
                builder.alias(event)
            elif kind is yaml.DocumentStartEvent:
                documents += 1
                if documents > 1:
                    raise _fail(
                        "more than one YAML document ('---') in the file",
                        event.start_mark,
                        "Keep one suite per file.",
                    )
    except yaml.MarkedYAMLError as exc:
        # libyaml has its own, lower-level nesting guard; report it like ours.
        if "nesting depth" in str(exc.problem):
            raise _fail(f"nested more than {MAX_DEPTH} levels deep", exc.problem_mark) from exc
        raise
    finally:
        loader.dispose()
        if gc_was_enabled:
            gc.enable()
    return builder.root
