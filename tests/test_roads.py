"""The five roads against the conventions (`docs/roads.md`): its worked examples, a long
hand-checked shoe, and properties over random shoes heavy on ties and long streaks.

The property tests also compare with `_reference`, a slow, literal reading of the
spec written here: it keeps the grid as a set of cells and recomputes the derived
roads result by result from the streak lengths *as they stand*, so it shares no
code (and no vectorisation trick such as "final lengths") with `roads_app.roads.grids`.
"""

from __future__ import annotations

from unittest import mock

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from roads_app import jit_cache
from roads_app.errors import RoadsAppError, RoundError
from roads_app.game.rounds import (
    MULTI_SHOE_SCHEMA,
    ROUNDS_SCHEMA,
    WINNER,
    add_cards,
    add_points,
    add_winner,
    empty_rounds,
    rounds_from_winners,
)
from roads_app.roads import good_roads, grids
from roads_app.roads.names import ROAD_NAMES

DERIVED = {"big_eye_boy": 1, "small_road": 2, "cockroach_pig": 3}


def rw(text: str) -> pl.DataFrame:
    return rounds_from_winners(text)


def cells(frame: pl.DataFrame) -> list[tuple[int, int]]:
    return list(zip(frame["col"].to_list(), frame["row"].to_list(), strict=True))


def colours(frame: pl.DataFrame) -> str:
    return "".join("R" if c == "red" else "B" for c in frame["colour"].to_list())


# --- a literal reading of the spec (slow, independent) ----------------------------------


def _ref_layout(labels: list[str], rows: int) -> list[tuple[int, int]]:
    """Same label goes down, a change starts a column; spec's dragon-tail rule."""
    taken: set[tuple[int, int]] = set()
    out: list[tuple[int, int]] = []
    start, c, r, turned, prev = -1, 0, 0, False, None
    for label in labels:
        if label != prev:
            c = start + 1
            while (c, 0) in taken:
                c += 1
            start, r, turned = c, 0, False
        elif not turned and r + 1 < rows and (c, r + 1) not in taken:
            r += 1
        else:
            turned = True
            c += 1
        assert (c, r) not in taken
        taken.add((c, r))
        out.append((c, r))
        prev = label
    return out


def _ref_mark(lengths: list[int], k: int) -> str | None:
    """Spec formula, for the result that has just made ``lengths`` what it is."""
    n = len(lengths) - 1
    m = lengths[n]
    if m == 1:
        if n - 1 - k < 0:
            return None
        return "red" if lengths[n - 1] == lengths[n - 1 - k] else "blue"
    if n - k < 0:
        return None
    p = lengths[n - k]
    return "blue" if m == p + 1 else "red"


def _reference(text: str, rows: int = 6) -> dict:
    """Big road (round, winner, ties, cell) and derived roads (round, colour, cell)."""
    big: list[list] = []  # [round, winner, ties]
    lengths: list[int] = []
    derived: dict[str, list[tuple[int, str]]] = {name: [] for name in DERIVED}
    leading = 0
    for i, w in enumerate(text, start=1):
        if w == "T":
            if big:
                big[-1][2] += 1
            else:
                leading += 1
            continue
        if big and big[-1][1] == w:
            lengths[-1] += 1
        else:
            lengths.append(1)
        big.append([i, w, 0])
        if len(big) == 1:
            big[0][2] = leading
        for name, k in DERIVED.items():
            mark = _ref_mark(lengths, k)
            if mark is not None:
                derived[name].append((i, mark))
    if not big and leading:
        big = [[text.index("T") + 1, "T", leading]]
    big_cells = _ref_layout([w for _, w, _ in big], rows)
    out = {"big_road": [(r, w, t, *cell) for (r, w, t), cell in zip(big, big_cells, strict=True)]}
    for name, marks in derived.items():
        placed = _ref_layout([c for _, c in marks], rows)
        out[name] = [(r, c, *cell) for (r, c), cell in zip(marks, placed, strict=True)]
    return out


def _ref_ask(text: str, side: str) -> dict[str, str | None]:
    """Add ``side`` and see whether each derived road grew, and with what."""
    before, after = _reference(text), _reference(text + side)
    return {
        name: after[name][-1][1] if len(after[name]) > len(before[name]) else None
        for name in DERIVED
    }


# --- the spec's worked examples ----------------------------------------------------------


def test_spec_big_road_with_a_tie_inside() -> None:
    big = grids.big_road(rw("BBPTPB"))
    assert big.select("winner", "col", "row", "ties").rows() == [
        ("B", 0, 0, 0),
        ("B", 0, 1, 0),
        ("P", 1, 0, 1),
        ("P", 1, 1, 0),
        ("B", 2, 0, 0),
    ]
    assert big["round"].to_list() == [1, 2, 3, 5, 6]


def test_spec_leading_ties() -> None:
    assert grids.big_road(rw("TTB")).select("round", "winner", "col", "row", "ties").rows() == [
        (3, "B", 0, 0, 2)
    ]
    assert grids.big_road(rw("TT")).select("winner", "col", "row", "ties").rows() == [
        ("T", 0, 0, 2)
    ]


def test_spec_dragon_tails_stay_on_their_row() -> None:
    big = grids.big_road(rw("B" * 9 + "P" * 10))
    b = [(0, r) for r in range(6)] + [(1, 5), (2, 5), (3, 5)]
    p = [(1, r) for r in range(5)] + [(2, 4), (3, 4), (4, 4), (5, 4), (6, 4)]
    assert cells(big) == b + p
    assert big["winner"].to_list() == ["B"] * 9 + ["P"] * 10


def test_spec_derived_roads_long_example() -> None:
    roads = grids.all_roads(rw("PBPPBPPPPBPPBPTBPPPP"))
    assert colours(roads["big_eye_boy"]) == "RBBBBRRBBBBBRRBRR"
    assert colours(roads["small_road"]) == "BBRRBRBRRBRBRBRR"
    assert colours(roads["cockroach_pig"]) == "RBRRBBBBBRBBRR"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("BPB", "R"), ("BPP", "B"), ("BTPB", "R"), ("PBPBPBPB", "RRRRRR")],
)
def test_spec_short_big_eye_boy(text: str, expected: str) -> None:
    assert colours(grids.big_eye_boy(rw(text))) == expected


def test_derived_starting_cells_per_spec() -> None:
    # big eye boy starts at B2 (col 1 row 1) when it fills: BPP -> mark made by round 3
    assert grids.big_eye_boy(rw("BPP"))["round"].to_list() == [3]
    # ... or at C1 when B2 never fills: BPB -> mark made by round 3 (C1)
    assert grids.big_eye_boy(rw("BPB"))["round"].to_list() == [3]
    # small road at C2 or D1; cockroach pig at D2 or E1
    assert grids.small_road(rw("BPBB"))["round"].to_list() == [4]
    assert grids.small_road(rw("BPBP"))["round"].to_list() == [4]
    assert grids.small_road(rw("BPB")).height == 0
    assert grids.cockroach_pig(rw("BPBPP"))["round"].to_list() == [5]
    assert grids.cockroach_pig(rw("BPBPB"))["round"].to_list() == [5]
    assert grids.cockroach_pig(rw("BPBP")).height == 0


def test_bead_plate_positions_and_carried_fields() -> None:
    r = add_cards(add_points(add_winner(empty_rounds(), "T"), 9, 3), ["4s", "4h"], ["Ks", "5d"])
    bead = grids.bead_plate(r)
    assert bead.select("col", "row", "round", "winner").rows() == [
        (0, 0, 1, "T"),
        (0, 1, 2, "P"),
        (0, 2, 3, "P"),
    ]
    # entered by winner: nulls carried; by points: points but no flags; by cards: all
    assert bead["player_points"].to_list() == [None, 9, 8]
    assert bead["banker_points"].to_list() == [None, 3, 5]
    assert bead["player_pair"].to_list() == [None, None, True]
    assert bead["player_natural"].to_list() == [None, None, True]
    big = grids.big_road(r)
    assert big.select("round", "winner", "ties", "player_pair").rows() == [
        (2, "P", 1, None),
        (3, "P", 0, True),
    ]


# --- a long hand-checked shoe whose dragon tails run into each other ----------------------

# TT B7 T B P7 B6 P T B4 P4 B3 P TT  (40 rounds; streak lengths 8 7 6 1 4 4 3 1)
LONG = (
    "TT"
    + "B" * 7
    + "T"
    + "B"
    + "P" * 7
    + "B" * 6
    + "P"
    + "T"
    + "B" * 4
    + "P" * 4
    + "BBB"
    + "P"
    + "TT"
)

# Derived by hand from the spec rules, streak by streak:
# B8 (rounds 3-9, 11): col 0 rows 0-5, then the tail along row 5: (1,5) (2,5).
#   Round 3 carries the 2 leading ties, round 9 the tie of round 10.
# P7 (12-18): col 1 rows 0-4; (1,5) is taken by the B tail -> right along row 4: (2,4) (3,4).
# B6 (19-24): col 2 rows 0-3; (2,4) taken by the P tail -> along row 3: (3,3) (4,3).
# P1 (25): first column right of 2 with row 0 free: (3,0); carries the tie of round 26.
# B4 (27-30): (4,0) (4,1) (4,2); (4,3) taken by the B6 tail -> along row 2: (5,2).
# P4 (31-34): (5,0) (5,1); (5,2) taken -> along row 1: (6,1) (7,1).
# B3 (35-37): (6,0); (6,1) taken at once -> the tail runs along row 0: (7,0) (8,0).
# P1 (38): columns 7 and 8 have row 0 taken by that tail -> (9,0); carries 2 ties.
LONG_BIG = [
    (3, "B", 2, 0, 0),
    (4, "B", 0, 0, 1),
    (5, "B", 0, 0, 2),
    (6, "B", 0, 0, 3),
    (7, "B", 0, 0, 4),
    (8, "B", 0, 0, 5),
    (9, "B", 1, 1, 5),
    (11, "B", 0, 2, 5),
    (12, "P", 0, 1, 0),
    (13, "P", 0, 1, 1),
    (14, "P", 0, 1, 2),
    (15, "P", 0, 1, 3),
    (16, "P", 0, 1, 4),
    (17, "P", 0, 2, 4),
    (18, "P", 0, 3, 4),
    (19, "B", 0, 2, 0),
    (20, "B", 0, 2, 1),
    (21, "B", 0, 2, 2),
    (22, "B", 0, 2, 3),
    (23, "B", 0, 3, 3),
    (24, "B", 0, 4, 3),
    (25, "P", 1, 3, 0),
    (27, "B", 0, 4, 0),
    (28, "B", 0, 4, 1),
    (29, "B", 0, 4, 2),
    (30, "B", 0, 5, 2),
    (31, "P", 0, 5, 0),
    (32, "P", 0, 5, 1),
    (33, "P", 0, 6, 1),
    (34, "P", 0, 7, 1),
    (35, "B", 0, 6, 0),
    (36, "B", 0, 7, 0),
    (37, "B", 0, 8, 0),
    (38, "P", 2, 9, 0),
]

# Derived roads from L = [8, 7, 6, 1, 4, 4, 3, 1] with the spec formula:
# big eye boy (k=1): streak 1: m=2..7 vs L[0]=8 -> R x6; streak 2: open 7!=8 B, m=2..6 vs 7
#   R x5; streak 3: open 6!=7 B; streak 4: open 1!=6 B, m=2 = L[3]+1 B, m=3,4 R R;
#   streak 5: open 4!=1 B, m=2..4 vs 4 R x3; streak 6: open 4==4 R, m=2,3 vs 4 R R;
#   streak 7: open 3!=4 B.
# small road (k=2): streak 2: m=2..6 vs L[0]=8 R x5; streak 3: open 6!=8 B; streak 4: open
#   1!=7 B, m=2..4 vs 6 R x3; streak 5: open 4!=6 B, m=2 = L[3]+1 B, m=3,4 R R; streak 6:
#   open 4!=1 B, m=2,3 vs 4 R R; streak 7: open 3!=4 B.
# cockroach pig (k=3): streak 4: open 1!=8 B, m=2..4 vs 7 R x3; streak 5: open 4!=7 B,
#   m=2..4 vs 6 R x3; streak 6: open 4!=6 B, m=2 = L[3]+1 B, m=3 R; streak 7: open 3!=1 B.
LONG_DERIVED = {
    "big_eye_boy": "RRRRRR" + "BRRRRR" + "B" + "BBRR" + "BRRR" + "RRR" + "B",
    "small_road": "RRRRR" + "B" + "BRRR" + "BBRR" + "BRR" + "B",
    "cockroach_pig": "BRRR" + "BRRR" + "BBR" + "B",
}
# Which rounds make them: big eye boy from round 13 (B2 = 2nd P) on, every B/P result after;
# small road from round 20 (C2); cockroach pig from round 27 (E1: D2 never fills).
LONG_FIRST_ROUND = {"big_eye_boy": 13, "small_road": 20, "cockroach_pig": 27}


def test_long_hand_checked_shoe_big_road() -> None:
    big = grids.big_road(rw(LONG))
    assert big.select("round", "winner", "ties", "col", "row").rows() == LONG_BIG


def test_long_hand_checked_shoe_derived_roads() -> None:
    roads = grids.all_roads(rw(LONG))
    for name, expected in LONG_DERIVED.items():
        assert colours(roads[name]) == expected, name
        assert roads[name]["round"][0] == LONG_FIRST_ROUND[name]
    # big eye boy runs: R6 B1 R5 B3 R2 B1 R6 B1 -> columns 0..7, the R6 runs fill col 0 / 6
    bey = roads["big_eye_boy"]
    assert cells(bey)[:7] == [(0, r) for r in range(6)] + [(1, 0)]
    assert cells(bey)[-7:] == [(6, r) for r in range(6)] + [(7, 0)]


def test_long_hand_checked_shoe_ask_road() -> None:
    # Last streak P of length 1, L[6]=3, L[5]=4, L[4]=4.
    # Next P continues at m=2: big eye boy p=L[6]=3 -> red; small p=L[5]=4 red; pig p=4 red.
    assert grids.ask_road(rw(LONG), "P") == dict.fromkeys(DERIVED, "red")
    assert grids.ask_road(rw(LONG), "banker") == dict.fromkeys(DERIVED, "blue")


def test_derived_road_dragon_tail() -> None:
    # PBPB...: every streak has length 1, so each opening compares 1 with 1 -> red.
    # 12 results give 10 big-eye-boy reds: col 0 rows 0-5, then along row 5.
    bey = grids.big_eye_boy(rw("PB" * 6))
    assert colours(bey) == "R" * 10
    assert cells(bey) == [(0, r) for r in range(6)] + [(c, 5) for c in range(1, 5)]


def test_rows_other_than_six() -> None:
    # 3 rows: B (0,0) (0,1) (0,2) tail (1,2); P (1,0) (1,1), (1,2) taken -> (2,1) (3,1).
    big = grids.big_road(rw("BBBBPPPP"), rows=3)
    assert cells(big) == [(0, 0), (0, 1), (0, 2), (1, 2), (1, 0), (1, 1), (2, 1), (3, 1)]
    bead = grids.bead_plate(rw("BPTBP"), rows=np.int64(2))
    assert cells(bead) == [(0, 0), (0, 1), (1, 0), (1, 1), (2, 0)]
    # one row: every streak runs right along row 0, the next starts past its tail
    assert cells(grids.big_road(rw("BBPB"), rows=1)) == [(0, 0), (1, 0), (2, 0), (3, 0)]


# --- properties over random shoes ---------------------------------------------------------

runs = st.lists(st.tuples(st.sampled_from("BPT"), st.integers(1, 13)), max_size=22)
shoe_texts = st.one_of(
    runs.map(lambda rs: "".join(w * n for w, n in rs)),
    st.text(alphabet="BPT", max_size=90),
    st.text(alphabet="BPTTT", max_size=30),
)


def _streaks(text: str) -> list[int]:
    lengths: list[int] = []
    prev = None
    for w in text.replace("T", ""):
        if w == prev:
            lengths[-1] += 1
        else:
            lengths.append(1)
        prev = w
    return lengths


@settings(max_examples=300, deadline=None)
@given(text=shoe_texts, rows=st.sampled_from([6, 6, 6, 1, 3, 8, grids.MAX_ROWS]))
def test_roads_match_the_literal_reference(text: str, rows: int) -> None:
    got = grids.all_roads(rw(text), rows=rows)
    ref = _reference(text, rows)
    assert got["big_road"].select("round", "winner", "ties", "col", "row").rows() == ref["big_road"]
    for name in DERIVED:
        assert got[name].select("round", "colour", "col", "row").rows() == ref[name], name


@settings(max_examples=200, deadline=None)
@given(text=shoe_texts, rows=st.sampled_from([6, 6, 2, 5]))
def test_road_properties(text: str, rows: int) -> None:
    roads = grids.all_roads(rw(text), rows=rows)
    bead, big = roads["bead_plate"], roads["big_road"]
    # bead plate: one bead per round, in order, ties included
    assert bead["round"].to_list() == list(range(1, len(text) + 1))
    assert "".join(bead["winner"].to_list()) == text
    # big road: one cell per B/P result; only a tie-only shoe has one T cell
    bp = text.replace("T", "")
    if bp:
        assert "".join(big["winner"].to_list()) == bp
    else:
        assert big["winner"].to_list() == (["T"] if text else [])
    assert big["ties"].sum() == text.count("T")
    for frame in roads.values():
        # no two marks share a cell, and every cell is on the grid
        assert len(set(cells(frame))) == frame.height
        assert frame.filter((pl.col("row") < 0) | (pl.col("row") >= rows)).height == 0
    # a streak never drops back after turning right
    for name in ("big_road", *DERIVED):
        frame = roads[name]
        label = "winner" if name == "big_road" else "colour"
        streak = frame.select(pl.col(label).rle_id().alias("s"), "col", "row")
        for _, grp in streak.group_by("s"):
            cs, rs = grp["col"].to_list(), grp["row"].to_list()
            turned = False
            for i in range(1, len(cs)):
                if cs[i] != cs[i - 1]:
                    turned = True
                    assert (cs[i], rs[i]) == (cs[i - 1] + 1, rs[i - 1])
                else:
                    assert not turned and rs[i] == rs[i - 1] + 1
    # derived mark counts follow from the streak lengths alone
    lengths = _streaks(text)
    for name, k in DERIVED.items():
        expected = sum(L - 1 for L in lengths[k:]) + max(len(lengths) - k - 1, 0)
        assert roads[name].height == expected, name


@settings(max_examples=200, deadline=None)
@given(text=shoe_texts)
def test_ask_road_matches_adding_the_result(text: str) -> None:
    b, p = grids.ask_road(rw(text), "B"), grids.ask_road(rw(text), "P")
    assert b == _ref_ask(text, "B")
    assert p == _ref_ask(text, "P")
    opposite = {"red": "blue", "blue": "red", None: None}
    assert p == {name: opposite[c] for name, c in b.items()}


@settings(max_examples=100, deadline=None)
@given(text=shoe_texts)
def test_marks_before_each_round_have_no_look_ahead(text: str) -> None:
    before = grids.derived_marks_before_each_round(rw(text))
    assert before["round"].to_list() == list(range(1, len(text) + 1))
    for i in range(len(text)):
        for side in "BP":
            want = _ref_ask(text[:i], side)
            got = {name: before[f"{name}_{side}"][i] for name in DERIVED}
            assert got == want, (i, side)


@settings(max_examples=60, deadline=None)
@given(
    texts=st.lists(shoe_texts.filter(bool), min_size=1, max_size=6), rows=st.sampled_from([6, 4])
)
def test_many_shoes_in_one_call_equal_one_at_a_time(texts: list[str], rows: int) -> None:
    numbers = list(range(len(texts), 0, -1))  # shoe numbers need not be ascending
    frames = [
        rw(t).with_columns(shoe=pl.lit(n, dtype=pl.Int32))
        for t, n in zip(texts, numbers, strict=True)
    ]
    many = pl.concat(frames).select(MULTI_SHOE_SCHEMA.names())
    got = grids.all_roads(many, rows=rows)
    for name, frame in got.items():
        assert frame.columns[0] == "shoe"
        for text, n in zip(texts, numbers, strict=True):
            one = grids.all_roads(rw(text), rows=rows)[name]
            assert frame.filter(pl.col("shoe") == n).drop("shoe").equals(one), (name, n)
    asks = grids.ask_roads(many)
    assert asks["shoe"].to_list() == sorted(numbers)
    for text, n in zip(texts, numbers, strict=True):
        row = asks.filter(pl.col("shoe") == n).row(0, named=True)
        for side in "BP":
            assert {name: row[f"{name}_{side}"] for name in DERIVED} == grids.ask_road(
                rw(text), side
            )
    before = grids.derived_marks_before_each_round(many)
    assert before.height == many.height
    for text, n in zip(texts, numbers, strict=True):
        one = grids.derived_marks_before_each_round(rw(text))
        assert before.filter(pl.col("shoe") == n).drop("shoe").equals(one)


# --- dtypes, empty shoes, bad input --------------------------------------------------------


def test_output_dtypes() -> None:
    roads = grids.all_roads(rw("BPPBTBBP"))
    for frame in roads.values():
        assert frame.schema["col"] == pl.Int32 and frame.schema["row"] == pl.Int32
        assert frame.schema["round"] == pl.Int32
    assert roads["bead_plate"].schema["winner"] == WINNER
    assert roads["big_road"].schema["winner"] == WINNER
    assert roads["big_road"].schema["ties"] == pl.Int32
    for name in DERIVED:
        assert roads[name].schema["colour"] == grids.COLOUR
        assert roads[name].columns == ["col", "row", "round", "colour"]


def test_empty_shoe_gives_empty_roads_with_their_columns() -> None:
    empty = grids.all_roads(empty_rounds())
    full = grids.all_roads(rw("BPBPPBBP"))
    for name in ROAD_NAMES:
        assert empty[name].height == 0
        assert empty[name].schema == full[name].schema, name
    assert grids.ask_road(empty_rounds(), "B") == dict.fromkeys(DERIVED)
    many_empty = grids.all_roads(MULTI_SHOE_SCHEMA.to_frame())
    assert all(f.columns[0] == "shoe" and f.height == 0 for f in many_empty.values())


def test_winner_as_plain_strings_is_accepted() -> None:
    frame = pl.DataFrame({"winner": ["b", "P", "t", "P"]})
    assert grids.big_road(frame).select("round", "winner", "ties").rows() == [
        (1, "B", 0),
        (2, "P", 1),
        (4, "P", 0),
    ]


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        (pl.DataFrame({"winner": ["B", "X"]}), "row 2 has winner 'X'"),
        (pl.DataFrame({"winner": ["B", None]}, schema={"winner": WINNER}), "row 2"),
        (pl.DataFrame({"round": [1]}), "no 'winner' column"),
        (pl.DataFrame({"shoe": [1, None], "winner": ["B", "P"]}), "no shoe number"),
    ],
)
def test_bad_tables_raise_one_line(frame: pl.DataFrame, message: str) -> None:
    with pytest.raises(RoundError, match=message) as info:
        grids.all_roads(frame)
    assert "\n" not in str(info.value)


def test_bad_settings_raise_one_line() -> None:
    for rows in (0, -6, 51, 6.0, True):
        with pytest.raises(RoundError, match="rows"):
            grids.big_road(rw("BP"), rows=rows)  # type: ignore[arg-type]
    with pytest.raises(RoundError, match="side 'X'"):
        grids.ask_road(rw("BP"), "X")
    with pytest.raises(RoundError, match="one shoe"):
        grids.ask_road(pl.DataFrame({"shoe": [1, 2], "winner": ["B", "P"]}), "B")
    with pytest.raises(RoadsAppError):
        grids.bead_plate("BPB")  # type: ignore[arg-type]


def test_input_frame_is_left_alone() -> None:
    r = rw("BTPPB")
    copy = r.clone()
    grids.all_roads(r)
    assert r.equals(copy) and r.schema == ROUNDS_SCHEMA


@settings(max_examples=200, deadline=None)
@given(
    heights=st.lists(st.integers(1, 6), min_size=1, max_size=12),
    k=st.integers(1, 3),
    continues=st.booleans(),
)
def test_next_colour_is_the_rule_for_the_mark_it_stands_for(
    heights: list[int], k: int, continues: bool
):
    """The engine asks the rule's opening form and flips it for a continuing result
    (`derived.next_colour`): it must equal the rule asked for that very mark, the row
    below the last column or the top of a new one, with the heights it would then have."""
    from roads_app.roads import derived

    last = len(heights) - 1
    now = np.array([*heights, 0])  # room for a column the result may open
    if continues:
        want = derived.derived_colour(now, last, heights[last], last, k)
    else:
        want = derived.derived_colour(now, last + 1, 0, last + 1, k)
    got = derived.next_colour(now, last + 1, last + 1, continues, k)
    assert got == want
    compiled = derived.mark_colours(
        now, np.array([last + 1]), np.array([0]), np.array([last + 1]), k, np.array([continues])
    )
    assert compiled[0] == want


@settings(max_examples=40, deadline=None)
@given(
    texts=st.lists(shoe_texts.filter(bool), min_size=1, max_size=4),
    holes=st.lists(st.booleans(), min_size=1, max_size=400),
)
def test_round_numbers_are_carried_as_given_even_with_gaps(
    texts: list[str], holes: list[bool]
) -> None:
    """Each mark shows the round number of the row that made it, whatever the numbers
    are: the kernel writes them straight from the input, or (when some are missing, a
    column that did not read as whole numbers) the row, looked up after."""
    many = pl.concat(
        rw(t).with_columns(shoe=pl.lit(n, dtype=pl.Int32)) for n, t in enumerate(texts, 1)
    ).select(MULTI_SHOE_SCHEMA.names())
    given = [None if holes[i % len(holes)] else 1000 - 7 * i for i in range(many.height)]
    plain = grids.all_roads(many.with_columns(round=pl.int_range(1, pl.len() + 1)))
    odd = grids.all_roads(many.with_columns(round=pl.Series(given, dtype=pl.Int32)))
    for name, frame in plain.items():
        want = [given[r - 1] for r in frame["round"].to_list()]
        assert odd[name]["round"].to_list() == want, name
        assert odd[name].drop("round").equals(frame.drop("round")), name


def test_the_roads_kernel_cache_is_keyed_by_the_rule_it_compiles_in() -> None:
    """The kernel compiles `derived_colour` and the winner codes into its machine code:
    an edit to either file must make Numba's disk cache miss, not load the old code."""
    import os

    from roads_app import jit_cache
    from roads_app.game import hand
    from roads_app.roads import derived

    deps = jit_cache._DEPENDS[os.path.abspath(grids.__file__)]
    assert {os.path.abspath(m.__file__) for m in (derived, hand)} <= set(deps)


# --- the roads' own source interpreted (a new install's first board) ---------------------


def _every_road(frame: pl.DataFrame, rows: int) -> list[object]:
    """Everything the roads' kernels feed: the five roads, the ask roads, the marks before
    each round and the good roads' masks."""
    return [
        *grids.all_roads(frame, rows=rows).values(),
        grids.ask_roads(frame),
        grids.derived_marks_before_each_round(frame),
        good_roads.good_road_masks(frame),
    ]


dragons = st.lists(st.tuples(st.sampled_from("BPT"), st.integers(1, 60)), max_size=6)


@settings(max_examples=150, deadline=None)
@given(
    texts=st.lists(
        st.one_of(shoe_texts, dragons.map(lambda rs: "".join(w * n for w, n in rs))),
        min_size=1,
        max_size=4,
    ),
    rows=st.sampled_from([6, 6, 3, 1]),
)
@example(texts=[""], rows=6)
@example(texts=["TTT"], rows=6)  # all ties
@example(texts=["TTBPPT", "TB"], rows=6)  # ties first
@example(texts=["B" * 70 + "P" * 20], rows=6)  # a long dragon
def test_interpreted_roads_equal_compiled_to_the_bit(texts: list[str], rows: int) -> None:
    """While the roads' code is in no cache a board is laid out by their own source run
    by the interpreter (`grids.PLAIN_UP_TO`): the same frames and masks as compiled."""
    frames = [rw(t).with_columns(shoe=pl.lit(n, dtype=pl.Int32)) for n, t in enumerate(texts)]
    frame = rw(texts[0]) if len(texts) == 1 else pl.concat(frames).select(MULTI_SHOE_SCHEMA.names())
    compiled = _every_road(frame, rows)
    with mock.patch.object(jit_cache, "is_cached", return_value=False):
        assert jit_cache.for_size(grids._roads_kernel, True) is not grids._roads_kernel
        plain = _every_road(frame, rows)
    for got, want in zip(plain, compiled, strict=True):
        if isinstance(want, np.ndarray):
            assert got.dtype == want.dtype and np.array_equal(got, want)
        else:
            assert got.equals(want), (got, want)
