"""Speed of the good roads (issue 25), against the figures they must not exceed.

Run: ``.venv/bin/python bench/bench_good_roads.py [--shoes 10000] [--study-shoes 1000000]
[--repeat 5]`` (``--small`` for a quick check: 1,000 and 20,000 shoes).

Targets:
* good roads after every round of 10,000 shoes (`good_roads.good_roads`, the frame with
  the keys listed) no slower than `grids.all_roads` on the same shoes;
* the study of 1,000,000 shoes (`good-roads --study`, its default 2,000 priced shoes)
  within 2x the flat Banker backtest of the same shoes (the fast engine);
* a key press on the scoreboard: the tags of one 80-round shoe (`tags_of_winners`, what
  the scoreboard, the display and the lobby call, plus the words of the page) under 5 ms.

Compiles and the on-disk cache loads are done before any timing.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_roads import synthetic_shoes

from roads_app.bets.tables import load_table
from roads_app.roads import good_roads as gr
from roads_app.roads import grids
from roads_app.sim import backtest, strategies
from roads_app.sim import good_road_study as gs


def best(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=10_000)
    ap.add_argument("--study-shoes", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--small", action="store_true")
    args, _ = ap.parse_known_args()  # bench/run.py passes every script the same options
    if args.small:
        args.shoes, args.study_shoes, args.repeat = 1_000, 20_000, 3
    cat = gr.in_force()

    frame = synthetic_shoes(args.shoes)
    gr.good_roads(frame.head(200), cat)  # load the compiled kernels
    grids.all_roads(frame.head(200))
    t_good = best(lambda: gr.good_roads(frame, cat), args.repeat)
    t_roads = best(lambda: grids.all_roads(frame), args.repeat)
    print(
        f"good roads, every round of {args.shoes:,} shoes ({frame.height:,} rounds): "
        f"{t_good * 1e3:.1f} ms; all_roads {t_roads * 1e3:.1f} ms; "
        f"ratio {t_good / t_roads:.2f} (target <= 1) {verdict(t_good <= t_roads)}"
    )

    table = load_table("classic")
    strategy = strategies.make_strategy("flat", bet="banker")
    money = strategies.Settings(bankroll=1e12, unit=table.limits.min_bet)
    resolved = strategies.resolve(money, strategy, table)
    backtest.run_fast(strategy, resolved, table, seed=1, shoes=10, n_paths=0)
    gs.study(cat, table, seed=1, shoes=10, priced_shoes=2)
    n = args.study_shoes
    t_flat = best(
        lambda: backtest.run_fast(strategy, resolved, table, seed=1, shoes=n, n_paths=0), 1
    )
    t_study = best(lambda: gs.study(cat, table, seed=1, shoes=n), 1)
    print(
        f"study of {n:,} shoes ({gs.PRICED_SHOES:,} priced): {t_study:.2f} s; flat backtest "
        f"{t_flat:.2f} s; ratio {t_study / t_flat:.2f} (target <= 2) "
        f"{verdict(t_study <= 2 * t_flat)}"
    )

    from roads_app.game.rounds import rounds_from_winners
    from roads_app.ui.good_roads_view import tags

    shoe = rounds_from_winners("BPBPBBPPBBPPPBBBBBPBPTBPPBBB" * 3)

    def press() -> None:
        keys = gr.tags_of_winners(shoe["winner"].cast(str).to_list())
        tags(keys, "zh")

    press()
    t_key = best(press, 200)
    print(
        f"key press: good-road tags of an {shoe.height}-round shoe {t_key * 1e3:.3f} ms "
        f"(target < 5 ms) {verdict(t_key < 0.005)}"
    )


if __name__ == "__main__":
    main()
