"""The board's eyes and ears in the browser: how wide it may be, and the B/P/T/U keys.

One small `st.components.v2` component (its script runs in the page itself, no iframe)
sits above the board. It reports the width the board has on the page, so the board is
laid out for that width with every mark sized from its cell, never squeezed by the
browser afterwards. On the scoreboard it also takes the result keys.

Why keys do not go through ``st.button(shortcut=...)``: a button press is a one-shot
trigger, and presses that arrive while the script is still running are folded into one
rerun, so fast typing lost results. Here every key press goes into a queue in the page
with a sequence number; the component's state is the *whole* queue of presses the server
has not acknowledged yet, so however Streamlit folds reruns, the latest state still
holds every press. The server applies the presses it has not applied yet, in order
(`unapplied`), and sends back the last sequence number it applied; the page then drops
those from its queue, and sends again what stays unacknowledged for a second (a rerun
request made while a run is starting can be swallowed). A page load starts a new
epoch, so numbers never collide. The queue itself (``static/page_head.js``) is in the
page's HTML, listening before Streamlit has even connected; this component takes it
over when it mounts, so a key pressed as the page opens is kept, not lost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from roads_app.ui import page_head

KEYS = page_head.KEYS
QUEUE_KEYS = page_head.QUEUE_KEYS
WIDGET_KEY = "board_host"
APPLIED_KEY = "roads_app.keys_applied"  # (epoch, last sequence number applied)

_JS = page_head.QUEUE_JS + page_head.static_text("board_host.js")
"""The queue's functions, then the component (``static/board_host.js``), which calls them."""

_component = st.components.v2.component("roads_app.board_host", js=_JS, isolate_styles=False)


def unapplied(value: Any, applied: tuple[str, int] | None) -> tuple[str, list[tuple[int, str]]]:
    """The presses in the page's queue the server has not applied yet, oldest first.

    >>> unapplied({"epoch": "e1", "items": [[1, "b"], [2, "p"], [3, "u"]]}, ("e1", 1))
    ('e1', [(2, 'p'), (3, 'u')])
    >>> unapplied({"epoch": "e2", "items": [[1, "t"]]}, ("e1", 9))  # a new page load
    ('e2', [(1, 't')])
    >>> unapplied({"epoch": "e2", "items": [[1, "x"], [2, "b"]]}, None)  # not a key
    ('e2', [(2, 'b')])
    >>> unapplied({"epoch": "e3", "items": [[1, "player_pair"], [2, "b"]]}, None)  # numpad 4
    ('e3', [(1, 'player_pair'), (2, 'b')])
    """
    if not isinstance(value, dict) or not isinstance(value.get("epoch"), str):
        return "", []
    epoch = value["epoch"]
    last = applied[1] if applied and applied[0] == epoch else 0
    items = sorted((int(seq), key) for seq, key in value.get("items") or [] if key in QUEUE_KEYS)
    return epoch, [(seq, key) for seq, key in items if seq > last]


def _state(name: str) -> Any:
    value = st.session_state.get(WIDGET_KEY)
    try:
        return value[name] if value is not None else None
    except (KeyError, TypeError):
        return getattr(value, name, None)


def reported_width() -> int | None:
    """The board's width on the page as last reported (None before the first report)."""
    width = _state("width")
    return int(width) if isinstance(width, int | float) and width > 0 else None


def viewport_width() -> int | None:
    """The browser window's width, as the page's head left it in a cookie before the app
    connected (`page_head.head_script`); None without a believable one."""
    raw = st.context.cookies.get(page_head.VIEWPORT_COOKIE)
    width = int(raw) if isinstance(raw, str) and raw.isdigit() else 0
    return width if 200 <= width <= 20_000 else None


SIDEBAR_PX = 300
"""Streamlit's sidebar width, open by default in a window wider than 768 px."""


def streamlit_width(viewport: int) -> int:
    """The width of a page's main column in Streamlit's wide layout in a window
    ``viewport`` wide: less the open sidebar, and the main block's side padding (1 rem
    on narrow windows, 5 rem from about 870 px). A first guess only, for the first
    drawing: the page's own report corrects it (one more drawing if it was wrong).

    >>> streamlit_width(390), streamlit_width(1440)
    (358, 980)
    """
    side = SIDEBAR_PX if viewport > 768 else 0
    pad = 80 if viewport >= 870 else 16
    return viewport - side - 2 * pad


def board_width(default: int) -> int:
    """The board's width on the page as last reported (``default`` before the first)."""
    return reported_width() or default


def applied() -> tuple[str, int]:
    """The page load's key queue (its epoch) and the last press applied from it."""
    epoch, seq = st.session_state.get(APPLIED_KEY) or ("", 0)
    return epoch, seq


def mount(on_keys: Callable[[list[str]], None] | None = None, *, more: bool = False) -> None:
    """Place the component; with ``on_keys`` it also takes B/P/T/U presses.

    ``more``: this run sends only part of the page; the page asks for a run again (its
    width report, then once a second) until a run has sent the rest.

    ``on_keys`` gets the presses not applied yet (``["b", "p", ...]``) in order; they
    are marked applied *before* it runs, so a refused batch is reported, not retried.
    """

    def _presses() -> None:
        if on_keys is None:
            return
        epoch, new = unapplied(_state("presses"), st.session_state.get(APPLIED_KEY))
        if not new:
            return
        st.session_state[APPLIED_KEY] = (epoch, new[-1][0])
        on_keys([key for _, key in new])

    epoch, acked = applied()
    _component(
        key=WIDGET_KEY,
        data={
            "keys": on_keys is not None,
            "epoch": epoch,
            "acked": acked,
            "width": board_width(0),
            "more": more,
            "keyList": list(page_head.QUEUE_KEYS),
            "keyCodes": page_head.NUMPAD,
        },
        height=1,
        on_presses_change=_presses,
        on_width_change=lambda: None,
        on_more_change=lambda: None,
    )


_SHOW_HELD_JS = page_head.static_text("show_held.js")

_show_held = st.components.v2.component(
    "roads_app.show_held", js=_SHOW_HELD_JS, isolate_styles=False
)


def show_held_after(seconds: float, round_no: int) -> None:
    """When round ``round_no``'s reveal has turned its last card (``seconds`` at most, as
    a fallback), show the board's held marks (see `board_figure`) and mark the page
    (``html[data-rd-shown]``) so the held strip and statistics swap in the same frame."""
    _show_held(
        key=f"show_held_{round_no}", data={"ms": round(seconds * 1000), "round": round_no}, height=1
    )
