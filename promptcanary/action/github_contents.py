"""Reading the repository's files at a ref through the contents API (no checkout of that ref).

The check reads the baseline folder of a pull request's base branch with it: the head's
checkout cannot say what the base has (see :mod:`promptcanary.action.guards`).
"""

from __future__ import annotations

from urllib.parse import quote

from promptcanary.action.github_calls import call
from promptcanary.action.github_repo import RepoClient
from promptcanary.errors import GitHubError


class Contents(RepoClient):
    """Files of the repository at a ref."""

    def folder_names(self, folder: str, *, ref: str) -> list[str]:
        """The names of the files in ``folder`` (relative to the repository root, ``""`` for the
        root) at ``ref`` (a branch, tag or commit). A folder that does not exist there (404) has
        none; a path that is a file is not a folder either.

        GitHub lists at most 1,000 entries of a folder this way.
        """
        path = "/contents" + (f"/{quote(folder.strip('/'))}" if folder.strip("/") else "")
        try:
            entries = call(
                f"list '{folder or '/'}' at '{ref}'",
                lambda: self.request("GET", f"{path}?ref={quote(ref, safe='')}"),
            )
        except GitHubError as exc:
            if exc.status == 404:
                return []
            raise
        if not isinstance(entries, list):
            return []
        return [str(e["name"]) for e in entries if isinstance(e, dict) and e.get("type") == "file"]
