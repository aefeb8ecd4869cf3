"""Bulk simulated shoes: the compiled dealer's frames are `deal_shoe`'s, and they stream
to Parquet / CSV / JSON files that read back to the same rounds."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from roads_app.errors import StorageError
from roads_app.game.rounds import MULTI_SHOE_SCHEMA, ROUNDS_SCHEMA
from roads_app.game.shoe import ShoeOptions, deal_shoe, deal_shoes
from roads_app.shoefiles import files as shoe_files
from roads_app.sim import bulk


def plain(seed: int, shoes: range, options: ShoeOptions) -> pl.DataFrame:
    """The readable reference: `deal_shoe` shoe by shoe, numbered from 1."""
    return pl.concat(
        deal_shoe(seed, options, k).rounds.with_columns(pl.lit(k + 1, dtype=pl.Int32).alias("shoe"))
        for k in shoes
    ).select(MULTI_SHOE_SCHEMA.names())


def test_two_thousand_shoes_are_deal_shoes_row_for_row() -> None:
    fast = bulk.deal_shoes_fast(2026, 2000)
    assert fast.schema == MULTI_SHOE_SCHEMA
    assert_frame_equal(fast, deal_shoes(2026, 2000))


@st.composite
def shoe_options(draw: st.DrawFn) -> ShoeOptions:
    decks = draw(st.integers(1, 8))
    return ShoeOptions(
        decks=decks,
        cut=draw(st.integers(0, decks * 26)),
        burn=draw(st.booleans()),
        burn_between_hands=draw(st.booleans()),
    )


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**64 - 1),  # a shoe's metadata holds a uint64 seed
    first=st.integers(0, 10**7),
    n=st.integers(1, 40),
    batch=st.integers(1, 17),
    options=shoe_options(),
)
def test_any_options_any_range_any_batch_size(
    seed: int, first: int, n: int, batch: int, options: ShoeOptions
) -> None:
    frames = list(bulk.batches(seed, n, options, batch=batch, first_shoe=first))
    assert len(frames) == -(-n // batch)
    assert_frame_equal(pl.concat(frames), plain(seed, range(first, first + n), options))


@pytest.mark.parametrize("options", [ShoeOptions(), ShoeOptions(decks=2, cut=0, burn=False)])
def test_deal_one_is_deal_shoe_with_its_meta(options: ShoeOptions) -> None:
    for index in (0, 5):
        rounds, meta = bulk.deal_one(17, options, index)
        ref = deal_shoe(17, options, index)
        assert_frame_equal(rounds, ref.rounds)
        assert meta.to_dict() | {"id": "", "created": ""} == ref.meta.to_dict() | {
            "id": "",
            "created": "",
        }
    assert rounds.schema == ROUNDS_SCHEMA


def test_bad_counts_and_seeds_are_round_errors() -> None:
    from roads_app.errors import RoundError

    for n in (0, -1, 2.5, True):
        with pytest.raises(RoundError, match="1 or more"):
            list(bulk.batches(1, n))  # type: ignore[arg-type]
    with pytest.raises(RoundError, match="seed"):
        list(bulk.batches(-1, 3))


# --- streaming to files ----------------------------------------------------------------


def read_back(path: Path) -> pl.DataFrame:
    """A written file as a multi-shoe frame, by the plain readers (not ours)."""
    if path.suffix == ".parquet":
        return pl.read_parquet(path)
    if path.suffix == ".csv":
        frame = pl.read_csv(path).with_columns(
            pl.col("player_cards", "banker_cards").str.split(" ")
        )
    else:
        frame = pl.DataFrame(json.loads(path.read_text()))
    return frame.cast(dict(MULTI_SHOE_SCHEMA))  # type: ignore[arg-type]


@pytest.mark.parametrize("fmt", ["parquet", "csv", "json"])
def test_streamed_files_read_back_to_the_dealt_rounds(tmp_path: Path, fmt: str) -> None:
    options = ShoeOptions(decks=4, cut=20)
    out = tmp_path / f"sims.{fmt}"
    path, rows = shoe_files.write_batches(bulk.batches(8, 23, options, batch=5), out)
    want = deal_shoes(8, 23, options)
    assert path == out and rows == want.height
    assert_frame_equal(read_back(out), want)
    assert [p.name for p in tmp_path.iterdir()] == [out.name]  # no temporary file left


@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_text_files_are_the_same_bytes_in_batches_or_whole(tmp_path: Path, fmt: str) -> None:
    shoe_files.write_batches(bulk.batches(3, 9, batch=2), tmp_path / f"a.{fmt}")
    shoe_files.write_batches([deal_shoes(3, 9)], tmp_path / f"b.{fmt}")
    assert (tmp_path / f"a.{fmt}").read_bytes() == (tmp_path / f"b.{fmt}").read_bytes()


def test_parquet_has_a_row_group_per_batch(tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    shoe_files.write_batches(bulk.batches(3, 10, batch=4), tmp_path / "s.parquet")
    assert pq.ParquetFile(tmp_path / "s.parquet").metadata.num_row_groups == 3


def test_a_failure_midway_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    out = tmp_path / "sims.parquet"
    out.write_bytes(b"old")

    def frames():  # type: ignore[no-untyped-def]
        yield from bulk.batches(1, 4, batch=2)
        raise StorageError("disk full")

    with pytest.raises(StorageError, match="disk full"):
        shoe_files.write_batches(frames(), out)
    assert out.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["sims.parquet"]


def test_a_bad_output_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="must end in"):
        shoe_files.write_batches(bulk.batches(1, 2), tmp_path / "x.txt")
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_show_scans_a_simulation_file_to_the_in_memory_summary(tmp_path: Path, fmt: str) -> None:
    out = tmp_path / f"sims.{fmt}"
    shoe_files.write_batches(bulk.batches(6, 12, batch=5), out)
    text = shoe_files.show_summary(out)
    assert text == shoe_files.summary(deal_shoes(6, 12))
    assert text.startswith("12 shoe(s), ")


@pytest.mark.parametrize(
    "options", [ShoeOptions(), ShoeOptions(decks=1, cut=0, burn_between_hands=True)]
)
def test_parquet_from_arrow_columns_is_the_polars_frames_file_byte_for_byte(
    tmp_path: Path, options: ShoeOptions
) -> None:
    """`simulate` writes Parquet from Arrow columns, never a Polars frame: the very same
    file (schema, Enum metadata, row groups, encodings) as writing the frames."""
    shoe_files.write_batches(bulk.batches(9, 14, options, batch=6), tmp_path / "frames.parquet")
    shoe_files.write_batches(
        bulk.arrow_batches(9, 14, options, batch=6), tmp_path / "arrow.parquet"
    )
    want = (tmp_path / "frames.parquet").read_bytes()
    assert (tmp_path / "arrow.parquet").read_bytes() == want
    assert_frame_equal(pl.read_parquet(tmp_path / "arrow.parquet"), deal_shoes(9, 14, options))
