"""The library of shoes: one SQLite database, ``<data>/roads.db``, and nothing entered is lost.

Why a database and not a file per shoe: every change here is one transaction, so two
tabs, two servers on one folder, or a script next to a running server can never lose
or resurrect each other's changes, and a reader never sees half a write.

`Store` is the database of one data folder (`roads_app.store.connection.Database`: its
connections, transactions and schema) with one part per concern, each a small class
over the same connection, so a change that touches several parts is still one
transaction (one ``BEGIN IMMEDIATE``):

* ``store.shoes`` (`roads_app.store.shoes`): create, read, list, rename, end, trash and
  restore shoes; every shoe's version, and the check every change goes through
  (`StaleShoeError`, `ShoeEndedError`).
* ``store.rounds`` (`roads_app.store.rounds`): append, undo, bring back, edit, replace
  and void rounds.
* ``store.bets`` (`roads_app.store.bets`): each shoe's bet history.
* ``store.history`` (`roads_app.store.history`): every change (when, what, the version
  it made, the round count after it), so an undone round can be brought back.
* ``store.requests`` and ``store.tokens`` (`roads_app.store.feed`): the live feed's
  requests answered once and API tokens.
* A new database imports the ``*.parquet`` shoes (and ``*.bets.parquet`` bets) of the
  old file store found in the folder, in the transaction that creates it, leaving the
  files as they are (`roads_app.store.old_files`).

A deleted shoe goes to the trash (``shoes.deleted``), from which it is restored, or
purged by `Shoes.empty_trash` (final). Errors are `StorageError` lines naming the
database; a failed change leaves it as it was.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

from roads_app.errors import StorageError
from roads_app.store import old_files
from roads_app.store.bets import Bets
from roads_app.store.connection import (
    BUSY_TIMEOUT_S,
    DB_ENV,
    DB_NAME,
    MIGRATIONS,
    SCHEMA_VERSION,
    Connection,
    Database,
    db_path,
    db_url,
    now,
    translate,
)
from roads_app.store.feed import RequestKeyReused, Requests, Tokens
from roads_app.store.frames import frame_of, rows_of
from roads_app.store.history import HISTORY_SCHEMA, ROUND_ACTIONS, History
from roads_app.store.pg import TOKENS_NEWS
from roads_app.store.rounds import Rounds
from roads_app.store.shoes import LIST_SCHEMA, Saved, ShoeEndedError, Shoes, StaleShoeError

__all__ = [
    "BUSY_TIMEOUT_S",
    "DB_ENV",
    "DB_NAME",
    "HISTORY_SCHEMA",
    "LIST_SCHEMA",
    "MIGRATIONS",
    "ROUND_ACTIONS",
    "SCHEMA_VERSION",
    "TOKENS_NEWS",
    "Connection",
    "RequestKeyReused",
    "Saved",
    "ShoeEndedError",
    "StaleShoeError",
    "StorageError",
    "Store",
    "db_path",
    "db_url",
    "forget_stores",
    "frame_of",
    "now",
    "open_store",
    "rows_of",
    "translate",
]


class Store(Database):
    """The database of one data folder and its parts. Cheap to share: one connection per
    thread, and every part writes through it."""

    def __init__(
        self,
        data_dir: Path | str,
        *,
        samples: bool = False,
        url: str | None = None,
        from_env: bool = True,
    ) -> None:
        """``url``: a PostgreSQL server's database, else (when ``from_env``)
        ``ROADS_APP_DB``'s, else the SQLite file in ``data_dir``."""
        url = db_url(url) if from_env else url and db_url(url)
        self.history = History(self)
        self.shoes = Shoes(self, self.history)
        self.rounds = Rounds(self, self.shoes, self.history)
        self.bets = Bets(self, self.shoes, self.history)
        self.requests = Requests(self)
        self.tokens = Tokens(self)

        def on_create(c: Connection) -> None:
            # the old files of a data folder go into that folder's own SQLite file only
            if (
                url is not None or not old_files.import_old_files(c, self.shoes, self.bets)
            ) and samples:
                old_files.insert_samples(c, self.shoes)

        super().__init__(data_dir, on_create, url)


# --- one Store per data folder per process ------------------------------------------------

_STORES: dict[tuple[int, Path | str], Store] = {}
_STORES_LOCK = threading.Lock()


def open_store(data_dir: Path | str, *, samples: bool = False, url: str | None = None) -> Store:
    """The store of a data folder, created (and the old files migrated) on first use.

    ``url`` (``--db``), else ``ROADS_APP_DB``, puts the library on a PostgreSQL server
    (`db_url`); without either it is the SQLite file in ``data_dir``. ``samples``: a
    brand-new database with no old files to import gets the sample shoes (the
    dashboard's first start); scripts and tests start empty.
    """
    url = db_url(url)
    folder = Path(data_dir).expanduser().resolve()
    key = (os.getpid(), folder if url is None else url)
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = Store(folder, samples=samples, url=url)
        return store


def forget_stores() -> None:
    """Close this thread's connections and forget the open stores (tests, shutdown)."""
    with _STORES_LOCK:
        for store in _STORES.values():
            store.close()
        _STORES.clear()
