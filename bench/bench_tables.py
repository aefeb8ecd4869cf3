"""Appending at a floor table against appending to a shoe, through the live-feed API, on
SQLite and on PostgreSQL, interleaved; and, with ``--lobby``, the lobby stream.

Run: .venv/bin/python bench/bench_tables.py [--rounds 5] [--block 40]
     [--lobby --tables 100 --followers 200 --seconds 20 --every 2]

Appends: one `roads-app api` (a real uvicorn process) per database on a fresh library;
one client sending hands by cards one at a time, each with an Idempotency-Key, in blocks
of ``--block`` appends, ``POST /shoes/{id}/rounds`` and ``POST /tables/{code}/rounds``
taking turns block by block (``--rounds`` times each), so the machine's noise falls on
both alike. Each route deals simulated shoes of 60 hands: the shoe route then starts a
new shoe (``POST /shoes``), the table route shuffles (``POST /tables/{code}/shuffle``),
so the table's next append starts its next shoe; those calls are not timed. Latency is
time.perf_counter around the POST; p50 and p99 per route, per block and overall.

Lobby (``--lobby``, SQLite by default, ``--pg`` for PostgreSQL): ``--tables`` tables
open, each fed one hand every ``--every`` seconds (spread evenly, one feeding thread per
ten tables), ``--followers`` clients on ``GET /lobby/events``. Each event's latency is
its arrival minus the moment the append that caused it was answered (the append's own
latency is printed apart); every follower must see every table's last round (nothing
missed). The PostgreSQL server is a throwaway PostgreSQL 15 (`tests.pgserver`) with its
durable defaults. The machine's load is printed with every line: this is a shared
2-core machine, so figures move with what the others run.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench_db import pct, serve  # noqa: E402

from roads_app.game.floor import FloorLimits  # noqa: E402
from roads_app.game.shoe import ShoeOptions, deal_shoe  # noqa: E402
from roads_app.store import db  # noqa: E402
from tests import pgserver  # noqa: E402

HANDS_A_SHOE = 60


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def hands(seed: int) -> Iterator[dict[str, list[str]]]:
    """Legal hands by cards, simulated shoes of `HANDS_A_SHOE` hands one after another
    (a `None` between shoes)."""
    while True:
        r = deal_shoe(seed, ShoeOptions()).rounds.head(HANDS_A_SHOE)
        for pc, bc in zip(r["player_cards"].to_list(), r["banker_cards"].to_list(), strict=True):
            yield {"player_cards": pc, "banker_cards": bc}
        yield {}
        seed += 1


def add_tables(data: Path, url: str | None, n: int) -> list[str]:
    store = db.Store(data, url=url)
    codes = [f"T{i:03d}" for i in range(n)]
    for i, code in enumerate(codes):
        store.floor.add(code, f"Table {i}", "classic", FloorLimits.of((10, 5000)), i)
        store.floor.open(code)
    store.close()
    return codes


class Feeder:
    """Appends through one route, by cards; the shoe's end is a new shoe or a shuffle."""

    def __init__(self, c: httpx.Client, route: str, seed: int) -> None:
        self.c, self.route, self.hands, self.n = c, route, hands(seed), 0
        self.shoe = ""

    def _path(self) -> str:
        if self.route == "table":
            return "/tables/T000/rounds"
        if not self.shoe:
            self.shoe = self.c.post("/shoes", json={"name": "bench"}).json()["id"]
        return f"/shoes/{self.shoe}/rounds"

    def append(self) -> float:
        body = next(self.hands)
        if not body:  # the shoe's end (not timed)
            if self.route == "table":
                self.c.post("/tables/T000/shuffle")
            self.shoe = ""
            body = next(self.hands)
        path = self._path()
        self.n += 1
        key = {"Idempotency-Key": f"{self.route}-{self.n}"}
        t = time.perf_counter()
        r = self.c.post(path, json=body, headers=key)
        dt = (time.perf_counter() - t) * 1e3
        assert r.status_code == 201, r.text
        return dt


def appends(a: argparse.Namespace, server: pgserver.PgServer, tmp: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k != "ROADS_APP_DB"}
    for name in ("SQLite", "PostgreSQL"):
        url = server.new_database("bench") if name == "PostgreSQL" else None
        env = {**base, **({"ROADS_APP_DB": url} if url else {})}
        data = tmp / name
        token, api, proc = serve(sys.executable, ROOT, data, env)
        add_tables(data, url, 1)
        got: dict[str, list[float]] = {"shoe": [], "table": []}
        try:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=api, headers=headers, timeout=30) as c:
                feeders = {r: Feeder(c, r, 7 if r == "shoe" else 9) for r in got}
                for f in feeders.values():  # warm-up
                    for _ in range(30):
                        f.append()
                for i in range(a.rounds):
                    for route in ("shoe", "table") if i % 2 == 0 else ("table", "shoe"):
                        block = [feeders[route].append() for _ in range(a.block)]
                        got[route] += block
                        print(
                            f"{name:<10} block {i + 1} /{route}s/.../rounds p50 "
                            f"{pct(block, 0.5):6.2f} ms p99 {pct(block, 0.99):6.2f} ms {load()}",
                            flush=True,
                        )
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        for route, xs in got.items():
            print(
                f"{name:<10} over all  /{route}s/.../rounds p50 {pct(xs, 0.5):6.2f} ms "
                f"p99 {pct(xs, 0.99):6.2f} ms (n={len(xs)}) {load()}",
                flush=True,
            )


class Follower(threading.Thread):
    """One `GET /lobby/events` client: when each table's event arrived, and its rounds."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.arrivals: list[tuple[str, int, float]] = []  # (code, rounds, when)
        self.last: dict[str, int] = {}
        self.ready = threading.Event()
        self.stop = False

    def run(self) -> None:
        with contextlib.suppress(httpx.HTTPError):  # the server stopped at the end
            self._read()

    def _read(self) -> None:
        with (
            httpx.Client(timeout=httpx.Timeout(30, read=None)) as c,
            c.stream("GET", self.url) as r,
        ):
            kind = ""
            for line in r.iter_lines():
                if self.stop:
                    return
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    data = json.loads(line[5:])
                    when = time.perf_counter()
                    if kind == "lobby":
                        for t in data["tables"]:
                            self.last[t["code"]] = t["round_count"]
                        self.ready.set()
                    elif kind == "table":
                        self.last[data["code"]] = data["round_count"]
                        self.arrivals.append((data["code"], data["round_count"], when))


def lobby(a: argparse.Namespace, server: pgserver.PgServer, tmp: Path) -> None:
    base = {k: v for k, v in os.environ.items() if k != "ROADS_APP_DB"}
    url = server.new_database("lobby") if a.pg else None
    env = {**base, **({"ROADS_APP_DB": url} if url else {})}
    data = tmp / "lobby"
    token, api, proc = serve(sys.executable, ROOT, data, env)
    codes = add_tables(data, url, a.tables)
    answered: dict[tuple[str, int], float] = {}
    own: list[float] = []
    lock = threading.Lock()
    try:
        followers = [Follower(f"{api}/lobby/events") for _ in range(a.followers)]
        for f in followers:
            f.start()
        for f in followers:
            f.ready.wait(60)
        print(f"lobby: {a.followers} followers on {a.tables} tables {load()}", flush=True)
        end = time.perf_counter() + a.seconds
        headers = {"Authorization": f"Bearer {token}"}

        def feed(part: list[str], offset: float) -> None:
            streams = {code: hands(i) for i, code in enumerate(part)}
            rounds = dict.fromkeys(part, 0)
            with httpx.Client(base_url=api, headers=headers, timeout=30) as c:
                start = time.perf_counter() + offset
                beat = 0
                while time.perf_counter() < end:
                    for j, code in enumerate(part):
                        due = start + beat * a.every + j * a.every / len(part)
                        wait = due - time.perf_counter()
                        if wait > 0:
                            time.sleep(wait)
                        body = next(streams[code]) or next(streams[code])
                        t = time.perf_counter()
                        r = c.post(f"/tables/{code}/rounds", json=body)
                        done = time.perf_counter()
                        if r.status_code != 201:
                            continue  # a shoe's end: the rules' round limit
                        rounds[code] = r.json()["round"]["round"]
                        with lock:
                            own.append((done - t) * 1e3)
                            answered[code, rounds[code]] = done
                    beat += 1

        parts = [codes[i : i + 10] for i in range(0, len(codes), 10)]
        threads = [
            threading.Thread(target=feed, args=(p, k * a.every / len(parts)))
            for k, p in enumerate(parts)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        time.sleep(2)  # the last events in flight (the bench, not a test: it only reports)
        lat = [
            (when - answered[code, n]) * 1e3
            for f in followers
            for code, n, when in f.arrivals
            if (code, n) in answered
        ]
        final = {code: max((n for c, n in answered if c == code), default=0) for code in codes}
        missed = sum(1 for f in followers for code in codes if f.last.get(code) != final[code])
        print(
            f"lobby: appends {len(own)} p50 {pct(own, 0.5):.2f} ms p99 {pct(own, 0.99):.2f} ms"
            f" | events {len(lat)} p50 {pct(lat, 0.5):.1f} ms p99 {pct(lat, 0.99):.1f} ms"
            f" | followers not at a table's last round: {missed} {load()}",
            flush=True,
        )
        for f in followers:
            f.stop = True
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--block", type=int, default=40)
    ap.add_argument("--lobby", action="store_true", help="the lobby stream instead")
    ap.add_argument("--pg", action="store_true", help="the lobby on PostgreSQL")
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--followers", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--every", type=float, default=2.0)
    a = ap.parse_args()
    print(f"{load()} before, {os.cpu_count()} cores", flush=True)
    with (
        pgserver.running_server(fsync=True) as server,
        tempfile.TemporaryDirectory(prefix="bench-tables-") as tmp,
    ):
        (lobby if a.lobby else appends)(a, server, Path(tmp))
    print(f"{load()} after", flush=True)


if __name__ == "__main__":
    main()
