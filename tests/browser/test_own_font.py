"""中文 on a machine with no CJK font: every page carries its own (`tools/build_cjk_font.py`,
``roads_app/ui/static/fonts``), and every Chinese word on it is drawn with it.

A Chromium of its own sees the machine's fonts but the CJK ones (a fontconfig file that
lists only the font folders holding none; ``fc-list :lang=zh`` under it prints nothing),
as a kiosk or a TV box would. Each page opens in Chinese, each of its tabs and expanders
opened in turn, and for every element holding Chinese text as the page shows it (its own
text, or its ``::before``/``::after`` content; hidden ones are not read), the browser
itself says which fonts drew it (DevTools' ``CSS.getPlatformFontsForNode``): the page's
own font must have drawn every CJK character. A character no font has is drawn as an
empty box by another font, and the count falls short.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CHROMIUM, CHROMIUM_ARGS, AppServer, KeptContext, wait_idle
from playwright.sync_api import Browser, CDPSession, Locator, Page
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from tests import storehelp as storage
from tests.fontless import ENV, fontless_config

pytestmark = pytest.mark.browser
LOAD_MS = 120_000
OWN_FAMILY = "Noto Sans SC"
"""The family name inside the page's own font file (its source's, kept by the subset)."""
CJK_CLASS = (
    r"\u2E80-\u2FFF\u3000-\u303F\u3100-\u9FFF\uF900-\uFAFF\uFE30-\uFE4F"
    r"\uFF00-\uFFEF"
)
"""The characters counted as CJK: the ranges the page's font faces are declared for."""


@pytest.fixture(scope="module")
def no_cjk_fonts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of a process that sees no CJK font (checked, not assumed)."""
    return {**os.environ, ENV: str(fontless_config(tmp_path_factory.mktemp("fontless")))}


@pytest.fixture(scope="module")
def fontless_browser(browser: Browser, no_cjk_fonts: dict[str, str]) -> Iterator[Browser]:
    """Chromium as on a machine without CJK fonts: one of its own (the session's sees
    the machine's fonts), started by the same Playwright."""
    fontless = browser.browser_type.launch(
        executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS, env=no_cjk_fonts
    )
    yield fontless
    fontless.close()


@pytest.fixture(scope="module")
def fontless_pages(fontless_browser: Browser) -> Iterator[KeptContext]:
    """One context of the fontless browser for the module's page walks, each a new page
    in it reset between tests (a new context each started a new renderer every time)."""
    kept = KeptContext(fontless_browser)
    kept.context.set_default_timeout(60_000)
    yield kept
    kept.context.close()


@pytest.fixture(scope="module")
def shoes(app_server: AppServer) -> dict[str, str]:
    """A dealt shoe (cards, pairs, every road drawn) and a keyed one holding good roads."""
    dealt = deal_shoe(6)
    meta = ShoeMeta(**{**dealt.meta.to_dict(), "name": "Table 8", "source": "hand"})
    storage.save_shoe(dealt.rounds.head(40), meta, app_server.data_dir)
    keyed = ShoeMeta(name="Table 9", source="hand")
    storage.save_shoe(rounds_from_winners("BBBBBPBPBPBPPBBPPBB"), keyed, app_server.data_dir)
    return {"dealt": meta.id, "keyed": keyed.id}


MARK_JS = """(prefix) => {
  // Every element whose own text (its text nodes, or its ::before/::after content)
  // holds a CJK character, as shown: marked with data-cjk-probe, and described.
  const CJK = new RegExp('[' + %r + ']', 'g');
  const found = [];
  let i = 0;
  for (const el of document.querySelectorAll('[data-cjk-probe]')) {
    el.removeAttribute('data-cjk-probe');
  }
  const SKIP = ['SCRIPT', 'STYLE', 'NOSCRIPT', 'TITLE', 'TEXTAREA', 'OPTION'];
  for (const el of document.querySelectorAll('body *')) {
    if (SKIP.includes(el.tagName)) continue;
    const texts = [];
    let own = '';
    for (const n of el.childNodes) if (n.nodeType === 3) own += n.data;
    if (own.match(CJK)) texts.push(['', own]);
    for (const p of ['before', 'after']) {
      const c = getComputedStyle(el, '::' + p).content;
      if (c && c.match(CJK)) texts.push([p, c.replace(/^"|"$/g, '')]);
    }
    // shown: laid out, and visible (a ::after may be visible on a hidden element)
    if (!texts.length || !el.checkVisibility({contentVisibilityAuto: true})) continue;
    for (const [pseudo, text] of texts) {
      if (getComputedStyle(el, pseudo ? '::' + pseudo : null).visibility !== 'visible') continue;
      const id = prefix + ':' + (i++);
      el.setAttribute('data-cjk-probe', (el.getAttribute('data-cjk-probe') || '') + ' ' + id);
      const style = getComputedStyle(el, pseudo ? '::' + pseudo : null);
      found.push({id, pseudo, text: text.trim().slice(0, 60), cjk: text.match(CJK).length,
                  cut: style.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth,
                  weight: style.fontWeight, style: style.fontStyle, family: style.fontFamily,
                  tag: el.tagName.toLowerCase()});
    }
  }
  return found;
}""".replace("%r", repr(CJK_CLASS))  # a JS regular expression's class, braces and all


def _walk(node: dict) -> Iterator[dict]:
    yield node
    for key in ("children", "pseudoElements", "shadowRoots"):
        for child in node.get(key, []):
            yield from _walk(child)
    if "contentDocument" in node:
        yield from _walk(node["contentDocument"])


def _marked(page: Page, cdp: CDPSession) -> tuple[dict[str, dict], dict[str, int]]:
    """The Chinese texts the page shows (marked by `MARK_JS`), and the document's node
    of each mark found in it."""
    found = {}
    for n, frame in enumerate(page.frames):
        for item in frame.evaluate(MARK_JS, f"f{n}"):
            found[item["id"]] = item
    doc = cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    nodes: dict[str, int] = {}
    for node in _walk(doc["root"]):
        attrs = node.get("attributes", [])
        marks = dict(zip(attrs[::2], attrs[1::2], strict=True)).get("data-cjk-probe")
        for mark in (marks or "").split():
            item = found[mark]
            if not item["pseudo"]:
                nodes[mark] = node["nodeId"]
            for pseudo in node.get("pseudoElements", []):
                if pseudo.get("pseudoType") == item["pseudo"]:
                    nodes[mark] = pseudo["nodeId"]
    return found, nodes


def undrawn(page: Page) -> tuple[int, list[str]]:
    """How many Chinese texts the page shows, and those not drawn with the page's own
    font, each with the fonts Chromium says drew it."""
    page.wait_for_function(
        "() => document.fonts.ready.then(() => document.fonts.status === 'loaded')"
    )
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        # A live page may redraw an element between marking it and asking for its fonts
        # (a display following the table, a frame taken off the last result): then the
        # marks, the document and the fonts are all taken again, until one pass sees
        # every marked text to the end.
        deadline = time.monotonic() + 30
        while True:
            try:
                found, nodes = _marked(page, cdp)
                if set(nodes) != set(found):
                    raise LookupError(sorted(set(found) - set(nodes)))
                fonts_of = {
                    mark: cdp.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
                    for mark, node in nodes.items()
                }
                break
            except (LookupError, PlaywrightError) as gone:
                if time.monotonic() > deadline:
                    raise AssertionError(f"the page never held still for 30 s: {gone}") from gone
        bad = []
        for mark, item in found.items():
            fonts = fonts_of[mark]
            ours = sum(
                f["glyphCount"]
                for f in fonts
                if f["isCustomFont"] and f["familyName"] == OWN_FAMILY
            )
            if ours < (1 if item["cut"] else item["cjk"]):
                used = ", ".join(f"{f['familyName']}×{f['glyphCount']}" for f in fonts)
                bad.append(
                    f"<{item['tag']}{'::' + item['pseudo'] if item['pseudo'] else ''}"
                    f" weight {item['weight']} {item['style']}> {item['text']!r}: "
                    f"{ours} of {item['cjk']} CJK glyphs ours; drawn with {used or '-'}"
                    f" (font-family {item['family']})"
                )
        return len(found), bad
    finally:
        cdp.detach()


def open_each(page: Page, selector: str, opening: bool) -> Iterator[str]:
    """Each of the page's tabs in turn (or each closed expander, which leaves the
    selection once open), clicked as a person clicks it."""
    for k in range(page.locator(selector).count()):
        target = page.locator(selector).nth(0 if opening else k)
        label = target.inner_text().strip()
        target.click()
        wait_idle(page)
        yield label


TABS = '[data-testid="stMain"] [role="tab"]'
EXPANDERS = '[data-testid="stMain"] [data-testid="stExpander"] details:not([open]) > summary'
FLOATS = (  # what opens over the page (a popover, a select's list): its opener, its body
    ('[data-testid="stMain"] [data-testid="stPopoverButton"]', '[data-testid="stPopoverBody"]'),
    (
        '[data-testid="stMain"] [data-testid="stSelectbox"] input[role="combobox"]:not([disabled])',
        '[role="listbox"]',
    ),
)


def open_float(page: Page, target: Locator, body: str) -> None:
    """Open a popover or a select's list and wait until it shows. A press or click that
    lands while the page is being drawn again (a fragment's rerun replaces the widget and
    its focus) opens nothing, so until the body shows it is pressed again, never twice on
    a body already open."""
    for _ in range(11):
        if target.get_attribute("role") == "combobox":
            target.focus()
            target.press("ArrowDown")  # a select's list opens from the keyboard
        else:
            target.click()
        try:
            page.locator(body).first.wait_for(timeout=5_000)
            return
        except PlaywrightTimeout:
            wait_idle(page)
    page.locator(body).first.wait_for()


def floats_undrawn(page: Page, seen: set[str]) -> tuple[int, list[str]]:
    """The Chinese texts of each popover and each select's list of the page as it
    stands, each opened in turn (and closed again), but those ``seen`` already."""
    total, bad = 0, []
    for opener, body in FLOATS:
        for k in range(page.locator(opener).count()):
            target = page.locator(opener).nth(k)
            name = target.evaluate("e => e.closest('.stSelectbox, .stPopover').innerText")
            if name in seen or not target.is_visible():
                continue
            seen.add(name)
            open_float(page, target, body)
            n, more = undrawn(page)
            total += n
            bad += [b for b in more if b not in bad]
            page.keyboard.press("Escape")
            page.locator(body).first.wait_for(state="detached")
    return total, bad


def check_page(
    page: Page, url: str, ready: str, drawn: str | None, run: tuple[str, ...] | None
) -> tuple[int, list[str]]:
    """Open ``url``; once ``ready`` (and the boards, ``drawn``) show, the Chinese texts
    of the page, then of each tab and each expander opened. A study page is ``run``
    first (a small one: how many shoes, its button, what its results show)."""
    page.goto(url, timeout=LOAD_MS)
    page.locator(ready).first.wait_for(timeout=LOAD_MS)
    wait_idle(page)
    if drawn:
        page.locator(drawn).first.wait_for(timeout=LOAD_MS)
    if run:
        field, shoes, button, shown = run
        page.locator(field).fill(shoes)
        page.locator(field).press("Enter")
        wait_idle(page)
        page.locator(button).click()
        page.locator(shown).first.wait_for(timeout=LOAD_MS)
        wait_idle(page)
    total, bad = undrawn(page)
    seen: set[str] = set()
    for where, opening in ((TABS, False), (EXPANDERS, True)):
        for label in open_each(page, where, opening):
            n, more = undrawn(page)
            total += n
            bad += [f"[{label}] {b}" for b in more if b not in bad]
            n, more = floats_undrawn(page, seen)
            total += n
            bad += [f"[{label}, opened] {b}" for b in more if b not in bad]
    if not page.locator(TABS).count() + page.locator(EXPANDERS).count():
        n, more = floats_undrawn(page, seen)
        total += n
        bad += [f"[opened] {b}" for b in more if b not in bad]
    return total, bad


BOARD = "svg.rd-svg text"
PAGES = {  # name: (address, shown when ready, the boards drawn, viewport)
    "scoreboard": ("/?shoe={dealt}&lang=zh", ".st-key-bets_undo_chip", BOARD, (1440, 900)),
    "display": ("/display?shoe={dealt}&lang=zh", '[data-testid="round-count"]', BOARD, (1440, 900)),
    "display 1920": (
        "/display?shoe={keyed}&lang=zh",
        '[data-testid="round-count"]',
        BOARD,
        (1920, 1080),
    ),
    "wall": ("/lobby?lang=zh", ".st-key-lobby-{dealt}", BOARD, (1440, 900)),
    "library": ("/library?lang=zh", '[data-testid="stFileUploader"]', None, (1440, 900)),
    "replay picker": ("/replay?lang=zh", '[data-testid="stForm"]', None, (1440, 900)),
    "replay": ("/replay?shoe={dealt}&round=5&lang=zh", ".st-key-rp_next", BOARD, (1440, 900)),
    "backtest run": ("/backtest?lang=zh", ".st-key-bt_sides", None, (1440, 900)),
    "good roads": ("/good-roads?lang=zh", '[data-testid="stMain"] [role="tab"]', None, (1440, 900)),
    "live-odds study run": (
        "/odds-study?lang=zh",
        '[data-testid="stNumberInput"]',
        None,
        (1440, 900),
    ),
}
RUNS = {  # a study's results are words too (its form stays on the page above them):
    # how many shoes, its button, what shows its results
    "backtest run": (".st-key-bt_shoes input", "200", ".st-key-bt_run button", ".js-plotly-plot"),
    "live-odds study run": (
        '[class*="st-key-study"][class*="shoes"] input',
        "20",
        '[class*="st-key-study"][class*="run"] button',
        ".js-plotly-plot",
    ),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_every_chinese_word_is_drawn_with_the_pages_own_font_on_a_machine_without_one(
    app_server: AppServer,
    fontless_pages: KeptContext,
    shoes: dict[str, str],
    name: str,
    tmp_path: Path,
) -> None:
    address, ready, drawn, (w, h) = PAGES[name]
    page = fontless_pages.new_page()
    page.set_viewport_size({"width": w, "height": h})  # before its first load
    try:
        total, bad = check_page(
            page,
            app_server.url + address.format(**shoes),
            ready.format(**shoes),
            drawn,
            RUNS.get(name),
        )
        shots = Path(os.environ.get("ROADS_APP_SHOTS", tmp_path))  # to look at them
        page.screenshot(path=str(shots / f"zh-{name.replace(' ', '-')}.png"), full_page=True)
    finally:
        fontless_pages.done(page)
    assert total >= 5, f"{name}: only {total} Chinese texts found: is the page in Chinese?"
    print(f"{name}: {total} Chinese texts")
    assert bad == [], (
        f"{name}: {len(bad)} of {total} Chinese texts not drawn with our font:\n" + "\n".join(bad)
    )


def test_the_walk_sees_a_word_no_font_holds(
    app_server: AppServer, fontless_browser: Browser
) -> None:
    """The check can fail: a character the page's font lacks (and no font of the machine
    has) is reported, with the font that drew its empty box."""
    page = fontless_browser.new_page()
    try:
        page.goto(f"{app_server.url}/library?lang=zh", timeout=LOAD_MS)
        page.locator('[data-testid="stFileUploader"]').wait_for(timeout=LOAD_MS)
        wait_idle(page)
        page.evaluate("""() => { const p = document.createElement('p');
          p.textContent = '龘'; p.id = 'probe';
          document.body.append(p); }""")  # outside the app, which a rerun redraws
        assert page.evaluate("() => getComputedStyle(probe).fontFamily").startswith('"Source Sans"')
        _, bad = undrawn(page)
        assert [b for b in bad if "'龘'" in b], bad
    finally:
        page.close()
