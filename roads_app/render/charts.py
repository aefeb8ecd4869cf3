"""The charts the pages show beside the board, as Plotly figures built from plain frames.

Drawing only: each builder takes the numbers the core computed (a backtest's bands, the
unseen cards, a shoe's EV through it, a bet log's bankroll) and the page's language, and
decides nothing; the page lays the figure out. Banker red, Player blue and Tie green are
the board's own (`render.board`).

>>> import polars as pl
>>> fig = rank_figure({"A": 30, "2": 32}, decks=8)
>>> len(fig.data), fig.layout.xaxis.type
(2, 'category')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
import polars as pl

from roads_app.i18n import DEFAULT, word
from roads_app.render import board

# --- a backtest ------------------------------------------------------------------------------


def fan_chart(bands: pl.DataFrame, bankroll: float, shoes: int, lang: str = DEFAULT) -> go.Figure:
    """The bankroll's percentile bands hand by hand over ``shoes`` sampled shoes (the frame
    of `sim.backtest.bands`), the median as a line, the starting ``bankroll`` dotted.

    >>> bands = pl.DataFrame({"hand": [1, 2], "p5": [90.0, 80.0], "p25": [95.0, 90.0],
    ...                       "p50": [100.0, 100.0], "p75": [105.0, 110.0], "p95": [110.0, 120.0]})
    >>> fig = fan_chart(bands, 100.0, shoes=2)
    >>> len(fig.data), fig.layout.xaxis.title.text
    (5, 'hand')
    """
    x = bands["hand"].to_list()
    fig = go.Figure()
    for lo, hi, name, alpha in (("p5", "p95", "5–95%", 0.15), ("p25", "p75", "25–75%", 0.3)):
        fig.add_trace(
            go.Scatter(
                x=x, y=bands[hi].to_list(), line={"width": 0}, showlegend=False, hoverinfo="skip"
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=bands[lo].to_list(),
                fill="tonexty",
                fillcolor=f"rgba(31, 119, 180, {alpha})",
                line={"width": 0},
                name=name,
            )
        )
    fig.add_trace(
        go.Scatter(
            x=x, y=bands["p50"].to_list(), name=word("bt_median", lang), line={"color": "#1f77b4"}
        )
    )
    fig.add_hline(y=bankroll, line_dash="dot", line_color="gray")
    fig.update_layout(
        title=word("bt_fan_title", lang, n=shoes),
        xaxis_title=word("bt_hand_axis", lang),
        yaxis_title=word("bt_bankroll_axis", lang),
        height=380,
        margin={"t": 50, "b": 40},
    )
    return fig


HISTOGRAM_MOST = 200_000
"""Shoes drawn in the histogram at most (a fixed sample of more): the browser stays quick."""


def net_histogram(net: pl.Series, lang: str = DEFAULT) -> go.Figure:
    """How many shoes ended with each net, zero dotted.

    >>> fig = net_histogram(pl.Series("net", [-10.0, 0.0, 5.0]))
    >>> fig.data[0].type, list(fig.data[0].x)
    ('histogram', [-10.0, 0.0, 5.0])
    """
    sample = net.sample(HISTOGRAM_MOST, seed=0) if net.len() > HISTOGRAM_MOST else net
    fig = go.Figure(go.Histogram(x=sample.to_list(), nbinsx=60, marker_color="#d62728"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(
        title=word("bt_hist_title", lang),
        xaxis_title=word("bt_net_axis", lang),
        yaxis_title=word("bt_shoes_axis", lang),
        height=380,
        margin={"t": 50, "b": 40},
    )
    return fig


# --- a shoe's bets ---------------------------------------------------------------------------


def round_step(last: int, ticks: int = 10) -> int:
    """A whole-round tick spacing that gives at most ``ticks`` ticks up to round ``last``.

    >>> round_step(1), round_step(30), round_step(80)
    (1, 5, 10)
    """
    return next(s for s in (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if last / s <= ticks)


def bankroll_figure(curve: pl.DataFrame, lang: str = DEFAULT) -> go.Figure:
    """The bankroll after each round as a line; ``layout.meta`` lets tests read the end.

    >>> fig = bankroll_figure(pl.DataFrame({"round": [1, 2, 3], "bankroll": [100.0, 90.0, 110.0]}))
    >>> fig.layout.meta["bankroll"], fig.layout.xaxis.dtick
    (110.0, 1)
    """
    last = float(curve["bankroll"][-1]) if curve.height else None
    fig = go.Figure(
        go.Scatter(
            x=curve["round"].to_list(),
            y=curve["bankroll"].to_list(),
            mode="lines+markers" if curve.height < 40 else "lines",
            line={"color": "#1565c0", "width": 2},
            marker={"size": 4},
            name="bankroll",
            hovertemplate=word("after_round", lang) + " %{x}: %{y:,.2f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=200,
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        # Rounds are whole: ticks 1, 2, 5, 10… apart, never 0.2 of a round.
        xaxis={
            "title": None,
            "rangemode": "tozero",
            "tick0": 0,
            "tickformat": "d",
            "dtick": round_step(int(curve["round"].max() or 0) if curve.height else 0),
        },
        yaxis={"title": None},
        showlegend=False,
        meta={"bankroll": last, "rounds": int(curve["round"].max() or 0) if curve.height else 0},
    )
    return fig


# --- live odds -------------------------------------------------------------------------------


def rank_figure(by_rank: Mapping[str, int], decks: int) -> go.Figure:
    """The cards left of each rank as bars, the full shoe's count dotted across them."""
    ranks = list(by_rank)
    left = list(by_rank.values())
    fig = go.Figure(
        [
            go.Bar(
                x=ranks,
                y=left,
                name="unseen",
                marker_color="#4c78a8",
                hovertemplate="%{x}: %{y} left<extra></extra>",
            ),
            go.Scatter(
                x=ranks,
                y=[4 * decks] * len(ranks),
                mode="lines",
                name="full shoe",
                line={"color": "#999999", "dash": "dot"},
                hoverinfo="skip",
            ),
        ]
    )
    fig.update_layout(
        height=180,
        margin={"l": 30, "r": 10, "t": 10, "b": 25},
        showlegend=False,
        bargap=0.15,
        yaxis={"rangemode": "tozero"},
        xaxis={"type": "category"},  # else plotly reads "2".."9" as numbers and drops A, T-K
    )
    return fig


SIDE_BET_COLOURS: tuple[str, ...] = (
    "#8e24aa",
    "#ef6c00",
    "#00838f",
    "#6d4c41",
    "#c2185b",
    "#546e7a",
    "#9e9d24",
    "#5e35b1",
    "#f9a825",
    "#00695c",
)
"""Side bets: colours clear of the board's Banker red, Player blue and Tie green."""


def bet_colour(bet: str, bets: Sequence[str]) -> str:
    """Banker red, Player blue, Tie green as on the board; side bets from a fixed palette.

    >>> bet_colour("banker", ["player", "banker"]), bet_colour("player", ["player"])
    ('#d32f2f', '#1565c0')
    """
    main = {"banker": board.RED, "player": board.BLUE, "tie": board.GREEN}
    if bet in main:
        return main[bet]
    side = [b for b in bets if b not in main]
    return SIDE_BET_COLOURS[side.index(bet) % len(SIDE_BET_COLOURS)] if bet in side else "#555"


def study_box_figure(
    per_shoe: pl.DataFrame, names: Mapping[str, str], lang: str = DEFAULT
) -> go.Figure:
    """Each bet's net per shoe as a box named as the page names it (``names``; the bet's
    id otherwise), in the board's colours (`bet_colour`).

    >>> per_shoe = pl.DataFrame({"bet": ["banker", "player"], "net": [1.0, -1.0]})
    >>> fig = study_box_figure(per_shoe, {"banker": "Banker"})
    >>> [t.name for t in fig.data], fig.data[0].marker.color
    (['Banker', 'player'], '#d32f2f')
    """
    fig = go.Figure()
    bets = per_shoe["bet"].unique(maintain_order=True).to_list()
    for bet in bets:
        one = per_shoe.filter(pl.col("bet") == bet)
        fig.add_trace(
            go.Box(
                y=one["net"].to_list(),
                name=names.get(bet, bet),
                boxmean=True,
                marker_color=bet_colour(bet, bets),
            )
        )
    fig.update_layout(
        height=320,
        margin={"l": 40, "r": 10, "t": 30, "b": 40},
        title=word("st_box_title", lang),
        showlegend=False,
    )
    return fig


def ev_figure(
    chart: pl.DataFrame,
    bets: Sequence[str],
    upto: int | None = None,
    last_hand: int | None = None,
) -> go.Figure:
    """Lines of each bet's EV (%) per hand, a marker wherever it was positive.

    With ``upto`` (a replay position) only hands up to the next one are drawn, so the
    chart never shows what later cards will do; ``last_hand`` keeps the axis still.

    >>> chart = pl.DataFrame({"hand": [1, 2, 3], "bet": ["tie"] * 3, "label": ["Tie"] * 3,
    ...                       "ev": [-0.14, 0.02, -0.1], "positive": [False, True, False]})
    >>> fig = ev_figure(chart, ["tie"], upto=1, last_hand=3)
    >>> len(fig.data), list(fig.data[0].x), fig.layout.xaxis.range
    (2, [1, 2], (0.5, 3.5))
    """
    if upto is not None:
        chart = chart.filter(pl.col("hand") <= upto + 1)
    fig = go.Figure()
    for bet in bets:
        one = chart.filter(pl.col("bet") == bet).sort("hand")
        if not one.height:
            continue
        label = one["label"][0]
        fig.add_trace(
            go.Scatter(
                x=one["hand"].to_list(),
                y=(100 * one["ev"]).to_list(),
                mode="lines",
                name=label,
                line={"color": bet_colour(bet, bets)},
                legendgroup=bet,
                hovertemplate=f"{label}<br>hand %{{x}}: EV %{{y:+.3f}}%<extra></extra>",
            )
        )
        pos = one.filter(pl.col("positive"))
        if pos.height:
            fig.add_trace(
                go.Scatter(
                    x=pos["hand"].to_list(),
                    y=(100 * pos["ev"]).to_list(),
                    mode="markers",
                    name=f"{label} positive",
                    legendgroup=bet,
                    showlegend=False,
                    marker={
                        "size": 8,
                        "symbol": "circle",
                        "color": bet_colour(bet, bets),
                        "line": {"width": 1, "color": "black"},
                    },
                    hovertemplate=f"{label} positive<br>hand %{{x}}: EV %{{y:+.3f}}%"
                    "<extra></extra>",
                )
            )
    fig.add_hline(y=0, line={"color": "black", "width": 1})
    if upto is not None:
        fig.add_vline(x=upto + 1, line={"color": "#999999", "dash": "dot"})
    if last_hand is not None:
        fig.update_xaxes(range=[0.5, last_hand + 0.5])
    fig.update_layout(
        height=340,
        margin={"l": 40, "r": 10, "t": 40, "b": 40},
        xaxis_title="hand",
        yaxis_title="EV per unit (%)",
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "x": 0},
    )
    return fig
