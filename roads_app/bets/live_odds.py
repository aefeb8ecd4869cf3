"""Live odds: the next hand's exact odds from the cards not yet seen, and the study.

The cards already out change the odds of the next hand. What counts as *seen*: every
card of every round entered with cards, and the face-up first card where the shoe
records it (`ShoeMeta.burn_card`). The face-down burnt cards, and the cards behind the
cut card, were never seen: from the table they are indistinguishable from the cards
still to come, so the next hand is a uniform draw from all the *unseen* cards. That is
also why the study below can check itself: over many hands the result of betting
matches the sum of the exact EVs at the moments of betting.

A round entered without cards (by winner or points only) cannot be accounted for;
`remaining_counts` says which round and `live_odds` refuses with a one-line error.

>>> from roads_app.game.rounds import ShoeMeta, empty_rounds, add_cards
>>> r = add_cards(empty_rounds(), "9s Kd", "5c 2h")
>>> rem = remaining_counts(r, ShoeMeta(decks=1))
>>> rem.ok, rem.cards_left, rem.by_rank["9"]
(True, 48, 3)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from roads_app.bets.odds import (
    EVENTS,
    MIN_CARDS,
    TableLike,
    counts_by_rank,
    full_shoe_counts,
    odds_frame,
    odds_many,
    outcomes,
    rows_dot,
    table_matrices,
)
from roads_app.errors import RoundError, ShoeCompositionError, whole_number
from roads_app.game import cards as playing_cards
from roads_app.game.hand import N_PLAY, pair_index, pair_state_expr, play_index
from roads_app.game.rounds import ShoeMeta
from roads_app.game.shoe import ShoeOptions, check_seed, deal_shoe
from roads_app.messages import Message

POSITIVE_EV = 1e-12
"""EV above this counts as positive (guards against rounding noise at exactly zero)."""

_CARD_NUMBER: dict[str, int] = {code: i for i, code in enumerate(playing_cards.ALL_CARDS)}
_CARD = pl.Enum(list(playing_cards.ALL_CARDS))
"""Card codes as an Enum whose physical value is the card number."""


@dataclass(frozen=True)
class Remaining:
    """The unseen cards before a hand, or why they cannot be known."""

    counts: np.ndarray | None  # 52 counts, None when a round has no cards
    hand: int  # the hand these are the odds for (1-based)
    reason: str | None = None  # why there are no odds (missing cards, shoe finished)

    @property
    def ok(self) -> bool:
        """Whether the next hand can be priced."""
        return self.reason is None

    @property
    def cards_left(self) -> int:
        return 0 if self.counts is None else int(self.counts.sum())

    @property
    def by_rank(self) -> dict[str, int]:
        """Unseen cards per rank letter A..K (empty when unknown)."""
        return {} if self.counts is None else counts_by_rank(self.counts)


def _check_after(rounds: pl.DataFrame, after: int | None) -> int:
    if after is None:
        return rounds.height
    return whole_number(after, Message("msg_what_after"), 0, rounds.height, error=RoundError)


def round_card_counts(rounds: pl.DataFrame) -> np.ndarray:
    """One row of 52 counts per round: the cards that round showed (zeros if none)."""
    out = np.zeros((rounds.height, 52), dtype=np.int64)
    if not rounds.height:
        return out
    cards = (
        rounds.select(
            pl.int_range(pl.len(), dtype=pl.Int64).alias("row"),
            pl.concat_list(
                pl.col("player_cards").fill_null([]), pl.col("banker_cards").fill_null([])
            ).alias("card"),
        )
        .explode("card")
        .drop_nulls("card")
        .with_columns(pl.col("card").replace_strict(_CARD_NUMBER, return_dtype=pl.Int64))
    )
    np.add.at(out, (cards["row"].to_numpy(), cards["card"].to_numpy()), 1)
    return out


def _missing_cards(rounds: pl.DataFrame) -> int | None:
    """Round number of the first round without both hands' cards, if any."""
    missing = rounds.filter(pl.col("player_cards").is_null() | pl.col("banker_cards").is_null())
    return int(missing["round"][0]) if missing.height else None


def _burn_counts(meta: ShoeMeta) -> np.ndarray:
    out = np.zeros(52, dtype=np.int64)
    if meta.burn_card is not None:
        out[playing_cards.card_index(meta.burn_card)] += 1
    return out


def _check_seen(full: np.ndarray, seen: np.ndarray, decks: int) -> None:
    over = np.flatnonzero(seen > full)
    if over.size:
        i = int(over[np.argmax(seen[over])])
        code = playing_cards.ALL_CARDS[i]
        raise ShoeCompositionError(Message("msg_too_many", n=int(seen[i]), code=code, decks=decks))


def remaining_counts(rounds: pl.DataFrame, meta: ShoeMeta, after: int | None = None) -> Remaining:
    """The unseen cards before the hand after round ``after`` (default: the last round).

    Burnt cards count as unseen; the face-up first card counts as seen when recorded.
    """
    n = _check_after(rounds, after)
    head = rounds.head(n)
    missing = _missing_cards(head)
    if missing is not None:
        return Remaining(None, n + 1, Message("msg_no_cards_no_odds", n=missing))
    full = full_shoe_counts(meta.decks)
    seen = round_card_counts(head).sum(axis=0) + _burn_counts(meta)
    _check_seen(full, seen, meta.decks)
    left = full - seen
    if left.sum() < MIN_CARDS:
        return Remaining(left, n + 1, Message("msg_shoe_finished", n=int(left.sum())))
    return Remaining(left, n + 1)


def _open_mask(table: TableLike, hands: np.ndarray) -> np.ndarray:
    """hand × bet: whether the bet still takes stakes on that hand (closing rounds)."""
    bets = list(table.bets.values())
    close = np.array([math.inf if b.closes_after is None else float(b.closes_after) for b in bets])
    return hands[:, None] <= close[None, :]


def live_odds(
    rounds: pl.DataFrame, meta: ShoeMeta, table: TableLike, after: int | None = None
) -> pl.DataFrame:
    """Every bet of ``table`` priced for the hand after round ``after``, from unseen cards.

    Columns as `odds.bet_odds` plus ``hand``, ``positive`` (EV above zero) and ``open``
    (the table still takes the bet on that hand). RoundError when cards are missing.
    """
    rem = remaining_counts(rounds, meta, after)
    if not rem.ok:
        raise RoundError(rem.reason)
    frame = odds_frame(table, outcomes(rem.counts))
    is_open = list(_open_mask(table, np.array([rem.hand]))[0])
    ids = list(table.bets)
    for unders in getattr(table, "shortcuts", {}).values():  # open while all its bets are
        is_open.append(all(is_open[ids.index(u)] for u in unders))
    return frame.with_columns(
        pl.lit(rem.hand, dtype=pl.Int32).alias("hand"),
        (pl.col("ev") > POSITIVE_EV).alias("positive"),
        pl.Series("open", is_open, dtype=pl.Boolean),
    )


def hand_compositions(rounds: pl.DataFrame, meta: ShoeMeta, next_hand: bool = True) -> np.ndarray:
    """Unseen counts before every hand: row h-1 is before hand h (plus the next one)."""
    missing = _missing_cards(rounds)
    if missing is not None:
        raise RoundError(Message("msg_no_cards_for_odds", n=missing))
    full = full_shoe_counts(meta.decks)
    per_round = round_card_counts(rounds)
    before = np.vstack([np.zeros((1, 52), dtype=np.int64), np.cumsum(per_round, axis=0)])
    before += _burn_counts(meta)
    _check_seen(full, before[-1], meta.decks)
    out = full - before
    return out if next_hand else out[:-1]


def ev_through_shoe(
    rounds: pl.DataFrame, meta: ShoeMeta, table: TableLike, next_hand: bool = True
) -> pl.DataFrame:
    """Each bet's probability and EV before every hand of the shoe (long format).

    Columns: hand, bet, label, probability, ev, positive, open. ``next_hand`` adds the
    hand after the last round (what a player would bet on now), when cards allow.
    """
    comps = hand_compositions(rounds, meta, next_hand)
    comps = comps[comps.sum(axis=1) >= MIN_CARDS]
    bets, win, _push, coef = table_matrices(table)
    probs = odds_many(comps) if len(comps) else np.zeros((0, len(EVENTS)))
    ev = probs @ coef.T - 1.0
    hands = np.arange(1, len(comps) + 1)
    is_open = _open_mask(table, hands)
    nb = len(bets)
    return pl.DataFrame(
        {
            "hand": np.repeat(hands, nb).astype(np.int32),
            "bet": [b.id for b in bets] * len(comps),
            "label": [b.label for b in bets] * len(comps),
            "probability": (probs @ win.T).ravel(),
            "ev": ev.ravel(),
            "positive": (ev > POSITIVE_EV).ravel(),
            "open": is_open.ravel(),
        }
    )


# --- what each dealt hand did ---------------------------------------------------------


def hand_cells(rounds: pl.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The play cell and the pair cell (EVENTS columns) each round ended in, -1 for a
    round without cards."""
    pc, bc = pl.col("player_cards"), pl.col("banker_cards")

    def state(cards: pl.Expr) -> pl.Expr:
        a, b = (cards.list.get(i, null_on_oob=True).cast(_CARD).to_physical() for i in (0, 1))
        return pair_state_expr(a, b).cast(pl.Int64)

    def count(cards: pl.Expr) -> pl.Expr:
        return cards.list.len().cast(pl.Int64)

    pt, bt = pl.col("player_points").cast(pl.Int64), pl.col("banker_points").cast(pl.Int64)
    idx = rounds.select(
        play=play_index(pt, bt, count(pc), count(bc)),
        pair=N_PLAY + pair_index(state(pc), state(bc)),
    ).fill_null(-1)
    return idx["play"].to_numpy().astype(np.int64), idx["pair"].to_numpy().astype(np.int64)


def hand_net(rounds: pl.DataFrame, coef: np.ndarray) -> np.ndarray:
    """round × bet: what one unit on each bet (rows of ``coef``, the return per cell)
    netted on each round. A round ends in one play cell and one pair cell, so two
    columns are looked up (no rounds × cells matrix); a round without cards loses."""
    play, pair = hand_cells(rounds)
    ok = (play >= 0)[:, None]
    back = coef.T[np.maximum(play, 0)] + coef.T[np.maximum(pair, 0)]
    return np.where(ok, back, 0.0) - 1.0


def _per_shoe(shoe_id: np.ndarray, n_shoes: int, values: np.ndarray) -> np.ndarray:
    """Sums of ``values`` rows per shoe (rows in shoe order), in row order."""
    out = np.zeros((n_shoes, values.shape[1]))
    if len(shoe_id):
        starts = np.flatnonzero(np.r_[True, shoe_id[1:] != shoe_id[:-1]])
        out[shoe_id[starts]] = np.add.reduceat(values, starts, axis=0)
    return out


# --- the study over many simulated shoes ----------------------------------------------


@dataclass(frozen=True)
class StudyResult:
    """How often each bet turned positive, and what betting only then won, per shoe."""

    seed: int
    n_shoes: int
    table: str
    hands: int  # hands dealt over all shoes
    closing: bool  # whether bets respected the table's closing rounds
    summary: pl.DataFrame  # one row per bet, see `odds_study`
    per_shoe: pl.DataFrame  # shoe, bet, bets, net, expected

    def records(self) -> list[dict]:
        return self.summary.to_dicts()


@dataclass(frozen=True)
class StudyPart:
    """Per-shoe totals for a run of consecutive shoes (the study in pieces, for progress)."""

    first_shoe: int  # 0-based index of the first shoe
    hands: int
    positive_hands: np.ndarray  # per bet: hands with a positive EV
    bets: np.ndarray  # shoe × bet: hands bet on
    net: np.ndarray  # shoe × bet: units won betting one unit on each
    expected: np.ndarray  # shoe × bet: sum of the exact EVs of those bets


def study_shoes(
    seed: int,
    shoes: range,
    table: TableLike,
    options: ShoeOptions | None = None,
    closing: bool = True,
) -> StudyPart:
    """Deal shoes ``shoes`` of run ``seed`` and price every hand (see `odds_study`).

    The plain reference: shoes from `deal_shoe`, one composition at a time. The compiled
    path (`roads_app.sim.study`) gives the same part.
    """
    check_seed(seed)
    if options is None:
        options = getattr(table, "shoe", None) or ShoeOptions()
    frames, comps = [], []
    for k in shoes:
        dealt = deal_shoe(seed, options, k)
        comps.append(hand_compositions(dealt.rounds, dealt.meta, next_hand=False))
        frames.append(dealt.rounds.with_columns(pl.lit(k + 1, dtype=pl.Int32).alias("shoe")))
    rounds = pl.concat(frames)
    return study_part(shoes, rounds, odds_many(np.vstack(comps)), table, closing)


def study_part(
    shoes: range, rounds: pl.DataFrame, probs: np.ndarray, table: TableLike, closing: bool
) -> StudyPart:
    """The study's accounting for shoes ``shoes``: every dealt hand (``rounds``, with a
    1-based ``shoe`` column) and its exact event probabilities before it was dealt."""
    _bets, _win, _push, coef = table_matrices(table)
    ev = rows_dot(probs, coef) - 1.0  # split-proof: the same per hand in any batch
    net = hand_net(rounds, coef)
    positive = ev > POSITIVE_EV
    hand_no = rounds["round"].to_numpy().astype(np.float64)
    take = positive & _open_mask(table, hand_no) if closing else positive
    shoe_id = rounds["shoe"].to_numpy().astype(np.int64) - (shoes.start + 1)
    out = (_per_shoe(shoe_id, len(shoes), val) for val in (take * 1.0, net * take, ev * take))
    return StudyPart(shoes.start, rounds.height, positive.sum(axis=0), *out)


def hand_odds(
    rounds: pl.DataFrame, probs: np.ndarray, table: TableLike, closing: bool = True
) -> pl.DataFrame:
    """Per dealt hand and bet (long format): shoe, hand, bet, probability, ev, positive,
    open, taken (positive and, with ``closing``, open), net (one unit on it)."""
    bets, win, _push, coef = table_matrices(table)
    nb = len(bets)
    ev = rows_dot(probs, coef) - 1.0  # as `study_part` prices them
    net = hand_net(rounds, coef)
    positive = ev > POSITIVE_EV
    hand_no = rounds["round"].to_numpy()
    is_open = _open_mask(table, hand_no.astype(np.float64))
    take = positive & is_open if closing else positive
    return pl.DataFrame(
        {
            "shoe": np.repeat(rounds["shoe"].to_numpy(), nb),
            "hand": np.repeat(hand_no, nb),
            "bet": pl.Series([b.id for b in bets], dtype=pl.Enum([b.id for b in bets])).gather(
                np.tile(np.arange(nb), len(hand_no))
            ),
            "probability": rows_dot(probs, win).ravel(),
            "ev": ev.ravel(),
            "positive": positive.ravel(),
            "open": is_open.ravel(),
            "taken": take.ravel(),
            "net": net.ravel(),
        }
    )


def summarize_study(
    parts: list[StudyPart], seed: int, table: TableLike, closing: bool = True
) -> StudyResult:
    """Join study parts (in shoe order) into the per-bet summary and per-shoe frame."""
    bets = list(table.bets.values())
    nb = len(bets)
    parts = sorted(parts, key=lambda p: p.first_shoe)
    hands = sum(p.hands for p in parts)
    positive_hands = sum((p.positive_hands for p in parts), np.zeros(nb))
    shoe_bets, shoe_net, shoe_ev = (
        np.vstack([getattr(p, f) for p in parts]) for f in ("bets", "net", "expected")
    )
    n_shoes = len(shoe_net)
    mean = shoe_net.mean(axis=0)
    sd = shoe_net.std(axis=0, ddof=1) if n_shoes > 1 else np.zeros(nb)
    half = 1.96 * sd / math.sqrt(n_shoes)
    summary = pl.DataFrame(
        {
            "bet": [b.id for b in bets],
            "label": [b.label for b in bets],
            "payout": [float(b.payout) for b in bets],
            "positive_share": positive_hands / max(hands, 1),
            "bets_per_shoe": shoe_bets.mean(axis=0),
            "net_per_shoe": mean,
            "net_ci_low": mean - half,
            "net_ci_high": mean + half,
            "ev_per_shoe": shoe_ev.mean(axis=0),
        }
    )
    first = parts[0].first_shoe if parts else 0
    per_shoe = pl.DataFrame(
        {
            "shoe": np.repeat(np.arange(first + 1, first + n_shoes + 1), nb).astype(np.int32),
            "bet": [b.id for b in bets] * n_shoes,
            "bets": shoe_bets.ravel().astype(np.int32),
            "net": shoe_net.ravel(),
            "expected": shoe_ev.ravel(),
        }
    )
    name = getattr(table, "name", "")
    return StudyResult(seed, n_shoes, name, hands, closing, summary, per_shoe)


def check_study_size(n_shoes: object) -> int:
    """Shoes in a study: a whole number 1 or more."""
    return whole_number(n_shoes, Message("msg_what_shoes"), 1, error=RoundError)


def odds_study(
    seed: int,
    n_shoes: int,
    table: TableLike,
    options: ShoeOptions | None = None,
    progress: Callable[[int, int], None] | None = None,
    chunk: int = 50,
    closing: bool = True,
) -> StudyResult:
    """Deal ``n_shoes`` simulated shoes from ``seed`` and price every hand of each.

    Per bet: ``positive_share`` (of all hands, whatever the closing rounds),
    ``bets_per_shoe`` (hands positive while the bet is open; every positive hand when
    ``closing`` is False), ``net_per_shoe`` with a 95% confidence interval (one unit on each
    of those hands), and ``ev_per_shoe`` (the sum of their exact EVs, which the net should
    agree with). Same seed, same result, whatever the chunk size.
    """
    check_study_size(n_shoes)
    parts = []
    for start in range(0, n_shoes, chunk):
        shoes = range(start, min(start + chunk, n_shoes))
        parts.append(study_shoes(seed, shoes, table, options, closing))
        if progress is not None:
            progress(shoes.stop, n_shoes)
    return summarize_study(parts, seed, table, closing)


def format_study(result: StudyResult) -> str:
    """A plain-text summary of a study for the terminal."""
    lines = [
        f"{result.n_shoes} shoes from seed {result.seed}, table {result.table}, "
        f"{result.hands} hands" + ("" if result.closing else ", closing rounds ignored"),
        f"{'bet':<16} {'pays':>7} {'positive %':>10} {'bets/shoe':>9} "
        f"{'net/shoe (95% CI)':>28} {'EV/shoe':>9}",
    ]
    for r in result.summary.iter_rows(named=True):
        ci = f"{r['net_per_shoe']:+.4f} ({r['net_ci_low']:+.3f}, {r['net_ci_high']:+.3f})"
        lines.append(
            f"{r['label']:<16} {r['payout']:>5.4g}:1 {100 * r['positive_share']:>10.3f} "
            f"{r['bets_per_shoe']:>9.3f} {ci:>28} {r['ev_per_shoe']:>+9.4f}"
        )
    return "\n".join(lines)
