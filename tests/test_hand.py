"""The hand's vocabulary (`roads_app.game.hand`): the compiled functions, the plain Python
path and the Polars expressions all agree with the published rules over every input.

The reference here is the rule as printed (the higher total wins, equal totals tie; a
natural is a two-card 8 or 9; a pair is two cards of one rank, a perfect pair two identical
cards), read off card codes in this file, never the functions under test.
"""

from __future__ import annotations

import itertools

import numpy as np
import polars as pl
from hypothesis import given
from hypothesis import strategies as st
from numba import njit

from roads_app.bets.spec import PAIR_CELLS, PLAY_CELLS
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import play_hand
from roads_app.game.hand import (
    N_PAIR,
    N_PLAY,
    NO_PAIR,
    RANK_PAIR,
    SUITED,
    WINNER_DTYPE,
    Side,
    Winner,
    natural,
    pair_index,
    pair_state,
    pair_state_expr,
    play_index,
    winner_expr,
    winner_of,
)
from roads_app.game.rounds import WINNERS
from roads_app.game.shoe import hand_cards

FACE_POINTS = {"A": 1, "T": 0, "J": 0, "Q": 0, "K": 0}


def published_points(codes: list[str]) -> int:
    """A hand's total as the rules print it: face value, A 1, tens and faces 0, mod 10."""
    return sum(FACE_POINTS.get(c[0], 0) if not c[0].isdigit() else int(c[0]) for c in codes) % 10


def published_winner(banker: int, player: int) -> str:
    return "B" if banker > player else "P" if player > banker else "T"


@njit(cache=False)
def _compiled_tables() -> tuple:
    """Every rule over all its inputs, as the kernels compile them."""
    win = np.empty((10, 10), dtype=np.int64)
    nat = np.empty(10, dtype=np.bool_)
    pairs = np.empty((52, 52), dtype=np.int64)
    play = np.empty((10, 10, 2, 2), dtype=np.int64)
    pair_cells = np.empty((3, 3), dtype=np.int64)
    for b in range(10):
        nat[b] = natural(b)
        for p in range(10):
            win[b, p] = winner_of(b, p)
            for pc in range(2):
                for bc in range(2):
                    play[p, b, pc, bc] = play_index(p, b, 2 + pc, 2 + bc)
    for a in range(52):
        for c in range(52):
            pairs[a, c] = pair_state(a, c)
    for p in range(3):
        for b in range(3):
            pair_cells[p, b] = pair_index(p, b)
    return win, nat, pairs, play, pair_cells


@njit(cache=False)
def _compiled_hand(order: np.ndarray) -> tuple:
    """One hand dealt and read as `roads_app.sim.kernel` reads it."""
    _, p0, p1, p2, b0, b1, b2, pt, bt = hand_cards(order, 0)
    play = play_index(pt, bt, 2 + (p2 >= 0), 2 + (b2 >= 0))
    pair = pair_index(pair_state(p0, p1), pair_state(b0, b1))
    return winner_of(bt, pt), play, pair, natural(pt) and p2 < 0, p2 >= 0, b2 >= 0


def test_winner_over_all_totals_compiled_plain_and_polars():
    win = _compiled_tables()[0]
    totals = list(itertools.product(range(10), range(10)))
    want = [published_winner(b, p) for b, p in totals]
    assert [WINNERS[win[b, p]] for b, p in totals] == want
    assert [Winner.of(winner_of(b, p)) for b, p in totals] == want
    frame = pl.DataFrame(totals, schema={"b": pl.Int8, "p": pl.Int8}, orient="row")
    got = frame.select(w=winner_expr(pl.col("b"), pl.col("p")))["w"]
    assert got.dtype == WINNER_DTYPE and got.to_list() == want
    # of the 100 pairs of totals, 45 go to each side and 10 tie
    assert sorted(np.bincount(win.ravel()).tolist()) == [10, 45, 45]


def test_codes_are_the_saved_letters_and_the_enum_positions():
    assert [w.value for w in Winner] == ["B", "P", "T"] == list(WINNERS)
    assert WINNER_DTYPE.categories.to_list() == ["B", "P", "T"]
    physical = pl.Series(["T", "B", "P"], dtype=WINNER_DTYPE).to_physical().to_list()
    assert physical == [Winner.TIE.code, Winner.BANKER.code, Winner.PLAYER.code]
    assert [s.code for s in Side] == [Winner.BANKER.code, Winner.PLAYER.code]
    assert Side.BANKER == "B" == Winner.BANKER and Side.PLAYER.other is Side.BANKER
    assert [Side.of(s.code) for s in Side] == list(Side)
    assert [s.word for s in Side] == ["banker", "player"]


def test_natural_is_a_two_card_eight_or_nine():
    nat = _compiled_tables()[1]
    assert [t for t in range(10) if nat[t]] == [8, 9]
    assert [t for t in range(10) if natural(t)] == [8, 9]
    got = pl.select(n=natural(pl.Series(range(10))))["n"].to_list()
    assert got == [t >= 8 for t in range(10)]


def test_pair_state_over_every_two_cards_compiled_plain_and_polars():
    pairs = _compiled_tables()[2]
    codes = playing_cards.ALL_CARDS
    want = np.array(
        [
            [SUITED if a == b else RANK_PAIR if a[0] == b[0] else NO_PAIR for b in codes]
            for a in codes
        ]
    )
    np.testing.assert_array_equal(pairs, want)
    plain = [[pair_state(i, j) for j in range(52)] for i in range(52)]
    np.testing.assert_array_equal(np.array(plain), want)
    grid = pl.DataFrame(
        list(itertools.product(range(52), range(52))),
        schema={"a": pl.Int64, "b": pl.Int64},
        orient="row",
    )
    got = grid.select(s=pair_state_expr(pl.col("a"), pl.col("b")))["s"].to_numpy()
    np.testing.assert_array_equal(got.reshape(52, 52), want)
    # 52 identical pairs, 52 x 3 pairs of rank that are different cards
    assert (want == SUITED).sum() == 52 and (want == RANK_PAIR).sum() == 156


def test_cells_are_numbered_densely_in_the_spec_order():
    _, _, _, play, pair_cells = _compiled_tables()
    assert sorted(play.ravel().tolist()) == list(range(N_PLAY))
    assert sorted(pair_cells.ravel().tolist()) == list(range(N_PAIR))
    for i, c in enumerate(PLAY_CELLS):
        assert play[c.player_points, c.banker_points, c.player_cards - 2, c.banker_cards - 2] == i
        assert play_index(c.player_points, c.banker_points, c.player_cards, c.banker_cards) == i
    for i, c in enumerate(PAIR_CELLS):
        assert pair_cells[c.player, c.banker] == i == pair_index(c.player, c.banker)


@given(st.lists(st.integers(0, 51), min_size=6, max_size=6))
def test_a_dealt_hand_reads_the_same_compiled_and_plain(deal: list[int]):
    codes = [playing_cards.ALL_CARDS[c] for c in deal]
    hand = play_hand(iter(codes))
    w, play, pair, player_natural, p_drew, b_drew = _compiled_hand(np.array(deal, dtype=np.int8))
    pt, bt = published_points(list(hand.player_cards)), published_points(list(hand.banker_cards))
    assert hand.winner == WINNERS[w] == published_winner(bt, pt)
    assert (p_drew, b_drew) == (len(hand.player_cards) == 3, len(hand.banker_cards) == 3)
    cell = PLAY_CELLS[play]
    assert (cell.player_points, cell.banker_points) == (pt, bt)
    assert cell.player_cards == len(hand.player_cards)
    assert cell.banker_cards == len(hand.banker_cards)
    assert cell.winner == hand.winner and cell.player_natural == hand.player_natural
    assert player_natural == hand.player_natural == (published_points(codes[0:3:2]) >= 8)
    pc, bc = PAIR_CELLS[pair].player, PAIR_CELLS[pair].banker
    assert hand.player_pair == (codes[0][0] == codes[2][0]) == (pc >= RANK_PAIR)
    assert hand.banker_pair == (codes[1][0] == codes[3][0]) == (bc >= RANK_PAIR)
    assert (pc == SUITED) == (codes[0] == codes[2]) and (bc == SUITED) == (codes[1] == codes[3])
