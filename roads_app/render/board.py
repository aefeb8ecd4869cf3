"""The roads drawn as Plotly figures, in the look players know from casino boards.

Pure functions: road frames (or a rounds frame) in, ``go.Figure`` out; no Streamlit.
Each mark type is one scatter trace per colour (never a shape per cell), the grid is
the axes' own gridlines at ``dtick=1``, and the figure has a fixed pixel size so a
cell stays square and marker sizes (which Plotly counts in pixels) fit their cells.
Derived roads use half-size cells, as on the boards in casinos.

Cell ``(col, row)`` is drawn centred at ``(col + 0.5, row + 0.5)`` with row 0 on top.
Only the last ``cols_visible`` columns are in the x range, so the newest column is
always in view while the data keeps every mark. ``layout.meta`` carries the road's
name, the last round it shows a mark for (``rounds``; on the bead plate, the shoe's
round count) and its number of marks, so a browser test can see the board change.

>>> import polars as pl
>>> road = pl.DataFrame({"col": [0, 0, 1], "row": [0, 1, 0], "round": [1, 2, 3],
...                      "colour": ["red", "red", "blue"]})
>>> fig = derived_road_figure(road, "small_road")
>>> fig.layout.meta["marks"], [t.marker.color for t in fig.data]
(3, ['#d32f2f', '#1565c0'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import plotly.graph_objects as go
import polars as pl

from roads_app.game.hand import Side, Winner, banker_six
from roads_app.game.rounds import Flag, preview_winner
from roads_app.i18n import word
from roads_app.render.fonts import MARK_FONT, TEXT_FONT
from roads_app.roads.grids import all_roads
from roads_app.roads.names import DERIVED, ROAD_NAMES, Road

ROWS = 6
CELL_PX = 22
"""Side of one big-road / bead-plate cell in pixels; derived roads use half of it."""
MINI_CELL_PX = 10

RED = "#d32f2f"
BLUE = "#1565c0"
GREEN = "#2e7d32"
GOLD = "#b26a00"  # amber dark enough to stand out from white (4.2:1; #f9a825 was 2:1)
GRID = "#d9dde3"
PAPER = "#ffffff"
TEXT = "#1b1b1b"  # counts written on the paper
NOTE = "#4b5563"  # a road's title

WINNER_COLOUR: dict[str, str] = {Winner.BANKER: RED, Winner.PLAYER: BLUE, Winner.TIE: GREEN}
"""Banker red, Player blue, Tie green."""
MARK_COLOUR: dict[str, str] = {"red": RED, "blue": BLUE}
"""On derived roads red means 'the big road repeats itself', blue 'it does not'."""

DERIVED_SYMBOL: dict[str, str] = {
    Road.BIG_EYE_BOY: "circle-open",  # hollow rings
    Road.SMALL_ROAD: "circle",  # filled dots
    Road.COCKROACH_PIG: "line-ne",  # slashes
}
MARK_GLYPH: dict[str, str] = {Road.BIG_EYE_BOY: "○", Road.SMALL_ROAD: "●", Road.COCKROACH_PIG: "╱"}
"""Text stand-ins for the derived marks (ask road, captions)."""

BEAD_COLS = 10
BIG_ROAD_COLS = 22
DERIVED_COLS = 14
MINI_COLS = 24


class Theme(StrEnum):
    """A board's ground: light, or dark for a dim room (the display, the lobby)."""

    LIGHT = "light"
    DARK = "dark"


GROUND = "#0f1216"
"""The dark board's ground (the page's is the same: a board and its page are one screen)."""

DARK: dict[str, str] = {
    PAPER: GROUND,  # the ground, and the text on a bead (dark on a bright bead)
    GRID: "#3a414b",
    RED: "#f05454",
    BLUE: "#4a9eff",
    GREEN: "#3dbb62",
    GOLD: "#ffc53d",
    TEXT: "#e8eaed",
    NOTE: "#c3c9d2",
}
"""Each colour of the light board and its dark board counterpart: lighter, so each mark
keeps at least 3:1 against the dark ground and each text 4.5:1 (WCAG 2.1), as the light
ones do on white."""


def recolour(spec: Any, theme: Theme) -> Any:
    """``spec`` (a figure's plain JSON: dicts, lists, strings) with each light board colour
    swapped for the theme's; the light theme is the spec itself.

    >>> recolour({"marker": {"color": [RED, "x"]}, "bg": PAPER}, Theme.DARK)
    {'marker': {'color': ['#f05454', 'x']}, 'bg': '#0f1216'}
    """
    if theme is Theme.LIGHT:
        return spec
    if isinstance(spec, dict):
        return {k: recolour(v, theme) for k, v in spec.items()}
    if isinstance(spec, list):
        return [recolour(v, theme) for v in spec]
    if isinstance(spec, str):
        return DARK.get(spec.lower(), spec)
    return spec


PLOT_CONFIG: dict[str, Any] = {"staticPlot": True, "displayModeBar": False}
"""The Plotly config pages draw a board with: a board is read, not zoomed."""

Roads = Mapping[str, pl.DataFrame]


# --- inputs ---------------------------------------------------------------------------


def _road(src: Roads | pl.DataFrame, name: str, rows: int) -> pl.DataFrame:
    """Accept the ``all_roads`` dict, that road's own frame, or a rounds frame."""
    if isinstance(src, Mapping):
        return src[name]
    if "col" in src.columns:
        return src
    return all_roads(src, rows=rows)[name]


def _rounds_in(road: pl.DataFrame) -> int:
    return int(road["round"].max() or 0) if road.height else 0


def visible_range(road: pl.DataFrame, cols_visible: int) -> tuple[float, float]:
    """x range showing the last ``cols_visible`` columns, one spare column at the right.

    >>> visible_range(pl.DataFrame({"col": [0, 40]}), 10)
    (32.0, 42.0)
    >>> visible_range(pl.DataFrame({"col": [0, 3]}), 10)
    (0.0, 10.0)
    """
    last = int(road["col"].max()) if road.height else -1
    first = max(0, last + 2 - cols_visible)
    return float(first), float(first + cols_visible)


def in_view(road: pl.DataFrame, cols_visible: int) -> pl.DataFrame:
    """Only the marks in the visible columns: the browser draws nothing it cannot show.

    >>> in_view(pl.DataFrame({"col": [0, 1, 40, 41]}), 10)["col"].to_list()
    [40, 41]
    """
    first, _ = visible_range(road, cols_visible)
    return road.filter(pl.col("col") >= first) if first > 0 else road


# --- figure scaffolding -----------------------------------------------------------------

_AXIS: dict[str, Any] = {
    "showgrid": True,
    "gridcolor": GRID,
    "gridwidth": 1,
    "tick0": 0,
    "dtick": 1,
    "showticklabels": False,
    "ticks": "",
    "zeroline": False,
    "showline": True,
    "linecolor": GRID,
    "mirror": True,
    "fixedrange": True,
}


def _axes(road: pl.DataFrame, rows: int, cols_visible: int, x_id: str = "x") -> tuple[dict, dict]:
    """x and y axis of one road: gridlines on cell borders, newest column in view.

    The y scale is tied to the x scale, so where the page is narrower than the figure
    (Streamlit then narrows it, keeping its height) the cells shrink but stay square,
    packed to the top-left of their box, instead of being squeezed sideways.
    """
    x0, x1 = visible_range(road, cols_visible)
    xaxis = {**_AXIS, "range": [x0, x1], "constrain": "domain", "constraintoward": "left"}
    yaxis = {
        **_AXIS,
        "range": [rows, 0],
        "scaleanchor": x_id,
        "scaleratio": 1,
        "constrain": "domain",
        "constraintoward": "top",
    }
    return xaxis, yaxis


def _meta(road: pl.DataFrame, name: str) -> dict[str, Any]:
    return {"road": name, "rounds": _rounds_in(road), "marks": road.height}


def _figure(
    traces: list[dict[str, Any]],
    road: pl.DataFrame,
    name: str,
    rows: int,
    cols_visible: int,
    cell_px: float,
) -> go.Figure:
    xaxis, yaxis = _axes(road, rows, cols_visible)
    return go.Figure(
        data=traces,
        layout={
            "width": round(cols_visible * cell_px) + 2,
            "height": round(rows * cell_px) + 2,
            "margin": {"l": 1, "r": 1, "t": 1, "b": 1, "pad": 0},
            "xaxis": xaxis,
            "yaxis": yaxis,
            "plot_bgcolor": PAPER,
            "paper_bgcolor": PAPER,
            "showlegend": False,
            "hovermode": False,
            "font": {"family": TEXT_FONT},
            "meta": _meta(road, name),
        },
    )


def _markers(
    x: list[float],
    y: list[float],
    *,
    symbol: str,
    colour: str,
    size: float,
    line_width: float = 0,
    text: list[str] | None = None,
    text_colour: str = PAPER,
    font_size: float = 11,
    name: str = "",
) -> dict[str, Any]:
    """One scatter trace of identical marks (dict form: cheaper than nested objects)."""
    trace: dict[str, Any] = {
        "type": "scatter",
        "name": name,
        "x": x,
        "y": y,
        "mode": "markers+text" if text is not None else "markers",
        "hoverinfo": "skip",
        "cliponaxis": True,
        "marker": {
            "symbol": symbol,
            "size": size,
            "color": colour,
            "line": {"width": line_width, "color": colour},
        },
    }
    if text is not None:
        trace.update(
            text=text,
            textposition="middle center",
            textfont={"color": text_colour, "size": font_size, "family": MARK_FONT},
        )
    return trace


class _Cells:
    """A road's cells as Python lists, to pick each kind of mark from.

    A board holds a few hundred cells at most: picking a kind's cells here costs
    microseconds, where a Polars filter plans and runs a query each time (about 150 us,
    twenty-odd of them a board, five boards a key press on the scoreboard).
    """

    __slots__ = ("columns", "height")

    def __init__(self, frame: pl.DataFrame) -> None:
        self.columns: dict[str, list[Any]] = frame.to_dict(as_series=False)
        self.height = frame.height

    def column(self, name: str, default: Any = None) -> list[Any]:
        """The column's values, or ``default`` for every cell where it is missing."""
        return self.columns.get(name, [default] * self.height)

    def flagged(self, name: str) -> list[int]:
        """The cells whose column ``name`` holds a true value: a flag set, a count above
        0 (unknown or missing: not)."""
        return [i for i, v in enumerate(self.column(name)) if v]

    def where(self, name: str, value: Any) -> list[int]:
        """The cells whose column ``name`` holds ``value``."""
        return [i for i, v in enumerate(self.column(name)) if v == value]

    def centres(
        self, cells: list[int], dx: float = 0.5, dy: float = 0.5
    ) -> tuple[list[float], list[float]]:
        col, row = self.columns["col"], self.columns["row"]
        return [col[i] + dx for i in cells], [row[i] + dy for i in cells]


STAR = 0.2
"""Natural star size in cells: Plotly draws a star 1.4 times its size, so at 0.2 its
points (0.28 cell) stay inside the corner it sits in (0.16 cell from the edges)."""
SYMBOL_EXTENT: dict[str, float] = {"star": 1.4}
"""How much larger than ``marker.size`` Plotly draws a symbol (1 when not listed)."""


def _naturals(cells: _Cells) -> list[int]:
    """The cells of rounds won by a natural (a tie: either hand's natural)."""
    if not {"winner", Flag.PLAYER_NATURAL, Flag.BANKER_NATURAL} <= cells.columns.keys():
        return []
    won = zip(
        cells.columns["winner"],
        cells.columns[Flag.PLAYER_NATURAL],
        cells.columns[Flag.BANKER_NATURAL],
        strict=True,
    )
    return [
        i
        for i, (w, pn, bn) in enumerate(won)
        if (w == Winner.PLAYER and pn)
        or (w == Winner.BANKER and bn)
        or (w == Winner.TIE and (pn or bn))
    ]


def _pair_and_natural_traces(cells: _Cells, cell_px: float) -> list[dict[str, Any]]:
    """Banker pair red dot top-left, player pair blue dot bottom-right, natural gold star."""
    dot = cell_px * 0.24  # with its outline, half of it (0.135) stays inside the 0.16 offset
    out = []
    for column, colour, dx, dy, symbol in (
        (Flag.BANKER_PAIR, RED, 0.16, 0.16, "circle"),
        (Flag.PLAYER_PAIR, BLUE, 0.84, 0.84, "circle"),
    ):
        hit = cells.flagged(column)
        if hit:
            x, y = cells.centres(hit, dx, dy)
            t = _markers(x, y, symbol=symbol, colour=colour, size=dot, name=column)
            t["marker"]["line"] = {"width": cell_px * 0.03, "color": PAPER}
            out.append(t)
    nat = _naturals(cells)
    if nat:
        x, y = cells.centres(nat, 0.84, 0.16)
        out.append(_markers(x, y, symbol="star", colour=GOLD, size=cell_px * STAR, name="natural"))
    return out


# --- the five roads -----------------------------------------------------------------------


SIX_TEXT = "6"
"""A Banker win on 6 on a No Commission table (the Super 6 result): its bead's letter."""


def _bead_traces(road: pl.DataFrame, cell_px: float, lang: str = "en") -> list[dict]:
    """One bead per round with its letter (B/P/T, 庄/闲/和): the same kind of mark for
    every round, whether or not its points are known; a Banker win on 6 says "6" where
    the table pays it apart (column ``six``, `board_spec`). A natural's bead has a gold
    ring round it, as road feeds mark it (the corner star alone was 5 px)."""
    traces: list[dict[str, Any]] = []
    cells = _Cells(road)
    six = cells.column("six", False)
    for w in Winner:
        part = cells.where("winner", w)
        if not part:
            continue
        x, y = cells.centres(part)
        letter = word(f"{w}_letter", lang)
        traces.append(
            _markers(
                x,
                y,
                symbol="circle",
                colour=WINNER_COLOUR[w],
                size=cell_px * 0.78,
                text=[SIX_TEXT if six[i] else letter for i in part],
                font_size=cell_px * (0.5 if lang == "en" else 0.54),
                name=w,
            )
        )
    nat = _naturals(cells)
    if nat:
        x, y = cells.centres(nat)
        traces.append(
            _markers(
                x,
                y,
                symbol="circle-open",
                colour=GOLD,
                size=cell_px * 0.86,
                line_width=cell_px * 0.1,
                name="natural_ring",
            )
        )
    return traces + _pair_and_natural_traces(cells, cell_px)


def bead_plate_figure(
    roads_or_rounds: Roads | pl.DataFrame,
    rows: int = ROWS,
    cols_visible: int = BEAD_COLS,
    *,
    cell_px: float = CELL_PX,
    lang: str = "en",
) -> go.Figure:
    """Filled beads, one per round in dealing order, each with its winner's letter."""
    road = _road(roads_or_rounds, Road.BEAD_PLATE, rows)
    traces = _bead_traces(in_view(road, cols_visible), cell_px, lang)
    return _figure(traces, road, Road.BEAD_PLATE, rows, cols_visible, cell_px)


def _big_road_traces(road: pl.DataFrame, cell: float, mini: bool) -> list[dict[str, Any]]:
    traces: list[dict[str, Any]] = []
    cells = _Cells(road)
    for w in Side:
        part = cells.where("winner", w)
        if part:
            x, y = cells.centres(part)
            traces.append(
                _markers(
                    x,
                    y,
                    symbol="circle-open",
                    colour=WINNER_COLOUR[w],
                    size=cell * 0.78,
                    line_width=max(1.5, cell * 0.11),
                    name=w,
                )
            )
    six = [] if mini else cells.flagged("six")
    if six:  # a Banker win on 6 on a No Commission table: a filled centre
        x, y = cells.centres(six)
        traces.append(
            _markers(x, y, symbol="circle", colour=RED, size=cell * 0.34, name="banker_six")
        )
    ties = cells.column("ties", 0)
    tied = cells.flagged("ties")
    if tied:
        x, y = cells.centres(tied)
        traces.append(
            _markers(
                x,
                y,
                symbol="line-ne",
                colour=GREEN,
                size=cell * 0.8,
                line_width=max(1.5, cell * 0.08),
                name="ties",
                text=None if mini else [str(ties[i]) if ties[i] > 1 else "" for i in tied],
                text_colour=TEXT,
                font_size=cell * 0.42,
            )
        )
    if not mini:
        traces += _pair_and_natural_traces(cells, cell)
    return traces


def big_road_figure(
    roads_or_rounds: Roads | pl.DataFrame,
    rows: int = ROWS,
    cols_visible: int | None = None,
    *,
    mini: bool = False,
    cell_px: float | None = None,
) -> go.Figure:
    """Hollow rings, green tie slashes with their count, pair dots, natural stars.

    ``mini=True`` is the lobby's thumbnail: small cells, rings and tie slashes only.
    """
    road = _road(roads_or_rounds, Road.BIG_ROAD, rows)
    cell = cell_px or (MINI_CELL_PX if mini else CELL_PX)
    cols = cols_visible or (MINI_COLS if mini else BIG_ROAD_COLS)
    traces = _big_road_traces(in_view(road, cols), cell, mini)
    return _figure(traces, road, Road.BIG_ROAD, rows, cols, cell)


def _derived_traces(frame: pl.DataFrame, kind: str, cell_px: float) -> list[dict[str, Any]]:
    symbol = DERIVED_SYMBOL[kind]
    solid = symbol == "circle"
    traces = []
    cells = _Cells(frame)
    for colour in ("red", "blue"):
        part = cells.where("colour", colour)
        if part:
            x, y = cells.centres(part)
            traces.append(
                _markers(
                    x,
                    y,
                    symbol=symbol,
                    colour=MARK_COLOUR[colour],
                    size=cell_px * (0.7 if solid else 0.8),
                    line_width=0 if solid else max(1.2, cell_px * 0.14),
                    name=colour,
                )
            )
    return traces


def derived_road_figure(
    road: Roads | pl.DataFrame,
    kind: str,
    rows: int = ROWS,
    cols_visible: int = DERIVED_COLS,
    *,
    cell_px: float = CELL_PX / 2,
) -> go.Figure:
    """Big eye boy rings, small road dots or cockroach pig slashes, at half cell size."""
    if kind not in DERIVED_SYMBOL:
        raise ValueError(f"road {kind!r} is not one of {', '.join(DERIVED_SYMBOL)}")
    frame = _road(road, kind, rows)
    traces = _derived_traces(in_view(frame, cols_visible), kind, cell_px)
    return _figure(traces, frame, kind, rows, cols_visible, cell_px)


MAX_CELL_PX = 44.0
"""Cells grow with the page up to this (a display screen), never beyond."""
DEFAULT_WIDTH_PX = 1100
"""Width the board is laid out for until the page has said how wide it is."""
NARROW_PX = 640
"""Below this width the roads are stacked one per row (phones), not side by side."""
NARROW_CELL_PX = 13.0
"""A stacked board's big-road cells are never smaller than this: a long shoe's board
grows wider than the page and scrolls sideways (newest columns in view) rather than
shrink its marks past reading. About the cells of live-casino phone boards."""
BEAD_MIN_CELL_PX = 19.0
"""The smallest bead-plate cell drawn where the page has room for it (a 390 px phone
and up): its letter (B/P/T, 庄/闲/和) is then 9.5 px or more, readable. Where the side-by-
side board cannot give the bead plate this much, the roads are stacked instead."""
BEAD_RATIO_NARROW = 1.6
"""A stacked bead plate's cells at most this many times the big road's: bigger beads
for their letters, without a wide page's plate filling the screen."""
ROUNDS_PER_DECK = 13
"""A round takes at least four cards, so one 52-card deck deals at most 13 rounds."""
BIG_COLS_PER_ROUND = 0.5
"""Big-road columns the layout keeps per round of the longest shoe: a new column comes
with about every other result (8 decks: 104 rounds, 52 columns; the longest big road
of 300 dealt 8-deck shoes had 49). A longer road shows its newest columns."""
SHOE_BIG_MIN_COLS = 24
"""The big road's columns for the shortest shoes (1 deck): `shoe_columns`."""
BEAD_MIN_COLS = 12
BIG_MIN_COLS = 40
BIG_MIN_COLS_NARROW = 20
DERIVED_MIN_COLS = 24
"""Column floors of a screen-filling board (the display, `fill_layout`)."""
GAP_CELLS = 1.0
"""Horizontal gap between two roads side by side, in cells."""


@dataclass(frozen=True)
class BoardLook:
    """How a board looks, apart from which shoe it shows (`board_spec` says each field).

    ``width_px`` (and with ``height_px``, the screen it fills) and ``max_cell``: its size;
    ``rows``: a road's rows; ``lang``: its words; ``ask``: the ask road's side, if any;
    ``hold_last``: the last round held for its reveal; ``decks`` and ``six``: the table's,
    for the layout and the marks; ``last_mark_s``: how long the newest result is framed;
    ``theme``: its colours.
    """

    width_px: float = DEFAULT_WIDTH_PX
    height_px: float | None = None
    max_cell: float = MAX_CELL_PX
    rows: int = ROWS
    lang: str = "en"
    ask: str | None = None
    hold_last: bool = False
    decks: int = 8
    six: bool = False
    last_mark_s: float | None = None
    theme: Theme = Theme.LIGHT


DEFAULT_LOOK = BoardLook()
"""A board as it looks unless told otherwise."""


def shoe_columns(decks: int = 8) -> tuple[int, int]:
    """The bead plate's and the big road's columns for the longest shoe ``decks`` decks
    allow: the board is laid out for them from the first round to the last, so nothing
    on the page moves as the shoe goes on.

    >>> shoe_columns(8), shoe_columns(6), shoe_columns(1)
    ((18, 52), (13, 39), (3, 24))
    """
    rounds = ROUNDS_PER_DECK * max(1, decks)
    return -(-rounds // ROWS), max(SHOE_BIG_MIN_COLS, -(-rounds // 2))


def _need(road: pl.DataFrame, spare: int = 1) -> int:
    """Columns a road needs to show its whole shoe: its last one and spare ones."""
    last = int(road["col"].max()) if road.height else -1
    return last + 1 + spare


def title_px(cell: float) -> float:
    """Height of a road's title line: scales with the cells, readable at both ends."""
    return round(min(24.0, max(11.0, cell * 0.55))) + 6


# (name, left, top, width, height) in cell units; columns; cell size factor (1 for the
# big road's cell); where its title goes across (in cell units: the left of the part in view)
_Box = tuple[str, float, float, float, float, int, float, float]


def board_layout(
    roads: Roads,
    width_px: float = DEFAULT_WIDTH_PX,
    rows: int = ROWS,
    max_cell: float = MAX_CELL_PX,
    spare: int = 1,
    min_cell: float = NARROW_CELL_PX,
    decks: int = 8,
) -> tuple[list[_Box], float, float]:
    """Where each road goes, the big road's cell size and the title lines' height (px).

    Laid out for the longest shoe ``decks`` allow (`shoe_columns`), never for the rounds
    so far: at a given width the board keeps its shape, size and cells from the first
    round to the last. Side by side where the bead plate's cells are at least
    `BEAD_MIN_CELL_PX` (`_wide_layout`), stacked otherwise (`_narrow_layout`).

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> boxes, cell, title = board_layout(all_roads(rounds_from_winners("BP" * 40)), 976)
    >>> [(str(b[0]), b[5], round(b[6] * cell, 1)) for b in boxes][:2], round(cell, 2)
    ([('bead_plate', 18, 20.2), ('big_road', 52, 11.6)], 11.56)
    """
    bead, big = shoe_columns(decks)
    need = {name: _need(roads[name], spare) for name in ROAD_NAMES}
    if width_px >= NARROW_PX:
        wide = _wide_layout(bead, big, width_px, rows, max_cell)
        if wide[1] * wide[0][0][6] >= BEAD_MIN_CELL_PX:
            return wide
    return _narrow_layout(bead, big, need, width_px, rows, max_cell, min_cell)


def _wide_layout(
    bead: int, big: int, width_px: float, rows: int, max_cell: float
) -> tuple[list[_Box], float, float]:
    """A page's board as casino boards lay it out: the bead plate on the left, in larger
    cells as tall as the big road and the big eye boy under it on the right; the small
    road and the cockroach pig side by side under both, across the whole width.

    Every road has the columns of the longest shoe: the derived roads (half cells) as
    many as the big road, or more. The cell is the width over the columns, capped.
    """
    t = title_px(width_px / (1.7 * bead + GAP_CELLS + big))
    for _ in range(2):  # the title's height scales with the cell (to a px): settle it
        cell = (width_px - bead * t / 6) / (1.5 * bead + GAP_CELLS + big)
        cell = min(max_cell, cell)
        t = title_px(cell)
    cell = min(max_cell, (width_px - bead * t / 6) / (1.5 * bead + GAP_CELLS + big))
    tc = t / cell  # a title line, in cells
    ratio = (1.5 * rows + tc) / rows  # bead cell over big-road cell: the same height
    right = bead * ratio + GAP_CELLS
    units = right + big
    half = (units - GAP_CELLS) / 2
    low = 3 * tc + 1.5 * rows
    boxes: list[_Box] = [
        (Road.BEAD_PLATE, 0, tc, bead * ratio, rows * ratio, bead, ratio, 0),
        (Road.BIG_ROAD, right, tc, big, rows, big, 1.0, right),
        (Road.BIG_EYE_BOY, right, 2 * tc + rows, big, rows / 2, 2 * big, 0.5, right),
        (Road.SMALL_ROAD, 0, low, half, rows / 2, int(2 * half + 1e-9), 0.5, 0),
        (
            Road.COCKROACH_PIG,
            half + GAP_CELLS,
            low,
            half,
            rows / 2,
            int(2 * half + 1e-9),
            0.5,
            half + GAP_CELLS,
        ),
    ]
    return boxes, cell, t


def _narrow_layout(
    bead: int,
    big: int,
    need: Mapping[str, int],
    width_px: float,
    rows: int,
    max_cell: float,
    min_cell: float,
    *,
    snap: bool = True,
) -> tuple[list[_Box], float, float]:
    """A phone's board: one road per row, each at least as wide as the page.

    The cell is the page width over the longest shoe's big-road columns, as on wide
    pages, but never below ``min_cell``, and such that a whole number of cells fills the
    page: a board wider than the page (a long shoe: its roads grow to the right, the
    board's height never changes) scrolls sideways in its box (`ui.plot_host`), opened
    at the right-hand end, cut there on a cell boundary. Each road is right-aligned, so
    there every road shows its newest columns, and scrolling left reaches the earliest.
    The bead plate has its own, larger cells (`BEAD_MIN_CELL_PX`, `BEAD_RATIO_NARROW`),
    and the longest shoe's columns, whole in view where they fit the page. ``snap=False``
    keeps the cell as given (a screen filled to its height, `fill_layout`).

    An 81-round shoe on a 390 px phone: 13.26 px cells, 27 of them in view; the bead
    plate 18 columns of 19.9 px, the big road 40 columns, the derived roads 54 half cells.

    >>> need = {"bead_plate": 15, "big_road": 40, "big_eye_boy": 49, "small_road": 48,
    ...         "cockroach_pig": 47}
    >>> boxes, cell, _ = _narrow_layout(18, 52, need, 356, 6, 44.0, 13.0)
    >>> round(cell, 2), [(str(b[0]), round(b[1], 2), b[5]) for b in boxes]
    ... # doctest: +NORMALIZE_WHITESPACE
    (13.26, [('bead_plate', 13.0, 18), ('big_road', 0.0, 40),
             ('big_eye_boy', 13.0, 54), ('small_road', 13.0, 54), ('cockroach_pig', 13.0, 54)])
    """
    view_px = width_px + 2  # a board that fits is the page's width with its 1 px margins
    cell = max(min_cell, min(max_cell, view_px / big))
    n = view_px / cell
    n = int(n + 1e-9) if cell == min_cell else max(1, -int(-n + 1e-9))
    if snap:  # whole cells in view: the view's left edge is a cell boundary
        cell = view_px / n
    # the whole plate in view; from a 376 px phone up, in cells of `BEAD_MIN_CELL_PX` or more
    bead_cell = min(view_px / bead, max(BEAD_MIN_CELL_PX, BEAD_RATIO_NARROW * cell), max_cell)
    view = view_px / cell  # cells in view
    cols = {
        Road.BEAD_PLATE: max(bead, need[Road.BEAD_PLATE]),
        Road.BIG_ROAD: max(need[Road.BIG_ROAD], n),
    }
    cols |= {k: max(need[k], 2 * n) for k in DERIVED}
    size = {name: 0.5 if name in DERIVED else 1.0 for name in cols}
    size[Road.BEAD_PLATE] = bead_cell / cell
    units = max(cols[k] * size[k] for k in cols)
    t = title_px(cell)
    tc = t / cell  # a title line, in cells
    view_left = max(0.0, units - view)
    boxes: list[_Box] = []
    top = tc
    for name in (Road.BEAD_PLATE, Road.BIG_ROAD, *DERIVED):
        w, h = cols[name] * size[name], rows * size[name]
        left = units - w if name != Road.BEAD_PLATE else min(units - w, view_left)
        boxes.append((name, left, top, w, h, cols[name], size[name], max(left, view_left)))
        top += h + tc
    return boxes, cell, t


def fill_layout(
    roads: Roads, width_px: float, height_px: float, rows: int = ROWS, spare: int = 1
) -> tuple[list[_Box], float]:
    """The board filling a screen (the display): the larger of two layouts fitted to
    both ``width_px`` and ``height_px``.

    Landscape, as casino screens: the big road across the top, the bead plate under it
    on the left and the three derived roads stacked on its right; the cell is the
    largest that fits both ways, and spare width goes to the roads as more columns.
    Portrait (or wherever it is larger): one road per row (`_narrow_layout`) with the
    cell that fills the height; a shoe wider than the screen then shows every road's
    newest columns (its box opens at the right-hand end).

    >>> from roads_app.game.rounds import rounds_from_winners
    >>> roads = all_roads(rounds_from_winners("BP" * 20))  # 40 columns of one result
    >>> _, cell = fill_layout(roads, 1872, 900)
    >>> 40 < cell < 46
    True
    """
    need = {name: _need(roads[name], spare) for name in ROAD_NAMES}
    bead = max(BEAD_MIN_COLS, need[Road.BEAD_PLATE])
    big = max(BIG_MIN_COLS, need[Road.BIG_ROAD])
    derived = max(DERIVED_MIN_COLS, *(need[k] for k in DERIVED)) / 2

    def landscape(cell: float) -> tuple[list[_Box], float, float]:
        t = title_px(cell) / cell
        units_h = 4 * t + rows + 3 * rows / 2
        fit = min(width_px / max(big, bead + GAP_CELLS + derived), height_px / units_h)
        units_w = max(big, bead + GAP_CELLS + derived, width_px / fit)
        units_w = float(int(units_w + 1e-9))  # whole columns
        x0 = bead + GAP_CELLS
        boxes: list[_Box] = [
            (Road.BIG_ROAD, 0, t, units_w, rows, int(units_w), 1.0, 0),
            (Road.BEAD_PLATE, 0, 2 * t + rows, bead, rows, bead, 1.0, 0),
        ]
        for i, kind in enumerate(DERIVED):
            y = 2 * t + rows + i * (rows / 2 + t)
            boxes.append((kind, x0, y, units_w - x0, rows / 2, int((units_w - x0) * 2), 0.5, x0))
        return boxes, fit, units_h

    cell = min(width_px / (big + 1), height_px / (rows * 2.5 + 3))
    for _ in range(3):  # the title line depends on the cell: settle it
        boxes, cell, units_h = landscape(cell)
    wide_area = min(width_px, max(b[1] + b[3] for b in boxes) * cell) * units_h * cell

    # one road per row: 6 + 6 + 3 * 3 cells of roads and five title lines
    tall = height_px / (rows * 2 + rows * 1.5 + 5 * 0.6)
    narrow_big = max(BIG_MIN_COLS_NARROW, need[Road.BIG_ROAD])
    tall_boxes, tall_cell, _ = _narrow_layout(
        bead, narrow_big, need, width_px, rows, tall, tall, snap=False
    )
    tall_h = max(b[2] + b[4] for b in tall_boxes) * tall_cell
    tall_area = width_px * min(tall_h, height_px)
    if tall_area > wide_area * 1.05 and tall_h <= height_px * 1.02:
        return tall_boxes, tall_cell
    return boxes, cell


def board_figure(
    rounds_or_roads: Roads | pl.DataFrame, look: BoardLook = DEFAULT_LOOK
) -> go.Figure:
    """`board_spec` as a checked ``go.Figure`` (the PNG export, tests, scripts)."""
    return go.Figure(board_spec(rounds_or_roads, look))


def _board_roads(
    rounds_or_roads: Roads | pl.DataFrame, look: BoardLook
) -> tuple[Roads, Roads, Roads, int, int]:
    """What `board_spec` draws, before any layout: (the roads, the roads on show, the ask
    road's ghost marks, the rounds of room to leave, the ties before the first result).
    With ``hold_last`` the roads on show are those before the last round."""
    rows, ask, hold_last, six = look.rows, look.ask, look.hold_last, look.six
    if isinstance(rounds_or_roads, Mapping):
        if ask is not None or hold_last:
            raise ValueError("the ask road and the held reveal need the rounds frame")
        return rounds_or_roads, rounds_or_roads, {}, 1, 0
    roads = all_roads(rounds_or_roads, rows=rows)
    ghosts = _ask_marks(rounds_or_roads, ask, rows) if ask else {}
    roads, lead = _marked(roads, rounds_or_roads, six)
    shown, spare = roads, 1
    if hold_last and rounds_or_roads.height:
        before = rounds_or_roads.head(rounds_or_roads.height - 1)
        (shown, lead), spare = _marked(all_roads(before, rows=rows), before, six), 2
    return roads, shown, ghosts, spare, lead


def _held_traces(
    name: str, road: pl.DataFrame, before: pl.DataFrame, held: bool, px: float, lang: str
) -> list[dict[str, Any]]:
    """One road's marks as they stood ``before``; where the last round is ``held``, the
    cells it changes as ``"old ..."`` traces and what it adds or changes as invisible
    ``"new ..."`` traces, for the page to swap once the hand's reveal is done."""
    if not held:  # nothing held: no cell to compare
        return _road_traces(name, before, px, lang)
    new = road.join(before, on=road.columns, how="anti", nulls_equal=True)
    old = before.join(road, on=road.columns, how="anti", nulls_equal=True)
    traces = _road_traces(
        name,
        before
        if old.is_empty()
        else before.join(old, on=road.columns, how="anti", nulls_equal=True),
        px,
        lang,
    )
    for t in _road_traces(name, old, px, lang) if old.height else ():
        t["name"] = f"old {t['name']}"  # cells the last round changes
        traces.append(t)
    if new.height:  # what the last round adds or changes, when it is held
        for t in _road_traces(name, new, px, lang):
            t["name"], t["opacity"] = f"new {t['name']}", 0.0
            traces.append(t)
    return traces


def _board_axes(
    box: tuple[float, float, float, float], first: int, cols: int, rows: int, suffix: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One road's pair of axes: its ``box`` on the figure (x from, x to, y from, y to, as
    fractions), columns ``first`` to ``first + cols`` across, ``rows`` down."""
    xaxis = {**_AXIS, "range": [first, first + cols]}
    yaxis = {**_AXIS, "range": [rows, 0]}
    xaxis["domain"] = [box[0], box[1]]
    yaxis["domain"] = [box[2], box[3]]
    xaxis["anchor"], yaxis["anchor"] = f"y{suffix}", f"x{suffix}"
    return xaxis, yaxis


def board_spec(
    rounds_or_roads: Roads | pl.DataFrame, look: BoardLook = DEFAULT_LOOK
) -> dict[str, Any]:
    """The whole scoreboard as one figure (a plain ``{"data", "layout"}`` dict), laid out
    as on casino boards, whole shoe.

    How it looks is ``look``'s (`BoardLook`), field by field below.
    Laid out by `board_layout` for a page ``width_px`` wide: every road shows every
    column of the shoe and every mark is sized from its cell, so a narrower page
    gives smaller marks, never overlapping ones (down to `NARROW_CELL_PX` on a phone,
    past which the figure is wider than the page, to scroll). One figure (five pairs of axes)
    rather than five keeps the browser's redraw after each result to one Plotly
    update. ``layout.meta`` has ``{"road": "board", "rounds": n, "ask": ask, "cell":
    px, "lang": lang, "roads": {name: {"rounds", "marks", "cols"}}}``.

    ``ask="B"`` or ``"P"`` (needs the rounds frame) adds the ask road on the board: the
    marks that result would add, ghosted (faint), in every road where it adds one.

    ``height_px``: the board fills a screen ``width_px`` by ``height_px`` (the display,
    `fill_layout`) rather than a page's width.

    ``hold_last=True`` (needs the rounds frame) shows the board as it stood before the
    last round, and draws every mark the last round adds *or changes* (a tie's count
    on an earlier cell) invisible, in traces named ``"new ..."``, for the page to show
    (and to hide the ``"old ..."`` marks they replace) once a hand's reveal has turned
    its last card (``layout.meta["held"]`` says so).
    The layout then leaves room for any one more round, so its size does not tell the
    result either.

    ``decks``: the layout holds the longest shoe they allow (`board_layout`). ``six``:
    the table pays a Banker win on 6 apart (No Commission): such a round says "6" on
    the bead plate and has a filled centre on the big road. Ties before the shoe's first
    result are counted in the big road's title, apart from its first cell's own ties
    (as road feeds keep them); both need the rounds frame.

    ``last_mark_s``: the last round's cell on the bead plate and the big road is framed
    in gold (traces named ``"last"``), which the page takes off after that many seconds
    (``layout.meta["last"]``: the round and the milliseconds), as a table's screen marks
    the newest result; needs the rounds frame, not with ``hold_last``. ``theme``: the
    board's colours (`recolour`).
    """
    roads, shown, ghosts, spare, lead = _board_roads(rounds_or_roads, look)
    if look.height_px is not None:
        boxes, cell = fill_layout(shown, look.width_px, look.height_px, look.rows, spare)
        title = title_px(cell)
    else:
        boxes, cell, title = board_layout(
            shown, look.width_px, look.rows, look.max_cell, spare, decks=look.decks
        )
    units_w = max(b[1] + b[3] for b in boxes)
    units_h = max(b[2] + b[4] for b in boxes)
    width, height = units_w * cell, units_h * cell
    font = title - 6
    layout: dict[str, Any] = {
        "width": round(width) + 2,
        "height": round(height) + 2,
        "margin": {"l": 1, "r": 1, "t": 1, "b": 1, "pad": 0},
        "plot_bgcolor": PAPER,
        "paper_bgcolor": PAPER,
        "showlegend": False,
        "hovermode": False,
        "annotations": [],
        "font": {"family": TEXT_FONT},  # what text with no family of its own is set in
        # No template: every style is set here, and Plotly's default one is 6 kB that
        # the browser would receive and apply to the board again on every redraw.
        "template": {},
    }
    data: list[dict[str, Any]] = []
    metas = {}
    for i, (name, left, top, _w, h, cols, size, title_x) in enumerate(boxes, start=1):
        suffix = "" if i == 1 else str(i)
        px = cell * size
        # a road longer than the longest shoe's columns shows its newest ones
        first = max(0, _need(shown[name], spare) - cols)
        road, before = _from(roads[name], first), _from(shown[name], first)
        traces = _held_traces(name, road, before, shown is not roads, px, look.lang)
        if name in ghosts:
            traces = traces + _ghost_traces(name, _from(ghosts[name], first), px, look.lang)
        if look.last_mark_s and not look.hold_last and name in (Road.BEAD_PLATE, Road.BIG_ROAD):
            traces += _last_mark(road, px)
        # an empty road still draws its grid: Plotly only draws axes that carry a trace
        traces = [
            {
                "type": "scatter",
                "x": [],
                "y": [],
                "name": "grid",
                "mode": "markers",
                "hoverinfo": "skip",
            },
            *traces,
        ]
        box = (
            left / units_w,
            (left + cols * size) / units_w,
            1 - (top + h) / units_h,
            1 - top / units_h,
        )
        axes = _board_axes(box, first, cols, look.rows, suffix)
        layout[f"xaxis{suffix}"], layout[f"yaxis{suffix}"] = axes
        for t in traces:
            t["xaxis"], t["yaxis"] = f"x{suffix}", f"y{suffix}"
        data += traces
        title = word(name, look.lang)
        if name == Road.BIG_ROAD and lead:  # kept apart from the first cell's own ties
            title = f"{title} · {word('ties_before', look.lang, n=lead)}"
        layout["annotations"].append(
            {
                "text": title,
                "x": title_x / units_w,
                "y": 1 - top / units_h,
                "xref": "paper",
                "yref": "paper",
                "xanchor": "left",
                "yanchor": "bottom",
                "showarrow": False,
                "font": {"size": font, "color": NOTE, "family": TEXT_FONT},
            }
        )
        metas[name] = {
            **_meta(roads[name], name),
            "cols": cols,
            "first": first,
            "cell": round(px, 2),
        }
        metas[name].pop("road")
    layout["meta"] = {
        "road": "board",
        "rounds": metas[Road.BEAD_PLATE]["rounds"],
        "ask": look.ask,
        "cell": round(cell, 2),
        "lang": look.lang,
        "held": look.hold_last,
        "stacked": boxes[1][2] > boxes[0][2],  # one road per row (a phone's board)
        "roads": metas,
    }
    if look.last_mark_s and not look.hold_last and metas[Road.BEAD_PLATE]["rounds"]:
        layout["meta"]["last"] = {
            "round": metas[Road.BEAD_PLATE]["rounds"],
            "ms": round(look.last_mark_s * 1000),
        }
    return recolour({"data": data, "layout": layout}, look.theme)


def _last_mark(road: pl.DataFrame, cell_px: float) -> list[dict[str, Any]]:
    """A gold frame on the road's newest cell (the one holding the highest round: a
    last tie sits on its big-road cell), for the page to take off after a few seconds."""
    if not road.height:
        return []
    cells = _Cells(road)
    x, y = cells.centres(cells.where("round", max(cells.columns["round"])))
    return [
        _markers(
            x,
            y,
            symbol="square-open",
            colour=GOLD,
            size=cell_px * 0.98,
            line_width=max(2.0, cell_px * 0.12),
            name="last",
        )
    ]


def _marked(roads: Roads, rounds: pl.DataFrame, six: bool) -> tuple[dict[str, pl.DataFrame], int]:
    """The roads with the cell markings only the rounds frame knows, and the number of
    ties before the shoe's first result (0 while there is none: the tie-only first cell
    holds them, with their count). Column ``six`` on the bead plate and big road marks a
    Banker win on 6 (where ``six``); the big road's first cell keeps only its own ties."""
    out = dict(roads)
    winners = rounds["winner"].cast(pl.String)
    decided = (winners != Winner.TIE).arg_true()
    lead = int(decided[0]) if decided.len() else 0
    sixes = (
        rounds.filter(banker_six(pl.col("winner"), pl.col("banker_points")))["round"]
        if six
        else rounds["round"][:0]
    )
    for name in (Road.BEAD_PLATE, Road.BIG_ROAD):
        out[name] = out[name].with_columns(six=pl.col("round").is_in(sixes.implode()))
    if lead:
        first = (pl.col("col") == 0) & (pl.col("row") == 0)
        out[Road.BIG_ROAD] = out[Road.BIG_ROAD].with_columns(
            ties=pl.when(first).then(pl.col("ties") - lead).otherwise(pl.col("ties"))
        )
    return out, lead


def _from(frame: pl.DataFrame, first: int) -> pl.DataFrame:
    """The cells from column ``first`` on (all of them when it is 0)."""
    return frame.filter(pl.col("col") >= first) if first > 0 else frame


GHOST_OPACITY = 0.35


def _ask_marks(rounds: pl.DataFrame, ask: str, rows: int) -> dict[str, pl.DataFrame]:
    """Per road, the cells one more ``ask`` result would add (only roads that gain one)."""
    nxt = preview_winner(rounds, ask)
    new_round = nxt.height
    out = {}
    for name, road in all_roads(nxt, rows=rows).items():
        cells = road.filter(pl.col("round") == new_round)
        if cells.height:
            out[name] = cells
    return out


def _road_traces(name: str, road: pl.DataFrame, px: float, lang: str) -> list[dict[str, Any]]:
    if name == Road.BEAD_PLATE:
        return _bead_traces(road, px, lang=lang)
    if name == Road.BIG_ROAD:
        return _big_road_traces(road, px, False)
    return _derived_traces(road, name, px)


def _ghost_traces(
    name: str, cells: pl.DataFrame, cell_px: float, lang: str = "en"
) -> list[dict[str, Any]]:
    """The marks of one road's ask cell, faint; ``cell_px`` is that road's cell."""
    if name == Road.BEAD_PLATE:
        traces = _bead_traces(cells, cell_px, lang)
    elif name == Road.BIG_ROAD:
        traces = _big_road_traces(cells, cell_px, mini=True)
    else:
        traces = _derived_traces(cells, name, cell_px)
    for t in traces:
        t["name"] = f"ask {t['name']}"
        t["opacity"] = GHOST_OPACITY
    return traces


def ask_road_text(marks: Mapping[str, str | None]) -> str:
    """Streamlit-markdown of the marks one hypothetical result would add (— for none).

    >>> ask_road_text({"big_eye_boy": "red", "small_road": None, "cockroach_pig": "blue"})
    ':red[○] — :blue[╱]'
    """
    return " ".join(
        f":{marks[k]}[{MARK_GLYPH[k]}]" if marks.get(k) in MARK_COLOUR else "—" for k in DERIVED
    )
