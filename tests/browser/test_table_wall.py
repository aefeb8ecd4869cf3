"""The wall of a floor (``/lobby``, and the kiosk's floor screen) shows its tables, in
floor order, each tile in its place all day, through a short day of three tables: hands
dealt, a shuffle ("Shuffling" with the last shoe's final counts, in its place), the next
shoe (the tile moves to it by itself), a close ("Closed", in its place). Then 24 tables
on a 1920×1080 floor screen: every good-road badge whole, in English and Chinese.

Writes go through the store from this process (another process than the dashboard's,
as a feeder is); every wait is on the very thing asserted, never a sleep."""

from __future__ import annotations

import time

import pytest
from conftest import AppServer, good_road_badges, record, wait_idle
from playwright.sync_api import Page

from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import add_winner
from roads_app.store import db

pytestmark = pytest.mark.browser

LOAD_MS = 120_000
FULL_HD = {"width": 1920, "height": 1080}


def deal(store: db.Store, code: str, winners: str) -> None:
    """Hands dealt at a table, one transaction each, as its feeder deals them."""
    for w in winners:
        store.floor.append(code, lambda rounds, decks, w=w: add_winner(rounds, w, decks=decks))


TILES_JS = """() => [...document.querySelectorAll('[class*="st-key-lobby-table-"]')].map(t => {
  const code = [...t.classList].find(c => c.startsWith('st-key-lobby-table-')).slice(19);
  const q = (id) => t.querySelector(`[data-testid="${id}"]`);
  const text = (id) => (q(id) ? q(id).textContent : null);
  const r = t.getBoundingClientRect();
  const live = t.querySelector('.rd-tile-live');
  return {code, top: Math.round(r.top), left: Math.round(r.left),
    state: q('tile-state') ? q('tile-state').dataset.state : null,
    stateText: text('tile-state'), shoe: text('tile-shoe-number'),
    limits: text('tile-table-limits'), rounds: text('tile-rounds'),
    name: text('tile-name'), names: t.querySelectorAll('.rd-tile-name b').length,
    counts: [...t.querySelectorAll('[data-count]')].map(b => b.textContent),
    live: live ? live.dataset.table : null, grid: t.querySelectorAll('.rd-grid line').length,
    roads: [...t.querySelectorAll('.rd-plot')].map(g => g.layout && g.layout.meta
      && g.layout.meta.road === 'big_road' ? g.layout.meta.rounds : null)
      .filter(n => n !== null)};
})"""
"""Every floor table's tile in the page's order: its code, place and what it shows."""


def tiles(pg: Page) -> list[dict]:
    return pg.evaluate(TILES_JS)


def wait_tiles(pg: Page, check: str, arg: object = None) -> list[dict]:
    """Until ``check`` (a JS function of the tiles and ``arg``) holds; the tiles then."""
    pg.wait_for_function(
        f"(arg) => {{ const t = ({TILES_JS})(); return t.length > 0 && ({check})(t, arg); }}",
        arg=arg,
        timeout=LOAD_MS,
        polling="raf",
    )
    return tiles(pg)


def floor_order(store: db.Store) -> list[str]:
    return [t.code for t in sorted(store.floor.list(), key=lambda t: (t.position, t.code))]


def places(got: list[dict]) -> dict[str, tuple[int, int]]:
    return {t["code"]: (t["top"], t["left"]) for t in got}


def grid_places(got: list[dict]) -> dict[str, tuple[int, int]]:
    """The settings wall's tiles placed from the grid's first corner: a line above the grid
    (a caption, an alert) may move the whole grid, never one tile against another."""
    at = places(got)
    top, left = min(t for t, _ in at.values()), min(lf for _, lf in at.values())
    return {code: (t - top, lf - left) for code, (t, lf) in at.items()}


def in_order(got: list[dict], order: list[str]) -> None:
    """The tiles stand in floor order: in the page, and on the screen (row by row)."""
    assert [t["code"] for t in got] == order, got
    assert sorted(got, key=lambda t: (t["top"], t["left"])) == got, got


SHOWS = """(t, [code, key, value]) => { const x = t.find(x => x.code === code);
  return !!x && JSON.stringify(x[key]) === JSON.stringify(value); }"""
"""A tile shows ``value`` under ``key``."""


def test_the_wall_follows_each_table_in_its_place_through_a_day(
    app_server: AppServer, page: Page
) -> None:
    server = app_server  # one dashboard for this module's tests
    store = db.open_store(server.data_dir)
    limits = FloorLimits.of((10, 5000))
    # added out of floor order, two at one position (then by code): C03, A01, B02
    store.floor.add("B02", "Table 2", "classic", limits, position=2)
    store.floor.add("C03", "Table <b>3</b> *vip*", "classic", limits, position=1)
    store.floor.add("A01", "Table 1", "classic", FloorLimits.of((25, 2500)), position=2)
    for code in ("A01", "B02", "C03"):
        store.floor.open(code)
    order = floor_order(store)
    assert order == ["C03", "A01", "B02"]
    deal(store, "C03", "BPB")
    deal(store, "A01", "BPBP")
    kiosk, wall = page, page.context.new_page()  # two screens of one kept context
    try:
        for pg in (kiosk, wall):
            pg.set_viewport_size(FULL_HD)  # before the first load
        kiosk.set_default_timeout(LOAD_MS)
        wall.set_default_timeout(LOAD_MS)
        kiosk.goto(f"{server.url}/lobby?kiosk=1")
        wall.goto(f"{server.url}/lobby?theme=dark")  # the settings wall, dark
        for pg in (kiosk, wall):
            wait_idle(pg)
            got = wait_tiles(pg, SHOWS, ["A01", "rounds", "4 rounds"])
            in_order(got, order)
        got = wait_tiles(kiosk, SHOWS, ["C03", "rounds", "3 rounds"])
        at = places(got)
        wall_at = grid_places(wait_tiles(wall, SHOWS, ["C03", "rounds", "3 rounds"]))
        a01 = next(t for t in got if t["code"] == "A01")
        assert (a01["shoe"], a01["limits"], a01["state"]) == ("Shoe 1", "25-2,500", None)
        b02 = next(t for t in got if t["code"] == "B02")  # open, no hand dealt yet
        assert (b02["state"], b02["stateText"], b02["roads"]) == ("open", "Open", [0])
        # the name is text: its markup shows as typed, nothing of it is drawn as HTML
        c03 = next(t for t in got if t["code"] == "C03")
        assert c03["name"] == "Table <b>3</b> *vip*" and c03["names"] == 0, c03
        assert wall.locator(".st-key-lobby-table-C03").get_by_text("Table <b>3</b> *vip*").count()
        # a hand: drawn on its tile in place
        deal(store, "B02", "P")
        for pg in (kiosk, wall):
            got = wait_tiles(pg, SHOWS, ["B02", "rounds", "1 round"])
            in_order(got, order)
        assert places(tiles(kiosk)) == at and grid_places(tiles(wall)) == wall_at

        store.floor.shuffle("A01")  # its shoe ends: "Shuffling", its final counts, in place
        for pg in (kiosk, wall):
            got = wait_tiles(pg, SHOWS, ["A01", "state", "shuffling"])
            in_order(got, order)
        a01 = next(t for t in tiles(kiosk) if t["code"] == "A01")
        assert a01["stateText"] == "Shuffling" and a01["roads"] == [0], a01  # cleared
        assert a01["counts"] == ["B 2", "P 2", "T 0"] and a01["grid"] > 0, a01  # its grid
        assert places(tiles(kiosk)) == at and grid_places(tiles(wall)) == wall_at

        start = time.monotonic()
        deal(store, "A01", "T")  # the next shoe's first hand: the tile moves to it itself
        got = wait_tiles(kiosk, SHOWS, ["A01", "roads", [1]])
        record("table_wall_next_shoe_s", round(time.monotonic() - start, 3))  # not asserted
        a01 = next(t for t in got if t["code"] == "A01")
        assert (a01["shoe"], a01["state"], a01["rounds"]) == ("Shoe 2", None, "1 round"), a01
        in_order(got, order)
        assert places(got) == at
        assert grid_places(wait_tiles(wall, SHOWS, ["A01", "shoe", "Shoe 2"])) == wall_at

        store.floor.close("B02")  # "Closed", in its place
        for pg in (kiosk, wall):
            got = wait_tiles(pg, SHOWS, ["B02", "state", "closed"])
            in_order(got, order)
        assert next(t for t in got if t["code"] == "B02")["stateText"] == "Closed"
        assert places(tiles(kiosk)) == at and grid_places(tiles(wall)) == wall_at
        # a table moved on the floor: the wall follows the floor's new order
        store.floor.edit("B02", position=0)
        order = floor_order(store)
        assert order == ["B02", "C03", "A01"]
        for pg in (kiosk, wall):
            in_order(
                wait_tiles(
                    pg, "(t, o) => JSON.stringify(t.map(x => x.code)) === JSON.stringify(o)", order
                ),
                order,
            )
        # the dark wall's own widgets are dark too, not white boxes on a dark ground
        grounds = wall.evaluate(DARK_WIDGETS_JS)
        assert len(grounds) == 6 and all(g < 0.2 for g in grounds.values()), grounds
    finally:
        wall.close()


DARK_WIDGETS_JS = """() => {
  const lum = (s) => { const m = s.match(/rgba?\\(([^)]+)\\)/); if (!m) return 1;
    const p = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number);
    if (p.length > 3 && p[3] === 0) return null;
    const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92
      : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(p[0]) + 0.7152 * f(p[1]) + 0.0722 * f(p[2]); };
  // the ground a widget shows: its own, else the nearest painted one under it
  const ground = (el) => { for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
    const l = lum(getComputedStyle(e).backgroundColor); if (l !== null) return l; } return 1; };
  const out = {};
  const pick = {number: '[data-testid="stNumberInputContainer"]',
    step: '[data-testid="stNumberInputStepUp"]',
    order: '[data-testid="stSelectbox"] [role="group"]',
    filter: '[data-testid="stMultiSelect"] [role="group"]',
    filterBox: '[data-testid="stMultiSelect"] input', open: '[data-testid^="stBaseButton"]'};
  for (const [k, sel] of Object.entries(pick)) {
    const el = document.querySelector(sel); if (el) out[k] = ground(el);
  }
  return out;
}"""
"""The relative luminance of the ground each of the lobby's widgets shows (0 black, 1
white)."""


PATTERNS = ("BPBP", "BPPBPP", "BBBB", "BBPPBBPP", "PBBPBB", "PPPP")
"""Hands that put a table on a good road: single jump, one banker two players, a long
banker dragon, double jump (and paired columns: a "+1"), one player two bankers, a long
player dragon."""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_24_tables_on_a_full_hd_floor_screen_show_their_good_roads_whole(
    app_server: AppServer, page: Page, lang: str
) -> None:
    server = app_server
    store = db.open_store(server.data_dir)
    have = {t.code for t in store.floor.list()}
    for i in range(1, 25 - len(have)):
        code = f"G{i:02d}"
        if code not in have:
            store.floor.add(code, f"Big Table {i}", "classic", FloorLimits.of((100, 10_000)))
            store.floor.open(code)
            deal(store, code, PATTERNS[i % len(PATTERNS)])
    n = len(store.floor.list())
    on_good = sum(1 for t in store.floor.list() if t.code.startswith("G"))
    page.set_viewport_size(FULL_HD)  # before the first load
    page.set_default_timeout(LOAD_MS)
    page.goto(f"{server.url}/lobby?kiosk=1&lang={lang}")
    wait_idle(page)
    page.wait_for_function(
        f"""() => ({TILES_JS})().length === {n} && document.querySelectorAll(
             '[data-testid="tile-badge"]').length >= {on_good}""",
        timeout=LOAD_MS,
        polling="raf",
    )
    badges = good_road_badges(page)
    assert not [b for b in badges if b["cut"]], badges
    assert {b["text"].split(" +")[0] for b in badges} >= (
        {"Jump ×1", "1B 2P", "B dragon"} if lang == "en" else {"单跳", "一庄两闲", "长庄"}
    ), badges
    in_order(tiles(page), floor_order(store))
