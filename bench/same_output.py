"""Backtests and studies of this checkout against another one: the same output, to the bit.

Run: ``.venv/bin/python bench/same_output.py --base /path/to/other/checkout``

A change that must change no behaviour (a rule moved, a loop written once, words moved
to another module) is held to it here: every case below runs as the ``roads-app``
command in a child process of each checkout (its own ``.venv`` if it has one, its code
first on the path), and the two outputs are compared, ``--json`` documents as parsed
JSON and text reports line by line. Only what measures the run's time differs by
nature and is left out (``seconds`` and ``hands_per_second``; the text's last line,
"N s, M hands/s"). Saved shoes are the shipped samples imported into a fresh folder
per checkout (one of them entered by winner only, so some bets are not placed), the
folder's name read as the same in both.
Prints one line per case and exits 1 on any difference.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]

TIMING = ("seconds", "hands_per_second")
TIMING_LINE = re.compile(r"^[\d.,]+ s, [\d,]+ hands/s$")

BT = ["backtest", "--no-progress"]
CASES: list[list[str]] = [
    [*BT, "--strategy", "flat", "--bet", "banker", "--shoes", "20000", "--seed", "1"],
    [*BT, "--strategy", "flat", "--bet", "player", "--shoes", "5000", "--seed", "9"],
    [*BT, "--strategy", "martingale", "--bet", "banker", "--shoes", "5000", "--seed", "3"],
    [
        *BT,
        *("--strategy", "paroli", "--bet", "player", "--wins", "2", "--shoes", "3000"),
        *("--stop-loss", "300", "--take-profit", "200", "--seed", "4"),
    ],
    [*BT, "--strategy", "fibonacci", "--bet", "tie", "--shoes", "3000", "--seed", "5"],
    [*BT, "--strategy", "follow-last", "--shoes", "4000", "--seed", "6", "--rules", "winbox"],
    [
        *BT,
        *("--strategy", "against-streak", "--after", "2", "--progression", "dalembert"),
        *("--shoes", "4000", "--seed", "7"),
    ],
    [*BT, "--strategy", "follow-road", "--road", "small_road", "--shoes", "4000", "--seed", "8"],
    [*BT, "--strategy", "follow-good-road", "--pattern", "any", "--shoes", "4000", "--seed", "2"],
    [
        *BT,
        *("--strategy", "flat", "--bet", "ez_banker", "--side", "dragon_7", "--side", "panda_8:2"),
        *("--rules", "ez-baccarat", "--shoes", "3000", "--seed", "11"),
    ],
    [
        *BT,
        *("--strategy", "1-3-2-6", "--bet", "banker", "--engine", "plain", "--shoes", "40"),
        *("--seed", "12", "--side", "player_pair", "--rules", "evolution"),
    ],
    [
        *BT,
        *("--strategy", "flat", "--bet", "banker", "--side", "player_pair", "--saved"),
        *("--rules", "evolution"),
    ],
    [*BT, "--strategy", "martingale", "--bet", "player", "--saved", "--bankroll", "200"],
    ["good-roads", "--study", "--shoes", "300", "--seed", "3", "--no-progress"],
    ["odds-study", "--shoes", "30", "--seed", "5", "--no-progress"],
]
SAMPLES = ("sample-sim-seed-1.parquet", "sample-outcomes-only.parquet")


def python_of(root: Path) -> str:
    venv = root / ".venv" / "bin" / "python"
    return str(venv) if venv.exists() else sys.executable


def run(root: Path, args: list[str], data: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    cmd = [python_of(root), "-m", "roads_app", *args]
    if "--saved" in args or args[0] == "import":
        cmd += ["--data", str(data)]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=data)


def comparable(stdout: str, as_json: bool, data: Path) -> object:
    stdout = stdout.replace(str(data), "DATA")  # each checkout's own folder of saved shoes
    if as_json:
        doc = json.loads(stdout)
        return {k: v for k, v in doc.items() if k not in TIMING} if isinstance(doc, dict) else doc
    return [line for line in stdout.splitlines() if not TIMING_LINE.match(line.strip())]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", type=Path, required=True, help="the other checkout")
    args = ap.parse_args()
    roots = {"base": args.base.resolve(), "this": HERE}
    differ = 0
    with tempfile.TemporaryDirectory() as tmp:
        data = {side: Path(tmp) / side for side in roots}
        for side, root in roots.items():
            data[side].mkdir()
            for name in SAMPLES:
                r = run(root, ["import", str(HERE / "data" / name), "--no-progress"], data[side])
                if r.returncode:
                    sys.exit(f"{side}: import {name} failed:\n{r.stderr}")
        for case in CASES:
            for as_json in (True, False):
                argv = [*case, "--json"] if as_json else case
                got = {}
                for side, root in roots.items():
                    r = run(root, argv, data[side])
                    if r.returncode:
                        sys.exit(f"{side}: {' '.join(argv)} failed:\n{r.stderr}")
                    got[side] = comparable(r.stdout, as_json, data[side])
                same = got["base"] == got["this"]
                differ += not same
                print(f"{'same' if same else 'DIFFERENT'}  {' '.join(argv)}")
                if not same:
                    print(f"  base: {got['base']}\n  this: {got['this']}")
    print(f"{len(CASES) * 2 - differ} of {len(CASES) * 2} outputs the same")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
