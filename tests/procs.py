"""Processes the tests start, found and awaited through Linux's /proc and pidfds (the
dashboards' process groups, an installed venv's leftovers), never by polling."""

from __future__ import annotations

import contextlib
import os
import select
import time
from pathlib import Path


def cmdline(pid: int) -> str:
    """The process's command line, its arguments joined by spaces ("" once it is gone)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return raw.replace(b"\0", b" ").decode(errors="replace")


def group_members(pgid: int) -> list[int]:
    """Pids whose process group is ``pgid``."""
    pids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pids.append(int(stat.parent.name))
    return pids


def running_from(folder: Path) -> list[int]:
    """Pids whose program lies under ``folder`` (a venv's interpreter, say)."""
    pids = []
    for path in Path("/proc").glob("[0-9]*/cmdline"):
        with contextlib.suppress(OSError):
            if path.read_bytes().split(b"\0")[0].startswith(bytes(folder) + b"/"):
                pids.append(int(path.parent.name))
    return pids


def wait_exit(pids: list[int], timeout: float) -> bool:
    """Block until every pid has exited (each pidfd becomes readable), or time out."""
    fds = []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            fds.append(os.pidfd_open(pid))
    try:
        deadline = time.monotonic() + timeout
        waiting = list(fds)
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            ready, _, _ = select.select(waiting, [], [], left)
            waiting = [fd for fd in waiting if fd not in ready]
        return True
    finally:
        for fd in fds:
            os.close(fd)
