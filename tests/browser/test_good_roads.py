"""Good roads in the system Chromium, in English and in 中文: the scoreboard's header
follows each key press; the display's header shows the tags; the lobby tags each tile,
filters the tables on a long dragon, and alerts (a toast) when another writer turns a
table into one."""

from __future__ import annotations

import pytest
from conftest import AppServer, wait_idle, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from tests import storehelp as sh

pytestmark = pytest.mark.browser
LOAD_MS = 120_000
TAGS = ".st-key-good_roads"


def _wait_round(page: Page, lang: str, n: int) -> None:
    if lang == "en":
        wait_rounds(page, n, timeout_ms=LOAD_MS)
        return
    page.wait_for_function(
        "(want) => { const c = document.querySelector('[data-testid=\"round-count\"]'); "
        "return c !== null && c.textContent.includes(want); }",
        arg=f"第 {n} 局",
        timeout=LOAD_MS,
    )


def _wait_tags(page: Page, text: str, sel: str = TAGS) -> None:
    page.wait_for_function(
        "([sel, want]) => { const e = document.querySelector(sel); "
        "return e !== null && e.innerText.trim() === want; }",
        arg=[sel, text],
        timeout=LOAD_MS,
    )


@pytest.mark.parametrize(
    ("lang", "before", "after", "none"),
    [
        (
            "en",
            "Good roads: Single jump",
            "Good roads: Single jump · Banker jumps",
            "Good roads: none",
        ),
        ("zh", "好路：单跳", "好路：单跳 · 逢庄跳", "好路：暂无"),
    ],
)
def test_the_scoreboard_tags_follow_each_key(
    app_server: AppServer, page: Page, lang: str, before: str, after: str, none: str
) -> None:
    meta = ShoeMeta(name=f"jumps {lang}")
    sh.save_shoe(rounds_from_winners("BPTBP"), meta, app_server.data_dir)
    page.goto(f"{app_server.url}/?shoe={meta.id}&lang={lang}", timeout=LOAD_MS)
    _wait_round(page, lang, 5)
    wait_idle(page)
    _wait_tags(page, before)
    page.keyboard.press("b")
    _wait_round(page, lang, 6)
    _wait_tags(page, after)
    page.keyboard.press("b")
    _wait_round(page, lang, 7)
    _wait_tags(page, none)


@pytest.mark.parametrize(
    ("lang", "want"), [("en", "Double jump|Paired columns"), ("zh", "双跳|排排连")]
)
def test_the_display_header_shows_the_tags(
    app_server: AppServer, page: Page, lang: str, want: str
) -> None:
    """The good roads as badges in the display's header (issue 36: nothing in small type,
    no catalogue line a room cannot read)."""
    meta = ShoeMeta(name=f"display {lang}", source="hand")
    sh.save_shoe(rounds_from_winners("BBPPTBBPP"), meta, app_server.data_dir)
    page.goto(f"{app_server.url}/display?shoe={meta.id}&lang={lang}", timeout=LOAD_MS)
    page.wait_for_function(
        "want => [...document.querySelectorAll('[data-testid=\"good-road\"]')]"
        ".map(e => e.textContent).join('|') === want",
        arg=want,
        timeout=LOAD_MS,
    )


@pytest.mark.parametrize(
    ("lang", "dragon", "pick", "alert"),
    [
        ("en", "Good roads: Long banker dragon", "Long banker dragon", "is on a good road"),
        ("zh", "好路：长庄", "长庄", "出现好路"),
    ],
)
def test_the_lobby_tags_filters_and_alerts(
    app_server: AppServer, page: Page, lang: str, dragon: str, pick: str, alert: str
) -> None:
    """The module's server: the other tests' shoes (and the other language's tables,
    already dragons) are in the lobby too; every check names this test's own tiles."""
    data = app_server.data_dir
    dragon_t = ShoeMeta(name="dragon table", source="hand")
    jumps = ShoeMeta(name="jump table", source="hand")
    later = ShoeMeta(name="later table", source="hand")
    for meta, winners in ((dragon_t, "PBBBB"), (jumps, "BPBP"), (later, "PBBB")):
        sh.save_shoe(rounds_from_winners(winners), meta, data)
    page.goto(f"{app_server.url}/lobby?lang={lang}", timeout=LOAD_MS)
    _wait_tags(page, dragon, f".st-key-gr-tile-{dragon_t.id}")
    wait_idle(page)
    box = page.locator(".st-key-lobby_good_roads_filter input")
    box.click()
    box.fill(pick)
    box.press("Enter")
    page.locator(f".st-key-lobby-{jumps.id}").wait_for(state="detached", timeout=LOAD_MS)
    expect(page.locator(f".st-key-lobby-{dragon_t.id}")).to_have_count(1)
    sh.save_shoe(rounds_from_winners("PBBBB"), later, data)  # another writer: a dragon now
    toast = page.locator('[data-testid="stToast"]').filter(has_text=alert)
    toast.wait_for(timeout=LOAD_MS)
    expect(toast).to_contain_text("later table")
    _wait_tags(page, dragon, f".st-key-gr-tile-{later.id}")  # and it passes the filter
