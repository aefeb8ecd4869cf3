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

import html
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import polars as pl
import streamlit as st

from roads_app.bets import ledger as BL
from roads_app.bets import offers
from roads_app.bets.settlement import read_reason
from roads_app.bets.spec import Outcome
from roads_app.bets.tables import SHORTCUT_LABELS, Table, fallback_table, list_tables, load_table
from roads_app.errors import BetError, RoadsAppError
from roads_app.game.rounds import EntryMode, ShoeMeta
from roads_app.i18n import DEFAULT
from roads_app.render import charts
from roads_app.store import db
from roads_app.ui import access
from roads_app.ui.board_view import lang
from roads_app.ui.page_head import static_text
from roads_app.ui.words import bet_id_name, bet_name, labels, md_text, say, tr

DEFAULT_BANKROLL = 1000.0
ERROR_KEY = "roads_app.bet_error"


def table_for(meta: ShoeMeta) -> tuple[Table, str | None]:
    """The shoe's table, or the classic one with a note when its rules file is gone."""
    try:
        return load_table(meta.rules), None
    except RoadsAppError as e:
        fallback = fallback_table(list_tables())
        return load_table(fallback), tr("table_fallback", why=say(e), table=fallback)


@lru_cache(maxsize=256)
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
        db.open_store(data_dir).bets.change(shoe_id, kind, change)
    except RoadsAppError as e:
        _error(key, say(e))


def _stake(key: str) -> float:
    return float(st.session_state.get(f"{key}_chip") or BL.CHIPS[2])


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
        bets = db.open_store(data_dir).bets.load(shoe_id, kind)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        return
    args = (shoe_id, data_dir, kind)

    st.markdown(tr("bets_head", table=md_text(table.title), n=next_round))
    if note:
        st.caption(note)
    start = st.number_input(
        tr("starting_bankroll"),
        min_value=0.0,
        value=DEFAULT_BANKROLL,
        step=100.0,
        key=f"{key}_start",
    )
    settled = BL.settle_log(bets, rounds, table, upto=pos)
    curve = BL.bankroll(settled, start, pos)
    hold = hold and pos > 0
    if hold:
        from roads_app.ui.board_view import held_pair

        held = BL.settle_log(bets, rounds, table, upto=pos - 1)
        held_curve = BL.bankroll(held, start, pos - 1)
        st.html(
            held_pair(
                f"{key}-bank",
                pos,
                _bankroll_line(held, held_curve, "-held"),
                _bankroll_line(settled, curve),
            )
        )
    else:
        st.html(_bankroll_line(settled, curve))

    st.segmented_control(
        tr("chip"),
        BL.CHIPS,
        default=BL.CHIPS[2],
        key=f"{key}_chip",
        required=True,
        format_func=lambda c: f"{c:,}",
    )
    stake = _stake(key)
    mode = _entry_mode(rounds, pos, key, choosable=position is None)
    edges, edge_note = house_edges(table, rounds.head(pos), meta)
    on_next = BL.pending(bets, next_round).group_by("bet").agg(pl.col("stake").sum())
    staked = dict(on_next.iter_rows())
    hand = float(curve["bankroll"][-1])

    at = _Place(
        key=key,
        args=args,
        table=table,
        bets=bets,
        stake=stake,
        next_round=next_round,
        mode=mode,
        hand=hand,
        edges=edges,
        staked=staked,
        ensure_saved=ensure_saved,
    )
    _render_layout(at)
    _render_not_offered(table, mode, next_round, edge_note)
    _render_actions(at, allow_void)
    message = st.session_state.get(f"{ERROR_KEY}.{key}")
    if message:
        st.error(message, icon=":material/error:")

    announce = shoe_id if position is None else None  # scoreboard: news at the key press
    if not hold:
        _settled_view(settled, curve, table, key, announce=announce)
        return
    # Fixed keys, the rule first: whatever the order the page applies them in, the copy
    # with the revealed round stays hidden until the board shows that round.
    from roads_app.ui.board_view import held_css

    st.html(held_css(f"st-key-{key}_settled_held", f"st-key-{key}_settled_now", pos))
    with st.container(key=f"{key}_settled_held"):
        _settled_view(held, held_curve, table, f"{key}_held")
    with st.container(key=f"{key}_settled_now"):
        _settled_view(settled, curve, table, key)


@dataclass(frozen=True, kw_only=True)
class _Place:
    """What the panel's buttons need to place a bet on the next round."""

    key: str
    args: tuple[str, Path, str]  # shoe id, data folder, kind of bets
    table: Table
    bets: pl.DataFrame
    stake: float
    next_round: int
    mode: str
    hand: float  # the bankroll now
    edges: dict[str, float]
    staked: dict[str, float]
    ensure_saved: Callable[[], bool] | None

    def why_not(self, bet_id: str) -> str | None:
        return _said(
            offers.refusal(
                self.table,
                self.bets,
                bet_id,
                self.stake,
                self.next_round,
                mode=self.mode,
                bankroll=self.hand,
            )
        )

    def price_of(self, bet_id: str) -> tuple[str, str]:
        """The payout (and the exact edge) as the button's caption and its tooltip."""
        bet = self.table.bets[bet_id]
        edge = self.edges.get(bet_id)
        pays = f"{bet.payout:g}:1"
        if bet.six_apart:
            pays += f" (6: {bet.payouts['six']:g}:1)"
        about = tr("pays_about", bet=md_text(bet_name(bet)), pays=pays)
        if edge is not None:
            about += "; " + tr("house_edge_about", pct=f"{100 * edge:.4f}")
        return (pays if edge is None else f"{pays} · {tr('edge')} {100 * edge:.2f}%"), about

    def button(self, bet_id: str, where: Any, label: str, help_text: str, main: bool) -> str | None:
        reason = self.why_not(bet_id)
        if self.staked.get(bet_id):
            label += f" · **{self.staked[bet_id]:,.0f}**"
        where.button(
            label,
            key=f"{self.key}_bet_{bet_id}",
            disabled=reason is not None,
            help=reason or help_text,
            width="stretch" if main else "content",
            type="primary" if main and self.staked.get(bet_id) else "secondary",
            on_click=_change,
            args=(
                self.key,
                *self.args,
                _placer(bet_id, self.stake, self.next_round, self.table, self.hand, self.mode),
                self.ensure_saved,
            ),
        )
        return reason


def _render_layout(at: _Place) -> None:
    """The betting layout (`offers.layout`): the main bets first and largest with their
    price under them; under them the side bets by name, the Player's and the Banker's,
    those on neither hand, then each numbered family as one compact grid. A side bet's
    payout and exact edge are its tooltip (and in the live odds beside the panel)."""
    key, table, lay = at.key, at.table, offers.layout(at.table)
    _style()
    with st.container(key=f"{key}_lay-out", gap="small"):
        with st.container(key=f"{key}_lay-main", gap=None):
            for bet_id, col in zip(lay.main, st.columns(len(lay.main), gap="small"), strict=True):
                price, about = at.price_of(bet_id)
                reason = at.button(
                    bet_id, col, f"**{md_text(bet_name(table.bets[bet_id]))}**", about, main=True
                )
                col.caption(f"{price}. {reason}" if reason else price)
        if lay.player or lay.banker:
            with st.container(key=f"{key}_lay-side-hands", horizontal=True, gap="small"):
                for bet_id in (*lay.player, *lay.banker):
                    at.button(
                        bet_id,
                        st,
                        md_text(bet_name(table.bets[bet_id])),
                        at.price_of(bet_id)[1],
                        main=False,
                    )
        if lay.middle:
            with st.container(key=f"{key}_lay-side-middle", horizontal=True, gap="small"):
                for bet_id in lay.middle:
                    at.button(
                        bet_id,
                        st,
                        md_text(bet_name(table.bets[bet_id])),
                        at.price_of(bet_id)[1],
                        main=False,
                    )
        for family, members in lay.families.items():
            with st.container(
                key=f"{key}_lay-family-{family}",
                horizontal=True,
                gap="small",
                vertical_alignment="center",
            ):
                st.markdown(f"**{md_text(family_name(family, table.bets[members[0]]))}**")
                for bet_id in members:
                    k = offers.FAMILY.match(bet_id)["k"]  # type: ignore[index]
                    at.button(bet_id, st, k, at.price_of(bet_id)[1], main=False)
        if table.shortcuts:
            _render_shortcuts(at)


def _render_shortcuts(at: _Place) -> None:
    """The table's shortcut buttons (several bets at once, one stake each)."""
    key, table, stake = at.key, at.table, at.stake
    with st.container(horizontal=True, gap="small", key=f"{key}_buttons"):
        for name, parts in table.shortcuts.items():
            total = stake * len(parts)
            part_edges = [at.edges.get(p) for p in parts]
            price = f"{len(parts)} × {stake:,.0f} = {total:,.0f}"
            if None not in part_edges:
                price += f" · {100 * sum(part_edges) / len(parts):.2f}%"  # type: ignore[arg-type]
            names = md_text(
                " + ".join(bet_name(table.bets[p]) if p in table.bets else p for p in parts)
            )
            reason = at.why_not(name)
            st.button(
                f"{bet_id_name(name, SHORTCUT_LABELS.get(name, name))} · {price}",
                key=f"{key}_short_{name}",
                disabled=reason is not None,
                help=reason or names,
                on_click=_change,
                args=(
                    key,
                    *at.args,
                    _shortcut(parts, stake, at.next_round, table, at.hand, at.mode),
                    at.ensure_saved,
                ),
            )


def _render_not_offered(table: Table, mode: str, next_round: int, edge_note: str) -> None:
    """What the panel does not offer now, and why: the entry cannot settle it, or it has
    closed; and where the edges come from."""
    unsettled = [md_text(bet_name(table.bets[b])) for b in offers.not_offered(table, mode)]
    if unsettled:
        needs = tr("or_word").join(tr(w) for w in offers.needs_of(table, mode))
        st.caption(
            tr(
                "not_offered",
                mode=tr(ENTRY_LABELS[mode]).lower(),
                bets=", ".join(unsettled),
                what=needs,
            )
        )
    closed = [md_text(bet_name(b)) for b in table.bets.values() if b.closed_on(next_round)]
    if closed:
        st.caption(tr("closed_for", n=next_round, bets=", ".join(closed)))
    st.caption(tr("edge_note", note=edge_note))


def _render_actions(at: _Place, allow_void: bool) -> None:
    """Take back the last chip, clear the round's bets, void the round."""
    key, args, next_round, bets = at.key, at.args, at.next_round, at.bets
    with st.container(horizontal=True, gap="small"):
        st.button(
            tr("undo_chip"),
            key=f"{key}_undo_chip",
            icon=":material/undo:",
            disabled=not BL.can_clear(bets, next_round),
            on_click=_change,
            args=(key, *args, lambda b: BL.undo_last(b, next_round), None),
        )
        st.button(
            tr("clear_bets"),
            key=f"{key}_clear",
            disabled=not BL.can_clear(bets, next_round),
            on_click=_change,
            args=(key, *args, lambda b: BL.clear(b, next_round), None),
        )
        if allow_void:
            st.button(
                tr("void_round", n=next_round),
                key=f"{key}_void",
                disabled=not BL.can_void(bets, next_round),
                help=tr("void_help"),
                on_click=_change,
                args=(key, *args, lambda b: BL.void(b, next_round), None),
            )


def _bankroll_line(settled: pl.DataFrame, curve: pl.DataFrame, testid: str = "") -> str:
    """Bankroll, net and stakes on the table (``testid`` marks a held copy's numbers), as
    HTML of our own words (escaped) and numbers: shown by ``st.html``, not Markdown with
    HTML allowed, whose HTML parser (rehype-raw) a new browser fetched for it alone."""
    tot = BL.totals(settled)
    word = {k: html.escape(tr(k)) for k in ("bankroll", "net", "on_the_table")}
    return (
        f"<div class='rd-bank'>{word['bankroll']} "
        f"<b data-testid='bankroll{testid}'>{curve['bankroll'][-1]:,.2f}</b>"
        f" · {word['net']} <b data-testid='bet-net{testid}'>{tot['net']:+,.2f}</b> · "
        f"{word['on_the_table']} "
        f"<b data-testid='bet-pending{testid}'>{tot['pending']:,.0f}</b></div>"
    )


def _settled_view(
    settled: pl.DataFrame,
    curve: pl.DataFrame,
    table: Table,
    key: str,
    *,
    announce: str | None = None,
) -> None:
    """What the last round did to the bets (a refusal said in full), the bankroll chart
    (once there are bets) and the bet history. ``announce`` (the shoe's id, on the
    scoreboard) also pops a refusal up once, when its round comes in."""
    last = int(curve["round"].max() or 0) if curve.height else 0
    refused = settled.filter((pl.col("round") == last) & (pl.col("outcome") == "refused"))
    if refused.height:
        said = refusal_lines(refused, table)
        for line in said:
            st.warning(line, icon=":material/block:")
        seen = st.session_state.setdefault(f"{key}.announced", set())
        for bet_row, line in zip(refused.iter_rows(named=True), said, strict=True):
            if announce and (announce, bet_row["id"]) not in seen:  # once, as it comes in
                st.toast(line, icon=":material/block:")
                seen.add((announce, bet_row["id"]))
    if settled.height:  # no chart to redraw on every result for a player not betting
        st.plotly_chart(
            charts.bankroll_figure(curve, lang()),
            key=f"{key}_bankroll",
            config={"displayModeBar": False},
        )
    render_history(settled, table)


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
    bet_id: str,
    stake: float,
    round_no: int,
    table: Table,
    bankroll: float,
    mode: str,
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    """The change, refused (one line) by the same `offers.refusal` the button asked,
    made again on the ledger as it is when clicked."""

    def run(bets: pl.DataFrame) -> pl.DataFrame:
        why = offers.refusal(table, bets, bet_id, stake, round_no, mode=mode, bankroll=bankroll)
        if why is not None:
            raise BetError(why)
        return change(bets)

    return run


def _placer(
    bet_id: str, stake: float, round_no: int, table: Table, bankroll: float, mode: str
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    return _checked(
        lambda b: BL.place(b, bet_id, stake, round_no=round_no, table=table),
        bet_id,
        stake,
        round_no,
        table,
        bankroll,
        mode,
    )


def _shortcut(
    parts: tuple[str, ...],
    stake: float,
    round_no: int,
    table: Table,
    bankroll: float,
    mode: str,
) -> Callable[[pl.DataFrame], pl.DataFrame]:
    name = next(n for n, p in table.shortcuts.items() if tuple(p) == tuple(parts))
    return _checked(
        lambda b: BL.place_shortcut(b, parts, stake, round_no=round_no, table=table),
        name,
        stake,
        round_no,
        table,
        bankroll,
        mode,
    )


def family_name(family: str, first: Any) -> str:
    """A numbered family's name: the table's own label without its number in English
    (a table may call Super Tie "Egalité"), the catalogue's word otherwise."""
    if lang() == DEFAULT:
        return str(first.label).rsplit(" ", 1)[0]
    return tr(f"family_{family}")


def _style() -> None:
    """The betting layout's sizes (main bets large, side bets compact): a static file."""
    st.html(f"<style>{_css()}</style>")


@st.cache_resource(show_spinner=False)
def _css() -> str:
    return static_text("bet_panel.css")


# --- what the entry mode can settle ------------------------------------------------------

ENTRY_ORDER, ENTRY_LABELS = offers.ENTRY_ORDER, offers.ENTRY_LABELS


def _entry_mode(rounds: pl.DataFrame, pos: int, key: str, *, choosable: bool) -> str:
    """How the next round will be entered: picked on the scoreboard (the last round's
    way by default), and what the next round holds when replaying a shoe."""
    if not choosable:
        return EntryMode.of(rounds.row(pos, named=True)) if pos < rounds.height else EntryMode.CARDS
    widget = f"{key}_entry_mode"
    if st.session_state.get(widget) not in ENTRY_ORDER:
        st.session_state[widget] = (
            EntryMode.of(rounds.row(rounds.height - 1, named=True))
            if rounds.height
            else EntryMode.WINNER
        )
    st.segmented_control(
        tr("next_entered_by"),
        ENTRY_ORDER,
        key=widget,
        required=True,
        format_func=labels(ENTRY_LABELS),
        help=tr("next_entered_help"),
    )
    return str(st.session_state[widget])


def render_history(settled: pl.DataFrame, table: Table) -> None:
    """Every bet, newest first, with its result (bets by the table's own labels)."""
    if not settled.height:
        st.caption(tr("no_bets_yet"))
        return
    labels = {k: bet_name(b) for k, b in table.bets.items()}
    outcomes = {o.value: tr(f"outcome_{o}") for o in Outcome}
    settled = settled.with_columns(reason=notes(settled["reason"], table))
    view = settled.sort("id", descending=True).select(
        pl.col("round").alias(tr("col_round")),
        pl.col("bet").replace_strict(labels, default=pl.col("bet")).alias(tr("col_bet")),
        pl.col("stake").alias(tr("col_stake")),
        pl.col("outcome")
        .replace_strict(outcomes, default=pl.col("outcome"))
        .alias(tr("col_outcome")),
        pl.col("net").alias(tr("col_net")),
        pl.col("reason").fill_null("").alias(tr("col_note")),
    )
    st.dataframe(
        view,
        hide_index=True,
        height=min(36 * (view.height + 1), 300),
        column_config={tr("col_note"): st.column_config.TextColumn(width="large")},
    )
    # A note is often longer than its cell: the newest ones in full under the table.
    noted = settled.filter(pl.col("reason").is_not_null() & (pl.col("reason") != ""))
    seen: set[tuple[int, str, str]] = set()
    for row in noted.sort("id", descending=True).iter_rows(named=True):
        item = (row["round"], row["bet"], row["reason"])
        if item in seen:
            continue
        seen.add(item)
        if len(seen) > NOTES_SHOWN:
            break
        st.caption(
            tr(
                "note_line",
                n=row["round"],
                bet=labels.get(row["bet"], row["bet"]),
                note=row["reason"],
            )
        )


NOTES_SHOWN = 5
"""How many of the newest bet notes are written out in full under the history."""


def refusal_lines(refused: pl.DataFrame, table: Table) -> list[str]:
    """Each refused bet said in full: round, bet, stake and why (page's language)."""
    reasons = notes(refused["reason"], table).to_list()
    lines = []
    for row, why in zip(refused.iter_rows(named=True), reasons, strict=True):
        bet = bet_name(table.bets[row["bet"]]) if row["bet"] in table.bets else row["bet"]
        lines.append(
            tr("refused_now", n=row["round"], bet=bet, stake=f"{row['stake']:,.0f}", why=why)
        )
    return lines


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
        shoe_id=s.meta.id,
        rounds=s.rounds,
        meta=s.meta,
        data_dir=session.data_dir(),
        ensure_saved=ensure_saved,
        key="bets",
    )
    if session.errors().get("bets"):
        st.error(session.errors()["bets"], icon=":material/error:")
