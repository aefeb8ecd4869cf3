"""The shipped sample shoes load cleanly, are what the samples module deals, and a new
dashboard database starts with them."""

from __future__ import annotations

from pathlib import Path

from roads_app.shoefiles import files as shoe_files
from roads_app.shoefiles.samples import sample_shoes, samples_dir, shipped_samples
from roads_app.store import db

DATA = samples_dir()  # found as package data, as an installed app finds them


def test_shipped_samples_load_and_match_their_recipe() -> None:
    for rounds, meta in sample_shoes():
        loaded = shoe_files.read_shoe_file(DATA / f"{meta.id}.parquet")
        assert loaded is not None
        assert loaded[0].equals(rounds), meta.id
        assert loaded[1] == meta
    shipped = {meta.id: (rounds, meta) for rounds, meta in shipped_samples()}
    assert sorted(shipped) == sorted(meta.id for _, meta in sample_shoes())
    for rounds, meta in sample_shoes():
        assert shipped[meta.id][0].equals(rounds) and shipped[meta.id][1] == meta


def test_a_new_dashboard_database_starts_with_the_samples(tmp_path: Path) -> None:
    store = db.open_store(tmp_path, samples=True)
    want = {m.id: (r, m) for r, m in sample_shoes()}
    assert set(store.shoes.list()["id"].to_list()) == set(want)
    for shoe_id, (rounds, meta) in want.items():
        saved = store.shoes.load(shoe_id)
        assert saved.rounds.equals(rounds) and saved.meta == meta


def test_scripts_and_an_existing_database_get_no_samples(tmp_path: Path) -> None:
    assert db.open_store(tmp_path / "a").shoes.list().height == 0
    db.open_store(tmp_path / "b").close()
    db.forget_stores()
    assert db.open_store(tmp_path / "b", samples=True).shoes.list().height == 0
