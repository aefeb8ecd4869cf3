"""Every page of the dashboard, once: its path, what draws it, its title, icon and
section, and whether a viewer may see it.

`app.py` builds the navigation from it (`navigation`), the tests open the same pages in
another order; the pages themselves never import it (they move on through `ui.nav`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import streamlit as st

from roads_app.ui import nav
from roads_app.ui.backtest_page import render_backtest_page
from roads_app.ui.display_page import render_display_page
from roads_app.ui.entry_page import render_entry_page
from roads_app.ui.good_roads_page import render_good_roads_page
from roads_app.ui.library_page import render_library_page
from roads_app.ui.lobby_page import render_lobby_page
from roads_app.ui.replay_page import render_replay_page
from roads_app.ui.study_page import render_study_page
from roads_app.ui.words import tr


@dataclass(frozen=True)
class Page:
    """One page of the navigation."""

    path: str  # its URL path ("" for the default page in Streamlit's own url_path)
    render: Callable[[], None]
    title_key: str  # the catalogue's key for its title
    icon: str
    section_key: str  # the catalogue's key for its section of the sidebar
    viewer: bool  # changes no saved shoe: a viewer of an exposed dashboard sees it
    default: bool = False


PAGES: tuple[Page, ...] = (
    Page(
        "scoreboard",
        render_entry_page,
        "page_scoreboard",
        ":material/casino:",
        "nav_table",
        viewer=True,
        default=True,
    ),  # a viewer sees it without entry controls
    Page("display", render_display_page, "page_display", ":material/tv:", "nav_table", viewer=True),
    Page(
        "lobby", render_lobby_page, "page_lobby", ":material/grid_view:", "nav_shoes", viewer=True
    ),
    Page(
        "library",
        render_library_page,
        "page_library",
        ":material/folder_open:",
        "nav_shoes",
        viewer=False,
    ),
    Page(
        "replay", render_replay_page, "page_replay", ":material/replay:", "nav_shoes", viewer=False
    ),
    Page(
        "backtest",
        render_backtest_page,
        "page_backtest",
        ":material/monitoring:",
        "nav_study",
        viewer=True,
    ),
    Page(
        "odds-study",
        render_study_page,
        "page_study",
        ":material/query_stats:",
        "nav_study",
        viewer=True,
    ),
    Page(
        "good-roads",
        render_good_roads_page,
        "page_good_roads",
        ":material/trending_up:",
        "nav_study",
        viewer=False,
    ),
)

BY_PATH: dict[str, Page] = {p.path: p for p in PAGES}


def st_page(page: Page, default: bool | None = None) -> st.Page:
    """The Streamlit page of ``page``, titled in the reader's language."""
    return st.Page(
        page.render,
        title=tr(page.title_key),
        icon=page.icon,
        url_path=page.path,
        default=page.default if default is None else default,
    )


def navigation(shown: Callable[[Page], bool] = lambda _: True, first: str | None = None) -> st.Page:
    """The sidebar's navigation of the pages ``shown`` allows, by section (sections left
    empty are not shown); ``first`` makes another page the default (what the tests
    open, as AppTest cannot open a URL path). Every page is remembered for `nav`."""
    order = sorted(PAGES, key=lambda p: p.path != first) if first else list(PAGES)
    built = {p.path: st_page(p, None if first is None else p.path == first) for p in order}
    nav.remember(built)
    sections: dict[str, list[st.Page]] = {}
    for p in order:
        if shown(p):
            sections.setdefault(tr(p.section_key), []).append(built[p.path])
    return st.navigation(sections, position="sidebar")
