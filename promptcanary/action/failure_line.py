"""One line saying that a GitHub operation failed: plain for the log, Markdown for the summary.

Such a line mixes our own words (what failed, the ``permissions:`` line that fixes it, written
with Markdown code spans) with words we do not control (GitHub's answer, a branch or label
name, an exception's text). Escaping the whole line for the job summary showed our code spans
as literal backticks; not escaping it would let GitHub's (or a branch name's) Markdown render.
So the line keeps its parts apart: the log and the annotations show the text as it is, the
summary renders our parts as Markdown and escapes every :class:`Quoted` part.
"""

from __future__ import annotations

from dataclasses import dataclass

from promptcanary.core.render.safety import md_text

__all__ = ["FailureLine", "Quoted"]

#: Longest quoted part in the summary (GitHub's messages are one sentence; a body is not).
QUOTED_MAX_CHARS = 500


@dataclass(frozen=True)
class Quoted:
    """Words we do not control (GitHub's, a model's, a name someone chose): escaped in Markdown."""

    text: str


@dataclass(frozen=True)
class FailureLine:
    """Our Markdown (``str`` parts) and untrusted words (:class:`Quoted` parts), in order."""

    parts: tuple[str | Quoted, ...]

    @classmethod
    def of(cls, *parts: str | Quoted | FailureLine) -> FailureLine:
        """A line of ``parts``; a :class:`FailureLine` among them is spliced in."""
        flat: list[str | Quoted] = []
        for part in parts:
            flat.extend(part.parts if isinstance(part, FailureLine) else (part,))
        return cls(tuple(flat))

    def __add__(self, other: str | Quoted | FailureLine) -> FailureLine:
        return FailureLine.of(self, other)

    @property
    def text(self) -> str:
        """The line as it reads in the log and in a ``::warning::`` (no escaping)."""
        return "".join(p.text if isinstance(p, Quoted) else p for p in self.parts)

    def __str__(self) -> str:
        return self.text

    def __contains__(self, words: str) -> bool:
        return words in self.text

    def markdown(self) -> str:
        """The line for the job summary: our parts as written, the quoted parts escaped."""
        return "".join(
            md_text(p.text, QUOTED_MAX_CHARS) if isinstance(p, Quoted) else p for p in self.parts
        )
