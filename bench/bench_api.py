"""The live-feed API under load, over real HTTP on this machine.

Run: .venv/bin/python bench/bench_api.py [--appends N] [--rate R] [--seconds S]
Starts `roads-app api` (a real uvicorn process) on a free port with a fresh data folder,
then measures with time.perf_counter, after 50 warm-up appends:
  * append latency, one client one request at a time (N appends by cards, each with an
    Idempotency-Key, simulated shoes one after another): p50, p99, max, and the server
    process's CPU time per append (/proc), which a busy machine does not inflate;
  * sustained appends at R per second for S seconds, open loop: request i is due at
    t0 + i/R and its latency counts from when it was due (so a server falling behind
    shows as latency, not as a slower sender), 4 connections; achieved rate, p50, p99;
  * the most appends per second 4 clients get, closed loop, for S seconds;
  * append -> SSE event: from sending an append to a following client receiving it.
The append -> display-page redraw time is measured in the browser test
(tests/browser/test_api_display.py, recorded as a figure), not here.
"""

from __future__ import annotations

import argparse
import os
import queue
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from roads_app.game.shoe import ShoeOptions, deal_shoe

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Hands:
    """Legal hands without end: simulated shoes one after another, a new API shoe each."""

    def __init__(self, client: httpx.Client, seed: int) -> None:
        self.client, self.seed, self.lock = client, seed, threading.Lock()
        self.shoe, self.left, self.n = "", [], 0

    def next(self) -> tuple[str, dict, str]:
        with self.lock:
            if not self.left:
                self.seed += 1
                r = deal_shoe(self.seed, ShoeOptions()).rounds
                self.left = list(zip(r["player_cards"].to_list(), r["banker_cards"].to_list(),
                                     strict=True))[::-1]  # fmt: skip
                made = self.client.post("/shoes", json={"name": f"bench {self.seed}"})
                self.shoe = made.json()["id"]
            pc, bc = self.left.pop()
            self.n += 1
            return self.shoe, {"player_cards": pc, "banker_cards": bc}, f"b{self.seed}-{self.n}"


def cpu_s(pid: int) -> float:
    """CPU seconds (user + system) a process has used: what an append costs the server,
    whatever else the machine is doing (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def line(label: str, ms: list[float]) -> None:
    print(f"{label:<44} p50 {pct(ms, .5):6.2f} ms  p99 {pct(ms, .99):6.2f} ms  "
          f"max {max(ms):7.2f} ms  (n={len(ms)})")  # fmt: skip


def append(c: httpx.Client, hands: Hands) -> float:
    shoe, body, key = hands.next()
    t = time.perf_counter()
    r = c.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
    dt = time.perf_counter() - t
    assert r.status_code == 201, r.text
    return dt * 1e3


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--appends", type=int, default=1000)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=10.0)
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="bench_api_"))
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    token = subprocess.run([sys.executable, "-m", "roads_app", "token", "--data", str(tmp)],
                           capture_output=True, text=True, check=True).stdout.strip()  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "roads_app", "api", "--port", str(port), "--data", str(tmp)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/health").status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        auth = {"Authorization": f"Bearer {token}"}
        clients = [httpx.Client(base_url=url, headers=auth, timeout=30) for _ in range(4)]
        hands = Hands(clients[0], 1000)
        for _ in range(50):
            append(clients[0], hands)
        print(f"server pid {server.pid}, {os.cpu_count()} cores, data {tmp}")

        cpu0 = cpu_s(server.pid)
        line("append, one client (sequential)", [append(clients[0], hands)
                                                  for _ in range(a.appends)])  # fmt: skip
        per = (cpu_s(server.pid) - cpu0) / a.appends * 1e3
        print(f"{'  server CPU per append':<44} {per:7.2f} ms  (-> at most {1000 / per:,.0f} "
              "appends/s on one free core)")  # fmt: skip

        n = int(a.rate * a.seconds)
        due0 = time.perf_counter() + 0.05
        lat: list[float] = []
        conns: queue.Queue[httpx.Client] = queue.Queue()
        for c in clients:
            conns.put(c)

        def paced(i: int) -> None:
            due = due0 + i / a.rate
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            c = conns.get()
            try:
                append(c, hands)
            finally:
                conns.put(c)
            lat.append((time.perf_counter() - due) * 1e3)

        t0 = time.perf_counter()
        with ThreadPoolExecutor(max_workers=8) as pool:
            list(pool.map(paced, range(n)))
        took = time.perf_counter() - t0
        line(f"append at {a.rate:g}/s target, open loop", lat)
        print(f"{'  achieved':<44} {n / took:7.1f} appends/s over {took:.1f} s")

        stop = time.perf_counter() + a.seconds
        counts = [0] * 4

        def closed(k: int) -> None:
            while time.perf_counter() < stop:
                append(clients[k], hands)
                counts[k] += 1

        with ThreadPoolExecutor(max_workers=4) as pool:
            list(pool.map(closed, range(4)))
        print(f"{'most appends/s, 4 clients closed loop':<44} {sum(counts) / a.seconds:7.1f} /s")

        sse_ms = sse_latency(url, clients[0])
        line("append sent -> SSE event received", sse_ms)
        for c in clients:
            c.close()
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)


def sse_latency(url: str, c: httpx.Client, seed: int = 5) -> list[float]:
    """One simulated shoe appended hand by hand while a client follows its stream."""
    shoe = c.post("/shoes", json={"name": "bench sse"}).json()["id"]
    r = deal_shoe(seed, ShoeOptions()).rounds
    got: queue.Queue[float] = queue.Queue()
    ready = threading.Event()

    def follow() -> None:
        try:
            with httpx.Client(timeout=httpx.Timeout(30, read=None)) as s, \
                    s.stream("GET", f"{url}/shoes/{shoe}/events") as resp:  # fmt: skip
                event = ""
                for ln in resp.iter_lines():
                    if ln.startswith("event:"):
                        event = ln[6:].strip()
                        ready.set()
                    elif ln.startswith("data:") and event == "append":
                        got.put(time.perf_counter())
        except httpx.HTTPError:
            pass  # the server stopped at the end of the run

    threading.Thread(target=follow, daemon=True).start()
    ready.wait(30)
    out = []
    for i, (pc, bc) in enumerate(zip(r["player_cards"].to_list(), r["banker_cards"].to_list(),
                                     strict=True)):  # fmt: skip
        t = time.perf_counter()
        resp = c.post(f"/shoes/{shoe}/rounds", json={"player_cards": pc, "banker_cards": bc},
                      headers={"Idempotency-Key": f"sse-{i}"})  # fmt: skip
        assert resp.status_code == 201, resp.text
        out.append((got.get(timeout=10) - t) * 1e3)
    return out


if __name__ == "__main__":
    main()
