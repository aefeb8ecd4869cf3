"""Library, replay, lobby and bets in the system Chromium, against the app as a person starts it.

Waits are on what Streamlit draws (the round counter, the bead plate's ``layout.meta``,
the bankroll figure) or on its run state, never on sleeps. Speeds (replay rounds a
second, lobby load time) are printed and kept in ``.benchmarks/dashboard.json``;
measured, never asserted.
"""

from __future__ import annotations

import time
from pathlib import Path

import polars as pl
import pytest
from conftest import AppServer, board_meta, record, round_count, wait_idle, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.shoefiles import files as shoe_files
from tests import storehelp as sh

pytestmark = pytest.mark.browser


def key(name: str) -> str:
    """The CSS selector of the element Streamlit made for widget/container ``key``."""
    return f".st-key-{name}"


WAIT_BANKROLL_JS = """(v) => {
  const b = document.querySelector('[data-testid="bankroll"]');
  return b && Math.abs(parseFloat(b.textContent.replace(/,/g, '')) - v) < 1e-6;
}"""


# the bankroll chart's ``layout.meta`` (null until the chart is drawn)
CHART_META_JS = """() => Array.from(document.querySelectorAll('.js-plotly-plot'))
  .map(g => g.layout && g.layout.meta).filter(m => m && 'bankroll' in m)[0] || null"""


def button(page: Page, name: str):
    """The visible button of widget ``name`` (a button with help has a hidden twin)."""
    return page.locator(f"{key(name)} button").locator("visible=true").first


def bankroll(page: Page) -> float:
    return float(page.locator('[data-testid="bankroll"]').inner_text().replace(",", ""))


def wait_bankroll(page: Page, value: float) -> None:
    page.wait_for_function(WAIT_BANKROLL_JS, arg=value, polling="raf")


def upload(page: Page, path: Path) -> None:
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(path))
    expect(page.get_by_text(f"Ready to add: {path.name}")).to_be_visible()  # on the server


def shoe_param(page: Page) -> str:
    return page.url.split("shoe=")[1].split("&")[0]


# --- library: import, bad file, replay of the import --------------------------------------


def test_import_a_file_then_replay_it_step_by_step(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    dealt = deal_shoe(21)
    f = tmp_path / "evening.json"
    meta = ShoeMeta.from_dict({**dealt.meta.to_dict(), "name": "evening"})
    f.write_bytes(shoe_files.export_bytes(dealt.rounds, meta, "json"))

    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    upload(page, f)
    page.locator(key("library_import_name") + " input").fill("Imported evening")
    button(page, "lib_import").click()
    expect(page.get_by_text("added 'Imported evening'")).to_be_visible()
    new = sh.list_shoes(app_server.data_dir).filter(pl.col("name") == "Imported evening")
    assert new.height == 1
    sid = new["id"][0]

    button(page, f"lib_replay_{sid}").click()
    wait_rounds(page, 0)
    assert "/replay?" in page.url and f"shoe={sid}" in page.url and "round=0" in page.url
    button(page, "rp_next").click()
    wait_rounds(page, 1)
    page.keyboard.press("ArrowRight")
    wait_rounds(page, 2)
    button(page, "rp_prev").click()
    wait_rounds(page, 1)
    page.wait_for_url("**round=1*")
    # the hand of round 1 is on the table, turned in peek order
    row = dealt.rounds.row(0, named=True)
    turned = page.locator('[data-testid="reveal"] [data-turn]')
    expect(turned).to_have_count(len(row["player_cards"]) + len(row["banker_cards"]))
    order = sorted(
        (int(t.get_attribute("data-turn") or 0), t.get_attribute("data-card")) for t in turned.all()
    )
    p, b = row["player_cards"], row["banker_cards"]
    assert [c for _, c in order] == [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]


def test_a_file_of_many_shoes_goes_in_whole_and_once(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    """Issue 50: the Library page takes a file of many shoes (it said "import one shoe
    at a time"), with a progress bar while it streams in; the same file again adds none."""
    f = tmp_path / "night.parquet"
    n = 30
    pl.DataFrame(
        {"shoe": pl.int_range(1, n + 1, eager=True), "winner": ["B", "P", "T"] * (n // 3)}
    ).write_parquet(f)
    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    upload(page, f)
    button(page, "lib_import").click()
    expect(page.get_by_text(f"added {n:,} shoes to the library (0 of")).to_be_visible()
    names = sh.list_shoes(app_server.data_dir).filter(pl.col("name").str.starts_with("night"))
    assert sorted(names["name"]) == sorted(f"night shoe {k}" for k in range(1, n + 1))
    wait_idle(page)  # (the emptied uploader is a new one)
    upload(page, f)
    button(page, "lib_import").click()
    expect(page.get_by_text(f"added 0 shoes to the library ({n:,} of")).to_be_visible()


def test_a_bad_file_shows_its_message_by_the_uploader(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    before = sh.list_shoes(app_server.data_dir).drop("modified")
    f = tmp_path / "broken.csv"
    f.write_text("winner,player_cards,banker_cards\nP,9s Kd,5c 2h 3d\n")
    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    upload(page, f)
    button(page, "lib_import").click()
    box = page.locator('[data-testid="stAlert"]').filter(has_text="broken.csv: row 1")
    expect(box).to_be_visible()
    message = box.locator('[data-testid="stMarkdownContainer"]').inner_text().strip()
    assert message == (
        "broken.csv: row 1: player has a natural 9: both hands stand on two cards, no third card"
    )
    assert sh.list_shoes(app_server.data_dir).drop("modified").equals(before)


# --- replay: the URL, play at 5 rounds a second ------------------------------------------


def test_url_opens_a_saved_shoe_at_a_replay_position(app_server: AppServer, page: Page) -> None:
    dealt = deal_shoe(33)
    sh.save_shoe(dealt.rounds, dealt.meta, app_server.data_dir)
    page.goto(f"{app_server.url}/replay?shoe={dealt.meta.id}&round=12")
    wait_rounds(page, 12)
    meta = board_meta(page)
    assert meta["bead_plate"]["marks"] == 12
    ties = dealt.rounds.head(12)["winner"].cast(pl.String).str.count_matches("T").sum()
    assert meta["big_road"]["rounds"] in (12, 12 - ties)  # ties sit on the cell before


POSITIONS_JS = """() => {
  // Frame by frame, in the page: each round counter shown, timed from the click on play.
  // Kept in the page rather than polled from the test, whose round trips would take
  // the machine from the replay they time.
  const p = window.__positions = {click: null, seen: []};
  document.addEventListener('click', () => { if (p.click === null) p.click = performance.now(); },
                            true);
  const tick = () => {
    const c = document.querySelector('[data-testid="round-count"]');
    if (p.click !== null && c) {
      const r = parseInt(c.textContent.trim().split(/\\s+/).pop(), 10);
      const last = p.seen[p.seen.length - 1];
      if (!Number.isNaN(r) && (!last || last[1] !== r))
        p.seen.push([performance.now() - p.click, r]);
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""


def test_play_at_five_rounds_a_second_reaches_the_end(app_server: AppServer, page: Page) -> None:
    dealt = deal_shoe(44)
    sh.save_shoe(dealt.rounds, dealt.meta, app_server.data_dir)
    n = dealt.rounds.height
    start = n - 10  # each round's reveal comes first: about 1.3 s a round at "5 / s"
    page.goto(f"{app_server.url}/replay?shoe={dealt.meta.id}&round={start}")
    wait_rounds(page, start)
    page.locator(key("replay_speed")).click()
    page.get_by_role("option", name="5 / s", exact=True).click()
    wait_idle(page)
    page.evaluate(POSITIONS_JS)
    button(page, "rp_play").click()
    wait_rounds(page, n, timeout_ms=60_000)
    seen = [(t / 1000, r) for t, r in page.evaluate("() => window.__positions.seen")]
    elapsed = seen[-1][0]
    moved = n - start
    # steady state: from the first position drawn after the start to the end
    first = next((t, r) for t, r in seen if r > start)
    steady = (n - first[1]) / (elapsed - first[0]) if elapsed > first[0] else float("inf")
    record(
        "replay_play_5_per_s",
        {
            "rounds": moved,
            "seconds_from_click": round(elapsed, 2),
            "rounds_per_s_from_click": round(moved / elapsed, 2),
            "first_move_after_s": round(first[0], 2),
            "rounds_per_s_steady": round(steady, 2),
            "positions_drawn": len({r for _, r in seen}),
        },
    )
    assert seen[-1][1] == n
    expect(button(page, "rp_play")).to_be_visible()  # play stopped at the end


# --- bets on the scoreboard: bankroll moves, a void refunds ------------------------------


def test_bets_move_the_bankroll_and_a_void_refunds(app_server: AppServer, page: Page) -> None:
    page.goto(app_server.url)
    wait_rounds(page, 0)
    page.locator(key("bets_chip") + " button").filter(has_text="100").click()
    wait_idle(page)
    button(page, "bets_bet_player").click()
    expect(page.locator('[data-testid="bet-pending"]')).to_have_text("100")
    button(page, "btn_P").click()
    wait_rounds(page, 1)
    wait_bankroll(page, 1100.0)
    # the chart is its own element, drawn once Plotly's chart code has loaded: wait for it
    # to end at the bankroll shown (a timeout here fails the test)
    page.wait_for_function(f"() => (({CHART_META_JS})() || {{}}).bankroll === 1100", polling="raf")

    button(page, "bets_bet_banker").click()
    expect(page.locator('[data-testid="bet-pending"]')).to_have_text("100")
    button(page, "bets_void").click()
    expect(page.locator('[data-testid="bet-pending"]')).to_have_text("0")
    wait_idle(page)
    assert bankroll(page) == 1100.0 and round_count(page) == 1
    rounds, _ = sh.load_shoe(shoe_param(page), app_server.data_dir)
    assert rounds.height == 1  # the void left no round on the roads

    button(page, "bets_bet_banker").click()
    expect(page.locator('[data-testid="bet-pending"]')).to_have_text("100")
    page.keyboard.press("b")
    wait_rounds(page, 2)
    wait_bankroll(page, 1195.0)
    page.reload()  # bets are kept beside the shoe
    wait_rounds(page, 2)
    assert bankroll(page) == 1195.0


# --- lobby: every live shoe, open one -----------------------------------------------------


@pytest.mark.own_context  # records a first visit's load time: a new browser context
def test_lobby_of_nine_shoes_loads_and_opens_one(fresh_server: AppServer, page: Page) -> None:
    # A folder of its own: the wall shows every live table, so a shoe an earlier test
    # played on the module's server would be a tenth board.
    app_server = fresh_server
    ids = []
    sh.save_shoe(
        rounds_from_winners("BPB"), ShoeMeta(name="old", source="hand"), app_server.data_dir
    )  # changed before the eight: shown too
    for i in range(8):
        dealt = deal_shoe(100 + i)
        k = 20 + 5 * i
        m = ShoeMeta(name=f"Table {i + 1}", source="hand")
        sh.save_shoe(dealt.rounds.head(k), m, app_server.data_dir)  # newest last = Table 8
        ids.append((m.id, k))

    nine_boards = (
        "() => Array.from(document.querySelectorAll('.rd-svg-plot'))"  # tiles: plain SVG
        ".filter(g => g.layout && g.layout.meta && g.layout.meta.road === 'big_road')"
        ".length === 9"
    )
    t0 = time.perf_counter()
    page.goto(f"{app_server.url}/lobby")  # a new tab: Streamlit's own start-up included
    page.wait_for_function(nine_boards, polling="raf")
    cold = time.perf_counter() - t0
    nav = page.locator('[data-testid="stSidebarNavLink"]')
    nav.filter(has_text="Library").click()
    page.wait_for_url("**/library")
    wait_idle(page)
    t0 = time.perf_counter()
    nav.filter(has_text="Lobby").click()  # the app already open in the tab
    page.wait_for_function(nine_boards, polling="raf")
    warm = time.perf_counter() - t0
    record("lobby_9_shoes_load_s", {"new_tab": round(cold, 3), "from_another_page": round(warm, 3)})
    for sid, _ in ids:
        expect(page.locator(key(f"lobby-{sid}"))).to_be_visible()
    expect(page.get_by_text("old", exact=True)).to_have_count(1)  # the ninth, oldest, too

    sid, k = ids[2]
    button(page, f"lobby_open_{sid}").click()
    wait_rounds(page, k)
    assert shoe_param(page) == sid


# --- export: downloads from the library ----------------------------------------------------


def test_export_downloads_the_shoe_and_its_board(
    app_server: AppServer, page: Page, tmp_path: Path
) -> None:
    dealt = deal_shoe(55)
    meta = ShoeMeta.from_dict({**dealt.meta.to_dict(), "name": "to export"})
    sh.save_shoe(dealt.rounds, meta, app_server.data_dir)
    page.goto(f"{app_server.url}/library")
    wait_idle(page)
    row = page.locator(key(f"shoe-{meta.id}"))
    for fmt in ("csv", "png"):
        row.get_by_role("button", name="Export").click()
        with page.expect_download(timeout=60_000) as info:
            button(page, f"lib_dl_{fmt}_{meta.id}").click()
        got = tmp_path / f"x.{fmt}"
        info.value.save_as(got)
        if fmt == "csv":
            back, _ = shoe_files.import_bytes(got.read_bytes(), "x.csv")
            assert back.equals(dealt.rounds)
        else:
            assert got.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        page.keyboard.press("Escape")
