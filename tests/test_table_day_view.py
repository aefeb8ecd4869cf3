"""A floor table's day beside the entry (issue 47, item 5): the store says which table and
day a shoe was dealt at (both databases), and the operator's page shows that table's
day as `Floor.day` gives it, the one source `roads-app tables history` prints too."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from roads_app.game import rounds as game_rounds
from roads_app.game.floor import FloorLimits
from roads_app.game.rounds import ShoeMeta, rounds_from_winners
from roads_app.store import db
from roads_app.store.floor import Enter, ShoePlace, today
from roads_app.ui import session
from tests import storehelp as sh
from tests.shown import shown

APP = str(Path(__file__).resolve().parents[1] / "roads_app" / "ui" / "app.py")


def winner(letter: str) -> Enter:
    return lambda rounds, decks: game_rounds.add_winner(rounds, letter, decks=decks)


def deal_day(store: db.Store) -> list[str]:
    """B07's day: a shoe of B, P, B (with a banker pair), a shuffle, a shoe of T."""
    store.floor.add("B07", "Table 7", "classic", FloorLimits.of((10, 5000)))
    store.floor.open("B07")
    first = store.floor.append("B07", winner("B")).shoe
    store.floor.append("B07", winner("P"))
    store.floor.append(
        "B07",
        lambda rounds, decks: game_rounds.add_winner(rounds, "B", decks=decks, banker_pair=True),
    )
    store.floor.shuffle("B07")
    second = store.floor.append("B07", winner("T")).shoe
    return [first, second]


def test_a_shoe_knows_its_table_day_and_number(tmp_path: Path, backend: str) -> None:
    store = db.open_store(tmp_path)
    first, second = deal_day(store)
    assert store.floor.place_of(first) == ShoePlace("B07", today(), 1)
    place = store.floor.place_of(second)
    assert place == ShoePlace("B07", today(), 2)
    day = today().replace("-", "")
    assert place.codes(2) == [f"B07-{day}-02-01", f"B07-{day}-02-02"]
    meta = ShoeMeta(name="by hand", source="hand")
    sh.save_shoe(rounds_from_winners("BP"), meta, tmp_path)
    assert store.floor.place_of(meta.id) is None  # a shoe of no table
    assert store.floor.place_of("no-such-shoe") is None


def _day_text(at: AppTest) -> str:
    return "\n".join(shown(m.value) for m in at.markdown if "|" in m.value and "B07" in m.value)


def test_the_entry_page_shows_the_day_of_the_shoes_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = tmp_path / "data"
    monkeypatch.setenv(session.DATA_ENV, str(data))  # the page's library
    store = db.open_store(data)
    first, second = deal_day(store)
    hand = ShoeMeta(name="by hand", source="hand")
    sh.save_shoe(rounds_from_winners("BPB"), hand, data)

    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params[session.URL_PARAM] = first
    at.run()
    assert not at.exception, at.exception
    text = _day_text(at)
    assert "2 shoes dealt · 4 hands" in text
    day = store.floor.day("B07")
    rows = [line for line in text.splitlines() if line.startswith("|")]
    # a row a shoe (its counts: hands, B, P, T, banker pairs, player pairs), the day's total
    got = [[c.strip() for c in r.strip("|").split("|")] for r in rows[2:]]
    assert [g[1:7] for g in got] == [
        *(
            [str(v) for v in (s.hands, s.banker, s.player, s.tie, s.banker_pairs, s.player_pairs)]
            for s in day.shoes
        ),
        [str(v) for v in (4, 2, 1, 1, 1, 0)],
    ]
    assert [g[7] for g in got[:2]] == [f"[replay](replay?shoe={s})" for s in (first, second)]

    at.query_params[session.URL_PARAM] = hand.id  # a shoe of no table: no day shown
    at.run()
    assert not at.exception, at.exception
    assert _day_text(at) == ""
