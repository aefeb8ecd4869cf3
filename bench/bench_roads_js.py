"""The five roads against the JavaScript road library baccarat-engine 1.1.5 (npm).

Run: ``.venv/bin/python bench/bench_roads_js.py [--shoes 10000] [--repeat 5] [--against DIR]``
(needs ``node`` and ``npm``; the library is installed into a temporary folder).
``--against DIR``: also time `all_roads` of another checkout (say, main's) in a child
process, in the same alternation, to compare old and new code in one run.

Both compute the bead plate, big road, big eye boy, small road and cockroach pig of the
same synthetic shoes (`bench_roads.synthetic_shoes`: 78-84 results a shoe). The library
takes one shoe a call (``roadmapGenerator.beadPlate/bigRoad/bigEyeRoad/smallRoad/
cockroachPig``), so its time is the loop over the shoes inside one node process; ours is
one `all_roads` call over all of them. Runs alternate (node, ours, node, ...) so a change
in the machine's load falls on both; the ratio is of the medians. The load is printed,
and on a loaded machine the CPU seconds each side used (node's whole process against our
process's, every thread counted) say more than the wall clock.
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
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_roads import synthetic_shoes

from roads_app.roads import grids

JS = """
const fs = require('fs');
const RoadmapGenerator = require('baccarat-engine/src/roadmaps/roadmapGenerator');
const gen = new RoadmapGenerator();
const shoes = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const name = {B: 'banker', P: 'player', T: 'tie'};
const games = shoes.map(s => Array.from(s, w => ({outcome: name[w], natural: 'none',
                                                  pair: 'none'})));
let marks = 0;
const t = process.hrtime.bigint();
for (const g of games) {
  const bead = gen.beadPlate(g, {columns: 20, rows: 6});
  const big = gen.bigRoad(g, {columns: 200, rows: 6, scroll: false});
  marks += bead.length + big.length + gen.bigEyeRoad(big).length
    + gen.smallRoad(big).length + gen.cockroachPig(big).length;
}
console.log(Number(process.hrtime.bigint() - t) / 1e9, marks);
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shoes", type=int, default=10_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--against", type=Path, help="another checkout whose all_roads to time")
    args, _ = ap.parse_known_args()
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
        grids.all_roads(many)  # Numba cache load, outside the timing
        js, ours, other, js_cpu, ours_cpu = [], [], [], [], []
        for _ in range(args.repeat):
            if args.against:
                other.append(against(args.against, args.shoes))
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
            t, cpu = time.perf_counter(), time.process_time()
            grids.all_roads(many)
            ours.append(time.perf_counter() - t)
            ours_cpu.append(time.process_time() - cpu)
    print(f"load (1, 5, 15 min): {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(
        f"baccarat-engine 1.1.5, {args.shoes} shoes one by one: median "
        f"{statistics.median(js):.3f} s, best {min(js):.3f} s"
    )
    print(
        f"all_roads, {args.shoes} shoes ({many.height} rounds) in one call: median "
        f"{statistics.median(ours):.3f} s, best {min(ours):.3f} s"
    )
    if other:
        print(
            f"all_roads of {args.against}, same shoes: median "
            f"{statistics.median(other):.3f} s, best {min(other):.3f} s; ratio "
            f"{statistics.median(js) / statistics.median(other):.1f}x"
        )
    print(
        f"CPU seconds, medians: node's whole process {statistics.median(js_cpu):.3f} s "
        f"(start-up and reading the shoes included), all_roads "
        f"{statistics.median(ours_cpu):.3f} s"
    )
    print(
        f"ratio (theirs / ours, medians): {statistics.median(js) / statistics.median(ours):.1f}x"
        f" (target >= 50x)"
    )


CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[1] + "/bench")
from bench_roads import synthetic_shoes
from roads_app.roads import grids
many = synthetic_shoes(int(sys.argv[2]))
grids.all_roads(many)
t = time.perf_counter()
grids.all_roads(many)
print(time.perf_counter() - t, grids.__file__)
"""


def child_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def against(checkout: Path, shoes: int) -> float:
    """One timed `all_roads` (after a warm-up call) of ``checkout``'s code, in a child."""
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(checkout.resolve()), str(shoes)],
        check=True,
        capture_output=True,
        text=True,
        cwd="/",
    )
    seconds, where = out.stdout.split()
    assert where.startswith(str(checkout.resolve())), where
    return float(seconds)


def pl_winners():
    import polars as pl

    return pl.col("winner").cast(pl.String).str.join("").alias("w")


if __name__ == "__main__":
    main()
