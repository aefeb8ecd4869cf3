"""Speed of the roads: all five roads for one shoe, and for 10,000 shoes in one call.

Run: ``.venv/bin/python bench/bench_roads.py [--shoes 10000] [--repeat 7]``

Targets (issue 3): one 80-round shoe under 5 ms; 10,000 shoes (~810,000 rounds)
under 0.25 s. The Numba kernel's cold compile (in a child process with an empty
cache) and its first call in this process (on-disk cache load) are timed
separately, so neither lands in the figures.

The many-shoe input is synthetic (winners drawn with the 8-deck B/P/T frequencies,
random pair/natural flags, 78-84 rounds a shoe) because dealing 10,000 real shoes
with the plain dealer takes far longer than the roads; the roads only read the
winner column and carry the flags, so the shape of the work is the same.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import polars as pl

T0 = time.perf_counter()
from roads_app.game.rounds import MULTI_SHOE_SCHEMA, ROUNDS_SCHEMA  # noqa: E402
from roads_app.game.shoe import deal_shoe  # noqa: E402
from roads_app.roads import grids as roads  # noqa: E402
from roads_app.roads import stats  # noqa: E402

IMPORT_S = time.perf_counter() - T0

WINNER_P = np.array([0.458597, 0.446247, 0.095156])  # B, P, T (8 decks)


def synthetic_shoes(n_shoes: int, seed: int = 7) -> pl.DataFrame:
    """Many shoes of random results in `MULTI_SHOE_SCHEMA` (flags random, no cards)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(78, 85, n_shoes)
    total = int(sizes.sum())
    shoe = np.repeat(np.arange(1, n_shoes + 1, dtype=np.int32), sizes)
    starts = np.repeat(np.cumsum(sizes) - sizes, sizes)
    rnd = (np.arange(total) - starts + 1).astype(np.int32)
    winner = np.array(["B", "P", "T"])[rng.choice(3, total, p=WINNER_P)]
    points = rng.integers(0, 10, (2, total)).astype(np.int8)
    flags = rng.random((4, total)) < np.array([[0.075], [0.075], [0.17], [0.17]])
    frame = pl.DataFrame(
        {
            "shoe": shoe,
            "round": rnd,
            "winner": pl.Series(winner, dtype=MULTI_SHOE_SCHEMA["winner"]),
            "player_points": points[0],
            "banker_points": points[1],
            "player_pair": flags[0],
            "banker_pair": flags[1],
            "player_natural": flags[2],
            "banker_natural": flags[3],
            "player_cards": pl.Series([None] * total, dtype=pl.List(pl.String)),
            "banker_cards": pl.Series([None] * total, dtype=pl.List(pl.String)),
        }
    )
    return frame.select(MULTI_SHOE_SCHEMA.names()).cast(dict(MULTI_SHOE_SCHEMA))


COLD = """
import time
from roads_app.game.rounds import rounds_from_winners
from roads_app.roads import grids as roads
t = time.perf_counter()
roads.all_roads(rounds_from_winners("BPPBT" * 16))
print(time.perf_counter() - t)
"""


def cold_compile_s() -> float:
    """First call in a fresh process whose Numba cache is empty: the real compile."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        out = subprocess.run(
            [sys.executable, "-c", COLD], env=env, capture_output=True, text=True, check=True
        )
    return float(out.stdout.strip())


def timed(fn, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=7)
    args, _ = ap.parse_known_args()  # bench/run.py passes every script the same arguments

    one = deal_shoe(2024).rounds
    assert one.schema == ROUNDS_SCHEMA
    t = time.perf_counter()
    roads.all_roads(one)
    first = time.perf_counter() - t
    print(f"import roads_app.roads.grids: {IMPORT_S * 1e3:.0f} ms")
    print(f"first call in this process (Numba cache load + warm-up): {first * 1e3:.0f} ms")
    print(f"cold Numba compile (fresh process, empty cache): {cold_compile_s() * 1e3:.0f} ms")

    single = timed(lambda: roads.all_roads(one), max(args.repeat, 50))
    print(
        f"all five roads, one {one.height}-round shoe: median {statistics.median(single) * 1e3:.2f}"
        f" ms, best {min(single) * 1e3:.2f} ms (target < 5 ms)"
    )
    ask = timed(lambda: roads.ask_road(one, "B"), 50)
    print(f"ask_road, same shoe: median {statistics.median(ask) * 1e3:.2f} ms")
    st1 = timed(lambda: stats.shoe_stats(one), 50)
    print(f"shoe_stats, same shoe: median {statistics.median(st1) * 1e3:.2f} ms")

    many = synthetic_shoes(args.shoes)
    batch = timed(lambda: roads.all_roads(many), args.repeat)
    print(
        f"all five roads, {args.shoes} shoes ({many.height} rounds) in one call: median "
        f"{statistics.median(batch):.3f} s, best {min(batch):.3f} s (target < 0.25 s)"
    )
    before = timed(lambda: roads.derived_marks_before_each_round(many), args.repeat)
    print(f"derived_marks_before_each_round, same shoes: median {statistics.median(before):.3f} s")
    many_stats = timed(lambda: stats.shoe_stats_many(many), args.repeat)
    print(f"shoe_stats_many, same shoes: median {statistics.median(many_stats):.3f} s")
    running = timed(lambda: stats.running_counts(many), args.repeat)
    print(f"running_counts, same shoes: median {statistics.median(running):.3f} s")


if __name__ == "__main__":
    main()
