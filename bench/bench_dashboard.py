"""Dashboard speed in the system Chromium: first page load and key press to redrawn board.

Starts the app as the README does (``python3 dev.py app --headless`` on a free port and
a temporary data folder), saves a dealt shoe of ``--rounds`` rounds, then:

* first load: a cold browser context opens the shoe's URL, timed until the board shows it;
* key press to board: ``--presses`` times, press ``b`` and wait until the round counter
  and the drawn board both show the new round, then ``u`` (undo) the same way, so
  every press is timed on a shoe of ``--rounds`` or ``--rounds + 1`` rounds; timed in
  the page from the keydown to the first animation frame showing the changed board;
* main-thread work per key press over those b/u pairs (`MainThread`: every task the
  page ran, from Chromium's own task timing, and the long tasks it saw, with their
  total blocking time): issue 26 asks for 50 ms at most on an 80-round shoe;
* a shoe typed on: ``u`` as many times as there were presses, then the shoe's own
  results (``b``/``p``/``t``) typed back in, each pressed as soon as the app is idle
  after the one before. These keys find the page still drawing its boards one key away
  (`plot_host`), so this is the harder case; the b/u pairs mostly find them drawn.

Run: ``.venv/bin/python bench/bench_dashboard.py [--rounds 80] [--presses 10]
[--width 1440]`` (``--width 390``: a phone's window, where the board scrolls sideways).
Figures depend on the machine and its load; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]  # conftest imports tests.procs

from conftest import (  # noqa: E402  (the browser-test fixtures, reused as plain helpers)
    CHROMIUM,
    CHROMIUM_ARGS,
    VIEWPORT,
    AppServer,
    MainThread,
    install_latency_probe,
    probe_latency_ms,
    wait_idle,
    wait_rounds,
)
from playwright.sync_api import sync_playwright  # noqa: E402

from roads_app.game.shoe import deal_shoe  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests.storehelp import begun_by_result  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=80)
    ap.add_argument("--presses", type=int, default=10, help="b + undo pairs")
    ap.add_argument("--seed", type=int, default=2024)
    ap.add_argument("--width", type=int, default=VIEWPORT["width"], help="window width, px")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        server = AppServer(Path(tmp) / "data", Path(tmp) / "server.log")
        dealt = deal_shoe(args.seed)
        n = min(args.rounds, dealt.rounds.height)
        # round 1 by its result alone: a shoe recorded wholly by cards takes only cards
        rounds = begun_by_result(dealt.rounds.head(n))
        db.open_store(server.data_dir).shoes.create(dealt.meta, rounds)
        server.start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                page = browser.new_context(viewport={**VIEWPORT, "width": args.width}).new_page()
                t0 = time.perf_counter()
                page.goto(f"{server.url}/?shoe={dealt.meta.id}")
                wait_rounds(page, n)
                first = time.perf_counter() - t0
                wait_idle(page)
                t0 = time.perf_counter()
                page.reload()
                wait_rounds(page, n)
                warm = time.perf_counter() - t0
                wait_idle(page)

                install_latency_probe(page)
                clock = MainThread(page)
                clock.start()
                lat, driver = [], []
                for _ in range(args.presses):
                    for key, want in (("b", n + 1), ("u", n)):
                        t0 = time.perf_counter()
                        page.keyboard.press(key)
                        wait_rounds(page, want)
                        driver.append((time.perf_counter() - t0) * 1000)
                        lat.append(probe_latency_ms(page))
                        wait_idle(page)
                busy = clock.stop(2 * args.presses)
                typed = []
                back = dealt.rounds["winner"].head(n).tail(2 * args.presses).to_list()
                keys = [("u", n - i - 1) for i in range(len(back))]
                keys += [(w.lower(), n - len(back) + i + 1) for i, w in enumerate(back)]
                for key, want in keys:
                    page.keyboard.press(key)
                    wait_rounds(page, want)
                    typed.append(probe_latency_ms(page))
                    wait_idle(page)
                browser.close()
        finally:
            server.stop()

    print(f"window {args.width} px wide")
    print(f"server start (dev.py app to healthy): {server.started_in_s:.2f} s")
    print(f"first page load, cold browser, {n}-round shoe: {first:.2f} s")
    print(f"page reload, warm browser cache: {warm:.2f} s")
    print(
        f"key press to redrawn board (in page, keydown to first changed frame), "
        f"{n}/{n + 1} rounds, {len(lat)} presses: median {statistics.median(lat):.0f} ms, "
        f"min {min(lat):.0f} ms, max {max(lat):.0f} ms"
    )
    print(
        f"a shoe typed on ({len(typed) // 2} undos, then those results typed back): "
        f"median {statistics.median(typed):.0f} ms, min {min(typed):.0f} ms, "
        f"max {max(typed):.0f} ms"
    )
    print(
        f"main-thread work per key press (b/u pairs, to the page idle): all tasks "
        f"{busy['task_ms']:.0f} ms, long tasks {busy['long_ms']:.0f} ms, total blocking "
        f"{busy['blocking_ms']:.0f} ms"
    )
    print(
        f"  the b/u pairs seen from the test driver (adds its round trips): "
        f"median {statistics.median(driver):.0f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
