"""What only the PostgreSQL side of the store does: a NOTIFY per change, sent when the
change commits and never for a refused one; a connection lost to a server restart is
opened again by the next change."""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import psycopg
import pytest

from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db, pg
from tests import pgserver


def notes(listener: psycopg.Connection) -> list[str]:
    """The notifications delivered so far (the listener polls without waiting)."""
    return [n.payload for n in listener.notifies(timeout=0.5, stop_after=None)]


def test_every_change_notifies_its_shoe_and_version_once_committed(
    pg_url: str, tmp_path: Path
) -> None:
    store = db.Store(tmp_path, url=pg_url)
    with psycopg.connect(pg_url, autocommit=True) as listener:
        listener.execute(f"LISTEN {pg.CHANNEL}")
        v = store.shoes.create(ShoeMeta(id="s1"))
        v = store.rounds.append("s1", rounds_from_winners("BP"), v)  # one change, 2 versions
        store.shoes.rename("s1", "Table 9")
        assert notes(listener) == ["s1 1", "s1 3", "s1 4"]  # each change's last version
        with pytest.raises(db.StaleShoeError):
            store.rounds.append("s1", rounds_from_winners("T"), 1)  # a tab behind: refused
        with pytest.raises(RuntimeError), store.write() as c:  # rolled back: never sent
            store.history.log(c, "s1", "entered", 99, 3)
            raise RuntimeError("the change failed after its history row")
        assert notes(listener) == []
        assert store.shoes.version("s1") == 4


def test_a_store_outlives_a_restart_of_the_server(tmp_path: Path) -> None:
    with pgserver.running_server() as server:
        url = server.new_database()
        store = db.Store(tmp_path, url=url)
        v = store.shoes.create(ShoeMeta(id="r"))
        pg_ctl = pgserver.pg_bin("pg_ctl")
        assert pg_ctl is not None
        cmd = [
            pg_ctl,
            "-D",
            str(server.folder / "data"),
            "-l",
            str(server.folder / "log"),
            "-m",
            "fast",
            "-w",
            "restart",
        ]  # a log file: the server keeps no pipe of ours
        subprocess.run(
            pgserver.as_postgres(cmd),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
        assert store.shoes.version("r") == v  # a read first: the old connection is gone
        subprocess.run(
            pgserver.as_postgres(cmd),
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
        v = store.rounds.append("r", rounds_from_winners("B"), v)  # then a change
        assert store.shoes.load("r").rounds.height == 1 and v == 2


class RoundTrips:
    """Counts the times the driver waits for the server: a statement sent on its own,
    or a pipeline (everything in it goes at once and is answered at its end)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.n = 0
        execute, pipeline = psycopg.Connection.execute, psycopg.Connection.pipeline
        many = psycopg.Cursor.executemany

        def on_execute(con: psycopg.Connection, *a: object, **k: object) -> object:
            self.n += con._pipeline is None
            return execute(con, *a, **k)  # type: ignore[arg-type]

        def on_pipeline(con: psycopg.Connection, *a: object, **k: object) -> object:
            self.n += 1
            return pipeline(con, *a, **k)  # type: ignore[arg-type]

        def on_many(cur: psycopg.Cursor, *a: object, **k: object) -> object:
            self.n += cur.connection._pipeline is None
            return many(cur, *a, **k)  # type: ignore[arg-type]

        monkeypatch.setattr(psycopg.Connection, "execute", on_execute)
        monkeypatch.setattr(psycopg.Connection, "pipeline", on_pipeline)
        monkeypatch.setattr(psycopg.Cursor, "executemany", on_many)


def test_an_api_append_is_two_round_trips_and_answered_once(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An append by cards with its Idempotency-Key: the lock, the key's answer and the
    shoe's rows in one round trip, its rows, history, answer, NOTIFY and COMMIT in the
    next (the first append of a shoe in a process also reads its rounds). The
    guarantees stand: the retry is answered from the first answer, a missing
    shoe is a 404 before anything is written, and every round is stored once."""
    from roads_app.api.models import RoundIn, ShoeCreate
    from roads_app.api.service import Feed, NotFound

    monkeypatch.setenv("ROADS_APP_DB", pg_url)
    feed = Feed(tmp_path)
    shoe = feed.create(ShoeCreate(name="T1"), None).body["id"]
    hands = [
        (["4s", "5h"], ["2c", "3d"]),
        (["Ks", "Qh"], ["9c", "Jd"]),
        (["As", "8h"], ["2h", "5d"]),
    ]
    trips = RoundTrips(monkeypatch)
    counts, versions = [], []
    for i, (player, banker) in enumerate(hands):
        before = trips.n
        reply = feed.append(shoe, RoundIn(player_cards=player, banker_cards=banker), f"k{i}")
        counts.append(trips.n - before)
        versions.append(reply.body["version"])
    assert counts[1:] == [2, 2]  # the first also reads the shoe's rounds: none kept yet
    retry = RoundIn(player_cards=hands[1][0], banker_cards=hands[1][1])
    again = feed.append(shoe, retry, "k1")
    assert again.replayed and again.body["version"] == versions[1]
    with pytest.raises(NotFound):
        feed.append("no-such-shoe", RoundIn(winner="B"), "k9")
    saved = db.Store(tmp_path, url=pg_url).shoes.load(shoe)
    assert saved.rounds["player_cards"].to_list() == [h[0] for h in hands]
    assert saved.version == versions[-1] == 4


def test_a_hand_at_a_table_is_two_round_trips_as_a_shoes_append_is(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand dealt at an open table, once its shoe has begun: the lock, the key's answer,
    the table's state and shoe (`Floor.deal_in`'s one read) and the shoe's gate in one
    round trip, the writes and COMMIT in the next, as for a shoe's append; a shoe's
    first hand also starts the shoe. The rounds go to one shoe, coded in order."""
    from roads_app.api.floor_feed import Tables
    from roads_app.api.models import RoundIn
    from roads_app.api.service import Feed
    from roads_app.game.floor import FloorLimits, Move

    monkeypatch.setenv("ROADS_APP_DB", pg_url)
    feed = Feed(tmp_path)
    feed.store.floor.add("B07", "Table 7", "classic", FloorLimits.of((1, 10)))
    tables = Tables(feed)
    tables.move("B07", Move.OPEN, None)
    trips = RoundTrips(monkeypatch)
    counts, codes = [], []
    for i, winner in enumerate("BPBT"):
        before = trips.n
        reply = tables.append("b07", RoundIn(winner=winner), f"t{i}")
        counts.append(trips.n - before)
        codes.append(reply.body["round_code"].rsplit("-", 1)[1])
    assert counts[1:] == [2, 2, 2]  # the first starts the shoe
    assert codes == ["01", "02", "03", "04"]
    assert feed.store.floor.get("B07").shoe_rounds == 4


def test_a_new_thread_takes_the_connection_an_ended_thread_left(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard runs each rerun in a new thread: the connection of a thread that
    ended is kept for the next (only one idle, usable, outside a transaction), so ten
    threads one after another open one connection, not ten; closing the store closes
    the kept ones too."""
    import threading

    store = db.Store(tmp_path, url=pg_url)
    opened: list[str] = []
    connect = pg.connect

    def counted(url: str, lock_timeout_s: float) -> pg.PgConnection:
        opened.append(url)
        return connect(url, lock_timeout_s)

    monkeypatch.setattr(pg, "connect", counted)
    seen: list[int] = []

    def rerun(i: int) -> None:
        store.shoes.create(ShoeMeta(id=f"t{i}"))
        seen.append(store.shoes.version(f"t{i}") or 0)

    for i in range(10):
        t = threading.Thread(target=rerun, args=(i,))
        t.start()
        t.join()
    assert seen == [1] * 10 and len(opened) == 1
    with psycopg.connect(pg_url, autocommit=True) as admin:  # a fresh view each time

        def ours() -> int:
            row = admin.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'roads-app' "
                "AND datname = current_database()"
            ).fetchone()
            return int(row[0]) if row else -1

        assert ours() == 2  # this thread's (it set the database up) and the kept one
        store.close()
        for _ in range(100):  # a closed connection's server process ends a moment later
            if ours() == 0:
                break
            time.sleep(0.05)
        assert ours() == 0


def test_a_tab_entering_a_round_is_two_round_trips_and_still_refused_when_stale(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The dashboard's append (`Rounds.append` with the version the tab read) sends the
    shoe's gate row with the lock: two round trips; a tab behind is still refused."""
    store = db.Store(tmp_path, url=pg_url)
    v = store.shoes.create(ShoeMeta(id="s"))
    trips = RoundTrips(monkeypatch)
    before = trips.n
    v2 = store.rounds.append("s", rounds_from_winners("B"), v)
    assert trips.n - before == 2 and v2 == v + 1
    with pytest.raises(db.StaleShoeError):
        store.rounds.append("s", rounds_from_winners("P"), v)
    assert store.shoes.load("s").rounds["winner"].to_list() == ["B"]
