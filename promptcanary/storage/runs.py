"""Loading a saved run: a file written by ``promptcanary run -o``, or the run inside a baseline."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from promptcanary.core.models import CanaryRunResult
from promptcanary.errors import InputError, validation_message
from promptcanary.storage import compact

__all__ = ["load_run"]

_HINT = "Pass a run saved with `promptcanary run -o run.json`, or a baseline file."


def load_run(path: str | Path) -> CanaryRunResult:
    """Load a saved run; a baseline snapshot is accepted and its run returned.

    Raises:
        InputError: the file is missing, unreadable, not JSON, or not a PromptCanary run.
    """
    p = Path(path)
    raw = _read(p)
    # Fast path: pydantic parses the bytes directly; the slow path below only explains failures.
    # A baseline is tried first when it may be one: a run model ignores unknown keys, so a baseline
    # file would otherwise load as an empty run.
    if b'"run_result"' in raw:
        try:
            return compact.parse_snapshot(raw).run_result
        except (ValueError, RecursionError):
            pass
    try:
        return CanaryRunResult.model_validate_json(raw)
    except ValueError:
        pass
    try:
        data: Any = json.loads(raw)
    except RecursionError as exc:  # json.loads recurses once per nesting level
        raise InputError(f"{p}: not valid JSON (nested too deeply)", hint=_HINT) from exc
    except ValueError as exc:
        line = f":{exc.lineno}" if isinstance(exc, json.JSONDecodeError) else ""
        raise InputError(f"{p}{line}: not valid JSON ({exc})", hint=_HINT) from exc
    if isinstance(data, dict) and isinstance(data.get("run_result"), dict):
        if data.get("schema_version") == compact.FILE_VERSION:
            try:
                compact.snapshot_from_dict(data)
            except compact.StoredFormError as exc:
                raise InputError(f"{p}: not a valid baseline: {exc}", hint=_HINT) from exc
            except ValueError as exc:
                raise InputError(
                    f"{p}: not a valid baseline: {validation_message(exc)}", hint=_HINT
                ) from exc
        data = data["run_result"]
    try:
        CanaryRunResult.model_validate(data)
    except ValueError as exc:
        raise InputError(
            f"{p}: not a PromptCanary run: {validation_message(exc)}", hint=_HINT
        ) from exc
    raise InputError(f"{p}: not a PromptCanary run", hint=_HINT)  # pragma: no cover


def _read(p: Path) -> bytes:
    from promptcanary.files import read_bytes

    return read_bytes(p, what="run file", error=InputError, hint=_HINT)
