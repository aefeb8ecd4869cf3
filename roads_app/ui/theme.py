"""Light and dark boards: the display and the lobby on a dark ground for a dim room.

The LED boards beside real tables and every live lobby draw roads on a dark ground: a
white screen in a dim casino is a lamp. ``?theme=dark`` on ``/display`` and ``/lobby``
(or the lobby's switch, which this browser then remembers in a cookie) draws them dark.

The board's colours are `render.board`'s, one set (red Banker, blue Player, green Tie,
gold marks on white); the dark board is the same spec with each of those colours swapped
for its counterpart in `board.DARK` (`board.recolour`, which a board's look names as its
``theme``). Here: the page's choice of a theme, and the page around the board (ground,
text, the tiles), which follows ``static/dark.css``.
"""

from __future__ import annotations

import streamlit as st

from roads_app.render.board import Theme, recolour
from roads_app.ui import page_head

PARAM = "theme"
"""The URL parameter: ``?theme=dark`` (or ``light``)."""
COOKIE = "roads-theme"
"""Where this browser remembers the choice (set by ``static/theme.js``)."""
SESSION_KEY = "roads_app.theme"

__all__ = ["COOKIE", "PARAM", "SESSION_KEY", "Theme", "apply", "chosen", "recolour"]
"""`Theme` and `recolour` are the board's (`render.board`), found here by the pages."""


def _parse(text: object) -> Theme | None:
    try:
        return Theme(str(text).lower()) if text else None
    except ValueError:
        return None


def chosen() -> Theme:
    """The page's theme: the URL's ``?theme=`` (which this browser then remembers), else
    the lobby switch's this session, else what this browser remembers, else light."""
    from_url = _parse(st.query_params.get(PARAM))
    if from_url is not None:
        st.session_state[SESSION_KEY] = from_url
        return from_url
    return (
        _parse(st.session_state.get(SESSION_KEY))
        or _parse(st.context.cookies.get(COOKIE))
        or Theme.LIGHT
    )


_CSS = page_head.static_text("dark.css")
_JS = page_head.static_text("theme.js")
_component = st.components.v2.component("roads_app.theme", js=_JS, isolate_styles=False)


def apply(theme: Theme) -> None:
    """Put ``theme`` on the page: the dark page's styles, the mark the tests and styles
    read (``html[data-rd-theme]``), and this browser's memory of it."""
    if theme is Theme.DARK:
        st.html(f"<style>{_CSS}</style>")
    _component(key="rd_theme", data={"theme": str(theme), "cookie": COOKIE}, height=1)
