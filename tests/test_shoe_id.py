"""A shoe id is checked by one rule (`roads_app.game.rounds.is_shoe_id`), whichever door
it comes through: the library, a shoe's metadata, the pages' follow and tile routes.

The follow route once had its own pattern, which let a leading ``-`` or ``_`` through
that the game's rule refused; these tests ask every door the same texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from starlette.applications import Starlette
from starlette.testclient import TestClient

from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta, check_shoe_id, is_shoe_id
from roads_app.ui import follow, wall_tile

TEXTS = st.one_of(
    st.text(st.sampled_from("aZ09-_./ \n\\"), max_size=66),
    st.from_regex(r"[A-Za-z0-9_-]{1,65}", fullmatch=True),
    st.text(st.characters(exclude_categories=("Cs",)), max_size=8),
)
"""Ids and near misses: path pieces, a leading ``-`` or ``_``, 64 and 65 characters."""

NOT_THE_VERSION = "never"
"""A version no shoe has: the follow route answers at once instead of waiting."""


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    """The pages' own routes (follow and tile) on an empty library, served once."""
    data_dir: Path = tmp_path_factory.mktemp("data")
    return TestClient(Starlette(routes=[*follow.routes(data_dir), *wall_tile.routes(data_dir)]))


def _library_takes(text: str) -> bool:
    try:
        check_shoe_id(text)
    except RoadsAppError:
        return False
    return True


def _meta_takes(text: str) -> bool:
    try:
        ShoeMeta(id=text)
    except RoadsAppError:
        return False
    return True


@settings(max_examples=60, deadline=None)
@given(TEXTS)
@example("-leading-dash")
@example("_leading_underscore")
@example("a" * 64)
@example("a" * 65)
@example("id\n")
def test_every_door_takes_the_ids_the_game_rule_takes(client: TestClient, text: str) -> None:
    rule = is_shoe_id(text)
    assert _library_takes(text) == rule
    assert _meta_takes(text) == rule
    followed = client.get(follow.ROUTE, params={"shoe": text, "v": NOT_THE_VERSION})
    assert followed.status_code == (200 if rule else 400), followed.text
    tile = client.get(wall_tile.ROUTE, params={"shoe": text})  # no language: refused after
    assert tile.status_code == 400
    assert tile.json()["detail"].startswith("tile:" if rule else "shoe:"), tile.text


def test_a_shoe_id_is_a_plain_name_of_at_most_64_characters() -> None:
    assert is_shoe_id("sample-sim-seed-1") and is_shoe_id("7") and is_shoe_id("a" * 64)
    for bad in ("", "-x", "_x", "a/b", "..", "a b", "a" * 65, "x\n", "é", None, 7):
        assert not is_shoe_id(bad), bad
