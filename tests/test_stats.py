"""Shoe statistics against hand counts and against plain Python recounts of random shoes."""

from __future__ import annotations

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from roads_app.errors import RoundError
from roads_app.game.hand import Winner
from roads_app.game.rounds import (
    MULTI_SHOE_SCHEMA,
    ShoeCounts,
    add_cards,
    add_winner,
    empty_rounds,
)
from roads_app.game.rounds import rounds_from_winners as rw
from roads_app.game.shoe import deal_shoe
from roads_app.roads.stats import running_counts, shoe_stats, shoe_stats_many

runs = st.lists(st.tuples(st.sampled_from("BPT"), st.integers(1, 10)), max_size=20)
shoe_texts = st.one_of(
    runs.map(lambda rs: "".join(w * n for w, n in rs)), st.text(alphabet="BPT", max_size=80)
)


def _recount(text: str) -> dict:
    """Streaks the slow way: walk the results, skipping ties."""
    side, length, longest = None, 0, {"B": 0, "P": 0}
    for w in text:
        if w == "T":
            continue
        length = length + 1 if w == side else 1
        side = w
        longest[w] = max(longest[w], length)
    return {
        "rounds": len(text),
        "banker": text.count("B"),
        "player": text.count("P"),
        "tie": text.count("T"),
        "streak_side": side,
        "streak": length,
        "longest_banker": longest["B"],
        "longest_player": longest["P"],
    }


def test_hand_counted_shoe() -> None:
    # T T B B T P B B B: 5 B, 1 P, 3 T; streaks B2 (tie inside) P1 B3 -> current B3
    s = shoe_stats(rw("TTBBTPBBB"))
    assert (s["rounds"], s["banker"], s["player"], s["tie"]) == (9, 5, 1, 3)
    assert (s["streak_side"], s["streak"]) == ("B", 3)
    assert (s["longest_banker"], s["longest_player"]) == (3, 1)
    assert s["banker_pct"] == pytest.approx(500 / 9)
    assert s["tie_pct"] == pytest.approx(100 / 3)
    assert s["banker_pairs"] == s["player_naturals"] == "unknown"


def test_pairs_and_naturals_count_only_known_trues() -> None:
    r = add_winner(empty_rounds(), "B")  # flags unknown
    r = add_cards(r, ["4s", "4h"], ["Ks", "5d"])  # player pair, player natural 8
    r = add_cards(r, ["2s", "3h"], ["9c", "9d"])  # banker pair (9 9 = 8, natural)
    r = add_winner(r, "P", player_pair=False, banker_pair=None)
    s = shoe_stats(r)
    assert (s["player_pairs"], s["banker_pairs"]) == (1, 1)
    assert (s["player_naturals"], s["banker_naturals"]) == (1, 1)
    run = running_counts(r)
    assert run["player_pairs"].to_list() == [0, 1, 1, 1]
    assert run["banker_pairs"].to_list() == [0, 0, 1, 1]


def test_dealt_shoe_counts_match_its_hands() -> None:
    dealt = deal_shoe(11)
    rows = dealt.rounds.to_dicts()
    s = shoe_stats(dealt.rounds)
    assert s["player_pairs"] == sum(r["player_pair"] for r in rows)
    assert s["banker_naturals"] == sum(r["banker_natural"] for r in rows)
    text = "".join(r["winner"] for r in rows)
    assert {k: s[k] for k in _recount(text)} == _recount(text)


def test_empty_shoe() -> None:
    s = shoe_stats(empty_rounds())
    assert s["rounds"] == 0 and s["streak_side"] is None and s["banker_pct"] is None
    assert running_counts(empty_rounds()).height == 0


@settings(max_examples=200, deadline=None)
@given(text=shoe_texts)
def test_stats_match_a_recount(text: str) -> None:
    s = shoe_stats(rw(text))
    assert {k: s[k] for k in _recount(text)} == _recount(text)
    if text:
        assert s["banker_pct"] + s["player_pct"] + s["tie_pct"] == pytest.approx(100)


@settings(max_examples=50, deadline=None)
@given(text=shoe_texts, cut=st.integers(min_value=0, max_value=200))
def test_shoe_counts_count_each_winner_eager_lazy_and_in_parts(text: str, cut: int) -> None:
    """The one count of B/P/T: keyed by `Winner`, the same over a lazy frame, and two
    parts of a shoe add up to the whole."""
    rounds = rw(text)
    c = ShoeCounts.of(rounds)
    assert {w: c[w] for w in Winner} == {w: text.count(w.value) for w in Winner}
    assert c.total == rounds.height and ShoeCounts.of(rounds.lazy()) == c
    cut = min(cut, rounds.height)
    assert ShoeCounts.of(rounds.head(cut)) + ShoeCounts.of(rounds.tail(rounds.height - cut)) == c


@settings(max_examples=100, deadline=None)
@given(text=shoe_texts)
def test_running_counts_are_the_stats_of_each_prefix(text: str) -> None:
    run = running_counts(rw(text))
    assert run["round"].to_list() == list(range(1, len(text) + 1))
    for i, row in enumerate(run.iter_rows(named=True)):
        want = _recount(text[: i + 1])
        assert (row["banker"], row["player"], row["tie"]) == (
            want["banker"],
            want["player"],
            want["tie"],
        )
        assert (row["streak_side"], row["streak"]) == (want["streak_side"], want["streak"])


@settings(max_examples=50, deadline=None)
@given(texts=st.lists(shoe_texts.filter(bool), min_size=1, max_size=5))
def test_many_shoes_grouped_equal_one_at_a_time(texts: list[str]) -> None:
    numbers = [2 * (len(texts) - i) for i in range(len(texts))]  # descending, with gaps
    many = pl.concat(
        [
            rw(t).with_columns(shoe=pl.lit(n, dtype=pl.Int32))
            for t, n in zip(texts, numbers, strict=True)
        ]
    ).select(MULTI_SHOE_SCHEMA.names())
    table = shoe_stats_many(many)
    assert table["shoe"].to_list() == sorted(numbers)
    run = running_counts(many)
    assert run.columns[0] == "shoe" and run.height == many.height
    for text, n in zip(texts, numbers, strict=True):
        row = table.filter(pl.col("shoe") == n).row(0, named=True)
        one = shoe_stats(rw(text))
        assert {k: row[k] for k in _recount(text)} == _recount(text)
        assert row["banker_pairs"] is None and one["banker_pairs"] == "unknown"
        mine = run.filter(pl.col("shoe") == n).drop("shoe")
        assert mine.equals(running_counts(rw(text)))


def test_one_shoe_stats_refuse_many_shoes() -> None:
    two = pl.DataFrame({"shoe": [1, 2], "winner": ["B", "P"]})
    with pytest.raises(RoundError, match="one shoe"):
        shoe_stats(two)
    with pytest.raises(RoundError, match="winner 'Q'"):
        shoe_stats(pl.DataFrame({"winner": ["Q"]}))
