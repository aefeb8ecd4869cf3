"""A floor table's display (``/display?table=B07``) follows the table through its day:
the current shoe round by round, "Shuffling" with the last shoe's final counts between
shoes, the next shoe by itself when its first hand is dealt, and "Closed". Nobody types
a new address. Writes go through the store from this process (another process than the
dashboard's, as a feeder is); every wait is on the very thing asserted."""

from __future__ import annotations

import time

import pytest
from conftest import AppServer, record, wait_idle, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game.floor import FloorLimits
from roads_app.game.hand import Winner
from roads_app.game.rounds import add_winner
from roads_app.store import db
from roads_app.store.floor import today

pytestmark = pytest.mark.browser


def deal(store: db.Store, code: str, winner: Winner) -> None:
    store.floor.append(code, lambda rounds, decks: add_winner(rounds, winner, decks=decks))


GONE_JS = "(old) => !Object.keys(window.__rdFollowing || {}).some((k) => k.includes(old))"
"""No follower of the shoe ``old`` is left on the page (`follow.js`'s states)."""


def test_a_tables_display_follows_it_shoe_after_shoe(app_server: AppServer, page: Page):
    server = app_server
    store = db.open_store(server.data_dir)
    store.floor.add("B07", "Table <b>7</b> *vip*", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("B07")
    page.set_default_timeout(120_000)  # a first page load on a busy 2-core machine
    page.goto(f"{server.url}/display?table=B07")
    wait_idle(page)

    for n, w in enumerate((Winner.BANKER, Winner.PLAYER, Winner.BANKER), start=1):
        deal(store, "B07", w)
        wait_rounds(page, n, timeout_ms=60_000)
    head = page.locator(".st-key-display_head")
    expect(head.get_by_test_id("shoe-number")).to_have_text("Shoe 1")
    expect(head.get_by_test_id("table-limits")).to_have_text("10-5,000")
    # the last round's code, small in the header line (`game.floor.round_code`)
    day = today().replace("-", "")
    expect(head.get_by_test_id("round-code")).to_have_text(f"B07-{day}-01-03")
    # the name is text: its markup shows as typed, nothing of it is drawn as HTML
    expect(page.locator(".st-key-display_name")).to_contain_text("Table <b>7</b> *vip*")
    assert page.locator(".st-key-display_name b").count() == 0

    first = store.floor.get("B07").shoe
    store.floor.shuffle("B07")  # the shoe ends; the screen says so, with its final counts
    state = page.get_by_test_id("table-state")
    expect(state).to_have_attribute("data-state", "shuffling")
    expect(state).to_have_text("Shuffling")
    expect(page.locator("[data-count='B'] b")).to_have_text("2")
    expect(page.locator("[data-count='P'] b")).to_have_text("1")

    start = time.monotonic()
    deal(store, "B07", Winner.TIE)  # the next shoe's first hand: the screen moves to it
    wait_rounds(page, 1, timeout_ms=60_000)
    expect(head.get_by_test_id("shoe-number")).to_have_text("Shoe 2")
    record("table_display_next_shoe_s", round(time.monotonic() - start, 3))  # not asserted
    # the ended shoe's follower is gone with it (its loop asked the server all day long)
    page.wait_for_function(GONE_JS, arg=first, timeout=30_000)
    assert page.get_by_test_id("table-state").count() == 0

    store.floor.close("B07")
    expect(page.get_by_test_id("table-state")).to_have_attribute("data-state", "closed")
    expect(page.get_by_test_id("table-state")).to_have_text("Closed")


def test_an_unknown_or_malformed_table_is_one_line(app_server: AppServer, page: Page):
    page.set_default_timeout(120_000)
    for code, says in (("Z99", "no table"), ("<b>x</b>", "a table code is")):
        page.goto(f"{app_server.url}/display?table={code}")
        wait_idle(page)
        alert = page.locator('[data-testid="stAlert"]')
        expect(alert).to_contain_text(says)
        assert page.locator('[data-testid="stAlert"] b').count() == 0


RUN_MARKS_JS = """() => ['initial', 'running', 'notRunning', 'rerunRequested']
    .reduce((n, name) => n + performance.getEntriesByName(name).length,
            performance.getEntriesByName('script-run-cycle').length)"""
"""The entries Streamlit puts on the page's performance timeline for its script runs."""


def _resize_listeners(page: Page) -> int:
    """How many ``resize`` listeners the page's window holds (DevTools' own count)."""
    cdp = page.context.new_cdp_session(page)
    try:
        win = cdp.send("Runtime.evaluate", {"expression": "window"})["result"]["objectId"]
        got = cdp.send("DOMDebugger.getEventListeners", {"objectId": win})["listeners"]
    finally:
        cdp.detach()
    return sum(1 for listener in got if listener["type"] == "resize")


def test_a_display_keeps_nothing_per_round_drawn(app_server: AppServer, page: Page):
    """A screen open for days redraws each round: what a round leaves on the page must
    go with the next one. Each redraw's resize listener (holding that render's request
    and data) and Streamlit's run marks were kept, round after round (an hour at 24
    tables grew every display's heap 7-8%)."""
    store = db.open_store(app_server.data_dir)
    store.floor.add("K01", "Table K01", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("K01")
    page.set_default_timeout(120_000)
    page.goto(f"{app_server.url}/display?table=K01")
    wait_idle(page)
    winners = (Winner.BANKER, Winner.PLAYER) * 4
    for n, w in enumerate(winners[:3], start=1):
        deal(store, "K01", w)
        wait_rounds(page, n, timeout_ms=60_000)
    listeners, marks = _resize_listeners(page), page.evaluate(RUN_MARKS_JS)
    for n, w in enumerate(winners[3:], start=4):
        deal(store, "K01", w)
        wait_rounds(page, n, timeout_ms=60_000)
    wait_idle(page)
    assert _resize_listeners(page) <= listeners
    assert page.evaluate(RUN_MARKS_JS) <= max(marks, 3)
