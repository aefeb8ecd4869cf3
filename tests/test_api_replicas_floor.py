"""Replicas sharing a floor (issue 35 item 3): API servers as separate processes on one
real PostgreSQL, real HTTP, real event streams. Replica A and replica B are separate
hosts where this machine lets us make them (each in its own network namespace, reaching
the database on this machine over a bridge: `tests.netns`), else plain processes on the
loopback; each test prints which.

- a result appended through replica A reaches an event-stream follower of replica B;
- replica A killed (-9) in the middle of a feed whose feeder retries through B with the
  same ``Idempotency-Key``: every acknowledged round stored once, none lost;
- the database restarted under a feed: the servers reconnect by themselves, the feeder's
  retries go through, the follower catches up.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from roads_app.api import feeder
from roads_app.store import tokens
from tests.api_server import ApiServer, SseFollower
from tests.netns import NAMESPACES, Lan, lan, namespaces_usable
from tests.pgserver import PgServer, as_postgres, pg_bin, running_server


class StampedFollower(SseFollower):
    """An SSE follower that notes when each event arrived (monotonic clock)."""

    def __init__(self, url: str, shoe_id: str, token: str | None = None) -> None:
        super().__init__(url, shoe_id, token)
        self.arrived: list[float] = []

    def _apply(self, event: str, payload: dict[str, Any]) -> None:
        self.arrived.append(time.monotonic())
        super()._apply(event, payload)


@pytest.fixture(scope="module")
def hosts() -> Iterator[Lan]:
    """Hosts "a" and "b" for the replicas; the database on this machine's side."""
    with lan("a", "b") as made:
        print(f"replicas as {made.kind}")
        yield made


@contextlib.contextmanager
def database_for(hosts: Lan) -> Iterator[PgServer]:
    """A PostgreSQL server of the test's own that the hosts reach (at the gateway)."""
    apart = hosts.kind == NAMESPACES
    with running_server(
        listen=(hosts.gateway,) if apart else (), allow=hosts.subnet if apart else None
    ) as server:
        yield server


@pytest.fixture(scope="module")
def shared_database(hosts: Lan) -> Iterator[PgServer]:
    """One server for the tests that neither restart nor stop it, each on a database of
    its own: an ``initdb`` and a start fewer a test."""
    with database_for(hosts) as server:
        yield server


def new_database(server: PgServer, hosts: Lan, name: str) -> str:
    server.sql(f"CREATE DATABASE {name} OWNER roads")
    return server.url(name, host=hosts.gateway)


@contextlib.contextmanager
def two_replicas(url: str, tmp: Path, hosts: Lan) -> Iterator[tuple[ApiServer, ApiServer, str]]:
    """API servers A and B on database ``url`` (own data folders, own hosts); an
    operator token."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROADS_APP_DB", url)  # both servers inherit it
        on_a, on_b = hosts["a"], hosts["b"]
        a = ApiServer(tmp / "a" / "data", host=on_a.ip, prefix=on_a.prefix()).start()
        try:
            b = ApiServer(tmp / "b" / "data", host=on_b.ip, prefix=on_b.prefix()).start()
            try:
                yield a, b, tokens.issue(tmp / "tokens", "operator")
            finally:
                b.stop()
        finally:
            a.stop()


def cards(rounds: list[dict]) -> list[tuple[list[str], list[str]]]:
    return [(r["player_cards"], r["banker_cards"]) for r in rounds]


def stored(server: ApiServer, token: str, shoe: str) -> list[dict]:
    with server.client(token) as c:
        r = c.get(f"/shoes/{shoe}")
    assert r.status_code == 200, r.text
    return list(r.json()["rounds"])


def net_ns(pid: int) -> str:
    return os.readlink(f"/proc/{pid}/ns/net")


def test_an_append_through_a_reaches_a_follower_of_b(
    hosts: Lan, shared_database: PgServer, tmp_path: Path
) -> None:
    """Round by round, B's follower gets what A stored. The time each took is printed
    (bench/bench_api.py ``--db pg:2`` measures it under load), not asserted."""
    url = new_database(shared_database, hosts, "ab")
    with (
        two_replicas(url, tmp_path, hosts) as (a, b, token),
        a.client(token) as ca,
    ):
        assert a.proc is not None and b.proc is not None
        if hosts.kind == NAMESPACES:  # separate network stacks: A's, B's, this machine's
            assert len({net_ns(a.proc.pid), net_ns(b.proc.pid), net_ns(os.getpid())}) == 3
        assert namespaces_usable() == (hosts.kind == NAMESPACES)
        shoe = ca.post("/shoes", json={"name": "t"}).json()["id"]
        with StampedFollower(b.url, shoe, token) as follower:
            follower.wait_for(lambda f: f.version is not None)  # the snapshot is in
            delays = []
            for i, winner in enumerate("BPTBP", start=1):
                sent = time.monotonic()
                r = ca.post(f"/shoes/{shoe}/rounds", json={"winner": winner})
                assert r.status_code == 201, r.text
                follower.wait_for(lambda f, n=i: len(f.rounds) >= n, timeout=30)
                delays.append(follower.arrived[-1] - sent)
            assert [x["winner"] for x in follower.rounds] == list("BPTBP")
    print(f"{hosts.kind}: append through A -> event at B (s): {[round(d, 3) for d in delays]}")


class CutProxy:
    """A TCP relay in front of a replica. Once armed, the first answer coming back from
    the replica calls ``on_cut`` (which kills the replica) and is never passed on: the
    round is stored, its answer lost, as when a host dies between commit and reply."""

    def __init__(self, upstream: tuple[str, int], on_cut: Callable[[], None]) -> None:
        self.upstream = upstream
        self.on_cut = on_cut
        self.armed = threading.Event()
        self.cut = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self._listener.getsockname()[1])
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def close(self) -> None:
        self._listener.close()

    def _accept(self) -> None:
        while True:
            try:
                down, _ = self._listener.accept()
            except OSError:
                return
            up = socket.create_connection(self.upstream)
            threading.Thread(target=self._pipe, args=(down, up, False), daemon=True).start()
            threading.Thread(target=self._pipe, args=(up, down, True), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket, answers: bool) -> None:
        try:
            while data := src.recv(65536):
                if answers and self.armed.is_set():
                    self.on_cut()
                    self.cut.set()
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):  # shut down, not only closed: the other relay thread sits in
            with contextlib.suppress(OSError):  # recv() on it, and a close alone sends no
                s.shutdown(socket.SHUT_RDWR)  # FIN, so the client waited out its timeout
            with contextlib.suppress(OSError):
                s.close()


def test_replica_a_killed_mid_feed_the_feeder_retries_through_b_with_the_same_key(
    hosts: Lan, shared_database: PgServer, tmp_path: Path
) -> None:
    seed, n, cut_at = 7, 12, 6
    url = new_database(shared_database, hosts, "killed")
    with two_replicas(url, tmp_path, hosts) as (a, b, token):
        print(f"replicas as {hosts.kind}")
        proxy = CutProxy((a.host, a.port), lambda: a.stop(signal.SIGKILL))
        auth = {"Authorization": f"Bearer {token}"}
        acked: list[tuple[int, tuple[list[str], list[str]]]] = []
        via_b: list[int] = []
        with (
            httpx.Client(base_url=proxy.url, headers=auth, timeout=30) as ca,
            b.client(token) as cb,
        ):
            shoe = cb.post("/shoes", json={"name": "t"}).json()["id"]
            dealt = list(feeder.hands(seed, 8))[:n]
            client = ca
            for i, (pc, bc) in enumerate(dealt, start=1):
                body = {"player_cards": pc, "banker_cards": bc}
                key = feeder.idempotency_key(shoe, seed, i)
                if i == cut_at:
                    proxy.armed.set()
                try:
                    r = client.post(
                        f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key}
                    )
                except httpx.TransportError:  # A is gone: the same hand, the same key, via B
                    client = cb
                    via_b.append(i)
                    r, _ = feeder.post_hand(cb, shoe, body, key, patience=30)
                assert r.status_code == 201, r.text
                acked.append((i, (pc, bc)))
        proxy.close()
        assert proxy.cut.is_set() and via_b == [cut_at], via_b  # the kill did hit the feed
        assert a.proc is None  # A was killed, not answering
        rounds = stored(b, token, shoe)
    assert cards(rounds) == [hand for _, hand in acked], "stored rounds != acknowledged"
    assert [i for i, _ in acked] == list(range(1, n + 1))


def test_the_database_restarted_under_a_feed_servers_reconnect_nothing_lost(
    hosts: Lan, tmp_path: Path
) -> None:
    seed, n, restart_after = 11, 30, 8
    with database_for(hosts) as server:  # its own server: the module's is shared
        url = new_database(server, hosts, "restarted")
        print(f"replicas as {hosts.kind}")
        with two_replicas(url, tmp_path, hosts) as (a, b, token):
            with a.client(token) as ca:
                shoe = ca.post("/shoes", json={"name": "t"}).json()["id"]
            fed: list[feeder.Fed] = []
            half = threading.Event()

            def on_hand(f: feeder.Fed) -> None:
                fed.append(f)
                if f.hand == restart_after:
                    half.set()

            out: list[BaseException] = []

            def run() -> None:
                try:
                    feeder.feed(
                        a.url, shoe, seed, 0.05, token, limit=n, on_hand=on_hand, patience=60
                    )
                except BaseException as e:  # said by the test below
                    out.append(e)

            with StampedFollower(b.url, shoe, token) as follower:
                t = threading.Thread(target=run)
                t.start()
                assert half.wait(60), "the feed did not start"
                server.restart()
                t.join(120)
                assert not t.is_alive() and not out, out
                assert [f.hand for f in fed] == list(range(1, n + 1))
                assert any(f.attempts > 1 for f in fed), "the restart never hit the feed"
                follower.wait_for(lambda f: len(f.rounds) >= n, timeout=30)
                assert follower.status == 200  # the same stream, caught up
                seen = cards(follower.rounds)
            dealt = list(feeder.hands(seed, 8))[:n]
            assert cards(stored(b, token, shoe)) == dealt
            assert cards(stored(a, token, shoe)) == dealt
            assert seen == dealt
            assert a.proc is not None and a.proc.poll() is None  # neither server died
            assert b.proc is not None and b.proc.poll() is None


def test_a_database_that_is_down_is_a_503_to_retry_not_a_bug(hosts: Lan, tmp_path: Path) -> None:
    """While the server is down (restarting), requests are refused with 503 and the
    reason, so a feeder retries; not a 500 'bug' with a bug log, nor a 422 that stops it."""
    with database_for(hosts) as server:
        url = new_database(server, hosts, "down")
        with two_replicas(url, tmp_path, hosts) as (a, _b, token), a.client(token) as ca:
            shoe = ca.post("/shoes", json={"name": "t"}).json()["id"]
            pg_ctl = pg_bin("pg_ctl")
            assert pg_ctl is not None
            stop = [pg_ctl, "-D", str(server.folder / "data"), "-m", "fast", "-w", "stop"]
            subprocess.run(as_postgres(stop), check=True, capture_output=True)
            answers = []
            for method, body in (("POST", {"winner": "B"}), ("GET", None)):
                with a.client(token) as c:  # a new connection each (a refused one may close)
                    path = f"/shoes/{shoe}" + ("/rounds" if body else "")
                    answers.append(c.request(method, path, json=body))
    for r in answers:
        assert r.status_code == 503, r.text
        assert "cannot reach the database server" in r.json()["detail"], r.text
        assert "bug" not in r.text
