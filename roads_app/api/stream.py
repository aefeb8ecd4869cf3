"""Following a shoe: the process's one watcher of the store, one read per version, and
each event's bytes made once for all the shoe's followers.

The database is the truth, so a shoe is followed by its version number, whoever wrote
it (this API, the dashboard, another server process or host, the CLI). The process's
one watcher (`roads_app.store.watch`: SQLite's data version, PostgreSQL's notifications)
says which shoes changed; for a followed one the hub reads the rounds once (off the
event loop, on the store's threads) and every follower is sent what takes it from the
rounds it last had to the rounds there are:

* ``snapshot`` (first event): every round;
* ``append``: the new rounds, when the old ones are unchanged in front of them;
* ``reset``: every round, after an undo, a void or an edit;
* ``gone``: the shoe was deleted (the stream then ends).

Why so: 2,000 followers of 24 tables each computing, encoding and reading their own
events kept one event loop full and delayed the tables' own writes. Here a version
costs one read and one encoding of each kind of event, whatever the followers; a
follower only writes bytes already made. A write never waits for any of it: the
watcher learns of it after the commit, on its own thread.

A slow follower never blocks the others or piles up a queue: it skips to the newest
version and gets the rounds it missed in one event. Every `PING_S` seconds each stream
gets a comment line, so that a proxy in between does not close a quiet stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from roads_app.store.watch import Watcher

log = logging.getLogger(__name__)

PING_S = 15.0
"""How often each stream gets a keep-alive comment (``: ping``)."""
RETRY_S = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Waits before reading a shoe again after failed reads (a busy or restarting database)."""
PING = b": ping\n\n"

Rounds = list[dict[str, Any]]
Snapshot = tuple[int, Rounds] | None
"""(version, rounds) of a shoe, or None when it does not exist (any more)."""
Run = Callable[..., Awaitable[Any]]
"""Runs a blocking store call off the event loop (the server's store threads)."""


@dataclass(frozen=True)
class Change:
    """One event for one follower."""

    kind: str  # snapshot | append | reset | gone
    version: int | None
    rounds: Rounds
    good_roads: list[str] = field(default_factory=list)  # what holds after the shoe's last round

    def data(self) -> dict[str, Any]:
        return {"version": self.version, "rounds": self.rounds, "good_roads": self.good_roads}

    def encode(self) -> bytes:
        """The event as sent on the stream (Server-Sent Events), its id the version.

        >>> Change("append", 3, [{"round": 3}]).encode()
        b'event: append\\ndata: {"version":3,"rounds":[{"round":3}],"good_roads":[]}\\nid: 3\\n\\n'
        """
        data = json.dumps(self.data(), separators=(",", ":"))
        text = f"event: {self.kind}\ndata: {data}\n"
        if self.version is not None:
            text += f"id: {self.version}\n"
        return (text + "\n").encode()


def diff(before: Rounds | None, version: int | None, after: Rounds | None) -> Change:
    """The event that takes a follower from the rounds it has to the rounds there are.

    >>> diff(None, 1, [{"round": 1}]).kind
    'snapshot'
    >>> c = diff([{"round": 1}], 2, [{"round": 1}, {"round": 2}])
    >>> c.kind, c.rounds
    ('append', [{'round': 2}])
    >>> diff([{"round": 1}, {"round": 2}], 3, [{"round": 1}]).kind
    'reset'
    """
    if after is None:
        return Change("gone", version, [])
    if before is None:
        return Change("snapshot", version, after)
    n = len(before)
    if len(after) >= n and after[:n] == before:
        return Change("append", version, after[n:])
    return Change("reset", version, after)


class _Shoe:
    """One followed shoe: its latest (version, rounds), the rounds of the version before,
    the events already made for this version, and an event that fires when it moves."""

    def __init__(self, shoe_id: str) -> None:
        self.id = shoe_id
        self.version: int | None = None
        self.rounds: Rounds | None = None
        self.before: Rounds | None = None
        """The rounds at the previous version: a follower still holding them (the same
        list) is sent the one shared ``step`` event."""
        self.frames: dict[str, bytes] = {}
        self.tags: list[str] | None = None
        self.loaded = asyncio.Event()
        self.moved = asyncio.Event()  # replaced by a fresh one after each move (or ping)
        self.followers = 0
        self.again = False
        self.task: asyncio.Task[None] | None = None

    def nudge(self) -> None:
        """Wake every follower (the shoe moved, or it is time for a ping)."""
        moved, self.moved = self.moved, asyncio.Event()
        moved.set()


class Hub:
    """All followed shoes of one server process, fed by its watcher."""

    def __init__(
        self,
        watcher: Watcher,
        read: Callable[[str], Snapshot],
        run: Run,
        tags: Callable[[Rounds], list[str]] | None = None,
    ) -> None:
        self._watcher = watcher
        self._read = read
        self._run = run
        self._tags = tags
        self._shoes: dict[str, _Shoe] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._pinger: asyncio.Task[None] | None = None
        self.sent = 0
        """Events sent to followers so far (not the keep-alive pings): ``/metrics``."""

    @property
    def followed(self) -> int:
        """Shoes with at least one follower now."""
        return len(self._shoes)

    def followers(self) -> dict[str, int]:
        """Followers now, per followed shoe (read by ``/metrics`` from any thread)."""
        return {s.id: s.followers for s in list(self._shoes.values())}

    def changed(self, _shoe_id: str) -> None:
        """A write through this process: the watcher looks now rather than at its next tick."""
        self._watcher.poke()

    # --- news from the watcher's thread

    def _attach(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._unsubscribe = self._watcher.subscribe(self._told)
            self._pinger = self._loop.create_task(self._pings())

    def _told(self, _seq: int, changed: frozenset[str]) -> None:
        """On the watcher's thread: hand the news to the event loop, nothing more."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(self._moved, changed)

    def _moved(self, changed: frozenset[str]) -> None:
        for shoe_id in changed:
            s = self._shoes.get(shoe_id)
            if s is not None:
                self._refresh(s)

    def _refresh(self, s: _Shoe) -> None:
        """Read the shoe once for all its followers (again after the read in flight, when
        one is)."""
        if s.task is not None and not s.task.done():
            s.again = True
            return
        s.again = False
        s.task = asyncio.get_running_loop().create_task(self._read_until_current(s))

    async def _read_until_current(self, s: _Shoe) -> None:
        failures = 0
        while True:
            s.again = False
            try:
                snap = await self._run(self._read, s.id)
            except Exception as e:  # a busy or restarting database: read again shortly
                if failures == 0:  # said once, not at every try
                    log.warning("following shoe %s: %s", s.id, e)
                await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1
                s.again = True
            else:
                failures = 0
                self._apply(s, snap)
            if not s.again or self._shoes.get(s.id) is not s:
                return

    def _apply(self, s: _Shoe, snap: Snapshot) -> None:
        version, rounds = snap if snap is not None else (None, None)
        if s.loaded.is_set():
            if version == s.version:
                return
            s.before = s.rounds
        s.version, s.rounds = version, rounds
        s.frames.clear()
        s.tags = None
        s.loaded.set()
        s.nudge()

    async def _pings(self) -> None:
        while True:
            await asyncio.sleep(PING_S)
            for s in list(self._shoes.values()):
                s.nudge()

    # --- the events

    def _good_roads(self, s: _Shoe) -> list[str]:
        if s.tags is None:
            s.tags = self._tags(s.rounds) if self._tags is not None and s.rounds else []
        return s.tags

    def _frame(self, s: _Shoe, sent: Rounds | None) -> bytes:
        """The event that takes a follower holding ``sent`` to the shoe's rounds now; the
        common ones (first event, the step from the version before, gone) made once."""
        if s.rounds is None:
            key = "gone"
        elif sent is None:
            key = "snapshot"
        elif sent is s.before:
            key = "step"
        else:  # a follower that skipped versions: its own event
            return _with_tags(diff(sent, s.version, s.rounds), self._good_roads(s)).encode()
        frame = s.frames.get(key)
        if frame is None:
            change = diff(None if key == "snapshot" else sent, s.version, s.rounds)
            frame = s.frames[key] = _with_tags(change, self._good_roads(s)).encode()
        return frame

    async def follow(self, shoe_id: str) -> AsyncIterator[bytes]:
        """The events of one shoe as bytes, from a snapshot on, until it is gone or we are
        cancelled (the client went away)."""
        self._attach()
        s = self._shoes.get(shoe_id)
        if s is None:
            s = self._shoes[shoe_id] = _Shoe(shoe_id)
            self._refresh(s)
        s.followers += 1
        try:
            await s.loaded.wait()
            sent: Rounds | None = None
            sent_version: int | None = -1
            while True:
                moved = s.moved  # taken before looking, so no move is missed
                if s.version != sent_version:
                    rounds, version = s.rounds, s.version  # the shoe may move while we send
                    yield self._frame(s, sent)
                    self.sent += 1
                    if rounds is None:
                        return
                    sent, sent_version = rounds, version
                else:
                    yield PING
                await moved.wait()
        finally:
            s.followers -= 1
            if s.followers == 0 and self._shoes.get(shoe_id) is s:
                del self._shoes[shoe_id]
                if s.task is not None:
                    s.task.cancel()

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._pinger is not None:
            self._pinger.cancel()
        for s in list(self._shoes.values()):
            if s.task is not None:
                s.task.cancel()
        self._shoes.clear()


def _with_tags(change: Change, tags: list[str]) -> Change:
    return (
        change
        if change.kind == "gone"
        else Change(change.kind, change.version, change.rounds, tags)
    )
