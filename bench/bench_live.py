"""Every screen follows the table: how soon, and at what cost.

Starts the app as the README does (``python3 dev.py app --headless``, a temporary data
folder) and drives the system Chromium:

* ``follow``: ``--pages`` pages follow one shoe (the scoreboard, then displays); a
  result is appended ``--appends`` times by another writer (the store, in this
  process: what the CLI and the API do), and each page's board is timed in the page
  (``Date.now()`` at the first animation frame showing the new round) from the
  commit. Printed: per append the slowest page, then median and max (issue 29: median
  under 500 ms, max under 1 s with 3 pages following).
* ``wall``: the lobby with ``--tables`` live tables (``--kiosk``: the floor screen,
  ``/lobby?kiosk=1``, every tile on one 1920×1080 screen), each fed one result every
  ``--every`` seconds for ``--seconds`` seconds (spread evenly). Printed: how long
  each tile took to show its new round count (p50, p99, max; target: every tile
  within 2 s, the kiosk wall within 1 s at p99), the server's CPU time over the run
  as a share of one core (target under 50%), and the page's main-thread busy share
  (Chrome's ``TaskDuration``; target under 30%).
* ``idle``: one display following an idle shoe for ``--seconds``: the server's CPU
  share (what an idle followed page costs).

Run: ``.venv/bin/python bench/bench_live.py follow [--pages 3] [--appends 20]``,
``... wall [--tables 24] [--every 2] [--seconds 120] [--kiosk]``, ``... idle [--seconds 60]``.
Small sizes for a check: ``follow --appends 3``, ``wall --tables 4 --seconds 10``.
Figures depend on the machine and its load; they are printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]  # conftest imports tests.procs

from conftest import (  # noqa: E402  (the browser-test fixtures, reused as plain helpers)
    CHROMIUM,
    CHROMIUM_ARGS,
    AppServer,
    wait_idle,
    wait_rounds,
)
from playwright.sync_api import sync_playwright  # noqa: E402

from roads_app.game.rounds import ShoeMeta, rounds_from_winners  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests.procs import group_members  # noqa: E402

BOARD_PROBE = """() => {
  if (window.__live) return;
  const p = window.__live = {seen: {}};
  let queued = false;
  const look = () => {
    queued = false;
    const m = Array.from(document.querySelectorAll('.rd-plot'))
      .map(g => g.layout && g.layout.meta).find(m => m && m.road === 'board');
    if (m && !(m.rounds in p.seen)) p.seen[m.rounds] = Date.now();
  };
  // looked at in the frame after each change of the page (when that frame shows the
  // new board), not in every frame: a probe running every frame on each of 3 pages
  // kept the machine it measures busy
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(look); }
  }).observe(document.body, {childList: true, subtree: true, attributes: true,
                             characterData: true});
  look();
}"""

WALL_PROBE = """() => {
  if (window.__wall) return;
  const p = window.__wall = {seen: {}};
  let queued = false;
  const scan = () => {
    queued = false;
    for (const t of document.querySelectorAll('[data-testid="tile-rounds"]')) {
      const box = t.closest('[class*="st-key-lobby-"]');
      const sid = box && Array.from(box.classList).find(c => c.startsWith('st-key-lobby-'));
      if (!sid) continue;
      const key = sid.slice('st-key-lobby-'.length) + ':' + parseInt(t.textContent, 10);
      if (!(key in p.seen)) p.seen[key] = Date.now();
    }
  };
  // scanned in the frame after each change of the page, not in every frame: a scan of
  // every tile 60 times a second was itself a few percent of the main thread measured
  new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(scan); }
  }).observe(document.body, {childList: true, subtree: true, characterData: true});
  scan();
}"""


def cpu_s(pgid: int) -> float:
    """User + system CPU seconds of every process in the server's group so far."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for pid in group_members(pgid):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / tick
    return total


def task_s(cdp) -> float:
    """The page's main-thread task time so far (Chrome's ``TaskDuration``), in seconds."""
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return float(metrics.get("TaskDuration", 0.0))


def new_shoe(data: Path, name: str, winners: str = "BP") -> str:
    meta = ShoeMeta(name=name, source="hand")
    db.open_store(data).shoes.create(meta, rounds_from_winners(winners))
    return meta.id


def follow(server: AppServer, browser, args: argparse.Namespace) -> None:
    sid = new_shoe(server.data_dir, "bench")
    urls = [f"{server.url}/?shoe={sid}"] + [f"{server.url}/display?shoe={sid}"] * (args.pages - 1)
    pages = []
    for url in urls:
        pg = browser.new_context(viewport={"width": 1440, "height": 900}).new_page()
        pg.set_default_timeout(180_000)
        pg.goto(url)
        wait_idle(pg)
        wait_rounds(pg, 2, timeout_ms=180_000)
        pg.evaluate(BOARD_PROBE)
        pages.append(pg)
    store = db.open_store(server.data_dir)
    worst = []
    for i in range(args.appends):
        n = 3 + i
        store.rounds.append(sid, rounds_from_winners("BPT"[i % 3]), None)
        t0 = time.time() * 1000
        for pg in pages:
            wait_rounds(pg, n, timeout_ms=60_000)
        lag = max(pg.evaluate(f"() => window.__live.seen[{n}]") - t0 for pg in pages)
        worst.append(round(lag))
        wait_idle(pages[0])
    print(f"append -> every following page's board ({args.pages} pages), ms: {worst}")
    print(f"median {statistics.median(worst):.0f} ms, max {max(worst)} ms")


def wall(server: AppServer, browser, args: argparse.Namespace) -> None:
    ids = [new_shoe(server.data_dir, f"Table {i + 1}", "B") for i in range(args.tables)]
    pg = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    pg.set_default_timeout(180_000)
    pg.goto(f"{server.url}/lobby" + ("?kiosk=1" if args.kiosk else ""))
    wait_idle(pg)
    pg.wait_for_function(
        "(ids) => ids.every(i => document.querySelector("
        '`.st-key-lobby-${i} [data-testid="tile-rounds"]`))',
        arg=ids,
        timeout=180_000,
    )
    pg.evaluate(WALL_PROBE)
    drawn0 = pg.evaluate(DRAWN_JS)
    written: dict[str, float] = {}
    stop = threading.Event()

    def feeder() -> None:
        store = db.open_store(server.data_dir)
        counts = dict.fromkeys(ids, 1)
        step = args.every / args.tables
        start = time.monotonic()
        k = 0
        while not stop.is_set() and time.monotonic() - start < args.seconds:
            sid = ids[k % args.tables]
            store.rounds.append(sid, rounds_from_winners("BPT"[k % 3]), None)
            counts[sid] += 1
            written[f"{sid}:{counts[sid]}"] = time.time() * 1000
            k += 1
            wait = start + k * step - time.monotonic()
            if wait > 0:
                stop.wait(wait)

    cdp = pg.context.new_cdp_session(pg)
    cdp.send("Performance.enable")
    cpu0, task0, t0 = cpu_s(server.proc.pid), task_s(cdp), time.monotonic()
    thread = threading.Thread(target=feeder)
    thread.start()
    thread.join()
    pg.wait_for_timeout(3000)  # the last results' tiles (measured in the page, not here)
    elapsed = time.monotonic() - t0
    cpu, task = cpu_s(server.proc.pid) - cpu0, task_s(cdp) - task0
    seen = pg.evaluate("() => window.__wall.seen")
    drawn = pg.evaluate(DRAWN_JS) - drawn0
    lags = sorted(seen[k] - w for k, w in written.items() if k in seen)
    missing = [k for k in written if k not in seen]
    q = statistics.quantiles(lags, n=100, method="inclusive") if len(lags) > 1 else lags * 99
    print(
        f"{'kiosk wall' if args.kiosk else 'wall'}: "
        f"{args.tables} tables, one result each every {args.every:g} s, {args.seconds:g} s: "
        f"{len(written)} results"
    )
    print(
        f"tile current after, ms: p50 {q[49]:.0f}, p99 {q[98]:.0f}, max {max(lags):.0f}; "
        f"results never shown on their own: {len(missing)} (a later one came first)"
    )
    print(
        f"server CPU {100 * cpu / elapsed:.0f}% of one core; page main thread busy "
        f"{100 * task / elapsed:.0f}%; tiles drawn per result {drawn / len(written):.2f} "
        "(1: each result redraws its own tile alone)"
    )


DRAWN_JS = """() => Array.from(document.querySelectorAll('[data-testid="tile-rounds"]'))
  .reduce((n, e) => n + Number(e.dataset.run || 0), 0)"""
"""How many tile drawings the page has had (each tile counts its own, `lobby_page`)."""


def idle(server: AppServer, browser, args: argparse.Namespace) -> None:
    sid = new_shoe(server.data_dir, "idle")
    pg = browser.new_context(viewport={"width": 1920, "height": 1080}).new_page()
    pg.set_default_timeout(180_000)
    pg.goto(f"{server.url}/display?shoe={sid}")
    wait_idle(pg)
    wait_rounds(pg, 2, timeout_ms=180_000)
    pg.wait_for_timeout(3000)
    cpu0, t0 = cpu_s(server.proc.pid), time.monotonic()
    pg.wait_for_timeout(args.seconds * 1000)
    share = (cpu_s(server.proc.pid) - cpu0) / (time.monotonic() - t0)
    print(f"one display following an idle shoe: server CPU {100 * share:.2f}% of one core")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="what", required=True)
    f = sub.add_parser("follow")
    f.add_argument("--pages", type=int, default=3)
    f.add_argument("--appends", type=int, default=20)
    w = sub.add_parser("wall")
    w.add_argument("--tables", type=int, default=24)
    w.add_argument("--every", type=float, default=2.0)
    w.add_argument("--seconds", type=float, default=120.0)
    w.add_argument("--kiosk", action="store_true", help="the floor screen (/lobby?kiosk=1)")
    i = sub.add_parser("idle")
    i.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = AppServer(Path(tmp) / "data", Path(tmp) / "server.log").start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                {"follow": follow, "wall": wall, "idle": idle}[args.what](server, browser, args)
                browser.close()
        finally:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
