"""The lobby: a wall of every live table, as a floor manager or a multi-table player
follows them.

Every shoe being played (by hand or fed through the HTTP API) and not ended, most
recently changed first: a tile each (`render_tile`, the one function that draws a
tile) with its name, table, round count, a small bead plate and big road, and the
counts; a table with no result for N minutes (settable) is marked stale; an ended shoe
leaves the wall. "Open" continues it on the scoreboard (``?shoe=<id>``).

The wall follows the store through the process's one watcher, one request per page:
each tile is a fragment following its own shoe (`follow.follow_tile`), so one table's
result redraws that tile alone, and a tile wakes itself when its table is due to turn
stale; the grid (the page itself, `follow.follow_wall`) reruns only when the set of live
shoes changes (a shoe starts, ends or is deleted), when a table the good-road filter
hides moves on (it may pass now), or when the page's settings change. Tiles keep their
places between those reruns (a wall whose tiles jumped at every result could not be
read). A tile's figures are laid out once per shoe version (cached) and drawn in
place (`plot_host`).
"""

from __future__ import annotations

import html
import json
import time
from pathlib import Path
from typing import Any

import plotly.io as pio
import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.render import board
from roads_app.render.flags import flag_value
from roads_app.roads import good_roads as gr
from roads_app.roads.grids import all_roads
from roads_app.store import library
from roads_app.ui import follow, plot_host, session
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
from roads_app.ui.words import flag_note, md_text, say, tr

COLUMNS = 4
STALE_KEY = "lobby_stale_min"
STALE_DEFAULT_MIN = 5
"""A table with no change for this many minutes is marked stale (settable on the page)."""
BEAD_COLS = 12
BIG_COLS = 20


DERIVED_TILE_PX = 480
"""A tile this wide or wider (a wide screen, or fewer columns) shows the derived roads too;
a phone's tile (the page under `PHONE_PX`) keeps the bead plate and big road."""
PHONE_PX = 640
COLUMNS_KEY = "lobby_columns"
PAGE_PADDING_PX = 96  # the page's own margins, beside the tiles


@st.cache_data(max_entries=256, show_spinner=False)
def _tile(
    shoe_id: str, folder: str, version: int, lg: str, derived: bool = False
) -> dict[str, Any] | str:
    """A shoe's tile contents at ``version``: read and laid out once per version (with
    the three derived roads where ``derived``)."""
    loaded = library.safe_load(shoe_id, Path(folder))
    if isinstance(loaded, str):
        return loaded
    rounds, meta = loaded
    bead = board.bead_plate_figure(rounds, cols_visible=BEAD_COLS, cell_px=board.MINI_CELL_PX,
                                   lang=lg)  # fmt: skip
    big = board.big_road_figure(rounds, cols_visible=BIG_COLS, mini=True)
    more = {}
    if derived:
        roads = all_roads(rounds)
        more = {k: json.loads(pio.to_json(board.derived_road_figure(
            roads, k, cols_visible=BIG_COLS, cell_px=board.MINI_CELL_PX * 0.8),
            validate=False)) for k in board.DERIVED}  # fmt: skip
    return {
        "meta": meta,
        "winners": rounds["winner"].cast(pl.String).to_list(),  # its good roads, below
        "counts": library.counts(rounds),
        "bead": json.loads(pio.to_json(bead, validate=False)),
        "big": json.loads(pio.to_json(big, validate=False)),
        "derived": more,
    }


def counts_line(c: dict[str, Any]) -> str:
    """``B 12 · P 9 · T 2 · pairs P 1 / B 3``: the counts under a lobby board (pairs
    with the rounds that recorded them, as on every page)."""
    b, p, t = (tr(f"{w}_letter") for w in "BPT")
    flags = c["flags"]
    pairs = tr("pairs_short", p=flag_value(flags["player_pair"]),
               b=flag_value(flags["banker_pair"]))  # fmt: skip
    note = flag_note(flags, "pair")
    if not (flags["player_pair"].known or flags["banker_pair"].known):
        pairs, note = tr("what_pair"), tr("flags_none")
    return (
        f":red[**{b} {c['B']}**] · :blue[**{p} {c['P']}**] · :green[**{t} {c['T']}**] · "
        + (f"{pairs} {note}" if note else pairs)
    )


def is_stale(modified: float, now: float, minutes: float) -> bool:
    """Whether a table's last change is older than ``minutes``.

    >>> is_stale(0.0, 301.0, 5), is_stale(0.0, 299.0, 5)
    (True, False)
    """
    return now - modified > minutes * 60


def render_tile(
    row: dict, folder: Path, stale_min: float, now: float, derived: bool = False
) -> None:
    """One live table: name, table, round count, bead plate and big road, counts, and
    a stale mark. The only function that draws a tile (so a tag is added in one place)."""
    sid = row["id"]
    with st.container(border=True, key=f"lobby-{sid}"):
        tile = _tile(sid, str(folder), int(row["version"]), lang(), derived)
        meta: ShoeMeta | None = tile["meta"] if isinstance(tile, dict) else None
        name = (meta.name if meta else row["name"]) or tr("shoe_default_name", id=sid)
        st.markdown(f"**{md_text(name)}** · {md_text(row['rules'])}")  # names are text
        runs = st.session_state.setdefault(RUNS_KEY, {})
        runs[sid] = runs.get(sid, 0) + 1  # how often this tile was drawn (one result: once)
        st.html(f"<span data-testid='tile-rounds' data-run='{runs[sid]}'>"
                f"{html.escape(tr('rounds_n', n=row['rounds']))}</span>")  # fmt: skip
        if isinstance(tile, dict):  # keyed apart from "lobby-<id>", the tile's own key
            render_tags(gr.tags_of_winners(tile["winners"]), lang(), key=f"gr-tile-{sid}")
        if is_stale(row["modified"], now, stale_min):
            st.caption(f":orange[{tr('stale_badge', m=f'{stale_min:g}')}]")
        if not isinstance(tile, dict):
            st.caption(say(tile))
            return
        # plain SVG, not Plotly: a wall redraws several tiles a second (`plot_host.plot`)
        plot_host.plot(tile["bead"], key=f"lobby_bead_{sid}", svg=True)
        plot_host.plot(tile["big"], key=f"lobby_big_{sid}", svg=True)
        for kind, fig in tile["derived"].items():  # a big tile's big eye boy, small road, pig
            plot_host.plot(fig, key=f"lobby_{kind}_{sid}", svg=True)
        st.markdown(counts_line(tile["counts"]))
        if st.button(tr("open"), key=f"lobby_open_{sid}", icon=":material/open_in_new:"):
            switch_to("scoreboard", {"shoe": sid})


RUNS_KEY = "lobby_runs"  # shoe id (or "grid") -> how many times this page drew it


@st.fragment
def _live_tile(sid: str, folder: Path, stale_min: float, derived: bool) -> None:
    """One tile as a fragment of its own, following its shoe: a result reruns this tile
    alone. What it shows is read now (the watcher's row, the shoe at that version), not
    what the grid was given when it last ran."""
    now_shoe = follow.shoe_now(folder, sid)
    if now_shoe is None or not library.on_the_wall(sid, now_shoe.source, now_shoe.ended):
        return  # gone from the wall: the grid follows the set of live shoes and reruns
    now = time.time()
    due = now_shoe.modified + stale_min * 60 - now
    follow.follow_tile(sid, now_shoe.version, key=f"follow_tile_{sid}",
                       wake_s=due + 0.5 if due > 0 else None)  # fmt: skip
    tile = _tile(sid, str(folder), now_shoe.version, lang())
    rules = ""
    if isinstance(tile, dict):
        rules = tile["meta"].rules
        alert(sid, now_shoe.version, tile["meta"].name or sid, entered_of(tile["winners"]),
              lang())  # fmt: skip
        if not shown(gr.tags_of_winners(tile["winners"]), st.session_state.get(FILTER_KEY) or []):
            st.rerun(scope="app")  # it left the filter: the grid without it
    row = {"id": sid, "name": "", "rules": rules, "rounds": now_shoe.rounds,
           "version": now_shoe.version, "modified": now_shoe.modified}  # fmt: skip
    render_tile(row, folder, stale_min, now, derived)


def tiles_show_derived(screen_w: int | None, columns: int) -> bool:
    """Whether the wall's tiles are big enough for the derived roads: a window of
    ``screen_w`` px (None: not reported yet) split in ``columns``; never on a phone.

    >>> tiles_show_derived(1920, 3), tiles_show_derived(1920, 4), tiles_show_derived(390, 1)
    (True, False, False)
    """
    if screen_w is None or screen_w < PHONE_PX:
        return False
    return (screen_w - PAGE_PADDING_PX) / max(1, columns) >= DERIVED_TILE_PX


def _good_road_pass(shoes: pl.DataFrame, folder: Path) -> tuple[pl.DataFrame, dict[str, int]]:
    """Alert on every table that entered a good road since this page last saw it, and
    keep the tables the good-road filter asks for (all when it asks for none); the
    versions of those it hides (the grid follows them: one may pass the filter next)."""
    picked = st.session_state.get(FILTER_KEY) or []
    keep = []
    hidden: dict[str, int] = {}
    lg = lang()
    for row in shoes.iter_rows(named=True):
        tile = _tile(row["id"], str(folder), int(row["version"]), lg)
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
    settings change; each tile follows its own shoe (`_live_tile`)."""
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
    picked, hidden = _good_road_pass(shoes, folder)
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
    columns = int(st.session_state.get(COLUMNS_KEY) or COLUMNS)
    screen = follow.screen_size("follow_wall")
    derived = tiles_show_derived(screen["w"] if screen else None, columns)
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
