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
from typing import Any

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from roads_app.bets import ledger as BL
from roads_app.bets.settlement import read_reason
from roads_app.bets.tables import SHORTCUT_LABELS, Table, list_tables, load_table
from roads_app.errors import BetError, RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.render.i18n import DEFAULT
from roads_app.store import db
from roads_app.ui import access
from roads_app.ui.board_view import lang
from roads_app.ui.words import bet_id_name, bet_name, labels, md_text, say, tr

DEFAULT_BANKROLL = 1000.0
ERROR_KEY = "roads_app.bet_error"
OUTCOME_COLOUR = {"win": "green", "lose": "red", "push": "gray", "refund": "orange"}
OUTCOMES: tuple[str, ...] = ("win", "lose", "push", "refund", "refused", "pending")
"""A settled bet's outcomes, each named in the catalogue (``outcome_<name>``)."""


def table_for(meta: ShoeMeta) -> tuple[Table, str | None]:
    """The shoe's table, or the classic one with a note when its rules file is gone."""
    try:
        return load_table(meta.rules), None
    except RoadsAppError as e:
        fallback = "classic" if "classic" in list_tables() else list_tables()[0]
        return load_table(fallback), tr("table_fallback", why=say(e), table=fallback)


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
            return _edges(table.name, counts), tr("edge_from_unseen", n=rem.hand)
    except RoadsAppError:
        pass
    return _edges(table.name, None), tr("edge_full_shoe")


# --- actions (callbacks: the file is the truth, read, change, write) ---------------------


def _error(key: str, message: str | None) -> None:
    st.session_state[f"{ERROR_KEY}.{key}"] = message  # said by `say`: already scrubbed


@access.writes
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
        _error(key, say(e))


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
            hovertemplate=tr("after_round") + " %{x}: %{y:,.2f}<extra></extra>",
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
    hold: bool = False,
) -> None:
    """The whole panel for one shoe at one position (default: after its last round).

    ``ensure_saved`` is called before the first bet of a shoe that has no file yet.
    ``hold``: the last round's hand is being revealed, so its settlement (bankroll, chart,
    history) shows only when the board's held marks do.
    """
    pos = rounds.height if position is None else max(0, min(position, rounds.height))
    next_round = pos + 1
    table, note = table_for(meta)
    try:
        bets = db.open_store(data_dir).load_bets(shoe_id, kind)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        return
    args = (shoe_id, data_dir, kind)

    st.markdown(tr("bets_head", table=md_text(table.title), n=next_round))
    if note:
        st.caption(note)
    start = st.number_input(
        tr("starting_bankroll"), min_value=0.0, value=DEFAULT_BANKROLL, step=100.0,
        key=f"{key}_start",
    )
    settled = BL.settle_log(bets, rounds, table, upto=pos)
    curve = BL.bankroll(settled, start, pos)
    hold = hold and pos > 0
    if hold:
        from roads_app.ui.board_view import held_pair

        held = BL.settle_log(bets, rounds, table, upto=pos - 1)
        held_curve = BL.bankroll(held, start, pos - 1)
        st.markdown(
            held_pair(f"{key}-bank", pos, _bankroll_line(held, held_curve, "-held"),
                               _bankroll_line(settled, curve)),
            unsafe_allow_html=True,
        )  # fmt: skip
    else:
        st.markdown(_bankroll_line(settled, curve), unsafe_allow_html=True)

    st.segmented_control(
        tr("chip"), BL.CHIPS, default=BL.CHIPS[2], key=f"{key}_chip", required=True,
        format_func=lambda c: f"{c:,}",
    )  # fmt: skip
    stake = _stake(key)
    mode = _entry_mode(rounds, pos, key, choosable=position is None)
    edges, edge_note = house_edges(table, rounds.head(pos), meta)
    on_next = BL.pending(bets, next_round).group_by("bet").agg(pl.col("stake").sum())
    staked = dict(on_next.iter_rows())
    hand = float(curve["bankroll"][-1])

    def bet_button(bet_id: str, where: Any, main: bool = False) -> None:
        bet = table.bets[bet_id]
        reason = (
            _said(BL.can_place(bets, bet_id, stake, next_round, table))
            or entry_reason(bet, mode)
            or beyond_bankroll(bets, stake, next_round, hand)
        )
        edge = edges.get(bet_id)
        pays = f"{bet.payout:g}:1"
        if bet.payouts.get("six") not in (None, bet.payout):
            pays += f" (6: {bet.payouts['six']:g}:1)"
        # The button holds the name (and the chips on it); payout and edge go under it,
        # where they wrap in a narrow column instead of being cut off.
        name = md_text(bet_name(bet))  # a table file's own label: text
        label = f"**{name}**" if main else name
        price = pays if edge is None else f"{pays} · {tr('edge')} {100 * edge:.2f}%"
        if staked.get(bet_id):
            label += f" · **{staked[bet_id]:,.0f}**"
        about = tr("pays_about", bet=name, pays=pays)
        if edge is not None:
            about += "; " + tr("house_edge_about", pct=f"{100 * edge:.4f}")
        where.button(
            label, key=f"{key}_bet_{bet_id}", disabled=reason is not None,
            help=reason or about, width="stretch",
            type="primary" if main and staked.get(bet_id) else "secondary",
            on_click=_change,
            args=(key, *args, _placer(bet_id, stake, next_round, table, hand, mode),
                  ensure_saved),
        )  # fmt: skip
        where.caption(f"{price}. {reason}" if reason and main else price)

    # The betting layout: side bets of each hand above it, the main three in a row.
    left, middle, right = st.columns(3, gap="small")
    for bet_id in table.bets:
        if bet_id not in MAIN_BETS:
            bet_button(bet_id, {"player": left, "banker": right}.get(_side_of(bet_id), middle))
    for bet_id, col in zip(MAIN_BETS, st.columns(3, gap="small"), strict=True):
        if bet_id in table.bets:
            bet_button(bet_id, col, main=True)
    unsettled = [md_text(bet_name(b)) for b in table.bets.values() if entry_reason(b, mode)]
    if unsettled:
        st.caption(tr("not_offered", mode=tr(ENTRY_LABELS[mode]).lower(),
                      bets=", ".join(unsettled), what=_needs_text(table, mode)))  # fmt: skip
    with st.container(horizontal=True, gap="small", key=f"{key}_buttons"):
        for name, parts in table.shortcuts.items():
            total = stake * len(parts)
            reason = (
                next((entry_reason(table.bets[p], mode) for p in parts
                      if p in table.bets and entry_reason(table.bets[p], mode)), None)
                or beyond_bankroll(bets, total, next_round, hand)
                or _said(table.can_place(name, next_round, stake))
            )  # fmt: skip
            part_edges = [edges.get(p) for p in parts]
            price = f"{len(parts)} × {stake:,.0f} = {total:,.0f}"
            if None not in part_edges:
                price += f" · {100 * sum(part_edges) / len(parts):.2f}%"  # type: ignore[arg-type]
            labels = md_text(" + ".join(bet_name(table.bets[p]) if p in table.bets else p
                                        for p in parts))  # fmt: skip
            st.button(
                f"{bet_id_name(name, SHORTCUT_LABELS.get(name, name))} · {price}",
                key=f"{key}_short_{name}",
                disabled=reason is not None, help=reason or labels,
                on_click=_change,
                args=(key, *args, _shortcut(parts, stake, next_round, table, hand, mode),
                      ensure_saved),
            )  # fmt: skip
    closed = [
        md_text(bet_name(b)) for b in table.bets.values()
        if b.closes_after is not None and next_round > b.closes_after
    ]
    if closed:
        st.caption(tr("closed_for", n=next_round, bets=", ".join(closed)))
    st.caption(tr("edge_note", note=edge_note))
    with st.container(horizontal=True, gap="small"):
        st.button(
            tr("undo_chip"), key=f"{key}_undo_chip", icon=":material/undo:",
            disabled=not BL.can_clear(bets, next_round),
            on_click=_change,
            args=(key, *args, lambda b: BL.undo_last(b, next_round), None),
        )  # fmt: skip
        st.button(
            tr("clear_bets"), key=f"{key}_clear", disabled=not BL.can_clear(bets, next_round),
            on_click=_change,
            args=(key, *args, lambda b: BL.clear(b, next_round), None),
        )  # fmt: skip
        if allow_void:
            st.button(
                tr("void_round", n=next_round), key=f"{key}_void",
                disabled=not BL.can_void(bets, next_round),
                help=tr("void_help"),
                on_click=_change,
                args=(key, *args, lambda b: BL.void(b, next_round), None),
            )  # fmt: skip
    message = st.session_state.get(f"{ERROR_KEY}.{key}")
    if message:
        st.error(message, icon=":material/error:")

    if not hold:
        _settled_view(settled, curve, table, key)
        return
    # Fixed keys, the rule first: whatever the order the page applies them in, the copy
    # with the revealed round stays hidden until the board shows that round.
    from roads_app.ui.board_view import held_css

    st.html(held_css(f"st-key-{key}_settled_held", f"st-key-{key}_settled_now", pos))
    with st.container(key=f"{key}_settled_held"):
        _settled_view(held, held_curve, table, f"{key}_held")
    with st.container(key=f"{key}_settled_now"):
        _settled_view(settled, curve, table, key)


def _bankroll_line(settled: pl.DataFrame, curve: pl.DataFrame, testid: str = "") -> str:
    """Bankroll, net and stakes on the table (``testid`` marks a held copy's numbers)."""
    tot = BL.totals(settled)
    return (
        f"{tr('bankroll')} <b data-testid='bankroll{testid}'>{curve['bankroll'][-1]:,.2f}</b>"
        f" · {tr('net')} <b data-testid='bet-net{testid}'>{tot['net']:+,.2f}</b> · "
        f"{tr('on_the_table')} <b data-testid='bet-pending{testid}'>{tot['pending']:,.0f}</b>"
    )


def _settled_view(settled: pl.DataFrame, curve: pl.DataFrame, table: Table, key: str) -> None:
    """The bankroll chart (once there are bets) and the bet history."""
    if settled.height:  # no chart to redraw on every result for a player not betting
        st.plotly_chart(
            bankroll_figure(curve), key=f"{key}_bankroll", config={"displayModeBar": False}
        )
    render_history(settled, table)


def beyond_bankroll(bets: pl.DataFrame, stake: float, round_no: int, hand: float) -> str | None:
    """The ledger's bankroll rule (`ledger.beyond_bankroll`), said in the page's language."""
    return _said(BL.beyond_bankroll(bets, stake, round_no, hand))


def _said(reason: str | None) -> str | None:
    """A refusal of the ledger or the table in the page's language (None stays None)."""
    return None if reason is None else say(reason)


def notes(reasons: pl.Series, table: Table) -> pl.Series:
    """The settled bets' reasons (English, written row by row by the settlement) in the
    page's language: each read back into the message it was made from, bets named as
    the page names them."""
    if lang() == DEFAULT:
        return reasons
    said: dict[str, str] = {}
    for text in reasons.drop_nulls().unique().to_list():
        message = read_reason(text, table)
        said[text] = text if message is None else message.text(lang())
    return reasons.replace_strict(said, default=reasons, return_dtype=pl.String)


def _checked(
    change: Callable[[pl.DataFrame], pl.DataFrame],
    bet_ids: tuple[str, ...],
    total: float,
    round_no: int,
    table: Table,
    bankroll: float,
    mode: str,
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """The change, refused (one line) if the entry mode or the bankroll cannot take it:
    the check the button made is made again on the ledger as it is when clicked."""

    def run(bets: pl.DataFrame) -> pl.DataFrame:
        for bet_id in bet_ids:
            if bet_id in table.bets and (why := entry_reason(table.bets[bet_id], mode)):
                raise BetError(why)
        if why := beyond_bankroll(bets, total, round_no, bankroll):
            raise BetError(why)
        return change(bets)

    return run


def _placer(
    bet_id: str, stake: float, round_no: int, table: Table, bankroll: float, mode: str
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return _checked(lambda b: BL.place(b, bet_id, stake, round_no=round_no, table=table),
                    (bet_id,), stake, round_no, table, bankroll, mode)  # fmt: skip


def _shortcut(
    parts: tuple[str, ...], stake: float, round_no: int, table: Table, bankroll: float,
    mode: str,
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return _checked(
        lambda b: BL.place_shortcut(b, parts, stake, round_no=round_no, table=table),
        tuple(parts), stake * len(parts), round_no, table, bankroll, mode,
    )


# --- what the entry mode can settle ------------------------------------------------------

MAIN_BETS: tuple[str, ...] = ("player", "tie", "banker")
ENTRY_ORDER: tuple[str, ...] = ("winner", "points", "cards")
"""How much of a round is entered, least first; a bet needs its kind's `entry` or more."""
ENTRY_LABELS: dict[str, str] = {"winner": "entry_winner", "points": "entry_points",
                                "cards": "entry_cards"}  # fmt: skip
"""Catalogue keys of the entry modes' names."""
NEED_WORDS: dict[str, str] = {"points": "need_points", "cards": "need_cards"}
"""Catalogue keys of what a bet needs of a round."""


def entry_reason(bet: Any, mode: str) -> str | None:
    """Why ``bet`` is not offered when rounds are entered by ``mode`` (None: it is).

    A bet whose result depends on what the entry does not record (Banker's half pay on
    a 6 when only the winner is keyed, Big/Small without the cards) would be taken and
    then come back refused; it is not offered instead.
    """
    need = needed_entry(bet)
    if ENTRY_ORDER.index(need) <= ENTRY_ORDER.index(mode):
        return None
    return tr("bet_needs", bet=md_text(bet_name(bet)), what=tr(NEED_WORDS[need]),
              how=tr(ENTRY_LABELS[need]).lower())  # fmt: skip


def needed_entry(bet: Any) -> str:
    """The least entry that settles ``bet`` *at this table*: its kind's `entry`, except
    that data which only chooses between payouts this table pays alike is not needed
    (Banker needs the totals only where a win on 6 pays less)."""
    need = str(bet.spec.entry)
    spec = bet.spec
    if (need == "points" and set(spec.needs) <= {"winner", "points"}
            and len(spec.payouts) > 1 and len(set(bet.payouts.values())) == 1):  # fmt: skip
        return "winner"
    return need


def _needs_text(table: Table, mode: str) -> str:
    needs = {needed_entry(b) for b in table.bets.values() if entry_reason(b, mode)}
    return tr("or_word").join(tr(NEED_WORDS[n]) for n in ENTRY_ORDER if n in needs)


def _side_of(bet_id: str) -> str:
    """Which hand a side bet belongs to on the layout (player, banker, or neither)."""
    for side in ("player", "banker"):
        if bet_id.startswith(f"{side}_") or bet_id.endswith(f"_{side}"):
            return side
    return "middle"


def round_entry(row: dict[str, Any]) -> str:
    """How a round was entered: by its cards, its points, or its winner only."""
    if row.get("player_cards") is not None:
        return "cards"
    return "points" if row.get("player_points") is not None else "winner"


def _entry_mode(rounds: pl.DataFrame, pos: int, key: str, *, choosable: bool) -> str:
    """How the next round will be entered: picked on the scoreboard (the last round's
    way by default), and what the next round holds when replaying a shoe."""
    if not choosable:
        return round_entry(rounds.row(pos, named=True)) if pos < rounds.height else "cards"
    widget = f"{key}_entry_mode"
    if st.session_state.get(widget) not in ENTRY_ORDER:
        st.session_state[widget] = (
            round_entry(rounds.row(rounds.height - 1, named=True)) if rounds.height else "winner"
        )
    st.segmented_control(
        tr("next_entered_by"), ENTRY_ORDER, key=widget, required=True,
        format_func=labels(ENTRY_LABELS),
        help=tr("next_entered_help"),
    )  # fmt: skip
    return str(st.session_state[widget])


def render_history(settled: pl.DataFrame, table: Table) -> None:
    """Every bet, newest first, with its result (bets by the table's own labels)."""
    if not settled.height:
        st.caption(tr("no_bets_yet"))
        return
    labels = {k: bet_name(b) for k, b in table.bets.items()}
    outcomes = {o: tr(f"outcome_{o}") for o in OUTCOMES}
    settled = settled.with_columns(reason=notes(settled["reason"], table))
    view = settled.sort("id", descending=True).select(
        pl.col("round").alias(tr("col_round")),
        pl.col("bet").replace_strict(labels, default=pl.col("bet")).alias(tr("col_bet")),
        pl.col("stake").alias(tr("col_stake")),
        pl.col("outcome").replace_strict(outcomes, default=pl.col("outcome"))
        .alias(tr("col_outcome")),
        pl.col("net").alias(tr("col_net")),
        pl.col("reason").fill_null("").alias(tr("col_note")),
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
