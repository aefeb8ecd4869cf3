"""The odds study: today's plain code (main's `bets/live_odds.py`) against the compiled
study (`roads_app.sim.study`), the same shoes in one run.

Run: .venv/bin/python bench/bench_odds_study.py [--study-shoes 1000] [--ref REV]

The reference is `git show REV:roads_app/bets/live_odds.py` and REV's `bets/odds.py`
(REV: main) loaded as their own modules, so it is the code as landed (its exact-odds
kernel too), dealing with `deal_shoe` one shoe at a time.
Both are warmed up (Numba compile or cache load) on 2 shoes first, then timed on N
shoes of seed 1, table classic, with time.perf_counter (wall) and time.process_time
(CPU of all threads). The two summaries are checked equal (target: the compiled study
under a third of the reference's wall time).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
import types
from pathlib import Path

from polars.testing import assert_frame_equal

from roads_app.bets.tables import load_table
from roads_app.sim import study

ROOT = Path(__file__).resolve().parent.parent


def _load(rev: str, path: str, name: str, swap: tuple[str, str] | None = None) -> types.ModuleType:
    src = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    if swap is not None:
        src = src.replace(*swap)
    src = src.replace("cache=True", "cache=False")  # no file to cache by: compiled at warm-up
    mod = types.ModuleType(name)
    sys.modules[name] = mod  # dataclasses look their module up
    exec(compile(src, f"{rev}:{path}", "exec"), mod.__dict__)
    return mod


def reference(rev: str) -> types.ModuleType:
    """REV's live_odds over REV's exact-odds kernel (not this tree's)."""
    _load(rev, "roads_app/bets/odds.py", "odds_reference")
    return _load(
        rev,
        "roads_app/bets/live_odds.py",
        "live_odds_reference",
        ("from roads_app.bets.odds import", "from odds_reference import"),
    )


def timed(label: str, fn):  # type: ignore[no-untyped-def]
    t, c = time.perf_counter(), time.process_time()
    out = fn()
    dt, dc = time.perf_counter() - t, time.process_time() - c
    print(f"{label:<40} {dt:7.2f} s wall {dc:7.2f} s CPU")
    return out, dt


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--study-shoes", type=int, default=1000)
    ap.add_argument("--ref", default="main")
    args, _ = ap.parse_known_args()
    n = args.study_shoes
    table = load_table("classic")
    ref = reference(args.ref)
    ref.odds_study(1, 2, table)
    study.odds_study(1, 2, table)
    old, t_old = timed(f"{args.ref} odds_study({n} shoes)", lambda: ref.odds_study(1, n, table))
    new, t_new = timed(f"compiled odds_study({n} shoes)", lambda: study.odds_study(1, n, table))
    assert_frame_equal(old.summary, new.summary)
    print(
        f"{new.hands:,} hands; compiled/reference wall time {t_new / t_old:.2f} "
        f"(target: under 0.33); summaries equal"
    )


if __name__ == "__main__":
    main()
