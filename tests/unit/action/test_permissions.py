"""Each refusal names the one permission that fixes it; rate limits and other statuses never
pretend to be a missing permission."""

from __future__ import annotations

from github import GithubException

from promptcanary.action import permissions
from promptcanary.action.github_calls import github_error
from promptcanary.errors import GitHubError


def refused(status: int, message: str, headers: dict[str, str] | None = None) -> GitHubError:
    return github_error("comment on #2", GithubException(status, {"message": message}, headers))


def test_a_403_names_the_permission_and_the_yaml_that_grants_it() -> None:
    exc = refused(403, "Resource not accessible by integration")
    line = permissions.refusal_line("comment on pull request #2", exc, permissions.COMMENTS).text
    assert line == (
        "Could not comment on pull request #2: GitHub answered HTTP 403 (Resource not accessible "
        "by integration). The token lacks `pull-requests: write`: add `pull-requests: write` to "
        "the job's `permissions:` (keeping the lines already there: a permission left out is "
        "`none`), or give that permission to the token passed as `github-token`."
    )
    assert "\n" not in line


def test_each_operation_names_its_own_scope() -> None:
    exc = refused(403, "Resource not accessible by integration")
    for permission, yaml in [
        (permissions.ISSUES, "issues: write"),
        (permissions.CONTENTS, "contents: write"),
        (permissions.ACTIONS, "actions: write"),
        (permissions.PULLS_READ, "pull-requests: read"),
    ]:
        line = permissions.refusal_line("do it", exc, permission)
        assert f"The token lacks `{yaml}`: add `{yaml}` to the job's `permissions:`" in line


def test_a_rate_limited_403_is_not_a_missing_permission() -> None:
    by_message = refused(403, "You have exceeded a secondary rate limit.")
    by_header = refused(403, "Forbidden", {"Retry-After": "60"})
    for exc in (by_message, by_header):
        assert exc.rate_limited and not permissions.is_permission_refusal(exc)
        line = permissions.refusal_line("comment on #2", exc, permissions.COMMENTS)
        assert "rate-limited" in line and "The token lacks" not in line


def test_other_statuses_keep_their_own_hint() -> None:
    for status, said in [
        (401, "GitHub did not accept the token"),
        (404, "or the token may not see it"),
        (422, "rejected the request as invalid"),
    ]:
        exc = refused(status, "whatever")
        line = permissions.refusal_line("comment on #2", exc, permissions.COMMENTS)
        assert said in line and "The token lacks" not in line, line


def test_a_forks_read_only_token_is_not_sent_to_permissions() -> None:
    exc = refused(403, "Resource not accessible by integration")
    line = permissions.refusal_line(
        "comment on #2", exc, permissions.COMMENTS, read_only_event=True
    )
    assert "read-only token on `pull_request` events" in line and "workflow_run" in line
    assert "The token lacks" not in line


def test_with_permission_keeps_the_class_message_and_status() -> None:
    exc = refused(403, "Resource not accessible by integration")
    same = permissions.with_permission(exc, permissions.ISSUES)
    assert same is exc and same.status == 403 and "`issues: write`" in (same.hint or "")
    other = refused(422, "Validation Failed")
    assert permissions.with_permission(other, permissions.ISSUES).hint == other.hint
