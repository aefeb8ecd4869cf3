"""The dashboard's backtest page: pick a strategy and money settings, run it over many
shoes, and see EV against the house edge, the bankroll fan chart and the spread of
per-shoe results.

The work is in `roads_app.sim.backtest`; this module only collects inputs, shows progress
and draws. The last result stays in ``st.session_state`` so widgets that only change
the view do not re-run the backtest.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

import polars as pl
import streamlit as st

from roads_app.bets import offers
from roads_app.bets.tables import BET_LABELS, Table, fallback_table, list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.i18n import DEFAULT
from roads_app.render import charts
from roads_app.render.verdict import verdict_text
from roads_app.roads import good_roads
from roads_app.serve import CLUSTER_ENV
from roads_app.sim import backtest, kernel, strategies
from roads_app.store import library
from roads_app.ui.board_view import lang
from roads_app.ui.words import bet_id_name, md_text, say, tr

RESULT_KEY = "backtest_result"
SEED_KEY = "backtest_result.seed"  # the seed of the simulated shoes it ran on (None: saved)
MAX_UI_SHOES = 2_000_000
"""Most simulated shoes the page runs at once (about 160 million hands, a few seconds)."""

_SOURCES = ("simulated", "saved")
"""Where the shoes come from (named ``bt_source_<source>`` in the catalogue)."""


def _label(bet: str) -> str:
    return bet_id_name(bet, BET_LABELS.get(bet, bet))


def _named(options: Iterable[str], name: Callable[[str], str]) -> Callable[[str], str]:
    """A widget's ``format_func`` naming each option now, in this run's language (a
    widget may call it later, outside the run)."""
    return {option: name(option) for option in options}.__getitem__


def _strategy_name(name: str) -> str:
    """A strategy or staking as the page names it: with what it does, in English."""
    if lang() == DEFAULT:
        return f"{name} — {strategies.describe(name)}"
    return tr(f"strategy_{name}")


def _strategy_inputs(table: Table) -> strategies.Strategy:
    """Strategy select plus the options that strategy takes."""
    name = st.selectbox(
        tr("bt_strategy"),
        strategies.STRATEGY_NAMES,
        key="bt_strategy",
        format_func=_named(strategies.STRATEGY_NAMES, _strategy_name),
    )
    kw: dict[str, object] = {}
    if name in strategies.STAKINGS:
        bets = list(table.bets)
        kw["bet"] = st.selectbox(
            tr("col_bet"),
            bets,
            index=bets.index("banker"),
            key="bt_bet",
            format_func=_named(bets, _label),
        )
        if name == "paroli":
            kw["wins"] = int(st.number_input(tr("bt_wins"), 1, 30, 3, key="bt_wins"))
    else:
        if name == "against-streak":
            kw["after"] = int(st.number_input(tr("bt_after"), 1, 30, 3, key="bt_after"))
        if name == "follow-road":
            kw["road"] = st.selectbox(
                tr("bt_road"),
                list(strategies.ROADS),
                key="bt_road",
                format_func=_named(strategies.ROADS, tr),
            )
        if name == "follow-good-road":
            cat = good_roads.in_force()
            names = {"any": tr("bt_any_good_road"), **{p.key: p.name(lang()) for p in cat.active}}
            kw["pattern"] = st.selectbox(
                tr("bt_good_road"), list(names), key="bt_good_road", format_func=names.__getitem__
            )
            kw["catalogue"] = cat
        kw["progression"] = st.selectbox(
            tr("bt_staking"),
            list(strategies.STAKINGS),
            key="bt_progression",
            format_func=_named(
                strategies.STAKINGS, lambda n: n if lang() == DEFAULT else tr(f"strategy_{n}")
            ),
        )
    return strategies.make_strategy(name, **kw)  # type: ignore[arg-type]


def _money_inputs(table: Table) -> strategies.Settings:
    lim = table.limits
    c1, c2, c3, c4 = st.columns(4)
    bankroll = c1.number_input(
        tr("bt_bankroll"), min_value=0.0, value=1000.0, step=100.0, key="bt_bankroll"
    )
    unit = c2.number_input(
        tr("bt_unit"), min_value=0.0, value=max(10.0, lim.min_bet), step=1.0, key="bt_unit"
    )
    min_bet = c3.number_input(tr("bt_min"), min_value=0.0, value=float(lim.min_bet), key="bt_min")
    max_bet = c4.number_input(tr("bt_max"), min_value=0.0, value=float(lim.max_bet), key="bt_max")
    c1, c2, c3 = st.columns([1, 1, 2])
    stop_loss = c1.number_input(
        tr("bt_stop_loss"), min_value=0.0, value=0.0, step=50.0, key="bt_stop_loss"
    )
    take_profit = c2.number_input(
        tr("bt_take_profit"), min_value=0.0, value=0.0, step=50.0, key="bt_take_profit"
    )
    sides = c3.multiselect(
        tr("bt_sides"),
        offers.beside_main(table),
        format_func=_named(table.bets, _label),
        key="bt_sides",
        placeholder=tr("choose_options"),
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
    return os.environ.get(CLUSTER_ENV) or None


def waiting_text(simulated: bool, cluster: str | None, shoes: int | None = None) -> str:
    """What the bar says before the first shoes are done: why the wait, not 'Starting…'
    (``shoes``: a run of so many; a small one needs no compiling, `kernel.needs_compile`)."""
    if simulated and cluster:
        return tr("bt_sending", address=cluster)
    if simulated and kernel.needs_compile(shoes):
        return tr("bt_compiling")
    return tr("bt_starting")


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
    bar = st.progress(0.0, text=waiting_text(simulated, cluster, shoes))

    def progress(done: int, total: int) -> None:
        if done:
            bar.progress(done / total, text=tr("bt_progress", done=f"{done:,}", total=f"{total:,}"))

    betting = backtest.Betting(strategy, money, table)
    try:
        if not simulated:
            ids, rounds = library.saved_rounds(data_dir())
            saved = backtest.Saved(ids, rounds, where=str(data_dir()))
            result = backtest.backtest(betting, saved, progress=progress)
        else:
            result = backtest.backtest(
                betting,
                backtest.Simulated(seed, shoes),
                backtest.RunOptions(
                    chunk=max(1024, min(16384, shoes // 20)),
                    cluster=cluster,
                    shard_shoes=max(1000, min(backtest.SHARD_SHOES, shoes // 20)),
                ),
                progress=progress,
            )
    except RoadsAppError as e:
        bar.empty()
        st.session_state.pop(RESULT_KEY, None)
        st.error(say(e))
        return
    bar.empty()
    st.session_state[RESULT_KEY] = result
    st.session_state[SEED_KEY] = seed if simulated else None


def strategy_words(strategy: strategies.Strategy) -> str:
    """The strategy with its settings in the page's words: what `Strategy.label` says in
    English ("martingale on banker", "follow-road (small road), fibonacci staking")."""
    sel = strategy.selection
    parts = [tr(f"strategy_{strategy.name}")]
    if isinstance(sel, strategies.FixedBet):
        parts.append(tr("bt_on_bet", bet=_label(sel.bet)))
    if isinstance(sel, strategies.AgainstStreak):
        parts.append(tr("bt_after_n", n=sel.after))
    if isinstance(sel, strategies.FollowRoad):
        parts.append(tr(sel.road))
    if strategy.name not in strategies.STAKINGS and not isinstance(
        strategy.staking, strategies.Flat
    ):
        parts.append(tr("bt_staking_of", staking=tr(f"strategy_{strategy.staking.name}")))
    return " ".join(parts)


def summary_caption(result: backtest.Backtest, seed: int | None) -> str:
    """What ran, on which table and shoes (the seed of simulated ones), how long."""
    shoes = f"{result.summary.shoes:,}"
    source = (
        tr("bt_src_saved", shoes=shoes)
        if seed is None
        else tr("bt_src_simulated", seed=seed, shoes=shoes)
    )
    return tr(
        "bt_caption",
        strategy=strategy_words(result.strategy),
        table=md_text(result.table.title),
        source=source,
        seconds=f"{result.seconds:.2f}",
    )


def _show(result: backtest.Backtest) -> None:
    s = result.summary
    if lang() == DEFAULT:
        st.caption(
            say(
                f"{result.strategy.label} · {result.table.title} · {result.source}"
                f" · {result.engine} engine · {result.seconds:.2f} s"
            )
        )
    else:  # the engine's own words are English: the page says the same in its language
        st.caption(summary_caption(result, st.session_state.get(SEED_KEY)))
    c = st.columns(5)
    c[0].metric(tr("hands"), f"{s.hands:,}", help=tr("bt_with_main", n=f"{s.bets:,}"))
    c[1].metric(tr("bt_wagered"), f"{s.wagered:,.0f}")
    c[2].metric(tr("col_net"), f"{s.net:+,.0f}")
    ev = "–" if s.ev is None else f"{s.ev:+.3%}"
    ci = "" if s.ci is None else tr("bt_ci", lo=f"{s.ci[0]:+.3%}", hi=f"{s.ci[1]:+.3%}")
    c[3].metric(tr("bt_ev"), ev, help=ci or None)
    c[4].metric(tr("bt_ruin"), f"{s.risk_of_ruin:.2%}", help=tr("bt_ruin_help"))
    verdict = verdict_text(s.verdict, lang())
    if s.verdict.finding in (backtest.Finding.BETTER, backtest.Finding.WORSE):
        st.warning(verdict)
    else:
        st.info(verdict)
    if s.unsettled:
        st.caption(tr("bt_unsettled", n=f"{s.unsettled:,}"))
    left, right = st.columns(2)
    bands = backtest.bands(result.run.paths, int(result.run.per_shoe["hands"].max()))
    fan = charts.fan_chart(bands, result.resolved.bankroll, result.run.paths.shape[0], lang())
    left.plotly_chart(fan, width="stretch")
    right.plotly_chart(charts.net_histogram(result.run.per_shoe["net"], lang()), width="stretch")
    by_bet = s.by_bet.select(
        pl.col("bet").replace_strict({b: _label(b) for b in s.by_bet["bet"]}).alias(tr("col_bet")),
        pl.col("wagered").alias(tr("bt_wagered")),
        pl.col("net").alias(tr("col_net")),
        (pl.col("ev") * 100).round(3).alias(tr("bt_ev_pct")),
        (pl.col("exact_ev") * 100).round(3).alias(tr("bt_exact_ev_pct")),
    )
    st.dataframe(by_bet, hide_index=True)
    with st.expander(tr("bt_per_shoe")):
        st.dataframe(_per_shoe_view(result.run.per_shoe.head(10_000)), hide_index=True)
        st.download_button(
            tr("bt_download"),
            result.run.per_shoe.write_csv().encode(),
            file_name="backtest_per_shoe.csv",
            mime="text/csv",
        )


_PER_SHOE_WORDS = {
    "shoe": "shoe",
    "hands": "hands",
    "bets": "bt_col_bets",
    "stop": "bt_col_stop",
    "stop_hand": "bt_col_stop_hand",
    "wagered": "bt_wagered",
    "net": "col_net",
    "final": "bt_col_final",
    "low": "bt_col_low",
}
"""The per-shoe table's columns as the page names them (the CSV keeps the engine's)."""


def _per_shoe_view(per_shoe: pl.DataFrame) -> pl.DataFrame:
    """The per-shoe rows with the page's words for their columns and stops."""
    names = {}
    for col in per_shoe.columns:
        kind, _, bet = col.partition("_")
        if col in _PER_SHOE_WORDS:
            names[col] = tr(_PER_SHOE_WORDS[col])
        else:  # wagered_<bet>, net_<bet>
            names[col] = f"{tr(_PER_SHOE_WORDS[kind])} · {_label(bet)}"
    stops = {s: tr(f"stop_{s.replace(' ', '_').replace('-', '_')}") for s in backtest.STOPS}
    return per_shoe.with_columns(pl.col("stop").cast(pl.String).replace_strict(stops)).rename(names)


def render_backtest_page() -> None:
    """Inputs, a run button with a progress bar, and the last result."""
    st.header(tr("bt_title"))
    st.caption(tr("bt_intro"))
    tables = list_tables()
    if not tables:
        st.error(tr("bt_no_tables"))
        return
    left, right = st.columns([2, 1])
    with left:
        rules = st.selectbox(
            tr("table"),
            tables,
            index=tables.index(fallback_table(tables)),
            key="bt_rules",
        )
    try:
        table = load_table(rules)
        with left:
            strategy = _strategy_inputs(table)
        with right:
            source = st.radio(
                tr("bt_shoes"),
                _SOURCES,
                horizontal=True,
                key="bt_source",
                format_func=_named(_SOURCES, lambda k: tr(f"bt_source_{k}")),
            )
            simulated = source == _SOURCES[0]
            shoes = st.number_input(
                tr("bt_n_shoes"),
                1,
                MAX_UI_SHOES,
                10_000,
                step=1000,
                disabled=not simulated,
                key="bt_shoes",
            )
            seed = st.number_input(
                tr("seed"), 0, 2**53 - 1, 1, disabled=not simulated, key="bt_seed"
            )
            if simulated and cluster_address():
                st.caption(tr("bt_on_cluster", address=md_text(cluster_address() or "")))
        money = _money_inputs(table)
    except RoadsAppError as e:
        st.error(say(e))
        return
    if st.button(tr("bt_run"), type="primary", key="bt_run"):
        _run(strategy, money, table, source, int(shoes), int(seed))
    result = st.session_state.get(RESULT_KEY)
    if result is not None:
        _show(result)
