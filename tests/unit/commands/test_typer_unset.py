"""An unset option skips Typer's pydantic validator (commands/typer_unset.py) and is otherwise
handled exactly as Typer handles it: the same values, callbacks, errors and exit codes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
import typer
import typer.core
from typer.testing import CliRunner

from promptcanary.commands import typer_unset


def _positive(value: float | None) -> float | None:
    if value is not None and not value > 0:
        raise typer.BadParameter(f"must be greater than 0 (got {value})")
    return value


def make_app(seen: list[dict[str, Any]]) -> typer.Typer:
    app = typer.Typer()

    @app.command()
    def cmd(
        name: Annotated[str, typer.Argument()],
        count: Annotated[int | None, typer.Option(min=1, max=5)] = None,
        cost: Annotated[float | None, typer.Option(callback=_positive)] = None,
        paths: Annotated[list[Path] | None, typer.Option("--path")] = None,
        mode: Annotated[str, typer.Option()] = "terminal",
        must: Annotated[str | None, typer.Option()] = None,
        folder: Annotated[Path, typer.Option("--dir")] = Path("."),
        found: Annotated[Path, typer.Option("--found", exists=True)] = Path("no-such-folder"),
        rate: Annotated[float, typer.Option()] = 0.9,
        top: Annotated[int, typer.Option(max=3, clamp=True)] = 7,
    ) -> None:
        seen.append(
            {
                "name": name,
                "count": count,
                "cost": cost,
                "paths": paths,
                "mode": mode,
                "m": must,
                "dir": folder,
                "found": found,
                "rate": rate,
                "top": top,
            }
        )

    return app


CASES = [
    ["x", "--found", "."],
    ["x", "--count", "3", "--cost", "0.5", "--path", "a", "--path", "b", "--mode", "md"],
    ["x", "--dir", "sub", "--found", "."],
    ["x"],  # --found's default does not exist: Typer's check, made on a default too
    ["x", "--count", "9"],  # out of range: Typer's validator, built for a value
    ["x", "--cost", "0"],  # the callback refuses
    [],  # the argument is missing
]


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The parameters Typer builds a validator for."""
    built: list[str] = []
    real = typer.core.build_runtime_param

    def counting(descriptor: Any) -> Any:
        built.append(str(descriptor.annotation))
        return real(descriptor)

    monkeypatch.setattr(typer.core, "build_runtime_param", counting)
    yield built


def invoke(args: list[str]) -> tuple[int, str, list[dict[str, Any]]]:
    seen: list[dict[str, Any]] = []
    result = CliRunner().invoke(make_app(seen), args)
    return result.exit_code, result.output, seen


@pytest.mark.parametrize(
    ("args", "exit_code"),
    list(zip(CASES, [0, 2, 0, 2, 2, 2, 2], strict=True)),
    ids=["defaults", "all set", "--dir", "missing default", "range", "callback", "missing"],
)
def test_the_same_values_and_errors_as_typer(
    args: list[str], exit_code: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert typer_unset.install()
    patched = invoke(args)
    assert patched[0] == exit_code, patched[1]
    original = typer.core._TyperParameter.process_value.__wrapped__  # type: ignore[attr-defined]
    monkeypatch.setattr(typer.core._TyperParameter, "process_value", original)
    assert invoke(args) == patched


def test_unset_and_default_options_build_no_validator(builds: list[str]) -> None:
    assert typer_unset.install()
    exit_code, output, seen = invoke(["x", "--found", "."])
    assert exit_code == 0, output
    assert seen == [
        {
            "name": "x",
            "count": None,
            "cost": None,
            "paths": None,
            "mode": "terminal",
            "m": None,
            "dir": Path("."),
            "found": Path("."),
            "rate": 0.9,
            "top": 3,
        }
    ]
    assert builds == ["<class 'int'>"]  # --top's default, clamped by Typer's validator


@pytest.mark.parametrize("text", ["", ".", "a b", "~", "-", "/tmp//x/", "é"])
def test_text_becomes_the_path_pydantic_makes(text: str) -> None:
    from pydantic import TypeAdapter

    assert TypeAdapter(Path).validate_python(text) == Path(text)


def test_a_number_still_takes_typers_validator(builds: list[str]) -> None:
    assert typer_unset.install()
    assert invoke(["x", "--count", "3", "--found", "."])[0] == 0
    assert builds == ["<class 'int'>", "<class 'int'>"]  # --count's text, --top's range


def test_installing_twice_patches_once() -> None:
    assert typer_unset.install() and typer_unset.install()
    patched = typer.core._TyperParameter.process_value
    assert not getattr(patched.__wrapped__, "_skips_unset", False)  # type: ignore[attr-defined]
