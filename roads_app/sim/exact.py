"""Exact sums of float64 columns, so a total never depends on how the shoes were split.

A float sum rounds after every addition, so its last bits depend on the order and
grouping of the terms: a run split into shards (threads, chunks, Ray tasks) would not
reproduce the one-piece run bit for bit. Here every float64 is written as an integer
times ``2**-OFFSET`` (which every finite double is) and the integers are added exactly,
in 32-bit limbs of int64 bins (a compiled loop), then joined into one Python int. Integer
addition is associative, so the shards' exact sums add up to the one-piece run's sum
whatever the shards; a total is rounded to a float only once, at the very end, by
Python's correctly rounded ``int / int`` (or kept as a `Fraction`).

Products (the ratio estimator's second moments) are made exact first with Dekker's
two-product: ``a * b == p + e`` exactly for two doubles ``p, e`` (no overflow or underflow here:
money amounts lie far inside 1e-100 .. 1e100).

>>> x = np.array([[1e16], [1.0], [-1e16]])
>>> float(x.sum()), to_float(exact_sums(x)[0])
(0.0, 1.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np
from numba import njit

from roads_app.jit_cache import interpreted, load_lean, runs_interpreted

OFFSET = 1074
"""Every finite double is an integer times 2**-OFFSET (the smallest subnormal)."""

_BINS = 2046 // 32 + 3  # the largest double's lowest limb, plus its two higher limbs
_MAX_ROWS = 1 << 30  # each bin gains < 2**33 a value: room for 2**30 values in an int64


@load_lean
@njit(cache=True)
def _accumulate(bits: np.ndarray, out: np.ndarray) -> None:
    """Add every double of column j (given as its IEEE bits) exactly into out[j, :]."""
    n, k = bits.shape
    mask = np.int64(0xFFFFFFFF)
    frac = np.int64((1 << 52) - 1)
    for i in range(n):
        for j in range(k):
            w = bits[i, j]
            biased = (w >> 52) & 0x7FF
            a = w & frac
            if biased == 0:  # zero or subnormal: a * 2**-1074
                if a == 0:
                    continue
                pos = 0
            else:  # (2**52 + a) * 2**(biased - 1075)
                a |= np.int64(1) << 52
                pos = biased - 1
            b = pos >> 5
            off = pos & 31
            lo = (a & mask) << off  # < 2**63
            hi = (a >> 32) << off  # < 2**53
            # the sign applied without a branch (-x is x ^ -1, plus 1): a column of wins
            # and losses is a coin toss the processor guessed wrong half the time
            s = w >> 63  # 0, or -1 for a negative value
            out[j, b] += ((lo & mask) ^ s) - s
            out[j, b + 1] += (((lo >> 32) + (hi & mask)) ^ s) - s
            out[j, b + 2] += ((hi >> 32) ^ s) - s


def exact_sums(values: np.ndarray) -> list[int]:
    """Exact sum of each column of ``values`` (float64[n, k]), in units of 2**-OFFSET."""
    values = np.ascontiguousarray(values, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"exact_sums takes a 2-d array, not {values.ndim}-d")
    if not np.isfinite(values).all():
        raise ValueError("exact_sums: a value is NaN or infinite")
    n, k = values.shape
    totals = [0] * k
    for start in range(0, max(n, 1), _MAX_ROWS):
        bins = np.zeros((k, _BINS), dtype=np.int64)
        _accumulator(n * k)(values[start : start + _MAX_ROWS].view(np.int64), bins)
        for j in range(k):
            totals[j] += sum(int(v) << (32 * i) for i, v in enumerate(bins[j].tolist()) if v)
    return totals


def exact_column_sums(columns: Sequence[np.ndarray]) -> list[int]:
    """`exact_sums` of each of ``columns`` (float64[n] each), a column at a time: no
    matrix of them is built (filling one, a column at a stride, took twice the sums'
    own time for a backtest's million shoes). A read-only column (a frame's) is copied:
    one signature of the compiled sum, as for `exact_sums`' matrix."""
    out = []
    for c in columns:
        a = np.ascontiguousarray(c, dtype=np.float64)
        out.append(exact_sums((a if a.flags.writeable else a.copy()).reshape(-1, 1))[0])
    return out


PLAIN_UP_TO = 100_000
"""Values summed, or multiplied, at most, by the interpreted code while the compiled one
is not in the cache (a small backtest on a new install: about 3 us a value summed,
against a second or more of CPU to compile first)."""


def _accumulator(values: int) -> Callable[[np.ndarray, np.ndarray], None]:
    """`_accumulate`, compiled, or interpreted for a few values while not in the cache."""
    if runs_interpreted(_accumulate, values <= PLAIN_UP_TO):
        return interpreted(_accumulate)
    return _accumulate


def products_into(a: np.ndarray, b: np.ndarray, p: np.ndarray, e: np.ndarray) -> None:
    """`two_products_into`, or for a few values while it is not in the cache
    `two_product` (NumPy, the same operations in the same order: the same bits)."""
    if runs_interpreted(two_products_into, a.shape[0] <= PLAIN_UP_TO):
        p[:], e[:] = two_product(a, b)
    else:
        two_products_into(a, b, p, e)


def to_float(total: int) -> float:
    """An exact sum rounded once to the nearest double."""
    return total / (1 << OFFSET)


def to_fraction(total: int) -> Fraction:
    """An exact sum as an exact rational."""
    return Fraction(total, 1 << OFFSET)


def _split(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Veltkamp's split: a == hi + lo exactly, each half with at most 26 significant bits."""
    c = 134217729.0 * a  # 2**27 + 1
    hi = c - (c - a)
    return hi, a - hi


def two_product(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(p, e) with p = fl(a * b) and a * b == p + e exactly (Dekker), elementwise.

    >>> p, e = two_product(np.array([0.1]), np.array([0.1]))
    >>> Fraction(0.1) ** 2 == Fraction(p[0]) + Fraction(e[0])
    True
    """
    p = a * b
    ah, al = _split(a)
    bh, bl = _split(b)
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@load_lean
@njit(cache=True)
def two_products_into(a: np.ndarray, b: np.ndarray, p: np.ndarray, e: np.ndarray) -> None:
    """`two_product` of ``a`` and ``b`` written into ``p`` and ``e`` (any strides), in one
    compiled pass: no temporary arrays (a backtest's million shoes made six of them per
    product). No fast-math, so no multiply-add is fused and the error term is exact."""
    for i in range(a.shape[0]):
        x = a[i]
        y = b[i]
        q = x * y
        c = 134217729.0 * x
        xh = c - (c - x)
        xl = x - xh
        c = 134217729.0 * y
        yh = c - (c - y)
        yl = y - yh
        p[i] = q
        e[i] = ((xh * yh - q) + xh * yl + xl * yh) + xl * yl
