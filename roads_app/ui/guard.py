"""What the dashboard shows instead of a traceback, and text that is only text.

A bug (any exception outside `RoadsAppError`) in a page or a fragment becomes a short
message with the path of the log file that holds the full traceback (the same
`report_bug` the command line uses); Streamlit's own rerun/stop signals are
BaseExceptions and pass through untouched.

Names and messages that come from files or people are shown with `plain`, so a shoe
called ``**x** ![img](http://...) <b>`` reads exactly like that and never turns into
markup, a link or an image.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from roads_app.errors import report_bug

F = TypeVar("F", bound=Callable[..., Any])

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|~:$>])")


def plain(text: object) -> str:
    """``text`` escaped so Streamlit's Markdown shows it literally (no markup, no HTML).

    >>> plain("**a** <b>x</b> :red[y]")
    '\\\\*\\\\*a\\\\*\\\\* &lt;b&gt;x&lt;/b&gt; \\\\:red\\\\[y\\\\]'
    """
    escaped = html.escape(str(text), quote=False)
    return _MARKDOWN.sub(r"\\\1", escaped).replace("\n", " ")


def show_bug(exc: BaseException) -> None:
    """The short message for a bug, with where its traceback was written."""
    st.error(plain(report_bug(exc)), icon=":material/bug_report:")


def guarded(fn: F) -> F:
    """Run a page or fragment body; a bug in it is a message, not a traceback."""

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as e:  # any bug: our own errors are handled where they arise
            show_bug(e)
            return None

    return run  # type: ignore[return-value]
