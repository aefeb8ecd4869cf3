"""The language switch in the system Chromium: after 中文 the scoreboard reads in Chinese.

The page's own text (main area and sidebar, as the browser renders it, tooltips aside)
is read after the switch; no English word is left but the deliberate exceptions: card
codes, table names (data), the file formats, and the switch naming each language in
its own words. The board's road names are checked in `test_board`.
"""

from __future__ import annotations

import re

import pytest
from conftest import AppServer, wait_idle, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.bets.tables import list_tables, load_table
from roads_app.game.shoe import deal_shoe
from tests import storehelp as sh

pytestmark = pytest.mark.browser
LOAD_MS = 120_000
ALLOWED = {
    "English",
    "Language",
    *(w for name in list_tables() for w in re.findall(r"[A-Za-z]+", name)),
    *re.findall(r"[A-Za-z]+", load_table("classic").title),
    "rules",
    "good",
    "roads",
    "default",
    "toml",  # the good-road catalogue's file (data)
}
CARD = re.compile(r"^[2-9TJQKA][shdc]$")


def english_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[A-Za-z]{2,}", text) if w not in ALLOWED and not CARD.match(w)]


def test_the_scoreboard_reads_in_chinese_after_the_switch(app_server: AppServer, page: Page):
    dealt = deal_shoe(6)
    meta = dealt.meta.__class__(**{**dealt.meta.to_dict(), "name": "周六"})
    sh.save_shoe(dealt.rounds.head(25), meta, app_server.data_dir)
    page.goto(f"{app_server.url}/?shoe={meta.id}", timeout=LOAD_MS)
    wait_rounds(page, 25, timeout_ms=LOAD_MS)
    page.locator(".st-key-bets_undo_chip button").first.wait_for()  # the page drawn whole
    wait_idle(page)
    before = page.get_by_test_id("stMain").inner_text()
    assert "Undo last chip" in before and english_words(before)  # English first
    page.locator('[data-testid="stSidebar"]').get_by_text("中文", exact=True).click()
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"round-count\"]')"
        ".textContent.includes('第 25 局')"
    )
    wait_idle(page)
    page.get_by_role("tab", name="按牌").click()  # a second tab's words too
    expect(page.get_by_test_id("stMain")).to_contain_text("按牌录入")  # the tab's run shown
    wait_idle(page)
    # Material icons are ligatures ("undo" drawn as an arrow): their names are not words
    icons = page.evaluate("""() => Array.from(document.querySelectorAll(
        '[data-testid="stIconMaterial"]')).map(e => { const t = e.textContent;
        e.textContent = ''; return t; })""")
    assert "undo" in icons
    main = page.get_by_test_id("stMain").inner_text()
    side = page.get_by_test_id("stSidebar").inner_text()
    assert english_words(main) == [], english_words(main)
    assert english_words(side) == [], english_words(side)
    for zh in ("庄", "闲", "和", "撤回上一个筹码", "实时赔率", "统计", "按牌录入", "记分牌"):
        assert zh in main + side, zh
