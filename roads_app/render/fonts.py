"""The CJK font everything we draw names, and the server drawing with it.

**In a page**, the font is a web font: ``roads_app/ui/static/fonts/roads-cjk.css``
(written by ``tools/build_cjk_font.py``) declares the subset under `CJK_FAMILY`, for the
CJK ranges only, and the roads' figures name `CJK_FAMILY` first (`TEXT_FONT`,
`MARK_FONT`): Latin letters go on to the next family, Chinese ones are drawn with ours
whatever fonts the machine has.

**In the PNG scorecard**, rendered by the server through kaleido's headless Chromium,
web fonts do not reach the picture: plotly.js draws the figure as an SVG image into a
canvas, and an SVG image loads nothing, so only the fonts fontconfig lists are drawn
with. `fonts_with_ours` has a Chromium started meanwhile see the machine's fonts plus
the folder of our subset, so on a machine with no CJK font, Chromium's fallback for a
Chinese character finds ours (a plain OpenType file: Chromium takes no WOFF2 file from
fontconfig).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from xml.sax.saxutils import escape

from roads_app.places import STATIC_DIR

CJK_FAMILY = "Roads CJK"
"""The family the page's CJK face is declared under (CJK ranges only)."""
TEXT_FONT = f'"{CJK_FAMILY}", sans-serif'
"""The roads' titles and the scorecard's header."""
MARK_FONT = f'"{CJK_FAMILY}", "Arial Black", Arial'
"""The letters in the marks (B/P/T, 庄/闲/和)."""

FONT_DIR = STATIC_DIR / "fonts"
"""The folder of the subset (``roads-cjk.otf``), the very file the pages serve: a file
of the package, read by path (the drawing does not import the dashboard)."""
FONT_FILE = FONT_DIR / "roads-cjk.otf"

_ENV = "FONTCONFIG_FILE"
_LOCK = threading.Lock()


def fontconfig_text(before: str | None, font_dir: Path = FONT_DIR) -> str:
    """A fontconfig file: the one in force (``before``, or the machine's own) and our
    font's folder.

    >>> "<dir>/f</dir>" in fontconfig_text(None, Path("/f"))
    True
    """
    base = escape(before) if before else "fonts.conf"  # the machine's, found on its path
    return (
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f'  <include ignore_missing="yes">{base}</include>\n'
        f"  <dir>{escape(str(font_dir))}</dir>\n</fontconfig>\n"
    )


@contextmanager
def fonts_with_ours() -> Iterator[None]:
    """While inside, a browser this process starts sees the machine's fonts and ours.

    Chromium reads fontconfig's file from its environment, which kaleido copies from
    ours when it starts it: the variable is set for the block and put back after, one
    block at a time (the dashboard draws PNGs in several threads)."""
    with _LOCK, tempfile.TemporaryDirectory(prefix="roads-app-fonts-") as folder:
        before = os.environ.get(_ENV)
        conf = Path(folder) / "fonts.conf"
        conf.write_text(fontconfig_text(before), encoding="utf-8")
        os.environ[_ENV] = str(conf)
        try:
            yield
        finally:
            if before is None:
                os.environ.pop(_ENV, None)
            else:
                os.environ[_ENV] = before
