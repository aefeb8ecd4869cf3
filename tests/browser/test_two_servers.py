"""Two dashboard servers on one data folder (or a server and a script): the database is
the one truth, so the tab that is behind is refused with the tabs' message and reloaded,
and nothing either side entered is lost."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from conftest import REPO, AppServer, HeldFollow, wait_keys, wait_rounds
from playwright.sync_api import Browser, Page

from tests import storehelp as sh

pytestmark = pytest.mark.browser


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[AppServer, AppServer]]:
    data = tmp_path / "data"
    first = AppServer(data, tmp_path / "first.log").start()
    try:
        second = AppServer(data, tmp_path / "second.log").start()
        try:
            yield first, second
        finally:
            second.stop()
    finally:
        first.stop()


def winners(data: Path, shoe: str) -> str:
    return "".join(sh.load_shoe(shoe, data)[0]["winner"].cast(pl.String).to_list())


def alert(page: Page, text: str):
    return page.locator('[data-testid="stAlert"]').filter(has_text=text)


def test_two_servers_on_one_folder_refuse_the_tab_that_is_behind(
    two_servers: tuple[AppServer, AppServer], browser: Browser
) -> None:
    first, second = two_servers
    a = browser.new_context(viewport={"width": 1440, "height": 960}).new_page()
    b = browser.new_context(viewport={"width": 1440, "height": 960}).new_page()
    try:
        for pg in (a, b):
            pg.context.set_default_timeout(60_000)
        # Each tab follows the other server's writes within a second; held, it cannot, so
        # its next key carries the version it read: the tab behind, made certain.
        held_a, held_b = HeldFollow(a), HeldFollow(b)
        a.goto(first.url)
        wait_rounds(a, 0, timeout_ms=120_000)  # a cold first run on a busy machine
        wait_keys(a)
        for i, key in enumerate("bp", start=1):
            a.keyboard.press(key)
            wait_rounds(a, i)
        shoe = a.url.split("shoe=")[1].split("&")[0]

        b.goto(f"{second.url}/?shoe={shoe}")  # the same shoe, through the other server
        wait_rounds(b, 2, timeout_ms=120_000)
        wait_keys(b)
        b.keyboard.press("t")
        wait_rounds(b, 3)

        a.keyboard.press("b")  # server one's tab still shows BP
        alert(a, "another tab").wait_for()
        wait_rounds(a, 3)  # refused, and reloaded with what server two saved
        assert winners(first.data_dir, shoe) == "BPT"

        # a script next to the running servers: the tab behind it is refused the same way
        r = subprocess.run(
            [
                sys.executable,
                "-m",
                "roads_app",
                "shoes",
                "add",
                shoe,
                "P",
                "--data",
                str(first.data_dir),
            ],
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert r.returncode == 0, r.stderr
        b.keyboard.press("b")
        alert(b, "another tab").wait_for()
        wait_rounds(b, 4)
        held_a.release()
        held_b.release()
        a.reload()
        wait_rounds(a, 4)
        wait_keys(a)
        a.keyboard.press("b")  # up to date now: accepted
        wait_rounds(a, 5)
        wait_rounds(b, 5)  # no key there: it follows server one's write
        b.keyboard.press("p")  # after the follow: applied on top, not refused
        wait_rounds(b, 6)
        wait_rounds(a, 6)
        # every key sent is saved, in order, but the two refused (and shown as refused)
        assert winners(first.data_dir, shoe) == "BPTPBP"
    finally:
        a.context.close()
        b.context.close()
