"""The bet simulator panel: stake chips on the next round, see them settle, void a round.

Bets live in `roads_app.bets.ledger` files beside the shoe, read at every draw and written
atomically at every change, so a refresh keeps them. Results are not stored: they are
`bets_log.settle_log` of the bets against the rounds shown, so on the replay page the
bankroll follows the replay position back and forth.

Each bet button shows the payout and the exact house edge: for the next hand from the
unseen cards when every round so far has its cards (`live_odds`), else off the top.
A bet the table no longer takes (its closing round passed) is shown disabled with why.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from roads_app.bets import ledger as BL
from roads_app.bets.tables import SHORTCUT_LABELS, Table, list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.store import db

DEFAULT_BANKROLL = 1000.0
ERROR_KEY = "roads_app.bet_error"
OUTCOME_COLOUR = {"win": "green", "lose": "red", "push": "gray", "refund": "orange"}


def table_for(meta: ShoeMeta) -> tuple[Table, str | None]:
    """The shoe's table, or the classic one with a note when its rules file is gone."""
    try:
        return load_table(meta.rules), None
    except RoadsAppError as e:
        fallback = "classic" if "classic" in list_tables() else list_tables()[0]
        return load_table(fallback), f"{e} — using the {fallback} table for bets"


@st.cache_data(max_entries=256, show_spinner=False)
def _edges(table_name: str, counts: tuple[int, ...] | None) -> dict[str, float]:
    """House edge of every bet, from a card composition (None: a full shoe)."""
    import numpy as np

    from roads_app.bets.odds import bet_odds

    table = load_table(table_name)
    frame = bet_odds(table, None if counts is None else np.array(counts, dtype=np.int64))
    return dict(zip(frame["bet"].to_list(), frame["house_edge"].to_list(), strict=True))


def house_edges(table: Table, rounds: pl.DataFrame, meta: ShoeMeta) -> tuple[dict, str]:
    """Edges for the next hand and what they are computed from (shown under the buttons)."""
    try:
        from roads_app.bets.live_odds import remaining_counts

        rem = remaining_counts(rounds, meta)
        if rem.ok and rem.counts is not None and rounds.height:
            counts = tuple(int(x) for x in rem.counts)
            return _edges(table.name, counts), f"edge for hand {rem.hand}, from unseen cards"
    except RoadsAppError:
        pass
    return _edges(table.name, None), "edge off the top of a full shoe"


# --- actions (callbacks: the file is the truth, read, change, write) ---------------------


def _error(key: str, message: str | None) -> None:
    st.session_state[f"{ERROR_KEY}.{key}"] = message


def _change(
    key: str,
    shoe_id: str,
    data_dir: Path,
    kind: str,
    change: Callable[[pl.DataFrame], pl.DataFrame],
    ensure_saved: Callable[[], bool] | None,
) -> None:
    _error(key, None)
    if ensure_saved is not None and not ensure_saved():
        return
    try:
        db.open_store(data_dir).change_bets(shoe_id, kind, change)
    except RoadsAppError as e:
        _error(key, str(e))


def _stake(key: str) -> float:
    return float(st.session_state.get(f"{key}_chip") or BL.CHIPS[2])


# --- drawing -----------------------------------------------------------------------


def bankroll_figure(curve: pl.DataFrame) -> go.Figure:
    """The bankroll after each round as a line; ``layout.meta`` lets tests read the end."""
    last = float(curve["bankroll"][-1]) if curve.height else None
    fig = go.Figure(
        go.Scatter(
            x=curve["round"].to_list(),
            y=curve["bankroll"].to_list(),
            mode="lines+markers" if curve.height < 40 else "lines",
            line={"color": "#1565c0", "width": 2},
            marker={"size": 4},
            name="bankroll",
            hovertemplate="after round %{x}: %{y:,.2f}<extra></extra>",
        )
    )
    fig.update_layout(
        height=200,
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        xaxis={"title": None, "rangemode": "tozero"},
        yaxis={"title": None},
        showlegend=False,
        meta={"bankroll": last, "rounds": int(curve["round"].max() or 0) if curve.height else 0},
    )
    return fig


def render_bet_panel(
    *,
    shoe_id: str,
    rounds: pl.DataFrame,
    meta: ShoeMeta,
    data_dir: Path,
    position: int | None = None,
    kind: str = "bets",
    allow_void: bool = True,
    ensure_saved: Callable[[], bool] | None = None,
    key: str = "bets",
) -> None:
    """The whole panel for one shoe at one position (default: after its last round).

    ``ensure_saved`` is called before the first bet of a shoe that has no file yet.
    """
    pos = rounds.height if position is None else max(0, min(position, rounds.height))
    next_round = pos + 1
    table, note = table_for(meta)
    try:
        bets = db.open_store(data_dir).load_bets(shoe_id, kind)
    except RoadsAppError as e:
        st.error(str(e), icon=":material/error:")
        return
    args = (shoe_id, data_dir, kind)

    st.markdown(f"**Bets** · {table.title} · next round **{next_round}**")
    if note:
        st.caption(note)
    start = st.number_input(
        "Starting bankroll", min_value=0.0, value=DEFAULT_BANKROLL, step=100.0, key=f"{key}_start"
    )
    settled = BL.settle_log(bets, rounds, table, upto=pos)
    curve = BL.bankroll(settled, start, pos)
    tot = BL.totals(settled)
    st.markdown(
        f"Bankroll <b data-testid='bankroll'>{curve['bankroll'][-1]:,.2f}</b> · "
        f"net <b data-testid='bet-net'>{tot['net']:+,.2f}</b> · "
        f"on the table <b data-testid='bet-pending'>{tot['pending']:,.0f}</b>",
        unsafe_allow_html=True,
    )

    st.segmented_control(
        "Chip", BL.CHIPS, default=BL.CHIPS[2], key=f"{key}_chip", required=True,
        format_func=lambda c: f"{c:,}",
    )  # fmt: skip
    stake = _stake(key)
    edges, edge_note = house_edges(table, rounds.head(pos), meta)
    on_next = BL.pending(bets, next_round).group_by("bet").agg(pl.col("stake").sum())
    staked = dict(on_next.iter_rows())
    with st.container(horizontal=True, gap="small", key=f"{key}_buttons"):
        for bet_id, bet in table.bets.items():
            reason = BL.can_place(bets, bet_id, stake, next_round, table)
            edge = edges.get(bet_id)
            label = f"{bet.label} {bet.payout:g}:1"
            if edge is not None:
                label += f" · {100 * edge:.2f}%"
            if staked.get(bet_id):
                label += f" · **{staked[bet_id]:,.0f}**"
            about = f"{bet.label} pays {bet.payout:g} to 1"
            if edge is not None:
                about += f"; house edge {100 * edge:.4f}%"
            st.button(
                label, key=f"{key}_bet_{bet_id}", disabled=reason is not None,
                help=reason or about,
                on_click=_change,
                args=(key, *args, _placer(bet_id, stake, next_round, table), ensure_saved),
            )  # fmt: skip
        for name, parts in table.shortcuts.items():
            reason = table.can_place(name, next_round, stake)
            st.button(
                SHORTCUT_LABELS.get(name, name), key=f"{key}_short_{name}",
                disabled=reason is not None, help=reason or " + ".join(parts),
                on_click=_change,
                args=(key, *args, _shortcut(parts, stake, next_round, table), ensure_saved),
            )  # fmt: skip
    closed = [
        b.label for b in table.bets.values()
        if b.closes_after is not None and next_round > b.closes_after
    ]
    if closed:
        st.caption(f"Closed for round {next_round}: {', '.join(closed)}.")
    st.caption(f"Buttons: payout · house {edge_note}.")
    with st.container(horizontal=True, gap="small"):
        st.button(
            "Clear bets", key=f"{key}_clear", disabled=not BL.can_clear(bets, next_round),
            on_click=_change,
            args=(key, *args, lambda b: BL.clear(b, next_round), None),
        )  # fmt: skip
        if allow_void:
            st.button(
                f"Void round {next_round}", key=f"{key}_void",
                disabled=not BL.can_void(bets, next_round),
                help="the round was cancelled at the table (a card-reading failure): "
                "its bets are refunded and no round is added",
                on_click=_change,
                args=(key, *args, lambda b: BL.void(b, next_round), None),
            )  # fmt: skip
    message = st.session_state.get(f"{ERROR_KEY}.{key}")
    if message:
        st.error(message, icon=":material/error:")

    if settled.height:  # no chart to redraw on every result for a player not betting
        st.plotly_chart(
            bankroll_figure(curve), key=f"{key}_bankroll", config={"displayModeBar": False}
        )
    render_history(settled, table)


def _placer(
    bet_id: str, stake: float, round_no: int, table: Table
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda b: BL.place(b, bet_id, stake, round_no=round_no, table=table)


def _shortcut(
    parts: tuple[str, ...], stake: float, round_no: int, table: Table
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return lambda b: BL.place_shortcut(b, parts, stake, round_no=round_no, table=table)


def render_history(settled: pl.DataFrame, table: Table) -> None:
    """Every bet, newest first, with its result (bets by the table's own labels)."""
    if not settled.height:
        st.caption("No bets yet: pick a chip, then a bet for the next round.")
        return
    labels = {k: b.label for k, b in table.bets.items()}
    view = settled.sort("id", descending=True).select(
        pl.col("round").alias("Round"),
        pl.col("bet").replace_strict(labels, default=pl.col("bet")).alias("Bet"),
        pl.col("stake").alias("Stake"),
        pl.col("outcome").alias("Outcome"),
        pl.col("net").alias("Net"),
        pl.col("reason").fill_null("").alias("Note"),
    )
    st.dataframe(view, hide_index=True, height=min(36 * (view.height + 1), 300))


def render_entry_bets(state: object) -> None:
    """The panel on the scoreboard: bets on the next round entered; voids allowed.

    A shoe not saved yet is saved (empty) before its first bet, so the bets have a
    shoe to sit beside and the URL names it.
    """
    from roads_app.ui import session

    def ensure_saved() -> bool:
        return session.current().saved or session.apply("bets", lambda r, m: r)

    s: session.ShoeState = state  # type: ignore[assignment]
    render_bet_panel(
        shoe_id=s.meta.id, rounds=s.rounds, meta=s.meta, data_dir=session.data_dir(),
        ensure_saved=ensure_saved, key="bets",
    )  # fmt: skip
    if session.errors().get("bets"):
        st.error(session.errors()["bets"], icon=":material/error:")
