"""Many followers of one shoe: the API's event streams fed by the process's one watcher.

Over real HTTP, every follower of a shoe ends with exactly the rounds there are,
whatever happened (appends, a void, an undo, another process's write, the trash). In
the process (`stream.Hub` over a real store and a real watcher), a version costs one
read of the shoe however many follow it, an idle followed shoe costs no read at all,
the followers are sent the very same bytes (encoded once, even for followers that fell
behind), and a follower that stopped reading is dropped without holding up the others."""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from roads_app.api import fanout, stream
from roads_app.api.app import create_app
from roads_app.api.fanout import STEP, Broadcast, Frame, QueueOutlet, TransportOutlet
from roads_app.api.floor_stream import LOBBY
from roads_app.api.service import Feed, tags
from roads_app.api.stream import Hub
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens, watch
from tests.api_server import ApiServer, SseFollower, free_port
from tests.test_api import other_process_appends, state
from tests.test_watch import _run_apart


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("fanout") / "data").start()
    yield s
    s.stop()


def test_every_follower_ends_with_the_rounds_there_are(server: ApiServer):
    token = tokens.issue(server.data_dir, "operator")
    with server.client(token) as op:
        shoes = [op.post("/shoes", json={"name": f"t{i}"}).json()["id"] for i in range(2)]
        followers = [SseFollower(server.url, shoes[i % 2]) for i in range(24)]
        for f in followers:
            f.__enter__()
        try:
            for f in followers:
                f.wait_for(lambda f: f.events and f.events[0][0] == "snapshot")
            for w in "BPPTB":
                for s in shoes:
                    assert op.post(f"/shoes/{s}/rounds", json={"winner": w}).status_code == 201
            op.post(f"/shoes/{shoes[0]}/rounds/2/void")
            op.post(f"/shoes/{shoes[1]}/undo")
            other_process_appends(server.data_dir, shoes[1], "TT")
            want = {s: state(op, s) for s in shoes}
            for i, f in enumerate(followers):
                version, rounds = want[shoes[i % 2]]
                f.wait_for(lambda f, v=version: f.version == v)
                assert f.rounds == rounds
            db.open_store(server.data_dir).shoes.delete(shoes[0])
            for f in followers[::2]:
                f.wait_for(lambda f: f.events[-1][0] == "gone")
            assert all(f.events[-1][0] != "gone" for f in followers[1::2])
            db.open_store(server.data_dir).shoes.delete(shoes[1])  # every stream ends
            for f in followers[1::2]:
                f.wait_for(lambda f: f.events[-1][0] == "gone")
        finally:
            for f in followers:
                f.__exit__(None, None, None)


def _parse(frame: bytes) -> tuple[str, dict[str, Any]] | None:
    fields = dict(line.split(": ", 1) for line in frame.decode().strip().split("\n"))
    if "event" not in fields:
        return None  # a keep-alive comment
    return fields["event"], json.loads(fields["data"])


class Client:
    """One follower's ASGI ``send``: keeps the bytes it is given; while ``held`` is clear it
    does not return (a client that stopped reading)."""

    def __init__(self, reading: bool = True) -> None:
        self.frames: list[bytes] = []
        self.held = asyncio.Event()
        if reading:
            self.held.set()

    async def send(self, message: dict[str, Any]) -> None:
        await self.held.wait()
        self.frames.append(message["body"])

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        return [e for e in map(_parse, self.frames) if e is not None]


class Bench:
    """A real store, a real watcher and a `Hub` over them; appends go through the store
    (another writer), so each version reaches the hub the way any change does."""

    def __init__(self, tmp_path: Path, winners: str = "BP") -> None:
        self.meta = ShoeMeta(name="hub", source="hand")
        self.store = db.open_store(tmp_path)
        self.store.shoes.create(self.meta, rounds_from_winners(winners))
        self.feed = Feed(tmp_path)
        self.reads: list[str] = []
        self.watcher = watch.Watcher(tmp_path, interval_s=0.01)
        self.pool = ThreadPoolExecutor(max_workers=2)

    def read(self, shoe_id: str) -> Any:
        self.reads.append(shoe_id)
        return self.feed.snapshot(shoe_id)

    def hub(self) -> Hub:
        loop = asyncio.get_running_loop()

        async def run(fn: Any, *args: Any) -> Any:
            return await loop.run_in_executor(self.pool, fn, *args)

        return Hub(self.watcher, self.read, run, tags)

    async def append(self, winner: str) -> None:
        rounds = rounds_from_winners(winner)
        await asyncio.to_thread(self.store.rounds.append, self.meta.id, rounds, None)

    def run(self, scenario: Any) -> Any:
        self.watcher.start()
        try:
            return _run_apart(scenario)
        finally:
            self.watcher.stop()
            self.pool.shutdown()


async def until(condition: Any) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_a_version_is_read_once_and_its_bytes_made_once_for_every_follower(tmp_path: Path):
    bench = Bench(tmp_path)
    n = 60

    async def scenario() -> tuple[list[Client], int, int]:
        hub = bench.hub()
        clients = [Client() for _ in range(n)]
        for c in clients:
            assert await hub.follow(bench.meta.id, QueueOutlet(c.send)) is not None
        await until(lambda: all(c.frames for c in clients))
        idle_from = len(bench.reads)
        await asyncio.sleep(0.5)  # an idle followed shoe: nothing read
        idle_reads = len(bench.reads) - idle_from
        for k, winner in enumerate("TBB"):
            await bench.append(winner)
            await until(lambda k=k: all(len(c.frames) >= 2 + k for c in clients))
        await hub.close()
        return clients, idle_reads, len(bench.reads)

    clients, idle_reads, total_reads = bench.run(scenario)
    assert idle_reads == 0
    assert total_reads == 4  # the first read, then one per version: not one per follower
    for c in clients:
        events = c.events()
        assert [k for k, _ in events] == ["snapshot", "append", "append", "append"]
        assert "".join(r["winner"] for _, d in events for r in d["rounds"]) == "BPTBB"
    for k in range(4):  # the same bytes object for every follower: made once
        assert len({id(c.frames[k]) for c in clients}) == 1


def test_one_change_is_encoded_once_however_many_followers_and_however_far_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Half the followers stop reading while three rounds come in, then read again: every
    follower ends with the same rounds, and the events were encoded once per version (a
    snapshot and three appends), not once per follower that fell behind."""
    bench = Bench(tmp_path)
    encoded: list[str] = []
    real_encode = stream.Change.encode

    def counting(change: stream.Change) -> bytes:
        encoded.append(change.kind)
        return real_encode(change)

    monkeypatch.setattr(stream.Change, "encode", counting)

    async def scenario() -> list[Client]:
        hub = bench.hub()
        clients = [Client() for _ in range(40)]
        for c in clients:
            assert await hub.follow(bench.meta.id, QueueOutlet(c.send)) is not None
        await until(lambda: all(c.frames for c in clients))
        for c in clients[::2]:
            c.held.clear()
        for k, winner in enumerate("TBP"):
            await bench.append(winner)
            await until(lambda k=k: all(len(c.frames) >= 2 + k for c in clients[1::2]))
        for c in clients[::2]:
            c.held.set()
        await until(lambda: all(len(c.frames) >= 4 for c in clients))
        await hub.close()
        return clients

    clients = bench.run(scenario)
    for c in clients:
        rounds: list[str] = []
        for kind, data in c.events():
            rounds = (rounds if kind == "append" else []) + [r["winner"] for r in data["rounds"]]
        assert "".join(rounds) == "BPTBP"
    assert encoded == ["snapshot", "append", "append", "append"]


def test_a_follower_that_stops_reading_is_dropped_and_holds_nobody_up(tmp_path: Path):
    bench = Bench(tmp_path)

    async def scenario() -> tuple[str, Client, list[Client]]:
        hub = bench.hub()
        stuck = Client(reading=False)
        others = [Client() for _ in range(5)]
        # room for one event waiting: the snapshot is with `send`, then one more waits
        slow = await hub.follow(bench.meta.id, QueueOutlet(stuck.send, limit=0))
        assert slow is not None
        for c in others:
            assert await hub.follow(bench.meta.id, QueueOutlet(c.send)) is not None
        for k, winner in enumerate("TBPB"):
            await bench.append(winner)
            await until(lambda k=k: all(len(c.frames) >= 2 + k for c in others))
        why = await asyncio.wait_for(slow.ended, 10)
        await hub.close()
        return why, stuck, others

    why, stuck, others = bench.run(scenario)
    assert why == "dropped"
    assert not stuck.frames  # it never read; nothing piled up for it past the bound
    for c in others:
        assert [k for k, _ in c.events()] == ["snapshot", "append", "append", "append", "append"]


class Kept:
    """A follower's outlet that keeps the frames written to it, in order."""

    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def put(self, frame: Frame) -> bool:
        self.frames.append(frame.sse)
        return True


def test_a_fan_out_is_written_in_steps_in_order_to_those_who_followed_before_it():
    """More followers than `STEP`: a publish writes one step now and the rest on later
    turns of the loop (an append answered on the loop waits for one step), each frame to
    every follower in the order published; one who joined meanwhile is not sent it again
    (its snapshot had it)."""
    n = 2 * STEP + 7

    async def scenario() -> tuple[list[Kept], Kept, int]:
        channel = Broadcast().channel("k")
        outs = [Kept() for _ in range(n)]
        for out in outs:
            channel.join(out, Frame(b"snap"))  # type: ignore[arg-type]
        channel.publish(Frame(b"one"))
        channel.publish(Frame(b"two"))
        written_at_once = sum(len(o.frames) - 1 for o in outs)
        late = Kept()
        channel.join(late, Frame(b"snap with one and two"))  # type: ignore[arg-type]
        await until(lambda: not channel._pending)
        return outs, late, written_at_once

    outs, late, at_once = _run_apart(scenario)
    assert at_once == STEP
    assert all(o.frames == [b"snap", b"one", b"two"] for o in outs)
    assert late.frames == [b"snap with one and two"]


def test_the_followers_writes_wait_for_an_append_in_flight_and_no_longer_than_the_most(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While an append's store call is in flight (`fanout.HOLD`) a frame published is not
    written (the event loop waits in its poll, the GIL free for the append), and it is
    written once the append is done; held by appends that never end, it is written all
    the same after `HOLD_MOST_S` (a minute in the first part, so a slow machine's turns
    cannot reach it)."""

    async def scenario() -> tuple[list[bytes], list[bytes], list[bytes]]:
        channel = Broadcast().channel("k")
        out = Kept()
        channel.join(out, Frame(b"snap"))  # type: ignore[arg-type]
        monkeypatch.setattr(fanout, "HOLD_MOST_S", 60.0)
        with fanout.HOLD.during():
            channel.publish(Frame(b"one"))
            for _ in range(5):  # turns of the loop, and looks again (HOLD_TURN_S)
                await asyncio.sleep(fanout.HOLD_TURN_S)
            while_held = list(out.frames)
        await until(lambda: not channel._pending)
        after = list(out.frames)
        monkeypatch.setattr(fanout, "HOLD_MOST_S", 0.05)
        with fanout.HOLD.during():  # never let go here
            channel.publish(Frame(b"two"))
            await until(lambda: not channel._pending)
        return while_held, after, list(out.frames)

    while_held, after, last = _run_apart(scenario)
    assert fanout.HOLD.count == 0
    assert while_held == [b"snap"]
    assert after == [b"snap", b"one"]
    assert last == [b"snap", b"one", b"two"]


def joined(broadcast: Broadcast, key: str) -> list[Any]:
    """The outlets of a channel's followers, once it has one (the server's thread adds
    the follower just after writing its snapshot, which the client may read first)."""
    for _ in range(6000):
        channel = broadcast.channels.get(key)
        if channel is not None and channel.followers:
            return [f.outlet for f in list(channel.followers)]
        time.sleep(0.01)
    raise AssertionError(f"no follower joined {key}")


def test_a_follower_on_the_servers_own_loop_is_written_to_its_connection(tmp_path: Path):
    """uvicorn on uvloop, as `roads-app api` runs: a lobby follower's outlet is its
    connection's transport (no queue and task of its own), though uvloop's transports
    are not asyncio's classes."""
    app = create_app(tmp_path / "data")
    port = free_port()
    config = uvicorn.Config(app, port=port, loop="uvloop", http="httptools", log_level="warning")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{port}/lobby/events"
        for _ in range(600):
            with contextlib.suppress(httpx.TransportError):
                with httpx.stream("GET", url, timeout=30) as r:
                    chunks = r.iter_raw()  # kept: a generator dropped closes the stream
                    assert next(chunks).startswith(b"event: lobby")
                    outlets = joined(app.state.api.lobby._broadcast, LOBBY)
                break
            time.sleep(0.05)  # the server is starting
        assert [type(o) for o in outlets] == [TransportOutlet]
    finally:
        server.should_exit = True
        thread.join(timeout=30)
