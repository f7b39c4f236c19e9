"""LazyEncoding: LiteLLM's default tokenizer is built on first use, once, and is then the real one.

The real LiteLLM, through the fast route and the loopback server, is in
tests/integration/test_startup_imports.py (a fresh interpreter: the tokenizer is process-wide)."""

from __future__ import annotations

import copy
import threading
from types import ModuleType
from typing import Any

from promptcanary.providers.litellm_encoding import LazyEncoding, defer_default_encoding


class _Tokenizer:
    name = "cl100k_base"

    def encode(self, text: str, **_: Any) -> list[int]:
        return [ord(c) for c in text]


def test_nothing_is_built_until_an_attribute_is_read() -> None:
    built: list[_Tokenizer] = []

    def load() -> _Tokenizer:
        built.append(_Tokenizer())
        return built[-1]

    lazy = LazyEncoding(load)
    assert (built, lazy.loaded, repr(lazy)) == ([], False, "<LazyEncoding (not built yet)>")
    assert lazy.encode("ab") == [97, 98]
    assert lazy.name == "cl100k_base"
    assert len(built) == 1 and lazy.loaded
    assert repr(lazy) == repr(built[0])


def test_threads_reading_it_at_once_build_it_once() -> None:
    calls: list[int] = []
    gate = threading.Barrier(8)

    def load() -> _Tokenizer:
        calls.append(1)
        return _Tokenizer()

    lazy = LazyEncoding(load)
    names: list[str] = []

    def read() -> None:
        gate.wait()
        names.append(lazy.name)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert (len(calls), names) == (1, ["cl100k_base"] * 8)


def test_copies_share_it_and_build_nothing() -> None:
    built: list[int] = []
    lazy = LazyEncoding(lambda: built.append(1) or _Tokenizer())
    details = {"encoding": lazy, "model": "m"}  # as LiteLLM deep-copies a call's details
    assert copy.deepcopy(details)["encoding"] is lazy
    assert copy.copy(lazy) is lazy
    assert not hasattr(lazy, "__wrapped__")  # a dunder probe does not build it either
    assert built == []


def _litellm_main(**attributes: Any) -> ModuleType:
    module = ModuleType("litellm.main")
    for key, value in attributes.items():
        setattr(module, key, value)
    return module


def test_an_empty_cache_gets_the_stand_in_which_loads_through_the_module() -> None:
    module = _litellm_main(_encoding_cache=None)
    defer_default_encoding(module)
    lazy = module._encoding_cache
    assert isinstance(lazy, LazyEncoding) and not lazy.loaded
    module.encoding = _Tokenizer()  # what LiteLLM's module-level __getattr__ would build
    assert lazy.encode("x") == [120]


def test_a_filled_cache_or_another_litellm_is_left_alone() -> None:
    real = _Tokenizer()
    filled = _litellm_main(_encoding_cache=real)
    defer_default_encoding(filled)
    assert filled._encoding_cache is real

    built = _litellm_main(_encoding_cache=None, encoding=real)  # built, cache not filled
    defer_default_encoding(built)
    assert built._encoding_cache is None

    other = _litellm_main()  # a LiteLLM without this cache
    defer_default_encoding(other)
    assert not hasattr(other, "_encoding_cache")
