"""Many shoes in one statement: the rows an import's batch makes, and its all-or-none."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.game.rounds import ShoeMeta, add_cards, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.store import db
from roads_app.store.frames import ROUND_COLS, rows_of


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    hand=st.text("BPT", max_size=90),
    start=st.integers(0, 80),
    length=st.integers(0, 200),
)
def test_many_rounds_make_the_same_rows_as_one_at_a_time(
    seed: int, hand: str, start: int, length: int
) -> None:
    """Polars converts an import's many rounds, a loop a key press's one: the same rows,
    cards, flags, points and missing values alike."""
    dealt = deal_shoe(seed).rounds
    frame = pl.concat([dealt, rounds_from_winners(hand), dealt]).slice(start, length)
    one_by_one = [r for i in range(frame.height) for r in rows_of(frame.slice(i, 1))]
    assert rows_of(frame) == one_by_one
    ids = pl.Series([f"s{i % 7}" for i in range(frame.height)])
    assert rows_of(frame, ids) == [(i, *r) for i, r in zip(ids, one_by_one, strict=True)]
    assert all(len(r) == len(ROUND_COLS) for r in one_by_one)


def _shoes(n: int) -> list[tuple[pl.DataFrame, ShoeMeta]]:
    out = []
    for k in range(n):
        rounds = deal_shoe(k).rounds if k % 3 else rounds_from_winners("BPT"[: k % 4])
        out.append((rounds, ShoeMeta(id=f"shoe{k}", name=f"shoe {k}")))
    return out


@pytest.mark.usefixtures("backend")
def test_a_batch_of_shoes_reads_back_shoe_by_shoe(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    shoes = _shoes(12)
    shoes.append((add_cards(rounds_from_winners(""), "9s Kd", "5c 2h"), ShoeMeta(id="cards")))
    assert store.shoes.create_many(shoes) == 13
    for rounds, meta in shoes:
        saved = store.shoes.load(meta.id)
        assert saved.rounds.equals(rounds) and saved.meta == meta and saved.version == 1
        history = store.history.of(meta.id)
        assert history["action"].to_list() == ["imported"]
        assert history["rounds"].to_list() == [rounds.height]


@pytest.mark.usefixtures("backend")
@pytest.mark.parametrize("clash", ["saved", "trashed", "twice"])
def test_a_batch_with_a_taken_id_is_refused_whole(tmp_path: Path, clash: str) -> None:
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="old"), rounds_from_winners("BB"))
    if clash == "trashed":
        store.shoes.delete("old")
    shoes = _shoes(9)
    taken = shoes[2][1] if clash == "twice" else ShoeMeta(id="old")
    shoes.insert(5, (rounds_from_winners("P"), taken))
    with pytest.raises(db.StaleShoeError, match="taken"):
        store.shoes.create_many(shoes)
    assert [r[0] for r in store.con.execute("SELECT id FROM shoes").fetchall()] == ["old"]
    assert store.con.execute("SELECT count(*) FROM rounds").fetchone()[0] == 2
    assert store.con.execute("SELECT count(*) FROM history").fetchone()[0] == 1 + (
        clash == "trashed"
    )
