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
import polars as pl
from roads_app.game.rounds import rounds_from_winners
from roads_app.roads import grids
one = rounds_from_winners("BBPTPBBBPPPBPBPBTTPPPBBBBBBBBP")
many = pl.concat([one.with_columns(shoe=pl.lit(s)) for s in (3, 1, 2)], how="vertical")
assert grids.all_roads(one)["big_eye_boy"].height == 24
assert grids.all_roads(many.drop("round"), rows=3)["cockroach_pig"].height == 3 * 19
assert grids.all_roads(pl.DataFrame({"winner": ["T", "T"]}))["big_road"].height == 1
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
