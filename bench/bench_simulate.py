"""`roads-app simulate` end to end: whole-process time and peak memory, against the
backtest engine over the same shoes, in one run.

Run: .venv/bin/python bench/bench_simulate.py [--shoes 1000000] [--small 10000]

Every figure is a child process (`python -m roads_app ...`) timed with time.perf_counter
from spawn to exit, its CPU time and peak resident memory (ru_maxrss) from os.wait4:
  * simulate --shoes SMALL to Parquet (target: under 2 s whole process),
  * simulate --shoes N to Parquet (target for N = 1,000,000: under 60 s, peak < 1 GB),
  * the same N as CSV is left out (text output is far larger; same streaming code),
  * backtest --strategy flat --bet banker over the same N shoes, and the ratio of
    shoes per second (target: simulate within 10x of the backtest engine).
The Numba cache is warmed first (one tiny run of each command), so no figure includes
a compile. CPU time above wall time means both cores were used.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def child(label: str, *args: str) -> float:
    """Run ``roads-app args`` in a child; print wall, CPU and peak memory; return wall."""
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "roads_app", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"{label} failed: {err.strip()}")
    cpu = usage.ru_utime + usage.ru_stime
    print(f"{label:<44} {wall:7.2f} s wall {cpu:7.2f} s CPU  peak {usage.ru_maxrss / 1024:6.0f} MB")
    return wall


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=1_000_000)
    ap.add_argument("--small", type=int, default=10_000)
    args, _ = ap.parse_known_args()
    n = args.shoes
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        child("warm-up simulate (3 shoes)", "simulate", "--shoes", "3", "--seed", "1",
              "--out", str(out / "w.parquet"))  # fmt: skip
        child("warm-up backtest (3 shoes)", "backtest", "--strategy", "flat", "--bet", "banker",
              "--shoes", "3", "--seed", "3")  # fmt: skip
        child(f"simulate --shoes {args.small:,} (parquet)", "simulate", "--shoes",
              str(args.small), "--seed", "1", "--out", str(out / "small.parquet"))  # fmt: skip
        sim = child(f"simulate --shoes {n:,} (parquet)", "simulate", "--shoes", str(n),
                    "--seed", "3", "--no-progress", "--out", str(out / "big.parquet"))  # fmt: skip
        size = (out / "big.parquet").stat().st_size
        bt = child(f"backtest flat banker --shoes {n:,}", "backtest", "--strategy", "flat",
                   "--bet", "banker", "--shoes", str(n), "--seed", "3",
                   "--no-progress")  # fmt: skip
    print(f"file: {size / 1e6:,.0f} MB for {n:,} shoes")
    print(
        f"shoes per second: simulate {n / sim:,.0f}, backtest {n / bt:,.0f}: "
        f"simulate takes {sim / bt:.1f}x the backtest's time (target: under 10x)"
    )


if __name__ == "__main__":
    main()
