"""Shared fixtures and settings.

Every test starts with no store open (each opens its own folder's). Hypothesis'
per-example deadline is a wall-clock threshold: on a shared, loaded machine a first call
that pays for an import or a compile fails it at random, so it is off (speed lives in
``bench/``).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import settings

from roads_app.store import db
from tests import pgserver

settings.register_profile("roads", deadline=None)
settings.load_profile("roads")


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    db.forget_stores()


# --- PostgreSQL: one real server for the session, a fresh database per test ----------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[pgserver.PgServer]:
    """A real PostgreSQL 15 server on a free loopback port (`tests.pgserver`)."""
    with pgserver.running_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: pgserver.PgServer) -> str:
    """The URL (with its password) of a fresh, empty database on the session's server."""
    return pg_server.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Run the test once per backend: on PostgreSQL ``ROADS_APP_DB`` names a fresh
    database, so every store the test (and the processes it starts) opens is that one.
    Afterwards the server's database must hold the library's tables: a test that opened
    a SQLite file instead would pass on PostgreSQL without having run there."""
    if request.param == "sqlite":
        monkeypatch.delenv("ROADS_APP_DB", raising=False)
        yield "sqlite"
        return
    url = request.getfixturevalue("pg_url")
    monkeypatch.setenv("ROADS_APP_DB", url)
    yield "postgresql"
    import psycopg

    with psycopg.connect(url) as con:
        n = con.execute("SELECT count(*) FROM shoes").fetchone()
    assert n is not None, "the test never opened the library on PostgreSQL"
