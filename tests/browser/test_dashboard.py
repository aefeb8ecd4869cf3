"""The scoreboard in the system Chromium, against the app started as the README starts it.

Each test waits on what Streamlit draws (the round counter and the ``layout.meta`` of
the drawn Plotly roads) or on its run state, never on sleeps. Timings (first page
load; key press to updated board, timed inside the page from the keydown to the first
frame showing the new board) are printed and written to ``.benchmarks/dashboard.json``;
they are measured, never asserted.
"""

from __future__ import annotations

import os
import statistics
import time

import polars as pl
import pytest
from conftest import (
    REPO,
    AppServer,
    HeldFollow,
    board_meta,
    install_latency_probe,
    probe_latency_ms,
    record,
    round_count,
    wait_idle,
    wait_keys,
    wait_rounds,
)
from playwright.sync_api import Page, expect

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from tests import storehelp as sh

pytestmark = pytest.mark.browser

# The README's picture is refreshed on purpose (ROADS_APP_README_SCREENSHOT=1), not by
# every run: a tracked file rewritten by each test run left every checkout changed.
SCREENSHOT = (
    REPO / "docs" / "dashboard.png"
    if os.environ.get("ROADS_APP_README_SCREENSHOT")
    else REPO / ".benchmarks" / "screens" / "dashboard.png"
)


def open_board(page: Page, url: str, rounds: int = 0) -> float:
    """Load the page and wait until the board shows ``rounds`` rounds; returns seconds."""
    t0 = time.perf_counter()
    page.goto(url)
    wait_rounds(page, rounds)
    elapsed = time.perf_counter() - t0
    wait_keys(page)
    return elapsed


def shoe_of(page: Page) -> str:
    return page.url.split("shoe=")[1].split("&")[0]


def winners_on_disk(server: AppServer, shoe: str) -> str:
    rounds, _ = sh.load_shoe(shoe, server.data_dir)
    return "".join(rounds["winner"].cast(pl.String).to_list())


def error_box(page: Page, text: str):
    return page.locator('[data-testid="stAlert"]').filter(has_text=text)


@pytest.mark.own_context  # records a first visit's load time: a new browser context
def test_results_by_click_and_by_key_change_the_roads(app_server: AppServer, page: Page):
    record("first_page_load_s", round(open_board(page, app_server.url), 3))
    assert board_meta(page)["big_road"]["marks"] == 0

    page.locator(".st-key-btn_B button").click()
    wait_rounds(page, 1)
    assert board_meta(page)["big_road"]["marks"] == 1

    page.keyboard.press("p")
    wait_rounds(page, 2)
    page.keyboard.press("t")
    wait_rounds(page, 3)
    page.keyboard.press("p")
    wait_rounds(page, 4)
    meta = board_meta(page)
    assert (meta["bead_plate"]["marks"], meta["big_road"]["marks"]) == (4, 3)  # tie: no cell
    page.keyboard.press("b")
    wait_rounds(page, 5)
    assert board_meta(page)["big_eye_boy"]["marks"] == 2  # BPP gives one mark, BPPB two
    wait_idle(page)
    assert winners_on_disk(app_server, shoe_of(page)) == "BPTPB"


def test_entry_by_cards_and_a_forbidden_sequence(app_server: AppServer, page: Page):
    open_board(page, app_server.url)
    page.get_by_role("tab", name="By cards").click()
    player = page.get_by_label("Player cards")
    banker = page.get_by_label("Banker cards")
    # Typed key by key: the T of a ten (and b, p, u) in a text box is not a shortcut.
    player.press_sequentially("Ts 9d")
    banker.press_sequentially("Th 2c 5d")  # the banker may not draw against a natural
    page.get_by_role("button", name="Add by cards").click()
    error_box(page, "natural").wait_for()
    wait_idle(page)
    assert round_count(page) == 0
    expect(player).to_have_value("Ts 9d")  # kept, to be corrected

    banker.fill("")
    banker.press_sequentially("Tc 5d")
    banker.press("Enter")  # Enter submits the form
    wait_rounds(page, 1)
    wait_idle(page)  # the board is drawn as its part arrives; the old message goes at the end
    expect(error_box(page, "natural")).to_have_count(0)
    rounds, _ = sh.load_shoe(shoe_of(page), app_server.data_dir)
    row = rounds.row(0, named=True)
    assert (row["winner"], row["player_cards"], row["banker_cards"]) == (
        "P",
        ["Ts", "9d"],
        ["Tc", "5d"],
    )


def test_undo_then_reload_finds_the_shoe_intact(app_server: AppServer, page: Page):
    open_board(page, app_server.url)
    for i, key in enumerate("bbpp", start=1):
        page.keyboard.press(key)
        wait_rounds(page, i)
    page.locator(".st-key-btn_undo button").click()
    wait_rounds(page, 3)
    before = board_meta(page)
    shoe = shoe_of(page)

    page.reload()
    wait_rounds(page, 3)
    assert shoe_of(page) == shoe
    assert board_meta(page) == before
    assert winners_on_disk(app_server, shoe) == "BBP"

    # Another page and back: the tab comes back to its shoe, not to a new one.
    nav = page.locator('[data-testid="stSidebarNav"]')
    nav.get_by_role("link", name="Library").click()
    page.wait_for_url("**/library")
    page.locator('[data-testid="round-count"]').wait_for(state="detached")
    wait_idle(page)
    nav.get_by_role("link", name="Scoreboard").click()
    wait_rounds(page, 3)
    assert shoe_of(page) == shoe


def test_a_server_restart_finds_the_shoe_intact(app_server: AppServer, page: Page):
    """The module's server, restarted: a restart keeps its port and data folder, so the
    tests after this one find it as before (a server of its own would cost one start)."""
    open_board(page, app_server.url)
    for i, key in enumerate("pbtb", start=1):
        page.keyboard.press(key)
        wait_rounds(page, i)
    url, before = page.url, board_meta(page)

    app_server.restart()
    open_board(page, url, rounds=4)
    assert board_meta(page) == before
    page.keyboard.press("b")  # and the shoe goes on where it was
    wait_rounds(page, 5)
    wait_idle(page)
    assert winners_on_disk(app_server, shoe_of(page)) == "PBTBB"


@pytest.mark.own_context  # records a first visit's load time: a new browser context
def test_key_press_to_board_on_an_80_round_shoe_and_the_screenshot(
    app_server: AppServer, page: Page
):
    # A dealt shoe (cards, pairs, naturals) cut to 64 rounds; 16 key presses take it
    # to 80 rounds, each timed from the key press to the redrawn board. (From 72, 88
    # rounds would need more cards than 8 decks hold: refused, `check_shoe`.)
    dealt = deal_shoe(2024, ShoeOptions(decks=8), 0)
    start = 64
    sh.save_shoe(dealt.rounds.head(start), dealt.meta, app_server.data_dir)
    url = f"{app_server.url}/?shoe={dealt.meta.id}"
    record("first_page_load_80_round_shoe_s", round(open_board(page, url, start), 3))
    wait_idle(page)
    # The README's picture: a shoe entered with cards, so live odds show beside the board.
    page.locator('[data-testid="stDataFrame"]').first.wait_for()
    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000

    # The key presses go to the same rounds begun by a result: a shoe recorded by cards
    # takes no result without its cards (`check_by_cards`).
    keyed = ShoeMeta(name="keys")
    sh.save_shoe(sh.begun_by_result(dealt.rounds.head(start)), keyed, app_server.data_dir)
    open_board(page, f"{app_server.url}/?shoe={keyed.id}", start)
    wait_idle(page)

    install_latency_probe(page)
    in_page, driver = [], []
    for i, key in enumerate("bpbbptbpbbppbpbb", start=start + 1):
        t0 = time.perf_counter()
        page.keyboard.press(key)
        wait_rounds(page, i)
        driver.append(round((time.perf_counter() - t0) * 1000, 1))
        in_page.append(probe_latency_ms(page))
        wait_idle(page)
    record("key_to_board_ms_in_page_64_to_80_rounds", in_page)
    record("key_to_board_ms_in_page_median", statistics.median(in_page))
    record("key_to_board_ms_in_page_max", max(in_page))
    record("key_to_board_ms_with_test_driver_median", statistics.median(driver))
    wait_idle(page)
    assert round_count(page) == start + 16
    assert board_meta(page)["bead_plate"]["marks"] == start + 16


NEXT_READY_JS = """() => {
  const gd = document.querySelector('.rd-plot');
  const next = (window.__rdNext || {}).board;
  return !!(gd && gd.__rdWant && next && next.base === gd.__rdWant.sig);
}"""
DRAWN_JS = """() => {
  const gd = document.querySelector('.rd-plot');
  return {rounds: gd.layout.meta.rounds, drawn: gd.__rdDrawn, server: gd.__rdWant.sig};
}"""


class HeldServer:
    """A proxy between the page and the app, in the test's hands: while ``holding``, the
    server's messages wait, until `release` sends them on in order."""

    def __init__(self, page: Page) -> None:
        self.holding, self.held, self.sockets = False, [], []
        page.route_web_socket("**/_stcore/stream", self._route)

    def _route(self, ws) -> None:
        server = ws.connect_to_server()
        self.sockets.append(ws)
        server.on_message(lambda m: self.held.append(m) if self.holding else ws.send(m))

    def release(self) -> None:
        self.holding = False
        for message in self.held:
            self.sockets[-1].send(message)
        self.held.clear()


def open_held(app_server: AppServer, page: Page, seed: int, start: int):
    """A dealt shoe's first ``start`` rounds saved and opened through a `HeldServer`,
    once the page is idle and has the boards one key away."""
    dealt = deal_shoe(seed, ShoeOptions(decks=8), 0)
    # round 1 by result alone: a shoe recorded by cards would take no result by key
    sh.save_shoe(sh.begun_by_result(dealt.rounds.head(start)), dealt.meta, app_server.data_dir)
    proxy = HeldServer(page)
    open_board(page, f"{app_server.url}/?shoe={dealt.meta.id}", start)
    wait_idle(page)
    page.wait_for_function(NEXT_READY_JS)
    return dealt, proxy


def wait_drawn(page: Page, n: int) -> None:
    """Until the drawn board holds n rounds, whatever the header says."""
    page.wait_for_function(
        "(n) => document.querySelector('.rd-plot').layout.meta.rounds === n", arg=n, timeout=10_000
    )


@pytest.mark.parametrize("key, change", [("b", 1), ("u", -1)])
def test_a_key_press_draws_its_board_before_the_server_answers(
    app_server: AppServer, page: Page, key: str, change: int
):
    """Every message from the server is held back after the press: the board must still
    show the pressed key's result (sent ahead by the server), and it must be exactly the
    board the server then sends (the same spec: not drawn a second time)."""
    start = 40
    dealt, proxy = open_held(app_server, page, 7, start)
    before = page.evaluate(DRAWN_JS)
    proxy.holding = True
    page.keyboard.press(key)
    wait_drawn(page, start + change)
    assert round_count(page) == start  # the page has heard nothing back yet
    predicted = page.evaluate(DRAWN_JS)
    assert predicted["server"] == before["server"] and predicted["drawn"] != before["drawn"]
    proxy.release()
    wait_rounds(page, start + change)
    wait_idle(page)
    after = page.evaluate(DRAWN_JS)
    assert after["server"] == predicted["drawn"]  # the server's board is the one drawn
    assert after["drawn"] == predicted["drawn"]
    shoe = "".join(dealt.rounds.head(start)["winner"].cast(pl.String).to_list())
    assert winners_on_disk(app_server, dealt.meta.id) == (shoe + "B" if key == "b" else shoe[:-1])


COUNT_REDRAWS_JS = """() => {
  window.__reacts = 0;  // each drawing of a board (`plot_host.js` says so)
  window.addEventListener('rd-drawn', () => { window.__reacts += 1; });
}"""


def test_a_press_draws_the_board_it_gives_once_and_nothing_ahead(app_server: AppServer, page: Page):
    """Issue 26: the page no longer draws the boards one key away ahead, hidden (four
    Plotly draws of main-thread work for every press): a press draws the one board it
    gives, once, from the spec the server sent; the server's own board is then not drawn
    again. The server's messages are held after the press, so nothing else draws."""
    start = 40
    _, proxy = open_held(app_server, page, 5, start)
    want = page.evaluate("() => window.__rdNext.board.specs.p.sig")
    page.evaluate(COUNT_REDRAWS_JS)
    proxy.holding = True
    page.keyboard.press("p")
    wait_drawn(page, start + 1)
    assert page.evaluate("() => window.__reacts") == 1  # the pressed key's board, once
    assert page.evaluate("() => document.querySelector('.rd-plot').__rdSig") == want
    assert page.evaluate("() => document.querySelectorAll('.rd-spare').length") == 0
    proxy.release()
    wait_rounds(page, start + 1)
    wait_idle(page)
    assert page.evaluate(DRAWN_JS)["server"] == want  # the server's board is the one shown
    assert page.evaluate("() => window.__reacts") == 1  # and it was not drawn again
    assert board_meta(page)["bead_plate"]["marks"] == start + 1


def test_the_board_comes_first_and_the_rest_of_the_page_even_if_its_request_is_lost(
    app_server: AppServer, page: Page
):
    """The first run sends the board alone (not even the entry buttons: the keys work);
    the page then asks for the rest. Every message the page sends after its first one is
    dropped until the board is drawn (its width report, its first request for more): the
    page must ask again and get the rest."""
    dealt = deal_shoe(11, ShoeOptions(decks=8), 0)
    sh.save_shoe(dealt.rounds.head(30), dealt.meta, app_server.data_dir)
    sent, dropping = [0], [True]

    def route(ws) -> None:
        server = ws.connect_to_server()
        server.on_message(ws.send)

        def from_page(message) -> None:
            sent[0] += 1
            if sent[0] == 1 or not dropping[0]:
                server.send(message)

        ws.on_message(from_page)

    page.route_web_socket("**/_stcore/stream", route)
    page.goto(f"{app_server.url}/?shoe={dealt.meta.id}")
    wait_rounds(page, 30)
    tabs = page.locator('[data-testid="stTab"]')
    assert tabs.count() == 0  # the board came alone
    buttons = page.locator(".st-key-btn_B button")
    assert buttons.count() == 0  # the entry buttons come with the rest (`board_first`)
    deadline = time.monotonic() + 15
    while sent[0] < 2 and time.monotonic() < deadline:  # until its width report is lost
        page.wait_for_timeout(20)
    dropping[0] = False
    tabs.first.wait_for(timeout=15_000)  # asked again, and the rest came
    buttons.wait_for(timeout=15_000)
    assert sent[0] > 1
    wait_idle(page)
    assert round_count(page) == 30 and board_meta(page)["bead_plate"]["marks"] == 30


def test_two_tabs_on_one_shoe_the_one_behind_is_refused_and_reloaded(
    app_server: AppServer, page: Page, browser
):
    """A tab follows another tab's write within a second, so a key pressed after that
    lands on top of it; a key sent before the follow lands carries the old version and
    is refused, shown, and the tab reloaded. Held follow requests make that race certain."""
    held = HeldFollow(page)
    open_board(page, app_server.url)
    for i, key in enumerate("bp", start=1):
        page.keyboard.press(key)
        wait_rounds(page, i)
    other = browser.new_context(viewport=page.viewport_size).new_page()
    try:
        open_board(other, page.url, rounds=2)
        other.keyboard.press("t")
        wait_rounds(other, 3)

        page.keyboard.press("b")  # this tab still shows BP: its follow has not landed
        error_box(page, "another tab").wait_for()
        wait_rounds(page, 3)  # refused, and it now shows the newer shoe
        assert winners_on_disk(app_server, shoe_of(page)) == "BPT"

        held.release()
        page.keyboard.press("p")
        wait_rounds(page, 4)
        wait_rounds(other, 4)  # no key pressed there: it followed the other tab's write
        other.keyboard.press("b")  # after the follow: applied on top, not refused
        wait_rounds(other, 5)
        wait_rounds(page, 5)
        # every key sent is on disk, in order, but the one refused (and shown as refused)
        assert winners_on_disk(app_server, shoe_of(page)) == "BPTPB"
        assert error_box(other, "another tab").count() == 0
    finally:
        other.context.close()


CELL_SIZES_JS = """() => {
  const g = Array.from(document.querySelectorAll('.rd-plot'))
    .find(g => g.layout && g.layout.meta && g.layout.meta.road === 'board');
  const out = [];
  for (const n of ['', '2', '3', '4', '5']) {  // each road's plot area, as drawn
    const sp = g.querySelector(`.rd-sub[data-sub="x${n}y${n}"]`);
    if (!sp) { out.push(null); continue; }
    const d = sp.dataset;
    out.push([d.w / d.cols, d.h / d.rows]);
  }
  return out;
}"""


def test_cells_stay_square_in_a_narrow_window(app_server: AppServer, page: Page):
    """Streamlit narrows a figure wider than its column; the cells must not be squeezed.
    The shoe is saved but for its last result, pressed: what is checked is the board's
    cells, not the typing (other tests type), and each press costs a script run."""
    typed = "bpbbpbppbp"  # a mark on every road
    for width in (1024, 1440):
        shoe = ShoeMeta(name=f"square {width}", source="hand")
        sh.save_shoe(rounds_from_winners(typed[:-1].upper()), shoe, app_server.data_dir)
        page.set_viewport_size({"width": width, "height": 800})  # before the board loads
        open_board(page, f"{app_server.url}/?shoe={shoe.id}", rounds=len(typed) - 1)
        page.keyboard.press(typed[-1])
        wait_rounds(page, len(typed))
        sizes = page.evaluate(CELL_SIZES_JS)
        assert len(sizes) == 5 and None not in sizes, sizes
        for px_x, px_y in sizes:
            assert px_x == pytest.approx(px_y, rel=0.03), (width, sizes)
