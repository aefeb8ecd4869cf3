"""Importing shoe files: checked imports per second, and what refusing a bomb costs.

Run: .venv/bin/python bench/bench_import.py [--repeat N] [--shoes N]
* a full 8-deck shoe with cards (seed 7) as CSV, JSON and Parquet through
  `import_bytes` (schema, entry-form rebuild, composition): ms per import;
* hostile files from tests/hostile/make_corpus.py, each refused in a fresh process:
  wall time and the process's peak RSS (the 5-million-row zstd Parquet is refused from
  its footer, before decoding);
* a `simulate` Parquet file of ``--shoes`` full shoes (default `MAX_IMPORT_SHOES`, the
  most an import takes) through `library.import_shoes` into a fresh library (one split,
  every shoe checked, one transaction): seconds and shoes per second; then a file of
  200,000 one-round shoes refused by `import` and by `odds --shoe` (the cap, at once).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
from roads_app.errors import RoadsAppError
from roads_app.store.importing import import_bytes
from tests.hostile.make_corpus import cases
case = next(c for c in cases() if c.filename.startswith({prefix!r}))
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
try:
    import_bytes(case.data, case.filename)
    print("ACCEPTED", case.filename)
except RoadsAppError as e:
    dt = time.perf_counter() - t
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"{{case.filename:<28}} {{len(case.data):>9,}} B  refused in {{dt * 1e3:8.1f}} ms, "
          f"peak RSS {{peak / 1024:6.0f}} MB (before the import {{base / 1024:.0f}} MB): "
          f"{{str(e)[len(case.filename) + 2:][:60]}}")
"""

BOMBS = ("rows-5000000", "rows-2000000", "long-list", "winners-200000", "deep-list-",
         "over-limit")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--shoes", type=int, default=None, help="shoes in the multi-shoe file")
    n = ap.parse_known_args()[0].repeat
    from roads_app.game.shoe import deal_shoe
    from roads_app.store.files import export_bytes
    from roads_app.store.importing import import_bytes

    dealt = deal_shoe(7)
    for fmt in ("csv", "json", "parquet"):
        data = export_bytes(dealt.rounds, dealt.meta, fmt)
        import_bytes(data, f"x.{fmt}")
        t = time.perf_counter()
        for _ in range(n):
            import_bytes(data, f"x.{fmt}")
        dt = (time.perf_counter() - t) / n
        print(f"import {fmt:<8} {dealt.rounds.height} rounds, {len(data):>6,} B: "
              f"{dt * 1e3:7.2f} ms per import ({n} imports)")
    multi_shoe(ap.parse_known_args()[0].shoes)
    for prefix in BOMBS:
        out = subprocess.run([sys.executable, "-c", CHILD.format(root=str(ROOT), prefix=prefix)],
                             capture_output=True, text=True, cwd=ROOT)  # fmt: skip
        print((out.stdout or out.stderr).strip().splitlines()[-1])


def multi_shoe(shoes: int | None) -> None:
    """A many-shoe import, and the refusals of a file over the cap."""
    import tempfile

    import polars as pl

    from roads_app.errors import RoadsAppError
    from roads_app.game.shoe import ShoeOptions
    from roads_app.sim import bulk
    from roads_app.store import library
    from roads_app.store.files import write_batches

    n = shoes or library.MAX_IMPORT_SHOES
    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "sim.parquet"
        write_batches(bulk.batches(1, n, ShoeOptions()), f)
        t = time.perf_counter()
        added = library.import_shoes(f, Path(tmp) / "data")
        dt = time.perf_counter() - t
        print(f"import of {len(added):,} shoes ({f.stat().st_size:,} B Parquet): {dt:6.2f} s, "
              f"{len(added) / dt:,.0f} shoes/s")
        many = Path(tmp) / "many.parquet"
        pl.DataFrame({"shoe": pl.arange(1, 200_001, eager=True),
                      "winner": ["B", "P"] * 100_000}).write_parquet(many)  # fmt: skip
        for what, call in (("import", lambda: library.import_shoes(many, Path(tmp) / "d2")),
                           ("odds --shoe", lambda: library.read_shoe(many))):  # fmt: skip
            t = time.perf_counter()
            try:
                call()
                print(f"{what} of 200,000 one-round shoes: ACCEPTED")
            except RoadsAppError as e:
                print(f"{what} of 200,000 one-round shoes refused in "
                      f"{(time.perf_counter() - t) * 1e3:7.1f} ms: {str(e)[:70]}")  # fmt: skip


if __name__ == "__main__":
    main()
