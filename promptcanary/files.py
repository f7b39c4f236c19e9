"""The files a user hands us, read and written in one place with one set of clear errors.

Every file the CLI or the Action reads — canary.yaml, run and report JSON, baselines, the GitHub
event payload, a replayed run — goes through :func:`read_bytes` / :func:`read_text`. Whatever the
operating system says (missing, a directory, permission denied, a parent that is a file, not UTF-8,
too large) becomes the caller's error class with the file named, never an ``OSError`` escaping as
"a bug in PromptCanary". Reads are bounded: a file is never read past its limit, so ``/dev/zero``
or a runaway generated file is refused instead of filling memory.

Output destinations are checked before any model is called (:func:`check_writable_file`,
:func:`check_writable_dir`), so a run is not paid for and then lost; and when writing still fails,
:func:`save_elsewhere` puts the text next to the destination under a temporary name (or in the
system temp folder) so the caller can say where it went.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from promptcanary.errors import ConfigError, PromptCanaryError

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "MAX_JSON_BYTES",
    "MAX_YAML_BYTES",
    "check_destinations",
    "check_writable_dir",
    "check_writable_file",
    "read_bytes",
    "read_text",
    "save_elsewhere",
]

#: Largest canary.yaml accepted (documented in docs/limits.md). Real suites are a few hundred KB.
MAX_YAML_BYTES = 10 * 1024 * 1024
#: Largest run / baseline / report JSON accepted. A 50,000-result baseline is about 13 MB.
MAX_JSON_BYTES = 256 * 1024 * 1024


def _error(
    error: type[PromptCanaryError], path: Path, message: str, hint: str | None = None
) -> PromptCanaryError:
    """``error`` naming ``path``: ConfigError has a ``file=`` slot, the others take a prefix."""
    if issubclass(error, ConfigError):
        return error(message, file=path, hint=hint)
    return error(f"{path}: {message}", hint=hint)


def _describe(exc: OSError, what: str) -> str:
    """What went wrong, in words, for an ``OSError`` raised while opening or reading a file."""
    if isinstance(exc, FileNotFoundError):
        return "file not found"
    if isinstance(exc, IsADirectoryError):
        return f"is a directory, expected a {what}"
    if isinstance(exc, NotADirectoryError):
        return "file not found (a folder on its path is a file)"
    if isinstance(exc, PermissionError):
        return f"cannot read the {what}: permission denied"
    if exc.errno == errno.ENAMETOOLONG:
        return "file name too long"
    return f"cannot read the {what}: {exc.strerror or exc}"


def _size(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB" if n >= 1024 * 1024 else f"{n:,} bytes"


def read_bytes(
    path: str | Path,
    *,
    what: str = "file",
    limit: int = MAX_JSON_BYTES,
    error: type[PromptCanaryError] = ConfigError,
    hint: str | None = None,
) -> bytes:
    """The content of ``path``, at most ``limit`` bytes, or ``error`` naming the file.

    Args:
        path:  The file to read.
        what:  What the file is, for messages ("run file", "canary.yaml").
        limit: Largest size accepted; a larger file is refused without being read.
        error: The error class raised (ConfigError, InputError, CorruptBaselineError...).
        hint:  Shown under a "not found" message (e.g. how to create the file).
    """
    p = Path(path)
    try:
        with p.open("rb") as fh:
            info = os.fstat(fh.fileno())
            if stat.S_ISDIR(info.st_mode):  # some systems open directories without complaint
                raise IsADirectoryError(errno.EISDIR, "Is a directory")
            if stat.S_ISREG(info.st_mode) and info.st_size > limit:
                raise _error(error, p, _too_large(what, info.st_size, limit))
            data = fh.read(limit + 1)
    except PromptCanaryError:
        raise
    except OSError as exc:
        missing = isinstance(exc, (FileNotFoundError, NotADirectoryError))
        raise _error(error, p, _describe(exc, what), hint if missing else None) from exc
    except ValueError as exc:  # e.g. an embedded NUL byte in the path
        raise _error(error, p, f"not a usable file name ({exc})") from exc
    if len(data) > limit:
        raise _error(error, p, _too_large(what, len(data), limit, at_least=True))
    return data


def _too_large(what: str, size: int, limit: int, *, at_least: bool = False) -> str:
    if at_least:  # read up to the limit and found more (a pipe or device has no size)
        return f"the {what} is larger than the limit of {_size(limit)}"
    return f"the {what} is {_size(size)}; the limit is {_size(limit)}"


class ReadOptions(TypedDict, total=False):
    """:func:`read_bytes`'s keyword arguments, which :func:`read_text` passes on (their
    defaults are read_bytes' own: one place for them)."""

    what: str
    limit: int
    error: type[PromptCanaryError]
    hint: str | None


def read_text(path: str | Path, **options: Unpack[ReadOptions]) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a leading byte-order mark is dropped); a file that is
    not UTF-8 raises ``error`` too."""
    p = Path(path)
    data = read_bytes(p, **options)
    error = options.get("error", ConfigError)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise _error(
            error,
            p,
            f"not UTF-8 text (invalid byte 0x{data[exc.start]:02x} on line {line})",
            "Save the file as UTF-8.",
        ) from exc


# ── Writing ──────────────────────────────────────────────────────────────────────────────────


def _existing_ancestor(path: Path) -> Path:
    """The nearest ancestor of ``path`` (itself included) that exists, as a file or folder."""
    current = path
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def _check_folder(folder: Path, *, flag: str, target: Path) -> None:
    """``folder`` (which may not exist yet) can be created and written into."""
    base = _existing_ancestor(folder)
    if not base.is_dir():
        raise ConfigError(
            f"cannot write {target}: {base} is a file, not a folder",
            field=flag,
            hint="Choose another path, or move the file out of the way.",
        )
    if not os.access(base, os.W_OK | os.X_OK):
        raise ConfigError(
            f"cannot write {target}: the folder {base} is not writable",
            field=flag,
            hint="Choose a writable path, or fix the folder's permissions.",
        )


def check_writable_file(path: str | Path, *, flag: str) -> None:
    """Refuse, before anything is measured, an output file that cannot be written.

    Raises:
        ConfigError: naming ``flag`` (e.g. ``--output``) when ``path`` is a folder, is read-only,
            or lies under a file or an unwritable folder.
    """
    p = Path(path)
    if p.is_dir():
        raise ConfigError(f"{p} is a folder; give a file name", field=flag)
    if p.exists() and not os.access(p, os.W_OK):
        raise ConfigError(f"cannot write {p}: the file is read-only", field=flag)
    _check_folder(p.parent, flag=flag, target=p)


def check_writable_dir(path: str | Path, *, flag: str) -> None:
    """Refuse, before anything is measured, an output folder that cannot be created or written.

    Raises:
        ConfigError: naming ``flag`` when ``path`` is a file, lies under a file, or is read-only.
    """
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise ConfigError(f"{p} is a file, not a folder", field=flag)
    _check_folder(p, flag=flag, target=p)


def check_destinations(
    files: Mapping[str, str | Path | None], folders: Mapping[str, str | Path | None] | None = None
) -> None:
    """Check every output a command was given (flag -> path; None = not asked for) up front."""
    for flag, path in files.items():
        if path is not None:
            check_writable_file(path, flag=flag)
    for flag, path in (folders or {}).items():
        if path is not None:
            check_writable_dir(path, flag=flag)


def save_elsewhere(path: str | Path, text: str) -> Path | None:
    """Save ``text`` that could not be written to ``path`` somewhere it can be found.

    First next to ``path`` under a temporary name (``<stem>.unsaved-XXXX<suffix>``), else in the
    system temp folder. Returns where it went, or None when nothing could be written at all.
    The name never matches a baseline file name, so a stray copy is never read as a baseline.
    """
    import tempfile  # only here: it costs start-up time on every command otherwise

    p = Path(path)
    stem, suffix = p.stem or "promptcanary", p.suffix or ".txt"
    for folder in (p.parent, Path(tempfile.gettempdir())):
        try:
            fd, name = tempfile.mkstemp(prefix=f"{stem}.unsaved-", suffix=suffix, dir=folder)
        except (OSError, ValueError):
            continue
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError:  # e.g. the disk is full: leave no half-written copy behind
            Path(name).unlink(missing_ok=True)
            continue
        return Path(name)
    return None
