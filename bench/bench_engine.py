"""The compiled Monte Carlo engine: hands per second, per core and on all cores.

Run: .venv/bin/python bench/bench_engine.py [--shoes 1000000] [--cold]

Every figure includes the whole job: the PCG64 stream (generated in the kernel),
Fisher-Yates, burn, cut card, drawing rules, settlement and strategy stepping, per-shoe
results. Wall time by time.perf_counter and CPU time by time.process_time (all threads),
after a warm-up call; "per CPU-s" is hands per CPU-second, the per-core figure that
stays honest when other processes share the machine. The first call's time (Numba
compile, or loading the cached machine code) is printed separately, and ``--cold`` also
times a compile from an empty cache in a child process.

  * flat Banker on 1 thread and on all threads (the 10M hands/s per core target and
    the "1,000,000 shoes in under 10 s" target),
  * a progression (Martingale, with a bankroll so that shoes go broke and stop),
  * road-following (big eye boy; the kernel keeps streak lengths per shoe),
  * the plain reference engine, for scale.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numba

from roads_app.bets.tables import load_table
from roads_app.sim import backtest, kernel, strategies

TABLE = load_table("classic")


def plan(name: str, bankroll: float = 1e12, **kw) -> kernel.Plan:
    strategy = strategies.make_strategy(name, **kw)
    return kernel.make_plan(
        strategy, strategies.resolve(strategies.Settings(bankroll=bankroll), strategy, TABLE), TABLE
    )


def timed(label: str, p: kernel.Plan, shoes: int, threads: int) -> float:
    kernel.set_threads(threads)
    kernel.run_fast(p, 1, 1000)  # warm the threads
    t, cpu = time.perf_counter(), time.process_time()
    r = kernel.run_fast(p, 1, shoes, chunk=65536)
    dt, dcpu = time.perf_counter() - t, time.process_time() - cpu
    hands = int(r.hands.sum())
    print(
        f"{label:<36} {threads} thr {shoes:>9,} shoes {hands:>11,} hands {dt:6.2f} s wall "
        f"{hands / dt / 1e6:5.1f} M hands/s | {dcpu:6.2f} CPU-s "
        f"{hands / dcpu / 1e6:5.1f} M per CPU-s"
    )
    return hands / dt


def cold_compile() -> None:
    code = (
        "import time; t=time.perf_counter(); import sys; sys.path.insert(0, '.');"
        "from bench.bench_engine import plan; from roads_app.sim import kernel;"
        "kernel.run_fast(plan('flat', bet='banker'), 1, 10);"
        "print(f'{time.perf_counter()-t:.1f}')"
    )
    with tempfile.TemporaryDirectory() as d:
        env = {**os.environ, "NUMBA_CACHE_DIR": d}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    print(f"compile from an empty cache (child process): {out.stdout.strip() or out.stderr} s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=1_000_000)
    ap.add_argument("--cold", action="store_true", help="also time a compile from empty cache")
    args, _ = ap.parse_known_args()
    n = args.shoes
    cores = numba.config.NUMBA_NUM_THREADS
    print(f"numba {numba.__version__}, {cores} threads available, threading layer:", end=" ")

    t = time.perf_counter()
    kernel.run_fast(plan("flat", bet="banker"), 1, 10)
    first = time.perf_counter() - t
    print(numba.threading_layer())
    print(f"first call (compile or cached-code load): {first:.2f} s")
    if args.cold:
        cold_compile()

    flat = plan("flat", bet="banker")
    timed("flat banker", flat, n, 1)
    timed("flat banker", flat, n, cores)
    timed("martingale banker, bankroll 1000", plan("martingale", bankroll=1000.0), n, cores)
    timed("follow-road big eye boy", plan("follow-road", road="big_eye_boy"), n, cores)
    timed(
        "follow-road cockroach pig, 1 thread", plan("follow-road", road="cockroach_pig"), n // 4, 1
    )

    strategy = strategies.make_strategy("flat", bet="banker")
    resolved = strategies.resolve(strategies.Settings(), strategy, TABLE)
    shoes = 200
    t = time.perf_counter()
    run = backtest.run_plain(strategy, resolved, TABLE, seed=1, shoes=shoes)
    dt = time.perf_counter() - t
    hands = int(run.per_shoe["hands"].sum())
    print(
        f"plain reference engine (flat banker)  1 thr {shoes:>9,} shoes {hands / dt:,.0f} hands/s"
    )


if __name__ == "__main__":
    main()
