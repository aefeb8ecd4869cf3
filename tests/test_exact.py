"""Exact sums: the same total to the last bit whatever the split, and the true sum."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.jit_cache import interpreted
from roads_app.sim import exact
from roads_app.sim.exact import exact_sums, to_float, to_fraction, two_product, two_products_into

finite = st.floats(allow_nan=False, allow_infinity=False)
money = st.floats(-1e9, 1e9, allow_nan=False)
amount = money.filter(lambda x: x == 0 or abs(x) > 1e-100)  # Dekker needs no underflow


@settings(max_examples=300, deadline=None)
@given(st.lists(finite, max_size=40))
def test_exact_sum_is_the_true_sum_of_any_doubles(xs: list[float]):
    (total,) = exact_sums(np.array(xs, dtype=np.float64).reshape(-1, 1))
    assert to_fraction(total) == sum((Fraction(x) for x in xs), Fraction(0))


@settings(max_examples=200, deadline=None)
@given(st.lists(money, min_size=1, max_size=60), st.data())
def test_shards_add_up_to_the_one_piece_sum_bit_for_bit(xs: list[float], data: st.DataObject):
    arr = np.array(xs).reshape(-1, 1)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(xs)), max_size=5)))
    pieces = np.split(arr, cuts)
    merged = sum(exact_sums(p)[0] for p in reversed(pieces))
    assert merged == exact_sums(arr)[0]
    assert to_float(merged) == math.fsum(xs)  # both are the correctly rounded true sum


def test_columns_are_summed_separately_and_cancellation_is_exact():
    x = np.array([[1e16, 3.0], [1.0, -1.5], [-1e16, 0.25]])
    a, b = exact_sums(x)
    assert (to_float(a), to_float(b)) == (1.0, 1.75)


@settings(max_examples=300, deadline=None)
@given(amount, amount)
def test_two_product_is_exact(a: float, b: float):
    p, e = two_product(np.array([a]), np.array([b]))
    assert Fraction(p[0]) + Fraction(e[0]) == Fraction(a) * Fraction(b)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(amount, amount), min_size=1, max_size=30))
def test_the_compiled_two_product_is_exact_into_strided_columns(pairs: list[tuple[float, float]]):
    """What the backtest's totals use: written into columns of one array, exact."""
    a, b = (np.array(c) for c in zip(*pairs, strict=True))
    out = np.full((len(pairs), 3), np.nan)
    two_products_into(a, b, out[:, 0], out[:, 2])
    for (x, y), p, e in zip(pairs, out[:, 0], out[:, 2], strict=True):
        assert Fraction(p) + Fraction(e) == Fraction(x) * Fraction(y)
    assert np.isnan(out[:, 1]).all()  # only its own columns written


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(finite, amount, amount), min_size=1, max_size=30))
def test_the_interpreted_sums_and_products_are_the_compiled_ones(
    rows: list[tuple[float, float, float]],
):
    """A small run before the kernels are in the cache sums and multiplies interpreted
    (`exact.PLAIN_UP_TO`): the same bits as the compiled kernels."""
    values = np.array(rows)
    bins = [np.zeros((3, exact._BINS), dtype=np.int64) for _ in range(2)]
    exact._accumulate(values.view(np.int64), bins[0])
    interpreted(exact._accumulate)(values.view(np.int64), bins[1])
    np.testing.assert_array_equal(bins[0], bins[1])
    a, b = values[:, 1], values[:, 2]
    out = [np.full((len(rows), 2), np.nan) for _ in range(2)]
    two_products_into(a, b, out[0][:, 0], out[0][:, 1])
    original = exact.runs_interpreted
    exact.runs_interpreted = lambda kernel, small: True  # type: ignore[assignment]
    try:
        exact.products_into(a, b, out[1][:, 0], out[1][:, 1])
    finally:
        exact.runs_interpreted = original
    np.testing.assert_array_equal(out[0], out[1])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.floats(allow_nan=False, allow_infinity=False), min_size=1, max_size=40),
        min_size=1,
        max_size=5,
    ),
    st.booleans(),
)
def test_column_sums_are_each_columns_true_sum(columns: list[list[float]], read_only: bool):
    """`exact_column_sums` (a backtest's totals, a column at a time, read-only frame columns
    among them) gives each column's exact sum, as `exact_sums` of the matrix would."""
    arrays = [np.array(c, dtype=np.float64) for c in columns]
    if read_only:
        for a in arrays:
            a.flags.writeable = False
    got = exact.exact_column_sums(arrays)
    assert [to_fraction(g) for g in got] == [sum(map(Fraction, c), Fraction(0)) for c in columns]
