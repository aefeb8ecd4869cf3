"""The rounds table's checks: a round's winner is checked by comparisons, which SQLite
evaluates in place, not by ``IN (a list)``, for which it builds a lookup table again for
every row inserted (half an import's time a round row); a library made before that is
upgraded in place with every row kept, and the rule still holds on both databases."""

from __future__ import annotations

from pathlib import Path

import pytest

from roads_app.errors import StorageError
from roads_app.game import rounds as game_rounds
from roads_app.store import connection, db

INSERT = "INSERT INTO rounds (shoe, round, winner) VALUES (?, ?, ?)"


def test_inserting_a_round_builds_no_lookup_table(tmp_path: Path) -> None:
    store = db.Store(tmp_path)
    with store.read() as c:
        program = [row[1] for row in c.execute("EXPLAIN " + INSERT, ("x", 1, "B")).fetchall()]
    assert "Insert" in program or "IdxInsert" in program
    assert "OpenEphemeral" not in program


def test_a_library_of_the_old_check_is_upgraded_with_every_round_kept(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "SCHEMA_VERSION", connection.SCHEMA_VERSION - 1)
    old = db.Store(tmp_path)
    shoes = [game_rounds.ShoeMeta(name=n) for n in ("one", "two")]
    old.shoes.create(shoes[0], game_rounds.rounds_from_winners("BPPTB"))
    old.shoes.create(shoes[1], game_rounds.rounds_from_winners("TT"))
    with old.read() as c:
        before = c.execute("SELECT * FROM rounds ORDER BY shoe, round").fetchall()
    old.close()
    monkeypatch.setattr(connection, "SCHEMA_VERSION", len(connection.MIGRATIONS))

    new = db.Store(tmp_path)
    with new.read() as c:
        assert c.execute("SELECT * FROM rounds ORDER BY shoe, round").fetchall() == before
    assert len(before) == 7
    with pytest.raises(StorageError, match="winner"), new.write() as c:  # the rule holds
        c.execute(INSERT, (shoes[1].id, 3, "X"))
    new.shoes.delete(shoes[0].id)
    new.shoes.empty_trash([shoes[0].id])  # the cascade to the rounds holds too
    with new.read() as c:
        assert c.execute("SELECT count(*) FROM rounds").fetchone()[0] == 2


def test_a_bad_winner_is_refused_by_the_database(tmp_path: Path) -> None:
    store = db.Store(tmp_path)
    meta = game_rounds.ShoeMeta(name="one")
    store.shoes.create(meta)
    for letter in ("B", "P", "T"):
        with store.write() as c:
            c.execute(INSERT, (meta.id, "BPT".index(letter) + 1, letter))
    with pytest.raises(StorageError, match="winner"), store.write() as c:
        c.execute(INSERT, (meta.id, 4, "b"))
