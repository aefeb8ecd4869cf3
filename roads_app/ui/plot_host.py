"""A figure drawn in place: each new spec drawn into the same element, none replaced.

``st.plotly_chart`` treats each new figure as a new element: the old chart is taken
down and the new one built and drawn (twice) by Streamlit's chart code, about 0.8 s
per key press on an 80-round board. Here a small `st.components.v2` component (no
iframe) keeps one ``div.rd-plot`` for as long as its element stays on the page and draws
each new figure spec (the plain ``{"data", "layout"}`` dict, as JSON) into it. A spec
equal to the one drawn is not drawn again, so a chart whose inputs did not change stays
still on a rerun.

A road (``svg=True``: the boards `render.board` lays out) is drawn as plain SVG
(``static/svg_plot.js``). Plotly drew an 80-round board in 55-100 ms of the page's main
thread, on every key press and every result a display showed (issues 26 and 29); the
SVG drawing of the same spec takes a few milliseconds. The same spec still makes the
Plotly figure where one is wanted (the PNG scorecard, `render.scorecard`), and a
browser test checks that the SVG puts every mark where Plotly does. Any other chart
goes to ``Plotly.react``: plotly.js is the basic bundle shipped with the package
(`page_head.PLOTLY_BUNDLE`), served beside the page by the launcher and loaded by the
page's head as it opens; nothing is fetched from the network.

On the scoreboard a key press draws the board that key gives before the server has
answered (`plot_next`): the server sends the boards one key away as specs, and a press
draws the pressed key's one in the next frame. (Drawing all four ahead, hidden, while
the page was idle made every press cost four draws: issue 26. One draw on demand is
the only one that pays.)

A figure wider than the page (a phone's board, `board._narrow_layout`) scrolls sideways
in the component's own box, and each new board opens at its right-hand end: there every
road of such a board shows its newest columns.

A road's ``div`` carries the spec it shows (``layout``, ``data``), as Plotly's graph div
does, so the held reveal (`board_host.show_held_after`) and the browser tests read it.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import streamlit as st

from roads_app.ui import page_head

_JS = page_head.static_text("svg_plot.js") + page_head.static_text("plot_host.js")
LATE_MS = 1500
"""How long a board waits for the page's width report before it is drawn anyway."""

_NEXT_JS = page_head.static_text("plot_next.js")

_component = st.components.v2.component(
    "roads_app.plot", js=_JS, css=page_head.static_text("plot_host.css"), isolate_styles=False
)
_next = st.components.v2.component("roads_app.plot_next", js=_NEXT_JS, isolate_styles=False)


def signature(spec: dict[str, Any], config: dict[str, Any]) -> str:
    """A digest of what would be drawn: the page skips a spec equal to the one it shows.

    >>> signature({"data": [], "layout": {}}, {}) == signature({"layout": {}, "data": []}, {})
    True
    >>> signature({"data": [], "layout": {"width": 1}}, {}) == signature(
    ...     {"data": [], "layout": {"width": 2}}, {})
    False
    """
    text = json.dumps([spec, config], sort_keys=True, separators=(",", ":"))
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def plot(
    spec: dict[str, Any],
    *,
    key: str,
    config: dict[str, Any] | None = None,
    draw: bool = True,
    placeholder_height: int = 0,
    follows: tuple[str, int] | None = None,
    note: str = "",
    svg: bool = False,
) -> str:
    """Draw ``spec`` (a plain Plotly ``{"data", "layout"}`` dict) in place under ``key``;
    returns its `signature`.

    ``draw=False`` sends the spec (a test reads it) but the page does not draw it: it
    keeps what it last drew, or on a first draw holds ``placeholder_height`` pixels so
    the page does not jump when the real drawing comes (and draws this spec after all
    if none has come within 1.5 s).

    ``follows``: the key queue's ``(epoch, last press applied)`` this spec includes
    (`board_host`); a press after it makes the page draw the spec `plot_next` sent for
    that key at once, and the server's own spec when its run has applied the press.
    ``note``: a word on how the spec was made, kept by the page with its first drawing.
    ``svg``: the spec is a road (`render.board`), drawn as SVG; otherwise Plotly draws it.
    """
    config = config or {}
    sig = signature(spec, config)
    _component(
        key=key,
        height="content",
        data={
            "spec": spec,
            "config": config,
            "sig": sig,
            "svg": svg,
            "draw": draw,
            "name": key,
            "note": note,
            "height": placeholder_height,
            "src": page_head.PLOTLY_SRC,
            "scriptId": page_head.PLOTLY_ID,
            "lateMs": LATE_MS,
            "follows": {"epoch": follows[0], "acked": follows[1]} if follows else None,
        },
    )
    return sig


def plot_next(
    specs: dict[str, dict[str, Any]], *, key: str, base: str, config: dict[str, Any] | None = None
) -> None:
    """What the plot under ``key`` becomes after each key press (``{"b": spec, ...}``),
    while it shows the spec whose signature is ``base``.

    Why: a key press's own round trip (the script run, its messages, the page's update
    of every element) took 150-250 ms before the board could be drawn; with the boards
    one key away already on the page, the press draws its board at once, from specs the
    server laid out with the same code as every board. The server's own board follows
    and is not drawn again when it is the same (same signature). Sent after the rest of
    the page, so laying them out never delays what the press changed.
    """
    config = config or {}
    _next(
        key=f"{key}_next",
        height=1,
        data={
            "name": key,
            "base": base,
            "specs": {k: {"spec": s, "sig": signature(s, config)} for k, s in specs.items()},
        },
    )
