"""What ``/metrics`` scraped every second costs the API (issue 49's bound: < 2% of a core).

Run: .venv/bin/python bench/bench_metrics.py [--tables 24] [--followers 240] [--every 2]
     [--window 20] [--repeat 3]
One `roads-app api` (a real uvicorn process, SQLite in a temporary folder) is fed a hand
by cards at each of ``--tables`` shoes every ``--every`` seconds (open loop, spread
evenly) while ``--followers`` event streams follow them (`bench_api`'s followers client,
in a process of its own), so a scrape holds a floor's series. Then windows of
``--window`` seconds, interleaved, ``--repeat`` of each: without scraping, and with a
scrape every second (A B A B ...). Printed: the server's CPU share of one core in each
window (its CPU seconds from /proc, which other work on the machine does not inflate),
the two means and their difference (the scraping's cost; the fed load varies a little
from window to window, so this one is noisy), and the cost measured directly: 300
scrapes back to back, the server's CPU per scrape, times one a second.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import bench_api  # noqa: E402

from roads_app.store import tokens  # noqa: E402

DIRECT_SCRAPES = 300


def feed(url: str, token: str, tables: int, every: float, stop: threading.Event) -> list[str]:
    """Start feeding ``tables`` shoes, one hand each every ``every`` seconds, on a thread
    until ``stop``; the shoes' ids (each has its first hand)."""
    client = httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)
    hands = [bench_api.Hands(client, seed=1000 * (i + 1)) for i in range(tables)]

    def one(h: bench_api.Hands) -> None:
        shoe, body, key = h.next()
        client.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})

    for h in hands:
        one(h)
    shoes = [h.shoe for h in hands]

    def run() -> None:
        t0, i = time.monotonic(), 0
        while not stop.is_set():
            due = t0 + i * every / tables
            if stop.wait(max(0.0, due - time.monotonic())):
                break
            one(hands[i % tables])
            i += 1
        client.close()

    threading.Thread(target=run, daemon=True).start()
    return shoes


def window(pid: int, url: str, seconds: float, scrape: bool) -> tuple[float, int]:
    """The server's CPU seconds over ``seconds``, scraped once a second or not; and the
    scrapes made."""
    c0, t0, n = bench_api.cpu_s(pid), time.monotonic(), 0
    with httpx.Client(timeout=30) as client:
        while (left := t0 + seconds - time.monotonic()) > 0:
            if scrape:
                assert client.get(f"{url}/metrics").status_code == 200
                n += 1
            time.sleep(min(1.0, left) if scrape else left)
    return bench_api.cpu_s(pid) - c0, n


def direct(pid: int, url: str) -> tuple[float, int]:
    """The server's CPU per scrape over `DIRECT_SCRAPES` back to back; the scrape's size."""
    with httpx.Client(timeout=30) as client:
        size = len(client.get(f"{url}/metrics").content)
        c0 = bench_api.cpu_s(pid)
        for _ in range(DIRECT_SCRAPES):
            client.get(f"{url}/metrics")
        return (bench_api.cpu_s(pid) - c0) / DIRECT_SCRAPES, size


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tables", type=int, default=24)
    ap.add_argument("--followers", type=int, default=240)
    ap.add_argument("--every", type=float, default=2.0)
    ap.add_argument("--window", type=float, default=20.0)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    data = Path(tempfile.mkdtemp(prefix="bench_metrics_"))
    token = tokens.issue(data, "operator")
    port = bench_api.free_port()
    url = f"http://127.0.0.1:{port}"
    cmd = [sys.executable, "-m", "roads_app", "api", "--port", str(port), "--data", str(data)]
    server = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stop = threading.Event()
    followers = None
    try:
        bench_api.wait_health(url, server)
        shoes = feed(url, token, a.tables, a.every, stop)
        client = [sys.executable, str(ROOT / "bench" / "bench_api.py"), "_followers", url]
        followers = subprocess.Popen(
            [*client, ",".join(shoes), str(a.followers)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert followers.stdout is not None and followers.stdout.readline().strip() == "ready"
        window(server.pid, url, 5.0, scrape=False)  # warm: the first events, the imports
        share: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(a.repeat):
            for scrape in (False, True):
                cpu, n = window(server.pid, url, a.window, scrape)
                share[scrape].append(cpu / a.window)
                what = f"scraped every second ({n} scrapes)" if scrape else "not scraped"
                print(f"  {what:<36} server CPU {100 * cpu / a.window:5.2f}% of a core")
        per_scrape, size = direct(server.pid, url)
    finally:
        stop.set()
        if followers is not None:
            followers.kill()
        server.terminate()
        server.wait(timeout=30)
    without, with_ = (sum(share[k]) / len(share[k]) for k in (False, True))
    print(
        f"{a.tables} tables fed every {a.every} s, {a.followers} followers, "
        f"{a.repeat} x {a.window:.0f} s windows each"
    )
    print(f"mean without scraping {100 * without:.2f}%, with {100 * with_:.2f}% of a core")
    print(f"difference (scraping every second): {100 * (with_ - without):+.2f}% of a core")
    print(
        f"direct: {1000 * per_scrape:.2f} ms of CPU per scrape ({size} bytes): "
        f"{100 * per_scrape:.2f}% of a core at one a second (bound: 2%)"
    )
    print(f"load after: {os.getloadavg()}", flush=True)


if __name__ == "__main__":
    main()
