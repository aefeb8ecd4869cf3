"""Streamlit widgets for live odds: the next hand's bets from the unseen cards and the EV
chart through a shoe (the study page over many simulated shoes is `ui/study_page.py`).

The work is in `roads_app.bets.live_odds`; this file only caches and draws. Every widget
is keyed on its inputs (the table, the unseen counts, the cards of the shoe) through
``functools.lru_cache``, so re-drawing after a hand costs a dictionary look-up unless a
card changed (not ``st.cache_data``: it keeps a lock and a key for every input it ever
saw, past its ``max_entries``: a few hundred bytes for every hand entered, for good). A
shoe entered without cards shows a one-line note instead of odds.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
import polars as pl
import streamlit as st

from roads_app.bets import live_odds
from roads_app.bets.tables import Table, load_table
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.render import charts
from roads_app.ui import plot_host
from roads_app.ui.words import bet_name, md_text, say, tr

if TYPE_CHECKING:
    import pandas as pd
    from pandas.io.formats.style import Styler

POSITIVE_BG = "background-color: rgba(46, 160, 67, 0.25)"
CLOSED_FG = "color: #999999"

CHART_DEFAULT_BETS = ("player", "banker", "tie", "player_pair", "small", "perfect_pair")
"""Drawn unless the user picks others: the main bets and the side bets that turn positive
most often (the study); a default from the shoe itself would hint at cards to come."""


# --- cached computations (keyed on plain, hashable inputs) -----------------------------


@lru_cache(maxsize=512)
def _priced(table_name: str, counts: tuple[int, ...], hand: int) -> pl.DataFrame:
    """The live-odds frame for one composition before hand ``hand``."""
    from roads_app.bets.odds import odds_frame, outcomes

    table = load_table(table_name)
    frame = odds_frame(table, outcomes(np.array(counts, dtype=np.int64)))
    is_open = live_odds._open_mask(table, np.array([hand], dtype=np.float64))[0]
    return frame.with_columns(
        (pl.col("ev") > live_odds.POSITIVE_EV).alias("positive"),
        pl.Series("open", is_open, dtype=pl.Boolean),
    )


def _shoe_key(rounds: pl.DataFrame, meta: ShoeMeta) -> str:
    """The cards of a shoe and what else decides its compositions, as one string."""
    cards = rounds.select("player_cards", "banker_cards").rows()
    return json.dumps([meta.decks, meta.burn_card, cards])


@lru_cache(maxsize=64)
def _chart_frame(table_name: str, key: str) -> pl.DataFrame:
    decks, burn, cards = json.loads(key)
    rounds = pl.DataFrame(
        {
            "round": list(range(1, len(cards) + 1)),
            "player_cards": [c[0] for c in cards],
            "banker_cards": [c[1] for c in cards],
        },
        schema={
            "round": pl.Int32,
            "player_cards": pl.List(pl.String),
            "banker_cards": pl.List(pl.String),
        },
    )
    meta = ShoeMeta(decks=decks, burn_card=burn)
    return live_odds.ev_through_shoe(rounds, meta, load_table(table_name))


def table_height(rows: int, row_px: int = 35) -> int:
    """Pixels for a dataframe showing every row (``row_px`` tall) without a scroll bar."""
    return 35 + row_px * rows + 3


# --- the live odds panel -----------------------------------------------------------------


def _styled(frame: pl.DataFrame) -> Styler:
    """The live-odds table with its headers and states in the page's language."""
    closed, positive = tr("odds_closed"), tr("odds_positive")
    now, pwin, ev = tr("col_now"), tr("col_pwin"), tr("col_ev")
    shown = frame.select(
        pl.col("label").alias(tr("col_bet")),
        (pl.col("payout").map_elements(lambda x: f"{x:g}:1", return_dtype=pl.String)).alias(
            tr("col_pays")
        ),
        (100 * pl.col("probability")).alias(pwin),
        (100 * pl.col("ev")).alias(ev),
        pl.when(~pl.col("open"))
        .then(pl.lit(closed))
        .when(pl.col("positive"))
        .then(pl.lit(positive))
        .otherwise(pl.lit(""))
        .alias(now),
    ).to_pandas()

    def colour(row: pd.Series) -> list[str]:
        if row[now] == positive:
            return [POSITIVE_BG] * len(row)
        if row[now] == closed:
            return [CLOSED_FG] * len(row)
        return [""] * len(row)

    return shown.style.apply(colour, axis=1).format({pwin: "{:.3f}", ev: "{:+.2f}"})


FIGURE_PX = {"col_pays": 58, "col_pwin": 70, "col_ev": 64, "col_now": 66}
WRAP_ROW_PX = 66
"""A row of two lines: Streamlit's grid wraps a cell's text only in rows taller than 4rem."""


def _columns(labels: list[str], room: int | None = None) -> dict[str, Any]:
    """Column widths: the bets' names whole ("Player Natural", not "Player Natur…"), the
    figures narrow, so the table fits its column without a sideways scroll. In ``room``
    px (a phone) too narrow for all of them, the "Now" column goes (its row's colour says
    the same) and a name too long for what is left wraps onto a second line (`_fit`)."""
    fit = _fit(labels, room)
    widths = {k: w for k, w in FIGURE_PX.items() if k != "col_now" or not fit["narrow"]}
    figures = {tr(k): st.column_config.Column(width=w) for k, w in widths.items()}
    return {tr("col_bet"): st.column_config.Column(width=fit["name"]), **figures}


def _fit(labels: list[str], room: int | None) -> dict[str, Any]:
    """The name column's width, whether the page is too narrow for every column
    (``narrow``) and whether names wrap (``wrap``), for a table ``room`` px wide."""
    name = max((_text_px(label) for label in labels), default=60) + 22
    inside = None if room is None else room - 4  # the grid's border and a rounding px
    if inside is None or name + sum(FIGURE_PX.values()) <= inside:
        return {"name": name, "narrow": False, "wrap": False}
    left = inside - sum(w for k, w in FIGURE_PX.items() if k != "col_now")
    return {"name": min(name, left), "narrow": True, "wrap": name > left}


def _text_px(text: str) -> int:
    """A generous width of ``text`` in the grid's 14 px font (wide glyphs count double)."""
    return int(sum(15 if ord(c) > 0x2E80 else 8 for c in text))


def _named(frame: pl.DataFrame, table: Table) -> pl.DataFrame:
    """``label`` as the page's language names each bet (the table's labels in English)."""
    names = {b: bet_name(bet) for b, bet in table.bets.items()}
    return frame.with_columns(
        pl.col("bet").replace_strict(names, default=pl.col("label")).alias("label")
    )


def rank_spec(by_rank: dict[str, int], decks: int) -> dict:
    """`rank_figure` as the plain spec the page draws (its inputs change only when a card
    is seen, so a rerun costs a look-up). Shared between runs: the caller does not change it."""
    return _rank_spec(tuple(by_rank.items()), decks)


@lru_cache(maxsize=64)
def _rank_spec(by_rank: tuple[tuple[str, int], ...], decks: int) -> dict:
    return json.loads(charts.rank_figure(dict(by_rank), decks).to_json())


def render_live_odds(
    rounds: pl.DataFrame,
    meta: ShoeMeta,
    table: Table,
    after: int | None = None,
    key: str = "live_odds",
    room: int | None = None,
) -> None:
    """The next hand's exact odds from the unseen cards: bets (positive ones highlighted)
    and the cards remaining by rank; a one-line note when rounds lack cards. ``room``:
    the px the table has where it is known (a phone's page), so it fits without a
    sideways scroll."""
    try:
        rem = live_odds.remaining_counts(rounds, meta, after)
    except RoadsAppError as e:
        st.warning(say(e))
        return
    if not rem.ok:
        missing = (
            rounds.head(rem.hand - 1)
            .with_row_index("n", 1)
            .filter(pl.col("player_cards").is_null())["n"]
        )
        st.caption(
            tr("odds_need_cards", n=missing[0])
            if missing.len()
            else tr("odds_unavailable", why=say(rem.reason))
        )
        return
    frame = _named(_priced(table.name, tuple(int(x) for x in rem.counts), rem.hand), table)
    positive = frame.filter(pl.col("positive") & pl.col("open"))
    head = tr("odds_head", hand=rem.hand, left=rem.cards_left)
    if positive.height:
        bets = md_text(", ".join(positive["label"].to_list()))  # the table file's labels
        head += " — " + tr("odds_positive_now", bets=bets)
    st.markdown(f"**{head}**")
    labels = frame["label"].to_list()
    fit = _fit(labels, room)
    names = ("col_bet", "col_pays", "col_pwin", "col_ev", "col_now")
    st.dataframe(
        _styled(frame),
        hide_index=True,
        width="stretch",
        key=f"{key}.table",
        height=table_height(frame.height, WRAP_ROW_PX if fit["wrap"] else 35),
        row_height=WRAP_ROW_PX if fit["wrap"] else None,
        column_order=[tr(k) for k in names if k != "col_now" or not fit["narrow"]],
        column_config=_columns(labels, room),
    )
    st.caption(tr("unseen_by_rank"))
    # Drawn in place (`plot_host`): a key press that leaves the unseen cards as they
    # were (a result entered without cards) leaves the chart still.
    plot_host.plot(
        rank_spec(rem.by_rank, meta.decks),
        key=f"{key}.ranks",
        config={"displayModeBar": False, "responsive": True},
    )


# --- the EV chart through a shoe -----------------------------------------------------------


def render_ev_chart(
    rounds: pl.DataFrame,
    meta: ShoeMeta,
    table: Table,
    upto: int | None = None,
    key: str = "ev_chart",
) -> None:
    """Each bet's EV through the shoe, markers where it was positive (replay, simulated).

    ``upto``: the replay position (rounds shown); the chart stops at the next hand.
    """
    try:
        chart = _chart_frame(table.name, _shoe_key(rounds, meta))
    except RoadsAppError as e:
        st.caption(tr("ev_chart_note", why=say(e)))
        return
    options = list(table.bets)
    default = [b for b in options if b in CHART_DEFAULT_BETS]
    chosen = st.multiselect(
        tr("bets_on_chart"),
        options,
        default=default,
        key=f"{key}.bets",
        format_func={b: bet_name(bet) for b, bet in table.bets.items()}.__getitem__,
        placeholder=tr("choose_options"),
    )
    st.plotly_chart(
        charts.ev_figure(chart, chosen, upto, last_hand=int(chart["hand"].max() or 1)),
        theme=None,
        key=f"{key}.fig",
        config={"displayModeBar": False},
    )
    seen = chart if upto is None else chart.filter(pl.col("hand") <= upto + 1)
    n_pos = seen.filter(pl.col("positive") & pl.col("open")).height
    st.caption(tr("ev_positive_count", n=n_pos))
