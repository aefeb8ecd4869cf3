"""An import killed half-way (``kill -9``) and run again: every shoe of the file exactly
once, each whole (issue 50). A real ``roads-app import`` process on each database, its
batches made a shoe each (``ROADS_APP_IMPORT_BATCH``) so that it is killed between
commits or inside one, after its first batch went in."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import polars as pl

from roads_app.store import db

SHOES = 300
ROUNDS = 3  # a shoe of three rounds, so a half-written one would show


def _file(path: Path) -> pl.DataFrame:
    """A file of `SHOES` shoes, every shoe's rounds different from its neighbours'."""
    k = pl.int_range(1, SHOES + 1, eager=True).repeat_by(ROUNDS).explode()
    i = pl.int_range(0, SHOES * ROUNDS, eager=True)
    frame = pl.DataFrame({"shoe": k, "winner": pl.Series(["B", "P", "T"]).gather(i * 7 % 11 % 3)})
    frame.write_parquet(path)
    return frame


def _import(f: Path, data: Path, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "roads_app", "import", str(f), "--data", str(data), "--no-progress"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **env},
    )


def _library(data: Path) -> pl.DataFrame:
    """Each shoe's name and winners, as the library holds them."""
    db.forget_stores()
    store = db.open_store(data)
    names = store.shoes.list().select("id", "name")
    return names.with_columns(
        winners=pl.Series(
            ["".join(store.shoes.load(i).rounds["winner"].cast(pl.String)) for i in names["id"]]
        )
    )


def test_an_import_killed_half_way_and_run_again_has_every_shoe_once(
    backend: str, tmp_path: Path
) -> None:
    f = tmp_path / "many.parquet"
    frame = _file(f)
    data = tmp_path / "data"
    killed = _import(f, data, ROADS_APP_IMPORT_BATCH=str(ROUNDS))
    assert killed.stdout is not None
    first = killed.stdout.readline()  # printed once the first batch is committed
    killed.send_signal(signal.SIGKILL)
    killed.communicate(timeout=60)
    assert first.strip(), "the import printed no id before it was killed"
    want = {
        f"many shoe {k}": "".join(part["winner"])
        for (k,), part in frame.partition_by("shoe", as_dict=True, maintain_order=True).items()
    }
    half = _library(data)
    assert 1 <= half.height < SHOES  # killed half-way: some shoes in, not all
    assert all(want[n] == w for n, w in half.select("name", "winners").iter_rows())  # each whole

    again = _import(f, data)
    out, err = again.communicate(timeout=120)
    assert again.returncode == 0, err
    assert len(out.split()) == SHOES - half.height
    assert f"({half.height:,} already in the library)" in err
    whole = _library(data)
    assert sorted(whole["name"]) == sorted(want)  # every shoe, each once
    assert all(want[n] == w for n, w in whole.select("name", "winners").iter_rows())
