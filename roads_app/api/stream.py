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

Why so: 10,000 followers of 24 tables must cost one read and one encoding per version,
and a write per follower of bytes already made, not a task woken, a diff and an
encoding per follower. Every follower of a shoe holds the same rounds (it got the
snapshot, then every event since), so one event takes them all to the new version: it is
made once and written to each follower's connection in one pass (`fanout.Channel`). A
write never waits for any of it: the watcher learns of it after the commit, on its own
thread, and the read and the good roads run on the store's threads.

A slow follower never blocks the others: its events wait in its own connection's
buffer, and past `fanout.MAX_BEHIND` bytes it is dropped (a last ``dropped`` event; an
EventSource reconnects and starts again from a snapshot). Every `fanout.PING_S` seconds
each stream gets a comment line, so that a proxy in between does not close a quiet
stream.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from roads_app.api.fanout import Broadcast, Follower, Frame, Outlet
from roads_app.store.watch import TOKENS_NEWS, Watcher

log = logging.getLogger(__name__)

RETRY_S = (0.1, 0.2, 0.5, 1.0, 2.0)
"""Waits before reading a shoe again after failed reads (a busy or restarting database)."""

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
    """One followed shoe: its latest (version, rounds, good roads), its snapshot event
    (made once per version, for whoever joins at it), and whether a read is due."""

    def __init__(self, shoe_id: str) -> None:
        self.id = shoe_id
        self.version: int | None = None
        self.rounds: Rounds | None = None
        self.tags: list[str] = []
        self.snapshot: Frame | None = None
        self.loaded = asyncio.Event()
        self.joining = 0  # followers waiting for the first read
        self.again = False
        self.task: asyncio.Task[None] | None = None


class Hub:
    """All followed shoes of one server process, fed by its watcher; their followers are
    channels of one `fanout.Broadcast`, keyed by shoe id."""

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
        self._broadcast: Broadcast | None = None
        self._keyed: dict[Follower, None] = {}  # followers that came with a token
        self.sent = 0
        """Events sent to followers so far, one a follower (not the keep-alive pings):
        ``/metrics``."""

    @property
    def followed(self) -> int:
        """Shoes with at least one follower now."""
        return len(self._shoes)

    def followers(self) -> dict[str, int]:
        """Followers now, per followed shoe (read by ``/metrics`` from any thread)."""
        b = self._broadcast
        return {} if b is None else {k: len(c.followers) for k, c in list(b.channels.items())}

    def changed(self, _shoe_id: str) -> None:
        """A write through this process: the watcher looks now rather than at its next tick."""
        self._watcher.poke()

    # --- news from the watcher's thread

    def _attach(self) -> Broadcast:
        if self._broadcast is None:
            self._loop = asyncio.get_running_loop()
            self._broadcast = Broadcast(on_empty=self._unfollow)
            self._unsubscribe = self._watcher.subscribe(self._told)
        return self._broadcast

    def _told(self, _seq: int, changed: frozenset[str]) -> None:
        """On the watcher's thread: hand the news to the event loop, nothing more."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(self._moved, changed)

    def _moved(self, changed: frozenset[str]) -> None:
        if TOKENS_NEWS in changed:  # before any change after the revoke is published
            self._end_keyed()
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

    def _read_tagged(self, shoe_id: str) -> tuple[Snapshot, list[str]]:
        """On a store thread: the shoe and its good roads (kept off the event loop)."""
        snap = self._read(shoe_id)
        rounds = snap[1] if snap is not None else None
        return snap, (self._tags(rounds) if self._tags is not None and rounds else [])

    async def _read_until_current(self, s: _Shoe) -> None:
        failures = 0
        while True:
            s.again = False
            try:
                snap, tags = await self._run(self._read_tagged, s.id)
            except Exception as e:  # a busy or restarting database: read again shortly
                if failures == 0:  # said once, not at every try
                    log.warning("following shoe %s: %s", s.id, e)
                await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1
                s.again = True
            else:
                failures = 0
                self._apply(s, snap, tags)
            if not s.again or self._shoes.get(s.id) is not s:
                return

    def _apply(self, s: _Shoe, snap: Snapshot, tags: list[str]) -> None:
        """The shoe's new version: one event made and written to every follower."""
        version, rounds = snap if snap is not None else (None, None)
        first = not s.loaded.is_set()
        if not first and version == s.version:
            return
        before = s.rounds
        s.version, s.rounds, s.tags, s.snapshot = version, rounds, tags, None
        s.loaded.set()
        channel = None if first or self._broadcast is None else self._broadcast.channels.get(s.id)
        if channel is None:
            return
        if rounds is None:
            channel.end(Frame(Change("gone", version, []).encode()))
        else:
            step = _with_tags(diff(before, version, rounds), tags)
            self.sent += len(channel.followers)
            channel.publish(Frame(step.encode()))

    def _end_keyed(self) -> None:
        """A revoke: every stream that came with a token ends (its client connects again
        and is let back in while its token holds), so none is sent a change made after a
        revoke of its token. Revokes are rare; a stream's snapshot again is cheap."""
        keyed, self._keyed = self._keyed, {}
        if self._broadcast is not None:
            for f in keyed:
                self._broadcast.leave(f, "revoked")

    def _unfollow(self, shoe_id: str) -> None:
        """The shoe's last follower left: stop reading it."""
        s = self._shoes.get(shoe_id)
        if s is not None and s.joining == 0:
            del self._shoes[shoe_id]
            if s.task is not None:
                s.task.cancel()

    # --- the followers

    async def follow(self, shoe_id: str, out: Outlet, *, keyed: bool = False) -> Follower | None:
        """Send ``out`` the shoe's snapshot and join it to the shoe's channel, so that it
        gets every later event; None when the shoe is gone (its ``gone`` event sent).
        ``keyed``: the stream came with a token, and ends at a revoke (`_end_keyed`)."""
        broadcast = self._attach()
        s = self._shoes.get(shoe_id)
        if s is None:
            s = self._shoes[shoe_id] = _Shoe(shoe_id)
            self._refresh(s)
        s.joining += 1
        try:
            await s.loaded.wait()
        finally:
            s.joining -= 1
        if s.rounds is None:
            out.put(Frame(Change("gone", s.version, []).encode()))
            if shoe_id not in broadcast.channels:
                self._unfollow(shoe_id)
            return None
        if s.snapshot is None:
            s.snapshot = Frame(Change("snapshot", s.version, s.rounds, s.tags).encode())
        self.sent += 1
        f = broadcast.channel(shoe_id).join(out, s.snapshot)
        if keyed and not f.ended.done():
            self._keyed[f] = None
            f.ended.add_done_callback(lambda _e: self._keyed.pop(f, None))
        return f

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._broadcast is not None:
            self._broadcast.close()
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
