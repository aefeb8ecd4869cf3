"""The dashboard's entry script (``streamlit run app.py``): page setup and navigation.

Pages are grouped into sections of ``st.navigation``; each page is a plain function
in its own module. To add a page, add one line to the registry, `roads_app.ui.pages`
(sections left empty are not shown).
"""

from __future__ import annotations

import streamlit as st

from roads_app.ui import access, page_head
from roads_app.ui.board_view import lang, language_switch
from roads_app.ui.good_roads_view import render_in_force
from roads_app.ui.guard import guarded
from roads_app.ui.pages import Page, navigation
from roads_app.ui.words import widget_chrome


def allowed(page: Page) -> bool:
    """Every page on this machine or for an operator; the pages that change no saved shoe
    for a viewer (the scoreboard then shows no entry controls); the scoreboard alone
    (asking for a token) for anyone else."""
    if access.may_enter():
        return True
    return page.viewer if access.may_view() else page.default


def main() -> None:
    st.set_page_config(page_title="Roads", page_icon=str(page_head.FAVICON), layout="wide")
    access.sidebar()
    page = navigation(allowed)
    language_switch()
    widget_chrome()
    render_in_force(lang())
    access.notice()
    guarded(page.run)()


main()
