"""Good roads over the live-feed API, real server and real HTTP: with a shoe, in its
event stream, and `GET /good-roads` listing the live shoes that hold one."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from roads_app.store import tokens
from tests.api_server import ApiServer, SseFollower


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("api") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "operator")


@pytest.fixture
def op(server: ApiServer, token: str) -> Iterator[httpx.Client]:
    with server.client(token) as c:
        yield c


def _shoe(op: httpx.Client, name: str, results: str) -> str:
    r = op.post("/shoes", json={"name": name})
    assert r.status_code == 201, r.text
    shoe = r.json()["id"]
    for w in results:
        assert op.post(f"/shoes/{shoe}/rounds", json={"winner": w}).status_code == 201
    return shoe


def test_a_shoe_comes_with_its_good_roads(op: httpx.Client) -> None:
    shoe = _shoe(op, "jumps", "BPTBP")
    assert op.get(f"/shoes/{shoe}").json()["good_roads"] == ["single_jump"]
    op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
    assert op.get(f"/shoes/{shoe}").json()["good_roads"] == ["single_jump", "banker_jumps"]
    op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
    assert op.get(f"/shoes/{shoe}").json()["good_roads"] == []


def test_the_event_stream_carries_the_good_roads(server: ApiServer, op: httpx.Client) -> None:
    shoe = _shoe(op, "dragon", "PBB")
    with SseFollower(server.url, shoe) as f:
        f.wait_for(lambda f: len(f.rounds) == 3)
        assert f.events[-1][1]["good_roads"] == []
        op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
        op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
        f.wait_for(lambda f: len(f.rounds) == 5)
        assert f.events[-1][1]["good_roads"] == ["long_banker"]
        op.post(f"/shoes/{shoe}/undo")
        op.post(f"/shoes/{shoe}/undo")
        f.wait_for(lambda f: len(f.rounds) == 3)
        assert f.events[-1][1]["good_roads"] == []


def test_good_roads_lists_the_live_shoes_holding_one_headline_first(op: httpx.Client) -> None:
    dragon = _shoe(op, "dragon table", "PBBBBB")
    jumps = _shoe(op, "jump table", "BBPPBBPP")
    _shoe(op, "nothing", "BBP")
    got = op.get("/good-roads").json()
    by_id = {s["id"]: s for s in got}
    assert by_id[dragon]["good_roads"] == ["long_banker"]
    assert by_id[jumps]["good_roads"] == ["double_jump", "paired_columns"]
    assert by_id[jumps]["headline"] == "double_jump"
    assert all(s["good_roads"] for s in got)
    ids = [s["id"] for s in got]
    assert ids.index(jumps) < ids.index(dragon)  # double jump comes before long banker
    assert by_id[dragon]["name"] == "dragon table"
