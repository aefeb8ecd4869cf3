"""Dealing simulated shoes with the plain (Python) engine: shoes per second.

Run: .venv/bin/python bench/bench_shoe.py [--shoes N]
Measures wall time with time.perf_counter over N shoes (after one warm-up shoe):
  * shuffle only (PCG64 raw draws + Fisher-Yates),
  * shuffle + deal (hands as Python objects, the shoe procedure),
  * shuffle + deal + the rounds frame (what `deal_shoe` returns).
The compiled engine's figures are in bench/bench_engine.py.
"""

from __future__ import annotations

import argparse
import time

from roads_app.game.shoe import ShoeOptions, deal_hands, deal_shoe, shuffled_shoe


def rate(label: str, n: int, fn) -> None:
    fn(0)
    t = time.perf_counter()
    for k in range(n):
        fn(k)
    dt = time.perf_counter() - t
    print(f"{label:<34} {n / dt:10,.0f} shoes/s  ({dt / n * 1e3:.3f} ms/shoe, {n} shoes)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=2000)
    n = ap.parse_args().shoes
    opts = ShoeOptions()
    rate("shuffle (8 decks)", n, lambda k: shuffled_shoe(1, 8, k))
    rate("shuffle + deal hands", n, lambda k: deal_hands(shuffled_shoe(1, 8, k), opts))
    rate("deal_shoe (with rounds frame)", n, lambda k: deal_shoe(1, opts, k))


if __name__ == "__main__":
    main()
