"""A floor table's display, and its tile on the wall, moving to the table's next shoe,
fed through another host.

Run: .venv/bin/python bench/bench_table_display.py [--shoes 5] [--hands 6]
Starts a throwaway PostgreSQL 15, API replica A and a real Streamlit dashboard C on one
database of it, each on a host of its own where this machine lets us make them (the
floor of tests/browser/display_floor.py); the system Chromium opens C's
``/display?table=B07`` (1440x960). For each shoe: ``--hands`` hands through A's
``POST /tables/B07/rounds``, then ``POST /tables/B07/shuffle``, then the next shoe's first
hand: timed from A's answer to the first frame whose board holds that shoe's round 1
(the page notes its own clock at that frame; one machine, one clock). The same for C's
floor screen (``/lobby?kiosk=1``, 1920x1080, opened beside the display): from A's
answer to the first frame whose B07 tile shows the new shoe's number and its round 1.
Printed p50, p99 and max, and the load. The issue's bound: 1 s each. The browser tests
(tests/browser/test_table_display.py, test_table_wall.py) assert the screens move; the
time is measured here.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from bench_display_replica import line  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, wait_idle, wait_rounds  # noqa: E402
from display_floor import DRAWN_JS, display_floor  # noqa: E402
from playwright.sync_api import Page, sync_playwright  # noqa: E402

from roads_app.game.floor import FloorLimits  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests.netns import NAMESPACES  # noqa: E402

CODE = "B07"


WALL_JS = """(code) => {
  if (window.__wallMoved) return;
  const moved = window.__wallMoved = {};
  const tick = () => {
    const t = document.querySelector(`.st-key-lobby-table-${code}`);
    const shoe = t && t.querySelector('[data-testid="tile-shoe-number"]');
    const road = t && [...t.querySelectorAll('.rd-plot')].map(g => g.layout && g.layout.meta)
      .find(m => m && m.road === 'big_road');
    if (shoe && road && road.rounds >= 1 && !(shoe.textContent in moved)) {
      moved[shoe.textContent] = Date.now();
    }
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}"""
"""Notes, in the wall's page, the wall-clock time of the first frame whose table tile
shows a shoe's number with a road of at least one round."""


def hand(api: httpx.Client, key: str, winner: str) -> float:
    """One hand at the table through A; the wall-clock ms of A's answer."""
    r = api.post(
        f"/tables/{CODE}/rounds", json={"winner": winner}, headers={"Idempotency-Key": key}
    )
    assert r.status_code == 201, r.text
    return time.time() * 1000


def shuffled(page: Page, api: httpx.Client, key: str) -> None:
    r = api.post(f"/tables/{CODE}/shuffle", headers={"Idempotency-Key": key})
    assert r.status_code in (200, 201), r.text
    page.wait_for_selector("[data-testid='table-state'][data-state='shuffling']")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=5)
    ap.add_argument("--hands", type=int, default=6, help="hands dealt in each shoe")
    a = ap.parse_args()
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    with (
        tempfile.TemporaryDirectory(prefix="bench-table-") as tmp,
        display_floor(Path(tmp)) as floor,
        sync_playwright() as p,
    ):
        print(f"replica A and dashboard C as {floor.hosts.kind}", flush=True)
        store = db.open_store(Path(tmp) / "here")  # the floor's database (ROADS_APP_DB)
        store.floor.add(CODE, "Table 7", "classic", FloorLimits.of((10, 5000)))
        store.floor.open(CODE)
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(120_000)
        wall = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
        wall.set_default_timeout(120_000)
        tail = f"&token={floor.viewer}" if floor.hosts.kind == NAMESPACES else ""
        auth = {"Authorization": f"Bearer {floor.operator}"}
        moved: list[float] = []
        on_wall: list[float] = []
        with httpx.Client(base_url=floor.a.url, headers=auth, timeout=30) as api:
            page.goto(f"{floor.c.url}/display?table={CODE}{tail}")
            wait_idle(page)
            wall.goto(f"{floor.c.url}/lobby?kiosk=1{tail}")
            wall.wait_for_selector(f".st-key-lobby-table-{CODE}")
            wall.evaluate(WALL_JS, CODE)
            for s in range(a.shoes):
                if s:  # the next shoe's first hand: from A's answer to the frame that drew it
                    page.evaluate("() => { delete window.__roadsDrawn; }")
                    page.evaluate(DRAWN_JS)
                    acked = hand(api, f"s{s}-h1", "B")
                    wait_rounds(page, 1, timeout_ms=60_000)
                    moved.append(float(page.evaluate("() => window.__roadsDrawn[1]")) - acked)
                    shoe = f"Shoe {s + 1}"
                    wall.wait_for_function("(s) => s in window.__wallMoved", arg=shoe)
                    on_wall.append(
                        float(wall.evaluate("(s) => window.__wallMoved[s]", shoe)) - acked
                    )
                    first = 2
                else:
                    first = 1
                for n in range(first, a.hands + 1):
                    hand(api, f"s{s}-h{n}", "PB"[n % 2])
                    wait_rounds(page, n, timeout_ms=60_000)
                shuffled(page, api, f"s{s}-shuffle")
        browser.close()
    line("A acknowledged -> display on the next shoe", moved)
    line("A acknowledged -> wall tile on the next shoe", on_wall)
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
