"""Feeders through the real API: `roads-app feed` processes pushing simulated shoes.

Whole shoes are compared with the shoe `deal_shoe` deals from the same seed, round for
round and card for card: nothing lost, nothing doubled, nothing out of order.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.store import tokens
from tests.api_server import ApiServer, SseFollower


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path / "data").start()
    yield s
    s.stop()


def dealt(seed: int) -> list[dict]:
    return deal_shoe(seed, ShoeOptions(decks=8)).rounds.to_dicts()


def feeder(
    server: ApiServer, shoe: str, seed: int, token: str, every: float = 0.0, *extra: str
) -> subprocess.Popen[str]:
    cmd = [
        sys.executable,
        "-m",
        "roads_app",
        "feed",
        "--shoe",
        shoe,
        "--simulate",
        "--seed",
        str(seed),
        "--every",
        str(every),
        "--api",
        server.url,
        *extra,
    ]
    return subprocess.Popen(
        cmd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={"ROADS_APP_TOKEN": token, "PATH": "/usr/bin:/bin"},
    )


def finish(p: subprocess.Popen[str], timeout: float = 300) -> str:
    out, err = p.communicate(timeout=timeout)
    assert p.returncode == 0, f"feeder exited {p.returncode}: {err[-2000:]}"
    return out + err


def rounds_of(c: httpx.Client, shoe: str) -> list[dict]:
    return c.get(f"/shoes/{shoe}").json()["rounds"]


def test_four_feeders_on_four_shoes_and_two_on_one(server: ApiServer):
    token = tokens.issue(server.data_dir, "operator")
    seeds = [101, 202, 303, 404]
    with server.client(token) as op:
        shoes = [op.post("/shoes", json={"name": f"table {s}"}).json()["id"] for s in seeds]
        with SseFollower(server.url, shoes[0]) as follower:
            pairs = zip(shoes, seeds, strict=True)
            procs = [feeder(server, shoe, seed, token) for shoe, seed in pairs]
            procs.append(feeder(server, shoes[0], seeds[0], token))  # a second feeder on shoe 1
            logs = [finish(p) for p in procs]
            for shoe, seed in zip(shoes, seeds, strict=True):
                assert rounds_of(op, shoe) == dealt(seed), f"shoe of seed {seed}"
            follower.wait_for(lambda f: len(f.rounds) == len(dealt(seeds[0])))
            assert follower.rounds == dealt(seeds[0])
    # the two feeders of shoe 1 each saw every hand answered, and between them entered it once
    both = logs[0] + logs[-1]
    assert both.count("already in") + sum(1 for _ in dealt(seeds[0])) == both.count("hand ")


def test_two_writers_on_one_shoe_lose_and_double_nothing(server: ApiServer):
    token = tokens.issue(server.data_dir, "operator")
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "shared"}).json()["id"]
    plans = {"a": "BPBPBBPPTB" * 4, "b": "PPBTBBPBPP" * 4}
    sent: dict[str, list[int]] = {"a": [], "b": []}

    def write(name: str) -> None:
        with server.client(token) as c:
            for i, w in enumerate(plans[name]):
                flag = {"banker_pair": name == "a", "player_pair": name == "b"}
                r = c.post(
                    f"/shoes/{shoe}/rounds",
                    json={"winner": w, **flag},
                    headers={"Idempotency-Key": f"{name}-{i}"},
                )
                assert r.status_code == 201, r.text
                sent[name].append(r.json()["round"]["round"])

    threads = [threading.Thread(target=write, args=(n,)) for n in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    with server.client(token) as op:
        rounds = rounds_of(op, shoe)
    assert len(rounds) == sum(len(p) for p in plans.values())
    assert [r["round"] for r in rounds] == list(range(1, len(rounds) + 1))
    for name, flag in (("a", "banker_pair"), ("b", "player_pair")):
        mine = [r for r in rounds if r[flag]]
        assert "".join(r["winner"] for r in mine) == plans[name]  # each writer's order kept
        assert [r["round"] for r in mine] == sent[name]  # and where it was told it landed


def test_the_feeder_rides_out_a_server_crash(server: ApiServer):
    """kill -9 of the server mid-shoe: the feeder retries each hand with the same key
    until the restarted server answers; the shoe ends exactly as dealt."""
    token = tokens.issue(server.data_dir, "operator")
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "crash"}).json()["id"]
    seed = 77
    p = feeder(server, shoe, seed, token, 0.02)
    with server.client(token) as op, SseFollower(server.url, shoe) as f:
        f.wait_for(lambda f: len(f.rounds) >= 10, timeout=120)
    server.stop(signal.SIGKILL)
    server.start()  # same port, same data folder
    log = finish(p)
    assert " attempts" in log  # some hand really was sent again
    with server.client(token) as op:
        assert rounds_of(op, shoe) == dealt(seed)
    # the same feeder run again: every hand is already in, nothing is added
    again = finish(feeder(server, shoe, seed, token))
    assert again.count("already in") == len(dealt(seed))
    with server.client(token) as op:
        assert rounds_of(op, shoe) == dealt(seed)


def test_feed_refusals_are_one_line(server: ApiServer):
    token = tokens.issue(server.data_dir, "operator")
    out = finish_fail(feeder(server, "nosuchshoe", 1, token))
    assert "nosuchshoe" in out and "404" in out
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "1 deck", "decks": 1}).json()["id"]
    out = finish_fail(feeder(server, shoe, 1, "ra_op_wrong"))
    assert "401" in out and "not valid" in out


def finish_fail(p: subprocess.Popen[str]) -> str:
    _, err = p.communicate(timeout=300)
    assert p.returncode == 2 and err.startswith("error: ") and "Traceback" not in err, err
    return err
