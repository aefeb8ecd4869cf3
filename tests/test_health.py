"""A replica that lost its database says so on ``/health`` (503, one line), and a real
HAProxy, configured as docs/deploy.md says, takes it out of rotation and back.

The database is a real PostgreSQL server of this module's own (it is stopped and started
here, which the session's shared one must not be).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import httpx
import pytest

from tests import pgserver
from tests.api_server import ApiServer, free_port
from tests.test_server_metrics import value

ROOT = Path(__file__).resolve().parents[1]
HAPROXY = shutil.which("haproxy") or "/usr/sbin/haproxy"
CHECK_EVERY = "100ms"
"""The doc's check interval (2 s) made short for the test; nothing else is changed."""


def until(cond: Callable[[], bool], what: str, timeout: float = 60) -> None:
    """Wait for ``cond`` (asked every 50 ms), or fail saying ``what`` did not happen."""
    pause = threading.Event()
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        pause.wait(0.05)


def health(url: str) -> httpx.Response | None:
    try:
        return httpx.get(f"{url}/health", timeout=5)
    except httpx.TransportError:
        return None


def status(url: str) -> int | None:
    r = health(url)
    return None if r is None else r.status_code


@pytest.fixture(scope="module")
def pg() -> Iterator[pgserver.PgServer]:
    with pgserver.running_server() as server:
        yield server


@contextlib.contextmanager
def api_on(url: str, data: Path) -> Iterator[ApiServer]:
    with mock.patch.dict(os.environ, {"ROADS_APP_DB": url}):
        server = ApiServer(data).start()
    try:
        yield server
    finally:
        server.stop()


def test_health_says_not_ready_while_the_database_is_stopped(
    pg: pgserver.PgServer, tmp_path: Path
) -> None:
    with api_on(pg.new_database(), tmp_path / "a") as api:
        assert status(api.url) == 200
        pg.stop()
        try:
            until(lambda: status(api.url) == 503, "a 503 once the database stopped")
            r = health(api.url)
            assert r is not None
            line = r.json()["detail"]
            assert line.startswith("not ready: the database is unreachable"), line
            assert "\n" not in line and pgserver.PASSWORD not in line
        finally:
            pg.start()
        until(lambda: status(api.url) == 200, "a 200 once the database is back")
        text = httpx.get(f"{api.url}/metrics").text
    assert value(text, "roads_app_db_reconnects_total", connection="feed") >= 1
    assert value(text, "roads_app_database_up") == 1


# --- HAProxy in front of two replicas ---------------------------------------------------------


def doc_config() -> str:
    """The HAProxy configuration docs/deploy.md gives."""
    text = (ROOT / "docs" / "deploy.md").read_text()
    found = re.search(r"```haproxy\n(.*?)```", text, re.S)
    assert found, "docs/deploy.md gives no HAProxy configuration"
    return found.group(1)


def for_test(config: str, port: int, replicas: list[str], admin: Path) -> str:
    """The doc's configuration on loopback: the API's frontend on ``port``, its servers
    the ``replicas`` (host:port), no dashboards, checks every `CHECK_EVERY`, and an
    admin socket to read the servers' states from."""
    out: list[str] = []
    section = ""
    api_servers = iter(replicas)
    for line in config.splitlines():
        words = line.split()
        if line and not line[0].isspace():
            section = line.strip()
            if section.startswith(("frontend dashboard", "backend dashboards")):
                continue
            out.append(line)
            if section == "global":
                out.append(f"    stats socket {admin} mode 600 level admin")
            continue
        if section.startswith(("frontend dashboard", "backend dashboards")):
            continue
        if words[:1] == ["bind"]:
            line = f"    bind 127.0.0.1:{port}"
        elif words[:1] == ["server"]:
            line = f"    server {words[1]} {next(api_servers)} " + " ".join(words[3:])
        elif words[:1] == ["default-server"]:
            line = re.sub(r"inter \S+", f"inter {CHECK_EVERY}", line)
        out.append(line)
    return "\n".join(out) + "\n"


def states(admin: Path) -> dict[str, str]:
    """Each API server's state as HAProxy sees it (UP, DOWN, ...)."""
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
        if r.get("pxname") == "api" and r["svname"] not in ("FRONTEND", "BACKEND")
    }


@contextlib.contextmanager
def haproxy(config: str, where: Path) -> Iterator[subprocess.Popen[bytes]]:
    cfg = where / "haproxy.cfg"
    cfg.write_text(config)
    log = (where / "haproxy.log").open("wb")
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(cfg)], stdout=log, stderr=log)
    try:
        yield proc
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def test_haproxy_takes_a_replica_that_lost_its_database_out_of_rotation(
    pg: pgserver.PgServer, tmp_path: Path
) -> None:
    # Each replica on a database of its own, so that one alone can lose it.
    url_a, url_b = pg.new_database(), pg.new_database()
    name_b = url_b.rsplit("/", 1)[1]
    port, admin = free_port(), tmp_path / "admin.sock"
    with api_on(url_a, tmp_path / "a") as a, api_on(url_b, tmp_path / "b") as b:
        replicas = [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]
        with haproxy(for_test(doc_config(), port, replicas, admin), tmp_path) as proc:
            until(lambda: admin.exists() or proc.poll() is not None, "HAProxy's admin socket")
            assert proc.poll() is None, (tmp_path / "haproxy.log").read_text()
            until(lambda: set(states(admin).values()) == {"UP"}, "both replicas up")
            front = f"http://127.0.0.1:{port}"
            assert httpx.get(f"{front}/shoes", timeout=10).status_code == 200  # through it

            pg.sql(f"ALTER DATABASE {name_b} WITH ALLOW_CONNECTIONS false")
            pg.sql(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name_b}'"
            )
            try:
                until(lambda: status(b.url) == 503, "replica b not ready")
                until(lambda: states(admin)["api2"] == "DOWN", "HAProxy taking b out")
                assert states(admin)["api1"] == "UP"
                answers = [httpx.get(f"{front}/health", timeout=10).status_code for _ in range(8)]
                assert answers == [200] * 8  # round robin would give b every other one
            finally:
                pg.sql(f"ALTER DATABASE {name_b} WITH ALLOW_CONNECTIONS true")
            until(lambda: states(admin)["api2"] == "UP", "HAProxy taking b back")
