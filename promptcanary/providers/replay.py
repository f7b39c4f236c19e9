"""ReplayProvider: answer from a saved run instead of calling a model.

Re-score the responses of a saved run with the current probes, for free and offline: change a
probe, replay, see its effect. ::

    provider = ReplayProvider("run.json")          # a saved CanaryRunResult (or a baseline file)
    result = suite.run(provider, samples=provider.samples)

Each (prompt id, sample) gets the saved response for the same prompt id and sample, unchanged
(content, usage, latency, reported model, fingerprint, attempts), so a replayed run compares
cleanly with the original. A prompt that is not in the saved run — or whose text changed since —
is recorded as errored (``error_type="replay_missing"``) with a reason; it is never scored.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from promptcanary.core.models import CanaryPrompt, CanaryRunResult, LLMResponse
from promptcanary.errors import InputError
from promptcanary.providers.base import BaseLLMProvider

__all__ = ["ReplayProvider", "load_run"]


def load_run(path: str | Path) -> CanaryRunResult:
    """Load a saved run from JSON: a run file (``-o run.json``) or a baseline snapshot.

    Raises:
        InputError: The file is missing, not JSON, or not a PromptCanary run.
    """
    from promptcanary.files import read_text

    p = Path(path)
    text = read_text(
        p,
        what="run file",
        error=InputError,
        hint="Pass a run saved with `promptcanary run -o run.json`.",
    )
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"{p}:{exc.lineno}: not valid JSON ({exc.msg})") from exc
    except RecursionError as exc:  # json.loads recurses once per nesting level
        raise InputError(f"{p}: not valid JSON (nested too deeply)") from exc
    if isinstance(data, dict) and isinstance(data.get("run_result"), dict):
        data = data["run_result"]  # a baseline snapshot wraps the run it was made from
    try:
        return CanaryRunResult.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(x) for x in err["loc"]) or "(top level)"
        raise InputError(
            f"{p}: not a PromptCanary run: {where}: {err['msg']}",
            hint="Pass a run saved with `promptcanary run -o run.json`, or a baseline file.",
        ) from exc


class ReplayProvider(BaseLLMProvider):
    """A provider that answers from a saved :class:`CanaryRunResult`, with no model call.

    Args:
        run_result_or_path: The saved run, or the path of its JSON (a run or a baseline file).

    Its :attr:`config` is the saved run's provider config (model id, temperature, ...), so the
    replayed run is filed and compared under the same model.
    """

    def __init__(self, run_result_or_path: CanaryRunResult | str | Path) -> None:
        if isinstance(run_result_or_path, CanaryRunResult):
            run = run_result_or_path
            self.source = "the saved run"
        else:
            run = load_run(run_result_or_path)
            self.source = str(run_result_or_path)
        super().__init__(run.provider)
        self.run_result = run
        self._responses: dict[tuple[str, int], LLMResponse] = {
            (r.prompt_id, r.sample): r for r in run.llm_responses
        }
        self._texts = {p.id: p.text for p in run.prompts}

    @property
    def samples(self) -> int:
        """How many samples per prompt the saved run has (a good default for ``samples=``)."""
        highest = max((sample for _, sample in self._responses), default=0)
        return max(self.run_result.samples, highest + 1)

    def __repr__(self) -> str:
        return f"ReplayProvider({self.source!r}, model={self.config.model_id!r})"

    def complete(self, prompt: CanaryPrompt, *, system_prompt: str | None = None) -> LLMResponse:
        """The saved response for ``prompt`` and the sample being run (see ``CURRENT_SAMPLE``)."""
        from promptcanary.core.run.engine import CURRENT_SAMPLE

        return self.response_for(prompt, CURRENT_SAMPLE.get())

    async def acomplete(
        self, prompt: CanaryPrompt, *, system_prompt: str | None = None
    ) -> LLMResponse:
        """Same as :meth:`complete`; nothing to wait for, so no worker thread."""
        return self.complete(prompt, system_prompt=system_prompt)

    def response_for(self, prompt: CanaryPrompt, sample: int = 0) -> LLMResponse:
        """The saved response for (prompt id, sample), or an errored ``replay_missing`` one."""
        saved = self._responses.get((prompt.id, sample))
        saved_text = self._texts.get(prompt.id)
        reason: str | None = None
        if saved is None:
            available = sorted(s for pid, s in self._responses if pid == prompt.id)
            if not available:
                reason = f"prompt '{prompt.id}' is not in {self.source}"
            else:
                reason = (
                    f"{self.source} has no sample {sample} for prompt '{prompt.id}' "
                    f"(it has sample(s) {', '.join(map(str, available))})"
                )
        elif saved_text is not None and saved_text != prompt.text:
            reason = f"the text of prompt '{prompt.id}' changed since {self.source} was saved"
        if reason is not None:
            return LLMResponse(
                prompt_id=prompt.id,
                provider_model_id=self.config.model_id,
                sample=sample,
                error=f"Not replayed: {reason}.",
                error_type="replay_missing",
                attempts=0,
            )
        assert saved is not None
        return saved

    def with_config(self, config: Any) -> ReplayProvider:
        """Replays ignore temperature / max_tokens / seed overrides: the answers are fixed, so
        the run keeps recording the saved run's parameters."""
        return self
