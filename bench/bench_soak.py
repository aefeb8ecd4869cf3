"""A floor left running: does memory stay flat? (issue 49 item 4: none may grow > 5%).

Run: nice .venv/bin/python bench/bench_soak.py [--tables 24] [--displays 24] [--every 2]
     [--hands 70] [--minutes 60] [--warmup 10] [--sample 30] [--window 0] [--limit 5]
     [--playwright] [--out FILE]
One real dashboard (``dev.py app``, SQLite in a temporary folder, as the README starts
it); ``--tables`` floor tables opened and fed from this process through the store, each a
hand every ``--every`` seconds (spread evenly, on a fixed clock: a late hand is caught up,
not added to the interval), each shoe shuffled after ``--hands``
hands and the next started by the next hand (shoes ending and starting all the time);
the system Chromium shows the kiosk wall (``/lobby?kiosk=1``) and ``--displays`` table
displays (``/display?table=CODE``), each page in a browser context of its own (its own
connections: a browser holds only 6 to one server per context). Every ``--sample``
seconds, printed: the dashboard's resident memory (its whole process tree: dev.py,
roads-app, Streamlit and their children, from /proc), and for each page its JS heap in
use and its DOM nodes (Chromium's own ``Performance.getMetrics``, after a garbage
collection through ``HeapProfiler.collectGarbage``, so a reading is what is kept, not what
is waiting to be collected), and, to read only, the cores used since the last sample by
the dashboard, the browser and this process (the feeder) and the hands dealt as a share
of the pace asked. After ``--warmup`` minutes, each series' growth from its
mean over the first ``--window`` minutes after the warm-up to its mean over the last
(two shoes' time at least: a page's heap and nodes swing with its shoe, filling and
emptied by the shuffle, and whole shoes at each end count that swing alike); exit 1 when
any grew more than ``--limit`` percent. The median of three samples at each end (the
rule of the runs below, which a shoe's phase moves by up to 20%) and the least-squares
trend are printed beside it. A compressed pace (``--every 0.5
--hands 20``) ages a floor faster; a small scale (``--tables 6 --displays 3``) fits a
loaded machine. Every sample goes to ``--out`` (JSON) too.

Measured at the issue's scale (the defaults: 24 tables fed every 2 s, shoes of 70 hands,
the wall and 24 displays, 61 minutes, 504 shoes ended; load 4-45 on 2 cores, three other
jobs sharing the machine for most of the hour; growth from minute 10 to 61): the
dashboard's RSS 575 -> 603 MB (+4.8%, still rising by ~0.5 MB a minute at the end); the
wall's heap +6.3% by the median-of-three rule, but it swings 13.5-21 MB with the tiles'
roads through each shoe (no trend in its minimum); **every display's heap +7.0 to +7.8%**
(10.9 -> 11.7-11.9 MB), a steady ~17 KB a minute on each (about 40 KB a shoe) that did
not level off, while their DOM nodes stay within 790-2,000 with the shoe. What the
displays kept (two heap snapshots diffed): a window resize listener per redraw, holding
that render's closure, and Streamlit's run marks on the performance timeline; both gone
now. After the fix, a small fast run (``--tables 6 --displays 4 --every 1 --hands 30
--minutes 20 --warmup 6``, 198 shoes ended, load 2-14 beside a test run): server RSS
+0.8%, wall heap -2.6%, displays' heap +1.3 to +1.6% (about 0.24 KB a round, in line
with what Chromium's DevTools keeps per request while Playwright drives the page; a
kiosk has no DevTools attached), one display's nodes +5.6% by the shoe's phase (they
swing 800-1,300). The earlier
small run (``--tables 8 --displays 4 --hands 30 --minutes 24``, before a display
retired its past shoes' followers) read displays +5.8 to +7.0%.

The hour at the issue's scale again after the fix, through Playwright (the same defaults,
61 minutes, 384 shoes ended, load 8-48, two workers beside it; means over the first and
last 5 minutes after minute 10): the dashboard's RSS +3.4% (574 -> 598 MB, trend +4.0%
an hour), the wall's heap +1.7%, its nodes +5.8%, the displays' heaps +3.8 to +9.2%
(trend +5.7 to +9.1% an hour). Hence the kiosk pages above. Then the hour with the
kiosk pages (``nice .venv/bin/python bench/bench_soak.py``, 60 minutes, load 15-40: the
soak itself, two or three workers and at the end a test run beside it, so the feeder
dealt **264 shoes, 43% of the pace asked**; the samples are from the printed lines, the
run having stopped at its clean-up after its last sample, since mended; means over the
first and last 16.4 minutes after minute 10): the dashboard's RSS +2.2% (567 -> 580 MB;
trend +4.0% an hour, 570 -> 584 MB from minute 30 to 60: still rising, not explained);
the wall's heap +1.7%, its nodes -1.0%; the displays' heaps, lowest and highest of the
24 at each sample, +3.8% and +1.8% (9.33 -> 9.68 MB at the lowest; trend from minute 30
+4.0% an hour); their nodes -0.9% and -4.3%. So every series is within 5%, but the
server and the displays' heaps creep. What a display's heap gained, from three heap
snapshots of one display 4.5 and 13 minutes apart (minutes 34-51): V8's optimised code
(6-14 more code objects and their metadata, +57 to +92 KB of code space) and a growing
count of elements arrays in code space (+1,918, 31 KB, not identified); no JS object,
closure, string or array of the page's own grew beyond a few per render in flight.

The hour again with the dashboard's memory read by kind (`memory_parts`; the defaults, 61
minutes, load 9-59 with three workers' tests beside it at nice 19, 240 shoes ended: 39% of
the pace; windows of 18.2 minutes): RSS +1.7% (551.5 -> 571.2 MB), wall heap +0.6%, its
nodes -3.4%, displays' heaps +2.7 to +4.0%; of the dashboard's largest process, glibc's main
heap 60.0 -> 60.4 MB and file-backed pages 178.6 MB flat, threads 33 flat, glibc's thread
arenas 15.8 -> 23.1 MB (+35%: malloc's arenas of Streamlit's script-run threads), the
other anonymous memory 136.8 -> 148.6 MB (+2.2% by the windows).

Every hour above ran at 39-51% of the pace asked: the feeder waited a whole interval after
each hand, so the soak's own load added every append's latency to it. On a fixed clock
(the defaults, 61 minutes, **624 shoes ended: the pace asked**, load 22-33 from the soak
alone: the 25 pages 1.3-1.4 cores, the dashboard 0.45-0.55, the feeder 0.03; windows of
10 minutes after minute 10): the dashboard's RSS +3.8% (544.5 -> 564.6 MB, trend +5.6% an
hour: its thread arenas 27.1 -> 37.5 MB, the rest of its anonymous memory 146.2 -> 155.9,
the main heap and code flat); the wall's heap +0.2%, its nodes -6.1%; the displays' heaps
+1.0 to **+5.0%** (the largest 5.01%: over the limit; trends +1.4 to +6.7% an hour, their
lowest readings 9.44 -> 9.77 MB from minute 10 to 60); their nodes -13.0 to +3.6%.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any, Protocol

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "browser")]

from conftest import (  # noqa: E402
    APP_IDLE,
    CHROMIUM,
    CHROMIUM_ARGS,
    AppServer,
    free_port,
    wait_idle,
)
from playwright.sync_api import sync_playwright  # noqa: E402
from websockets.sync.client import ClientConnection, connect  # noqa: E402

from roads_app.game.floor import FloorLimits  # noqa: E402
from roads_app.game.hand import Winner  # noqa: E402
from roads_app.game.rounds import add_winner  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests.procs import group_members, wait_exit  # noqa: E402

SCREEN = {"width": 1280, "height": 720}
WINNERS = (Winner.BANKER, Winner.PLAYER, Winner.BANKER, Winner.PLAYER, Winner.TIE)


def tree_rss_mb(pgid: int) -> float:
    """Resident memory of every process of the group ``pgid``, in MB (/proc)."""
    total = 0
    for pid in group_members(pgid):
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


ARENA = 64 * 2**20
"""glibc reserves a thread's malloc arena as one 64 MiB-aligned region of 64 MiB."""


def memory_parts(pgid: int) -> dict[str, float]:
    """Where the largest process of the group (the Streamlit server) keeps its memory, in
    MB resident, from /proc/PID/smaps, and its threads: glibc's main heap (``[heap]``),
    its thread arenas (anonymous read-write mappings starting on a 64 MiB boundary), the
    rest of its anonymous memory (Python's own arenas, NumPy and Arrow buffers, stacks),
    and file-backed pages (code). A creep in the arenas with the rest flat is malloc's
    fragmentation across Streamlit's script threads, not objects kept."""
    sizes: list[tuple[int, int]] = []
    for pid in group_members(pgid):
        with contextlib.suppress(OSError):
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    sizes.append((int(line.split()[1]), pid))
    if not sizes:
        return {}
    pid = max(sizes)[1]
    parts = dict.fromkeys(("heap", "arenas", "anon", "files"), 0)
    kind = "files"
    try:
        for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
            head = line.split()
            if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
                start = int(head[0].split("-")[0], 16)
                path = head[5] if len(head) > 5 else ""
                kind = (
                    "heap"
                    if path == "[heap]"
                    else "arenas"
                    if not path and start % ARENA == 0 and head[1].startswith("rw")
                    else "anon"
                    if not path or path.startswith("[")
                    else "files"
                )
            elif head[0] == "Rss:":
                parts[kind] += int(head[1])
        threads = next(
            int(x.split()[1])
            for x in Path(f"/proc/{pid}/status").read_text().splitlines()
            if x.startswith("Threads:")
        )
    except OSError:
        return {}
    return {f"(info) server {k} MB": round(v / 1024, 1) for k, v in parts.items()} | {
        "(info) server threads": threads
    }


class Feeder:
    """Deals a hand at each table in turn, one table every ``every / tables`` seconds; a
    table's shoe is shuffled after ``hands`` hands (its next hand starts the next shoe)."""

    def __init__(self, store: db.Store, codes: list[str], every: float, hands: int) -> None:
        self.store, self.codes, self.every, self.hands = store, codes, every, hands
        self.dealt = dict.fromkeys(codes, 0)
        self.total = dict.fromkeys(codes, 0)
        self.shoes = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        """Hands on a fixed clock: a slow append is caught up after, not added to the
        interval (the pace asked stays the pace dealt while the machine keeps up)."""
        step = self.every / len(self.codes)
        n = 0
        start = time.monotonic()
        while not self.stop.wait(max(0.0, start + n * step - time.monotonic())):
            code = self.codes[n % len(self.codes)]
            n += 1
            winner = WINNERS[(n * 7 + len(code)) % len(WINNERS)]
            self.store.floor.append(code, lambda r, d, w=winner: add_winner(r, w, decks=d))
            self.dealt[code] += 1
            self.total[code] += 1
            if self.dealt[code] == self.hands:
                self.store.floor.shuffle(code)
                self.dealt[code] = 0
                self.shoes += 1


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU of ``pids`` so far, in seconds (/proc; gone ones count 0)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


class CpuSplit:
    """Cores used between two samples by the dashboard's group, the browser's (the
    kiosk's group, or this process's other children under Playwright) and this process
    (the feeder), to say where a floor's load goes when the pace asked is not kept."""

    def __init__(self, server_pgid: int, browser_pgid: int | None) -> None:
        self.server_pgid, self.browser_pgid = server_pgid, browser_pgid
        self.last = (time.monotonic(), self._read())

    def _read(self) -> tuple[float, float, float]:
        me = os.getpid()
        browser = group_members(self.browser_pgid or os.getpgid(me))  # Playwright's: ours
        browser = [p for p in browser if p != me]
        return (
            cpu_seconds(group_members(self.server_pgid)),
            cpu_seconds(browser),
            cpu_seconds([me]),
        )

    def sample(self) -> dict[str, float]:
        now, got = time.monotonic(), self._read()
        (then, before), self.last = self.last, (now, got)
        cores = [max(0.0, b - a) / max(now - then, 1e-9) for a, b in zip(before, got, strict=True)]
        names = ("server", "browser", "feeder")
        return {f"(info) cores {n}": round(c, 2) for n, c in zip(names, cores, strict=True)}


class Cdp:
    """One DevTools socket (a browser's or a page's), commands answered in turn; nothing
    is enabled on it that the caller does not send."""

    def __init__(self, url: str, stack: contextlib.ExitStack) -> None:
        self.ws: ClientConnection = stack.enter_context(connect(url, max_size=None))
        self.n = 0

    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.n += 1
        self.ws.send(json.dumps({"id": self.n, "method": method, "params": params or {}}))
        while True:
            got = json.loads(self.ws.recv())
            if got.get("id") == self.n:
                if "error" in got:
                    raise RuntimeError(f"{method}: {got['error']}")
                return got.get("result", {})


class Kiosk:
    """A plain Chromium, as a floor's kiosk runs it: no test driver attached. Playwright
    enables DevTools' Network domain on every page it drives, and the renderer then keeps
    a record of each request for the driver: one display fed 1,500 rounds (two rounds a
    second), driven by Playwright, held 10.6-12.5 MB and crept 0.13 KB a round after its
    warm-up (11.10 -> 11.22 MB from round 560 to 1,500); the same display in a plain
    Chromium beside it held 9.8-9.9 MB from round 330 on. A kiosk keeps no such record. Each page is
    read through a socket of its own that enables only Performance (and asks HeapProfiler
    to collect), and opens in a browser context of its own (its own connections: a
    browser holds only 6 to one server per context)."""

    def __init__(self, tmp: Path, stack: contextlib.ExitStack) -> None:
        self.port, self.stack = free_port(), stack
        self.proc = subprocess.Popen(
            [
                CHROMIUM,
                "--headless=new",
                *CHROMIUM_ARGS,
                f"--remote-debugging-port={self.port}",
                f"--user-data-dir={tmp / 'kiosk'}",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # its renderers with it, for `_stop`
        )
        stack.callback(self._stop)
        deadline = time.monotonic() + 60
        while True:
            try:
                url = self._json("version")["webSocketDebuggerUrl"]
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        self.browser = Cdp(url, stack)

    def _stop(self) -> None:
        """Kill the browser and every process it started, and wait for them all: its
        profile folder is removed next, and a renderer still writing there made that fail
        (after the hour's last sample, so the growth was never printed)."""
        pids = group_members(self.proc.pid)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=60)
        wait_exit(pids, timeout=60)

    def _json(self, what: str) -> dict[str, Any]:
        with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/json/{what}") as r:
            return json.load(r)

    def open(self, url: str) -> Cdp:
        """A page at ``url`` in a new browser context, once the app is idle on it."""
        ctx = self.browser.send("Target.createBrowserContext")["browserContextId"]
        target = self.browser.send(
            "Target.createTarget",
            {"url": url, "browserContextId": ctx, **SCREEN},
        )["targetId"]
        page = Cdp(f"ws://127.0.0.1:{self.port}/devtools/page/{target}", self.stack)
        deadline = time.monotonic() + 180
        idle = f"!!document.querySelector({json.dumps(APP_IDLE)})"
        while not page.send("Runtime.evaluate", {"expression": idle})["result"].get("value"):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{url}: the app never went idle")
            time.sleep(0.5)
        page.send("Performance.enable")
        return page


class Sender(Protocol):
    def send(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]: ...


def page_metrics(cdp: Sender) -> tuple[float, int]:
    """(JS heap in use in MB, DOM nodes) of a page, after a garbage collection."""
    cdp.send("HeapProfiler.collectGarbage")
    got = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    return got["JSHeapUsedSize"] / 2**20, int(got["Nodes"])


def growth(values: list[float]) -> float:
    """Percent from the median of the first three values to the median of the last three."""
    first, last = statistics.median(values[:3]), statistics.median(values[-3:])
    return 100.0 * (last - first) / first if first else 0.0


def window_growth(rows: list[dict[str, float]], key: str, window: float) -> float:
    """Percent from the mean over the first ``window`` minutes of ``rows`` to the mean over
    the last ``window`` minutes: with a window of whole shoes, a page's swing through a shoe
    (its roads filling, then emptied by the shuffle) counts alike at both ends, so what is
    left is what was kept."""
    start, end = rows[0]["minute"], rows[-1]["minute"]
    first = [r[key] for r in rows if r["minute"] < start + window]
    last = [r[key] for r in rows if r["minute"] > end - window]
    a, b = statistics.fmean(first), statistics.fmean(last)
    return 100.0 * (b - a) / a if a else 0.0


def slope_per_hour(rows: list[dict[str, float]], key: str) -> float:
    """Least-squares trend of ``key`` in percent of its mean per hour."""
    xs, ys = [r["minute"] for r in rows], [r[key] for r in rows]
    slope = statistics.linear_regression(xs, ys).slope
    mean = statistics.fmean(ys)
    return 100.0 * slope * 60 / mean if mean else 0.0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--displays", type=int, default=24)
    ap.add_argument("--every", type=float, default=2.0, help="seconds between a table's hands")
    ap.add_argument("--hands", type=int, default=70, help="hands in a shoe before a shuffle")
    ap.add_argument("--minutes", type=float, default=60)
    ap.add_argument("--warmup", type=float, default=10, help="minutes before growth counts")
    ap.add_argument("--sample", type=float, default=30, help="seconds between samples")
    ap.add_argument(
        "--window",
        type=float,
        default=0,
        help="minutes averaged at each end (0: three shoes' time as dealt, at least 10)",
    )
    ap.add_argument("--limit", type=float, default=5.0, help="percent of growth allowed")
    ap.add_argument(
        "--playwright",
        action="store_true",
        help="drive the pages with Playwright (its DevTools record counts in their heaps)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / ".benchmarks" / "soak.json")
    a = ap.parse_args()
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    samples: list[dict[str, float]] = []
    a.out.parent.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp,
        contextlib.ExitStack() as stack,
    ):
        server = AppServer(Path(tmp) / "data", Path(tmp) / "server.log").start()
        try:
            store = db.open_store(server.data_dir)
            codes = [f"S{i:02d}" for i in range(1, a.tables + 1)]
            for code in codes:
                store.floor.add(code, f"Table {code}", "classic", FloorLimits.of((10, 5000)))
                store.floor.open(code)
            urls = {"wall": f"{server.url}/lobby?kiosk=1"}
            urls |= {f"display {c}": f"{server.url}/display?table={c}" for c in codes[: a.displays]}
            pages: dict[str, Sender] = {}
            if a.playwright:
                p = stack.enter_context(sync_playwright())
                browser = p.chromium.launch(
                    executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
                )
                stack.callback(browser.close)
                for name, url in urls.items():
                    page = browser.new_context(viewport=SCREEN).new_page()
                    page.set_default_timeout(180_000)
                    page.goto(url)
                    wait_idle(page)
                    cdp = page.context.new_cdp_session(page)
                    cdp.send("Performance.enable")
                    pages[name] = cdp  # type: ignore[assignment]
            else:
                kiosk = Kiosk(Path(tmp), stack)
                for name, url in urls.items():
                    pages[name] = kiosk.open(url)
            feeder = Feeder(store, codes, a.every, a.hands)
            feeder.thread.start()
            cpu = CpuSplit(server.proc.pid, None if a.playwright else kiosk.proc.pid)  # type: ignore[union-attr]
            t0 = time.monotonic()
            pause = threading.Event()
            while True:
                minute = (time.monotonic() - t0) / 60
                row: dict[str, float] = {"minute": round(minute, 2)}
                row["server rss MB"] = round(tree_rss_mb(server.proc.pid), 1)  # type: ignore[union-attr]
                row |= memory_parts(server.proc.pid)  # type: ignore[union-attr]
                row |= cpu.sample()
                asked = minute * 60 / a.every * a.tables
                row["(info) pace %"] = round(100 * sum(feeder.total.values()) / max(asked, 1))
                for name, cdp in pages.items():
                    heap, nodes = page_metrics(cdp)
                    row[f"{name} heap MB"] = round(heap, 2)
                    row[f"{name} nodes"] = nodes
                samples.append(row)
                a.out.write_text(json.dumps(samples, indent=1))  # kept if the run stops
                heaps = [v for k, v in row.items() if k.startswith("display") and "heap" in k]
                nodes = [v for k, v in row.items() if k.startswith("display") and "nodes" in k]
                print(
                    f"min {minute:6.1f}  server {row['server rss MB']:7.1f} MB (arenas "
                    f"{row.get('(info) server arenas MB', 0)}, heap "
                    f"{row.get('(info) server heap MB', 0)}"
                    f", anon {row.get('(info) server anon MB', 0)}, threads "
                    f"{row.get('(info) server threads', 0)})  wall heap "
                    f"{row['wall heap MB']:6.2f} MB nodes {row['wall nodes']:6d}  displays heap "
                    f"{min(heaps, default=0):.2f}-{max(heaps, default=0):.2f} MB nodes "
                    f"{min(nodes, default=0)}-{max(nodes, default=0)}  shoes ended "
                    f"{feeder.shoes}  load {os.getloadavg()[0]:.1f}  cores server "
                    f"{row['(info) cores server']} browser {row['(info) cores browser']} "
                    f"feeder {row['(info) cores feeder']}  pace {row['(info) pace %']}%",
                    flush=True,
                )
                if minute >= a.minutes:
                    break
                pause.wait(a.sample)
            feeder.stop.set()
            shoe_minutes = minute * a.tables / max(feeder.shoes, 1)  # a table's, as dealt
            feeder.thread.join(timeout=60)
        finally:
            server.stop()
    counted = [s for s in samples if s["minute"] >= a.warmup]
    if len(counted) < 6:
        print(f"too few samples after the {a.warmup}-minute warm-up to judge ({len(counted)})")
        return 1
    window = a.window or max(10.0, 3 * shoe_minutes)
    worst = 0.0
    print(
        f"growth after minute {a.warmup}: mean over the first {window:.1f} minutes -> over "
        f"the last {window:.1f} (judged); median of the first 3 samples -> of the last 3; "
        "least-squares trend in % of the mean per hour"
    )
    for key in (k for k in samples[0] if k != "minute"):
        g = window_growth(counted, key, window)
        info = key.startswith("(info)")  # where the server's memory is: read, not judged
        worst = worst if info else max(worst, g)
        flag = "  GREW" if g > a.limit and not info else ""
        print(
            f"  {key:<28} {counted[0][key]:>10} -> {counted[-1][key]:>10}  {g:+6.1f}%  "
            f"(median rule {growth([s[key] for s in counted]):+6.1f}%, trend "
            f"{slope_per_hour(counted, key):+6.1f}%/h){flag}"
        )
    print(f"load after: {os.getloadavg()}; the largest growth {worst:+.1f}% (limit {a.limit}%)")
    return 1 if worst > a.limit else 0


if __name__ == "__main__":
    sys.exit(main())
