"""Talking to the Actions runner: workflow commands, outputs, the job summary, report files.

Everything goes through :class:`Workflow`, which is handed the environment, a text stream for the
log and the paths of the runner's files, so tests drive it with plain temp files.

Safety rules kept here, in one place:

- secrets are masked (``::add-mask::``) before anything else is printed;
- command data and properties are escaped the way the runner un-escapes them, so a message can
  never end a command early or smuggle in a second one;
- text that may contain model output is printed between ``::stop-commands::`` and its token, so no
  line of it can become a workflow command.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TextIO

#: GitHub refuses a job summary over 1 MiB for one step.
STEP_SUMMARY_LIMIT_BYTES = 1024 * 1024
#: Room the report leaves free at the end of the step summary for what is written after it
#: (the note listing what GitHub refused): a full report must not crowd that note out.
SUMMARY_NOTE_RESERVE_BYTES = 16 * 1024


def escape_data(value: str) -> str:
    """Escape the message part of a workflow command (after the final ``::``)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """Escape a property value of a workflow command (``title=...``, ``file=...``)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def fit_bytes(text: str, limit: int, *, note: str = "") -> str:
    """``text`` cut so its UTF-8 form is at most ``limit`` bytes, ``note`` appended when cut."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    room = max(0, limit - len(note.encode("utf-8")))
    # errors="ignore" drops a multi-byte character split by the cut instead of emitting garbage.
    return encoded[:room].decode("utf-8", errors="ignore") + note


class Workflow:
    """The runner's side channels for one step.

    Args:
        environ: The step's environment (``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY`` are read here).
        stream: Where log lines and workflow commands go (the step log is stdout).
    """

    def __init__(self, environ: Mapping[str, str], stream: TextIO | None = None) -> None:
        self._stream = stream if stream is not None else sys.stdout
        self.output_file = _path_or_none(environ.get("GITHUB_OUTPUT"))
        self.summary_file = _path_or_none(environ.get("GITHUB_STEP_SUMMARY"))
        self.outputs: dict[str, str] = {}
        self.warnings: list[str] = []
        self._summary_failed = False  # warned once; later parts are not tried again

    # ── log and commands ──

    def log(self, message: str) -> None:
        """A plain log line written by us (never holds model output)."""
        self._write(message)

    def mask(self, values: Iterable[str]) -> None:
        """Ask the runner to hide each value (and each of its lines) in every later log line."""
        seen: set[str] = set()
        for value in values:
            for part in [value, *value.splitlines()]:
                part = part.strip()
                # Very short strings would blank out ordinary words all over the log.
                if len(part) < 4 or part in seen:
                    continue
                seen.add(part)
                self._write(f"::add-mask::{escape_data(part)}")

    def warning(self, message: str, *, title: str | None = None) -> None:
        """A ``::warning::`` annotation; also kept in :attr:`warnings` for the summary."""
        self.warnings.append(message)
        self._command("warning", message, title=title)

    def notice(self, message: str, *, title: str | None = None) -> None:
        """A ``::notice::`` annotation."""
        self._command("notice", message, title=title)

    def error(self, message: str, *, title: str | None = None) -> None:
        """An ``::error::`` annotation."""
        self._command("error", message, title=title)

    def print_untrusted(self, text: str) -> None:
        """Print text that may hold model output with workflow commands switched off around it."""
        token = secrets.token_hex(16)
        self._write(f"::stop-commands::{token}")
        self._write(text)
        self._write(f"::{token}::")

    def _command(self, name: str, message: str, *, title: str | None) -> None:
        props = f" title={escape_property(title)}" if title else ""
        self._write(f"::{name}{props}::{escape_data(message)}")

    def _write(self, line: str) -> None:
        self._stream.write(line + "\n")
        self._stream.flush()

    # ── outputs ──

    def set_outputs(self, values: Mapping[str, str]) -> OSError | None:
        """Set the step's outputs, appended to the runner's file in one write; multi-line values
        use the heredoc form with an unguessable delimiter.

        Returns the OS error when the file cannot be written (a full disk, no permission, a path
        that is a folder), None otherwise: the caller decides what that means for the step (the
        Action keeps its gate's exit code). Nothing of a failed write stays in the file: a half
        record would make the runner fail the step (a heredoc without its end delimiter)."""
        self.outputs.update(values)
        if self.output_file is None:
            return None
        data = "".join(_output_record(name, value) for name, value in values.items())
        try:
            _append_whole(self.output_file, data.encode("utf-8"))
        except OSError as exc:
            return exc
        return None

    # ── job summary ──

    def add_summary(self, markdown: str, *, reserve: int = SUMMARY_NOTE_RESERVE_BYTES) -> bool:
        """Append Markdown to the job summary, within GitHub's 1 MiB limit, leaving ``reserve``
        bytes free for a note written later (pass 0 for that note). False when impossible."""
        if self.summary_file is None or self._summary_failed:
            return False
        try:
            used = self.summary_file.stat().st_size if self.summary_file.exists() else 0
            room = STEP_SUMMARY_LIMIT_BYTES - used - 1 - reserve
            if room <= 0:
                return False
            text = fit_bytes(
                markdown,
                room,
                note="\n\n*Summary cut at GitHub's 1 MiB limit; the full report is in the report "
                "files (see the `report-path` output).*\n",
            )
            with self.summary_file.open("a", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except OSError as exc:
            # The summary is a view of what the log, the comment and the report files say too:
            # losing it changes no verdict and no exit code, but say so once.
            self._summary_failed = True
            self.warning(
                f"Could not write the job summary to {self.summary_file}: {type(exc).__name__}: "
                f"{exc.strerror or exc}. The verdict and exit code are unaffected; the full report "
                "is in the report files (the `report-path` output).",
                title="PromptCanary",
            )
            return False
        return True


def _path_or_none(value: str | None) -> Path | None:
    return Path(value) if value else None


def _output_record(name: str, value: str) -> str:
    """One output as the runner reads ``GITHUB_OUTPUT``: ``name=value``, or a heredoc."""
    if "\n" not in value and "\r" not in value:
        return f"{name}={value}\n"
    delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    while delimiter in value:  # pragma: no cover - 128 random bits
        delimiter = f"ghadelimiter_{secrets.token_hex(16)}"
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def _append_whole(path: Path, data: bytes) -> None:
    """Append ``data`` to ``path`` entirely or not at all: on a failed write (ENOSPC after
    part of it went through) the file is cut back to its size before, where it can be."""
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        start = os.lseek(fd, 0, os.SEEK_END)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        except OSError:
            with contextlib.suppress(OSError):  # a device (/dev/full) cannot be cut
                os.ftruncate(fd, start)
            raise
    finally:
        os.close(fd)


def escaped_line(value: str) -> str:
    """``value`` on one log line: line breaks (and the backslash) shown as Python escapes."""
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r")


def hand_over(path: Path, workspace: Path, *, folders_up_to: Path | None = None) -> None:
    """Make a file the container wrote usable by the runner's later steps.

    A Docker action runs as root, so what it writes into the workspace or the runner's temp
    folder is root-owned, and a baseline saved through a private temporary file is mode 0600:
    ``upload-artifact`` or ``git diff`` in a later step could not read it. The file becomes
    0644, and it and its folders (up to ``folders_up_to``) are given to the owner of
    ``workspace`` when that is another user. Failures are ignored: outside a container (or not
    as root) there is nothing to fix.

    The hand-over stops at ``folders_up_to``: a path that leaves that folder (through a symlink
    the checked-out repository may carry) is not touched at all, and links are never followed,
    so running as root never gives away a file or folder outside it.
    """
    if folders_up_to is not None and not is_inside(path, folders_up_to):
        return
    if path.is_symlink():
        return
    try:
        path.chmod(0o644)
    except OSError:
        return
    try:
        owner = workspace.stat()
    except OSError:
        return
    if not hasattr(os, "chown") or owner.st_uid == os.getuid():
        return
    targets = [path]
    if folders_up_to is not None:
        for folder in path.parents:
            if folder != folders_up_to and folders_up_to not in folder.parents:
                break  # never above the boundary, even when the path only resolves inside it
            targets.append(folder)
            if folder == folders_up_to:
                break
    for target in targets:
        try:
            if target.lstat().st_uid != owner.st_uid:
                os.chown(target, owner.st_uid, owner.st_gid, follow_symlinks=False)
        except OSError:
            pass


def is_inside(path: Path, folder: Path) -> bool:
    """True when ``path``, every symlink followed, is ``folder`` or inside it."""
    try:
        path.resolve().relative_to(folder.resolve())
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a symlink loop (Python < 3.13)
        return False
    return True
