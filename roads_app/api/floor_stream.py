"""Following floor tables: one table's stream across its shoes, and the lobby's stream of
every table.

Both are fed by the process's one watcher (`roads_app.store.watch`), which announces a
table's own changes as ``table:<code>`` beside the shoes' ids:

* ``GET /tables/{code}/events`` (`follow_table`): first a ``table`` event (the table's
  row: state, shoe, shoe number, limits), then its shoe's events as a shoe's stream
  makes them (`stream.Hub`'s shared frames: ``snapshot``, ``append``, ``reset``); a
  ``state`` event when the table opens, shuffles or closes, and a ``shoe`` event when
  its next shoe starts,
  followed by that shoe's ``snapshot``. One connection for the table's whole day.
* ``GET /lobby/events`` (`Lobby`): a ``lobby`` event with every table's summary
  (`floor_feed.Tables.summary`), then, each time a table or its shoe changes, a
  ``round`` event with what its rounds changed (`changed`) or a ``table`` event with
  its whole new summary (a shuffle, a new shoe, a state); `follow_lobby` rebuilds the
  summaries from them. A change is read (added to the summary kept, `Tables.tile`) and
  encoded once and its bytes written to every follower by `fanout` (a hundred tables
  followed by thousands of players); a follower that stops reading is dropped as a
  shoe's is.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from roads_app.api import fanout
from roads_app.api.floor_feed import Tables, Tile
from roads_app.api.service import NotFound
from roads_app.api.stream import RETRY_S, Hub, Run
from roads_app.roads.names import Road
from roads_app.store.floor import FloorTable
from roads_app.store.watch import TABLE_KEY, Watcher

log = logging.getLogger(__name__)

TABLE_BEHIND = 256
"""Events that may wait for one table stream's client before it is dropped (it reconnects)."""
LOBBY = "lobby"
"""The lobby's stream key (`fanout.Broadcast`)."""
TICK_S = 0.05
"""How long the lobby gathers changes before reading them: every table changed in a tick
is read at once and written to each follower as one chunk (a hundred tables fed every
2 s are 50 changes a second: one write per follower per tick, not per change)."""


def event(kind: str, data: Any) -> bytes:
    """One Server-Sent Event.

    >>> event("state", {"state": "open"})
    b'event: state\\ndata: {"state":"open"}\\n\\n'
    """
    return f"event: {kind}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


BIG = Road.BIG_ROAD.value
ROUND_KEYS = frozenset({"round_count", "counts", "last", "last_round_code", "good_roads", BIG})
"""What a table's rounds change in its lobby summary: a change of nothing else is sent
as a ``round`` event (`changed`), any other as the whole summary (``table``)."""
ALWAYS = ("code", "shoe_number", "round_count", "state")
"""What every ``round`` event carries, changed or not: the table, where its shoe is."""


def changed(old: dict[str, Any] | None, new: dict[str, Any]) -> bytes | None:
    """The event that takes a follower's summary of a table from ``old`` to ``new``
    (None: the same). Its rounds alone changed (same shoe, same state, same keys): a
    ``round`` event with `ALWAYS`, the keys that changed and the big road from its first
    changed cell (``big_road_at``: the cells kept; ``big_road``: the cells from there);
    else ``table``, the whole summary (a shuffle, a new shoe, a state, a new table).

    Why: a summary carries its whole big road (a kilobyte and more) and a round changes
    one cell of it; a hundred tables dealt every 2 s to thousands of followers were
    about 100 MB/s of the same cells again.

    >>> old = {"code": "T1", "shoe_number": 1, "round_count": 1, "state": "open",
    ...        "last": ["B"], "big_road": [(0, 0, 1, "B")]}
    >>> new = {**old, "round_count": 2, "last": ["B", "B"],
    ...        "big_road": [(0, 0, 1, "B"), (0, 1, 2, "B")]}
    >>> kind, data = changed(old, new).decode().splitlines()[:2]
    >>> kind, {k: v for k, v in json.loads(data[6:]).items() if k not in ALWAYS}
    ('event: round', {'last': ['B', 'B'], 'big_road_at': 1, 'big_road': [[0, 1, 2, 'B']]})
    """
    if old == new:
        return None
    if (
        old is None
        or old.keys() != new.keys()
        or any(old[k] != new[k] for k in new if k not in ROUND_KEYS)
    ):
        return event("table", new)
    out = {k: new[k] for k in ALWAYS}
    out |= {k: v for k, v in new.items() if k not in out and k != BIG and old[k] != v}
    was, now = old[BIG], new[BIG]
    if was != now:
        same = (i for i, (a, b) in enumerate(zip(was, now, strict=False)) if a != b)
        at = next(same, min(len(was), len(now)))
        out |= {"big_road_at": at, BIG: now[at:]}
    return event("round", out)


def follow_lobby(tables: dict[str, dict[str, Any]], kind: str, data: Any) -> None:
    """A lobby follower's summaries (by table code) after one event of the lobby's
    stream: how a client rebuilds every table's whole summary from the snapshot and the
    ``table`` and ``round`` events after it (the format, docs/api.md)."""
    if kind == "lobby":
        tables.clear()
        tables.update((t["code"], t) for t in data["tables"])
    elif kind == "table":
        tables[data["code"]] = data
    elif kind == "round":
        old = tables[data["code"]]
        new = {**old, **data}
        if "big_road_at" in data:
            del new["big_road_at"]
            new[BIG] = list(old[BIG][: data["big_road_at"]]) + list(data[BIG])
        tables[data["code"]] = new


class _ShoeOut:
    """A table stream's outlet for its shoe's channel (`stream.Hub.follow`): the shoe's
    frames into the stream's queue, tagged with the shoe; False (dropped) when full."""

    def __init__(self, shoe: str, queue: asyncio.Queue[tuple[str | None, bytes]]) -> None:
        self.shoe, self.queue = shoe, queue

    def put(self, frame: fanout.Frame) -> bool:
        try:
            self.queue.put_nowait((self.shoe, frame.sse))
        except asyncio.QueueFull:
            return False
        return True


async def follow_table(
    code: str, watcher: Watcher, hub: Hub, read: Callable[[str], FloorTable], run: Run
) -> AsyncIterator[bytes]:
    """One table's events across its shoes (see the module's docstring), until the
    client goes away, or falls `TABLE_BEHIND` events behind (it reconnects)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[tuple[str | None, bytes]] = asyncio.Queue(maxsize=TABLE_BEHIND)
    moved = False

    def mark() -> None:
        nonlocal moved
        moved = True
        with contextlib.suppress(asyncio.QueueFull):  # full: the flag is read after the next
            queue.put_nowait((None, b""))

    def told(_seq: int, changed: frozenset[str]) -> None:
        if TABLE_KEY + code in changed:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(mark)

    async def join(shoe: str) -> fanout.Follower | None:
        return await hub.follow(shoe, _ShoeOut(shoe, queue))  # type: ignore[arg-type]

    def leave(f: fanout.Follower | None) -> None:
        if f is not None:
            f.channel.owner.leave(f)

    unsubscribe = watcher.subscribe(told)
    follower: fanout.Follower | None = None
    try:
        table = await run(read, code)
        yield event("table", table.to_dict())
        if table.shoe is not None:
            follower = await join(table.shoe)
        while follower is None or not follower.ended.done() or not queue.empty():
            try:
                shoe, frame = await asyncio.wait_for(queue.get(), fanout.PING_S)
            except TimeoutError:
                yield fanout.PING.sse
                continue
            if shoe is not None and shoe == table.shoe:
                yield frame
            if not moved:
                continue
            moved = False
            now = await run(read, code)
            if now.state != table.state:
                yield event("state", {"state": now.state.value, "version": now.version})
            if now.shoe != table.shoe and now.shoe is not None:
                leave(follower)
                yield event(
                    "shoe",
                    {"shoe": now.shoe, "shoe_number": now.shoe_number, "day": now.shoe_day},
                )
                follower = await join(now.shoe)
            table = now
    finally:
        unsubscribe()
        leave(follower)


class Lobby:
    """Every floor table's summary for all the lobby's followers of one server process:
    each change read and encoded once, its bytes written to every follower
    (`fanout.Channel`)."""

    def __init__(self, watcher: Watcher, tables: Tables, run: Run) -> None:
        self._watcher = watcher
        self._tables = tables
        self._run = run
        self._loop: asyncio.AbstractEventLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self._tiles: dict[str, Tile] = {}
        self._snapshot: fanout.Frame | None = None
        self._dirty: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._loaded = asyncio.Event()
        self._broadcast = fanout.Broadcast()

    # --- news from the watcher's thread

    def _attach(self) -> None:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            self._unsubscribe = self._watcher.subscribe(self._told)
            self._task = self._loop.create_task(self._load())

    def _told(self, _seq: int, changed: frozenset[str]) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._changed, changed)

    def _changed(self, changed: frozenset[str]) -> None:
        """The tables a change concerns: its own, or the one whose shoe it is."""
        by_shoe = {t.shoe: code for code, t in self._watcher.tables().items() if t.shoe}
        for key in changed:
            code = key.removeprefix(TABLE_KEY) if key.startswith(TABLE_KEY) else by_shoe.get(key)
            if code is not None:
                self._dirty.add(code)
        if self._dirty and (self._task is None or self._task.done()):
            assert self._loop is not None
            self._task = self._loop.create_task(self._refresh())

    # --- reading and encoding, once for every follower

    async def _load(self) -> None:
        failures = 0
        while True:
            try:
                codes = [t["code"] for t in await self._run(self._tables.list)]
                for code in codes:
                    self._tiles[code] = await self._run(self._tables.tile, code)
                break
            except Exception as e:  # a busy or restarting database: read again shortly
                if failures == 0:
                    log.warning("the lobby: %s", e)
                await asyncio.sleep(RETRY_S[min(failures, len(RETRY_S) - 1)])
                failures += 1
        self._loaded.set()
        if self._dirty:
            await self._refresh()

    async def _refresh(self) -> None:
        """Read the tables changed within a tick (`TICK_S`) and those changed meanwhile
        (one call on the lobby's thread for all of them) and publish them as one frame:
        one write per follower per batch, however many tables changed in it."""
        await self._loaded.wait()
        while self._dirty:
            await asyncio.sleep(TICK_S)  # the tick's other changes join this read
            codes, self._dirty = sorted(self._dirty), set()
            try:
                read = await self._run(self._read, codes)
            except Exception as e:  # read again shortly
                log.warning("the lobby, tables %s: %s", ", ".join(codes), e)
                self._dirty.update(codes)
                await asyncio.sleep(RETRY_S[-1])
                continue
            events = []
            for code, tile in read.items():
                if tile is None:
                    continue  # gone
                kept = self._tiles.get(code)
                self._tiles[code] = tile
                change = changed(kept.summary if kept is not None else None, tile.summary)
                if change is not None:  # else nothing a tile shows changed
                    events.append(change)
            if not events:
                continue
            self._snapshot = None
            channel = self._broadcast.channels.get(LOBBY)
            if channel is not None:
                channel.publish(fanout.Frame(b"".join(events)))

    def _read(self, codes: list[str]) -> dict[str, Tile | None]:
        """On the lobby's thread: each table's tile, added to where it can be
        (`Tables.tile`; None: no such table now)."""
        out: dict[str, Tile | None] = {}
        for code in codes:
            try:
                out[code] = self._tables.tile(code, self._tiles.get(code))
            except NotFound:
                out[code] = None
        return out

    def snapshot(self) -> fanout.Frame:
        """The ``lobby`` event now (made once per change for every new follower)."""
        if self._snapshot is None:
            summaries = [t.summary for t in self._tiles.values()]
            tables = sorted(summaries, key=lambda s: (s["position"], s["code"]))
            self._snapshot = fanout.Frame(event("lobby", {"tables": tables}))
        return self._snapshot

    async def follow(self, out: fanout.Outlet) -> fanout.Follower:
        """Send ``out`` every table's summary and join it to the lobby's channel, which
        then carries each table's new summary."""
        self._attach()
        await self._loaded.wait()
        return self._broadcast.channel(LOBBY).join(out, self.snapshot())

    @property
    def followers(self) -> int:
        return self._broadcast.followers

    async def close(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
        self._broadcast.close()
        if self._task is not None:
            self._task.cancel()
