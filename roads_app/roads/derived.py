"""The derived-road colour rule, written once for the roads and the compiled engine.

Derived road ``k`` (1 big eye boy, 2 small road, 3 cockroach pig) says whether the big
road repeats itself ``k`` columns back (docs/roads.md, "Derived roads"). It needs only the
big road's logical columns (one per streak, as tall as the streak, never folded by a
dragon tail), so the rule is a function of column heights.

`derived_colour` is written once, for one mark, and Numba compiles the very function
(``register_jitable``; it stays a plain Python function too): the roads colour every mark
of every shoe with the compiled loop `mark_colours` below (one pass, no temporary
arrays), and `roads_app.sim.kernel` inlines `next_colour` into its betting loop, one hand
at a time.

>>> import numpy as np
>>> heights = np.array([1, 1, 2])  # big road B, P, BB: three columns of 1, 1 and 2
>>> derived_colour(heights, 2, 1, 2, 1)  # the second B: column 1 has no row 1
1
>>> derived_colour(heights, 3, 0, 3, 1)  # a P opening column 3: 2 != 1
1
>>> derived_colour(heights, 2, 0, 2, 1)  # the first B, column 2: 1 == 1
0
>>> derived_colour(heights, 1, 0, 1, 1)  # the first P: no column before column 0
-1

The rule gives the two sides opposite colours after any road: the result that continues
the last column and the one that opens the next both ask whether that column is as tall
as the one ``k`` before it, and read the answer the opposite way. So a reader that
asks "what would Banker add" may ask for the opening mark (row 0, the cheaper form) and
take `opposite` when Banker is the side that continues.

>>> derived_colour(heights, 2, 2, 2, 1), derived_colour(heights, 3, 0, 3, 1)
(0, 1)
>>> opposite(np.array([RED, BLUE, NO_MARK])).tolist()
[1, 0, -1]
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit
from numba.extending import register_jitable

from roads_app.jit_cache import depends_on

depends_on(__file__)  # cached where the app's kernels are (a read-only install included)

RED, BLUE, NO_MARK = 0, 1, -1
"""Colour codes: index into ``grids.COLOURS`` ("red", "blue"); -1 where no mark is made."""


@register_jitable(inline="always")
def derived_colour(heights: Any, col: int, row: int, n: int, k: int) -> int:
    """Colour code a big-road mark at logical column ``col``, ``row`` adds to derived road ``k``.

    ``heights[c]`` is the height of column ``c`` as it stands when the mark is made (only
    columns before ``col`` are read); ``n`` is ``col``'s number within its shoe, so that
    ``heights`` may hold many shoes one after another.

    A mark opening a column (row 0) compares the column before it with the one ``k``
    further back: red when they are as tall. A mark further down compares its row with
    the column ``k`` back: blue only when it is the first row below that column's bottom
    (red when that column reaches this row, and red again below that). A road starts once
    its first comparison exists: column ``k`` row 1, or column ``k + 1`` row 0.

    A compiled function calls it from one place (a loop over the roads, not a call per
    road): Numba 0.68 warns that a variable 'is not in scope' when a rule with branches
    is inlined twice into one function (`tests/test_compile.py`).
    """
    if row == 0:
        if n - 1 < k:
            return NO_MARK
        return RED if heights[col - 1] == heights[col - 1 - k] else BLUE
    if n < k:
        return NO_MARK
    return BLUE if row == heights[col - k] else RED


@register_jitable(inline="always")
def opposite(code: Any) -> Any:
    """The other side's colour code: red for blue, blue for red, no mark for no mark."""
    return code + (code != NO_MARK) * (RED + BLUE - 2 * code)


@register_jitable(inline="always")
def next_colour(heights: Any, col: Any, n: Any, continues: Any, k: int) -> Any:
    """Colour code the next result adds to derived road ``k``, where ``heights`` are the
    big road's columns as they stand and ``col`` the next column to open (``n`` its
    number within its shoe): a result opening it, or with ``continues`` one going down
    column ``col - 1``.

    The rule is asked for the opening mark (row 0: the two heights compared are those of
    columns ``col - 1`` and ``col - 1 - k``, as they stand now), and the continuing side
    takes the `opposite`. For readers that keep the heights as they stand (the engine).
    """
    colour = derived_colour(heights, col, 0, n, k)
    if continues and colour != NO_MARK:
        return opposite(colour)
    return colour


@njit(cache=True)
def mark_colours(
    heights: np.ndarray,
    col: np.ndarray,
    row: np.ndarray,
    n: np.ndarray,
    k: int,
    flip: np.ndarray | None = None,
) -> np.ndarray:
    """int8 `derived_colour` of every mark ``i`` at (``col[i]``, ``row[i]``), compiled;
    the `opposite` where ``flip[i]`` (the colour the other side's result would add)."""
    out = np.empty(col.shape[0], dtype=np.int8)
    for i in range(col.shape[0]):
        colour = derived_colour(heights, col[i], row[i], n[i], k)
        if flip is not None and flip[i]:
            colour = opposite(colour)
        out[i] = colour
    return out
