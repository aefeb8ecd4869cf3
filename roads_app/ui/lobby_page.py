"""The lobby: a wall of every live table, as a floor manager or a multi-table player
follows them.

Every shoe being played (by hand or fed through the HTTP API) and not ended, most
recently changed first: a tile each (`render_tile`, the one function that draws a
tile) with its name, table, round count, a small bead plate and big road, and the
counts; a table with no result for N minutes (settable) is marked stale; an ended shoe
leaves the wall. "Open" continues it on the scoreboard (``?shoe=<id>``).

The wall follows the store through the process's one watcher (`follow.follow_wall`): it
is rerun when any shoe changed, whoever wrote it, and when a table is due to turn
stale, never on a timer. A tile's figures are laid out once per shoe version (cached)
and drawn in place (`plot_host`), so a rerun redraws only the tiles that changed.
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


@st.cache_data(max_entries=256, show_spinner=False)
def _tile(shoe_id: str, folder: str, version: int, lg: str) -> dict[str, Any] | str:
    """A shoe's tile contents at ``version``: read and laid out once per version."""
    loaded = library.safe_load(shoe_id, Path(folder))
    if isinstance(loaded, str):
        return loaded
    rounds, meta = loaded
    bead = board.bead_plate_figure(rounds, cols_visible=BEAD_COLS, cell_px=board.MINI_CELL_PX,
                                   lang=lg)  # fmt: skip
    big = board.big_road_figure(rounds, cols_visible=BIG_COLS, mini=True)
    return {
        "meta": meta,
        "winners": rounds["winner"].cast(pl.String).to_list(),  # its good roads, below
        "counts": library.counts(rounds),
        "bead": json.loads(pio.to_json(bead, validate=False)),
        "big": json.loads(pio.to_json(big, validate=False)),
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


def render_tile(row: dict, folder: Path, stale_min: float, now: float) -> None:
    """One live table: name, table, round count, bead plate and big road, counts, and
    a stale mark. The only function that draws a tile (so a tag is added in one place)."""
    sid = row["id"]
    with st.container(border=True, key=f"lobby-{sid}"):
        tile = _tile(sid, str(folder), int(row["version"]), lang())
        meta: ShoeMeta | None = tile["meta"] if isinstance(tile, dict) else None
        name = (meta.name if meta else row["name"]) or tr("shoe_default_name", id=sid)
        st.markdown(f"**{md_text(name)}** · {md_text(row['rules'])}")  # names are text
        st.html(f"<span data-testid='tile-rounds'>{html.escape(tr('rounds_n', n=row['rounds']))}"
                "</span>")  # fmt: skip
        if isinstance(tile, dict):  # keyed apart from "lobby-<id>", the tile's own key
            render_tags(gr.tags_of_winners(tile["winners"]), lang(), key=f"gr-tile-{sid}")
        if is_stale(row["modified"], now, stale_min):
            st.caption(f":orange[{tr('stale_badge', m=f'{stale_min:g}')}]")
        if not isinstance(tile, dict):
            st.caption(say(tile))
            return
        plot_host.plot(tile["bead"], key=f"lobby_bead_{sid}", config=board.PLOT_CONFIG)
        plot_host.plot(tile["big"], key=f"lobby_big_{sid}", config=board.PLOT_CONFIG)
        st.markdown(counts_line(tile["counts"]))
        if st.button(tr("open"), key=f"lobby_open_{sid}", icon=":material/open_in_new:"):
            switch_to("scoreboard", {"shoe": sid})


def _next_stale_s(shoes: pl.DataFrame, now: float, minutes: float) -> float | None:
    """Seconds until the next live table turns stale (the wall wakes then), if any."""
    due = [m + minutes * 60 - now for m in shoes["modified"].to_list() if m + minutes * 60 > now]
    return min(due) + 0.5 if due else None


def _good_road_pass(shoes: pl.DataFrame, folder: Path) -> pl.DataFrame:
    """Alert on every table that entered a good road since this page last saw it, and
    keep the tables the good-road filter asks for (all when it asks for none)."""
    picked = st.session_state.get(FILTER_KEY) or []
    keep = []
    lg = lang()
    for row in shoes.iter_rows(named=True):
        tile = _tile(row["id"], str(folder), int(row["version"]), lg)
        winners = tile["winners"] if isinstance(tile, dict) else []
        name = (tile["meta"].name if isinstance(tile, dict) else row["name"]) or row["id"]
        alert(row["id"], int(row["version"]), name, entered_of(winners), lg)
        keep.append(shown(gr.tags_of_winners(winners), picked))
    return shoes.filter(pl.Series(keep, dtype=pl.Boolean))


def render_grid() -> None:
    folder = session.data_dir()
    seq = follow.wall_seq(folder)  # read before the shoes: a change after it wakes us again
    stale_min = float(st.session_state.get(STALE_KEY) or STALE_DEFAULT_MIN)
    try:
        shoes = library.lobby_shoes(folder)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        follow.follow_wall(seq)
        return
    now = time.time()
    follow.follow_wall(seq, wake_s=_next_stale_s(shoes, now, stale_min))
    if not shoes.height:
        st.info(tr("lobby_empty"))
        return
    st.caption(tr("live_tables", n=shoes.height))
    shoes = _good_road_pass(shoes, folder)
    if not shoes.height:
        st.info(tr("gr_filter_none"))
        return
    rows = shoes.iter_rows(named=True)
    for _ in range(0, shoes.height, COLUMNS):
        cols = st.columns(COLUMNS, gap="small")
        for col in cols:
            row = next(rows, None)
            if row is None:
                break
            with col:
                render_tile(row, folder, stale_min, now)


def render_lobby_page() -> None:
    """``/lobby``: every live table."""
    st.title(tr("page_lobby"))
    st.number_input(tr("stale_after"), min_value=1, max_value=24 * 60,
                    value=STALE_DEFAULT_MIN, step=1, key=STALE_KEY)  # fmt: skip
    render_filter(lang())
    st.fragment(guarded(render_grid))()
