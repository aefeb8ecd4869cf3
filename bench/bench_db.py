"""Appending through the live-feed API on each database: the old code (another checkout
given by --old) and this code, each on SQLite and on PostgreSQL, interleaved.

Run: .venv/bin/python bench/bench_db.py [--old CHECKOUT] [--rounds 3] [--appends 300]
     [--rate 100] [--seconds 5]
``--old``: another checkout with its own .venv (``git worktree add /tmp/old main`` and
``python3 dev.py test --co`` there), measured before this code on each database in every
round.
Each round starts one `roads-app api` (a real uvicorn process) per variant in turn, on a
fresh library, and measures with time.perf_counter after 50 warm-up appends:
  * one client appending by cards, one request at a time (each with an Idempotency-Key,
    simulated shoes one after another): p50, p99;
  * the same client paced at ``--rate`` appends per second for ``--seconds``, open loop
    (request i is due at t0 + i/rate and its latency counts from then): p50, p99 and the
    rate achieved.
The PostgreSQL server is a throwaway PostgreSQL 15 (`tests.pgserver`) with its default
durability settings (``fsync`` on, ``synchronous_commit`` on, ``wal_sync_method``
fdatasync: each commit waits for its WAL to reach this machine's disk), on this machine;
this code is measured once more with ``synchronous_commit`` off for its connection
(`NO_WAIT`, the bench's URL only, never the product's), which shows what the disk's
flush costs. The machine's load is printed with every round.
Figures are printed per round and over all rounds, never asserted. Targets (issue 35):
PostgreSQL p50 <= 5 ms, p99 <= 20 ms at 100/s; SQLite no slower than before.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from roads_app.game.shoe import ShoeOptions, deal_shoe  # noqa: E402
from tests import pgserver  # noqa: E402

NO_WAIT = "?options=-c%20synchronous_commit%3Doff"
"""A commit answered before its WAL reaches the disk (PostgreSQL's ``synchronous_commit``
off, set here through the URL): the commit's fsync is most of an append's time on a slow
disk; a crash of the *server* may then lose its last fraction of a second of commits."""


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


class Hands:
    """Legal hands by cards without end: simulated shoes one after another."""

    def __init__(self, client: httpx.Client, seed: int) -> None:
        self.client, self.seed = client, seed
        self.shoe, self.left, self.n = "", [], 0

    def next(self) -> tuple[str, dict, str]:
        if not self.left:
            self.seed += 1
            r = deal_shoe(self.seed, ShoeOptions()).rounds
            self.left = list(
                zip(r["player_cards"].to_list(), r["banker_cards"].to_list(), strict=True)
            )[::-1]
            self.shoe = self.client.post("/shoes", json={"name": f"b{self.seed}"}).json()["id"]
        pc, bc = self.left.pop()
        self.n += 1
        return self.shoe, {"player_cards": pc, "banker_cards": bc}, f"k{self.seed}-{self.n}"


def append(c: httpx.Client, hands: Hands) -> float:
    shoe, body, key = hands.next()
    t = time.perf_counter()
    r = c.post(f"/shoes/{shoe}/rounds", json=body, headers={"Idempotency-Key": key})
    dt = time.perf_counter() - t
    assert r.status_code == 201, r.text
    return dt * 1e3


def serve(python: str, checkout: Path, data: Path, env: dict[str, str]):
    """Start `roads-app api` of a checkout; its token, URL and process."""
    port = pgserver.free_port()
    token = subprocess.run(
        [python, "-m", "roads_app", "token", "--data", str(data)],
        capture_output=True,
        text=True,
        check=True,
        cwd=checkout,
        env=env,
    ).stdout.strip()
    proc = subprocess.Popen(
        [python, "-m", "roads_app", "api", "--port", str(port), "--data", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        cwd=checkout,
        env=env,
    )
    url = f"http://127.0.0.1:{port}"
    for _ in range(600):
        try:
            if httpx.get(f"{url}/health").status_code == 200:
                break
        except httpx.TransportError:
            time.sleep(0.1)
    return token, url, proc


def measure(url: str, token: str, a: argparse.Namespace, seed: int) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    with httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30) as c:
        hands = Hands(c, seed)
        for _ in range(50):
            append(c, hands)
        out["seq"] = [append(c, hands) for _ in range(a.appends)]
        n = int(a.rate * a.seconds)
        lat: list[float] = []
        due0 = time.perf_counter() + 0.05
        for i in range(n):  # one client: a card-reading shoe sends one hand at a time
            due = due0 + i / a.rate
            wait = due - time.perf_counter()
            if wait > 0:
                time.sleep(wait)
            append(c, hands)
            lat.append((time.perf_counter() - due) * 1e3)
        out["paced"] = lat
        out["rate"] = [n / (time.perf_counter() - due0)]
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=None, help="checkout of the code to compare with")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--appends", type=int, default=300)
    ap.add_argument("--rate", type=float, default=100.0)
    ap.add_argument("--seconds", type=float, default=5.0)
    a = ap.parse_args()
    old = Path(a.old) if a.old else None
    base = {k: v for k, v in os.environ.items() if k != "ROADS_APP_DB"}
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores")
    totals: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    with (
        pgserver.running_server(fsync=True) as server,
        tempfile.TemporaryDirectory(prefix="bench-db-") as tmp,
    ):
        for r in range(a.rounds):
            old_python = str(old / ".venv" / "bin" / "python") if old else ""
            variants = [
                *([("old SQLite", old_python, old, base)] if old else []),
                ("new SQLite", sys.executable, ROOT, base),
                *(
                    [
                        (
                            "old PostgreSQL",
                            old_python,
                            old,
                            {**base, "ROADS_APP_DB": server.new_database("bench")},
                        )
                    ]
                    if old
                    else []
                ),
                (
                    "new PostgreSQL",
                    sys.executable,
                    ROOT,
                    {**base, "ROADS_APP_DB": server.new_database("bench")},
                ),
                (
                    "new PG sync_commit off",
                    sys.executable,
                    ROOT,
                    {**base, "ROADS_APP_DB": server.new_database("bench") + NO_WAIT},
                ),
            ]
            for name, python, checkout, env in variants:
                data = Path(tmp) / f"{r}-{'-'.join(name.split())}"
                token, url, proc = serve(python, checkout, data, env)
                try:
                    got = measure(url, token, a, 1000 * r)
                finally:
                    os.killpg(proc.pid, signal.SIGTERM)
                    proc.wait(timeout=30)
                for k, v in got.items():
                    totals[name][k] += v
                print(
                    f"round {r + 1} {name:<24} one client p50 {pct(got['seq'], 0.5):6.2f} ms "
                    f"p99 {pct(got['seq'], 0.99):6.2f} | at {a.rate:g}/s p50 "
                    f"{pct(got['paced'], 0.5):6.2f} p99 {pct(got['paced'], 0.99):6.2f} ms "
                    f"({got['rate'][0]:.1f}/s) load {os.getloadavg()[0]:.1f}",
                    flush=True,
                )
    print(f"load after: {os.getloadavg()}")
    print("over all rounds:")
    for name, got in totals.items():
        print(
            f"  {name:<24} one client p50 {pct(got['seq'], 0.5):6.2f} ms p99 "
            f"{pct(got['seq'], 0.99):6.2f} (n={len(got['seq'])}) | at {a.rate:g}/s p50 "
            f"{pct(got['paced'], 0.5):6.2f} p99 {pct(got['paced'], 0.99):6.2f} ms "
            f"(n={len(got['paced'])})"
        )


if __name__ == "__main__":
    main()
