"""The odds study at engine speed: every hand of many simulated shoes priced exactly.

Same accounting as the plain reference (`roads_app.bets.live_odds.study_shoes`, one
`deal_shoe` and one composition at a time), but the shoes come from the compiled dealer
(`roads_app.sim.bulk`) and one parallel kernel walks each shoe hand by hand, keeping the
unseen cards up to date and pricing each hand with the exact-odds kernel
(`roads_app.bets.odds`), shoes spread over every core.

The study is a sequence of ranges of shoes, each giving a `StudyPart`; parts merge in
shoe order (`live_odds.summarize_study`) to the same result however the shoes were cut
into ranges, so ranges can also be computed elsewhere and joined.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import polars as pl
from numba import njit, prange

from roads_app.bets import live_odds, odds
from roads_app.bets.odds import N_EVENTS, PARALLEL_LOCK, TableLike, outcomes_into
from roads_app.game.shoe import ShoeOptions, check_seed
from roads_app.jit_cache import depends_on
from roads_app.sim import bulk

depends_on(__file__, odds)  # the kernel below calls the exact-odds kernel

STUDY_BATCH = 512
"""Shoes per range: about 41,000 hands, 9 MB of probabilities (8 decks)."""


@njit(cache=True, parallel=True, nogil=True)
def _hand_probabilities(
    cards: np.ndarray,  # int8 [hands, 6]: every hand, shoe after shoe (-1: no card)
    offsets: np.ndarray,  # int64 [shoes + 1]: first hand of each shoe
    burn_card: np.ndarray,  # int8 [shoes]: the face-up first card (seen), -1 none
    decks: int,
    out: np.ndarray,  # float64 [hands, N_EVENTS]
) -> None:
    """Event probabilities of every hand from the cards unseen just before it.

    Seen: the face-up first card and every card of the hands before. The burnt cards
    stay unseen, as `live_odds.hand_compositions` counts them.
    """
    for s in prange(offsets.shape[0] - 1):
        counts = np.full(52, decks, dtype=np.int64)
        if burn_card[s] >= 0:
            counts[burn_card[s]] -= 1
        for h in range(offsets[s], offsets[s + 1]):
            outcomes_into(counts, out[h])
            for k in range(6):
                c = cards[h, k]
                if c >= 0:
                    counts[c] -= 1


def priced_batch(seed: int, shoes: range, options: ShoeOptions) -> tuple[pl.DataFrame, np.ndarray]:
    """Shoes ``shoes`` of run ``seed``: their rounds (multi-shoe frame) and each hand's
    event probabilities before it was dealt (rows in the same order)."""
    batch = bulk.deal_batch(check_seed(seed), options, shoes.start, len(shoes))
    probs = np.empty((batch.cards.shape[0], N_EVENTS))
    with PARALLEL_LOCK:
        _hand_probabilities(batch.cards, batch.offsets, batch.burn_card, options.decks, probs)
    return bulk.rounds_frame(batch), probs


def _options(table: TableLike, options: ShoeOptions | None) -> ShoeOptions:
    return options or getattr(table, "shoe", None) or ShoeOptions()


def study_range(
    seed: int,
    shoes: range,
    table: TableLike,
    options: ShoeOptions | None = None,
    closing: bool = True,
) -> live_odds.StudyPart:
    """`live_odds.study_shoes` at engine speed: the same part for the same shoes."""
    rounds, probs = priced_batch(seed, shoes, _options(table, options))
    return live_odds.study_part(shoes, rounds, probs, table, closing)


def study_parts(
    seed: int,
    n_shoes: int,
    table: TableLike,
    options: ShoeOptions | None = None,
    closing: bool = True,
    *,
    batch: int = STUDY_BATCH,
    with_hands: bool = False,
    progress: Callable[[int], None] | None = None,
) -> Iterator[tuple[live_odds.StudyPart, pl.DataFrame | None]]:
    """The study range by range, in shoe order: each range's part and, ``with_hands``,
    its per-hand odds (`live_odds.hand_odds`) to stream out. Memory is one range's
    worth whatever ``n_shoes``; ``progress(shoes)`` is called after each range."""
    live_odds.check_study_size(n_shoes)
    opts = _options(table, options)
    for shoes in bulk.batch_ranges(n_shoes, batch):
        rounds, probs = priced_batch(seed, shoes, opts)
        hands = live_odds.hand_odds(rounds, probs, table, closing) if with_hands else None
        yield live_odds.study_part(shoes, rounds, probs, table, closing), hands
        if progress is not None:
            progress(len(shoes))


def odds_study(
    seed: int,
    n_shoes: int,
    table: TableLike,
    options: ShoeOptions | None = None,
    closing: bool = True,
    *,
    batch: int = STUDY_BATCH,
    progress: Callable[[int], None] | None = None,
) -> live_odds.StudyResult:
    """`live_odds.odds_study` at engine speed (same result for the same shoes)."""
    parts = [
        part
        for part, _ in study_parts(
            seed, n_shoes, table, options, closing, batch=batch, progress=progress
        )
    ]
    return live_odds.summarize_study(parts, seed, table, closing)
