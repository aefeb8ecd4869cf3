"""The shipped sample shoes load cleanly and are what the samples module deals."""

from __future__ import annotations

from pathlib import Path

from roads_app.store import files as storage
from roads_app.store.samples import sample_shoes

DATA = Path(__file__).resolve().parent.parent / "data"


def test_shipped_samples_load_and_match_their_recipe() -> None:
    for rounds, meta in sample_shoes():
        loaded, loaded_meta = storage.load_shoe(meta.id, DATA)
        assert loaded.equals(rounds), meta.id
        assert loaded_meta == meta
    listed = storage.list_shoes(DATA)
    assert listed["error"].null_count() == listed.height
    assert {"simulated", "hand"} <= set(listed["source"].to_list())
