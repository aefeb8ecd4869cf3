"""The dashboard's backtest page: pick a strategy and money settings, run it over many
shoes, and see EV against the house edge, the bankroll fan chart and the spread of
per-shoe results.

The work is in `roads_app.sim.backtest`; this module only collects inputs, shows progress
and draws. The last result stays in ``st.session_state`` so widgets that only change
the view do not re-run the backtest.
"""

from __future__ import annotations

import os

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from roads_app.bets.tables import BET_LABELS, Table, list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.sim import backtest, kernel, strategies

RESULT_KEY = "backtest_result"
MAX_UI_SHOES = 2_000_000
"""Most simulated shoes the page runs at once (about 160 million hands, a few seconds)."""

_SOURCES = ("Simulated shoes", "Saved shoes")


def _label(bet: str) -> str:
    return BET_LABELS.get(bet, bet)


def _strategy_inputs(table: Table) -> strategies.Strategy:
    """Strategy select plus the options that strategy takes."""
    name = st.selectbox(
        "Strategy",
        strategies.STRATEGY_NAMES,
        format_func=lambda n: f"{n} — {strategies.describe(n)}",
        key="bt_strategy",
    )
    kw: dict[str, object] = {}
    if name in strategies.STAKINGS:
        bets = list(table.bets)
        kw["bet"] = st.selectbox(
            "Bet", bets, index=bets.index("banker"), format_func=_label, key="bt_bet"
        )
        if name == "paroli":
            kw["wins"] = int(st.number_input("Wins before reset", 1, 30, 3, key="bt_wins"))
    else:
        if name == "against-streak":
            kw["after"] = int(st.number_input("Bet against after a streak of", 1, 30, 3))
        if name == "follow-road":
            kw["road"] = st.selectbox(
                "Road",
                list(strategies.ROADS),
                format_func=lambda r: r.replace("_", " "),
                key="bt_road",
            )
        kw["progression"] = st.selectbox("Staking", list(strategies.STAKINGS), key="bt_progression")
    return strategies.make_strategy(name, **kw)  # type: ignore[arg-type]


def _money_inputs(table: Table) -> strategies.Settings:
    lim = table.limits
    c1, c2, c3, c4 = st.columns(4)
    bankroll = c1.number_input("Bankroll per shoe", min_value=0.0, value=1000.0, step=100.0)
    unit = c2.number_input(
        "Base unit", min_value=0.0, value=max(10.0, lim.min_bet), step=1.0, key="bt_unit"
    )
    min_bet = c3.number_input("Table minimum", min_value=0.0, value=float(lim.min_bet))
    max_bet = c4.number_input("Table maximum", min_value=0.0, value=float(lim.max_bet))
    c1, c2, c3 = st.columns([1, 1, 2])
    stop_loss = c1.number_input("Stop-loss (0 = off)", min_value=0.0, value=0.0, step=50.0)
    take_profit = c2.number_input("Take-profit (0 = off)", min_value=0.0, value=0.0, step=50.0)
    sides = c3.multiselect(
        "Side bets (1 unit each, every hand)",
        [b for b in table.bets if b not in ("banker", "player")],
        format_func=_label,
        key="bt_sides",
    )
    return strategies.Settings(
        bankroll=bankroll,
        unit=unit,
        min_bet=min_bet,
        max_bet=max_bet,
        stop_loss=stop_loss or None,
        take_profit=take_profit or None,
        side_bets=tuple((b, 1.0) for b in sides),
    )


def cluster_address() -> str | None:
    """The Ray cluster simulated backtests run on (``roads-app --cluster``), if any."""
    from roads_app.ui.launch import CLUSTER_ENV

    return os.environ.get(CLUSTER_ENV) or None


def waiting_text(simulated: bool, cluster: str | None) -> str:
    """What the bar says before the first shoes are done: why the wait, not 'Starting…'."""
    if simulated and cluster:
        return f"Sending the shoes to the Ray cluster ({cluster})…"
    if simulated and kernel.needs_compile():
        return f"{backtest.COMPILING.capitalize()}…"
    return "Starting…"


def _run(
    strategy: strategies.Strategy,
    money: strategies.Settings,
    table: Table,
    source: str,
    shoes: int,
    seed: int,
) -> None:
    from roads_app.ui.session import data_dir

    simulated = source == _SOURCES[0]
    cluster = cluster_address() if simulated else None
    bar = st.progress(0.0, text=waiting_text(simulated, cluster))

    def progress(done: int, total: int) -> None:
        if done:
            bar.progress(done / total, text=f"{done:,} of {total:,} shoes")

    try:
        if not simulated:
            result = backtest.backtest(
                strategy, money, table, data_dir=data_dir(), progress=progress
            )
        else:
            result = backtest.backtest(
                strategy,
                money,
                table,
                seed=seed,
                shoes=shoes,
                progress=progress,
                chunk=max(1024, min(16384, shoes // 20)),
                cluster=cluster,
                shard_shoes=max(1000, min(backtest.SHARD_SHOES, shoes // 20)),
            )
    except RoadsAppError as e:
        bar.empty()
        st.session_state.pop(RESULT_KEY, None)
        st.error(str(e))
        return
    bar.empty()
    st.session_state[RESULT_KEY] = result


def _fan_chart(result: backtest.Backtest) -> go.Figure:
    bands = backtest.bands(result.run.paths, int(result.run.per_shoe["hands"].max()))
    x = bands["hand"].to_list()
    fig = go.Figure()
    for lo, hi, name, alpha in (("p5", "p95", "5–95%", 0.15), ("p25", "p75", "25–75%", 0.3)):
        fig.add_trace(go.Scatter(x=x, y=bands[hi].to_list(), line={"width": 0}, showlegend=False,
                                 hoverinfo="skip"))  # fmt: skip
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
        go.Scatter(x=x, y=bands["p50"].to_list(), name="median", line={"color": "#1f77b4"})
    )
    fig.add_hline(y=result.resolved.bankroll, line_dash="dot", line_color="gray")
    fig.update_layout(
        title=f"Bankroll through the shoe ({result.run.paths.shape[0]} sampled shoes)",
        xaxis_title="hand",
        yaxis_title="bankroll",
        height=380,
        margin={"t": 50, "b": 40},
    )
    return fig


def _histogram(result: backtest.Backtest) -> go.Figure:
    net = result.run.per_shoe["net"]
    sample = net.sample(min(net.len(), 200_000), seed=0) if net.len() > 200_000 else net
    fig = go.Figure(go.Histogram(x=sample.to_list(), nbinsx=60, marker_color="#d62728"))
    fig.add_vline(x=0, line_dash="dot", line_color="gray")
    fig.update_layout(
        title="Net result per shoe",
        xaxis_title="net",
        yaxis_title="shoes",
        height=380,
        margin={"t": 50, "b": 40},
    )
    return fig


def _show(result: backtest.Backtest) -> None:
    s = result.summary
    st.caption(f"{result.strategy.label} · {result.table.title} · {result.source} · "
               f"{result.engine} engine · {result.seconds:.2f} s")  # fmt: skip
    c = st.columns(5)
    c[0].metric("Hands", f"{s.hands:,}", help=f"{s.bets:,} with a main bet")
    c[1].metric("Wagered", f"{s.wagered:,.0f}")
    c[2].metric("Net", f"{s.net:+,.0f}")
    ev = "–" if s.ev is None else f"{s.ev:+.3%}"
    ci = "" if s.ci is None else f"95% CI {s.ci[0]:+.3%} to {s.ci[1]:+.3%}"
    c[3].metric("EV per unit wagered", ev, help=ci or None)
    c[4].metric("Risk of ruin", f"{s.risk_of_ruin:.2%}", help="share of shoes that went broke")
    if s.ci and s.exact_ev is not None and not s.ci[0] <= s.exact_ev <= s.ci[1]:
        st.warning(s.verdict)
    else:
        st.info(s.verdict)
    if s.unsettled:
        st.caption(
            f"{s.unsettled:,} bets were not placed: their saved shoes lack the cards or "
            "totals to settle them (entered by winner only)."
        )
    left, right = st.columns(2)
    left.plotly_chart(_fan_chart(result), width="stretch")
    right.plotly_chart(_histogram(result), width="stretch")
    by_bet = s.by_bet.with_columns(
        pl.col("bet").replace_strict(dict(BET_LABELS), default=pl.col("bet")),
        (pl.col("ev") * 100).round(3).alias("ev %"),
        (pl.col("exact_ev") * 100).round(3).alias("exact ev %"),
    ).drop("ev", "exact_ev")
    st.dataframe(by_bet, hide_index=True)
    with st.expander("Per-shoe results"):
        st.dataframe(result.run.per_shoe.head(10_000), hide_index=True)
        st.download_button(
            "Download per-shoe results (CSV)",
            result.run.per_shoe.write_csv().encode(),
            file_name="backtest_per_shoe.csv",
            mime="text/csv",
        )


def render_backtest_page() -> None:
    """Inputs, a run button with a progress bar, and the last result."""
    st.header("Strategy backtest")
    st.caption(
        "Each shoe is one session with the full bankroll; stop-loss, take-profit and ruin "
        "stop betting for the rest of that shoe."
    )
    tables = list_tables()
    if not tables:
        st.error("No rules files found: add a table to rules/.")
        return
    left, right = st.columns([2, 1])
    with left:
        rules = st.selectbox(
            "Table", tables, index=tables.index("classic") if "classic" in tables else 0
        )
    try:
        table = load_table(rules)
        with left:
            strategy = _strategy_inputs(table)
        with right:
            source = st.radio("Shoes", _SOURCES, horizontal=True, key="bt_source")
            simulated = source == _SOURCES[0]
            shoes = st.number_input(
                "Number of shoes", 1, MAX_UI_SHOES, 10_000, step=1000, disabled=not simulated,
                key="bt_shoes",
            )  # fmt: skip
            seed = st.number_input("Seed", 0, 2**53 - 1, 1, disabled=not simulated, key="bt_seed")
            if simulated and cluster_address():
                st.caption(f"Runs on the Ray cluster {cluster_address()}, same result as here.")
        money = _money_inputs(table)
    except RoadsAppError as e:
        st.error(str(e))
        return
    if st.button("Run backtest", type="primary", key="bt_run"):
        _run(strategy, money, table, source, int(shoes), int(seed))
    result = st.session_state.get(RESULT_KEY)
    if result is not None:
        _show(result)
