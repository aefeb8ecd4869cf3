"""The command line: real subprocesses, one-line errors, no tracebacks."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from roads_app.game.rounds import MULTI_SHOE_SCHEMA


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roads_app", *args], capture_output=True, text=True, cwd=cwd
    )


def test_simulate_then_show(tmp_path: Path) -> None:
    out = tmp_path / "sim.parquet"
    r = run("simulate", "--shoes", "3", "--seed", "5", "--out", str(out))
    assert r.returncode == 0, r.stderr
    frame = pl.read_parquet(out)
    assert frame.schema == MULTI_SHOE_SCHEMA and frame["shoe"].unique().sort().to_list() == [
        1,
        2,
        3,
    ]
    shown = run("show", str(out))
    assert shown.returncode == 0 and "3 shoe(s)" in shown.stdout


@pytest.mark.parametrize(
    "args, msg",
    [
        (["simulate", "--shoes", "0", "--seed", "1", "--out", "x.parquet"], "use 1 to"),
        (["simulate", "--shoes", "2", "--seed", "-3", "--out", "x.parquet"], "seed"),
        (
            ["simulate", "--shoes", "2", "--seed", "1", "--decks", "9", "--out", "x.parquet"],
            "1 to 8",
        ),
        (["simulate", "--shoes", "2", "--seed", "1", "--out", "x.txt"], "must end in"),
        (["simulate", "--shoes", "two", "--seed", "1", "--out", "x.parquet"], "not a whole number"),
        (["show", "does-not-exist.parquet"], "no such file"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_arguments_are_one_line_errors(tmp_path: Path, args: list[str], msg: str) -> None:
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2
    assert msg in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert not list(tmp_path.iterdir())


def test_show_a_corrupt_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"PAR1garbage")
    r = run("show", str(bad))
    assert r.returncode == 2 and "bad.parquet: not a readable Parquet" in r.stderr
    assert "Traceback" not in r.stderr
