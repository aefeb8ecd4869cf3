"""The compiled engine's speed in this checkout against another one, interleaved.

Run: .venv/bin/python bench/bench_engine_ab.py --base /path/to/other/checkout
         [--shoes 100000] [--repeat 5] [--threads 1]

A change that should leave the engine as fast as it was (a rule moved, a wrapper gone)
is measured here: each round runs every strategy below once in a child process of each
checkout, the two checkouts alternating, so a machine shared with other work loads both
alike. Each child times `kernel.run_fast` after a warm-up call (the compile or cached
code load is not timed) and reports hands per CPU-second (time.process_time, all
threads), the figure that stays honest when other processes share the cores; the
median of the rounds is printed for each side, with the spread.

Figures (issue 38's vocabulary and rules-once commits against the commit before them,
b29de0d, on the 2-core machine shared with five other sessions, load average 11-14),
``--shoes 100000 --repeat 9``, M hands per CPU-s, median (min-max):

    flat banker              base 19.20 (16.08-19.59)  this 19.20 (16.73-19.59)  1.000
    martingale banker        base 18.90 (17.93-19.61)  this 18.87 (17.22-19.57)  0.999
    follow-road big eye boy  base 18.94 (17.29-19.47)  this 18.71 (16.94-19.26)  0.988
    follow-good-road any     base 10.99 (9.16-11.66)   this 11.29 (9.94-11.73)   1.027
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from roads_app.bets.tables import load_table
from roads_app.sim import kernel, strategies
table = load_table("classic")
kernel.set_threads({threads})
out = {{}}
for label, name, kw in {cases!r}:
    strategy = strategies.make_strategy(name, **kw)
    resolved = strategies.resolve(strategies.Settings(bankroll=1e12), strategy, table)
    plan = kernel.make_plan(strategy, resolved, table)
    kernel.run_fast(plan, 1, 1000)  # compile or load, and warm the threads
    cpu = time.process_time()
    r = kernel.run_fast(plan, 1, {shoes}, chunk=65536)
    out[label] = int(r.hands.sum()) / (time.process_time() - cpu)
print(json.dumps(out))
"""

CASES = [
    ("flat banker", "flat", {"bet": "banker"}),
    ("martingale banker", "martingale", {"bet": "banker"}),
    ("follow-road big eye boy", "follow-road", {"road": "big_eye_boy"}),
    ("follow-good-road any", "follow-good-road", {"pattern": "any"}),
]


def run(root: Path, shoes: int, threads: int) -> dict[str, float]:
    code = CHILD.format(root=str(root), threads=threads, cases=CASES, shoes=shoes)
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", required=True, help="the other checkout")
    ap.add_argument("--shoes", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    sides = {"base": Path(args.base).resolve(), "this": HERE}
    got: dict[str, dict[str, list[float]]] = {s: {c[0]: [] for c in CASES} for s in sides}
    for _ in range(args.repeat):
        for side, root in sides.items():
            for label, rate in run(root, args.shoes, args.threads).items():
                got[side][label].append(rate)
    print(
        f"{args.shoes:,} shoes, {args.threads} thread(s), {args.repeat} interleaved rounds; "
        "M hands per CPU-s, median (min-max)"
    )
    for label, *_ in CASES:
        cells = []
        for side in sides:
            xs = got[side][label]
            cells.append(
                f"{side} {statistics.median(xs) / 1e6:6.2f} "
                f"({min(xs) / 1e6:.2f}-{max(xs) / 1e6:.2f})"
            )
        ratio = statistics.median(got["this"][label]) / statistics.median(got["base"][label])
        print(f"{label:<26} " + "  ".join(cells) + f"  this/base {ratio:.3f}")


if __name__ == "__main__":
    main()
