"""The five roads against the JavaScript road library baccarat-engine 1.1.5 (npm).

Run: ``.venv/bin/python bench/bench_roads_js.py [--shoes 10000] [--repeat 5] [--against DIR]``
(needs ``node`` and ``npm``; the library is installed into a temporary folder).
``--against DIR``: also time `all_roads` of another checkout (say, main's), in the same
alternation and the same way, to compare old and new code in one run.

Both compute the bead plate, big road, big eye boy, small road and cockroach pig of the
same synthetic shoes (`bench_roads.synthetic_shoes`: 78-84 results a shoe, written once
to a file every side reads). The library takes one shoe a call (``roadmapGenerator.
beadPlate/bigRoad/bigEyeRoad/smallRoad/cockroachPig``), so its time is the loop over the
shoes inside one node process (its first pass: a second pass in the same process was no
faster when tried, V8's compile is a small part of 3 s). Ours is one `all_roads` call
over all of them, timed in a fresh child process per run, for each checkout alike:

* ``first``: the first call in the process (the Numba kernel's machine code loaded from
  its on-disk cache, then the work); what a command pays once;
* ``warm``: the next calls, back to back (median of ``--calls``); the ratio's figure;
* ``after idle``: one more call after three seconds of sleep (the allocator has given
  memory back, caches are cold): what a dashboard redraw after a pause pays;
* ``compile``: once at the end, the first call with an empty Numba cache.

Runs alternate (node, ours, [theirs], node, ...) so a change in the machine's load falls
on every side; figures are medians over the runs. The load is printed before and after,
and on a loaded machine the CPU seconds each side used say more than the wall clock:
node's loop (``process.cpuUsage``) against our call (every thread counted); the ratio
of those is printed too.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_roads import synthetic_shoes  # noqa: E402

JS = """
const fs = require('fs');
const RoadmapGenerator = require('baccarat-engine/src/roadmaps/roadmapGenerator');
const gen = new RoadmapGenerator();
const shoes = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const name = {B: 'banker', P: 'player', T: 'tie'};
const games = shoes.map(s => Array.from(s, w => ({outcome: name[w], natural: 'none',
                                                  pair: 'none'})));
let marks = 0;
const cpu = process.cpuUsage();
const t = process.hrtime.bigint();
for (const g of games) {
  const bead = gen.beadPlate(g, {columns: 20, rows: 6});
  const big = gen.bigRoad(g, {columns: 200, rows: 6, scroll: false});
  marks += bead.length + big.length + gen.bigEyeRoad(big).length
    + gen.smallRoad(big).length + gen.cockroachPig(big).length;
}
const wall = Number(process.hrtime.bigint() - t) / 1e9;
const used = process.cpuUsage(cpu);
console.log(wall, (used.user + used.system) / 1e6, marks);
"""

CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
import polars as pl
from roads_app.roads import grids
many = pl.read_ipc(sys.argv[2]).rechunk()
calls, idle = int(sys.argv[3]), float(sys.argv[4])

def timed():
    t, cpu = time.perf_counter(), time.process_time()
    grids.all_roads(many)
    return time.perf_counter() - t, time.process_time() - cpu

out = {"file": grids.__file__, "first": timed(), "warm": [timed() for _ in range(calls)]}
if idle:
    time.sleep(idle)
    out["idle"] = timed()
print(json.dumps(out))
"""


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ours(checkout: Path, shoes: Path, calls: int, idle: float, env: dict | None = None) -> dict:
    """One child process timing ``checkout``'s `all_roads` (see the module's docstring)."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(checkout), str(shoes), str(calls), str(idle)],
        capture_output=True,
        text=True,
        cwd="/",
        env=env,
    )
    if out.returncode:
        raise SystemExit(f"the child timing {checkout} failed:\n{out.stderr[-2000:]}")
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["file"].startswith(str(checkout)), got["file"]
    return got


def compile_s(checkout: Path, shoes: Path) -> float:
    """First call with an empty Numba cache (a fresh cache folder): the real compile."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        return ours(checkout, shoes, 0, 0, env)["first"][0]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--calls", type=int, default=5, help="warm calls per child")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds before the idle call")
    ap.add_argument("--against", type=Path, help="another checkout whose all_roads to time")
    args, _ = ap.parse_known_args()  # bench/run.py passes every script the same arguments
    sides = {"ours": HERE.parent}
    if args.against:
        sides[f"{args.against}"] = args.against.resolve()
    print(f"load before (1, 5, 15 min): {load()}")
    many = synthetic_shoes(args.shoes)
    texts = many.group_by("shoe", maintain_order=True).agg(pl_winners()).get_column("w").to_list()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", "baccarat-engine@1.1.5"],
            cwd=folder,
            check=True,
        )
        (folder / "shoes.json").write_text(json.dumps(texts))
        (folder / "roads.js").write_text(JS)
        shoes = folder / "shoes.arrow"
        many.write_ipc(shoes)
        for path in sides.values():
            ours(path, shoes, 0, 0)  # fill each checkout's Numba cache, outside the timing
        js, js_cpu, js_loop_cpu = [], [], []
        runs: dict[str, list[dict]] = {name: [] for name in sides}
        for _ in range(args.repeat):
            cpu = child_cpu()
            out = subprocess.run(
                ["node", "roads.js", "shoes.json"],
                cwd=folder,
                check=True,
                capture_output=True,
                text=True,
            ).stdout.split()
            js_cpu.append(child_cpu() - cpu)
            js.append(float(out[0]))
            js_loop_cpu.append(float(out[1]))
            for name, path in sides.items():
                runs[name].append(ours(path, shoes, args.calls, args.idle))
        compiled = {name: compile_s(path, shoes) for name, path in sides.items()}
    print(f"load after (1, 5, 15 min): {load()}")
    theirs, theirs_cpu = statistics.median(js), statistics.median(js_loop_cpu)
    print(
        f"baccarat-engine 1.1.5, {args.shoes} shoes one by one: median {theirs:.3f} s "
        f"(CPU {theirs_cpu:.3f} s), best {min(js):.3f} s; CPU of node's whole process "
        f"(start-up and reading the shoes included): median {statistics.median(js_cpu):.3f} s"
    )
    print(f"all_roads, {args.shoes} shoes ({many.height} rounds) in one call:")
    for name, got in runs.items():
        warm = [w for r in got for w in r["warm"]]
        figures = {
            "warm": (statistics.median(w for w, _ in warm), statistics.median(c for _, c in warm)),
            "first": tuple(statistics.median(r["first"][i] for r in got) for i in (0, 1)),
            "after idle": tuple(statistics.median(r["idle"][i] for r in got) for i in (0, 1)),
        }
        print(f"  {name}:")
        for what, (wall, cpu) in figures.items():
            print(
                f"    {what:>10}: median {wall:.3f} s (CPU {cpu:.3f} s), "
                f"ratio {theirs / wall:.1f}x (of CPU seconds {theirs_cpu / cpu:.1f}x)"
            )
        print(f"    {'compile':>10}: {compiled[name]:.2f} s (first call, empty Numba cache)")
    print("target: warm ratio >= 50x (wall clock, on a quiet machine)")


def pl_winners():
    import polars as pl

    return pl.col("winner").cast(pl.String).str.join("").alias("w")


if __name__ == "__main__":
    main()
