"""Importing shoe files: checked imports per second, and what refusing a bomb costs.

Run: .venv/bin/python bench/bench_import.py [--repeat N] [--shoes N]
* a full 8-deck shoe with cards (seed 7) as CSV, JSON and Parquet through
  `import_bytes` (schema, entry-form rebuild, composition): ms per import;
* hostile files from tests/hostile/make_corpus.py, each refused in a fresh process:
  wall time and the process's peak RSS (the 5-million-row zstd Parquet is refused from
  its footer, before decoding);
* ``roads-app import`` of `simulate` files (Parquet and CSV) of 1,000 and ``--shoes``
  (30,000) full shoes, each a subprocess: wall time, peak RSS, ids printed; with
  ``--old DIR`` (a checkout of earlier code) the imports of both, interleaved;
  then ``good-roads FILE``, ``odds --shoe FILE --shoe-index N`` and ``show`` of the big
  file. ``--only-many`` runs only these;
* ``import`` and ``show`` of a Parquet of ``--tiny`` (200,000) one-round shoes (the cost
  a shoe, whatever its size), new and old interleaved; a run past ``--timeout`` seconds
  is stopped and said so. Targets: 30,000 full shoes imported in 8 s, 200,000 one-round
  shoes imported in 20 s and shown in 10 s, each under 400 MB peak RSS.

``--pg-admin URL`` (a PostgreSQL server's superuser): every import into a new database
of that server instead of a SQLite folder.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = """
import resource, sys, time
sys.path.insert(0, {root!r})
from roads_app.errors import RoadsAppError
from roads_app.shoefiles.importing import import_bytes
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

BOMBS = ("rows-5000000", "rows-2000000", "long-list", "winners-200000", "deep-list-", "over-limit")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--shoes", type=int, default=None, help="shoes in the big file (30,000)")
    ap.add_argument("--old", default=None, help="a checkout of older code to run beside")
    ap.add_argument("--only-many", action="store_true", help="only the files of many shoes")
    ap.add_argument("--tiny", type=int, default=200_000, help="one-round shoes (200,000)")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds a run may take")
    ap.add_argument("--formats", default="parquet,csv", help="of the big files (parquet,csv)")
    ap.add_argument("--pg-admin", default=None, help="a PostgreSQL superuser URL: import there")
    n = ap.parse_known_args()[0].repeat
    if ap.parse_known_args()[0].pg_admin:
        PG_ADMIN.append(ap.parse_known_args()[0].pg_admin)
    if ap.parse_known_args()[0].only_many:
        args = ap.parse_known_args()[0]
        old = None if args.old is None else Path(args.old).resolve()
        tiny_shoes(args.tiny, old, args.timeout)
        multi_shoe(args.shoes, old, args.timeout, args.formats.split(","))
        return
    from roads_app.game.shoe import deal_shoe
    from roads_app.shoefiles.files import export_bytes
    from roads_app.shoefiles.importing import import_bytes

    dealt = deal_shoe(7)
    for fmt in ("csv", "json", "parquet"):
        data = export_bytes(dealt.rounds, dealt.meta, fmt)
        import_bytes(data, f"x.{fmt}")
        t = time.perf_counter()
        for _ in range(n):
            import_bytes(data, f"x.{fmt}")
        dt = (time.perf_counter() - t) / n
        print(
            f"import {fmt:<8} {dealt.rounds.height} rounds, {len(data):>6,} B: "
            f"{dt * 1e3:7.2f} ms per import ({n} imports)"
        )
    args = ap.parse_known_args()[0]
    old = None if args.old is None else Path(args.old).resolve()
    tiny_shoes(args.tiny, old, args.timeout)
    multi_shoe(args.shoes, old, args.timeout, args.formats.split(","))
    for prefix in BOMBS:
        out = subprocess.run(
            [sys.executable, "-c", CHILD.format(root=str(ROOT), prefix=prefix)],
            capture_output=True,
            text=True,
            cwd=ROOT,
        )
        print((out.stdout or out.stderr).strip().splitlines()[-1])


RUN = """
import resource, subprocess, sys, time
t = time.perf_counter()
limit = float(sys.argv[1])
try:
    r = subprocess.run(sys.argv[2:], capture_output=True, text=True, timeout=limit)
    code, out, err = r.returncode, r.stdout, r.stderr
except subprocess.TimeoutExpired as e:  # (the child is killed; its peak still counts)
    code, out, err = -9, (e.stdout or b"").decode(), f"still running after {limit:g} s"
dt = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(code, f"{dt:.2f}", peak // 1024, len(out.split()), err.strip()[-120:], sep="\t")
"""


PG_ADMIN: list[str] = []
"""``--pg-admin URL``: a PostgreSQL server's superuser URL; each import then goes into a
database of its own there (one database for all would hold the file's shoes after the
first run, and every later run would add none)."""


def _fresh_database() -> dict[str, str]:
    """``ROADS_APP_DB`` naming a new, empty database on the ``--pg-admin`` server, or
    nothing (SQLite: each run has its own data folder)."""
    if not PG_ADMIN:
        return {}
    from urllib.parse import urlsplit, urlunsplit

    import psycopg

    name = f"bench_import_{os.getpid()}_{time.monotonic_ns()}"
    with psycopg.connect(PG_ADMIN[0], autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")  # type: ignore[arg-type]
    return {"ROADS_APP_DB": urlunsplit(urlsplit(PG_ADMIN[0])._replace(path=f"/{name}"))}


def _run(code: Path, *argv: str, timeout: float = 3600.0) -> tuple[int, float, int, int, str]:
    """A ``roads-app`` command run from the code in ``code`` (new or old): exit status,
    seconds, peak RSS (MB), words on stdout, the end of stderr; stopped after ``timeout``.
    An ``import`` goes into a new database when ``--pg-admin`` names a server."""
    env = {**os.environ, "PYTHONPATH": str(code)}
    if argv and argv[0] == "import":
        env.update(_fresh_database())
    out = subprocess.run(
        [sys.executable, "-c", RUN, str(timeout), sys.executable, "-m", "roads_app", *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=code,
    )
    rc, dt, peak, words, err = (out.stdout.rstrip("\n").split("\t") + [""] * 5)[:5]
    return int(rc or -1), float(dt or 0), int(peak or 0), int(words or 0), err


def tiny_shoes(n: int, old: Path | None, timeout: float) -> None:
    """`import` and `show` of a Parquet of ``n`` one-round shoes: new and old code
    interleaved, wall time and peak RSS of each."""
    import tempfile

    import polars as pl

    with tempfile.TemporaryDirectory() as tmp:
        f = Path(tmp) / "tiny.parquet"
        pl.DataFrame(
            {"shoe": pl.arange(1, n + 1, eager=True), "winner": ["B", "P"] * (n // 2)}
        ).write_parquet(f)
        size = f.stat().st_size / 2**20
        runs = [("new", ROOT), ("old", old)] * 2
        for i, (who, code) in enumerate(runs):
            if code is None:
                continue
            for what in (["import", str(f), "--data", str(Path(tmp) / f"d{i}")], ["show", str(f)]):
                rc, dt, peak, _w, err = _run(code, *what, timeout=timeout)
                said = f"{n / dt:9,.0f} shoes/s" if rc == 0 else f"exit {rc}: {err[-60:]}"
                print(
                    f"{what[0]:<6} {who} code, {n:,} one-round shoes ({size:.1f} MB Parquet): "
                    f"{dt:7.2f} s, peak RSS {peak:5d} MB; {said}"
                )


def multi_shoe(
    shoes: int | None, old: Path | None, timeout: float = 3600.0, formats: list[str] | None = None
) -> None:
    """`import` of a file of many shoes as a subprocess (wall time, peak RSS), the new code
    beside ``old`` (another checkout, at most its 1,000-shoe cap) on the same files,
    interleaved; then `good-roads FILE`, `odds --shoe --shoe-index` and `show` of it."""
    import tempfile

    n = shoes or 30_000
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        for fmt in formats or ["parquet", "csv"]:
            small, big = t / f"s1000.{fmt}", t / f"s{n}.{fmt}"
            for f, k in ((small, 1_000), (big, n)):
                _run(
                    ROOT,
                    "simulate",
                    "--shoes",
                    str(k),
                    "--seed",
                    "11",
                    "--out",
                    str(f),
                    "--no-progress",
                )
            runs = [("new", ROOT, small), ("old", old, small)] * 2 + [
                ("new", ROOT, big),
                ("old", old, big),
            ]
            for i, (who, code, f) in enumerate(runs):
                if code is None:
                    continue
                data = str(t / f"d{fmt}{i}")
                rc, dt, peak, ids, err = _run(
                    code, "import", str(f), "--data", data, timeout=timeout
                )
                k = 1_000 if f == small else n
                said = f"{k / dt:7,.0f} shoes/s" if rc == 0 else f"exit {rc}: {err[-70:]}"
                size = f.stat().st_size / 2**20
                print(
                    f"import {who} code, {k:>6,} shoes {fmt:<7} ({size:5.1f} MB): {dt:6.2f} s, "
                    f"peak RSS {peak:4d} MB, {ids:,} ids; {said}"
                )
            for what in (
                ["good-roads", str(big)],
                ["odds", "--shoe", str(big), "--shoe-index", str(n)],
                ["show", str(big)],
            ):
                rc, dt, peak, _w, err = _run(ROOT, *what, timeout=timeout)
                print(
                    f"{what[0]:<10} of {n:,} shoes {fmt:<7}: exit {rc}, {dt:6.2f} s, "
                    f"peak RSS {peak:4d} MB"
                )


if __name__ == "__main__":
    main()
