"""中文 without a CJK font on the machine: the page carries its own (the catalogue's
glyphs, `tools/build_cjk_font.py`). A Chromium whose fontconfig sees only the Latin
fonts opens the display in Chinese; the browser itself reports (DevTools'
``CSS.getPlatformFontsForNode``) which font drew the Chinese words: the page's own."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, AppServer, wait_idle
from playwright.sync_api import Browser

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db

pytestmark = pytest.mark.browser

LATIN_ONLY = """<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>/usr/share/fonts/truetype/dejavu</dir>
  <cachedir>{cache}</cachedir>
</fontconfig>
"""


@pytest.fixture
def latin_only_fonts(tmp_path: Path) -> Iterator[dict[str, str]]:
    conf = tmp_path / "fonts.conf"
    conf.write_text(LATIN_ONLY.format(cache=tmp_path / "fc-cache"))
    yield {"FONTCONFIG_FILE": str(conf)}


def test_chinese_is_drawn_with_the_pages_own_font_when_the_machine_has_none(
    fresh_server: AppServer, latin_only_fonts: dict[str, str], browser: Browser
) -> None:
    meta = ShoeMeta(name="Table 8", source="hand")
    db.open_store(fresh_server.data_dir).shoes.create(meta, rounds_from_winners("BPT"))
    # a Chromium of its own, whose fontconfig sees only Latin fonts (the session's one
    # sees the machine's)
    latin = browser.browser_type.launch(executable_path=CHROMIUM, headless=True,
                                        args=CHROMIUM_ARGS, env=latin_only_fonts)  # fmt: skip
    try:
        page = latin.new_page(viewport={"width": 1280, "height": 720})
        page.set_default_timeout(120_000)
        page.goto(f"{fresh_server.url}/display?shoe={meta.id}&lang=zh")
        wait_idle(page)
        page.locator("[data-count='B']").wait_for()
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
        node = cdp.send("DOM.querySelector", {"nodeId": doc["root"]["nodeId"],
                                              "selector": "[data-count='B']"})  # fmt: skip
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node["nodeId"]})["fonts"]
        text = page.locator("[data-count='B']").inner_text()
        assert "庄" in text
        ours = [f for f in fonts if f.get("isCustomFont") and f["glyphCount"] > 0
                and f["familyName"] == "Noto Sans SC"]  # fmt: skip
        assert ours, fonts
        assert not any("WenQuanYi" in f["familyName"] for f in fonts), fonts
    finally:
        latin.close()
