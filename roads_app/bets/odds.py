"""Exact odds of the next hand for any shoe composition, and each bet's edge.

A composition is a NumPy array of 52 counts, one per card number
(``rank_index * 4 + suit_index``), so suited pairs can be priced.

Every bet settles on one cell of `roads_app.bets.spec` (a play cell or a pair cell), and
two exact parts give the probability of every cell:

* the play depends only on point values: a Numba kernel enumerates the player's two
  cards, the banker's two cards and the third cards over the ten point values,
  weighting each by the counts left (drawing without replacement), drawing as the
  arrays of `roads_app.game.drawing` say;
* pairs depend only on the first two cards of each hand: closed forms over rank and
  card counts (inclusion-exclusion over the nine pair cells).

Every bet's expected value is then linear in those probabilities,
``ev = coefficients · probabilities - 1``, the coefficients being what one unit returns
on each cell, tabulated from the bet kind's rule; one matrix product prices a whole
table, or thousands of compositions at once.

>>> p = outcome_probabilities(full_shoe_counts(8))
>>> round(p["banker_win"], 9), round(p["player_win"], 9), round(p["tie"], 9)
(0.458597423, 0.446246609, 0.095155968)
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import polars as pl
from numba import njit, prange

from roads_app.bets.spec import (
    KIND_NAMES,
    KINDS,
    LOSE,
    PAIR_CELLS,
    PLAY_CELLS,
    PUSH,
    REFUND,
    PlayCell,
    cell_results,
    resolve_payouts,
    unit_returns,
)
from roads_app.bets.tables import SHORTCUT_LABELS, BetLike, TableLike
from roads_app.errors import BetError, ShoeCompositionError, whole_number
from roads_app.game import MAX_DECKS, drawing, hand, shoe
from roads_app.game import cards as playing_cards
from roads_app.game.drawing import BANKER_DRAWS_AFTER, BANKER_DRAWS_STOOD, PLAYER_DRAWS
from roads_app.game.hand import (
    N_PLAY,
    NO_PAIR,
    RANK_PAIR,
    SUITED,
    Winner,
    hand_total,
    pair_index,
    play_index,
)
from roads_app.game.shoe import POINTS_BY_CARD
from roads_app.jit_cache import depends_on, interpreted
from roads_app.messages import Message

# The kernels below compile in the card points, the drawing tables and the hand's cells.
depends_on(__file__, playing_cards, drawing, hand, shoe)

_BANKER_AFTER = BANKER_DRAWS_AFTER


def _play_name(c: PlayCell) -> str:
    return f"play_p{c.player_points}b{c.banker_points}_{c.player_cards}{c.banker_cards}"


EVENTS: tuple[str, ...] = (
    *(_play_name(c) for c in PLAY_CELLS),
    *(f"pairs_{'NRS'[c.player]}{'NRS'[c.banker]}" for c in PAIR_CELLS),
)
"""The cells a round ends in (`roads_app.bets.spec`): every play cell, then every pair
cell, in the column order of the probability vectors. Each part sums to 1."""

N_EVENTS = len(EVENTS)
_PAIR0 = N_PLAY

MIN_CARDS = 6
"""A hand can take six cards: fewer left and the next hand's odds are not defined."""

_POINT_OF_CARD = POINTS_BY_CARD.astype(np.int64)


# --- compositions --------------------------------------------------------------------


def full_shoe_counts(decks: int = 8) -> np.ndarray:
    """The 52 card counts of a full shoe of ``decks`` decks."""
    decks = whole_number(decks, Message("msg_what_decks"), 1, MAX_DECKS, error=ShoeCompositionError)
    return np.full(52, decks, dtype=np.int64)


def counts_from_cards(codes: Iterable[str]) -> np.ndarray:
    """The 52 card counts of a list of card codes (any accepted spelling)."""
    idx = [playing_cards.card_index(c) for c in playing_cards.parse_cards(codes)]
    return np.bincount(np.asarray(idx, dtype=np.int64), minlength=52).astype(np.int64)


def remove_cards(counts: np.ndarray, codes: Iterable[str], decks: int | None = None) -> np.ndarray:
    """``counts`` less the cards ``codes``; ShoeCompositionError if a card is not there."""
    out = check_counts(counts, min_cards=0) - counts_from_cards(codes)
    if (out < 0).any():
        i = int(np.argmin(out))
        held = int(counts[i])
        seen, code = held - int(out[i]), playing_cards.ALL_CARDS[i]
        raise ShoeCompositionError(
            Message("msg_seen_not_left_in", n=seen, code=code, held=held, decks=decks)
            if decks
            else Message("msg_seen_not_left", n=seen, code=code, held=held)
        )
    return out


def check_counts(counts: Any, min_cards: int = MIN_CARDS) -> np.ndarray:
    """A composition as 52 non-negative int64 counts with enough cards for a hand."""
    arr = np.asarray(counts)
    if arr.shape != (52,):
        raise ShoeCompositionError(Message("msg_composition_shape", shape=str(arr.shape)))
    whole = np.issubdtype(arr.dtype, np.integer) or (
        np.issubdtype(arr.dtype, np.floating) and bool(np.all(np.mod(arr, 1) == 0))
    )
    if not whole:
        raise ShoeCompositionError(Message("msg_composition_whole"))
    arr = arr.astype(np.int64)
    if (arr < 0).any():
        i = int(np.argmin(arr))
        raise ShoeCompositionError(
            Message("msg_negative_count", card=playing_cards.ALL_CARDS[i], n=int(arr[i]))
        )
    if arr.sum() < min_cards:
        raise ShoeCompositionError(
            Message("msg_too_few_for_odds", n=int(arr.sum()), need=MIN_CARDS)
        )
    return arr


def counts_by_rank(counts: np.ndarray) -> dict[str, int]:
    """Cards left per rank letter (A..K), for display."""
    by_rank = np.asarray(counts).reshape(13, 4).sum(axis=1)
    return {r: int(n) for r, n in zip(playing_cards.RANKS, by_rank, strict=True)}


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
def _mixed_term(n: np.ndarray, ranks: np.ndarray, total: float) -> float:
    """P(one given hand is a suited pair and the other a pair of rank)."""
    s2 = 0.0
    for x in ranks:
        s2 += float(x) * (x - 1)
    acc = 0.0
    for i in range(52):
        x = float(n[i])
        if x < 2:
            continue
        m = float(ranks[i // 4])
        acc += x * (x - 1) * (s2 - m * (m - 1) + (m - 2) * (m - 3))
    return acc / (total * (total - 1) * (total - 2) * (total - 3))


_CLASS_DRAWS = np.array(
    [
        2 if PLAYER_DRAWS[pt, bt] else 1 if BANKER_DRAWS_STOOD[bt, pt] else 0
        for pt in range(10)
        for bt in range(10)
    ],
    dtype=np.int64,
)
"""Third cards after two-card totals (player*10 + banker), from the drawing tables:
0 none, 1 only the banker (player stood), 2 the player (then the banker by his card)."""


_PAIR_SLOT = np.cumsum(_CLASS_DRAWS == 2) - 1
"""Where a class whose player draws keeps its second moments (see `_play_into`)."""
_N_SLOTS = int((_CLASS_DRAWS == 2).sum())


@njit(cache=True, inline="always")
def _add_cross(t: np.ndarray, a: int, b: int, w: int) -> None:
    """Add ``w`` times the products r[u]*r[v] that cards of values ``a`` and ``b`` make
    together (``t`` kept for u <= v): the pair counted once, or twice on one value."""
    if a == b:
        t[a, a] += 2 * w
    else:
        t[min(a, b), max(a, b)] += w


@njit(cache=True, inline="always")
def _add_two_cards(t: np.ndarray, a: int, b: int, w: int) -> None:
    """Add ``w`` times the products r[u]*r[v] of two cards' values: each card with
    itself, and the two together."""
    t[a, a] += w
    t[b, b] += w
    _add_cross(t, a, b, w)


@njit(cache=True)
def _play_into(c: np.ndarray, out: np.ndarray) -> None:
    """Probability of every play cell from ``c``, the cards left per point value.

    A round's first four cards fix both two-card totals (a class); the third cards are
    drawn from what those four left, ``c[v] - r[v]`` with ``r`` the four cards' values.
    Summing the four-card weights ``w`` per class as moments (``Σw``, ``Σw·r[v]`` and
    ``Σw·r[u]·r[v]``, kept for u <= v) makes every third-card term a few products of
    them, so the third cards are enumerated once per class instead of once per four
    cards. Terms of the player's two cards alone are added once per player pair. The
    sums are exact integers; each cell is divided by the sequence count once.
    """
    s0 = np.zeros(100, dtype=np.int64)
    s1 = np.zeros((100, 10), dtype=np.int64)
    s2 = np.zeros((_N_SLOTS, 10, 10), dtype=np.int64)
    by_banker = np.zeros(10, dtype=np.int64)
    for i in range(10):
        for j in range(i, 10):
            wp = c[i] * (c[j] - (1 if i == j else 0))
            if wp <= 0:
                continue
            if i != j:
                wp *= 2
            c[i] -= 1
            c[j] -= 1
            pt = hand_total(i + j)
            by_banker[:] = 0
            for k in range(10):
                for m in range(k, 10):
                    wb = c[k] * (c[m] - (1 if k == m else 0))
                    if wb <= 0:
                        continue
                    if k != m:
                        wb *= 2
                    bt = hand_total(k + m)
                    by_banker[bt] += wb
                    cls = pt * 10 + bt
                    draws = _CLASS_DRAWS[cls]
                    if draws == 0:
                        continue
                    w = wp * wb
                    s1[cls, k] += w
                    s1[cls, m] += w
                    if draws == 2:
                        t = s2[_PAIR_SLOT[cls]]
                        _add_two_cards(t, k, m, w)
                        _add_cross(t, i, k, w)
                        _add_cross(t, i, m, w)
                        _add_cross(t, j, k, w)
                        _add_cross(t, j, m, w)
            for bt in range(10):
                if by_banker[bt] == 0:
                    continue
                cls = pt * 10 + bt
                w = wp * by_banker[bt]
                s0[cls] += w
                draws = _CLASS_DRAWS[cls]
                if draws == 0:
                    continue
                s1[cls, i] += w
                s1[cls, j] += w
                if draws == 2:
                    _add_two_cards(s2[_PAIR_SLOT[cls]], i, j, w)
            c[i] += 1
            c[j] += 1

    total = float(c.sum())
    inv4 = 1.0 / (total * (total - 1) * (total - 2) * (total - 3))
    inv5 = inv4 / (total - 4)
    inv6 = inv5 / (total - 5)
    for pt in range(10):
        for bt in range(10):
            cls = pt * 10 + bt
            n0 = s0[cls]
            if n0 == 0:
                continue
            draws = _CLASS_DRAWS[cls]
            if draws == 0:
                out[play_index(pt, bt, 2, 2)] += n0 * inv4
            elif draws == 1:
                for b3 in range(10):
                    n = c[b3] * n0 - s1[cls, b3]
                    if n > 0:
                        out[play_index(pt, hand_total(bt + b3), 2, 3)] += n * inv5
            else:
                t = s2[_PAIR_SLOT[cls]]
                for p3 in range(10):
                    n = c[p3] * n0 - s1[cls, p3]
                    if n <= 0:
                        continue
                    pf = hand_total(pt + p3)
                    if not _BANKER_AFTER[bt, p3]:
                        out[play_index(pf, bt, 3, 2)] += n * inv5
                        continue
                    for b3 in range(10):
                        d = c[b3] - (1 if b3 == p3 else 0)
                        n6 = (
                            c[p3] * d * n0
                            - c[p3] * s1[cls, b3]
                            - d * s1[cls, p3]
                            + t[min(p3, b3), max(p3, b3)]
                        )
                        if n6 > 0:
                            out[play_index(pf, hand_total(bt + b3), 3, 3)] += n6 * inv6


@njit(cache=True)
def outcomes_into(counts: np.ndarray, out: np.ndarray) -> None:
    """Probability of every cell in EVENTS for one composition of 52 counts."""
    c = np.zeros(10, dtype=np.int64)
    ranks = np.zeros(13, dtype=np.int64)
    for i in range(52):
        c[_POINT_OF_CARD[i]] += counts[i]
        ranks[i // 4] += counts[i]
    total = float(c.sum())
    for e in range(out.shape[0]):
        out[e] = 0.0
    _play_into(c, out)

    # pairs: closed forms over card and rank counts (first two cards of each hand)
    one_s, both_s = _pair_terms(counts, total)
    one_r, both_r = _pair_terms(ranks, total)
    mixed = _mixed_term(counts, ranks, total)
    s_r = mixed - both_s  # suited pair on one hand, pair of rank (not suited) on the other
    r_n = one_r - one_s - both_r + mixed  # pair of rank (not suited) on one, none on the other
    s_n = one_s - mixed
    out[_PAIR0 + pair_index(NO_PAIR, NO_PAIR)] = 1.0 - 2.0 * one_r + both_r
    out[_PAIR0 + pair_index(NO_PAIR, RANK_PAIR)] = r_n
    out[_PAIR0 + pair_index(NO_PAIR, SUITED)] = s_n
    out[_PAIR0 + pair_index(RANK_PAIR, NO_PAIR)] = r_n
    out[_PAIR0 + pair_index(RANK_PAIR, RANK_PAIR)] = both_r - 2.0 * mixed + both_s
    out[_PAIR0 + pair_index(RANK_PAIR, SUITED)] = s_r
    out[_PAIR0 + pair_index(SUITED, NO_PAIR)] = s_n
    out[_PAIR0 + pair_index(SUITED, RANK_PAIR)] = s_r
    out[_PAIR0 + pair_index(SUITED, SUITED)] = both_s


@njit(cache=True)
def rows_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b.T`` summed in one fixed order per entry, whatever the number of rows.

    BLAS picks its blocking from the matrices' shapes, so the same hand priced in a batch
    of another size can differ in the last bit; the study's results must not depend on
    how its shoes were split (one machine, or shards on a cluster).
    """
    out = np.empty((a.shape[0], b.shape[0]))
    for i in range(a.shape[0]):
        for j in range(b.shape[0]):
            s = 0.0
            for k in range(a.shape[1]):
                s += a[i, k] * b[j, k]
            out[i, j] = s
    return out


PARALLEL_LOCK = threading.Lock()
"""Numba's fallback threading layer (workqueue) aborts on concurrent parallel launches;
the dashboard serves each session from its own thread, so batches take turns."""


@njit(cache=True, parallel=True)
def _outcomes_many(counts: np.ndarray) -> np.ndarray:
    rows = counts.shape[0]
    out = np.empty((rows, N_EVENTS))
    for r in prange(rows):
        outcomes_into(counts[r], out[r])
    return out


def outcomes(counts: Any) -> np.ndarray:
    """Probability vector (in `EVENTS` order) of the next hand from composition ``counts``."""
    arr = check_counts(counts)
    out = np.empty(N_EVENTS)
    outcomes_into(arr, out)
    return out


def odds_many(counts_2d: Any) -> np.ndarray:
    """Probability vectors for many compositions (one row each), on every core."""
    arr = np.asarray(counts_2d)
    if arr.ndim != 2 or arr.shape[1] != 52:
        raise ShoeCompositionError(
            Message("msg_compositions_shape", shape=str(getattr(arr, "shape", None)))
        )
    arr = np.ascontiguousarray(arr, dtype=np.int64)
    if (arr < 0).any():
        raise ShoeCompositionError(Message("msg_composition_negative"))
    short = np.flatnonzero(arr.sum(axis=1) < MIN_CARDS)
    if short.size:
        raise ShoeCompositionError(
            Message("msg_composition_short", i=int(short[0]), need=MIN_CARDS)
        )
    with PARALLEL_LOCK:
        return _outcomes_many(arr)


def outcome_probabilities(counts: Any) -> dict[str, float]:
    """Cell name -> probability for the next hand from ``counts``, plus the summary events
    ``player_win``, ``banker_win`` and ``tie`` (sums over the play cells)."""
    p = outcomes(counts)
    out = dict(zip(EVENTS, p.tolist(), strict=True))
    for name, w in (
        ("player_win", Winner.PLAYER),
        ("banker_win", Winner.BANKER),
        ("tie", Winner.TIE),
    ):
        out[name] = float(sum(p[i] for i, c in enumerate(PLAY_CELLS) if c.winner == w))
    return out


# --- bets ----------------------------------------------------------------------------


PRICED_BETS: tuple[str, ...] = KIND_NAMES
"""Every bet id this module can price: every kind of `roads_app.bets.spec`."""


@functools.cache
def _kind_vectors(name: str) -> tuple[np.ndarray, np.ndarray, int]:
    """(win, push-or-refund indicator, offset in EVENTS) of a kind over its cells."""
    kind = KINDS[name]
    results = cell_results(kind)
    win = np.array([r not in (LOSE, PUSH, REFUND) for r in results], dtype=np.float64)
    back = np.array([r in (PUSH, REFUND) for r in results], dtype=np.float64)
    return win, back, 0 if kind.space == "play" else _PAIR0


def bet_vectors(
    bet_id: str, payouts: Mapping[str, float] | float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(win, push, ev coefficient) vectors over EVENTS; ``ev = coef · p - 1``.

    Generated from the bet's kind (`roads_app.bets.spec`): a win on payout key ``k``
    returns the stake plus ``payouts[k]``, a push or refund returns the stake. A single
    number is the kind's first payout key (other keys default as the kind says).
    """
    kind = KINDS.get(bet_id)
    if kind is None:
        raise BetError(
            Message("msg_no_odds_for_bet", bet=repr(bet_id), priced=", ".join(PRICED_BETS))
        )
    given = {kind.payouts[0]: float(payouts)} if isinstance(payouts, int | float) else payouts
    try:
        full = resolve_payouts(kind, given)
    except KeyError as e:
        raise BetError(
            Message("msg_bet_lacks_payout", bet=repr(bet_id), payout_key=repr(e.args[0]))
        ) from None
    win_k, back_k, at = _kind_vectors(kind.kind)
    ret = unit_returns(kind, full) + 1.0
    win, push, coef = np.zeros(N_EVENTS), np.zeros(N_EVENTS), np.zeros(N_EVENTS)
    n = len(win_k)
    win[at : at + n] = win_k
    push[at : at + n] = back_k
    coef[at : at + n] = ret
    return win, push, coef


def table_matrices(table: TableLike) -> tuple[list[BetLike], np.ndarray, np.ndarray, np.ndarray]:
    """The table's bets and their win, push and ev-coefficient matrices (bet × event).

    Built once per table (tables are frozen and hashable); the arrays are read-only.
    """
    try:
        return _matrices_cached(table)
    except TypeError:  # a table-like object that does not hash
        return _matrices(table)


@functools.lru_cache(maxsize=64)
def _matrices_cached(
    table: TableLike,
) -> tuple[list[BetLike], np.ndarray, np.ndarray, np.ndarray]:
    out = _matrices(table)
    for arr in out[1:]:
        arr.setflags(write=False)
    return out


def _matrices(table: TableLike) -> tuple[list[BetLike], np.ndarray, np.ndarray, np.ndarray]:
    bets = list(table.bets.values())
    vecs = [bet_vectors(b.id, b.payouts) for b in bets]
    if not vecs:
        z = np.zeros((0, N_EVENTS))
        return bets, z, z, z
    win, push, coef = (np.stack(v) for v in zip(*vecs, strict=True))
    return bets, win, push, coef


BET_ODDS_SCHEMA = pl.Schema(
    {
        "bet": pl.String,
        "label": pl.String,
        "payout": pl.Float64,
        "probability": pl.Float64,  # of a win
        "push": pl.Float64,  # of the stake coming back
        "ev": pl.Float64,  # per unit staked
        "house_edge": pl.Float64,  # -ev, as a fraction
        "flag": pl.String,  # why the figure deserves a second look, else null
    }
)


def bet_odds(table: TableLike, counts: Any = None) -> pl.DataFrame:
    """Every bet of ``table`` priced for the next hand from ``counts`` (default: full shoe).

    The full shoe has the table's own number of decks (``table.shoe.decks``, else 8).
    """
    if counts is None:
        shoe = getattr(table, "shoe", None)
        return odds_frame(table, full_shoe_outcomes(int(getattr(shoe, "decks", 8))))
    return odds_frame(table, outcomes(counts))


@functools.cache
def full_shoe_outcomes(decks: int) -> np.ndarray:
    """`outcomes` off the top of a full shoe of ``decks``, by the interpreter: the exact
    edge a backtest's summary reads once, without compiling the kernel on a new install
    (seconds) or loading its code after (a tenth of a second). The same code, so the
    same bits (`tests/test_odds.py`)."""
    out = np.zeros(N_EVENTS)
    interpreted(outcomes_into)(check_counts(full_shoe_counts(decks)), out)
    out.flags.writeable = False  # shared by every caller
    return out


FLAG_EDGE = 0.5
"""A bet whose house edge is above this keeps more than half of every stake: no real
table prices a bet like that on purpose, so odds tables flag it (Winbox's Super Tie 1 at
80:1 is about 67%, against 20-27% for its neighbours: probably a misprint of 180)."""


def odds_frame(table: TableLike, probs: np.ndarray) -> pl.DataFrame:
    """Price ``table``'s bets and shortcuts from one probability vector (see `outcomes`).

    A shortcut (2-Way, 3-Way) stakes the amount on each bet it stands for; its ``ev`` and
    ``house_edge`` are per unit of the total staked (the mean of its bets'), and its
    ``probability`` and ``push`` are null: its bets settle on different cells.
    ``flag`` says why a figure deserves a second look (see `FLAG_EDGE`), else null.
    """
    bets, win, push, coef = table_matrices(table)
    ev = coef @ probs - 1.0
    ids = [b.id for b in bets]
    labels = [b.label for b in bets]
    payouts = [float(b.payout) for b in bets]
    prob, back = list(win @ probs), list(push @ probs)
    evs = list(ev)
    for name, unders in getattr(table, "shortcuts", {}).items():
        rows = [ids.index(u) for u in unders]
        ids.append(name)
        labels.append(SHORTCUT_LABELS.get(name, name))
        payouts.append(max(payouts[i] for i in rows))
        prob.append(None)
        back.append(None)
        evs.append(float(np.mean([ev[i] for i in rows])))
    edges = [-e for e in evs]
    flags = [
        f"house edge {100 * h:.1f}% is over {100 * FLAG_EDGE:.0f}%: check the payout"
        if h > FLAG_EDGE
        else None
        for h in edges
    ]
    return pl.DataFrame(
        {
            "bet": ids,
            "label": labels,
            "payout": payouts,
            "probability": prob,
            "push": back,
            "ev": evs,
            "house_edge": edges,
            "flag": flags,
        },
        schema=BET_ODDS_SCHEMA,
    )


def odds_records(frame: pl.DataFrame) -> list[dict[str, Any]]:
    """The JSON shape of a bet-odds frame: bet, name, probability, house_edge, ev.

    Live odds add ``hand``, ``positive`` and ``open`` (see `roads_app.bets.live_odds`).
    """
    cols = ["bet", pl.col("label").alias("name"), "payout", "probability", "push"]
    extra = [c for c in ("flag", "hand", "positive", "open") if c in frame.columns]
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
        if r.get("flag"):
            note += f"  CHECK: {r['flag']}"
        p = "-" if r["probability"] is None else f"{r['probability']:.9f}"
        back = "-" if r["push"] is None else f"{r['push']:.7f}"
        lines.append(
            f"{r['label']:<16} {r['payout']:>5.4g}:1 {p:>11} "
            f"{back:>10} {r['ev']:>+10.6f} {100 * r['house_edge']:>9.4f}{note}"
        )
    return "\n".join(lines)
