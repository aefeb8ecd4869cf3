"""AppTest flows of the dashboard's part 2: library, replay, lobby and the bet panel.

The app runs in-process with the same navigation as ``app.py`` (pages matched by their
url_path), on a private data folder. Expected figures come from the shoes themselves
(a dealt shoe's winners) and the spec's payouts, never from what the page printed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from roads_app.bets import ledger as bets_log
from roads_app.bets.tables import load_table
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.store import db, library
from tests import storehelp as sh
from tests.apphelp import open_tab
from tests.shown import shown

TIMEOUT = 60


def _harness(start: str = "library") -> None:
    """The app's navigation with another page first (AppTest cannot open a URL path)."""
    from roads_app.ui.pages import navigation

    navigation(first=start).run()


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("ROADS_APP_DATA", str(folder))
    yield folder


def app(start: str, **query: str) -> AppTest:
    at = AppTest.from_function(_harness, kwargs={"start": start}, default_timeout=TIMEOUT)
    for k, v in query.items():
        at.query_params[k] = v
    return at.run()


def unescape(markdown: str) -> str:
    """What the reader sees of a markdown-escaped message (``a\\.b`` reads ``a.b``)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def text(at: AppTest) -> str:
    """Everything the page says in markdown, captions, alerts, and its own HTML (the round
    counter, the bankroll)."""
    parts = [m.value for m in at.markdown] + [c.value for c in at.caption]
    parts += [h.value for h in at.html]
    parts += [e.value for e in (*at.error, *at.warning, *at.success, *at.info)]
    return "\n".join(shown(str(p)) for p in parts)


def position(at: AppTest) -> int:
    m = re.search(r"data-testid='round-count'>Round (\d+)<", text(at))
    assert m, text(at)
    return int(m.group(1))


def bankroll(at: AppTest) -> float:
    m = re.search(r"data-testid='bankroll'>([\d,.\-]+)<", text(at))
    assert m, text(at)
    return float(m.group(1).replace(",", ""))


def qp(at: AppTest, key: str) -> str:
    """One query parameter of the page's URL."""
    value = at.query_params[key]
    return value[0] if isinstance(value, list) else value


def road_metas(at: AppTest) -> dict[str, dict]:
    """``layout.meta`` of every road drawn (the board's own contract, as in the browser)."""
    import json

    out: dict[str, dict] = {}
    drawn = [
        json.loads(c.proto.json)["spec"]
        for c in at.get("bidi_component")
        if c.proto.component_name == "roads_app.plot"
    ]  # in place (`plot_host`)
    for spec in [json.loads(c.proto.spec) for c in at.get("plotly_chart")] + drawn:
        m = spec.get("layout", {}).get("meta")
        if isinstance(m, dict) and m.get("road") == "board":  # the five roads in one figure
            out.update(m["roads"])
        elif isinstance(m, dict) and "road" in m:
            out[m["road"]] = m
    return out


def no_exceptions(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def saved(folder: Path, winners: str = "", seed: int | None = None, **meta: object) -> ShoeMeta:
    if seed is not None:
        dealt = deal_shoe(seed)
        m = ShoeMeta.from_dict({**dealt.meta.to_dict(), **meta})
        sh.save_shoe(dealt.rounds, m, folder)
        return m
    m = ShoeMeta(**meta)  # type: ignore[arg-type]
    sh.save_shoe(rounds_from_winners(winners), m, folder)
    return m


# --- library -------------------------------------------------------------------------


def test_library_lists_every_shoe_with_its_name_rounds_and_source(data: Path) -> None:
    a = saved(data, "BPBPT", name="Table 3", source="hand")
    b = saved(data, seed=4, name="dealt four")
    at = app("library")
    no_exceptions(at)
    page = text(at)
    assert "2 saved shoes" in page
    assert re.search(r"Table 3.*hand.*\*\*5\*\* rounds", page)
    n = deal_shoe(4).rounds.height
    assert re.search(rf"dealt four.*simulated.*\*\*{n}\*\* rounds", page)
    assert at.button(key=f"lib_open_{a.id}") and at.button(key=f"lib_replay_{b.id}")


def test_delete_asks_first_then_moves_the_shoe_and_its_bets_to_the_trash(data: Path) -> None:
    m = saved(data, "BPP", name="doomed", source="hand")
    store = db.open_store(data)
    store.bets.change(m.id, "bets", lambda b: bets_log.place(b, "player", 5, round_no=4))
    keep = saved(data, "B", name="keeper", source="hand")
    at = app("library")
    at.button(key=f"lib_del_{m.id}").click().run()
    assert "to the trash?" in text(at)
    assert store.shoes.version(m.id) is not None  # nothing deleted on the first click
    at.button(key=f"lib_del_no_{m.id}").click().run()
    assert "to the trash?" not in text(at)
    at.button(key=f"lib_del_{m.id}").click().run()
    at.button(key=f"lib_del_yes_{m.id}").click().run()
    no_exceptions(at)
    assert sh.list_shoes(data)["id"].to_list() == [keep.id]
    assert store.shoes.list(trash=True)["id"].to_list() == [m.id]
    assert "moved 'doomed' to the trash" in text(at)
    # restored from the trash as it was, bets and all
    at.button(key=f"lib_restore_{m.id}").click().run()
    no_exceptions(at)
    assert sorted(sh.list_shoes(data)["id"].to_list()) == sorted([keep.id, m.id])
    assert store.bets.load(m.id).height == 1 and sh.load_shoe(m.id, data)[0].height == 3
    # deleted again and the trash emptied: gone for good, the other shoe kept
    at.button(key=f"lib_del_{m.id}").click().run()
    at.button(key=f"lib_del_yes_{m.id}").click().run()
    at.button(key="lib_empty_trash").click().run()
    no_exceptions(at)
    assert store.shoes.list(trash=True).height == 0
    assert sh.list_shoes(data)["id"].to_list() == [keep.id]
    assert store.bets.load(m.id).height == 0
    with pytest.raises(RoadsAppError, match="for good"):
        store.shoes.restore(m.id)


def test_rename_changes_the_name_and_keeps_the_rounds(data: Path) -> None:
    m = saved(data, "BPTB", name="old", source="hand")
    at = app("library")
    at.text_input(key=f"lib_name_{m.id}").input("Macau table 9")
    at.button(key=f"lib_rename_{m.id}").click().run()
    no_exceptions(at)
    rounds, meta = sh.load_shoe(m.id, data)
    assert meta.name == "Macau table 9"
    assert rounds["winner"].cast(pl.String).str.join("").item() == "BPTB"
    at.text_input(key=f"lib_name_{m.id}").input("   ")
    at.button(key=f"lib_rename_{m.id}").click().run()
    assert "1 to 100 printable characters" in text(at)
    assert sh.load_shoe(m.id, data)[1].name == "Macau table 9"


def test_upload_adds_a_checked_shoe_and_a_bad_one_changes_nothing(data: Path) -> None:
    at = app("library")
    at.file_uploader(key="library_upload").set_value(("good.csv", b"winner\nB\nP\nT\n", "text/csv"))
    at.text_input(key="library_import_name").input("from a file")
    at.button(key="lib_import").click().run()
    no_exceptions(at)
    shoes = sh.list_shoes(data)
    assert shoes.select("name", "rounds", "source").rows() == [("from a file", 3, "imported")]
    before = sorted(p.name for p in data.iterdir())
    # the form is emptied: a second click cannot add the same file again
    assert at.text_input(key="library_import_name").value == ""
    at.button(key="lib_import").click().run()
    shown = " ".join(e.value for e in at.error).replace("\\", "")  # markdown escapes
    assert "choose a .csv" in shown
    assert sh.list_shoes(data).height == 1

    bad = b"winner,player_points,banker_points\nB,3,7\nP,9,2\nB,8,1\n"
    at.file_uploader(key="library_upload.1").set_value(("bad.csv", bad, "text/csv"))
    at.button(key="lib_import").click().run()
    errors = [unescape(e.value) for e in at.error]  # shown as plain text: markdown-escaped
    assert errors == [
        "bad.csv: row 3: winner B disagrees with the points: player 8, banker 1 means P"
    ]
    assert sorted(p.name for p in data.iterdir()) == before


def test_simulate_deals_the_seed_and_opens_it_in_replay_at_round_0(data: Path) -> None:
    at = app("library")
    at.number_input(key="lib_sim_seed").set_value(77)
    at.button(key="FormSubmitter:lib_sim_form-Deal and replay").click().run()
    no_exceptions(at)
    shoes = sh.list_shoes(data)
    assert shoes["source"].to_list() == ["simulated"]
    rounds, meta = sh.load_shoe(shoes["id"][0], data)
    assert rounds.equals(deal_shoe(77).rounds) and meta.seed == 77
    assert position(at) == 0
    assert qp(at, "shoe") == meta.id and qp(at, "round") == "0"


# --- replay ----------------------------------------------------------------------------


def test_url_opens_the_board_as_it_stood_after_round_n(data: Path) -> None:
    m = saved(data, seed=9, name="nine")
    at = app("replay", shoe=m.id, round="17")
    no_exceptions(at)
    assert position(at) == 17
    metas = road_metas(at)
    assert metas["bead_plate"]["rounds"] == 17
    assert metas["bead_plate"]["marks"] == 17  # the board as it stood after round 17


def test_previous_next_and_slider_move_the_position_and_the_url(data: Path) -> None:
    m = saved(data, seed=2)
    n = deal_shoe(2).rounds.height
    at = app("replay", shoe=m.id, round="5")
    at.button(key="rp_next").click().run()
    assert position(at) == 6 and qp(at, "round") == "6"
    at.button(key="rp_prev").click().run()
    at.button(key="rp_prev").click().run()
    assert position(at) == 4 and qp(at, "round") == "4"
    at.slider(key="replay_slider").set_value(n).run()
    assert position(at) == n
    assert at.button(key="rp_next").disabled


@pytest.mark.parametrize(
    ("round_param", "expect", "warned"), [("9999", "end", False), ("abc", "end", True)]
)
def test_out_of_range_or_bad_round_in_the_url(
    data: Path, round_param: str, expect: str, warned: bool
) -> None:
    m = saved(data, seed=3)
    at = app("replay", shoe=m.id, round=round_param)
    no_exceptions(at)
    assert position(at) == deal_shoe(3).rounds.height
    assert bool(at.warning) is warned
    if warned:
        assert "'abc' in the address is not a round number" in shown(at.warning[0].value)


def test_unknown_or_path_like_shoe_in_the_url_is_refused(data: Path) -> None:
    """Refused in one line that never names the server's folder, in either language."""
    for bad in ("doesnotexist", "../../etc/passwd.parquet"):
        at = app("replay", shoe=bad, round="3")
        no_exceptions(at)
        assert at.error and "cannot replay shoe" in at.error[0].value
        assert str(data) not in text(at), text(at)
    at = app("replay", shoe="doesnotexist", lang="zh")
    no_exceptions(at)
    assert at.error and str(data) not in text(at), text(at)
    assert "the data folder" not in at.error[0].value  # said in Chinese, the folder too


def test_replay_reveal_shows_the_hand_in_peek_order(data: Path) -> None:
    m = saved(data, seed=5)
    row = deal_shoe(5).rounds.row(11, named=True)  # round 12
    at = app("replay", shoe=m.id, round="12")
    html = "\n".join(h.proto.body for h in at.html)
    cards = re.findall(r"data-turn='(\d)' data-card='(\w\w)'", html)
    order = [c for _, c in sorted(cards)]
    p, b = row["player_cards"], row["banker_cards"]
    expected = [p[0], b[0], p[1], b[1], *p[2:], *b[2:]]
    assert order == expected


def test_replay_bets_settle_as_the_position_moves(data: Path) -> None:
    m = saved(data, seed=8)
    winner = deal_shoe(8).rounds["winner"].cast(pl.String).to_list()[10]  # round 11
    at = app("replay", shoe=m.id, round="10")
    assert bankroll(at) == 1000.0
    at.button(key="rbets_bet_banker").click().run()  # chip 25 on round 11
    assert bankroll(at) == 1000.0
    at.button(key="rp_next").click().run()
    expected = {"B": 1000 + 25 * 0.95, "P": 1000 - 25, "T": 1000.0}[winner]
    assert bankroll(at) == pytest.approx(expected)
    at.button(key="rp_prev").click().run()  # back before round 11: pending again
    assert bankroll(at) == 1000.0
    assert db.open_store(data).bets.load(m.id, "replay-bets").height == 1
    assert db.open_store(data).bets.load(m.id, "bets").height == 0  # live bets untouched


# --- the bet panel on the scoreboard --------------------------------------------------


def test_the_scoreboard_sends_no_markdown_with_html(data: Path) -> None:
    """Markdown with HTML allowed makes a new browser fetch and run Markdown's HTML parser
    (rehype-raw, 184 kB) before the first board: the scoreboard's own HTML (the round
    counter, the bankroll line) goes through ``st.html``."""
    at = app("scoreboard")
    at.button(key="bets_bet_player").click().run()  # a bet: the bankroll line has numbers
    at.button(key="btn_P").click().run()
    no_exceptions(at)
    assert position(at) == 1 and bankroll(at) > 1000
    assert [m.value for m in at.markdown if m.proto.allow_html] == []


def test_scoreboard_bets_settle_on_the_round_entered_and_a_void_refunds(data: Path) -> None:
    at = app("scoreboard")
    at.button_group(key="bets_chip").set_value(100).run()
    at.button(key="bets_bet_player").click().run()
    no_exceptions(at)
    shoe_id = qp(at, "shoe")  # the shoe was saved for its first bet
    at.button(key="btn_P").click().run()
    assert bankroll(at) == 1100.0
    at.button(key="bets_bet_banker").click().run()
    at.button(key="bets_bet_tie").click().run()
    at.button(key="bets_void").click().run()  # the dealer could not read the cards
    assert bankroll(at) == 1100.0
    rounds, _ = sh.load_shoe(shoe_id, data)
    assert rounds.height == 1  # the void left no round
    at.button(key="bets_bet_banker").click().run()
    at.button(key="btn_B").click().run()
    assert bankroll(at) == pytest.approx(1100 + 95)
    table = load_table("classic")
    bets = db.open_store(data).bets.load(shoe_id)
    log = bets_log.settle_log(bets, rounds_from_winners("PB"), table)
    assert log["outcome"].to_list() == ["win", "refund", "refund", "win"]


def test_closed_bet_shows_disabled_with_its_reason(data: Path) -> None:
    m = saved(data, "B" * 21, name="late", source="hand", rules="winbox")
    at = app("scoreboard", shoe=m.id)
    no_exceptions(at)
    big = at.button(key="bets_bet_big")
    assert big.disabled and "closes after round 20" in big.help
    assert re.search(r"Closed for round 22: .*Big.*Small", text(at))
    assert not at.button(key="bets_bet_banker").disabled


# --- lobby -----------------------------------------------------------------------------


def tile_view(at: AppTest, shoe_id: str) -> dict:
    """What a lobby tile's live part (`wall_tile.live`) was given to draw."""

    def walk(node: object) -> Iterator[object]:
        kids = getattr(node, "children", None) or {}
        for kid in kids.values() if isinstance(kids, dict) else kids:
            yield kid
            yield from walk(kid)

    for el in walk(at._tree):
        proto = getattr(el, "proto", None)
        if getattr(proto, "component_name", "") == "roads_app.wall_tile":
            data = json.loads(proto.json)
            if data["shoe"] == shoe_id:
                return data["view"]
    raise AssertionError(f"no tile for {shoe_id}")


def test_lobby_shows_hand_shoes_with_counts_and_opens_one(data: Path) -> None:
    shoes = [saved(data, w, name=f"T{i}", source="hand") for i, w in enumerate(["BBP", "PT", "B"])]
    saved(data, seed=1)  # simulated: not a table in progress
    at = app("lobby")
    no_exceptions(at)
    page = text(at)
    assert "3 live tables" in page
    counts = "".join(t for t, _ in tile_view(at, shoes[0].id)["counts"])  # drawn by the page
    assert counts.startswith("B 2 · P 1 · T 0 · ")
    at.button(key=f"lobby_open_{shoes[1].id}").click().run()
    no_exceptions(at)
    assert qp(at, "shoe") == shoes[1].id
    assert "data-testid='round-count'>Round 2<" in text(at)
    assert library.counts(sh.load_shoe(shoes[1].id, data)[0])["T"] == 1


def test_two_way_places_the_stake_on_each_pair(data: Path) -> None:
    m = saved(data, "B" * 45, name="pairs", source="hand", rules="entwinetech")
    at = app("scoreboard", shoe=m.id)
    no_exceptions(at)
    at.button_group(key="bets_chip").set_value(5).run()
    assert at.button(key="bets_short_two_way").disabled  # pairs: not by result keys
    at.segmented_control(key="bets_entry_mode").set_value("points").run()
    at.button(key="bets_short_two_way").click().run()
    no_exceptions(at)
    pending = bets_log.pending(db.open_store(data).bets.load(m.id), 46)
    assert sorted(pending["bet"].to_list()) == ["banker_pair", "player_pair"]
    assert pending["stake"].to_list() == [5.0, 5.0]
    assert "on the table <b data-testid='bet-pending'>10<" in text(at)


def test_replay_of_a_shoe_entered_by_result_only_has_no_reveal(data: Path) -> None:
    m = saved(data, "BPPBTBBP", name="by result", source="hand")
    at = app("replay", shoe=m.id, round="5")
    no_exceptions(at)
    assert position(at) == 5
    assert road_metas(at)["bead_plate"]["marks"] == 5
    assert not any("data-testid='reveal'" in h.proto.body for h in at.html)
    assert at.toggle(key="replay_reveal").disabled


def test_library_filter_ignores_case(data: Path) -> None:
    for name in ("Macau evening", "Lisboa noon"):
        sh.save_shoe(rounds_from_winners("BP"), ShoeMeta(source="hand", name=name), data)
    at = app("library")
    at.text_input(key="library_filter").input("MACAU").run()
    no_exceptions(at)
    shown = text(at)
    assert "Macau evening" in shown and "Lisboa noon" not in shown


def test_bets_the_entry_cannot_settle_are_not_offered_and_the_bankroll_is_checked(
    data: Path,
) -> None:
    # No Commission: a banker win on 6 pays half, so Banker needs the totals.
    m = saved(data, "BPB", name="nc", source="hand", rules="winbox-no-commission")
    at = app("scoreboard", shoe=m.id)
    no_exceptions(at)
    assert at.segmented_control(key="bets_entry_mode").value == "winner"  # keyed results
    for bet, need in (("banker", "totals"), ("player_pair", "totals"), ("big", "cards")):
        button = at.button(key=f"bets_bet_{bet}")
        assert button.disabled and need in button.help, (bet, button.help)
    assert not at.button(key="bets_bet_player").disabled
    at.segmented_control(key="bets_entry_mode").set_value("points").run()
    assert not at.button(key="bets_bet_banker").disabled
    assert not at.button(key="bets_bet_player_pair").disabled
    assert at.button(key="bets_bet_big").disabled  # Big still needs the cards

    # 1,000 in hand: a 500 chip twice is fine, a third is refused with the figures
    at.number_input(key="bets_start").set_value(1000.0).run()
    at.button_group(key="bets_chip").set_value(500).run()
    at.button(key="bets_bet_player").click().run()
    at.button(key="bets_bet_banker").click().run()
    no_exceptions(at)
    tie = at.button(key="bets_bet_tie")
    assert tie.disabled and "not enough bankroll: 500 asked, 0 left" in shown(tie.help)
    # undo last chip takes back the banker chip only
    at.button(key="bets_undo_chip").click().run()
    pending = bets_log.pending(db.open_store(data).bets.load(m.id), 4)
    assert pending["bet"].to_list() == ["player"]
    assert not at.button(key="bets_bet_tie").disabled


def test_undo_last_chip_takes_back_a_whole_two_way_press(data: Path) -> None:
    m = saved(data, "BPB", name="ew", source="hand", rules="entwinetech")
    at = app("scoreboard", shoe=m.id)
    at.segmented_control(key="bets_entry_mode").set_value("points").run()
    at.button(key="bets_bet_player").click().run()
    at.button(key="bets_short_two_way").click().run()
    no_exceptions(at)
    placed = bets_log.pending(db.open_store(data).bets.load(m.id), 4)["bet"].to_list()
    assert placed == ["player", "banker_pair", "player_pair"]
    at.button(key="bets_undo_chip").click().run()  # one press: the whole 2-Way
    assert bets_log.pending(db.open_store(data).bets.load(m.id), 4)["bet"].to_list() == ["player"]
    at.button(key="bets_undo_chip").click().run()
    assert bets_log.pending(db.open_store(data).bets.load(m.id), 4).height == 0


# --- the end of a shoe, names (issue 29) ---------------------------------------------------


def test_end_shoe_makes_the_shoe_read_only_and_says_so(data: Path) -> None:
    meta = ShoeMeta(name="Table 4", source="hand")
    sh.save_shoe(rounds_from_winners("BPB"), meta, data)
    shoe = meta.id
    at = open_tab(app("scoreboard", shoe=shoe), "new")
    at.button(key="btn_end").click().run()
    no_exceptions(at)
    assert db.open_store(data).shoes.ended(shoe) is not None
    assert "This shoe has ended" in text(at)
    assert not [b for b in at.button if b.key == "btn_end"]  # nothing left to end
    at.button(key="btn_B").click().run()  # a result on an ended shoe: refused, one line
    assert "shoe 'Table 4' has ended: its rounds and bets are read-only" in unescape(text(at))
    assert sh.load_shoe(shoe, data)[0].height == 3


def test_new_shoe_asks_for_a_name_with_a_default_and_saves_it_on_start(data: Path) -> None:
    at = open_tab(app("scoreboard"), "new")
    name = at.text_input(key="new_name")
    assert re.fullmatch(r"classic \d{4}-\d\d-\d\d \d\d:\d\d", name.value), name.value
    assert db.open_store(data).shoes.list().height == 0  # nothing saved by opening the page
    name.set_value("Table 12").run()
    at.button(key="btn_new").click().run()
    no_exceptions(at)
    shoes = db.open_store(data).shoes.list()
    assert shoes["name"].to_list() == ["Table 12"] and shoes["rounds"].to_list() == [0]


def test_closed_entry_tabs_are_not_sent_and_keep_what_was_entered(data: Path) -> None:
    """Issue 26 item 2: every key press re-sent all four entry tabs' forms, most of what
    was left of a press's work in the page. The edit and new-shoe tabs are sent only
    while open; what was entered in them is there again when they are reopened. The
    points and cards tabs stay on the page (two inputs each; typed text survives)."""
    at = open_tab(app("scoreboard"), "new")
    at.text_input(key="new_name").set_value("Table 9").run()
    at.button(key="btn_B").click().run()
    for k in ("points_player", "points_banker"):  # no total until one is entered
        assert at.number_input(key=k).value is None
    open_tab(at, "edit")
    at.number_input(key="edit_round").set_value(1).run()
    open_tab(at, "points")
    at.button(key="btn_P").click().run()  # a key press's run: the closed tabs are not in it
    no_exceptions(at)
    keys = {w.key for w in (*at.text_input, *at.number_input, *at.selectbox)}
    assert not keys & {"new_name", "new_table", "new_decks", "edit_round"}, keys
    assert {"points_player", "cards_player"} <= keys
    open_tab(at, "new")
    assert at.text_input(key="new_name").value == "Table 9"
    open_tab(at, "edit")
    assert at.number_input(key="edit_round").value == 1
    at.segmented_control(key="edit_how").set_value("Points").run()
    no_exceptions(at)  # (a default and a kept value together would warn)
    assert not at.warning and at.number_input(key="edit_pp").value is None
