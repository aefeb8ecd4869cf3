"""A wall tile's live part (`roads_app.ui.wall_tile`): what it shows and when its
fragment must run, decided once for the first drawing and the tile route alike."""

from __future__ import annotations

from pathlib import Path

import pytest

from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ShoeMeta, add_winner, rounds_from_winners
from roads_app.roads import good_roads as gr
from roads_app.store import db, watch
from roads_app.store.floor import FloorTable
from roads_app.ui import wall_tile
from tests import storehelp as sh


def _tile(data: Path, winners: str) -> tuple[dict, watch.ShoeNow]:
    meta = ShoeMeta(name="<b>Table</b> 9", source="hand")
    version = sh.save_shoe(rounds_from_winners(winners), meta, data)
    tile = wall_tile.content(meta.id, str(data), version, "en")
    assert isinstance(tile, dict)
    return tile, watch.ShoeNow(version=version, ended=False, rounds=len(winners), modified=5.0)


def test_a_result_that_changes_no_tag_is_drawn_by_the_page(tmp_path: Path) -> None:
    tile, shoe = _tile(tmp_path, "PBTB")
    view = wall_tile.view_at(tile, shoe, "en", gr.tags_of_winners(list("PBTB")))
    assert view["rerun"] is False
    assert view["rounds"] == "4 rounds" and view["modified"] == 5.0
    assert "".join(t for t, _ in view["counts"]).startswith("B 2 · P 1 · T 1 · ")
    assert [r["layout"]["meta"]["road"] for r in view["roads"]] == ["bead_plate", "big_road"]


@pytest.mark.parametrize(
    ("winners", "tags", "picked"),
    [
        ("PBTB", ["long_banker"], []),  # the page shows a tag the shoe no longer holds
        ("PBBBB", None, []),  # a good road entered (tags as shown): the alert is the script's
        ("PBTB", [], ["long_player"]),
    ],  # it left the filter
)
def test_the_fragment_runs_when_tags_change_a_good_road_is_entered_or_the_filter_drops_it(
    tmp_path: Path, winners: str, tags: list[str] | None, picked: list[str]
) -> None:
    tile, shoe = _tile(tmp_path, winners)
    if tags is None:
        tags = gr.tags_of_winners(list(winners))
        assert tags and wall_tile.view_at(tile, shoe, "en", tags)["rerun"] is True
        tile = {**tile, "winners": [*tile["winners"][:-1], "P"]}  # none entered: the page
        tags = gr.tags_of_winners(tile["winners"])
        assert wall_tile.view_at(tile, shoe, "en", tags)["rerun"] is False
        return
    assert wall_tile.view_at(tile, shoe, "en", tags, picked)["rerun"] is True


def test_an_unreadable_shoe_asks_for_the_fragment(tmp_path: Path) -> None:
    shoe = watch.ShoeNow(version=3, ended=False, rounds=2, modified=1.0)
    view = wall_tile.view_at("shoe x cannot be read", shoe, "zh")
    assert view["rerun"] is True and view["roads"] == [] and view["rounds"] == "2 局"


def test_a_tile_in_chinese_counts_in_chinese(tmp_path: Path) -> None:
    meta = ShoeMeta(name="t", source="hand")
    version = sh.save_shoe(rounds_from_winners("BBP"), meta, tmp_path)
    tile = wall_tile.content(meta.id, str(tmp_path), version, "zh")
    view = wall_tile.view_at(tile, watch.ShoeNow(version, False, 3), "zh")
    assert [t for t, w in view["counts"] if w] == ["庄 2", "闲 1", "和 0"]


def _floor_table(data: Path, moves: str) -> FloorTable:
    """A floor table that dealt B, P, B in its first shoe, then made ``moves``."""
    store = db.open_store(data)
    store.floor.add("B07", "<b>Table</b> *7*", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("B07")
    for w in "BPB":
        store.floor.append("B07", lambda r, d, w=w: add_winner(r, w, decks=d))
    for move in moves.split():
        getattr(store.floor, move)("B07")
    return store.floor.get("B07")


def test_a_shuffling_tables_tile_clears_its_roads_and_keeps_its_last_shoes_counts(
    tmp_path: Path,
) -> None:
    table = _floor_table(tmp_path, "shuffle")
    assert table.shoe is not None
    last = db.open_store(tmp_path).shoes.load(table.shoe)
    view = wall_tile.between_view(table, tmp_path, "zh", wall_tile.Look(), last.version)
    assert [r["layout"]["meta"]["rounds"] for r in view["roads"]] == [0, 0]  # cleared
    assert view["badges"] == [] and view["modified"] is None
    assert [b[:2] for b in view["bpt"]] == [["庄", 2], ["闲", 1], ["和", 0]]
    data = wall_tile.table_data(table, "zh")
    assert (data["state"], data["state_text"]) == ("shuffling", "洗牌中")
    assert data["title"] == "<b>Table</b> *7*"  # set as text by the page, never markup
    assert data["head"] == [["shoe-number", "第 1 靴"], ["table-limits", "10-5,000"]]


def test_a_closed_tables_tile_shows_no_counts(tmp_path: Path) -> None:
    table = _floor_table(tmp_path, "close")
    view = wall_tile.between_view(table, tmp_path, "en", wall_tile.Look(), 4)
    assert view["bpt"] == [] and view["counts"] == []
    assert wall_tile.table_data(table, "en")["state_text"] == "Closed"
