"""A real HAProxy (Debian's package) for the tests, configured as docs/deploy.md says:
the doc's own configuration, put on the loopback with the test's servers, one of its two
balancers kept (``api`` or ``dashboard``), the checks made short and an admin socket
added to read the servers' states from."""

from __future__ import annotations

import contextlib
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
CHECK_EVERY = "100ms"
"""The doc's check interval (2 s) made short for the tests; nothing else is changed."""
SECTIONS = {
    "api": ("frontend api", "backend api"),
    "dashboard": ("frontend dashboard", "backend dashboards"),
}
BACKEND = {"api": "api", "dashboard": "dashboards"}


def doc_config() -> str:
    """The HAProxy configuration docs/deploy.md gives."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    found = re.search(r"```haproxy\n(.*?)```", text, re.S)
    assert found, "docs/deploy.md gives no HAProxy configuration"
    return found.group(1)


def for_test(
    config: str,
    keep: str,
    port: int,
    servers: list[str],
    admin: Path,
    every: str | None = CHECK_EVERY,
) -> str:
    """The doc's configuration on loopback: ``keep``'s frontend (``api`` or
    ``dashboard``) on ``port``, its servers the ``servers`` (host:port) in order, the
    other balancer left out, checks ``every`` (None: the doc's), an admin socket at ``admin``."""
    out: list[str] = []
    section = ""
    dropped = tuple(s for k, pair in SECTIONS.items() if k != keep for s in pair)
    ours = iter(servers)
    for line in config.splitlines():
        words = line.split()
        if line and not line[0].isspace():
            section = line.strip()
            if section.startswith(dropped):
                continue
            out.append(line)
            if section == "global":
                out.append(f"    stats socket {admin} mode 600 level admin")
            continue
        if section.startswith(dropped):
            continue
        if words[:1] == ["bind"]:
            line = f"    bind 127.0.0.1:{port}"
        elif words[:1] == ["server"]:
            line = f"    server {words[1]} {next(ours)} " + " ".join(words[3:])
        elif words[:1] == ["default-server"] and every is not None:
            line = re.sub(r"inter \S+", f"inter {every}", line)
        out.append(line)
    return "\n".join(out) + "\n"


def states(admin: Path, keep: str) -> dict[str, str]:
    """Each server of ``keep``'s backend as HAProxy sees it (UP, DOWN, ...)."""
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(str(admin))
        s.sendall(b"show stat\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    lines = data.decode().splitlines()
    head = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(head, line.split(","), strict=False)) for line in lines[1:] if line]
    return {
        r["svname"]: r["status"].split()[0]
        for r in rows
        if r.get("pxname") == BACKEND[keep] and r["svname"] not in ("FRONTEND", "BACKEND")
    }


def until(cond: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Wait for ``cond`` (asked every 50 ms), or fail saying ``what`` did not happen."""
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        pause.wait(0.05)


@contextlib.contextmanager
def haproxy(config: str, where: Path, admin: Path) -> Iterator[subprocess.Popen[bytes]]:
    """HAProxy running ``config`` (its file and log in ``where``) until the block ends;
    started once its admin socket answers."""
    cfg = where / "haproxy.cfg"
    cfg.write_text(config)
    log = (where / "haproxy.log").open("wb")
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=log, stderr=log)
    try:
        until(lambda: admin.exists() or proc.poll() is not None, "HAProxy's admin socket")
        assert proc.poll() is None, (where / "haproxy.log").read_text()
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()
