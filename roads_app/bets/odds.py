"""Exact odds of the next hand for any shoe composition, and each bet's edge.

A composition is a NumPy array of 52 counts, one per card number
(``rank_index * 4 + suit_index``), so suited pairs can be priced.

Two exact parts make up the probability of every event bets settle on:

* the play of the hand depends only on point values: a Numba kernel enumerates the
  player's two cards, the banker's two cards and the third cards over the ten point
  values, weighting each by the counts left (drawing without replacement);
* pairs depend only on the first two cards of each hand: closed forms over rank and
  card counts (inclusion-exclusion for "either hand").

Every bet's expected value is then linear in those event probabilities,
``ev = coefficients · probabilities - 1`` (a win returns ``payout + 1``, a push 1),
so one matrix product prices a whole table, or thousands of compositions at once.

>>> p = outcome_probabilities(full_shoe_counts(8))
>>> round(p["banker_win"], 9), round(p["player_win"], 9), round(p["tie"], 9)
(0.458597423, 0.446246609, 0.095155968)
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

import numpy as np
import polars as pl
from numba import njit, prange

from roads_app.errors import BetError, ShoeCompositionError
from roads_app.game import cards as C
from roads_app.game.drawing import BANKER_DRAWS_ON

EVENTS: tuple[str, ...] = (
    "player_win",
    "banker_win",
    "tie",
    "banker_win_6",  # banker wins with a total of 6 (two or three cards)
    *(f"tie_{t}" for t in range(10)),  # tie by total
    "cards_4",
    "cards_5",
    "cards_6",
    "player_natural_win",  # player has a two-card 8/9 and wins
    "banker_natural_win",
    "natural_tie",  # both hands natural and equal: natural bets are refunded
    "player_pair",  # first two cards of the hand of equal rank
    "banker_pair",
    "any_pair",  # either hand a pair (rank)
    "perfect_pair",  # either hand a suited pair (identical cards)
    "player_suited_pair",
    "banker_suited_pair",
)
"""Every event a bet settles on, in the column order of the probability vectors."""

EVENT_INDEX: dict[str, int] = {e: i for i, e in enumerate(EVENTS)}
N_EVENTS = len(EVENTS)
_PW, _BW, _TIE, _B6 = 0, 1, 2, 3
_TIE0 = 4
_C4, _C5, _C6 = 14, 15, 16
_PNAT, _BNAT, _NATTIE = 17, 18, 19
_PPAIR, _BPAIR, _ANY, _PERFECT, _PSUIT, _BSUIT = 20, 21, 22, 23, 24, 25
assert N_EVENTS == 26

MIN_CARDS = 6
"""A hand can take six cards: fewer left and the next hand's odds are not defined."""

_POINT_OF_CARD = np.array([C.RANK_POINTS[i // 4] for i in range(52)], dtype=np.int64)

_BANKER_DRAWS = np.zeros((10, 10), dtype=np.bool_)
"""[banker two-card total, player third-card value] -> banker draws (from drawing.py)."""
for _bt, _on in BANKER_DRAWS_ON.items():
    for _v in _on:
        _BANKER_DRAWS[_bt, _v] = True


# --- compositions --------------------------------------------------------------------


def full_shoe_counts(decks: int = 8) -> np.ndarray:
    """The 52 card counts of a full shoe of ``decks`` decks."""
    if isinstance(decks, bool) or not isinstance(decks, int) or not 1 <= decks <= 8:
        raise ShoeCompositionError(f"decks {decks!r} is out of range: a shoe has 1 to 8 decks")
    return np.full(52, decks, dtype=np.int64)


def counts_from_cards(codes: Iterable[str]) -> np.ndarray:
    """The 52 card counts of a list of card codes (any accepted spelling)."""
    idx = [C.card_index(c) for c in C.parse_cards(codes)]
    return np.bincount(np.asarray(idx, dtype=np.int64), minlength=52).astype(np.int64)


def remove_cards(counts: np.ndarray, codes: Iterable[str], decks: int | None = None) -> np.ndarray:
    """``counts`` less the cards ``codes``; ShoeCompositionError if a card is not there."""
    out = check_counts(counts, min_cards=0) - counts_from_cards(codes)
    if (out < 0).any():
        i = int(np.argmin(out))
        held = int(counts[i])
        where = f" ({decks}-deck shoe)" if decks else ""
        raise ShoeCompositionError(
            f"{held - int(out[i])} × {C.ALL_CARDS[i]} seen but only {held} were left{where}"
        )
    return out


def check_counts(counts: Any, min_cards: int = MIN_CARDS) -> np.ndarray:
    """A composition as 52 non-negative int64 counts with enough cards for a hand."""
    arr = np.asarray(counts)
    if arr.shape != (52,):
        raise ShoeCompositionError(
            f"a shoe composition is 52 counts (one per card), not shape {arr.shape}"
        )
    whole = np.issubdtype(arr.dtype, np.integer) or (
        np.issubdtype(arr.dtype, np.floating) and bool(np.all(np.mod(arr, 1) == 0))
    )
    if not whole:
        raise ShoeCompositionError("a shoe composition holds whole numbers of cards")
    arr = arr.astype(np.int64)
    if (arr < 0).any():
        i = int(np.argmin(arr))
        raise ShoeCompositionError(f"{C.ALL_CARDS[i]} has a negative count {int(arr[i])}")
    if arr.sum() < min_cards:
        raise ShoeCompositionError(
            f"only {int(arr.sum())} cards left: a hand may need {MIN_CARDS}, so it has no odds"
        )
    return arr


def counts_by_rank(counts: np.ndarray) -> dict[str, int]:
    """Cards left per rank letter (A..K), for display."""
    by_rank = np.asarray(counts).reshape(13, 4).sum(axis=1)
    return {r: int(n) for r, n in zip(C.RANKS, by_rank, strict=True)}


# --- the kernel ----------------------------------------------------------------------


@njit(cache=True)
def _pair_terms(n: np.ndarray, total: float) -> tuple[float, float]:
    """P(one given hand pairs), P(both hands pair) over groups of counts ``n``."""
    s2 = 0.0
    sq = 0.0
    s4 = 0.0
    for x in n:
        a = float(x) * (x - 1)
        s2 += a
        sq += a * a
        s4 += a * (x - 2) * (x - 3)
    one = s2 / (total * (total - 1))
    both = (s2 * s2 - sq + s4) / (total * (total - 1) * (total - 2) * (total - 3))
    return one, both


@njit(cache=True)
def _outcomes_into(counts: np.ndarray, out: np.ndarray) -> None:
    """Probabilities of every event in EVENTS for one composition of 52 counts."""
    c = np.zeros(10, dtype=np.int64)
    ranks = np.zeros(13, dtype=np.int64)
    for i in range(52):
        c[_POINT_OF_CARD[i]] += counts[i]
        ranks[i // 4] += counts[i]
    total = float(c.sum())
    for e in range(out.shape[0]):
        out[e] = 0.0

    grid = np.zeros((10, 10, 3))  # [player total, banker total, cards dealt - 4]
    nat = np.zeros((10, 10))  # two-card totals of hands ending on a natural
    # Banker's third card is drawn from the counts less the cards already out (four, or
    # five with Player's third): its spread over totals is the full counts' spread, kept
    # as one weight per (player total, banker two-card total, cards) and spread at the
    # end, less one card of each value already out. Exact, and the innermost loop of
    # ten becomes five updates.
    spread = np.zeros((10, 10, 3))
    less = np.zeros((10, 10, 3, 10))  # ... and the weight less at each card value out
    inv4 = 1.0 / (total * (total - 1) * (total - 2) * (total - 3))
    inv5 = 1.0 / (total - 4)
    inv6 = 1.0 / (total - 5)
    for i in range(10):
        for j in range(i, 10):
            wp = c[i] * (c[j] - (1 if i == j else 0))
            if wp <= 0:
                continue
            if i != j:
                wp *= 2
            c[i] -= 1
            c[j] -= 1
            pt = (i + j) % 10
            for k in range(10):
                for m in range(k, 10):
                    wb = c[k] * (c[m] - (1 if k == m else 0))
                    if wb <= 0:
                        continue
                    if k != m:
                        wb *= 2
                    c[k] -= 1
                    c[m] -= 1
                    bt = (k + m) % 10
                    w4 = float(wp * wb) * inv4
                    if pt >= 8 or bt >= 8:
                        grid[pt, bt, 0] += w4
                        nat[pt, bt] += w4
                    elif pt <= 5:
                        for p3 in range(10):
                            if c[p3] == 0:
                                continue
                            w5 = w4 * c[p3] * inv5
                            pf = (pt + p3) % 10
                            if _BANKER_DRAWS[bt, p3]:
                                w6 = w5 * inv6
                                spread[pf, bt, 2] += w6
                                less[pf, bt, 2, i] += w6
                                less[pf, bt, 2, j] += w6
                                less[pf, bt, 2, k] += w6
                                less[pf, bt, 2, m] += w6
                                less[pf, bt, 2, p3] += w6
                            else:
                                grid[pf, bt, 1] += w5
                    elif bt <= 5:
                        w5 = w4 * inv5
                        spread[pt, bt, 1] += w5
                        less[pt, bt, 1, i] += w5
                        less[pt, bt, 1, j] += w5
                        less[pt, bt, 1, k] += w5
                        less[pt, bt, 1, m] += w5
                    else:
                        grid[pt, bt, 0] += w4
                    c[k] += 1
                    c[m] += 1
            c[i] += 1
            c[j] += 1

    for p in range(10):
        for bt in range(10):
            for n in (1, 2):
                w = spread[p, bt, n]
                if w != 0.0:
                    for b3 in range(10):
                        grid[p, (bt + b3) % 10, n] += w * c[b3] - less[p, bt, n, b3]

    for p in range(10):
        for b in range(10):
            for n in range(3):
                w = grid[p, b, n]
                if b > p:
                    out[_BW] += w
                    if b == 6:
                        out[_B6] += w
                elif p > b:
                    out[_PW] += w
                else:
                    out[_TIE] += w
                    out[_TIE0 + p] += w
                out[_C4 + n] += w
            w = nat[p, b]
            if p > b and p >= 8:
                out[_PNAT] += w
            elif b > p and b >= 8:
                out[_BNAT] += w
            elif p == b:
                out[_NATTIE] += w

    one, both = _pair_terms(ranks, total)
    out[_PPAIR] = one
    out[_BPAIR] = one
    out[_ANY] = 2.0 * one - both
    one, both = _pair_terms(counts, total)
    out[_PSUIT] = one
    out[_BSUIT] = one
    out[_PERFECT] = 2.0 * one - both


_PARALLEL_LOCK = threading.Lock()
"""Numba's fallback threading layer (workqueue) aborts on concurrent parallel launches;
the dashboard serves each session from its own thread, so batches take turns."""


@njit(cache=True, parallel=True)
def _outcomes_many(counts: np.ndarray) -> np.ndarray:
    rows = counts.shape[0]
    out = np.empty((rows, N_EVENTS))
    for r in prange(rows):
        _outcomes_into(counts[r], out[r])
    return out


def outcomes(counts: Any) -> np.ndarray:
    """Probability vector (in `EVENTS` order) of the next hand from composition ``counts``."""
    arr = check_counts(counts)
    out = np.empty(N_EVENTS)
    _outcomes_into(arr, out)
    return out


def odds_many(counts_2d: Any) -> np.ndarray:
    """Probability vectors for many compositions (one row each), on every core."""
    arr = np.asarray(counts_2d)
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise ShoeCompositionError(
            f"compositions are rows of 52 counts, not shape {getattr(arr, 'shape', None)}"
        )
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if (arr < 0).any():
        raise ShoeCompositionError("a shoe composition has a negative count")
    short = np.flatnonzero(arr.sum(axis=1) < MIN_CARDS)
    if short.size:
        raise ShoeCompositionError(
            f"composition {int(short[0])} has fewer than {MIN_CARDS} cards: it has no odds"
        )
    with _PARALLEL_LOCK:
        return _outcomes_many(arr)


def outcome_probabilities(counts: Any) -> dict[str, float]:
    """Event name -> probability for the next hand from ``counts``."""
    return dict(zip(EVENTS, outcomes(counts).tolist(), strict=True))


# --- bets ----------------------------------------------------------------------------


class BetLike(Protocol):
    """What pricing needs from `roads_app.bets.tables.Bet` (read-only, as in a frozen dataclass)."""

    @property
    def id(self) -> str: ...
    @property
    def label(self) -> str: ...
    @property
    def payout(self) -> float: ...
    @property
    def six_payout(self) -> float | None: ...
    @property
    def closes_after(self) -> int | None: ...


class TableLike(Protocol):
    """What pricing needs from `roads_app.bets.tables.Table`."""

    @property
    def name(self) -> str: ...
    @property
    def bets(self) -> Mapping[str, BetLike]: ...


_WIN_EVENTS: dict[str, tuple[int, ...]] = {
    "player": (_PW,),
    "banker": (_BW,),
    "tie": (_TIE,),
    "player_pair": (_PPAIR,),
    "banker_pair": (_BPAIR,),
    "big": (_C5, _C6),
    "small": (_C4,),
    "any_pair": (_ANY,),
    "perfect_pair": (_PERFECT,),
    "player_natural": (_PNAT,),
    "banker_natural": (_BNAT,),
    "super_6": (_B6,),
    **{f"super_tie_{t}": (_TIE0 + t,) for t in range(10)},
}
"""Bet id -> the events (disjoint) on which it wins."""

_PUSH_EVENTS: dict[str, tuple[int, ...]] = {
    "player": (_TIE,),
    "banker": (_TIE,),
    "player_natural": (_NATTIE,),
    "banker_natural": (_NATTIE,),
}
"""Bet id -> the events on which the stake comes back."""

PRICED_BETS: tuple[str, ...] = tuple(_WIN_EVENTS)
"""Every bet id this module can price."""


def bet_vectors(
    bet_id: str, payout: float, six_payout: float | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win, push, ev coefficient) vectors over EVENTS; ``ev = coef · p - 1``.

    A win returns the stake plus ``payout``; a push returns the stake; the no-commission
    banker returns ``six_payout`` instead of ``payout`` on a winning 6.
    """
    if bet_id not in _WIN_EVENTS:
        raise BetError(f"no odds for bet {bet_id!r}: priced bets are {', '.join(PRICED_BETS)}")
    win = np.zeros(N_EVENTS)
    push = np.zeros(N_EVENTS)
    win[list(_WIN_EVENTS[bet_id])] = 1.0
    push[list(_PUSH_EVENTS.get(bet_id, ()))] = 1.0
    coef = win * (payout + 1.0) + push
    if bet_id == "banker" and six_payout is not None:
        coef[_B6] += six_payout - payout
    return win, push, coef


def table_matrices(table: TableLike) -> tuple[list[BetLike], np.ndarray, np.ndarray, np.ndarray]:
    """The table's bets and their win, push and ev-coefficient matrices (bet × event)."""
    bets = list(table.bets.values())
    vecs = [bet_vectors(b.id, float(b.payout), _six(b)) for b in bets]
    if not vecs:
        z = np.zeros((0, N_EVENTS))
        return bets, z, z, z
    win, push, coef = (np.stack(v) for v in zip(*vecs, strict=True))
    return bets, win, push, coef


def _six(bet: BetLike) -> float | None:
    six = getattr(bet, "six_payout", None)
    return None if six is None else float(six)


BET_ODDS_SCHEMA = pl.Schema(
    {
        "bet": pl.String,
        "label": pl.String,
        "payout": pl.Float64,
        "probability": pl.Float64,  # of a win
        "push": pl.Float64,  # of the stake coming back
        "ev": pl.Float64,  # per unit staked
        "house_edge": pl.Float64,  # -ev, as a fraction
    }
)


def bet_odds(table: TableLike, counts: Any = None) -> pl.DataFrame:
    """Every bet of ``table`` priced for the next hand from ``counts`` (default: full shoe).

    The full shoe has the table's own number of decks (``table.shoe.decks``, else 8).
    """
    if counts is None:
        shoe = getattr(table, "shoe", None)
        counts = full_shoe_counts(int(getattr(shoe, "decks", 8)))
    return odds_frame(table, outcomes(counts))


def odds_frame(table: TableLike, probs: np.ndarray) -> pl.DataFrame:
    """Price ``table``'s bets from one probability vector (see `outcomes`)."""
    bets, win, push, coef = table_matrices(table)
    ev = coef @ probs - 1.0
    return pl.DataFrame(
        {
            "bet": [b.id for b in bets],
            "label": [b.label for b in bets],
            "payout": [float(b.payout) for b in bets],
            "probability": win @ probs,
            "push": push @ probs,
            "ev": ev,
            "house_edge": -ev,
        },
        schema=BET_ODDS_SCHEMA,
    )


def odds_records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """The JSON shape of a bet-odds frame: bet, name, probability, house_edge, ev.

    Live odds add ``hand``, ``positive`` and ``open`` (see `roads_app.bets.live_odds`).
    """
    cols = ["bet", pl.col("label").alias("name"), "payout", "probability", "push"]
    extra = [c for c in ("hand", "positive", "open") if c in frame.columns]
    return frame.select(*cols, "house_edge", "ev", *extra).to_dicts()


def format_odds(frame: pl.DataFrame) -> str:
    """A plain-text table of bet odds for the terminal (live odds: a note per bet)."""
    lines = [f"{'bet':<16} {'pays':>7} {'P(win)':>11} {'P(push)':>10} {'EV':>10} {'edge %':>9}"]
    for r in frame.iter_rows(named=True):
        note = ""
        if r.get("open") is False:
            note = "  closed"
        elif r.get("positive"):
            note = "  POSITIVE"
        lines.append(
            f"{r['label']:<16} {r['payout']:>5.4g}:1 {r['probability']:>11.9f} "
            f"{r['push']:>10.7f} {r['ev']:>+10.6f} {100 * r['house_edge']:>9.4f}{note}"
        )
    return "\n".join(lines)
