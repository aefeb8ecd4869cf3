"""`roads-app simulate` end to end: whole-process time and peak memory, against the
backtest engine over the same shoes, in one run.

Run: .venv/bin/python bench/bench_simulate.py [--shoes 1000000] [--small 10000]
         [--repeat 3] [--base /path/to/other/checkout] [--small-only]

Every figure is a child process (`python -m roads_app ...`) timed with time.perf_counter
from spawn to exit, its CPU time and peak resident memory (ru_maxrss) from os.wait4:
  * simulate --shoes SMALL to Parquet (target: under 2 s whole process),
  * simulate --shoes N to Parquet (target for N = 1,000,000: under 60 s, peak < 1 GB),
  * the same N as CSV is left out (text output is far larger; same streaming code),
  * backtest --strategy flat --bet banker over the same N shoes, and the ratio of
    shoes per second (target: simulate within 10x of the backtest engine).
The Numba cache is warmed first (one tiny run of each command), so no figure includes
a compile. CPU time above wall time means both cores were used.

The small run is repeated (--repeat) and, with --base, interleaved with the same run of
another checkout (``PYTHONPATH=DIR``, same interpreter and packages): before/after in
one run on a shared machine, where only figures taken side by side compare.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def child(label: str, *args: str, path: str | None = None) -> tuple[float, float]:
    """Run ``roads-app args`` in a child (of the checkout at ``path``, or this one); print
    wall, CPU and peak memory; return (wall, CPU)."""
    # `python -m` puts the working folder first on the path: run from a neutral one, and
    # name the checkout in PYTHONPATH (this one unless told).
    env = {**os.environ, "PYTHONPATH": path or str(HERE.parent)}
    t = time.perf_counter()
    proc = subprocess.Popen(
        [sys.executable, "-m", "roads_app", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    err = proc.stderr.read().decode() if proc.stderr else ""
    if status != 0:
        raise SystemExit(f"{label} failed: {err.strip()}")
    cpu = usage.ru_utime + usage.ru_stime
    print(f"{label:<44} {wall:7.2f} s wall {cpu:7.2f} s CPU  peak {usage.ru_maxrss / 1024:6.0f} MB")
    return wall, cpu


def small_runs(n: int, repeat: int, out: Path, base: str | None) -> None:
    """``simulate --shoes n`` ``repeat`` times (interleaved with ``base``'s): best and median."""
    sides = {"this": None} if base is None else {"base": base, "this": None}
    for name, path in sides.items():  # warm each checkout's own Numba cache
        child(
            f"warm-up simulate ({name}, 3 shoes)",
            "simulate",
            "--shoes",
            "3",
            "--seed",
            "1",
            "--out",
            str(out / "w.parquet"),
            path=path,
        )
    got: dict[str, list[tuple[float, float]]] = {name: [] for name in sides}
    for k in range(repeat):
        for name, path in sides.items():
            got[name].append(
                child(
                    f"simulate --shoes {n:,} ({name}, run {k + 1})",
                    "simulate",
                    "--shoes",
                    str(n),
                    "--seed",
                    "1",
                    "--out",
                    str(out / f"{name}.parquet"),
                    path=path,
                )
            )
    for name, runs in got.items():
        walls = sorted(w for w, _ in runs)
        cpus = sorted(c for _, c in runs)
        print(
            f"{name}: simulate --shoes {n:,}: wall best {walls[0]:.2f} s, median "
            f"{walls[len(walls) // 2]:.2f} s; CPU best {cpus[0]:.2f} s, median "
            f"{cpus[len(cpus) // 2]:.2f} s (target: wall under 2 s)"
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=1_000_000)
    ap.add_argument("--small", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=3, help="runs of the small simulate")
    ap.add_argument("--base", default=None, help="another checkout to interleave with")
    ap.add_argument("--small-only", action="store_true", help="only the small runs")
    args, _ = ap.parse_known_args()
    n = args.shoes
    with tempfile.TemporaryDirectory() as d:
        out = Path(d)
        small_runs(args.small, args.repeat, out, args.base)
        if args.small_only:
            return
        child(
            "warm-up backtest (3 shoes)",
            "backtest",
            "--strategy",
            "flat",
            "--bet",
            "banker",
            "--shoes",
            "3",
            "--seed",
            "3",
        )
        big = str(out / "big.parquet")
        sim, _ = child(
            f"simulate --shoes {n:,} (parquet)",
            "simulate",
            "--shoes",
            str(n),
            "--seed",
            "3",
            "--no-progress",
            "--out",
            big,
        )
        size = (out / "big.parquet").stat().st_size
        bt, _ = child(
            f"backtest flat banker --shoes {n:,}",
            "backtest",
            "--strategy",
            "flat",
            "--bet",
            "banker",
            "--shoes",
            str(n),
            "--seed",
            "3",
            "--no-progress",
        )
    print(f"file: {size / 1e6:,.0f} MB for {n:,} shoes")
    print(
        f"shoes per second: simulate {n / sim:,.0f}, backtest {n / bt:,.0f}: "
        f"simulate takes {sim / bt:.1f}x the backtest's time (target: under 10x)"
    )


if __name__ == "__main__":
    main()
