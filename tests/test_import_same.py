"""A file of many shoes imported a batch at a time (issue 50: frames, bulk inserts, the
next batch read on a thread, ids handed out in order) leaves in the library exactly what
adding its shoes one by one does (the one-shoe path: `Shoes.create` of each shoe as
`ShoeFile.shoe` checks it): the same shoes, names, metadata, rounds and history rows,
ids and times aside; and each shoe's origin digest is the one the landed code gave, so
an import stopped by an earlier version is finished by this one without a shoe twice."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from itertools import count
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.game.rounds import new_ids
from roads_app.game.shoe import ShoeOptions
from roads_app.shoefiles import importing, streaming
from roads_app.sim import bulk
from roads_app.store import db, library
from roads_app.store.connection import Connection
from roads_app.store.frames import sql_frame

FULL = pl.concat(list(bulk.batches(5, 3, ShoeOptions())))
"""Three dealt shoes with their cards (about 80 rounds each)."""
_RUN = count(1)


@st.composite
def files(draw: st.DrawFn) -> pl.DataFrame:
    """A file of dealt shoes (cards) or of short shoes of winners alone, numbered in
    order with gaps."""
    if draw(st.booleans()):
        frame = FULL.filter(pl.col("shoe") <= draw(st.integers(1, 3)))
    else:
        lengths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=12))
        winners = draw(
            st.lists(st.sampled_from("BPT"), min_size=sum(lengths), max_size=sum(lengths))
        )
        shoes = [k for k, n in enumerate(lengths, 1) for _ in range(n)]
        frame = pl.DataFrame({"shoe": shoes, "winner": winners})
    gap = draw(st.integers(0, 5))
    return frame.with_columns(pl.col("shoe") * (gap + 1))


def _rows(c: Connection, sql: str, names: str) -> list[tuple[object, ...]]:
    """A query's rows for the shoes named ``names`` ..., the base name taken out."""
    got = c.execute(sql, (f"{names} %",)).fetchall()
    return sorted(tuple(v.removeprefix(names) if isinstance(v, str) else v for v in r) for r in got)


_SHOES = (
    "SELECT name, source, rules, decks, seed, notes, burn_card, cut, version, rounds, deleted "
    "FROM shoes WHERE name LIKE ?"
)
_ROUNDS = (
    "SELECT s.name, r.round, r.winner, r.player_points, r.banker_points, r.player_pair, "
    "r.banker_pair, r.player_natural, r.banker_natural, r.player_cards, r.banker_cards "
    "FROM rounds r JOIN shoes s ON s.id = r.shoe WHERE s.name LIKE ?"
)
_HISTORY = (
    "SELECT s.name, h.action, h.version, h.rounds, h.round, h.detail "
    "FROM history h JOIN shoes s ON s.id = h.shoe WHERE s.name LIKE ?"
)


def _one_by_one(path: Path, data: Path, base: str) -> None:
    """The file's shoes added one at a time through the one-shoe path."""
    many = streaming.open_shoe_file(path)
    assert many is not None
    store = db.open_store(data)
    for k in many.numbers():
        rounds = many.shoe(k)
        assert rounds is not None
        meta = importing.shoe_meta(many.meta, path.name, f"{base} shoe {k}")
        store.shoes.create(replace(meta, id=new_ids(1)[0]), rounds, action="imported")


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Batches of a few rows: shoes cross batches and the read-ahead thread has work."""
    monkeypatch.setattr(streaming, "BATCH_ROWS", 7)
    yield


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(frame=files())
def test_a_file_in_batches_holds_what_its_shoes_one_by_one_hold(
    backend: str, tmp_path: Path, small_batches: None, frame: pl.DataFrame
) -> None:
    run = next(_RUN)
    path = tmp_path / f"f{run}.parquet"
    frame = frame.with_columns(pl.col("shoe") + 1000 * run)  # a file of its own each time
    frame.write_parquet(path)
    data = tmp_path / "data"
    new, old = f"new{run}", f"old{run}"
    done = library.import_shoes(path, data, name=new)
    _one_by_one(path, data, old)
    assert len(done.ids) == frame["shoe"].n_unique()
    store = db.open_store(data)
    with store.read() as c:
        for sql in (_SHOES, _ROUNDS, _HISTORY):
            assert _rows(c, sql, new) == _rows(c, sql, old)
        ids = [r[0] for r in c.execute("SELECT id FROM shoes WHERE name LIKE ?", (f"{new} %",))]
    assert sorted(ids) == sorted(done.ids)


def test_origins_are_those_the_landed_code_gave(tmp_path: Path) -> None:
    """Digests of two fixed files' shoes as the landed code (before this change) computed
    them (the file's own digest given, so that a Parquet writer's version stamp is not
    what is compared)."""
    path = tmp_path / "two.parquet"
    FULL.filter(pl.col("shoe") <= 2).write_parquet(path)
    small = tmp_path / "tiny.parquet"
    pl.DataFrame({"shoe": [1, 2, 2], "winner": ["B", "P", "T"]}).write_parquet(small)
    got = []
    for f in (path, small):
        many = streaming.open_shoe_file(f)
        assert many is not None
        batch = next(many.batches())
        got.append(library.origins(sql_frame(batch.frame), many.meta, "0" * 32))
    assert got == [
        ["221b819a52c80c78216a89461109f962", "0665f33da7e2739bc4e6b30547949ff6"],
        ["b9d6cbcc0d9de66fcc4d24d4fa7c2641", "6b5234bb941ee4b2d6cf3b991b4624af"],
    ]
