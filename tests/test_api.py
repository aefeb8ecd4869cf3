"""The live-feed API over real HTTP: a `roads-app api` process, httpx, an SSE client.

Every refusal is checked for its one-line reason and for the shoe being unchanged.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest

from roads_app.store import db, tokens
from tests.api_server import ApiServer, SseFollower, roads_app

NATURAL_P = {"player_cards": ["9s", "Kd"], "banker_cards": ["5c", "2h"]}  # player 9 v 7


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("api") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "operator")  # the command itself: test_token_command


@pytest.fixture(scope="module")
def viewer_token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "viewer")


@pytest.fixture
def op(server: ApiServer, token: str) -> Iterator[httpx.Client]:
    with server.client(token) as c:
        yield c


def new_shoe(op: httpx.Client, **body: object) -> str:
    r = op.post("/shoes", json={"name": "test", **body})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def wait_until(cond: Callable[[], bool], timeout: float = 30) -> None:
    """Poll a condition over HTTP (each poll is a real request, no sleeping)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "condition not met"


def state(op: httpx.Client, shoe_id: str) -> tuple[int, list[dict]]:
    r = op.get(f"/shoes/{shoe_id}")
    assert r.status_code == 200, r.text
    return r.json()["version"], r.json()["rounds"]


# --- who may write ----------------------------------------------------------------------


def test_writes_need_an_operator_token(server: ApiServer, op: httpx.Client, viewer_token: str):
    shoe = new_shoe(op)
    before = state(op, shoe)
    cases = {
        None: (401, "needs an operator token"),
        viewer_token: (403, "viewer token can read but not write"),
        "ra_op_not-a-token": (401, "not valid"),
    }
    for tok, (status, reason) in cases.items():
        with server.client(tok) as c:
            for r in (
                c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}),
                c.post(f"/shoes/{shoe}/undo"),
                c.post("/shoes", json={}),
            ):
                assert r.status_code == status, (tok, r.text)
                assert reason in r.json()["detail"] and "\n" not in r.json()["detail"]
    with server.client() as c:
        r = c.post(
            f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers={"Authorization": "Basic abc"}
        )
        assert r.status_code == 401 and "Bearer" in r.json()["detail"]
    assert state(op, shoe) == before


def test_reads_are_open_on_loopback(server: ApiServer, op: httpx.Client):
    shoe = new_shoe(op)
    with server.client() as anyone:
        assert anyone.get(f"/shoes/{shoe}").status_code == 200
        assert anyone.get("/shoes").status_code == 200
        assert anyone.get("/rules").status_code == 200


def test_on_the_network_reads_need_a_viewer_token(tmp_path: Path):
    data = tmp_path / "data"
    operator, viewer = tokens.issue(data, "operator"), tokens.issue(data, "viewer")
    exposed = ApiServer(data, host="0.0.0.0").start()
    try:
        with exposed.client(operator) as op:
            shoe = new_shoe(op)
            assert op.post(f"/shoes/{shoe}/rounds", json={"winner": "P"}).status_code == 201
        for tok, status in ((None, 401), ("wrong", 401), (viewer, 200), (operator, 200)):
            with exposed.client(tok) as c:
                for path in ("/shoes", f"/shoes/{shoe}", "/rules"):
                    assert c.get(path).status_code == status, (tok, path)
        with exposed.client() as c:  # EventSource cannot send headers: ?token= instead
            assert c.get(f"/shoes/{shoe}", params={"token": viewer}).status_code == 200
        with SseFollower(exposed.url, shoe) as nobody:
            assert nobody.status == 401
        with SseFollower(exposed.url, shoe, token=viewer) as follower:
            follower.wait_for(lambda f: len(f.rounds) == 1)
        with exposed.client(viewer) as v:  # a viewer still cannot write
            assert v.post(f"/shoes/{shoe}/rounds", json={"winner": "P"}).status_code == 403
    finally:
        exposed.stop()


def test_token_command_keeps_only_a_hash(tmp_path: Path):
    data = tmp_path / "data"
    first = roads_app("token", "--data", str(data))
    token = first.stdout.strip()
    assert token.startswith("ra_op_") and len(token) > 40 and "hash" in first.stderr
    again = roads_app("token", "--data", str(data), check=False)
    assert again.returncode == 2 and again.stderr.count("\n") == 1 and "--new" in again.stderr
    second = roads_app("token", "--new", "--data", str(data)).stdout.strip()
    assert second != token
    store = db.open_store(data)
    raw = b"".join(p.read_bytes() for p in data.glob("roads.db*"))
    assert token.encode() not in raw and second.encode() not in raw
    assert store.tokens.role(token) is None  # looked up by hash only
    assert tokens.role_of(data, token) == tokens.role_of(data, second) == "operator"
    roads_app("token", "--revoke-all", "--data", str(data))
    assert tokens.role_of(data, token) is None and tokens.role_of(data, second) is None


# --- appends and their refusals ---------------------------------------------------------


def test_append_by_winner_points_and_cards(op: httpx.Client):
    shoe = new_shoe(op)
    bodies = [
        {"winner": "B", "banker_pair": True},
        {"player_points": 3, "banker_points": 3},
        {"winner": "player", "player_natural": True},
        NATURAL_P,  # by cards last: a shoe recorded by cards takes every later round by cards
    ]
    for body in bodies:
        assert op.post(f"/shoes/{shoe}/rounds", json=body).status_code == 201
    version, rounds = state(op, shoe)
    assert [r["winner"] for r in rounds] == ["B", "T", "P", "P"]
    assert [r["round"] for r in rounds] == [1, 2, 3, 4]
    assert rounds[0]["banker_pair"] is True and rounds[0]["player_points"] is None
    assert rounds[3]["player_natural"] is True and rounds[3]["banker_cards"] == ["5c", "2h"]
    assert version == 1 + len(bodies)


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ({"player_cards": ["2s", "Kd"], "banker_cards": ["5c", "2h"]}, "must draw"),
        ({"player_cards": ["9s", "Kd", "2c"], "banker_cards": ["5c", "2h"]}, "natural"),
        ({"player_cards": ["Zz", "Kd"], "banker_cards": ["5c", "2h"]}, "'Zz'"),
        ({"player_points": 5, "banker_points": 3, "winner": "B"}, "disagrees with the points"),
        ({"player_points": 12, "banker_points": 3}, "less than or equal to 9 (got 12)"),
        ({"winner": "X"}, "winner"),
        ({}, "give winner"),
        ({"player_cards": ["9s", "Kd"]}, "needs both"),
        ({"winner": "B", "colour": "red"}, "colour"),
    ],
)
def test_an_illegal_round_is_refused_with_its_reason(op: httpx.Client, body: dict, reason: str):
    shoe = new_shoe(op)
    assert op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P).status_code == 201
    before = state(op, shoe)
    key = {"Idempotency-Key": f"{shoe}-bad"}
    r = op.post(f"/shoes/{shoe}/rounds", json=body, headers=key)
    assert r.status_code == 422, r.text
    detail = r.json()["detail"]
    assert isinstance(detail, str) and "\n" not in detail and reason in detail
    assert state(op, shoe) == before
    # a refused request stores no answer: the same key with a good body now goes through
    ok = op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P, headers=key)
    assert ok.status_code == 201


def test_a_ninth_ace_of_spades_is_refused(op: httpx.Client):
    shoe = new_shoe(op)
    tens = [t + s for s in "hdc" for t in "TJQK"]  # nine distinct 0-point cards

    def ace(i: int) -> dict:  # player As 7 = natural 8; banker 2-7 stands, nothing else repeats
        return {
            "player_cards": ["As", "7" + "hdc"[i % 3]],
            "banker_cards": ["234567"[i % 6] + "hdc"[i % 3], tens[i]],
        }

    for i in range(8):
        assert op.post(f"/shoes/{shoe}/rounds", json=ace(i)).status_code == 201, i
    before = state(op, shoe)
    r = op.post(f"/shoes/{shoe}/rounds", json=ace(8))
    assert r.status_code == 422
    assert "9 × As" in r.json()["detail"] and "8-deck" in r.json()["detail"]
    assert state(op, shoe) == before


def test_the_shoe_decks_count(op: httpx.Client):
    shoe = new_shoe(op, decks=1)
    assert op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P).status_code == 201
    r = op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P)
    assert r.status_code == 422 and "1-deck" in r.json()["detail"]


def test_unknown_table_and_unknown_shoe(op: httpx.Client):
    shoes_before = op.get("/shoes").json()
    for table in ("no-such-table", "../../etc/passwd", "/etc/passwd"):
        r = op.post("/shoes", json={"name": "x", "table": table})
        assert r.status_code == 422 and "no rules" in r.json()["detail"], r.text
    assert op.get("/shoes").json() == shoes_before
    r = op.post("/shoes/nosuchshoe/rounds", json={"winner": "B"})
    assert r.status_code == 404 and "nosuchshoe" in r.json()["detail"]
    assert op.get("/shoes/nosuchshoe").status_code == 404
    assert op.get("/shoes/nosuchshoe/events").status_code == 404
    tables = {t["name"]: t for t in op.get("/rules").json()}
    assert "classic" in tables
    shoe = new_shoe(op, table="asian-live")
    assert op.get(f"/shoes/{shoe}").json()["table"] == "asian-live"


def test_undo_and_void(server: ApiServer, op: httpx.Client):
    shoe = new_shoe(op)
    for w in "BPTB":
        op.post(f"/shoes/{shoe}/rounds", json={"winner": w})
    r = op.post(f"/shoes/{shoe}/rounds/2/void")
    assert r.status_code == 200 and r.json()["rounds"] == 3
    assert [x["winner"] for x in state(op, shoe)[1]] == ["B", "T", "B"]
    assert [x["round"] for x in state(op, shoe)[1]] == [1, 2, 3]
    assert op.post(f"/shoes/{shoe}/undo").json()["rounds"] == 2
    assert [x["winner"] for x in state(op, shoe)[1]] == ["B", "T"]
    before = state(op, shoe)
    r = op.post(f"/shoes/{shoe}/rounds/9/void")
    assert r.status_code == 422 and "round 9 does not exist" in r.json()["detail"]
    op.post(f"/shoes/{shoe}/undo")
    op.post(f"/shoes/{shoe}/undo")
    r = op.post(f"/shoes/{shoe}/undo")
    assert r.status_code == 422 and "nothing to undo" in r.json()["detail"]
    assert before[0] < state(op, shoe)[0]
    history = db.open_store(server.data_dir).history.of(shoe)["action"].to_list()
    assert "voided" in history and history.count("undone") == 3


def other_process_appends(data: Path, shoe: str, winners: str) -> None:
    """Another program on the same database (as the dashboard or the CLI would be)."""
    code = (
        "import sys; from roads_app.store import db; from roads_app.game.rounds import "
        "rounds_from_winners as w; db.open_store(sys.argv[1]).rounds.append(sys.argv[2], "
        "w(sys.argv[3]), None)"
    )
    subprocess.run([sys.executable, "-c", code, str(data), shoe, winners], check=True)


def test_read_a_shoe_with_stats_and_all_five_roads(op: httpx.Client):
    shoe = new_shoe(op)
    for w in "BBPPBTB":
        op.post(f"/shoes/{shoe}/rounds", json={"winner": w})
    body = op.get(f"/shoes/{shoe}").json()
    assert set(body["roads"]) == {
        "bead_plate",
        "big_road",
        "big_eye_boy",
        "small_road",
        "cockroach_pig",
    }
    assert len(body["roads"]["bead_plate"]) == 7
    big = body["roads"]["big_road"]  # B B | P P | B(tie) B : three columns
    assert sorted({c["col"] for c in big}) == [0, 1, 2] and sum(c["ties"] for c in big) == 1
    assert body["stats"]["banker"] == 4 and body["stats"]["tie"] == 1
    listed = {s["id"]: s for s in op.get("/shoes").json()}
    assert listed[shoe]["round_count"] == 7 and listed[shoe]["version"] == body["version"]


def test_openapi_docs_are_served(server: ApiServer):
    spec = httpx.get(f"{server.url}/openapi.json").json()
    assert {"/shoes", "/shoes/{shoe_id}/rounds", "/shoes/{shoe_id}/events"} <= set(spec["paths"])
    assert {"/rules", "/tables", "/tables/{code}/events", "/lobby/events"} <= set(spec["paths"])
    params = spec["paths"]["/shoes/{shoe_id}/rounds"]["post"]["parameters"]
    assert any(p["name"] == "Idempotency-Key" for p in params)
    assert httpx.get(f"{server.url}/docs").status_code == 200


# --- idempotent retries ---------------------------------------------------------------------


def test_a_retried_append_enters_one_round(op: httpx.Client):
    shoe = new_shoe(op)
    key = {"Idempotency-Key": "hand-1"}
    first = op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P, headers=key)
    retries = [op.post(f"/shoes/{shoe}/rounds", json=NATURAL_P, headers=key) for _ in range(3)]
    assert first.status_code == 201 and "Idempotent-Replayed" not in first.headers
    for r in retries:
        assert r.status_code == 201 and r.headers["Idempotent-Replayed"] == "true"
        assert r.json() == first.json()
    assert len(state(op, shoe)[1]) == 1
    other = op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers=key)
    assert other.status_code == 422 and "different request" in other.json()["detail"]
    assert len(state(op, shoe)[1]) == 1


def test_a_retry_after_the_answer_was_lost(server: ApiServer, op: httpx.Client, token: str):
    """The request reaches the server but the client never reads the answer (the shoe's
    network dropped it); the retry with the same key must not enter the hand again."""
    shoe = new_shoe(op)
    body = b'{"winner": "B"}'
    request = (
        f"POST /shoes/{shoe}/rounds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
        f"Idempotency-Key: lost-1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body
    with socket.create_connection(("127.0.0.1", server.port)) as s:
        s.sendall(request)
        wait_until(lambda: len(state(op, shoe)[1]) == 1)  # the server has entered it...
    # ...and the connection is gone without a byte of the answer read
    retry = op.post(
        f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers={"Idempotency-Key": "lost-1"}
    )
    assert retry.status_code == 201
    assert [r["winner"] for r in state(op, shoe)[1]] == ["B"]


def test_simultaneous_retries_of_one_key_enter_one_round(server: ApiServer, token: str):
    with server.client(token) as op:
        shoe = new_shoe(op)
    answers: list[httpx.Response] = []
    gate = threading.Barrier(8)

    def send() -> None:
        with server.client(token) as c:
            gate.wait()
            answers.append(
                c.post(
                    f"/shoes/{shoe}/rounds",
                    json={"winner": "T"},
                    headers={"Idempotency-Key": "same"},
                )
            )

    threads = [threading.Thread(target=send) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(a.status_code == 201 for a in answers)
    assert sum(a.headers.get("Idempotent-Replayed") == "true" for a in answers) == 7
    with server.client(token) as op:
        assert len(state(op, shoe)[1]) == 1


# --- the event stream -------------------------------------------------------------------


def test_the_stream_follows_appends_undo_void_and_other_writers(server: ApiServer, op):
    shoe = new_shoe(op)
    op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
    with SseFollower(server.url, shoe) as f:
        f.wait_for(lambda f: f.events and f.events[0][0] == "snapshot" and len(f.rounds) == 1)
        for w in "PPT":
            op.post(f"/shoes/{shoe}/rounds", json={"winner": w})
        f.wait_for(lambda f: [r["winner"] for r in f.rounds] == list("BPPT"))
        op.post(f"/shoes/{shoe}/rounds/2/void")
        f.wait_for(lambda f: [r["winner"] for r in f.rounds] == list("BPT"))
        op.post(f"/shoes/{shoe}/undo")
        f.wait_for(lambda f: [r["winner"] for r in f.rounds] == list("BP"))
        # another process writing the same database (the CLI, the dashboard): seen too
        other_process_appends(server.data_dir, shoe, "BB")
        f.wait_for(lambda f: [r["winner"] for r in f.rounds] == list("BPBB"))
        assert f.rounds == state(op, shoe)[1] and f.version == state(op, shoe)[0]
        kinds = {k for k, _ in f.events}
        assert {"snapshot", "append", "reset"} <= kinds
        db.open_store(server.data_dir).shoes.delete(shoe)
        f.wait_for(lambda f: f.events[-1][0] == "gone")


def test_an_append_while_another_process_writes_waits_and_the_server_goes_on(
    server: ApiServer, op: httpx.Client, token: str
) -> None:
    """With SQLite's write lock held by another process (here the test's own connection)
    an append waits for it on a store thread, never on the event loop: the server
    answers meanwhile (its health, the shoe read) and the append lands, once, when the
    lock is let go. (An append written on the event loop and waiting there, tried and
    seen failing here: the read waited for it, and it was refused as busy after 5 s,
    since the lock is let go only after the read.)"""
    import json
    import sqlite3

    shoe = new_shoe(op)
    holder = sqlite3.connect(server.data_dir / "roads.db", isolation_level=None)
    sent = socket.create_connection(("127.0.0.1", server.port), timeout=30)
    try:
        holder.execute("BEGIN IMMEDIATE")
        body = json.dumps({"winner": "B"}).encode()
        sent.sendall(
            f"POST /shoes/{shoe}/rounds HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
            + body
        )
        assert httpx.get(f"{server.url}/health", timeout=30).status_code == 200
        assert state(op, shoe) == (1, [])  # read while the append waits
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    answer = b""
    while b"\r\n\r\n" not in answer:
        answer += sent.recv(4096)
    sent.close()
    assert answer.startswith(b"HTTP/1.1 201"), answer[:200]
    version, rounds = state(op, shoe)
    assert [r["winner"] for r in rounds] == ["B"] and version == 2
