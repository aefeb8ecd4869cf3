"""The lobby's summaries added to round by round (`Tables.tile`) against the summary read
whole (`Tables.summary`), and its followers' summaries rebuilt from the snapshot and the
``table``/``round`` events (`floor_stream.changed`, `floor_stream.follow_lobby`)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from roads_app.api import floor_stream
from roads_app.api.floor_feed import Tables, Tile
from roads_app.api.models import RoundIn
from roads_app.api.service import Feed, Refused
from roads_app.game.floor import FloorLimits, Move
from roads_app.roads.grids import big_road, big_road_cells
from roads_app.store.shoes import Shoes

CODE = "P1"

_deal = st.tuples(
    st.just("deal"), st.sampled_from("BBBPPPT"), st.booleans(), st.booleans(), st.booleans()
)
_other = st.tuples(st.sampled_from(["shuffle", "undo", "close", "open", "look"]))
_ops = st.lists(st.one_of(_deal, _deal, _deal, _other), max_size=40)


class Counting:
    """Counts the shoes read whole (`Shoes.load_in`) while it is on."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.whole = 0
        real = Shoes.load_in

        def load_in(shoes: Shoes, c: Any, shoe_id: str) -> Any:
            self.whole += 1
            return real(shoes, c, shoe_id)

        monkeypatch.setattr(Shoes, "load_in", load_in)


def _json(summary: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(summary))


def _apply(ops: list[tuple[Any, ...]], tables: Tables, counting: Counting) -> int:
    """Run ``ops`` at table `CODE`, looking at its tile after each ``look`` and at the
    end; every look checked against the whole summary and a follower's rebuilt one.
    Returns how many looks were made after appends alone (each must add to the tile)."""
    store = tables.feed.store
    tile: Tile | None = tables.tile(CODE)
    follower: dict[str, dict[str, Any]] = {}
    floor_stream.follow_lobby(follower, "lobby", {"tables": [_json(tile.summary)]})
    appended_only, added = True, 0
    for op in [*ops, ("look",)]:
        kind = op[0]
        if kind == "deal":
            _, winner, bp, pp, natural = op
            flags = {"banker_pair": bp, "player_pair": pp, "banker_natural": natural}
            body = RoundIn(winner=winner, **{k: bool(v) for k, v in flags.items()})
            try:
                reply = tables.append(CODE, body, None)
            except Refused:
                continue  # a closed table
            appended_only &= not reply.body["started"]
        elif kind in ("shuffle", "close", "open"):
            try:
                tables.move(CODE, Move(kind), None)
            except Exception:  # a move its state does not allow: nothing changed
                continue
            appended_only = False
        elif kind == "undo":
            shoe = store.floor.get(CODE).shoe
            if shoe is None or not store.shoes.load(shoe).rounds.height:
                continue
            try:
                store.rounds.undo(shoe, None)
            except Exception:  # an ended shoe
                continue
            appended_only = False
        else:
            before = counting.whole
            old = tile
            tile = tables.tile(CODE, tile)
            if appended_only:
                assert counting.whole == before  # added to, not read whole
                added += 1
            whole = tables.summary(CODE)
            assert tile.summary == whole
            change = floor_stream.changed(old.summary, tile.summary)
            if change is not None:
                head, data = change.decode().split("\n")[:2]
                floor_stream.follow_lobby(follower, head[7:], json.loads(data[6:]))
                if appended_only:
                    assert head == "event: round"
            assert follower[CODE] == _json(whole)
            appended_only = True
    return added


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=_ops)
@example(ops=[("deal", "B", 0, 0, 0), ("look",), ("undo",), ("deal", "P", 0, 0, 0)])
@example(ops=[("deal", "T", 0, 0, 0), ("look",), ("deal", "B", 1, 0, 0), ("deal", "T", 0, 1, 1)])
def test_a_tile_added_to_is_the_summary_read_whole(
    ops: list[tuple[Any, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any day of deals (pairs, naturals, ties first), shuffles, undos (one followed by a
    deal leaves the round count as it was), closes and opens, looked at now and then:
    the tile added to round by round equals `Tables.summary` read whole, appends alone
    never read the shoe whole, and a follower's summary rebuilt from the events equals
    it too."""
    counting = Counting(monkeypatch)
    with tempfile.TemporaryDirectory() as tmp:
        feed = Feed(Path(tmp))
        feed.store.floor.add(CODE, "Table P1", "classic", FloorLimits.of((10, 5000)), 0)
        feed.store.floor.open(CODE)
        try:
            _apply(ops, Tables(feed), counting)
        finally:
            feed.store.close()


def test_a_shoe_dealt_on_is_added_to_round_by_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A long shoe (dragon tails, ties first, a shuffle, the next shoe): every round added
    to the tile, none read whole but the one after each shoe's first round."""
    counting = Counting(monkeypatch)
    feed = Feed(tmp_path)
    feed.store.floor.add(CODE, "Table P1", "classic", FloorLimits.of((10, 5000)), 0)
    feed.store.floor.open(CODE)
    ops: list[tuple[Any, ...]] = []
    for w in "TTBBBBBBBBPTPBPPPPPPPPBTBTB":
        ops += [("deal", w, w == "B", False, False), ("look",)]
    ops += [("shuffle",), ("deal", "T", False, False, False), ("look",)]
    ops += [("deal", "P", False, True, False), ("look",)]
    try:
        added = _apply(ops, Tables(feed), counting)
    finally:
        feed.store.close()
    # each round's look but the one after each shoe's first round, and the last look
    assert added == (27 - 1) + (2 - 1) + 1


@given(st.text("BPT", max_size=60))
def test_the_big_road_cells_are_the_big_roads(winners: str) -> None:
    """`big_road_cells` (the kernel alone) gives `big_road`'s cells, ties-only shoes too."""
    from roads_app.game.rounds import rounds_from_winners

    rounds = rounds_from_winners(winners)
    frame = big_road(rounds).select("col", "row", "round", "winner")
    want = frame.with_columns(frame["winner"].cast(str)).rows()
    assert big_road_cells(list(winners), rounds["round"].to_list()) == want


def test_a_floor_fed_in_turn_reads_no_shoe_whole_after_each_tables_first_round(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hundred tables dealt in turn (a lobby's floor): after each table's first round
    starts its shoe, every append goes on from the rounds this process last wrote. (The
    appends kept 64 shoes, so a floor of more than 64 fed in turn read every shoe whole
    at every append: about 5% of a core of the API process in the lobby's bench.)"""
    feed = Feed(tmp_path)
    codes = [f"T{i:03d}" for i in range(100)]
    for i, code in enumerate(codes):
        feed.store.floor.add(code, f"Table {i}", "classic", FloorLimits.of((10, 5000)), i)
        feed.store.floor.open(code)
    tables = Tables(feed)
    try:
        for code in codes:  # each table's first round: its shoe started
            tables.append(code, RoundIn(winner="B"), None)
        counting = Counting(monkeypatch)
        for winner in "PBT":
            for code in codes:
                tables.append(code, RoundIn(winner=winner), None)
    finally:
        feed.store.close()
    assert counting.whole == 0
