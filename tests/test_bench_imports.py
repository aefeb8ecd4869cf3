"""Every benchmark still loads as its command runs it (``python bench/bench_x.py``).

Many reuse the tests' helpers (the browser fixtures' ``conftest``, ``tests.procs``,
``tests.pgserver``), so a change on the tests' side can break a benchmark that no test
runs: moving the process-group helper into ``tests/procs.py`` left three of them failing
at their first import. One interpreter loads each file in turn (its ``main`` not run),
with the path a script gets (its own folder first) and the tests' modules forgotten
between files, so each finds them by its own ``sys.path`` lines or not at all.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

LOAD_EACH = """
import runpy, sys
from pathlib import Path
base = [p for p in sys.path if p not in ("", ".")]
for path in sys.argv[1:]:
    sys.path[:] = [str(Path(path).parent), *base]
    for m in [m for m in sys.modules if m.partition(".")[0] in ("conftest", "tests")]:
        del sys.modules[m]
    for m in [m for m in sys.modules if m.startswith("bench_")]:
        del sys.modules[m]
    try:
        runpy.run_path(path, run_name="loaded")
    except BaseException as e:
        print(f"{Path(path).name}: {type(e).__name__}: {e}")
"""


def test_every_benchmark_loads_as_a_script(tmp_path: Path) -> None:
    benches = sorted(str(p) for p in (ROOT / "bench").glob("bench_*.py"))
    assert len(benches) > 20
    r = subprocess.run(
        [sys.executable, "-c", LOAD_EACH, *benches],
        capture_output=True,
        text=True,
        cwd=tmp_path,  # not the checkout: nothing found through the working folder
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert r.stdout == "", r.stdout
