"""The store's watcher: one per server process, it sees every commit (this process's,
another process's) and tells its followers which shoes changed, and nothing when
nothing changed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, watch
from roads_app.ui import follow


def shoe(data: Path, winners: str = "BP") -> str:
    meta = ShoeMeta(name="w", source="hand")
    db.open_store(data).shoes.create(meta, rounds_from_winners(winners))
    return meta.id


def test_a_write_by_another_process_is_told_to_followers(tmp_path: Path):
    sid = shoe(tmp_path)
    w = watch.Watcher(tmp_path).start()
    try:
        told: list[frozenset[str]] = []
        seen = threading.Event()

        def listener(_seq: int, changed: frozenset[str]) -> None:
            told.append(changed)
            seen.set()

        w.subscribe(listener)
        v0 = w.version(sid)
        r = subprocess.run(
            [sys.executable, "-m", "roads_app", "shoes", "add", sid, "BT", "--data", str(tmp_path)],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr
        assert seen.wait(30)
        assert told == [frozenset({sid})]
        assert w.version(sid) == v0 + 2 and w.shoe(sid).rounds == 4
    finally:
        w.stop()


def test_nothing_changed_tells_nothing(tmp_path: Path):
    """An idle store wakes no follower: a poll without a commit tells nobody."""
    sid = shoe(tmp_path)
    w = watch.Watcher(tmp_path)
    w.poll()
    told: list[frozenset[str]] = []
    w.subscribe(lambda _s, c: told.append(c))
    for _ in range(20):
        assert w.poll() == frozenset()
    db.open_store(tmp_path).shoes.rename(sid, "renamed")  # a commit on another connection
    assert w.poll() == frozenset({sid})
    db.open_store(tmp_path).shoes.end(sid)
    assert w.poll() == frozenset({sid}) and w.shoe(sid).ended
    db.open_store(tmp_path).shoes.delete(sid)
    assert w.poll() == frozenset({sid}) and w.shoe(sid) is None
    assert len(told) == 3


def test_a_waiting_page_is_answered_on_the_change_and_only_then(tmp_path: Path):
    sid = shoe(tmp_path)
    w = watch.Watcher(tmp_path, interval_s=0.01).start()
    try:
        v = w.version(sid)

        async def scenario() -> tuple[object, object]:
            idle = await follow.wait_for_change(w, sid, str(v), timeout=0.2)  # nothing moved
            waiting = asyncio.create_task(follow.wait_for_change(w, sid, str(v), timeout=30))
            await asyncio.sleep(0)
            await asyncio.to_thread(
                db.open_store(tmp_path).rounds.append, sid, rounds_from_winners("T"), None
            )
            return idle, await waiting

        idle, moved = _run_apart(scenario)
        assert idle == v and moved == v + 1
        assert w.followers == 0  # every waiting request let go of the watcher
    finally:
        w.stop()


def test_a_request_whose_page_has_gone_stops_waiting(tmp_path: Path):
    """A closed tab's request lets go within about a second, not after its whole wait: the
    server's shutdown waits for every request in flight (a server with one page following
    took 24 s to stop)."""
    sid = shoe(tmp_path)
    w = watch.Watcher(tmp_path, interval_s=0.01).start()
    try:
        v = w.version(sid)
        asked = []

        async def gone() -> bool:
            asked.append(1)
            return len(asked) >= 2  # the page closes its request after the first check

        async def scenario() -> tuple[object, float]:
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            got = await follow.wait_for_change(w, sid, str(v), timeout=30, gone=gone)
            return got, loop.time() - t0

        got, waited = _run_apart(scenario)
        assert got == v and len(asked) == 2
        assert waited < 10 * follow.GONE_CHECK_S  # far from the 30 s it was given
        assert w.followers == 0
    finally:
        w.stop()


def test_a_stopping_server_answers_its_waiting_pages_at_once(tmp_path: Path):
    """The server's shutdown waits for every request in flight: a page still open (a
    table's screen) is answered as the server stops, not after its whole wait, and a
    request that comes in while it stops is answered at once. Counted in turns of the
    event loop, not seconds: a waiting request otherwise looks again only after
    `follow.GONE_CHECK_S`, the wait itself is an hour."""
    sid = shoe(tmp_path)
    w = watch.Watcher(tmp_path, interval_s=0.01).start()

    async def turns_until_done(task: asyncio.Task[Any]) -> int:
        for turn in range(200):
            if task.done():
                return turn
            await asyncio.sleep(0)
        return -1

    try:
        v = w.version(sid)

        async def scenario() -> tuple[int, object, int]:
            waiting = asyncio.create_task(follow.wait_for_change(w, sid, str(v), timeout=3600))
            assert await turns_until_done(waiting) == -1  # it waits
            await asyncio.to_thread(follow.stop_waiting)  # as the server's stop does
            answered = await turns_until_done(waiting)
            late = asyncio.create_task(follow.wait_for_change(w, sid, str(v), timeout=3600))
            return answered, waiting.result(), await turns_until_done(late)

        answered, got, late = _run_apart(scenario)
        assert answered >= 0 and got == v  # answered unchanged: the page asks again
        assert late >= 0
        assert w.followers == 0
    finally:
        follow._stopping.clear()  # this process serves on (other tests)
        w.stop()


def _run_apart(coroutine_fn: Callable[[], Coroutine[Any, Any, Any]]) -> Any:
    """``asyncio.run`` in a thread of its own: Playwright's sync API (the browser tests,
    earlier in the same run) leaves an event loop running in the main thread."""
    out: dict[str, object] = {}

    def body() -> None:
        try:
            out["value"] = asyncio.run(coroutine_fn())
        except BaseException as e:  # re-raised in the test's thread
            out["error"] = e

    t = threading.Thread(target=body)
    t.start()
    t.join()
    if "error" in out:
        raise out["error"]  # type: ignore[misc]
    return out["value"]
