"""One vocabulary for a hand: who won, the two sides, pairs, naturals, and the cells bets
settle on. Every fact is written here once.

`Winner` and `Side` are `StrEnum`s whose values are the letters the rounds frame, the
saved database and the files hold (``B``, ``P``, ``T``), so a member compares equal to
its letter and data stays the same; ``code`` is the integer the kernels and the Polars
Enum's physical values use (Banker 0, Player 1, Tie 2).

The rules are plain functions over integers (`winner_of`, `natural`, `pair_state`,
`play_index`, `pair_index`). Numba's ``register_jitable`` leaves them plain Python
functions and lets the compiled engines inline these very functions, as
`roads_app.game.shoe` does for the deal. `natural`, `play_index` and `pair_index` are
arithmetic only, so they take Polars expressions as well; `winner_expr` and
`pair_state_expr` look a column up in the arrays tabulated from `winner_of` and
`pair_state` (`WINNER_OF`, `PAIR_STATE`).

>>> Winner.of(winner_of(7, 5))
<Winner.BANKER: 'B'>
>>> Winner.of(winner_of(4, 4)) == "T", Winner.PLAYER.code, Side("P").word
(True, 1, 'player')
>>> natural(8), natural(7), hand_total(9 + 6)
(True, False, 5)
>>> seven_spades, seven_diamonds = 6 * 4 + 0, 6 * 4 + 2  # card numbers: rank * 4 + suit
>>> pair_state(seven_spades, seven_diamonds) == RANK_PAIR, pair_state(seven_spades, seven_spades)
(True, 2)
>>> play_index(0, 0, 2, 2), play_index(9, 9, 3, 3), pair_index(SUITED, SUITED)
(0, 399, 8)
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import numpy as np
import polars as pl
from numba.extending import register_jitable

W_BANKER, W_PLAYER, W_TIE = 0, 1, 2
"""Integer codes of the results: what compiled code and the Polars Enum's physical values use."""


class Winner(StrEnum):
    """Who won a round: its letter in the data, its integer ``code`` for compiled code."""

    BANKER = "B"
    PLAYER = "P"
    TIE = "T"

    @property
    def code(self) -> int:
        return _WINNER_CODES[self]

    @property
    def word(self) -> str:
        """The lower-case word: a bet's id, a message's key ("banker", "player", "tie")."""
        return self.name.lower()

    @classmethod
    def of(cls, code: int) -> Winner:
        """The winner of an integer code (what `winner_of` returns)."""
        return _WINNERS_BY_CODE[code]


class Side(StrEnum):
    """Banker or Player: a hand, the side of a big-road column, a bet on either."""

    BANKER = "B"
    PLAYER = "P"

    @property
    def code(self) -> int:
        """The code of this side winning (`Winner.code`)."""
        return _WINNER_CODES[Winner(self.value)]

    @property
    def word(self) -> str:
        """The lower-case word: its bet's id, its columns' prefix (``banker_points``)."""
        return self.name.lower()

    @property
    def other(self) -> Side:
        return Side.PLAYER if self is Side.BANKER else Side.BANKER

    @classmethod
    def of(cls, code: int) -> Side:
        """The side of a winner code (a tie has none: ValueError)."""
        return Side(Winner.of(code).value)


_WINNERS_BY_CODE: tuple[Winner, ...] = (Winner.BANKER, Winner.PLAYER, Winner.TIE)
_WINNER_CODES: dict[Winner, int] = {w: i for i, w in enumerate(_WINNERS_BY_CODE)}
assert tuple(_WINNER_CODES.values()) == (W_BANKER, W_PLAYER, W_TIE)

WINNERS: tuple[str, ...] = tuple(w.value for w in _WINNERS_BY_CODE)
"""The result letters in code order (B, P, T): the rounds frame's Enum categories."""

WINNER_DTYPE = pl.Enum(list(WINNERS))
"""The rounds frame's ``winner`` dtype: its physical values are the codes."""

TOTAL_MOD = 10
"""A hand's total is the sum of its cards' points modulo 10 (`hand_total`)."""

NATURAL_MIN = 8
"""A two-card total of 8 or 9 is a natural."""

SIX = 6
"""A Banker win on a total of 6: some tables pay the Banker bet less for it, and Super 6
and Lucky 6 pay on it (`banker_six`)."""

NO_PAIR, RANK_PAIR, SUITED = 0, 1, 2
"""A hand's first two cards: no pair, a pair of rank (different cards), identical cards."""

SUITS_PER_RANK = 4
"""Card numbers are ``rank_index * 4 + suit_index`` (`roads_app.game.cards`)."""

N_PLAY = 400
"""Play cells: 10 player totals x 10 banker totals x 2 or 3 cards each."""
N_PAIR = 9
"""Pair cells: 3 pair states of the player's hand x 3 of the banker's."""


@register_jitable(inline="always")
def winner_of(banker_total: int, player_total: int) -> int:
    """The winner's code from the two totals: the higher total wins, equal ones tie."""
    if banker_total > player_total:
        return W_BANKER
    if player_total > banker_total:
        return W_PLAYER
    return W_TIE


@register_jitable(inline="always")
def hand_total(point_sum: Any) -> Any:
    """A hand's total from the sum of its cards' points (an int, an array or a Polars
    expression): the last digit, 0 to 9. A running total plus one more card's points
    gives the same total as the whole sum."""
    return point_sum % TOTAL_MOD


@register_jitable(inline="always")
def natural(two_card_total: Any) -> Any:
    """Whether a hand's first two cards make a natural (an int, an array or a Polars
    expression of two-card totals)."""
    return two_card_total >= NATURAL_MIN


@register_jitable(inline="always")
def pair_state(first: int, second: int) -> int:
    """`NO_PAIR`, `RANK_PAIR` or `SUITED` for a hand's first two card numbers (0..51)."""
    if first == second:
        return SUITED
    if first // SUITS_PER_RANK == second // SUITS_PER_RANK:
        return RANK_PAIR
    return NO_PAIR


@register_jitable(inline="always")
def play_index(player_total: Any, banker_total: Any, player_cards: Any, banker_cards: Any) -> Any:
    """The index of the play cell a round ended in (totals 0-9, 2 or 3 cards a hand):
    ints, or Polars expressions of them."""
    return ((player_total * 10 + banker_total) * 2 + (player_cards - 2)) * 2 + (banker_cards - 2)


@register_jitable(inline="always")
def pair_index(player_state: Any, banker_state: Any) -> Any:
    """The index of the pair cell of the two hands' pair states: ints or expressions."""
    return player_state * 3 + banker_state


def banker_six(winner: Any, banker_total: Any) -> Any:
    """Whether Banker won on a total of `SIX`: a `Winner` (or its letter) and an int, or
    Polars expressions of the ``winner`` and ``banker_points`` columns.

    >>> banker_six(Winner.BANKER, 6), banker_six(Winner.PLAYER, 6), banker_six("B", 7)
    (True, False, False)
    """
    return (winner == Winner.BANKER) & (banker_total == SIX)


def _tabulate(fn: Any, rows: int, cols: int) -> np.ndarray:
    """A rule as a read-only int8 array over all its inputs (``[row, col]``)."""
    out = np.array([[fn(r, c) for c in range(cols)] for r in range(rows)], dtype=np.int8)
    out.setflags(write=False)
    return out


WINNER_OF: np.ndarray = _tabulate(winner_of, 10, 10)
"""[banker total, player total] -> winner code, tabulated from `winner_of`."""

PAIR_STATE: np.ndarray = _tabulate(pair_state, 52, 52)
"""[first card number, second card number] -> pair state, tabulated from `pair_state`."""


def _lookup(values: pl.Series, index: pl.Expr) -> pl.Expr:
    """``values[index]`` row by row (null where the index is null)."""
    return pl.lit(values).gather(index.cast(pl.Int64))


_WINNER_SERIES = pl.Series([WINNERS[c] for c in WINNER_OF.ravel()], dtype=WINNER_DTYPE)
_PAIR_STATE_SERIES = pl.Series(PAIR_STATE.ravel(), dtype=pl.Int8)


def winner_expr(banker_total: pl.Expr, player_total: pl.Expr) -> pl.Expr:
    """`winner_of` over columns of totals, as the ``winner`` Enum (null where a total is).

    >>> df = pl.DataFrame({"b": [7, 2, None], "p": [5, 2, 1]})
    >>> df.select(w=winner_expr(pl.col("b"), pl.col("p")))["w"].to_list()
    ['B', 'T', None]
    """
    return _lookup(_WINNER_SERIES, banker_total.cast(pl.Int64) * 10 + player_total)


def pair_state_expr(first: pl.Expr, second: pl.Expr) -> pl.Expr:
    """`pair_state` over columns of card numbers (null where a card is)."""
    return _lookup(_PAIR_STATE_SERIES, first.cast(pl.Int64) * PAIR_STATE.shape[1] + second)
