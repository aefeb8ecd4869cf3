"""The simulated shoe: shuffle, burn, cut card, and dealing a whole shoe.

The shuffle is defined so that any engine (this plain one, or the compiled
Monte Carlo engine) deals the same shoes from the same seed on every machine:

* one NumPy ``PCG64(seed)`` stream per run; shoe ``k`` of the run uses raw draws
  ``k*(n-1) .. (k+1)*(n-1)-1`` (``n`` = cards in the shoe), reached with
  ``PCG64.advance`` so shoes can be dealt in any order or in parallel;
* the unshuffled shoe is ``card_number = position % 52`` (deck after deck);
* Fisher-Yates from the top: for ``i = n-1 .. 1``, ``j = raw[n-1-i] % (i+1)``,
  swap positions ``i`` and ``j``. (Modulo bias is below 2**-55: negligible.)

Shoe procedure (seed 002, docs/rules.md): the first card is turned face up and burns as many
cards face down as its value (T/J/Q/K = 10). The cut card sits ``cut`` cards from the
end; once it has come out (during a hand, or as the first card of one), exactly one
more hand is played. Optionally one card is burnt between hands.

That procedure is written once: `first_hand_at`, `hand_start` (the burn between hands
and the cut card), `hand_cards` (one hand's cards by the drawing tables), `deal_hand`
(the two together) and `deal_rows` (a whole shoe), over NumPy arrays. Numba's
``register_jitable`` leaves them plain Python functions, which `deal_shoe` (the
readable reference the engines are tested against) runs as such, and lets the compiled
engines (`roads_app.sim.kernel`, `roads_app.sim.bulk`) compile these very functions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numba.extending import register_jitable

from roads_app.errors import RoundError, whole_number
from roads_app.game import MAX_DECKS
from roads_app.game import cards as playing_cards
from roads_app.game.cards import POINTS_BY_CARD
from roads_app.game.drawing import BANKER_DRAWS_AFTER, BANKER_DRAWS_STOOD, PLAYER_DRAWS, Hand
from roads_app.game.hand import hand_total
from roads_app.game.rounds import (
    MULTI_SHOE_SCHEMA,
    SEED_MAX,
    ShoeMeta,
    most_rounds_of,
    rounds_from_hands,
)
from roads_app.messages import Message

BURN_BY_CARD = np.array([playing_cards.RANK_BURN_VALUE[i // 4] for i in range(52)], dtype=np.int64)
"""Cards burnt for each card number turned face up."""

TWO_CARD_TOTAL = hand_total(POINTS_BY_CARD[:, None] + POINTS_BY_CARD[None, :]).astype(np.uint8)
TWO_CARD_TOTAL.setflags(write=False)
"""`hand_total` of two card numbers' points, looked up: compiled dealing reads a hand's
totals here, where a sum and its last digit took a division's worth of steps each."""

TOTAL_AFTER = hand_total(np.arange(10)[:, None] + POINTS_BY_CARD[None, :]).astype(np.uint8)
TOTAL_AFTER.setflags(write=False)
"""`hand_total` of a total and one more card number's points (a third card), looked up."""

ORDER_DTYPE = np.uint8
"""A shoe's card numbers in order: unsigned, so compiled code looks a card up in a table
without first asking whether its index is negative (a tenth of the dealing time)."""

UNSHUFFLED = np.array(
    [i % playing_cards.CARDS_PER_DECK for i in range(MAX_DECKS * playing_cards.CARDS_PER_DECK)],
    dtype=ORDER_DTYPE,
)
UNSHUFFLED.setflags(write=False)
"""A shoe before its shuffle, top first: card numbers deck after deck (the first ``n`` for a
shoe of ``n`` cards). Every shuffle starts from it, the compiled one by copying it, which
costs a fifth of the shuffle's time less than numbering the cards again."""


@dataclass(frozen=True, slots=True)
class ShoeOptions:
    """How a table deals its shoe (rules files carry these as `[shoe]`)."""

    decks: int = 8
    cut: int = 14
    burn: bool = True
    burn_between_hands: bool = False

    def __post_init__(self) -> None:
        whole_number(self.decks, Message("msg_what_decks"), 1, MAX_DECKS, error=RoundError)
        whole_number(self.cut, Message("msg_what_cut"), error=RoundError)
        if not 0 <= self.cut <= self.cards // 2:
            raise RoundError(
                Message("msg_cut_range", cut=self.cut, most=self.cards // 2, decks=self.decks)
            )

    @property
    def cards(self) -> int:
        return self.decks * playing_cards.CARDS_PER_DECK


most_hands = register_jitable(inline="always")(most_rounds_of)
"""`roads_app.game.rounds.most_rounds_of`, callable in compiled code: the rows the dealing
kernels allocate for a shoe of ``n_cards`` cards, and the width of a bankroll path."""


def check_seed(seed: object) -> int:
    """Seeds are whole numbers from 0 to `SEED_MAX`: PCG64 takes larger ones, but the
    shoe's saved metadata would refuse them after the dealing."""
    return whole_number(seed, Message("msg_what_seed"), 0, SEED_MAX, error=RoundError)


def shuffle_draws(seed: int, decks: int, first_shoe: int, n_shoes: int) -> np.ndarray:
    """Raw uint64 draws for shoes ``first_shoe .. first_shoe+n_shoes-1``, one row a shoe."""
    per = decks * playing_cards.CARDS_PER_DECK - 1
    bg = np.random.PCG64(check_seed(seed))
    if first_shoe:
        bg.advance(first_shoe * per)
    return bg.random_raw(n_shoes * per).reshape(n_shoes, per)


def shuffled_shoe(seed: int, decks: int = 8, index: int = 0) -> np.ndarray:
    """Card numbers (0..51) of shoe ``index`` of run ``seed``, top of the shoe first."""
    return fisher_yates(shuffle_draws(seed, decks, index, 1)[0])


def fisher_yates(raw: np.ndarray) -> np.ndarray:
    """The shoe of ``len(raw) + 1`` cards shuffled by these raw draws, top first: the
    shuffle of the module's docstring, written once."""
    n = raw.shape[0] + 1
    order = UNSHUFFLED[:n].tolist()
    mods = (raw % np.arange(n, 1, -1, dtype=np.uint64)).tolist()  # (i+1) for i = n-1..1
    for step, j in enumerate(mods):
        i = n - 1 - step
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=ORDER_DTYPE)


@dataclass(frozen=True)
class DealtShoe:
    """A dealt shoe: its rounds and where every other card went."""

    rounds: pl.DataFrame
    meta: ShoeMeta
    burn_card: str | None
    burnt: tuple[str, ...]  # face down: the burn after the first card, and between hands
    left: tuple[str, ...]  # behind the cut card, never dealt
    order: tuple[str, ...] = field(repr=False)  # the whole shoe, top first


@register_jitable(inline="always")
def first_hand_at(order: np.ndarray, burn: bool) -> int:
    """Where the first hand starts: after the face-up card and the cards it burns."""
    return 1 + int(BURN_BY_CARD[order[0]]) if burn else 0


@register_jitable(inline="always")
def hand_start(
    order: np.ndarray, cursor: int, first_hand: bool, cut: int, burn_between: bool
) -> tuple[int, bool, int]:
    """Where the next hand's first card is, from position ``cursor`` of a shuffled shoe.

    Returns (that position, whether the hand is the shoe's last, the card burnt face
    down before it or -1). With too few cards left to be sure of finishing a hand there
    is no hand: the position is -1. The cut card has come out once the hand starts at or
    behind it (``cut`` cards from the end): that hand is the last.
    """
    n = order.shape[0]
    between = burn_between and not first_hand
    if n - cursor < 6 + between:
        return -1, True, -1
    burnt = int(order[cursor]) if between else -1
    cursor += between
    return cursor, cursor >= n - cut, burnt


@register_jitable(inline="always")
def hand_cards(
    order: np.ndarray, cursor: int
) -> tuple[int, int, int, int, int, int, int, int, int]:
    """The cards of a hand starting at ``cursor``: (position after it, p0, p1, p2, b0, b1,
    b2, Player's total, Banker's total), -1 where a hand took no third card. Deal order:
    Player, Banker, Player, Banker, then the third cards by the drawing tables of
    `roads_app.game.drawing`. The totals come with the cards because the drawing rules
    need them anyway (a caller that settles need not look the points up again)."""
    p0, b0 = order[cursor], order[cursor + 1]
    p1, b1 = order[cursor + 2], order[cursor + 3]
    cursor += 4
    player = TWO_CARD_TOTAL[p0, p1]
    banker = TWO_CARD_TOTAL[b0, b1]
    p2 = b2 = -1
    if PLAYER_DRAWS[player, banker]:
        p2 = order[cursor]
        cursor += 1
        banker_draws = BANKER_DRAWS_AFTER[banker, POINTS_BY_CARD[p2]]
        player_total = TOTAL_AFTER[player, p2]
    else:
        banker_draws = BANKER_DRAWS_STOOD[banker, player]
        player_total = player
    banker_total = banker
    if banker_draws:
        b2 = order[cursor]
        cursor += 1
        banker_total = TOTAL_AFTER[banker, b2]
    return cursor, p0, p1, p2, b0, b1, b2, int(player_total), int(banker_total)


@register_jitable(inline="always")
def deal_hand(
    order: np.ndarray, cursor: int, first_hand: bool, cut: int, burn_between: bool
) -> tuple[int, bool, int, int, int, int, int, int, int]:
    """The next hand of a shuffled shoe (card numbers, top first) from position ``cursor``:
    `hand_start` then `hand_cards`.

    Returns (position after the hand, whether it is the shoe's last hand, the card burnt
    face down before it or -1, then card numbers p0, p1, p2, b0, b1, b2, -1 where a hand
    took no third card); the position is -1 where no hand could be dealt.
    """
    start, last, burnt = hand_start(order, cursor, first_hand, cut, burn_between)
    if start < 0:
        return -1, True, -1, -1, -1, -1, -1, -1, -1
    after, p0, p1, p2, b0, b1, b2, _, _ = hand_cards(order, start)
    return after, last, burnt, int(p0), int(p1), int(p2), int(b0), int(b1), int(b2)


@register_jitable
def deal_rows(
    order: np.ndarray, cut: int, burn: bool, burn_between: bool, rows: np.ndarray, burnt: np.ndarray
) -> tuple[int, int, int]:
    """Deal a whole shuffled shoe: hand ``h`` to ``rows[h]`` as (p0, p1, p2, b0, b1, b2)
    and the card burnt before it to ``burnt[h]`` (-1: none); both need room for
    `most_hands` hands. Returns (hands, where the first hand started, cards
    used)."""
    first = first_hand_at(order, burn)
    cursor = first
    h = 0
    last = False
    while not last:
        after, last, burnt_card, p0, p1, p2, b0, b1, b2 = deal_hand(
            order, cursor, h == 0, cut, burn_between
        )
        if after < 0:
            break
        rows[h, 0], rows[h, 1], rows[h, 2] = p0, p1, p2
        rows[h, 3], rows[h, 4], rows[h, 5] = b0, b1, b2
        burnt[h] = burnt_card
        cursor = after
        h += 1
    return h, first, cursor


def deal_hands(order: np.ndarray, options: ShoeOptions) -> tuple[list[Hand], dict]:
    """Deal a shuffled shoe by the shoe procedure (`deal_rows`, run as plain Python)."""
    codes = playing_cards.ALL_CARDS
    most = most_hands(len(order))
    rows = np.full((most, 6), -1, dtype=np.int8)
    burnt_before = np.full(most, -1, dtype=np.int8)
    n_hands, first, used = deal_rows(
        order, options.cut, options.burn, options.burn_between_hands, rows, burnt_before
    )
    hands = [
        Hand(tuple([codes[c] for c in r[:3] if c >= 0]), tuple([codes[c] for c in r[3:] if c >= 0]))
        for r in rows[:n_hands].tolist()
    ]
    burnt = [*order[1:first].tolist(), *(c for c in burnt_before[:n_hands].tolist() if c >= 0)]
    extra = {
        "burn_card": codes[int(order[0])] if options.burn else None,
        "burnt": tuple(codes[c] for c in burnt),
        "left": tuple(codes[c] for c in order[used:].tolist()),
    }
    return hands, extra


def simulated_meta(seed: int, options: ShoeOptions, index: int, burn_card: str | None) -> ShoeMeta:
    """What a simulated shoe records about itself (any engine that deals it)."""
    return ShoeMeta(
        name=f"simulated seed {seed} shoe {index + 1}",
        source="simulated",
        decks=options.decks,
        seed=seed,
        burn_card=burn_card,
        cut=options.cut,
        notes=f"shoe index {index}" if index else "",
    )


def deal_shoe(seed: int, options: ShoeOptions | None = None, index: int = 0) -> DealtShoe:
    """Deal shoe ``index`` of run ``seed`` to the end; same seed, same shoe, everywhere."""
    options = options or ShoeOptions()
    order = shuffled_shoe(seed, options.decks, index)
    hands, extra = deal_hands(order, options)
    return DealtShoe(
        rounds=rounds_from_hands(hands),
        meta=simulated_meta(seed, options, index, extra["burn_card"]),
        burn_card=extra["burn_card"],
        burnt=extra["burnt"],
        left=extra["left"],
        order=tuple(playing_cards.ALL_CARDS[int(c)] for c in order),
    )


def deal_shoes(seed: int, n_shoes: int, options: ShoeOptions | None = None) -> pl.DataFrame:
    """Rounds of shoes ``0 .. n_shoes-1`` of run ``seed``, with a 1-based ``shoe`` column."""
    options = options or ShoeOptions()
    whole_number(n_shoes, Message("msg_what_shoes"), 1, error=RoundError)
    frames = []
    for k in range(n_shoes):
        r = deal_shoe(seed, options, k).rounds
        frames.append(r.with_columns(pl.lit(k + 1, dtype=pl.Int32).alias("shoe")))
    return pl.concat(frames).select(MULTI_SHOE_SCHEMA.names())
