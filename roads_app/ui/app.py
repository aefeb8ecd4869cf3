"""The dashboard's entry script (``streamlit run app.py``): page setup and navigation.

Pages are grouped into sections of ``st.navigation``; each page is a plain function
in its own module. To add a page, add one line to the registry, `roads_app.ui.pages`
(sections left empty are not shown).
"""

from __future__ import annotations

import html

import streamlit as st

from roads_app.ui import access, page_head
from roads_app.ui.board_view import lang, language_switch
from roads_app.ui.good_roads_view import render_in_force
from roads_app.ui.guard import guarded
from roads_app.ui.pages import PAGES, Page, navigation
from roads_app.ui.words import tr, widget_chrome


def allowed(page: Page) -> bool:
    """Every page on this machine or for an operator; the pages that change no saved shoe
    for a viewer (the scoreboard then shows no entry controls); the scoreboard alone
    (asking for a token) for anyone else."""
    if access.may_enter():
        return True
    if access.role() == access.SCREEN:  # the default too, so its link says why not
        return page.path in access.SCREEN_PAGES or page.default
    return page.viewer if access.may_view() else page.default


BY_PATH_DEFAULT = next(p.path for p in PAGES if p.default)  # Streamlit's empty path


def screen_line(key: str) -> None:
    """The one line a screen shows when its key does not let it show the board."""
    st.html(f"<p data-testid='screen-refused'>{html.escape(tr(key))}</p>")


def main() -> None:
    st.set_page_config(page_title="Roads", page_icon=str(page_head.FAVICON), layout="wide")
    if refused := access.screen_refusal():  # a screen whose key does not hold: one line
        screen_line(refused)
        return
    access.sidebar()
    page = navigation(allowed)
    if refused := access.screen_refusal(page.url_path or BY_PATH_DEFAULT):
        screen_line(refused)
        return
    language_switch()
    widget_chrome()
    render_in_force(lang())
    access.notice()
    guarded(page.run)()


main()
