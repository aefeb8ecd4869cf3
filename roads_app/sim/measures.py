"""A backtest's statistics, as numbers: exact totals that add up over any split of the
shoes, EV per unit wagered with its interval, the exact edge of the bets used, and the
verdict (`render.verdict` puts it into words).

Statistics treat shoes as the independent units (each shoe is one session, see
`roads_app.sim.strategies`): EV per unit wagered is total net / total wagered, with a 95%
confidence interval from the ratio estimator over shoes, set against the exact edge of
the bets actually used (`roads_app.bets.odds.bet_odds`, weighted by the amount wagered on
each). Risk of ruin is the share of shoes that ended below the table minimum.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np
import polars as pl

from roads_app.bets.tables import Table
from roads_app.sim.exact import exact_column_sums, products_into, to_float, to_fraction

STOPS: tuple[str, ...] = ("played out", "stop-loss", "take-profit", "ruin")
"""Why a shoe's betting ended, by `engine.STOP_*` code."""
STOP = pl.Enum(list(STOPS))


@dataclass(frozen=True)
class Totals:
    """What the statistics need from a set of shoes, as sums that add exactly.

    Counts are ints; every money sum is exact (`roads_app.sim.exact`: an int in units
    of 2**-1074), products included, so the totals of any split of the shoes add up
    (`+`) to the one-piece run's totals to the last bit, in any order. That is what
    makes a run split into shards or Ray tasks identical to the run in one piece.
    """

    shoes: int
    hands: int
    bets: int
    max_hands: int
    stops: tuple[int, ...]  # shoes by STOP code
    sums: dict[str, int]  # exact sums, see `SUMS` and ``wagered_<slot>`` / ``net_<slot>``
    unsettled: int = 0

    def __add__(self, other: Totals) -> Totals:
        if self.sums.keys() != other.sums.keys():
            raise ValueError("totals of different strategies cannot be added")
        return Totals(
            self.shoes + other.shoes,
            self.hands + other.hands,
            self.bets + other.bets,
            max(self.max_hands, other.max_hands),
            tuple(a + b for a, b in zip(self.stops, other.stops, strict=True)),
            {k: v + other.sums[k] for k, v in self.sums.items()},
            self.unsettled + other.unsettled,
        )

    def total(self, name: str) -> float:
        """A sum, rounded once to the nearest double."""
        return to_float(self.sums[name])

    def exact(self, name: str) -> Fraction:
        return to_fraction(self.sums[name])


SUMS: tuple[str, ...] = ("wagered", "net", "final", "net_net", "net_wagered", "wagered_wagered")
"""Money sums of every run; ``a_b`` is the sum of the exact products a * b per shoe."""


def totals_of(per_shoe: pl.DataFrame, slots: Sequence[str], unsettled: int = 0) -> Totals:
    """The exact totals of some shoes' rows (any subset; totals of subsets add up)."""
    f = per_shoe
    return totals_of_columns(
        Columns(
            hands=f["hands"].to_numpy(),
            bets=f["bets"].to_numpy(),
            stop=f["stop"].to_physical().to_numpy(),
            wagered=f["wagered"].to_numpy(),
            net=f["net"].to_numpy(),
            final=f["final"].to_numpy(),
            slots=[(f[f"wagered_{b}"].to_numpy(), f[f"net_{b}"].to_numpy()) for b in slots],
        ),
        slots,
        unsettled,
    )


@dataclass(frozen=True)
class Columns:
    """A run's per-shoe columns as arrays, one entry a shoe: what `totals_of_columns`
    sums (the per-shoe frame's columns, or the engine's arrays when no frame is kept)."""

    hands: np.ndarray
    bets: np.ndarray
    stop: np.ndarray  # STOP codes
    wagered: np.ndarray
    net: np.ndarray
    final: np.ndarray
    slots: Sequence[tuple[np.ndarray, np.ndarray]]  # (wagered, net) of each slot


def totals_of_columns(c: Columns, slots: Sequence[str], unsettled: int = 0) -> Totals:
    """The exact totals of some shoes' columns (`totals_of` without a frame)."""
    n = c.hands.shape[0]
    # contiguous, writable copies, whatever the caller holds (a frame's read-only column,
    # a column of the kernel's rows): one signature of the products' kernel
    wag = np.array(c.wagered, dtype=np.float64, order="C")
    net = np.array(c.net, dtype=np.float64, order="C")
    columns = [wag, net, c.final]  # the columns summed, each whole (`exact_column_sums`)
    for a, b in ((net, net), (net, wag), (wag, wag)):
        product, error = np.empty(n), np.empty(n)
        products_into(a, b, product, error)
        columns += [product, error]
    for w, nt in c.slots:
        columns += [w, nt]
    exact = exact_column_sums(columns) if n else [0] * len(columns)
    sums = dict(zip(SUMS[:3], exact[:3], strict=True))
    for i, name in enumerate(SUMS[3:]):
        sums[name] = exact[3 + 2 * i] + exact[4 + 2 * i]
    for i, b in enumerate(slots):
        sums[f"wagered_{b}"] = exact[9 + 2 * i]
        sums[f"net_{b}"] = exact[10 + 2 * i]
    return Totals(
        shoes=n,
        hands=int(c.hands.sum(dtype=np.int64)),
        bets=int(c.bets.sum(dtype=np.int64)),
        max_hands=int(c.hands.max()) if n else 0,
        stops=tuple(int(x) for x in np.bincount(c.stop, minlength=len(STOPS))),
        sums=sums,
        unsettled=unsettled,
    )


@dataclass(frozen=True)
class Run:
    """Per-shoe rows (when kept), bankroll paths and exact totals, before any statistics."""

    per_shoe: pl.DataFrame | None  # shoe, hands, bets, stop, stop_hand, wagered, net, ...
    paths: np.ndarray  # bankroll after each hand, one row per sampled shoe
    slots: tuple[str, ...]
    totals: Totals
    unsettled: int = 0  # bets a saved shoe lacked the data to settle (not placed)


def exact_evs(table: Table) -> dict[str, float]:
    """Exact EV per unit staked of every bet on the table, off the top of a full shoe."""
    from roads_app.bets.odds import bet_odds

    odds = bet_odds(table)
    return dict(zip(odds["bet"].to_list(), odds["ev"].to_list(), strict=True))


def ratio_ci(
    net: np.ndarray, wagered: np.ndarray, level: float = 0.95
) -> tuple[float, float] | None:
    """Confidence interval of sum(net) / sum(wagered), shoes as independent units.

    >>> lo, hi = ratio_ci(np.array([1.0, -1.0, 1.0, -1.0]), np.array([1.0, 1.0, 1.0, 1.0]))
    >>> round(lo, 3), round(hi, 3)
    (-1.132, 1.132)
    """
    f = pl.DataFrame({"wagered": wagered, "net": net, "final": net, "hands": 0, "bets": 0})
    f = f.with_columns(stop=pl.lit("played out", dtype=STOP))
    return ratio_ci_of(totals_of(f, ()), level)


def ratio_ci_of(t: Totals, level: float = 0.95) -> tuple[float, float] | None:
    """The ratio estimator's delta-method interval from exact totals.

    Residuals ``net - R * wagered`` per shoe; their sum of squares is
    ``Snn - 2 R Snw + R**2 Sww``, computed exactly in rationals from the exact sums, then
    standard error = sqrt(that / (n-1) / n) / mean wagered. None with < 2 shoes or
    nothing wagered.
    """
    n = t.shoes
    sw = t.exact("wagered")
    if n < 2 or sw <= 0:
        return None
    r = t.exact("net") / sw
    ss = t.exact("net_net") - 2 * r * t.exact("net_wagered") + r * r * t.exact("wagered_wagered")
    se = math.sqrt(float(ss / ((n - 1) * n))) / float(sw / n)
    z = NormalDist().inv_cdf(0.5 + level / 2)
    ev = float(r)
    return (ev - z * se, ev + z * se)


@dataclass(frozen=True)
class Summary:
    """The numbers a player asks for, and a plain-words verdict from them."""

    shoes: int
    hands: int
    bets: int
    wagered: float
    net: float
    ev: float | None  # net per unit wagered
    ci: tuple[float, float] | None  # 95%
    exact_ev: float | None  # exact EV per unit of the bets used, weighted by wagered
    by_bet: pl.DataFrame  # bet, wagered, net, ev, exact_ev
    risk_of_ruin: float  # share of shoes that went broke
    stops: dict[str, int]
    mean_final: float
    unsettled: int
    verdict: Verdict

    def to_dict(self, say: Say) -> dict[str, Any]:
        """The numbers for ``--json``, the verdict in the words ``say`` gives."""
        return {
            "shoes": self.shoes,
            "hands": self.hands,
            "bets": self.bets,
            "wagered": self.wagered,
            "net": self.net,
            "ev": self.ev,
            "ci": list(self.ci) if self.ci else None,
            "exact_ev": self.exact_ev,
            "house_edge": None if self.exact_ev is None else -self.exact_ev,
            "risk_of_ruin": self.risk_of_ruin,
            "stops": self.stops,
            "mean_final_bankroll": self.mean_final,
            "unsettled_bets": self.unsettled,
            "by_bet": self.by_bet.to_dicts(),
            "verdict": say(self.verdict),
        }


def pct(x: float) -> str:
    """A rate as a signed percentage, as every report of a backtest writes it."""
    return f"{x * 100:+.3f}%"


class Finding(StrEnum):
    """What the measured numbers say against the exact edge (the catalogue's
    ``verdict_<finding>`` sentence says it in words)."""

    NO_BETS = "no_bets"
    NO_EDGE = "no_edge"  # the exact edge of the bets used is unknown
    ONE_SHOE = "one_shoe"  # no interval from one shoe
    WITHIN = "within"  # the exact edge lies inside the 95% interval
    BETTER = "better"
    WORSE = "worse"


@dataclass(frozen=True)
class Verdict:
    """Whether a backtest's result differs from the house edge beyond chance, as numbers:
    the engine decides, the pages and the CLI put it into words (`render.verdict`)."""

    finding: Finding
    ev: float | None
    ci: tuple[float, float] | None
    exact: float | None
    shoes: int


def judge(
    ev: float | None, ci: tuple[float, float] | None, exact: float | None, shoes: int
) -> Verdict:
    """The finding from the measured numbers: beyond chance only when the exact edge is
    outside the 95% interval.

    >>> judge(0.05, (0.01, 0.09), -0.0106, 100).finding
    <Finding.BETTER: 'better'>
    """
    if ev is None:
        finding = Finding.NO_BETS
    elif exact is None:
        finding = Finding.NO_EDGE
    elif ci is None:
        finding = Finding.ONE_SHOE
    elif ci[0] <= exact <= ci[1]:
        finding = Finding.WITHIN
    else:
        finding = Finding.BETTER if ev > exact else Finding.WORSE
    return Verdict(finding, ev, ci, exact, shoes)


Say = Callable[[Verdict], str]
"""Puts a verdict into words (`render.verdict.verdict_text`); the report's caller passes it."""


def summarize(run: Run, table: Table, bankroll: float) -> Summary:
    """Totals, EV with its 95% CI, exact edge of the bets used, ruin and the verdict.

    Everything comes from `Run.totals` (exact sums, each rounded once), so the summary of
    a run split into shards is the one-piece run's summary to the last bit.
    """
    t = run.totals
    total_w = t.total("wagered")
    total_n = t.total("net")
    ev = float(t.exact("net") / t.exact("wagered")) if total_w > 0 else None
    ci = ratio_ci_of(t)
    exact = exact_evs(table)
    rows = []
    weighted = 0.0
    for b in run.slots:
        w = t.total(f"wagered_{b}")
        n = t.total(f"net_{b}")
        x = exact.get(b)
        ev_b = float(t.exact(f"net_{b}") / t.exact(f"wagered_{b}")) if w > 0 else None
        rows.append({"bet": b, "wagered": w, "net": n, "ev": ev_b, "exact_ev": x})
        weighted += w * (x if x is not None else math.nan)
    exact_ev = weighted / total_w if total_w > 0 and math.isfinite(weighted) else None
    stops = dict(zip(STOPS, t.stops, strict=True))
    shoes = t.shoes
    return Summary(
        shoes=shoes,
        hands=t.hands,
        bets=t.bets,
        wagered=total_w,
        net=total_n,
        ev=ev,
        ci=ci,
        exact_ev=exact_ev,
        by_bet=pl.DataFrame(
            rows,
            schema={
                "bet": pl.String,
                "wagered": pl.Float64,
                "net": pl.Float64,
                "ev": pl.Float64,
                "exact_ev": pl.Float64,
            },
        ),
        risk_of_ruin=stops["ruin"] / shoes if shoes else 0.0,
        stops=stops,
        mean_final=float(t.exact("final") / shoes) if shoes else bankroll,
        unsettled=t.unsettled,
        verdict=judge(ev, ci, exact_ev, shoes),
    )


def bands(
    paths: np.ndarray, hands: int | None = None, quantiles: Sequence[float] = (5, 25, 50, 75, 95)
) -> pl.DataFrame:
    """Bankroll percentile bands per hand over the sampled shoes (the fan chart's data)."""
    if paths.size == 0:
        return pl.DataFrame(
            schema={"hand": pl.Int32, **{f"p{int(q)}": pl.Float64 for q in quantiles}}
        )
    width = paths.shape[1] if hands is None else min(hands, paths.shape[1])
    qs = np.percentile(paths[:, :width], list(quantiles), axis=0)
    return pl.DataFrame(
        {"hand": pl.int_range(1, width + 1, dtype=pl.Int32, eager=True)}
        | {f"p{int(q)}": qs[i] for i, q in enumerate(quantiles)}
    )
