"""The dashboard's entry script (``streamlit run app.py``): page setup and navigation.

Pages are grouped into sections of ``st.navigation``; each page is a plain function
in its own module. To add a page, append one ``st.Page(...)`` line to its section in
`pages` (sections left empty are not shown).
"""

from __future__ import annotations

import streamlit as st

from roads_app.ui.entry_page import render_entry_page


def pages() -> dict[str, list[st.Page]]:
    """The app's pages by section; the scoreboard is the default ("/")."""
    return {
        "Table": [
            st.Page(render_entry_page, title="Scoreboard", icon=":material/casino:",
                    url_path="scoreboard", default=True),
        ],
        "Shoes": [  # part 2: library, replay, lobby
        ],
        "Study": [  # backtest and exact odds
        ],
    }


def main() -> None:
    st.set_page_config(page_title="Roads", page_icon=":material/casino:", layout="wide")
    sections = {name: items for name, items in pages().items() if items}
    st.navigation(sections, position="sidebar").run()


main()
