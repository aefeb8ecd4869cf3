"""Betting strategies as small documented objects: *which* bet (a selection) and *how much*.

A `Strategy` is a `Selection` (the same bet every hand, follow the last winner, bet
against a streak, follow a derived road) plus a `Staking` (flat or a progression). Each
part is one frozen dataclass carrying

* for a selection, a code and one integer parameter: the rule each code follows is the
  betting session's (`roads_app.sim.session.select`), compiled into the kernel and run
  as Python by the plain engine and `Selection.choose`;
* for a staking, a `StakingTable` (units by level, next level on a win, on a loss) that
  both engines read: the kernel as arrays, the plain engine through `Staking.units` /
  `Staking.after`.

Adding a progression is one `Staking` class with its table plus its entry in
`STAKINGS`, and no kernel change; adding a named strategy is one entry.

Session model (the one choice every engine follows): **each shoe is one session** that
starts with the full bankroll and the progression at its first level. Stop-loss,
take-profit and ruin stop the betting for the rest of *that* shoe. Shoes are therefore
independent runs, which is what the confidence interval and the risk of ruin need.

Stakes: the progression's units times the base unit, raised to the table minimum and
capped at the table maximum; when the bankroll cannot cover that, the rest of the
bankroll is staked. A bankroll below the table minimum after a hand is ruin. Side bets
are flat, placed every hand while the session runs if the bankroll left after the main
stake covers them, and respect their closing rounds. Pushes and refunds leave a
progression where it is.

>>> s = make_strategy("martingale", bet="banker")
>>> [s.staking.units(level) for level in range(4)]
[1.0, 2.0, 4.0, 8.0]
>>> s.staking.after(2, -1.0), s.staking.after(2, 0.95), s.staking.after(2, 0.0)
(3, 0, 2)
>>> make_strategy("follow-last").selection.choose(History("P", 1))
'player'
>>> make_strategy("against-streak", after=3).selection.choose(History("B", 3, (1, 3)))
'player'
"""

from __future__ import annotations

import functools
import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

import numpy as np

from roads_app.bets.spec import KIND_NAMES
from roads_app.bets.tables import BET_IDS, Table, not_offered_reason
from roads_app.errors import BetError, StrategyError, whole_number
from roads_app.game.hand import Side
from roads_app.messages import Message
from roads_app.roads import good_roads
from roads_app.roads.good_roads import Catalogue
from roads_app.roads.names import DERIVED, Road
from roads_app.sim import session

# The selections' codes, and the rule each follows, are the session's (`session.select`).
SEL_FIXED, SEL_FOLLOW_LAST, SEL_AGAINST_STREAK, SEL_ROAD, SEL_GOOD_ROAD = (
    session.SEL_FIXED,
    session.SEL_FOLLOW_LAST,
    session.SEL_AGAINST_STREAK,
    session.SEL_ROAD,
    session.SEL_GOOD_ROAD,
)

ROADS: Mapping[str, int] = DERIVED
"""Derived roads a road-following strategy can read, with their k (docs/roads.md)."""


@dataclass(frozen=True, slots=True)
class History:
    """What a selection may look at before a hand: the big road so far, nothing ahead.

    ``side`` is the latest Banker/Player result (a `Side`; None before the first),
    ``streak`` the length of its current big-road column (ties ignored), ``columns`` the
    heights of the big road's logical columns as they stand (the derived roads and the
    good roads are read from them).
    """

    side: Side | None
    streak: int
    columns: tuple[int, ...] = ()


# --- selections: which bet ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selection:
    """Which bet to make on a hand, from the road so far (None: sit this hand out)."""

    code: ClassVar[int]

    @property
    def param(self) -> int:
        return 0

    @property
    def detail(self) -> str:
        """Its settings in words, for labels."""
        return ""

    def bets(self) -> tuple[str, ...]:
        """Every bet this selection can make (the per-bet report slots)."""
        return (Side.BANKER.word, Side.PLAYER.word)

    def patterns(self) -> tuple:
        """The good-road catalogue's arrays the selection reads (none but for good roads)."""
        return ()

    def choose(self, history: History) -> str | None:
        """The bet it makes after ``history``, by the session's rule (`session.select`)."""
        cols = history.columns or ((history.streak,) if history.side else ())
        lengths = np.zeros(len(cols) + 1, dtype=np.int64)
        lengths[: len(cols)] = cols
        side = Side(history.side).code if history.side else -1
        plan = session.selection_plan(self.code, self.param)
        bet = session.select.py_func(plan, self.patterns(), lengths, len(cols), side, 1)
        return None if bet < 0 else KIND_NAMES[bet]


@dataclass(frozen=True, slots=True)
class FixedBet(Selection):
    """The same bet every hand (any bet the table offers)."""

    bet: str = "banker"
    code: ClassVar[int] = SEL_FIXED

    @property
    def param(self) -> int:
        return BET_IDS.index(self.bet)

    @property
    def detail(self) -> str:
        return f" on {self.bet}"

    def bets(self) -> tuple[str, ...]:
        return (self.bet,)


@dataclass(frozen=True, slots=True)
class FollowLast(Selection):
    """Bet on the side that won the last (non-tie) hand; no bet before the first result."""

    code: ClassVar[int] = SEL_FOLLOW_LAST


@dataclass(frozen=True, slots=True)
class AgainstStreak(Selection):
    """Once a side has won a run of hands in a row (the ``after`` setting, 3 by default;
    ties ignored), bet the other side.

    It keeps betting against the streak while it lasts; no bet otherwise.
    """

    after: int = 3
    code: ClassVar[int] = SEL_AGAINST_STREAK

    def __post_init__(self) -> None:
        what = Message("msg_what_after_hands", flag="--after")
        whole_number(self.after, what, 1, error=StrategyError)

    @property
    def param(self) -> int:
        return self.after

    @property
    def detail(self) -> str:
        return f" after {self.after}"


@dataclass(frozen=True, slots=True)
class FollowRoad(Selection):
    """Bet the side whose ask road is red on one derived road (red = the road repeats).

    A next Banker and a next Player always ask opposite colours, so exactly one side is
    red once the road has marks; before that, no bet.
    """

    road: str = Road.BIG_EYE_BOY
    code: ClassVar[int] = SEL_ROAD

    def __post_init__(self) -> None:
        if self.road not in ROADS:
            raise StrategyError(
                Message("msg_unknown_road", road=repr(self.road), roads=", ".join(ROADS))
            )

    @property
    def param(self) -> int:
        return ROADS[self.road]

    @property
    def detail(self) -> str:
        return f" ({self.road.replace('_', ' ')})"


@dataclass(frozen=True, slots=True)
class FollowGoodRoad(Selection):
    """Bet what a good road invites while it holds (one pattern, or any: the headline).

    Continue bets the current column's side, switch the other; no bet while the pattern
    (or, for ``any``, every pattern of the catalogue) does not hold.
    """

    pattern: str = "any"
    catalogue: Catalogue | None = None
    code: ClassVar[int] = SEL_GOOD_ROAD

    def __post_init__(self) -> None:
        if self.catalogue is None:
            object.__setattr__(self, "catalogue", good_roads.load_catalogue())
        if self.pattern != "any":
            self.cat.pattern(self.pattern)  # RulesError naming the known keys
        elif not self.cat.keys:
            raise StrategyError(Message("msg_every_good_road_off", where=self.cat.where))

    @property
    def cat(self) -> Catalogue:
        assert self.catalogue is not None
        return self.catalogue

    @property
    def param(self) -> int:
        return -1 if self.pattern == "any" else self.cat.keys.index(self.pattern)

    @property
    def detail(self) -> str:
        return f" ({self.pattern.replace('_', ' ')})"

    def patterns(self) -> tuple:
        return self.cat.arrays().as_tuple()


# --- stakings: how much ---------------------------------------------------------------


MAX_LEVELS = 128
"""Levels a staking table holds: a shoe has at most `MOST_ROUNDS` hands (104: 8 decks,
four cards a hand) and each shoe starts at level 0, so a progression never climbs past
its table."""


@dataclass(frozen=True, slots=True)
class StakingTable:
    """A staking as data: units by level, and the next level after a win or a loss.

    A push or refund keeps the level. Both engines read this and nothing else: the plain
    engine through `Staking.units` / `Staking.after`, the kernel as three arrays.
    """

    units: tuple[float, ...]
    on_win: tuple[int, ...]
    on_loss: tuple[int, ...]

    def __post_init__(self) -> None:
        n = len(self.units)
        if not n or len(self.on_win) != n or len(self.on_loss) != n:
            raise StrategyError(
                Message("msg_staking_levels", units="units", on_win="on_win", on_loss="on_loss")
            )
        if any(not 0 <= x < n for x in (*self.on_win, *self.on_loss)):
            raise StrategyError(Message("msg_staking_next_levels"))


def _table(
    units: Callable[[int], float],
    win: Callable[[int], int],
    loss: Callable[[int], int],
    levels: int = MAX_LEVELS,
) -> StakingTable:
    """Tabulate a progression over its levels (a next level past the end stays at the end)."""
    top = levels - 1
    return StakingTable(
        units=tuple(float(units(i)) for i in range(levels)),
        on_win=tuple(min(win(i), top) for i in range(levels)),
        on_loss=tuple(min(loss(i), top) for i in range(levels)),
    )


@dataclass(frozen=True, slots=True)
class Staking:
    """Units to stake at a progression level, and the level after a result.

    Each staking is a `StakingTable` (`table`); ``result`` is the main bet's net per
    unit: > 0 a win, < 0 a loss, 0 a push/refund (which leaves the level where it is).
    """

    name: ClassVar[str]

    @property
    def param(self) -> int:
        return 0

    @property
    def table(self) -> StakingTable:
        raise NotImplementedError

    def units(self, level: int) -> float:
        return self.table.units[level]

    def after(self, level: int, result: float) -> int:
        t = self.table
        return session.next_level.py_func(t.on_win, t.on_loss, level, result)


@dataclass(frozen=True, slots=True)
class Flat(Staking):
    """One unit every hand."""

    name: ClassVar[str] = "flat"

    @property
    def table(self) -> StakingTable:
        return _FLAT


_FLAT = StakingTable((1.0,), (0,), (0,))


@dataclass(frozen=True, slots=True)
class Martingale(Staking):
    """Double after a loss, back to one unit after a win (capped by the table maximum)."""

    name: ClassVar[str] = "martingale"

    @property
    def table(self) -> StakingTable:
        return _MARTINGALE


_MARTINGALE = _table(lambda i: 2.0**i, lambda i: 0, lambda i: i + 1)


MAX_PAROLI_WINS = 30
"""Most wins a Paroli run doubles through: 2^30 units already passes any table's limit."""


@dataclass(frozen=True, slots=True)
class Paroli(Staking):
    """Reverse Martingale: double after a win, back to one unit after a run of wins (the
    ``wins`` setting, 3 by default) or a loss."""

    wins: int = 3
    name: ClassVar[str] = "paroli"

    def __post_init__(self) -> None:
        what = Message("msg_what_wins", flag="--wins")
        whole_number(self.wins, what, 1, MAX_PAROLI_WINS, error=StrategyError)

    @property
    def param(self) -> int:
        return self.wins

    @property
    def table(self) -> StakingTable:
        return _paroli(self.wins)


@functools.cache
def _paroli(wins: int) -> StakingTable:
    return _table(lambda i: 2.0**i, lambda i: 0 if i + 1 >= wins else i + 1, lambda i: 0, wins)


@dataclass(frozen=True, slots=True)
class DAlembert(Staking):
    """One unit more after a loss, one less after a win (never below one unit)."""

    name: ClassVar[str] = "dalembert"

    @property
    def table(self) -> StakingTable:
        return _DALEMBERT


_DALEMBERT = _table(lambda i: 1.0 + i, lambda i: max(i - 1, 0), lambda i: i + 1)


def _fib(i: int) -> float:
    a, b = 1.0, 1.0
    for _ in range(i):
        a, b = b, a + b
    return a


@dataclass(frozen=True, slots=True)
class Fibonacci(Staking):
    """Units walk the Fibonacci sequence 1, 1, 2, 3, 5...: one step on after a loss,
    two steps back after a win."""

    name: ClassVar[str] = "fibonacci"

    @property
    def table(self) -> StakingTable:
        return _FIBONACCI


_FIBONACCI = _table(_fib, lambda i: max(i - 2, 0), lambda i: i + 1)


@dataclass(frozen=True, slots=True)
class OneThreeTwoSix(Staking):
    """1-3-2-6: 1, 3, 2, then 6 units on consecutive wins; a loss or the fourth win resets."""

    name: ClassVar[str] = "1-3-2-6"

    @property
    def table(self) -> StakingTable:
        return _1326


_1326 = StakingTable((1.0, 3.0, 2.0, 6.0), (1, 2, 3, 0), (0, 0, 0, 0))


STAKINGS: Mapping[str, type[Staking]] = MappingProxyType(
    {cls.name: cls for cls in (Flat, Martingale, Paroli, DAlembert, Fibonacci, OneThreeTwoSix)}
)
"""Stakings by name; as strategies they bet ``--bet`` every hand."""

PATTERNS: Mapping[str, type[Selection]] = MappingProxyType(
    {
        "follow-last": FollowLast,
        "against-streak": AgainstStreak,
        "follow-road": FollowRoad,
        "follow-good-road": FollowGoodRoad,
    }
)
"""Pattern selections by name; they pick Banker or Player themselves."""

STRATEGY_NAMES: tuple[str, ...] = (*STAKINGS, *PATTERNS)


def describe(name: str) -> str:
    """A named strategy in a sentence (for help texts and the dashboard): the first
    paragraph of its docstring, whole and as plain text (``wins`` reads as wins).

    >>> describe("fibonacci")[-53:]
    'one step on after a loss, two steps back after a win.'
    """
    cls: type = STAKINGS.get(name) or PATTERNS.get(name) or object
    if cls is object or not cls.__doc__:
        return ""
    first = inspect.cleandoc(cls.__doc__).split("\n\n")[0]
    return re.sub(r"``(.+?)``", r"\1", " ".join(first.split()))


@dataclass(frozen=True, slots=True)
class Strategy:
    """A named selection + staking; everything an engine needs to know about the player."""

    name: str
    selection: Selection
    staking: Staking

    def bets(self) -> tuple[str, ...]:
        return self.selection.bets()

    @property
    def label(self) -> str:
        """``martingale on banker``, ``follow-road (small road), fibonacci staking``."""
        staking = (
            ""
            if self.name in STAKINGS or isinstance(self.staking, Flat)
            else (f", {self.staking.name} staking")
        )
        return f"{self.name}{self.selection.detail}{staking}"


def make_strategy(
    name: str,
    *,
    bet: str | None = None,
    after: int = 3,
    road: str = Road.BIG_EYE_BOY,
    wins: int = 3,
    progression: str = "flat",
    pattern: str = "any",
    catalogue: Catalogue | None = None,
) -> Strategy:
    """A strategy by name with its options; `StrategyError` / `BetError` on bad settings.

    Staking names (flat, martingale, ...) bet ``bet`` (Banker by default) every hand;
    pattern names (follow-last, against-streak, follow-road, follow-good-road) choose
    Banker or Player and stake by ``progression`` (flat by default); follow-good-road
    follows ``pattern`` (a key of ``catalogue``, the one in force by default, or any).
    """
    key = str(name).strip().lower().replace("_", "-")
    road_key = str(road).strip().lower().replace("-", "_").replace(" ", "_")

    def staking(n: str) -> Staking:
        k = str(n).strip().lower().replace("_", "-")
        if k not in STAKINGS:
            raise StrategyError(
                Message("msg_unknown_progression", name=repr(n), known=", ".join(STAKINGS))
            )
        return STAKINGS[k](wins=wins) if STAKINGS[k] is Paroli else STAKINGS[k]()

    if key in STAKINGS:
        b = "banker" if bet is None else str(bet).strip().lower()
        if b not in BET_IDS:
            raise BetError(Message("msg_unknown_bet", bet=repr(bet), known=", ".join(BET_IDS)))
        if progression != "flat":
            raise StrategyError(Message("msg_own_progression", strategy=key, flag="--progression"))
        return Strategy(key, FixedBet(b), staking(key))
    if key in PATTERNS:
        if bet is not None:
            raise StrategyError(Message("msg_strategy_picks_side", strategy=key, flag="--bet"))
        cls = PATTERNS[key]
        sel: Selection = (
            AgainstStreak(after)
            if cls is AgainstStreak
            else FollowRoad(road_key)
            if cls is FollowRoad
            else FollowGoodRoad(str(pattern).strip().lower(), catalogue)
            if cls is FollowGoodRoad
            else cls()
        )
        return Strategy(key, sel, staking(progression))
    raise StrategyError(
        Message("msg_unknown_strategy", name=repr(name), known=", ".join(STRATEGY_NAMES))
    )


# --- settings ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Settings:
    """Money settings of a backtest; ``None`` limits mean the table's own.

    ``side_bets`` are (bet id, units) pairs: a flat side bet of units x ``unit`` each hand.
    ``stop_loss`` / ``take_profit`` are amounts lost / won within a shoe (None: off).
    """

    bankroll: float = 1000.0
    unit: float = 10.0
    min_bet: float | None = None
    max_bet: float | None = None
    stop_loss: float | None = None
    take_profit: float | None = None
    side_bets: tuple[tuple[str, float], ...] = field(default=())


@dataclass(frozen=True, slots=True)
class Resolved:
    """Settings checked against a table: every figure an engine uses, as floats."""

    bankroll: float
    unit: float
    min_bet: float
    max_bet: float
    stop_low: float  # stop once the bankroll is at or below this (-inf: never)
    stop_high: float  # stop once the bankroll is at or above this (inf: never)
    side_bets: tuple[tuple[str, float], ...]  # (bet id, stake)


def _number(value: object, what: Message, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StrategyError(Message("msg_must_be_number", what=what, value=repr(value)))
    x = float(value)
    if not math.isfinite(x):
        raise StrategyError(Message("msg_must_be_finite", what=what, value=repr(value)))
    if positive and x <= 0:
        raise StrategyError(Message("msg_must_be_positive", what=what, value=f"{value:g}"))
    return x


def parse_side_bet(text: str) -> tuple[str, float]:
    """``"player_pair:1"`` -> ("player_pair", 1.0): a side bet of that many units.

    >>> parse_side_bet("tie:0.5")
    ('tie', 0.5)
    """
    bet, sep, units = str(text).partition(":")
    bet = bet.strip().lower()
    if not bet:
        raise BetError(
            Message(
                "msg_side_bet_no_bet",
                text=repr(text),
                a="BET",
                b="BET:UNITS",
                example="player_pair:1",
            )
        )
    if not sep:
        return bet, 1.0
    try:
        u = float(units)
    except ValueError:
        raise BetError(Message("msg_side_bet_units", text=repr(text), units=repr(units))) from None
    return bet, u


def check_bet(table: Table, bet: str, what: Message | None = None) -> None:
    """`BetError` unless ``table`` offers ``bet`` (a plain bet, not a shortcut); ``what``
    names it (by default "bet")."""
    if bet not in table.bets:
        what = Message("msg_what_bet") if what is None else what
        raise BetError(Message("msg_bet_refused", what=what, why=not_offered_reason(table, bet)))


def resolve(settings: Settings, strategy: Strategy, table: Table) -> Resolved:
    """Check settings against the strategy and the table; one clear error if they clash."""
    lim = table.limits
    bankroll = _number(settings.bankroll, Message("msg_what_bankroll"))
    unit = _number(settings.unit, Message("msg_what_unit"))
    lo, hi = lim.min_bet, lim.max_bet
    if settings.min_bet is not None:
        lo = _number(settings.min_bet, Message("msg_what_table_min"))
    if settings.max_bet is not None:
        hi = _number(settings.max_bet, Message("msg_what_table_max"))
    if lo > hi:
        raise StrategyError(Message("msg_min_above_max", lo=f"{lo:g}", hi=f"{hi:g}"))
    if lo < lim.min_bet or hi > lim.max_bet:
        raise StrategyError(
            Message(
                "msg_limits_outside_table",
                lo=f"{lo:g}",
                hi=f"{hi:g}",
                table=table.title,
                min=f"{lim.min_bet:g}",
                max=f"{lim.max_bet:g}",
            )
        )
    if not lo <= unit <= hi:
        raise StrategyError(
            Message("msg_unit_outside_limits", unit=f"{unit:g}", lo=f"{lo:g}", hi=f"{hi:g}")
        )
    if bankroll < lo:
        raise StrategyError(
            Message("msg_bankroll_below_min", bankroll=f"{bankroll:g}", lo=f"{lo:g}")
        )
    stop_low = -math.inf
    if settings.stop_loss is not None:
        stop_low = bankroll - _number(settings.stop_loss, Message("msg_what_stop_loss"))
    stop_high = math.inf
    if settings.take_profit is not None:
        stop_high = bankroll + _number(settings.take_profit, Message("msg_what_take_profit"))
    for b in strategy.bets():
        check_bet(table, b, Message("msg_what_strategy", name=strategy.name))
    sides = []
    for bet, units in settings.side_bets:
        check_bet(table, bet, Message("msg_what_side_bet"))
        u = _number(units, Message("msg_what_side_units", bet=bet))
        stake = u * unit
        if not lo <= stake <= hi:
            raise BetError(
                Message(
                    "msg_side_stake_outside",
                    bet=bet,
                    units=f"{u:g}",
                    unit=f"{unit:g}",
                    stake=f"{stake:g}",
                    lo=f"{lo:g}",
                    hi=f"{hi:g}",
                )
            )
        sides.append((bet, stake))
    return Resolved(bankroll, unit, lo, hi, stop_low, stop_high, tuple(sides))


def slots(strategy: Strategy, resolved: Resolved) -> tuple[str, ...]:
    """Bets reported separately: the strategy's bets, then side bets not already listed."""
    out = list(strategy.bets())
    for bet, _ in resolved.side_bets:
        if bet not in out:
            out.append(bet)
    return tuple(out)
