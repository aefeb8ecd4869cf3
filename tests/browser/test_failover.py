"""Issue 49 item 2: a screen comes back by itself. Two real dashboards on one PostgreSQL
behind a real HAProxy configured as docs/deploy.md says (a sticky cookie, health checks
on ``/_stcore/health``); a table's display opened through it with a screen key. The
dashboard serving it is killed with SIGKILL while results are fed; then both dashboards
are restarted one after the other, as an upgrade does. Each time the same display shows
the table with every result fed meanwhile (each road's rounds and marks as the store's
rounds draw them), with none of Streamlit's connection marks, no token prompt, and the
balancer never answered it "503 Service Unavailable" (a request pinned to a dead
dashboard is sent to the other at once, not refused until the checks notice)."""

from __future__ import annotations

from pathlib import Path

import pytest
from balanced_floor import TABLE, BalancedFloor, balanced_floor
from conftest import VIEWPORT, board_meta, wait_idle, wait_rounds, watch_console
from playwright.sync_api import Browser, Page, Response, expect

from roads_app.game.hand import Winner
from roads_app.render.board import board_figure
from tests import haproxy

pytestmark = pytest.mark.browser

PROMPT = "enter a viewer or operator token"
MARK = "#rd-reconnecting"
FRAMEWORK = (
    '[data-testid="stStatusWidget"]',
    '[data-testid="stConnectionStatus"]',
    '[role="dialog"]',
)


def current(page: Page, floor: BalancedFloor) -> None:
    """Until the display is connected, idle and shows the table's rounds as the store
    has them; then its roads are exactly those rounds' and nothing else is over them."""
    shoe = floor.store.floor.get(TABLE).shoe
    assert shoe is not None
    rounds = floor.store.shoes.load(shoe).rounds
    wait_rounds(page, rounds.height, timeout_ms=120_000)
    wait_idle(page)
    page.wait_for_selector(MARK, state="hidden")
    want = {
        k: (m["rounds"], m["marks"]) for k, m in board_figure(rounds).layout.meta["roads"].items()
    }
    assert {k: (v["rounds"], v["marks"]) for k, v in board_meta(page).items()} == want
    for framework in FRAMEWORK:
        assert not page.locator(framework).first.is_visible(), framework
    expect(page.get_by_text(PROMPT)).to_have_count(0)
    assert f"token={floor.key}" in page.url


def both_up(floor: BalancedFloor) -> None:
    """Until the balancer routes to both dashboards again (what an operator waits for
    before restarting the next one)."""
    haproxy.until(lambda: set(floor.states().values()) == {"UP"}, "both dashboards up", 120)


def test_a_display_comes_back_by_itself_after_a_kill_and_a_rolling_restart(
    browser: Browser, tmp_path: Path
) -> None:
    with balanced_floor(tmp_path) as floor:
        context = browser.new_context(viewport=VIEWPORT)
        context.set_default_timeout(120_000)  # a hang guard on a shared, loaded machine
        page = context.new_page()
        watch_console(page)
        refused: list[str] = []  # the balancer's "no server for you" answers

        def answered(r: Response) -> None:
            if r.status == 503:
                refused.append(r.url)

        page.on("response", answered)
        try:
            for w in "BPB":
                floor.deal(Winner(w))
            page.goto(floor.display_url())
            current(page, floor)

            first = floor.serving(page)
            floor.kill(first)
            for w in "PPT":  # fed while the screen has no dashboard
                floor.deal(Winner(w))
            current(page, floor)
            assert floor.serving(page) != first  # the other dashboard has it now
            floor.dashboards[first].start()
            both_up(floor)

            for name in floor.dashboards:  # a rolling restart: one after the other
                floor.dashboards[name].stop()
                floor.deal(Winner.BANKER)
                floor.dashboards[name].start()
                both_up(floor)
                current(page, floor)
            assert refused == []
        finally:
            context.close()
