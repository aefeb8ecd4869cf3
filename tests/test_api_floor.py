"""The API by floor table, on SQLite and PostgreSQL, through two real server processes
on one library (replicas): a table's day dealt shoe after shoe through one replica while
the other streams the table and the lobby; two feeders at once through both; every bad
request a 4xx with one line and the floor unchanged."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from roads_app.api.floor_stream import follow_lobby
from roads_app.game.floor import FloorLimits
from roads_app.store import db, tokens
from tests.api_server import ApiServer, SseFollower, roads_app
from tests.pgserver import PgServer

Floor = tuple[ApiServer, ApiServer, str, db.Store]
NATURAL_P = {"player_cards": ["9s", "Kd"], "banker_cards": ["5c", "2h"]}
"""Player 9 against 7 (a shoe begun by cards takes only cards)."""
BANKER = {"player_cards": ["2s", "Kd", "Kc"], "banker_cards": ["5c", "2h"]}
"""Player 2 draws a ten, Banker stands on 7."""


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def floor(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Floor]:
    """Two API servers on one library (a data folder's SQLite file, or one PostgreSQL
    database): (A, B, an operator token, the library's store in this process)."""
    tmp = tmp_path_factory.mktemp("floor")
    with pytest.MonkeyPatch.context() as mp:
        if request.param == "postgresql":
            server: PgServer = request.getfixturevalue("pg_server")
            url: str | None = server.new_database()
            mp.setenv("ROADS_APP_DB", url)
            folders = (tmp / "a", tmp / "b")
        else:
            url = None
            mp.delenv("ROADS_APP_DB", raising=False)
            folders = (tmp / "data", tmp / "data")
        a = ApiServer(folders[0]).start()
        b = ApiServer(folders[1]).start()
        try:
            token = tokens.issue(folders[0], "operator")
            yield a, b, token, db.Store(folders[0], url=url)
        finally:
            a.stop()
            b.stop()


class Stream(SseFollower):
    """Any Server-Sent Events stream (a table's, the lobby's) read in a thread: every
    (event, data) in order."""

    def __init__(self, url: str) -> None:
        super().__init__(url, "")
        self.url = url

    def __enter__(self) -> Stream:
        super().__enter__()
        self.wait_for(lambda s: bool(s.events) or s.status != 200)  # the first event
        return self

    def _apply(self, event: str, payload: dict[str, Any]) -> None:
        with self._cond:
            self.events.append((event, payload))
            self._cond.notify_all()

    def kinds(self) -> list[str]:
        with self._cond:
            return [e for e, _ in self.events]


def lobby_knows(url: str, code: str, within_s: float = 120.0) -> None:
    """Wait until the replica behind the lobby stream at ``url`` knows the table ``code``:
    a table added through the store reaches another replica when its watcher next looks
    (on SQLite, its poll), in the snapshot or as the table's first event after it."""

    def knows(s: Stream) -> bool:
        return any(
            (k == "table" and d["code"] == code)
            or (k == "lobby" and any(t["code"] == code for t in d["tables"]))
            for k, d in s.events
        )

    with Stream(url) as s:
        s.wait_for(knows, timeout=within_s)


def lobby_tables(stream: Stream) -> dict[str, dict[str, Any]]:
    """Every table's summary as a lobby follower rebuilds it from the events so far."""
    tables: dict[str, dict[str, Any]] = {}
    for kind, data in list(stream.events):
        follow_lobby(tables, kind, data)
    return tables


def add_table(store: db.Store, code: str, position: int = 0) -> None:
    store.floor.add(code, f"Table {code}", "classic", FloorLimits.of((10, 5000)), position)


def table_rounds(stream: Stream) -> dict[str | None, list[str]]:
    """The rounds each shoe's events brought, by shoe (as a display rebuilds them)."""
    shoes: dict[str | None, list[str]] = {}
    shoe: str | None = None
    for kind, data in stream.events:
        if kind in ("table", "shoe"):
            shoe = data["shoe"]
        elif kind in ("snapshot", "reset"):
            shoes[shoe] = [r["winner"] for r in data["rounds"]]
        elif kind == "append":
            shoes.setdefault(shoe, []).extend(r["winner"] for r in data["rounds"])
    return shoes


def test_rules_moved_and_tables_are_the_floor(floor: Floor) -> None:
    a, _, _, store = floor
    add_table(store, "R1", 5)
    with a.client() as anyone:
        assert "classic" in {r["name"] for r in anyone.get("/rules").json()}
        listed = {t["code"]: t for t in anyone.get("/tables").json()}
        assert listed["R1"]["state"] == "closed" and listed["R1"]["rules"] == "classic"
        one = anyone.get("/tables/r1").json()
        assert (one["code"], one["counts"], one["big_road"]) == ("R1", None, [])


def test_a_table_day_followed_across_shoes_through_another_replica(floor: Floor) -> None:
    a, b, token, store = floor
    add_table(store, "B07", 1)
    with (
        Stream(f"{b.url}/tables/B07/events") as table,
        Stream(f"{b.url}/lobby/events") as lobby,
        a.client(token) as op,
    ):
        assert table.kinds()[0] == "table" and lobby.kinds()[0] == "lobby"
        assert op.post("/tables/B07/state", json={"state": "open"}).status_code == 200
        table.wait_for(lambda s: any(k == "state" and d["state"] == "open" for k, d in s.events))
        first = op.post("/tables/B07/rounds", json=NATURAL_P, headers={"Idempotency-Key": "d1"})
        assert first.status_code == 201 and first.json()["started"], first.text
        again = op.post("/tables/B07/rounds", json=NATURAL_P, headers={"Idempotency-Key": "d1"})
        assert again.headers.get("Idempotent-Replayed") == "true"
        assert again.json() == first.json()
        second = op.post("/tables/B07/rounds", json=BANKER)
        assert second.json()["shoe"] == first.json()["shoe"]
        assert second.json()["round_code"].endswith("-01-02")
        shoe_one = first.json()["shoe"]
        table.wait_for(lambda s: table_rounds(s).get(shoe_one) == ["P", "B"])

        assert op.post("/tables/B07/shuffle").json()["state"] == "shuffling"
        twice = op.post("/tables/B07/shuffle")
        assert twice.status_code == 409 and "already shuffling" in twice.json()["detail"]
        third = op.post("/tables/B07/rounds", json={"winner": "T"})
        assert third.json()["started"] and third.json()["shoe_number"] == 2
        shoe_two = third.json()["shoe"]
        table.wait_for(lambda s: table_rounds(s).get(shoe_two) == ["T"])
        kinds = table.kinds()
        assert kinds.index("shoe") > kinds.index("state")  # shuffling, then the next shoe
        assert table_rounds(table)[shoe_one] == ["P", "B"]  # nothing lost, nothing doubled

        def summary(s: Stream) -> dict[str, Any] | None:
            return lobby_tables(s).get("B07")

        lobby.wait_for(lambda s: (summary(s) or {}).get("shoe") == shoe_two)
        now = summary(lobby)
        assert now is not None and now["last"] == ["T"] and now["state"] == "open"
        assert now["counts"]["tie"] == 1 and now["last_round_code"].endswith("-02-01")

        closed = op.post("/tables/B07/state", json={"state": "closed"})
        assert closed.status_code == 200 and closed.json()["shoe_ended"]
        table.wait_for(lambda s: any(k == "state" and d["state"] == "closed" for k, d in s.events))
        lobby.wait_for(lambda s: (summary(s) or {}).get("state") == "closed")


@pytest.mark.parametrize(
    ("path", "body", "status", "why"),
    [
        ("/tables/NOPE/rounds", {"winner": "B"}, 404, "no table"),
        ("/tables/B%2007/shuffle", None, 422, "table code"),
        ("/tables/X9/state", {"state": "dealing"}, 422, "no table state"),
        ("/tables/X9/rounds", {"winner": "B"}, 409, "is closed"),
        ("/tables/X9/shuffle", None, 409, "is closed"),
        ("/tables/X9/state", {"state": "closed"}, 409, "already closed"),
    ],
)
def test_a_bad_request_is_one_line_and_changes_nothing(
    floor: Floor, path: str, body: Any, status: int, why: str
) -> None:
    a, _, token, store = floor
    if not any(t.code == "X9" for t in store.floor.list()):
        add_table(store, "X9", 9)
    with a.client(token) as op:
        before = op.get("/tables").json()
        r = op.post(path, json=body)
        assert r.status_code == status, r.text
        assert why in r.json()["detail"] and "\n" not in r.json()["detail"]
        assert op.get("/tables").json() == before
        assert op.get("/tables/NOPE/events").status_code == 404


def test_two_feeders_through_two_replicas_lose_and_double_nothing(floor: Floor) -> None:
    a, b, token, store = floor
    add_table(store, "F2", 2)
    store.floor.open("F2")
    errors: list[str] = []

    def feed(server: ApiServer, letter: str) -> None:
        with server.client(token) as op:
            for i in range(8):
                key = {"Idempotency-Key": f"f2-{letter}-{i}"}
                r = op.post("/tables/F2/rounds", json={"winner": letter}, headers=key)
                if r.status_code != 201:
                    errors.append(r.text)

    threads = [threading.Thread(target=feed, args=sv) for sv in ((a, "B"), (b, "P"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    table = store.floor.get("F2")
    assert (table.shoe_number, table.shoe_rounds) == (1, 16)
    winners = store.shoes.load(table.shoe or "").rounds["winner"].to_list()
    assert sorted(winners) == ["B"] * 8 + ["P"] * 8


def test_the_body_cap_covers_the_table_routes(floor: Floor) -> None:
    a, _, token, _ = floor
    with a.client(token) as op:
        r = op.post("/tables/B07/state", content=b"{" + b" " * 4000 + b"}")
        assert r.status_code == 413


def test_the_feeder_deals_shoe_after_shoe_with_a_shuffle_between(floor: Floor) -> None:
    a, _, token, store = floor
    add_table(store, "F3", 3)
    store.floor.open("F3")
    argv = ("feed", "--table", "f3", "--simulate", "--seed", "5", "--every", "0")
    argv += ("--hands", "4", "--shoes", "3", "--api", a.url, "--token", token)
    out = roads_app(*argv)
    assert "fed 12 hands at table F3" in out.stdout
    again = roads_app(*argv)  # a restart: every hand and shuffle answered, none dealt twice
    assert again.stderr.count("already in") == 12
    day = store.floor.day("F3")
    assert [(s.number, s.hands) for s in day.shoes] == [(1, 4), (2, 4), (3, 4)]
    assert store.floor.get("F3").state == "shuffling"
    closed = roads_app("tables", "close", "F3", "--data", str(a.data_dir), check=False)
    assert closed.returncode == 0, closed.stderr
    refused = roads_app(*argv[:-6], "--seed", "6", "--api", a.url, "--token", token, check=False)
    assert refused.returncode == 2 and "closed" in refused.stderr
    assert refused.stderr.count("\n") == 1


def test_a_lobby_follower_sees_a_table_day_change_by_change(floor: Floor) -> None:
    """Through another replica, shoe after shoe (rounds, a shuffle, the next shoe, the
    close): the lobby's snapshot, then one event per change of the table, in order, none
    missed and none twice: a ``round`` event for a round of the same shoe, else the
    whole summary (``table``); the summary rebuilt from them after each is the one
    ``GET /tables/{code}`` gives, and so is the whole of it at the end."""
    a, b, token, store = floor
    add_table(store, "L1", 4)

    def seen(s: Stream) -> list[tuple[Any, ...]]:
        tables: dict[str, dict[str, Any]] = {}
        out = []
        for k, d in list(s.events):
            follow_lobby(tables, k, d)
            if k in ("table", "round") and d["code"] == "L1":
                out.append((k, tile(tables["L1"])))
        return out

    def tile(d: dict[str, Any]) -> tuple[Any, ...]:
        return (d["state"], d["shoe"], d["shoe_number"], d["round_count"], tuple(d["last"]))

    day: list[tuple[str, dict[str, Any] | None]] = [("/tables/L1/state", {"state": "open"})]
    for shoe in ("BPB", "TP", "B"):
        day += [("/tables/L1/rounds", {"winner": w}) for w in shoe]
        day.append(("/tables/L1/shuffle", None))
    day[-1] = ("/tables/L1/state", {"state": "closed"})
    firsts = {1, 5, 8}  # each shoe's first round: a new shoe, its whole summary
    lobby_knows(f"{b.url}/lobby/events", "L1")  # b's watcher has seen the table's add
    with Stream(f"{b.url}/lobby/events") as lobby, a.client(token) as op:
        kind, first = lobby.events[0]
        assert kind == "lobby"
        assert [t["state"] for t in first["tables"] if t["code"] == "L1"] == ["closed"]
        want: list[tuple[Any, ...]] = []
        for i, (path, body) in enumerate(day):
            r = op.post(path, json=body, headers={"Idempotency-Key": f"l1-{i}"})
            assert r.status_code in (200, 201), r.text
            kind = "round" if path.endswith("/rounds") and i not in firsts else "table"
            want.append((kind, tile(op.get("/tables/L1").json())))
            count = len(want)
            lobby.wait_for(lambda s, n=count: len(seen(s)) >= n)
        assert seen(lobby) == want
        assert lobby_tables(lobby)["L1"] == op.get("/tables/L1").json()
    assert len({t[1][1] for t in want} - {None}) == 3  # three shoes, each its own
    assert [t[1][3] for t in want if t[1][0] == "open"] == [0, 1, 2, 3, 1, 2, 1]


def test_two_replicas_dealing_in_turn_at_one_table_lose_and_double_nothing(
    tmp_path: Path,
) -> None:
    """Two API processes' services (`Tables` over one library) deal a shoe's hands in
    turn at one table: each enters its round ahead of the write lock against the rounds
    it last wrote, which the other has always moved on since; every hand lands once, in
    order, numbered on, checked against the rounds before it."""
    from roads_app.api.floor_feed import Tables
    from roads_app.api.models import RoundIn
    from roads_app.api.service import Feed
    from roads_app.game.shoe import ShoeOptions, deal_shoe

    store = db.open_store(tmp_path)
    store.floor.add("R01", "Replicas", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("R01")
    replicas = [Tables(Feed(tmp_path)), Tables(Feed(tmp_path))]
    hands = deal_shoe(5, ShoeOptions()).rounds.head(12)
    cards = list(zip(hands["player_cards"].to_list(), hands["banker_cards"].to_list(), strict=True))
    for i, (pc, bc) in enumerate(cards):
        reply = replicas[i % 2].append("R01", RoundIn(player_cards=pc, banker_cards=bc), None)
        assert reply.status == 201 and reply.body["round"]["round"] == i + 1
    shoe = store.floor.get("R01").shoe
    assert shoe is not None
    saved = store.shoes.load(shoe).rounds
    assert saved["round"].to_list() == list(range(1, len(cards) + 1))
    assert saved["player_cards"].to_list() == [pc for pc, _ in cards]
    assert saved["banker_cards"].to_list() == [bc for _, bc in cards]
    assert saved["winner"].to_list() == hands["winner"].to_list()
    store.close()
