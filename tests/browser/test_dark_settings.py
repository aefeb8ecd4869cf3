"""The dark theme's settings (issue 47): on a page drawn dark, the sidebar's widgets (the
language switch, the pages' links, any select, input or toggle there) are dark too, not
white boxes, and their text reads at 4.5:1 at least (WCAG 2.1), from the colours the
browser drew."""

from __future__ import annotations

import contextlib

import pytest
from conftest import AppServer
from playwright.sync_api import Page
from playwright.sync_api import TimeoutError as PlaywrightTimeout

pytestmark = pytest.mark.browser

LOAD_MS = 120_000

SIDEBAR_JS = """() => {
  const rgb = (s) => { const m = (s || '').match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92
    : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1])
    + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const bgOf = (el) => { for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor); if (c && c[3] > 0) return c; }
    return [255, 255, 255, 1]; };
  const side = document.querySelector('[data-testid="stSidebar"]');
  if (!side) return null;
  const controls = [...side.querySelectorAll(
    'button, input, textarea, [data-baseweb="select"] > div, [data-testid="stSidebarNav"] a')]
    .filter(el => el.getClientRects().length > 0);
  const out = [];
  for (const el of controls) {
    const g = bgOf(el);
    const texts = [el, ...el.querySelectorAll('*')].filter(e =>
      [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
    const worst = Math.min(21, ...texts.map(e =>
      ratio(rgb(getComputedStyle(e).color), bgOf(e))));
    out.push({what: (el.getAttribute('data-testid') || el.tagName) + ' ' +
              (el.textContent || el.value || '').trim().slice(0, 20),
              ground: Math.round(lum(g) * 1000) / 1000, text: Math.round(worst * 100) / 100});
  }
  return out;
}"""


DARK_AND_READ = f"""() => {{ const got = ({SIDEBAR_JS})();
  return got && got.some(c => /button/i.test(c.what))
    && got.every(c => c.ground <= 0.1 && c.text >= 4.5); }}"""
"""The condition the test asserts, as the browser sees it: a white box is 1.0; the dark
ground about 0.006."""


def test_the_sidebars_widgets_are_dark_on_a_dark_page(app_server: AppServer, page: Page):
    page.set_viewport_size({"width": 1280, "height": 800})  # the sidebar open
    page.set_default_timeout(LOAD_MS)
    page.goto(f"{app_server.url}/lobby?theme=dark")
    page.wait_for_function("() => document.documentElement.dataset.rdTheme === 'dark'")
    page.locator("[data-testid='stSidebar'] [data-testid='stButtonGroup'] button").first.wait_for()
    # The condition itself waited for, not the mark: the mark on <html> outlives the
    # element that set it (a page drawn again keeps it while the styles come back).
    with contextlib.suppress(PlaywrightTimeout):  # the asserts below say what is wrong
        page.wait_for_function(DARK_AND_READ, polling=100, timeout=30_000)
    got = page.evaluate(SIDEBAR_JS)
    assert got, "no sidebar"
    assert any("Button" in c["what"] or "BUTTON" in c["what"] for c in got), got
    white = [c for c in got if c["ground"] > 0.1]
    unread = [c for c in got if c["text"] < 4.5]
    assert white == [] and unread == [], {"white": white[:8], "unread": unread[:8]}
