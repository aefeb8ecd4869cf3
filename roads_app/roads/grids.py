"""The five baccarat roads, computed from a rounds frame, per ``docs/roads.md``.

Every function takes a rounds frame (`ROUNDS_SCHEMA`, or `MULTI_SHOE_SCHEMA` with a
``shoe`` column) and works on all shoes in one call. Rows are in play order within a
shoe; a table whose shoe numbers are not ascending is grouped first (stably), so
outputs come shoe by shoe, ascending. When the input has ``shoe``, every output has
it as its first column.

How the work is split (so 10,000 shoes cost one pass, not 10,000):

* the drawn roads are one compiled pass over every round of every shoe
  (`_roads_kernel`): each round is a bead, each B/P result a big-road mark, each derived
  road colours it with `roads_app.roads.derived.derived_colour` (the rule the compiled
  engine also uses; it needs only the columns' heights, never the drawn grid) and every
  road lays its new mark out on its grid at once (dragon tails depend on what is already
  drawn). The pass writes every number the frames show (shoe, cell, round, ties, codes
  of winners and colours) into arrays allocated beforehand, which become the frames'
  columns without a copy; only the big road's pair/natural flags are gathered from the
  input;
* the "what would the next result add" queries (`ask_road`, `ask_roads`,
  `derived_marks_before_each_round`) are NumPy index arithmetic over the streaks of all
  shoes at once, colouring with the same rule.

>>> from roads_app.game.rounds import rounds_from_winners
>>> r = rounds_from_winners("BBPTPB")
>>> big_road(r).select("col", "row", "winner", "ties").rows()
[(0, 0, 'B', 0), (0, 1, 'B', 0), (1, 0, 'P', 1), (1, 1, 'P', 0), (2, 0, 'B', 0)]
>>> ask_road(rounds_from_winners("BP"), "B")
{'big_eye_boy': 'red', 'small_road': None, 'cockroach_pig': None}
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numba import njit

from roads_app.errors import RoundError, quote, whole_number
from roads_app.game import hand
from roads_app.game.hand import W_BANKER, W_PLAYER, W_TIE, WINNERS, Side
from roads_app.game.rounds import FLAGS, ROUNDS_SCHEMA, WINNER
from roads_app.jit_cache import depends_on, for_size, load_lean
from roads_app.messages import Message
from roads_app.roads import derived
from roads_app.roads.derived import NO_MARK, derived_colour, mark_colours, opposite
from roads_app.roads.names import DERIVED, Road

# The kernel below compiles in the derived-road rule and the winner codes.
depends_on(__file__, derived, hand)

COLOURS: tuple[str, str] = ("red", "blue")
COLOUR = pl.Enum(list(COLOURS))
_COLOUR_VALUES = pl.Series(COLOURS, dtype=COLOUR)
"""Derived-road mark: red = the big road repeats itself, blue = it does not."""

POINTS: tuple[str, ...] = ("player_points", "banker_points")

_B, _P, _T = W_BANKER, W_PLAYER, W_TIE  # physical codes of the WINNER enum
_BEAD_REST = ["round", "winner", *FLAGS, *POINTS]
_SIDES = {spelling: s.code for s in Side for spelling in (s.value, s.word.upper())}


# --- input ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Shoes:
    """The rounds in play order, as arrays, with the shoe boundaries."""

    frame: pl.DataFrame  # [shoe], round, winner, flags, points; normalised dtypes
    multi: bool
    code: np.ndarray  # int8 winner code per round: 0 B, 1 P, 2 T
    start: np.ndarray  # int64 first row of each group

    def group(self) -> np.ndarray:
        """int64 0-based shoe group per round (for the streak arithmetic only)."""
        first = np.zeros(self.code.size, dtype=np.int64)
        first[self.start[1:]] = 1
        return np.cumsum(first)


MAX_ROWS = 50
"""Tallest grid a display may ask for (the layout keeps a column's taken rows as the bits
of one 64-bit word, `_place`: at most 64)."""


def _check_rows(rows: int) -> int:
    return whole_number(rows, Message("msg_what_road_rows"), 1, MAX_ROWS, error=RoundError)


def _shoes(rounds: pl.DataFrame) -> _Shoes:
    """Check and normalise a rounds frame; a bad one raises one `RoundError` line."""
    if not isinstance(rounds, pl.DataFrame):
        raise RoundError(Message("msg_roads_need_table", type=type(rounds).__name__))
    if "winner" not in rounds.columns:
        raise RoundError(Message("msg_no_winner_column", column="'winner'"))
    multi = "shoe" in rounds.columns
    winner = rounds["winner"]
    if winner.dtype != WINNER:
        text = winner.cast(pl.String, strict=False).str.strip_chars().str.to_uppercase()
        bad = text.is_not_null() & ~text.is_in(list(WINNERS))
        if bad.any():
            i = int(bad.arg_true()[0])
            raise RoundError(Message("msg_row_winner", row=i + 1, w=quote(winner[i])))
        winner = text.cast(WINNER)
    if winner.null_count():
        i = int(winner.is_null().arg_true()[0])
        raise RoundError(Message("msg_row_no_winner", row=i + 1))
    cols: list[pl.Series | pl.Expr] = []
    if multi:
        shoe = rounds["shoe"]
        if shoe.null_count():
            i = int(shoe.is_null().arg_true()[0])
            raise RoundError(Message("msg_row_no_shoe", row=i + 1))
        try:
            cols.append(shoe.cast(pl.Int32))
        except pl.exceptions.PolarsError as e:
            raise RoundError(Message("msg_shoe_numbers_type", dtype=str(shoe.dtype))) from e
    if "round" in rounds.columns:
        cols.append(rounds["round"].cast(pl.Int32, strict=False))
    else:
        rnd = pl.int_range(1, pl.len() + 1, dtype=pl.Int32)
        cols.append((rnd.over("shoe") if multi else rnd).alias("round"))
    cols.append(winner.alias("winner"))
    for name in (*FLAGS, *POINTS):
        dtype = ROUNDS_SCHEMA[name]
        if name in rounds.columns:
            cols.append(rounds[name].cast(dtype, strict=False))
        else:
            cols.append(pl.lit(None, dtype=dtype).alias(name))
    frame = rounds.select(cols)
    if multi and not frame["shoe"].is_sorted():
        frame = frame.sort("shoe", maintain_order=True)
    code = frame["winner"].to_physical().to_numpy().astype(np.int8)
    n = frame.height
    if multi:
        first = _firsts(frame["shoe"].to_numpy())
    else:
        first = np.zeros(n, dtype=np.bool_)
        first[:1] = True
    return _Shoes(frame, multi, code, np.flatnonzero(first))


# --- the big road's logical structure -------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Big:
    """Big-road marks (one per B/P result, or the tie-only cell) and their streaks.

    Mark arrays are in play order over all shoes; streak arrays are indexed by a
    global streak id (streaks never span shoes).
    """

    rows: np.ndarray  # round row of each mark
    winner: np.ndarray  # int8 code of each mark (T only for a tie-only cell)
    group: np.ndarray  # shoe group of each mark
    first_mark: np.ndarray  # per group: index of its first mark
    ties: np.ndarray  # int32 ties carried by each mark
    streak: np.ndarray  # global streak id of each mark
    m: np.ndarray  # position of each mark in its streak (1-based)
    start: np.ndarray  # per streak: index of its first mark
    length: np.ndarray  # per streak: final length
    n: np.ndarray  # per streak: its number within its shoe (0-based)
    upto: np.ndarray  # per round row: marks up to and including it (global count)
    is_mark: np.ndarray  # per round row: it made a big-road mark


def _big(s: _Shoes) -> _Big:
    code, group, start = s.code, s.group(), s.start
    is_bp = code != _T
    bp_per_shoe = np.add.reduceat(is_bp, start, dtype=np.int32)
    is_mark = is_bp.copy()
    is_mark[start[bp_per_shoe == 0]] = True  # a shoe of ties only: its first tie is the cell
    rows = np.flatnonzero(is_mark)
    upto = np.cumsum(is_mark, dtype=np.int64)  # marks up to and including each round
    first_mark = upto[start] - is_mark[start]  # every shoe has at least one mark
    # ties belong to the latest mark of their shoe, leading ties to the shoe's first mark
    tie_rows = np.flatnonzero(~is_bp)
    owner = np.maximum(upto[tie_rows] - 1, first_mark[group[tie_rows]])
    ties = np.bincount(owner, minlength=rows.size).astype(np.int32)
    winner = code[rows]
    new = _firsts(winner)
    new[first_mark] = True
    streak = np.cumsum(new, dtype=np.int64) - 1
    streak_start = np.flatnonzero(new)
    length = np.diff(np.append(streak_start, rows.size))
    step = np.ones(rows.size, dtype=np.int32)  # position in streak: +1, reset at a start
    step[streak_start[1:]] = 1 - length[:-1]
    m = np.cumsum(step, dtype=np.int32)
    first_streak = np.zeros(streak_start.size, dtype=np.int64)
    first_streak[streak[first_mark]] = streak[first_mark]
    n = np.arange(streak_start.size) - np.maximum.accumulate(first_streak)
    return _Big(
        rows,
        winner,
        group[rows],
        first_mark,
        ties,
        streak,
        m,
        streak_start,
        length,
        n,
        upto,
        is_mark,
    )


def _if_banker(b: _Big, last: np.ndarray) -> dict[int, np.ndarray]:
    """Per derived road k: the colour it would add if the next result after mark ``last``
    were Banker (-1: none).

    ``last`` is a mark index or -1 (no B/P result yet). The result that continues the
    last streak is a mark one row further down its column (its row: the streak's length
    then, ``m``; the final lengths of later columns are not read); the other side opens a
    new column and takes the opposite colour (`roads_app.roads.derived`). With no result
    yet, or after a tie-only cell, no road has a mark to add (``n`` -1 or 0).
    """
    if b.rows.size == 0:
        return {k: np.full(last.size, NO_MARK, dtype=np.int8) for k in DERIVED.values()}
    ok = last >= 0
    i = np.where(ok, last, 0)
    s = b.streak[i]
    flip = b.winner[i] == _P  # the side that continues is Player: Banker is the opposite
    m, n = b.m[i], np.where(ok, b.n[s], -1)
    colours = for_size(mark_colours, last.size <= PLAIN_UP_TO)
    return {k: colours(b.length, s, m, n, k, flip) for k in DERIVED.values()}


# --- layout ---------------------------------------------------------------------------


@njit(cache=True)
def _place(taken: np.ndarray, road: int, rows: int, new: bool, at: np.ndarray) -> None:
    """Lay the next mark of one road on its grid (dragon tails), from its state in the
    shoe, ``at[road]`` (`_AT`), updated in place. ``taken[road, col]`` holds the column's
    occupied rows as bits.

    A streak goes down until the last row or an occupied cell, then right along that
    row for good; the next streak starts at row 0 of the first column right of the
    previous start whose row 0 is free.
    """
    start, c, r, turned = at[road, 0], at[road, 1], at[road, 2], at[road, 3]
    if new:
        c = start + 1
        while taken[road, c] & 1:
            c += 1
        start = c
        r = 0
        turned = 0
    elif not turned and r + 1 < rows and not (taken[road, c] >> np.uint64(r + 1)) & 1:
        r += 1
    else:
        turned = 1
        c += 1
    taken[road, c] |= np.uint64(1) << np.uint64(r)
    at[road, 0], at[road, 1], at[road, 2], at[road, 3] = start, c, r, turned


_AT = ("start", "col", "row", "turned")
"""A road's layout state, a row of int64 per road (`_place`): the column its last streak
started in (-1 before its first mark), its last column and row, 1 once it turned right."""


_BIG_ROWS = ("shoe", "col", "row", "round", "ties")
"""The big road's int32 columns as `_roads_kernel` writes them (then its marks' rows)."""
_MARK_ROWS = ("shoe", "col", "row", "round")
"""A derived road's int32 columns as `_roads_kernel` writes them (then its colours)."""


@load_lean
@njit(cache=True)
def _roads_kernel(
    code: np.ndarray,
    start: np.ndarray,
    shoe: np.ndarray,
    rnd: np.ndarray,
    rows: int,
    ks: np.ndarray,
    out: tuple,
) -> None:
    """The bead plate, the big road and the derived roads of every shoe, in one pass.

    ``shoe`` is each shoe's number and ``rnd`` each round's (the values the frames show);
    ``ks`` is the derived roads' k, in order (`roads_app.roads.names.DERIVED`).

    Shoe by shoe, round by round: round i of a shoe (0-based) is a bead at
    ``(i // rows, i % rows)``; a B/P result is a big-road mark (a tie counts on the latest
    one, leading ties on the shoe's first; a shoe of ties only has one cell, its first
    tie), its streak's height grows, each derived road colours it with `derived_colour`
    (columns before its own are final by then) and every road lays its new mark out at
    once. The grids are scratch reused shoe after shoe.

    Fills ``out`` (`_outputs`): the bead cells (col, row per round); per big-road mark
    the `_BIG_ROWS`, its round's row in the input and its winner code; per derived road
    the `_MARK_ROWS` and the colour codes of its marks; and the count of marks of the big
    road, then of each derived road.
    """
    bead, big, winner, marks, colours, count = out
    n = code.size
    longest = 0
    for g in range(start.size):
        b = start[g + 1] if g + 1 < start.size else n
        longest = max(longest, b - start[g])
    heights = np.empty(longest + 1, dtype=np.int32)  # per streak of the shoe: its height
    taken = np.zeros((ks.size + 1, longest + 2), dtype=np.uint64)  # per road, column: rows
    at = np.empty((ks.size + 1, len(_AT)), dtype=np.int64)  # per road: `_place`'s state
    last = np.empty(ks.size, dtype=np.int8)  # per derived road: its last colour
    j = 0  # big-road marks so far (a derived road's so far: ``count[road]``)
    for g in range(start.size):
        a = start[g]
        b = start[g + 1] if g + 1 < start.size else n
        number = shoe[g]
        col = row = 0
        for i in range(a, b):
            bead[0, i] = col
            bead[1, i] = row
            row += 1
            if row == rows:
                row = 0
                col += 1
        taken[:, : b - a + 2] = 0  # a shoe's columns are fewer than its rounds
        at[:, 0] = -1  # no road has a mark yet
        at[:, 1:] = 0
        last[:] = NO_MARK
        first = j
        side = -1
        streak = -1
        height = 0
        pending = 0  # ties before the shoe's first B/P result
        for i in range(a, b):
            w = code[i]
            if w == _T:
                if j == first:
                    pending += 1
                else:
                    big[4, j - 1] += 1
                continue
            new = w != side
            if new:
                side = w
                streak += 1
                height = 0
            height += 1
            heights[streak] = height
            _place(taken, np.int64(0), rows, new, at)  # int64, as the derived roads' number
            big[0, j], big[1, j], big[2, j] = number, at[0, 1], at[0, 2]
            big[3, j], big[4, j], big[5, j] = rnd[i], 0, i
            winner[j] = w
            j += 1
            # one call of the colour rule for every derived road: an inlined rule with
            # branches, inlined twice into one function, fails Numba's IR checks
            for d in range(ks.size):
                colour = derived_colour(heights, streak, height - 1, streak, ks[d])
                if colour == NO_MARK:
                    continue
                road = d + 1
                _place(taken, road, rows, at[road, 0] < 0 or colour != last[d], at)
                last[d] = colour
                m = count[road]
                count[road] = m + 1
                marks[d, 0, m], marks[d, 1, m] = number, at[road, 1]
                marks[d, 2, m], marks[d, 3, m] = at[road, 2], rnd[i]
                colours[d, m] = colour
        if j == first:  # a shoe of ties only: one cell at (0, 0), carrying every tie
            big[0, j], big[1, j], big[2, j] = number, 0, 0
            big[3, j], big[4, j], big[5, j] = rnd[a], 0, a
            winner[j] = _T
            j += 1
        big[4, first] += pending
    count[0] = j


def _colour_series(code: np.ndarray, name: str) -> pl.Series:
    """Colour codes (-1 = no mark) as a nullable colour Enum column.

    One when/then per colour with Enum literals: several times faster than gathering
    from the Enum series with a nullable index.
    """
    idx = pl.Series(name, code, dtype=pl.Int8)
    when = pl.when(idx == 0).then(pl.lit(COLOURS[0], dtype=COLOUR))
    for i, colour in enumerate(COLOURS[1:], 1):
        when = when.when(idx == i).then(pl.lit(colour, dtype=COLOUR))
    return pl.select(when.alias(name)).to_series()


def _firsts(group: np.ndarray) -> np.ndarray:
    out = np.empty(group.size, dtype=np.bool_)
    out[:1] = True
    np.not_equal(group[1:], group[:-1], out=out[1:])
    return out


# --- building the frames --------------------------------------------------------------


def _read_only(values: np.ndarray, dtype: type[np.generic]) -> np.ndarray:
    """``values`` as a C-ordered read-only array of ``dtype``, a view when they already
    are: what `_roads_kernel` reads has one type whatever Polars or NumPy handed over
    (a Polars column's array is read-only, a computed one is not), so it compiles once."""
    out = np.ascontiguousarray(values, dtype=dtype).view()
    out.flags.writeable = False
    return out


PLAIN_UP_TO = 2048
"""Roads of at most this many rounds (a board: a shoe is about 80), while the roads'
code is in no cache (a new install, an upgrade, the dashboard's warm-up still compiling
it), are laid out by the kernels' own Python source run by the interpreter
(`jit_cache.for_size`: `_roads_kernel`, `mark_colours`, `good_roads._masks`, the same
functions): the same frames to the bit, milliseconds for a shoe, where compiling them
first is seconds of CPU. More rounds, or once the code is cached, the compiled kernels."""


_KS = _read_only(np.array(list(DERIVED.values())), np.int64)
_WINNER_VALUES = pl.Series(WINNERS, dtype=WINNER)


def _colours(code: np.ndarray, name: str) -> pl.Series:
    """Colour codes that are all marks (no -1) as the colour Enum column: the Enum's own
    values taken at those codes (a non-null index)."""
    return _COLOUR_VALUES[code].alias(name)


def _empty(s: _Shoes, rest: list[str], extra: dict[str, pl.DataType]) -> pl.DataFrame:
    schema = {**({"shoe": pl.Int32} if s.multi else {}), "col": pl.Int32, "row": pl.Int32}
    schema |= {c: s.frame.schema[c] for c in rest} | extra
    return pl.DataFrame(schema=schema)


def _outputs(n: int, roads: int) -> tuple[np.ndarray, ...]:
    """`_roads_kernel`'s output arrays for ``n`` rounds and ``roads`` derived roads, sized
    for the most marks. NumPy allocates them, not the kernel: it asks the system for huge
    pages for large arrays, and the roads of 10,000 shoes are ~60 MB that would otherwise
    cost a page fault every 4 KiB (~8,000 faults a call, measured at ~9 ms of CPU, against
    ~3 ms with huge pages, on top of the pass's ~20 ms); pages never written are never
    touched."""
    return (
        np.empty((2, n), dtype=np.int32),
        np.empty((len(_BIG_ROWS) + 1, n), dtype=np.int32),
        np.empty(n, dtype=np.int8),
        np.empty((roads, len(_MARK_ROWS), n), dtype=np.int32),
        np.empty((roads, n), dtype=np.int8),
        np.zeros(roads + 1, dtype=np.int64),
    )


def _all(s: _Shoes, rows: int) -> dict[str, pl.DataFrame]:
    """The five roads' frames from `_roads_kernel`'s arrays (taken as they are, no copy);
    only the big road's flags are gathered from the input."""
    if s.code.size == 0:
        big_schema = {"ties": pl.Int32} | {f: pl.Boolean for f in FLAGS}
        return {
            Road.BEAD_PLATE: _empty(s, _BEAD_REST, {}),
            Road.BIG_ROAD: _empty(s, ["round", "winner"], big_schema),
            **{name: _empty(s, ["round"], {"colour": COLOUR}) for name in DERIVED},
        }
    shoe = s.frame["shoe"].to_numpy()[s.start] if s.multi else np.zeros(s.start.size, np.int32)
    rnd = s.frame["round"]
    whole = not rnd.null_count()  # else the kernel writes row numbers, looked up here
    numbers = rnd.to_numpy() if whole else np.arange(rnd.len(), dtype=np.int32)
    arrays = _outputs(s.code.size, _KS.size)
    for_size(_roads_kernel, s.code.size <= PLAIN_UP_TO)(
        _read_only(s.code, np.int8),
        _read_only(s.start, np.int64),
        _read_only(shoe, np.int32),
        _read_only(numbers, np.int32),
        int(rows),
        _KS,
        arrays,
    )
    bead, big, winner, marks, colours, count = arrays

    def int_columns(names: tuple[str, ...], block: np.ndarray, m: int) -> list[pl.Series]:
        cols = [pl.Series(name, block[i, :m], dtype=pl.Int32) for i, name in enumerate(names)]
        if not whole:
            at = names.index("round")
            cols[at] = rnd.gather(cols[at]).alias("round")
        return cols if s.multi else cols[1:]

    cells = [pl.Series(name, bead[i], dtype=pl.Int32) for i, name in enumerate(("col", "row"))]
    keys = s.frame.get_columns()
    at = 1 if s.multi else 0
    m = int(count[0])
    *head, ties = int_columns(_BIG_ROWS, big, m)
    flags = s.frame.select(FLAGS)[big[len(_BIG_ROWS), :m]].get_columns()
    roads = {
        Road.BEAD_PLATE: pl.DataFrame([*keys[:at], *cells, *keys[at:]]),
        Road.BIG_ROAD: pl.DataFrame(
            [*head, _WINNER_VALUES[winner[:m]].alias("winner"), ties, *flags]
        ),
    }
    for d, name in enumerate(DERIVED):
        m = int(count[d + 1])
        colour = _colours(colours[d, :m], "colour")
        roads[name] = pl.DataFrame([*int_columns(_MARK_ROWS, marks[d], m), colour])
    return roads


# --- public API -----------------------------------------------------------------------


def check_rounds(rounds: pl.DataFrame) -> pl.DataFrame:
    """Any rounds table, checked and normalised to what the roads and statistics read.

    Keeps [shoe], round, winner (the WINNER enum; plain "b"/"P"/"t" strings accepted),
    the pair/natural flags and the points (nulls where missing), shoes grouped in
    ascending order, play order kept within a shoe. A bad table raises `RoundError`.
    """
    return _shoes(rounds).frame


def all_roads(rounds: pl.DataFrame, *, rows: int = 6) -> dict[str, pl.DataFrame]:
    """All five roads at once (keys as in `roads_app.roads.names.ROAD_NAMES`), sharing the
    streak work.

    The dashboard redraws every road after each click; this is the call to use.
    """
    return _all(_shoes(rounds), _check_rows(rows))


def bead_plate(rounds: pl.DataFrame, *, rows: int = 6) -> pl.DataFrame:
    """Every round, ties included: round i of a shoe (0-based) at ``(i // rows, i % rows)``.

    Columns: [shoe], col, row, round, winner, the four pair/natural flags, both points
    (nulls where the round was entered by winner only).
    """
    s = _shoes(rounds)
    rows = _check_rows(rows)
    return _all(s, rows)[Road.BEAD_PLATE]


def big_road(rounds: pl.DataFrame, *, rows: int = 6) -> pl.DataFrame:
    """One cell per B/P result (ties counted on the latest one), with dragon tails.

    Columns: [shoe], col, row, round (of the B/P result), winner, ties, and the pair and
    natural flags of that round. A shoe of ties only has one tie-only cell at (0, 0)
    with winner ``T``, carrying the round and flags of its first tie.
    """
    s = _shoes(rounds)
    rows = _check_rows(rows)
    return _all(s, rows)[Road.BIG_ROAD]


_CODE_OF = {w: i for i, w in enumerate(WINNERS)}
_NO_SHOE = _read_only(np.zeros(1, dtype=np.int32), np.int32)
_ONE_SHOE = _read_only(np.zeros(1, dtype=np.int64), np.int64)


def big_road_cells(
    winners: Sequence[str], rounds: Sequence[int], *, rows: int = 6
) -> list[tuple[int, int, int, str]]:
    """One shoe's big road as (col, row, round, winner) cells, from its results as
    letters and their round numbers: `big_road`'s cells, by the same kernel, with no
    frame on either side.

    Why: a lobby follows a hundred tables and lays a table's road out again after each of
    its rounds; the frames around the kernel cost milliseconds a call, the kernel over
    one shoe microseconds.

    >>> big_road_cells("BBPTPB", [1, 2, 3, 4, 5, 6])
    [(0, 0, 1, 'B'), (0, 1, 2, 'B'), (1, 0, 3, 'P'), (1, 1, 5, 'P'), (2, 0, 6, 'B')]
    """
    n = len(winners)
    if not n:
        return []
    code = np.fromiter((_CODE_OF[w] for w in winners), dtype=np.int8, count=n)
    numbers = np.fromiter(rounds, dtype=np.int32, count=n)
    arrays = _outputs(n, _KS.size)
    for_size(_roads_kernel, n <= PLAIN_UP_TO)(
        _read_only(code, np.int8),
        _ONE_SHOE,
        _NO_SHOE,
        _read_only(numbers, np.int32),
        _check_rows(rows),
        _KS,
        arrays,
    )
    _, big, winner, _, _, count = arrays
    m = int(count[0])
    letters = [WINNERS[w] for w in winner[:m].tolist()]
    cols, rows_, numbers_ = big[1, :m].tolist(), big[2, :m].tolist(), big[3, :m].tolist()
    return list(zip(cols, rows_, numbers_, letters, strict=True))


def _one_derived(rounds: pl.DataFrame, name: str, rows: int) -> pl.DataFrame:
    s = _shoes(rounds)
    rows = _check_rows(rows)
    return _all(s, rows)[name]


def big_eye_boy(rounds: pl.DataFrame, *, rows: int = 6) -> pl.DataFrame:
    """Derived road k=1. Columns: [shoe], col, row, round (that made the mark), colour."""
    return _one_derived(rounds, Road.BIG_EYE_BOY, rows)


def small_road(rounds: pl.DataFrame, *, rows: int = 6) -> pl.DataFrame:
    """Derived road k=2. Columns: [shoe], col, row, round (that made the mark), colour."""
    return _one_derived(rounds, Road.SMALL_ROAD, rows)


def cockroach_pig(rounds: pl.DataFrame, *, rows: int = 6) -> pl.DataFrame:
    """Derived road k=3. Columns: [shoe], col, row, round (that made the mark), colour."""
    return _one_derived(rounds, Road.COCKROACH_PIG, rows)


def _side(side: str) -> int:
    code = _SIDES.get(str(side).strip().upper())
    if code is None:
        raise RoundError(Message("msg_ask_side", side=quote(side)))
    return code


def _name(code: int) -> str | None:
    return None if code < 0 else COLOURS[code]


def ask_road(rounds: pl.DataFrame, side: str) -> dict[str, str | None]:
    """The mark each derived road would add if the next result were ``side`` (B or P).

    For one shoe; ``None`` where that road would add nothing yet. B and P always give
    opposite colours, and either both give a mark or neither does.
    """
    code = _side(side)
    s = _shoes(rounds)
    if s.multi and s.start.size > 1:
        raise RoundError(Message("msg_ask_one_shoe", count=s.start.size))
    if not s.code.size:
        return dict.fromkeys(DERIVED)
    b = _big(s)
    banker = _if_banker(b, np.array([b.rows.size - 1]))
    out = {}
    for name, k in DERIVED.items():
        c = banker[k] if code == _B else opposite(banker[k])
        out[name] = _name(int(c[0]))
    return out


def ask_roads(rounds: pl.DataFrame) -> pl.DataFrame:
    """`ask_road` for every shoe at once: per shoe, the next mark of each road for B and P.

    Columns: [shoe], then ``<road>_B`` and ``<road>_P`` (colour, null where none).
    """
    s = _shoes(rounds)
    if not s.code.size:
        return _hypothetical_frame(s, None, np.empty(0, dtype=np.int64), None)
    b = _big(s)
    last = np.append(b.first_mark[1:], b.rows.size) - 1  # each shoe's last mark
    keys = s.frame.select("shoe")[s.start] if s.multi else None
    return _hypothetical_frame(s, b, last, keys)


def derived_marks_before_each_round(rounds: pl.DataFrame) -> pl.DataFrame:
    """Per round, what each derived road would add if *that* round were B, and if it were P.

    The state is every result before the round in its shoe (ties add nothing), so a
    road-following strategy can read, with no look-ahead, "big eye boy says red on B".
    Columns: [shoe], round, ``<road>_B``, ``<road>_P`` (colour Enum, null where the road
    would add no mark yet). The two sides are opposite wherever they are not null.

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> f = derived_marks_before_each_round(rounds_from_winners("BPB"))
    >>> f["big_eye_boy_B"].to_list(), f["big_eye_boy_P"].to_list()
    ([None, None, 'red'], [None, None, 'blue'])
    """
    s = _shoes(rounds)
    keys = s.frame.select(["shoe", "round"] if s.multi else ["round"])
    if not s.code.size:
        return _hypothetical_frame(s, None, np.empty(0, dtype=np.int64), keys)
    b = _big(s)
    last = b.upto - b.is_mark - 1  # the latest mark strictly before each round
    last = np.where(last >= b.first_mark[s.group()], last, -1)
    return _hypothetical_frame(s, b, last, keys)


def _hypothetical_frame(
    s: _Shoes, b: _Big | None, last: np.ndarray, keys: pl.DataFrame | None
) -> pl.DataFrame:
    cols: list[pl.Series] = [] if keys is None else keys.get_columns()
    banker = _if_banker(b, last) if b is not None else None
    for side in (Side.BANKER, Side.PLAYER):
        for name, k in DERIVED.items():
            c = np.empty(0, dtype=np.int8) if banker is None else banker[k]
            if side is Side.PLAYER:
                c = opposite(c).astype(np.int8)
            cols.append(_colour_series(c, f"{name}_{side}"))
    if keys is None and s.multi and b is None:
        cols.insert(0, pl.Series("shoe", [], dtype=pl.Int32))
    return pl.DataFrame(cols)
