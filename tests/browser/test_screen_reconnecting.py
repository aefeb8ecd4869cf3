"""Issue 49: while a screen's dashboard is away, the last board stays on screen with a
small "reconnecting" mark of ours, not Streamlit's overlay and never a blank page; the
mark goes once a dashboard serves the page again. A real dashboard killed with SIGKILL
under an open display, in the system Chromium."""

from __future__ import annotations

import contextlib
import os
import signal

import pytest
from conftest import AppServer, board_meta, wait_idle, wait_rounds
from playwright.sync_api import Page

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db

pytestmark = pytest.mark.browser

WINNERS = "BPPBBTP"
MARK = "#rd-reconnecting"
FRAMEWORK = (
    '[data-testid="stStatusWidget"]',
    '[data-testid="stConnectionStatus"]',
    '[role="dialog"]',
)


def drawn(page: Page) -> dict[str, tuple[object, object]]:
    """Each road's rounds and marks as the page has drawn them."""
    return {k: (v["rounds"], v["marks"]) for k, v in board_meta(page).items()}


def test_a_display_keeps_its_board_with_our_mark_while_its_dashboard_is_killed(
    page: Page, fresh_server: AppServer
) -> None:
    meta = ShoeMeta(name="table 8", source="hand", rules="classic", decks=8)
    db.open_store(fresh_server.data_dir).shoes.create(meta, rounds_from_winners(WINNERS))
    page.set_default_timeout(120_000)  # a first page load on a busy 2-core machine
    page.goto(f"{fresh_server.url}/display?shoe={meta.id}")
    wait_idle(page)
    wait_rounds(page, len(WINNERS))
    before = drawn(page)
    assert not page.locator(MARK).is_visible()

    assert fresh_server.proc is not None
    with contextlib.suppress(ProcessLookupError):  # every process serving it, at once
        os.killpg(fresh_server.proc.pid, signal.SIGKILL)
    page.wait_for_selector(MARK, state="visible")
    assert page.locator(MARK).inner_text() == "reconnecting…"
    # the last board, every road's rounds and marks, still drawn (its cells may have been
    # laid out again for the screen's size in between: the page's own second run)
    assert drawn(page) == before
    wait_rounds(page, len(WINNERS))
    for framework in FRAMEWORK:  # none of Streamlit's connection marks over the board
        assert not page.locator(framework).first.is_visible(), framework

    fresh_server.stop()  # what is left of it
    fresh_server.start()  # a dashboard at the same address again
    page.wait_for_selector(MARK, state="hidden")
    wait_idle(page)
    wait_rounds(page, len(WINNERS))
