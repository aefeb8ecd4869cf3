"""The compiled odds study gives the plain reference's parts and results exactly."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from roads_app.bets import live_odds
from roads_app.bets.tables import load_table
from roads_app.game.shoe import ShoeOptions, deal_shoe
from roads_app.sim import study

WINBOX = load_table("winbox")


@pytest.mark.parametrize("table", ["winbox", "classic", "asian-live"])
@pytest.mark.parametrize("closing", [True, False])
def test_fast_study_is_the_plain_study(table: str, closing: bool) -> None:
    t = load_table(table)
    plain = live_odds.odds_study(5, 9, t, closing=closing)
    fast = study.odds_study(5, 9, t, closing=closing, batch=4)
    assert fast.hands == plain.hands
    assert_frame_equal(fast.summary, plain.summary)
    assert_frame_equal(fast.per_shoe, plain.per_shoe)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32),
    start=st.integers(0, 10**6),
    n=st.integers(1, 4),
    decks=st.integers(1, 8),
    burn=st.booleans(),
)
def test_a_range_is_the_plain_range(seed: int, start: int, n: int, decks: int, burn: bool) -> None:
    opts = ShoeOptions(decks=decks, cut=min(14, decks * 26), burn=burn)
    shoes = range(start, start + n)
    a = live_odds.study_shoes(seed, shoes, WINBOX, opts)
    b = study.study_range(seed, shoes, WINBOX, opts)
    assert (a.first_shoe, a.hands) == (b.first_shoe, b.hands)
    for f in ("positive_hands", "bets", "net", "expected"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), f


def test_parts_merge_to_the_same_result_however_the_shoes_are_cut() -> None:
    whole = study.odds_study(12, 30, WINBOX, batch=30)
    parts = [study.study_range(12, range(a, b), WINBOX) for a, b in ((20, 30), (0, 7), (7, 20))]
    merged = live_odds.summarize_study(parts, 12, WINBOX)  # in any order: merged in shoe order
    assert_frame_equal(merged.summary, whole.summary)
    assert_frame_equal(merged.per_shoe, whole.per_shoe)


def test_hand_odds_are_the_chart_of_each_shoe() -> None:
    _, hands = next(study.study_parts(4, 3, WINBOX, with_hands=True))
    assert hands is not None
    for k in range(3):
        dealt = deal_shoe(4, WINBOX.shoe, k)
        chart = live_odds.ev_through_shoe(dealt.rounds, dealt.meta, WINBOX, next_hand=False)
        mine = hands.filter(pl.col("shoe") == k + 1)
        assert mine["hand"].to_list() == chart["hand"].to_list()
        assert mine["bet"].cast(pl.String).to_list() == chart["bet"].to_list()
        assert np.allclose(mine["ev"].to_numpy(), chart["ev"].to_numpy(), rtol=0, atol=1e-12)
        assert mine["positive"].to_list() == chart["positive"].to_list()
        assert mine["open"].to_list() == chart["open"].to_list()


def test_cli_streams_hand_odds_and_prints_the_plain_summary(tmp_path: Path) -> None:
    out = tmp_path / "hands.parquet"
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "roads_app",
            "odds-study",
            "--shoes",
            "5",
            "--seed",
            "3",
            "--rules",
            "winbox",
            "--json",
            "--hands-out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    plain = live_odds.odds_study(3, 5, WINBOX)
    assert doc["hands"] == plain.hands
    assert doc["bets"] == plain.records()
    hands = pl.read_parquet(out)
    assert hands.height == plain.hands * len(WINBOX.bets)
    taken = hands.group_by("bet").agg(pl.col("taken").sum()).sort("bet")
    want = plain.per_shoe.group_by("bet").agg(pl.col("bets").sum())
    assert dict(taken.with_columns(pl.col("bet").cast(pl.String)).iter_rows()) == dict(
        want.iter_rows()
    )


def test_cached_kernels_are_keyed_by_the_kernels_they_call() -> None:
    """Numba alone would keep a kernel's old machine code after a function or array it
    compiles in from another file changed: the study kernel's after bets/odds.py, the
    engine's after the shoe procedure or the road rule, bulk's after any of those."""
    from roads_app.sim import bulk, good_road_study, kernel

    game = ["game/cards.py", "game/drawing.py", "game/hand.py", "game/shoe.py"]
    # the session's step asks bets/tables.py when a bet is closed (tables.closed_after)
    roads = [
        "roads/derived.py",
        "roads/good_roads.py",
        "sim/session.py",
        "bets/tables.py",
        "sim/pcg64.py",
    ]
    engine = [*game, *roads]
    for fn, want in (
        (study._hand_probabilities, ["bets/odds.py", *game]),
        (kernel._run_kernel, engine),
        (kernel.deal_cards_kernel, engine),
        (bulk._deal_batch, ["sim/kernel.py", *engine]),
        (
            good_road_study._study_kernel,
            ["roads/good_roads.py", "sim/kernel.py", *game, "roads/derived.py", *roads[2:]],
        ),
    ):
        _, deps = fn._cache._impl.locator.get_source_stamp()
        got = [p.replace("\\", "/") for p, _, _ in deps]
        assert len(got) == len(want)
        assert all(p.endswith(w) for p, w in zip(got, want, strict=True)), got
