"""An exposed dashboard (``--host 0.0.0.0``) checks the tab's token at every change, not
once per session: after ``roads-app token --revoke-all`` an open operator tab's key
presses are refused, it says so, and the shoe stays as it was."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest
from conftest import AppServer, wait_idle, wait_keys, wait_rounds
from playwright.sync_api import Page, expect

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens
from tests import storehelp as sh

pytestmark = pytest.mark.browser

REFUSED = "no longer allows changes"
# The refusal shown, or the round counter moved on from round 4: whichever comes first.
SETTLED_JS = """(refused) => document.body.innerText.includes(refused) || (() => {
  const c = document.querySelector('[data-testid="round-count"]');
  return c !== null && c.textContent.trim() !== 'Round 4';
})()"""


@pytest.fixture(scope="module")
def exposed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """One exposed dashboard for the module: each test opens its own shoe and issues its
    own tokens (``again``: another test's may exist) after any earlier test's revoke."""
    root = tmp_path_factory.mktemp("exposed")
    server = AppServer(root / "data", root / "server.log", args=("--host", "0.0.0.0"))
    yield server.start()
    server.stop()


def test_a_revoked_token_stops_writing_in_an_open_tab(exposed: AppServer, page: Page) -> None:
    page.set_default_timeout(120_000)  # a hang guard on a shared, loaded machine
    data = exposed.data_dir
    meta = ShoeMeta(name="exposed table")
    db.open_store(data).shoes.create(meta, rounds_from_winners("BPB"))
    token = tokens.issue(data, "operator", again=True)

    page.goto(f"{exposed.url}/?shoe={meta.id}&token={token}")
    wait_idle(page)
    wait_keys(page)
    wait_rounds(page, 3)
    page.keyboard.press("b")  # the token holds: saved
    wait_rounds(page, 4)

    subprocess.run(
        [sys.executable, "-m", "roads_app", "token", "--revoke-all", "--data", str(data)],
        check=True,
        capture_output=True,
    )
    for key in "bpt":
        page.keyboard.press(key)
    page.wait_for_function(SETTLED_JS, arg=REFUSED)
    wait_idle(page)

    assert db.open_store(data).shoes.load(meta.id).rounds["winner"].to_list() == list("BPBB")
    expect(page.get_by_text(REFUSED)).to_be_visible()
    expect(page.locator(".st-key-btn_B")).to_have_count(0)  # the controls are gone


def test_the_follow_and_tile_routes_apply_the_pages_token_rule(exposed: AppServer) -> None:
    """On an exposed dashboard the follow and tile routes answer only a tab whose token
    could see the shoe's page: no token 401, a token the store does not hold 403, each
    with a one-line JSON detail; a viewer's token is answered; two passes, 400."""
    data = exposed.data_dir
    meta = ShoeMeta(name="exposed table")
    db.open_store(data).shoes.create(meta, rounds_from_winners("BP"))
    viewer = tokens.hash_token(tokens.issue(data, "viewer", again=True))
    tile = {"shoe": meta.id, "lang": "en", "derived": "0", "tags": "", "picked": ""}
    for url, params in (
        (f"{exposed.url}/_roads/follow", {"shoe": meta.id, "v": ""}),
        (f"{exposed.url}/_roads/tile", tile),  # a wall tile's live part
        (f"{exposed.url}/_roads/follow", {"wall": ""}),
    ):
        r = httpx.get(url, params=params, timeout=30)
        assert r.status_code == 401 and "token" in r.json()["detail"], r.text
        r = httpx.get(
            url, params=params, timeout=30, headers={"X-Roads-Tab": tokens.hash_token("ra_made_up")}
        )
        assert r.status_code == 403 and "\n" not in r.json()["detail"], r.text
        two = [("X-Roads-Tab", viewer), ("X-Roads-Tab", tokens.hash_token("ra_made_up"))]
        r = httpx.get(url, params=params, timeout=30, headers=two)  # which counts? neither
        assert r.status_code == 400 and "2 credentials" in r.json()["detail"], r.text
        r = httpx.get(url, params=params, timeout=30, headers={"X-Roads-Tab": viewer})
        assert r.status_code == 200, r.text
    assert r.json()["shoes"][meta.id] == db.open_store(data).shoes.version(meta.id)


def test_a_viewers_scoreboard_follows_the_table(exposed: AppServer, page: Page) -> None:
    """The read-only scoreboard a viewer's token shows follows results written elsewhere,
    as the display does, without a reload."""
    page.set_default_timeout(120_000)
    data = exposed.data_dir
    meta = ShoeMeta(name="watched table")
    db.open_store(data).shoes.create(meta, rounds_from_winners("BPB"))
    token = tokens.issue(data, "viewer", again=True)
    page.goto(f"{exposed.url}/?shoe={meta.id}&token={token}")
    wait_rounds(page, 3)
    expect(page.locator(".st-key-btn_B")).to_have_count(0)  # a viewer: no controls
    sh.save_shoe(rounds_from_winners("BPBT"), meta, data)  # another writer
    wait_rounds(page, 4)


SCREEN_REVOKED = "This screen's key was revoked."
PROMPT = "enter a viewer or operator token"


def test_a_screen_key_keeps_its_board_through_a_reload_until_revoked(
    exposed: AppServer, page: Page
) -> None:
    """A display opened with a screen key keeps the key in its link: reloaded, it shows
    the board again, no prompt; the key revoked, the open display and wall show one
    line and nothing else. The same key on the entry page: one line, no board."""
    page.set_default_timeout(120_000)
    data = exposed.data_dir
    meta = ShoeMeta(name="floor screen")
    db.open_store(data).shoes.create(meta, rounds_from_winners("BPB"))
    made = subprocess.run(
        [sys.executable, "-m", "roads_app", "token", "--screen", "--data", str(data)],
        check=True,
        capture_output=True,
        text=True,
    )
    key = made.stdout.split()[-1]  # the output's last word
    assert key.startswith(tokens.SCREEN_PREFIX)

    page.goto(f"{exposed.url}/display?shoe={meta.id}&token={key}")
    wait_rounds(page, 3)
    assert f"token={key}" in page.url  # kept in the link
    page.reload()
    wait_rounds(page, 3)  # the board again, with no prompt
    expect(page.get_by_text(PROMPT)).to_have_count(0)
    wall = page.context.new_page()  # the wall, with the same key
    wall.set_default_timeout(120_000)
    wall.goto(f"{exposed.url}/lobby?kiosk=1&token={key}")
    expect(wall.get_by_text("floor screen").first).to_be_visible()

    subprocess.run(
        [
            sys.executable,
            "-m",
            "roads_app",
            "token",
            "--screen",
            "--revoke-all",
            "--data",
            str(data),
        ],
        check=True,
        capture_output=True,
    )
    line = page.get_by_test_id("screen-refused")
    expect(line).to_have_text(SCREEN_REVOKED)  # the open screen, with no reload
    expect(page.locator('[data-testid="round-count"]')).to_have_count(0)
    expect(page.get_by_text(PROMPT)).to_have_count(0)
    expect(wall.get_by_test_id("screen-refused")).to_have_text(SCREEN_REVOKED)
    expect(wall.get_by_text("floor screen")).to_have_count(0)
    wall.close()

    other = tokens.issue_screen(data)
    page.goto(f"{exposed.url}/?shoe={meta.id}&token={other}")  # an entry page
    expect(page.get_by_test_id("screen-refused")).to_have_text(
        "A screen key opens the display and the wall only."
    )
    expect(page.locator('[data-testid="round-count"]')).to_have_count(0)
