"""LiteLLM's default tokenizer, built only when something counts tokens with it (issue 29).

LiteLLM's ``aiohttp_openai/`` dispatch hands its handler the default tokenizer (tiktoken's
``cl100k_base``) on every call, read from a module-level cache that the first call fills: building
it costs 0.15-0.4 s of CPU, about a fifth of what a 150-request run spends after LiteLLM's import
(docs/benchmarks.md, "Start-up of a model-calling command"). The fast route never uses it: its
response config (``litellm_transport._ChatConfig``) reads the usage the server sent and counts
nothing. So the fast route puts a :class:`LazyEncoding` in that cache before its first call; the
tokenizer is built the first time anything reads an attribute of it (a route that counts tokens),
and from then on LiteLLM caches and hands out the real one.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__ = ["LazyEncoding", "defer_default_encoding"]


class LazyEncoding:
    """Stands in for a tokenizer until one of its attributes is read, then is that tokenizer:
    every attribute (``encode``, ``decode``, ``name`` ...) is the real one's."""

    def __init__(self, load: Callable[[], Any]) -> None:
        self._load = load
        self._lock = threading.Lock()
        self._real: Any = None

    @property
    def loaded(self) -> bool:
        """Whether the tokenizer was built (for tests and benchmarks)."""
        return self._real is not None

    def __getattr__(self, name: str) -> Any:
        # Only names this object lacks reach here: the tokenizer's, never _load/_lock/_real.
        if name.startswith("__"):  # copy, pickle, introspection: never a reason to build it
            raise AttributeError(name)
        if self._real is None:
            with self._lock:  # LiteLLM calls from worker threads: build it once
                if self._real is None:
                    self._real = self._load()
        return getattr(self._real, name)

    def __copy__(self) -> LazyEncoding:
        return self  # a tokenizer is never changed: a copy (LiteLLM copies call details) shares it

    def __deepcopy__(self, memo: dict[int, Any]) -> LazyEncoding:
        return self

    def __repr__(self) -> str:
        return repr(self._real) if self._real is not None else "<LazyEncoding (not built yet)>"


def defer_default_encoding(litellm_main: Any) -> None:
    """Put a :class:`LazyEncoding` in ``litellm.main``'s tokenizer cache while it is empty.

    ``litellm.main.encoding`` (LiteLLM's own lazy attribute) builds the tokenizer and caches it
    in the module in place of this stand-in. A LiteLLM without that cache (another version) is
    left as it is: its calls build the tokenizer themselves, as before.
    """
    if getattr(litellm_main, "_encoding_cache", False) is not None:
        return  # filled already, or no such cache in this LiteLLM
    if "encoding" in vars(litellm_main):
        return
    litellm_main._encoding_cache = LazyEncoding(lambda: litellm_main.encoding)
