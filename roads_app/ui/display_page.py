"""The big-screen display: ``/display?table=<code>`` (or ``?shoe=<id>``), the table's
board filling a screen.

What a table's scoreboard screen shows, for a TV beside the table (nothing on it needs
a click or a key), read across a room: one header line (`render_display_header`, the
one function that draws it) with the table's name, the round count, the last result,
the B/P/T counts and the good roads the shoe is on as badges, all in type at least 2.5%
of the screen's height; under it the roads laid out to fill the rest of the screen
(`board.fill_layout`) at any size or orientation, the last result framed a few seconds.
``?theme=dark`` (or the lobby's switch, remembered) draws it on a dark ground (`theme`).

``?table=B07`` follows the floor table, not one shoe: its current shoe, and the next one
by itself when the dealer shuffles (the table's own change on the feed, `watch.TABLE_KEY`,
reruns the fragment); between shoes the table's name, "Shuffling" and the last shoe's
final counts; a closed table, "Closed". The header carries the table's limits and the
shoe's number of the day.

It follows the saved shoe, not a tab: the fragment is rerun by the process's watcher
of the store (`follow.follow_shoe`) only when the shoe's version moved, so a result
entered in any tab, window or device, by the CLI or the HTTP API, shows here within a
second, and an idle display costs the server nothing.
"""

from __future__ import annotations

import html

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.floor import TableState, check_table_code
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeMeta
from roads_app.i18n import word
from roads_app.render import board
from roads_app.roads import good_roads as gr
from roads_app.roads.stats import shoe_stats, side_now
from roads_app.store.floor import FloorTable
from roads_app.store.watch import TABLE_KEY
from roads_app.ui import access, board_host, floor_view, follow, session, theme
from roads_app.ui.board_view import lang, render_board
from roads_app.ui.good_roads_view import tags
from roads_app.ui.page_head import static_text
from roads_app.ui.words import md_text, say

SHOWN_KEY = "roads_app.display_shown"  # (shoe id, version) on screen
FOLLOW_KEY = "display_follow"
TABLE_FOLLOW_KEY = "display_follow_table"
TABLE_PARAM = "table"
LAST_MARK_S = 6.0
"""How long the last result stays framed on the board (the header's badge stays)."""
HEADER_SHARE = 0.13
"""Of the screen's height, what the header takes (its type is sized in vmin to fit)."""

_CSS = static_text("display.css")


def side_colour(side: str, ground: theme.Theme) -> tuple[str, str]:
    """A badge's ground and text for a side (B, P, T) on the theme's board: the board's
    own mark colour, its text the paper's (white on the light board, dark on the dark).

    >>> side_colour("B", theme.Theme.LIGHT)
    ('#d32f2f', '#ffffff')
    """
    return (theme.recolour(board.WINNER_COLOUR[side], ground), theme.recolour(board.PAPER, ground))


def badge(text: str, side: str, ground: theme.Theme, testid: str, extra: str = "") -> str:
    """One coloured badge (our own words, escaped)."""
    bg, fg = side_colour(side, ground)
    return (
        f"<span class='rd-badge' data-testid='{testid}' data-side='{side}'{extra} "
        f"style='background:{bg};color:{fg}'>{html.escape(text)}</span>"
    )


def good_road_badges(
    rounds: pl.DataFrame, lg: str, ground: theme.Theme, testid: str = "good-road"
) -> str:
    """The good roads the shoe is on, a badge each, in the colour of the big road's side
    they ride (the last result that was not a tie); nothing when none."""
    keys = gr.tags_now(rounds)
    if not keys:
        return ""
    side = side_now(rounds["winner"].cast(pl.String).to_list())
    return "".join(badge(name, side, ground, testid) for name in tags(keys, lg))


def count_spans(rounds: pl.DataFrame, lg: str, ground: theme.Theme) -> list[str]:
    """The shoe's B/P/T counts, each in its side's colour (our own words and numbers)."""
    s = shoe_stats(rounds)
    out = []
    for side, n in ((w, s[w.word]) for w in Winner):
        colour = theme.recolour(board.WINNER_COLOUR[side], ground)
        letter = html.escape(word(f"{side}_letter", lg))
        out.append(f"<span data-count='{side}' style='color:{colour}'>{letter} <b>{n}</b></span>")
    return out


def table_line(table: FloorTable, lg: str) -> str:
    """The table's part of the header (`floor_view.table_parts`, escaped)."""
    return "".join(
        f"<span data-testid='{tid}'>{html.escape(text)}</span>"
        for tid, text in floor_view.table_parts(table, lg)
    )


def render_display_header(
    meta: ShoeMeta,
    rounds: pl.DataFrame,
    lg: str,
    ground: theme.Theme = theme.Theme.LIGHT,
    table: FloorTable | None = None,
) -> None:
    """The display's one header line: the name (text, `md_text`: no HTML), then, at a
    floor table, its shoe number and limits, the round count, the last result, the
    counts and the good-road badges (our own words, escaped)."""
    name = table.name if table is not None else meta.name
    with st.container(
        horizontal=True, vertical_alignment="center", gap="medium", key="display_head"
    ):
        with st.container(key="display_name", width="content"):
            st.markdown(f"# {md_text(name or word('shoe_default_name', lg, id=meta.id))}")
        count = html.escape(word("round_of", lg, n=rounds.height))
        parts = [table_line(table, lg)] if table is not None else []
        parts.append(f"<span data-testid='round-count'>{count}</span>")
        place = table.place if table is not None else None
        if place is not None and rounds.height:  # the last round's code, small
            code = html.escape(place.codes(rounds.height, rounds.height)[0])
            parts.append(f"<span class='rd-round-code' data-testid='round-code'>{code}</span>")
        if rounds.height:
            last = str(rounds["winner"][-1])
            parts.append(
                badge(word(last, lg), last, ground, "last-result", f" data-round='{rounds.height}'")
            )
        parts += count_spans(rounds, lg, ground)
        parts.append(good_road_badges(rounds, lg, ground))
        st.html(f"<div class='rd-display-head'>{''.join(parts)}</div>")


def _between_shoes(table: FloorTable, lg: str, ground: theme.Theme) -> None:
    """A table shuffling or closed: its name, the state in large type and, shuffling,
    the last shoe's final counts (our own words and numbers; the name as text)."""
    with st.container(key="display_head"):
        with st.container(key="display_name", width="content"):
            st.markdown(f"# {md_text(table.name or table.code)}")
        state = html.escape(floor_view.state_word(table, lg))
        parts = [f"<span data-testid='table-state' data-state='{table.state.value}'>{state}</span>"]
        parts.append(table_line(table, lg))
        if table.state is TableState.SHUFFLING and table.shoe is not None:
            version = session.shoe_version(table.shoe)
            if version is not None:
                rounds, _meta = session.load_for_display(table.shoe, version)
                parts += count_spans(rounds, lg, ground)
        st.html(f"<div class='rd-display-head rd-display-between'>{''.join(parts)}</div>")


@st.fragment
def _follow_table(code: str) -> None:
    """The floor table's screen: follows the table (a new shoe, a shuffle, open, close)
    and, while a shoe is dealt, that shoe, each by its own request."""
    access.still_allowed()
    board_host.mount()
    lg = lang()
    try:
        table = session.store().floor.get(code)
    except RoadsAppError as e:
        follow.follow_shoe(None, None, key=TABLE_FOLLOW_KEY)
        st.error(say(e))
        return
    follow.follow_shoe(TABLE_KEY + table.code, table.version, key=TABLE_FOLLOW_KEY)
    ground = theme.chosen()
    if not floor_view.dealing(table):
        follow.follow_shoe(None, None, key=FOLLOW_KEY, screen=True)
        _between_shoes(table, lg, ground)
        st.session_state[SHOWN_KEY] = (TABLE_KEY + table.code, table.version)
        return
    _show_shoe(table.shoe, lg, ground, table)


@st.fragment
def _follow(shoe_id: str) -> None:
    access.still_allowed()
    board_host.mount()
    _show_shoe(shoe_id, lang(), theme.chosen(), None)


def _show_shoe(shoe_id: str, lg: str, ground: theme.Theme, table: FloorTable | None) -> None:
    """The header and the board of one saved shoe, following its version."""
    try:
        version = session.shoe_version(shoe_id)
        follow.follow_shoe(shoe_id, version, key=FOLLOW_KEY, screen=True)
        if version is None:
            st.info(word("display_missing", lg))
            return
        rounds, meta = session.load_for_display(shoe_id, version)
    except RoadsAppError as e:
        st.error(say(e))
        return
    render_display_header(meta, rounds, lg, ground, table)
    screen = follow.screen_size(FOLLOW_KEY)
    height = round(screen["h"] * (1 - HEADER_SHARE)) - 24 if screen else None
    render_board(
        rounds,
        board.BoardLook(max_cell=400, height_px=height, last_mark_s=LAST_MARK_S, theme=ground),
        key="display_board",
        column_width=lambda vw: vw - 48,
        strip=False,
    )
    st.session_state[SHOWN_KEY] = (shoe_id, version)


def render_display_page() -> None:
    st.html(f"<style>{_CSS}</style>")
    theme.apply(theme.chosen())
    code = st.query_params.get(TABLE_PARAM)
    if code:
        try:
            code = check_table_code(code)
        except RoadsAppError as e:
            st.error(say(e))
            return
        _follow_table(code)
        return
    shoe_id = st.query_params.get(session.URL_PARAM)
    if not shoe_id:
        st.info(word("display_missing", lang()))
        return
    _follow(shoe_id)
