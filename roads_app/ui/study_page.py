"""The live-odds study page: how often each bet turns positive over many simulated shoes,
and what betting one unit only then would have won per shoe.

The work is in `roads_app.bets.live_odds` and `roads_app.sim.study`; this page runs the
study in cached pieces (so a second run of the same inputs costs look-ups) and draws it.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

import polars as pl
import streamlit as st

from roads_app.bets import live_odds
from roads_app.bets.tables import list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.render import charts
from roads_app.ui.board_view import lang
from roads_app.ui.live_odds import table_height
from roads_app.ui.words import bet_name, md_text, say, tr

STUDY_CHUNK = 25
"""Shoes per progress step on the study page."""


@lru_cache(maxsize=256)
def _study_part(
    table_name: str, seed: int, start: int, stop: int, closing: bool
) -> live_odds.StudyPart:
    from roads_app.sim.study import study_range

    return study_range(seed, range(start, stop), load_table(table_name), closing=closing)


def run_study(
    table_name: str,
    seed: int,
    n_shoes: int,
    closing: bool,
    progress: Callable[[int, int], None] | None = None,
) -> live_odds.StudyResult:
    """The study in cached pieces of `STUDY_CHUNK` shoes (same result as `odds_study`)."""
    live_odds.check_study_size(n_shoes)
    parts = []
    for start in range(0, n_shoes, STUDY_CHUNK):
        stop = min(start + STUDY_CHUNK, n_shoes)
        parts.append(_study_part(table_name, seed, start, stop, closing))
        if progress is not None:
            progress(stop, n_shoes)
    return live_odds.summarize_study(parts, seed, load_table(table_name), closing)


def _study_table(result: live_odds.StudyResult) -> pl.DataFrame:
    table = load_table(result.table)
    names = {
        bet: bet_name(table.bets[bet]) if bet in table.bets else bet
        for bet in result.summary["bet"]
    }
    return result.summary.select(
        pl.col("bet").replace_strict(names).alias(tr("col_bet")),
        pl.col("payout")
        .map_elements(lambda x: f"{x:g}:1", return_dtype=pl.String)
        .alias(tr("col_pays")),
        (100 * pl.col("positive_share")).round(3).alias(tr("st_positive_pct")),
        pl.col("bets_per_shoe").round(3).alias(tr("st_bets_per_shoe")),
        pl.col("net_per_shoe").round(4).alias(tr("st_net_per_shoe")),
        pl.format(
            tr("st_ci_range"), pl.col("net_ci_low").round(3), pl.col("net_ci_high").round(3)
        ).alias(tr("st_ci")),
        pl.col("ev_per_shoe").round(4).alias(tr("st_exact_ev")),
    )


def render_study_page() -> None:
    """Page body: how often each bet turns positive over many simulated shoes, and what
    betting one unit only then would have won per shoe."""
    st.header(tr("st_title"))
    st.caption(tr("st_intro"))
    tables = list_tables()
    c1, c2, c3, c4 = st.columns([2, 1, 1, 2])
    name = c1.selectbox(
        tr("table"),
        tables,
        index=tables.index("winbox") if "winbox" in tables else 0,
        key="study.table",
    )
    seed = int(c2.number_input(tr("seed"), min_value=0, value=1, step=1, key="study.seed"))
    shoes = int(
        c3.number_input(
            tr("bt_shoes"), min_value=1, max_value=20000, value=200, step=100, key="study.shoes"
        )
    )
    closing = c4.checkbox(
        tr("st_closing"),
        value=True,
        key="study.closing",
        help=tr("st_closing_help"),
    )
    inputs = (name, seed, shoes, closing)
    if st.button(tr("st_run"), type="primary", key="study.run"):
        bar = st.progress(0.0, text=tr("st_dealing"))
        try:
            result = run_study(
                name,
                seed,
                shoes,
                closing,
                progress=lambda done, total: bar.progress(
                    done / total, text=tr("bt_progress", done=f"{done:,}", total=f"{total:,}")
                ),
            )
        except RoadsAppError as e:
            bar.empty()
            st.error(say(e))
            return
        bar.empty()
        st.session_state["study.result"] = (inputs, result)
    stored = st.session_state.get("study.result")
    if not stored:
        st.info(tr("st_choose"))
        return
    shown_inputs, result = stored
    if shown_inputs != inputs:
        st.caption(tr("st_previous"))
    st.markdown(
        tr(
            "st_head",
            shoes=f"{result.n_shoes:,}",
            seed=result.seed,
            table=md_text(result.table),
            hands=f"{result.hands:,}",
        )
        + ("" if result.closing else tr("st_ignored"))
    )
    if (
        result.closing
        and (result.summary["bets_per_shoe"] < result.summary["positive_share"]).any()
    ):
        st.caption(tr("st_late"))
    st.dataframe(
        _study_table(result),
        hide_index=True,
        width="stretch",
        key="study.table_out",
        height=table_height(result.summary.height),
    )
    per_shoe = result.per_shoe.filter(pl.col("bets") > 0)
    if per_shoe.height:
        table = load_table(result.table)
        names = {b: bet_name(bet) for b, bet in table.bets.items()}
        fig = charts.study_box_figure(per_shoe, names, lang())
        st.plotly_chart(fig, theme=None, key="study.box")
