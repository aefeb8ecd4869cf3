"""The live feed end to end: `roads-app` (dashboard + API beside it), a feeder pushing a
whole simulated shoe through the API, a browser page and an SSE client following it.

Both followers must end with exactly the shoe's rounds, in order: the SSE client round
for round and card for card, the page by every road's rounds and marks (the big road
and the derived roads differ for any other order) compared with the board drawn from
the dealt shoe. The time from an append to the page's redraw is recorded, not asserted.

The page is the big-screen display (``/display?shoe=``) where the app has one; without
it, the scoreboard (``/?shoe=``), which shows the database's shoe when it is loaded,
is reloaded until it shows the fed rounds.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import (
    REPO,
    AppServer,
    board_meta,
    free_port,
    record,
    round_count,
    wait_api,
    wait_idle,
    wait_rounds,
)
from playwright.sync_api import Page

from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.render.board import board_figure
from roads_app.store import tokens
from tests.api_server import SseFollower

pytestmark = pytest.mark.browser

DISPLAY = (REPO / "roads_app" / "ui" / "display_page.py").exists()
SEED = 11


@pytest.fixture
def app_with_api(tmp_path: Path) -> Iterator[AppServer]:
    server = AppServer(tmp_path / "data", tmp_path / "server.log", api_port=free_port())
    server.start()
    try:
        wait_api(server)
        yield server
    finally:
        server.stop()


def expected_roads(rounds) -> dict[str, dict]:
    meta = board_figure(rounds).layout.meta
    return {name: {"rounds": m["rounds"], "marks": m["marks"]} for name, m in meta["roads"].items()}


def shown_roads(page: Page) -> dict[str, dict]:
    return {k: {"rounds": v["rounds"], "marks": v["marks"]} for k, v in board_meta(page).items()}


def test_a_fed_shoe_reaches_the_page_and_the_stream_exactly(app_with_api: AppServer, page: Page):
    server = app_with_api
    api = f"http://127.0.0.1:{server.api_port}"
    token = tokens.issue(server.data_dir, "operator")
    dealt = deal_shoe(SEED, ShoeOptions()).rounds
    with httpx.Client(base_url=api, headers={"Authorization": f"Bearer {token}"}) as op:
        shoe = op.post("/shoes", json={"name": "fed"}).json()["id"]
        follow = f"{server.url}/display?shoe={shoe}" if DISPLAY else f"{server.url}/?shoe={shoe}"
        page.set_default_timeout(120_000)  # a first page load on a busy 2-core machine
        page.goto(follow)
        wait_idle(page)
        with SseFollower(api, shoe) as sse:
            # the first hands one by one, timing each append to the page's redraw
            lags = []
            for n, (pc, bc) in enumerate(
                zip(
                    dealt["player_cards"].to_list()[:5],
                    dealt["banker_cards"].to_list()[:5],
                    strict=True,
                ),
                start=1,
            ):
                t0 = time.perf_counter()
                r = op.post(
                    f"/shoes/{shoe}/rounds",
                    json={"player_cards": pc, "banker_cards": bc},
                    headers={"Idempotency-Key": f"feed-{shoe}-s{SEED}-h{n}"},
                )
                assert r.status_code == 201, r.text
                if not DISPLAY:
                    page.reload()
                wait_rounds(page, n)
                lags.append(round((time.perf_counter() - t0) * 1000))
            record(
                "api_append_to_display_redraw_ms"
                if DISPLAY
                else "api_append_to_scoreboard_reload_ms",
                lags,
            )
            record("api_append_to_page_median_ms", statistics.median(lags))
            # the rest by the feeder, as an electronic shoe would (it skips the 5 already in)
            feeder = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "roads_app",
                    "feed",
                    "--shoe",
                    shoe,
                    "--simulate",
                    "--seed",
                    str(SEED),
                    "--every",
                    "0.05",
                    "--api",
                    api,
                    "--token",
                    token,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert feeder.returncode == 0, feeder.stderr
            assert feeder.stderr.count("already in") == 5
            sse.wait_for(lambda f: len(f.rounds) == dealt.height, timeout=60)
            assert sse.rounds == dealt.to_dicts()
        if not DISPLAY:
            page.reload()
        wait_rounds(page, dealt.height, timeout_ms=60_000)
        assert round_count(page) == dealt.height
        assert shown_roads(page) == expected_roads(dealt)
