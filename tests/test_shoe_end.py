"""The end of a shoe: one rule in the store, used by every door (the store's callers,
the CLI, the HTTP API, the feeder). An ended shoe's rounds and bets are read-only, each
refusal one line naming the shoe, and the shoe is left exactly as it was."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import httpx
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from roads_app.bets.ledger import place
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.store import db, library, tokens
from tests.api_server import ApiServer

WRITES: dict[str, Callable[[db.Store, str, int], object]] = {
    "append": lambda s, i, v: s.rounds.append(i, rounds_from_winners("B"), v),
    "undo": lambda s, i, v: s.rounds.undo(i, v),
    "edit": lambda s, i, v: s.rounds.edit(i, 1, rounds_from_winners("T"), v),
    "replace": lambda s, i, v: s.rounds.replace(i, rounds_from_winners("PP"), v),
    "void": lambda s, i, v: _void(s, i, v),
    "bets": lambda s, i, v: s.bets.change(i, "bets", _bet),
    "end again": lambda s, i, v: s.shoes.end(i),
}


def _bet(bets: pl.DataFrame) -> pl.DataFrame:
    return place(bets, "banker", 10.0, round_no=4)


def _void(s: db.Store, shoe_id: str, version: int) -> int:
    with s.write() as c:
        return s.rounds.void_in(c, shoe_id, 1, version)


def ended_shoe(data: Path, name: str = "Table 9") -> tuple[db.Store, str, int]:
    store = db.open_store(data)
    meta = ShoeMeta(name=name, source="hand")
    store.shoes.create(meta, rounds_from_winners("BPB"))
    return store, meta.id, store.shoes.end(meta.id)


@pytest.mark.usefixtures("backend")
@settings(max_examples=25, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(order=st.permutations(sorted(WRITES)))
def test_every_write_to_an_ended_shoe_is_refused_and_changes_nothing(
    tmp_path_factory: pytest.TempPathFactory, order: list[str]
) -> None:
    store, shoe, version = ended_shoe(tmp_path_factory.mktemp("end"))
    before = store.shoes.load(shoe)
    for name in order:
        with pytest.raises(db.ShoeEndedError) as e:
            WRITES[name](store, shoe, version)
        assert (
            str(e.value) == "shoe 'Table 9' has ended: its rounds and bets are read-only "
            "(start a new shoe)"
        ), name
    after = store.shoes.load(shoe)
    assert after.rounds.equals(before.rounds) and after.version == before.version
    assert after.ended is not None and store.bets.load(shoe).height == 0


@pytest.mark.usefixtures("backend")
def test_an_ended_shoe_can_still_be_renamed_and_trashed_and_is_listed_as_ended(tmp_path: Path):
    store, shoe, _ = ended_shoe(tmp_path)
    store.shoes.rename(shoe, "Table 9 (closed)")
    listed = store.shoes.list().row(0, named=True)
    assert listed["ended"] is not None and listed["name"] == "Table 9 (closed)"
    store.shoes.delete(shoe)
    store.shoes.restore(shoe)
    assert store.shoes.load(shoe).ended == listed["ended"]
    assert store.history.of(shoe)["action"].to_list()[-4:] == [
        "ended",
        "renamed",
        "deleted",
        "restored",
    ]


@pytest.mark.usefixtures("backend")
def test_a_tab_behind_an_end_is_refused_as_stale(tmp_path: Path):
    """A tab that read the shoe before it ended learns it changed (ending is a change of
    its play), not that it silently took a result."""
    store = db.open_store(tmp_path)
    meta = ShoeMeta(name="T1", source="hand")
    v = store.shoes.create(meta, rounds_from_winners("B"))
    store.shoes.end(meta.id)
    with pytest.raises(db.StorageError):
        store.rounds.append(meta.id, rounds_from_winners("P"), v)
    assert store.shoes.load(meta.id).rounds.height == 1


@pytest.mark.usefixtures("backend")
def test_the_cli_refuses_to_add_to_an_ended_shoe(tmp_path: Path):
    _, shoe, _ = ended_shoe(tmp_path)
    r = subprocess.run(
        [sys.executable, "-m", "roads_app", "shoes", "add", shoe, "B", "--data", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip().splitlines() == [
        "error: shoe 'Table 9' has ended: its rounds and bets are read-only (start a new shoe)"
    ]
    assert db.open_store(tmp_path).shoes.load(shoe).rounds.height == 3


@pytest.mark.usefixtures("backend")
def test_a_simulated_shoe_is_saved_ended_at_the_cut_cards_last_hand(tmp_path: Path):
    meta = library.simulate(5, tmp_path)
    saved = db.open_store(tmp_path).shoes.load(meta.id)
    assert saved.ended is not None
    assert saved.rounds.height == deal_shoe(5, ShoeOptions()).rounds.height


@pytest.mark.usefixtures("backend")
def test_the_api_ends_a_shoe_and_refuses_appends_after(tmp_path: Path):
    server = ApiServer(tmp_path / "data").start()
    try:
        token = tokens.issue(server.data_dir, "operator")
        with httpx.Client(base_url=server.url, headers={"Authorization": f"Bearer {token}"}) as op:
            shoe = op.post("/shoes", json={"name": "Table 3"}).json()["id"]
            assert op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 201
            r = op.post(f"/shoes/{shoe}/end")
            assert r.status_code == 200 and r.json()["rounds"] == 1, r.text
            assert op.get(f"/shoes/{shoe}").json()["ended"] is not None
            r = op.post(f"/shoes/{shoe}/rounds", json={"winner": "P"})
            assert r.status_code == 409
            assert r.json()["detail"] == (
                "shoe 'Table 3' has ended: its rounds and bets are read-only (start a new shoe)"
            )
            assert op.post(f"/shoes/{shoe}/end").status_code == 409
            assert op.post(f"/shoes/{shoe}/undo").status_code == 409
            assert op.get(f"/shoes/{shoe}").json()["round_count"] == 1
            assert httpx.post(f"{server.url}/shoes/{shoe}/end").status_code == 401
    finally:
        server.stop()


@pytest.mark.usefixtures("backend")
def test_the_feeder_ends_the_shoe_it_dealt(tmp_path: Path):
    """`roads-app feed --simulate` deals to the cut card's last hand, then ends the shoe;
    run again with the same seed it enters nothing twice and ends it only once."""
    server = ApiServer(tmp_path / "data").start()
    try:
        token = tokens.issue(server.data_dir, "operator")
        shoe = httpx.post(
            f"{server.url}/shoes",
            json={"name": "fed"},
            headers={"Authorization": f"Bearer {token}"},
        ).json()["id"]
        for _ in range(2):
            r = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "roads_app",
                    "feed",
                    "--shoe",
                    shoe,
                    "--simulate",
                    "--seed",
                    "3",
                    "--every",
                    "0",
                    "--api",
                    server.url,
                    "--token",
                    token,
                ],
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert r.returncode == 0, r.stderr
        saved = db.open_store(server.data_dir).shoes.load(shoe)
        dealt = deal_shoe(3, ShoeOptions()).rounds
        assert saved.ended is not None
        assert saved.rounds.select("player_cards", "banker_cards").equals(
            dealt.select("player_cards", "banker_cards")
        )
        history = db.open_store(server.data_dir).history.of(shoe)["action"]
        assert history.to_list().count("ended") == 1
        assert history.filter(history == "entered").len() == dealt.height
    finally:
        server.stop()


@pytest.mark.usefixtures("backend")
def test_rounds_of_an_ended_shoe_read_as_ever(tmp_path: Path):
    store, shoe, _ = ended_shoe(tmp_path)
    assert "".join(store.shoes.load(shoe).rounds["winner"].cast(pl.String)) == "BPB"
