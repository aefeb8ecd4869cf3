"""The rounds frame and its entry operations."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given
from hypothesis import strategies as st

from roads_app.errors import RoundError, ShoeCompositionError
from roads_app.game.rounds import (
    ROUNDS_SCHEMA,
    add_cards,
    add_points,
    add_winner,
    edit_round,
    empty_rounds,
    round_by_cards,
    round_by_points,
    rounds_from_winners,
    undo,
)


def test_rounds_from_winners_accepts_spaces_and_lower_case() -> None:
    r = rounds_from_winners("b p\tpT b")
    assert r.schema == ROUNDS_SCHEMA
    assert r["winner"].to_list() == ["B", "P", "P", "T", "B"]
    assert r["round"].to_list() == [1, 2, 3, 4, 5]
    assert r["player_points"].null_count() == 5 and r["player_cards"].null_count() == 5


def test_rounds_from_winners_names_the_bad_result() -> None:
    with pytest.raises(RoundError, match=r"result 3 is 'X'"):
        rounds_from_winners("BPXB")


def test_round_by_cards_derives_every_column() -> None:
    r = add_cards(empty_rounds(), ["7s", "7d", "Kc"], ["Qh", "6c"])
    row = r.row(0, named=True)
    # player 7+7=4 draws K -> 4; banker 6 with player third card 0 stands: banker wins
    assert row == {
        "round": 1,
        "winner": "B",
        "player_points": 4,
        "banker_points": 6,
        "player_pair": True,
        "banker_pair": False,
        "player_natural": False,
        "banker_natural": False,
        "player_cards": ["7s", "7d", "Kc"],
        "banker_cards": ["Qh", "6c"],
    }


def test_points_must_agree_with_winner() -> None:
    with pytest.raises(RoundError, match="disagrees"):
        round_by_points(3, 5, winner="P")
    with pytest.raises(RoundError, match="player points must be a whole number from 0 to 9"):
        round_by_points(10, 5)
    with pytest.raises(RoundError, match="natural is 8 or 9"):
        round_by_points(5, 3, player_natural=True)
    assert add_points(empty_rounds(), 6, 6)["winner"].to_list() == ["T"]


def test_natural_flags_must_agree_with_winner() -> None:
    with pytest.raises(RoundError, match="player wins"):
        add_winner(empty_rounds(), "B", player_natural=True, banker_natural=False)


def test_a_ninth_ace_of_spades_is_refused_and_the_shoe_is_unchanged() -> None:
    r = empty_rounds()
    # each round: player As As (pair, 2) draws 2c? use hands that follow the rules
    for _ in range(4):
        r = add_cards(r, ["As", "As", "Kd"], ["Kc", "Kh", "Qd"])  # P 2 draws K; B 0 draws Q
    assert r.height == 4
    before = r.clone()
    with pytest.raises(ShoeCompositionError, match=r"9 × As .*only 8.*round 5"):
        add_cards(r, ["As", "Kd", "Qh"], ["Kc", "Kh", "Qd"])
    assert r.equals(before)
    with pytest.raises(ShoeCompositionError, match="1-deck"):
        add_cards(empty_rounds(), ["As", "As", "Kd"], ["Kc", "Kh", "Qd"], decks=1)


def test_undo_and_edit() -> None:
    r = rounds_from_winners("BPT")
    assert undo(r)["winner"].to_list() == ["B", "P"]
    with pytest.raises(RoundError, match="nothing to undo"):
        undo(empty_rounds())
    e = edit_round(r, 2, round_by_cards("9s Kd", "5c 2h"))
    assert e["winner"].to_list() == ["B", "P", "T"] and e["player_points"][1] == 9
    assert e["round"].to_list() == [1, 2, 3]
    with pytest.raises(RoundError, match="round 9 does not exist"):
        edit_round(r, 9, round_by_points(1, 2))


@given(st.text(alphabet="BPTbpt ", max_size=60))
def test_winner_string_round_trips(text: str) -> None:
    r = rounds_from_winners(text)
    assert "".join(r["winner"].cast(pl.String).to_list()) == text.replace(" ", "").upper()


@given(seed=st.integers(0, 2**32), hand=st.integers(0, 40))
def test_a_round_is_stored_as_entered_whichever_door_it_came_through(seed: int, hand: int) -> None:
    """One entry-mode rule: the API body's mode, the bets' entry and a stored round's mode
    are `EntryMode`; a round entered each way reads back as entered that way."""
    from roads_app.api.models import RoundIn
    from roads_app.bets import offers
    from roads_app.game.rounds import EntryMode, add_cards, add_points, add_winner
    from roads_app.game.shoe import deal_shoe

    row = deal_shoe(seed).rounds.row(hand, named=True)
    flags = {k: row[k] for k in ("player_pair", "banker_pair", "player_natural", "banker_natural")}
    points = {"player_points": row["player_points"], "banker_points": row["banker_points"]}
    cards = {"player_cards": row["player_cards"], "banker_cards": row["banker_cards"]}
    ways = {
        EntryMode.WINNER: ({"winner": row["winner"], **flags}, add_winner),
        EntryMode.POINTS: ({**points, **flags}, add_points),
        EntryMode.CARDS: (cards, add_cards),
    }
    for mode, (body, add) in ways.items():
        assert RoundIn(**body).mode is mode
        stored = add(empty_rounds(), **body).row(0, named=True)
        assert EntryMode.of(stored) is mode
    assert offers.ENTRY_ORDER == tuple(EntryMode) == ("winner", "points", "cards")
