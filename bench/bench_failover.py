"""A screen's dashboard killed with kill -9: how long until the screen is current again.

Run: .venv/bin/python bench/bench_failover.py [--repeats 3] [--fed 2] [--no-redispatch]
Starts a throwaway PostgreSQL 15, two real Streamlit dashboards on it (``--host
0.0.0.0``) and a real HAProxy in front of them with docs/deploy.md's configuration as it
is (sticky cookie, checks on ``/_stcore/health`` every 2 s); the system Chromium opens a
floor table's display through the balancer with a screen key (1440x960). Each repeat
kills the dashboard serving it (SIGKILL to its whole process group), feeds ``--fed``
results through the store at once, and times from the kill to the first moment the
display is connected again and shows every round the store has; then the killed
dashboard is started again and the next repeat waits for the balancer to see both up.
``--no-redispatch`` runs the doc's configuration without ``option redispatch`` (what it
was before). Printed: each time, min/median/max, and the load before and after.
The issue's bound: 10 s. The same floor as tests/browser/test_failover.py.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from balanced_floor import balanced_floor  # noqa: E402
from conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, wait_idle, wait_rounds  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from roads_app.game.hand import Winner  # noqa: E402
from tests import haproxy  # noqa: E402

CURRENT_JS = """(n) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const c = document.querySelector('[data-testid="round-count"]');
  return app !== null && app.dataset.testConnectionState === 'CONNECTED'
    && c !== null && c.textContent.trim() === 'Round ' + n
    && !document.documentElement.dataset.rdOffline;
}"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--fed", type=int, default=2, help="results fed right after each kill")
    ap.add_argument("--no-redispatch", action="store_true")
    a = ap.parse_args()
    config = haproxy.doc_config()
    if a.no_redispatch:
        config = "".join(
            line for line in config.splitlines(keepends=True) if "redispatch" not in line
        )
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    times: list[float] = []
    with (
        tempfile.TemporaryDirectory(prefix="bench-failover-") as tmp,
        balanced_floor(Path(tmp), config) as floor,
        sync_playwright() as p,
    ):
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.set_default_timeout(120_000)
        for w in "BPB":
            floor.deal(Winner(w))
        page.goto(floor.display_url())
        wait_idle(page)
        wait_rounds(page, floor.rounds(), timeout_ms=120_000)
        for i in range(a.repeats):
            victim = floor.serving(page)
            t0 = time.monotonic()
            floor.kill(victim)
            for _ in range(a.fed):
                floor.deal(Winner.PLAYER)
            page.wait_for_function(CURRENT_JS, arg=floor.rounds(), polling="raf")
            took = time.monotonic() - t0
            times.append(took)
            print(f"repeat {i + 1}: killed {victim}, current again in {took:.2f} s", flush=True)
            floor.dashboards[victim].start()
            haproxy.until(lambda: set(floor.states().values()) == {"UP"}, "both up", 120)
        browser.close()
    print(
        f"kill -9 -> display current: min {min(times):.2f} s  median "
        f"{statistics.median(times):.2f} s  max {max(times):.2f} s  (n={len(times)}, "
        f"{'without' if a.no_redispatch else 'with'} option redispatch; target <= 10 s)"
    )
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
