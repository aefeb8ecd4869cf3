"""The command line: real subprocesses, one-line errors, no tracebacks."""

from __future__ import annotations

import json
import os
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


def _loaded(code: str, *modules: str) -> list[str]:
    """Which of ``modules`` a fresh interpreter holds after running ``code``."""
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import sys\n{code}\nprint('loaded:', *[m for m in {modules!r} if m in sys.modules])",
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()[-1].split()[1:]


def test_the_parser_imports_no_engine_and_backtest_help_still_names_the_strategies() -> None:
    from roads_app.sim.strategies import ROADS, STAKINGS, STRATEGY_NAMES

    heavy = ("numba", "polars", "pydantic", "pyarrow", "roads_app.sim.strategies")
    assert _loaded("from roads_app.cli import build_parser; build_parser()", *heavy) == []
    r = run("backtest", "--help")
    assert r.returncode == 0, r.stderr
    text = " ".join(r.stdout.split())
    assert not any(f"{{{field}}}" in text for field in ("strategies", "roads", "stakings"))
    for names in (STRATEGY_NAMES, tuple(ROADS), tuple(STAKINGS)):
        assert ", ".join(names) in text


def test_simulate_in_a_fresh_process_is_deal_shoes_without_numbas_registries(
    tmp_path: Path,
) -> None:
    """A cold `simulate` loads its two cached kernels the lean way (no typing or lowering
    registries, no array module) and its Parquet file is still `deal_shoes`' rounds."""
    from polars.testing import assert_frame_equal

    from roads_app.game.shoe import deal_shoes

    warm = run("simulate", "--shoes", "2", "--seed", "1", "--out", str(tmp_path / "w.parquet"))
    assert warm.returncode == 0, warm.stderr  # compiles the kernels if the cache is cold
    out = tmp_path / "sims.parquet"
    loaded = _loaded(
        "from roads_app.cli import main\n"
        f"assert main(['simulate', '--shoes', '300', '--seed', '41', '--out', {str(out)!r}]) == 0",
        "numba.np.arraymath",
        "numba.np.arrayobj",
        "numba.cpython.unicode",
        "tqdm",
    )
    assert loaded == []
    assert_frame_equal(pl.read_parquet(out), deal_shoes(41, 300))


def test_a_one_deck_simulated_file_is_priced_and_imported_as_one_deck(tmp_path: Path) -> None:
    """The file keeps its decks: a shoe of it before any hand is the published one-deck shoe
    off the top, not an eight-deck one (what the file said before it kept them)."""
    out = tmp_path / "one.parquet"
    made = run("simulate", "--shoes", "3", "--seed", "9", "--decks", "1", "--out", str(out))
    assert made.returncode == 0, made.stderr
    shoe = run("odds", "--shoe", str(out), "--shoe-index", "2", "--after", "0", "--json")
    assert shoe.returncode == 0, shoe.stderr

    def priced(r: subprocess.CompletedProcess[str]) -> list[tuple[object, ...]]:
        return [(o["bet"], o["probability"], o["push"]) for o in json.loads(r.stdout)]

    one_deck = priced(run("odds", "--decks", "1", "--json"))
    assert priced(shoe) == one_deck != priced(run("odds", "--json"))
    data = tmp_path / "data"
    assert run("import", str(out), "--data", str(data)).returncode == 0
    listed = json.loads(run("shoes", "list", "--data", str(data), "--json").stdout)
    assert [s["decks"] for s in listed] == [1, 1, 1]


@pytest.mark.parametrize(
    "args, env, old",
    [
        (["--rules-dir", "{dir}"], {}, None),
        ([], {"ROADS_APP_RULES": "{dir}"}, None),
        (["--tables", "{dir}"], {}, ("--tables", "--rules-dir")),
        ([], {"ROADS_APP_TABLES": "{dir}"}, ("$ROADS_APP_TABLES", "$ROADS_APP_RULES")),
    ],
)
def test_the_rules_folder_and_its_old_spellings(
    tmp_path: Path, args: list[str], env: dict[str, str], old: tuple[str, str] | None
) -> None:
    """A folder of one's own rules is ``--rules-dir``/``$ROADS_APP_RULES`` ("a table" is a
    place on the floor now); the old spellings still work, each with one line saying so."""
    from roads_app.places import RULES_DIR

    folder = tmp_path / "my rules"
    folder.mkdir()
    classic = (RULES_DIR / "classic.toml").read_text()
    (folder / "mine.toml").write_text(classic.replace('name = "classic"', 'name = "mine"'))
    environ = {
        k: v for k, v in os.environ.items() if k not in ("ROADS_APP_RULES", "ROADS_APP_TABLES")
    }
    environ |= {k: v.format(dir=folder) for k, v in env.items()}
    argv = [a.format(dir=folder) for a in ("rules", "mine", *args)]
    r = subprocess.run(
        [sys.executable, "-m", "roads_app", *argv], capture_output=True, text=True, env=environ
    )
    assert r.returncode == 0 and r.stdout.startswith("mine: "), r.stderr
    if old is None:
        assert r.stderr == ""
    else:
        assert len(r.stderr.splitlines()) == 1, r.stderr
        assert "deprecated" in r.stderr and all(w in r.stderr for w in old), r.stderr
