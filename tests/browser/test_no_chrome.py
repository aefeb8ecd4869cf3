"""No framework chrome on any page, on a machine where Streamlit would offer it.

Started as the README starts it (``python3 dev.py app``, not headless) with an AI coding
tool's folder in the home directory, Streamlit (1.5x+) would put its "Help agents write
better apps · Install" card over the page, and its toolbar, deploy button and main menu
in the header. The launcher's settings (`serve.streamlit_command`) keep all of them off:
each page, at a phone's and a laptop's width, shows none of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.browser.conftest import APP_IDLE, AppServer

CHROME = (
    "stSkillsNudge",
    "stToolbarActions",
    "stAppDeployButton",
    "stMainMenu",
    "stMainMenuPopover",
    "stDecoration",
)
"""Streamlit's own developer cards, menus, toolbars and prompts, by their test ids."""
PAGES = ("", "lobby", "display?shoe=none", "library")


class WindowedServer(AppServer):
    """`AppServer` as a person starts it on their own machine: no ``--headless``, a home
    folder holding an AI coding tool's settings (``~/.claude``), no browser to open."""

    def __init__(self, home: Path, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.home = home

    def command(self) -> list[str]:
        return ["python3", "dev.py", "app", "--port", str(self.port), "--data", str(self.data_dir)]

    def environment(self) -> dict[str, str]:
        (self.home / ".claude").mkdir(parents=True, exist_ok=True)
        return {**os.environ, "HOME": str(self.home), "BROWSER": "true"}


@pytest.fixture(scope="module")
def windowed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WindowedServer]:
    tmp = tmp_path_factory.mktemp("windowed")
    server = WindowedServer(tmp / "home", tmp / "data", tmp / "app.log").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("width", [390, 1024])
def test_no_page_shows_streamlit_chrome(page: Page, windowed: WindowedServer, width: int):
    page.set_viewport_size({"width": width, "height": 900})  # before the first load
    for path in PAGES:
        page.goto(f"{windowed.url}/{path}")
        page.wait_for_selector(APP_IDLE, timeout=60_000)
        page.wait_for_selector(
            '[data-testid="stMainBlockContainer"] [data-testid="stElementContainer"]'
        )
        # The card comes with the session's first message: the app has run once since.
        seen = page.evaluate(
            """ids => ids.filter(id => [...document.querySelectorAll(
                 `[data-testid="${id}"]`)].some(e => e.getClientRects().length > 0))""",
            list(CHROME),
        )
        assert seen == [], f"/{path} at {width} px shows {seen}"
    assert "roads-app: the dashboard is at http://localhost:" in windowed.log_tail(200)
