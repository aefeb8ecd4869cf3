"""The compiled Monte Carlo engine: shuffle, deal, settle and stake whole shoes in Numba.

It deals **exactly** the shoes `roads_app.game.shoe.deal_shoe(seed, options, k)` deals:
the kernel runs NumPy's PCG64 itself (`roads_app.sim.pcg64`), each shoe starting at raw
draw ``k*(n-1)`` of the seed's stream, repeats the documented Fisher-Yates card for
card, then deals hand by hand with `roads_app.game.shoe`'s `hand_start` (burn, cut card)
and `hand_cards` (the drawing tables), the shoe procedure itself, compiled. One kernel
serves every strategy: a selection is a small integer code and parameter, a staking its
table of levels (`roads_app.sim.strategies.StakingTable`), and the bets are read from
per-cell net tables generated from the bet spec (`Plan`), so neither a new bet nor a new
staking means another kernel. Card points, the drawing rules and the burn values are
arrays built from `roads_app.game` (the hand's totals come from `hand_cards` with its
cards; who won and the cells bets settle on from `roads_app.game.hand`); road-following
reads the derived-road colour rule of `roads_app.roads.derived`, compiled.

The kernel deals each shoe hand by hand, and the betting session's step
(`roads_app.sim.session.step`: which bet, what stake, which side bets, the staking level,
the stops, the road) bets each hand as it is dealt; the plain engine in
`roads_app.sim.backtest` runs that same step over the rounds it deals or loads and
settles itself, and must give identical rows. Shoes are independent runs (each starts
with the full bankroll, see `roads_app.sim.strategies`), so the kernel runs them in
parallel with ``prange``, a block of shoes at a time, and writes one row of results per
shoe.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from roads_app.bets.spec import KIND_NAMES, KINDS, unit_returns
from roads_app.bets.tables import NEVER_CLOSES, Table
from roads_app.game import cards, drawing, hand, shoe
from roads_app.game.hand import (
    N_PAIR,
    N_PLAY,
    W_BANKER,
    Side,
    pair_index,
    pair_state,
    play_index,
    winner_of,
)
from roads_app.game.shoe import (
    ORDER_DTYPE,
    ShoeOptions,
    deal_rows,
    first_hand_at,
    hand_cards,
    hand_start,
    most_hands,
)
from roads_app.jit_cache import depends_on, interpreted, is_cached, load_lean, runs_interpreted
from roads_app.roads import derived, good_roads
from roads_app.sim import pcg64, session
from roads_app.sim.pcg64 import halves as _halves
from roads_app.sim.pcg64 import jump as _jump
from roads_app.sim.pcg64 import pcg_start
from roads_app.sim.pcg64 import shoe_states as _shoe_states
from roads_app.sim.pcg64 import shuffle as _shuffle
from roads_app.sim.session import SEL_GOOD_ROAD, STOP_LOSS, STOP_NONE, STOP_PROFIT, STOP_RUIN
from roads_app.sim.strategies import Resolved, Strategy, slots

# The kernels below compile functions and arrays of these modules into their machine code.
depends_on(__file__, cards, drawing, hand, shoe, derived, good_roads, session, pcg64)

ENGINE_BETS: tuple[str, ...] = KIND_NAMES
"""Bet ids in kernel index order: every kind of `roads_app.bets.spec`, in its order."""

BET_INDEX: dict[str, int] = {b: i for i, b in enumerate(ENGINE_BETS)}
N_BETS = len(ENGINE_BETS)
PLAYER, BANKER = BET_INDEX[Side.PLAYER.word], BET_INDEX[Side.BANKER.word]

__all__ = ["STOP_LOSS", "STOP_NONE", "STOP_PROFIT", "STOP_RUIN"]  # the session's, for readers


@dataclass(frozen=True, slots=True)
class Plan:
    """A strategy, its settings and a table, as plain numbers and arrays for the kernel."""

    sel_code: int
    sel_param: int  # fixed: bet index; against streak: N; road: k; good road: pattern (-1 any)
    stake_units: np.ndarray  # float64[levels]: the staking's units by level
    stake_on_win: np.ndarray  # int64[levels]: next level after a win
    stake_on_loss: np.ndarray  # int64[levels]: next level after a loss
    net_play: np.ndarray  # float64[N_BETS, N_PLAY]: net per unit on each play cell
    net_pair: np.ndarray  # float64[N_BETS, N_PAIR]: net per unit on each pair cell
    on_pairs: np.ndarray  # bool[N_BETS]: the bet settles on the pair cell
    closes: np.ndarray  # int64[N_BETS]: last round each bet may be placed
    side_bets: np.ndarray  # int64[S]
    side_stakes: np.ndarray  # float64[S]
    slots: tuple[str, ...]  # bets reported separately: main bet(s) first, then side bets
    bankroll: float
    unit: float
    min_bet: float
    max_bet: float
    stop_low: float  # stop when the bankroll is at or below this (-inf: no stop-loss)
    stop_high: float  # stop when the bankroll is at or above this (inf: no take-profit)
    shoe: ShoeOptions
    patterns: tuple = ()  # follow-good-road: the catalogue's arrays (`CatalogueArrays`)

    @property
    def record(self) -> session.Plan:
        """What the betting session reads (`roads_app.sim.session`), as one record."""
        return session.Plan(  # fixed types: one compiled kernel for every strategy
            sel_code=int(self.sel_code),
            sel_param=int(self.sel_param),
            stake_units=self.stake_units,
            stake_on_win=self.stake_on_win,
            stake_on_loss=self.stake_on_loss,
            closes=self.closes,
            side_bets=self.side_bets,
            side_stakes=self.side_stakes,
            bankroll=float(self.bankroll),
            unit=float(self.unit),
            min_bet=float(self.min_bet),
            max_bet=float(self.max_bet),
            stop_low=float(self.stop_low),
            stop_high=float(self.stop_high),
        )

    @property
    def slot_of(self) -> np.ndarray:
        out = np.full(N_BETS, -1, dtype=np.int64)
        for i, b in enumerate(self.slots):
            out[BET_INDEX[b]] = i
        return out


def make_plan(strategy: Strategy, resolved: Resolved, table: Table) -> Plan:
    """Encode a strategy, its checked settings and a table for the kernel."""
    net_play = np.zeros((N_BETS, N_PLAY))
    net_pair = np.zeros((N_BETS, N_PAIR))
    on_pairs = np.zeros(N_BETS, dtype=np.bool_)
    closes = np.full(N_BETS, NEVER_CLOSES, dtype=np.int64)
    for b, bet in table.bets.items():
        i = BET_INDEX[b]
        kind = KINDS[b]
        on_pairs[i] = kind.space == "pairs"
        (net_pair if on_pairs[i] else net_play)[i] = unit_returns(kind, bet.payouts)
        if bet.closes_after is not None:
            closes[i] = bet.closes_after
    staking = strategy.staking.table
    sel = strategy.selection
    catalogue = getattr(sel, "catalogue", None) if sel.code == SEL_GOOD_ROAD else None
    patterns = (catalogue or _NO_PATTERNS).arrays().as_tuple()
    return Plan(
        sel_code=strategy.selection.code,
        sel_param=strategy.selection.param,
        stake_units=np.array(staking.units, dtype=np.float64),
        stake_on_win=np.array(staking.on_win, dtype=np.int64),
        stake_on_loss=np.array(staking.on_loss, dtype=np.int64),
        net_play=net_play,
        net_pair=net_pair,
        on_pairs=on_pairs,
        closes=closes,
        side_bets=np.array([BET_INDEX[b] for b, _ in resolved.side_bets], dtype=np.int64),
        side_stakes=np.array([s for _, s in resolved.side_bets], dtype=np.float64),
        slots=slots(strategy, resolved),
        bankroll=resolved.bankroll,
        unit=resolved.unit,
        min_bet=resolved.min_bet,
        max_bet=resolved.max_bet,
        stop_low=resolved.stop_low,
        stop_high=resolved.stop_high,
        shoe=table.shoe,
        patterns=patterns,
    )


_NO_PATTERNS = good_roads.Catalogue("none", "none", "none", (), "none")
"""A strategy that reads no good road still hands the kernel (empty) pattern arrays."""


@njit(cache=True)
def ask_banker_before(winners: np.ndarray, k: int) -> np.ndarray:
    """Per round, the colour derived road ``k`` would add if that round were Banker
    (`RED`, `BLUE` or `NO_MARK`), from the rounds before it: the kernel's road logic, for tests.
    """
    n = winners.shape[0]
    out = np.empty(n, dtype=np.int64)
    lengths = np.zeros(n + 1, dtype=np.int64)
    n_streaks = 0
    side = -1
    for h in range(n):
        # a next Banker continues the current column after Banker, else opens the next one
        out[h] = derived.next_colour(lengths, n_streaks, n_streaks, side == W_BANKER, k)
        n_streaks, side = good_roads.add_result(lengths, n_streaks, side, winners[h])
    return out


@njit(cache=True)
def deal_cards_kernel(
    start: np.ndarray, inc: np.ndarray, decks: int, cut: int, burn: bool, burn_between: bool
) -> np.ndarray:
    """Every hand of one shoe as rows (p0, p1, p2, b0, b1, b2), -1 = no card; for tests."""
    n = decks * 52
    order = np.empty(n, dtype=ORDER_DTYPE)
    _shuffle(start[0], start[1], inc[0], inc[1], order)
    most = most_hands(n)
    out = np.empty((most, 6), dtype=np.int64)
    h, _, _ = deal_rows(order, cut, burn, burn_between, out, np.empty(most, dtype=np.int8))
    return out[:h]


class Deal(NamedTuple):
    """The shoe's options as the kernel reads them (`ShoeOptions`)."""

    decks: int
    cut: int
    burn: bool
    burn_between: bool


class Out(NamedTuple):
    """The kernel's results, one row a shoe (paths: the first shoes only)."""

    ints: np.ndarray  # [shoes, 4]: hands, bets, stop code, stop hand
    floats: np.ndarray  # [shoes, 3]: wagered, final bankroll, min bankroll
    slots: np.ndarray  # [shoes, slots, 2]: wagered, net per slot
    paths: np.ndarray  # [n_paths, width]: bankroll after each hand


BLOCK = 256
"""Shoes a thread deals and bets in a row with the same scratch arrays."""

SERIAL_UP_TO = 16_384
"""A run of at most this many shoes deals its blocks one after another on this thread
(`_run_block` from Python), not through the parallel loop (`_run_kernel`): the same
function on the same shoes, the same numbers to the bit. Such a run takes a few
hundredths of a second either way, and a new install compiles the block alone: the
parallel loop around it is 2-3 s of CPU more to compile (a third of the first
`backtest --shoes 1000`), paid only by a run large enough to gain from it."""


PLAIN_UP_TO = 4096
"""A run of at most this many shoes, while the engine's code is not in the cache yet (a
new install, an upgrade, a warm-up still compiling), is dealt by the engine's own
Python source run by the interpreter (`jit_cache.interpreted`: `_run_block` and every
rule it calls, the same functions), with the shuffle drawn by NumPy's own PCG64: the
same numbers to the bit, about a millisecond a shoe against 5-6 s of CPU to compile
first. A larger run compiles (`needs_compile`)."""


class Stream(NamedTuple):
    """Where each shoe's shuffle starts: PCG64 states and the stream's increment."""

    starts: np.ndarray  # [shoes, 2] uint64: each shoe's state (hi, lo)
    inc_hi: np.uint64
    inc_lo: np.uint64


@load_lean
@njit(cache=True, _nrt=False)
def _run_block(
    block: int,
    stream: Stream,
    deal: Deal,
    plan: session.Plan,
    patterns: tuple,  # follow-good-road: the catalogue's arrays
    nets: session.Nets,
    out: Out,
    scratch: tuple,  # (order: int8[cards], lengths: int64[most hands + 1], no path: float64[0])
) -> None:
    """The shoes of block ``block``: shuffle, deal hand by hand with the session betting
    each as it comes, one row of results a shoe.

    Compiled without Numba's reference counting (``_nrt=False``, so it allocates nothing:
    its scratch arrays come from the caller): the session reads its records' arrays on
    every hand, and each read counted a reference in and out, which cost a quarter of
    the speed (14-16 against 19 M hands/s)."""
    _decks, cut, burn, burn_between = deal
    out_int, out_float, out_slot, paths = out
    order, lengths, no_path = scratch
    for s in range(block * BLOCK, min(stream.starts.shape[0], (block + 1) * BLOCK)):
        _shuffle(stream.starts[s, 0], stream.starts[s, 1], stream.inc_hi, stream.inc_lo, order)
        slots = out_slot[s]
        path = paths[s] if s < paths.shape[0] else no_path
        walk = session.begin(plan, lengths, slots)
        cursor = first_hand_at(order, burn)
        h = 0
        last = False
        while not last:
            cursor, last, _ = hand_start(order, cursor, h == 0, cut, burn_between)
            if cursor < 0:
                break  # too few cards left for a hand: the shoe ended before it
            cursor, p0, p1, p2, b0, b1, b2, ppts, bpts = hand_cards(order, cursor)
            hand = (
                h,
                winner_of(bpts, ppts),
                play_index(ppts, bpts, 2 + (p2 >= 0), 2 + (b2 >= 0)),
                pair_index(pair_state(p0, p1), pair_state(b0, b1)),
            )
            walk = session.step(plan, patterns, nets, walk, hand, lengths, slots, path)
            h += 1
        session.end(walk, h, path)
        out_int[s, 0] = h
        out_int[s, 1] = walk.bets
        out_int[s, 2] = walk.stop
        out_int[s, 3] = walk.stop_hand
        out_float[s, 0] = walk.wagered
        out_float[s, 1] = walk.bankroll
        out_float[s, 2] = walk.low


@load_lean
@njit(cache=True, parallel=True)
def _run_kernel(
    stream: Stream,
    deal: Deal,
    plan: session.Plan,
    patterns: tuple,  # follow-good-road: the catalogue's arrays
    nets: session.Nets,
    out: Out,
) -> None:
    n = deal.decks * 52
    for b in prange((stream.starts.shape[0] + BLOCK - 1) // BLOCK):
        scratch = (
            np.empty(n, dtype=ORDER_DTYPE),
            np.empty(most_hands(n) + 1, dtype=np.int64),
            np.empty(0),
        )
        # the loop's index is unsigned once the loop runs in parallel, signed when typed
        # first: one int64 so that the block is compiled once (`tests/test_compile.py`)
        _run_block(np.int64(b), stream, deal, plan, patterns, nets, out, scratch)


def fast_deal(
    seed: int, options: ShoeOptions, index: int = 0
) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """The hands the kernel deals for shoe ``index`` of run ``seed``, as card codes."""
    state, inc = pcg_start(seed, index * (options.cards - 1))
    rows = deal_cards_kernel(
        np.array(_halves(state)),
        np.array(_halves(inc)),
        options.decks,
        options.cut,
        options.burn,
        options.burn_between_hands,
    )
    codes = cards.ALL_CARDS
    return [
        (
            tuple(codes[c] for c in r[:3] if c >= 0),
            tuple(codes[c] for c in r[3:] if c >= 0),
        )
        for r in rows.tolist()
    ]


@dataclass(frozen=True)
class FastResult:
    """Per-shoe results of the kernel, as NumPy columns (one entry a shoe)."""

    hands: np.ndarray  # int64: hands dealt in the shoe
    bets: np.ndarray  # int64: hands with a main bet
    stop: np.ndarray  # int64: STOP_* code
    stop_hand: np.ndarray  # int64: round after which betting stopped (0: never)
    wagered: np.ndarray  # float64
    final: np.ndarray  # float64: bankroll at the end of the shoe
    low: np.ndarray  # float64: lowest bankroll after any hand
    slot_wagered: np.ndarray  # float64[shoes, slots]
    slot_net: np.ndarray  # float64[shoes, slots]
    paths: np.ndarray  # float64[n_paths, width]: bankroll after each hand
    ints: np.ndarray  # int64[shoes, 4]: hands, bets, stop, stop_hand (the fields above are views)
    floats: np.ndarray  # float64[shoes, 3]: wagered, final, low


KERNEL_LOCK = threading.Lock()
"""One parallel kernel at a time: Numba's fallback threading layer (workqueue) aborts on
concurrent launches, and the dashboard serves several sessions from threads."""


def run_fast(
    plan: Plan,
    seed: int,
    n_shoes: int,
    *,
    first_shoe: int = 0,
    n_paths: int = 0,
    chunk: int = 16384,
    progress: Callable[[int, int], None] | None = None,
    parallel: bool | None = None,
    compiled: bool | None = None,
) -> FastResult:
    """Backtest ``plan`` over shoes ``first_shoe .. first_shoe+n_shoes-1`` of run ``seed``.

    Shoes go to the kernel in chunks so that ``progress(done, total)`` can be called
    after each one. Bankroll paths are kept for the first ``n_paths`` shoes (for the fan
    chart). ``parallel``: through the parallel loop (True) or block after block on this
    thread (False); None: the loop for runs of more than `SERIAL_UP_TO` shoes.
    ``compiled``: the compiled engine (True) or its source interpreted (False, on this
    thread); None: interpreted for a run of at most `PLAIN_UP_TO` shoes while the
    compiled code is not in the cache (`runs_compiled`).
    """
    if compiled is None:
        compiled = bool(parallel) or runs_compiled(n_shoes)
    if parallel is None or not compiled:
        parallel = compiled and n_shoes > SERIAL_UP_TO
    opts = plan.shoe
    per = opts.cards - 1  # raw draws per shoe
    state, inc = pcg_start(seed, first_shoe * per)
    inc_hi, inc_lo = (np.uint64(x) for x in _halves(inc))
    jump_a, jump_c = (_halves(x) for x in _jump(per, inc))
    n_slots = len(plan.slots)
    width = most_hands(opts.cards)
    out_int = np.zeros((n_shoes, 4), dtype=np.int64)
    out_float = np.zeros((n_shoes, 3))
    out_slot = np.zeros((n_shoes, n_slots, 2))
    n_paths = min(n_paths, n_shoes)
    paths = np.zeros((n_paths, width))
    deal = Deal(int(opts.decks), int(opts.cut), bool(opts.burn), bool(opts.burn_between_hands))
    record = plan.record
    nets = session.Nets(plan.net_play, plan.net_pair, plan.on_pairs, plan.slot_of)
    done = 0
    while done < n_shoes:
        c = min(chunk, n_shoes - done)
        if compiled:
            starts = _shoe_states(*_halves(state), *jump_a, *jump_c, c + 1)
        else:
            starts = pcg64.shoe_states_plain(seed, first_shoe + done, c + 1, per)
        sl = slice(done, done + c)
        stream = Stream(starts[:c], inc_hi, inc_lo)
        out = Out(
            out_int[sl], out_float[sl], out_slot[sl], paths[done:] if done < n_paths else paths[:0]
        )
        if parallel:
            with KERNEL_LOCK:
                _run_kernel(stream, deal, record, plan.patterns, nets, out)
        else:
            block = _run_block if compiled else _plain_block()
            _run_blocks(block, stream, deal, (record, plan.patterns, nets), out)
        state = (int(starts[c, 0]) << 64) | int(starts[c, 1])
        done += c
        if progress is not None:
            progress(done, n_shoes)
    return FastResult(
        hands=out_int[:, 0],
        bets=out_int[:, 1],
        stop=out_int[:, 2],
        stop_hand=out_int[:, 3],
        wagered=out_float[:, 0],
        final=out_float[:, 1],
        low=out_float[:, 2],
        slot_wagered=out_slot[:, :, 0],
        slot_net=out_slot[:, :, 1],
        paths=paths,
        ints=out_int,
        floats=out_float,
    )


def _run_blocks(
    block: Callable[..., None], stream: Stream, deal: Deal, betting: tuple, out: Out
) -> None:
    """`_run_kernel`'s loop on this thread: its blocks in order (``block``: `_run_block`,
    compiled or interpreted), with the scratch arrays it makes for each (reused here: the
    block overwrites them)."""
    n = deal.decks * 52
    scratch = (
        np.empty(n, dtype=ORDER_DTYPE),
        np.empty(most_hands(n) + 1, dtype=np.int64),
        np.empty(0),
    )
    plan, patterns, nets = betting
    for b in range((stream.starts.shape[0] + BLOCK - 1) // BLOCK):
        block(b, stream, deal, plan, patterns, nets, out, scratch)


@functools.cache
def _plain_block() -> Callable[..., None]:
    """`_run_block` run by the interpreter: its own source and the rules it calls, the
    shuffle drawn by NumPy (`pcg64.shuffle_plain`: the compiled one multiplies with an
    LLVM intrinsic, which the interpreter cannot run)."""
    return interpreted(_run_block, {_shuffle: pcg64.shuffle_plain})


def runs_compiled(n_shoes: int) -> bool:
    """Whether a run of ``n_shoes`` shoes on this thread runs the compiled engine: always
    once its code is compiled or in the cache, and in the warm-up; before that, only a
    run of more than `PLAIN_UP_TO` shoes (which compiles it first, `needs_compile`)."""
    return not runs_interpreted(_run_block, n_shoes <= PLAIN_UP_TO)


def needs_compile(n_shoes: int | None = None) -> bool:
    """Whether the next run (of ``n_shoes`` shoes; None: of any size) compiles the engine
    (several seconds, the first run only).

    True when this process has not compiled it and Numba's on-disk cache holds no
    version for this source and machine (a new install, or an edited kernel), and the
    run is too large for the interpreted engine (`PLAIN_UP_TO`).
    """
    if n_shoes is not None and not runs_compiled(n_shoes):
        return False
    return not is_cached(_run_kernel if n_shoes is None or n_shoes > SERIAL_UP_TO else _run_block)


def set_threads(n: int | None) -> int:
    """Use ``n`` threads for the kernel (None: all cores); returns the number in use."""
    numba.set_num_threads(n or numba.config.NUMBA_NUM_THREADS)
    return numba.get_num_threads()
