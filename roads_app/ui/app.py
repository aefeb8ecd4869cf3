"""The dashboard's entry script (``streamlit run app.py``): page setup and navigation.

Pages are grouped into sections of ``st.navigation``; each page is a plain function
in its own module. To add a page, append one ``st.Page(...)`` line to its section in
`pages` (sections left empty are not shown).
"""

from __future__ import annotations

import streamlit as st

from roads_app.ui.backtest_page import render_backtest_page
from roads_app.ui.entry_page import render_entry_page
from roads_app.ui.guard import guarded
from roads_app.ui.library_page import render_library_page
from roads_app.ui.live_odds import render_study_page
from roads_app.ui.lobby_page import render_lobby_page
from roads_app.ui.replay_page import render_replay_page


def pages() -> dict[str, list[st.Page]]:
    """The app's pages by section; the scoreboard is the default ("/")."""
    return {
        "Table": [
            st.Page(render_entry_page, title="Scoreboard", icon=":material/casino:",
                    url_path="scoreboard", default=True),
        ],
        "Shoes": [  # part 2: library, replay, lobby
            st.Page(render_lobby_page, title="Lobby", icon=":material/grid_view:",
                    url_path="lobby"),
            st.Page(render_library_page, title="Library", icon=":material/folder_open:",
                    url_path="library"),
            st.Page(render_replay_page, title="Replay", icon=":material/replay:",
                    url_path="replay"),
        ],
        "Study": [  # backtest and exact odds
            st.Page(render_backtest_page, title="Backtest", icon=":material/monitoring:",
                    url_path="backtest"),
            st.Page(render_study_page, title="Live odds study", icon=":material/query_stats:",
                    url_path="odds-study"),
        ],
    }


def main() -> None:
    st.set_page_config(page_title="Roads", page_icon=":material/casino:", layout="wide")
    sections = {name: items for name, items in pages().items() if items}
    page = st.navigation(sections, position="sidebar")
    guarded(page.run)()


main()
