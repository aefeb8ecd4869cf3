"""What a screen key bound to a floor table may show, the one rule (`store.tokens`) the
dashboard's pages and its follow and tile routes ask: that table, the shoes dealt at it
and nothing else (another table, its shoes, a shoe of no table); a key of no one table,
everything. Asked of a real library (SQLite and PostgreSQL) with tables that dealt
several shoes."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.errors import RoadsAppError
from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, tokens
from roads_app.store.watch import TABLE_KEY

CODES = ("B07", "B7", "C01", "B07-2")
"""Tables whose codes are near one another (a prefix, a suffix)."""


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def floor(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[db.Store, dict[str, str | None]]:
    """A library on each database: each table dealt two shoes (a shuffle between), and
    two shoes of no table; each shoe id with the table it was dealt at."""
    url = None
    if request.param == "postgresql":
        url = request.getfixturevalue("pg_server").new_database()
    store = db.open_store(tmp_path_factory.mktemp("screen_keys") / "data", url=url)
    dealt: dict[str, str | None] = {}
    for code in CODES:
        store.floor.add(code, f"Table {code}", "classic", FloorLimits.of((10, 5000)))
        store.floor.open(code)
        for _ in range(2):
            shoe = store.floor.append(
                code, lambda r, d: game_rounds.add_winner(r, "B", decks=d)
            ).shoe
            dealt[shoe] = code
            store.floor.shuffle(code)
    for name in ("by hand", "B07"):  # one named as a table is still a shoe of none
        meta = ShoeMeta(name=name, source="hand")
        store.shoes.create(meta, rounds_from_winners("BP"))
        dealt[meta.id] = None
    return store, dealt


BOUND = st.one_of(
    st.none(),
    st.sampled_from(CODES).map(str.lower),
    st.sampled_from((*CODES, "B0", "Z9", "07")),
)


@settings(max_examples=40, deadline=None)
@given(bound=BOUND, asked=st.lists(st.sampled_from((*CODES, "a", "B07-x")), max_size=6))
def test_a_tables_key_sees_its_table_and_its_shoes_alone(
    floor: tuple[db.Store, dict[str, str | None]], bound: str | None, asked: list[str]
) -> None:
    store, dealt = floor
    own = None if bound is None else bound.upper()
    ids = [*dealt, *(f"{a}-not-a-shoe" for a in asked)]
    kept = tokens.screen_keeps(store, bound, ids)
    if own is None:
        assert kept == set(ids)
    else:
        assert kept == {s for s, t in dealt.items() if t == own}
    for shoe in ids:
        assert tokens.screen_sees(store, bound, shoe) == (shoe in kept), shoe
    for code in (*CODES, *asked):
        assert tokens.screen_sees(store, bound, TABLE_KEY + code) == (
            own is None or code.upper() == own
        ), code


def test_a_wall_of_many_shoes_is_asked_in_parts(
    floor: tuple[db.Store, dict[str, str | None]],
) -> None:
    """More ids than one statement asks about: the table's shoes among them all, the
    last one too."""
    store, dealt = floor
    ids = [f"x{i}" for i in range(1200)] + list(dealt)
    assert tokens.screen_keeps(store, "B07", ids) == {s for s, t in dealt.items() if t == "B07"}


def test_a_keys_table_is_kept_as_the_floor_keeps_it(tmp_path: Path) -> None:
    data = tmp_path / "data"
    key = tokens.issue_screen(data, "b07")
    found = db.open_store(data).tokens.key(tokens.hash_token(key))
    assert found is not None and found.table == "B07"
    for bad in ("B 07", "-B07", "B_07", "X" * 17):
        with pytest.raises(RoadsAppError, match="--table"):
            tokens.issue_screen(data, bad)
