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
(`roads_app.store.files.write_batches`) holds one batch in memory whatever the count.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
import polars as pl
import pyarrow as pa
from numba import njit, prange

from roads_app.errors import RoundError
from roads_app.game import cards as playing_cards
from roads_app.game.rounds import MULTI_SHOE_SCHEMA, ROUNDS_SCHEMA, WINNER, WINNERS, ShoeMeta
from roads_app.game.shoe import (
    POINTS_BY_CARD,
    ShoeOptions,
    check_seed,
    deal_rows,
    simulated_meta,
)
from roads_app.sim import kernel
from roads_app.sim.cache import depends_on
from roads_app.sim.kernel import (
    _KERNEL_LOCK,
    W_BANKER,
    W_PLAYER,
    W_TIE,
    _halves,
    _jump,
    _shoe_states,
    _shuffle,
    pcg_start,
)

depends_on(__file__, kernel)  # the kernels below inline the dealing primitives (and theirs)

BATCH_SHOES = 8192
"""Shoes per batch: about 660,000 rounds, some 25 MB as a frame (8 decks)."""

_CODE_BYTES = np.frombuffer(
    "".join(playing_cards.ALL_CARDS).encode("ascii"), dtype=np.uint8
).reshape(52, 2)
"""The two ASCII bytes of each card code, by card number."""

_PTS = POINTS_BY_CARD.astype(np.int64)


def check_shoe_count(n_shoes: object) -> int:
    """Shoes to deal: a whole number 1 or more."""
    if isinstance(n_shoes, bool) or not isinstance(n_shoes, int) or n_shoes < 1:
        raise RoundError(f"number of shoes must be a whole number 1 or more, not {n_shoes!r}")
    return n_shoes


@njit(cache=True, parallel=True, nogil=True)
def _deal_batch(
    starts: np.ndarray,  # [shoes, 2] uint64: each shoe's PCG64 state (hi, lo)
    inc: np.ndarray,  # [2] uint64
    decks: int,
    cut: int,
    burn: bool,
    burn_between: bool,
    cards: np.ndarray,  # [shoes, most hands, 6] int8
    hands: np.ndarray,  # [shoes] int64
    first: np.ndarray,  # [shoes] int8: the card turned face up to burn (-1: no burn)
) -> None:
    n = decks * 52
    for s in prange(starts.shape[0]):
        order = np.empty(n, dtype=np.int8)
        _shuffle(starts[s, 0], starts[s, 1], inc[0], inc[1], order)
        burnt = np.empty(cards.shape[1], dtype=np.int8)  # the procedure's; not kept here
        h, _, _ = deal_rows(order, cut, burn, burn_between, cards[s], burnt)
        hands[s] = h
        first[s] = order[0] if burn else -1


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
    state, inc = pcg_start(check_seed(seed), first_shoe * per)
    jump_a, jump_c = (_halves(x) for x in _jump(per, inc))
    starts = _shoe_states(*_halves(state), *jump_a, *jump_c, n_shoes)
    most = options.cards // 4 + 1
    cards = np.full((n_shoes, most, 6), -1, dtype=np.int8)
    hands = np.zeros(n_shoes, dtype=np.int64)
    first = np.zeros(n_shoes, dtype=np.int8)
    with _KERNEL_LOCK:
        _deal_batch(
            starts,
            np.array(_halves(inc)),
            options.decks,
            options.cut,
            options.burn,
            options.burn_between_hands,
            cards,
            hands,
            first,
        )
    dealt = cards[np.arange(most)[None, :] < hands[:, None]]  # shoe-major, round order
    return DealtBatch(first_shoe, hands, dealt, first)


@njit(cache=True, nogil=True)
def _round_columns(cards: np.ndarray) -> tuple:
    """Winner code, totals, pair and natural flags of every row of cards."""
    r = cards.shape[0]
    pts = _PTS
    winner = np.empty(r, dtype=np.uint8)
    ppts = np.empty(r, dtype=np.int8)
    bpts = np.empty(r, dtype=np.int8)
    flags = np.empty((4, r), dtype=np.bool_)  # player pair, banker pair, naturals
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
        p = (pts[p0] + pts[p1] + p2v) % 10
        b = (pts[b0] + pts[b1] + b2v) % 10
        ppts[i] = p
        bpts[i] = b
        winner[i] = W_BANKER if b > p else (W_PLAYER if p > b else W_TIE)
        flags[0, i] = (p0 >> 2) == (p1 >> 2)
        flags[1, i] = (b0 >> 2) == (b1 >> 2)
        flags[2, i] = (pts[p0] + pts[p1]) % 10 >= 8
        flags[3, i] = (pts[b0] + pts[b1]) % 10 >= 8
    return winner, ppts, bpts, flags


@njit(cache=True, nogil=True)
def _list_views(cards: np.ndarray, lo: int, hi: int, code_bytes: np.ndarray) -> tuple:
    """Offsets and Arrow string views of the cards in columns ``lo:hi`` of each row.

    A view of a string of up to 12 bytes holds it inline: length (int32) then the bytes.
    """
    r = cards.shape[0]
    offsets = np.empty(r + 1, dtype=np.int64)
    offsets[0] = 0
    n = 0
    for i in range(r):
        for k in range(lo, hi):
            if cards[i, k] >= 0:
                n += 1
        offsets[i + 1] = n
    views = np.zeros((n, 16), dtype=np.uint8)
    j = 0
    for i in range(r):
        for k in range(lo, hi):
            c = cards[i, k]
            if c >= 0:
                views[j, 0] = 2
                views[j, 4] = code_bytes[c, 0]
                views[j, 5] = code_bytes[c, 1]
                j += 1
    return offsets, views


def _card_lists(cards: np.ndarray, lo: int, hi: int) -> pl.Series:
    """A List(String) column of the card codes in columns ``lo:hi`` (-1: no card), built
    from Arrow buffers (offsets, inline string views): no Python object per card."""
    offsets, views = _list_views(cards, lo, hi, _CODE_BYTES)
    codes = pa.Array.from_buffers(pa.string_view(), len(views), [None, pa.py_buffer(views)])
    # Buffers, not pa.array(numpy): that one imports pandas (a second off every command).
    starts = pa.Array.from_buffers(pa.int64(), len(offsets), [None, pa.py_buffer(offsets)])
    return pl.from_arrow(pa.LargeListArray.from_arrays(starts, codes))  # type: ignore[return-value]


def rounds_frame(batch: DealtBatch) -> pl.DataFrame:
    """The batch as a multi-shoe rounds frame (`MULTI_SHOE_SCHEMA`), shoes numbered from 1."""
    n = batch.cards.shape[0]
    winner, ppts, bpts, flags = _round_columns(batch.cards)
    shoe_no = np.repeat(
        np.arange(batch.first_shoe + 1, batch.first_shoe + batch.n_shoes + 1, dtype=np.int32),
        batch.hands,
    )
    round_no = np.arange(n, dtype=np.int64) - np.repeat(batch.offsets[:-1], batch.hands) + 1
    frame = pl.DataFrame(
        {
            "shoe": shoe_no,
            "round": round_no.astype(np.int32),
            "winner": pl.Series(WINNERS, dtype=WINNER).gather(winner),
            "player_points": ppts,
            "banker_points": bpts,
            "player_pair": flags[0],
            "banker_pair": flags[1],
            "player_natural": flags[2],
            "banker_natural": flags[3],
            "player_cards": _card_lists(batch.cards, 0, 3),
            "banker_cards": _card_lists(batch.cards, 3, 6),
        }
    )
    return frame.cast(dict(MULTI_SHOE_SCHEMA))


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
