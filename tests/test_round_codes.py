"""Round codes in exports (issue 47, item 1): a floor table's shoe exported as CSV, JSON or
Parquet carries each round's code (`game.floor.round_code`, through `Floor.place_of`) in
a ``round_code`` column, and reads back as the same rounds; a shoe of no table is
exported exactly as before. Both databases."""

from __future__ import annotations

import io
import json
from pathlib import Path

import polars as pl
import pytest

from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ROUNDS_SCHEMA, ShoeMeta, rounds_from_winners
from roads_app.shoefiles import files as shoe_files
from roads_app.store import db, library
from roads_app.store.floor import today
from tests import storehelp as sh


def _codes(data: bytes, fmt: str) -> list[str] | None:
    """The round_code column of an exported file (None when it has none)."""
    if fmt == "json":
        rows = json.loads(data)["rounds"]
        return [r["round_code"] for r in rows] if rows and "round_code" in rows[0] else None
    frame = pl.read_csv(data) if fmt == "csv" else pl.read_parquet(io.BytesIO(data))
    if "round_code" not in frame.columns:
        return None
    assert frame.columns.index("round_code") == frame.columns.index("round") + 1
    return frame["round_code"].to_list()


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_a_tables_shoe_is_exported_with_its_round_codes(
    tmp_path: Path, backend: str, fmt: str
) -> None:
    store = db.open_store(tmp_path)
    store.floor.add("B07", "Table 7", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("B07")
    store.floor.append("B07", lambda r, d: game_rounds.add_winner(r, "B", decks=d))
    store.floor.shuffle("B07")
    for w in "PBT":
        shoe = store.floor.append("B07", lambda r, d, w=w: game_rounds.add_winner(r, w, decks=d))
    day = today().replace("-", "")

    data, _name = library.export_shoe(shoe.shoe, fmt, tmp_path)
    assert _codes(data, fmt) == [f"B07-{day}-02-0{n}" for n in (1, 2, 3)]
    back, _meta = shoe_files.import_bytes(data, f"again.{fmt}")  # read back: the same rounds
    assert back.equals(store.shoes.load(shoe.shoe).rounds.select(ROUNDS_SCHEMA.names()))
    cut, _ = library.export_shoe(shoe.shoe, fmt, tmp_path, upto=2)
    assert _codes(cut, fmt) == [f"B07-{day}-02-0{n}" for n in (1, 2)]

    meta = ShoeMeta(name="by hand", source="hand")  # a shoe of no table: as before
    rounds = rounds_from_winners("BPBT")
    sh.save_shoe(rounds, meta, tmp_path)
    plain, _ = library.export_shoe(meta.id, fmt, tmp_path)
    assert _codes(plain, fmt) is None
    saved = store.shoes.load(meta.id)
    assert plain == shoe_files.export_bytes(saved.rounds, saved.meta, fmt)
