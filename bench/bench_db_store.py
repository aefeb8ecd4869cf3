"""The API's append without HTTP: `Feed.append` by cards with an Idempotency-Key, on
SQLite and on PostgreSQL, the old code (another checkout given by --old) and this code
interleaved, with the round trips to the server counted per append.

Run: .venv/bin/python bench/bench_db_store.py [--old CHECKOUT] [--rounds 6] [--appends 250]
     [--only SQLite|PostgreSQL]
Each round runs every variant in its own process (the order of old and new alternates
from round to round) on a fresh library: simulated shoes one after another, one append
at a time, timed with time.perf_counter (the first 10 of each process are warm-up).
A round trip is a statement sent on its own or a pipeline (psycopg's ``execute``,
``executemany`` and ``pipeline`` are counted; a statement inside a pipeline is not).
The PostgreSQL server is a throwaway PostgreSQL 15 (`tests.pgserver`) with its default
durability (``fsync`` and ``synchronous_commit`` on: each commit waits for its WAL
flush on this machine's disk). Figures are printed, never asserted; the machine's load
is printed with every variant.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def child(url: str, n: int) -> None:
    """Append ``n`` hands in this process (its checkout first on sys.path); print JSON."""
    if url:
        os.environ["ROADS_APP_DB"] = url
    else:
        os.environ.pop("ROADS_APP_DB", None)
    import psycopg

    from roads_app.api.models import RoundIn, ShoeCreate
    from roads_app.api.service import Feed
    from roads_app.game.shoe import ShoeOptions, deal_shoe

    trips = [0]
    execute, pipeline, many = (
        psycopg.Connection.execute,
        psycopg.Connection.pipeline,
        psycopg.Cursor.executemany,
    )

    def on_execute(con: psycopg.Connection, *a: object, **k: object) -> object:
        trips[0] += con._pipeline is None
        return execute(con, *a, **k)  # type: ignore[arg-type]

    def on_pipeline(con: psycopg.Connection, *a: object, **k: object) -> object:
        trips[0] += 1
        return pipeline(con, *a, **k)  # type: ignore[arg-type]

    def on_many(cur: psycopg.Cursor, *a: object, **k: object) -> object:
        trips[0] += cur.connection._pipeline is None
        return many(cur, *a, **k)  # type: ignore[arg-type]

    psycopg.Connection.execute = on_execute  # type: ignore[method-assign,assignment]
    psycopg.Connection.pipeline = on_pipeline  # type: ignore[method-assign,assignment]
    psycopg.Cursor.executemany = on_many  # type: ignore[method-assign,assignment]
    feed = Feed(Path(tempfile.mkdtemp(prefix="bench-db-store-")))
    times: list[float] = []
    counts: list[int] = []
    seed = 0
    while len(times) < n + 10:
        seed += 1
        dealt = deal_shoe(seed, ShoeOptions()).rounds
        shoe = feed.create(ShoeCreate(name=f"b{seed}"), None).body["id"]
        hands = zip(dealt["player_cards"].to_list(), dealt["banker_cards"].to_list(), strict=True)
        for i, (player, banker) in enumerate(hands):
            before = trips[0]
            t = time.perf_counter()
            feed.append(shoe, RoundIn(player_cards=player, banker_cards=banker), f"k{seed}-{i}")
            times.append((time.perf_counter() - t) * 1e3)
            counts.append(trips[0] - before)
    print(json.dumps({"times": times[10:], "trips": sorted(counts)[len(counts) // 2]}))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", default=None, help="checkout of the code to compare with")
    ap.add_argument("--rounds", type=int, default=6)
    ap.add_argument("--appends", type=int, default=250)
    ap.add_argument("--only", choices=("SQLite", "PostgreSQL"), help="one database only")
    ap.add_argument("--child", nargs=2, metavar=("URL", "N"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        child(a.child[0], int(a.child[1]))
        return
    sys.path.insert(0, str(ROOT))
    from tests import pgserver

    checkouts = [("new", ROOT)] + ([("old", Path(a.old))] if a.old else [])
    print(f"load before: {os.getloadavg()}, {os.cpu_count()} cores", flush=True)
    got: dict[str, list[float]] = {}
    trips: dict[str, int] = {}
    with pgserver.running_server(fsync=True) as server:
        for r in range(a.rounds):
            order = checkouts if r % 2 else checkouts[::-1]
            for backend in [a.only] if a.only else ("SQLite", "PostgreSQL"):
                for name, checkout in order:
                    url = server.new_database("bench") if backend == "PostgreSQL" else ""
                    python = str(checkout / ".venv" / "bin" / "python")
                    out = subprocess.run(
                        [python, str(Path(__file__).resolve()), "--child", url, str(a.appends)],
                        cwd=checkout,
                        env={**os.environ, "PYTHONPATH": str(checkout)},
                        capture_output=True,
                        text=True,
                        check=True,
                    )
                    d = json.loads(out.stdout.strip().splitlines()[-1])
                    key = f"{name} {backend}"
                    got.setdefault(key, []).extend(d["times"])
                    trips[key] = d["trips"]
                    print(
                        f"round {r + 1} {key:<15} p50 {pct(d['times'], 0.5):6.2f} p99 "
                        f"{pct(d['times'], 0.99):6.2f} ms, round trips {d['trips']}, "
                        f"load {os.getloadavg()[0]:.1f}",
                        flush=True,
                    )
    print(f"load after: {os.getloadavg()}")
    print("over all rounds:")
    for key in sorted(got):
        t = got[key]
        print(
            f"  {key:<15} p50 {pct(t, 0.5):6.2f} p90 {pct(t, 0.9):6.2f} p99 {pct(t, 0.99):6.2f} ms"
            f" (n={len(t)}), round trips per append {trips[key] if 'Post' in key else '-'}"
        )


if __name__ == "__main__":
    main()
