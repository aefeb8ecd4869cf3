"""The kernels compile cleanly: nothing of Numba's own reaches a user's screen.

Each check compiles in a fresh process with an empty cache folder (``NUMBA_CACHE_DIR``),
Numba's warnings turned into errors, so a warning a compile would print fails here.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

STRICT = """
import warnings
from numba.core.errors import NumbaWarning
warnings.simplefilter("error", NumbaWarning)
"""

ROADS = """
import numpy as np
import polars as pl
from roads_app.game.rounds import rounds_from_winners
from roads_app.roads import grids
one = rounds_from_winners("BBPTPBBBPPPBPBPBTTPPPBBBBBBBBP")
many = pl.concat([one.with_columns(shoe=pl.lit(s)) for s in (3, 1, 2)], how="vertical")
assert grids.all_roads(one)["big_eye_boy"].height == 24
assert grids.all_roads(many.drop("round"), rows=3)["cockroach_pig"].height == 3 * 19
assert grids.all_roads(pl.DataFrame({"winner": ["T", "T"]}))["big_road"].height == 1
frozen = one.with_columns(pl.Series("round", np.arange(1, 31, dtype=np.int64)))
assert grids.all_roads(frozen)["small_road"].height == 22
assert grids.ask_roads(many).height == 3
from roads_app.roads import good_roads
assert good_roads.good_road_masks(many).shape == (90,)
"""

ENGINE = """
from roads_app.bets.tables import load_table
from roads_app.sim import backtest as bt
from roads_app.sim.strategies import Settings, make_strategy
table = load_table("classic")
for name, money in (("flat", Settings()), ("follow-good-road", Settings(bankroll=500, unit=5))):
    for engine in ("fast", "plain"):
        run = bt.backtest(make_strategy(name), money, table, seed=7, shoes=3, engine=engine)
        assert run.summary.shoes == 3
"""

ONE_ENTRY = """
import glob, os, pickle
counts = {}
for path in glob.glob(os.path.join(os.environ["NUMBA_CACHE_DIR"], "*", "*.nbi")):
    with open(path, "rb") as f:
        pickle.load(f)
        counts[os.path.basename(path).split("-")[0]] = len(pickle.loads(f.read())[1])
assert counts and all(n == 1 for n in counts.values()), counts
print(sorted(counts))
"""


def compile_fresh(tmp_path: Path, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter whose kernels compile into an empty cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    return subprocess.run(
        [sys.executable, "-c", STRICT + code], capture_output=True, text=True, env=env
    )


def test_the_roads_kernel_compiles_without_a_numba_warning(tmp_path: Path) -> None:
    """The derived-road rule inlined into the roads' pass passes Numba's IR checks (it
    was inlined once per road, and Numba's SSA pass warned that a variable of the
    second copy 'is not in scope', asking the reader to report a bug)."""
    r = compile_fresh(tmp_path, ROADS)
    assert r.returncode == 0, r.stderr[-3000:]
    assert r.stderr == ""


def test_each_kernel_is_compiled_for_one_signature_from_every_call_site(tmp_path: Path) -> None:
    """The roads from one shoe or many, numbered or not; both engines over two
    strategies, money given as whole numbers: one entry a kernel in the cache. (A road's
    number given as a constant, a Polars column's read-only array, the parallel loop's
    unsigned index each compiled a kernel again: the layout 8 times, the engine's block
    twice.)"""
    r = compile_fresh(tmp_path, ROADS + ENGINE + ONE_ENTRY)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "grids._roads_kernel" in r.stdout and "kernel._run_block" in r.stdout
