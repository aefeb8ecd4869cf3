"""The wall and the display as a floor uses them (issue 36), in the system Chromium.

* The kiosk wall (``/lobby?kiosk=1``): 24 tables fed through the API on a 1920×1080
  screen and 48 on a 3840×2160 one, all on the screen with no scrolling, each tile's big
  road at least 85% of the tile's inner width in cells of at least 9 px, no sidebar and
  no settings; on a 390 px phone one column, the big road across it. A result fed to one
  table shows on its tile. Screenshots in English and Chinese go to
  ``.benchmarks/screens/``.
* Dark boards: in both themes, on the display and the kiosk wall, every mark stands out
  from its ground by at least 3:1 and every text by 4.5:1 (WCAG 2.1), the ratios computed
  from the colours the browser drew (computed styles), not from our constants.
* The display read across a room: every text of its header at least 2.5% of the
  screen's height at 1280×720 and 1920×1080.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from conftest import REPO, AppServer, app_with_api, good_road_badges, record, wait_rounds
from playwright.sync_api import Browser, Page

from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.store import db, tokens

pytestmark = pytest.mark.browser

SCREENS = REPO / ".benchmarks" / "screens"
LOAD_MS = 120_000


@pytest.fixture(scope="module")
def floor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    with app_with_api(tmp_path_factory.mktemp("floor")) as server:
        yield server


def _api(server: AppServer) -> httpx.Client:
    tok = tokens.issue(server.data_dir, "operator", again=True)
    return httpx.Client(
        base_url=f"http://127.0.0.1:{server.api_port}",
        timeout=60,
        headers={"Authorization": f"Bearer {tok}"},
    )


def feed_tables(server: AppServer, n: int, rounds: int) -> list[str]:
    """``n`` live tables (every other one ended first), each fed ``rounds`` dealt
    results through the API, one POST a result, as a table's feeder does."""
    store = db.open_store(server.data_dir)
    with _api(server) as api:
        for s in api.get("/shoes").json():
            if store.shoes.ended(s["id"]) is None:
                assert api.post(f"/shoes/{s['id']}/end").status_code == 200
        ids = []
        for i in range(n):
            r = api.post("/shoes", json={"name": f"Table {i + 1}"})
            assert r.status_code == 201, r.text
            ids.append(r.json()["id"])
            winners = deal_shoe(100 + i, ShoeOptions(decks=8), 0).rounds["winner"].cast(str)
            for w in winners.to_list()[: rounds - (i % 7) * 3]:
                assert api.post(f"/shoes/{ids[-1]}/rounds", json={"winner": w}).status_code == 201
    return ids


def feed_one(server: AppServer, shoe: str, winner: str) -> None:
    with _api(server) as api:
        assert api.post(f"/shoes/{shoe}/rounds", json={"winner": winner}).status_code == 201


KIOSK_JS = """() => {
  const tiles = [...document.querySelectorAll('.st-key-kiosk_wall [class*="st-key-lobby-"]')];
  // the page scrolls in Streamlit's own scroller, not the document: the tallest of them
  const scrollers = [document.scrollingElement, ...document.querySelectorAll(
    '[data-testid="stMain"], [data-testid="stAppViewContainer"], .stMain, .stApp')];
  const out = {tiles: tiles.length, scrollH: Math.max(...scrollers.map(e => e.scrollHeight)),
    scrollW: Math.max(...scrollers.map(e => e.scrollWidth)), H: innerHeight, W: innerWidth,
    outside: 0, roads: [], settings: document.querySelectorAll(
      '[data-testid="stNumberInput"], [data-testid="stMultiSelect"], [data-testid="stCheckbox"]'
    ).length, sidebar: !!([...document.querySelectorAll('[data-testid="stSidebar"]')]
      .find(e => e.getClientRects().length && e.getBoundingClientRect().width > 0))};
  for (const t of tiles) {
    const r = t.getBoundingClientRect();
    if (r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) out.outside += 1;
    const cs = getComputedStyle(t);
    const inner = r.width - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight)
      - parseFloat(cs.borderLeftWidth) - parseFloat(cs.borderRightWidth);
    for (const g of t.querySelectorAll('.rd-plot')) {
      const road = g.layout && g.layout.meta && g.layout.meta.road;
      const svg = g.querySelector('svg.rd-svg');
      const sp = g.querySelector('.rd-sub');
      if (!svg || !sp) continue;
      const scale = svg.getBoundingClientRect().width / +svg.getAttribute('width');
      out.roads.push({road, share: svg.getBoundingClientRect().width / inner,
                      cell: (+sp.dataset.w / +sp.dataset.cols) * scale});
    }
  }
  return out;
}"""


def open_wall(pg: Page, server: AppServer, size: tuple[int, int], query: str) -> Page:
    """``pg`` (a test's kept page) at ``size`` on the kiosk wall, sized before it loads."""
    pg.set_viewport_size({"width": size[0], "height": size[1]})
    pg.set_default_timeout(LOAD_MS)
    pg.goto(f"{server.url}/lobby?kiosk=1&{query}")
    return pg


def wait_tiles(pg: Page, n: int) -> None:
    pg.wait_for_function(
        f"""() => {{ const k = ({KIOSK_JS})(); return k.tiles === {n} &&
            k.roads.filter(r => r.road === 'big_road').length === {n}; }}""",
        timeout=LOAD_MS,
    )


@pytest.mark.parametrize(
    ("size", "n", "lang"), [((1920, 1080), 24, "en"), ((3840, 2160), 48, "zh")]
)
def test_the_kiosk_wall_shows_every_table_on_one_screen(
    floor: AppServer, page: Page, size: tuple[int, int], n: int, lang: str
) -> None:
    ids = feed_tables(floor, n, rounds=40)
    pg = open_wall(page, floor, size, f"lang={lang}")
    wait_tiles(pg, n)
    # the grid is laid out for the screen once the page reported its size: wait for
    # the layout that fits (the first drawing guesses from the width alone)
    pg.wait_for_function(f"() => ({KIOSK_JS})().scrollH <= innerHeight", timeout=LOAD_MS)
    got = pg.evaluate(KIOSK_JS)
    big = [r for r in got["roads"] if r["road"] == "big_road"]
    record(f"kiosk_{size[0]}_big_road_share_min", round(min(r["share"] for r in big), 3))
    record(f"kiosk_{size[0]}_cell_px_min", round(min(r["cell"] for r in big), 2))
    assert got["scrollH"] <= got["H"] and got["scrollW"] <= got["W"], got
    assert got["outside"] == 0 and not got["sidebar"] and got["settings"] == 0, got
    assert all(r["share"] >= 0.85 and r["cell"] >= 9 for r in big), big
    badges = good_road_badges(pg)  # whole, not cut to "Single …"
    record(f"kiosk_{size[0]}_badges", len(badges))
    assert badges and not [b for b in badges if b["cut"]], badges
    pg.screenshot(path=str(SCREENS / f"kiosk_{size[0]}_{n}_{lang}.png"))
    # a result fed to one table shows on its tile, drawn by the page itself
    before = pg.locator(f".st-key-lobby-{ids[0]} [data-testid='tile-rounds']").inner_text()
    feed_one(floor, ids[0], "B")
    pg.wait_for_function(
        """([id, was]) => { const t = document.querySelector(
             `.st-key-lobby-${id} [data-testid="tile-rounds"]`);
             return t && t.textContent !== was; }""",
        arg=[ids[0], before],
        timeout=30_000,
    )


def test_the_kiosk_wall_on_a_phone_is_one_column_with_the_big_road_across(
    floor: AppServer, browser: Browser
) -> None:
    feed_tables(floor, 6, rounds=30)
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2)
    pg = ctx.new_page()
    pg.set_default_timeout(LOAD_MS)
    try:
        pg.goto(f"{floor.url}/lobby?kiosk=1&lang=zh")
        wait_tiles(pg, 6)
        got = pg.evaluate(KIOSK_JS)
        lefts = pg.evaluate("""() => [...document.querySelectorAll(
            '.st-key-kiosk_wall [class*="st-key-lobby-"]')].map(t => Math.round(
            t.getBoundingClientRect().left))""")
        assert len(set(lefts)) == 1, lefts  # one column
        big = [r for r in got["roads"] if r["road"] == "big_road"]
        assert all(r["share"] >= 0.85 and r["cell"] >= 9 for r in big), big
        assert got["scrollW"] <= got["W"], got
        pg.screenshot(path=str(SCREENS / "kiosk_390_zh.png"))
    finally:
        ctx.close()


# The contrast of what was drawn: colours from getComputedStyle (what the browser paints),
# each blended over its ground by its own and its trace's opacity.
CONTRAST_JS = """(scope) => {
  const rgb = (s) => { const m = (s || '').match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1]; };
  const over = (c, g, a) => [0, 1, 2].map(i => c[i] * a + g[i] * (1 - a));
  const lum = (c) => { const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92
    : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c[0]) + 0.7152 * f(c[1])
    + 0.0722 * f(c[2]); };
  const ratio = (a, b) => { const x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const opacity = (el, stop) => { let a = 1; for (let e = el; e && e !== stop; e = e.parentNode)
    if (e.nodeType === 1) a *= +getComputedStyle(e).opacity; return a; };
  const bgOf = (el) => { for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor); if (c && c[3] > 0) return c; }
    return [255, 255, 255, 1]; };
  const out = {marks: [], texts: []};
  const root = document.querySelector(scope) || document;
  for (const svg of root.querySelectorAll('svg.rd-svg')) {
    const paper = rgb(getComputedStyle(svg.querySelector(':scope > rect')).fill);
    for (const sp of svg.querySelectorAll('.rd-sub')) {
      const ground = rgb(getComputedStyle(sp.querySelector(':scope > rect')).fill) || paper;
      for (const tr of sp.querySelectorAll('.rd-trace')) {
        let under = ground;
        for (const el of tr.children) {
          const cs = getComputedStyle(el), a = opacity(el, svg);
          if (a === 0 || el.getClientRects().length === 0) continue;
          if (el.tagName === 'text') {
            const c = rgb(cs.fill); if (!c) continue;
            out.texts.push({r: ratio(over(c, under, a * c[3]), under), what: 'road text ' +
              el.textContent, c: cs.fill});
            continue;
          }
          // a line paints its stroke only (its computed fill, black, is never painted)
          const filled = el.tagName !== 'line' && cs.fill !== 'none';
          const fill = filled ? rgb(cs.fill) : null, stroke = rgb(cs.stroke);
          const c = fill || stroke;
          if (!c) continue;
          out.marks.push({r: ratio(over(c, ground, a * c[3]), ground),
                          what: el.tagName + ' ' + (tr.dataset.name || ''),
                          c: cs.fill + '/' + cs.stroke});
          under = fill ? over(fill, ground, a * fill[3]) : ground;
        }
      }
    }
    for (const note of svg.querySelectorAll('text.rd-note')) {
      out.texts.push({r: ratio(rgb(getComputedStyle(note).fill), paper),
                      what: 'title ' + note.textContent});
    }
  }
  const texty = root.querySelectorAll('.rd-display-head *, .st-key-display_name h1, ' +
    '.st-key-display_name h1 *, .rd-tile-line *');
  for (const el of texty) {
    if (![...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim())) continue;
    if (el.getClientRects().length === 0) continue;
    const c = rgb(getComputedStyle(el).color), g = bgOf(el);
    out.texts.push({r: ratio(over(c, g, c[3] * opacity(el, document)), g),
                    what: 'text ' + el.textContent.slice(0, 20), c: getComputedStyle(el).color});
  }
  return out;
}"""


def _contrast(pg: Page, scope: str, label: str) -> None:
    got = pg.evaluate(CONTRAST_JS, scope)
    assert got["marks"] and got["texts"], label
    bad = [m for m in got["marks"] if m["r"] < 3] + [t for t in got["texts"] if t["r"] < 4.5]
    record(f"contrast_{label}_min_mark", round(min(m["r"] for m in got["marks"]), 2))
    record(f"contrast_{label}_min_text", round(min(t["r"] for t in got["texts"]), 2))
    assert bad == [], f"{label}: {bad[:8]}"


HEAD_JS = """() => {
  const els = [...document.querySelectorAll(
    '.rd-display-head *, .st-key-display_name h1, .st-key-display_name h1 *')]
    .filter(el => [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim()));
  return els.map(el => ({size: parseFloat(getComputedStyle(el).fontSize),
                         text: el.textContent.slice(0, 20)}));
}"""


GROUNDS = ("light", "dark")
ROOM_SIZES = ((1280, 720), (1920, 1080))


@pytest.fixture(scope="class")
def displays(
    floor: AppServer, browser: Browser
) -> Iterator[dict[tuple[tuple[int, int], str], Page]]:
    """A shoe fed through the API and its display opened at once in each screen size and
    theme, each in a browser context of its own: a display holds its last result framed for
    `display_page.LAST_MARK_S`, so opened together their frames go together, not one
    after the other. Each test waits for its own page's board and asserts on it."""
    with _api(floor) as api:
        shoe = api.post("/shoes", json={"name": "Table 9"}).json()["id"]
        for w in "BBBBBBPPBTPBBPPBPBPTBBBB":  # a long banker column at the end: a good road
            assert (
                api.post(
                    f"/shoes/{shoe}/rounds", json={"winner": w, "banker_pair": w == "B"}
                ).status_code
                == 201
            )
    pages: dict[tuple[tuple[int, int], str], Page] = {}
    try:
        for size in ROOM_SIZES:
            for ground in GROUNDS:
                ctx = browser.new_context(viewport={"width": size[0], "height": size[1]})
                pg = ctx.new_page()
                pg.set_default_timeout(LOAD_MS)
                pages[size, ground] = pg
                pg.goto(f"{floor.url}/display?shoe={shoe}&theme={ground}")
        yield pages
    finally:
        for pg in pages.values():
            pg.context.close()


class TestTheDisplayReadsAcrossARoom:
    @pytest.mark.parametrize("ground", GROUNDS)
    @pytest.mark.parametrize("size", ROOM_SIZES)
    def test_in_both_themes(
        self,
        displays: dict[tuple[tuple[int, int], str], Page],
        size: tuple[int, int],
        ground: str,
    ) -> None:
        pg = displays[size, ground]
        wait_rounds(pg, 24, timeout_ms=LOAD_MS)
        pg.get_by_test_id("good-road").first.wait_for()
        pg.wait_for_function(f"() => document.documentElement.dataset.rdTheme === '{ground}'")
        # the board laid out for the screen (after its size was reported), last mark gone
        pg.wait_for_function(
            "() => !document.querySelector("
            "'.rd-plot[data-last-marked]:not([data-last-marked=\"\"])')"
        )
        sizes = pg.evaluate(HEAD_JS)
        assert {s["text"] for s in sizes} >= {"Table 9"}
        small = [s for s in sizes if s["size"] < 0.025 * size[1]]
        record(f"display_head_min_px_{size[1]}", min(s["size"] for s in sizes))
        assert small == [], small
        _contrast(pg, "[data-testid='stMain']", f"display_{ground}_{size[1]}")
        pg.screenshot(path=str(SCREENS / f"display_{ground}_{size[0]}.png"))


@pytest.mark.parametrize("ground", ["light", "dark"])
def test_the_kiosk_wall_contrast_in_both_themes(floor: AppServer, page: Page, ground: str) -> None:
    feed_tables(floor, 8, rounds=30)
    pg = open_wall(page, floor, (1920, 1080), f"theme={ground}")
    wait_tiles(pg, 8)
    pg.wait_for_function(f"() => document.documentElement.dataset.rdTheme === '{ground}'")
    _contrast(pg, ".st-key-kiosk_wall", f"kiosk_{ground}")
    pg.screenshot(path=str(SCREENS / f"kiosk_{ground}_8.png"))
    # the choice is remembered: the wall without ?theme= is drawn the same
    pg.goto(f"{floor.url}/lobby?kiosk=1")
    wait_tiles(pg, 8)
    pg.wait_for_function(f"() => document.documentElement.dataset.rdTheme === '{ground}'")
