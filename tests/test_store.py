"""The store's own rules: versions and stale refusals, history and bringing back an undone
round, the migration of an old Parquet folder, and databases it must refuse to touch."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import threading
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.cli import main
from roads_app.errors import StorageError
from roads_app.game.rounds import ShoeMeta, add_cards, rounds_from_winners, undo
from roads_app.game.shoe import deal_shoe
from roads_app.shoefiles.files import META_KEY
from roads_app.store import connection, db


def winners(frame: pl.DataFrame) -> str:
    return "".join(frame["winner"].cast(pl.String).to_list())


# --- versions, the smallest write, history ------------------------------------------------


@pytest.mark.usefixtures("backend")
def test_a_read_sent_ahead_never_hides_the_changes_own_writes(tmp_path: Path) -> None:
    """The reads a change sends with its write lock (`Database.write`'s ``ahead``) are
    answered from what was read, until the change writes: after that the same query
    sees the change's own write, and a change that failed leaves nothing read ahead."""
    store = db.Store(tmp_path)
    v = store.shoes.create(ShoeMeta(id="s"))
    with store.write(ahead=store.shoes.ahead("s")) as c:
        assert store.shoes.current(c, "s") == (v, 0) and store.shoes.version("s") == v
        v = store.rounds.append_in(c, "s", rounds_from_winners("BP"), v)
        assert store.shoes.current(c, "s") == (v, 2) and store.shoes.version("s") == v == 3
    with pytest.raises(RuntimeError), store.write(ahead=store.shoes.ahead("s")) as c:
        store.shoes.bump(c, "s", v, 2)
        raise RuntimeError("refused after its first write")
    with store.write(ahead=store.shoes.ahead("s")) as c:
        c.execute("UPDATE shoes SET name = ? WHERE id = ?", ("Table 3", "s"))
        assert store.shoes.current(c, "s") == (3, 2)
        assert c.execute("SELECT name FROM shoes WHERE id = ?", ("s",)).fetchone() == ("Table 3",)
    assert store.shoes.version("s") == 3 and store.shoes.meta("s").name == "Table 3"


@pytest.mark.usefixtures("backend")
@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(st.sampled_from(["B", "P", "T", "undo", "redo", "edit"]), max_size=40))
def test_any_sequence_of_entries_reads_back_as_the_frame_a_tab_holds(
    tmp_path: Path, ops: list[str]
) -> None:
    """save_rounds picks append / undo / edit; the stored frame always equals the tab's."""
    store = db.Store(tmp_path / f"d{abs(hash(tuple(ops)))}")
    meta = ShoeMeta()
    version = store.shoes.create(meta)
    shown = rounds_from_winners("")
    for op in ops:
        if op == "redo":
            if store.rounds.redoable(meta.id).height:
                version = store.rounds.redo(meta.id, version)
                shown = store.shoes.load(meta.id).rounds
            continue
        if op == "undo":
            if not shown.height:
                continue
            new = undo(shown)
        elif op == "edit":
            if not shown.height:
                continue
            new = rounds_from_winners(winners(shown)[:-1] + "T")
        else:
            new = rounds_from_winners(winners(shown) + op)
        version = store.rounds.save(meta.id, shown, new, version)
        shown = new
    saved = store.shoes.load(meta.id)
    assert saved.rounds.equals(shown) and saved.version == version
    hist = store.history.of(meta.id)
    assert hist["version"].to_list() == list(range(1, version + 1))
    store.close()


@pytest.mark.usefixtures("backend")
def test_cards_and_flags_survive_the_database_exactly(tmp_path: Path) -> None:
    dealt = deal_shoe(5)
    store = db.open_store(tmp_path)
    store.shoes.create(dealt.meta, dealt.rounds)
    saved = store.shoes.load(dealt.meta.id)
    assert saved.rounds.equals(dealt.rounds) and saved.meta == dealt.meta
    r = add_cards(rounds_from_winners(""), "9s Kd", "5c 2h")
    store.shoes.create(ShoeMeta(id="c"), r)
    assert store.shoes.load("c").rounds.equals(r)


@pytest.mark.usefixtures("backend")
def test_a_stale_version_is_refused_but_a_rename_or_bet_meanwhile_is_not(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    v1 = store.shoes.create(ShoeMeta(id="s"), rounds_from_winners("BP"))
    store.shoes.rename("s", "other name")  # another tab renames: this tab's rounds are still right
    v2 = store.rounds.append("s", rounds_from_winners("T"), v1)
    with pytest.raises(db.StaleShoeError, match=r"another tab.*3 rounds saved there, 2 here"):
        store.rounds.append("s", rounds_from_winners("B"), v1)  # the rounds moved on since v1
    store.shoes.delete("s")
    with pytest.raises(db.StaleShoeError, match="deleted elsewhere"):
        store.rounds.append("s", rounds_from_winners("B"), v2)
    store.shoes.restore("s")
    assert winners(store.shoes.load("s").rounds) == "BPT"
    with pytest.raises(db.StaleShoeError, match="already taken"):
        store.shoes.create(ShoeMeta(id="s"))


@pytest.mark.usefixtures("backend")
def test_undo_of_an_undo_brings_back_the_very_round(tmp_path: Path) -> None:
    store = db.open_store(tmp_path)
    r = add_cards(rounds_from_winners("BP"), "9s Kd", "5c 2h")
    v = store.shoes.create(ShoeMeta(id="s"), r)
    v = store.rounds.undo("s", v)
    v = store.rounds.undo("s", v)
    assert winners(store.rounds.redoable("s")) == "PP"  # next to come back first
    v = store.rounds.redo("s", v)
    v = store.rounds.redo("s", v)
    assert store.shoes.load("s").rounds.equals(r)
    with pytest.raises(StorageError, match="nothing to bring back"):
        store.rounds.redo("s", v)
    v = store.rounds.undo("s", v)
    v = store.rounds.append("s", rounds_from_winners("T"), v)  # a new result ends the redo run
    assert store.rounds.redoable("s").height == 0
    actions = store.history.of("s")["action"].to_list()
    assert actions == ["created", "undone", "undone", "redone", "redone", "undone", "entered"]


# --- the old Parquet folder -------------------------------------------------------------


def old_file(folder: Path, rounds: pl.DataFrame, meta: ShoeMeta, stem: str | None = None) -> Path:
    """A shoe as the file store wrote it: <id>.parquet with the metadata inside."""
    path = folder / f"{stem or meta.id}.parquet"
    rounds.write_parquet(path, metadata={META_KEY: json.dumps(meta.to_dict())})
    return path


def test_an_old_parquet_folder_is_imported_once_with_ids_names_and_bets(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    a, b = deal_shoe(1), deal_shoe(2)
    ma = ShoeMeta.from_dict({**a.meta.to_dict(), "name": "Friday"})
    old_file(tmp_path, a.rounds, ma)
    old_file(tmp_path, b.rounds, b.meta)
    old_file(tmp_path, a.rounds.head(3), ma, stem="backup")  # a copy: same id inside
    bets = pl.DataFrame(
        {
            "id": [1, 2],
            "round": [4, 5],
            "bet": ["banker", "tie"],
            "stake": [5.0, 1.0],
            "voided": [False, True],
        },
        schema={
            "id": pl.Int32,
            "round": pl.Int32,
            "bet": pl.String,
            "stake": pl.Float64,
            "voided": pl.Boolean,
        },
    )
    bets.write_parquet(tmp_path / f"{ma.id}.bets.parquet")
    (tmp_path / "broken.parquet").write_bytes(b"PAR1 not really")
    deal = pl.DataFrame({"shoe": [1], "winner": ["B"]})
    deal.write_parquet(tmp_path / "sims.parquet")  # a multi-shoe file: stays a file
    files_before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    with caplog.at_level(logging.WARNING, logger="roads_app.store.old_files"):
        store = db.open_store(tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.suffix == ".parquet"} == (
        files_before
    )
    listed = store.shoes.list()
    assert listed.height == 3 and {ma.id, b.meta.id} <= set(listed["id"].to_list())
    got = store.shoes.load(ma.id)
    assert got.meta.name == "Friday" and got.rounds.equals(a.rounds)  # the copy did not win
    copy = listed.filter(~pl.col("id").is_in([ma.id, b.meta.id])).row(0, named=True)
    assert copy["name"] == "Friday (backup.parquet)" and copy["rounds"] == 3
    assert store.shoes.load(b.meta.id).rounds.equals(b.rounds)
    # an old file knows no chip actions: each bet was its own
    assert store.bets.load(ma.id).equals(bets.with_columns(placement=pl.col("id")))
    said = [r.getMessage() for r in caplog.records if "imported 3 saved shoe" in r.getMessage()]
    assert len(said) == 1 and "left as they are" in said[0]
    assert any("broken.parquet" in r.getMessage() for r in caplog.records)
    db.forget_stores()
    caplog.clear()
    again = db.open_store(tmp_path)  # second start: nothing imported twice
    assert again.shoes.list().height == 3
    assert not [r for r in caplog.records if "imported" in r.getMessage()]


# --- databases the store must not touch ------------------------------------------------


def test_a_corrupt_foreign_or_newer_database_is_refused_and_left_alone(tmp_path: Path) -> None:
    corrupt = tmp_path / "a"
    corrupt.mkdir()
    junk = b"SQLite format 3\x00" + bytes(range(256)) * 40
    (corrupt / "roads.db").write_bytes(junk)
    with pytest.raises(StorageError, match=r"roads\.db.*left as it is") as e:
        db.open_store(corrupt)
    assert "\n" not in str(e.value)
    assert (corrupt / "roads.db").read_bytes() == junk

    foreign = tmp_path / "b"
    foreign.mkdir()
    with sqlite3.connect(foreign / "roads.db") as con:
        con.execute("CREATE TABLE invoices (n INTEGER)")
    before = (foreign / "roads.db").read_bytes()
    with pytest.raises(StorageError, match=r"roads\.db: is an SQLite database of another"):
        db.open_store(foreign)
    assert (foreign / "roads.db").read_bytes() == before

    newer = tmp_path / "c"
    db.open_store(newer).close()
    db.forget_stores()
    with sqlite3.connect(newer / "roads.db") as con:
        con.execute("INSERT INTO schema_migrations VALUES (99, 'future', 'later')")
    with pytest.raises(StorageError, match="newer roads-app"):
        db.open_store(newer)


def test_a_database_locked_past_the_busy_timeout_is_one_line_and_unchanged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.2)
    store = db.Store(tmp_path)
    store.shoes.create(ShoeMeta(id="s", name="before"))
    other = sqlite3.connect(tmp_path / "roads.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another program holds the write lock
    try:
        with pytest.raises(StorageError, match="busy") as e:
            store.shoes.rename("s", "after")
        assert "\n" not in str(e.value)
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert store.shoes.load("s").meta.name == "before"
    store.close()


def test_a_writer_of_this_process_waits_for_another_on_the_process_lock_not_on_sqlite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two stores of one folder in one process (as the API's threads are): while one
    writes, the other waits on the process's lock and never asks SQLite for its write
    lock (whose wait sleeps up to 25 ms between tries); past the timeout it is the same
    one-line refusal, and nothing is changed."""
    monkeypatch.setattr(connection, "BUSY_TIMEOUT_S", 0.2)
    first, second = db.Store(tmp_path), db.Store(tmp_path)
    first.shoes.create(ShoeMeta(id="s", name="before"))
    asked: list[str] = []
    refused: list[BaseException] = []
    writing, done = threading.Event(), threading.Event()

    def hold() -> None:
        with first.write() as c:
            c.execute("UPDATE shoes SET name = 'held' WHERE id = 's'")
            writing.set()
            done.wait(30)
            c.execute("UPDATE shoes SET name = 'before' WHERE id = 's'")

    def other() -> None:
        second.con.set_trace_callback(asked.append)
        try:
            second.shoes.rename("s", "after")
        except StorageError as e:
            refused.append(e)

    holder = threading.Thread(target=hold)
    holder.start()
    assert writing.wait(30)
    t = threading.Thread(target=other)
    t.start()
    t.join(30)
    done.set()
    holder.join(30)
    assert len(refused) == 1 and "busy" in str(refused[0]) and "\n" not in str(refused[0])
    assert not [q for q in asked if q.startswith("BEGIN")]
    assert second.shoes.load("s").meta.name == "before"
    first.close()
    second.close()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_child_writes_though_a_thread_of_its_parent_held_the_write_lock(
    tmp_path: Path,
) -> None:
    """The process's write lock (`connection._writer`) held by another thread when the
    process forks would be held for ever in the child: the child gets a new one."""
    store = db.Store(tmp_path)
    store.shoes.create(ShoeMeta(id="s", name="before"))
    lock = connection._writer(os.path.realpath(tmp_path / "roads.db"))
    taken, release = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    assert taken.wait(30)
    try:
        pid = os.fork()
        if pid == 0:  # the child: one write, its outcome as the exit status
            code = 1
            try:
                child = connection.Database(tmp_path)  # no Polars in the forked child
                with child.write() as c:
                    c.execute("UPDATE shoes SET name = 'child' WHERE id = 's'")
                code = 0
            finally:
                os._exit(code)
        _, status = os.waitpid(pid, 0)
    finally:
        release.set()
        holder.join(30)
    assert os.waitstatus_to_exitcode(status) == 0
    assert store.shoes.load("s").meta.name == "child"
    store.close()


# --- the command line -----------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.usefixtures("backend")
def test_shoes_commands_list_add_rename_delete_restore_history(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data", str(tmp_path)]
    store = db.open_store(tmp_path)
    store.shoes.create(ShoeMeta(id="t1", name="Table 1"), rounds_from_winners("BB"))
    dealt = deal_shoe(3)
    store.shoes.create(ShoeMeta.from_dict({**dealt.meta.to_dict(), "id": "cards"}), dealt.rounds)
    assert run(capsys, "shoes", "add", "t1", "bppt", *d)[0] == 0
    assert winners(store.shoes.load("t1").rounds) == "BBBPPT"
    for bad, msg in (("BPX", "result 3 is 'X'"), ("", "no results"), ("B" * 103, "at most 104")):
        code, _, err = run(capsys, "shoes", "add", "t1", bad, *d)
        assert code == 2 and msg in err and err.count("\n") == 1, err
    code, _, err = run(capsys, "shoes", "add", "cards", "B", *d)
    assert code == 2 and "recorded by cards" in err and err.count("\n") == 1, err
    assert winners(store.shoes.load("t1").rounds) == "BBBPPT"  # refused adds changed nothing
    code, _, err = run(capsys, "shoes", "add", "../etc", "B", *d)
    assert code == 2 and "not a plain name" in err
    assert run(capsys, "shoes", "rename", "t1", "Baccarat 3", *d)[0] == 0
    code, out, _ = run(capsys, "shoes", "list", "--json", *d)
    listed = {r["id"]: r for r in json.loads(out)}
    assert listed["t1"]["name"] == "Baccarat 3" and listed["t1"]["rounds"] == 6
    assert run(capsys, "shoes", "delete", "t1", *d)[0] == 0
    code, out, _ = run(capsys, "shoes", "list", "--json", *d)
    assert [r["id"] for r in json.loads(out)] == ["cards"]
    code, _, err = run(capsys, "shoes", "delete", "t1", *d)
    assert code == 2 and "trash" in err
    assert run(capsys, "shoes", "restore", "t1", *d)[0] == 0
    code, out, _ = run(capsys, "shoes", "history", "t1", "--json", *d)
    actions = [r["action"] for r in json.loads(out)]
    assert actions == [
        "created",
        "entered",
        "entered",
        "entered",
        "entered",
        "renamed",
        "deleted",
        "restored",
    ]
    code, out, _ = run(capsys, "shoes", "history", "t1", *d)
    assert code == 0 and "entered round 3" in out
    assert run(capsys, "shoes", "delete", "t1", *d)[0] == 0
    assert run(capsys, "shoes", "empty-trash", *d)[1].startswith("removed 1 shoe")
    code, _, err = run(capsys, "shoes", "restore", "t1", *d)
    assert code == 2 and "for good" in err
