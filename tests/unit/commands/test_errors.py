"""The CLI boundary: values the data models refuse and runaway recursion are usage errors."""

from __future__ import annotations

import pytest
import typer

from promptcanary.commands.errors import EXIT_INTERNAL, run_cli
from promptcanary.core.models import ProviderConfig


def app_raising(exc_factory: object) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def go() -> None:
        exc_factory()  # type: ignore[operator]

    return app


def test_a_value_the_models_refuse_is_exit_2_naming_the_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # A field a flag sets is named by its flag; any other model field by its name.
    app = app_raising(lambda: ProviderConfig(model_id="openai/x", max_tokens="many"))  # type: ignore[arg-type]
    assert run_cli(app, []) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --max-tokens:") and "'many'" in err and "bug" not in err
    other = app_raising(lambda: ProviderConfig(model_id="openai/x", extra_params=3))  # type: ignore[arg-type]
    assert run_cli(other, []) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: invalid ProviderConfig field 'extra_params'") and "bug" not in err


def test_runaway_recursion_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    def recurse(n: int = 0) -> int:
        return recurse(n + 1) + 1

    assert run_cli(app_raising(recurse), []) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_other_exceptions_are_still_reported_as_bugs(capsys: pytest.CaptureFixture[str]) -> None:
    def broken() -> None:
        raise KeyError("oops")

    assert run_cli(app_raising(broken), []) == EXIT_INTERNAL
    assert "This is a bug in PromptCanary" in capsys.readouterr().err
