"""Betting strategies as small documented objects: *which* bet (a selection) and *how much*.

A `Strategy` is a `Selection` (the same bet every hand, follow the last winner, bet
against a streak, follow a derived road) plus a `Staking` (flat or a progression). Each
part is one frozen dataclass carrying

* a kernel code and one integer parameter, so `roads_app.sim.kernel` runs every strategy
  with one compiled kernel, and
* plain Python methods (`Selection.choose`, `Staking.units` / `Staking.after`) that
  the plain engine in `roads_app.sim.backtest` steps hand by hand.

Adding a progression is one `Staking` class plus its entry in `STAKINGS` (and a branch
in the kernel's ``_units`` / ``_next_level``); adding a named strategy is one entry.

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
>>> make_strategy("follow-last").selection.choose(History("P", 1, {}))
'player'
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar

from roads_app.bets.tables import BET_IDS, Table, not_offered_reason
from roads_app.errors import BetError, StrategyError

# Kernel codes: must match roads_app.sim.kernel (a test checks them).
SEL_FIXED, SEL_FOLLOW_LAST, SEL_AGAINST_STREAK, SEL_ROAD = 0, 1, 2, 3
STAKE_FLAT, STAKE_MARTINGALE, STAKE_PAROLI, STAKE_DALEMBERT, STAKE_FIBONACCI, STAKE_1326 = range(6)

ROADS: Mapping[str, int] = MappingProxyType({"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3})
"""Derived roads a road-following strategy can read, with their k (docs/roads.md)."""

_SIDE_BET = {"B": "banker", "P": "player"}
_OTHER_BET = {"B": "player", "P": "banker"}


@dataclass(frozen=True, slots=True)
class History:
    """What a selection may look at before a hand: the big road so far, nothing ahead.

    ``side`` is the latest Banker/Player result ("B", "P"; None before the first),
    ``streak`` the length of its current big-road column (ties ignored), ``ask`` the
    colour each derived road would add on a next Banker result ("red", "blue", None).
    """

    side: str | None
    streak: int
    ask: Mapping[str, str | None]


# --- selections: which bet ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Selection:
    """Which bet to make on a hand, from the road so far (None: sit this hand out)."""

    code: ClassVar[int]
    needs_road: ClassVar[bool] = False

    @property
    def param(self) -> int:
        return 0

    @property
    def detail(self) -> str:
        """Its settings in words, for labels."""
        return ""

    def bets(self) -> tuple[str, ...]:
        """Every bet this selection can make (the per-bet report slots)."""
        return ("banker", "player")

    def choose(self, history: History) -> str | None:
        raise NotImplementedError


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

    def choose(self, history: History) -> str | None:
        return self.bet


@dataclass(frozen=True, slots=True)
class FollowLast(Selection):
    """Bet on the side that won the last (non-tie) hand; no bet before the first result."""

    code: ClassVar[int] = SEL_FOLLOW_LAST

    def choose(self, history: History) -> str | None:
        return _SIDE_BET[history.side] if history.side else None


@dataclass(frozen=True, slots=True)
class AgainstStreak(Selection):
    """Once a side has won ``after`` hands in a row (ties ignored), bet the other side.

    It keeps betting against the streak while it lasts; no bet otherwise.
    """

    after: int = 3
    code: ClassVar[int] = SEL_AGAINST_STREAK

    def __post_init__(self) -> None:
        if isinstance(self.after, bool) or not isinstance(self.after, int) or self.after < 1:
            raise StrategyError(
                f"--after must be a whole number of hands, 1 or more, not {self.after!r}"
            )

    @property
    def param(self) -> int:
        return self.after

    @property
    def detail(self) -> str:
        return f" after {self.after}"

    def choose(self, history: History) -> str | None:
        if history.side and history.streak >= self.after:
            return _OTHER_BET[history.side]
        return None


@dataclass(frozen=True, slots=True)
class FollowRoad(Selection):
    """Bet the side whose ask road is red on one derived road (red = the road repeats).

    A next Banker and a next Player always ask opposite colours, so exactly one side is
    red once the road has marks; before that, no bet.
    """

    road: str = "big_eye_boy"
    code: ClassVar[int] = SEL_ROAD
    needs_road: ClassVar[bool] = True

    def __post_init__(self) -> None:
        if self.road not in ROADS:
            raise StrategyError(
                f"unknown road {self.road!r}: a road-following strategy reads one of "
                f"{', '.join(ROADS)}"
            )

    @property
    def param(self) -> int:
        return ROADS[self.road]

    @property
    def detail(self) -> str:
        return f" ({self.road.replace('_', ' ')})"

    def choose(self, history: History) -> str | None:
        colour = history.ask.get(self.road)
        if colour is None:
            return None
        return "banker" if colour == "red" else "player"


# --- stakings: how much ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Staking:
    """Units to stake at a progression level, and the level after a result.

    ``result`` is the main bet's net per unit: > 0 a win, < 0 a loss, 0 a push/refund
    (which leaves the level where it is).
    """

    code: ClassVar[int]
    name: ClassVar[str]

    @property
    def param(self) -> int:
        return 0

    def units(self, level: int) -> float:
        raise NotImplementedError

    def after(self, level: int, result: float) -> int:
        raise NotImplementedError


@dataclass(frozen=True, slots=True)
class Flat(Staking):
    """One unit every hand."""

    name: ClassVar[str] = "flat"
    code: ClassVar[int] = STAKE_FLAT

    def units(self, level: int) -> float:
        return 1.0

    def after(self, level: int, result: float) -> int:
        return level


@dataclass(frozen=True, slots=True)
class Martingale(Staking):
    """Double after a loss, back to one unit after a win (capped by the table maximum)."""

    name: ClassVar[str] = "martingale"
    code: ClassVar[int] = STAKE_MARTINGALE

    def units(self, level: int) -> float:
        return 2.0**level

    def after(self, level: int, result: float) -> int:
        if result == 0.0:
            return level
        return 0 if result > 0.0 else level + 1


@dataclass(frozen=True, slots=True)
class Paroli(Staking):
    """Reverse Martingale: double after a win, back to one unit after ``wins`` wins or a loss."""

    wins: int = 3
    name: ClassVar[str] = "paroli"
    code: ClassVar[int] = STAKE_PAROLI

    def __post_init__(self) -> None:
        if (
            isinstance(self.wins, bool)
            or not isinstance(self.wins, int)
            or not 1 <= self.wins <= 30
        ):
            raise StrategyError(f"--wins must be a whole number from 1 to 30, not {self.wins!r}")

    @property
    def param(self) -> int:
        return self.wins

    def units(self, level: int) -> float:
        return 2.0**level

    def after(self, level: int, result: float) -> int:
        if result == 0.0:
            return level
        if result < 0.0:
            return 0
        return 0 if level + 1 >= self.wins else level + 1


@dataclass(frozen=True, slots=True)
class DAlembert(Staking):
    """One unit more after a loss, one less after a win (never below one unit)."""

    name: ClassVar[str] = "dalembert"
    code: ClassVar[int] = STAKE_DALEMBERT

    def units(self, level: int) -> float:
        return 1.0 + level

    def after(self, level: int, result: float) -> int:
        if result == 0.0:
            return level
        return max(level - 1, 0) if result > 0.0 else level + 1


@dataclass(frozen=True, slots=True)
class Fibonacci(Staking):
    """Units walk the Fibonacci sequence 1, 1, 2, 3, 5...: one step on after a loss,
    two steps back after a win."""

    name: ClassVar[str] = "fibonacci"
    code: ClassVar[int] = STAKE_FIBONACCI
    LEVELS: ClassVar[int] = 120

    def units(self, level: int) -> float:
        a, b = 1.0, 1.0
        for _ in range(min(level, self.LEVELS - 1)):
            a, b = b, a + b
        return a

    def after(self, level: int, result: float) -> int:
        if result == 0.0:
            return level
        return max(level - 2, 0) if result > 0.0 else level + 1


@dataclass(frozen=True, slots=True)
class OneThreeTwoSix(Staking):
    """1-3-2-6: 1, 3, 2, then 6 units on consecutive wins; a loss or the fourth win resets."""

    name: ClassVar[str] = "1-3-2-6"
    code: ClassVar[int] = STAKE_1326
    SEQUENCE: ClassVar[tuple[float, ...]] = (1.0, 3.0, 2.0, 6.0)

    def units(self, level: int) -> float:
        return self.SEQUENCE[level]

    def after(self, level: int, result: float) -> int:
        if result == 0.0:
            return level
        return (level + 1) % 4 if result > 0.0 else 0


STAKINGS: Mapping[str, type[Staking]] = MappingProxyType(
    {cls.name: cls for cls in (Flat, Martingale, Paroli, DAlembert, Fibonacci, OneThreeTwoSix)}
)
"""Stakings by name; as strategies they bet ``--bet`` every hand."""

PATTERNS: Mapping[str, type[Selection]] = MappingProxyType(
    {
        "follow-last": FollowLast,
        "against-streak": AgainstStreak,
        "follow-road": FollowRoad,
    }
)
"""Pattern selections by name; they pick Banker or Player themselves."""

STRATEGY_NAMES: tuple[str, ...] = (*STAKINGS, *PATTERNS)


def describe(name: str) -> str:
    """First line of a named strategy's docstring (for help texts and the dashboard)."""
    cls: type = STAKINGS.get(name) or PATTERNS.get(name) or object
    return (cls.__doc__ or "").strip().splitlines()[0] if cls is not object else ""


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
        staking = "" if self.name in STAKINGS or isinstance(self.staking, Flat) else (
            f", {self.staking.name} staking"
        )  # fmt: skip
        return f"{self.name}{self.selection.detail}{staking}"


def make_strategy(
    name: str,
    *,
    bet: str | None = None,
    after: int = 3,
    road: str = "big_eye_boy",
    wins: int = 3,
    progression: str = "flat",
) -> Strategy:
    """A strategy by name with its options; `StrategyError` / `BetError` on bad settings.

    Staking names (flat, martingale, ...) bet ``bet`` (Banker by default) every hand;
    pattern names (follow-last, against-streak, follow-road) choose Banker or Player
    and stake by ``progression`` (flat by default).
    """
    key = str(name).strip().lower().replace("_", "-")
    road_key = str(road).strip().lower().replace("-", "_").replace(" ", "_")

    def staking(n: str) -> Staking:
        k = str(n).strip().lower().replace("_", "-")
        if k not in STAKINGS:
            raise StrategyError(f"unknown progression {n!r} (known: {', '.join(STAKINGS)})")
        return STAKINGS[k](wins=wins) if STAKINGS[k] is Paroli else STAKINGS[k]()

    if key in STAKINGS:
        b = "banker" if bet is None else str(bet).strip().lower()
        if b not in BET_IDS:
            raise BetError(f"unknown bet {bet!r} (known: {', '.join(BET_IDS)})")
        if progression != "flat":
            raise StrategyError(
                f"strategy {key} is its own progression; --progression is for pattern strategies"
            )
        return Strategy(key, FixedBet(b), staking(key))
    if key in PATTERNS:
        if bet is not None:
            raise StrategyError(f"strategy {key} picks Banker or Player itself; drop --bet")
        cls = PATTERNS[key]
        sel: Selection = (
            AgainstStreak(after)
            if cls is AgainstStreak
            else FollowRoad(road_key)
            if cls is FollowRoad
            else cls()
        )
        return Strategy(key, sel, staking(progression))
    raise StrategyError(f"unknown strategy {name!r} (known: {', '.join(STRATEGY_NAMES)})")


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


def _number(value: object, what: str, *, positive: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise StrategyError(f"{what} must be a number, not {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise StrategyError(f"{what} must be a finite number, not {value!r}")
    if positive and x <= 0:
        raise StrategyError(f"{what} must be more than 0, not {value:g}")
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
            f"side bet {text!r} names no bet: write BET or BET:UNITS, e.g. player_pair:1"
        )
    if not sep:
        return bet, 1.0
    try:
        u = float(units)
    except ValueError:
        raise BetError(f"side bet {text!r}: units {units!r} is not a number") from None
    return bet, u


def check_bet(table: Table, bet: str, what: str = "bet") -> None:
    """`BetError` unless ``table`` offers ``bet`` (a plain bet, not a shortcut)."""
    if bet not in table.bets:
        raise BetError(f"{what}: {not_offered_reason(table, bet)}")


def resolve(settings: Settings, strategy: Strategy, table: Table) -> Resolved:
    """Check settings against the strategy and the table; one clear error if they clash."""
    lim = table.limits
    bankroll = _number(settings.bankroll, "bankroll")
    unit = _number(settings.unit, "unit")
    lo = lim.min_bet if settings.min_bet is None else _number(settings.min_bet, "table minimum")
    hi = lim.max_bet if settings.max_bet is None else _number(settings.max_bet, "table maximum")
    if lo > hi:
        raise StrategyError(f"table minimum {lo:g} is above the table maximum {hi:g}")
    if lo < lim.min_bet or hi > lim.max_bet:
        raise StrategyError(
            f"limits {lo:g} to {hi:g} are outside the {table.title} table's "
            f"{lim.min_bet:g} to {lim.max_bet:g}"
        )
    if not lo <= unit <= hi:
        raise StrategyError(f"unit {unit:g} is outside the table limits {lo:g} to {hi:g}")
    if bankroll < lo:
        raise StrategyError(f"bankroll {bankroll:g} is below the table minimum {lo:g}")
    stop_low = -math.inf
    if settings.stop_loss is not None:
        stop_low = bankroll - _number(settings.stop_loss, "stop-loss")
    stop_high = math.inf
    if settings.take_profit is not None:
        stop_high = bankroll + _number(settings.take_profit, "take-profit")
    for b in strategy.bets():
        check_bet(table, b, f"strategy {strategy.name}")
    sides = []
    for bet, units in settings.side_bets:
        check_bet(table, bet, "side bet")
        u = _number(units, f"side bet {bet} units")
        stake = u * unit
        if not lo <= stake <= hi:
            raise BetError(
                f"side bet {bet}: {u:g} units of {unit:g} = {stake:g}, outside the table "
                f"limits {lo:g} to {hi:g}"
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
