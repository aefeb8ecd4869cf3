"""The library on a PostgreSQL server: its URL, its connections and its dialect of the SQL.

The store's SQL is written once, in the portable subset SQLite and PostgreSQL share, with
``?`` placeholders (`roads_app.store.connection`). `PgConnection` gives a psycopg 3
connection the few methods the store uses of a ``sqlite3`` connection (``execute``,
``executemany``), turning ``?`` into psycopg's ``%s``; `for_postgresql` turns the
migrations' few SQLite words into PostgreSQL's. So one schema, one set of migrations and
one set of queries serve both databases, and neither can drift.

A URL's password is never shown: `shown` is the URL without it, used in every message,
log line and bug log. psycopg is imported only when a PostgreSQL URL is opened.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from roads_app.errors import StorageError, quote, shown_path, url_passwords, url_without_password
from roads_app.messages import Message

if TYPE_CHECKING:
    import psycopg

SCHEMES = ("postgresql", "postgres")
CHANNEL = "roads_app_shoes"
"""The ``NOTIFY`` channel: every change of a shoe sends ``"<shoe id> <version>"`` on it,
in the transaction that made the change (delivered when it commits)."""
TOKENS_NEWS = "!tokens"
"""What a revoke says on `CHANNEL` (and what the watcher tells its followers: never a
shoe id): the keys that hold changed, so every process drops what it trusted."""
WRITE_LOCK = 0x524F4144
"""The advisory lock every write transaction takes first: writers queue as SQLite's
``BEGIN IMMEDIATE`` makes them, whichever replica they come from, so the version check
and the change it guards are never interleaved with another writer's."""


class Tally:
    """A count the store keeps for a server's ``/metrics`` to read (the store itself never
    imports a metrics library)."""

    def __init__(self) -> None:
        self._n = 0
        self._lock = threading.Lock()

    def add(self) -> None:
        with self._lock:
            self._n += 1

    @property
    def value(self) -> int:
        return self._n


RECONNECTS = Tally()
"""This process's store connections opened again after the server dropped them (it
restarted, the network broke); the change feed's listener counts its own
(`roads_app.store.watch.Watcher.reconnects`)."""

APPLICATION = "roads-app"
"""The ``settings`` row (key ``application``) that marks a database as roads-app's."""


def is_url(text: str) -> bool:
    """Whether ``--db``/``ROADS_APP_DB`` names a server (anything with ``://``)."""
    return "://" in text


def shown(url: str) -> str:
    """The URL as it may be printed: without its password (of the user part or of the
    query, ``?password=``, which libpq takes too), even when it is malformed.

    >>> shown("postgresql://roads:s3cret@db.local:5433/floor")
    'postgresql://roads@db.local:5433/floor'
    >>> shown("postgresql://roads@db/floor?password=s3cret&sslmode=require")
    'postgresql://roads@db/floor?sslmode=require'
    >>> shown("postgres://:pw@/x")
    'postgres://@/x'
    """
    if "://" not in url:
        return quote(url_without_password(url))
    return shown_path(url_without_password(url))


def check_url(url: str) -> str:
    """The URL, checked before the driver sees it (the driver's own complaint may quote
    the whole text, password included); StorageError in one line naming what is wrong."""

    def bad(why: Message) -> StorageError:
        form = "postgresql://user:password@host:port/dbname"
        return StorageError(Message("msg_db_url_bad", url=shown(url), why=why, form=form))

    scheme = url.partition("://")[0].lower()
    if scheme not in SCHEMES:  # no URL at all may be a key/value string with a password
        said = url_without_password(url).partition("://")[0]
        raise bad(Message("msg_dburl_scheme", want="postgresql", scheme=quote(said[:20])))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise bad(Message("msg_dburl_port")) from None
    if not parts.hostname:
        raise bad(Message("msg_dburl_host"))
    if port == 0:
        raise bad(Message("msg_dburl_port"))
    if not parts.path.strip("/"):
        raise bad(Message("msg_dburl_name"))
    if "/" in parts.path.strip("/"):
        raise bad(Message("msg_dburl_slash"))
    if parts.fragment:
        raise bad(Message("msg_dburl_fragment"))
    return url


def scrub(text: str, url: str) -> str:
    """A driver's text with the URL's passwords taken out (belt and braces: psycopg's
    connection errors name host and port, not the password)."""
    for secret in sorted(url_passwords(url), key=len, reverse=True):
        text = text.replace(secret, "***")
    return text


def _known_key(sql: str, params: Any) -> tuple[str, tuple[Any, ...]]:
    """A read's key among those known in advance: an array parameter (``= ANY(%s)``
    with a list) is keyed by its items, as lists cannot be keys."""
    return sql, tuple(tuple(p) if isinstance(p, list) else p for p in params)


@lru_cache(maxsize=512)
def pg_sql(sql: str) -> str:
    """A query of the store in psycopg's placeholders: ``?`` → ``%s``, ``%`` → ``%%``.

    The store's SQL holds no ``?`` or ``%`` in a string literal.

    >>> pg_sql("SELECT a FROM t WHERE b = ? AND c LIKE 'x%'")
    "SELECT a FROM t WHERE b = %s AND c LIKE 'x%%'"
    """
    return sql.replace("%", "%%").replace("?", "%s")


_DIALECT = (
    (
        re.compile(r"\bINTEGER PRIMARY KEY AUTOINCREMENT\b"),
        "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    ),
    (re.compile(r"\)\s*WITHOUT ROWID"), ")"),
    (re.compile(r"\bINTEGER\b"), "BIGINT"),  # SQLite's INTEGER is 64 bits
    (re.compile(r"\bREAL\b"), "DOUBLE PRECISION"),  # SQLite's REAL is 8 bytes
)


def for_postgresql(sql: str) -> str:
    """A migration's SQL in PostgreSQL's words (types of the same range, no ROWID clause).

    >>> for_postgresql("CREATE TABLE t (a INTEGER PRIMARY KEY AUTOINCREMENT, b REAL) WITHOUT ROWID")
    'CREATE TABLE t (a BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, b DOUBLE PRECISION)'
    """
    for pattern, words in _DIALECT:
        sql = pattern.sub(words, sql)
    return sql


_DEFERRED = ("INSERT", "UPDATE")

Read = tuple[str, tuple[Any, ...]]
"""A query of the store (``?`` placeholders) and its parameters."""


class Rows:
    """The rows of a read answered ahead (`PgConnection.begin`), read as a cursor's; or
    the answer of a held write, not sent yet: no rows, ``rowcount`` -1 (unknown)."""

    __slots__ = ("rowcount", "rows")
    description = None  # the columns are the query's, known to its caller

    def __init__(self, rows: list[tuple[Any, ...]], rowcount: int = -1) -> None:
        self.rows, self.rowcount = rows, rowcount

    def fetchone(self) -> tuple[Any, ...] | None:
        return self.rows[0] if self.rows else None

    def fetchall(self) -> list[tuple[Any, ...]]:
        return list(self.rows)

    def __iter__(self) -> Iterator[tuple[Any, ...]]:
        return iter(self.rows)


_HELD = Rows([])


class PgConnection:
    """A psycopg connection in autocommit mode, spoken to as the store speaks to sqlite3:
    ``execute``/``executemany`` with ``?`` placeholders, explicit ``BEGIN``/``COMMIT``.

    A write transaction is two round trips to the server when its caller knows what it
    will read first (an API append: the key's answer, the shoe's version and gate):

    * `begin` sends ``BEGIN``, the write lock and those reads together, pipelined; their
      answers are kept and given to the same queries when the change asks them, until
      the change writes (so a read never misses the change's own writes);
    * the INSERTs and UPDATEs, whose results no caller reads, are held and sent together,
      pipelined, before the next statement that answers (a SELECT not read ahead, a
      DELETE's row count) or with the change's NOTIFYs and the COMMIT (`commit`). A
      failure among them fails the transaction as it would have one statement earlier.

    A statement outside a transaction that finds the connection broken (the server
    restarted since) is sent again once on a new connection: nothing of it had run. Inside
    a transaction the failure stands (the change is refused whole and may be retried).
    """

    __slots__ = ("_lost", "held", "known", "lock_timeout_s", "raw", "url")

    def __init__(self, url: str, lock_timeout_s: float) -> None:
        import psycopg

        self.url, self.lock_timeout_s = url, lock_timeout_s
        self._lost = psycopg.OperationalError
        self.held: list[tuple[bool, str, Any]] | None = None
        self.known: dict[Read, list[tuple[Any, ...]]] = {}
        self.raw = self._open()

    def _open(self) -> psycopg.Connection[Any]:
        import psycopg

        raw = psycopg.connect(
            self.url, autocommit=True, connect_timeout=5, application_name="roads-app"
        )
        raw.execute(f"SET lock_timeout = {int(self.lock_timeout_s * 1000)}")
        return raw

    def _again(self, send: Any) -> Any:
        idle = self.raw.info.transaction_status == 0  # IDLE: no transaction under way
        try:
            return send()
        except self._lost:
            if not (idle and self.raw.broken):
                raise
            self.raw.close()
            self.raw = self._open()
            RECONNECTS.add()
            return send()

    def _send_held(self, tail: tuple[tuple[str, Any], ...] = ()) -> None:
        held, self.held = self.held or [], [] if self.held is not None else None
        if not held and not tail:
            return
        with self.raw.pipeline():
            for many, sql, params in held:
                if many:
                    self.raw.cursor().executemany(sql, params)
                else:
                    self.raw.execute(sql, params)
            for sql, params in tail:
                self.raw.execute(sql.encode() if params is None else sql, params)  # type: ignore[arg-type]

    def execute(self, sql: str, params: Any = ()) -> Rows | psycopg.Cursor[Any]:
        if self.held is not None:
            if self.known:
                rows = self.known.get(_known_key(sql, params))
                if rows is not None:
                    return Rows(rows, len(rows))
                if sql.lstrip()[:6].upper() != "SELECT":
                    self.known = {}  # the change writes: later reads must see it
            if sql.lstrip()[:6].upper() in _DEFERRED:
                self.held.append((False, pg_sql(sql), params))
                return _HELD  # its result is known once it is sent
            self._send_held()
        return self._again(lambda: self.raw.execute(pg_sql(sql), params))

    def executemany(self, sql: str, rows: Any) -> psycopg.Cursor[Any] | None:
        if self.held is not None:
            self.known = {}
            self.held.append((True, pg_sql(sql), list(rows)))
            return None
        cur = self.raw.cursor()
        cur.executemany(pg_sql(sql), rows)  # type: ignore[arg-type]
        return cur

    def copy_csv(self, table: str, columns: Sequence[str], chunks: Iterable[bytes]) -> None:
        """Rows into ``table`` by ``COPY ... FROM STDIN`` (CSV), after the held
        statements: an import's thousands of rows without a statement each."""
        self._send_held()
        sql = f"COPY {table} ({', '.join(columns)}) FROM STDIN (FORMAT csv)"
        with self.raw.cursor().copy(sql.encode()) as copy:  # type: ignore[arg-type]
            for chunk in chunks:
                copy.write(chunk)

    def begin(self, lock: int, ahead: Sequence[Read] = ()) -> None:
        """``BEGIN``, the write lock and the reads ``ahead`` in one round trip; INSERTs
        and UPDATEs held after. The reads run once the lock is held, so they see what
        the last writer committed, as the same queries asked later would."""
        reads = list({_known_key(sql, params): (sql, params) for sql, params in ahead}.items())

        def send() -> dict[Read, list[tuple[Any, ...]]]:
            if not reads:
                self.raw.execute(f"BEGIN; SELECT pg_advisory_xact_lock({int(lock)})".encode())  # type: ignore[arg-type]
                return {}
            with self.raw.pipeline():
                self.raw.execute(b"BEGIN")  # type: ignore[arg-type]
                self.raw.execute(f"SELECT pg_advisory_xact_lock({int(lock)})".encode())  # type: ignore[arg-type]
                cursors = [self.raw.execute(pg_sql(sql), params) for _, (sql, params) in reads]
            return {key: cur.fetchall() for (key, _), cur in zip(reads, cursors, strict=True)}

        self.known = self._again(send)
        self.held = []

    def commit(self, notes: dict[str, int]) -> None:
        """The held statements, the change's notifications and ``COMMIT``, in one round
        trip; a notification is sent only if the COMMIT succeeds."""
        tail = tuple(
            ("SELECT pg_notify(%s, %s)", (CHANNEL, f"{shoe} {version}"))
            for shoe, version in notes.items()
        )
        if len(notes) > 1:  # (an import's thousands of new shoes: one statement)
            payloads = [f"{shoe} {version}" for shoe, version in notes.items()]
            tail = (("SELECT pg_notify(%s, n) FROM unnest(%s::text[]) AS n", (CHANNEL, payloads)),)
        try:
            self._send_held((*tail, ("COMMIT", None)))
        finally:
            self.held, self.known = None, {}

    def rollback(self) -> None:
        self.held, self.known = None, {}
        if not self.raw.closed:
            self.raw.execute(b"ROLLBACK")  # type: ignore[arg-type]

    def script(self, sql: str) -> None:
        """Statements without parameters, sent in one round trip (``BEGIN; ...``)."""
        self._again(lambda: self.raw.execute(sql.encode()))  # type: ignore[arg-type]

    @property
    def usable(self) -> bool:
        return not (self.raw.closed or self.raw.broken)

    def close(self) -> None:
        self.raw.close()


def connect(url: str, lock_timeout_s: float) -> PgConnection:
    """A new connection (autocommit: the store says BEGIN and COMMIT itself); a writer
    waits at most ``lock_timeout_s`` for another, like SQLite's busy timeout."""
    return PgConnection(url, lock_timeout_s)


def errors() -> tuple[type[BaseException], ...]:
    import psycopg

    return (psycopg.Error,)


def translate(e: BaseException, url: str, doing: str, busy_s: float) -> StorageError:
    """A psycopg error as one line naming the database (without its password)."""
    import psycopg
    from psycopg import errors as pe

    where = shown(url)
    lines = str(e).strip().splitlines()
    text = scrub(lines[0][:200] if lines else type(e).__name__, url)
    low = text.lower()
    if isinstance(e, pe.LockNotAvailable | pe.SerializationFailure | pe.DeadlockDetected):
        return StorageError(Message("msg_db_busy", path=where, seconds=f"{busy_s:g}"))
    if "password authentication failed" in low or "no password supplied" in low:
        return StorageError(Message("msg_db_login", url=where))
    if "does not exist" in low and "database" in low:
        return StorageError(Message("msg_db_missing", url=where))
    if isinstance(e, pe.InsufficientPrivilege):
        return StorageError(Message("msg_db_denied", url=where, doing=doing, why=text))
    if isinstance(e, psycopg.OperationalError | psycopg.InterfaceError):
        why = text.split("failed:")[-1].strip().removeprefix("FATAL:").strip() or text
        return StorageError(Message("msg_db_unreachable", url=where, why=why[:120]))
    return StorageError(f"{where}: {text}; nothing was changed")
