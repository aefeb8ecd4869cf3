"""What the served page's ``<head>`` carries before the app runs: the key queue, and
the plotly.js bundle the board is drawn with.

**The key queue.**
A key pressed while the page is still starting (the browser has the page, but Streamlit
has not connected and run the script yet, so no component of ours exists) would reach
no listener at all. So the queue of B/P/T/U presses (``static/page_head.js``) is an inline script
in the ``index.html`` the server sends: it listens from the moment the page is parsed
and keeps every press, numbered, until the scoreboard's key component (`board_host`)
takes the queue over and sends it to the server. The component runs the same
`QUEUE_JS` itself when the page did not carry it, so keys still work (from its mount
on) if the HTML could not be changed.

**The window's width** (`head_script`), in a cookie the first script run can read.

**plotly.js** (`PLOTLY_BUNDLE`, served as `PLOTLY_SRC`) draws the charts other than
the roads (the roads are SVG, `svg_plot.js`). The head only *prefetches* it (fetched at
idle priority into the cache, not run): run from the head, its top-level code took
the main thread for about a second of a cold first load on a loaded machine (the
largest single cost in the page's profile), in the way of Streamlit's start and of the
first board, which never needs it. `plot_host` adds the script the first time a Plotly
chart is drawn. Nothing comes from the network: the file is the installed package's,
linked into the folder.

`serve_with_early_keys` makes the served folder: Streamlit's own static folder with
its ``index.html`` replaced by one carrying both (links for everything else). No
Streamlit import here: the launcher uses it before Streamlit starts.
"""

from __future__ import annotations

import json
from pathlib import Path

from roads_app.game.rounds import Flag
from roads_app.places import STATIC_DIR
from roads_app.render.fonts import FONT_DIR, FONT_FILE

KEYS = ("b", "p", "t", "u")
PAIR_KEYS = (Flag.PLAYER_PAIR, Flag.BANKER_PAIR)
"""Queue entries that toggle a pair for the next result, as the page's toggles do."""
QUEUE_KEYS = (*KEYS, *PAIR_KEYS)
"""Everything the key queue carries to the server."""
NUMPAD = {
    "Numpad1": "p",
    "Numpad2": "b",
    "Numpad3": "t",
    "Numpad4": "player_pair",
    "Numpad5": "banker_pair",
    "NumpadSubtract": "u",
}
"""The dealer's numeric keypad, by physical key (``KeyboardEvent.code``, so Num Lock on
or off gives the same entry): 1 Player, 2 Banker, 3 Tie, 4 and 5 the pairs, minus undo."""
MARK = "roads-app-early-keys"
"""The id of the inline script tag (tests and a second injection look for it)."""


def static_text(name: str) -> str:
    """A script or style sheet of the package (`STATIC_DIR`), as text (for the page or a
    component)."""
    return (STATIC_DIR / name).read_text(encoding="utf-8")


QUEUE_JS = static_text("page_head.js")
"""The key queue and the width cookie (functions only; `head_script` calls them)."""


VIEWPORT_COOKIE = "roads-vw"


def head_script() -> str:
    """The inline script of the page's head: `QUEUE_JS`, then its two calls, their
    settings as JSON. The window's width goes in a cookie before the app connects: the
    server's first run reads it (`board_host.viewport_width`) to lay the board out for the
    page's width at once, instead of waiting for the page to report it."""
    return (
        f"{QUEUE_JS}\nroadsKeyQueue(window, {json.dumps(list(QUEUE_KEYS))}, "
        f"{json.dumps(NUMPAD)});\n"
        f"roadsViewportCookie({json.dumps(VIEWPORT_COOKIE)});"
    )


PLOTLY_SRC = "./roads-app-plotly.min.js"
"""Where the page loads plotly.js from (relative to the page, as Streamlit's own files)."""
PLOTLY_ID = "roads-app-plotly"
"""The id of its script tag (`plot_host` adds it when a chart first needs plotly.js)."""
PREFETCH_ID = "roads-app-plotly-prefetch"
"""The id of the head's prefetch link (not `PLOTLY_ID`: that is the script's)."""


PLOTLY_BUNDLE = STATIC_DIR / "plotly-basic.min.js"
"""plotly.js's own "basic" bundle (scatter, bar, pie: all the board and the rank chart
draw), MIT-licensed (``plotly-basic.LICENSE`` beside it), shipped with the package: the
``plotly`` package's full bundle is four times its size, and the browser spent 1.5-2 s
compiling it on a first load, in the way of Streamlit's own start. Taken unchanged from
npm (``npm pack plotly.js-basic-dist-min@<version of the plotly package's plotly.js>``)."""


CJK_FONT = FONT_FILE
"""The page's own CJK glyphs, exactly the CJK characters the pages can show
(`tools/build_cjk_font.py`), the very file the PNG scorecard draws with (`render.fonts`)."""
CJK_CSS = FONT_DIR / "roads-cjk.css"
"""Its ``@font-face`` rules, under the families the page's text is set in (CJK ranges only)."""
FONT_SRC = "./roads-app-cjk.otf"
FONT_CSS_SRC = "./roads-app-cjk.css"
FONT_ID = "roads-app-cjk"
FAVICON = STATIC_DIR / "favicon.png"
"""The tab's icon, a file of the package (a Material icon name was fetched from the network)."""


def plotly_js() -> Path:
    """The plotly.js bundle the page loads (`PLOTLY_BUNDLE`)."""
    if not PLOTLY_BUNDLE.is_file():
        raise FileNotFoundError(f"{PLOTLY_BUNDLE} is missing from the installed package")
    return PLOTLY_BUNDLE


def with_early_keys(index_html: str) -> str:
    """``index_html`` with the queue as the first script of its ``<head>``, then a
    prefetch of the plotly.js bundle (cached, not run), then the page's own CJK font
    (`CJK_CSS`).

    >>> page = with_early_keys("<html><head><title>x</title></head></html>")
    >>> page.index("roads-app-early-keys") < page.index("roads-app-plotly") < page.index("<title>")
    True
    >>> with_early_keys(page) == page  # already there
    True
    """
    if MARK in index_html:
        return index_html
    head = index_html.find("<head>")
    if head < 0:
        raise ValueError("the page has no <head> to put the key queue in")
    at = head + len("<head>")
    script = f'<script id="{MARK}">{head_script()}</script>'
    plotly = f'<link rel="prefetch" id="{PREFETCH_ID}" href="{PLOTLY_SRC}" as="script">'
    font = f'<link rel="stylesheet" id="{FONT_ID}" href="{FONT_CSS_SRC}">'
    return f"{index_html[:at]}\n{script}{plotly}{font}{index_html[at:]}"


def serve_with_early_keys(static_dir: Path, out_dir: Path) -> Path:
    """A folder to serve instead of ``static_dir``: its ``index.html`` carries the queue
    and prefetches plotly.js, linked in beside it; every other entry is a link to the
    original (nothing is copied)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for entry in static_dir.iterdir():
        if entry.name != "index.html":
            (out_dir / entry.name).symlink_to(entry)
    (out_dir / PLOTLY_SRC.removeprefix("./")).symlink_to(plotly_js())
    (out_dir / FONT_SRC.removeprefix("./")).symlink_to(CJK_FONT)
    (out_dir / FONT_CSS_SRC.removeprefix("./")).symlink_to(CJK_CSS)
    index = (static_dir / "index.html").read_text(encoding="utf-8")
    (out_dir / "index.html").write_text(with_early_keys(index), encoding="utf-8")
    return out_dir
