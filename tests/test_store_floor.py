"""Floor tables in the library (`store.floor`), on SQLite and PostgreSQL: a table deals
shoe after shoe, each shoe numbered in its day and each round coded; every refusal
leaves the library as it was; two feeders on one table lose and double nothing; a
library made before floor tables is upgraded in place with every row kept; a change of
a table wakes the change feed."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from roads_app.bets import ledger
from roads_app.errors import FloorError, RoadsAppError
from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits, TableState
from roads_app.store import connection, copying, db, watch
from roads_app.store.floor import Enter, today

LIMITS = FloorLimits.of((10, 5000), (10, 500), (10, 500))


def winner(letter: str) -> Enter:
    """Enter one round by its winner (the entry operation the API and CLI use)."""
    return lambda rounds, decks: game_rounds.add_winner(rounds, letter, decks=decks)


def everything(store: db.Store) -> dict[str, list[Any]]:
    """Every row the library holds that a table's change could touch."""
    with store.read() as c:
        return {
            t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall()
            for t in ("floor_tables", "shoes", "rounds", "history")
        }


def test_a_table_deals_shoe_after_shoe(tmp_path: Path, backend: str) -> None:
    store = db.open_store(tmp_path)
    store.floor.add("b07", "Table 7", "asian-live", LIMITS)
    store.floor.add("A1", "Table 1", "classic", FloorLimits.of((1, 100)), position=0)
    assert [t.code for t in store.floor.list()] == ["A1", "B07"]  # floor order
    table = store.floor.get("B07")
    assert (table.state, table.shoe, table.limits) == (TableState.CLOSED, None, LIMITS)

    store.floor.open("B07")
    first = store.floor.append("B07", winner("B"))
    assert first.started and first.table.state is TableState.OPEN
    day = today().replace("-", "")
    assert first.codes == [f"B07-{day}-01-01"]
    assert first.table == store.floor.get("B07")  # the answer's table is the stored one
    second = store.floor.append("B07", winner("P"))
    assert not second.started and second.shoe == first.shoe
    assert second.table == store.floor.get("B07") and second.table.shoe_rounds == 2
    assert second.codes == [f"B07-{day}-01-02"]

    shuffled = store.floor.shuffle("B07")
    assert shuffled.state is TableState.SHUFFLING and shuffled.shoe_ended
    assert shuffled.shoe == first.shoe and shuffled.shoe_rounds == 2  # the last shoe's counts
    third = store.floor.append("B07", winner("T"))
    assert third.started and third.shoe != first.shoe
    assert third.table.state is TableState.OPEN and third.codes == [f"B07-{day}-02-01"]

    history = store.floor.day("B07")
    assert [(s.number, s.hands) for s in history.shoes] == [(1, 2), (2, 1)]
    assert (history.hands, history.banker, history.player, history.tie) == (3, 1, 1, 1)
    assert history.hands_per_hour is not None and history.hands_per_hour > 0
    assert store.floor.day("B07", "2001-01-01").shoes == []

    store.floor.close("B07")
    assert store.shoes.ended(third.shoe) is not None  # closing ends the shoe being dealt


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.floor.add("B07", "Again", "classic", FloorLimits.of((1, 10))),
        lambda s: s.floor.add("C 1", "Bad code", "classic", FloorLimits.of((1, 10))),
        lambda s: s.floor.add("C1", "Rules", "no-such-rules", FloorLimits.of((1, 10))),
        lambda s: s.floor.add("C1", "Over", "classic", FloorLimits.of((1, 20000))),
        lambda s: s.floor.add("C1", "Pairs", "classic", FloorLimits.of((1, 10), None, (1, 5))),
        lambda s: s.floor.edit("B07", limits=FloorLimits.of((1, 99999))),
        lambda s: s.floor.edit("B07", rules="classic"),  # its pair limits: classic has none
        lambda s: s.floor.get("NOPE"),
        lambda s: s.floor.shuffle("NOPE"),
        lambda s: s.floor.shuffle("B07"),  # sent twice
        lambda s: s.floor.set_state("B07", "dealing"),
        lambda s: s.floor.open("B07"),
        lambda s: s.floor.day("B07", "yesterday"),
    ],
)
def test_bad_input_is_one_line_and_changes_nothing(
    tmp_path: Path, backend: str, change: Any
) -> None:
    store = db.open_store(tmp_path)
    store.floor.add("B07", "Table 7", "asian-live", LIMITS)
    store.floor.open("B07")
    store.floor.append("B07", winner("B"))
    store.floor.shuffle("B07")
    before = everything(store)
    with pytest.raises(FloorError) as e:
        change(store)
    assert "\n" not in str(e.value)
    assert everything(store) == before


def test_a_closed_table_takes_no_round(tmp_path: Path, backend: str) -> None:
    store = db.open_store(tmp_path)
    store.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))
    before = everything(store)
    with pytest.raises(FloorError, match="B07 is closed"):
        store.floor.append("B07", winner("B"))
    assert everything(store) == before


@pytest.mark.parametrize("gone", ["ended", "in the trash", "purged"])
def test_a_tables_shoe_ended_or_deleted_by_itself_gets_a_new_shoe_at_the_next_hand(
    tmp_path: Path, backend: str, gone: str
) -> None:
    """A table's shoe ended, trashed or purged through the shoe itself (``shoes end``,
    ``shoes delete``, the trash emptied) while the table stays open: its next hand
    starts the next shoe of the day, never into the shoe that left."""
    store = db.open_store(tmp_path)
    store.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))
    store.floor.open("B07")
    first = store.floor.append("B07", winner("B"))
    if gone == "ended":
        store.shoes.end(first.shoe)
    else:
        store.shoes.delete(first.shoe)
        if gone == "purged":
            store.shoes.empty_trash([first.shoe])
    second = store.floor.append("B07", winner("P"))
    assert second.started and second.shoe != first.shoe
    assert second.table.shoe_number == 2 and second.table.state is TableState.OPEN
    assert second.codes == [f"B07-{today().replace('-', '')}-02-01"]  # a purged shoe's number too
    third = store.floor.append("B07", winner("T"))
    assert not third.started and third.shoe == second.shoe and third.table.shoe_rounds == 2


def test_two_feeders_on_one_table_lose_and_double_nothing(tmp_path: Path, backend: str) -> None:
    """Two stores (each its own connections, as two replicas) feed one shuffling table at
    once: one shoe is started, not two, and every round is in it once."""
    first = db.Store(tmp_path)
    first.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))
    first.floor.open("B07")
    first.floor.append("B07", winner("B"))
    first.floor.shuffle("B07")
    go = threading.Barrier(2)
    errors: list[BaseException] = []

    def feed(letter: str) -> None:
        store = db.Store(tmp_path)
        go.wait()
        try:
            for _ in range(15):
                store.floor.append("B07", winner(letter))
        except BaseException as e:
            errors.append(e)
        finally:
            store.close()

    threads = [threading.Thread(target=feed, args=(w,)) for w in "BP"]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    table = first.floor.get("B07")
    assert table.shoe_number == 2 and table.shoe_rounds == 30
    rounds = first.shoes.load(table.shoe or "").rounds
    assert rounds["round"].to_list() == list(range(1, 31))
    assert sorted(rounds["winner"].value_counts().rows()) == [("B", 15), ("P", 15)]
    assert [s.number for s in first.floor.day("B07").shoes] == [1, 2]


def test_an_old_library_is_upgraded_with_every_row_kept(
    tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A library written before floor tables (the migrations before theirs) keeps every
    shoe, round, bet and history row; its shoes belong to no table."""
    mine = connection.MIGRATIONS.index(
        next(m for m in connection.MIGRATIONS if "floor_tables" in m[1])
    )
    monkeypatch.setattr(connection, "SCHEMA_VERSION", mine)
    old = db.Store(tmp_path)
    with pytest.raises(RoadsAppError):
        old.floor.list()  # no floor yet: this is the old library
    meta = game_rounds.ShoeMeta(name="old shoe")
    old.shoes.create(meta, game_rounds.rounds_from_winners("BPPTB"))
    old.rounds.undo(meta.id, None)
    old.bets.change(meta.id, "bets", lambda bets: ledger.place(bets, "banker", 10.0, round_no=5))
    old.shoes.create(game_rounds.ShoeMeta(name="second"), game_rounds.rounds_from_winners("TT"))
    with old.read() as c:
        before = {
            t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall()
            for t in ("shoes", "rounds", "bets", "history")
        }
    old.close()
    assert before["bets"] and len(before["history"]) >= 4
    monkeypatch.setattr(connection, "SCHEMA_VERSION", len(connection.MIGRATIONS))

    new = db.Store(tmp_path)
    with new.read() as c:
        after = {
            t: c.execute(f"SELECT * FROM {t} ORDER BY 1, 2, 3").fetchall()
            for t in ("shoes", "rounds", "bets", "history")
        }
        links = c.execute("SELECT floor_table, floor_day, floor_number FROM shoes").fetchall()
    width = len(before["shoes"][0])
    assert [r[:width] for r in after["shoes"]] == before["shoes"]
    assert set(links) == {(None, None, None)}
    assert {t: after[t] for t in ("rounds", "bets", "history")} == {
        t: before[t] for t in ("rounds", "bets", "history")
    }
    assert new.floor.list() == []
    new.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))  # and it works


def test_a_change_of_a_table_wakes_the_change_feed(tmp_path: Path, backend: str) -> None:
    store = db.open_store(tmp_path)
    source = watch.source_for(tmp_path, store.url)
    watcher = watch.Watcher(source)
    try:
        watcher.poll()
        store.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))
        store.floor.open("B07")
        changed: frozenset[str] = frozenset()
        for _ in range(100):  # the notification's arrival, not a time
            changed |= watcher.poll(0.1)
            seen = watcher.table("B07")
            if seen is not None and seen.state == "open":
                break
        assert watch.TABLE_KEY + "B07" in changed
        assert watcher.tables()["B07"].state == "open"
        assert watcher.shoes() == {}  # a table is no shoe
        dealt = store.floor.append("B07", winner("B"))
        for _ in range(100):
            watcher.poll(0.1)
            seen = watcher.table("B07")
            if seen is not None and seen.shoe == dealt.shoe and watcher.shoe(dealt.shoe):
                break
        assert watcher.table("B07").shoe == dealt.shoe  # type: ignore[union-attr]
        assert watcher.shoe(dealt.shoe) is not None
    finally:
        source.close()


def test_a_library_copied_to_postgresql_keeps_its_floor(tmp_path: Path, pg_url: str) -> None:
    source = db.Store(tmp_path / "a", url=None, from_env=False)
    source.floor.add("B07", "Table 7", "asian-live", LIMITS)
    source.floor.open("B07")
    dealt = source.floor.append("B07", winner("B"))
    source.floor.shuffle("B07")
    target = db.Store(tmp_path / "b", url=pg_url)
    copying.copy_library(source, target)
    assert target.floor.list() == source.floor.list()
    assert target.floor.day("B07") == source.floor.day("B07")
    again = target.floor.append("B07", winner("P"))  # the next shoe, numbered on from there
    assert again.started and again.table.shoe_number == 2 and again.shoe != dealt.shoe
