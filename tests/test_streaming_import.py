"""Files of any number of shoes, streamed in batches (issue 37 item 4, issue 40).

* the fast check of a batch (`streaming`, all hands at once) takes and refuses exactly
  what the row-by-row check of a one-shoe file (`importing.ShoeParts`, the reference)
  takes and refuses, and builds the same rounds: hypothesis damages one value of a
  `simulate` file and both must agree;
* batches: a shoe split across two batches is whole, a shoe in two runs is refused, and
  an error in a later batch leaves the earlier batches in (ids printed as committed)
  and the rest out, the error saying which shoes went in.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from roads_app.cli import main
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import WINNER, new_ids_within
from roads_app.game.shoe import ShoeOptions
from roads_app.shoefiles import importing, streaming
from roads_app.sim import bulk
from roads_app.store import db, library
from roads_app.store.frames import ROUND_COLS, sql_frame

SHOES = pl.concat(list(bulk.batches(3, 4, ShoeOptions()))).with_columns(
    pl.col("winner").cast(pl.String)
)
CARDS = ("player_cards", "banker_cards")


def reference(frame: pl.DataFrame, fmt: str) -> list[pl.DataFrame] | str:
    """Each shoe through the one-shoe file's row-by-row check (the old reader)."""
    out = []
    try:
        for (k,), part in frame.partition_by("shoe", maintain_order=True, as_dict=True).items():
            part = part.drop("shoe")
            if fmt == "csv":  # as the CSV reader hands rows over: text, cards split
                rows = [
                    {c: v for c, v in r.items() if v not in (None, "")}
                    for r in _as_text(part).iter_rows(named=True)
                ]
                for r in rows:
                    for side in ("player_cards", "banker_cards"):
                        if side in r:
                            r[side] = r[side].split(" ")
            else:
                rows = importing._frame_rows(part, "x")
            parts = importing.ShoeParts(f"x.{fmt}", {int(k): rows}, None, fmt == "csv", "row")
            out.append(parts.shoe(int(k))[0])
    except RoadsAppError as e:
        return str(e)
    return out


def _as_text(frame: pl.DataFrame) -> pl.DataFrame:
    frame = frame.with_columns(pl.col(pl.List(pl.String)).list.join(" "))
    frame = frame.with_columns(pl.col(pl.Boolean).cast(pl.String).str.to_lowercase())
    return frame.with_columns(pl.all().cast(pl.String))


def streamed(frame: pl.DataFrame, fmt: str, tmp: Path) -> list[pl.DataFrame] | str:
    f = tmp / f"x.{fmt}"
    if fmt == "csv":
        _as_text(frame).write_csv(f)
    else:
        frame.write_parquet(f)
    try:
        many = streaming.open_shoe_file(f)
        assert many is not None
        return [rounds for batch in many.batches() for _k, rounds in batch]
    except RoadsAppError as e:
        return str(e)


COLUMNS = [
    "winner",
    "player_points",
    "banker_points",
    "player_pair",
    "banker_pair",
    "player_natural",
    "banker_natural",
    "player_cards",
    "banker_cards",
    "round",
]
VALUES = {
    "winner": ["B", "P", "T", "b", "X"],
    "player_points": [0, 5, 9, None],
    "banker_points": [0, 3, 9, None],
    "player_pair": [True, False, None],
    "banker_pair": [True, False, None],
    "player_natural": [True, False, None],
    "banker_natural": [True, False, None],
    "player_cards": [["2s", "3d", "8c"], ["Ks", "7d"], ["9h", "9h"], ["As", "2d"], None],
    "banker_cards": [["Ks", "3h", "5d"], ["Kd", "7h", "2d"], ["5c", "2h"], None],
    "round": [1, 2, 99, None],
}


WITHOUT = {
    "cards": SHOES.with_columns(pl.lit(None, dtype=pl.List(pl.String)).alias(c) for c in CARDS),
    "cards and points": SHOES.with_columns(
        *(pl.lit(None, dtype=pl.List(pl.String)).alias(c) for c in CARDS),
        *(pl.lit(None, dtype=pl.Int64).alias(c) for c in ("player_points", "banker_points")),
    ),
}
"""Shoes written without cards (or points too): checked a distinct round at a time."""


@settings(
    max_examples=90, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    row=st.integers(0, SHOES.height - 1),
    column=st.sampled_from(COLUMNS),
    pick=st.integers(0, 4),
    fmt=st.sampled_from(["csv", "parquet"]),
    without=st.sampled_from([None, *WITHOUT]),
)
def test_the_fast_check_agrees_with_the_row_by_row_check(
    row: int, column: str, pick: int, fmt: str, without: str | None, tmp_path: Path
) -> None:
    values = VALUES[column]
    value = values[pick % len(values)]
    shoes = SHOES if without is None else WITHOUT[without]
    col = shoes[column].to_list()
    col[row] = value
    frame = shoes.with_columns(pl.Series(column, col, dtype=SHOES.schema[column]))
    want = reference(frame, fmt)
    got = streamed(frame, fmt, tmp_path)
    if isinstance(want, str):
        assert isinstance(got, str), (column, value, want)
        assert got == want
    else:
        assert not isinstance(got, str), (column, value, got)
        assert len(got) == len(want)
        for a, b in zip(got, want, strict=True):
            assert a.equals(b)


def test_a_clean_file_is_taken_whole_and_exactly(tmp_path: Path) -> None:
    for fmt in ("csv", "parquet"):
        got = streamed(SHOES, fmt, tmp_path)
        want = [
            p.drop("shoe").with_columns(pl.col("winner").cast(WINNER))
            for p in SHOES.partition_by("shoe", maintain_order=True)
        ]
        assert not isinstance(got, str) and len(got) == 4
        assert all(a.equals(b) for a, b in zip(got, want, strict=True))


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr(streaming, "BATCH_ROWS", 50)  # a shoe is ~80 rounds: split across
    return 50


def _simulated_and_imported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], shoes: int, seed: int, fmt: str
) -> tuple[list[str], db.Store]:
    """`simulate` ``shoes`` shoes into a file, `import` it into a new library: the ids
    printed and the library."""
    f = tmp_path / f"sim.{fmt}"
    argv = ["simulate", "--shoes", str(shoes), "--seed", str(seed), "--out", str(f)]
    assert main([*argv, "--no-progress"]) == 0
    capsys.readouterr()
    data = tmp_path / "d"
    assert main(["import", str(f), "--data", str(data)]) == 0
    return capsys.readouterr().out.split(), db.open_store(data)


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_shoes_split_across_batches_come_out_whole(
    fmt: str, tmp_path: Path, small_batches: int, capsys
) -> None:
    ids, store = _simulated_and_imported(tmp_path, capsys, 5, 9, fmt)
    want = bulk.batches(9, 5, ShoeOptions())
    dealt = pl.concat(list(want)).partition_by("shoe", maintain_order=True)
    assert len(ids) == 5
    for shoe_id, d in zip(ids, dealt, strict=True):
        assert store.shoes.load(shoe_id).rounds.equals(d.drop("shoe"))


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_files_shoes_get_ids_ascending_from_its_first_to_its_last(
    fmt: str, tmp_path: Path, small_batches: int, capsys
) -> None:
    """Each batch (here about a shoe) draws its ids from where it lies in the file, so
    the rounds index takes a big import's batches one after another, not between."""
    f = tmp_path / f"sim.{fmt}"
    assert main(["simulate", "--shoes", "12", "--seed", "3", "--out", str(f), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["import", str(f), "--data", str(tmp_path / "d")]) == 0
    ids = capsys.readouterr().out.split()
    assert len(ids) == 12 and ids == sorted(ids), ids
    assert int(ids[0], 16) < 2**47 <= int(ids[-1], 16)  # the first half's and the last's


def test_batches_made_ahead_come_in_order_and_their_threads_end(
    tmp_path: Path, small_batches: int
) -> None:
    """An import reads and checks a batch on one thread and makes (stages) the one
    before it on another while it writes the one before that: the caller still gets the
    batches in the file's order, as without them, an error where it arose (after the
    batches before it), and no thread of them outlives an import stopped early."""
    f = tmp_path / "sim.parquet"
    assert main(["simulate", "--shoes", "6", "--seed", "4", "--out", str(f), "--no-progress"]) == 0
    many = streaming.open_shoe_file(f)
    assert many is not None
    plain = [b.frame for b in many.made(lambda b: b)]
    makers: list[str] = []

    def into(batch: streaming.Checked) -> pl.DataFrame:
        makers.append(threading.current_thread().name)
        if len(makers) == 4:
            raise RoadsAppError("the fourth")
        return batch.frame

    ahead = [b.frame for b in many.made(lambda b: b, ahead=True)]
    assert len(ahead) == len(plain) > 4
    assert all(a.equals(p) for a, p in zip(ahead, plain, strict=True))
    got = []
    with pytest.raises(RoadsAppError, match="the fourth"):
        for item in many.made(into, ahead=True):
            got.append(item)
    assert len(got) == 3 and all(g.equals(p) for g, p in zip(got, plain[:3], strict=True))
    assert all(name.startswith("make-ahead") for name in makers)
    stopped = many.made(lambda b: b, ahead=True)
    next(stopped)
    stopped.close()
    workers = ("read-ahead", "make-ahead")
    assert [t.name for t in threading.enumerate() if t.name.startswith(workers)] == []


def test_an_import_leaves_no_staged_batch_attached_or_on_disk(
    tmp_path: Path, small_batches: int, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    """Each batch is staged in a file of its own, attached for its write: none stays
    attached to the connection after it or on disk, whether the write copied it in or
    found every shoe already there (a re-import) or a later batch was refused (staged
    ahead). (A re-import of a file half in: tests/test_import_resume.py.)"""
    import tempfile

    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    f = tmp_path / "sim.parquet"
    assert main(["simulate", "--shoes", "6", "--seed", "5", "--out", str(f), "--no-progress"]) == 0
    half = tmp_path / "half.parquet"
    pl.read_parquet(f).filter(pl.col("shoe") % 2 == 0).write_parquet(half)
    data = tmp_path / "d"
    assert main(["import", str(half), "--data", str(data)]) == 0
    capsys.readouterr()
    assert main(["import", str(half), "--data", str(data)]) == 0
    assert capsys.readouterr().out.split() == []
    bad = tmp_path / "bad.json"
    assert main(["simulate", "--shoes", "4", "--seed", "9", "--out", str(bad)]) == 0
    rows = json.loads(bad.read_text())
    last = max(i for i, r in enumerate(rows) if r["shoe"] == 4)
    rows[last]["winner"] = "T" if rows[last]["winner"] != "T" else "B"  # against its cards
    bad.write_text(json.dumps(rows))
    assert main(["import", str(bad), "--data", str(data)]) == 2  # refused after 3 went in
    capsys.readouterr()
    store = db.open_store(data)
    attached = store.con.execute("PRAGMA database_list").fetchall()
    assert {row[1] for row in attached} <= {"main", "temp"}
    assert list(tmp.iterdir()) == []
    assert store.shoes.list().height == 3 + 3


def test_a_staged_copy_checks_its_shoes_and_leaves_foreign_keys_on(tmp_path: Path, capsys) -> None:
    """A staged batch is copied in with the connection's foreign keys off (a look-up a
    round was a third of the copy): its shoes are checked once each instead (a round of
    a shoe the library lacks is a bug, nothing written), and the keys are on again
    after, so a shoe deleted later still takes its rounds with it."""
    from roads_app.store.connection import stage_frame, staged

    ids, store = _simulated_and_imported(tmp_path, capsys, 3, 6, "parquet")
    assert store.con.execute("PRAGMA foreign_keys").fetchone() == (1,)
    count = "SELECT count(*) FROM rounds"
    before = store.con.execute(count).fetchone()[0]
    stray = store.shoes.load(ids[0]).rounds.select(
        pl.lit("0123456789ab").alias("shoe"), *ROUND_COLS
    )
    stray = sql_frame(stray)
    stage_frame(stray, tmp_path / "stray.db")
    with (
        pytest.raises(AssertionError, match="for a shoe not in the library"),
        staged(store, stray, tmp_path / "stray.db") as rows,
        store.write() as c,
    ):
        rows.insert(c, "rounds", "shoe", [])
    assert store.con.execute(count).fetchone()[0] == before
    assert store.con.execute("PRAGMA foreign_keys").fetchone() == (1,)
    store.shoes.delete(ids[0])
    store.shoes.empty_trash()
    assert store.con.execute(count).fetchone()[0] < before


@settings(max_examples=200, deadline=None)
@example(n=5, a=1.0, b=1.0)
@example(n=3000, a=0.0, b=0.0)
@given(
    n=st.integers(1, 3000),
    a=st.floats(0, 1),
    b=st.floats(0, 1),
)
def test_ids_within_a_share_are_distinct_ascending_and_in_it(n: int, a: float, b: float) -> None:
    lo, hi = min(a, b), max(a, b)
    ids = new_ids_within(n, (lo, hi))
    values = [int(i, 16) for i in ids]
    assert len(ids) == n and all(len(i) == 12 for i in ids)
    assert values == sorted(set(values))
    space, room = 2**48, n << 24
    start, end = int(space * lo), int(space * hi)
    if end - start < room:  # too narrow for random ids: widened as little as it takes
        end = min(start + room, space)
        start = end - room
    assert start <= values[0] and values[-1] < end


def test_an_error_in_a_later_batch_says_which_shoes_went_in(
    tmp_path: Path, small_batches: int, capsys
) -> None:
    f = tmp_path / "sim.json"
    assert main(["simulate", "--shoes", "4", "--seed", "9", "--out", str(f), "--no-progress"]) == 0
    rows = json.loads(f.read_text())
    last = max(i for i, r in enumerate(rows) if r["shoe"] == 4)
    rows[last]["winner"] = "T" if rows[last]["winner"] != "T" else "B"  # against its cards
    f.write_text(json.dumps(rows))
    capsys.readouterr()
    data = tmp_path / "d"
    assert main(["import", str(f), "--data", str(data)]) == 2
    out, err = capsys.readouterr()
    ids = out.split()
    line = err.strip()
    assert "\n" not in line and line.startswith("error: sim.json, shoe 4: round")
    assert f"the file's first {len(ids)} shoes (to shoe 3) went in" in line
    assert "the shoes after shoe 3 did not" in line
    listed = db.open_store(data).shoes.list()
    assert sorted(listed["id"]) == sorted(ids) and len(ids) == 3  # shoes 1-3, not 4


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_a_shoe_in_two_runs_across_batches_is_refused(
    fmt: str, tmp_path: Path, small_batches: int
) -> None:
    frame = pl.concat([SHOES, SHOES.filter(pl.col("shoe") == 1)])  # shoe 1 again at the end
    with pytest.raises(RoadsAppError, match="shoe 1 comes again at row"):
        got = streamed(frame, fmt, tmp_path)
        if isinstance(got, str):
            raise RoadsAppError(got)


def test_good_roads_and_odds_read_a_file_of_thousands_of_shoes(tmp_path: Path, capsys) -> None:
    f = tmp_path / "sim.csv"
    assert (
        main(["simulate", "--shoes", "1500", "--seed", "2", "--out", str(f), "--no-progress"]) == 0
    )
    capsys.readouterr()
    assert main(["good-roads", str(f)]) == 0
    out = capsys.readouterr().out
    assert out.count("\nshoe ") == 1500 and "shoe 1500:" in out
    assert main(["odds", "--shoe", str(f), "--shoe-index", "1400"]) == 0
    assert "of sim shoe 1400" in capsys.readouterr().out
    assert main(["show", str(f)]) == 0
    assert capsys.readouterr().out.startswith("1500 shoe(s)")
    library.read_shoe(f, 1500)


@pytest.mark.parametrize("fmt", ["json", "csv"])
@pytest.mark.parametrize("decks", [1, 8])
@pytest.mark.parametrize("crlf", [False, True])
def test_a_shoe_with_cards_reads_back_with_its_cards(
    fmt: str, decks: int, crlf: bool, tmp_path: Path, capsys
) -> None:
    """Issue 40: JSON with CRLF line ends and a one-deck CSV kept their cards on the way
    in (odds said "round 1 was entered without cards")."""
    f = tmp_path / f"sim.{fmt}"
    assert (
        main(
            [
                "simulate",
                "--shoes",
                "2",
                "--seed",
                "5",
                "--decks",
                str(decks),
                "--out",
                str(f),
                "--no-progress",
            ]
        )
        == 0
    )
    if fmt == "json":  # one round object a line, as an editor would lay it out
        f.write_text(json.dumps(json.loads(f.read_text()), indent=1))
    if crlf:
        f.write_bytes(f.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    capsys.readouterr()
    dealt = pl.concat(list(bulk.batches(5, 2, ShoeOptions(decks=decks))))
    want = dealt.filter(pl.col("shoe") == 2).drop("shoe")
    rounds, _meta = library.read_shoe(f, 2)
    assert rounds.equals(want)  # cards and all
    assert rounds["player_cards"].null_count() == 0
    assert main(["odds", "--shoe", str(f), "--shoe-index", "2"]) == 0, capsys.readouterr().err
    assert f"hand {want.height + 1} of sim shoe 2" in capsys.readouterr().out


def test_an_upload_of_many_shoes_streams_in_with_its_progress(tmp_path: Path) -> None:
    """The Library page's import: a file of many shoes (it used to be refused, "import
    one shoe at a time") goes in as `import` takes it, the bar told of each batch."""
    f = tmp_path / "sim.parquet"
    SHOES.write_parquet(f)
    told: list[tuple[float, int]] = []
    data = tmp_path / "d"
    done = library.import_any_upload(
        f.read_bytes(), "table 3.parquet", data, None, lambda share, n: told.append((share, n))
    )
    assert len(done.ids) == 4 and done.already == 0 and told[-1] == (1.0, 4)
    names = db.open_store(data).shoes.list()["name"]
    assert sorted(names) == [f"table 3 shoe {k}" for k in range(1, 5)]
    again = library.import_any_upload(f.read_bytes(), "table 3.parquet", data, None, None)
    assert again.ids == [] and again.already == 4


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_a_reader_may_ask_for_smaller_batches_of_whole_shoes(
    fmt: str, tmp_path: Path, capsys
) -> None:
    """`good-roads FILE` keeps more of a round than an import, so it reads fewer at once
    (its peak memory on 30,000 shoes: 437 MB in the import's batches)."""
    f = tmp_path / f"sim.{fmt}"
    assert main(["simulate", "--shoes", "6", "--seed", "9", "--out", str(f), "--no-progress"]) == 0
    capsys.readouterr()
    whole = list(library.iter_shoes(f))
    small = list(library.iter_shoes(f, 100))
    assert len(whole) == 1 and len(small) >= 3
    assert pl.concat(small).equals(whole[0])
    for batch in small:  # whole shoes, each batch about 100 rounds (one more shoe at most)
        assert batch.height < 100 + 104
        shoes = batch["shoe"].unique()
        assert pl.concat(small).filter(pl.col("shoe").is_in(shoes.implode())).height == batch.height


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    blanks=st.lists(
        st.tuples(st.integers(0, 400), st.sampled_from(["", " ", "\t", "\r", " \r\r"])),
        max_size=6,
    ),
    ends=st.lists(st.tuples(st.integers(0, 400), st.sampled_from(["\r\n", "\r\r\n"])), max_size=6),
    fault=st.one_of(
        st.none(),
        st.tuples(st.integers(0, 300), st.sampled_from(["extra cell", "cell short", "long"])),
    ),
    last_end=st.booleans(),
    chunk=st.integers(16, 3000),
    rows=st.integers(20, 200),
)
def test_a_csv_read_a_piece_at_a_time_is_read_as_its_lines_say(
    blanks: list[tuple[int, str]],
    ends: list[tuple[int, str]],
    fault: tuple[int, str] | None,
    last_end: bool,
    chunk: int,
    rows: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A CSV is split into lines a piece at a time (by NumPy, a piece of ``chunk`` bytes
    here) and into blocks of ``rows`` rows: whatever the cuts, blank lines are dropped,
    a line's "\\r" ends too, every row is read once, and a row of the wrong width or a
    line too long is named by its row (counting rows only) or its line (counting every
    line) as the file's text says."""
    monkeypatch.setattr(streaming, "_CHUNK", chunk)
    monkeypatch.setattr(streaming, "BATCH_ROWS", rows)
    lines = _as_text(SHOES).write_csv().splitlines()  # the header, then a row a line
    kinds = ["header"] + ["row"] * (len(lines) - 1)
    if fault is not None:
        at, kind = fault
        at = 1 + at % (len(lines) - 1)
        kinds[at] = kind
        if kind == "extra cell":
            lines[at] += ",B"
        elif kind == "cell short":
            lines[at] = lines[at].rsplit(",", 1)[0]
        else:
            lines[at] += " " * 4096
    for at, blank in sorted(blanks, reverse=True):  # blank lines anywhere after the header
        kinds.insert(1 + at % len(lines), "blank")
        lines.insert(1 + at % len(lines), blank)
    line_ends = ["\n"] * len(lines)
    for at, end in ends:
        line_ends[at % len(lines)] = end
    if not last_end:
        line_ends[-1] = ""
    f = tmp_path / "x.csv"
    f.write_bytes("".join(a + b for a, b in zip(lines, line_ends, strict=True)).encode())
    want: str | None = None
    if fault is not None:
        faulty = kinds.index(fault[1])
        if fault[1] == "long":
            want = f"x.csv: line {faulty + 1:,} is longer than 4,096 bytes"
        else:
            row = sum(k != "blank" for k in kinds[1 : faulty + 1])
            cells = lines[faulty].count(",") + 1
            want = f"x.csv: row {row} has {cells} cells, the header {lines[0].count(',') + 1}"
    many = streaming.open_shoe_file(f)
    assert many is not None
    try:
        got = [rounds for batch in many.batches() for _k, rounds in batch]
    except RoadsAppError as e:
        assert want is not None, str(e)
        assert str(e).startswith(want), (str(e), want)
        return
    assert want is None
    (tmp_path / "clean").mkdir(exist_ok=True)
    clean = streamed(SHOES, "csv", tmp_path / "clean")
    assert not isinstance(clean, str) and len(got) == len(clean) == 4
    assert all(a.equals(b) for a, b in zip(got, clean, strict=True))
