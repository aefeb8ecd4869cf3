"""Fan-out: one frame's bytes, made once, written to every follower of a stream key.

Why: a change followed by 10,000 connections must cost one encoding and one write per
connection, not a task, a diff and an encoding per connection. A `Frame` holds an event's
Server-Sent Events bytes and the same bytes as an HTTP chunk, both made once; `Channel`
(one per stream key: a shoe id, a table, a lobby) writes the chunk to each follower's
connection in one pass on the event loop, with no task woken per follower.

A follower's `Outlet` is its connection's own transport when the server exposes it
(uvicorn: the bytes go straight to the socket, or wait in the transport's buffer), else a
bounded queue emptied by one task through ASGI ``send``. Either way a follower that does
not read holds nobody else up, and once more than `MAX_BEHIND` bytes wait for it, it is
sent a last ``dropped`` event and its connection is closed (memory stays bounded). An
EventSource reconnects by itself and starts again from a snapshot.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import gc
import time
from collections.abc import Callable, Iterator
from typing import Any

from starlette.types import Message, Receive, Scope, Send

MAX_BEHIND = 1 << 20
"""Bytes that may wait for one follower (about a thousand events) before it is dropped."""
CLOSE_GRACE_S = 10.0
"""How long a dropped follower's connection may take to flush before it is cut."""
PING_S = 15.0
"""How often each stream gets a keep-alive comment (``: ping``)."""
FREEZE_FROM = 1000
"""Followers from which their connections' objects are kept out of full garbage collections."""
FREEZE_GROWTH = 1.25
"""Followers grown by this factor since the last freeze: freeze again."""
STEP = 250
"""Followers written a frame in one turn of the event loop (`Channel.publish`)."""
HOLD_MOST_S = 0.025
"""Longest a frame's writes wait for appends in flight (`Holding`)."""
HOLD_TURN_S = 0.001
"""How often a held channel looks again whether the appends are done."""
RAW_SEND = "roads_app.raw_send"
"""Scope key of the server's own ``send`` (its connection), set by `app.App`."""


class Holding:
    """Appends in flight on the store threads: while any is, the followers' writes wait,
    each frame at most `HOLD_MOST_S`.

    Why: an append's store call lets go of Python's GIL at each SQL statement and Polars
    call (about thirty times) and asks for it back; while the event loop was writing an
    event to thousands of followers it got it back only when the loop was forced to let
    go, after the switch interval, so the append's slowest took several times its own
    work (2,000 lobby followers: p99 31-35 ms). Held, the loop waits in its poll with
    the GIL free. Counted on the event loop's thread only (`during`)."""

    def __init__(self) -> None:
        self.count = 0

    @contextlib.contextmanager
    def during(self) -> Iterator[None]:
        self.count += 1
        try:
            yield
        finally:
            self.count -= 1


HOLD = Holding()
"""The process's appends in flight (one event loop a process: the server's)."""


class Frame:
    """One event as sent: its Server-Sent Events bytes and the same as an HTTP/1.1 chunk."""

    __slots__ = ("chunk", "sse")

    def __init__(self, sse: bytes) -> None:
        self.sse = sse
        self.chunk = b"%x\r\n%b\r\n" % (len(sse), sse)


PING = Frame(b": ping\n\n")
DROPPED = Frame(b'event: dropped\ndata: {"reason":"too far behind: reconnect"}\n\n')


class TransportOutlet:
    """A follower's connection written directly (its response is chunked): one
    ``transport.write`` of a shared chunk per frame, the transport's buffer as its queue."""

    def __init__(self, transport: asyncio.WriteTransport, limit: int = MAX_BEHIND) -> None:
        self.transport = transport
        self.limit = limit

    def put(self, frame: Frame) -> bool:
        """Write the frame; False when the follower is too far behind (or gone)."""
        t = self.transport
        if t.is_closing() or t.get_write_buffer_size() > self.limit:
            return False
        t.write(frame.chunk)
        return True

    async def end(self, send: Send, dropped: bool) -> None:
        """End the response: the last chunk (and the connection, for a dropped one)."""
        t = self.transport
        if dropped:
            if not t.is_closing():
                t.write(DROPPED.chunk)
                t.close()  # sends what is buffered, then closes
            return
        await _end_response(send)


class QueueOutlet:
    """A follower behind plain ASGI ``send``: a queue of shared frames, bounded in bytes,
    emptied by one task."""

    def __init__(self, send: Send, limit: int = MAX_BEHIND) -> None:
        self.send = send
        self.limit = limit
        self.queue: collections.deque[Frame] = collections.deque()
        self.waiting = 0
        self.ready = asyncio.Event()
        self.task = asyncio.get_running_loop().create_task(self._pump())

    def put(self, frame: Frame) -> bool:
        if self.waiting > self.limit:
            return False
        self.queue.append(frame)
        self.waiting += len(frame.sse)
        self.ready.set()
        return True

    async def _pump(self) -> None:
        while True:
            await self.ready.wait()
            self.ready.clear()
            while self.queue:
                frame = self.queue.popleft()
                self.waiting -= len(frame.sse)
                await self.send(_body(frame.sse))

    async def end(self, send: Send, dropped: bool) -> None:
        self.task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.task
        if dropped:
            self.queue.clear()
            self.queue.append(DROPPED)
        while self.queue:  # what was put before the end (a gone event) is sent first
            await _within(send(_body(self.queue.popleft().sse)))
        await _end_response(send)


Outlet = TransportOutlet | QueueOutlet


async def _within(step: Any) -> None:
    """A write that a follower who stopped reading could hold up forever: bounded."""
    with contextlib.suppress(TimeoutError, OSError):
        await asyncio.wait_for(step, CLOSE_GRACE_S)


def _body(data: bytes, more: bool = True) -> Message:
    return {"type": "http.response.body", "body": data, "more_body": more}


async def _end_response(send: Send) -> None:
    await _within(send(_body(b"", more=False)))


def outlet(scope: Scope, send: Send) -> Outlet:
    """The fastest way to this follower (call after the response's start was sent): its
    own transport when the server's ``send`` exposes it and the response is chunked."""
    cycle = getattr(scope.get(RAW_SEND), "__self__", None)
    transport = getattr(cycle, "transport", None)
    if _writable(transport) and getattr(cycle, "chunked_encoding", None):
        return TransportOutlet(transport)
    return QueueOutlet(send)


def _writable(transport: object) -> bool:
    """Whether ``transport`` writes as an asyncio write transport does: by what it does,
    not its class, since uvloop's (the server's loop) do not derive from asyncio's
    (by class, every follower went through a queue and a task of its own)."""
    return all(
        callable(getattr(transport, m, None))
        for m in ("write", "is_closing", "get_write_buffer_size", "close", "abort")
    )


class Follower:
    """One connection following one key; `ended` says why it stopped."""

    __slots__ = ("channel", "ended", "outlet")

    def __init__(self, channel: Channel, out: Outlet) -> None:
        self.channel = channel
        self.outlet = out
        self.ended: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def stop(self, why: str) -> None:
        if not self.ended.done():
            self.ended.set_result(why)


class Channel:
    """The followers of one stream key; `publish` writes one frame to all of them.

    The writes go `STEP` followers at a time: a frame for more followers than that is
    written in steps, each a turn of the event loop of its own, so a write request
    (an append, answered on the same loop) waits for one step, not for thousands of
    writes. Frames are written in the order published, each to the followers there
    were when it was published (one who joined later had it in its snapshot)."""

    def __init__(self, key: str, owner: Broadcast) -> None:
        self.key = key
        self.owner = owner
        self.followers: dict[Follower, None] = {}  # insertion-ordered set
        self._pending: collections.deque[tuple[Frame, list[Follower]]] = collections.deque()
        self._at = 0  # followers of the first pending frame written so far
        self._since = 0.0  # when the first pending frame was published (`Holding`)

    def join(self, out: Outlet, first: Frame) -> Follower:
        """A new follower, sent ``first`` (its snapshot) and every frame published after."""
        f = Follower(self, out)
        if out.put(first):
            self.followers[f] = None
        else:
            f.stop("dropped")
        return self.owner.joined(f)

    def publish(self, frame: Frame) -> None:
        """The same bytes to every follower; one too far behind is dropped, not waited on."""
        self._pending.append((frame, list(self.followers)))
        if len(self._pending) == 1:
            self._since = time.monotonic()
            self._step()

    def _step(self) -> None:
        """Write up to `STEP` followers' share of the pending frames; the rest on the
        loop's next turn. While appends are in flight (`HOLD`) and the first frame has
        waited less than `HOLD_MOST_S`, look again in `HOLD_TURN_S`."""
        if not self._pending:  # written meanwhile (`flush`)
            return
        if HOLD.count and time.monotonic() - self._since < HOLD_MOST_S:
            asyncio.get_running_loop().call_later(HOLD_TURN_S, self._step)
            return
        budget = STEP
        while self._pending and budget > 0:
            frame, targets = self._pending[0]
            part = targets[self._at : self._at + budget]
            self._at += len(part)
            budget -= len(part)
            followers = self.followers
            behind = [f for f in part if f in followers and not f.outlet.put(frame)]
            for f in behind:
                self.owner.leave(f, "dropped")
            if self._at >= len(targets):
                self._pending.popleft()
                self._at = 0
        if self._pending:
            asyncio.get_running_loop().call_soon(self._step)

    def flush(self) -> None:
        """Write every pending frame now."""
        while self._pending:
            frame, targets = self._pending.popleft()
            part, self._at = targets[self._at :], 0
            behind = [f for f in part if f in self.followers and not f.outlet.put(frame)]
            for f in behind:
                self.owner.leave(f, "dropped")

    def end(self, frame: Frame, why: str = "gone") -> None:
        """A last frame to everyone (after what is pending), then the streams end."""
        self.flush()
        self.publish(frame)
        self.flush()
        for f in list(self.followers):
            self.owner.leave(f, why)


class Frozen:
    """Keeps many followers' long-lived objects out of Python's full garbage collections.

    Why: each stream holds about a hundred objects (its connection, request, response,
    tasks), and a full collection walks every object of the process: with 10,000 streams
    one took 0.2-2.6 s on a loaded 2-core machine, with the event loop, so every
    follower's events and every append, stopped. When the followers have grown by
    `FREEZE_GROWTH` (from `FREEZE_FROM` on), the young generations are collected (cheap)
    and everything left is frozen (`gc.freeze`); when they have shrunk to a quarter,
    it is unfrozen, so the objects of streams that ended are collected as before."""

    def __init__(self) -> None:
        self.at = 0  # followers at the last freeze (0: nothing frozen by us)

    def followers(self, n: int) -> None:
        if n >= max(FREEZE_FROM, self.at * FREEZE_GROWTH):
            gc.collect(1)
            gc.freeze()
            self.at = n
        elif self.at and n < self.at / 4:
            gc.unfreeze()
            self.at = 0


class Broadcast:
    """Every channel of one server process, by stream key, and their keep-alive pings.

    ``on_empty(key)`` is called when a key's last follower left (its source can stop
    watching it)."""

    def __init__(self, on_empty: Callable[[str], None] | None = None) -> None:
        self.channels: dict[str, Channel] = {}
        self._on_empty = on_empty
        self._pinger: asyncio.Task[None] | None = None
        self.count = 0
        """Followers now (kept, not summed: `Frozen` looks at it on every join)."""
        self._frozen = Frozen()

    @property
    def followers(self) -> int:
        return self.count

    def joined(self, f: Follower) -> Follower:
        """Count a follower that `Channel.join` took in."""
        if not f.ended.done():
            self.count += 1
            self._frozen.followers(self.count)
        return f

    def channel(self, key: str) -> Channel:
        c = self.channels.get(key)
        if c is None:
            c = self.channels[key] = Channel(key, self)
            if self._pinger is None:
                self._pinger = asyncio.get_running_loop().create_task(self._pings())
        return c

    def leave(self, f: Follower, why: str = "left") -> None:
        """``f`` stops following (``why``: left, dropped, gone); a key left without
        followers is forgotten."""
        c = f.channel
        if c.followers.pop(f, 0) is None:
            self.count -= 1
            self._frozen.followers(self.count)
        f.stop(why)
        if not c.followers and self.channels.get(c.key) is c:
            del self.channels[c.key]
            if self._on_empty is not None:
                self._on_empty(c.key)

    async def _pings(self) -> None:
        while True:
            await asyncio.sleep(PING_S)
            for c in list(self.channels.values()):
                c.publish(PING)

    def close(self) -> None:
        if self._pinger is not None:
            self._pinger.cancel()
            self._pinger = None
        for c in list(self.channels.values()):
            for f in list(c.followers):
                f.stop("closing")
        self.channels.clear()
        self.count = 0


async def serve(
    scope: Scope, receive: Receive, send: Send, follow: Callable[[Outlet], Any]
) -> None:
    """Run one follower's response: ``follow(outlet)`` joins it to a channel and returns
    its `Follower` (or None: nothing to follow, the stream ends at once); the response
    ends when the follower is ended or the client goes away."""
    out = outlet(scope, send)
    follower: Follower | None = await follow(out)
    why = "gone"
    if follower is not None:
        gone = asyncio.get_running_loop().create_task(_left(receive))
        gone.add_done_callback(lambda _t: follower.stop("left"))
        try:
            why = await follower.ended
        finally:
            gone.cancel()
            follower.channel.owner.leave(follower)
    if why == "left":
        if isinstance(out, QueueOutlet):
            out.task.cancel()
        return
    await out.end(send, dropped=why == "dropped")
    if why == "dropped" and isinstance(out, TransportOutlet):
        # its connection closes once its buffer is sent: wait for that (the server would
        # take the response for an unfinished one), and cut it if that never comes
        await _within(_left(receive))
        with contextlib.suppress(Exception):
            out.transport.abort()


async def _left(receive: Receive) -> None:
    """Returns when the client has gone away."""
    while True:
        message: Message = await receive()
        if message["type"] == "http.disconnect":
            return
