"""The floor's vocabulary (`game.floor`): a table's code, its states and moves, its
limits and a round's code, each refused in one line where it is wrong."""

from __future__ import annotations

import re
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from roads_app.errors import FloorError
from roads_app.game.floor import (
    CODE_MAX,
    MOVE_TO,
    FloorLimits,
    Move,
    TableState,
    check_table_code,
    round_code,
)

CODE_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-"


@given(
    st.text(alphabet=CODE_CHARS[:-1], min_size=1, max_size=1),
    st.text(alphabet=CODE_CHARS, max_size=CODE_MAX - 1),
)
def test_a_code_of_letters_digits_and_dashes_is_kept_in_capitals(first: str, rest: str) -> None:
    assert check_table_code(first + rest) == (first + rest).upper()


@given(st.text(max_size=CODE_MAX + 4))
def test_anything_else_is_refused_in_one_line(text: str) -> None:
    if re.fullmatch(rf"[A-Za-z0-9][A-Za-z0-9-]{{0,{CODE_MAX - 1}}}", text):
        return
    with pytest.raises(FloorError) as e:
        check_table_code(text)
    assert "\n" not in str(e.value) and "table code" in str(e.value)


def test_not_text_is_refused() -> None:
    with pytest.raises(FloorError):
        check_table_code(7)


LEGAL = {
    (Move.OPEN, TableState.CLOSED): TableState.OPEN,
    (Move.CLOSE, TableState.OPEN): TableState.CLOSED,
    (Move.CLOSE, TableState.SHUFFLING): TableState.CLOSED,
    (Move.SHUFFLE, TableState.OPEN): TableState.SHUFFLING,
    (Move.DEAL, TableState.OPEN): TableState.OPEN,
    (Move.DEAL, TableState.SHUFFLING): TableState.OPEN,
}


@pytest.mark.parametrize("move", list(Move))
@pytest.mark.parametrize("state", list(TableState))
def test_each_move_from_each_state_is_allowed_or_refused_by_one_table(
    move: Move, state: TableState
) -> None:
    assert state.can(move) == ((move, state) in LEGAL)
    if (move, state) in LEGAL:
        state.verify(move, "B07")
        assert state.after(move) is LEGAL[move, state]
    else:
        with pytest.raises(FloorError, match="B07"):
            state.verify(move, "B07")
        with pytest.raises(FloorError):
            state.after(move, "B07")


def test_a_shuffle_sent_twice_and_a_hand_at_a_closed_table_are_refused() -> None:
    shuffling = TableState.OPEN.after(Move.SHUFFLE)
    with pytest.raises(FloorError, match="already shuffling"):
        shuffling.after(Move.SHUFFLE, "B07")
    with pytest.raises(FloorError, match="closed"):
        TableState.CLOSED.after(Move.DEAL, "B07")


def test_a_state_that_does_not_exist_is_refused() -> None:
    assert {TableState.parse(s.value) for s in TableState} == set(TableState)
    with pytest.raises(FloorError, match="'dealing'"):
        TableState.parse("dealing")
    assert set(MOVE_TO) == set(TableState)


@given(
    st.dates(min_value=date(2000, 1, 1), max_value=date(2099, 12, 31)),
    st.integers(1, 99),
    st.integers(1, 104),
)
def test_a_round_code_names_table_day_shoe_and_round(day: date, shoe: int, no: int) -> None:
    code = round_code("B07", day, shoe, no)
    table, when, s, r = code.split("-")
    assert (table, when, int(s), int(r)) == ("B07", day.strftime("%Y%m%d"), shoe, no)
    assert round_code("B07", date(2026, 12, 5), 3, 42) == "B07-20261205-03-42"


def test_limits_are_checked_and_kept() -> None:
    limits = FloorLimits.of((10, 5000), (10, 500), None)
    assert FloorLimits.from_row(limits.row()) == limits
    assert limits.check("classic", 1, 10000, (True, False)) is limits
    assert limits.to_dict()["pairs"] is None
    with pytest.raises(FloorError, match="outside the classic rules"):
        FloorLimits.of((0.5, 100)).check("classic", 1, 10000, (True, True))
    with pytest.raises(FloorError, match="outside"):
        FloorLimits.of((10, 20000)).check("classic", 1, 10000, (True, True))
    with pytest.raises(FloorError, match="offer no such bet"):
        FloorLimits.of((10, 100), None, (5, 50)).check("classic", 1, 10000, (True, False))
    with pytest.raises(FloorError, match="more than the most"):
        FloorLimits.of((10, 5))
    with pytest.raises(FloorError, match="above 0"):
        FloorLimits.of((float("nan"), 5))
