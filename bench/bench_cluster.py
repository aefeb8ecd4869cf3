"""The Ray cluster path against the single-machine path, and what a billion shoes would take.

Run: .venv/bin/python bench/bench_cluster.py [--shoes 1000000] [--shard-shoes 50000]

Needs the roads-app[cluster] extra. Starts a local Ray instance itself (2 CPUs, then 1),
so on this machine "the cluster" is two worker processes. Flat Banker, seed 1.

* single machine: `backtest` on all cores (Numba threads), wall and CPU time;
* cluster, 2 workers and 1 worker: one Ray task per shard, each worker on one thread,
  after a warm-up run (so the workers have loaded the compiled engine once, as a
  long-lived cluster has); wall time, and the CPU time each shard reports for itself;
* overhead = cluster wall (2 workers) / single-machine wall (2 threads) - 1;
* on paper: 1e9 shoes on 64 cores from the measured CPU cost per shoe in a shard, plus
  the measured per-task overhead times the tasks each core runs.

The JSON of each cluster run is checked identical to the single-machine one (timing
fields aside) before any figure is printed.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import ray

from roads_app.bets.tables import load_table
from roads_app.render.verdict import verdict_text
from roads_app.sim import backtest, cluster, strategies

TABLE = load_table("classic")
STRATEGY = strategies.make_strategy("flat", bet="banker")
MONEY = strategies.Settings()
RESOLVED = strategies.resolve(MONEY, STRATEGY, TABLE)


def timed_shard(first: int, count: int, *args: Any) -> tuple[backtest.Run, float, float]:
    """The backtest's shard function, with the CPU and wall time it took on its worker."""
    t, cpu = time.perf_counter(), time.process_time()
    run = backtest._cluster_shard(first, count, *args)
    return run, time.process_time() - cpu, time.perf_counter() - t


def summary_json(run: backtest.Run, seconds: float = 0.0) -> str:
    s = backtest.summarize(run, TABLE, RESOLVED.bankroll)
    d = s.to_dict(verdict_text)
    return json.dumps(d)


def cluster_run(shoes: int, shard: int) -> tuple[backtest.Run, float, list[float], list[float]]:
    parts = cluster.shards(shoes, shard)
    args = (STRATEGY, RESOLVED, TABLE, 1, 1000, False)
    t = time.perf_counter()
    out = cluster.map_shards(timed_shard, parts, args)
    wall = time.perf_counter() - t
    run = backtest.join_shards([o[0] for o in out], 1000, 0)
    return run, wall, [o[1] for o in out], [o[2] for o in out]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=1_000_000)
    ap.add_argument("--shard-shoes", type=int, default=backtest.SHARD_SHOES)
    a = ap.parse_args()
    n, shard = a.shoes, a.shard_shoes

    backtest.run_fast(STRATEGY, RESOLVED, TABLE, seed=1, shoes=1000)  # compile / load, warm threads
    t, cpu = time.perf_counter(), time.process_time()
    single = backtest.run_fast(STRATEGY, RESOLVED, TABLE, seed=1, shoes=n)
    single_wall, single_cpu = time.perf_counter() - t, time.process_time() - cpu
    want = summary_json(single)
    hands = single.totals.hands
    print(
        f"single machine  {n:>11,} shoes {hands:>13,} hands {single_wall:7.2f} s wall "
        f"{single_cpu:7.2f} CPU-s  ({hands / single_wall / 1e6:.1f} M hands/s)"
    )

    results = {}
    for cpus in (2, 1):
        t = time.perf_counter()
        cluster.start_local(num_cpus=cpus, log_to_driver=False, logging_level="ERROR")
        start = time.perf_counter() - t
        t = time.perf_counter()
        cluster_run(min(n, 2 * cpus * 2000), 2000)  # warm-up: every worker loads the engine
        warm = time.perf_counter() - t
        run, wall, cpu_s, walls = cluster_run(n, shard)
        assert summary_json(run) == want, "cluster result differs from the single machine"
        results[cpus] = (wall, cpu_s, walls)
        tasks = len(cpu_s)
        print(
            f"cluster {cpus} worker{'s' if cpus > 1 else ' '} {n:>11,} shoes in {tasks} shards "
            f"of {shard:,}: {wall:7.2f} s wall, shards {sum(cpu_s):7.2f} CPU-s "
            f"(Ray start {start:.1f} s, warm-up {warm:.1f} s; identical JSON)"
        )
        ray.shutdown()

    w2, cpu2, _ = results[2]
    w1, cpu1, walls1 = results[1]
    print(
        f"overhead of the cluster path (2 workers vs 2 threads): {w2 / single_wall - 1:+.1%} "
        f"wall, {sum(cpu2) / single_cpu - 1:+.1%} CPU (shards' own CPU vs the single run's)"
    )
    print(f"scaling 1 -> 2 workers: {w1 / w2:.2f}x (ideal 2.00x)")
    per_shoe_cpu = sum(cpu1) / n
    per_task = max(0.0, (w1 - sum(walls1)) / len(walls1))  # driver wall not spent in shards
    shoes_big, cores, shard_big = 10**9, 64, 1_000_000
    tasks_per_core = shoes_big / shard_big / cores
    est = shoes_big * per_shoe_cpu / cores + tasks_per_core * per_task
    print(
        f"measured: {per_shoe_cpu * 1e6:.2f} CPU-us per shoe in a shard, "
        f"{per_task * 1e3:.1f} ms per task beyond its work"
    )
    print(
        f"on paper: 1e9 shoes on {cores} cores in shards of {shard_big:,} "
        f"({shoes_big // shard_big:,} tasks) ~ {est:,.0f} s = {est / 60:.1f} min"
    )


if __name__ == "__main__":
    main()
