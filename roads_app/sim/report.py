"""A backtest put into the words a person reads: where its shoes came from, and the short
plain-text report the terminal prints (the verdict in the words a caller gives, from
`roads_app.render.verdict`). The engines (`roads_app.sim.backtest`) only run and count.
"""

from __future__ import annotations

from typing import Protocol

from roads_app.bets.tables import Table
from roads_app.sim.measures import Say, Summary, pct
from roads_app.sim.strategies import Resolved, Strategy


class Reported(Protocol):
    """What the report reads of a finished backtest (`roads_app.sim.backtest.Backtest`)."""

    @property
    def strategy(self) -> Strategy: ...
    @property
    def resolved(self) -> Resolved: ...
    @property
    def table(self) -> Table: ...
    @property
    def source(self) -> str: ...
    @property
    def engine(self) -> str: ...
    @property
    def summary(self) -> Summary: ...
    @property
    def seconds(self) -> float: ...


def simulated_source(seed: int, shoes: int) -> str:
    """Where simulated shoes came from: ``simulated seed 7, 1,000 shoes``."""
    return f"simulated seed {seed}, {shoes:,} shoes"


def saved_source(count: int, where: str) -> str:
    """Where saved shoes came from: ``12 saved shoes in data/``."""
    return f"{count} saved shoes in {where}"


def text(result: Reported, say: Say) -> str:
    """A short plain-text report of ``result`` for the terminal, the verdict in ``say``'s
    words."""
    s = result.summary
    lines = [
        f"{result.strategy.label} on {result.table.title}, {result.source} "
        f"({result.engine} engine)",
        f"hands {s.hands:,}  bets {s.bets:,}  wagered {s.wagered:,.2f}  net {s.net:+,.2f}",
    ]
    if s.ev is not None:
        ci = f"  95% CI [{pct(s.ci[0])}, {pct(s.ci[1])}]" if s.ci else ""
        ex = f"  exact {pct(s.exact_ev)}" if s.exact_ev is not None else ""
        lines.append(f"EV per unit wagered {pct(s.ev)}{ci}{ex}")
    lines.append(
        f"risk of ruin {s.risk_of_ruin:.2%}  mean final bankroll {s.mean_final:,.2f} "
        f"(start {result.resolved.bankroll:,.2f})  stops: "
        + ", ".join(f"{k} {v:,}" for k, v in s.stops.items() if v)
    )
    if s.unsettled:
        lines.append(
            f"{s.unsettled:,} bets were not placed: their shoes lack the cards or totals "
            "to settle them (entered by winner only)"
        )
    lines.append(say(s.verdict))
    if result.seconds > 0:
        lines.append(f"{result.seconds:.2f} s, {s.hands / result.seconds:,.0f} hands/s")
    return "\n".join(lines)
