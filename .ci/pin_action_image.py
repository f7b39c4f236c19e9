#!/usr/bin/env python3
"""Point action.yml at a prebuilt, digest-pinned image (run by the release workflow).

    python .ci/pin_action_image.py --image ghcr.io/OWNER/REPO:1.2.3@sha256:<64 hex>
    python .ci/pin_action_image.py --image REF --action action.yml --output /tmp/action.yml

On main, ``runs.image`` is ``Dockerfile``: ``uses: ./`` builds from source. A release commit
instead says ``image: docker://ghcr.io/OWNER/REPO:1.2.3@sha256:...``, so users' jobs pull the
image built once by the release workflow, and the digest means a re-pushed tag can never change
what they run. ``image:`` takes no expressions, hence this rewrite.

Only the value of ``runs.image`` changes: the file is edited as text (comments, order and quoting
stay as they are) and the result is parsed again and compared with the original, key by key. The
image reference must carry a tag *and* a sha256 digest; anything else is refused (exit 2).
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

#: registry/path:tag@sha256:digest — lowercase repository path (GHCR and Docker require it).
IMAGE_REF = re.compile(
    r"^(?P<name>[a-z0-9]+(?:[._-][a-z0-9]+)*(?::[0-9]+)?"  # registry host[:port]
    r"(?:/[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*)+)"  # one or more path components
    r":(?P<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})"  # tag
    r"@(?P<digest>sha256:[0-9a-f]{64})$"
)
_RUNS = re.compile(r"^runs:\s*(#.*)?$")
_IMAGE = re.compile(r"^(?P<indent>[ \t]+)image:[ \t]*(?P<value>[^#\n]*?)(?P<comment>[ \t]+#.*)?$")


class PinError(ValueError):
    """The image reference or the action file cannot be pinned."""


def validate_image(ref: str) -> str:
    """``ref`` when it is ``registry/path:tag@sha256:<64 lowercase hex>``; PinError otherwise."""
    ref = ref.strip()
    if ref.startswith("docker://"):
        ref = ref[len("docker://") :]
    if "@" not in ref:
        raise PinError(
            f"image {ref!r} has no digest: a tag can be re-pushed, pin "
            "'<image>:<tag>@sha256:<64 hex digits>' (the build step's digest output)"
        )
    if IMAGE_REF.match(ref) is None:
        digest = ref.rsplit("@", 1)[1]
        if not re.fullmatch(r"sha256:[0-9a-f]{64}", digest):
            raise PinError(
                f"image {ref!r}: digest {digest!r} is not 'sha256:' followed by 64 lowercase "
                "hex digits"
            )
        raise PinError(
            f"image {ref!r} is not 'registry/owner/name:tag@sha256:<digest>' (lowercase "
            "repository path, a tag, then the digest)"
        )
    return ref


def _load(text: str) -> Any:
    import yaml  # PyYAML: a dependency of PromptCanary, installed by the release job

    return yaml.safe_load(text)


def pin(text: str, image: str) -> str:
    """The action file ``text`` with ``runs.image`` set to ``docker://<image>`` (validated)."""
    ref = validate_image(image)
    lines = text.splitlines(keepends=True)
    in_runs = False
    child_indent: str | None = None  # indentation of runs:'s direct children
    hits: list[int] = []
    for i, line in enumerate(lines):
        stripped = line.rstrip("\r\n")
        if not stripped.strip() or stripped.lstrip().startswith("#"):
            continue
        if not stripped[0].isspace():
            in_runs = _RUNS.match(stripped) is not None
            child_indent = None
            continue
        if in_runs:
            indent = stripped[: len(stripped) - len(stripped.lstrip())]
            if child_indent is None:
                child_indent = indent
            m = _IMAGE.match(stripped)
            if m and m["indent"] == child_indent:
                hits.append(i)
    if len(hits) != 1:
        raise PinError(f"expected exactly one 'image:' under 'runs:', found {len(hits)}")
    i = hits[0]
    m = _IMAGE.match(lines[i].rstrip("\r\n"))
    assert m is not None
    ending = lines[i][len(lines[i].rstrip("\r\n")) :]
    lines[i] = f'{m["indent"]}image: "docker://{ref}"{m["comment"] or ""}{ending}'
    new = "".join(lines)

    before, after = _load(text), _load(new)
    runs = after.get("runs") if isinstance(after, dict) else None
    if not isinstance(runs, dict) or runs.get("image") != f"docker://{ref}":
        raise PinError("the rewritten file does not parse to the pinned runs.image")
    if before.get("runs", {}).get("using") != "docker":
        raise PinError("runs.using is not 'docker': only a Docker action can be pinned")
    runs["image"] = before["runs"].get("image")
    if after != before:
        raise PinError("rewriting runs.image changed something else in the file")
    return new


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--image", required=True, help="registry/owner/name:X.Y.Z@sha256:<digest>")
    parser.add_argument("--action", default="action.yml", type=Path, help="action file to read")
    parser.add_argument("--output", type=Path, help="where to write (default: in place)")
    args = parser.parse_args(argv)
    try:
        new = pin(args.action.read_text(encoding="utf-8"), args.image)
    except (PinError, OSError) as exc:
        print(f"pin_action_image: {exc}", file=sys.stderr)
        return 2
    out = args.output or args.action
    out.write_text(new, encoding="utf-8")
    print(f"{out}: runs.image = docker://{validate_image(args.image)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
