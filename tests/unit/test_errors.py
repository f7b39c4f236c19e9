"""errors.py: the one exception tree and the one exit-code table.

Every exception class of the package is defined in promptcanary/errors.py under
PromptCanaryError, the tree drawn in its docstring is the tree of classes with the exit codes the
table gives, and the old import paths of the classes that moved there still work.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

import pytest

import promptcanary
from promptcanary import errors
from promptcanary.errors import EXIT_CODES, PromptCanaryError, exit_code_for

#: Exception classes allowed outside the tree, with the reason. Each is a carrier handed to a
#: third-party library inside one call, never raised to a PromptCanary caller.
OUTSIDE_THE_TREE = {
    # Shaped as LiteLLM's aiohttp handler reads an error reply (status_code, text, headers); LiteLLM
    # turns it into the openai/ exception that LiteLLMProvider then translates into ProviderError.
    "promptcanary.providers.litellm_transport:_HTTPStatusError",
    # Carries a KeyboardInterrupt out of asyncio.wait_for's task on Python 3.10, so that it is
    # raised once (core/run/engine.py, _wait_for); caught and unwrapped in the same function.
    "promptcanary.core.run.engine:_CarriedError",
}


def _package_exception_classes() -> dict[str, type[BaseException]]:
    found: dict[str, type[BaseException]] = {}
    for module_info in pkgutil.walk_packages(promptcanary.__path__, "promptcanary."):
        module = importlib.import_module(module_info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found[f"{obj.__module__}:{obj.__qualname__}"] = obj
    return found


def test_every_exception_class_is_in_errors_py_under_the_root() -> None:
    classes = _package_exception_classes()
    assert set(OUTSIDE_THE_TREE) <= set(classes)  # the allowance is still needed
    misplaced = {
        name
        for name, cls in classes.items()
        if name not in OUTSIDE_THE_TREE
        and (cls.__module__ != "promptcanary.errors" or not issubclass(cls, PromptCanaryError))
    }
    assert not misplaced


def _drawn_tree() -> dict[str, int | None]:
    """Class name -> the exit code written next to it in errors.py's docstring tree."""
    drawn: dict[str, int | None] = {}
    for line in (errors.__doc__ or "").splitlines():
        found = re.match(r"\s*(?:[│ ]*[├└]── )?(\w+Error)\b.*?(?:\(exit (\d+)\))?\s*$", line)
        if found:
            drawn[found.group(1)] = int(found.group(2)) if found.group(2) else None
    return drawn


def test_the_docstring_tree_is_the_class_tree_with_the_tables_exit_codes() -> None:
    tree = {
        name: cls
        for name, cls in vars(errors).items()
        if inspect.isclass(cls) and issubclass(cls, PromptCanaryError)
    }
    drawn = _drawn_tree()
    assert set(drawn) == set(tree)
    for name, code in drawn.items():
        if code is not None:
            instance = tree[name].__new__(tree[name])
            assert exit_code_for(instance) == code, name


def test_each_class_takes_its_exit_code_from_the_one_table() -> None:
    for cls in (c for c in vars(errors).values() if inspect.isclass(c)):
        if issubclass(cls, PromptCanaryError):
            listed = next(base for base in cls.__mro__ if base in EXIT_CODES)
            instance = cls.__new__(cls)
            assert instance.exit_code == EXIT_CODES[listed] == exit_code_for(instance)
    assert exit_code_for(KeyError("not ours")) == errors.EXIT_USAGE


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("promptcanary.providers.credentials", "MissingCredentialsError"),
        ("promptcanary.action.github", "BranchMovedError"),
        ("promptcanary.action.github", "BranchNotFoundError"),
        ("promptcanary.action.github", "BranchProtectedError"),
        ("promptcanary.core.probes.judge", "VerdictError"),
        ("promptcanary.core.render.budget", "OverBudgetError"),
    ],
)
def test_moved_classes_keep_their_import_paths(module: str, name: str) -> None:
    assert getattr(importlib.import_module(module), name) is getattr(errors, name)


def test_the_errors_that_kept_a_second_base_still_have_it() -> None:
    assert issubclass(errors.VerdictError, ValueError)
    assert issubclass(errors.SuiteMismatchError, ValueError)
    assert issubclass(errors.SuiteNotFoundError, FileNotFoundError)
    assert exit_code_for(errors.BranchMovedError("moved")) == errors.EXIT_PROMOTION_FAILED
    assert exit_code_for(errors.OverBudgetError()) == errors.EXIT_INTERNAL
