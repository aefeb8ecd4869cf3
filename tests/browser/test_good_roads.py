"""Good-road tags in the system Chromium: the scoreboard's header follows each key press,
in English and in 中文 (the display's header and the lobby's filter and alert are in
the tests of those pages' tiles and headers once they call the same tag function)."""

from __future__ import annotations

import pytest
from conftest import AppServer, wait_idle, wait_rounds
from playwright.sync_api import Page

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
        arg=f"第 {n} 局", timeout=LOAD_MS,
    )  # fmt: skip


def _wait_tags(page: Page, text: str) -> None:
    page.wait_for_function(
        "([sel, want]) => { const e = document.querySelector(sel); "
        "return e !== null && e.innerText.trim() === want; }",
        arg=[TAGS, text], timeout=LOAD_MS,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("lang", "before", "after", "none"),
    [
        ("en", "Good roads: Single jump", "Good roads: Single jump · Banker jumps",
         "Good roads: none"),
        ("zh", "好路：单跳", "好路：单跳 · 逢庄跳", "好路：暂无"),
    ],
)  # fmt: skip
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
