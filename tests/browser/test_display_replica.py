"""Issue 35 item 3: a result appended through API replica A reaches an open display
(``/display``) of dashboard C, a real Streamlit dashboard on the same PostgreSQL, in the
system Chromium; A and C on hosts of their own (`display_floor`).

Asserted: every round arrives, drawn (the header's count and the board's rounds), and
the display ends with exactly the roads of the rounds fed; then the database is
restarted under the open page: the rounds fed after it (through A, retried with the same
keys until A has its connection back) arrive on the same page, which C's watcher
catches up by itself. How long each took (the
append's answer to the first frame that held it) is recorded, not asserted: the
benchmark bench/bench_display_replica.py measures it over many rounds.
"""

from __future__ import annotations

from pathlib import Path

import httpx
import polars as pl
import pytest
from conftest import board_meta, record, wait_idle, wait_rounds
from display_floor import append_until_drawn, display_floor, install_drawn_probe
from playwright.sync_api import Page

from roads_app.api import feeder
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.render.board import board_figure

pytestmark = pytest.mark.browser

SEED, HANDS, AFTER_RESTART = 23, 6, 3
ARRIVE_MS = 60_000  # generous: arriving is asserted, its time is a benchmark's


def roads_of(rounds: pl.DataFrame) -> dict[str, dict]:
    meta = board_figure(rounds).layout.meta["roads"]
    return {k: {"rounds": m["rounds"], "marks": m["marks"]} for k, m in meta.items()}


def roads_shown(page: Page) -> dict[str, dict]:
    return {k: {"rounds": v["rounds"], "marks": v["marks"]} for k, v in board_meta(page).items()}


def test_results_through_replica_a_are_drawn_on_dashboard_c_and_after_a_database_restart(
    page: Page, tmp_path: Path
) -> None:
    every = deal_shoe(SEED, ShoeOptions()).rounds.head(HANDS + AFTER_RESTART)
    dealt = every.head(HANDS)
    with display_floor(tmp_path) as floor:
        print(f"replica A and dashboard C as {floor.hosts.kind}")
        auth = {"Authorization": f"Bearer {floor.operator}"}
        with httpx.Client(base_url=floor.a.url, headers=auth, timeout=30) as api:
            shoe = api.post("/shoes", json={"name": "fed through A"}).json()["id"]
            page.set_default_timeout(120_000)  # a first page load on a busy 2-core machine
            page.goto(floor.display_url(shoe))
            wait_idle(page)
            wait_rounds(page, 0, timeout_ms=120_000)
            install_drawn_probe(page)
            lags = []
            for n, (pc, bc) in enumerate(
                zip(dealt["player_cards"].to_list(), dealt["banker_cards"].to_list(), strict=True),
                start=1,
            ):
                body = {"player_cards": pc, "banker_cards": bc}
                ack, _ = append_until_drawn(page, api, shoe, body, f"c-{n}", n, ARRIVE_MS)
                lags.append(round(ack))
            assert roads_shown(page) == roads_of(dealt)
            floor.db.restart()  # every connection cut: A's, and C's watcher's
            tries = []
            for n in range(HANDS + 1, HANDS + AFTER_RESTART + 1):
                body = {
                    "player_cards": every["player_cards"][n - 1].to_list(),
                    "banker_cards": every["banker_cards"][n - 1].to_list(),
                }
                r, attempts = feeder.post_hand(api, shoe, body, f"c-{n}", patience=60)
                assert r.status_code == 201, r.text
                tries.append(attempts)
                wait_rounds(page, n, timeout_ms=ARRIVE_MS)
            assert roads_shown(page) == roads_of(every)
    record(f"replica_a_to_display_c_ack_to_drawn_ms ({floor.hosts.kind})", lags)
    print(f"attempts of the appends after the restart: {tries}")
