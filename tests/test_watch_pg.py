"""The watcher on PostgreSQL: ``LISTEN roads_app_shoes`` on a real server (the test
session's, `tests.pgserver`; a fresh database each test). A change is announced by
``NOTIFY roads_app_shoes, '<id> <version>'`` in its own transaction, as the store does;
a listener that lost its connection (its server process ended, the server restarted)
connects again and reads every shoe, so a change made while it was away is still told."""

from __future__ import annotations

import threading

import pytest

from roads_app.store import watch
from tests.pgserver import PgServer

psycopg = pytest.importorskip("psycopg")

SHOES = """CREATE TABLE shoes (
    id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', source TEXT NOT NULL DEFAULT 'hand',
    updated TEXT, version INTEGER NOT NULL, rounds INTEGER NOT NULL DEFAULT 0,
    ended TEXT, deleted TEXT)"""
"""The columns of the library's ``shoes`` table the watcher reads."""
SETTINGS = "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)"
"""Where the keys' generation is (bumped by a revoke)."""


@pytest.fixture
def table(pg_server: PgServer) -> str:
    """A fresh database on the session's server with a ``shoes`` table; its URL."""
    url = pg_server.new_database("w")
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(SHOES)
        c.execute(SETTINGS)
    return url


def write(url: str, sql: str, *args: object, notify: str | None = None) -> None:
    """One transaction: the change, and its notification when given (sent at commit)."""
    with psycopg.connect(url) as c:
        c.execute(sql, args)
        if notify is not None:
            c.execute("SELECT pg_notify(%s, %s)", (watch.CHANNEL, notify))


class Told:
    """What a watcher told its follower, waited for on a condition."""

    def __init__(self, w: watch.Watcher) -> None:
        self.changes: list[frozenset[str]] = []
        self._cond = threading.Condition()
        w.subscribe(self._listener)

    def _listener(self, _seq: int, changed: frozenset[str]) -> None:
        with self._cond:
            self.changes.append(changed)
            self._cond.notify_all()

    def wait_for(
        self, w: watch.Watcher, shoe: str, version: int | None, timeout: float = 30
    ) -> None:
        with self._cond:
            ok = self._cond.wait_for(lambda: w.version(shoe) == version, timeout)
        assert ok, f"{shoe} not seen at version {version}: {w.version(shoe)}, told {self.changes}"


def test_a_notified_change_is_told_and_read(table: str):
    write(table, "INSERT INTO shoes (id, version, rounds) VALUES ('s1', 1, 0), ('s2', 1, 0)")
    w = watch.Watcher(watch.PgSource(table)).start()
    try:
        assert w.version("s1") == 1 and w.shoe("s2") is not None
        told = Told(w)
        write(table, "UPDATE shoes SET version = 2, rounds = 1 WHERE id = 's1'", notify="s1 2")
        told.wait_for(w, "s1", 2)
        assert told.changes == [frozenset({"s1"})] and w.shoe("s1").rounds == 1
        # a shoe moved to the trash is gone for followers; ended is seen
        write(table, "UPDATE shoes SET version = 2, deleted = 'now' WHERE id = 's2'", notify="s2 2")
        told.wait_for(w, "s2", None)
        write(table, "UPDATE shoes SET version = 3, ended = 'now' WHERE id = 's1'", notify="s1 3")
        told.wait_for(w, "s1", 3)
        assert w.shoe("s1").ended
        assert told.changes == [frozenset({"s1"}), frozenset({"s2"}), frozenset({"s1"})]
    finally:
        w.stop()


def test_a_revoke_is_told_before_the_changes_after_it(table: str):
    """A revoke (the keys' generation bumped, `TOKENS_NEWS` on the channel) is told to
    every follower, in the same call as a shoe changed after it or before: a stream
    never sends a change after a revoke before the revoke is known."""
    write(table, "INSERT INTO shoes (id, version, rounds) VALUES ('s1', 1, 0)")
    w = watch.Watcher(watch.PgSource(table)).start()
    try:
        told = Told(w)
        assert w.tokens == 0
        with psycopg.connect(table) as c:  # the revoke, then a change, before the watcher looks
            c.execute("INSERT INTO settings VALUES ('tokens', '1')")
            c.execute("SELECT pg_notify(%s, %s)", (watch.CHANNEL, f"{watch.TOKENS_NEWS} 0"))
        write(table, "UPDATE shoes SET version = 2 WHERE id = 's1'", notify="s1 2")
        told.wait_for(w, "s1", 2)
        assert w.tokens == 1
        assert watch.TOKENS_NEWS in told.changes[0]  # told first, or with the change
    finally:
        w.stop()


def test_a_listener_that_lost_its_connection_reads_again_and_misses_nothing(table: str):
    """A change committed while the listener was away (no notification ever reaches it)
    is told once it is connected again."""
    write(table, "INSERT INTO shoes (id, version, rounds) VALUES ('s1', 1, 0)")
    source = watch.PgSource(table)
    w = watch.Watcher(source).start()
    try:
        told = Told(w)
        first = source.pid
        # changed without a notification, then the listener's connection is cut: only
        # reading every shoe again can show it
        write(table, "UPDATE shoes SET version = 5, rounds = 4 WHERE id = 's1'")
        write(table, "SELECT pg_terminate_backend(%s)", first)
        told.wait_for(w, "s1", 5)
        assert source.pid != first and w.shoe("s1").rounds == 4
        write(table, "UPDATE shoes SET version = 6 WHERE id = 's1'", notify="s1 6")
        told.wait_for(w, "s1", 6)  # and it listens again
    finally:
        w.stop()


def test_the_server_restarted_under_the_listener(table: str, pg_server: PgServer):
    write(table, "INSERT INTO shoes (id, version, rounds) VALUES ('s1', 1, 0)")
    w = watch.Watcher(watch.PgSource(table)).start()
    try:
        told = Told(w)
        pg_server.restart()
        write(table, "UPDATE shoes SET version = 2 WHERE id = 's1'", notify="s1 2")
        told.wait_for(w, "s1", 2)
    finally:
        w.stop()


def test_notifications_of_what_is_known_tell_nothing(table: str):
    """A notification of a version already seen (this process's own write, read already)
    is not news; one that does not parse makes the watcher read everything."""
    write(table, "INSERT INTO shoes (id, version, rounds) VALUES ('s1', 1, 0), ('s2', 1, 0)")
    w = watch.Watcher(watch.PgSource(table))
    w.poll()  # connected: reads every shoe
    told: list[frozenset[str]] = []
    w.subscribe(lambda _s, c: told.append(c))
    write(table, "SELECT 1", notify="s1 1")
    assert w.poll(timeout=5) == frozenset() and told == []
    write(table, "UPDATE shoes SET version = 2 WHERE id = 's2'", notify="not a payload at all")
    assert w.poll(timeout=5) == frozenset({"s2"}) and w.version("s2") == 2
    w.stop()
