"""One check of a whole number in range (`roads_app.errors.whole_number`), said in one line
in every language, and no hand-written copy of it left in the core."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from roads_app.errors import RoadsAppError, RoundError, quote, whole_number
from roads_app.messages import Message

ROOT = Path(__file__).resolve().parents[1] / "roads_app"
CHECKED = ("game", "roads", "store")
"""Packages whose integer checks all go through `whole_number` (bets and sim to follow)."""

bounds = st.one_of(st.none(), st.integers(-1000, 1000))


@given(st.integers(-(10**60), 10**60), bounds, bounds)
def test_a_whole_number_in_range_comes_back_and_any_other_is_refused_in_one_line(
    value: int, lo: int | None, hi: int | None
) -> None:
    inside = (lo is None or value >= lo) and (hi is None or value <= hi)
    if inside:
        assert whole_number(value, "size", lo, hi) == value
        return
    with pytest.raises(RoadsAppError) as e:
        whole_number(value, "size", lo, hi)
    said = str(e.value)
    assert said.startswith("size must be a whole number") and quote(value) in said
    assert "\n" not in said and len(said) < 200
    for end in (lo, hi):
        if end is not None:
            assert f"{end:,}" in said


@pytest.mark.parametrize("value", [True, False, 2.0, "3", None, [1], np.float64(2.0), b"1"])
def test_what_is_not_a_whole_number_is_refused_whatever_its_value(value: object) -> None:
    with pytest.raises(RoundError, match="must be a whole number from 0 to 9") as e:
        whole_number(value, "points", 0, 9, error=RoundError)
    assert quote(value) in str(e.value)


def test_a_numpy_integer_is_a_whole_number() -> None:
    got = whole_number(np.int64(7), "rows", 1, 9)
    assert got == 7 and type(got) is int


def test_the_refusal_says_itself_in_chinese() -> None:
    with pytest.raises(RoundError) as e:
        whole_number(9, Message("msg_what_decks"), 1, 8, error=RoundError)
    assert e.value.args[0].text("zh") == "副数必须是 1 到 8 的整数，而不是 9"


def _hand_written_checks(tree: ast.AST) -> list[int]:
    """Lines of ``isinstance(x, int)`` tests that refuse: the shape `whole_number` replaced."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and any(
            isinstance(n, ast.Raise) for n in ast.walk(node) if n is not node.test
        ):
            for call in ast.walk(node.test):
                if (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", "") == "isinstance"
                    and len(call.args) == 2
                    and "int" in ast.unparse(call.args[1]).split(" | ")
                ):
                    lines.append(node.lineno)
    return lines


def test_the_finder_finds_a_hand_written_check() -> None:
    code = (
        "def f(n):\n    if isinstance(n, bool) or not isinstance(n, int) or n < 1:\n"
        "        raise ValueError(n)\n"
    )
    assert _hand_written_checks(ast.parse(code)) == [2]


@pytest.mark.parametrize("package", CHECKED)
def test_no_hand_written_whole_number_check_is_left(package: str) -> None:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for line in _hand_written_checks(ast.parse(path.read_text(encoding="utf-8"))):
            found.append(f"{path.relative_to(ROOT)}:{line}")
    assert found == []
