"""Many followers of one shoe: the API's event streams fed by the process's one watcher.

Over real HTTP, every follower of a shoe ends with exactly the rounds there are,
whatever happened (appends, a void, an undo, another process's write, the trash). In
the process (`stream.Hub` over a real store and a real watcher), a version costs one
read of the shoe however many follow it, an idle followed shoe costs no read at all,
and the followers at the same version are sent the very same bytes (made once)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from roads_app.api.service import Feed, tags
from roads_app.api.stream import Hub
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens, watch
from tests.api_server import ApiServer, SseFollower
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


def test_a_version_is_read_once_and_its_bytes_made_once_for_every_follower(tmp_path: Path):
    meta = ShoeMeta(name="hub", source="hand")
    store = db.open_store(tmp_path)
    store.shoes.create(meta, rounds_from_winners("BP"))
    feed = Feed(tmp_path)
    reads: list[str] = []

    def read(shoe_id: str) -> Any:
        reads.append(shoe_id)
        return feed.snapshot(shoe_id)

    w = watch.Watcher(tmp_path, interval_s=0.01).start()
    pool = ThreadPoolExecutor(max_workers=2)
    n = 60

    async def scenario() -> tuple[list[list[bytes]], int, int]:
        loop = asyncio.get_running_loop()

        async def run(fn: Any, *args: Any) -> Any:
            return await loop.run_in_executor(pool, fn, *args)

        hub = Hub(w, read, run, tags)
        got: list[list[bytes]] = [[] for _ in range(n)]

        async def follower(i: int) -> None:
            async for frame in hub.follow(meta.id):
                got[i].append(frame)

        tasks = [asyncio.create_task(follower(i)) for i in range(n)]
        while not all(got):
            await asyncio.sleep(0.01)
        idle_from = len(reads)
        await asyncio.sleep(0.5)  # an idle followed shoe: nothing read
        idle_reads = len(reads) - idle_from
        for k, winner in enumerate("TBB"):
            await asyncio.to_thread(store.rounds.append, meta.id, rounds_from_winners(winner), None)
            while not all(len(g) >= 2 + k for g in got):
                await asyncio.sleep(0.01)
        for t in tasks:
            t.cancel()
        await hub.close()
        return got, idle_reads, len(reads)

    try:
        got, idle_reads, total_reads = _run_apart(scenario)
    finally:
        w.stop()
        pool.shutdown()
    assert idle_reads == 0
    assert total_reads == 4  # the first read, then one per version: not one per follower
    for g in got:
        events = [e for e in map(_parse, g) if e is not None]
        assert [k for k, _ in events] == ["snapshot", "append", "append", "append"]
        rounds = [r["winner"] for _, d in events for r in d["rounds"]]
        assert "".join(rounds) == "BPTBB"
    for k in range(4):  # the same bytes object for every follower: made once
        assert len({id(g[k]) for g in got}) == 1
