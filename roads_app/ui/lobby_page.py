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
"""

from __future__ import annotations

from pathlib import Path

import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.roads import good_roads as gr
from roads_app.store import library, watch
from roads_app.ui import follow, session, wall_tile
from roads_app.ui.board_view import lang
from roads_app.ui.good_roads_view import (
    FILTER_KEY,
    alert,
    entered_of,
    render_filter,
    render_tags,
    shown,
)
from roads_app.ui.guard import guarded
from roads_app.ui.nav import switch_to
from roads_app.ui.words import md_text, say, tr

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


def render_tile(row: dict, folder: Path, stale_min: float, derived: bool = False) -> None:
    """One live table: name, table, good-road tags and the Open button here; the round
    count, the stale mark, the bead plate and big road (and the derived roads where
    ``derived``) and the counts in the tile's live part (`wall_tile`), which follows
    the shoe by itself. The only function that draws a tile (so a tag is added in one
    place). ``row``: the shoe as the watcher saw it (`watch.ShoeNow`'s fields, and id)."""
    sid = row["id"]
    with st.container(border=True, key=f"lobby-{sid}"):
        lg = lang()
        tile = wall_tile.content(sid, str(folder), int(row["version"]), lg, derived)
        meta: ShoeMeta | None = tile["meta"] if isinstance(tile, dict) else None
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
        shoe = watch.ShoeNow(version=int(row["version"]), ended=False, rounds=row["rounds"],
                             modified=row["modified"])  # fmt: skip
        wall_tile.live(sid, wall_tile.view_at(tile, shoe, lg, tags, picked), lg=lg,
                       derived=derived, tags=tags, picked=picked, stale_min=stale_min,
                       runs=runs[sid])  # fmt: skip
        if st.button(tr("open"), key=f"lobby_open_{sid}", icon=":material/open_in_new:"):
            switch_to("scoreboard", {"shoe": sid})


RUNS_KEY = "lobby_runs"  # shoe id (or "grid") -> how many times this page ran it


@st.fragment
def _live_tile(sid: str, folder: Path, stale_min: float, derived: bool) -> None:
    """One tile as a fragment of its own: it runs when its tile's live part asks
    (`wall_tile`: its tags changed, it entered a good road, it left the filter or the
    wall), not at every result. What it shows is read now (the watcher's row, the shoe
    at that version), not what the grid was given when it last ran."""
    now_shoe = follow.shoe_now(folder, sid)
    if now_shoe is None or not library.on_the_wall(sid, now_shoe.source, now_shoe.ended):
        return  # gone from the wall: the grid follows the set of live shoes and reruns
    tile = wall_tile.content(sid, str(folder), now_shoe.version, lang(), derived)
    if isinstance(tile, dict):
        alert(sid, now_shoe.version, tile["meta"].name or sid, entered_of(tile["winners"]),
              lang())  # fmt: skip
        if not shown(gr.tags_of_winners(tile["winners"]), st.session_state.get(FILTER_KEY) or []):
            st.rerun(scope="app")  # it left the filter: the grid without it
    row = {"id": sid, "version": now_shoe.version, "rounds": now_shoe.rounds,
           "modified": now_shoe.modified}  # fmt: skip
    render_tile(row, folder, stale_min, derived)


def tiles_show_derived(screen_w: int | None, columns: int) -> bool:
    """Whether the wall's tiles are big enough for the derived roads: a window of
    ``screen_w`` px (None: not reported yet) split in ``columns``; never on a phone.

    >>> tiles_show_derived(1920, 3), tiles_show_derived(1920, 4), tiles_show_derived(390, 1)
    (True, False, False)
    """
    if screen_w is None or screen_w < PHONE_PX:
        return False
    return (screen_w - PAGE_PADDING_PX) / max(1, columns) >= DERIVED_TILE_PX


def _good_road_pass(
    shoes: pl.DataFrame, folder: Path, derived: bool
) -> tuple[pl.DataFrame, dict[str, int]]:
    """Alert on every table that entered a good road since this page last saw it, and
    keep the tables the good-road filter asks for (all when it asks for none); the
    versions of those it hides (the grid follows them: one may pass the filter next).
    ``derived``: as the tiles are drawn, so each shoe is read and laid out once."""
    picked = st.session_state.get(FILTER_KEY) or []
    keep = []
    hidden: dict[str, int] = {}
    lg = lang()
    for row in shoes.iter_rows(named=True):
        tile = wall_tile.content(row["id"], str(folder), int(row["version"]), lg, derived)
        winners = tile["winners"] if isinstance(tile, dict) else []
        name = (tile["meta"].name if isinstance(tile, dict) else row["name"]) or row["id"]
        alert(row["id"], int(row["version"]), name, entered_of(winners), lg)
        keep.append(shown(gr.tags_of_winners(winners), picked))
        if not keep[-1]:
            hidden[row["id"]] = int(row["version"])
    return shoes.filter(pl.Series(keep, dtype=pl.Boolean)), hidden


def render_grid() -> None:
    """The grid of tiles: rerun only when the set of live shoes changes (a shoe starts,
    ends or is deleted), when a hidden shoe may pass the filter, or when the page's
    settings change; each tile follows its own shoe (`_live_tile`, whose live part
    draws each result itself: `wall_tile`)."""
    folder = session.data_dir()
    seq = follow.wall_seq(folder)  # read before the shoes: a change after it wakes us again
    stale_min = float(st.session_state.get(STALE_KEY) or STALE_DEFAULT_MIN)
    try:
        shoes = library.lobby_shoes(folder)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        follow.follow_wall(seq)
        return
    runs = st.session_state.setdefault(RUNS_KEY, {})
    runs["grid"] = runs.get("grid", 0) + 1
    columns = int(st.session_state.get(COLUMNS_KEY) or COLUMNS)
    screen = follow.screen_size("follow_wall")
    derived = tiles_show_derived(screen["w"] if screen else None, columns)
    picked, hidden = _good_road_pass(shoes, folder, derived)
    follow.follow_wall(seq, shoes["id"].to_list(), hidden)
    if not shoes.height:
        st.info(tr("lobby_empty"))
        return
    st.caption(tr("live_tables", n=shoes.height))
    st.html(f"<span data-testid='wall-runs' data-run='{runs['grid']}' hidden></span>")
    if not picked.height:
        st.info(tr("gr_filter_none"))
        return
    ids = iter(picked["id"].to_list())
    for _ in range(0, picked.height, columns):
        cols = st.columns(columns, gap="small")
        for col in cols:
            sid = next(ids, None)
            if sid is None:
                break
            with col:
                _live_tile(sid, folder, stale_min, derived)


def render_lobby_page() -> None:
    """``/lobby``: every live table."""
    st.title(tr("page_lobby"))
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    c1.number_input(tr("stale_after"), min_value=1, max_value=24 * 60,
                    value=STALE_DEFAULT_MIN, step=1, key=STALE_KEY)  # fmt: skip
    c2.number_input(tr("lobby_columns"), min_value=1, max_value=8, value=COLUMNS, step=1,
                    key=COLUMNS_KEY, help=tr("lobby_columns_help"))  # fmt: skip
    render_filter(lang())
    guarded(render_grid)()  # the page is the grid: tiles are fragments of their own
