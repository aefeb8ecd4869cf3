"""The dashboard's entry script (``streamlit run app.py``): page setup and navigation.

Pages are grouped into sections of ``st.navigation``; each page is a plain function
in its own module. To add a page, append one ``st.Page(...)`` line to its section in
`pages` (sections left empty are not shown).
"""

from __future__ import annotations

import streamlit as st

from roads_app.ui import access, page_head
from roads_app.ui.backtest_page import render_backtest_page
from roads_app.ui.board_view import lang, language_switch
from roads_app.ui.display_page import render_display_page
from roads_app.ui.entry_page import render_entry_page
from roads_app.ui.good_roads_view import render_in_force
from roads_app.ui.guard import guarded
from roads_app.ui.library_page import render_library_page
from roads_app.ui.live_odds import render_study_page
from roads_app.ui.lobby_page import render_lobby_page
from roads_app.ui.replay_page import render_replay_page
from roads_app.ui.words import tr, widget_chrome


def pages() -> dict[str, list[st.Page]]:
    """The app's pages by section, named in the page's language; the scoreboard is the
    default ("/")."""
    return {
        tr("nav_table"): [
            st.Page(render_entry_page, title=tr("page_scoreboard"), icon=":material/casino:",
                    url_path="scoreboard", default=True),
            st.Page(render_display_page, title=tr("page_display"), icon=":material/tv:",
                    url_path="display"),
        ],
        tr("nav_shoes"): [  # part 2: library, replay, lobby
            st.Page(render_lobby_page, title=tr("page_lobby"), icon=":material/grid_view:",
                    url_path="lobby"),
            st.Page(render_library_page, title=tr("page_library"),
                    icon=":material/folder_open:", url_path="library"),
            st.Page(render_replay_page, title=tr("page_replay"), icon=":material/replay:",
                    url_path="replay"),
        ],
        tr("nav_study"): [  # backtest and exact odds
            st.Page(render_backtest_page, title=tr("page_backtest"),
                    icon=":material/monitoring:", url_path="backtest"),
            st.Page(render_study_page, title=tr("page_study"),
                    icon=":material/query_stats:", url_path="odds-study"),
        ],
    }


# Pages that change no saved shoe: all a viewer sees when the dashboard is exposed ("" is
# the default page, the scoreboard, which then shows no entry controls). A comment, not a
# docstring: this file is Streamlit's script, whose "magic" would print a bare string.
VIEWER_PAGES = frozenset({"", "display", "lobby", "backtest", "odds-study"})


def allowed(url_path: str) -> bool:
    """Every page on this machine or for an operator; read-only pages for a viewer; the
    scoreboard alone (asking for a token) for anyone else."""
    if access.may_enter():
        return True
    return url_path in VIEWER_PAGES if access.may_view() else url_path == ""


def main() -> None:
    st.set_page_config(page_title="Roads", page_icon=str(page_head.FAVICON), layout="wide")
    access.sidebar()
    sections = {name: [p for p in items if allowed(p.url_path)] for name, items in pages().items()}
    sections = {name: items for name, items in sections.items() if items}
    page = st.navigation(sections, position="sidebar")
    language_switch()
    widget_chrome()
    render_in_force(lang())
    access.notice()
    guarded(page.run)()


main()
