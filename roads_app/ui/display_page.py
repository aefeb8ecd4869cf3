"""The big-screen display: ``/display?shoe=<id>``, the table's board filling a screen.

What a table's scoreboard screen shows, for a TV beside the table (nothing on it needs
a click or a key), read across a room: one header line (`render_display_header`, the
one function that draws it) with the table's name, the round count, the last result,
the B/P/T counts and the good roads the shoe is on as badges, all in type at least 2.5%
of the screen's height; under it the roads laid out to fill the rest of the screen
(`board.fill_layout`) at any size or orientation, the last result framed a few seconds.
``?theme=dark`` (or the lobby's switch, remembered) draws it on a dark ground (`theme`).

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
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeMeta
from roads_app.i18n import word
from roads_app.render import board
from roads_app.roads import good_roads as gr
from roads_app.roads.stats import shoe_stats, side_now
from roads_app.ui import access, board_host, follow, session, theme
from roads_app.ui.board_view import lang, render_board
from roads_app.ui.good_roads_view import tags
from roads_app.ui.page_head import static_text
from roads_app.ui.words import md_text, say

SHOWN_KEY = "roads_app.display_shown"  # (shoe id, version) on screen
FOLLOW_KEY = "display_follow"
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


def render_display_header(
    meta: ShoeMeta, rounds: pl.DataFrame, lg: str, ground: theme.Theme = theme.Theme.LIGHT
) -> None:
    """The display's one header line: the name (text, `md_text`: no HTML), then the round
    count, the last result, the counts and the good-road badges (our own words, escaped)."""
    with st.container(
        horizontal=True, vertical_alignment="center", gap="medium", key="display_head"
    ):
        with st.container(key="display_name", width="content"):
            st.markdown(f"# {md_text(meta.name or word('shoe_default_name', lg, id=meta.id))}")
        count = html.escape(word("round_of", lg, n=rounds.height))
        parts = [f"<span data-testid='round-count'>{count}</span>"]
        if rounds.height:
            last = str(rounds["winner"][-1])
            parts.append(
                badge(word(last, lg), last, ground, "last-result", f" data-round='{rounds.height}'")
            )
        s = shoe_stats(rounds)
        for side, n in (
            (Winner.BANKER, s["banker"]),
            (Winner.PLAYER, s["player"]),
            (Winner.TIE, s["tie"]),
        ):
            colour = theme.recolour(board.WINNER_COLOUR[side], ground)
            letter = html.escape(word(f"{side}_letter", lg))
            parts.append(
                f"<span data-count='{side}' style='color:{colour}'>{letter} <b>{n}</b></span>"
            )
        parts.append(good_road_badges(rounds, lg, ground))
        st.html(f"<div class='rd-display-head'>{''.join(parts)}</div>")


@st.fragment
def _follow(shoe_id: str) -> None:
    access.still_allowed()
    board_host.mount()
    lg = lang()
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
    ground = theme.chosen()
    render_display_header(meta, rounds, lg, ground)
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
    shoe_id = st.query_params.get(session.URL_PARAM)
    if not shoe_id:
        st.info(word("display_missing", lang()))
        return
    _follow(shoe_id)
