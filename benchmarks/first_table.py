"""Timing a whole command to the first line of its result table (loop_speed.py, promptfoo_side.py).

The CPU seconds are the operating system's accounting of the finished children (every thread, to
the end of each process): on a machine shared with other work they move far less than the wall
time, which follows the share of a core a process got.
"""

from __future__ import annotations

import resource
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def children_cpu() -> float:
    """User + system seconds of every finished child process so far."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def seconds_to_table(
    cmd: list[str], cwd: Path, env: dict[str, str], is_table: Callable[[bytes], bool], what: str
) -> float:
    """Seconds from starting ``cmd`` to the first line of its output that ``is_table``; the
    command runs to its end (its CPU is then counted). No such line: SystemExit naming ``what``
    with the end of the command's stderr."""
    started = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None
    table = None
    for line in proc.stdout:
        if table is None and is_table(line):
            table = time.perf_counter() - started
    _, err = proc.communicate()
    if table is None:
        raise SystemExit(
            f"{what} printed no result table (exit {proc.returncode}): "
            f"{err.decode(errors='replace')[-2000:]}"
        )
    return table
