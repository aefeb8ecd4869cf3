"""The floor's wall and boards, without a browser: the kiosk layout, the lobby's
switches and order, the dark board's colours (issue 36). The browser side (what the
page draws, measured) is ``tests/browser/test_floor.py``."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

from roads_app.bets import tables
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.render import board
from roads_app.ui import session, theme
from roads_app.ui.lobby_page import (
    PAGE_PAD_PX,
    PHONE_PX,
    TILE_PAD_PX,
    kiosk_grid,
)
from tests import storehelp as sh


@settings(max_examples=300, deadline=None)
@given(w=st.integers(PHONE_PX, 3840), h=st.integers(600, 2160), n=st.integers(1, 48))
def test_a_kiosk_grid_that_fits_holds_every_tile_on_the_screen(w: int, h: int, n: int):
    """Whatever the screen and the number of tables: when a layout fits, its rows of
    tiles (the line, the big road, the bead plate when there is one, at the cell size the
    road gets across the tile) are no taller than the screen, and cells are >= 9 px."""
    g = kiosk_grid(w, h, n)
    rows = math.ceil(n / g.cols)
    inner_w = (w - PAGE_PAD_PX * (g.cols + 1)) / g.cols - 2 * TILE_PAD_PX
    cell = inner_w / g.big
    assert cell >= 9
    if not g.fits:
        return  # too many tables for this screen: the smallest cells, and it scrolls
    line = g.font * 1.7 + 2
    tile_h = 2 * TILE_PAD_PX + line + 6 * cell + ((g.font * 0.35 + 6 * cell) if g.bead else 0)
    assert cell >= 9
    assert rows * tile_h + PAGE_PAD_PX * (rows + 1) <= h + 0.5
    assert g.bead in (0, g.big)


def test_24_tables_on_a_full_hd_screen_and_48_on_4k_show_the_bead_plate_too():
    for w, h, n in ((1920, 1080, 24), (3840, 2160, 48)):
        g = kiosk_grid(w, h, n)
        assert g.bead > 0 and math.ceil(n / g.cols) * g.cols >= n


def test_the_dark_board_swaps_every_board_colour_for_a_lighter_one():
    """Each colour `render.board` draws with has its dark counterpart, and a board spec
    drawn dark holds none of the light ones (those marks would vanish on the dark ground)."""
    spec = board.board_spec(
        rounds_from_winners("BPTBBPPTBP"), board.BoardLook(width_px=900, lang="en")
    )
    dark = str(theme.recolour(spec, theme.Theme.DARK)).lower()
    for colour in (board.RED, board.BLUE, board.GREEN, board.GOLD, board.GRID, board.PAPER):
        assert colour in str(spec).lower() or colour == board.GOLD
        assert f"'{colour}'" not in dark, colour
    assert theme.recolour(spec, theme.Theme.LIGHT) is spec


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    monkeypatch.setenv(tables.TABLES_ENV, str(tmp_path / "tables"))
    return folder


def test_a_display_reading_version_after_version_keeps_nothing_per_version(data: Path):
    """A table's display reads its shoe at every new version, all day
    (`session.load_for_display`): what that leaves in memory is bounded by the cache,
    not by the versions read. Streamlit's ``st.cache_data`` kept a lock and a key for
    every version it ever saw, past its size: about 215 KB a thousand versions, a
    floor's screens some megabytes an hour."""
    import tracemalloc

    meta = ShoeMeta(name="T7", source="hand")
    sh.save_shoe(rounds_from_winners("BPBT"), meta, data)

    def read(versions: range) -> None:
        for v in versions:
            rounds, _ = session.load_for_display(meta.id, v)
            assert rounds.height == 4

    read(range(100))  # the cache full
    tracemalloc.start()
    try:
        read(range(100, 200))
        before = tracemalloc.get_traced_memory()[0]
        read(range(200, 1200))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown < 40_000, f"{grown:,} bytes kept after 1,000 more versions"


def _lobby() -> None:
    import streamlit as st

    from roads_app.ui.lobby_page import render_lobby_page

    st.navigation([st.Page(render_lobby_page, url_path="lobby", default=True)]).run()


def test_the_floor_switch_puts_the_wall_alone_in_the_address(data: Path):
    for name, winners in (("zed", "BPB"), ("alpha", "PPBB"), ("mid", "BBBBB")):
        sh.save_shoe(rounds_from_winners(winners), ShoeMeta(name=name, source="hand"), data)
    at = AppTest.from_function(_lobby, default_timeout=60).run()
    assert not at.exception, at.exception
    assert at.number_input(key="lobby_stale_min") is not None
    at.toggle(key="lobby_kiosk").set_value(True).run()
    assert at.query_params.get("kiosk") == "1"
    assert not at.number_input and not at.multiselect and not at.toggle  # no settings
    assert not at.button  # nor an Open button on a tile
    at.query_params.pop("kiosk")
    at.run()
    assert at.number_input(key="lobby_stale_min") is not None  # settings back


def test_the_wall_is_in_the_order_chosen(data: Path):
    ids = {}
    for name, winners in (("zed", "BPB"), ("alpha", "PPBB"), ("mid", "BBBBB")):
        meta = ShoeMeta(name=name, source="hand")
        sh.save_shoe(rounds_from_winners(winners), meta, data)
        ids[name] = meta.id
    at = AppTest.from_function(_lobby, default_timeout=60).run()

    def order() -> list[str]:
        keys = [
            b.key.removeprefix("lobby_open_")
            for b in at.button
            if b.key and b.key.startswith("lobby_open_")
        ]
        return [next(n for n, i in ids.items() if i == k) for k in keys]

    assert order() == ["mid", "alpha", "zed"]  # the newest result first
    at.selectbox(key="lobby_order").set_value("name").run()
    assert order() == ["alpha", "mid", "zed"]
    at.selectbox(key="lobby_order").set_value("good").run()
    assert order()[0] == "mid"  # BBBBB: a banker dragon, the only good road here
