"""Every file one command writes, every command that reads files takes.

Writers: ``simulate`` (one shoe or several; Parquet, CSV, JSON) and ``export`` (the three
data formats, of a dealt shoe and of a shoe entered by outcome only). Readers: ``show``,
``import`` (all shoes or ``--shoe K``), ``odds --shoe FILE`` (``--shoe-index K``), and on
what ``import`` saved: ``export``, ``odds --shoe ID`` and ``backtest --saved``.

The truth each reader is held to does not come through the files: a simulated shoe must
equal `deal_shoe` for its seed and number, an exported one the shoe it was exported from,
and the odds read from a file the odds of the same shoe saved in the library.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from roads_app.cli import main
from roads_app.game.rounds import ROUNDS_SCHEMA, ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.shoefiles import files as shoe_files

SEED = 21
FORMATS = ("parquet", "csv", "json")


def run(capsys, *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, f"roads-app {' '.join(argv)} -> {code}: {err}"
    return out


def dealt(k: int) -> pl.DataFrame:
    """Shoe k (1-based) of the simulation with seed `SEED`, dealt directly."""
    return deal_shoe(SEED, ShoeOptions(), k - 1).rounds


def write(kind: str, fmt: str, folder: Path, capsys) -> tuple[Path, list[pl.DataFrame]]:
    """Have a command write a file; returns it and the shoes it must hold, in order."""
    if kind.startswith("simulate"):
        n = int(kind.removeprefix("simulate-"))
        out = folder / f"sim.{fmt}"
        run(capsys, "simulate", "--shoes", str(n), "--seed", str(SEED), "--out", str(out))
        return out, [dealt(k) for k in range(1, n + 1)]
    src = folder / "src"
    if kind == "export-dealt":
        rounds = dealt(2)
        meta = ShoeMeta(name="A dealt shoe", source="simulated", seed=SEED)
    else:
        rounds = rounds_from_winners("BBPTPBBPPPBTB" * 4)
        meta = ShoeMeta(name="Entered by outcome", source="hand")
    given = folder / "given.json"  # a shoe put in the library first, to be exported
    given.write_bytes(shoe_files.export_bytes(rounds, meta, "json"))
    (shoe_id,) = run(capsys, "import", str(given), "--data", str(src)).split()
    out = folder / f"exported.{fmt}"
    assert run(capsys, "export", shoe_id, "--format", fmt, "--data", str(src), "--out", str(out))
    return out, [rounds]


def saved(capsys, shoe_id: str, data: Path, folder: Path) -> pl.DataFrame:
    """A shoe as the library holds it, seen through `export` (whatever the store is)."""
    out = folder / f"check-{shoe_id}.parquet"
    run(capsys, "export", shoe_id, "--format", "parquet", "--data", str(data), "--out", str(out))
    return pl.read_parquet(out).select(ROUNDS_SCHEMA.names()).cast(dict(ROUNDS_SCHEMA))


def odds_json(capsys, *argv: str) -> list[dict]:
    return json.loads(run(capsys, "odds", *argv, "--after", "10", "--json"))


WRITERS = ("simulate-1", "simulate-3", "export-dealt", "export-outcomes")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kind", WRITERS)
def test_every_reader_takes_what_a_writer_wrote(
    kind: str, fmt: str, tmp_path: Path, capsys
) -> None:
    path, shoes = write(kind, fmt, tmp_path, capsys)
    n = len(shoes)

    # show: the whole file, every shoe counted
    rounds = sum(s.height for s in shoes)
    assert run(capsys, "show", str(path)).startswith(f"{n} shoe(s), {rounds} rounds")

    # import: one id per shoe, each shoe saved as it was dealt / exported
    data = tmp_path / "data"
    ids = run(capsys, "import", str(path), "--data", str(data)).split()
    assert len(ids) == n
    for shoe_id, want in zip(ids, shoes, strict=True):
        assert saved(capsys, shoe_id, data, tmp_path).equals(want), shoe_id

    # import --shoe K: only that shoe
    one = tmp_path / "one"
    (picked,) = run(capsys, "import", str(path), "--shoe", str(n), "--data", str(one)).split()
    assert saved(capsys, picked, one, tmp_path).equals(shoes[-1])

    # odds --shoe FILE [--shoe-index K]: the same odds as the shoe saved in the library
    if kind == "export-outcomes":  # no cards, no live odds: refused alike both ways
        assert main(["odds", "--shoe", str(path), "--after", "10"]) == 2
        by_file = capsys.readouterr().err
        assert main(["odds", "--shoe", ids[0], "--data", str(data), "--after", "10"]) == 2
        assert capsys.readouterr().err == by_file != ""
    for k, shoe_id in enumerate(ids if kind != "export-outcomes" else [], start=1):
        from_library = odds_json(capsys, "--shoe", shoe_id, "--data", str(data))
        pick = ["--shoe-index", str(k)] if n > 1 else []
        assert odds_json(capsys, "--shoe", str(path), *pick) == from_library
    if n == 1 and kind != "export-outcomes":
        assert odds_json(capsys, "--shoe", str(path), "--shoe-index", "1") == from_library

    # export of what import saved, read back by import: the same rounds again
    for out_fmt in FORMATS:
        again = tmp_path / f"again.{out_fmt}"
        run(
            capsys, "export", ids[-1], "--format", out_fmt, "--data", str(data), "--out", str(again)
        )
        (back,) = run(capsys, "import", str(again), "--data", str(tmp_path / "back")).split()
        assert saved(capsys, back, tmp_path / "back", tmp_path).equals(shoes[-1])

    # backtest --saved: every imported shoe, every round bet once
    result = json.loads(
        run(
            capsys,
            "backtest",
            "--saved",
            "--data",
            str(data),
            "--strategy",
            "flat",
            "--bet",
            "banker",
            "--engine",
            "plain",
            "--no-progress",
            "--json",
        )
    )
    assert (result["shoes"], result["hands"]) == (n, rounds)


@pytest.mark.parametrize("fmt", FORMATS)
def test_picking_a_shoe_the_file_does_not_hold_says_which_it_holds(
    fmt: str, tmp_path: Path, capsys
) -> None:
    path, _ = write("simulate-3", fmt, tmp_path, capsys)
    assert main(["import", str(path), "--shoe", "4", "--data", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == f"error: sim.{fmt}: --shoe 4: the file holds shoes 1 to 3\n"
    assert main(["import", str(path), "--shoe", "3", "--data", str(tmp_path / "d")]) == 0
    capsys.readouterr()
    assert main(["odds", "--shoe", str(path)]) == 2
    assert capsys.readouterr().err == (
        f"error: sim.{fmt}: holds 3 shoes; pick one with --shoe-index K (1 to 3)\n"
    )
    assert main(["odds", "--shoe", str(path), "--shoe-index", "0"]) == 2
    assert "the file holds shoes 1 to 3" in capsys.readouterr().err


def test_one_bad_shoe_in_a_file_imports_nothing(tmp_path: Path, capsys) -> None:
    path, _ = write("simulate-3", "csv", tmp_path, capsys)
    lines = path.read_text().splitlines()
    bad = next(i for i, line in enumerate(lines) if line.startswith("3,5,"))
    lines[bad] = lines[bad].replace(",B,", ",X,").replace(",P,", ",X,").replace(",T,", ",X,")
    path.write_text("\n".join(lines) + "\n")
    data = tmp_path / "data"
    assert main(["import", str(path), "--data", str(data)]) == 2
    err = capsys.readouterr().err
    # the refusal names the file, the shoe and the row
    assert err.startswith("error: sim.csv, shoe 3: row 5: winner 'X' is not B")
    assert main(["import", str(path), "--shoe", "2", "--data", str(data)]) == 0  # a good one
    (only,) = capsys.readouterr().out.split()
    result = json.loads(
        run(
            capsys,
            "backtest",
            "--saved",
            "--data",
            str(data),
            "--strategy",
            "flat",
            "--bet",
            "banker",
            "--engine",
            "plain",
            "--no-progress",
            "--json",
        )
    )
    assert result["shoes"] == 1  # nothing was added by the refused import
    assert saved(capsys, only, data, tmp_path).equals(dealt(2))


def test_a_shoe_number_that_is_not_one_is_refused(tmp_path: Path, capsys) -> None:
    path, _ = write("simulate-1", "csv", tmp_path, capsys)
    lines = path.read_text().splitlines()
    lines[3] = "x" + lines[3][1:]
    path.write_text("\n".join(lines) + "\n")
    assert main(["import", str(path), "--data", str(tmp_path / "d")]) == 2
    assert capsys.readouterr().err == (
        "error: sim.csv: row 3: shoe 'x' is not a shoe number (1, 2, ...)\n"
    )
