"""Every error PromptCanary raises on purpose, and the exit code each one maps to.

    PromptCanaryError                 root: anything we raise deliberately
    ├── ConfigError                   canary.yaml / CLI options / Action inputs are wrong   (exit 2)
    │   ├── ProbeConfigError          a probe's type or parameters are wrong                (exit 2)
    │   ├── SuiteNotFoundError        no canary.yaml at that path (also a FileNotFoundError) (exit 2)
    │   └── MissingCredentialsError   the model's credentials are not in the environment    (exit 2)
    ├── InputError                    a run / report / baseline file given to us is unusable (exit 2)
    │   └── SuiteMismatchError        a baseline and a run of different suites (also ValueError)
    ├── ProviderError                 the model could not be called                          (exit 3)
    │   ├── ProviderAuthError         credentials refused: the whole run stops               (exit 3)
    │   └── RequestNotSentError       the client library refused to send it (never retried)  (exit 3)
    ├── VerdictError                  an LLM judge's reply is no verdict (also ValueError)   (exit 3)
    ├── MeasurementError              the run measured nothing usable (all errored, aborted) (exit 3)
    ├── RunInterruptedError           Ctrl-C stopped a run; what arrived is kept (also a KeyboardInterrupt) (exit 130)
    ├── StorageError                  baselines could not be read or written                 (exit 2)
    │   ├── BaselineNotFoundError     no baseline to compare with (also a FileNotFoundError) (exit 3)
    │   ├── BaselineRemovedError      (Action) the pull request removed its base's baseline  (exit 1)
    │   └── CorruptBaselineError      a baseline file is not valid                           (exit 2)
    │       └── StoredFormError       a stored-form baseline's blocks do not add up (also ValueError)
    ├── GitHubError                   the GitHub API refused or failed                       (exit 1)
    │   ├── BranchMovedError          a promotion's branch moved after it was measured       (exit 5)
    │   ├── BranchNotFoundError       a promotion's branch or commit is gone                 (exit 5)
    │   └── BranchProtectedError      a rule refused a promotion's commit                    (exit 5)
    └── OverBudgetError               a renderer's size budget is spent (caught inside it)   (exit 4)

Exit codes live in one place — the ``EXIT_*`` constants and :data:`EXIT_CODES` below — and the
CLI and the Action both use :func:`exit_code_for` (``error.exit_code`` reads the same table):

    0  ok: no drift at or over the threshold
    1  drift at or over the threshold (``--fail-on-severity`` / ``fail-on-severity``); (Action)
       a pull request without the baseline its base branch has
    2  usage, configuration or input error
    3  could not measure: inconclusive run, provider down, no baseline
    4  a bug in PromptCanary (an exception it did not raise on purpose)
    5  (Action) a promotion was measured but its baseline could not be committed
  130  interrupted (Ctrl-C); the answers a run had received are kept to resume from
 Messages never contain secrets: use :func:`redact` on anything that came from
a provider before putting it into an error.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from promptcanary.core.models import CanaryRunResult

#: Exit code: everything fine (no drift at/over the threshold).
EXIT_OK = 0
#: Exit code: drift at or over the threshold, or failures with ``--fail-on-failure``.
EXIT_DRIFT = 1
#: Exit code: usage, configuration or input error.
EXIT_USAGE = 2
#: Exit code: could not measure (auth failure, every prompt errored, no baseline, too many errors).
EXIT_INCONCLUSIVE = 3
#: Exit code: a bug in PromptCanary itself (an exception it did not raise on purpose).
EXIT_INTERNAL = 4
#: Exit code (Action only): a promotion was measured but its baseline could not be committed
#: (GitHub refused the commit, or the branch moved since the label).
EXIT_PROMOTION_FAILED = 5
#: Exit code: stopped by Ctrl-C (128 + SIGINT, as shells report it); a live run keeps the answers
#: it had received (:class:`RunInterruptedError`).
EXIT_INTERRUPTED = 130


class PromptCanaryError(Exception):
    """Root of every error PromptCanary raises deliberately."""

    #: A short hint telling the user what to do; shown under the message.
    hint: str | None = None

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(redact(message))
        if hint is not None:
            self.hint = redact(hint)

    @property
    def message(self) -> str:
        return str(self.args[0]) if self.args else ""

    @property
    def exit_code(self) -> int:
        """The process exit code this error ends with (from :data:`EXIT_CODES`)."""
        return exit_code_for(self)


class ConfigError(PromptCanaryError):
    """A configuration value is wrong. Names the file, line (when known) and field."""

    def __init__(
        self,
        message: str,
        *,
        file: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.file = str(file) if file is not None else None
        self.line = line
        self.field = field
        self.detail = message
        super().__init__(_locate(message, file=self.file, line=line, field=field), hint=hint)

    def relocate(self, *, file: str | Path | None = None, line: int | None = None) -> ConfigError:
        """Return the same error with a file/line filled in where it was missing."""
        err = type(self).__new__(type(self))
        ConfigError.__init__(
            err,
            self.detail,
            file=self.file or (str(file) if file is not None else None),
            line=self.line if self.line is not None else line,
            field=self.field,
            hint=self.hint,
        )
        return err


class ProbeConfigError(ConfigError):
    """A probe's ``type`` is unknown or one of its parameters is missing or wrong."""


class SuiteNotFoundError(ConfigError, FileNotFoundError):
    """The suite file does not exist. Also a ``FileNotFoundError``, which is what
    ``CanarySuite.from_yaml`` raised in promptcanary 0.2."""


class _Need(Protocol):
    """One credential a provider needs: ``providers.credentials.Need``."""

    @property
    def what(self) -> str: ...

    @property
    def names(self) -> tuple[str, ...]: ...

    def describe(self) -> str: ...


class MissingCredentialsError(ConfigError):
    """The credentials a model's provider needs are not in the environment; nothing was sent.

    A class of its own so a front-end can tell "no credentials" from any other configuration
    error without reading the message: the Action skips a run GitHub gives no secrets to.
    """

    def __init__(self, model: str, needs: Sequence[_Need], *, hint: str | None = None) -> None:
        self.model = model
        self.needs = tuple(needs)
        verb = "are" if needs[1:] else "is"
        super().__init__(
            f"{self.described()} {verb} not set (or empty), so {model} cannot be called. "
            "No request was sent",
            field="environment",
            hint=hint,
        )

    def described(self) -> str:
        """Every need in words: ``A, B and C``."""
        parts = [need.describe() for need in self.needs]
        return ", ".join(parts[:-1]) + " and " + parts[-1] if parts[1:] else parts[0]


class InputError(PromptCanaryError):
    """A file handed to PromptCanary (run JSON, report JSON, baseline) cannot be used."""


class SuiteMismatchError(InputError, ValueError):
    """A baseline and a run belong to different suites, so they cannot be compared.

    Also a ``ValueError``, which is what :func:`~promptcanary.core.comparator.compare` raised
    before this class existed.
    """


class ProviderError(PromptCanaryError):
    """The LLM provider could not be called or returned something unusable.

    ``status_code`` is the HTTP status when there was one; ``retryable`` says whether trying again
    may help (429, 5xx, timeouts, connection errors). ``str()`` appends the model id and status
    when known; :attr:`message` is the message alone.
    """

    def __init__(
        self,
        message: str,
        *,
        model_id: str | None = None,
        status_code: int | None = None,
        raw_error: BaseException | None = None,
        retryable: bool | None = None,
        retry_after_s: float | None = None,
        hint: str | None = None,
    ) -> None:
        super().__init__(message, hint=hint)
        self.model_id = model_id
        self.status_code = status_code
        # Kept for debugging in-process only; never serialised (it may hold request details).
        self.raw_error = raw_error
        if retryable is None:
            retryable = status_code is None or status_code in (408, 409, 429) or status_code >= 500
        self.retryable = retryable
        self.retry_after_s = retry_after_s

    def __str__(self) -> str:
        # As in promptcanary 0.2: "<message> | model='openai/gpt-4o' | status=429", so logs and
        # scripts that read the model and HTTP status out of the text keep working.
        parts = [self.message]
        if self.model_id:
            parts.append(f"model={self.model_id!r}")
        if self.status_code:
            parts.append(f"status={self.status_code}")
        return " | ".join(parts)


class ProviderAuthError(ProviderError):
    """Credentials were refused (401/403): every further call would fail the same way."""

    def __init__(self, message: str, **kwargs: object) -> None:
        kwargs.setdefault("retryable", False)
        kwargs.setdefault(
            "hint",
            "Check the API key environment variable for this provider (for example "
            "OPENAI_API_KEY) and that it is allowed to use this model.",
        )
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class RequestNotSentError(ProviderError):
    """The provider's client library refused to build the request, so nothing reached a server:
    a missing credential, a parameter the model does not accept. Trying again cannot help, and
    it is neither a server nor a connection error."""

    def __init__(self, message: str, **kwargs: object) -> None:
        kwargs["retryable"] = False
        kwargs.setdefault("status_code", None)
        super().__init__(message, **kwargs)  # type: ignore[arg-type]


class VerdictError(PromptCanaryError, ValueError):
    """An LLM judge's reply is not a ``{"score": 0..1, "reason": "..."}`` object.

    The ``llm_judge`` probe records it as an errored result; also a ``ValueError``, as it was.
    """


class MeasurementError(PromptCanaryError):
    """The run could not measure anything trustworthy (every prompt errored, run aborted...)."""


class RunInterruptedError(PromptCanaryError, KeyboardInterrupt):
    """Ctrl-C stopped a live run: ``partial`` is the run with every answer that had arrived
    (the rest recorded as not sent), ``path`` where it was kept once the pipeline wrote it.

    Also a KeyboardInterrupt, so code that stops on Ctrl-C still stops.
    """

    def __init__(self, message: str, partial: CanaryRunResult, path: Path | None = None) -> None:
        super().__init__(message)
        self.partial = partial
        self.path = path

    @property
    def kept(self) -> int:
        """The answers received (the responses without an error)."""
        return sum(1 for r in self.partial.llm_responses if r.error is None)


class StorageError(PromptCanaryError):
    """Baselines could not be read or written."""


class BaselineNotFoundError(StorageError, FileNotFoundError):
    """No baseline matches; there is nothing to compare with yet."""


class BaselineRemovedError(StorageError):
    """A check found no baseline where the base branch of the change has one: the pull request
    deletes or renames the baseline it is judged by, and comparing with nothing would pass (or
    whether it did could not be read). The Action fails the check before any model call."""

    def __init__(self, message: str, *, suite_name: str, model: str, reason: str) -> None:
        super().__init__(message)
        self.suite_name = suite_name
        self.model = model
        self.reason = reason
        """Markdown for the summary, the comment and the check run."""


class CorruptBaselineError(StorageError):
    """A baseline file exists but is not a valid PromptCanary snapshot."""


class StoredFormError(CorruptBaselineError, ValueError):
    """A stored-form baseline whose blocks do not add up (a hand-edited or damaged file); the
    message names the block and field, and the store adds the file's path."""


class GitHubError(PromptCanaryError):
    """A GitHub API call was refused or failed."""

    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        hint: str | None = None,
        github_message: str = "",
        rate_limited: bool = False,
    ):
        super().__init__(message, hint=hint)
        self.status = status
        #: GitHub's own ``message`` (e.g. "Resource not accessible by integration"), or "".
        self.github_message = redact(github_message)
        #: A 403 / 429 that only says "not now": no permission would change it.
        self.rate_limited = rate_limited


class BranchMovedError(GitHubError):
    """The branch no longer points at the commit that was measured (a push came in between)."""


class BranchNotFoundError(GitHubError):
    """The branch (or the measured commit) no longer exists."""


class BranchProtectedError(GitHubError):
    """A branch protection rule or a repository ruleset refused the update."""


class OverBudgetError(PromptCanaryError):
    """A strict size budget (``core.render.budget``) met a piece that does not fit.

    A signal inside a renderer, which then plans what to cut; one that escaped is a bug.
    """

    def __init__(self, message: str = "over the size budget") -> None:
        super().__init__(message)


#: The exit code of each error class; a class not listed takes its nearest listed ancestor's.
EXIT_CODES: dict[type[BaseException], int] = {
    PromptCanaryError: EXIT_USAGE,
    ConfigError: EXIT_USAGE,
    InputError: EXIT_USAGE,
    ProviderError: EXIT_INCONCLUSIVE,
    VerdictError: EXIT_INCONCLUSIVE,
    MeasurementError: EXIT_INCONCLUSIVE,
    RunInterruptedError: EXIT_INTERRUPTED,
    StorageError: EXIT_USAGE,
    BaselineNotFoundError: EXIT_INCONCLUSIVE,
    # The gate fails: comparing with nothing would have passed.
    BaselineRemovedError: EXIT_DRIFT,
    GitHubError: EXIT_DRIFT,
    # A promotion was measured, but its baseline could not be committed.
    BranchMovedError: EXIT_PROMOTION_FAILED,
    BranchNotFoundError: EXIT_PROMOTION_FAILED,
    BranchProtectedError: EXIT_PROMOTION_FAILED,
    OverBudgetError: EXIT_INTERNAL,
}


def exit_code_for(exc: BaseException) -> int:
    """The process exit code for an exception (most specific class wins); usage for others."""
    for cls in type(exc).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return EXIT_USAGE


def validation_parts(exc: Exception) -> tuple[tuple[str, ...], str, object]:
    """(location, message, offending input) of a pydantic ``ValidationError``'s first error.

    Duck-typed (``exc.errors()``) so this module never imports pydantic.
    """
    errors = getattr(exc, "errors", None)
    if not callable(errors) or not errors():
        return (), str(exc), None
    first = errors()[0]
    loc = tuple(str(p) for p in first.get("loc", ()))
    return loc, str(first.get("msg", "")).removeprefix("Value error, "), first.get("input")


def validation_message(exc: Exception, *, with_input: bool = False) -> str:
    """One line for a pydantic ``ValidationError``: ``field 'a.b': message [(got value)]``."""
    loc, msg, value = validation_parts(exc)
    text = f"field '{'.'.join(loc) or '(top level)'}': {msg}"
    return text + (f" (got {value!r})" if with_input else "")


def _locate(message: str, *, file: str | None, line: int | None, field: str | None) -> str:
    where = ""
    if file:
        where = file + (f":{line}" if line is not None else "")
    if field:
        where = f"{where}: {field}" if where else field
    return f"{where}: {message}" if where else message


# ── Secret redaction ──────────────────────────────────────────────────────────────────────────
# Provider errors often echo the request (headers, key prefixes). Anything that looks like a key is
# cut before it can reach a log, report or exception message.
# Each pattern keeps its "prefix" group (e.g. "Bearer ", "api_key=") and hides the rest.
_SECRET_PATTERNS = [
    re.compile(r"(?P<prefix>)\b(?:sk|rk|pk)-[A-Za-z0-9_\-]{6,}"),
    re.compile(r"(?P<prefix>)\bgh[pousr]_[A-Za-z0-9]{10,}"),
    re.compile(r"(?P<prefix>)\bgithub_pat_[A-Za-z0-9_]{10,}"),
    re.compile(r"(?P<prefix>)\bAIza[0-9A-Za-z_\-]{10,}"),
    re.compile(r"(?i)(?P<prefix>bearer\s+)[A-Za-z0-9._\-]{8,}"),
    re.compile(
        r"(?i)(?P<prefix>(?:api[_-]?key|x-api-key|authorization|token)[\"']?\s*[:=]\s*[\"']?)"
        r"[^\s\"',}]{6,}"
    ),
]

#: Environment variables whose values are secrets and must never be printed.
SECRET_ENV_HINTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")


def secret_env_values(environ: dict[str, str] | None = None) -> list[str]:
    """Values of environment variables that look like secrets (long enough to be worth hiding)."""
    env = os.environ if environ is None else environ
    return [
        v
        for k, v in env.items()
        if any(h in k.upper() for h in SECRET_ENV_HINTS) and v and len(v) >= 6
    ]


#: Secrets taken out of the environment (the Action's job tokens) that must still be redacted.
_HELD_SECRETS: set[str] = set()


def hold_secret(value: str) -> None:
    """Keep redacting ``value`` after it leaves the environment (see :func:`redact`)."""
    if value and len(value) >= 6:
        _HELD_SECRETS.add(value)


def redact(text: str, extra_secrets: Iterable[str] = ()) -> str:
    """Replace anything that looks like a credential in ``text`` with ``***``."""
    if not text:
        return text
    for secret in [*secret_env_values(), *_HELD_SECRETS, *extra_secrets]:
        if secret and secret in text:
            text = text.replace(secret, "***")
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(lambda m: m.group("prefix") + "***", text)
    return text
