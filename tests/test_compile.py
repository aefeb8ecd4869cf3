"""The kernels compile cleanly: nothing of Numba's own reaches a user's screen.

Each check compiles in a fresh process with an empty cache folder (``NUMBA_CACHE_DIR``),
Numba's warnings turned into errors, so a warning a compile would print fails here.
"""

from __future__ import annotations

import os
import re
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
    for engine, rows in (("fast", True), ("fast", False), ("plain", True)):
        betting = bt.Betting(make_strategy(name), money, table)
        options = bt.RunOptions(engine=engine, rows=rows)  # rows=False: the command's
        run = bt.backtest(betting, bt.Simulated(7, 3), options)
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


def compile_fresh(
    tmp_path: Path, code: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a new interpreter whose kernels compile into an empty cache."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), **(env or {})}
    return subprocess.run(
        [sys.executable, "-c", STRICT + code], capture_output=True, text=True, env=env
    )


WARM = """
from roads_app.sim import warmup
from roads_app.roads import grids
from roads_app.sim import kernel
assert [s.name for s in warmup.missing()] == ["roads", "engine", "plain", "simulate", "odds"]
warmup.main([])
assert warmup.missing() == []
if warmup._cores() > 1:  # the engine compiled here, the roads beside it in the helper
    assert kernel._run_block.signatures and not grids._roads_kernel.signatures
"""


def test_the_warm_ups_halves_balance_and_keep_a_shared_kernel_in_one() -> None:
    from roads_app.sim import warmup

    here, there = warmup.halves(warmup.STEPS)
    assert sorted(s.name for s in here + there) == sorted(s.name for s in warmup.STEPS)
    together = {warmup.ENGINE, warmup.PLAIN}  # both compile the exact edge's kernels
    assert together <= set(here) or together <= set(there)
    seconds = [sum(s.seconds for s in half) for half in (here, there)]
    assert abs(seconds[0] - seconds[1]) <= max(s.seconds for s in warmup.STEPS)
    assert warmup.halves([warmup.ODDS]) == ([warmup.ODDS], [])


def test_the_warm_up_compiles_every_kernel_once_saying_so_on_one_line(tmp_path: Path) -> None:
    """The warm-up (``dev.py``'s install step) compiles every kernel a page or a command
    calls first, under one line and a bar, nothing of Numba's; then the roads from one
    shoe and many, good-road masks, both engines over two strategies with whole-number
    money compile nothing more: one entry a kernel in the cache. (A road's number given
    as a constant, a Polars column's read-only array, the parallel loop's unsigned index
    each compiled a kernel again: the layout 8 times, the engine's block twice.)"""
    r = compile_fresh(tmp_path, WARM + ROADS + ENGINE + ONE_ENTRY)
    assert r.returncode == 0, r.stderr[-3000:]
    first, *bar = r.stderr.splitlines()
    assert re.fullmatch(r"preparing the fast engine, once: about \d+ s", first), first
    assert all("%|" in line for line in bar if line.strip()), bar  # the bar, nothing else
    assert "grids._roads_kernel" in r.stdout and "kernel._run_block" in r.stdout


WHILE_WARMING = """
from roads_app import jit_cache
from roads_app.roads import grids
from roads_app.sim import warmup
from roads_app.game.rounds import rounds_from_winners
shoe = rounds_from_winners("TBPPBTBBBBBBBPT")
warming = warmup.start_in_background([warmup.ROADS])
assert warming is not None
first = grids.all_roads(shoe)
assert jit_cache.warming_now()  # drawn while the warm-up compiles, not after it
assert not grids._roads_kernel.signatures  # its source interpreted: nothing compiled here
assert warming.wait() == 0
again = grids.all_roads(shoe)
assert sum(grids._roads_kernel.stats.cache_hits.values()) == 1  # loaded, not compiled here
assert all(again[name].equals(frame) for name, frame in first.items())
assert warmup.start_in_background([warmup.ROADS]) is None  # nothing left to compile
"""


def test_a_board_asked_for_during_the_background_warm_up_is_drawn_without_its_code(
    tmp_path: Path,
) -> None:
    """The dashboard and the API warm up in another process while they serve: a first
    board asked for meanwhile neither waits for that process nor compiles beside it, it
    runs the roads' own source interpreted (`grids.PLAIN_UP_TO`); once the warm-up has
    ended the next board loads what it compiled, and is the same."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "home")}  # the warm-up's lock
    r = compile_fresh(tmp_path, WHILE_WARMING, env)
    assert r.returncode == 0, r.stderr[-3000:]


FIRST_SMALL_RUN = """
import contextlib, fcntl, io, json, os
from roads_app.cli import main
from roads_app.jit_cache import warming_lock
from roads_app.sim import exact, kernel, warmup
args = ["backtest", "--strategy", "flat", "--shoes", "300", "--json", "--no-progress"]
def run():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(args) == 0
    doc = json.loads(out.getvalue())
    return {k: v for k, v in doc.items() if k not in ("seconds", "hands_per_second")}
first = run()
kernels = (kernel._run_block, kernel._run_kernel, exact._accumulate, exact.two_products_into)
assert not [k for k in kernels if k.signatures]  # answered without compiling anything
fd = os.open(warming_lock(), os.O_RDONLY)
fcntl.flock(fd, fcntl.LOCK_SH)  # waits for the background warm-up to end
assert warmup.missing([warmup.ENGINE]) == []
assert run() == first  # the compiled engine, loaded: the same document
assert kernel._run_block.signatures
"""


def test_a_first_small_backtest_compiles_nothing_and_the_engine_compiles_for_the_next(
    tmp_path: Path,
) -> None:
    """A new install's first ``backtest`` of a few shoes answers at once, interpreted,
    saying on one line that the engine is being prepared; a process of its own compiles
    it meanwhile, and the next run loads it and prints the same document."""
    env = {"XDG_CACHE_HOME": str(tmp_path / "home")}  # the warm-up's lock
    r = compile_fresh(tmp_path, FIRST_SMALL_RUN, env)
    assert r.returncode == 0, r.stderr[-3000:]
    assert re.fullmatch(r"preparing the fast engine, once: about \d+ s\n", r.stderr), r.stderr
