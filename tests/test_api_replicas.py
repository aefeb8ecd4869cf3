"""Two API servers (separate processes, separate data folders) on one PostgreSQL database:
an ``Idempotency-Key`` append is answered once whichever replica gets the retry, and a
token issued through one is known to the other (only its hash is on the server)."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import httpx
import psycopg
import pytest

from roads_app.store import tokens
from tests.api_server import ApiServer
from tests.pgserver import PgServer


@pytest.fixture(scope="module")
def replicas(
    pg_server: PgServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[ApiServer, ApiServer, str, str]]:
    """Two API servers on one fresh database: (A, B, an operator token, the URL)."""
    url = pg_server.new_database()
    tmp = tmp_path_factory.mktemp("replicas")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROADS_APP_DB", url)  # both servers inherit it
        a = ApiServer(tmp / "a" / "data").start()
        b = ApiServer(tmp / "b" / "data").start()
        try:
            token = tokens.issue(tmp / "tokens", "operator")  # a third process' folder
            yield a, b, token, url
        finally:
            a.stop()
            b.stop()


def rounds_of(client: httpx.Client, shoe: str) -> list[dict]:
    r = client.get(f"/shoes/{shoe}")
    assert r.status_code == 200, r.text
    return list(r.json()["rounds"])


def test_a_retry_through_the_other_replica_is_answered_once(
    replicas: tuple[ApiServer, ApiServer, str, str],
) -> None:
    a, b, token, pg_url = replicas
    with a.client(token) as ca, b.client(token) as cb:
        shoe = ca.post("/shoes", json={"name": "t"}).json()["id"]
        key = {"Idempotency-Key": "hand-7"}
        first = ca.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers=key)
        retry = cb.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers=key)
        assert first.status_code == retry.status_code == 201, (first.text, retry.text)
        assert retry.headers.get("Idempotent-Replayed") == "true"
        assert retry.json() == first.json()
        assert [r["winner"] for r in rounds_of(cb, shoe)] == ["B"]
        other = cb.post(f"/shoes/{shoe}/rounds", json={"winner": "P"}, headers=key)
        assert other.status_code == 422 and "different request" in other.json()["detail"]
    with psycopg.connect(pg_url) as con:  # tokens kept as hashes on the server
        stored = [r[0] for r in con.execute("SELECT hash FROM api_tokens").fetchall()]
    assert token not in stored and len(stored) == 1 and len(stored[0]) == 64


@pytest.mark.parametrize("attempt", range(6))
def test_simultaneous_retries_on_both_replicas_enter_one_round(
    replicas: tuple[ApiServer, ApiServer, str, str], attempt: int
) -> None:
    """Eight sends of one key at once, four through each replica (six times over: the
    race is short): one round, one first answer, seven replays."""
    a, b, token, _ = replicas
    with a.client(token) as ca:
        shoe = ca.post("/shoes", json={"name": "t"}).json()["id"]
    answers: list[httpx.Response] = []
    gate = threading.Barrier(8)
    clients = [s.client(token) for s in (a, b) * 4]
    for c in clients:  # connected before the gate, so the eight requests leave together
        assert c.get("/health").status_code == 200

    def send(c: httpx.Client) -> None:
        gate.wait()
        answers.append(
            c.post(
                f"/shoes/{shoe}/rounds",
                json={"winner": "T"},
                headers={"Idempotency-Key": f"same-{attempt}"},
            )
        )

    threads = [threading.Thread(target=send, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for c in clients:
        c.close()
    assert [x.status_code for x in answers] == [201] * 8, [x.text for x in answers]
    assert sum(x.headers.get("Idempotent-Replayed") == "true" for x in answers) == 7
    with b.client(token) as cb:
        assert [r["winner"] for r in rounds_of(cb, shoe)] == ["T"]
