"""Every forbidden draw is refused by every way a round comes in (issue 40).

A hand whose cards the drawing rules cannot deal (Banker drawing or standing against
the tableau, Player drawing on 6-7 or standing on 0-5, a third card after a natural)
is dealt by hypothesis and written into a shoe file of every format (JSON, CSV,
Parquet; one shoe, and a `simulate`-style file of several), then given to every door:
``import``, ``show``, ``odds --shoe``, ``good-roads FILE``, the dashboard's entry
function (`add_cards`) and the HTTP API. Each refuses in one line naming the round,
and nothing is saved.

The oracle is the published tableau written out here on its own (not the app's tables).
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from roads_app.cli import main
from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ROUNDS_SCHEMA, add_cards, check_shoe, empty_rounds
from roads_app.game.shoe import deal_shoe
from roads_app.store import db, tokens
from tests.api_server import ApiServer

RANKS = "A23456789TJQK"
POINT = {r: (i + 1) % 10 if i < 9 else 0 for i, r in enumerate(RANKS)}


def total(cards: list[str]) -> int:
    return sum(POINT[c[0]] for c in cards) % 10


def legal(p: list[str], b: list[str]) -> bool:
    """The punto banco tableau as casinos publish it."""
    pt, bt = total(p[:2]), total(b[:2])
    if pt >= 8 or bt >= 8:
        return len(p) == 2 and len(b) == 2
    if (len(p) == 3) != (pt <= 5):
        return False
    if len(p) == 2:
        return (len(b) == 3) == (bt <= 5)
    t = POINT[p[2][0]]
    draws = {
        0: True,
        1: True,
        2: True,
        3: t != 8,
        4: 2 <= t <= 7,
        5: 4 <= t <= 7,
        6: t in (6, 7),
        7: False,
    }[bt]
    return (len(b) == 3) == draws


def kind(p: list[str], b: list[str]) -> str:
    pt, bt = total(p[:2]), total(b[:2])
    if pt >= 8 or bt >= 8:
        return "natural"
    if (len(p) == 3) != (pt <= 5):
        return "player"
    return "banker"


SUITS = "shdc"


@st.composite
def forbidden(draw: st.DrawFn) -> tuple[list[str], list[str]]:
    """Two hands of distinct cards the rules never deal, spread over the three kinds."""
    want = draw(st.sampled_from(["natural", "player", "banker"]))
    ranks = draw(st.lists(st.sampled_from(RANKS), min_size=6, max_size=6))
    cards = [r + SUITS[i % 4] for i, r in enumerate(ranks)]  # six distinct enough cards
    p = cards[:2] + ([cards[4]] if draw(st.booleans()) else [])
    b = cards[2:4] + ([cards[5]] if draw(st.booleans()) else [])
    assume(not legal(p, b) and kind(p, b) == want)
    return p, b


LEGAL_ROUND = {
    "winner": "P",
    "player_points": 9,
    "banker_points": 7,
    "player_pair": False,
    "banker_pair": False,
    "player_natural": True,
    "banker_natural": False,
    "player_cards": ["9c", "Ks"],
    "banker_cards": ["7c", "Qs"],
}


def round_of(p: list[str], b: list[str]) -> dict:
    pt, bt = total(p), total(b)
    return {
        "winner": "B" if bt > pt else "P" if pt > bt else "T",
        "player_cards": p,
        "banker_cards": b,
    }


def write(path: Path, rounds: list[dict], multi: bool) -> Path:
    """The rounds (a legal one first) as a file; ``multi``: as shoe 2 after a good shoe 1."""
    rows = [
        dict(LEGAL_ROUND, round=i + 1) if i == 0 else dict(r, round=i + 1)
        for i, r in enumerate([LEGAL_ROUND, *rounds])
    ]
    if multi:
        rows = [{"shoe": 1, **dict(LEGAL_ROUND, round=1)}, *({"shoe": 2, **r} for r in rows)]
    ext = path.suffix
    if ext == ".json":
        path.write_text(json.dumps(rows if multi else {"rounds": rows}))
    else:
        frame = pl.DataFrame(rows, infer_schema_length=None)
        if ext == ".csv":
            frame.with_columns(pl.col(pl.List(pl.String)).list.join(" ")).write_csv(path)
        else:
            buf = io.BytesIO()
            frame.write_parquet(buf)
            path.write_bytes(buf.getvalue())
    return path


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "bug in roads-app" not in err, err
    return lines[0]


FILES = [(ext, multi) for ext in (".json", ".csv", ".parquet") for multi in (False, True)]


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(hand=forbidden())
def test_every_file_door_refuses_a_forbidden_hand(hand, tmp_path: Path, capsys) -> None:
    p, b = hand
    data = tmp_path / "data"
    db.open_store(data)
    for ext, multi in FILES:
        f = write(tmp_path / f"{'sim' if multi else 'shoe'}{ext}", [round_of(p, b)], multi)
        pick = ["--shoe-index", "2"] if multi else []
        for argv in (
            ["import", str(f), "--data", str(data)],
            ["show", str(f)],
            ["odds", "--shoe", str(f), *pick, "--data", str(data)],
            ["good-roads", str(f)],
        ):
            assert main(argv) == 2, (argv, p, b)
            line = one_line(capsys.readouterr().err)
            assert "round 2" in line or "row 2" in line, (argv, line)  # the forbidden round
            assert any(w in line for w in ("must stand", "must draw", "natural")), line
        assert db.open_store(data).shoes.list().height == 0  # nothing saved


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(hand=forbidden())
def test_the_dashboard_entry_function_refuses_a_forbidden_hand(hand) -> None:
    p, b = hand
    with pytest.raises(RoadsAppError):
        add_cards(empty_rounds(), p, b)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ApiServer]:
    s = ApiServer(tmp_path_factory.mktemp("api") / "data").start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def token(server: ApiServer) -> str:
    return tokens.issue(server.data_dir, "operator")


@settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much],
)
@given(hand=forbidden())
def test_the_api_refuses_a_forbidden_hand(hand, server: ApiServer, token: str) -> None:
    p, b = hand
    with server.client(token) as op:
        shoe = op.post("/shoes", json={"name": "t"}).json()["id"]
        r = op.post(f"/shoes/{shoe}/rounds", json={"player_cards": p, "banker_cards": b})
        assert r.status_code in (400, 422), r.text
        assert "round" in r.text or "must" in r.text or "natural" in r.text, r.text
    assert db.open_store(server.data_dir).shoes.load(shoe).rounds.height == 0


def test_the_legal_round_of_these_files_is_legal() -> None:
    """The oracle agrees with the app on the legal round the files start with."""
    assert legal(LEGAL_ROUND["player_cards"], LEGAL_ROUND["banker_cards"])
    add_cards(empty_rounds(), LEGAL_ROUND["player_cards"], LEGAL_ROUND["banker_cards"])


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(hand=forbidden(), at=st.integers(0, 40), new_from=st.sampled_from([0, 30, 40]))
def test_the_shoe_rule_refuses_a_forbidden_hand_however_the_frame_was_built(
    hand, at: int, new_from: int
) -> None:
    """A rounds frame built by hand (no entry builder ran): `check_shoe`, which every door
    calls, still finds the hand, hand by hand (a few new rounds) or all at once."""
    p, b = hand
    dealt = deal_shoe(3).rounds.head(41)
    row = dict(dealt.row(at, named=True), **round_of(p, b))
    row.update(player_points=total(p), banker_points=total(b))
    frame = pl.concat(
        [
            dealt.head(at),
            pl.DataFrame([row], schema=ROUNDS_SCHEMA, orient="row"),
            dealt.slice(at + 1),
        ]
    )
    first = min(new_from, at)
    with pytest.raises(RoadsAppError, match=f"round {at + 1}: "):
        check_shoe(frame, 8, new_from=first)
