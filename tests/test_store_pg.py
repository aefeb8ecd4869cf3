"""What only the PostgreSQL side of the store does: a NOTIFY per change, sent when the
change commits and never for a refused one; a connection lost to a server restart is
opened again by the next change."""

from __future__ import annotations

import subprocess
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
