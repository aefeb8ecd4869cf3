"""What the dashboard shows instead of a traceback, and text that is only text.

A bug (any exception outside `RoadsAppError`) in a page or a fragment becomes a short
message with the path of the log file that holds the full traceback (the same
`report_bug` the command line uses); Streamlit's own rerun/stop signals are
BaseExceptions and pass through untouched.

The message goes through `words.md_text` like every text a page did not write itself
(the log file's path, the bug's own words).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st

from roads_app.errors import report_bug
from roads_app.ui.words import md_text

F = TypeVar("F", bound=Callable[..., Any])


def show_bug(exc: BaseException) -> None:
    """The short message for a bug, with where its traceback was written."""
    st.error(md_text(report_bug(exc)), icon=":material/bug_report:")


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
