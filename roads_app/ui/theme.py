"""Light and dark boards: the display and the lobby on a dark ground for a dim room.

The LED boards beside real tables and every live lobby draw roads on a dark ground: a
white screen in a dim casino is a lamp. ``?theme=dark`` on ``/display`` and ``/lobby``
(or the lobby's switch, which this browser then remembers in a cookie) draws them dark.

The board's colours are `render.board`'s, one set (red Banker, blue Player, green Tie,
gold marks on white); the dark board is the same spec with each of those colours swapped
for its counterpart in `DARK` (`recolour`), lighter so each mark keeps at least 3:1
against the dark ground and each text 4.5:1 (WCAG 2.1), as the light ones do on white.
The page around the board (ground, text, the tiles) follows ``static/dark.css``.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

import streamlit as st

from roads_app.render import board
from roads_app.ui import page_head


class Theme(StrEnum):
    """A board's ground."""

    LIGHT = "light"
    DARK = "dark"


PARAM = "theme"
"""The URL parameter: ``?theme=dark`` (or ``light``)."""
COOKIE = "roads-theme"
"""Where this browser remembers the choice (set by ``static/theme.js``)."""
SESSION_KEY = "roads_app.theme"

GROUND = "#0f1216"
"""The dark board's ground (the page's is the same: a board and its page are one screen)."""

DARK: dict[str, str] = {
    board.PAPER: GROUND,  # the ground, and the text on a bead (dark on a bright bead)
    board.GRID: "#3a414b",
    board.RED: "#f05454",
    board.BLUE: "#4a9eff",
    board.GREEN: "#3dbb62",
    board.GOLD: "#ffc53d",
    board.TEXT: "#e8eaed",
    board.NOTE: "#c3c9d2",
}
"""Each colour of the light board and its dark board counterpart."""


def recolour(spec: Any, theme: Theme) -> Any:
    """``spec`` (a figure's plain JSON: dicts, lists, strings) with each light board colour
    swapped for the theme's; the light theme is the spec itself.

    >>> recolour({"marker": {"color": [board.RED, "x"]}, "bg": board.PAPER}, Theme.DARK)
    {'marker': {'color': ['#f05454', 'x']}, 'bg': '#0f1216'}
    """
    if theme is Theme.LIGHT:
        return spec
    if isinstance(spec, dict):
        return {k: recolour(v, theme) for k, v in spec.items()}
    if isinstance(spec, list):
        return [recolour(v, theme) for v in spec]
    if isinstance(spec, str):
        return DARK.get(spec.lower(), spec)
    return spec


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
