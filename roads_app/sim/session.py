"""One betting session: the steps a strategy takes on each hand of a shoe, written once.

`step` is the session over one hand, the only per-hand rule of the engines: the fast
kernel (`roads_app.sim.kernel`) calls it as it deals each hand, the plain engine
(`roads_app.sim.backtest.play_shoe`) through `play`, over the rounds it dealt or loaded,
each with what one unit on each bet nets there (`Nets`). A `Walk` is what the session
carries from one hand to the next.

Before a hand, which bet the selection makes (`select`), its stake (`stake_for`) and
whether a side bet fits what is left (`side_fits`); after it, the staking level
(`next_level`) and whether the session stops there (`stop_after`). Each is a small
jitable function over plain numbers and the plan's arrays (`Plan`, one record), compiled
into `step`; the strategy objects (`roads_app.sim.strategies.Selection.choose`) call
`select` as Python (``.py_func``), the very same source. Nothing else states these rules.

A session starts each shoe with the whole bankroll at level 0 (`roads_app.sim.strategies`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
from numba import njit

from roads_app.bets import tables
from roads_app.bets.spec import KIND_NAMES
from roads_app.bets.tables import NEVER_CLOSES, closed_after
from roads_app.game import hand
from roads_app.game.hand import W_BANKER, Side
from roads_app.jit_cache import depends_on
from roads_app.roads import derived, good_roads
from roads_app.roads.derived import BLUE, RED

# The session's functions compile in the road rules they read.
depends_on(__file__, hand, tables, derived, good_roads)

SEL_FIXED, SEL_FOLLOW_LAST, SEL_AGAINST_STREAK, SEL_ROAD, SEL_GOOD_ROAD = 0, 1, 2, 3, 4
"""The selections (`roads_app.sim.strategies`' classes carry their code): the same bet,
follow the last winner, against a streak, follow a derived road, follow a good road."""

STOP_NONE, STOP_LOSS, STOP_PROFIT, STOP_RUIN = 0, 1, 2, 3
"""Why a shoe stopped betting early (none, stop-loss, take-profit, too little to bet)."""


class Plan(NamedTuple):
    """A strategy and a table as numbers and arrays: what the session reads, in one
    record (Numba passes it to the kernel as a typed tuple). A good-road selection also
    reads its catalogue's arrays (`good_roads.CatalogueArrays`), passed beside it: a
    tuple inside the record does not cross into the kernel's parallel loop."""

    sel_code: int  # `strategies.SEL_*`
    sel_param: int  # fixed: bet index; against streak: N; road: k; good road: pattern (-1 any)
    stake_units: np.ndarray  # float64[levels]: the staking's units by level
    stake_on_win: np.ndarray  # int64[levels]: next level after a win
    stake_on_loss: np.ndarray  # int64[levels]: next level after a loss
    closes: np.ndarray  # int64[bets]: last round each bet may be placed
    side_bets: np.ndarray  # int64[S]: the side bets, each hand they may be placed
    side_stakes: np.ndarray  # float64[S]
    bankroll: float  # at the start of each shoe
    unit: float  # one staking unit
    min_bet: float  # the table's limits, which clamp a stake
    max_bet: float
    stop_low: float  # stop when the bankroll is at or below this (-inf: no stop-loss)
    stop_high: float  # stop when the bankroll is at or above this (inf: no take-profit)


BANKER, PLAYER = KIND_NAMES.index(Side.BANKER.word), KIND_NAMES.index(Side.PLAYER.word)
_OPEN = np.full(len(KIND_NAMES), NEVER_CLOSES, dtype=np.int64)
_NONE_F, _NONE_I = np.zeros(0), np.zeros(0, dtype=np.int64)


def selection_plan(code: int, param: int) -> Plan:
    """A plan that only selects (every bet open, no stakes): what `select` needs to say
    which bet a selection makes, outside a backtest (`strategies.Selection.choose`)."""
    return Plan(
        sel_code=code,
        sel_param=param,
        stake_units=_NONE_F,
        stake_on_win=_NONE_I,
        stake_on_loss=_NONE_I,
        closes=_OPEN,
        side_bets=_NONE_I,
        side_stakes=_NONE_F,
        bankroll=0.0,
        unit=0.0,
        min_bet=0.0,
        max_bet=0.0,
        stop_low=-np.inf,
        stop_high=np.inf,
    )


@njit(cache=True, inline="always")
def select(
    plan: Plan, patterns: tuple, lengths: np.ndarray, n_streaks: int, side: int, rnd: int
) -> int:
    """The bet (its index) the selection makes on round ``rnd``, from the big road so
    far (``lengths``: its logical columns, ``n_streaks`` of them; ``side``: the current
    column's `W_*` code, -1 before the first result); -1 for none, or when that bet has
    closed (`Plan.closes`). ``patterns``: the good-road catalogue's arrays."""
    code = plan.sel_code
    param = plan.sel_param
    bet = -1
    if code == SEL_FIXED:
        bet = param
    elif code == SEL_FOLLOW_LAST:
        if side >= 0:
            bet = BANKER if side == W_BANKER else PLAYER
    elif code == SEL_AGAINST_STREAK:
        if side >= 0 and lengths[n_streaks - 1] >= param:
            bet = PLAYER if side == W_BANKER else BANKER
    elif code == SEL_ROAD:  # the colour a next Banker would add to derived road k
        colour = derived.next_colour(lengths, n_streaks, n_streaks, side == W_BANKER, param)
        if colour == RED:
            bet = BANKER
        elif colour == BLUE:
            bet = PLAYER
    elif code == SEL_GOOD_ROAD:  # no column yet: no pattern holds
        invited = good_roads.invited_side(lengths, n_streaks, side, patterns, param)
        if invited >= 0:
            bet = BANKER if invited == W_BANKER else PLAYER
    if bet >= 0 and closed_after(rnd, plan.closes[bet]):
        bet = -1
    return bet


@njit(cache=True, inline="always")
def stake_for(plan: Plan, level: int, bankroll: float) -> float:
    """The main bet's stake at a staking level: its units, clamped to the table's
    limits, and never more than the bankroll.

    >>> plan = selection_plan(0, 1)._replace(stake_units=np.array([1.0, 2.0, 40.0]),
    ...                                      unit=10.0, min_bet=25.0, max_bet=300.0)
    >>> [float(stake_for.py_func(plan, level, 1000.0)) for level in range(3)]
    [25.0, 25.0, 300.0]
    >>> float(stake_for.py_func(plan, 2, 120.0))
    120.0
    """
    stake = min(max(plan.stake_units[level] * plan.unit, plan.min_bet), plan.max_bet)
    if stake > bankroll:
        stake = bankroll
    return stake


@njit(cache=True, inline="always")
def side_fits(plan: Plan, i: int, rnd: int, avail: float) -> bool:
    """Whether side bet ``i`` is placed on round ``rnd`` with ``avail`` left after the
    main bet and the side bets before it: open, and paid for in full."""
    return not closed_after(rnd, plan.closes[plan.side_bets[i]]) and plan.side_stakes[i] <= avail


@njit(cache=True, inline="always")
def next_level(on_win: Any, on_loss: Any, level: int, result: float) -> int:
    """The staking level after a main-bet result (net per unit: > 0 a win, < 0 a loss;
    a push or refund keeps the level), from the staking's table (`Plan.stake_on_win`,
    `Plan.stake_on_loss`; `strategies.StakingTable`). A one-level staking (flat) never
    moves, and is not looked up: the lookup sat on every hand's chain in the engine."""
    if len(on_win) == 1:
        return level
    return level if result == 0.0 else (on_win[level] if result > 0.0 else on_loss[level])


@njit(cache=True, inline="always")
def stop_after(plan: Plan, bankroll: float) -> int:
    """Whether the session stops after a hand that left ``bankroll`` (a `STOP_*`): below
    the table minimum it is ruin, before the stop-loss is asked.

    >>> plan = selection_plan(0, 1)._replace(min_bet=25.0, stop_low=500.0, stop_high=2000.0)
    >>> [stop_after.py_func(plan, b) for b in (20.0, 500.0, 1000.0, 2000.0)] == [
    ...     STOP_RUIN, STOP_LOSS, STOP_NONE, STOP_PROFIT]
    True
    """
    stop = STOP_NONE
    if bankroll < plan.min_bet:
        stop = STOP_RUIN
    elif bankroll <= plan.stop_low:
        stop = STOP_LOSS
    elif bankroll >= plan.stop_high:
        stop = STOP_PROFIT
    return stop


class Nets(NamedTuple):
    """What one unit on each bet (kernel index, `KIND_NAMES` order) nets on each hand: on
    pair cell ``pairs[h]`` where ``on_pairs`` says so, else on play cell ``plays[h]``
    (`roads_app.game.hand.play_index`, `pair_index`). NaN: that hand lacks what the bet
    settles on (a saved shoe entered by winner only), so the bet is not placed. The plain
    engine gives each round its own play cell and the nets `settlement.settle` found."""

    net_play: np.ndarray  # float64[bets, play cells]
    net_pair: np.ndarray  # float64[bets, pair cells]
    on_pairs: np.ndarray  # bool[bets]
    slot_of: np.ndarray  # int64[bets]: the report slot each bet is counted in (-1: none)


@njit(cache=True, inline="always")
def unit_net(nets: Nets, bet: int, play_cell: int, pair_cell: int) -> float:
    """What one unit on ``bet`` nets on a hand that ended in these cells (NaN: the hand
    lacks what the bet settles on)."""
    return nets.net_pair[bet, pair_cell] if nets.on_pairs[bet] else nets.net_play[bet, play_cell]


class Hands(NamedTuple):
    """A shoe's hands as `play` reads them: hand ``h`` is round ``h + 1``."""

    winners: np.ndarray  # int64: `W_*`
    plays: np.ndarray  # int64: the play cell (a column of `Nets.net_play`)
    pairs: np.ndarray  # int64: the pair cell (a column of `Nets.net_pair`)


class Walk(NamedTuple):
    """The session between two hands: the big road's end, the staking level, the bankroll
    and what the report counts. `step` takes one and gives the next."""

    n_streaks: int  # the big road's logical columns so far
    side: int  # the current column's `W_*` code, -1 before the first result
    level: int  # the staking level
    bankroll: float
    low: float  # the lowest bankroll after any hand
    wagered: float
    stop: int  # `STOP_*`
    stop_hand: int  # the round betting stopped after (0: never)
    bets: int  # main bets placed
    unsettled: int  # bets not placed for want of data


@njit(cache=True, inline="always")
def book(slots: np.ndarray, slot: int, stake: float, net: float) -> None:
    """A settled bet into its report slot's row: wagered, net."""
    slots[slot, 0] += stake
    slots[slot, 1] += net


@njit(cache=True, inline="always")
def begin(plan: Plan, lengths: np.ndarray, slots: np.ndarray) -> Walk:
    """A shoe's session before its first hand: the whole bankroll at level 0, an empty
    road (``lengths``: its logical columns, room for every hand and one more) and
    nothing wagered in any report slot (``slots``: wagered and net, a row a slot)."""
    lengths[:] = 0
    slots[:] = 0.0
    return Walk(0, -1, 0, plan.bankroll, plan.bankroll, 0.0, STOP_NONE, 0, 0, 0)


@njit(cache=True, inline="always")
def step(
    plan: Plan,
    patterns: tuple,
    nets: Nets,
    walk: Walk,
    hand: tuple,
    lengths: np.ndarray,
    slots: np.ndarray,
    path: np.ndarray,
) -> Walk:
    """The session over one ``hand``: (h, its winner's `W_*` code, its play cell, its
    pair cell), round ``h + 1``. The bets for it, decided from the road before it, never
    from its cells; their settlement into ``slots``; the staking level, the stops; then
    the road (``lengths``) with its result, and the bankroll into ``path[h]`` (an empty
    ``path``: none kept). The one per-hand rule of both engines.

    The arrays it writes are its own parameters, each made by the caller before its
    loop, never taken out of a record here: Numba's dead-code pass (0.68) dropped the
    writes made through an array unpacked from a record inside an inlined function (the
    road came out empty in the kernel, full in the plain engine)."""
    h, winner, play_cell, pair_cell = hand
    n_streaks, side, level, bankroll, low, wagered, stop, stop_hand, bets, unsettled = walk
    rnd = h + 1
    if stop == STOP_NONE:
        slot_of = nets.slot_of
        bet = select(plan, patterns, lengths, n_streaks, side, rnd)
        stake = 0.0
        u = 0.0
        if bet >= 0:
            u = unit_net(nets, bet, play_cell, pair_cell)
            if np.isnan(u):
                bet = -1
                unsettled += 1
            else:
                stake = stake_for(plan, level, bankroll)
        avail = bankroll - stake
        if bet >= 0:
            net = u * stake
            bankroll += net
            wagered += stake
            book(slots, slot_of[bet], stake, net)
            bets += 1
            level = next_level(plan.stake_on_win, plan.stake_on_loss, level, u)
        for i in range(plan.side_bets.shape[0]):
            if side_fits(plan, i, rnd, avail):
                sb = plan.side_bets[i]
                us = unit_net(nets, sb, play_cell, pair_cell)
                if np.isnan(us):
                    unsettled += 1
                    continue
                ss = plan.side_stakes[i]
                avail -= ss
                net = us * ss
                bankroll += net
                wagered += ss
                book(slots, slot_of[sb], ss, net)
        if bankroll < low:
            low = bankroll
        stop = stop_after(plan, bankroll)
        if stop != STOP_NONE:
            stop_hand = rnd
    n_streaks, side = good_roads.add_result(lengths, n_streaks, side, winner)
    if h < path.shape[0]:
        path[h] = bankroll
    return Walk(n_streaks, side, level, bankroll, low, wagered, stop, stop_hand, bets, unsettled)


@njit(cache=True, inline="always")
def end(walk: Walk, count: int, path: np.ndarray) -> None:
    """After a shoe of ``count`` hands: its path kept at the last bankroll to the end."""
    for h in range(count, path.shape[0]):
        path[h] = walk.bankroll


@njit(cache=True)
def play(
    plan: Plan,
    patterns: tuple,
    nets: Nets,
    hands: Hands,
    lengths: np.ndarray,
    slots: np.ndarray,
    path: np.ndarray,
) -> Walk:
    """Bet one shoe's ``hands`` as ``plan`` says, from the whole bankroll at level 0 (the
    arrays as `step` writes them): the session over hands already dealt or loaded (the
    plain engine; the kernel steps as it deals)."""
    walk = begin(plan, lengths, slots)
    winners, plays, pairs = hands
    for h in range(winners.shape[0]):
        walk = step(
            plan, patterns, nets, walk, (h, winners[h], plays[h], pairs[h]), lengths, slots, path
        )
    end(walk, winners.shape[0], path)
    return walk
