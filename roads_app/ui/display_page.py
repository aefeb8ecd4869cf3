"""The big-screen display: ``/display?shoe=<id>``, the board alone, following the shoe.

What a table's scoreboard screen shows: the roads, the counts and the ask marks, large,
read-only, and nothing else (no sidebar, no header). It follows the saved shoe, not a
tab: a fragment checks the shoe's version every `POLL_S` seconds (one cheap look at the
store, `session.shoe_version`) and redraws only when it moved, so a result entered in
any tab, window or device shows here within a second.
"""

from __future__ import annotations

import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.render.i18n import word
from roads_app.ui import board_host, session
from roads_app.ui.board_view import lang, render_board, round_count
from roads_app.ui.words import md_text, say

POLL_S = 0.4
SHOWN_KEY = "roads_app.display_shown"  # (shoe id, version) on screen

FULL_SCREEN_CSS = """<style>
[data-testid="stSidebar"], [data-testid="stSidebarCollapsedControl"],
[data-testid="stHeader"], [data-testid="stToolbar"] {display:none !important}
[data-testid="stMainBlockContainer"] {padding:1rem 1.5rem !important; max-width:100% !important}
.rd-strip {--rd-font: clamp(1rem, 1.6vw, 2.2rem)}
</style>"""


@st.fragment(run_every=POLL_S)
def _follow(shoe_id: str) -> None:
    board_host.mount()
    try:
        version = session.shoe_version(shoe_id)
        if version is None:
            st.info(word("display_missing", lang()))
            return
        rounds, meta = session.load_for_display(shoe_id, version)
    except RoadsAppError as e:
        st.error(say(e))
        return
    with st.container(horizontal=True, gap="xsmall", vertical_alignment="center"):
        st.markdown(f"#### {md_text(meta.name or meta.id)} ·", width="content")  # text only
        round_count(word("round_of", lang(), n=rounds.height), heading=True)
    render_board(rounds, key="display_board", max_cell=80, column_width=lambda vw: vw - 48)
    st.session_state[SHOWN_KEY] = (shoe_id, version)


def render_display_page() -> None:
    st.html(FULL_SCREEN_CSS)
    shoe_id = st.query_params.get(session.URL_PARAM)
    if not shoe_id:
        st.info(word("display_missing", lang()))
        return
    _follow(shoe_id)
