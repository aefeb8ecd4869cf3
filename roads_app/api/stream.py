"""Following a shoe in the database: one watcher per shoe, any number of followers.

The database is the truth, so a shoe is followed by its version number, whoever wrote
it (this API, the dashboard, another server process, the CLI). One watcher per followed
shoe reads the version every `POLL_S` (one cheap query) and is woken at once by writes
made through this process; on a change it reads the rounds once and every follower
works out what to send from the rounds it last sent:

* ``snapshot`` (first event): every round;
* ``append``: the new rounds, when the old ones are unchanged in front of them;
* ``reset``: every round, after an undo, a void or an edit;
* ``gone``: the shoe was deleted (the stream then ends).

A slow follower never blocks the others or piles up a queue: it skips to the newest
version and gets the rounds it missed in one event.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

log = logging.getLogger(__name__)

POLL_S = 0.1
"""How often a watched shoe's version is read (writes through this process wake it at once)."""

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


class _Watch:
    """The latest (version, rounds) of one shoe, and an event that fires when it moves."""

    def __init__(self, shoe_id: str, read: Callable[[str], Snapshot], run: Run) -> None:
        self.shoe_id = shoe_id
        self._read = read
        self._run = run
        self.latest: Snapshot = None
        self.loaded = asyncio.Event()
        self.moved = asyncio.Event()  # replaced by a fresh one after each move
        self.poke = asyncio.Event()
        self.followers = 0
        self.task: asyncio.Task[None] | None = None

    async def run(self, version: Callable[[str], int | None]) -> None:
        seen: int | None = -1
        while True:
            self.poke.clear()
            try:
                v = await self._run(version, self.shoe_id)
                if v != seen:
                    snap = await self._run(self._read, self.shoe_id)
                    seen = snap[0] if snap else None
                    self.latest = snap
                    self.loaded.set()
                    moved, self.moved = self.moved, asyncio.Event()
                    moved.set()
            except Exception as e:  # a busy or vanished database: try again at the next poll
                log.warning("following shoe %s: %s", self.shoe_id, e)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.poke.wait(), POLL_S)


class Hub:
    """All watched shoes of one server process."""

    def __init__(
        self,
        read: Callable[[str], Snapshot],
        version: Callable[[str], int | None],
        run: Run,
        tags: Callable[[Rounds], list[str]] | None = None,
    ) -> None:
        self._read = read
        self._version = version
        self._run = run
        self._tags = tags
        self._watches: dict[str, _Watch] = {}

    def changed(self, shoe_id: str) -> None:
        """A write through this process: look now rather than at the next poll."""
        w = self._watches.get(shoe_id)
        if w is not None:
            w.poke.set()

    async def follow(self, shoe_id: str) -> AsyncIterator[Change]:
        """The changes of one shoe, from a snapshot on, until it is gone or we are cancelled."""
        w = self._watches.get(shoe_id)
        if w is None:
            w = self._watches[shoe_id] = _Watch(shoe_id, self._read, self._run)
            w.task = asyncio.create_task(w.run(self._version))
        w.followers += 1
        try:
            await w.loaded.wait()
            sent: Rounds | None = None
            sent_version: int | None = -1
            while True:
                moved = w.moved  # take the event before reading, so no move is missed
                snap = w.latest
                version, rounds = snap if snap else (None, None)
                if version != sent_version:
                    change = diff(sent, version, rounds)
                    if rounds is not None and self._tags is not None:
                        change = replace(change, good_roads=self._tags(rounds))
                    yield change
                    if change.kind == "gone":
                        return
                    sent, sent_version = rounds, version
                await moved.wait()
        finally:
            w.followers -= 1
            if w.followers == 0 and self._watches.get(shoe_id) is w:
                del self._watches[shoe_id]
                if w.task is not None:
                    w.task.cancel()

    async def close(self) -> None:
        for w in list(self._watches.values()):
            if w.task is not None:
                w.task.cancel()
        self._watches.clear()
