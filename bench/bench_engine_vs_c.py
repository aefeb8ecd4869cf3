"""The engine against a plain compiled C dealer of the same 8-deck shoes, one thread each.

Run: .venv/bin/python bench/bench_engine_vs_c.py [--shoes 200000] [--rounds 5]

The C dealer (`bench/dealer.c`, built here with ``gcc -O2``) only deals: the PCG64
stream, Fisher-Yates, burn, cut card and the drawing tables, and counts hands. The
engine's flat-Banker backtest does all that and settles and steps the betting session
too, so the ratio (engine hands/s ÷ dealer hands/s) says what the session costs on top
of dealing. Both deal the very same shoes: the run stops if their hand counts differ.
The drawing tables and card values are written into the C build from `roads_app.game`,
so the dealer restates no rule. Runs alternate (dealer, engine, dealer, ...) so a change
in the machine's load falls on both; the figure is the median of the rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_engine import plan
from roads_app.game.drawing import BANKER_DRAWS_AFTER, BANKER_DRAWS_STOOD, PLAYER_DRAWS
from roads_app.game.shoe import BURN_BY_CARD, POINTS_BY_CARD
from roads_app.sim import kernel

HERE = Path(__file__).resolve().parent


def c_array(name: str, a: np.ndarray) -> str:
    a = np.asarray(a, dtype=np.int64)
    if a.ndim == 1:
        return f"static const int {name}[{a.size}] = {{{', '.join(map(str, a))}}};\n"
    rows = ", ".join("{" + ", ".join(map(str, r)) + "}" for r in a)
    return f"static const int {name}[{a.shape[0]}][{a.shape[1]}] = {{{rows}}};\n"


def build(folder: Path) -> Path:
    header = (
        c_array("POINTS", POINTS_BY_CARD)
        + c_array("BURN", BURN_BY_CARD)
        + c_array("PLAYER_DRAWS", PLAYER_DRAWS.astype(np.int64))
        + c_array("BANKER_STOOD", BANKER_DRAWS_STOOD.astype(np.int64))
        + c_array("BANKER_AFTER", BANKER_DRAWS_AFTER.astype(np.int64))
    )
    (folder / "tables.h").write_text(header)
    shutil.copy(HERE / "dealer.c", folder / "dealer.c")
    exe = folder / "dealer"
    subprocess.run(["gcc", "-O2", "-o", str(exe), str(folder / "dealer.c")], check=True)
    return exe


def run_c(exe: Path, seed: int, shoes: int) -> tuple[float, int]:
    st = np.random.PCG64(seed).state["state"]
    t = time.perf_counter()
    out = subprocess.run(
        [str(exe), str(st["state"]), str(st["inc"]), str(shoes), "8", "14"],
        capture_output=True,
        text=True,
        check=True,
    )
    dt = time.perf_counter() - t
    return dt, int(out.stdout.split()[0])


def run_engine(p: kernel.Plan, seed: int, shoes: int) -> tuple[float, int]:
    t = time.perf_counter()
    r = kernel.run_fast(p, seed, shoes, chunk=65536)
    return time.perf_counter() - t, int(r.hands.sum())


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shoes", type=int, default=200_000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    args, _ = ap.parse_known_args()
    kernel.set_threads(1)
    p = plan("flat", bet="banker")
    kernel.run_fast(p, args.seed, 100)  # compile or load the cached code
    c_rate, e_rate = [], []
    with tempfile.TemporaryDirectory() as d:
        exe = build(Path(d))
        for _ in range(args.rounds):
            dt_c, hands_c = run_c(exe, args.seed, args.shoes)
            dt_e, hands_e = run_engine(p, args.seed, args.shoes)
            if hands_c != hands_e:
                sys.exit(f"not the same shoes: C dealt {hands_c} hands, the engine {hands_e}")
            c_rate.append(hands_c / dt_c)
            e_rate.append(hands_e / dt_e)
    c, e = statistics.median(c_rate), statistics.median(e_rate)
    print(
        f"load average {os.getloadavg()[0]:.2f}; {args.shoes:,} shoes x {args.rounds} rounds, "
        f"1 thread each"
    )
    print(f"C dealer (deal only)        {c / 1e6:6.2f} M hands/s")
    print(f"engine, flat Banker         {e / 1e6:6.2f} M hands/s")
    print(f"engine / dealer             {e / c:6.2f}x")


if __name__ == "__main__":
    main()
