"""A screen key bound to a floor table (``roads-app token --screen --table B07``) on an
exposed dashboard: a ``?shoe=`` link holds it only for a shoe dealt at that table; a
shoe of another table, or of none, shows one line and nothing else (issue 47)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import AppServer, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens
from tests import storehelp as sh

pytestmark = pytest.mark.browser

OTHER_TABLE = "This screen's key is for another table."


@pytest.fixture
def exposed(tmp_path: Path) -> Iterator[AppServer]:
    server = AppServer(tmp_path / "data", tmp_path / "server.log", args=("--host", "0.0.0.0"))
    yield server.start()
    server.stop()


def _table_shoe(store: db.Store, code: str, winners: str) -> str:
    store.floor.add(code, f"Table {code}", "classic", FloorLimits.of((10, 5000)))
    store.floor.open(code)
    for w in winners:
        shoe = store.floor.append(
            code, lambda r, d, w=w: game_rounds.add_winner(r, w, decks=d)
        ).shoe
    return shoe


def test_a_tables_screen_key_opens_only_that_tables_shoes(exposed: AppServer, page: Page):
    page.set_default_timeout(120_000)
    data = exposed.data_dir
    store = db.open_store(data)
    own = _table_shoe(store, "B07", "BPB")
    other = _table_shoe(store, "C01", "PP")
    loose = ShoeMeta(name="by hand", source="hand")
    sh.save_shoe(rounds_from_winners("BBBB"), loose, data)
    key = tokens.issue_screen(data, "B07")

    page.goto(f"{exposed.url}/display?shoe={own}&token={key}")
    wait_rounds(page, 3)  # its own table's shoe: the board
    for shoe in (other, loose.id):  # another table's shoe, a shoe of no table: one line
        page.goto(f"{exposed.url}/display?shoe={shoe}&token={key}")
        expect(page.get_by_test_id("screen-refused")).to_have_text(OTHER_TABLE)
        expect(page.locator('[data-testid="round-count"]')).to_have_count(0)
        expect(page.locator("[data-testid='stMain']")).to_have_text(OTHER_TABLE)
