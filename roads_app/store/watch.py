"""One watcher of the store per server process: what changed, told to whoever follows.

Why: every follower (a scoreboard, a display, the wall of tables, each of the API's
event streams) must see a result within a second whoever wrote it (a tab, the CLI, the
HTTP API, another server on the same library). Each follower asking the database a few
times a second costs a query per follower per poll; here one thread per process learns
what changed from one *source* and tells the followers which shoes changed:

* SQLite (`SqliteSource`): ``PRAGMA data_version`` on a connection of its own that
  never writes, every `INTERVAL_S` (or at once when this process wrote: `Watcher.poke`).
  It changes when *another* connection committed, in this process or any other; only
  then are the shoes' versions read (one small query).
* PostgreSQL (`PgSource`): ``LISTEN roads_app_shoes`` on a connection of its own in
  autocommit. Every change that bumps a shoe's version also sends
  ``NOTIFY roads_app_shoes, '<shoe id> <version>'`` in its own transaction, so the
  notification arrives when the change is committed, on every host; only the shoes
  named are read. A listener that lost its connection (the server restarted, the
  network dropped) connects again and reads every shoe's version, so no change made
  while it was away is missed.

An idle followed page costs nothing beyond the source's wait for the whole process.

Revokes are news too: a revoke bumps the ``tokens`` generation in ``settings`` (and on
PostgreSQL says `TOKENS_NEWS` on the channel, with its COMMIT); the watcher reads the
generation whenever anything may have changed, and before it tells anyone of the shoes
it tells every follower `TOKENS_NEWS` among the changed ids, on the same call. So a
process that trusts keys it found (`roads_app.api.service.Feed`) drops them, a page
waiting on a shoe asks again whether its key still holds, and an event of a change made
after the revoke is never sent before the revoke is known here.

Followers are callbacks (`Watcher.subscribe`), called on the watcher's thread with the
change's sequence number and the ids that changed; a callback must only hand the news
on (an event loop's ``call_soon_threadsafe``), never do work there. A write never waits
for them: the watcher learns of a change after its commit, on its own thread.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Protocol

from roads_app.store.connection import BUSY_TIMEOUT_S, DB_ENV, db_path
from roads_app.store.feed import GENERATION
from roads_app.store.pg import CHANNEL, TOKENS_NEWS

TABLE_KEY = "table:"
"""A floor table's changes are announced as ``table:<code>`` (a shoe id has no colon),
so a follower of a table (its display, the lobby) is told when its state or its shoe
changes, by the same feed and the same notifications as a shoe's."""

log = logging.getLogger(__name__)

INTERVAL_S = 0.05
"""How often the SQLite source asks whether anything was committed (a pragma: microseconds)."""

PG_CHECK_S = 5.0
"""A quiet PostgreSQL listener asks the server a trivial question this often: a connection
that died without a word (a host gone, a cable pulled) is noticed and made again."""

RECONNECT_S = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Waits between attempts to reach the database again (the last one repeats)."""

Listener = Callable[[int, frozenset[str]], None]

ALL = None
"""What a source says when anything may have changed: every shoe is read again."""

News = Mapping[str, int | None] | None
"""A source's answer: shoe id -> announced version (None: unknown), or `ALL`."""


@dataclass(frozen=True)
class ShoeNow:
    """What a follower needs to know of a shoe without reading it: its version, whether
    it has ended, its round count, where it comes from and when it last changed (epoch
    seconds: the wall's stale mark)."""

    version: int
    ended: bool
    rounds: int
    source: str = "hand"
    modified: float = 0.0


@dataclass(frozen=True)
class TableNow:
    """What a follower needs to know of a floor table without reading it: its version
    (bumped by each change of the table itself), state, current shoe and floor place."""

    version: int
    state: str
    shoe: str | None
    position: int


Seen = ShoeNow | TableNow
"""A shoe, or a floor table (keyed ``table:<code>``), as the watcher last saw it."""


class Source(Protocol):
    """Where the watcher learns that shoes changed, and reads them."""

    errors: tuple[type[BaseException], ...]
    """What a lost or busy database raises here (the watcher then starts over)."""

    def wait(self, timeout: float) -> News:
        """Up to ``timeout`` seconds for news: ``{}`` for none, the ids announced, or
        `ALL` (after connecting, the first time and after a lost connection)."""
        ...

    def read(self, ids: Iterable[str] | None) -> dict[str, Seen]:
        """The shoes not in the trash and the floor tables, all (``ids`` None) or those
        ids (a table's id: ``table:<code>``)."""
        ...

    def wake(self) -> None:
        """End a `wait` now (something was written here, or the watcher stops)."""
        ...

    def generation(self) -> int:
        """The keys' generation: bumped by every revoke."""
        ...

    def close(self) -> None: ...


_COLUMNS = "id, version, ended IS NOT NULL, rounds, source, updated"


def _generation(row: tuple[Any, ...] | None) -> int:
    return int(row[0]) if row is not None else 0


def _shoe_now(row: tuple[Any, ...]) -> tuple[str, Seen]:
    return str(row[0]), ShoeNow(int(row[1]), bool(row[2]), int(row[3]), str(row[4]), _epoch(row[5]))


_TABLE_COLUMNS = "code, version, state, shoe, position"


def _table_now(row: tuple[Any, ...]) -> tuple[str, Seen]:
    return TABLE_KEY + str(row[0]), TableNow(int(row[1]), str(row[2]), row[3], int(row[4]))


def _floor(con: Any, errors: tuple[type[BaseException], ...], *query: Any) -> list[Any]:
    """The floor tables' rows; none where the library has no floor tables yet (a
    watcher on a library before its migration to them, a test's bare ``shoes``)."""
    try:
        return list(con.execute(*query).fetchall())
    except errors as e:
        if "floor_tables" not in str(e):
            raise
        return []


class SqliteSource:
    """``PRAGMA data_version`` on ``roads.db``: ALL whenever another connection committed."""

    errors = (sqlite3.Error,)

    def __init__(self, path: Path, interval_s: float = INTERVAL_S) -> None:
        self.path = path
        self.interval_s = interval_s
        self._con: sqlite3.Connection | None = None
        self._data_version: int | None = None
        self._woken = threading.Event()

    def __str__(self) -> str:
        return str(self.path)

    def _connect(self) -> sqlite3.Connection:
        if self._con is None:
            self._con = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            self._con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return self._con

    def wait(self, timeout: float) -> News:
        if timeout > 0 and self._woken.wait(min(timeout, self.interval_s)):
            self._woken.clear()
        data_version = int(self._connect().execute("PRAGMA data_version").fetchone()[0])
        if data_version == self._data_version:
            return {}
        self._data_version = data_version
        return ALL

    def read(self, ids: Iterable[str] | None) -> dict[str, Seen]:
        con = self._connect()
        rows = con.execute(f"SELECT {_COLUMNS} FROM shoes WHERE deleted IS NULL").fetchall()
        tables = _floor(con, self.errors, f"SELECT {_TABLE_COLUMNS} FROM floor_tables")
        return dict([*map(_shoe_now, rows), *map(_table_now, tables)])

    def generation(self) -> int:
        return _generation(self._connect().execute(GENERATION).fetchone())

    def wake(self) -> None:
        self._woken.set()

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con, self._data_version = None, None


def libpq_url(url: str) -> str:
    """A database URL as libpq takes it: SQLAlchemy's driver suffix dropped.

    >>> libpq_url("postgresql+psycopg://u@h:5/db")
    'postgresql://u@h:5/db'
    >>> libpq_url("postgres://h/db")
    'postgres://h/db'
    """
    scheme, sep, rest = url.partition("://")
    return scheme.split("+", 1)[0] + sep + rest


def is_postgres(url: str | None) -> bool:
    """Whether a library URL names a PostgreSQL server (else: the SQLite file)."""
    return bool(url) and libpq_url(url).split("://", 1)[0] in ("postgresql", "postgres")  # type: ignore[arg-type]


class PgSource:
    """``LISTEN roads_app_shoes`` on a connection of its own (psycopg 3, autocommit).

    A notification's payload is ``'<shoe id> <version>'``; one that does not parse is
    taken as news of every shoe. After (re)connecting, the first `wait` says `ALL`.
    The password is never logged: only psycopg's own message, which does not hold it.
    """

    def __init__(self, url: str, check_s: float = PG_CHECK_S) -> None:
        import psycopg

        self.errors = (psycopg.Error, OSError)
        self._url = libpq_url(url)
        self.check_s = check_s
        self._con: Any = None
        self._fresh = False
        self._quiet_since = time.monotonic()
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self.pid: int | None = None
        """The listening connection's server process (tests end it to cut the line)."""

    def __str__(self) -> str:
        return "the PostgreSQL library"

    def _connect(self) -> Any:
        if self._con is None:
            import psycopg

            con = psycopg.connect(
                self._url,
                autocommit=True,
                connect_timeout=5,
                keepalives=1,
                keepalives_idle=5,
                keepalives_interval=2,
                keepalives_count=3,
            )
            try:
                con.execute(f"LISTEN {CHANNEL}")
            except BaseException:
                con.close()
                raise
            self._con, self._fresh, self.pid = con, True, con.info.backend_pid
            self._quiet_since = time.monotonic()
        return self._con

    def wait(self, timeout: float) -> News:
        con = self._connect()
        if self._fresh:  # connected now: whatever happened while away is read in full
            self._fresh = False
            return ALL
        news: dict[str, int | None] = {}
        every = False
        # the notifications already received, then a wait on the socket (or a wake)
        for n in con.notifies(timeout=0):
            every |= _announce(news, n.payload)
        if not news and not every and timeout > 0:
            ready, _, _ = select.select([con.fileno(), self._wake_r], [], [], timeout)
            if self._wake_r in ready:
                with contextlib.suppress(BlockingIOError):
                    os.read(self._wake_r, 4096)
            for n in con.notifies(timeout=0):
                every |= _announce(news, n.payload)
        if every:
            return ALL
        if news:
            self._quiet_since = time.monotonic()
        elif time.monotonic() - self._quiet_since >= self.check_s:
            con.execute("SELECT 1")  # raises on a dead line: the watcher connects again
            self._quiet_since = time.monotonic()
        return news

    def read(self, ids: Iterable[str] | None) -> dict[str, Seen]:
        con = self._connect()
        if ids is None:
            rows = con.execute(f"SELECT {_COLUMNS} FROM shoes WHERE deleted IS NULL").fetchall()
            tables = _floor(con, self.errors, f"SELECT {_TABLE_COLUMNS} FROM floor_tables")
            return dict([*map(_shoe_now, rows), *map(_table_now, tables)])
        shoes = [i for i in ids if not i.startswith(TABLE_KEY)]
        codes = [i.removeprefix(TABLE_KEY) for i in ids if i.startswith(TABLE_KEY)]
        got: dict[str, Seen] = {}
        if shoes:
            got.update(
                map(
                    _shoe_now,
                    con.execute(
                        f"SELECT {_COLUMNS} FROM shoes WHERE deleted IS NULL AND id = ANY(%s)",
                        (shoes,),
                    ).fetchall(),
                )
            )
        if codes:
            query = f"SELECT {_TABLE_COLUMNS} FROM floor_tables WHERE code = ANY(%s)"
            got.update(map(_table_now, _floor(con, self.errors, query, (codes,))))
        return got

    def generation(self) -> int:
        return _generation(self._connect().execute(GENERATION).fetchone())

    def wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")

    def close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(Exception):
                self._con.close()
        self._con = None

    def __del__(self) -> None:
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)


def _announce(news: dict[str, int | None], payload: str) -> bool:
    """Add one notification's shoe to ``news``; True when it does not parse (read all).

    >>> got = {}
    >>> _announce(got, "s1 7"), _announce(got, "s2"), _announce(got, "")
    (False, False, True)
    >>> got
    {'s1': 7, 's2': None}
    """
    parts = payload.split()
    if not parts or len(parts) > 2:
        return True
    version = int(parts[1]) if len(parts) == 2 and parts[1].isdigit() else None
    news[parts[0]] = version
    return False


class Watcher:
    """Watches one library from a daemon thread (`start`): the SQLite file of a data
    folder, or any `Source`."""

    def __init__(self, where: Path | str | Source, interval_s: float = INTERVAL_S) -> None:
        if isinstance(where, Path | str):
            where = SqliteSource(db_path(where), interval_s)
        self.source: Source = where
        self.interval_s = interval_s
        self.seq = 0
        """Bumped by every change the watcher saw (the wall follows this)."""
        self.tokens: int | None = None
        """The keys' generation as last read (None: not yet): bumped by every revoke."""
        self._shoes: dict[str, Seen] = {}  # the floor tables too, keyed ``table:<code>``
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.reconnects = 0
        """Times the watcher reached its source again after losing it (read by a server's
        ``/metrics``)."""
        self.lost_since: float | None = None
        """When (``time.monotonic``) the source was lost, None while it answers: a server
        whose watcher lost the database is not ready (its ``/health`` says so)."""

    # --- what followers read (any thread)

    def shoe(self, shoe_id: str) -> ShoeNow | None:
        """The shoe as last seen (None: no such shoe, or in the trash)."""
        with self._lock:
            seen = self._shoes.get(shoe_id)
        return seen if isinstance(seen, ShoeNow) else None

    def version(self, shoe_id: str) -> int | None:
        now = self.shoe(shoe_id)
        return None if now is None else now.version

    def version_of(self, key: str) -> int | None:
        """The version of what a page follows, by its key: a shoe's id, or a floor table's
        ``table:<code>`` (`TABLE_KEY`), as last seen; None when gone."""
        with self._lock:
            seen = self._shoes.get(key)
        return None if seen is None else seen.version

    def shoes(self) -> dict[str, ShoeNow]:
        """Every shoe not in the trash, as last seen (a copy)."""
        with self._lock:
            return {k: v for k, v in self._shoes.items() if isinstance(v, ShoeNow)}

    def table(self, code: str) -> TableNow | None:
        """A floor table as last seen (None: no such table)."""
        with self._lock:
            seen = self._shoes.get(TABLE_KEY + code)
        return seen if isinstance(seen, TableNow) else None

    def tables(self) -> dict[str, TableNow]:
        """Every floor table by its code, as last seen (a copy)."""
        with self._lock:
            return {
                k.removeprefix(TABLE_KEY): v
                for k, v in self._shoes.items()
                if isinstance(v, TableNow)
            }

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call ``listener(seq, changed_ids)`` after each change; returns the unsubscribe."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock, contextlib.suppress(ValueError):
                self._listeners.remove(listener)

        return unsubscribe

    @property
    def followers(self) -> int:
        with self._lock:
            return len(self._listeners)

    def poke(self) -> None:
        """Look now rather than at the next tick (this process just wrote)."""
        self.source.wake()

    # --- the thread

    def start(self) -> Watcher:
        """Read the shoes once (so followers have versions at once), then watch."""
        try:
            self.poll()
        except self.source.errors as e:  # the thread tries again
            log.warning("watching %s: %s", self.source, e)
            self.lost_since = time.monotonic()
            self.source.close()
        self._thread = threading.Thread(target=self._run, name="roads-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.source.wake()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self.source.close()

    def _run(self) -> None:
        failures = 0
        while not self._stop.is_set():
            try:
                self.poll(self.interval_s)
                failures = 0
                if self.lost_since is not None:
                    self.lost_since = None
                    self.reconnects += 1
            except Exception as e:  # busy, vanished, restarted: start over
                if self.lost_since is None:
                    self.lost_since = time.monotonic()
                if not isinstance(e, self.source.errors):  # a bug: said, and watched on
                    log.exception("watching %s", self.source)
                elif failures == 0:  # said once, not at every try
                    log.warning("watching %s: %s", self.source, e)
                self.source.close()
                self._stop.wait(RECONNECT_S[min(failures, len(RECONNECT_S) - 1)])
                failures += 1

    def poll(self, timeout: float = 0.0) -> frozenset[str]:
        """Look once (waiting up to ``timeout`` for news); the ids that changed since the
        last look (also called by `start`)."""
        news = self.source.wait(timeout)
        revoked = False
        if news is ALL or TOKENS_NEWS in news:
            generation = self.source.generation()
            revoked = self.tokens is not None and generation != self.tokens
            self.tokens = generation
        if news is not ALL and TOKENS_NEWS in news:
            news = {k: v for k, v in news.items() if k != TOKENS_NEWS}
        if news is ALL:
            fresh, replace = self.source.read(None), True
        elif not news:
            if not revoked:
                return frozenset()
            fresh, replace, wanted = {}, False, []
        else:
            with self._lock:
                known = self._shoes
                wanted = [
                    k
                    for k, v in news.items()
                    if v is None or getattr(known.get(k), "version", None) != v
                ]
            if not wanted and not revoked:
                return frozenset()
            fresh, replace = (self.source.read(wanted) if wanted else {}), False
        with self._lock:
            old = self._shoes
            if replace:
                shoes = fresh
                keys = old.keys() | shoes.keys()
            else:
                shoes = dict(old)
                for k in wanted:
                    if k in fresh:
                        shoes[k] = fresh[k]
                    else:
                        shoes.pop(k, None)
                keys = set(wanted)
            changed = frozenset(k for k in keys if old.get(k) != shoes.get(k))
            changed |= {TOKENS_NEWS} if revoked else set()
            self._shoes = shoes
            if changed:
                self.seq += 1
            seq, listeners = self.seq, list(self._listeners)
        if changed:
            for listener in listeners:
                try:
                    listener(seq, changed)
                except Exception:  # a follower's bug must not stop the others' news
                    log.exception("a follower of %s failed", self.source)
        return changed


def _epoch(stamp: object) -> float:
    """The store's time stamp (ISO text, or a datetime from PostgreSQL) as epoch seconds
    (0 when missing or unreadable)."""
    if isinstance(stamp, datetime):
        return stamp.timestamp()
    if not isinstance(stamp, str) or not stamp:
        return 0.0
    try:
        return datetime.fromisoformat(stamp).timestamp()
    except ValueError:
        return 0.0


def source_for(data_dir: Path | str, url: str | None = None) -> Source:
    """The source for a library: PostgreSQL when ``url`` names a server, else the SQLite
    file of the data folder."""
    if url and is_postgres(url):
        return PgSource(url)
    return SqliteSource(db_path(data_dir))


_WATCHERS: dict[tuple[int, Path, str], Watcher] = {}
_WATCHERS_LOCK = threading.Lock()


def watcher(data_dir: Path | str, url: str | None = None) -> Watcher:
    """This process's watcher of a library, started on first use: the PostgreSQL server
    of ``url`` (or of ``$ROADS_APP_DB``), else the data folder's SQLite file."""
    url = url if url is not None else os.environ.get(DB_ENV) or None
    pg = url if url and is_postgres(url) else ""
    key = (os.getpid(), Path(data_dir).expanduser().resolve(), pg)
    with _WATCHERS_LOCK:
        w = _WATCHERS.get(key)
        if w is None:
            w = _WATCHERS[key] = Watcher(source_for(key[1], pg or None)).start()
        return w
