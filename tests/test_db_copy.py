"""`roads-app db copy FROM TO`: a library moved between a SQLite data folder and a real
PostgreSQL server, both ways, whole and checked, or not at all."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from roads_app.bets import ledger as BL
from roads_app.cli import main
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import deal_shoe
from roads_app.store import db
from roads_app.store.tokens import hash_token
from tests.pgserver import PASSWORD


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def a_library(folder: Path) -> db.Store:
    """Shoes by cards and by results, one ended, one in the trash, bets, an undo to bring
    back, a token hash and an answered API request."""
    store = db.Store(folder, from_env=False)
    dealt = deal_shoe(7)
    store.shoes.create(ShoeMeta.from_dict({**dealt.meta.to_dict(), "id": "cards"}), dealt.rounds)
    store.shoes.create(ShoeMeta(id="res", name="Table 3"), rounds_from_winners("BPPTB"))
    store.rounds.undo("res", None)
    store.bets.change("res", "bets", lambda b: BL.place_many(b, [("banker", 25)], round_no=5))
    store.shoes.create(ShoeMeta(id="done"), rounds_from_winners("PP"), ended=True)
    store.shoes.create(ShoeMeta(id="gone"), rounds_from_winners("T"))
    store.shoes.delete("gone")
    store.tokens.add(hash_token("ra_op_x"), "operator")
    store.requests.once("k1", "fp", "res", lambda c: (201, {"ok": True}))
    return store


def same_library(a: db.Store, b: db.Store) -> None:
    assert a.shoes.list(trash=False).drop("modified").equals(b.shoes.list().drop("modified"))
    assert a.shoes.list(trash=True)["id"].to_list() == b.shoes.list(trash=True)["id"].to_list()
    for shoe in ("cards", "res", "done", "gone"):
        assert a.history.of(shoe).equals(b.history.of(shoe))
        assert a.bets.load(shoe).equals(b.bets.load(shoe))
    for shoe in ("cards", "res", "done"):
        x, y = a.shoes.load(shoe), b.shoes.load(shoe)
        assert x.rounds.equals(y.rounds) and x.meta == y.meta
        assert (x.version, x.ended) == (y.version, y.ended)
    assert a.rounds.redoable("res").equals(b.rounds.redoable("res"))
    assert b.tokens.role(hash_token("ra_op_x")) == "operator"
    assert b.requests.once("k1", "fp", "res", lambda c: (500, {}))[2] is True  # answered once


def test_a_library_goes_to_postgresql_and_back_whole(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = a_library(tmp_path / "src")
    code, out, err = run(capsys, "db", "copy", str(tmp_path / "src"), pg_url)
    assert code == 0, err
    assert PASSWORD not in out + err
    lines = out.splitlines()
    assert lines[0].startswith("from ") and lines[1].startswith("to   ")
    assert lines[0].split(": ", 1)[1] == lines[1].split(": ", 1)[1]  # counts and checksum
    n = int(src.shoes.list()["rounds"].sum() + src.shoes.list(trash=True)["rounds"].sum())
    assert f"4 shoes, {n} rounds, 1 bets, " in lines[0] and "1 token hashes" in lines[0]
    on_pg = db.Store(tmp_path / "x", url=pg_url)
    same_library(src, on_pg)
    v = on_pg.shoes.version("res")
    on_pg.rounds.append("res", rounds_from_winners("P"), v)  # the copy goes on being used
    assert on_pg.history.of("res")["action"][-1] == "entered"
    back = tmp_path / "back" / "roads.db"  # the SQLite file itself as the target
    code, out, err = run(capsys, "db", "copy", pg_url, str(back))
    assert code == 0, err
    same_library(on_pg, db.Store(back.parent, from_env=False))


def test_a_target_holding_shoes_is_refused_and_left_as_it_was(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_library(tmp_path / "src")
    target = db.Store(tmp_path / "t", url=pg_url)
    target.shoes.create(ShoeMeta(id="mine"), rounds_from_winners("BB"))
    before = target.shoes.list(), target.history.of("mine")
    code, out, err = run(capsys, "db", "copy", str(tmp_path / "src"), pg_url)
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "already holds 1 shoe(s)" in err and PASSWORD not in err
    assert target.shoes.list().equals(before[0]) and target.history.of("mine").equals(before[1])
    assert target.shoes.version("cards") is None
    # and the other way: a SQLite target with shoes, from the server
    code, _, err = run(capsys, "db", "copy", pg_url, str(tmp_path / "src"))
    assert code == 2 and "already holds 4 shoe(s)" in err


def test_a_missing_source_and_a_copy_onto_itself_are_one_line(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(capsys, "db", "copy", str(tmp_path / "nothing"), pg_url)
    assert code == 2 and "holds no roads-app library" in err
    assert not (tmp_path / "nothing").exists()
    code, _, err = run(capsys, "db", "copy", pg_url, pg_url)
    assert code == 2 and "are the same database" in err and PASSWORD not in err


def test_checksums_differ_when_one_round_differs(tmp_path: Path) -> None:
    """The checksum reads every round: one changed card changes it."""
    from roads_app.store.copying import _summary

    a, b = a_library(tmp_path / "a"), a_library(tmp_path / "b")
    with a.read() as c, b.read() as d:
        assert _summary(c, "a").checksum == _summary(d, "b").checksum
    with b.write() as c:
        c.execute("UPDATE rounds SET banker_cards = 'Kd Qs' WHERE shoe = 'cards' AND round = 2")
    with a.read() as c, b.read() as d:
        assert _summary(c, "a").checksum != _summary(d, "b").checksum
    assert pl.__name__  # polars used for the frames compared above
