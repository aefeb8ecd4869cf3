"""NumPy's PCG64 stream, compiled: what the kernels shuffle their shoes with.

The engines deal exactly the shoes `roads_app.game.shoe.deal_shoe` deals (one
``PCG64(seed)`` stream per run, shoe ``k`` starting at raw draw ``k*(n-1)``), so the
kernels run NumPy's PCG64 themselves: the 128-bit LCG in two 64-bit halves (one machine
multiply for the high half), the XSL-RR output, a jump of many draws at once for the
start of each shoe, and the documented Fisher-Yates drawing as it goes. Generating the
draws inside the parallel loops keeps every core busy and no draws go through memory.
The shuffle's ``raw % (i + 1)`` is the exact remainder by multiplication (`mod_small`),
not a division.

>>> state, inc = pcg_start(7, 3)
>>> bg = np.random.PCG64(7)
>>> bg.advance(3)  # doctest: +ELLIPSIS
<numpy.random._pcg64.PCG64 object at ...>
>>> list(pcg_raw(*halves(state), *halves(inc), 2)) == list(bg.random_raw(2))
True
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from roads_app.game.shoe import UNSHUFFLED, check_seed, fisher_yates
from roads_app.jit_cache import load_lean

PCG_MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645
"""PCG's default 128-bit LCG multiplier, as NumPy's PCG64 uses it."""
_MASK64 = (1 << 64) - 1
_S58 = np.uint64(58)
_ONE = np.uint64(1)
_MUL_HI = np.uint64(PCG_MULTIPLIER >> 64)
_MUL_LO = np.uint64(PCG_MULTIPLIER & _MASK64)


@intrinsic
def _mulhi(typingctx, a, b):  # type: ignore[no-untyped-def]
    """High 64 bits of the 128-bit product of two uint64: one machine multiply (LLVM i128)."""
    sig = types.uint64(types.uint64, types.uint64)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        i128 = ir.IntType(128)
        p = builder.mul(builder.zext(args[0], i128), builder.zext(args[1], i128))
        return builder.trunc(builder.lshr(p, ir.Constant(i128, 64)), ir.IntType(64))

    return sig, codegen


@njit(cache=True, inline="always")
def lcg(
    hi: np.uint64, lo: np.uint64, mhi: np.uint64, mlo: np.uint64, ihi: np.uint64, ilo: np.uint64
) -> tuple:
    """(hi, lo) of state * m + i modulo 2**128."""
    phi = _mulhi(lo, mlo) + hi * mlo + lo * mhi
    plo = lo * mlo
    rlo = plo + ilo
    carry = np.uint64(1) if rlo < plo else np.uint64(0)
    return phi + ihi + carry, rlo


MOD_LIMIT = 1 << 16
"""`mod_small` is exact for divisors below this (2 <= d < 2**16; a shoe has 416 cards)."""


def reciprocal(d: int) -> int:
    """``ceil(2**64 / d)`` as a uint64's value, for `mod_small`'s divisor ``d``."""
    if not 2 <= d < MOD_LIMIT:
        raise ValueError(f"divisor {d} outside 2..{MOD_LIMIT - 1}")
    return _MASK64 // d + 1


RECIPROCALS = np.array(
    [0, 0, *(reciprocal(d) for d in range(2, len(UNSHUFFLED) + 1))], dtype=np.uint64
)
"""`reciprocal` of every divisor the shuffle takes (``i + 1`` for a shoe's positions)."""
RECIPROCALS.setflags(write=False)
_S32 = np.uint64(32)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True, inline="always")
def mod_small(x: np.uint64, d: np.uint64, c: np.uint64) -> np.uint64:
    """``x % d`` for any uint64 ``x`` and ``2 <= d < 2**16``, ``c = reciprocal(d)``,
    without a division: Lemire, Kaser and Kurz's direct remainder ("Faster Remainder by
    Direct Computation", Software: Practice and Experience 49(6), 2019, theorem 1: exact
    for n < 2**N when d <= 2**(64-N)), taken twice: the high 32 bits' remainder r, then
    that of r * 2**32 + the low 32 bits (below d * 2**32 <= 2**48). Four multiplies
    against a 64-bit division's tens of cycles.

    >>> int(mod_small(np.uint64(2**64 - 1), np.uint64(416), np.uint64(reciprocal(416))))
    223
    >>> (2**64 - 1) % 416
    223
    """
    r = _mulhi(c * (x >> _S32), d)
    return _mulhi(c * ((r << _S32) | (x & _LOW32)), d)


@njit(cache=True, inline="always")
def xsl_rr(hi: np.uint64, lo: np.uint64) -> np.uint64:
    """PCG64's output function: xor the halves, rotate right by the top 6 bits."""
    x = hi ^ lo
    r = hi >> _S58
    return (x >> r) | (x << ((np.uint64(64) - r) & np.uint64(63)))


def jump(steps: int, inc: int) -> tuple[int, int]:
    """(A, C) with state after ``steps`` draws = A * state + C (mod 2**128)."""
    a, c = 1, 0
    for _ in range(steps):
        a = (a * PCG_MULTIPLIER) & ((1 << 128) - 1)
        c = (c * PCG_MULTIPLIER + inc) & ((1 << 128) - 1)
    return a, c


def halves(x: int) -> tuple[np.uint64, np.uint64]:
    """A 128-bit number as the (high, low) uint64 halves the compiled code works on."""
    return np.uint64(x >> 64), np.uint64(x & _MASK64)


def pcg_start(seed: int, draws_before: int) -> tuple[int, int]:
    """(state, increment) of run ``seed``'s PCG64 after ``draws_before`` raw draws."""
    bg = np.random.PCG64(check_seed(seed))
    if draws_before:
        bg.advance(draws_before)
    st = bg.state["state"]
    return int(st["state"]), int(st["inc"])


def shoe_states_plain(seed: int, first: int, n: int, per: int) -> np.ndarray:
    """What `shoe_states` gives for shoes ``first .. first+n-1`` of run ``seed`` (``per``
    raw draws a shoe), from NumPy's own PCG64 advanced shoe by shoe: nothing compiled."""
    bg = np.random.PCG64(check_seed(seed))
    bg.advance(first * per)
    out = np.empty((n, 2), dtype=np.uint64)
    for s in range(n):
        out[s] = halves(bg.state["state"]["state"])
        bg.advance(per)
    return out


def shuffle_plain(
    hi: np.uint64, lo: np.uint64, ihi: np.uint64, ilo: np.uint64, order: np.ndarray
) -> None:
    """`shuffle` without compiling: NumPy's own PCG64 set to that state draws, and the
    shoe's own Fisher-Yates (`roads_app.game.shoe.fisher_yates`) shuffles."""
    bg = np.random.PCG64()
    bg.state = {
        "bit_generator": "PCG64",
        "state": {"state": (int(hi) << 64) | int(lo), "inc": (int(ihi) << 64) | int(ilo)},
        "has_uint32": 0,
        "uinteger": 0,
    }
    order[:] = fisher_yates(bg.random_raw(order.shape[0] - 1))


@njit(cache=True)
def pcg_raw(hi: np.uint64, lo: np.uint64, ihi: np.uint64, ilo: np.uint64, n: int) -> np.ndarray:
    """``n`` raw draws from a PCG64 state, as ``PCG64.random_raw`` makes them (for tests)."""
    out = np.empty(n, dtype=np.uint64)
    for k in range(n):
        hi, lo = lcg(hi, lo, _MUL_HI, _MUL_LO, ihi, ilo)
        out[k] = xsl_rr(hi, lo)
    return out


@load_lean
@njit(cache=True)
def shoe_states(
    hi: np.uint64,
    lo: np.uint64,
    ahi: np.uint64,
    alo: np.uint64,
    chi: np.uint64,
    clo: np.uint64,
    n: int,
) -> np.ndarray:
    """Start states of ``n`` consecutive shoes: one jump of (n-1) draws per shoe."""
    out = np.empty((n, 2), dtype=np.uint64)
    for s in range(n):
        out[s, 0] = hi
        out[s, 1] = lo
        hi, lo = lcg(hi, lo, ahi, alo, chi, clo)
    return out


@njit(cache=True, inline="always")
def shuffle(
    hi: np.uint64, lo: np.uint64, ihi: np.uint64, ilo: np.uint64, order: np.ndarray
) -> None:
    """Fisher-Yates from the top exactly as `roads_app.game.shoe.shuffled_shoe` does it
    (from `roads_app.game.shoe.UNSHUFFLED`, into an `ORDER_DTYPE` array),
    drawing as it goes."""
    n = order.shape[0]
    for k in range(n):  # a copy loop: a slice assignment needs Numba's runtime
        order[k] = UNSHUFFLED[k]
    # unsigned positions: an index that cannot be negative is not checked for wrapping
    # around from the end (3% of the shuffle's time)
    i = np.uint64(n - 1)
    while i >= _ONE:
        hi, lo = lcg(hi, lo, _MUL_HI, _MUL_LO, ihi, ilo)
        d = i + _ONE
        j = mod_small(xsl_rr(hi, lo), d, RECIPROCALS[d])
        t = order[i]
        order[i] = order[j]
        order[j] = t
        i -= _ONE
