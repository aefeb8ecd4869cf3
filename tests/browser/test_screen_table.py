"""A screen key bound to a floor table (``roads-app token --screen --table B07``) on an
exposed dashboard shows that table and nothing else (issues 47 and 49): a ``?shoe=``
link holds it only for a shoe dealt at that table; the wall opened with it shows that
table's tile alone; the routes the display and the wall follow by (follow, tile) refuse
it (403, one line) another table's shoe or ``table:`` key, or a shoe of no table, and
the wall's answer tells it of its own table's shoes only. One dashboard for the module."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from conftest import AppServer, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens
from roads_app.store.watch import TABLE_KEY
from tests import storehelp as sh

pytestmark = pytest.mark.browser

OTHER_TABLE = "This screen's key is for another table."
NOT_HERE = "A screen key opens the display and the wall only."
NOT_THE_VERSION = "never"
"""A version nothing has: the follow route answers at once instead of waiting."""


@dataclass(frozen=True)
class Floor:
    """The module's dashboard and library: B07's shoe, C01's, a shoe of no table, and
    keys: a screen key for B07, a screen key of no one table, a viewer token."""

    server: AppServer
    own: str
    other: str
    loose: str
    key: str
    any_screen: str
    viewer: str


def _table_shoe(store: db.Store, code: str, winners: str) -> str:
    store.floor.add(code, f"Table {code}", "classic", FloorLimits.of((10, 5000)))
    store.floor.open(code)
    for w in winners:
        shoe = store.floor.append(
            code, lambda r, d, w=w: game_rounds.add_winner(r, w, decks=d)
        ).shoe
    return shoe


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Floor]:
    tmp: Path = tmp_path_factory.mktemp("screen_table")
    server = AppServer(tmp / "data", tmp / "server.log", args=("--host", "0.0.0.0"))
    data = server.data_dir
    store = db.open_store(data)
    own = _table_shoe(store, "B07", "BPB")
    other = _table_shoe(store, "C01", "PP")
    loose = ShoeMeta(name="by hand", source="hand")
    sh.save_shoe(rounds_from_winners("BBBB"), loose, data)
    key = tokens.issue_screen(data, "b07")  # kept as the floor keeps its code: B07
    any_screen = tokens.issue_screen(data)
    viewer = tokens.issue(data, "viewer")
    server.start()
    try:
        yield Floor(server, own, other, loose.id, key, any_screen, viewer)
    finally:
        server.stop()


def _follow(floor: Floor, token: str, **params: str) -> httpx.Response:
    """The follow route as a page's script asks it, with the tab's token's hash."""
    return httpx.get(
        f"{floor.server.url}/_roads/follow",
        params=params,
        headers={"X-Roads-Tab": tokens.hash_token(token)},
        timeout=60,
    )


def _tile(floor: Floor, token: str, shoe: str) -> httpx.Response:
    """The tile route as a wall tile's live part asks it."""
    params = {"shoe": shoe, "lang": "en", "derived": "0", "tags": "", "picked": ""}
    return httpx.get(
        f"{floor.server.url}/_roads/tile",
        params=params,
        headers={"X-Roads-Tab": tokens.hash_token(token)},
        timeout=60,
    )


def test_the_follow_and_tile_routes_show_a_tables_key_its_table_alone(floor: Floor) -> None:
    """Every door a screen's page follows by, asked for each table's shoe and ``table:``
    key and for a shoe of no table: a table's key is answered for its own and refused
    (403, one line, nothing of the shoe) for the rest; a screen key of no one table and
    a viewer token are answered for all."""
    shoes = {"B07": floor.own, "C01": floor.other, None: floor.loose}
    for token, sees in ((floor.key, {"B07"}), (floor.any_screen, None), (floor.viewer, None)):
        for table, shoe in shoes.items():
            asked = [shoe] + ([TABLE_KEY + table] if table else [])
            allowed = sees is None or table in sees
            for shown in asked:
                r = _follow(floor, token, shoe=shown, v=NOT_THE_VERSION)
                assert r.status_code == (200 if allowed else 403), (token[:6], shown, r.text)
                if not allowed:
                    assert r.json() == {"detail": "follow: this screen's key is for another table"}
            r = _tile(floor, token, shoe)
            assert r.status_code == (200 if allowed else 403), (token[:6], shoe, r.text)
            if allowed:
                assert r.json()["rounds"]  # the tile's view: its rounds, roads and counts
            else:
                assert list(r.json()) == ["detail"] and "\n" not in r.json()["detail"]


def test_the_walls_answer_tells_a_tables_key_of_its_tables_shoes_alone(floor: Floor) -> None:
    everything = {floor.own, floor.other, floor.loose}
    for token, told in ((floor.key, {floor.own}), (floor.any_screen, everything)):
        r = _follow(floor, token, wall="")
        assert r.status_code == 200, r.text
        assert set(r.json()["shoes"]) == told


def test_the_dashboards_metrics_are_not_for_a_screen_key(floor: Floor) -> None:
    """``/metrics`` names every shoe a page follows: a viewer's, not a screen's."""
    url = f"{floor.server.url}/metrics"
    for key in (floor.key, floor.any_screen):
        r = httpx.get(url, headers={"Authorization": f"Bearer {key}"}, timeout=60)
        assert r.status_code == 403 and "screen key" in r.json()["detail"], r.text
    r = httpx.get(url, headers={"Authorization": f"Bearer {floor.viewer}"}, timeout=60)
    assert r.status_code == 200, r.text


def test_a_tables_screen_key_opens_only_that_tables_shoes(floor: Floor, page: Page) -> None:
    page.set_default_timeout(120_000)
    url, key = floor.server.url, floor.key
    page.goto(f"{url}/display?shoe={floor.own}&token={key}")
    wait_rounds(page, 3)  # its own table's shoe: the board
    for shoe in (floor.other, floor.loose):  # another table's shoe, a shoe of no table
        page.goto(f"{url}/display?shoe={shoe}&token={key}")
        expect(page.get_by_test_id("screen-refused")).to_have_text(OTHER_TABLE)
        expect(page.locator('[data-testid="round-count"]')).to_have_count(0)
        expect(page.locator("[data-testid='stMain']")).to_have_text(OTHER_TABLE)
    page.goto(f"{url}/?shoe={floor.own}&token={key}")  # its own shoe on the entry page
    expect(page.get_by_test_id("screen-refused")).to_have_text(NOT_HERE)
    expect(page.locator(".st-key-btn_B")).to_have_count(0)


def test_the_wall_with_a_tables_screen_key_shows_that_tables_tile_alone(
    floor: Floor, page: Page
) -> None:
    """The key is for the screen beside its table: the wall opened with it counts and
    draws that table's tile, none of another table's or of a shoe of no table."""
    page.set_default_timeout(120_000)
    page.goto(f"{floor.server.url}/lobby?token={floor.key}")
    expect(page.get_by_text("1 tables on the floor, in their places")).to_be_visible()  # its count
    main = page.locator("[data-testid='stMain']")
    expect(main).to_contain_text("Table B07")
    expect(main).not_to_contain_text("Table C01")
    expect(main).not_to_contain_text("by hand")
