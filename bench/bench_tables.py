"""Appending at a floor table against appending to a shoe, through the live-feed API, on
SQLite and on PostgreSQL, interleaved.

Run: .venv/bin/python bench/bench_tables.py [--rounds 5] [--block 40]

Appends: one `roads-app api` (a real uvicorn process) per database on a fresh library;
one client sending hands by cards one at a time, each with an Idempotency-Key, in blocks
of ``--block`` appends, ``POST /shoes/{id}/rounds`` and ``POST /tables/{code}/rounds``
taking turns block by block (``--rounds`` times each), so the machine's noise falls on
both alike. Each route deals simulated shoes of 60 hands: the shoe route then starts a
new shoe (``POST /shoes``), the table route shuffles (``POST /tables/{code}/shuffle``),
so the table's next append starts its next shoe; those calls are not timed. Latency is
time.perf_counter around the POST; p50 and p99 per route, per block and overall, and the
rounds' paired differences (the table's block p50 minus the shoe's block p50 of the same
round: the machine's drift falls on both alike). The table's p99 includes the first hand
of each shoe, which starts the shoe; the shoe route's ``POST /shoes`` is not timed.

The lobby stream (``GET /lobby/events``) has a bench of its own, with its followers in
client processes: `bench_lobby.py`.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
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
        gaps: list[float] = []  # per round: the table's block p50 minus the shoe's
        try:
            headers = {"Authorization": f"Bearer {token}"}
            with httpx.Client(base_url=api, headers=headers, timeout=30) as c:
                feeders = {r: Feeder(c, r, 7 if r == "shoe" else 9) for r in got}
                for f in feeders.values():  # warm-up
                    for _ in range(30):
                        f.append()
                for i in range(a.rounds):
                    p50: dict[str, float] = {}
                    for route in ("shoe", "table") if i % 2 == 0 else ("table", "shoe"):
                        block = [feeders[route].append() for _ in range(a.block)]
                        got[route] += block
                        p50[route] = pct(block, 0.5)
                        print(
                            f"{name:<10} block {i + 1} /{route}s/.../rounds p50 "
                            f"{pct(block, 0.5):6.2f} ms p99 {pct(block, 0.99):6.2f} ms {load()}",
                            flush=True,
                        )
                    gaps.append(p50["table"] - p50["shoe"])
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=30)
        for route, xs in got.items():
            print(
                f"{name:<10} over all  /{route}s/.../rounds p50 {pct(xs, 0.5):6.2f} ms "
                f"p99 {pct(xs, 0.99):6.2f} ms (n={len(xs)}) {load()}",
                flush=True,
            )
        faster = sum(g < 0 for g in gaps)
        print(
            f"{name:<10} table minus shoe, block p50s side by side: median {pct(gaps, 0.5):+.2f} ms"
            f" (from {min(gaps):+.2f} to {max(gaps):+.2f}); the table faster in {faster} of"
            f" {len(gaps)} rounds",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--block", type=int, default=40)
    a = ap.parse_args()
    print(f"{load()} before, {os.cpu_count()} cores", flush=True)
    with (
        pgserver.running_server(fsync=True) as server,
        tempfile.TemporaryDirectory(prefix="bench-tables-") as tmp,
    ):
        appends(a, server, Path(tmp))
    print(f"{load()} after", flush=True)


if __name__ == "__main__":
    main()
