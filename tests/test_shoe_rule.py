"""One rule of what a shoe holds, whichever door a round comes through (issue 27).

The HTTP API took 14 rounds into a 1-deck shoe, 400 into an 8-deck one (whose export
then could not be imported back) and a result without cards into a shoe recorded by
cards, all of which the command line refused. Now the entry operations
(`game.rounds.check_shoe`, `check_by_cards`) decide for the API, the dashboard, ``roads-app
shoes add`` and import alike, with the same words.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import polars as pl
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from roads_app.cli import main
from roads_app.errors import RoadsAppError, RoundError
from roads_app.game.rounds import (
    ShoeMeta,
    add_cards,
    add_points,
    add_winner,
    check_shoe,
    empty_rounds,
    max_rounds,
    rounds_from_winners,
    shoes_within,
)
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.shoefiles.files import export_bytes, import_bytes
from roads_app.store import db, tokens
from tests.api_server import ApiServer
from tests.hostile.api_requests import NAT


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("rule") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "operator")


def cli_refusal(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err.strip()


def core_refusal(rounds: pl.DataFrame, decks: int, **entry: object) -> str:
    with pytest.raises(RoundError) as e:
        if "player_cards" in entry:
            add_cards(rounds, entry["player_cards"], entry["banker_cards"], decks=decks)  # type: ignore[arg-type]
        else:
            add_winner(rounds, str(entry["winner"]), decks=decks)
    return str(e.value)


def test_a_full_shoe_is_full_at_every_door(server: ApiServer, token: str, capsys) -> None:
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "one deck", "decks": 1}).json()["id"]
        for _ in range(max_rounds(1)):
            assert op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"}).status_code == 201
        r = op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
        assert r.status_code == 422, r.text
        api = r.json()["detail"]
        assert len(op.get(f"/shoes/{shoe}").json()["rounds"]) == 13
    core = core_refusal(rounds_from_winners("B" * 13), 1, winner="B")
    assert api == core and "at most 13" in core
    cli = cli_refusal(capsys, "shoes", "add", shoe, "P", "--data", str(server.data_dir))
    assert cli.endswith(core)
    doc = export_bytes(rounds_from_winners("B" * 14), ShoeMeta(name="14", decks=1), "json")
    with pytest.raises(RoadsAppError, match="at most 13"):
        import_bytes(doc, "14.json")


def test_an_eight_deck_shoe_takes_104_rounds_and_no_more(server: ApiServer, token: str):
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "eight decks", "decks": 8}).json()["id"]
        for i in range(max_rounds(8)):
            r = op.post(f"/shoes/{shoe}/rounds", json={"winner": "BPT"[i % 3]})
            assert r.status_code == 201, (i, r.text)
        r = op.post(f"/shoes/{shoe}/rounds", json={"winner": "B"})
        assert r.status_code == 422 and "at most 104" in r.json()["detail"], r.text
        data = op.get(f"/shoes/{shoe}").json()
    rounds = db.open_store(server.data_dir).shoes.load(shoe).rounds
    meta = ShoeMeta(name="back", decks=data["decks"])
    for fmt in ("csv", "json"):  # what the API accepted imports back
        back, _ = import_bytes(export_bytes(rounds, meta, fmt), f"x.{fmt}")
        assert back.equals(rounds)


def test_a_shoe_recorded_by_cards_takes_rounds_by_cards(
    server: ApiServer, token: str, capsys
) -> None:
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "cards"}).json()["id"]
        assert op.post(f"/shoes/{shoe}/rounds", json=NAT).status_code == 201
        for body in ({"winner": "B"}, {"player_points": 9, "banker_points": 7}):
            r = op.post(f"/shoes/{shoe}/rounds", json=body)
            assert r.status_code == 422, r.text
        api = r.json()["detail"]
        assert len(op.get(f"/shoes/{shoe}").json()["rounds"]) == 1
        # a shoe begun by results may go on by cards (a card reader joined the table)
        mixed = op.post("/shoes", json={"name": "mixed"}).json()["id"]
        assert op.post(f"/shoes/{mixed}/rounds", json={"winner": "B"}).status_code == 201
        assert op.post(f"/shoes/{mixed}/rounds", json=NAT).status_code == 201
        assert op.post(f"/shoes/{mixed}/rounds", json={"winner": "P"}).status_code == 201
    core = core_refusal(add_cards(empty_rounds(), ["9s", "Kd"], ["5c", "2h"]), 8, winner="B")
    assert api == core and "recorded by cards" in core
    cli = cli_refusal(capsys, "shoes", "add", shoe, "B", "--data", str(server.data_dir))
    assert cli.endswith(core)


# --- a property: whatever the entry accepts comes back through export and import ---------

Entry = tuple[str, int]  # ("W", winner index) | ("P", points pair index) | ("C", unused)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    decks=st.sampled_from([1, 1, 2, 8]),
    seed=st.integers(0, 10_000),
    entries=st.lists(
        st.tuples(st.sampled_from("WPC"), st.integers(0, 99)), min_size=5, max_size=140
    ),
)
def test_what_the_entry_accepts_exports_and_imports_back(
    decks: int, seed: int, entries: list[Entry]
) -> None:
    hands = deal_shoe(seed, ShoeOptions(decks=decks)).rounds
    rounds = empty_rounds()
    dealt = 0
    for kind, n in entries:
        try:
            if kind == "W":
                rounds = add_winner(rounds, "BPT"[n % 3], decks=decks)
            elif kind == "P":
                rounds = add_points(rounds, n % 10, n // 10, decks=decks)
            elif dealt < hands.height:
                h = hands.row(dealt, named=True)
                dealt += 1
                rounds = add_cards(rounds, h["player_cards"], h["banker_cards"], decks=decks)
        except RoundError:
            continue  # refused: the rounds are as they were
    assert rounds.height <= max_rounds(decks)
    meta = ShoeMeta(name="prop", decks=decks)
    for fmt in ("csv", "json", "parquet"):
        back, back_meta = import_bytes(export_bytes(rounds, meta, fmt), f"p.{fmt}")
        assert back.equals(rounds)
        assert back_meta.decks == (8 if fmt == "csv" else decks)  # a CSV has no metadata


def test_the_ask_roads_still_preview_a_full_or_card_shoe() -> None:
    """The board's "what if banker next" is a preview, not an entry: never refused."""
    from roads_app.render.board import _ask_marks

    full = rounds_from_winners("BP" * 52)
    assert _ask_marks(full, "B", 6)
    cards = add_cards(empty_rounds(), ["9s", "Kd"], ["5c", "2h"])
    assert _ask_marks(cards, "P", 6)


@functools.cache
def _dealt(seed: int, decks: int) -> pl.DataFrame:
    return deal_shoe(seed, ShoeOptions(decks=decks)).rounds


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    decks=st.sampled_from([1, 8]),
    shoes=st.lists(
        st.tuples(st.integers(0, 3), st.integers(1, 130), st.integers(0, 130)),
        min_size=1,
        max_size=4,
    ),
    burn=st.booleans(),
)
@example(decks=8, shoes=[(0, 100, 60)], burn=False)  # 60 rounds without cards count 240
@example(decks=1, shoes=[(0, 8, 0)], burn=True)  # the burn card is a copy too
def test_the_shoe_rule_over_many_shoes_is_check_shoe_of_each(
    decks: int, shoes: list[tuple[int, int, int]], burn: bool
) -> None:
    """`shoes_within` (an import's thousands of shoes at once) takes exactly the shoes
    `check_shoe` takes: dealt shoes cut or run twice over (too many rounds, cards,
    copies of a card), the first rounds without their cards, a burn card (the first
    shoe's first card again, or none)."""
    parts = []
    for k, (seed, n, bare) in enumerate(shoes, 1):
        dealt = _dealt(seed, decks)
        rounds = pl.concat([dealt, dealt]).head(n)
        cards = pl.int_range(pl.len()) >= bare
        rounds = rounds.with_columns(
            pl.when(cards).then(pl.col(c)).alias(c) for c in ("player_cards", "banker_cards")
        )
        parts.append(rounds.select(pl.lit(k).alias("shoe"), pl.all()))
    frame = pl.concat(parts)
    seen = [_dealt(shoes[0][0], decks)["player_cards"][0][0]] if burn else []
    want = []
    for (k,), part in frame.partition_by("shoe", as_dict=True, maintain_order=True).items():
        try:
            check_shoe(part.drop("shoe"), decks, also_seen=seen)
            want.append(k)
        except RoadsAppError:
            pass
    assert sorted(shoes_within(frame, decks, seen)) == want
