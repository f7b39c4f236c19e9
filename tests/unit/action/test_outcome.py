"""Where report files go on a runner, and who can read them afterwards."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from promptcanary.action.outcome import ReportFiles, on_a_mount, reports_dir
from promptcanary.action.settings import GitHubContext
from promptcanary.action.workflow import hand_over


def context(tmp_path: Path, runner_temp: Path | None) -> GitHubContext:
    return GitHubContext(
        event_name="push",
        event={},
        repository="o/r",
        api_url="http://127.0.0.1:1",
        server_url="https://github.test",
        run_id="1",
        sha="x",
        ref="refs/heads/main",
        workspace=tmp_path / "workspace",
        runner_temp=runner_temp,
    )


def test_runner_temp_is_used_when_it_is_mounted(tmp_path: Path) -> None:
    temp = tmp_path / "temp"
    temp.mkdir()
    warnings: list[str] = []
    mounts = (tmp_path / "nope", tmp_path / "home")
    assert reports_dir(context(tmp_path, temp), warn=warnings.append, mounts=mounts) == (
        temp / "promptcanary"
    )
    assert warnings == []


def test_an_unmounted_runner_temp_falls_back_to_the_home_mount_with_a_warning(
    tmp_path: Path,
) -> None:
    # Runners before 2.329 pass the host's RUNNER_TEMP but do not mount it: files written to the
    # container's /tmp would be lost with the container.
    home = tmp_path / "github_home"
    home.mkdir()
    warnings: list[str] = []
    folder = reports_dir(
        context(tmp_path, Path("/home/runner/work/_temp")),
        warn=warnings.append,
        mounts=(tmp_path / "runner_temp_missing", home),
    )
    assert folder == home / "promptcanary"
    assert len(warnings) == 1 and "not mounted" in warnings[0] and "_github_home" in warnings[0]


def test_a_promoted_baseline_and_the_reports_are_readable_by_later_steps(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    baseline = workspace / "baselines" / "b.json"
    baseline.parent.mkdir()
    baseline.write_text("{}")
    baseline.chmod(0o600)  # what a private temporary file renamed into place has
    hand_over(baseline, workspace, folders_up_to=workspace)
    assert stat.S_IMODE(baseline.stat().st_mode) == 0o644
    files = ReportFiles(tmp_path / "reports", "s", "m", owner_of=workspace)
    written = Path(files.write(".md", "x"))
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


def test_files_written_as_root_are_given_to_the_workspace_owner(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The container runs as root; the runner's later steps run as the workspace's owner. Not
    # root here, so os.chown is recorded instead of carried out (no wire to fake).
    workspace = tmp_path / "workspace"
    (workspace / "baselines").mkdir(parents=True)
    path = workspace / "baselines" / "b.json"
    path.write_text("{}")
    calls: list[tuple[str, int, int]] = []
    monkeypatch.setattr(os, "getuid", lambda: workspace.stat().st_uid + 1)  # "root"
    real_stat = Path.stat

    def stat_as_root(self: Path, **kwargs: object) -> os.stat_result:
        result = real_stat(self)
        if self == workspace:
            return result
        values = list(result)
        values[stat.ST_UID] = result.st_uid + 1  # created by the container's root
        return os.stat_result(values)

    monkeypatch.setattr(Path, "stat", stat_as_root)
    monkeypatch.setattr(os, "chown", lambda p, uid, gid, **_: calls.append((str(p), uid, gid)))
    hand_over(path, workspace, folders_up_to=workspace)
    owner = real_stat(workspace)
    assert calls == [
        (str(path), owner.st_uid, owner.st_gid),
        (str(workspace / "baselines"), owner.st_uid, owner.st_gid),
    ]


def test_the_hand_over_never_leaves_the_workspace_through_a_symlink(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A checked-out ``baselines`` symlink pointing out of the workspace: running as root, the
    container must not give the outside file or any folder above it to the runner's user."""
    workspace, outside = tmp_path / "workspace", tmp_path / "outside"
    workspace.mkdir()
    (outside / "etc").mkdir(parents=True)
    (workspace / "baselines").symlink_to(outside / "etc", target_is_directory=True)
    escaped = workspace / "baselines" / "b.json"
    escaped.write_text("{}")  # lands in outside/etc
    calls: list[str] = []
    monkeypatch.setattr(os, "getuid", lambda: workspace.stat().st_uid + 1)  # "root"
    real_stat = Path.stat

    def stat_as_root(self: Path, **kwargs: bool) -> os.stat_result:
        result = real_stat(self, **kwargs)
        if self == workspace:
            return result
        values = list(result)
        values[stat.ST_UID] = result.st_uid + 1  # created by the container's root
        return os.stat_result(values)

    monkeypatch.setattr(Path, "stat", stat_as_root)
    monkeypatch.setattr(os, "chown", lambda p, uid, gid, **_: calls.append(str(p)))
    mode = stat.S_IMODE((outside / "etc" / "b.json").stat().st_mode)

    hand_over(escaped, workspace, folders_up_to=workspace)

    assert calls == []
    assert stat.S_IMODE((outside / "etc" / "b.json").stat().st_mode) == mode
    inside = workspace / "real" / "b.json"
    inside.parent.mkdir()
    inside.write_text("{}")
    hand_over(inside, workspace, folders_up_to=workspace)
    assert calls == [str(inside), str(inside.parent)]  # stops at the workspace


MOUNTINFO = """\
1 0 0:50 / / rw,relatime - overlay overlay rw
2 1 0:51 / /proc rw - proc proc rw
3 1 8:1 /srv/work /github/workspace rw,relatime - ext4 /dev/sda1 rw
4 1 8:1 /srv/with\\040space /mnt/with\\040space rw - ext4 /dev/sda1 rw
"""


def test_only_a_folder_on_a_mount_of_its_own_outlives_the_container() -> None:
    assert on_a_mount(Path("/github/workspace/baselines"), MOUNTINFO)
    assert on_a_mount(Path("/mnt/with space/x"), MOUNTINFO)
    assert not on_a_mount(Path("/tmp"), MOUNTINFO)
    assert not on_a_mount(Path("/github/workspacex"), MOUNTINFO)  # a prefix is not a parent


def test_an_unshared_runner_temp_sends_the_reports_to_the_workspace_with_a_warning(
    tmp_path: Path,
) -> None:
    """nektos/act: RUNNER_TEMP=/tmp in the container, nothing mounted there, no /github/* mounts;
    the workspace is the one mount later steps see."""
    temp = tmp_path / "container_tmp"
    temp.mkdir()
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    warnings: list[str] = []
    folder = reports_dir(
        context(tmp_path, temp),
        warn=warnings.append,
        mounts=(tmp_path / "no_runner_temp", tmp_path / "no_home"),
        shared=lambda path: path == workspace,
    )
    assert folder == workspace / ".promptcanary"
    assert len(warnings) == 1 and str(folder) in warnings[0] and "nektos/act" in warnings[0]
    written = Path(ReportFiles(folder, "s", "m").write(".md", "# report"))
    assert written.parent == folder and written.read_text(encoding="utf-8") == "# report"
    # A later `git add -A` must not commit the reports.
    assert (folder / ".gitignore").read_text(encoding="utf-8") == "*\n"
