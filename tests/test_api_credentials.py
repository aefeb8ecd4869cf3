"""One credential per request, over real HTTP (a real server: a test client may merge
repeated headers): two ``Authorization`` headers, or a header and ``?token=``, are
refused with 400 and one line before anything is read or written, whichever order
they come in and whichever of them is valid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from roads_app.api.access import SCREEN_ONLY
from roads_app.game.floor import FloorLimits
from roads_app.store import db, tokens
from tests.api_server import ApiServer

WRITES = frozenset({"post", "put", "patch", "delete"})


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ApiServer, str, str]]:
    """An API server, an operator token and a shoe of its library."""
    data = tmp_path_factory.mktemp("creds") / "data"
    token = tokens.issue(data, "operator")
    api = ApiServer(data).start()
    try:
        with api.client(token) as c:
            shoe = c.post("/shoes", json={"name": "T"}).json()["id"]
        yield api, token, shoe
    finally:
        api.stop()


def rounds(data: Path, shoe: str) -> int:
    return db.open_store(data).shoes.load(shoe).rounds.height


@pytest.mark.parametrize(
    "order", [("wrong", "good"), ("good", "wrong"), ("good", "good")], ids="-".join
)
def test_two_authorization_headers_are_refused(
    server: tuple[ApiServer, str, str], order: tuple[str, str]
) -> None:
    api, token, shoe = server
    value = {"good": f"Bearer {token}", "wrong": "Bearer ra_op_wrong"}
    headers = [("Authorization", value[o]) for o in order]
    before = rounds(api.data_dir, shoe)
    with httpx.Client(base_url=api.url, timeout=30) as c:
        r = c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}, headers=headers)
        assert r.status_code == 400, r.text
        assert "2 credentials" in r.json()["detail"] and "\n" not in r.json()["detail"]
        assert c.get(f"/shoes/{shoe}", headers=headers).status_code == 400  # reads too
    assert rounds(api.data_dir, shoe) == before


def test_a_header_and_a_query_token_are_refused(server: tuple[ApiServer, str, str]) -> None:
    api, token, shoe = server
    before = rounds(api.data_dir, shoe)
    with api.client(token) as c:
        r = c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}, params={"token": token})
        assert r.status_code == 400, r.text
        r = c.get(f"/shoes/{shoe}/events", params={"token": "ra_vw_other"})
        assert r.status_code == 400, r.text
    with httpx.Client(base_url=api.url, timeout=30) as c:  # two ?token= are two too
        r = c.get(f"/shoes/{shoe}", params=[("token", token), ("token", token)])
        assert r.status_code == 400, r.text
    assert rounds(api.data_dir, shoe) == before
    with api.client(token) as c:  # one credential is served as before
        assert c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 201
    assert rounds(api.data_dir, shoe) == before + 1


def test_a_screen_key_opens_nothing_on_the_api(server: tuple[ApiServer, str, str]) -> None:
    """A screen key is for the dashboard's display and wall: the API refuses it for a
    write and for a read (403, one line), and nothing is changed."""
    api, _, shoe = server
    key = tokens.issue_screen(api.data_dir)
    before = rounds(api.data_dir, shoe)
    with api.client(key) as c:
        for r in (
            c.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}),
            c.get(f"/shoes/{shoe}"),
        ):
            assert r.status_code == 403 and "screen key" in r.json()["detail"], r.text
    with httpx.Client(base_url=api.url, timeout=30) as c:
        assert c.get(f"/shoes/{shoe}/events", params={"token": key}).status_code == 403
    assert rounds(api.data_dir, shoe) == before


def test_a_screen_key_is_refused_on_every_write_route(server: tuple[ApiServer, str, str]) -> None:
    """Every write the API offers (read from its own OpenAPI document, so a route added
    later is asked too), shoes and tables alike, with a screen key of no one table and
    with one bound to the very table written to: 403, one line, and the shoe and the
    table as they were."""
    api, _, shoe = server
    store = db.open_store(api.data_dir)
    store.floor.add("W01", "Table W01", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("W01")
    keys = [tokens.issue_screen(api.data_dir), tokens.issue_screen(api.data_dir, "W01")]
    paths = httpx.get(f"{api.url}/openapi.json", timeout=30).json()["paths"]
    writes = [(m, p) for p, ops in paths.items() for m in ops if m in WRITES]
    assert {p.split("/")[1] for _, p in writes} == {"shoes", "tables"} and len(writes) >= 8
    ids = {"shoe_id": shoe, "round_no": "1", "code": "W01"}
    body = {"winner": "B", "state": "closed", "name": "T"}
    before = (store.shoes.version(shoe), store.floor.get("W01"))
    for key in keys:
        with api.client(key) as c:
            for method, path in writes:
                r = c.request(method.upper(), path.format_map(ids), json=body)
                assert r.status_code == 403, (method, path, r.text)
                assert r.json()["detail"] == SCREEN_ONLY, (method, path, r.text)
    assert (store.shoes.version(shoe), store.floor.get("W01")) == before
