"""The derived-road colour rule, written once for the roads and the compiled engine.

Derived road ``k`` (1 big eye boy, 2 small road, 3 cockroach pig) says whether the big
road repeats itself ``k`` columns back (docs/roads.md, "Derived roads"). It needs only the
big road's logical columns (one per streak, as tall as the streak, never folded by a
dragon tail), so the rule is a function of column heights.

`derived_colour` is plain arithmetic and indexing with no branch, so one function object
serves both readers: `roads_app.roads.grids` calls it on NumPy arrays (every mark of
every shoe in one call) and `roads_app.sim.kernel` compiles it with Numba for one mark
at a time.

>>> import numpy as np
>>> heights = np.array([1, 1, 2])  # big road B, P, BB: three columns of 1, 1 and 2
>>> int(derived_colour(heights, 2, 1, 2, 1))  # the second B: column 1 has no row 1
1
>>> int(derived_colour(heights, 3, 0, 3, 1))  # a P opening column 3: 2 != 1
1
>>> int(derived_colour(heights, 2, 0, 2, 1))  # the first B, column 2: 1 == 1
0
>>> derived_colour(heights, np.array([1, 2]), np.array([0, 0]), np.array([1, 2]), 1).tolist()
[-1, 0]
"""

from __future__ import annotations

from typing import Any

RED, BLUE, NO_MARK = 0, 1, -1
"""Colour codes: index into ``grids.COLOURS`` ("red", "blue"); -1 where no mark is made."""


def derived_colour(heights: Any, col: Any, row: Any, n: Any, k: int) -> Any:
    """Colour code a big-road mark at logical column ``col``, ``row`` adds to derived road ``k``.

    ``heights[c]`` is the height of column ``c`` as it stands when the mark is made (only
    columns up to ``col`` are read); ``n`` is ``col``'s number within its shoe, so that
    ``heights`` may hold many shoes one after another. Scalars or NumPy arrays alike.

    A mark opening a column (row 0) compares the column before it with the one ``k``
    further back: red when they are as tall. A mark further down compares its row with
    the column ``k`` back: blue only when it is the first row below that column's bottom
    (red when that column reaches this row, and red again below that). A road starts once
    its first comparison exists: column ``k`` row 1, or column ``k + 1`` row 0.
    """
    opening = row == 0
    c = col - opening  # the column compared: an opening mark's previous one
    back = c - k  # and the one k before that
    # Indices clamped at 0 (``i * (i > 0)``: no branch, no ufunc): where a column would be
    # missing the mark is NO_MARK and the value read there is not used.
    here = row + opening * (heights[c * (c > 0)] - row)  # opening: that column's height
    red = (here == heights[back * (back > 0)]) == opening
    has_mark = n - opening >= k
    # Arithmetic selects (no branch, no np.where): the same code for arrays and scalars.
    colour = BLUE + red * (RED - BLUE)
    return NO_MARK + has_mark * (colour - NO_MARK)
