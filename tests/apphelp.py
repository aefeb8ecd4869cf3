"""AppTest helpers shared by the UI tests."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from roads_app.i18n import word


def open_tab(at: AppTest, tab: str, lang: str = "en") -> AppTest:
    """Open the scoreboard's entry tab ``tab`` (``"points"``, ``"cards"``, ``"edit"`` or
    ``"new"``): only the open tab's inputs are on the page (`entry_page.render_entry_tabs`),
    as a person clicks the tab."""
    at.session_state["entry_tabs"] = word(f"tab_{tab}", lang)
    at.run()
    assert not at.exception, at.exception
    return at
