"""The answers the GitHub fake gives (shared by its route modules)."""

from __future__ import annotations

from typing import Any

#: GitHub's limit for an issue or comment body.
BODY_LIMIT = 65_536


class Answer(Exception):  # noqa: N818 - a reply, not an error
    def __init__(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        self.status, self.payload, self.headers = status, payload, headers or {}


def _not_found() -> Answer:
    return Answer(404, {"message": "Not Found"})


def _refused() -> Answer:
    return Answer(403, {"message": "Resource not accessible by integration"})


def _invalid(message: str) -> Answer:
    return Answer(422, {"message": message})
