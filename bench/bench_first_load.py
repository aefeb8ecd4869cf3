"""Where a new browser's first load of an 80-round shoe goes, for one or two checkouts.

Run: ``.venv/bin/python bench/bench_first_load.py [--runs 5] [--rounds 80] [--against DIR]``

Starts the app of this checkout (and, with ``--against``, of another, say main's) as
the README does, each on a free port with its own data folder holding the same dealt
shoe, and warms each server with one page load. Then, alternating between them so a
change in the machine's load falls on both, a new browser context (empty cache, no
cookies) opens the shoe's page and is timed until the board shows every round. From
the page's own clock: the HTML received, DOMContentLoaded (Streamlit's scripts run),
the first paint, the first board drawn (the ``rd-drawn`` event), and the bytes the page
fetched; from Chromium's network events (CDP): when the page sent its first websocket
message (the script run asked for) and when the first large one came back (the
board's data), so the load splits into the page's files, the wait for the server's
run, and the browser's rendering up to the drawn board. Medians per checkout; the
machine's load (1-minute average) before each round of loads is printed.
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
sys.path.insert(0, str(ROOT / "tests" / "browser"))
sys.path.insert(0, str(ROOT))

from conftest import CHROMIUM, CHROMIUM_ARGS, VIEWPORT, AppServer, wait_rounds  # noqa: E402
from playwright.sync_api import Browser, sync_playwright  # noqa: E402

from roads_app.game.shoe import deal_shoe  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests.storehelp import begun_by_result  # noqa: E402

DRAWN_JS = """window.__drawn = null;
window.addEventListener('rd-drawn', () => {
  if (window.__drawn === null) window.__drawn = performance.now(); }, true);"""

TIMES_JS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByType('paint').find(e => e.name === 'first-paint');
  const res = performance.getEntriesByType('resource');
  return {html: nav.responseEnd, dcl: nav.domContentLoadedEventEnd,
          paint: paint ? paint.startTime : null, drawn: window.__drawn,
          kb: (nav.transferSize + res.reduce((a, r) => a + r.transferSize, 0)) / 1024,
          files: res.length};
}"""


class Checkout(AppServer):
    """The app of ``root`` (a checkout with its own ``.venv``), started as its README says."""

    def __init__(self, root: Path, folder: Path) -> None:
        super().__init__(folder / "data", folder / "server.log")
        self.cwd = root  # AppServer's own command (headless, no API), run in ``root``


BOARD_DATA_BYTES = 20_000
"""A websocket message this large from the server is the board's data (its spec)."""


def first_load(browser: Browser, url: str, rounds: int) -> dict[str, float]:
    context = browser.new_context(viewport=VIEWPORT)
    try:
        page = context.new_page()
        page.add_init_script(DRAWN_JS)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        net: dict[str, float] = {}
        cdp.on("Network.requestWillBeSent", lambda e: net.setdefault("start", e["timestamp"]))
        cdp.on("Network.webSocketFrameSent", lambda e: net.setdefault("ws", e["timestamp"]))

        def received(e: dict) -> None:
            if len(e["response"]["payloadData"]) >= BOARD_DATA_BYTES:
                net.setdefault("data", e["timestamp"])

        cdp.on("Network.webSocketFrameReceived", received)
        t0 = time.perf_counter()
        page.goto(url)
        wait_rounds(page, rounds, timeout_ms=120_000)
        out = {"board_s": time.perf_counter() - t0}
        out |= {
            k: v / 1000 if k in ("html", "dcl", "paint", "drawn") and v else v
            for k, v in page.evaluate(TIMES_JS).items()
        }
        for k in ("ws", "data"):
            out[k] = net[k] - net["start"] if k in net and "start" in net else None
        return out
    finally:
        context.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=80)
    ap.add_argument("--against", type=Path, help="another checkout to time in the same run")
    args = ap.parse_args()
    dealt = deal_shoe(2024)
    rounds = begun_by_result(dealt.rounds.head(args.rounds))
    roots = [ROOT, *([args.against.resolve()] if args.against else [])]
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as p:
        servers = []
        try:
            for i, root in enumerate(roots):
                folder = Path(tmp) / str(i)
                folder.mkdir()
                server = Checkout(root, folder).start()
                servers.append(server)
                db.open_store(server.data_dir).shoes.create(dealt.meta, rounds)
                db.forget_stores()
            browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
            urls = [f"{s.url}/?shoe={dealt.meta.id}" for s in servers]
            for url in urls:  # server warm: its first run imported and cached what it needs
                first_load(browser, url, args.rounds)
            figures: list[list[dict[str, float]]] = [[] for _ in servers]
            loads: list[float] = []
            for _ in range(args.runs):
                loads.append(os.getloadavg()[0])
                for i, url in enumerate(urls):
                    figures[i].append(first_load(browser, url, args.rounds))
            browser.close()
        finally:
            for s in servers:
                s.stop()
    print(
        f"load (1-minute average) before each round of loads: min {min(loads):.1f}, "
        f"median {statistics.median(loads):.1f}, max {max(loads):.1f}; now (1, 5, 15 min): "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )
    for root, runs in zip(roots, figures, strict=True):
        med = {
            k: statistics.median(v) if (v := [r[k] for r in runs if r[k] is not None]) else 0.0
            for k in runs[0]
        }
        print(
            f"{root}: {args.rounds}-round shoe, new browser, server warm, medians of "
            f"{len(runs)}: board shown {med['board_s']:.2f} s (html {med['html']:.2f}, "
            f"DOMContentLoaded {med['dcl']:.2f}, first paint {med['paint']:.2f}, run asked "
            f"{med['ws']:.2f}, board's data {med['data']:.2f}, first board drawn "
            f"{med['drawn']:.2f}); {med['kb']:.0f} KB in {med['files']:.0f} files;"
            f" each run: {' '.join(format(r['board_s'], '.2f') for r in runs)} s"
        )


if __name__ == "__main__":
    main()
