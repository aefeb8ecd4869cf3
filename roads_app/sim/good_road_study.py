"""What each good road is worth, measured: the study behind ``good-roads --study``.

The shoes are the engine's (`roads_app.sim.bulk`, the compiled dealer: shoe k of seed S
is the backtest's shoe k), the bets are settled from the engine's per-cell net tables
(`roads_app.sim.kernel.make_plan`, generated from the bet spec), and the patterns are
matched by `roads_app.roads.good_roads.holds`, compiled in. One parallel kernel walks
each shoe hand by hand and, for every pattern, counts the rounds after which it holds,
its longest run of rounds, the next result, and one unit flat-bet on what it invites
(continue: the current column's side; switch: the other) each time it holds before a
hand. The first ``priced_shoes`` shoes also have every hand priced exactly from the
cards not yet seen (`roads_app.sim.study`), averaged over the hands that follow a hold.

Shoes are the independent units of every interval (ratio estimator, as the backtest),
and every total is exact (`roads_app.sim.exact`), so a run cut into ranges or Ray tasks
gives the one-piece run's figures to the last bit (`Part.__add__`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, NamedTuple

import numpy as np
from numba import njit, prange

from roads_app.bets.tables import Table
from roads_app.errors import StrategyError
from roads_app.game import hand, shoe
from roads_app.game.hand import W_TIE, WINNERS, Side, play_index, winner_of
from roads_app.game.shoe import (
    ORDER_DTYPE,
    POINTS_BY_CARD,
    check_seed,
    first_hand_at,
    hand_cards,
    hand_start,
)
from roads_app.jit_cache import depends_on
from roads_app.messages import Message
from roads_app.roads import good_roads
from roads_app.roads.good_roads import Catalogue, add_result, holds
from roads_app.sim import bulk, kernel, pcg64
from roads_app.sim.exact import exact_sums, to_fraction, two_product

depends_on(__file__, good_roads, kernel, shoe, hand, pcg64)

Progress = Callable[[int, int], None]

BATCH = 32768
"""Shoes studied per kernel call (their per-pattern tallies are held at once)."""

PRICED_SHOES = 200
"""Shoes priced exactly by default: the exact odds cost thousands of times a dealt hand,
so the averages come from the first shoes (the study of 1M shoes stays within 2x the
flat backtest)."""

RESULTS = WINNERS
_SCALE = 1 << 1074  # an int count as an exact sum (units of 2**-1074)


class Tallies(NamedTuple):
    """What the study kernel counts, per shoe and pattern."""

    held: np.ndarray  # int64 [shoes, P]: rounds after which it holds
    longest: np.ndarray  # int64 [shoes, P]: its longest run of such rounds
    nxt: np.ndarray  # int64 [shoes, P, 3]: next result after a hold
    bets: np.ndarray  # int64 [shoes, P, 2]: bets on banker, on player
    net: np.ndarray  # float64 [shoes, P]
    hands: np.ndarray  # int64 [shoes]: hands dealt


@njit(cache=True, parallel=True, nogil=True)
def _study_kernel(
    starts: np.ndarray,  # [shoes, 2] uint64: each shoe's PCG64 state (the engine's)
    inc: np.ndarray,  # [2] uint64
    deal: np.ndarray,  # int64 [decks, cut, burn, burn between hands]
    net_b: np.ndarray,  # float64 [N_PLAY]: one unit on banker, per play cell
    net_p: np.ndarray,  # float64 [N_PLAY]: one unit on player
    arrays: tuple,
    out: Tallies,
) -> None:
    """Deal each shoe as the backtest engine does (`pcg64.shuffle`, the shoe procedure)
    and follow every pattern hand by hand: no card leaves the loop."""
    c_side, c_len, c_min, p_first, p_count, p_invite = arrays
    held, longest, nxt, bets, net, hands = out
    n_pat = p_first.shape[0]
    decks, cut, burn, burn_between = deal[0], deal[1], deal[2] != 0, deal[3] != 0
    n = decks * 52
    for s in prange(starts.shape[0]):
        order = np.empty(n, dtype=ORDER_DTYPE)
        pcg64.shuffle(starts[s, 0], starts[s, 1], inc[0], inc[1], order)
        lengths = np.zeros(n // 4 + 2, dtype=np.int64)
        run = np.zeros(n_pat, dtype=np.int64)
        bet = np.full(n_pat, -1, dtype=np.int64)  # side each pattern invites for this hand
        t_held = np.zeros(n_pat, dtype=np.int64)  # this shoe's tallies, written once at the end
        t_long = np.zeros(n_pat, dtype=np.int64)
        t_next = np.zeros((n_pat, 3), dtype=np.int64)
        t_bets = np.zeros((n_pat, 2), dtype=np.int64)
        t_net = np.zeros(n_pat)
        betting = False  # some pattern held after the last hand
        n_cols = 0
        side = -1
        cursor = first_hand_at(order, burn)
        h = 0
        last = False
        while not last:
            cursor, last, _ = hand_start(order, cursor, h == 0, cut, burn_between)
            if cursor < 0:
                break
            cursor, _p0, _p1, p2, _b0, _b1, b2, pp, bp = hand_cards(order, cursor)
            w = winner_of(bp, pp)
            h += 1
            if w == W_TIE and not betting:
                continue  # a tie changes no column: nothing holds now that did not before
            # --- settle what the patterns that held before this hand invited
            if betting:
                play = play_index(pp, bp, 2 + (p2 >= 0), 2 + (b2 >= 0))
                nb = net_b[play]
                np_ = net_p[play]
                for p in range(n_pat):
                    if bet[p] >= 0:
                        t_next[p, w] += 1
                        t_bets[p, bet[p]] += 1
                        t_net[p] += nb if bet[p] == 0 else np_
            # --- the road after it, and what holds now
            n_cols, side = add_result(lengths, n_cols, side, w)
            betting = False
            for p in range(n_pat):
                if holds(lengths, n_cols, side, c_side, c_len, c_min, p_first[p], p_count[p]):
                    t_held[p] += 1
                    run[p] += 1
                    if run[p] > t_long[p]:
                        t_long[p] = run[p]
                    bet[p] = side if p_invite[p] == 0 else 1 - side
                    betting = True
                else:
                    run[p] = 0
                    bet[p] = -1
        hands[s] = h
        for p in range(n_pat):
            held[s, p] = t_held[p]
            longest[s, p] = t_long[p]
            net[s, p] = t_net[p]
            for r in range(3):
                nxt[s, p, r] = t_next[p, r]
            bets[s, p, 0] = t_bets[p, 0]
            bets[s, p, 1] = t_bets[p, 1]


@njit(cache=True, nogil=True)
def _priced_sums(
    cards: np.ndarray,  # int8 [hands, 6] of the priced shoes
    offsets: np.ndarray,  # int64 [shoes + 1]
    pts: np.ndarray,  # int64 [52]
    probs: np.ndarray,  # float64 [hands, 3]: exact B/P/T before each hand
    arrays: tuple,
    exact: np.ndarray,  # float64 [shoes, P, 3], filled in
) -> None:
    """Per priced shoe and pattern: the exact B/P/T odds summed over the hands that
    follow a hold (the same holds as `_study_kernel`, from the dealt cards)."""
    c_side, c_len, c_min, p_first, p_count, _ = arrays
    n_pat = p_first.shape[0]
    for s in range(offsets.shape[0] - 1):
        lengths = np.zeros(offsets[s + 1] - offsets[s] + 1, dtype=np.int64)
        on = np.zeros(n_pat, dtype=np.bool_)
        n_cols = 0
        side = -1
        for h in range(offsets[s], offsets[s + 1]):
            for p in range(n_pat):
                if on[p]:
                    for r in range(3):
                        exact[s, p, r] += probs[h, r]
            pp = pts[cards[h, 0]] + pts[cards[h, 1]] + (pts[cards[h, 2]] if cards[h, 2] >= 0 else 0)
            bp = pts[cards[h, 3]] + pts[cards[h, 4]] + (pts[cards[h, 5]] if cards[h, 5] >= 0 else 0)
            pp %= 10
            bp %= 10
            w = winner_of(bp, pp)
            n_cols, side = add_result(lengths, n_cols, side, w)
            for p in range(n_pat):
                on[p] = holds(lengths, n_cols, side, c_side, c_len, c_min, p_first[p], p_count[p])


@dataclass(frozen=True)
class Part:
    """Exact totals of some shoes (any range; parts of a split add up to the whole).

    Ints are counts; ``sums`` are exact sums (ints in units of 2**-1074) per pattern.
    """

    keys: tuple[str, ...]
    shoes: int
    rounds: int
    priced_shoes: int
    held: tuple[int, ...]
    shoes_with: tuple[int, ...]
    longest: tuple[int, ...]
    counts: dict[str, tuple[int, ...]]  # next_B/P/T, bets_banker/player, moments of them
    sums: dict[str, tuple[int, ...]]  # net, net_net, net_wagered, exact_B/P/T

    def __add__(self, other: Part) -> Part:
        if self.keys != other.keys:
            raise ValueError("parts of different catalogues cannot be added")

        def add(a: dict[str, tuple[int, ...]], b: dict[str, tuple[int, ...]]) -> dict:
            return {k: tuple(x + y for x, y in zip(v, b[k], strict=True)) for k, v in a.items()}

        return Part(
            self.keys,
            self.shoes + other.shoes,
            self.rounds + other.rounds,
            self.priced_shoes + other.priced_shoes,
            tuple(a + b for a, b in zip(self.held, other.held, strict=True)),
            tuple(a + b for a, b in zip(self.shoes_with, other.shoes_with, strict=True)),
            tuple(max(a, b) for a, b in zip(self.longest, other.longest, strict=True)),
            add(self.counts, other.counts),
            add(self.sums, other.sums),
        )


@njit(cache=True, nogil=True)
def _to_results(full: np.ndarray, which: np.ndarray) -> np.ndarray:
    """[hands, 3] B/P/T probabilities from the events', each summed in event order."""
    out = np.zeros((full.shape[0], 3))
    for h in range(full.shape[0]):
        for e in range(full.shape[1]):
            r = which[e]
            if r >= 0:
                out[h, r] += full[h, e]
    return out


def _probability_matrix() -> np.ndarray:
    """Per exact-odds event: 0, 1, 2 where it is a Banker, Player, Tie result (-1 not one)."""
    from roads_app.bets.odds import N_EVENTS
    from roads_app.bets.spec import PLAY_CELLS

    which = np.full(N_EVENTS, -1, dtype=np.int64)
    for i, c in enumerate(PLAY_CELLS):
        which[i] = c.winner.code
    return which


def _nets(table: Table) -> tuple[np.ndarray, np.ndarray]:
    """One unit on banker / player, per play cell: the engine's tables from the bet spec."""
    from roads_app.sim.strategies import Resolved, make_strategy

    r = Resolved(1.0, 1.0, 0.0, math.inf, -math.inf, math.inf, ())
    plan = kernel.make_plan(make_strategy("flat", bet="banker"), r, table)
    return plan.net_play[kernel.BANKER].copy(), plan.net_play[kernel.PLAYER].copy()


@njit(cache=True, nogil=True)
def _int_totals(
    held: np.ndarray, longest: np.ndarray, nxt: np.ndarray, bets: np.ndarray
) -> np.ndarray:
    """[INT_COLUMNS, P] int64 totals of the shoes' tallies in one pass (see `INT_COLUMNS`)."""
    n_pat = held.shape[1]
    out = np.zeros((len(INT_COLUMNS), n_pat), dtype=np.int64)
    for s in range(held.shape[0]):
        for p in range(n_pat):
            out[0, p] += held[s, p]
            out[1, p] += held[s, p] > 0
            out[2, p] = max(out[2, p], longest[s, p])
            n = nxt[s, p, 0] + nxt[s, p, 1] + nxt[s, p, 2]
            for r in range(3):
                x = nxt[s, p, r]
                out[3 + r, p] += x
                out[6 + r, p] += x * x
                out[9 + r, p] += x * n
            out[12, p] += n * n
            out[13, p] += bets[s, p, 0]
            out[14, p] += bets[s, p, 1]
    return out


INT_COLUMNS = (
    "held",
    "shoes_with",
    "longest",
    "next_B",
    "next_P",
    "next_T",
    "next_B_sq",
    "next_P_sq",
    "next_T_sq",
    "next_B_n",
    "next_P_n",
    "next_T_n",
    "next_n_sq",
    "bets_banker",
    "bets_player",
)
"""The integer totals of a part, per pattern: counts, and the moments the intervals need."""


def _exact_columns(columns: list[np.ndarray], n_pat: int) -> list[tuple[int, ...]]:
    """Exact sums over the shoes of each [shoes, P] column, per pattern."""
    if not columns or columns[0].shape[0] == 0:
        return [(0,) * n_pat for _ in columns]
    exact = exact_sums(np.concatenate(columns, axis=1))
    return [tuple(exact[i * n_pat : (i + 1) * n_pat]) for i in range(len(columns))]


def _columns_part(keys: tuple[str, ...], priced: int, t: Tallies, ex: np.ndarray) -> Part:
    h, lg, nxt, bets, net = t.held, t.longest, t.nxt, t.bets, t.net
    rounds = int(t.hands.sum())
    n_pat = len(keys)
    ints = _int_totals(h, lg, nxt, bets)
    row = {name: tuple(int(v) for v in ints[i]) for i, name in enumerate(INT_COLUMNS)}
    wag = nxt.sum(axis=2).astype(np.float64)  # holds followed by a hand = unit bets
    nn_hi, nn_lo = two_product(net, net)
    nw_hi, nw_lo = two_product(net, wag)
    money = _exact_columns([net, nn_hi, nn_lo, nw_hi, nw_lo], n_pat)
    odds = _exact_columns([ex[:priced, :, r] for r in range(3)], n_pat)

    def add(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(x + y for x, y in zip(a, b, strict=True))

    sums = {
        "net": money[0],
        "net_net": add(money[1], money[2]),
        "net_wagered": add(money[3], money[4]),
        **{f"exact_{r}": odds[i] for i, r in enumerate(RESULTS)},
    }
    counts = {k: v for k, v in row.items() if k not in ("held", "shoes_with", "longest")}
    return Part(
        keys,
        h.shape[0],
        rounds,
        priced,
        row["held"],
        row["shoes_with"],
        row["longest"],
        counts,
        sums,
    )


def _priced(catalogue: Catalogue, table: Table, seed: int, first: int, count: int) -> np.ndarray:
    """[count, P, 3]: each priced shoe's exact B/P/T odds summed over the hands after a
    hold (the exact-odds kernel of `roads_app.sim.study` on the engine's shoes)."""
    from roads_app.bets.odds import N_EVENTS, PARALLEL_LOCK
    from roads_app.sim.study import _hand_probabilities

    batch = bulk.deal_batch(check_seed(seed), table.shoe, first, count)
    full = np.empty((batch.cards.shape[0], N_EVENTS))
    with PARALLEL_LOCK:
        _hand_probabilities(batch.cards, batch.offsets, batch.burn_card, table.shoe.decks, full)
    probs = _to_results(full, _probability_matrix())  # not BLAS: its sums vary by shape
    out = np.zeros((count, len(catalogue.keys), 3))
    _priced_sums(
        batch.cards, batch.offsets, POINTS_BY_CARD, probs, catalogue.arrays().as_tuple(), out
    )
    return out


def study_range(
    catalogue: Catalogue, table: Table, seed: int, first: int, count: int, priced_shoes: int
) -> Part:
    """Shoes ``first .. first+count-1`` of run ``seed``, in batches; the same `Part`
    whatever the range's cut."""
    arrays = catalogue.arrays().as_tuple()
    keys = catalogue.keys
    net_b, net_p = _nets(table)
    opts = table.shoe
    deal = np.array([opts.decks, opts.cut, opts.burn, opts.burn_between_hands], dtype=np.int64)
    per = opts.cards - 1  # raw draws per shoe
    state, inc = pcg64.pcg_start(check_seed(seed), first * per)
    jump_a, jump_c = (pcg64.halves(x) for x in pcg64.jump(per, inc))
    inc_halves = np.array(pcg64.halves(inc))
    total: Part | None = None
    for start in range(first, first + count, BATCH):
        n = min(BATCH, first + count - start)
        starts = pcg64.shoe_states(*pcg64.halves(state), *jump_a, *jump_c, n + 1)
        state = (int(starts[n, 0]) << 64) | int(starts[n, 1])
        p = len(keys)
        tallies = Tallies(
            held=np.zeros((n, p), dtype=np.int64),
            longest=np.zeros((n, p), dtype=np.int64),
            nxt=np.zeros((n, p, 3), dtype=np.int64),
            bets=np.zeros((n, p, 2), dtype=np.int64),
            net=np.zeros((n, p)),
            hands=np.zeros(n, dtype=np.int64),
        )
        with kernel.KERNEL_LOCK:
            _study_kernel(starts[:n], inc_halves, deal, net_b, net_p, arrays, tallies)
        priced = max(0, min(n, priced_shoes - start))
        ex = np.zeros((n, p, 3))
        if priced:
            ex[:priced] = _priced(catalogue, table, seed, start, priced)
        part = _columns_part(keys, priced, tallies, ex)
        total = part if total is None else total + part
    if total is None:
        raise StrategyError(Message("msg_study_range_empty"))
    return total


# --- the figures ----------------------------------------------------------------------------


def _ratio_ci(
    n: int, x: Any, w: Any, xx: Any, xw: Any, ww: Any, level: float
) -> tuple[float, float] | None:
    """The backtest's ratio estimator (`backtest.ratio_ci_of`) on exact totals."""
    from roads_app.sim.measures import Totals, ratio_ci_of

    t = Totals(
        n,
        0,
        0,
        0,
        (n, 0, 0, 0),
        {
            "wagered": w,
            "net": x,
            "final": 0,
            "net_net": xx,
            "net_wagered": xw,
            "wagered_wagered": ww,
        },
    )
    return ratio_ci_of(t, level)


@dataclass(frozen=True)
class PatternFigures:
    key: str
    share_of_rounds: float
    share_of_shoes: float
    longest_run: int
    next_counts: dict[str, int]
    next_share: dict[str, float | None]
    next_ci: dict[str, tuple[float, float] | None]
    exact_next: dict[str, float | None]
    bets: int
    bets_banker: int
    bets_player: int
    ev: float | None
    ci: tuple[float, float] | None
    edge: float | None  # exact EV per unit of the bets it invited, weighted by count

    def to_dict(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "share_of_rounds": self.share_of_rounds,
            "share_of_shoes": self.share_of_shoes,
            "longest_run": self.longest_run,
            "next": {
                r: {
                    "count": self.next_counts[r],
                    "share": self.next_share[r],
                    "ci": list(c) if (c := self.next_ci[r]) else None,
                    "exact": self.exact_next[r],
                }
                for r in RESULTS
            },
            "bets": self.bets,
            "bets_banker": self.bets_banker,
            "bets_player": self.bets_player,
            "ev": self.ev,
            "ci": list(self.ci) if self.ci else None,
            "exact_ev": self.edge,
        }


def figures(part: Part, table: Table, level: float = 0.95) -> list[PatternFigures]:
    """Per pattern: the shares, the next result, and the EV with its interval at ``level``."""
    from roads_app.sim.measures import exact_evs

    edges = exact_evs(table)
    out = []
    n = part.shoes
    for i, key in enumerate(part.keys):
        c = {k: v[i] for k, v in part.counts.items()}
        s = {k: v[i] for k, v in part.sums.items()}
        bets = c["bets_banker"] + c["bets_player"]
        nn = c["next_n_sq"] * _SCALE
        share, ci, ex = {}, {}, {}
        for r in RESULTS:
            x = c[f"next_{r}"]
            share[r] = x / bets if bets else None
            ci[r] = (
                _ratio_ci(
                    n,
                    x * _SCALE,
                    bets * _SCALE,
                    c[f"next_{r}_sq"] * _SCALE,
                    c[f"next_{r}_n"] * _SCALE,
                    nn,
                    level,
                )
                if bets
                else None
            )
            ex[r] = None
        if part.priced_shoes:
            total_p = sum(to_fraction(s[f"exact_{r}"]) for r in RESULTS)
            if total_p > 0:
                for r in RESULTS:
                    ex[r] = float(to_fraction(s[f"exact_{r}"]) / total_p)
        ev = float(to_fraction(s["net"]) / bets) if bets else None
        ev_ci = (
            _ratio_ci(n, s["net"], bets * _SCALE, s["net_net"], s["net_wagered"], nn, level)
            if bets
            else None
        )
        edge = (
            (c["bets_banker"] * edges["banker"] + c["bets_player"] * edges["player"]) / bets
            if bets
            else None
        )
        out.append(
            PatternFigures(
                key,
                part.held[i] / part.rounds if part.rounds else 0.0,
                part.shoes_with[i] / n if n else 0.0,
                part.longest[i],
                {r: c[f"next_{r}"] for r in RESULTS},
                share,
                ci,
                ex,
                bets,
                c["bets_banker"],
                c["bets_player"],
                ev,
                ev_ci,
                edge,
            )
        )
    return out


class StudyFinding(StrEnum):
    """What flat-betting what a pattern invites came to, against the table's edge."""

    RARE = "rare"  # too few bets (or no edge to compare): nothing to say
    NO_MEMORY = "no_memory"  # the edge lies in the 95% interval: the shoe has no memory
    DIFFERS = "differs"  # the edge lies outside it


def finding(f: PatternFigures) -> StudyFinding:
    """The finding from the pattern's numbers: the engine decides, `render.verdict` says it
    in words (`study_verdict_text`)."""
    if f.ev is None or f.ci is None or f.edge is None:
        return StudyFinding.RARE
    return StudyFinding.NO_MEMORY if f.ci[0] <= f.edge <= f.ci[1] else StudyFinding.DIFFERS


SayPattern = Callable[[PatternFigures], str]
"""Puts a pattern's finding into words (`render.verdict.study_verdict_text`)."""


@dataclass(frozen=True)
class Study:
    catalogue: Catalogue
    table: Table
    seed: int
    part: Part
    patterns: list[PatternFigures]

    def to_dict(self, say: SayPattern) -> dict[str, Any]:
        from roads_app.sim.measures import exact_evs

        edges = exact_evs(self.table)
        return {
            "shoes": self.part.shoes,
            "rounds": self.part.rounds,
            "seed": self.seed,
            "rules": self.table.name,
            "catalogue": self.catalogue.where,
            "priced_shoes": self.part.priced_shoes,
            "edges": {b: edges[b] for b in ("banker", "player")},
            "patterns": [{**f.to_dict(), "verdict": say(f)} for f in self.patterns],
        }

    def text(self, say: SayPattern) -> str:
        p = self.part
        lines = [
            f"{p.shoes:,} shoes ({p.rounds:,} rounds), seed {self.seed}, table "
            f"{self.table.title}, good roads by {self.catalogue.where}; next-result exact "
            f"odds averaged over the first {p.priced_shoes:,} shoes",
            f"{'pattern':<24}{'rounds':>8}{'shoes':>8}{'run':>5}{'next B':>8}{'exact':>8}"
            f"{'next P':>8}{'exact':>8}{'bets':>11}{'EV':>9}  95% interval",
        ]
        for f in self.patterns:

            def pc(x: float | None) -> str:
                return "-" if x is None else f"{x * 100:.2f}%"

            ci = "-" if f.ci is None else f"{f.ci[0] * 100:+.2f}% to {f.ci[1] * 100:+.2f}%"
            lines.append(
                f"{f.key:<24}{pc(f.share_of_rounds):>8}{pc(f.share_of_shoes):>8}"
                f"{f.longest_run:>5}"
                + "".join(f"{pc(f.next_share[s]):>8}{pc(f.exact_next[s]):>8}" for s in Side)
                + f"{f.bets:>11,}"
                f"{'-' if f.ev is None else f'{f.ev * 100:+.2f}%':>9}  {ci}"
            )
        lines.append("")
        lines += [f"{f.key}: {say(f)}" for f in self.patterns]
        return "\n".join(lines)


def _shard(
    first: int, count: int, catalogue: Catalogue, table: Table, seed: int, priced: int
) -> Part:
    return study_range(catalogue, table, seed, first, count, priced)


def study(
    catalogue: Catalogue,
    table: Table,
    *,
    seed: int,
    shoes: int,
    priced_shoes: int | None = None,
    cluster: str | None = None,
    shard_shoes: int = 50_000,
    progress: Progress | None = None,
    level: float = 0.95,
) -> Study:
    """The study of ``shoes`` shoes of run ``seed`` (on a Ray cluster with ``cluster``:
    the same figures to the last bit)."""
    from roads_app.sim import cluster as ray_cluster
    from roads_app.sim.backtest import _check_shoes

    _check_shoes(shoes)
    check_seed(seed)
    if not catalogue.keys:
        raise StrategyError(Message("msg_every_pattern_off", where=catalogue.where))
    priced = min(shoes, PRICED_SHOES if priced_shoes is None else priced_shoes)
    if cluster is not None:
        parts_r = ray_cluster.shards(shoes, shard_shoes)
        ray_cluster.connect(cluster)
        parts: Sequence[Part] = ray_cluster.map_shards(
            _shard, parts_r, (catalogue, table, seed, priced), progress=progress
        )
    else:
        parts = []
        for r in ray_cluster.shards(shoes, BATCH * 4):
            parts.append(study_range(catalogue, table, seed, r.start, len(r), priced))
            if progress is not None:
                progress(r.stop, shoes)
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return Study(catalogue, table, seed, total, figures(total, table, level))
