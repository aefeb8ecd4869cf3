"""The lobby: a wall of every live table, as a floor manager or a multi-table player
follows them.

Every shoe being played (by hand or fed through the HTTP API) and not ended, most
recently changed first: a tile each (`render_tile`, the one function that draws a
tile) with its name, table, round count, a small bead plate and big road, and the
counts; a table with no result for N minutes (settable) is marked stale; an ended shoe
leaves the wall. "Open" continues it on the scoreboard (``?shoe=<id>``).

The wall follows the store through the process's one watcher, one request per page:
each tile's live part (`wall_tile`: round count, stale mark, roads, counts) follows its
own shoe and draws each result in place by itself, with no script run (a wall of 24
live tables, each result a fragment run, kept the page's main thread busy); the tile's
fragment runs only when its tags change, it enters a good road (the alert) or leaves
the filter. The grid (the page itself, `follow.follow_wall`) reruns only when the set
of live shoes changes (a shoe starts, ends or is deleted), when a table the good-road
filter hides moves on (it may pass now), or when the page's settings change. Tiles
keep their places between those reruns (a wall whose tiles jumped at every result
could not be read).

A library with floor tables shows its **tables** instead (`floor_tables`), in floor
order, each tile in its place all day (`render_table_tile`): its shoe being dealt as
a shoe's tile with the table's name, shoe number and limits, or between shoes its
state ("Shuffling" with the last shoe's final counts, "Closed"). Its live part also
follows the table's own version on the wall's request and runs the tile's fragment
(`_live_table_tile`) when the table moves on: a shuffle, its next shoe, a close. The
grid then reruns only when the floor's tables or their order change.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.roads import good_roads as gr
from roads_app.store import library, tokens, watch
from roads_app.store.floor import FloorTable
from roads_app.store.watch import TABLE_KEY
from roads_app.ui import access, floor_view, follow, page_head, session, theme, wall_tile
from roads_app.ui.board_view import lang
from roads_app.ui.good_roads_view import (
    FILTER_KEY,
    alert,
    render_filter,
    render_tags,
    shown,
)
from roads_app.ui.guard import guarded
from roads_app.ui.nav import switch_to
from roads_app.ui.words import labels, md_text, say, tr

COLUMNS = 4
STALE_KEY = "lobby_stale_min"
STALE_DEFAULT_MIN = 5
"""A table with no change for this many minutes is marked stale (settable on the page)."""


DERIVED_TILE_PX = 480
"""A tile this wide or wider (a wide screen, or fewer columns) shows the derived roads too;
a phone's tile (the page under `PHONE_PX`) keeps the bead plate and big road."""
PHONE_PX = 640
COLUMNS_KEY = "lobby_columns"
PAGE_PADDING_PX = 96  # the page's own margins, beside the tiles


def tile_key(sid: str, table: FloorTable | None) -> str:
    """A tile's key on the page: a floor table's stays the same from shoe to shoe."""
    return f"lobby-table-{table.code}" if table is not None else f"lobby-{sid}"


def render_tile(
    row: dict,
    folder: Path,
    stale_min: float,
    derived: bool = False,
    table: FloorTable | None = None,
) -> None:
    """One live table: name, table, good-road tags and the Open button here; the round
    count, the stale mark, the bead plate and big road (and the derived roads where
    ``derived``) and the counts in the tile's live part (`wall_tile`), which follows
    the shoe by itself. The only function that draws a tile (so a tag is added in one
    place). ``row``: the shoe as the watcher saw it (`watch.ShoeNow`'s fields, and id);
    ``table``: the floor table dealing it (its name, code, shoe number and limits)."""
    sid = row["id"]
    look = st.session_state.get(LOOK_KEY) or wall_tile.Look()
    if look.kiosk:
        render_kiosk_tile(row, folder, stale_min, look, table)
        return
    with st.container(border=True, key=tile_key(sid, table)):
        lg = lang()
        tile = wall_tile.content(sid, str(folder), int(row["version"]), lg, derived, look)
        meta: ShoeMeta | None = tile["meta"] if isinstance(tile, dict) else None
        if table is not None:
            st.markdown(f"**{md_text(table.name or table.code)}** · {md_text(table.code)}")
        else:
            name = (meta.name if meta else "") or tr("shoe_default_name", id=sid)
            rules = meta.rules if meta else ""
            st.markdown(f"**{md_text(name)}** · {md_text(rules)}")  # names are text
        runs = st.session_state.setdefault(RUNS_KEY, {})
        runs[sid] = runs.get(sid, 0) + 1  # how often this tile's fragment ran
        tags = gr.tags_of_winners(tile["winners"]) if isinstance(tile, dict) else []
        if isinstance(tile, dict):  # keyed apart from "lobby-<id>", the tile's own key
            render_tags(tags, lg, key=f"gr-tile-{sid}")
        else:
            st.caption(say(tile))
        picked = st.session_state.get(FILTER_KEY) or []
        shoe = watch.ShoeNow(
            version=int(row["version"]), ended=False, rounds=row["rounds"], modified=row["modified"]
        )
        wall_tile.live(
            sid,
            wall_tile.view_at(tile, shoe, lg, tags, picked),
            lg=lg,
            derived=derived,
            tags=tags,
            picked=picked,
            stale_min=stale_min,
            runs=runs[sid],
            look=look,
            table=None if table is None else wall_tile.table_data(table, lg),
        )
        if table is not None:
            _open_display(table)
        elif st.button(tr("open"), key=f"lobby_open_{sid}", icon=":material/open_in_new:"):
            switch_to("scoreboard", {"shoe": sid})


def render_kiosk_tile(
    row: dict,
    folder: Path,
    stale_min: float,
    look: wall_tile.Look,
    table: FloorTable | None = None,
) -> None:
    """A kiosk wall's tile: its live part alone (one line, the big road across the tile,
    the bead plate where there is room), which draws the name as text itself (a floor
    table's on a line of its own, with its shoe number and limits)."""
    sid = row["id"]
    with st.container(border=True, key=tile_key(sid, table)):
        lg = lang()
        tile = wall_tile.content(sid, str(folder), int(row["version"]), lg, False, look)
        runs = st.session_state.setdefault(RUNS_KEY, {})
        runs[sid] = runs.get(sid, 0) + 1
        tags = gr.tags_of_winners(tile["winners"]) if isinstance(tile, dict) else []
        picked = st.session_state.get(FILTER_KEY) or []
        shoe = watch.ShoeNow(
            version=int(row["version"]), ended=False, rounds=row["rounds"], modified=row["modified"]
        )
        first = wall_tile.view_at(tile, shoe, lg, tags, picked)
        if isinstance(tile, str):  # cannot be read: said in the tile's line
            first["name"] = say(tile)
        wall_tile.live(
            sid,
            first,
            lg=lg,
            derived=False,
            tags=tags,
            picked=picked,
            stale_min=stale_min,
            runs=runs[sid],
            look=look,
            table=None if table is None else wall_tile.table_data(table, lg),
        )


def render_between_tile(
    table: FloorTable, folder: Path, stale_min: float, derived: bool = False
) -> None:
    """A floor table's tile while it deals no shoe (shuffling, closed, open before its
    first hand): in its place, its name, its state in large type, its roads cleared and,
    shuffling, the last shoe's final counts; its live part asks for the fragment when the
    table moves on."""
    look = st.session_state.get(LOOK_KEY) or wall_tile.Look()
    with st.container(border=True, key=tile_key("", table)):
        lg = lang()
        if not look.kiosk:  # as a dealing table's tile, so that it keeps its height
            st.markdown(f"**{md_text(table.name or table.code)}** · {md_text(table.code)}")
            render_tags([], lg, key=f"gr-tile-{table.code}")
        runs = st.session_state.setdefault(RUNS_KEY, {})
        key = TABLE_KEY + table.code
        runs[key] = runs.get(key, 0) + 1
        seen = follow.shoe_now(folder, table.shoe) if table.shoe else None
        wall_tile.live(
            None,
            wall_tile.between_view(
                table, folder, lg, look, seen.version if seen else None, derived
            ),
            lg=lg,
            derived=derived,
            tags=[],
            picked=st.session_state.get(FILTER_KEY) or [],
            stale_min=stale_min,
            runs=runs[key],
            look=look,
            table=wall_tile.table_data(table, lg),
        )
        if not look.kiosk:
            _open_display(table)


def _open_display(table: FloorTable) -> None:
    """A floor table's Open: its display (``/display?table=<code>``), shoe after shoe."""
    if st.button(tr("open"), key=f"lobby_open_table_{table.code}", icon=":material/tv:"):
        switch_to("display", {"table": table.code})


RUNS_KEY = "lobby_runs"  # shoe id (or "grid") -> how many times this page ran it
LOOK_KEY = "roads_app.lobby_look"  # the tiles' `wall_tile.Look` this run


@st.fragment
def _live_tile(sid: str, folder: Path, stale_min: float, derived: bool) -> None:
    """One tile as a fragment of its own: it runs when its tile's live part asks
    (`wall_tile`: its tags changed, it entered a good road, it left the filter or the
    wall), not at every result. What it shows is read now (the watcher's row, the shoe
    at that version), not what the grid was given when it last ran."""
    now_shoe = follow.shoe_now(folder, sid)
    if now_shoe is None or not library.on_the_wall(sid, now_shoe.source, now_shoe.ended):
        return  # gone from the wall: the grid follows the set of live shoes and reruns
    look = st.session_state.get(LOOK_KEY) or wall_tile.Look()
    tile = wall_tile.content(sid, str(folder), now_shoe.version, lang(), derived, look)
    if isinstance(tile, dict):
        alert(sid, now_shoe.version, tile["meta"].name or sid, gr.entered(tile["winners"]), lang())
        if not shown(gr.tags_of_winners(tile["winners"]), st.session_state.get(FILTER_KEY) or []):
            st.rerun(scope="app")  # it left the filter: the grid without it
    row = {
        "id": sid,
        "version": now_shoe.version,
        "rounds": now_shoe.rounds,
        "modified": now_shoe.modified,
    }
    render_tile(row, folder, stale_min, derived)


def _dealt(table: FloorTable, folder: Path) -> watch.ShoeNow | None:
    """The shoe a floor table deals now as the watcher saw it (as the store has it when
    the watcher has not seen it yet); None between shoes."""
    if not floor_view.dealing(table) or table.shoe is None:
        return None
    seen = follow.shoe_now(folder, table.shoe)
    if seen is not None and not seen.ended:
        return seen
    version = session.shoe_version(table.shoe)
    if version is None:
        return None
    return watch.ShoeNow(version, False, table.shoe_rounds, modified=time.time())


def _table_tags(table: FloorTable, folder: Path, derived: bool) -> list[str]:
    """The good roads a floor table's shoe is on now (none between shoes), its alert
    raised when it entered one since this page last saw it."""
    shoe = _dealt(table, folder)
    if shoe is None or table.shoe is None:
        return []
    lg = lang()
    look = st.session_state.get(LOOK_KEY) or wall_tile.Look()
    tile = wall_tile.content(table.shoe, str(folder), shoe.version, lg, derived, look)
    if not isinstance(tile, dict):
        return []
    alert(table.shoe, shoe.version, table.name or table.code, gr.entered(tile["winners"]), lg)
    return gr.tags_of_winners(tile["winners"])


@st.fragment
def _live_table_tile(code: str, folder: Path, stale_min: float, derived: bool) -> None:
    """A floor table's tile as a fragment of its own, in its fixed place: run when its
    live part asks (the table changed: a shuffle, its next shoe, closed; or its shoe's
    tags did). What it shows is read now."""
    try:
        table = session.store().floor.get(code)
    except RoadsAppError:
        return  # gone from the floor: the grid follows the floor's tables and reruns
    if not shown(_table_tags(table, folder, derived), st.session_state.get(FILTER_KEY) or []):
        st.rerun(scope="app")  # it left the filter: the grid without it
    render_table_tile(table, folder, stale_min, derived)


def render_table_tile(table: FloorTable, folder: Path, stale_min: float, derived: bool) -> None:
    """A floor table's tile: its shoe being dealt as a shoe's tile (`render_tile`) with
    the table's name, shoe number and limits; between shoes its state."""
    shoe = _dealt(table, folder)
    if shoe is None or table.shoe is None:
        render_between_tile(table, folder, stale_min, derived)
        return
    row = {"id": table.shoe, "version": shoe.version, "rounds": shoe.rounds}
    render_tile(row | {"modified": shoe.modified}, folder, stale_min, derived, table)


def tiles_show_derived(screen_w: int | None, columns: int) -> bool:
    """Whether the wall's tiles are big enough for the derived roads: a window of
    ``screen_w`` px (None: not reported yet) split in ``columns``; never on a phone.

    >>> tiles_show_derived(1920, 3), tiles_show_derived(1920, 4), tiles_show_derived(390, 1)
    (True, False, False)
    """
    if screen_w is None or screen_w < PHONE_PX:
        return False
    return (screen_w - PAGE_PADDING_PX) / max(1, columns) >= DERIVED_TILE_PX


class Order(StrEnum):
    """The order of the wall's tiles, as chosen (``?order=`` on the kiosk wall)."""

    LAST = "last"  # the table with the newest result first
    NAME = "name"
    GOOD = "good"  # tables on a good road first, then the newest result first


ORDER_KEY = "lobby_order"
ORDER_LABEL = {Order.LAST: "order_last", Order.NAME: "order_name", Order.GOOD: "order_good"}


def ordered(shoes: pl.DataFrame, on_good: list[bool], order: Order) -> pl.DataFrame:
    """``shoes`` (newest result first, as `library.lobby_shoes` gives them) in ``order``;
    ``on_good``: per row, whether the table is on a good road.

    >>> df = pl.DataFrame({"id": ["a", "b", "c"], "name": ["Zed", "alpha", "Mid"]})
    >>> ordered(df, [False, False, True], Order.GOOD)["id"].to_list()
    ['c', 'a', 'b']
    >>> ordered(df, [False, False, True], Order.NAME)["id"].to_list()
    ['b', 'c', 'a']
    """
    if order is Order.NAME:
        key = [str(n or i).casefold() for n, i in zip(shoes["name"], shoes["id"], strict=True)]
        return shoes.with_columns(_k=pl.Series(key)).sort("_k", maintain_order=True).drop("_k")
    if order is Order.GOOD:
        return (
            shoes.with_columns(_g=pl.Series(on_good, dtype=pl.Boolean))
            .sort("_g", descending=True, maintain_order=True)
            .drop("_g")
        )
    return shoes


def chosen_order() -> Order:
    """The URL's ``?order=``, else the page's choice, else the newest result first."""
    for got in (st.query_params.get("order"), st.session_state.get(ORDER_KEY)):
        try:
            return Order(got)
        except ValueError:
            continue
    return Order.LAST


def _good_road_pass(
    shoes: pl.DataFrame, folder: Path, derived: bool
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Alert on every table that entered a good road since this page last saw it, and
    keep the tables the good-road filter asks for (all when it asks for none), in the
    order chosen; the versions of those it hides (the grid follows them: one may pass the
    filter next). ``derived``: as the tiles are drawn, so each shoe is read and laid out
    once."""
    picked = st.session_state.get(FILTER_KEY) or []
    keep, on_good = [], []
    hidden: dict[str, int] = {}
    lg = lang()
    look = st.session_state.get(LOOK_KEY) or wall_tile.Look()
    for row in shoes.iter_rows(named=True):
        tile = wall_tile.content(row["id"], str(folder), int(row["version"]), lg, derived, look)
        winners = tile["winners"] if isinstance(tile, dict) else []
        name = (tile["meta"].name if isinstance(tile, dict) else row["name"]) or row["id"]
        alert(row["id"], int(row["version"]), name, gr.entered(winners), lg)
        now_tags = gr.tags_of_winners(winners)
        on_good.append(bool(now_tags))
        keep.append(shown(now_tags, picked))
        if not keep[-1]:
            hidden[row["id"]] = int(row["version"])
    good = [g for g, k in zip(on_good, keep, strict=True) if k]
    kept = shoes.filter(pl.Series(keep, dtype=pl.Boolean))
    return ordered(kept, good, chosen_order()), hidden


def floor_tables() -> list[FloorTable]:
    """The library's floor tables in the floor's order (`follow.floor_order`): the wall
    shows these, each in its place all day, when there are any."""
    tables = {t.code: t for t in session.store().floor.list()}
    return [tables[c] for c in follow.floor_order({c: t.position for c, t in tables.items()})]


def _table_pass(
    tables: list[FloorTable], folder: Path, derived: bool
) -> tuple[list[FloorTable], dict[str, int]]:
    """The floor tables the good-road filter keeps (all when it asks for none), in floor
    order, each one's alert raised; the versions the grid follows of those it hides (the
    table's, and its shoe's: either may bring it back)."""
    picked = st.session_state.get(FILTER_KEY) or []
    keep: list[FloorTable] = []
    hidden: dict[str, int] = {}
    for t in tables:
        if shown(_table_tags(t, folder, derived), picked):
            keep.append(t)
            continue
        hidden[TABLE_KEY + t.code] = t.version
        shoe = _dealt(t, folder)
        if shoe is not None and t.shoe is not None:
            hidden[t.shoe] = shoe.version
    return keep, hidden


def _layout(n: int, lines: int) -> tuple[KioskGrid | None, int, bool]:
    """The grid for ``n`` tiles whose line is ``lines`` lines: the kiosk's (None off
    the kiosk), the columns, whether tiles show the derived roads; the tiles' look set."""
    columns = int(st.session_state.get(COLUMNS_KEY) or COLUMNS)
    screen = follow.screen_size("follow_wall")
    ground = theme.chosen()
    grid = None
    if kiosk_on():
        w, h = screen_guess(screen)
        grid = kiosk_grid(w, h, n, lines)
        columns = grid.cols
        st.session_state[LOOK_KEY] = wall_tile.Look(grid.big, grid.bead, ground)
    else:
        st.session_state[LOOK_KEY] = wall_tile.Look(ground=ground)
    derived = grid is None and tiles_show_derived(screen["w"] if screen else None, columns)
    return grid, columns, derived


def _place_tiles(
    keys: list[str],
    grid: KioskGrid | None,
    columns: int,
    tile: Callable[[str], object],
    fixed: bool = False,
) -> None:
    """The tiles in the grid, ``tile(key)`` drawing each. ``fixed``: every kiosk tile
    the same height, its share of the screen (a floor table's tile keeps its place while
    the one beside or above it shuffles and shows no roads)."""
    if grid is not None:
        rows = ""  # the grid's own rule is in static/kiosk.css; this screen's numbers here
        if fixed and grid.fits:
            _w, h = screen_guess(follow.screen_size("follow_wall"))
            n = math.ceil(len(keys) / grid.cols)
            rows = f"; --rd-kiosk-row: {(h - PAGE_PAD_PX * (n + 1)) / n:.1f}px"
        st.html(
            f"<style>.st-key-kiosk_wall {{--rd-kiosk-cols: {grid.cols}; "
            f"--rd-kiosk-font: {grid.font:.1f}px{rows}}}</style>"
        )
        with st.container(key="kiosk_wall"):
            for k in keys:
                tile(k)
        return
    ids = iter(keys)
    for _ in range(0, len(keys), columns):
        for col in st.columns(columns, gap="small"):
            k = next(ids, None)
            if k is None:
                break
            with col:
                tile(k)


def render_grid() -> None:
    """The grid of tiles: rerun only when the set of live shoes changes (a shoe starts,
    ends or is deleted), when the floor's tables or their order change, when a hidden
    shoe may pass the filter, or when the page's settings change; each tile follows its
    own shoe, or its floor table (`_live_tile`, `_live_table_tile`, whose live part
    draws each result itself: `wall_tile`)."""
    access.still_allowed()
    folder = session.data_dir()
    seq = follow.wall_seq(folder)  # read before the shoes: a change after it wakes us again
    stale_min = float(st.session_state.get(STALE_KEY) or STALE_DEFAULT_MIN)
    try:
        bound = access.screen_table()  # a table's screen key: that table's tile alone
        tables = [t for t in floor_tables() if tokens.sees(bound, t.code)]
        shoes = None if tables else library.lobby_shoes(folder)
        if shoes is not None:
            shoes = shoes.filter(pl.col("id").is_in(list(access.screen_keeps(shoes["id"]))))
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        follow.follow_wall(seq)
        return
    runs = st.session_state.setdefault(RUNS_KEY, {})
    runs["grid"] = runs.get("grid", 0) + 1
    floor = [t.code for t in tables]
    if shoes is None:  # the floor's tables, each in its place all day
        grid, columns, derived = _layout(len(tables), lines=2)
        kept, hidden = _table_pass(tables, folder, derived)
        follow.follow_wall(seq, None, hidden, floor=floor)
        keys = [t.code for t in kept]
        caption = tr("floor_tables_n", n=len(tables))
        tile: Callable[[str, Path, float, bool], object] = _live_table_tile
    else:
        grid, columns, derived = _layout(shoes.height, lines=1)
        picked, hidden = _good_road_pass(shoes, folder, derived)
        follow.follow_wall(seq, shoes["id"].to_list(), hidden, floor=floor)
        if not shoes.height:
            st.info(tr("lobby_empty"))
            return
        keys = picked["id"].to_list()
        caption = tr("live_tables", n=shoes.height)
        tile = _live_tile
    if grid is None:
        st.caption(caption)
    laid = int(follow.screen_size("follow_wall") is not None)  # for the window's own size
    st.html(
        f"<span data-testid='wall-runs' data-run='{runs['grid']}' data-screen='{laid}' hidden>"
        "</span>"
    )
    if not keys:
        st.info(tr("gr_filter_none"))
        return
    _place_tiles(keys, grid, columns, lambda k: tile(k, folder, stale_min, derived), shoes is None)


KIOSK_PARAM = "kiosk"
KIOSK_KEY = "lobby_kiosk"
_KIOSK_CSS = page_head.static_text("kiosk.css")


def kiosk_on() -> bool:
    """The wall alone, for a screen on the floor: ``?kiosk=1`` (the page's switch puts it
    in the address, so taking it out of the address brings the settings back)."""
    return st.query_params.get(KIOSK_PARAM) == "1"


@dataclass(frozen=True)
class KioskGrid:
    """The kiosk wall's layout: ``cols`` tiles a row, each with a big road of ``big``
    columns across its width and a bead plate of ``bead`` (0: no room), and the tile
    line's type size in px; ``fits``: every tile is on the screen (else it scrolls)."""

    cols: int
    big: int
    bead: int
    font: float
    fits: bool = True


PAGE_PAD_PX = 8  # the kiosk page's margin, and the gap between its tiles
TILE_PAD_PX = 9  # a tile's padding and border
MIN_BIG_COLS = 20  # a big road shorter than this shows too little of the shoe
MIN_CELL_PX = 9.5  # cells at least 9 px (issue 36), with a little to spare
BEAD_CELL_PX = 11.5  # a layout with the bead plate is preferred while its cells are this big


def kiosk_grid(w: int, h: int, n: int, lines: int = 1) -> KioskGrid:
    """Tiles for ``n`` tables on a ``w`` × ``h`` px screen with no scrolling (each tile's
    head ``lines`` lines of type: a floor table's has its own line): the number
    of columns that gives the biggest cells with the bead plate under the big road (at
    the same cell size, at least `BEAD_CELL_PX`), else the biggest cells without it; the
    big road across each tile's width, at least `MIN_BIG_COLS` columns. On a phone one
    column (the page scrolls).

    >>> kiosk_grid(1920, 1080, 24)
    KioskGrid(cols=6, big=20, bead=20, font=15.0, fits=True)
    >>> kiosk_grid(1920, 1080, 24, lines=2) == kiosk_grid(1920, 1080, 24)  # floor tables
    True
    >>> kiosk_grid(3840, 2160, 48).cols, kiosk_grid(390, 844, 24).cols
    (8, 1)
    """
    n = max(1, n)

    def type_px(inner_w: float) -> float:  # the line's type: by the screen, and small
        return min(30.0, max(13.0, min(h / 72, inner_w / 19.5)))  # enough for its line

    if w < PHONE_PX:
        inner = w - 2 * PAGE_PAD_PX - 2 * TILE_PAD_PX
        big = max(MIN_BIG_COLS, math.floor(inner / 12))
        return KioskGrid(1, big, big, type_px(inner), fits=False)
    best: tuple[tuple[bool, float], KioskGrid] | None = None
    for cols in range(1, n + 1):
        rows = math.ceil(n / cols)
        inner_w = (w - PAGE_PAD_PX * (cols + 1)) / cols - 2 * TILE_PAD_PX
        font = type_px(inner_w)
        line = (font * 1.35 + font * 0.35) * lines + 2  # the tile's lines, the gaps under
        gap = font * 0.35
        inner_h = (h - PAGE_PAD_PX * (rows + 1)) / rows - 2 * TILE_PAD_PX - line
        for bead in (True, False):
            tall = (inner_h - gap) / 12 if bead else inner_h / 6
            cell = min(inner_w / MIN_BIG_COLS, tall, font * 1.3)
            if cell < MIN_CELL_PX:
                continue
            big = math.ceil(inner_w / cell)  # the road is drawn across the tile: cells this
            score = (bead and cell >= BEAD_CELL_PX, cell)  # size or a little smaller
            if best is None or score > best[0]:
                best = (score, KioskGrid(cols, big, big if bead else 0, font))
    if best is None:  # too many tables for this screen: the smallest cells, and it scrolls
        cols = max(1, math.floor((w - PAGE_PAD_PX) / (MIN_CELL_PX * MIN_BIG_COLS + 30)))
        inner_w = (w - PAGE_PAD_PX * (cols + 1)) / cols - 2 * TILE_PAD_PX
        return KioskGrid(cols, MIN_BIG_COLS, 0, type_px(inner_w), fits=False)
    return best[1]


def screen_guess(screen: dict[str, int] | None) -> tuple[int, int]:
    """The window's size as reported, or before the first report a guess from the width
    the page's head left in a cookie (a 16:9 screen)."""
    if screen:
        return screen["w"], screen["h"]
    from roads_app.ui import board_host

    w = board_host.viewport_width() or 1920
    return w, round(w * 9 / 16)


def _to_kiosk() -> None:
    if st.session_state.get(KIOSK_KEY):
        st.query_params[KIOSK_PARAM] = "1"
        st.session_state[KIOSK_KEY] = False  # off again when the settings come back


def _to_theme() -> None:
    ground = theme.Theme.DARK if st.session_state.get("lobby_dark") else theme.Theme.LIGHT
    st.session_state[theme.SESSION_KEY] = ground
    if theme.PARAM in st.query_params:
        st.query_params[theme.PARAM] = str(ground)


def _on_the_floor() -> bool:
    """Whether the wall shows floor tables (a library it cannot read: the grid says so)."""
    try:
        return bool(floor_tables())
    except RoadsAppError:
        return False


def render_lobby_page() -> None:
    """``/lobby``: every live table; ``?kiosk=1``: the wall alone (no sidebar, no
    settings), every tile on one screen."""
    ground = theme.chosen()
    theme.apply(ground)
    if kiosk_on():
        st.html(f"<style>{_KIOSK_CSS}</style>")
        guarded(render_grid)()
        return
    st.title(tr("page_lobby"))
    c1, c2, c3 = st.columns([3, 1, 2], vertical_alignment="bottom")
    c1.number_input(
        tr("stale_after"),
        min_value=1,
        max_value=24 * 60,
        value=STALE_DEFAULT_MIN,
        step=1,
        key=STALE_KEY,
    )
    c2.number_input(
        tr("lobby_columns"),
        min_value=1,
        max_value=8,
        value=COLUMNS,
        step=1,
        key=COLUMNS_KEY,
        help=tr("lobby_columns_help"),
    )
    c3.selectbox(
        tr("lobby_order"),
        [str(o) for o in Order],
        key=ORDER_KEY,
        format_func=labels({str(o): k for o, k in ORDER_LABEL.items()}),
        disabled=_on_the_floor(),  # floor tables stand in the floor's order
        help=tr("lobby_order_floor_help"),
    )
    with st.container(horizontal=True, gap="medium"):
        st.toggle(tr("kiosk"), key=KIOSK_KEY, help=tr("kiosk_help"), on_change=_to_kiosk)
        st.toggle(
            tr("theme_dark"),
            value=ground is theme.Theme.DARK,
            key="lobby_dark",
            help=tr("theme_help"),
            on_change=_to_theme,
        )
    render_filter(lang())
    guarded(render_grid)()  # the page is the grid: tiles are fragments of their own
