"""The scoreboard as a player uses it (issue 26), in the system Chromium.

* The bet layout of every table in rules/ fits beside the board at 1440 px: its bets
  (main, side, numbered families, shortcuts) are no taller than the board, and Player /
  Tie / Banker sit above every side bet.
* A side bet the next round cannot settle is refused at the key press with the reason
  in full, not only in a cut-off history cell.
* The replay's reveal turns one card a beat (timed in the page, frame by frame).
* The Chinese pages hold no English word but the deliberate exceptions, widget chrome
  (the file uploader, a multiselect's placeholder) included.
"""

from __future__ import annotations

import contextlib
import itertools
import re

import pytest
from conftest import AppServer, wait_idle, wait_keys, wait_rounds
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from roads_app.bets.tables import list_tables
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from tests import storehelp as storage

pytestmark = pytest.mark.browser
LOAD_MS = 120_000

BOARD_JS = """() => Array.from(document.querySelectorAll('.rd-plot'))
  .find(g => g.layout && g.layout.meta && g.layout.meta.road === 'board')"""
SETTLED_JS = """() => {
  const g = (BOARD)();
  const svg = g && g.querySelector('svg.rd-svg');
  return !!(svg && +svg.getAttribute('width') === g.layout.width);
}""".replace("BOARD", BOARD_JS)


def settle(page: Page) -> None:
    """Idle, and the board drawn at the width the page reported."""
    wait_idle(page)
    page.wait_for_function(SETTLED_JS, polling="raf")
    wait_idle(page)


def dealt(server: AppServer, rules: str, rounds: int, seed: int = 7) -> str:
    """A dealt shoe (cards) of ``rounds`` rounds on table ``rules``, saved; its id."""
    shoe = deal_shoe(seed, ShoeOptions(decks=8), 0)
    meta = ShoeMeta(**{**shoe.meta.to_dict(), "rules": rules, "name": f"t {rules}"})
    storage.save_shoe(shoe.rounds.head(rounds), meta, server.data_dir)
    return meta.id


LAYOUT_JS = """() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return [r.top, r.bottom]; };
  const lay = document.querySelector('.st-key-bets_lay-out');
  const board = (BOARD)();
  const bets = Array.from(lay.querySelectorAll('[class*="st-key-bets_bet_"]'))
    .filter(el => el.querySelector('button')).map(el => {
    const id = Array.from(el.classList).find(c => c.startsWith('st-key-bets_bet_'));
    return [id.slice('st-key-bets_bet_'.length), ...box(el.querySelector('button'))];
  });
  const shortcuts = Array.from(lay.querySelectorAll('[class*="st-key-bets_short_"] button'))
    .map(b => box(b)).filter(([top, bottom]) => bottom > top);
  return {layout: lay.getBoundingClientRect().height,
          board: board.getBoundingClientRect().height, bets, shortcuts};
}""".replace("(BOARD)", f"({BOARD_JS})")


READY_JS = """() => {
  const got = (LAYOUT)();
  const mains = got.bets.filter(b => ['player', 'tie', 'banker', 'ez_banker'].includes(b[0]));
  return mains.length === 3 && got.layout <= got.board;
}""".replace("(LAYOUT)", f"({LAYOUT_JS})")


@pytest.mark.parametrize("rules", list_tables())
def test_every_tables_bets_fit_beside_the_board_main_bets_first(
    app_server: AppServer, page: Page, rules: str
):
    shoe = dealt(app_server, rules, 10)
    page.goto(f"{app_server.url}/?shoe={shoe}", timeout=LOAD_MS)
    wait_rounds(page, 10, timeout_ms=LOAD_MS)
    page.locator(".st-key-bets_lay-out").wait_for()
    settle(page)
    # the bet panel comes with the page's second run, its buttons one delta at a time:
    # wait for what is asserted (the main bets there, the panel no taller than the board),
    # then assert it whatever the wait saw
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(READY_JS, timeout=30_000)
    got = page.evaluate(LAYOUT_JS)
    assert got["layout"] <= got["board"], got
    main = {
        b: (top, bottom)
        for b, top, bottom in got["bets"]
        if b in ("player", "tie", "banker", "ez_banker")
    }
    assert len(main) == 3, got["bets"]
    main_bottom = max(bottom for _, bottom in main.values())
    side_tops = [top for b, top, _ in got["bets"] if b not in main]
    side_tops += [top for top, _ in got["shortcuts"]]
    assert all(main_bottom <= top for top in side_tops), got
    # largest: every main button at least as tall as any other bet's
    tallest_side = max((b - t for _, t, b in got["bets"] if _ not in main), default=0)
    assert min(b - t for t, b in main.values()) >= tallest_side


def test_a_side_bet_the_keyed_round_cannot_settle_is_refused_aloud_at_the_key_press(
    app_server: AppServer, page: Page
):
    meta = ShoeMeta(source="hand", rules="winbox-no-commission", name="refusal")
    storage.save_shoe(rounds_from_winners("B"), meta, app_server.data_dir)
    page.goto(f"{app_server.url}/?shoe={meta.id}", timeout=LOAD_MS)
    wait_rounds(page, 1, timeout_ms=LOAD_MS)
    settle(page)
    page.locator(".st-key-bets_entry_mode").get_by_text("Cards", exact=True).click()
    big = page.locator(".st-key-bets_bet_big button").first
    # (the panel is drawn again after the mode's click: the button is briefly not there)
    page.wait_for_function(
        "() => { const b = document.querySelector('.st-key-bets_bet_big button');"
        " return !!b && !b.disabled; }"
    )
    big.click()
    page.wait_for_function(
        "() => document.querySelector('.st-key-bets_bet_big button').innerText.includes('25')"
    )
    wait_idle(page)
    wait_keys(page)
    page.keyboard.press("b")  # round 2 entered by key: no cards to settle Big
    wait_rounds(page, 2)
    said = (
        "Round 2: Big (25) was refused and its stake returned: round 2 lacks cards to settle Big."
    )
    toast = page.get_by_test_id("stToast").filter(has_text=said)
    toast.first.wait_for()
    warning = page.locator('[data-testid="stAlert"]').filter(has_text=said)
    warning.first.wait_for()
    expect(warning.first).to_contain_text(said)
    # the history's note is there in full too, not only cut off in its cell
    expect(page.get_by_test_id("stMain")).to_contain_text(
        "Round 2 · Big: round 2 lacks cards to settle Big"
    )


def column_edges(page: Page, grid) -> list[float]:
    """The grid's column boundaries (x from its left), found as a person finds them:
    where the pointer over the header row turns into the column-resize cursor."""
    box = grid.bounding_box()
    edges, was = [], False
    for dx in range(2, int(box["width"]) - 1, 2):
        page.mouse.move(box["x"] + dx, box["y"] + 17)
        now = page.evaluate(
            "(g) => getComputedStyle(g.querySelector('canvas')).cursor === 'col-resize'",
            grid.element_handle(),
        )
        if now and not was:
            edges.append(dx)
        was = now
    return edges


TEXT_PX_JS = """(labels) => {
  const df = document.querySelector('[data-testid="stDataFrame"]');  // the grids' font
  const ctx = document.createElement('canvas').getContext('2d');
  ctx.font = '14px ' + getComputedStyle(df).fontFamily;
  return labels.map(t => ctx.measureText(t).width);
}"""

TICKS_JS = """() => {
  const g = Array.from(document.querySelectorAll('.js-plotly-plot'))
    .find(g => g.layout && g.layout.meta && 'bankroll' in g.layout.meta);
  return g ? Array.from(g.querySelectorAll('.xtick text')).map(t => t.textContent) : null;
}"""


def test_live_odds_names_every_bet_whole_and_the_bankroll_counts_whole_rounds(
    app_server: AppServer, page: Page
):
    from roads_app.bets.tables import load_table

    shoe = dealt(app_server, "winbox", 1)
    page.goto(f"{app_server.url}/?shoe={shoe}", timeout=LOAD_MS)
    wait_rounds(page, 1, timeout_ms=LOAD_MS)
    settle(page)
    page.locator(".st-key-bets_bet_player button").first.click()
    page.wait_for_function(f"() => ({TICKS_JS})() && ({TICKS_JS})().length > 1")
    ticks = page.evaluate(TICKS_JS)
    assert all(t.replace(",", "").isdigit() for t in ticks), ticks  # not 0.2, 0.4 …
    grid = page.locator('[data-testid="stDataFrame"]').filter(has_text="P(win)").first
    grid.wait_for()
    wait_idle(page)
    labels = [b.label for b in load_table("winbox").bets.values()]
    needed = max(page.evaluate(TEXT_PX_JS, labels)) + 16  # the grid pads 8 px a side
    edges = column_edges(page, grid)
    assert len(edges) >= 5, edges
    assert edges[0] >= needed, (edges, needed)  # "Player Natural", not "Player Natur…"
    assert edges[-1] <= grid.bounding_box()["width"]  # and no sideways scroll for it


ICONS_JS = """() => Array.from(document.querySelectorAll(
    '[data-testid="stIconMaterial"], span[role="img"][aria-label$=" icon"]'))
  .forEach(e => { e.textContent = ''; })"""  # icon ligatures ("upload", "edit"): not words
PLACEHOLDERS_JS = """(where) => Array.from(document.querySelectorAll(
    `[data-testid="${where}"] [placeholder]`))
  .filter(e => {  // shown: the input is empty, and a select has nothing chosen
    if (!e.getBoundingClientRect().width || e.value) return false;
    const select = e.closest('[data-baseweb="select"]');
    return !select || !select.innerText.trim();
  }).map(e => e.placeholder).join('\\n')"""
"""What an empty input or multiselect shows in grey ("Choose options"): read too."""
FORMATS = {"CSV", "JSON", "Parquet", "MB"}  # file formats keep their names (README)


def chinese_page_words(page: Page, url: str, ready: str, data: set[str]) -> dict[str, list[str]]:
    """The English words left on the page at ``url`` once ``ready`` shows, main area and
    sidebar, as the browser renders them (hidden text is not read), but the deliberate
    exceptions (`test_language.english_words`), file formats and ``data`` (shoe names)."""
    from test_language import english_words

    page.goto(url, timeout=LOAD_MS)
    page.locator(ready).first.wait_for(timeout=LOAD_MS)
    wait_idle(page)
    shown = {  # icons cleared and text read in one go: a rerun may draw icons again
        where: page.evaluate(
            f"(w) => {{ ({ICONS_JS})(); "
            f"return document.querySelector(`[data-testid='${{w}}']`).innerText"
            f" + '\\n' + ({PLACEHOLDERS_JS})(w); }}",
            where,
        )
        for where in ("stMain", "stSidebar")
        if page.get_by_test_id(where).count()
    }
    return {
        where: [w for w in english_words(text) if w not in FORMATS and w not in data]
        for where, text in shown.items()
    }


def test_every_page_in_chinese_holds_no_english_word_widget_chrome_included(
    app_server: AppServer, page: Page
):
    shoe = deal_shoe(6)
    meta = ShoeMeta(**{**shoe.meta.to_dict(), "name": "周六", "source": "hand"})
    storage.save_shoe(shoe.rounds.head(25), meta, app_server.data_dir)
    sid, url = meta.id, app_server.url
    pages = {
        "scoreboard": (f"{url}/?shoe={sid}&lang=zh", ".st-key-bets_undo_chip"),
        "display": (f"{url}/display?shoe={sid}&lang=zh", '[data-testid="last-result"]'),
        "lobby": (f"{url}/lobby?lang=zh", f".st-key-lobby-{sid}"),
        "library": (f"{url}/library?lang=zh", '[data-testid="stFileUploader"]'),
        "replay picker": (f"{url}/replay?lang=zh", '[data-testid="stForm"]'),
        "replay": (f"{url}/replay?shoe={sid}&round=5&lang=zh", ".st-key-rp_next"),
        "backtest": (f"{url}/backtest?lang=zh", ".st-key-bt_sides"),
        "odds study": (f"{url}/odds-study?lang=zh", '[data-testid="stNumberInput"]'),
    }
    shoes = storage.list_shoes(app_server.data_dir)
    names = shoes["name"].to_list() + shoes["id"].to_list()  # the display shows the shoe's id
    data = {w for name in names for w in re.findall(r"[A-Za-z]+", name)}  # names, ids: data
    left = {}
    for name, (address, ready) in pages.items():
        found = chinese_page_words(page, address, ready, data)
        left.update({f"{name} {where}": words for where, words in found.items() if words})
    assert left == {}, left


PACE_WATCH_JS = """(round) => {
  // Frame by frame, in the page: when each card of the hand shows its face, and when
  // the hand's totals show, from the press of Next; and when the face's animation was
  // scheduled to start (the page's timeline: a late frame on a busy machine delays what
  // a frame sees, never the schedule).
  const w = window.__paceWatch = {click: null, turned: {}, sched: {}, total: null,
                                  done: false};
  document.addEventListener('click', () => { if (w.click === null) w.click = performance.now(); },
                            true);
  const tick = () => {
    const hand = document.querySelector(`[data-testid="reveal"][data-round="${round}"]`);
    if (hand) {
      const now = performance.now();
      for (const card of hand.querySelectorAll('.rv-card')) {
        const face = card.querySelector('.rv-face');
        if (!(card.dataset.turn in w.turned) && parseFloat(getComputedStyle(face).opacity) > 0.5) {
          w.turned[card.dataset.turn] = now;
          const a = face.getAnimations()[0];
          w.sched[card.dataset.turn] = a ? a.startTime + a.effect.getTiming().delay : null;
        }
      }
      const total = hand.querySelector('.rv-total');
      if (w.total === null && parseFloat(getComputedStyle(total).opacity) > 0.5) w.total = now;
      const cards = hand.querySelectorAll('.rv-card').length;
      if (Object.keys(w.turned).length === cards && w.total !== null) { w.done = true; return; }
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def test_the_reveal_turns_each_card_on_its_own_beat(app_server: AppServer, page: Page):
    shoe = deal_shoe(12, ShoeOptions(decks=8), 0)
    storage.save_shoe(shoe.rounds.head(30), shoe.meta, app_server.data_dir)
    page.goto(f"{app_server.url}/replay?shoe={shoe.meta.id}&round=5", timeout=LOAD_MS)
    wait_rounds(page, 5, timeout_ms=LOAD_MS)
    settle(page)
    page.evaluate(PACE_WATCH_JS, 6)
    page.locator(".st-key-rp_next button").click()
    page.wait_for_function("() => window.__paceWatch.done", timeout=60_000)
    watch = page.evaluate("() => window.__paceWatch")
    turns = range(1, len(watch["turned"]) + 1)
    times = [watch["turned"][str(k)] for k in turns]
    sched = [watch["sched"][str(k)] for k in turns]
    assert len(times) >= 4 and None not in sched, watch
    # the default beat is a second a card: each card its own beat, in turn order (as the
    # page scheduled them: the frames seen on a loaded machine came up to 0.35 s late)
    gaps = [(b - a) / 1000 for a, b in itertools.pairwise(sched)]
    assert all(0.8 <= g <= 1.6 for g in gaps), gaps
    assert all(t >= s for t, s in zip(times, sched, strict=True))  # none shown before its beat
    assert times == sorted(times)
    assert watch["total"] >= times[-1]  # the totals, like the board, wait for the last card
    assert (sched[0] - watch["click"]) / 1000 >= 0.8  # the first card waits for its beat too
