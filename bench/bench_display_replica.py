"""A display following another host's writes: API replica A -> dashboard C's /display.

Run: .venv/bin/python bench/bench_display_replica.py [--rounds 40] [--every 0.5]
Starts a throwaway PostgreSQL 15 on this machine, API replica A and a real Streamlit
dashboard C (``roads-app``, no API beside it) on one database of it, each on a host of
its own (a network namespace, reaching the database over a bridge) when this machine
lets us make them (root), else as plain processes on the loopback (the first line says
which); the system Chromium opens C's display of a new shoe (1440x960), then ``--rounds``
hands by cards are appended through A, one every ``--every`` seconds, each waited for
until the display has drawn it. Printed: from A's answer (the append acknowledged) to the
first frame whose board held the round (the page notes its own wall-clock time at that
frame, one clock with ours), and from sending it, p50/p99/max; and the load.
The same floor as tests/browser/test_display_replica.py (tests/browser/display_floor.py),
which asserts the rounds arrive; the time is measured here. The issue's bound: 1 s.
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

from conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, wait_idle, wait_rounds  # noqa: E402
from display_floor import append_until_drawn, display_floor, install_drawn_probe  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from roads_app.game.shoe import ShoeOptions, deal_shoe  # noqa: E402


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def line(label: str, ms: list[float]) -> None:
    print(
        f"{label:<40} p50 {pct(ms, 0.5):7.1f} ms  p99 {pct(ms, 0.99):7.1f} ms  "
        f"max {max(ms):7.1f} ms  (n={len(ms)})",
        flush=True,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=40)
    ap.add_argument("--every", type=float, default=0.5, help="seconds between appends")
    ap.add_argument("--seed", type=int, default=31)
    a = ap.parse_args()
    dealt = deal_shoe(a.seed, ShoeOptions()).rounds.head(a.rounds)
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    with (
        tempfile.TemporaryDirectory(prefix="bench-display-") as tmp,
        display_floor(Path(tmp)) as floor,
        sync_playwright() as p,
    ):
        print(f"replica A and dashboard C as {floor.hosts.kind}", flush=True)
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(120_000)
        auth = {"Authorization": f"Bearer {floor.operator}"}
        with httpx.Client(base_url=floor.a.url, headers=auth, timeout=30) as api:
            shoe = api.post("/shoes", json={"name": "bench"}).json()["id"]
            page.goto(floor.display_url(shoe))
            wait_idle(page)
            wait_rounds(page, 0, timeout_ms=120_000)
            install_drawn_probe(page)
            acked, sent = [], []
            hands = zip(
                dealt["player_cards"].to_list(), dealt["banker_cards"].to_list(), strict=True
            )
            due = time.monotonic()
            for n, (pc, bc) in enumerate(hands, start=1):
                due += a.every
                time.sleep(max(0.0, due - time.monotonic()))  # the feed's pace, not a wait
                body = {"player_cards": pc, "banker_cards": bc}
                ack, send = append_until_drawn(page, api, shoe, body, f"b-{n}", n, 60_000)
                acked.append(ack)
                sent.append(send)
        browser.close()
    line("A acknowledged -> C's display drew it", acked)
    line("sent to A -> C's display drew it", sent)
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
