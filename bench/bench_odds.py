"""Exact odds: one composition, a whole table, live odds, a batch, and the study.

Run: .venv/bin/python bench/bench_odds.py [--shoes N] [--threads T]
Wall time (time.perf_counter) and CPU time (time.process_time, all threads) after a
warm-up call (Numba compiles once, cached):
  * outcomes(): the kernel for one composition (targets: < 5 ms; the study ~1.5 ms/core),
  * bet_odds(): the full Winbox table as a Polars frame (what the dashboard shows),
  * live_odds(): after round 60 of a dealt shoe (rounds frame -> unseen cards -> table),
  * odds_many(): a batch of late-shoe compositions on all threads,
  * odds_study(): N simulated shoes end to end (dealing included), Winbox table.
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

from roads_app.bets.live_odds import hand_compositions, live_odds, odds_study
from roads_app.bets.odds import bet_odds, full_shoe_counts, odds_many, outcomes
from roads_app.bets.tables import load_table
from roads_app.game.shoe import deal_shoe


def per_call(label: str, n: int, fn) -> None:
    """Wall and CPU time per call (CPU time is steadier on the shared 2-core machine)."""
    fn()
    t, c = time.perf_counter(), time.process_time()
    for _ in range(n):
        fn()
    dt, dc = (time.perf_counter() - t) / n, (time.process_time() - c) / n
    print(f"{label:<44} {dt * 1e3:8.3f} ms/call wall, {dc * 1e3:7.3f} ms CPU  ({n} calls)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=None)
    args = ap.parse_args()
    if args.threads:
        numba.set_num_threads(args.threads)
    print(f"numba threads: {numba.get_num_threads()}")
    table = load_table("winbox")
    full = full_shoe_counts(8)
    dealt = deal_shoe(11)
    comps = hand_compositions(dealt.rounds, dealt.meta)
    mid, end = comps[40], comps[-1]

    per_call("outcomes(full 8-deck shoe)", 2000, lambda: outcomes(full))
    per_call("outcomes(after round 40)", 2000, lambda: outcomes(mid))
    per_call(f"outcomes(end of shoe, {int(end.sum())} cards)", 2000, lambda: outcomes(end))
    per_call("bet_odds(winbox, full shoe) -> frame", 500, lambda: bet_odds(table, full))
    per_call(
        "live_odds(winbox, after round 60)",
        500,
        lambda: live_odds(dealt.rounds, dealt.meta, table, 60),
    )

    batch = np.vstack(
        [
            hand_compositions(
                deal_shoe(5, None, k).rounds, deal_shoe(5, None, k).meta, next_hand=False
            )
            for k in range(50)
        ]
    )
    odds_many(batch[:10])
    t, c = time.perf_counter(), time.process_time()
    odds_many(batch)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(f"odds_many CPU time: {dc / len(batch) * 1e3:.3f} ms/composition (all threads)")
    print(
        f"odds_many({len(batch)} compositions)              {dt * 1e3:8.1f} ms "
        f"({dt / len(batch) * 1e3:.3f} ms/composition wall, "
        f"{dt / len(batch) * 1e3 * numba.get_num_threads():.3f} ms per core)"
    )

    odds_study(1, 2, table)
    t, c = time.perf_counter(), time.process_time()
    res = odds_study(1, args.shoes, table)
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(f"odds_study CPU time: {dc:.2f} s (all threads)")
    print(
        f"odds_study({args.shoes} shoes, {res.hands} hands)      {dt:8.2f} s "
        f"({dt / res.hands * 1e3:.3f} ms/hand incl. dealing)"
    )


if __name__ == "__main__":
    main()
