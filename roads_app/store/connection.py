"""The database's connection and schema: one connection per thread, one transaction per
change, forward migrations.

* WAL mode (readers never wait for the writer), foreign keys on, ``synchronous=NORMAL``:
  in WAL mode a committed change survives any crash of the program (``kill -9``
  included, tested); only a power cut or kernel crash can lose the last commits, never
  corrupt the file. FULL adds an fsync to every result entered (7 ms median measured on
  this project's machine against 1.4 ms), which a key press cannot afford; set
  ``ROADS_APP_SYNC=FULL`` where power-cut durability matters more.
* Writers take the write lock up front (``BEGIN IMMEDIATE``) and wait at most
  `BUSY_TIMEOUT_S` for another writer; past that the change is refused in one line.

The tables' parts (`roads_app.store.shoes`, ``rounds``, ``bets``, ``history``, ``feed``)
each take this `Database` and write only inside its `Database.write`, so a change that
touches several of them is still one transaction.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

import polars as pl

from roads_app.errors import RoadsAppError, StorageError, shown_path
from roads_app.messages import Message
from roads_app.store import pg

DB_NAME = "roads.db"
DB_ENV = "ROADS_APP_DB"
"""The environment variable naming the library's database when ``--db`` is not given."""
APPLICATION_ID = 0x524F4144  # "ROAD": marks a roads-app database (PRAGMA application_id)
BUSY_TIMEOUT_S = 5.0
SYNCHRONOUS = os.environ.get("ROADS_APP_SYNC", "NORMAL").upper()
if SYNCHRONOUS not in ("NORMAL", "FULL", "EXTRA"):
    SYNCHRONOUS = "NORMAL"


_WRITERS: dict[str, threading.Lock] = {}
_WRITERS_GUARD = threading.Lock()


def _writer(path: str) -> threading.Lock:
    """This process's lock for writing the SQLite file at ``path`` (its real path).

    Why: SQLite's own wait for its write lock (``busy_timeout``) sleeps and tries
    again, sleeping longer each time (1, 2, 5, 10, 15, 20, 25 ms...), so a writer that
    came a moment after another slept up to 25 ms though the lock was free again in two:
    the API's appends' tail with many followers. Writers of one process queue here and
    are woken at once; SQLite's wait is left for other processes' writers."""
    with _WRITERS_GUARD:
        lock = _WRITERS.get(path)
        if lock is None:
            lock = _WRITERS[path] = threading.Lock()
        return lock


def _forget_writers() -> None:
    """In a forked child, locks held by the parent's other threads would never be freed."""
    global _WRITERS_GUARD
    _WRITERS_GUARD = threading.Lock()
    _WRITERS.clear()


os.register_at_fork(after_in_child=_forget_writers)


class Cursor(Protocol):
    """What the store reads of a statement's result (``sqlite3.Cursor``, psycopg's
    cursor, or `pg.Rows`: a read answered ahead, or a held write's empty answer)."""

    @property
    def rowcount(self) -> int: ...

    @property
    def description(self) -> Any: ...

    def fetchone(self) -> Any: ...

    def fetchall(self) -> list[Any]: ...

    def __iter__(self) -> Iterator[Any]: ...


class Connection(Protocol):
    """What the store asks of a connection: the calls ``sqlite3.Connection`` and
    `pg.PgConnection` share (``?`` placeholders on both). Every part of the store and
    every ``*_in`` method takes one, whichever database it is on."""

    def execute(self, sql: str, params: Any = ..., /) -> Cursor: ...

    def executemany(self, sql: str, rows: Any, /) -> Any: ...


# --- schema and forward migrations --------------------------------------------------------

_ROUNDS_TABLE = """
        CREATE TABLE {name} (
            shoe           TEXT NOT NULL REFERENCES shoes (id) ON DELETE CASCADE,
            round          INTEGER NOT NULL CHECK (round >= 1),
            winner         TEXT NOT NULL CHECK ({winner}),
            player_points  INTEGER CHECK (player_points BETWEEN 0 AND 9),
            banker_points  INTEGER CHECK (banker_points BETWEEN 0 AND 9),
            player_pair    INTEGER,
            banker_pair    INTEGER,
            player_natural INTEGER,
            banker_natural INTEGER,
            player_cards   TEXT,               -- card codes in deal order, space separated
            banker_cards   TEXT,
            PRIMARY KEY (shoe, round)
        ) WITHOUT ROWID;
"""
"""The ``rounds`` table, laid out once: migration 1 made it, migration 8 copied it
with the winner's check reworded."""

WINNER_RULE = "winner = 'B' OR winner = 'P' OR winner = 'T'"
"""A round's winner is one of the three letters: three comparisons, evaluated in place
(``IN (a list)`` had SQLite build a lookup table for every row inserted)."""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    (
        "shoes, rounds, bets and the history of every change",
        """
        CREATE TABLE shoes (
            id        TEXT PRIMARY KEY,
            name      TEXT NOT NULL,
            source    TEXT NOT NULL,
            rules     TEXT NOT NULL,           -- the rules table the shoe is played at
            decks     INTEGER NOT NULL CHECK (decks BETWEEN 1 AND 8),
            seed      INTEGER,
            notes     TEXT NOT NULL DEFAULT '',
            burn_card TEXT,
            cut       INTEGER,
            created   TEXT NOT NULL,
            updated   TEXT NOT NULL,
            version   INTEGER NOT NULL,
            rounds    INTEGER NOT NULL DEFAULT 0,  -- count, kept with every change
            deleted   TEXT                     -- in the trash since (NULL: in the library)
        );
        CREATE INDEX shoes_updated ON shoes (updated);
        """
        + _ROUNDS_TABLE.format(name="rounds", winner="winner IN ('B', 'P', 'T')")
        + """
        CREATE TABLE bets (
            shoe   TEXT NOT NULL REFERENCES shoes (id) ON DELETE CASCADE,
            kind   TEXT NOT NULL CHECK (kind IN ('bets', 'replay-bets')),
            id     INTEGER NOT NULL,
            round  INTEGER NOT NULL,
            bet    TEXT NOT NULL,
            stake  REAL NOT NULL CHECK (stake > 0),
            voided INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (shoe, kind, id)
        ) WITHOUT ROWID;
        CREATE TABLE history (
            seq     INTEGER PRIMARY KEY AUTOINCREMENT,
            shoe    TEXT NOT NULL,             -- no foreign key: history outlives a purge
            at      TEXT NOT NULL,
            action  TEXT NOT NULL,
            version INTEGER NOT NULL,
            rounds  INTEGER NOT NULL,          -- the shoe's round count after the change
            round   INTEGER,                   -- the round concerned, if one
            detail  TEXT                       -- JSON: the round's content, old/new name...
        );
        CREATE INDEX history_shoe ON history (shoe, version);
        CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        """,
    ),
    (
        "the live feed: API tokens (hashes only) and requests answered once",
        """
        CREATE TABLE api_tokens (
            hash    TEXT PRIMARY KEY,   -- sha256 of the token (the token itself is never kept)
            role    TEXT NOT NULL CHECK (role IN ('operator', 'viewer')),
            created TEXT NOT NULL
        );
        CREATE TABLE api_requests (
            key         TEXT PRIMARY KEY,      -- the client's Idempotency-Key
            fingerprint TEXT NOT NULL,         -- what was asked, so a reused key is noticed
            shoe        TEXT,
            status      INTEGER NOT NULL,      -- the answer given, given again on a retry
            body        TEXT NOT NULL,
            at          TEXT NOT NULL
        );
        CREATE INDEX api_requests_at ON api_requests (at);
        """,
    ),
    (
        "bets remember the chip action that placed them (a 2-Way's parts share one)",
        """
        -- NULL: a bet placed before this, its own action
        ALTER TABLE bets ADD COLUMN placement INTEGER;
        """,
    ),
    (
        "a shoe can be ended (the cut card's last hand, End shoe, the API): read-only after",
        """
        -- NULL: still being played, else when it ended
        ALTER TABLE shoes ADD COLUMN ended TEXT;
        """,
    ),
    (
        "a shoe taken from a file of many shoes knows which (an import run again adds the rest)",
        """
        -- a digest of the shoe's number in the file, its rounds and the file's metadata
        -- (`library.origins`), or NULL: not from a file of many shoes
        ALTER TABLE shoes ADD COLUMN origin TEXT;
        CREATE UNIQUE INDEX shoes_origin ON shoes (origin);
        """,
    ),
    (
        "screen keys: read-only keys of the display and the wall, kept until revoked",
        """
        CREATE TABLE screen_keys (
            hash       TEXT PRIMARY KEY,  -- sha256 of the key (the key itself is never kept)
            table_code TEXT,              -- the floor table it shows (NULL: any table)
            created    TEXT NOT NULL,
            revoked    TEXT               -- NULL: holds, else when it was revoked
        );
        """,
    ),
    (
        "floor tables: a place on the floor deals shoe after shoe; a shoe may belong to one",
        """
        CREATE TABLE floor_tables (
            code     TEXT PRIMARY KEY,         -- B07: letters, digits, '-' (game.floor)
            name     TEXT NOT NULL,
            rules    TEXT NOT NULL,            -- the payout rule set it plays
            main_min REAL NOT NULL,
            main_max REAL NOT NULL,
            tie_min  REAL,                     -- NULL: the table sets no tie limits
            tie_max  REAL,
            pair_min REAL,
            pair_max REAL,
            position INTEGER NOT NULL,         -- its place in the floor's order
            state    TEXT NOT NULL CHECK (state IN ('open', 'shuffling', 'closed')),
            shoe     TEXT,                     -- its current (or last) shoe (no key: a purge)
            version  INTEGER NOT NULL,
            created  TEXT NOT NULL,
            updated  TEXT NOT NULL
        );
        -- NULL: a shoe of no table (entered by hand, imported), as before
        ALTER TABLE shoes ADD COLUMN floor_table TEXT REFERENCES floor_tables (code);
        ALTER TABLE shoes ADD COLUMN floor_day TEXT;       -- the day it started (YYYY-MM-DD)
        ALTER TABLE shoes ADD COLUMN floor_number INTEGER; -- its number of that day
        CREATE INDEX shoes_floor ON shoes (floor_table, floor_day, floor_number);
        """,
    ),
    (
        "a round's winner checked by three comparisons, not IN (a list): the same rule, cheaper",
        """
        -- SQLite builds a list's lookup table again for every row a statement inserts:
        -- half the time of an import's round row (1.8 of 3.8 us measured). A check is
        -- changed by copying the table (its rows met the same rule already).
        """
        + _ROUNDS_TABLE.format(name="rounds_new", winner=WINNER_RULE)
        + """
        INSERT INTO rounds_new SELECT * FROM rounds;
        DROP TABLE rounds;
        ALTER TABLE rounds_new RENAME TO rounds;
        """,
    ),
)
"""Forward migrations, applied in order; their number is their place here (1-based).
On PostgreSQL each reads as `pg.for_postgresql` words it, but where `PG_MIGRATIONS`
gives the server its own."""

SCHEMA_VERSION = len(MIGRATIONS)

PG_MIGRATIONS: dict[int, str] = {
    8: """
    -- the same rule in the same words, the table left in place: a server changes a check
    -- by name, and the rows already kept met the same rule (NOT VALID: not read again)
    ALTER TABLE rounds DROP CONSTRAINT rounds_winner_check;
    ALTER TABLE rounds ADD CONSTRAINT rounds_winner_check CHECK ("""
    + WINNER_RULE
    + """) NOT VALID;
    """,
}
"""Migrations a server takes in words of its own (by number): copying a table of
millions of rounds to change one check is SQLite's way, not PostgreSQL's."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


def db_path(data_dir: Path | str) -> Path:
    return Path(data_dir) / DB_NAME


def translate(e: BaseException, where: Path | str, doing: str = "change") -> StorageError:
    """An sqlite3/OS error as one line naming the database; callers raise it ``from None``.
    ``where``: the file, or a server's URL (`roads_app.store.pg.shown`, no password)."""
    text = _first_line(e).lower()
    name = str(where)
    if isinstance(e, StorageError):
        return e
    if "locked" in text or "busy" in text:
        return StorageError(
            f"{name}: the database is busy (another program held it longer than "
            f"{BUSY_TIMEOUT_S:g} s); nothing was changed, try again"
        )
    if (
        "disk is full" in text
        or "database or disk is full" in text
        or (isinstance(e, OSError) and e.errno == 28)
    ):
        return StorageError(f"{name}: the disk is full; nothing was changed")
    if (
        "readonly" in text
        or "read-only" in text
        or "unable to open" in text
        or (isinstance(e, PermissionError))
    ):
        return StorageError(
            f"{name}: cannot {doing} the database (read-only folder or file?): {_first_line(e)}"
        )
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StorageError(
            f"{name}: is not a readable roads-app database ({_first_line(e)}); it was left as it is"
        )
    return StorageError(f"{name}: {_first_line(e)}; nothing was changed")


INSERT_SLICE = 20_000
"""Rows a bulk insert turns into driver values (or CSV for ``COPY``) at a time."""


def insert_frame(c: Connection, table: str, frame: pl.DataFrame) -> None:
    """A frame's rows into ``table`` (its columns named as the table's, values in SQL
    form): ``COPY`` on a server, ``executemany`` on SQLite, a slice at a time, so
    memory is a slice's whatever the frame's size. Inside the caller's transaction."""
    if isinstance(c, pg.PgConnection):
        c.copy_csv(table, frame.columns, _csv_slices(frame))
        return
    sql = (
        f"INSERT INTO {table} ({', '.join(frame.columns)}) VALUES ({', '.join('?' * frame.width)})"
    )
    for i in range(0, frame.height, INSERT_SLICE):
        c.executemany(sql, frame.slice(i, INSERT_SLICE).rows())


def one_of(c: Connection, values: list[str]) -> tuple[str, Any]:
    """``column`` + this SQL and its one parameter: the column is one of ``values`` (a
    PostgreSQL array, a JSON array on SQLite), however many. A list of hundreds of
    parameters is a statement the server prepares once and plans for the table as it was
    then (empty, at an import's start): a scan a query, which took minutes a batch for a
    file of 200,000 shoes."""
    if isinstance(c, pg.PgConnection):
        return " = ANY(?)", values
    return " IN (SELECT value FROM json_each(?))", json.dumps(values)


STAGE = "import_stage"
"""The schema name a `staged` frame's database is attached under (SQLite)."""


class Staged:
    """A frame made ready, before the write that takes it, to go into a table: on
    SQLite written through ADBC's Arrow ingest (in C, column by column) into a database
    file of its own attached to this thread's connection, so the write copies it in with
    one ``INSERT ... SELECT``; binding each row's values from Python, as ``executemany``
    does, took two thirds of a big import's inserting. On a server the write sends it
    with ``COPY`` (`insert_frame`)."""

    def __init__(self, frame: pl.DataFrame, attached: bool) -> None:
        self.frame = frame
        self.attached = attached

    def insert(self, c: Connection, table: str, key: str, leaving_out: list[str]) -> None:
        """The staged rows into ``table`` (its columns named as the frame's), but those
        whose ``key`` is among ``leaving_out``; inside the caller's transaction."""
        if not self.attached:
            insert_frame(c, table, self.frame.filter(~pl.col(key).is_in(leaving_out)))
            return
        cols = ", ".join(self.frame.columns)
        among, param = one_of(c, leaving_out)
        c.execute(
            f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {STAGE}.staged "
            f"WHERE {key} NOT{among} ORDER BY rowid",
            (param,),
        )
        orphan = c.execute(  # the foreign key, checked a shoe at a time (`staged`)
            f"SELECT {key} FROM (SELECT DISTINCT {key} FROM {STAGE}.staged) "
            f"WHERE {key} NOT{among} AND {key} NOT IN (SELECT id FROM main.shoes) LIMIT 1",
            (param,),
        ).fetchone()
        if orphan is not None:
            raise AssertionError(f"staged rows of {table} for a shoe not in the library")


STAGING = "the import's staging file (in the temporary folder)"
"""How a refusal to write a staged batch names where it happened (never its path)."""


def staging_error(e: BaseException, folder: Path | None = None) -> StorageError:
    """A failure to write a staged batch (the temporary folder full, over a size limit,
    read-only) as one line, ``folder`` (the staging folder) left out of it; callers raise
    it ``from None``."""
    text = _first_line(e)
    if not isinstance(e, OSError):  # ADBC's "INTERNAL: failed to execute: <SQLite's words>"
        text = text.rsplit(": ", 1)[-1]
    if folder is not None:
        text = text.replace(str(folder), "...")
    if "full" in text.lower() or (isinstance(e, OSError) and e.errno == 28):
        return StorageError(f"{STAGING}: the disk is full; nothing was changed")
    return StorageError(f"{STAGING}: {text}; nothing was changed")


def stage_frame(frame: pl.DataFrame, path: Path) -> None:
    """``frame`` written into a new SQLite file at ``path`` as its table ``staged``,
    through ADBC's Arrow ingest (in C, the GIL let go): any thread, no connection of a
    library's. ADBC's own classes, not its DB-API layer, which loads pyarrow (90 MB).
    A write refused (`staging_error`) is one line, nothing of the library changed."""
    import adbc_driver_manager
    import adbc_driver_sqlite
    from adbc_driver_manager import AdbcConnection, AdbcStatement, StatementOptions

    try:
        with (
            adbc_driver_sqlite.connect(str(path)) as stage,
            AdbcConnection(stage) as ingest,
            AdbcStatement(ingest) as statement,
        ):
            statement.set_options(
                **{
                    StatementOptions.INGEST_TARGET_TABLE.value: "staged",
                    StatementOptions.INGEST_MODE.value: "adbc.ingest.mode.create",
                }
            )
            statement.bind_stream(frame.__arrow_c_stream__())
            statement.execute_update()  # autocommitted
    except (adbc_driver_manager.Error, OSError) as e:
        raise staging_error(e, path.parent) from None


@contextlib.contextmanager
def staged(db: Database, frame: pl.DataFrame, path: Path | None) -> Iterator[Staged]:
    """``frame`` staged (`Staged`) for a write of ``db`` that follows: on SQLite the
    file `stage_frame` wrote it to (``path``; an import stages its next batch on its
    make-ahead thread while this one is written), attached outside any transaction
    (SQLite attaches only between them), detached and gone afterwards; a server takes
    the frame itself (``path`` None). Meanwhile the connection's foreign keys are off
    (set only between transactions): a row's look-up of its shoe took a third of the
    copy; `Staged.insert` checks them a shoe at a time instead."""
    if db.url is not None:
        yield Staged(frame, attached=False)
        return
    if path is None:
        raise AssertionError("a batch for SQLite is staged first (stage_frame)")
    con = db.con
    try:
        con.execute(f"ATTACH DATABASE ? AS {STAGE}", (str(path),))
        con.execute("PRAGMA foreign_keys = OFF")
    except sqlite3.Error as e:
        path.unlink(missing_ok=True)
        raise translate(e, db.path, "stage") from None
    try:
        yield Staged(frame, attached=True)
    finally:
        with contextlib.suppress(sqlite3.Error):
            con.execute(f"DETACH DATABASE {STAGE}")
        path.unlink(missing_ok=True)
        con.execute("PRAGMA foreign_keys = ON")
        if con.execute("PRAGMA foreign_keys").fetchone() != (1,):
            raise AssertionError("foreign keys left off after a staged write")


BULK_CACHE_KB = 65_536
"""SQLite's page cache during a bulk insert (its default is 2 MB): the index pages an
import's batch touches stay in memory rather than being read again and again."""


@contextlib.contextmanager
def bulk_cache(c: Connection) -> Iterator[None]:
    """A bigger page cache on a SQLite connection for `insert_frame`s of a big batch,
    back as it was after them; a server keeps its own buffers."""
    if isinstance(c, pg.PgConnection):
        yield
        return
    before = int(c.execute("PRAGMA cache_size").fetchone()[0])
    c.execute(f"PRAGMA cache_size = -{BULK_CACHE_KB}")
    try:
        yield
    finally:
        c.execute(f"PRAGMA cache_size = {before}")


def _csv_slices(frame: pl.DataFrame) -> Iterator[bytes]:
    """The frame as CSV a slice at a time (an empty text quoted, NULL as nothing)."""
    for i in range(0, frame.height, INSERT_SLICE):
        buf = io.BytesIO()
        frame.slice(i, INSERT_SLICE).write_csv(buf, include_header=False)
        yield buf.getvalue()


def _server(con: Connection) -> pg.PgConnection:
    """A connection the caller knows is a server's (its database has a ``url``)."""
    return cast(pg.PgConnection, con)


IDLE_CONNECTIONS = 8
"""Server connections a process keeps open for its next threads when threads end."""


class _Held:
    """One thread's connection, closed (or, a server's, parked) when the thread ends.

    A connection and its statement cache refer to each other, so a dropped one waits
    for a full garbage collection to close: an API server whose worker threads came
    and went kept 147 open (294 file descriptors). Held in the thread's local storage,
    this small object goes with the thread (no cycle) and closes the connection then,
    in that same thread. ``park`` (a server's connections) may keep it for another
    thread instead (`Database._park`).
    """

    __slots__ = ("con", "park", "pid")

    def __init__(self, con: Any, park: Callable[[Any], bool] | None = None) -> None:
        self.con = con
        self.park = park
        self.pid = os.getpid()

    def close(self, *, park: bool = False) -> None:
        if self.pid == os.getpid():  # a forked child leaves its parent's connection be
            with contextlib.suppress(Exception):
                if not (park and self.park is not None and self.park(self.con)):
                    self.con.close()

    def __del__(self) -> None:
        self.close(park=True)


def db_url(url: str | None = None) -> str | None:
    """The server the library is on: ``url`` (``--db``), else ``ROADS_APP_DB``; None
    (or empty): the SQLite file in the data folder. A URL is checked here, before any
    connection (`roads_app.store.pg.check_url`)."""
    url = url or os.environ.get(DB_ENV) or None
    return None if url is None else pg.check_url(url)


class Database:
    """The database of one data folder, or of a PostgreSQL server's database (``url``):
    its connections, transactions and schema.

    ``on_create`` runs inside the transaction that creates a new database (the old
    files' import, the sample shoes), so a new database is made whole or not at all.
    ``backend`` is ``sqlite`` or ``postgresql``; ``url`` the server's URL (password
    included: for connections only, never shown), ``where`` what messages call it.
    """

    def __init__(
        self,
        data_dir: Path | str,
        on_create: Callable[[Connection], object] | None = None,
        url: str | None = None,
    ) -> None:
        self.data_dir = Path(data_dir)
        self.path = db_path(self.data_dir)
        self.url = url
        self.backend = "sqlite" if url is None else "postgresql"
        self.where: Path | str = self.path if url is None else pg.shown(url)
        self.errors: tuple[type[BaseException], ...] = (sqlite3.Error,)
        self._local = threading.local()
        self._idle: list[tuple[int, Any]] = []  # (pid, server connection) for new threads
        self._idle_lock = threading.Lock()
        if url is not None:
            self.errors = (sqlite3.Error, *pg.errors())
            self._init_pg(on_create)
            return
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageError(
                Message(
                    "msg_data_folder_create", folder=shown_path(self.data_dir), error=e.strerror
                )
            ) from None
        self._refuse_links()
        self._real = os.path.realpath(self.path)
        self._init(on_create)

    @property
    def place(self) -> Path | str:
        """Where the library is, as messages name it: the data folder, or the server's
        database (no password)."""
        return self.data_dir if self.url is None else self.where

    def _refuse_links(self) -> None:
        """The database and its WAL, SHM and journal files are plain files in the data
        folder: a symlink would have SQLite write outside it, so it is refused untouched."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = self.path.with_name(self.path.name + suffix)
            if p.is_symlink():
                raise StorageError(Message("msg_db_symlink", path=shown_path(p)))

    def translate(self, e: BaseException, doing: str = "change") -> StorageError:
        """An error of this database's driver as one line naming it (no password)."""
        if self.url is not None and not isinstance(e, sqlite3.Error | OSError | StorageError):
            return pg.translate(e, self.url, doing, BUSY_TIMEOUT_S)
        return translate(e, self.where, doing)

    # connections

    def _connect(self) -> Connection:
        if self.url is not None:
            with self._idle_lock:
                while self._idle:
                    pid, con = self._idle.pop()
                    if pid == os.getpid() and con.usable:
                        return cast(Connection, con)
            try:
                return pg.connect(self.url, BUSY_TIMEOUT_S)
            except self.errors as e:
                raise self.translate(e, "open") from None
        try:
            con = sqlite3.connect(
                self.path,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=True,
                cached_statements=64,
            )
            con.execute("PRAGMA foreign_keys = ON")
            con.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        except sqlite3.Error as e:
            raise translate(e, self.path, "open") from None
        return con

    @property
    def con(self) -> Connection:
        """This thread's connection (a forked child opens its own), closed when the
        thread ends (`_Held`). A server connection that broke (the server restarted) is
        replaced by a new one."""
        held: _Held | None = getattr(self._local, "held", None)
        lost = held is not None and self.url is not None and not held.con.usable
        if held is None or held.pid != os.getpid() or lost:
            if lost:
                pg.RECONNECTS.add()
            park = self._park if self.url is not None else None
            held = self._local.held = _Held(self._connect(), park)
        return held.con

    def _park(self, con: pg.PgConnection) -> bool:
        """Keep a server connection whose thread ended for the next new thread (the
        dashboard runs each rerun of a page in a new thread: a new connection, its
        login and a server process, cost about 200 round trips). Only an idle, usable
        one, and at most `IDLE_CONNECTIONS`; whether it was kept."""
        if not con.usable or con.raw.info.transaction_status != 0:  # 0: IDLE
            return False
        with self._idle_lock:
            if len(self._idle) >= IDLE_CONNECTIONS:
                return False
            self._idle.append((os.getpid(), con))
            return True

    def close(self) -> None:
        """Close this thread's connection now, and those kept for new threads (the next
        use opens a new one)."""
        held: _Held | None = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            held.close()
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for pid, con in idle:
            if pid == os.getpid():
                with contextlib.suppress(Exception):
                    con.close()

    def _begin(self, doing: str, ahead: Sequence[pg.Read]) -> Connection:
        """This thread's connection with a write transaction begun: SQLite takes its write
        lock up front; PostgreSQL takes the one advisory write lock (`pg.WRITE_LOCK`) and
        reads ``ahead`` in the same round trip. A server connection found broken at the
        start is opened again, once."""
        for attempt in (0, 1):
            con = self.con
            try:
                if self.url is None:
                    con.execute("BEGIN IMMEDIATE")
                else:
                    _server(con).begin(pg.WRITE_LOCK, ahead)
                    self._local.notes = {}
                return con
            except self.errors as e:
                if self.url is not None and attempt == 0 and not _server(con).usable:
                    self.close()
                    pg.RECONNECTS.add()
                    continue
                if self.url is not None:
                    with contextlib.suppress(Exception):
                        _server(con).rollback()
                raise self.translate(e, doing) from None
        raise AssertionError("unreachable")

    @contextlib.contextmanager
    def write(self, doing: str = "change", ahead: Sequence[pg.Read] = ()) -> Iterator[Connection]:
        """One write transaction, lock taken up front; any failure rolls all of it back.

        ``ahead``: the reads the change makes first (queries and parameters as it will
        ask them), sent with the lock on a server so they cost no round trip of their
        own; SQLite, in the same process, has no round trips to save and ignores them.
        SQLite's writers of this process first queue on its lock (`_writer`)."""
        if self.url is not None:
            yield from self._written(doing, ahead)
            return
        lock = _writer(self._real)
        if not lock.acquire(timeout=BUSY_TIMEOUT_S):
            raise self.translate(sqlite3.OperationalError("database is locked"), doing)
        try:
            yield from self._written(doing, ahead)
        finally:
            lock.release()

    def _written(self, doing: str, ahead: Sequence[pg.Read]) -> Iterator[Connection]:
        con = self._begin(doing, ahead)
        try:
            yield con
            if self.url is None:
                con.execute("COMMIT")
            else:  # the held writes and the notifications ride with the COMMIT
                _server(con).commit(self._local.notes)
        except BaseException as e:
            with contextlib.suppress(Exception):
                _server(con).rollback() if self.url is not None else con.execute("ROLLBACK")
            if isinstance(e, (*self.errors, OSError)) and not isinstance(e, RoadsAppError):
                raise self.translate(e, doing) from None
            raise

    @contextlib.contextmanager
    def read(self) -> Iterator[Connection]:
        """One read snapshot (several SELECTs see the same version)."""
        con = self.con
        try:
            con.execute(
                "BEGIN" if self.url is None else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
            )
        except self.errors as e:
            if self.url is not None and not _server(con).usable:
                self.close()
                pg.RECONNECTS.add()  # the next read opens a new one
            raise self.translate(e, "read") from None
        try:
            yield con
        except self.errors as e:
            raise self.translate(e, "read") from None
        finally:
            with contextlib.suppress(Exception):
                con.execute("COMMIT")

    def notify(self, c: Connection, shoe_id: str, version: int) -> None:
        """Tell the change feed a shoe is at ``version`` now, inside the change's own
        transaction (sent when it commits, never when it rolls back). On PostgreSQL a
        ``NOTIFY`` on `pg.CHANNEL` with ``"<shoe id> <version>"``, one per shoe the change
        touched, at its last version; SQLite's followers watch the file's data version
        instead (`roads_app.store.watch`)."""
        if self.url is not None:  # sent with the COMMIT (`write`), the last version of each
            self._local.notes[shoe_id] = version

    # creating, recognising and migrating the database

    def _migrate(
        self,
        c: Connection,
        have: int,
        created: bool,
        on_create: Callable[[Connection], object] | None,
    ) -> None:
        """Apply the migrations after ``have``, in the caller's write transaction."""
        for n in range(have + 1, SCHEMA_VERSION + 1):
            description, sql = MIGRATIONS[n - 1]
            if self.url is not None:
                sql = PG_MIGRATIONS.get(n) or pg.for_postgresql(sql)
            for stmt in (s for s in sql.split(";") if s.strip()):
                c.execute(stmt)
            c.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (n, description, now()))
        if created and on_create is not None:
            on_create(c)

    def _init_pg(self, on_create: Callable[[Connection], object] | None) -> None:
        """Recognise, create or migrate the server's database, all in one transaction
        under the write lock (two replicas starting at once: one creates, one waits)."""
        with self.write("open") as c:
            tables = {
                r[0]
                for r in c.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = current_schema()"
                ).fetchall()
            }
            mine = (
                "settings" in tables
                and "schema_migrations" in tables
                and c.execute(
                    "SELECT 1 FROM settings WHERE key = 'application' AND value = ?",
                    (pg.APPLICATION,),
                ).fetchone()
                is not None
            )
            if tables and not mine:
                raise StorageError(
                    Message(
                        "msg_db_other_program",
                        path=self.where,
                        engine="PostgreSQL",
                        app="roads-app",
                        option="--db",
                    )
                )
            created = not tables
            have = 0
            if created:
                c.execute(
                    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                    "description TEXT NOT NULL, applied TEXT NOT NULL)"
                )
            else:
                have = int(
                    c.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[
                        0
                    ]
                )
            if have > SCHEMA_VERSION:
                raise StorageError(
                    Message(
                        "msg_db_newer",
                        path=self.where,
                        app="roads-app",
                        have=have,
                        knows=SCHEMA_VERSION,
                    )
                )
            self._migrate(c, have, created, on_create)
            if created:
                c.execute(
                    "INSERT INTO settings (key, value) VALUES ('application', ?)", (pg.APPLICATION,)
                )

    def _init(self, on_create: Callable[[Connection], object] | None) -> None:
        con = self.con
        try:
            app_id = con.execute("PRAGMA application_id").fetchone()[0]
            tables = con.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except sqlite3.Error as e:
            self.close()
            raise translate(e, self.path, "open") from None
        if app_id != APPLICATION_ID and tables:
            self.close()
            raise StorageError(
                Message(
                    "msg_db_other_program",
                    path=self.path,
                    engine="SQLite",
                    app="roads-app",
                    option="--data",
                )
            )
        try:
            if con.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                con.execute("PRAGMA journal_mode = WAL")
        except sqlite3.Error as e:
            self.close()
            raise translate(e, self.path, "open") from None
        created = False
        with self.write("create") as c:
            have = self._schema_version(c)
            if have > SCHEMA_VERSION:
                raise StorageError(
                    Message(
                        "msg_db_newer",
                        path=self.path,
                        app="roads-app",
                        have=have,
                        knows=SCHEMA_VERSION,
                    )
                )
            if have == 0:
                if c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise StorageError(Message("msg_db_no_schema", path=self.path))
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(
                    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                    "description TEXT NOT NULL, applied TEXT NOT NULL)"
                )
                created = True
            self._migrate(c, have, created, on_create)
        # WAL is a property of the file; set outside a transaction (no-op when it is already)

    @staticmethod
    def _schema_version(c: Connection) -> int:
        has = c.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
        ).fetchone()
        if not has:
            return 0
        return int(
            c.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchone()[0]
        )

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s answer (``ok`` when the file is sound); a server
        keeps its own pages sound, so ``ok`` when it answers."""
        if self.url is not None:
            self.con.execute("SELECT 1").fetchone()
            return "ok"
        return str(self.con.execute("PRAGMA integrity_check").fetchone()[0])
