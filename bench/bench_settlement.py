"""Settlement speed: 1,000,000 bets over 10,000 shoes of rounds, one `settle` call.

Dealing 10,000 shoes with the plain dealer takes minutes, so 500 shoes are dealt and
repeated (renumbered) to 10,000; settlement cost does not depend on which cards came.

Run: .venv/bin/python bench/bench_settlement.py
"""

from __future__ import annotations

import time

import numpy as np
import polars as pl

from roads_app.bets.settlement import settle, settle_features
from roads_app.bets.tables import load_table
from roads_app.game.shoe import ShoeOptions, deal_shoes

N_SHOES = 10_000
DEALT = 500
N_BETS = 1_000_000


def main() -> None:
    t0 = time.perf_counter()
    base = deal_shoes(2026, DEALT, ShoeOptions())
    rounds = pl.concat(
        [base.with_columns(pl.col("shoe") + k * DEALT) for k in range(N_SHOES // DEALT)]
    )
    print(
        f"dealt {DEALT} shoes, tiled to {N_SHOES}: {rounds.height:,} rounds "
        f"({time.perf_counter() - t0:.1f} s)"
    )

    table = load_table("winbox-no-commission")
    rng = np.random.default_rng(7)
    ids = list(table.bets)
    bets = pl.DataFrame(
        {
            "shoe": rng.integers(1, N_SHOES + 1, N_BETS, dtype=np.int32),
            "round": rng.integers(1, 80, N_BETS, dtype=np.int32),
            "bet": np.array(ids)[rng.integers(0, len(ids), N_BETS)],
            "stake": rng.choice([1.0, 5.0, 25.0, 100.0, 500.0], N_BETS),
        }
    )

    t = time.perf_counter()
    feats = settle_features(rounds)
    tf = time.perf_counter() - t
    print(f"settle_features: {feats.height:,} rounds in {tf:.3f} s")

    best = cpu = float("inf")
    for _ in range(3):
        t, c = time.perf_counter(), time.process_time()
        out = settle(rounds, bets, table)
        best = min(best, time.perf_counter() - t)
        cpu = min(cpu, time.process_time() - c)
    counts = out["outcome"].value_counts().sort("outcome")
    print(f"settle: {N_BETS:,} bets in {best:.3f} s (best of 3) = {N_BETS / best:,.0f} bets/s")
    print(f"        CPU time {cpu:.3f} s, all threads (less sensitive to a busy machine)")
    print(dict(zip(counts["outcome"].cast(pl.String), counts["count"], strict=True)))


if __name__ == "__main__":
    main()
