"""Many simulated shoes at engine speed, as multi-shoe rounds frames in batches.

The compiled engine (`roads_app.sim.kernel`) shuffles and deals every shoe of a batch in
parallel, with the very PCG64 stream and Fisher-Yates of `roads_app.game.shoe.deal_shoe`
and its burn and cut-card procedure (`roads_app.game.shoe.deal_rows`, compiled); the
plain `deal_shoe` stays the readable reference (the tests compare the two card for
card). What the kernel hands back is one small int8 row of six card numbers per hand;
the rounds frame is then built column-wise from those arrays: points, pairs and
naturals in one compiled pass, and the card lists straight from flat arrays and offsets
(every card code is two ASCII bytes), never a Python object per round.

`batches` yields one frame per batch of shoes, so a caller that writes each one out
(`roads_app.shoefiles.files.write_batches`) holds one batch in memory whatever the count.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
from numba import njit, prange

from roads_app.errors import RoundError, whole_number
from roads_app.game import cards as playing_cards
from roads_app.game import hand as game_hand
from roads_app.game.hand import RANK_PAIR, WINNERS, hand_total, natural, pair_state, winner_of
from roads_app.game.rounds import MULTI_SHOE_SCHEMA, ROUNDS_SCHEMA, ShoeMeta
from roads_app.game.shoe import (
    ORDER_DTYPE,
    POINTS_BY_CARD,
    ShoeOptions,
    check_seed,
    deal_rows,
    most_hands,
    simulated_meta,
)
from roads_app.jit_cache import depends_on, load_lean
from roads_app.messages import Message
from roads_app.sim import kernel, pcg64
from roads_app.sim.kernel import KERNEL_LOCK

# the kernels below inline the dealing primitives (and theirs) and the hand's rules
depends_on(__file__, kernel, pcg64, game_hand)

BATCH_SHOES = 8192
"""Shoes per batch: about 660,000 rounds, some 25 MB as a frame (8 decks)."""

_CODE_BYTES = np.frombuffer(
    "".join(playing_cards.ALL_CARDS).encode("ascii"), dtype=np.uint8
).reshape(52, 2)
"""The two ASCII bytes of each card code, by card number."""

_PTS = POINTS_BY_CARD.astype(np.int64)


def check_shoe_count(n_shoes: object) -> int:
    """Shoes to deal: a whole number 1 or more."""
    return whole_number(n_shoes, Message("msg_what_shoes"), 1, error=RoundError)


@load_lean
@njit(cache=True, parallel=True, nogil=True)
def _deal_batch(
    jump: np.ndarray,  # [6] uint64: first shoe's PCG64 state (hi, lo), jump A (hi, lo), C (hi, lo)
    inc: np.ndarray,  # [2] uint64
    deal: np.ndarray,  # int64 [cut, burn, burn between hands]
    starts: np.ndarray,  # [shoes, 2] uint64: room for each shoe's start state
    order: np.ndarray,  # [shoes, cards] ORDER_DTYPE: room for each shoe's shuffle
    burnt: np.ndarray,  # [shoes, most hands] int8: room for the procedure's burnt cards
    cards: np.ndarray,  # [shoes, most hands, 6] int8: the hands, filled in
    hands: np.ndarray,  # [shoes, 2] int64: hands in each shoe, and the card turned face
    # up to burn (-1: no burn), filled in
) -> None:
    """Shuffle and deal every shoe of the batch on every core: one compiled call.

    The caller allocates the arrays: a kernel that allocates loads Numba's array
    module along with its cached code (a tenth of a second at a cold start)."""
    cut, burn, burn_between = deal[0], deal[1] != 0, deal[2] != 0
    hi, lo = jump[0], jump[1]
    for s in range(starts.shape[0]):  # one jump of a shoe's draws each, as `shoe_states`
        starts[s, 0] = hi
        starts[s, 1] = lo
        hi, lo = pcg64.lcg(hi, lo, jump[2], jump[3], jump[4], jump[5])
    for s in prange(starts.shape[0]):
        pcg64.shuffle(starts[s, 0], starts[s, 1], inc[0], inc[1], order[s])
        h, _, _ = deal_rows(order[s], cut, burn, burn_between, cards[s], burnt[s])
        hands[s, 0] = h
        hands[s, 1] = order[s, 0] if burn else -1


@dataclass(frozen=True)
class DealtBatch:
    """Shoes ``first_shoe ..`` of a run as the kernel dealt them (0-based indices)."""

    first_shoe: int
    hands: np.ndarray  # int64 [shoes]: hands in each shoe
    cards: np.ndarray  # int8 [rounds, 6]: p0 p1 p2 b0 b1 b2 (-1: no card), shoe after shoe
    burn_card: np.ndarray  # int8 [shoes]: face-up first card (-1: the shoe burns none)

    @property
    def n_shoes(self) -> int:
        return int(self.hands.shape[0])

    @property
    def offsets(self) -> np.ndarray:
        """Row where each shoe starts in ``cards``, and the total at the end."""
        return np.concatenate([[0], np.cumsum(self.hands)])


def deal_batch(seed: int, options: ShoeOptions, first_shoe: int, n_shoes: int) -> DealtBatch:
    """Deal shoes ``first_shoe .. first_shoe+n_shoes-1`` of run ``seed`` on every core."""
    per = options.cards - 1  # raw draws per shoe
    state, inc = pcg64.pcg_start(check_seed(seed), first_shoe * per)
    jump_a, jump_c = (pcg64.halves(x) for x in pcg64.jump(per, inc))
    most = most_hands(options.cards)
    cards = np.full((n_shoes, most, 6), -1, dtype=np.int8)
    out = np.zeros((n_shoes, 2), dtype=np.int64)
    with KERNEL_LOCK:
        _deal_batch(
            np.array([*pcg64.halves(state), *jump_a, *jump_c], dtype=np.uint64),
            np.array(pcg64.halves(inc), dtype=np.uint64),
            np.array([options.cut, options.burn, options.burn_between_hands], dtype=np.int64),
            np.empty((n_shoes, 2), dtype=np.uint64),
            np.empty((n_shoes, options.cards), dtype=ORDER_DTYPE),
            np.empty((n_shoes, most), dtype=np.int8),
            cards,
            out,
        )
    hands, first = out[:, 0].copy(), out[:, 1].astype(np.int8)
    dealt = cards[np.arange(most)[None, :] < hands[:, None]]  # shoe-major, round order
    return DealtBatch(first_shoe, hands, dealt, first)


@load_lean
@njit(cache=True, nogil=True)
def _round_columns(
    cards: np.ndarray,  # [rounds, 6] int8
    pts: np.ndarray,  # [52] int64: points by card number
    code_bytes: np.ndarray,  # [52, 2] uint8: each card code's two ASCII bytes
    winner: np.ndarray,  # [rounds] uint8, filled in: index into WINNERS
    points: np.ndarray,  # [2, rounds] int8, filled in: player, banker totals
    flags: np.ndarray,  # [4, rounds] bool, filled in: player pair, banker pair, naturals
    offsets: np.ndarray,  # [2, rounds + 1] int64, filled in: each side's cards per row
    text: np.ndarray,  # [2, 6 * rounds] uint8, filled in: each side's codes, two bytes each
) -> None:
    """Every column of the rows of cards, in one compiled pass (one function to load)."""
    r = cards.shape[0]
    offsets[0, 0] = 0
    offsets[1, 0] = 0
    for i in range(r):
        p0, p1, p2, b0, b1, b2 = (
            cards[i, 0],
            cards[i, 1],
            cards[i, 2],
            cards[i, 3],
            cards[i, 4],
            cards[i, 5],
        )
        p2v = pts[p2] if p2 >= 0 else 0
        b2v = pts[b2] if b2 >= 0 else 0
        p = hand_total(pts[p0] + pts[p1] + p2v)
        b = hand_total(pts[b0] + pts[b1] + b2v)
        points[0, i] = p
        points[1, i] = b
        winner[i] = winner_of(b, p)
        flags[0, i] = pair_state(p0, p1) >= RANK_PAIR
        flags[1, i] = pair_state(b0, b1) >= RANK_PAIR
        flags[2, i] = natural(hand_total(pts[p0] + pts[p1]))
        flags[3, i] = natural(hand_total(pts[b0] + pts[b1]))
        for side in range(2):
            at = offsets[side, i]
            for k in range(3 * side, 3 * side + 3):
                c = cards[i, k]
                if c >= 0:
                    text[side, 2 * at] = code_bytes[c, 0]
                    text[side, 2 * at + 1] = code_bytes[c, 1]
                    at += 1
            offsets[side, i + 1] = at


@functools.cache
def arrow_schema() -> pa.Schema:
    """`MULTI_SHOE_SCHEMA` as Arrow (and Parquet) see it: what Polars writes, taken from
    Polars itself (the Enum's metadata included), so both writers make the same file."""
    return MULTI_SHOE_SCHEMA.to_frame().to_arrow().schema


def _arrow(dtype: pa.DataType, values: np.ndarray) -> pa.Array:
    # Buffers, not pa.array(numpy): that one imports pandas (a second off every command).
    return pa.Array.from_buffers(dtype, len(values), [None, pa.py_buffer(values)])


def _bools(flags: np.ndarray) -> pa.Array:
    """Arrow packs booleans eight to a byte, lowest bit first."""
    bits = np.packbits(flags, bitorder="little")
    return pa.Array.from_buffers(pa.bool_(), len(flags), [None, pa.py_buffer(bits)])


def _card_lists(offsets: np.ndarray, text: np.ndarray) -> pa.Array:
    """A list of card codes per row: every code is two bytes, so the strings' own
    offsets are 0, 2, 4, ... (no Python object per card)."""
    n = len(text) // 2
    codes = pa.Array.from_buffers(
        pa.large_string(),
        n,
        [None, pa.py_buffer(np.arange(0, 2 * n + 1, 2, dtype=np.int64)), pa.py_buffer(text)],
    )
    return pa.LargeListArray.from_arrays(_arrow(pa.int64(), offsets), codes)


def arrow_batch(batch: DealtBatch) -> pa.RecordBatch:
    """The batch as Arrow columns of `MULTI_SHOE_SCHEMA` (shoes numbered from 1), built
    from the kernel's arrays: what Parquet is written from without a Polars frame."""
    n = batch.cards.shape[0]
    winner = np.empty(n, dtype=np.uint8)
    points = np.empty((2, n), dtype=np.int8)
    flags = np.empty((4, n), dtype=np.bool_)
    offsets = np.empty((2, n + 1), dtype=np.int64)
    text = np.empty((2, 6 * n), dtype=np.uint8)
    _round_columns(batch.cards, _PTS, _CODE_BYTES, winner, points, flags, offsets, text)
    shoe_no = np.repeat(
        np.arange(batch.first_shoe + 1, batch.first_shoe + batch.n_shoes + 1, dtype=np.int32),
        batch.hands,
    )
    round_no = np.arange(n, dtype=np.int64) - np.repeat(batch.offsets[:-1], batch.hands) + 1
    schema = arrow_schema()
    names = pa.Array.from_buffers(
        pa.large_string(),
        len(WINNERS),
        [
            None,
            pa.py_buffer(np.arange(len(WINNERS) + 1, dtype=np.int64)),
            pa.py_buffer("".join(WINNERS).encode("ascii")),
        ],
    )
    columns = [
        _arrow(pa.int32(), shoe_no),
        _arrow(pa.int32(), round_no.astype(np.int32)),
        pa.DictionaryArray.from_arrays(_arrow(pa.uint8(), winner), names, ordered=True),
        _arrow(pa.int8(), points[0]),
        _arrow(pa.int8(), points[1]),
        *(_bools(f) for f in flags),
        *(_card_lists(offsets[side], text[side, : 2 * offsets[side, -1]]) for side in range(2)),
    ]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def rounds_frame(batch: DealtBatch) -> pl.DataFrame:
    """The batch as a multi-shoe rounds frame (`MULTI_SHOE_SCHEMA`), shoes numbered from 1."""
    frame = pl.from_arrow(arrow_batch(batch))
    return frame.cast(dict(MULTI_SHOE_SCHEMA))  # type: ignore[union-attr]


def batch_ranges(n_shoes: int, batch: int = BATCH_SHOES, first_shoe: int = 0) -> list[range]:
    """The shoe ranges a run of ``n_shoes`` is dealt in, in order."""
    check_shoe_count(n_shoes)
    stop = first_shoe + n_shoes
    return [range(s, min(s + batch, stop)) for s in range(first_shoe, stop, batch)]


def batches(
    seed: int,
    n_shoes: int,
    options: ShoeOptions | None = None,
    *,
    batch: int = BATCH_SHOES,
    first_shoe: int = 0,
    progress: Callable[[int], None] | None = None,
) -> Iterator[pl.DataFrame]:
    """Multi-shoe rounds frames for shoes ``first_shoe .. first_shoe+n_shoes-1`` of run
    ``seed``, one batch at a time (``progress(shoes)`` after each); the same rows as
    `roads_app.game.shoe.deal_shoes` whatever the batch size."""
    options = options or ShoeOptions()
    check_seed(seed)
    for shoes in batch_ranges(n_shoes, batch, first_shoe):
        frame = rounds_frame(deal_batch(seed, options, shoes.start, len(shoes)))
        if progress is not None:
            progress(len(shoes))
        yield frame


def arrow_batches(
    seed: int,
    n_shoes: int,
    options: ShoeOptions | None = None,
    *,
    batch: int = BATCH_SHOES,
    progress: Callable[[int], None] | None = None,
) -> Iterator[pa.RecordBatch]:
    """`batches` as Arrow record batches, never a Polars frame: what `simulate` writes
    to Parquet (the same file either way)."""
    options = options or ShoeOptions()
    check_seed(seed)
    for shoes in batch_ranges(n_shoes, batch):
        columns = arrow_batch(deal_batch(seed, options, shoes.start, len(shoes)))
        if progress is not None:
            progress(len(shoes))
        yield columns


def deal_shoes_fast(seed: int, n_shoes: int, options: ShoeOptions | None = None) -> pl.DataFrame:
    """`roads_app.game.shoe.deal_shoes` at engine speed (one frame: mind the memory)."""
    return pl.concat(list(batches(seed, n_shoes, options)))


def deal_one(
    seed: int, options: ShoeOptions | None = None, index: int = 0
) -> tuple[pl.DataFrame, ShoeMeta]:
    """Shoe ``index`` of run ``seed``: (rounds, meta), as `deal_shoe` gives them."""
    options = options or ShoeOptions()
    batch = deal_batch(check_seed(seed), options, index, 1)
    rounds = rounds_frame(batch).select(ROUNDS_SCHEMA.names())
    burn = int(batch.burn_card[0])
    return rounds, simulated_meta(
        seed, options, index, playing_cards.ALL_CARDS[burn] if burn >= 0 else None
    )
