"""The backtest command as a user runs it, against the plain C dealer, one thread each.

Run: ``.venv/bin/python bench/bench_backtest_vs_c.py [--shoes 1000000] [--rounds 3]
[--against DIR]``

Times ``roads-app backtest --strategy flat --bet banker --shoes N`` with
``NUMBA_NUM_THREADS=1`` and reads the hands/s it reports, then the C dealer of
`bench/dealer.c` (built as `bench_engine_vs_c` builds it) dealing the very same shoes
(the run stops if their hand counts differ). ``--against DIR`` runs another checkout's
command too (its own ``.venv``, else this one's, with its code first on the path), so
old and new code are compared in one run. Runs
alternate (dealer, this checkout, the other, ...) so a change in the machine's load
falls on all; figures are medians, and the whole command's wall time is printed beside
the hands/s it reports.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_engine_vs_c import build, run_c  # noqa: E402


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_command(root: Path, seed: int, shoes: int) -> tuple[float, float, float, int]:
    """(hands/s reported, the command's wall and CPU seconds, hands) of ``root``'s
    roads-app."""
    venv = root / ".venv" / "bin" / "python"
    python = str(venv) if venv.exists() else sys.executable  # a bare worktree: ours
    cmd = [
        python,
        "-m",
        "roads_app",
        "backtest",
        "--strategy",
        "flat",
        "--bet",
        "banker",
        "--shoes",
        str(shoes),
        "--seed",
        str(seed),
        "--no-progress",
    ]
    env = {**os.environ, "NUMBA_NUM_THREADS": "1", "PYTHONPATH": str(root)}  # root's code
    t, cpu = time.perf_counter(), child_cpu()
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True, cwd="/")
    wall, cpu = time.perf_counter() - t, child_cpu() - cpu
    rate = re.search(r"([\d,]+) hands/s", out.stdout)
    hands = re.search(r"hands ([\d,]+)", out.stdout)
    if rate is None or hands is None:
        sys.exit(f"{root}: no hands/s in the output:\n{out.stdout}\n{out.stderr}")
    return float(rate[1].replace(",", "")), wall, cpu, int(hands[1].replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=1_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--against", type=Path, help="another checkout (with its .venv)")
    args = ap.parse_args()
    roots = [ROOT, *([args.against.resolve()] if args.against else [])]
    for root in roots:  # the engine's compiled code cached, outside the timing
        run_command(root, args.seed, 100)
    c_rate: list[float] = []
    c_cpu: list[float] = []
    rates: dict[Path, list[tuple[float, float, float]]] = {r: [] for r in roots}
    with tempfile.TemporaryDirectory() as d:
        exe = build(Path(d))
        for _ in range(args.rounds):
            cpu = child_cpu()
            dt, hands_c = run_c(exe, args.seed, args.shoes)
            c_rate.append(hands_c / dt)
            c_cpu.append(hands_c / (child_cpu() - cpu))
            for root in roots:
                rate, wall, cpu, hands = run_command(root, args.seed, args.shoes)
                if hands != hands_c:
                    sys.exit(f"not the same shoes: C dealt {hands_c} hands, {root} {hands}")
                rates[root].append((rate, hands / wall, hands / cpu))
    c, cc = statistics.median(c_rate), statistics.median(c_cpu)
    print(
        f"load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
        f"{args.shoes:,} shoes x {args.rounds} rounds, one thread each"
    )
    print(f"C dealer (deal only)   {c / 1e6:6.2f} M hands/s ({cc / 1e6:.2f} M per CPU second)")
    for root, got in rates.items():
        rep = statistics.median(r for r, _, _ in got)
        whole = statistics.median(w for _, w, _ in got)
        per_cpu = statistics.median(x for _, _, x in got)
        print(
            f"{root}: reports {rep / 1e6:6.2f} M hands/s = {rep / c:.2f}x the dealer; "
            f"whole command (start-up included) {whole / 1e6:.2f} M hands/s = "
            f"{whole / c:.2f}x, per CPU second {per_cpu / 1e6:.2f} M = {per_cpu / cc:.2f}x"
        )


if __name__ == "__main__":
    main()
