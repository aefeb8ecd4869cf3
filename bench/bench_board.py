"""The board's drawing spec (`board.board_spec`) for the boards a page sends, timed.

Run: .venv/bin/python bench/bench_board.py [--repeat 7] [--calls 200] [--base OTHER_CHECKOUT]

The scoreboard sends five boards on each key press: the board, and the board each of
B, P, T and U would give (`board_view.render_next`, drawn by the page the moment a key
is pressed); a floor's display draws one filled board per result, for each table. So
a board's spec is on the path of every key and every result on the floor. Figures are
CPU milliseconds per call (time.process_time), median of ``--repeat`` rounds of
``--calls`` calls, on a dealt 8-deck shoe of 80 rounds (pairs and naturals in it).

With ``--base``, each round runs this checkout's code and the other's in child
processes, alternating, so a machine shared with other work loads both alike.

Figures (marks picked from Python lists, against 48b6f1f's Polars filters, ``--base``
interleaved, ``--repeat 7 --calls 100``, the 2-core machine at load 1.6-2.3), CPU ms a
call, median (min-max):

    scoreboard board (80 rounds, 1440 px)  this  2.22 (2.17-2.35)    base  8.96 (8.84-9.57)
    a key press's five boards              this 11.68 (11.50-12.04)  base 46.73 (45.73-48.98)
    display board (1920 x 1080, filled)    this  2.29 (2.25-2.45)    base  9.79 (9.55-10.41)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

CHILD = """
import json, sys, time
sys.path.insert(0, {root!r})
from roads_app.game.rounds import preview_winner
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.render import board
shoe = deal_shoe(2024, ShoeOptions(decks=8), 0).rounds.head(80)
scoreboard = board.BoardLook(width_px=1380)
display = board.BoardLook(width_px=1900, height_px=1000, last_mark_s=4.0)
key_boards = [shoe] + [preview_winner(shoe, k) for k in "BPT"] + [shoe.head(79)]
cases = {{
    "scoreboard board (80 rounds, 1440 px)": lambda: board.board_spec(shoe, scoreboard),
    "a key press's five boards": lambda: [board.board_spec(r, scoreboard) for r in key_boards],
    "display board (1920 x 1080, filled)": lambda: board.board_spec(shoe, display),
}}
out = {{}}
for label, call in cases.items():
    call()
    cpu = time.process_time()
    for _ in range({calls}):
        call()
    out[label] = (time.process_time() - cpu) / {calls} * 1000
print(json.dumps(out))
"""


def run_child(root: Path, calls: int) -> dict[str, float]:
    code = CHILD.format(root=str(root), calls=calls)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--calls", type=int, default=200)
    ap.add_argument("--base", type=Path, default=None, help="another checkout, interleaved")
    args = ap.parse_args()
    sides = {"this": HERE} | ({"base": args.base.resolve()} if args.base else {})
    got: dict[str, dict[str, list[float]]] = {side: {} for side in sides}
    for _ in range(args.repeat):
        for side, root in sides.items():
            for label, ms in run_child(root, args.calls).items():
                got[side].setdefault(label, []).append(ms)
    for label in got["this"]:
        line = f"{label:40s}"
        for side in sides:
            xs = got[side][label]
            line += f"  {side} {statistics.median(xs):6.2f} ms ({min(xs):.2f}-{max(xs):.2f})"
        if args.base:
            ratio = statistics.median(got["base"][label]) / statistics.median(got["this"][label])
            line += f"  base/this {ratio:.2f}x"
        print(line)


if __name__ == "__main__":
    main()
