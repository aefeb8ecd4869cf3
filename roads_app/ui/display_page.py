"""The big-screen display: ``/display?shoe=<id>``, the table's board filling a screen.

What a table's scoreboard screen shows, for a TV beside the table (nothing on it needs
a click or a key): the table's name, the shoe, the table's limits and payouts, the
counts and the ask road (`render_display_header`, the one function that draws the
header), the last result marked for a few seconds, and under them the roads laid out
to fill the rest of the screen (`board.fill_layout`) at any size or orientation.

It follows the saved shoe, not a tab: the fragment is rerun by the process's watcher
of the store (`follow.follow_shoe`) only when the shoe's version moved, so a result
entered in any tab, window or device, by the CLI or the HTTP API, shows here within a
second, and an idle display costs the server nothing.
"""

from __future__ import annotations

import html

import polars as pl
import streamlit as st

from roads_app.bets.tables import load_table
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.i18n import word
from roads_app.render import board
from roads_app.ui import board_host, follow, session
from roads_app.ui.board_view import count_strip_html, lang, render_board
from roads_app.ui.good_roads_view import keys_now, render_in_force, render_tags
from roads_app.ui.page_head import static_text
from roads_app.ui.words import bet_name, md_text, say

SHOWN_KEY = "roads_app.display_shown"  # (shoe id, version) on screen
FOLLOW_KEY = "display_follow"
LAST_MARK_S = 6.0
"""How long the last result stays framed on the board (the header's mark fades as long)."""
HEADER_SHARE = 0.2
"""Of the screen's height, what the header takes (its type is sized in vh to fit)."""
HEADER_BETS = ("player", "banker", "tie", "player_pair", "banker_pair")
"""The bets whose payouts the header shows, as a table's sign does (where the table has them)."""

_CSS = static_text("display.css")


def render_display_header(meta: ShoeMeta, rounds: pl.DataFrame, lg: str) -> None:
    """The display's header: name, shoe, table, limits and payouts, round count, the
    last result (marked a few seconds), the counts and the ask road. The name is text
    (`md_text`, no HTML); the rest is our own words and the table's, escaped."""
    with st.container(key="display_name"):
        st.markdown(f"# {md_text(meta.name or word('shoe_default_name', lg, id=meta.id))}")
    shoe = html.escape(word("shoe_default_name", lg, id=meta.id))
    count = html.escape(word("round_of", lg, n=rounds.height))
    parts = [f"<span class='rd-sub'>{shoe}</span>",
             f"<span data-testid='round-count'>{count}</span>"]  # fmt: skip
    if rounds.height:
        last = str(rounds["winner"][-1])
        parts.append(f"<span class='rd-last' data-testid='last-result' data-round='"
                     f"{rounds.height}' style='background:{board.WINNER_COLOUR[last]}'>"
                     f"{html.escape(word(last, lg))}</span>")  # fmt: skip
    try:
        table = load_table(meta.rules)
    except RoadsAppError as e:
        parts.append(f"<span class='rd-sub'>{html.escape(say(e))}</span>")
    else:
        items = [f"<span>{html.escape(table.title)}<b data-testid='limits'>"
                 f"{table.limits.min_bet:,g} – {table.limits.max_bet:,g}</b></span>"]  # fmt: skip
        items += [f"<span>{html.escape(bet_name(table.bets[b]))}"
                  f"<b>{html.escape(table.bets[b].payout_text())}</b></span>"
                  for b in HEADER_BETS if b in table.bets]  # fmt: skip
        parts.append(f"<span class='rd-pay' data-testid='payouts'>{''.join(items)}</span>")
    st.html(f"<style>{_CSS}</style><div class='rd-display-head'>{''.join(parts)}</div>"
            + count_strip_html(rounds, lg))  # fmt: skip
    render_tags(keys_now(rounds), lg, key="display_good_roads")  # beside the ask road
    render_in_force(lg, at=st)  # no sidebar on a TV: the catalogue is said here


@st.fragment
def _follow(shoe_id: str) -> None:
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
    render_display_header(meta, rounds, lg)
    screen = follow.screen_size(FOLLOW_KEY)
    height = round(screen["h"] * (1 - HEADER_SHARE)) - 24 if screen else None
    render_board(rounds, key="display_board", max_cell=400, column_width=lambda vw: vw - 48,
                 fill_height=height, strip=False, last_mark_s=LAST_MARK_S)  # fmt: skip
    st.session_state[SHOWN_KEY] = (shoe_id, version)


def render_display_page() -> None:
    st.html(f"<style>{_CSS}</style>")
    shoe_id = st.query_params.get(session.URL_PARAM)
    if not shoe_id:
        st.info(word("display_missing", lang()))
        return
    _follow(shoe_id)
