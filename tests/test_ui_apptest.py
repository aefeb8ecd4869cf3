"""The scoreboard page's main flows through Streamlit's AppTest (no browser).

Every check reads the shoe back from the store (the truth), not only
what the page shows: a result must be on disk after each change, a refused input
must leave the file as it was, and a second "tab" must find the shoe again.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from streamlit.testing.v1 import AppTest

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db
from roads_app.store import rounds as store_rounds
from roads_app.ui import entry_page, session
from tests import storehelp as sh
from tests.apphelp import open_tab
from tests.shown import shown

APP = str(Path(__file__).resolve().parents[1] / "roads_app" / "ui" / "app.py")


@pytest.fixture
def data(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(folder))
    return folder


def open_app(shoe: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if shoe is not None:
        at.query_params[session.URL_PARAM] = shoe
    at.run()
    assert not at.exception, at.exception
    return at


def header(at: AppTest) -> str:
    """The scoreboard's header as a reader sees it: name, table and round count (the
    counter is the page's own HTML, `board_view.round_count`)."""
    counter = [h.value for h in at.html if "data-testid='round-count'" in h.value]
    return "\n".join([*(shown(m.value) for m in at.markdown), *counter])


def shown_round(at: AppTest) -> int:
    text = header(at)
    return int(text.split("Round ")[1].split("<")[0])


def errors(at: AppTest) -> list[str]:
    return [shown(e.value) for e in at.error]


def saved(data: Path) -> list[str]:
    return db.open_store(data).shoes.list()["id"].to_list()


def click(at: AppTest, key: str) -> AppTest:
    at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def submit(at: AppTest, form: str, label: str) -> AppTest:
    return click(at, f"FormSubmitter:{form}-{label}")


def flag_toggle(at: AppTest, flag: str) -> Any:
    """A flag's toggle as drawn now (its key carries how often the server set the flags:
    `entry_page.toggle_key`)."""
    return at.toggle(key=f"flag_{flag}_{at.session_state[entry_page.TOGGLES_KEY]}")


def url_shoe(at: AppTest) -> str:
    return at.query_params[session.URL_PARAM]


def winners_on_disk(data: Path, shoe: str) -> str:
    rounds, _ = sh.load_shoe(shoe, data)
    return "".join(rounds["winner"].cast(pl.String).to_list())


# --- opening ------------------------------------------------------------------------------


def test_opens_ready_for_a_new_shoe_and_saves_nothing_until_the_first_result(data: Path):
    at = open_app()
    assert shown_round(at) == 0
    assert at.button(key="btn_undo").disabled
    at.run()  # a refresh of an empty page must not pile up empty shoes
    assert saved(data) == []
    assert session.URL_PARAM not in at.query_params


def test_first_result_creates_the_shoe_and_puts_its_id_in_the_url(data: Path):
    at = click(open_app(), "btn_B")
    shoe = url_shoe(at)
    assert saved(data) == [shoe]
    assert winners_on_disk(data, shoe) == "B"
    assert shown_round(at) == 1


# --- entering -----------------------------------------------------------------------------


def test_each_click_is_saved_and_undo_takes_back_the_last(data: Path):
    at = open_app()
    for key in ("btn_B", "btn_P", "btn_P", "btn_T", "btn_B"):
        click(at, key)
    shoe = url_shoe(at)
    assert winners_on_disk(data, shoe) == "BPPTB"
    click(at, "btn_undo")
    assert winners_on_disk(data, shoe) == "BPPT"
    assert shown_round(at) == 4


def test_pair_and_natural_toggles_go_with_the_result_then_reset(data: Path):
    at = open_app()
    flag_toggle(at, "banker_pair").set_value(True)
    flag_toggle(at, "player_natural").set_value(True)
    click(at, "btn_P")
    rounds, _ = sh.load_shoe(url_shoe(at), data)
    row = rounds.row(0, named=True)
    assert (row["winner"], row["banker_pair"], row["player_natural"]) == ("P", True, True)
    assert row["player_pair"] is None  # not toggled: not recorded, rather than claimed false
    assert not flag_toggle(at, "banker_pair").value
    assert not flag_toggle(at, "player_natural").value


def test_a_natural_that_contradicts_the_result_is_refused_and_nothing_changes(data: Path):
    at = click(open_app(), "btn_B")
    shoe = url_shoe(at)
    flag_toggle(at, "banker_natural").set_value(True)
    flag_toggle(at, "player_natural").set_value(False)
    click(at, "btn_B")  # accepted: banker natural, banker wins
    flag_toggle(at, "player_natural").set_value(True)
    click(at, "btn_P")  # both naturals with player win: allowed (9 against 8)
    assert winners_on_disk(data, shoe) == "BBP"
    at.number_input(key="points_player").set_value(5)
    at.number_input(key="points_banker").set_value(3)
    flag_toggle(at, "player_natural").set_value(True)
    submit(at, "points_form", "Add by points")
    assert any("natural is 8 or 9" in e for e in errors(at))
    assert winners_on_disk(data, shoe) == "BBP"


def test_entry_by_points_decides_the_winner(data: Path):
    at = open_app()
    at.number_input(key="points_player").set_value(6)
    at.number_input(key="points_banker").set_value(7)
    submit(at, "points_form", "Add by points")
    at.number_input(key="points_player").set_value(4)
    at.number_input(key="points_banker").set_value(4)
    submit(at, "points_form", "Add by points")
    rounds, _ = sh.load_shoe(url_shoe(at), data)
    assert rounds.select("winner", "player_points", "banker_points").rows() == [
        ("B", 6, 7),
        ("T", 4, 4),
    ]
    assert errors(at) == []


def test_entry_by_points_needs_both_totals(data: Path):
    at = open_app()
    at.number_input(key="points_player").set_value(6)
    submit(at, "points_form", "Add by points")
    assert any("both totals" in e for e in errors(at))
    assert saved(data) == []


def test_entry_by_cards_checks_the_drawing_rules_and_keeps_the_input(data: Path):
    at = click(open_app(), "btn_P")
    shoe = url_shoe(at)
    open_tab(at, "cards")
    # Player natural 9: the banker may not draw a third card.
    at.text_input(key="cards_player").input("9s Kd")
    at.text_input(key="cards_banker").input("5c 2h 3d")
    submit(at, "cards_form", "Add by cards")
    assert len(errors(at)) == 1 and "natural" in errors(at)[0]
    assert at.text_input(key="cards_player").value == "9s Kd"  # kept, to be corrected
    assert winners_on_disk(data, shoe) == "P"
    # Corrected: banker stands on 7 without drawing.
    at.text_input(key="cards_banker").input("5c 2h")
    submit(at, "cards_form", "Add by cards")
    assert errors(at) == []
    rounds, _ = sh.load_shoe(shoe, data)
    last = rounds.row(-1, named=True)
    assert (last["winner"], last["player_points"], last["banker_points"]) == ("P", 9, 7)
    assert last["player_cards"] == ["9s", "Kd"] and last["player_natural"] is True
    assert at.text_input(key="cards_player").value == ""


def test_a_card_that_is_not_a_card_is_refused_next_to_the_input(data: Path):
    at = open_tab(open_app(), "cards")
    at.text_input(key="cards_player").input("9s Zz")
    at.text_input(key="cards_banker").input("5c 2h")
    submit(at, "cards_form", "Add by cards")
    assert len(errors(at)) == 1 and "Zz" in errors(at)[0]
    assert saved(data) == []


def test_a_ninth_ace_of_spades_in_a_one_deck_shoe_is_refused(data: Path):
    at = open_tab(open_app(), "new")
    at.selectbox(key="new_table").set_value("classic")
    at.number_input(key="new_decks").set_value(1)
    click(at, "btn_new")
    shoe = url_shoe(at)
    assert sh.load_shoe(shoe, data)[1].decks == 1
    open_tab(at, "cards")
    at.text_input(key="cards_player").input("As 8d")
    at.text_input(key="cards_banker").input("As 7c")
    submit(at, "cards_form", "Add by cards")
    assert any("As" in e and "1-deck" in e for e in errors(at))
    assert sh.load_shoe(shoe, data)[0].height == 0


def test_edit_a_past_round(data: Path):
    at = open_app()
    for key in ("btn_B", "btn_B", "btn_P"):
        click(at, key)
    shoe = url_shoe(at)
    open_tab(at, "edit")
    at.number_input(key="edit_round").set_value(2)
    at.segmented_control(key="edit_how").set_value("Cards").run()  # its inputs show next
    at.text_input(key="edit_pc").input("4h 3s")
    at.text_input(key="edit_bc").input("Kc Qd 2h")
    submit(at, "edit_form", "Replace round")
    assert errors(at) == []
    rounds, _ = sh.load_shoe(shoe, data)
    assert "".join(rounds["winner"].cast(pl.String).to_list()) == "BPP"
    assert rounds.row(1, named=True)["banker_cards"] == ["Kc", "Qd", "2h"]


def test_edit_refuses_a_bad_replacement_and_keeps_the_shoe(data: Path):
    at = open_app()
    for key in ("btn_B", "btn_P"):
        click(at, key)
    shoe = url_shoe(at)
    open_tab(at, "edit")
    at.number_input(key="edit_round").set_value(1)
    at.segmented_control(key="edit_how").set_value("Cards").run()  # its inputs show next
    at.text_input(key="edit_pc").input("2h 3s")  # player 5 must draw
    at.text_input(key="edit_bc").input("Kc 6d")
    submit(at, "edit_form", "Replace round")
    assert len(errors(at)) == 1
    assert winners_on_disk(data, shoe) == "BP"


# --- nothing lost ---------------------------------------------------------------------------


def test_a_refresh_finds_the_shoe_by_the_url(data: Path):
    at = open_app()
    for key in ("btn_P", "btn_B", "btn_T"):
        click(at, key)
    shoe = url_shoe(at)
    again = open_app(shoe)  # a new session, as after a refresh or a server restart
    assert shown_round(again) == 3
    click(again, "btn_B")
    assert winners_on_disk(data, shoe) == "PBTB"


def test_two_tabs_on_two_shoes_never_touch_each_other(data: Path):
    one, two = open_app(), open_app()
    click(one, "btn_B")
    click(two, "btn_P")
    click(one, "btn_B")
    click(two, "btn_T")
    a, b = url_shoe(one), url_shoe(two)
    assert a != b
    assert (winners_on_disk(data, a), winners_on_disk(data, b)) == ("BB", "PT")


def test_a_stale_tab_on_the_same_shoe_is_refused_then_reloaded(data: Path):
    first = open_app()
    for key in ("btn_B", "btn_P"):
        click(first, key)
    shoe = url_shoe(first)
    second = open_app(shoe)
    click(second, "btn_T")  # the second tab moves the shoe on
    click(first, "btn_B")  # the first still shows BP: refused, not written over
    assert any("another tab" in e for e in errors(first))
    name = db.open_store(data).shoes.load(shoe).meta.name  # the default: table, date and time
    refusal = next(e for e in errors(first) if "another tab" in e)
    assert name and name in refusal and shoe not in refusal  # called as people know it
    assert winners_on_disk(data, shoe) == "BPT"
    assert shown_round(first) == 3  # and it now shows the newer rounds
    click(first, "btn_B")
    assert winners_on_disk(data, shoe) == "BPTB"


def test_a_rename_elsewhere_is_kept_when_the_tab_saves(data: Path):
    at = click(open_app(), "btn_B")
    shoe = url_shoe(at)
    db.open_store(data).shoes.rename(shoe, "Friday table 3")
    click(at, "btn_P")
    rounds, meta = sh.load_shoe(shoe, data)
    assert meta.name == "Friday table 3" and rounds.height == 2


def test_an_unknown_or_bad_shoe_id_in_the_url_says_so_and_starts_fresh(data: Path):
    for bad in ("nosuchshoe", "../../etc/passwd"):
        at = open_app(bad)
        assert any("could not open shoe" in e for e in errors(at)), bad
        assert shown_round(at) == 0
        assert session.URL_PARAM not in at.query_params
    assert saved(data) == []


def test_a_corrupt_database_is_reported_and_left_alone(data: Path):
    data.mkdir(parents=True)
    junk = b"SQLite format 3\x00" + b"not really" * 500
    (data / "roads.db").write_bytes(junk)
    at = open_app("broken")
    assert any("roads.db" in e and "left as it is" in e for e in errors(at)), errors(at)
    assert (data / "roads.db").read_bytes() == junk


def test_new_shoe_with_a_table_and_its_deck_count(data: Path):
    at = click(open_app(), "btn_B")
    first = url_shoe(at)
    open_tab(at, "new")
    at.selectbox(key="new_table").set_value("asian-live")
    at.run()
    at.number_input(key="new_decks").set_value(6)
    click(at, "btn_new")
    second = url_shoe(at)
    assert second != first and shown_round(at) == 0
    _, meta = sh.load_shoe(second, data)
    assert (meta.rules, meta.decks, meta.source) == ("asian-live", 6, "hand")
    assert winners_on_disk(data, first) == "B"


def test_opening_a_shoe_saved_elsewhere_shows_it(data: Path):
    meta = ShoeMeta(name="imported", source="imported")
    sh.save_shoe(rounds_from_winners("BBPPPT"), meta, data)
    at = open_app(meta.id)
    assert shown_round(at) == 6
    assert "imported" in header(at)


def drawn_specs(at: AppTest) -> list[dict]:
    """The figure specs the page draws in place (`plot_host`), as the browser gets them."""
    return [
        json.loads(c.proto.json)["spec"]
        for c in at.get("bidi_component")
        if c.proto.component_name == "roads_app.plot"
    ]


def board_meta(at: AppTest) -> dict:
    metas = [spec["layout"].get("meta") for spec in drawn_specs(at)]
    boards = [m for m in metas if m and m.get("road") == "board"]
    assert len(boards) == 1
    return boards[0]


def test_the_ask_road_ghosts_on_the_board_on_demand_and_changes_nothing(data: Path):
    at = open_app()
    for key in ("btn_B", "btn_P", "btn_P"):
        click(at, key)
    shoe = url_shoe(at)
    assert board_meta(at)["ask"] is None
    at.segmented_control(key="ask_road").set_value("B").run()
    meta = board_meta(at)
    assert meta["ask"] == "B" and meta["rounds"] == 3
    assert winners_on_disk(data, shoe) == "BPP"
    # the ask road's marks as casino boards print them, in the strip under the board
    strip = [h.proto.body for h in at.get("html") if "count-strip" in h.proto.body]
    assert len(strip) == 1 and "Banker ask" in strip[0] and "Player ask" in strip[0]


def test_a_failed_save_is_a_message_and_the_shoe_stays_as_it_was(
    data: Path, monkeypatch: pytest.MonkeyPatch
):
    at = click(open_app(), "btn_B")
    shoe = url_shoe(at)

    def disk_full(*args, **kwargs):  # what sqlite3 raises mid-transaction on a full disk
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store_rounds, "rows_of", disk_full)
    click(at, "btn_P")
    assert any("disk is full" in e and "nothing was changed" in e for e in errors(at))
    assert shown_round(at) == 1
    monkeypatch.undo()
    monkeypatch.setenv(session.DATA_ENV, str(data))
    click(at, "btn_P")
    assert winners_on_disk(data, shoe) == "BP"
