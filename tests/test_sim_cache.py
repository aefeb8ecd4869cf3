"""`roads_app.jit_cache.load_lean`: cached machine code loaded without Numba's registries,
and a cache miss still compiling, in fresh interpreters (the only place a load happens)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

KERNEL = """
import numpy as np
from numba import njit, prange
from roads_app.jit_cache import load_lean


@load_lean
@njit(cache=True, parallel=True)
def fill(out, k):
    for i in prange(out.shape[0]):
        out[i] = (i * k) % 7
"""

CALL = """
import sys
import numpy as np
import lean_kernel
out = np.zeros(1000, dtype=np.int64)
lean_kernel.fill(out, 5)
assert out.tolist() == [(i * 5) % 7 for i in range(1000)], out
hits = sum(lean_kernel.fill.stats.cache_hits.values())
print(hits, "numba.np.arraymath" in sys.modules)
"""


def _call(folder: Path) -> str:
    r = subprocess.run([sys.executable, "-c", CALL], capture_output=True, text=True, cwd=folder)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip()


def test_a_miss_compiles_then_a_hit_loads_without_the_registries(tmp_path: Path) -> None:
    (tmp_path / "lean_kernel.py").write_text(KERNEL)
    assert _call(tmp_path) == "0 True"  # compiled: the compiler loads every registry
    assert _call(tmp_path) == "1 False"  # loaded from disk, right, and none of them
    (tmp_path / "lean_kernel.py").write_text(KERNEL.replace("% 7", "%  7"))  # a new stamp
    assert _call(tmp_path) == "0 True"  # the stale cache is a miss: compiled again


def test_a_function_without_a_disk_cache_is_left_alone() -> None:
    from numba import njit

    from roads_app.jit_cache import load_lean

    def double(x: int) -> int:
        return 2 * x

    plain = njit(double)
    assert load_lean(plain) is plain and type(plain._cache).__name__ == "NullCache"
    assert load_lean(double) is double and load_lean(double)(4) == 8


RECORD_KERNEL = """
from typing import NamedTuple
from numba import njit
import roads_app.jit_cache


class Rec(NamedTuple):
    a: int
    b: float


@njit(cache=True)
def total(r):
    return r.a + r.b
"""

RECORD_CALL = """
import record_kernel
print(record_kernel.total(record_kernel.{name}(2, 0.5)))
"""


def test_a_cache_naming_a_class_an_upgrade_renamed_is_a_miss(tmp_path: Path) -> None:
    """Numba unpickles a cache index before it compares stamps: an index whose
    signatures name a class the new source no longer has must compile, not crash."""
    (tmp_path / "record_kernel.py").write_text(RECORD_KERNEL)
    for name in ("Rec", "Rec"):
        r = subprocess.run(
            [sys.executable, "-c", RECORD_CALL.format(name=name)],
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
        assert r.returncode == 0 and r.stdout.strip() == "2.5", r.stderr
    (tmp_path / "record_kernel.py").write_text(RECORD_KERNEL.replace("Rec", "Record"))
    r = subprocess.run(
        [sys.executable, "-c", RECORD_CALL.format(name="Record")],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert r.returncode == 0 and r.stdout.strip() == "2.5", r.stderr


OUR_KERNEL = """
import numpy as np
from numba import njit
from roads_app.jit_cache import depends_on

depends_on(__file__)


@njit(cache=True)
def tally(out, k):
    for i in range(out.shape[0]):
        out[i] = (i * k) % 7
"""

OUR_CALL = """
import numpy as np
import our_kernel
out = np.zeros(100, dtype=np.int64)
our_kernel.tally(out, 5)
assert out.tolist() == [(i * 5) % 7 for i in range(100)], out
print(sum(our_kernel.tally.stats.cache_hits.values()))
"""

FULL = """
import resource, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))
"""


def _run_ours(folder: Path, env: dict[str, str], before: str = "") -> str:
    """Call the kernel in a fresh interpreter: it runs right and says nothing."""
    r = subprocess.run(
        [sys.executable, "-c", before + OUR_CALL],
        capture_output=True,
        text=True,
        cwd=folder,
        env={**os.environ, **env},
    )
    assert r.returncode == 0 and r.stderr == "", r.stderr[-3000:]
    return r.stdout.strip()


def _read_only_install(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A kernel whose ``__pycache__`` cannot be made (a file is where it would be: we
    run as root, for whom no folder is read-only), and the user's cache folder."""
    code = tmp_path / "code"
    code.mkdir()
    (code / "our_kernel.py").write_text(OUR_KERNEL)
    (code / "__pycache__").write_text("not a folder")
    env = {"XDG_CACHE_HOME": str(tmp_path / "home"), "NUMBA_CACHE_DIR": ""}
    return code, env


def test_a_read_only_install_caches_in_the_users_cache_folder(tmp_path: Path) -> None:
    code, env = _read_only_install(tmp_path)
    assert _run_ours(code, env) == "0"  # compiled
    assert list((tmp_path / "home" / "roads-app" / "numba").glob("*/our_kernel.tally-*.nbi"))
    assert _run_ours(code, env) == "1"  # loaded from the user's folder


def test_no_writable_cache_anywhere_still_runs(tmp_path: Path) -> None:
    code, env = _read_only_install(tmp_path)
    (tmp_path / "home").write_text("not a folder either")
    (tmp_path / "numba").write_text("nor this")
    env |= {"NUMBA_CACHE_DIR": str(tmp_path / "numba"), "TMPDIR": str(tmp_path / "tmp")}
    assert _run_ours(code, env) == "0"
    assert _run_ours(code, env) == "1"  # the temporary folder's cache


def test_a_full_cache_folder_or_a_garbage_cache_is_a_miss(tmp_path: Path) -> None:
    code, env = _read_only_install(tmp_path)
    assert _run_ours(code, env, FULL) == "0"  # nothing could be written, and nothing said
    assert _run_ours(code, env) == "0"
    cached = sorted((tmp_path / "home").rglob("our_kernel.tally-*.nb[ic]"))
    assert [p.suffix for p in cached] == [".nbc", ".nbi"]
    index = cached[1].read_bytes()
    cached[0].write_bytes(b"\x80\x04garbage")  # the index is right, its data is not
    assert _run_ours(code, env) == "0"
    cached[1].write_bytes(b"garbage")
    assert _run_ours(code, env) == "0"
    cached[1].write_bytes(index[: len(index) // 2])  # cut short
    assert _run_ours(code, env) == "0"
    assert _run_ours(code, env) == "1"
