"""Moving to another page without importing it.

The registry (`ui.pages`) imports every page; a page that sends the reader elsewhere
(the library's Open, the lobby's tile) goes through here instead, to the very
`st.Page` the navigation was built with this run (`remember`), so no page imports another
page or the registry and the arrows in `ui/` point one way.
"""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

NAV_KEY = "roads_app.nav"
"""This session's pages by path, as the navigation built them on its last run."""


def remember(pages: Mapping[str, st.Page]) -> None:
    """Keep this run's pages (every page, shown or not) for `switch_to`."""
    st.session_state[NAV_KEY] = dict(pages)


def switch_to(path: str, params: dict[str, str] | None = None) -> None:
    """Go to the page at ``path`` with query parameters (e.g. the scoreboard on ``?shoe=``)."""
    pages: Mapping[str, st.Page] = st.session_state.get(NAV_KEY, {})
    if path not in pages:  # a bug: every page is remembered with the navigation
        raise LookupError(f"no page {path!r} in this session's navigation")
    st.switch_page(pages[path], query_params=params or {})
