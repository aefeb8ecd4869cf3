"""A replica that lost its database says so on ``/health`` (503, one line), and a real
HAProxy, configured as docs/deploy.md says, takes it out of rotation and back.

The database is a real PostgreSQL server of this module's own (it is stopped and started
here, which the session's shared one must not be).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path
from unittest import mock

import httpx
import pytest

from tests import haproxy, pgserver
from tests.api_server import ApiServer, free_port
from tests.test_server_metrics import value

until = haproxy.until


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


def test_haproxy_takes_a_replica_that_lost_its_database_out_of_rotation(
    pg: pgserver.PgServer, tmp_path: Path
) -> None:
    # Each replica on a database of its own, so that one alone can lose it.
    url_a, url_b = pg.new_database(), pg.new_database()
    name_b = url_b.rsplit("/", 1)[1]
    port, admin = free_port(), tmp_path / "admin.sock"
    with api_on(url_a, tmp_path / "a") as a, api_on(url_b, tmp_path / "b") as b:
        replicas = [f"127.0.0.1:{a.port}", f"127.0.0.1:{b.port}"]
        config = haproxy.for_test(haproxy.doc_config(), "api", port, replicas, admin)
        with haproxy.haproxy(config, tmp_path, admin):
            until(lambda: set(haproxy.states(admin, "api").values()) == {"UP"}, "both replicas up")
            front = f"http://127.0.0.1:{port}"
            assert httpx.get(f"{front}/shoes", timeout=10).status_code == 200  # through it

            pg.sql(f"ALTER DATABASE {name_b} WITH ALLOW_CONNECTIONS false")
            pg.sql(
                f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name_b}'"
            )
            try:
                until(lambda: status(b.url) == 503, "replica b not ready")
                until(
                    lambda: haproxy.states(admin, "api")["api2"] == "DOWN", "HAProxy taking b out"
                )
                assert haproxy.states(admin, "api")["api1"] == "UP"
                answers = [httpx.get(f"{front}/health", timeout=10).status_code for _ in range(8)]
                assert answers == [200] * 8  # round robin would give b every other one
            finally:
                pg.sql(f"ALTER DATABASE {name_b} WITH ALLOW_CONNECTIONS true")
            until(lambda: haproxy.states(admin, "api")["api2"] == "UP", "HAProxy taking b back")
