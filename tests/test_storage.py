"""Shoe files and the store: round trips, atomic writes, bad files that leave data intact."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.shoefiles import files as shoe_files
from roads_app.store import db
from tests import storehelp as sh


@pytest.fixture
def saved(tmp_path: Path) -> tuple[Path, str]:
    s = deal_shoe(7)
    sh.save_shoe(s.rounds, s.meta, tmp_path)
    return tmp_path, s.meta.id


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.integers(0, 2**32), st.integers(1, 8), st.sampled_from(shoe_files.FORMATS))
def test_export_import_round_trip_with_cards(
    tmp_path: Path, seed: int, decks: int, fmt: str
) -> None:
    s = deal_shoe(seed, ShoeOptions(decks=decks))
    data = shoe_files.export_bytes(s.rounds, s.meta, fmt)
    rounds, meta = shoe_files.import_bytes(data, f"shoe.{fmt}")
    assert rounds.equals(s.rounds)
    if fmt != "csv":  # CSV carries rounds only
        assert meta.decks == decks and meta.burn_card == s.burn_card and meta.seed == seed


@settings(max_examples=25, deadline=None)
@given(st.text(alphabet="BPT", max_size=90), st.sampled_from(shoe_files.FORMATS))
def test_export_import_round_trip_outcomes_only(text: str, fmt: str) -> None:
    r = rounds_from_winners(text)
    back, _ = shoe_files.import_bytes(shoe_files.export_bytes(r, ShoeMeta(), fmt), f"x.{fmt}")
    assert back.equals(r)


@pytest.mark.usefixtures("backend")
def test_save_load_keeps_rounds_and_meta(saved: tuple[Path, str]) -> None:
    folder, shoe_id = saved
    rounds, meta = sh.load_shoe(shoe_id, folder)
    assert meta.id == shoe_id and meta.source == "simulated" and meta.seed == 7
    assert rounds.equals(deal_shoe(7).rounds)
    listing = sh.list_shoes(folder)
    assert listing["id"].to_list() == [shoe_id] and listing["rounds"][0] == rounds.height


def test_simplest_csv_is_one_column(tmp_path: Path) -> None:
    r, meta = shoe_files.import_bytes(b"winner\nB\np\nT\n", "mine.csv", name="Table 7")
    assert r["winner"].to_list() == ["B", "P", "T"] and meta.name == "Table 7"
    assert meta.source == "imported"


BAD_FILES = [
    ("a.csv", b"B\nP\nQ\n", r"a.csv: row 3: winner 'Q'"),
    ("a.csv", b"round,winner,player_points,banker_points\n1,B,7,3\n", r"row 1: winner B disagrees"),
    ("a.csv", b"winner,player_cards,banker_cards\nP,9s Zz,5c 2h\n", r"row 1: card 'Zz'"),
    ("a.csv", b"winner,player_cards,banker_cards\nB,2s 3d 4c,7c Kh 5s\n", r"row 1: banker has 7"),
    ("a.csv", b"winner,colour\nB,red\n", "unknown column"),
    ("a.csv", b"", "empty"),
    ("a.json", b'{"rounds": [{"winner": "B"', "not valid JSON"),
    ("a.json", b'{"rounds": 5}', "expected a list"),
    ("a.json", b'[{"winner": "B", "x": 1}]', "unknown field"),
    ("a.parquet", b"PAR1 this is not parquet", "not a readable Parquet"),
    ("a.xlsx", b"whatever", "unknown file type"),
    ("a.csv", b"B\n" * (shoe_files.MAX_IMPORT_BYTES // 2 + 1), "over the 2 MB limit"),
]


@pytest.mark.parametrize("name, data, msg", BAD_FILES)
def test_bad_imports_are_one_line_errors(name: str, data: bytes, msg: str) -> None:
    with pytest.raises(StorageError, match=msg) as e:
        shoe_files.import_bytes(data, name)
    assert "\n" not in str(e.value)


def test_ninth_ace_in_a_file_is_refused() -> None:
    rows = "\n".join(["winner,player_cards,banker_cards"] + ["P,As As Kd,Kc Kh Qd"] * 5)
    with pytest.raises(StorageError, match=r"5-deck|only"):
        shoe_files.import_bytes(f"{rows}\n".encode(), "aces.csv")
    r = shoe_files.import_bytes(
        b'{"meta": {"decks": 2}, "rounds": ' + b'[{"winner":"P","player_cards":["As","As","Kd"],'
        b'"banker_cards":["Kc","Kh","Qd"]}]}',
        "two.json",
    )[0]
    assert r.height == 1


def test_foreign_parquet_is_refused(tmp_path: Path) -> None:
    pl.DataFrame({"price": [1.5, 2.5]}).write_parquet(tmp_path / "prices.parquet")
    with pytest.raises(StorageError, match=r"prices\.parquet: no 'winner' column"):
        shoe_files.read_shoe_file(tmp_path / "prices.parquet")


@pytest.mark.parametrize("bad_id", ["../x", "a/b", "/etc/passwd", "..", "", "a" * 65, "x.y"])
def test_paths_in_names_never_leave_the_folder(saved: tuple[Path, str], bad_id: str) -> None:
    folder, _ = saved
    store = db.open_store(folder)
    before = store.shoes.list().drop("modified")
    with pytest.raises(RoadsAppError, match="not a plain name"):  # refused by the meta schema
        store.shoes.create(ShoeMeta(id=bad_id), rounds_from_winners("B"))
    with pytest.raises(StorageError):
        sh.load_shoe(bad_id, folder)
    assert store.shoes.list().drop("modified").equals(before)
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("roads.db")) == []


def test_a_failed_write_leaves_the_old_file_and_no_temporary(saved: tuple[Path, str]) -> None:
    folder, shoe_id = saved
    before = _snapshot(folder)

    def explode(fh) -> None:
        fh.write(b"half a file")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        shoe_files.atomic_write(folder / f"{shoe_id}.parquet", explode)
    assert _snapshot(folder) == before


@pytest.mark.usefixtures("backend")
def test_rename_delete_restore_and_empty_trash(saved: tuple[Path, str]) -> None:
    folder, shoe_id = saved
    store = db.open_store(folder)
    store.shoes.rename(shoe_id, "Evening shoe")
    assert sh.load_shoe(shoe_id, folder)[1].name == "Evening shoe"
    with pytest.raises(StorageError, match="1 to 100"):
        store.shoes.rename(shoe_id, "  ")
    store.shoes.delete(shoe_id)
    assert store.shoes.list().height == 0
    assert store.shoes.list(trash=True)["id"].to_list() == [shoe_id]
    with pytest.raises(StorageError, match="trash"):
        sh.load_shoe(shoe_id, folder)
    store.shoes.restore(shoe_id)
    assert sh.load_shoe(shoe_id, folder)[0].equals(deal_shoe(7).rounds)
    store.shoes.delete(shoe_id)
    assert store.shoes.empty_trash() == 1
    with pytest.raises(StorageError, match="removed for good"):
        store.shoes.restore(shoe_id)
    with pytest.raises(StorageError, match="no saved shoe"):
        sh.load_shoe(shoe_id, folder)
    actions = store.history.of(shoe_id)["action"].to_list()
    assert actions == ["created", "renamed", "deleted", "restored", "deleted", "purged"]
