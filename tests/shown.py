"""What a reader sees of text a page wrote through `roads_app.ui.words.md_text`: the
Markdown escapes read (a backslash before ASCII punctuation shows that character) and
the invisible word joiners dropped. For tests that read a page's Markdown source
(AppTest) and compare it with what a person would read."""

from __future__ import annotations

import re

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def shown(markdown: str) -> str:
    r"""CommonMark's reading of backslash escapes, without word joiners.

    >>> shown(r"a\*b\* \\ c\:d")
    'a*b* \\ c:d'
    """
    return _ESCAPE.sub(r"\1", markdown).replace("\u2060", "")
