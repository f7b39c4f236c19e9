"""Scripted answer *distributions* for the loopback LLM server (tests/fakes/llm_server.py).

A model at temperature > 0 does not repeat itself: it paraphrases. :class:`AnswerScript` answers
each prompt with one of several wordings, drawn at random (seeded, thread-safe), and can shift a
prompt's style for a share of its answers (a chatty preamble, a tour-guide paragraph, a follow-up
offer) or report another served model name or system fingerprint:

    script = AnswerScript(seed=1)
    script.answers["Capital of France?"] = ["Paris.", "It is Paris.", "The capital is Paris."]
    script.shift("Capital of France?", share=0.7, style=CHATTY)
    script.model, script.fingerprint = "gpt-4o-mini-2025-01-01", "fp_new"
    with FakeLLMServer(script.reply) as server: ...
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

from tests.fakes.llm_server import Reply, last_user_text

Style = Callable[[str, random.Random], str]


def chatty(answer: str, rng: random.Random) -> str:
    """The style shift of issue 22: a preamble, the answer, a tour-guide aside, an offer."""
    opener = rng.choice(["Sure! Great question.", "Sure! Great question!", "Great question!"])
    aside = rng.choice(
        [
            "It is a wonderful topic, and there is so much more to explore about it.",
            "Many people find this fascinating, and there is a lot more to discover here.",
        ]
    )
    offer = rng.choice(
        [
            "Would you like me to tell you more?",
            "Let me know if you would like more details!",
        ]
    )
    return f"{opener} {answer} {aside} {offer}"


def paraphrases(subject: str, fact: str) -> list[str]:
    """Several wordings of one short factual answer (what a model at temperature 0.7 gives)."""
    return [
        f"The {subject} is {fact}.",
        f"{fact} is the {subject}.",
        f"It is {fact}.",
        f"The answer is {fact}.",
        f"{fact}.",
        f"That would be {fact}.",
    ]


class AnswerScript:
    """A reply function: per prompt, a random paraphrase, restyled for a share of answers."""

    def __init__(self, seed: int = 0, *, default: str = "OK") -> None:
        self.answers: dict[str, list[str]] = {}
        self.shifts: dict[str, tuple[float, Style]] = {}
        self.model: str | None = None
        self.fingerprint: str | None = "fp_test"
        self.default = default
        self._seed = seed
        self._rngs: dict[str, random.Random] = {}
        self._lock = threading.Lock()
        self.served = 0

    def shift(self, prompt: str, *, share: float, style: Style = chatty) -> None:
        """Restyle ``share`` of this prompt's answers with ``style``."""
        self.shifts[prompt] = (share, style)

    def clear_shifts(self) -> None:
        """Back to the unshifted answers."""
        self.shifts.clear()

    def reseed(self, seed: int) -> None:
        """A new random stream (a fresh run of the same model)."""
        with self._lock:
            self._seed = seed
            self._rngs.clear()

    def reply(self, request: dict[str, Any]) -> Reply:
        text = last_user_text(request)
        with self._lock:
            self.served += 1
            # One stream per prompt: which answers a prompt gets does not depend on how the
            # concurrent requests of different prompts interleave, so a seeded run repeats.
            rng = self._rngs.setdefault(text, random.Random(f"{self._seed}:{text}"))
            options = self.answers.get(text) or [self.default]
            answer = rng.choice(options)
            shift = self.shifts.get(text)
            if shift is not None and rng.random() < shift[0]:
                answer = shift[1](answer, rng)
        return Reply(content=answer, model=self.model, system_fingerprint=self.fingerprint)
