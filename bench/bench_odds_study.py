"""The odds study: today's plain code (main's `bets/live_odds.py`) against the compiled
study (`roads_app.sim.study`), the same shoes in one run.

Run: .venv/bin/python bench/bench_odds_study.py [--study-shoes 1000] [--ref REV] [--cli]

The reference is `git show REV:roads_app/bets/live_odds.py` and REV's `bets/odds.py`
(REV: main) loaded as their own modules, so it is the code as landed (its exact-odds
kernel too), dealing with `deal_shoe` one shoe at a time.
Both are warmed up (Numba compile or cache load) on 2 shoes first, then timed on N
shoes of seed 1, table classic, with time.perf_counter (wall) and time.process_time
(CPU of all threads). The two summaries are checked equal (target: the compiled study
under a third of the reference's wall time).

``--cli`` also times the whole command, ``roads-app odds-study --shoes N --seed 1 --rules
classic``, as a user runs it: REV's tree checked out in a temporary worktree and run
with it first on ``sys.path``, then this tree's, each once to warm its Numba cache and
once timed (wall, and CPU of the child from ``resource``), in one run.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
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


def _run_cli(tree: Path, n: int) -> tuple[float, float, str]:
    """Wall and CPU seconds of one `odds-study` process run from ``tree``, its last line."""
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [sys.executable, "-m", "roads_app", "odds-study", "--shoes", str(n), "--seed", "1"]
    cmd += ["--rules", "classic"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall, cpu, out.stdout.strip().splitlines()[-1]


def cli(rev: str, n: int) -> None:
    """The whole command, REV's against this tree's, in one run."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "ref"
        subprocess.run(
            ["git", "worktree", "add", "--detach", str(old), rev],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        try:
            times = {}
            for label, tree in ((rev, old), ("this tree", ROOT)):
                _run_cli(tree, 2)  # warm: compile or load the Numba cache
                wall, cpu, last = _run_cli(tree, n)
                times[label] = wall
                name = f"roads-app odds-study --shoes {n} ({label})"
                print(f"{name:<45} {wall:7.2f} s wall {cpu:7.2f} s CPU")
                print(f"  last line: {last}")
            print(
                f"whole command: this tree / {rev} wall time {times['this tree'] / times[rev]:.2f}"
            )
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(old)], cwd=ROOT, capture_output=True
            )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--study-shoes", type=int, default=1000)
    ap.add_argument("--ref", default="main")
    ap.add_argument("--cli", action="store_true", help="also time the whole command")
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
    if args.cli:
        cli(args.ref, n)


if __name__ == "__main__":
    main()
