"""The shipped sample shoes load cleanly, are what the samples module deals, and a new
dashboard database starts with them."""

from __future__ import annotations

from pathlib import Path

from roads_app.shoefiles import files as shoe_files
from roads_app.shoefiles.samples import is_sample, sample_shoes, samples_dir, shipped_samples
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


def test_every_sample_is_known_as_one_and_kept_off_the_wall(tmp_path: Path) -> None:
    """What a sample is, is one rule (`is_sample`): the wall of live tables leaves every
    shipped sample out, even one a person goes on entering rounds into as ``hand``."""
    from roads_app.game.rounds import ShoeMeta
    from roads_app.store import library

    for _, meta in sample_shoes():
        assert is_sample(meta.id), meta.id
        assert not library.on_the_wall(meta.id, library.WALL_SOURCE, False)
    store = db.open_store(tmp_path, samples=True)
    mine = ShoeMeta(name="Table 7")
    store.shoes.create(mine, sample_shoes()[-1][0])
    assert not is_sample(mine.id)
    assert library.lobby_shoes(tmp_path)["id"].to_list() == [mine.id]
