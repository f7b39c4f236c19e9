"""The links `init` writes into canary.yaml point at the project's own repository."""

from __future__ import annotations

import re
from importlib.metadata import metadata

from promptcanary.commands.init import CANARY_YAML


def test_the_canary_yaml_header_links_the_repository_of_pyproject() -> None:
    urls = dict(
        entry.split(", ", 1) for entry in metadata("promptcanary-drift").get_all("Project-URL")
    )
    repository = urls["Repository"].rstrip("/")
    links = re.findall(r"https://github\.com/[\w./#-]+", CANARY_YAML)
    assert links, "the header links the reference"
    for link in links:
        assert link.startswith(repository + "#") or link.startswith(repository + "/"), link
