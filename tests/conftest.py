"""Shared fixtures and settings.

Every test starts with no store open (each opens its own folder's). Hypothesis'
per-example deadline is a wall-clock threshold: on a shared, loaded machine a first call
that pays for an import or a compile fails it at random, so it is off (speed lives in
``bench/``).

`python3 dev.py test` runs the suite on three workers (pytest-xdist, ``--dist loadgroup``).
A module whose tests share a module-scoped fixture (a dashboard server, a Ray instance,
an API app) runs whole on one worker, so its fixture starts once; the other tests are
dealt out one by one. Session-scoped fixtures (the browser, a database server) start
once per worker: each keeps its own temporary folder and free port.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from hypothesis import settings

from roads_app.store import db
from tests import netns, pgserver

settings.register_profile("roads", deadline=None)
settings.load_profile("roads")


def pytest_sessionstart(session: pytest.Session) -> None:
    """Make the replica tests' switch (`tests.netns`) before any worker starts: the one
    change to this machine's links they make, so none happens while a browser loads."""
    if not hasattr(session.config, "workerinput"):
        netns.session_switch()


def pytest_sessionfinish(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):
        netns.end_session_switch()


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Keep together on one xdist worker the tests of a module that share a fixture
    wider than a test (so it is set up once, not once per worker)."""
    if not config.pluginmanager.hasplugin("xdist"):  # ``-p no:xdist``: no such marker
        return
    for item in items:
        group = shared_group(item)
        if group is not None:
            item.add_marker(pytest.mark.xdist_group(group))
            if getattr(config.option, "loadgroup", False):  # an xdist worker's setting
                join_group(item, group)
    if getattr(config.option, "loadgroup", False):
        slow_first(items)


SLOW_FIRST = (
    "tests/browser/test_failover.py",
    "tests/browser/test_library.py",
    "tests/test_api_replicas_floor.py",
    "tests/test_wheel.py",
    "tests/browser/test_hostile_names.py",
    "tests/browser/test_display_replica.py",
    "tests/browser/test_dashboard.py",
    "tests/test_store_concurrency.py",
    "tests/browser/test_live.py",
    "tests/test_compile.py",
    "tests/browser/test_screen_reconnecting.py",
    "tests/test_upgrade.py",
    "tests/test_server_metrics.py",
    "tests/browser/test_api_display.py",
    "tests/browser/test_hostile_uploads.py",
    "tests/test_engine.py",
)
"""The modules with the slowest tests (``--durations`` of a whole run), slowest first.

xdist deals the work out in the order collected (its ``loadgroup`` scheduler puts the
bigger groups first), one unit at a time to whichever worker is free: a 45 s test
dealt out last keeps one worker busy while the other waits with nothing left. Dealt
out first, the many short tests fill in behind them and both workers end together."""


def slow_first(items: list[pytest.Item]) -> None:
    """Move the tests of `SLOW_FIRST`'s modules to the front, in its order; every other
    test keeps its place relative to the others (the sort is stable), and a module's
    tests stay in their own order, so a group is still one unit."""
    rank = {module: i for i, module in enumerate(SLOW_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.split("::")[0], len(rank)))


def shared_group(item: pytest.Item) -> str | None:
    """The test's module, if the test uses a fixture wider than a test (else None)."""
    info = getattr(item, "_fixtureinfo", None)
    defs = info.name2fixturedefs.values() if info is not None else ()
    if any(d[-1].scope in ("module", "class", "package") for d in defs if d):
        return item.nodeid.split("::")[0]
    return None


def join_group(item: pytest.Item, group: str) -> None:
    """Give the test the id ``<id>@<group>`` by which xdist's scheduler deals a group out
    whole. xdist does it itself from the marker, but it writes ``item._nodeid``, which
    pytest 9 no longer reads (the id is ``item._id``): every group was empty, and each
    module's server, Ray instance or wheel was made on both workers. (And its hook runs
    before this one.) Never twice, should a later xdist do it too."""
    if "@" in item.nodeid.rpartition("]")[2]:
        return
    if not hasattr(item, "_id"):  # pytest 8
        item._nodeid = f"{item.nodeid}@{group}"  # type: ignore[attr-defined]
        return
    from _pytest.nodeid import NodeId

    item._id = NodeId.parse(f"{item.nodeid}@{group}")  # type: ignore[attr-defined]


@pytest.fixture(autouse=True)
def _close_stores() -> Iterator[None]:
    yield
    db.forget_stores()


@pytest.fixture(autouse=True)
def _keep_main() -> Iterator[None]:
    """This process's ``__main__`` as it was before the test: Streamlit's `AppTest` runs
    its page as ``__main__`` here and leaves it there, and a process multiprocessing
    starts afterwards (the kill test's appenders) runs that page first, and fails."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


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
