"""Hostile files, paths and disks against `show`, `import`, `odds`, `simulate` and `rules`.

Each case is an input from the hardening issue: a file that never ends a line, a file of
200,000 tiny shoes, a folder or a full disk as the output, a path too long, a seed past
SQLite's integers, a name with a line break, a database that is a symlink, a thousand
user tables. Every one must end in one line on stderr, exit status 2 (or a correct
answer where the input is valid), nothing half-written, and memory far from the input's
size. Memory is measured as the peak RSS of the command's own process (a wrapper
process reports ``RUSAGE_CHILDREN``, so no earlier child of pytest counts); the bound is
far from the normal figure, and timeouts are only hang guards.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

from roads_app.cli import main
from roads_app.errors import quote
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db

HANG_GUARD_S = 120  # a safety timeout, not a speed limit
MEMORY_BOUND_MB = 500

MEASURE = """
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], capture_output=True, text=True)
peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stdout.write(f"{r.returncode}\\n{peak_kb}\\n{r.stdout}\\x00{r.stderr}")
"""


def run_measured(*args: str, cwd: Path | None = None) -> tuple[int, int, str, str]:
    """(exit status, peak RSS in MB, stdout, stderr) of ``roads-app ARGS`` as a subprocess."""
    r = subprocess.run(
        [sys.executable, "-c", MEASURE, sys.executable, "-m", "roads_app", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=HANG_GUARD_S,
    )
    code, peak, rest = r.stdout.split("\n", 2)
    out, err = rest.split("\x00", 1)
    return int(code), int(peak) // 1024, out, err


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "roads_app", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=HANG_GUARD_S,
    )


def one_line(err: str) -> str:
    """The single stderr line of a refusal: no traceback, not the bug path."""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert lines[0].startswith("error: ") and "bug in roads-app" not in err, err[:2000]
    assert len(lines[0]) < 400, lines[0][:400]
    return lines[0]


def snapshot(folder: Path) -> list[tuple]:
    """Every shoe, in the library and in the trash, with its version and round count."""
    store = db.open_store(folder)
    return [
        *store.shoes.list().drop("modified").rows(),
        *store.shoes.list(trash=True).drop("modified").rows(),
    ]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    keep = ShoeMeta(id="keep", name="keep")
    db.open_store(folder).shoes.create(keep, rounds_from_winners("BPPT"))
    return folder


# --- 1. show: every read bounded ---------------------------------------------------------


def _sparse(path: Path, head: bytes, size: int) -> Path:
    path.write_bytes(head)
    os.truncate(path, size)  # a hole: no disk used, but every byte reads as NUL
    return path


@pytest.mark.parametrize(
    "head, size",
    [
        (b"shoe,winner", 1536 * 2**20),  # the file: a first line that never ends
        (b"shoe,winner", 99 * 2**20),  # under the size limit: the line-length cap
        (b"winner", 99 * 2**20),
        (b"shoe,winner\n1,B\n2,P\n", 200 * 2**20),  # a 200 MB multi-shoe CSV
        (b"shoe,winner\n1,B\n", 99 * 2**20),  # a 99 MB second line
    ],
    ids=["1.5GB-line", "99MB-header", "99MB-one-column", "200MB", "99MB-row"],
)
def test_show_of_a_huge_or_endless_csv_is_refused_in_bounded_memory(
    tmp_path: Path, head: bytes, size: int
) -> None:
    f = _sparse(tmp_path / "x.csv", head, size)
    code, peak_mb, _out, err = run_measured("show", str(f))
    assert code == 2, err[:500]
    one_line(err)
    assert peak_mb < MEMORY_BOUND_MB, peak_mb


def test_show_of_a_json_of_one_endless_round_is_refused_in_bounded_memory(tmp_path: Path) -> None:
    f = _sparse(tmp_path / "x.json", b'[{"shoe": 1, "winner": "B"}', 99 * 2**20)
    code, peak_mb, _out, err = run_measured("show", str(f))
    # streamed a round at a time: the round that never ends is refused, not the file's size
    assert code == 2 and "round 2 is longer than 4,096 bytes" in one_line(err)
    assert peak_mb < MEMORY_BOUND_MB, peak_mb


# --- 6. Parquet: the footer is read before anything is decoded, on every path ------------


@pytest.mark.parametrize("multi", [False, True], ids=["one-shoe", "with-shoe-column"])
def test_a_tiny_parquet_of_twenty_million_rows_is_refused_from_its_footer(
    tmp_path: Path, multi: bool
) -> None:
    n = 20_000_000
    cols = {"winner": pl.repeat("B", n, eager=True)}
    if multi:
        cols = {"shoe": pl.repeat(1, n, eager=True, dtype=pl.Int32), **cols}
    f = tmp_path / "rows.parquet"
    pl.DataFrame(cols).write_parquet(f)
    assert f.stat().st_size < 2**20
    for args in (
        ("show", str(f)),
        ("odds", "--shoe", str(f)),
        ("import", str(f), "--data", str(tmp_path / "d")),
    ):
        code, peak_mb, _out, err = run_measured(*args)
        assert code == 2, (args, err[:500])
        said = one_line(err)  # (a shoe is never held past its 104 rounds)
        assert "rows" in said or "limit" in said or "cannot come from one shoe" in said
        assert peak_mb < MEMORY_BOUND_MB, (args, peak_mb)


# --- 2. many shoes in one file: a stated cap, refused at once; the split done once -------


def _tiny_shoes(path: Path, n: int) -> Path:
    frame = pl.DataFrame({"shoe": pl.arange(1, n + 1, eager=True), "winner": ["B", "P"] * (n // 2)})
    if path.suffix == ".parquet":
        frame.write_parquet(path)
    else:
        frame.write_csv(path)
    return path


@pytest.mark.parametrize("ext", ["parquet", "csv"])
def test_a_file_of_200000_one_round_shoes_is_read_a_shoe_at_a_time(
    tmp_path: Path, data: Path, ext: str
) -> None:
    """No cap on shoes a file (issue 37 item 4): odds without --shoe-index says how many
    it holds, --shoe K of any of them is read and imported alone."""
    f = _tiny_shoes(tmp_path / f"many.{ext}", 200_000)
    odds = run("odds", "--shoe", str(f), "--data", str(data))
    assert odds.returncode == 2 and "--shoe-index K (1 to 200000)" in one_line(odds.stderr)
    one = run("import", str(f), "--shoe", "150000", "--data", str(data))  # one shoe of it
    assert one.returncode == 0, one.stderr
    db.forget_stores()
    added = db.open_store(data).shoes.list().filter(pl.col("name") == "many shoe 150000")
    assert added["rounds"].to_list() == [1]


@pytest.mark.parametrize("ext", ["parquet", "csv"])
def test_import_takes_a_file_over_the_old_cap_whole(tmp_path: Path, data: Path, ext: str) -> None:
    """2,500 shoes (the cap was 1,000): every shoe in, in file order, ids on stdout."""
    n = 2_500
    whole = _tiny_shoes(tmp_path / f"whole.{ext}", n)
    r = run("import", str(whole), "--data", str(data))
    assert r.returncode == 0, r.stderr
    ids = r.stdout.split()
    assert len(ids) == n and r.stderr.strip().endswith(f"imported {n:,} shoes from whole.{ext}")
    db.forget_stores()
    listed = db.open_store(data).shoes.list()
    assert listed.height == n + 1
    names = dict(zip(listed["id"], listed["name"], strict=True))
    assert [names[i] for i in ids] == [f"whole shoe {k}" for k in range(1, n + 1)]


def test_odds_shoe_index_reads_only_the_shoe_it_picks(tmp_path: Path, data: Path, capsys) -> None:
    f = tmp_path / "sim.parquet"
    assert main(["simulate", "--shoes", "3", "--seed", "4", "--out", str(f), "--no-progress"]) == 0
    frame = pl.read_parquet(f)
    # shoe 3 damaged (a winner against its cards): picking shoe 2 never reads it
    bad = frame.with_columns(
        winner=pl.when(pl.col("shoe") == 3).then(pl.lit("T")).otherwise(pl.col("winner"))
    )
    bad.write_parquet(f)
    capsys.readouterr()
    assert main(["odds", "--shoe", str(f), "--shoe-index", "2", "--data", str(data)]) == 0
    assert main(["odds", "--shoe", str(f), "--shoe-index", "3", "--data", str(data)]) == 2
    assert "shoe 3" in one_line(capsys.readouterr().err)


# --- 3. bug lines that must be refusals ---------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--shoes", "2", "--seed", "1", "--no-progress", "--out", "DIR.csv"],
        ["simulate", "--shoes", "2", "--seed", "1", "--no-progress", "--out", "DIR.parquet"],
        ["odds-study", "--shoes", "2", "--seed", "1", "--no-progress", "--hands-out", "DIR.csv"],
    ],
)
def test_an_output_that_is_a_folder_is_one_line(tmp_path: Path, args: list[str]) -> None:
    (tmp_path / "DIR.csv").mkdir()
    (tmp_path / "DIR.parquet").mkdir()
    r = run(*args, cwd=tmp_path)
    assert r.returncode == 2 and "folder" in one_line(r.stderr)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["DIR.csv", "DIR.parquet"]


@pytest.fixture
def full_disk(tmp_path: Path):
    """A 256 KB tmpfs: a real full disk (ENOSPC). Needs mount rights (root)."""
    mnt = tmp_path / "full"
    mnt.mkdir()
    r = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=256k", "tmpfs", str(mnt)], capture_output=True
    )
    if r.returncode != 0:
        pytest.skip("cannot mount a small tmpfs here (not root): the full-disk case is untested")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.mark.parametrize("ext", ["csv", "parquet", "json"])
def test_simulate_to_a_full_disk_is_one_line_and_leaves_no_file(full_disk: Path, ext: str) -> None:
    out = full_disk / f"sim.{ext}"
    r = run("simulate", "--shoes", "3000", "--seed", "1", "--no-progress", "--out", str(out))
    assert r.returncode == 2 and "full" in one_line(r.stderr)
    assert list(full_disk.iterdir()) == []


def test_odds_study_hands_to_a_full_disk_is_one_line_and_leaves_no_file(full_disk: Path) -> None:
    out = full_disk / "hands.csv"
    r = run("odds-study", "--shoes", "40", "--seed", "1", "--no-progress", "--hands-out", str(out))
    assert r.returncode == 2 and "full" in one_line(r.stderr)
    assert list(full_disk.iterdir()) == []


FSIZE_RUN = """
import resource, runpy, sys
resource.setrlimit(resource.RLIMIT_FSIZE, (int(sys.argv[1]), int(sys.argv[1])))
sys.argv = ["roads_app", *sys.argv[2:]]
runpy.run_module("roads_app", run_name="__main__")
"""


def test_simulate_past_the_file_size_limit_is_one_line_and_leaves_no_file(tmp_path: Path) -> None:
    out = tmp_path / "sim.csv"
    r = subprocess.run(
        [
            sys.executable,
            "-c",
            FSIZE_RUN,
            "100000",
            "simulate",
            "--shoes",
            "200",
            "--seed",
            "1",
            "--no-progress",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert r.returncode == 2 and "file size limit" in one_line(r.stderr)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["long", "deep"])
def test_a_data_folder_too_long_or_too_deep_is_one_line(tmp_path: Path, kind: str) -> None:
    bad = "a" * 300 if kind == "long" else "/".join(["a"] * 3000)
    for args in (
        ["shoes", "list", "--data", bad],
        ["import", "x.csv", "--data", bad],
        ["--data", bad, "shoes", "list"],
    ):
        r = run(*args, cwd=tmp_path)
        assert r.returncode == 2, r.stderr[:300]
        line = one_line(r.stderr)
        assert len(line) < 300 and str(tmp_path) not in line


def test_show_and_import_of_a_multi_shoe_csv_without_card_columns(
    tmp_path: Path, data: Path, capsys
) -> None:
    f = tmp_path / "m.csv"
    f.write_text("shoe,winner\n1,B\n1,P\n2,T\n")
    assert main(["show", str(f)]) == 0
    out = capsys.readouterr().out
    assert "2 shoe(s), 3 rounds" in out and "0 rounds with cards" in out
    assert main(["import", str(f), "--data", str(data)]) == 0
    assert len(capsys.readouterr().out.split()) == 2
    pq = tmp_path / "m.parquet"
    pl.read_csv(f).write_parquet(pq)
    assert main(["show", str(pq)]) == 0
    assert "2 shoe(s), 3 rounds" in capsys.readouterr().out


@pytest.mark.parametrize("seed", [2**63 - 1, 2**63, 2**64 - 1])
def test_a_seed_past_sqlite_integers_round_trips(tmp_path: Path, data: Path, capsys, seed) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"meta": {"seed": seed, "name": "big seed"}, "rounds": "BPT"}))
    assert main(["import", str(f), "--data", str(data)]) == 0
    shoe_id = capsys.readouterr().out.strip()
    assert db.open_store(data).shoes.load(shoe_id).meta.seed == seed
    db.forget_stores()
    assert db.open_store(data).shoes.meta(shoe_id).seed == seed  # read back from the file
    assert main(["export", shoe_id, "--format", "json", "--data", str(data), "--out", "-"]) == 0
    assert json.loads(capsys.readouterr().out)["meta"]["seed"] == seed


# --- 4. messages: one line, a short escaped quote --------------------------------------


def test_a_file_name_with_a_line_break_is_one_line(tmp_path: Path, data: Path, capsys) -> None:
    for name in ("a\nb.csv", "a\nb.txt", "a\rb.parquet", "x\x1b[31m.json"):
        missing = tmp_path / name
        assert main(["show", str(missing)]) == 2
        one_line(capsys.readouterr().err)
        (tmp_path / name).write_text("winner\nQ\n")
        for args in (["show", str(missing)], ["import", str(missing), "--data", str(data)]):
            assert main(args) == 2
            one_line(capsys.readouterr().err)


def test_paroli_wins_range_is_the_same_in_help_parser_and_strategy(capsys) -> None:
    from roads_app.sim.strategies import MAX_PAROLI_WINS

    assert main(["backtest", "--help"]) == 0
    helptext = " ".join(capsys.readouterr().out.split())
    assert f"wins before the reset, 1 to {MAX_PAROLI_WINS}" in helptext
    base = ["backtest", "--strategy", "paroli", "--shoes", "2", "--seed", "1", "--no-progress"]
    assert main([*base, "--wins", str(MAX_PAROLI_WINS + 1)]) == 2
    assert f"1 to {MAX_PAROLI_WINS}" in one_line(capsys.readouterr().err)
    assert main([*base, "--wins", str(MAX_PAROLI_WINS)]) == 0


@pytest.mark.parametrize("letter", ["ı", "ß", "ﬀ", "\u0130", "\u200b"])
def test_shoes_add_quotes_the_letter_given(data: Path, capsys, letter: str) -> None:
    assert main(["shoes", "add", "keep", f"B{letter}", "--data", str(data)]) == 2
    line = one_line(capsys.readouterr().err)
    assert f"result 2 is {quote(letter)}" in line, line
    assert db.open_store(data).shoes.load("keep").rounds.height == 4


@pytest.mark.parametrize(
    "filename, body, unwanted",
    [
        ("vt.csv", b"winner,pla\x0byer_points\nB,1\n", "\x0b"),
        ("key.json", json.dumps({"rounds": "B", "k" * 1_900_000: 1}).encode(), "k" * 200),
        (
            "rkey.json",
            json.dumps({"rounds": [{"winner": "B", "q" * 100_000: 1}]}).encode(),
            "q" * 200,
        ),
        ("dup.csv", b"winner,winner\x0b\n", "\x0b"),
        ("meta.json", json.dumps({"meta": {"z" * 500_000: 1}, "rounds": "B"}).encode(), "z" * 200),
    ],
)
def test_what_a_file_gives_is_quoted_short_and_escaped(
    tmp_path: Path, data: Path, capsys, filename: str, body: bytes, unwanted: str
) -> None:
    f = tmp_path / filename
    f.write_bytes(body)
    for args in (["import", str(f), "--data", str(data)], ["show", str(f)]):
        assert main(args) == 2
        line = one_line(capsys.readouterr().err)
        assert unwanted not in line


def test_a_rules_file_just_over_the_limit_says_by_how_much(tmp_path: Path, capsys) -> None:
    from roads_app.bets.tables import MAX_RULES_BYTES

    f = tmp_path / "big.toml"
    f.write_bytes(b"#" * (MAX_RULES_BYTES + 1))
    assert main(["rules", str(f)]) == 2
    line = one_line(capsys.readouterr().err)
    assert "256 KB is over the 256 KB" not in line and "262,145" in line


@pytest.mark.parametrize(
    "body, said",
    [
        (b"shoe,winner\n1,B,extra\n", "row 1"),  # a shoe column it cannot split
        (b"shoe\n1\n2\n", "no 'winner' column"),
        (b"player_points\n1\n", "no 'winner' column"),
    ],
)
def test_a_file_without_what_it_needs_says_so(
    tmp_path: Path, data: Path, capsys, body: bytes, said: str
) -> None:
    f = tmp_path / "f.csv"
    f.write_bytes(body)
    assert main(["import", str(f), "--data", str(data)]) == 2
    line = one_line(capsys.readouterr().err)
    assert said in line and "unknown column(s) shoe" not in line and "winner 'shoe'" not in line


# --- 5. a multi-shoe import is one transaction --------------------------------------------


def test_a_300_shoe_import_that_hits_the_size_limit_adds_nothing(tmp_path: Path, data: Path):
    sim = tmp_path / "s300.csv"
    assert (
        main(["simulate", "--shoes", "300", "--seed", "3", "--no-progress", "--out", str(sim)]) == 0
    )
    db.forget_stores()
    before = snapshot(data)
    limit = sum(p.stat().st_size for p in data.iterdir()) + 400_000
    r = subprocess.run(
        [sys.executable, "-c", FSIZE_RUN, str(limit), "import", str(sim), "--data", str(data)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert r.returncode == 2, r.stderr
    assert "nothing was" in one_line(r.stderr)
    db.forget_stores()
    assert snapshot(data) == before


# --- 7. a database that is a symlink ------------------------------------------------------


def test_a_database_that_is_a_symlink_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "roads.db").symlink_to(elsewhere / "roads.db")
    r = run("shoes", "list", "--data", str(folder))
    assert r.returncode == 2 and "symlink" in one_line(r.stderr)
    assert list(elsewhere.iterdir()) == []
    assert sorted(p.name for p in folder.iterdir()) == ["roads.db"]


# --- 8. rules: one bad user table is skipped; listing is linear -------------------------


def test_rules_lists_the_good_tables_and_skips_a_bad_one_in_a_line(tmp_path: Path) -> None:
    from roads_app.bets.tables import MAX_RULES_BYTES, RULES_DIR

    tables = tmp_path / "tables"
    tables.mkdir()
    classic = (RULES_DIR / "classic.toml").read_text()
    for i in range(3):
        text = classic.replace('title = "', f'title = "Mine {i} ', 1)
        (tables / f"mine{i}.toml").write_text(text.replace('name = "classic"', f'name = "mine{i}"'))
    (tables / "huge.toml").write_bytes(b"#" * (MAX_RULES_BYTES + 1))
    (tables / "broken.toml").write_text("title = [")
    r = run("rules", "--rules-dir", str(tables))
    assert r.returncode == 0, r.stderr
    listed = [line.split()[0] for line in r.stdout.splitlines()]
    assert {"classic", "mine0", "mine1", "mine2"} <= set(listed)
    assert "huge" not in listed and "broken" not in listed
    notes = r.stderr.strip().splitlines()
    assert len(notes) == 2 and all(n.startswith("note: ") for n in notes)


def test_rules_reads_the_tables_folder_a_fixed_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    from roads_app.bets import tables as rules

    folder = tmp_path / "tables"
    folder.mkdir()
    classic = (rules.RULES_DIR / "classic.toml").read_text()
    for i in range(60):
        (folder / f"t{i:03d}.toml").write_text(
            classic.replace('name = "classic"', f'name = "t{i:03d}"')
        )
    monkeypatch.setenv(rules.TABLES_ENV, str(folder))
    scans = {"n": 0}
    real = os.scandir

    def counting(path=".", *a, **k):
        if Path(path) == folder:
            scans["n"] += 1
        return real(path, *a, **k)

    real_glob = Path.glob

    def counting_glob(self, *a, **k):
        if self == folder:
            scans["n"] += 1
        return real_glob(self, *a, **k)

    monkeypatch.setattr(os, "scandir", counting)
    monkeypatch.setattr(Path, "glob", counting_glob)
    assert main(["rules"]) == 0
    assert len(capsys.readouterr().out.splitlines()) >= 60
    assert scans["n"] <= 3, scans
