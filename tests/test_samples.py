"""The shipped sample shoes load cleanly and are what the samples module deals."""

from __future__ import annotations

from roads_app.store import files as storage
from roads_app.store.samples import sample_shoes, samples_dir, shipped_samples

DATA = samples_dir()  # found as package data, as an installed app finds them


def test_shipped_samples_load_and_match_their_recipe() -> None:
    for rounds, meta in sample_shoes():
        loaded, loaded_meta = storage.load_shoe(meta.id, DATA)
        assert loaded.equals(rounds), meta.id
        assert loaded_meta == meta
    shipped = {meta.id: (rounds, meta) for rounds, meta in shipped_samples()}
    assert sorted(shipped) == sorted(meta.id for _, meta in sample_shoes())
    for rounds, meta in sample_shoes():
        assert shipped[meta.id][0].equals(rounds) and shipped[meta.id][1] == meta
    listed = storage.list_shoes(DATA)
    assert listed["error"].null_count() == listed.height
    assert {"simulated", "hand"} <= set(listed["source"].to_list())
