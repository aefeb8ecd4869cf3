"""What a hostile client cannot do to a real API server: make it read a huge body, or
pile up database connections (issue 27). Real ``roads-app api`` processes, real HTTP;
the server's memory and file descriptors are read from /proc.
"""

from __future__ import annotations

import contextlib
import gc
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from roads_app.api.app import STORE_THREADS
from roads_app.api.limits import BODY_CAPS
from roads_app.store import db, tokens
from tests.api_server import ApiServer
from tests.hostile.api_requests import NAT

MB = 2**20
HUGE = 300 * MB


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("limits") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "operator")


def peak_rss_mb(pid: int) -> float:
    """The process's peak resident memory so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmHWM")


def huge_body(total: int = HUGE) -> Iterator[bytes]:
    """``total`` bytes in 1 MB pieces, made as they are sent (one piece in memory)."""
    piece = b"x" * MB
    for _ in range(total // MB):
        yield piece


def post_huge(server: ApiServer, path: str, token: str | None, *, declared: bool) -> httpx.Response:
    """POST a 300 MB body, with its Content-Length or chunked (no length given)."""
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if declared:
        headers["Content-Length"] = str(HUGE)
    with httpx.Client(base_url=server.url, timeout=120) as c:
        return c.post(path, content=huge_body(), headers=headers)


def one_line(r: httpx.Response) -> str:
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and len(detail) <= 300, detail
    return detail


def test_a_huge_body_is_refused_before_it_is_read(server: ApiServer, token: str) -> None:
    """A 300 MB POST took the server from 152 to 1,045 MB before its 401, and with a token
    to 761 MB before a 422: now the token and the size are checked on the headers, and
    a chunked body is cut at the route's cap."""
    assert server.proc is not None
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "big bodies"}).json()["id"]
        assert op.post(f"/shoes/{shoe}/rounds", json=NAT).status_code == 201  # warm
    before = peak_rss_mb(server.proc.pid)
    path = f"/shoes/{shoe}/rounds"
    for declared in (True, False):
        r = post_huge(server, path, None, declared=declared)
        assert r.status_code == 401 and "operator token" in one_line(r), r.text
        r = post_huge(server, path, token, declared=declared)
        assert r.status_code == 413, r.text
        assert "2 KB" in one_line(r)
        r = post_huge(server, "/shoes", token, declared=declared)
        assert r.status_code == 413 and "4 KB" in one_line(r), r.text
    grew = peak_rss_mb(server.proc.pid) - before
    assert grew < 100, f"the server grew by {grew:.0f} MB reading bodies it refused"
    with server.client(token) as op:  # still serving, and nothing was entered
        rounds = op.get(f"/shoes/{shoe}").json()["rounds"]
        assert len(rounds) == 1
        assert op.post(f"/shoes/{shoe}/rounds", json=NAT).status_code == 201


def test_a_body_at_the_cap_is_read_and_one_byte_more_is_not(server: ApiServer, token: str):
    cap = BODY_CAPS["/shoes/{shoe_id}/rounds"]
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "at the cap"}).json()["id"]
        body = b'{"winner": "B"}'
        padded = body + b" " * (cap - len(body))  # JSON allows the trailing spaces
        headers = {"Content-Type": "application/json"}
        assert op.post(f"/shoes/{shoe}/rounds", content=padded, headers=headers).status_code == 201
        r = op.post(f"/shoes/{shoe}/rounds", content=padded + b" ", headers=headers)
        assert r.status_code == 413, r.text

        def chunks() -> Iterator[bytes]:  # chunked: no Content-Length to go by
            yield padded
            yield b" "

        r = op.post(f"/shoes/{shoe}/rounds", content=chunks(), headers=headers)
        assert r.status_code == 413, r.text
        assert len(op.get(f"/shoes/{shoe}").json()["rounds"]) == 1


# --- database connections --------------------------------------------------------------------


def db_fds(pid: int, data_dir: Path) -> int:
    """Open file descriptors of process ``pid`` on the database (roads.db and its -wal)."""
    n = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        with contextlib.suppress(OSError):
            if os.readlink(f"/proc/{pid}/fd/{fd}").startswith(str(data_dir / "roads.db")):
                n += 1
    return n


def abandon_streams(server: ApiServer, shoe: str, n: int) -> None:
    """Open ``n`` event streams, wait for each to start, then drop them all unread."""
    socks = []
    try:
        for _ in range(n):
            s = socket.create_connection(("127.0.0.1", server.port), timeout=60)
            s.sendall(f"GET /shoes/{shoe}/events HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            socks.append(s)
        for s in socks:
            assert s.recv(64).startswith(b"HTTP/1.1 200"), "the stream did not start"
    finally:
        for s in socks:
            s.close()


def test_abandoned_streams_leave_a_few_connections_open(server: ApiServer, token: str) -> None:
    """Six rounds of 60 abandoned streams left 147 connections (294 descriptors) open."""
    assert server.proc is not None
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "streams"}).json()["id"]
        for _ in range(6):
            abandon_streams(server, shoe, 60)
            assert op.post(f"/shoes/{shoe}/rounds", json=NAT).status_code == 201
            assert op.post(f"/shoes/{shoe}/undo").status_code == 200
    # the store threads' connections, the event loop's and the change feed's watcher's
    # (db + wal each), one -shm
    bound = 2 * (STORE_THREADS + 2) + 1
    deadline = time.monotonic() + 60
    while (n := db_fds(server.proc.pid, server.data_dir)) > bound:
        assert time.monotonic() < deadline, f"{n} descriptors on the database, over {bound}"
    with server.client() as c:  # and the server still answers
        assert c.get(f"/shoes/{shoe}").status_code == 200


def test_a_thread_closes_its_connection_when_it_ends(tmp_path: Path) -> None:
    """A connection and its statement cache refer to each other: dropped with its thread,
    it stayed open until a full garbage collection. With collection off, it must still
    close when the thread ends."""
    store = db.open_store(tmp_path)
    store.shoes.version("x")
    here = db_fds(os.getpid(), store.data_dir)

    def use() -> None:
        store.shoes.version("x")

    gc.disable()
    try:
        for _ in range(20):  # one after another: a thread's connection, then its end
            t = threading.Thread(target=use)
            t.start()
            t.join()
        # SQLite may keep one closed connection's descriptor for the next one to open
        # (closing it would drop this process's locks on the file): at most that one
        assert db_fds(os.getpid(), store.data_dir) <= here + 1
    finally:
        gc.enable()
        db.forget_stores()


def test_a_write_looks_its_token_up_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The gate checks a write's token before its body is read, from the tokens this
    server found (trusted until its watcher sees a revoke: no lookup on the event loop
    per append); the write asks again in its own transaction, so a revoke holds from
    its commit: the very next write of the token is refused, with no wait. A write the
    gate refused never reaches the route; one without a token is refused; a token not
    found is asked about every time."""
    from starlette.testclient import TestClient

    from roads_app.api.app import create_app
    from roads_app.store.feed import Tokens

    data = tmp_path / "data"
    token = tokens.issue(data, "operator")
    asked: list[str] = []
    role = Tokens.role

    def counted(self: Tokens, token_hash: str) -> str | None:
        asked.append(token_hash)
        return role(self, token_hash)

    monkeypatch.setattr(Tokens, "role", counted)
    with TestClient(create_app(data)) as client:
        made = client.post(
            "/shoes", json={"name": "T"}, headers={"Authorization": f"Bearer {token}"}
        )
        assert made.status_code == 201 and len(asked) == 2  # the gate, the transaction
        shoe = made.json()["id"]
        hand = {"player_cards": ["4s", "5h"], "banker_cards": ["2c", "3d"]}
        auth = {"Authorization": f"Bearer {token}"}
        assert client.post(f"/shoes/{shoe}/rounds", json=hand, headers=auth).status_code == 201
        assert len(asked) == 3  # the gate trusts it: only the transaction asked
        assert client.post(f"/shoes/{shoe}/rounds", json=hand).status_code == 401
        bad = {"Authorization": "Bearer ra_op_not-a-token"}
        assert client.post(f"/shoes/{shoe}/rounds", json=hand, headers=bad).status_code == 401
        assert client.post(f"/shoes/{shoe}/rounds", json=hand, headers=bad).status_code == 401
        assert len(asked) == 5  # a token not found is asked about every time
        tokens.revoke_all(data, "operator")
        refused = client.post(f"/shoes/{shoe}/rounds", json=hand, headers=auth)
        # refused by the write's own look-up ("revoked"), or by the gate's when the
        # server's watcher saw the revoke first (its row is gone: a token it never knew)
        assert refused.status_code == 401
        assert refused.json()["detail"] in (
            "the token no longer holds (revoked): nothing was changed",
            "the token is not valid for this data folder",
        )
    assert db.open_store(data).shoes.load(shoe).rounds.height == 1
