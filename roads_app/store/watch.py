"""One watcher of the store per server process: what changed, told to whoever follows.

Why: every open page (a scoreboard, a display, the wall of tables) must show a result
within a second whoever wrote it (a tab, the CLI, the HTTP API, another server on the
same folder). Each page asking the database a few times a second costs the server a
script run per page per poll; here one thread per process asks SQLite one question,
``PRAGMA data_version`` (which changes when *another* connection committed, in this
process or any other), on its own connection that never writes, every `INTERVAL_S`.
Only when it moved does it read the shoes' versions (one small query) and tell the
followers which shoes changed. An idle followed page costs nothing beyond that one
pragma for the whole process.

Followers are callbacks (`Watcher.subscribe`), called on the watcher's thread with the
change's sequence number and the ids that changed; a callback must only hand the news
on (an event loop's ``call_soon_threadsafe``), never do work there.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from roads_app.store.db import BUSY_TIMEOUT_S, db_path

log = logging.getLogger(__name__)

INTERVAL_S = 0.05
"""How often the watcher asks SQLite whether anything was committed (a pragma: microseconds)."""

Listener = Callable[[int, frozenset[str]], None]


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


class Watcher:
    """Watches one data folder's ``roads.db`` from a daemon thread (`start`)."""

    def __init__(self, data_dir: Path | str, interval_s: float = INTERVAL_S) -> None:
        self.path = db_path(data_dir)
        self.interval_s = interval_s
        self.seq = 0
        """Bumped by every change the watcher saw (the wall follows this)."""
        self._shoes: dict[str, ShoeNow] = {}
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._con: sqlite3.Connection | None = None
        self._data_version: int | None = None

    # --- what followers read (any thread)

    def shoe(self, shoe_id: str) -> ShoeNow | None:
        """The shoe as last seen (None: no such shoe, or in the trash)."""
        with self._lock:
            return self._shoes.get(shoe_id)

    def version(self, shoe_id: str) -> int | None:
        now = self.shoe(shoe_id)
        return None if now is None else now.version

    def shoes(self) -> dict[str, ShoeNow]:
        """Every shoe not in the trash, as last seen (a copy)."""
        with self._lock:
            return dict(self._shoes)

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

    # --- the thread

    def start(self) -> Watcher:
        """Read the shoes once (so followers have versions at once), then watch."""
        self.poll()
        self._thread = threading.Thread(target=self._run, name="roads-watch", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)

    def _run(self) -> None:
        while not self._stop.wait(self.interval_s):
            try:
                self.poll()
            except sqlite3.Error as e:  # a busy or vanished file: try again next tick
                log.warning("watching %s: %s", self.path, e)
                self._close()

    def _connect(self) -> sqlite3.Connection:
        con = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                              check_same_thread=False)  # fmt: skip
        con.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        return con

    def _close(self) -> None:
        if self._con is not None:
            with contextlib.suppress(sqlite3.Error):
                self._con.close()
        self._con, self._data_version = None, None

    def poll(self) -> frozenset[str]:
        """Look once; the ids that changed since the last look (also called by `start`)."""
        if self._con is None:
            self._con = self._connect()
        con = self._con
        data_version = int(con.execute("PRAGMA data_version").fetchone()[0])
        if data_version == self._data_version:
            return frozenset()
        self._data_version = data_version
        rows = con.execute(
            "SELECT id, version, ended IS NOT NULL, rounds, source, updated FROM shoes "
            "WHERE deleted IS NULL"
        ).fetchall()
        shoes = {r[0]: ShoeNow(int(r[1]), bool(r[2]), int(r[3]), str(r[4]), _epoch(r[5]))
                 for r in rows}  # fmt: skip
        with self._lock:
            old = self._shoes
            changed = frozenset(
                k for k in old.keys() | shoes.keys() if old.get(k) != shoes.get(k)
            )
            self._shoes = shoes
            if changed:
                self.seq += 1
            seq, listeners = self.seq, list(self._listeners)
        if changed:
            for listener in listeners:
                try:
                    listener(seq, changed)
                except Exception:  # a follower's bug must not stop the others' news
                    log.exception("a follower of %s failed", self.path)
        return changed


def _epoch(stamp: str | None) -> float:
    """The store's ISO time stamp as epoch seconds (0 when missing or unreadable)."""
    try:
        return datetime.fromisoformat(stamp).timestamp() if stamp else 0.0
    except ValueError:
        return 0.0


_WATCHERS: dict[tuple[int, Path], Watcher] = {}
_WATCHERS_LOCK = threading.Lock()


def watcher(data_dir: Path | str) -> Watcher:
    """This process's watcher of a data folder, started on first use."""
    key = (os.getpid(), Path(data_dir).expanduser().resolve())
    with _WATCHERS_LOCK:
        w = _WATCHERS.get(key)
        if w is None:
            w = _WATCHERS[key] = Watcher(key[1]).start()
        return w
