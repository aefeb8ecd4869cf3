"""The library of shoes: one SQLite database, ``<data>/roads.db``, and nothing entered is lost.

Why a database and not a file per shoe: every change here is one transaction, so two
tabs, two servers on one folder, or a script next to a running server can never lose
or resurrect each other's changes, and a reader never sees half a write.

* WAL mode (readers never wait for the writer), foreign keys on, ``synchronous=NORMAL``:
  in WAL mode a committed change survives any crash of the program (``kill -9``
  included, tested); only a power cut or kernel crash can lose the last commits, never
  corrupt the file. FULL adds an fsync to every result entered (7 ms median measured on
  this project's machine against 1.4 ms), which a key press cannot afford; set
  ``ROADS_APP_SYNC=FULL`` where power-cut durability matters more.
* Writers take the write lock up front (``BEGIN IMMEDIATE``) and wait at most
  `BUSY_TIMEOUT_S` for another writer; past that the change is refused in one line.
* Every shoe carries a version number, bumped by each change. A checked change carries
  the version its caller read; it is refused (`StaleShoeError`) when the shoe's rounds
  changed since that version, or the shoe was deleted. A rename or a bet made meanwhile
  does not make a tab stale (the old file store's rule: only the rounds must match).
* Every change appends to ``history`` (when, what, the version it made, the round count
  after it), so an undone round can be brought back (`Store.redo`).
* A deleted shoe goes to the trash (``shoes.deleted``), from which it is restored, or
  purged by `Store.empty_trash` (final).
* A new database imports the ``*.parquet`` shoes (and ``*.bets.parquet`` bets) of the
  old file store found in the folder, in one transaction, leaving the files as they are.

Errors are `StorageError` lines naming the database; a failed change leaves it as it was.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from roads_app.bets.ledger import BETS_SCHEMA, KINDS, with_placement
from roads_app.errors import RoadsAppError, RoundError, StorageError, quote, shown_path

__all__ = ["Saved", "ShoeEndedError", "StaleShoeError", "StorageError", "Store", "forget_stores",
           "open_store"]  # fmt: skip
from roads_app.game.rounds import ROUNDS_SCHEMA, WINNER, ShoeMeta, check_name, empty_rounds
from roads_app.messages import Message
from roads_app.store.files import check_shoe_id

log = logging.getLogger(__name__)

DB_NAME = "roads.db"
APPLICATION_ID = 0x524F4144  # "ROAD": marks a roads-app database (PRAGMA application_id)
BUSY_TIMEOUT_S = 5.0
SYNCHRONOUS = os.environ.get("ROADS_APP_SYNC", "NORMAL").upper()
if SYNCHRONOUS not in ("NORMAL", "FULL", "EXTRA"):
    SYNCHRONOUS = "NORMAL"

ROUND_ACTIONS = (
    "created", "imported", "entered", "undone", "redone", "edited", "replaced", "voided",
    "ended",
)  # fmt: skip
"""History actions that change a shoe's rounds: only these make another tab stale."""

LIST_SCHEMA: pl.Schema = pl.Schema(
    {
        "id": pl.String,
        "name": pl.String,
        "created": pl.String,
        "updated": pl.String,
        "rounds": pl.Int64,
        "source": pl.String,
        "rules": pl.String,
        "decks": pl.Int64,
        "version": pl.Int64,
        "deleted": pl.String,
        "ended": pl.String,
        "modified": pl.Float64,
        "error": pl.String,
    }
)
"""`Store.list_shoes` columns. ``modified`` is ``updated`` as a Unix time; ``error`` is
always null (kept so callers written for the file store still filter on it)."""

HISTORY_SCHEMA: pl.Schema = pl.Schema(
    {
        "seq": pl.Int64,
        "at": pl.String,
        "action": pl.String,
        "version": pl.Int64,
        "rounds": pl.Int64,
        "round": pl.Int64,
        "detail": pl.String,
    }
)

# --- schema and forward migrations --------------------------------------------------------

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
        CREATE TABLE rounds (
            shoe           TEXT NOT NULL REFERENCES shoes (id) ON DELETE CASCADE,
            round          INTEGER NOT NULL CHECK (round >= 1),
            winner         TEXT NOT NULL CHECK (winner IN ('B', 'P', 'T')),
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
)
"""Forward migrations, applied in order; their number is their place here (1-based)."""

SCHEMA_VERSION = len(MIGRATIONS)

_ROUND_COLS = ROUNDS_SCHEMA.names()
_FLAG_COLS = ("player_pair", "banker_pair", "player_natural", "banker_natural")
_SQL_ROUNDS = f"SELECT {', '.join(_ROUND_COLS)} FROM rounds WHERE shoe = ? ORDER BY round"
_RAW_SCHEMA = {
    "round": pl.Int32,
    "winner": pl.String,
    "player_points": pl.Int8,
    "banker_points": pl.Int8,
    **{c: pl.Int8 for c in _FLAG_COLS},
    "player_cards": pl.String,
    "banker_cards": pl.String,
}
_META_COLS = ("id", "name", "created", "source", "decks", "seed", "rules", "notes",
              "burn_card", "cut")  # fmt: skip


class StaleShoeError(StorageError):
    """The shoe changed since the caller read it (another tab, server or the CLI wrote it)."""


class ShoeEndedError(StorageError):
    """The shoe has ended: its rounds and bets are read-only (`Store.end`)."""


class RequestKeyReused(StorageError):
    """An API Idempotency-Key sent again with a different request."""


@dataclass(frozen=True)
class Saved:
    """A shoe as read from the store: its rounds, metadata and the version they are at."""

    rounds: pl.DataFrame
    meta: ShoeMeta
    version: int
    ended: str | None = None
    """When the shoe ended (None: still being played)."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="microseconds")


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0][:200] if text else type(e).__name__


# --- rows <-> frames ------------------------------------------------------------------


def rows_of(frame: pl.DataFrame) -> list[tuple[Any, ...]]:
    """Rounds as SQL rows: cards joined by spaces, flags as 0/1.

    Rows are few per change (one per key press), where a Python loop costs microseconds
    and Polars expressions a millisecond; bulk imports go through the same small loop.
    """
    return [
        (
            r[0],
            str(r[1]),
            *r[2:4],
            *(None if f is None else int(f) for f in r[4:8]),
            None if r[8] is None else " ".join(r[8]),
            None if r[9] is None else " ".join(r[9]),
        )
        for r in frame.select(_ROUND_COLS).iter_rows()
    ]


def frame_of(rows: list[tuple[Any, ...]]) -> pl.DataFrame:
    """SQL rows back into the rounds frame (`ROUNDS_SCHEMA`), column-wise."""
    if not rows:
        return empty_rounds()
    raw = pl.DataFrame(rows, schema=_RAW_SCHEMA, orient="row")
    return raw.with_columns(
        pl.col("winner").cast(WINNER),
        *(pl.col(c).cast(pl.Boolean) for c in _FLAG_COLS),
        pl.col("player_cards").str.split(" "),
        pl.col("banker_cards").str.split(" "),
    )


def _row_json(frame: pl.DataFrame, i: int) -> str:
    return json.dumps(dict(zip(_ROUND_COLS, frame.row(i), strict=True)))


def _frame_from_json(texts: list[str]) -> pl.DataFrame:
    return pl.DataFrame([json.loads(t) for t in texts], schema=ROUNDS_SCHEMA, orient="row")


SEED_WRAP = 2**64
"""A seed runs to 2^64 - 1, SQLite's integers to 2^63 - 1: a seed of 2^63 or more is kept
as its two's-complement (negative) 64-bit value and read back exactly; seeds are never
negative, so a negative stored value means exactly that."""


def _meta_row(meta: ShoeMeta) -> dict[str, Any]:
    """A shoe's metadata as the ``shoes`` row stores it."""
    m = meta.to_dict()
    if m["seed"] is not None and m["seed"] >= 2**63:
        m["seed"] -= SEED_WRAP
    return m


def _meta_of(row: sqlite3.Row | tuple[Any, ...]) -> ShoeMeta:
    m = dict(zip(_META_COLS, row, strict=True))
    if isinstance(m["seed"], int) and m["seed"] < 0:
        m["seed"] += SEED_WRAP
    return ShoeMeta.from_dict(m)


# --- opening -----------------------------------------------------------------------------


def db_path(data_dir: Path | str) -> Path:
    return Path(data_dir) / DB_NAME


def translate(e: BaseException, where: Path, doing: str = "change") -> StorageError:
    """An sqlite3/OS error as one line naming the database; callers raise it ``from None``."""
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


class _Held:
    """One thread's connection, closed when the thread ends.

    A connection and its statement cache refer to each other, so a dropped one waits
    for a full garbage collection to close: an API server whose worker threads came
    and went kept 147 open (294 file descriptors). Held in the thread's local storage,
    this small object goes with the thread (no cycle) and closes the connection then,
    in that same thread.
    """

    __slots__ = ("con", "pid")

    def __init__(self, con: sqlite3.Connection) -> None:
        self.con = con
        self.pid = os.getpid()

    def close(self) -> None:
        if self.pid == os.getpid():  # a forked child leaves its parent's connection be
            with contextlib.suppress(sqlite3.Error):
                self.con.close()

    def __del__(self) -> None:
        self.close()


class Store:
    """The database of one data folder. Cheap to share: one connection per thread."""

    def __init__(self, data_dir: Path | str, *, samples: bool = False) -> None:
        self.data_dir = Path(data_dir)
        self.path = db_path(self.data_dir)
        self._local = threading.local()
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StorageError(
                f"{shown_path(self.data_dir)}: cannot create the data folder ({e.strerror})"
            ) from None
        self._refuse_links()
        self._init(samples)

    def _refuse_links(self) -> None:
        """The database and its WAL, SHM and journal files are plain files in the data
        folder: a symlink would have SQLite write outside it, so it is refused untouched."""
        for suffix in ("", "-wal", "-shm", "-journal"):
            p = self.path.with_name(self.path.name + suffix)
            if p.is_symlink():
                raise StorageError(
                    f"{shown_path(p)}: is a symlink; the database must be a plain file in "
                    "the data folder (it was left as it is)"
                )

    # connections

    def _connect(self) -> sqlite3.Connection:
        try:
            con = sqlite3.connect(
                self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                check_same_thread=True, cached_statements=64,
            )  # fmt: skip
            con.execute("PRAGMA foreign_keys = ON")
            con.execute(f"PRAGMA synchronous = {SYNCHRONOUS}")
            con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        except sqlite3.Error as e:
            raise translate(e, self.path, "open") from None
        return con

    @property
    def con(self) -> sqlite3.Connection:
        """This thread's connection (a forked child opens its own), closed when the
        thread ends (`_Held`)."""
        held: _Held | None = getattr(self._local, "held", None)
        if held is None or held.pid != os.getpid():
            held = self._local.held = _Held(self._connect())
        return held.con

    def close(self) -> None:
        """Close this thread's connection now (the next use opens a new one)."""
        held: _Held | None = getattr(self._local, "held", None)
        self._local.held = None
        if held is not None:
            held.close()

    @contextlib.contextmanager
    def write(self, doing: str = "change") -> Iterator[sqlite3.Connection]:
        """One write transaction, lock taken up front; any failure rolls all of it back."""
        con = self.con
        try:
            con.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as e:
            raise translate(e, self.path, doing) from None
        try:
            yield con
            con.execute("COMMIT")
        except BaseException as e:
            with contextlib.suppress(sqlite3.Error):
                con.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error | OSError) and not isinstance(e, RoadsAppError):
                raise translate(e, self.path, doing) from None
            raise

    @contextlib.contextmanager
    def read(self) -> Iterator[sqlite3.Connection]:
        """One read snapshot (several SELECTs see the same version)."""
        con = self.con
        try:
            con.execute("BEGIN")
        except sqlite3.Error as e:
            raise translate(e, self.path, "read") from None
        try:
            yield con
        except sqlite3.Error as e:
            raise translate(e, self.path, "read") from None
        finally:
            with contextlib.suppress(sqlite3.Error):
                con.execute("COMMIT")

    # creating, recognising and migrating the database

    def _init(self, samples: bool) -> None:
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
                f"{self.path}: is an SQLite database of another program (no roads-app "
                "tables); it was left as it is: move it away or use another --data folder"
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
                    f"{self.path}: made by a newer roads-app (schema {have}, this one knows "
                    f"{SCHEMA_VERSION}); it was left as it is"
                )
            if have == 0:
                if c.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]:
                    raise StorageError(
                        f"{self.path}: tables without a schema version; left as it is"
                    )
                c.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                c.execute(
                    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                    "description TEXT NOT NULL, applied TEXT NOT NULL)"
                )
                created = True
            for n in range(have + 1, SCHEMA_VERSION + 1):
                description, sql = MIGRATIONS[n - 1]
                for stmt in (s for s in sql.split(";") if s.strip()):
                    c.execute(stmt)
                c.execute("INSERT INTO schema_migrations VALUES (?, ?, ?)", (n, description, now()))
            if created:
                moved = self._migrate_files(c)
                if not moved and samples:
                    self._insert_samples(c)
        # WAL is a property of the file; set outside a transaction (no-op when it is already)

    @staticmethod
    def _schema_version(c: sqlite3.Connection) -> int:
        has = c.execute(
            "SELECT 1 FROM sqlite_master WHERE type='table' AND name='schema_migrations'"
        ).fetchone()
        if not has:
            return 0
        return int(c.execute("SELECT coalesce(max(version), 0) FROM schema_migrations")
                   .fetchone()[0])  # fmt: skip

    def _migrate_files(self, c: sqlite3.Connection) -> int:
        """The old file store's shoes and bets, copied in (files untouched); how many."""
        from roads_app.store import files

        shoes = []
        for path in sorted(self.data_dir.glob("*.parquet")):
            if path.name.startswith(".") or path.name.count(".") > 1:
                continue  # temporary files and side files such as <id>.bets.parquet
            try:
                loaded = files.read_shoe_file(path)
            except RoadsAppError as e:
                log.warning("not imported into %s: %s", self.path.name, e)
                continue
            if loaded is None:
                continue  # a multi-shoe simulation file: stays a file
            shoes.append((path, *loaded))
        # The file named after its id is the shoe; a copy of it under another name (a
        # backup a person made) holds the same id inside and comes in as a shoe of its own.
        shoes.sort(key=lambda t: (t[0].stem != t[2].id, t[0].name))
        seen: set[str] = set()
        for path, rounds, meta in shoes:
            bets_from = path
            if meta.id in seen:
                copy = ShoeMeta()
                meta = ShoeMeta.from_dict(
                    {**meta.to_dict(), "id": copy.id, "name": f"{meta.name} ({path.name})"[:100]}
                )
                log.warning("%s holds an id already imported: imported as %s", path.name, meta.id)
            seen.add(meta.id)
            when = datetime.fromtimestamp(path.stat().st_mtime, UTC).isoformat()
            self._insert_shoe(c, meta, rounds, "imported", f"from {path.name}", updated=when)
            for kind in KINDS:
                side = bets_from.with_name(f"{bets_from.stem}.{kind}.parquet")
                if side.exists():
                    try:
                        bets = files.read_bets_file(side)
                    except RoadsAppError as e:
                        log.warning("bets not imported: %s", e)
                        continue
                    self._put_bets(c, meta.id, kind, bets)
        if seen:
            log.warning(
                "imported %d saved shoe(s) from the *.parquet files of %s into %s "
                "(the files were left as they are)", len(seen), self.data_dir, self.path.name,
            )  # fmt: skip
        return len(seen)

    def _insert_samples(self, c: sqlite3.Connection) -> None:
        from roads_app.store.samples import sample_shoes

        for rounds, meta in sample_shoes():
            self._insert_shoe(c, meta, rounds, "imported", "sample shoe")  # type: ignore[arg-type]

    # shoes

    def _insert_shoe(
        self,
        c: sqlite3.Connection,
        meta: ShoeMeta,
        rounds: pl.DataFrame,
        action: str,
        detail: str | None = None,
        updated: str | None = None,
    ) -> int:
        check_shoe_id(meta.id)
        row = c.execute("SELECT deleted FROM shoes WHERE id = ?", (meta.id,)).fetchone()
        if row is not None:
            taken = "msg_id_taken_trash" if row[0] else "msg_id_taken"
            raise StaleShoeError(Message(taken, id=meta.id))
        m = _meta_row(meta)
        c.execute(
            f"INSERT INTO shoes ({', '.join(_META_COLS)}, updated, version, rounds) "
            f"VALUES ({', '.join('?' * len(_META_COLS))}, ?, 1, ?)",
            (*(m[k] for k in _META_COLS), updated or now(), rounds.height),
        )
        if rounds.height:
            c.executemany(
                f"INSERT INTO rounds (shoe, {', '.join(_ROUND_COLS)}) "
                f"VALUES (?, {', '.join('?' * len(_ROUND_COLS))})",
                [(meta.id, *r) for r in rows_of(rounds)],
            )
        self._log(c, meta.id, action, 1, rounds.height, None, detail)
        return 1

    @staticmethod
    def _log(
        c: sqlite3.Connection,
        shoe_id: str,
        action: str,
        version: int,
        rounds: int,
        round_no: int | None = None,
        detail: str | None = None,
    ) -> None:
        c.execute(
            "INSERT INTO history (shoe, at, action, version, rounds, round, detail) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (shoe_id, now(), action, version, rounds, round_no, detail),
        )

    def create_shoe(
        self,
        meta: ShoeMeta,
        rounds: pl.DataFrame | None = None,
        *,
        action: str = "created",
        ended: bool = False,
    ) -> int:
        """Add a new shoe (refused if its id is taken, even by one in the trash); version 1.
        ``ended``: a whole shoe (dealt to the cut card's last hand), ended in the same
        transaction (version 2)."""
        frame = empty_rounds() if rounds is None else rounds
        with self.write() as c:
            version = self._insert_shoe(c, meta, frame, action)
            return self.end_in(c, meta.id) if ended else version

    def create_shoes(
        self, shoes: Iterable[tuple[pl.DataFrame, ShoeMeta]], *, action: str = "imported"
    ) -> int:
        """Add many shoes in one transaction (all or none); how many."""
        n = 0
        with self.write() as c:
            for rounds, meta in shoes:
                self._insert_shoe(c, meta, rounds, action)
                n += 1
        return n

    def _current(
        self, c: sqlite3.Connection, shoe_id: str, *, playing: bool = False
    ) -> tuple[int, int]:
        """(version, rounds) of a shoe in the library; StorageError if missing or trashed.

        ``playing``: the change is to the shoe's play (rounds, bets), which an ended shoe
        refuses (`ShoeEndedError`): the one rule every door (a page, the CLI, the API)
        goes through. A rename or the trash still work on an ended shoe.
        """
        row = c.execute(
            "SELECT version, rounds, deleted, ended, name FROM shoes WHERE id = ?", (shoe_id,)
        ).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_saved_shoe", id=repr(shoe_id), folder=self.data_dir))
        if row[2] is not None:
            raise StaleShoeError(Message("msg_deleted_elsewhere", id=shoe_id))
        if playing and row[3] is not None:
            raise ShoeEndedError(Message("msg_shoe_ended", name=quote(row[4] or shoe_id)))
        return int(row[0]), int(row[1])

    def _checked(
        self, c: sqlite3.Connection, shoe_id: str, expected: int | None
    ) -> tuple[int, int]:
        """Refuse if the rounds changed after version ``expected``, or the shoe has ended;
        (version, rounds) now."""
        version, n = self._current(c, shoe_id, playing=True)
        if expected is None or expected == version:
            return version, n
        moved = c.execute(
            f"SELECT 1 FROM history WHERE shoe = ? AND version > ? AND action IN "
            f"({', '.join('?' * len(ROUND_ACTIONS))}) LIMIT 1",
            (shoe_id, expected, *ROUND_ACTIONS),
        ).fetchone()
        if moved or expected > version:
            had = c.execute(
                "SELECT rounds FROM history WHERE shoe = ? AND version <= ? "
                "ORDER BY version DESC LIMIT 1",
                (shoe_id, expected),
            ).fetchone()
            raise StaleShoeError(
                Message("msg_changed_elsewhere_here", id=shoe_id, n=n, had=had[0]) if had
                else Message("msg_changed_elsewhere", id=shoe_id, n=n)
            )  # fmt: skip
        return version, n

    def _bump(self, c: sqlite3.Connection, shoe_id: str, version: int, rounds: int) -> int:
        c.execute(
            "UPDATE shoes SET version = ?, rounds = ?, updated = ? WHERE id = ?",
            (version + 1, rounds, now(), shoe_id),
        )
        return version + 1

    def append_rounds(self, shoe_id: str, new: pl.DataFrame, expected: int | None) -> int:
        """Add rounds after the last one (INSERTs only); returns the new version."""
        with self.write() as c:
            version, n = self._checked(c, shoe_id, expected)
            return self._append(c, shoe_id, new, version, n, "entered")

    def _append(
        self,
        c: sqlite3.Connection,
        shoe_id: str,
        new: pl.DataFrame,
        version: int,
        n: int,
        action: str,
    ) -> int:
        new = new.with_columns(
            pl.int_range(n + 1, n + 1 + new.height, dtype=pl.Int32).alias("round")
        )
        c.executemany(
            f"INSERT INTO rounds (shoe, {', '.join(_ROUND_COLS)}) "
            f"VALUES (?, {', '.join('?' * len(_ROUND_COLS))})",
            [(shoe_id, *r) for r in rows_of(new)],
        )
        for i in range(new.height):
            version = self._bump(c, shoe_id, version, n + i + 1)
            self._log(c, shoe_id, action, version, n + i + 1, n + i + 1, _row_json(new, i))
        return version

    def undo(self, shoe_id: str, expected: int | None, count: int = 1) -> int:
        """Take back the last ``count`` rounds; each is kept in the history for `redo`."""
        with self.write() as c:
            return self.undo_in(c, shoe_id, expected, count)

    def undo_in(
        self, c: sqlite3.Connection, shoe_id: str, expected: int | None, count: int = 1
    ) -> int:
        """`undo` inside a transaction the caller holds (`write`)."""
        version, n = self._checked(c, shoe_id, expected)
        if count > n:
            raise StorageError(Message("msg_store_undo", id=shoe_id, n=n))
        gone = frame_of(c.execute(
            f"SELECT {', '.join(_ROUND_COLS)} FROM rounds WHERE shoe = ? AND round > ? "
            "ORDER BY round DESC", (shoe_id, n - count)).fetchall())  # fmt: skip
        c.execute("DELETE FROM rounds WHERE shoe = ? AND round > ?", (shoe_id, n - count))
        for i in range(gone.height):
            no = n - i
            version = self._bump(c, shoe_id, version, no - 1)
            self._log(c, shoe_id, "undone", version, no - 1, no, _row_json(gone, i))
        return version

    def redoable(self, shoe_id: str) -> pl.DataFrame:
        """The rounds an undo took back that can be brought back, next one first."""
        rows = self.con.execute(
            "SELECT action, detail FROM history WHERE shoe = ? AND action IN "
            f"({', '.join('?' * len(ROUND_ACTIONS))}) ORDER BY seq DESC",
            (shoe_id, *ROUND_ACTIONS),
        ).fetchall()
        skip, out = 0, []
        for action, detail in rows:  # newest first: walk back over the undo/redo run
            if action == "redone":
                skip += 1
            elif action == "undone":
                if skip:
                    skip -= 1
                else:
                    out.append(detail)
            else:
                break
        return _frame_from_json(out) if out else empty_rounds()

    def redo(self, shoe_id: str, expected: int | None) -> int:
        """Bring back the round last undone (the undo of an undo), from the history."""
        with self.write() as c:
            version, n = self._checked(c, shoe_id, expected)
            back = self.redoable(shoe_id)
            if not back.height:
                raise StorageError(Message("msg_store_bring_back", id=shoe_id))
            return self._append(c, shoe_id, back.head(1), version, n, "redone")

    def edit_round(
        self, shoe_id: str, round_no: int, row: pl.DataFrame, expected: int | None
    ) -> int:
        """Replace one round (a one-row rounds frame); the old content goes to the history."""
        with self.write() as c:
            version, n = self._checked(c, shoe_id, expected)
            if not 1 <= round_no <= n:
                raise StorageError(Message("msg_no_such_round", n=round_no, rounds=n))
            new = row.head(1).with_columns(pl.lit(round_no, dtype=pl.Int32).alias("round"))
            old = frame_of(c.execute(
                f"SELECT {', '.join(_ROUND_COLS)} FROM rounds WHERE shoe = ? AND round = ?",
                (shoe_id, round_no)).fetchall())  # fmt: skip
            sets = ", ".join(f"{col} = ?" for col in _ROUND_COLS[1:])
            c.execute(
                f"UPDATE rounds SET {sets} WHERE shoe = ? AND round = ?",
                (*rows_of(new)[0][1:], shoe_id, round_no),
            )
            version = self._bump(c, shoe_id, version, n)
            detail = json.dumps({"old": json.loads(_row_json(old, 0)),
                                 "new": json.loads(_row_json(new, 0))})  # fmt: skip
            self._log(c, shoe_id, "edited", version, n, round_no, detail)
            return version

    def replace_rounds(self, shoe_id: str, rounds: pl.DataFrame, expected: int | None) -> int:
        """Every round at once (a change that is no append, undo or single edit)."""
        with self.write() as c:
            version, n = self._checked(c, shoe_id, expected)
            return self._replace(c, shoe_id, rounds, version, n)

    def _replace(
        self, c: sqlite3.Connection, shoe_id: str, rounds: pl.DataFrame, version: int, n: int
    ) -> int:
        c.execute("DELETE FROM rounds WHERE shoe = ?", (shoe_id,))
        frame = rounds.with_columns(
            pl.int_range(1, rounds.height + 1, dtype=pl.Int32).alias("round")
        )
        c.executemany(
            f"INSERT INTO rounds (shoe, {', '.join(_ROUND_COLS)}) "
            f"VALUES (?, {', '.join('?' * len(_ROUND_COLS))})",
            [(shoe_id, *r) for r in rows_of(frame)],
        )
        version = self._bump(c, shoe_id, version, frame.height)
        self._log(c, shoe_id, "replaced", version, frame.height, None, f"{n} rounds before")
        return version

    def save_rounds(
        self, shoe_id: str, old: pl.DataFrame, new: pl.DataFrame, expected: int | None
    ) -> int:
        """Store ``new`` where the caller showed ``old`` (read at version ``expected``).

        The smallest change is written: the added rounds are INSERTed, undone ones
        deleted (kept in the history), one changed round updated; anything else
        replaces the rounds. Refused with `StaleShoeError` if the shoe moved on.
        """
        k = min(old.height, new.height)
        same_head = old.head(k).equals(new.head(k))
        if same_head and new.height > old.height:
            return self.append_rounds(shoe_id, new.slice(old.height), expected)
        if same_head and new.height < old.height:
            return self.undo(shoe_id, expected, old.height - new.height)
        if new.height == old.height:
            diff = [i for i in range(new.height) if not new.slice(i, 1).equals(old.slice(i, 1))]
            if not diff:
                with self.write() as c:
                    return self._checked(c, shoe_id, expected)[0]
            if len(diff) == 1:
                return self.edit_round(shoe_id, diff[0] + 1, new.slice(diff[0], 1), expected)
        return self.replace_rounds(shoe_id, new, expected)

    def update_meta(
        self, meta: ShoeMeta, expected: int | None = None, action: str = "changed"
    ) -> int:
        """Store a shoe's metadata (name, notes, rules...); its id says which shoe."""
        with self.write() as c:
            version, n = self._checked(c, meta.id, expected)
            old = self._meta(c, meta.id)
            m = _meta_row(meta)
            sets = ", ".join(f"{k} = ?" for k in _META_COLS[1:])
            c.execute(f"UPDATE shoes SET {sets} WHERE id = ?",
                      (*(m[k] for k in _META_COLS[1:]), meta.id))  # fmt: skip
            version = self._bump(c, meta.id, version, n)
            new = meta.to_dict()
            changed = {
                k: [old.to_dict()[k], new[k]] for k in _META_COLS if old.to_dict()[k] != new[k]
            }
            self._log(c, meta.id, action, version, n, None, json.dumps(changed))
            return version

    def rename(self, shoe_id: str, name: str) -> ShoeMeta:
        """A new name for a shoe (the one name rule, `check_name`); the rounds are untouched."""
        try:
            name = check_name(name)
        except RoundError as e:  # the store's callers get the store's error, same words
            raise StorageError(str(e)) from None
        with self.write() as c:
            version, n = self._current(c, shoe_id)
            old = self._meta(c, shoe_id)
            c.execute("UPDATE shoes SET name = ? WHERE id = ?", (name, shoe_id))
            version = self._bump(c, shoe_id, version, n)
            self._log(c, shoe_id, "renamed", version, n, None, json.dumps([old.name, name]))
            return ShoeMeta.from_dict({**old.to_dict(), "name": name})

    def end(self, shoe_id: str) -> int:
        """End a shoe (the cut card's last hand was played, or the table closed it): it
        leaves the wall of live tables and its rounds and bets become read-only. Ending
        an ended shoe is refused. New version."""
        with self.write() as c:
            return self.end_in(c, shoe_id)

    def end_in(self, c: sqlite3.Connection, shoe_id: str) -> int:
        """`end` inside a transaction the caller holds (`write`)."""
        version, n = self._current(c, shoe_id, playing=True)
        version = self._bump(c, shoe_id, version, n)
        c.execute("UPDATE shoes SET ended = ? WHERE id = ?", (now(), shoe_id))
        self._log(c, shoe_id, "ended", version, n)
        return version

    def ended(self, shoe_id: str) -> str | None:
        """When the shoe ended (None: still being played, or no such shoe)."""
        row = self.con.execute("SELECT ended FROM shoes WHERE id = ?", (shoe_id,)).fetchone()
        return None if row is None else row[0]

    def delete(self, shoe_id: str) -> int:
        """Move a shoe (with its bets) to the trash; `restore` brings it back. New version."""
        with self.write() as c:
            version, n = self._current(c, shoe_id)
            version = self._bump(c, shoe_id, version, n)
            c.execute("UPDATE shoes SET deleted = ? WHERE id = ?", (now(), shoe_id))
            self._log(c, shoe_id, "deleted", version, n)
            return version

    def restore(self, shoe_id: str) -> int:
        """Bring a shoe back from the trash, as it was. New version."""
        with self.write() as c:
            row = c.execute(
                "SELECT version, rounds, deleted FROM shoes WHERE id = ?", (shoe_id,)
            ).fetchone()
            if row is None:
                purged = c.execute("SELECT 1 FROM history WHERE shoe = ? LIMIT 1", (shoe_id,))
                gone = "was removed for good when the trash was emptied" if purged.fetchone() \
                    else f"is not in {self.data_dir}"  # fmt: skip
                raise StorageError(f"shoe {quote(shoe_id)} {gone}")
            if row[2] is None:
                raise StorageError(f"shoe {quote(shoe_id)} is not in the trash")
            version = self._bump(c, shoe_id, int(row[0]), int(row[1]))
            c.execute("UPDATE shoes SET deleted = NULL WHERE id = ?", (shoe_id,))
            self._log(c, shoe_id, "restored", version, int(row[1]))
            return version

    def empty_trash(self, ids: list[str] | None = None) -> int:
        """Remove shoes in the trash (all, or ``ids``) for good; how many. Final."""
        with self.write() as c:
            if ids is None:
                ids = [r[0] for r in c.execute("SELECT id FROM shoes WHERE deleted IS NOT NULL")]
            gone = 0
            for shoe_id in ids:
                row = c.execute("SELECT version, rounds FROM shoes WHERE id = ? AND "
                                "deleted IS NOT NULL", (shoe_id,)).fetchone()  # fmt: skip
                if row is None:
                    raise StorageError(f"shoe {quote(shoe_id)} is not in the trash")
                c.execute("DELETE FROM shoes WHERE id = ?", (shoe_id,))
                self._log(c, shoe_id, "purged", int(row[0]) + 1, int(row[1]))
                gone += 1
            return gone

    # reading

    @staticmethod
    def _meta(c: sqlite3.Connection, shoe_id: str) -> ShoeMeta:
        row = c.execute(f"SELECT {', '.join(_META_COLS)} FROM shoes WHERE id = ?",
                        (shoe_id,)).fetchone()  # fmt: skip
        return _meta_of(row)

    def meta(self, shoe_id: str) -> ShoeMeta:
        """A shoe's metadata alone (one indexed lookup)."""
        row = self.con.execute(
            f"SELECT {', '.join(_META_COLS)} FROM shoes WHERE id = ?", (shoe_id,)
        ).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.data_dir))
        return _meta_of(row)

    def load(self, shoe_id: str) -> Saved:
        """A shoe's rounds (one query, straight into the rounds frame), metadata and version."""
        with self.read() as c:
            return self.load_in(c, shoe_id)

    def load_in(self, c: sqlite3.Connection, shoe_id: str) -> Saved:
        """`load` inside a transaction the caller holds (`read` or `write`)."""
        row = c.execute(
            f"SELECT {', '.join(_META_COLS)}, version, ended, deleted FROM shoes WHERE id = ?",
            (shoe_id,),
        ).fetchone()
        if row is None:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.data_dir))
        if row[-1] is not None:
            raise StorageError(Message("msg_shoe_in_trash", id=shoe_id))
        rounds = frame_of(c.execute(_SQL_ROUNDS, (shoe_id,)).fetchall())
        return Saved(rounds, _meta_of(row[: len(_META_COLS)]), int(row[-3]), row[-2])

    def version(self, shoe_id: str) -> int | None:
        """The shoe's version now (None if missing or in the trash): one indexed lookup."""
        try:
            row = self.con.execute(
                "SELECT version FROM shoes WHERE id = ? AND deleted IS NULL", (shoe_id,)
            ).fetchone()
        except sqlite3.Error as e:
            raise translate(e, self.path, "read") from None
        return None if row is None else int(row[0])

    def list_shoes(
        self,
        *,
        trash: bool = False,
        source: str | None = None,
        limit: int | None = None,
        live: bool = False,
    ) -> pl.DataFrame:
        """The library (or the trash), most recently changed first; one query.

        ``source`` keeps shoes of one source (the wall: ``hand``), ``limit`` the newest
        few, ``live`` those not ended.
        """
        where = "deleted IS NOT NULL" if trash else "deleted IS NULL"
        if live:
            where += " AND ended IS NULL"
        params: list[Any] = []
        if source is not None:
            where += " AND source = ?"
            params.append(source)
        tail = ""
        if limit is not None:
            tail = " LIMIT ?"
            params.append(int(limit))
        try:
            rows = self.con.execute(
                "SELECT id, name, created, updated, rounds, source, rules, decks, version, "
                f"deleted, ended FROM shoes WHERE {where} ORDER BY updated DESC{tail}",
                params,
            ).fetchall()
        except sqlite3.Error as e:
            raise translate(e, self.path, "read") from None
        names = LIST_SCHEMA.names()[:-2]
        columns = zip(*rows, strict=True) if rows else ([] for _ in names)
        frame = pl.DataFrame(
            dict(zip(names, columns, strict=True)), schema={k: LIST_SCHEMA[k] for k in names}
        )
        updated = pl.col("updated").str.strptime(
            pl.Datetime("us", "UTC"), "%Y-%m-%dT%H:%M:%S%.f%:z"
        )
        return frame.with_columns(
            modified=updated.dt.epoch("us") / 1e6, error=pl.lit(None, dtype=pl.String)
        )

    def history(self, shoe_id: str) -> pl.DataFrame:
        """Every change of a shoe, oldest first (also after it was purged from the trash)."""
        rows = self.con.execute(
            "SELECT seq, at, action, version, rounds, round, detail FROM history "
            "WHERE shoe = ? ORDER BY seq", (shoe_id,),
        ).fetchall()  # fmt: skip
        if not rows:
            raise StorageError(Message("msg_no_shoe_with_id", id=shoe_id, folder=self.data_dir))
        return pl.DataFrame(rows, schema=HISTORY_SCHEMA, orient="row")

    # bets

    def load_bets(self, shoe_id: str, kind: str = "bets") -> pl.DataFrame:
        """A shoe's bet history (``kind`` bets or replay-bets), in placing order."""
        _check_kind(kind)
        rows = self.con.execute(
            "SELECT id, round, bet, stake, voided, coalesce(placement, id) FROM bets "
            "WHERE shoe = ? AND kind = ? "
            "ORDER BY id", (shoe_id, kind),
        ).fetchall()  # fmt: skip
        return pl.DataFrame(rows, schema={**BETS_SCHEMA, "voided": pl.Int8}, orient="row").cast(
            BETS_SCHEMA  # type: ignore[arg-type]
        )

    def change_bets(
        self, shoe_id: str, kind: str, change: Callable[[pl.DataFrame], pl.DataFrame]
    ) -> pl.DataFrame:
        """Read, change and store a shoe's bets in one transaction; returns the new bets.

        ``change`` is one of the ledger's pure functions (place, void, clear...); it runs
        under the write lock, so two tabs betting at once both land.
        """
        _check_kind(kind)
        with self.write() as c:
            version, n = self._current(c, shoe_id, playing=True)
            old = self.load_bets(shoe_id, kind)
            new = with_placement(change(old))
            self._put_bets(c, shoe_id, kind, new)
            action = _bets_action(old, new)
            version = self._bump(c, shoe_id, version, n)
            rounds = sorted(set(new["round"].to_list()) ^ set(old["round"].to_list())) or None
            self._log(c, shoe_id, action, version, n, None,
                      json.dumps({"kind": kind, "bets": new.height, "rounds": rounds}))  # fmt: skip
            return new

    @staticmethod
    def _put_bets(c: sqlite3.Connection, shoe_id: str, kind: str, bets: pl.DataFrame) -> None:
        c.execute("DELETE FROM bets WHERE shoe = ? AND kind = ?", (shoe_id, kind))
        rows = bets.select(BETS_SCHEMA.names()).with_columns(pl.col("voided").cast(pl.Int8)).rows()
        c.executemany(
            "INSERT INTO bets (shoe, kind, id, round, bet, stake, voided, placement) "
            "VALUES (?,?,?,?,?,?,?,?)",
            [(shoe_id, kind, *r) for r in rows],
        )

    def integrity(self) -> str:
        """``PRAGMA integrity_check``'s answer (``ok`` when the file is sound)."""
        return str(self.con.execute("PRAGMA integrity_check").fetchone()[0])

    # --- the live feed (issue 18): appends inside a caller's transaction, voids,
    # requests answered once, API tokens

    def create_in(self, c: sqlite3.Connection, meta: ShoeMeta) -> int:
        """`create_shoe` (no rounds yet) inside a transaction the caller holds (`write`)."""
        return self._insert_shoe(c, meta, empty_rounds(), "created")

    def append_in(
        self, c: sqlite3.Connection, shoe_id: str, new: pl.DataFrame, expected: int | None
    ) -> int:
        """`append_rounds` inside a transaction the caller holds (`write`)."""
        version, n = self._checked(c, shoe_id, expected)
        return self._append(c, shoe_id, new, version, n, "entered")

    def void_in(
        self, c: sqlite3.Connection, shoe_id: str, round_no: int, expected: int | None
    ) -> int:
        """Void a round (a misdeal) inside a transaction the caller holds (`write`): it leaves
        the shoe, later rounds move up one, and the history keeps its content (``voided``)."""
        version, n = self._checked(c, shoe_id, expected)
        if not 1 <= round_no <= n:
            raise StorageError(Message("msg_no_such_round", n=round_no, rounds=n))
        gone = frame_of(c.execute(
            f"SELECT {', '.join(_ROUND_COLS)} FROM rounds WHERE shoe = ? AND round = ?",
            (shoe_id, round_no)).fetchall())  # fmt: skip
        c.execute("DELETE FROM rounds WHERE shoe = ? AND round = ?", (shoe_id, round_no))
        # two steps so that no moment holds two rows with one (shoe, round) key
        c.execute("UPDATE rounds SET round = round + 1000000 WHERE shoe = ? AND round > ?",
                  (shoe_id, round_no))  # fmt: skip
        c.execute("UPDATE rounds SET round = round - 1000001 WHERE shoe = ? AND round > 1000000",
                  (shoe_id,))  # fmt: skip
        version = self._bump(c, shoe_id, version, n - 1)
        self._log(c, shoe_id, "voided", version, n - 1, round_no, _row_json(gone, 0))
        return version

    def once(
        self,
        key: str | None,
        fingerprint: str,
        shoe_id: str | None,
        do: Callable[[sqlite3.Connection], tuple[int, dict[str, Any]]],
    ) -> tuple[int, dict[str, Any], bool]:
        """Run ``do`` (a change, given the open write transaction) once per ``key``.

        The answer is stored in the same transaction as the change, so a request retried
        with the same key gets the first answer again (third item True) and changes
        nothing, whether the first one's answer was lost or not. A refused request
        (``do`` raises) stores nothing. A key reused for a different request is refused.
        """
        with self.write() as c:
            if key is not None:
                row = c.execute(
                    "SELECT fingerprint, status, body FROM api_requests WHERE key = ?", (key,)
                ).fetchone()
                if row is not None:
                    if row[0] != fingerprint:
                        raise RequestKeyReused(
                            f"Idempotency-Key {key!r} was already used for a different request"
                        )
                    return int(row[1]), json.loads(row[2]), True
            status, body = do(c)
            if key is not None:
                c.execute(
                    "INSERT INTO api_requests (key, fingerprint, shoe, status, body, at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    (key, fingerprint, shoe_id, status, json.dumps(body), now()),
                )
            return status, body, False

    def forget_requests(self, before: str) -> int:
        """Drop remembered answers older than ``before`` (an ISO time); how many."""
        with self.write() as c:
            return c.execute("DELETE FROM api_requests WHERE at < ?", (before,)).rowcount

    def add_token(self, token_hash: str, role: str) -> None:
        with self.write() as c:
            c.execute("INSERT INTO api_tokens (hash, role, created) VALUES (?, ?, ?)",
                      (token_hash, role, now()))  # fmt: skip

    def token_role(self, token_hash: str) -> str | None:
        """The role of a token (by its hash), or None if no such token."""
        try:
            row = self.con.execute(
                "SELECT role FROM api_tokens WHERE hash = ?", (token_hash,)
            ).fetchone()
        except sqlite3.Error as e:
            raise translate(e, self.path, "read") from None
        return None if row is None else str(row[0])

    def count_tokens(self, role: str) -> int:
        return int(self.con.execute(
            "SELECT count(*) FROM api_tokens WHERE role = ?", (role,)).fetchone()[0])  # fmt: skip

    def revoke_tokens(self, role: str) -> int:
        with self.write() as c:
            return c.execute("DELETE FROM api_tokens WHERE role = ?", (role,)).rowcount


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise StorageError(f"bet history kind {quote(kind)} is not one of {', '.join(KINDS)}")


def _bets_action(old: pl.DataFrame, new: pl.DataFrame) -> str:
    if new.height > old.height:
        return "bet placed"
    if new.height < old.height:
        return "bets cleared"
    if int(new["voided"].sum()) > int(old["voided"].sum()):
        return "round voided"
    return "bets changed"


# --- one Store per data folder per process ------------------------------------------------

_STORES: dict[tuple[int, Path], Store] = {}
_STORES_LOCK = threading.Lock()


def open_store(data_dir: Path | str, *, samples: bool = False) -> Store:
    """The store of a data folder, created (and the old files migrated) on first use.

    ``samples``: a brand-new database with no old files to import gets the sample shoes
    (the dashboard's first start); scripts and tests start empty.
    """
    key = (os.getpid(), Path(data_dir).expanduser().resolve())
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = Store(key[1], samples=samples)
        return store


def forget_stores() -> None:
    """Close this thread's connections and forget the open stores (tests, shutdown)."""
    with _STORES_LOCK:
        for store in _STORES.values():
            store.close()
        _STORES.clear()
