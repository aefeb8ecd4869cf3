"""The lobby: the shoes in progress side by side, as a multi-table player follows them.

Up to eight shoes entered by hand, most recently changed first, each with its big road
in miniature and its counts; "Open" continues it on the scoreboard (``?shoe=<id>``).
The grid is a fragment that refreshes itself every few seconds while "Follow live" is
on, so results entered in other tabs show up; a shoe is re-read only when it changed
(cache keyed by its last change time in the store).
"""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import polars as pl
import streamlit as st

from roads_app.errors import RoadsAppError
from roads_app.game.rounds import ShoeMeta
from roads_app.render import board
from roads_app.store import library
from roads_app.ui import session
from roads_app.ui.guard import guarded
from roads_app.ui.words import md_text, say, tr

COLUMNS = 4
FOLLOW = "lobby_follow"
REFRESH_S = 5.0


@st.cache_data(max_entries=64, show_spinner=False)
def _load(shoe_id: str, folder: str, modified: float) -> tuple[pl.DataFrame, ShoeMeta] | str:
    """One shoe, re-read only when it changed (``modified`` is part of the key)."""
    return library.safe_load(shoe_id, Path(folder))


@st.cache_data(max_entries=64, show_spinner=False)
def _mini(shoe_id: str, folder: str, modified: float) -> go.Figure | None:
    loaded = _load(shoe_id, folder, modified)
    if isinstance(loaded, str):
        return None
    return board.big_road_figure(loaded[0], mini=True)


def counts_line(c: dict[str, int]) -> str:
    """``B 12 · P 9 · T 2 · pairs P 1 / B 3``: the counts under a lobby board."""
    b, p, t = (tr(f"{w}_letter") for w in "BPT")
    return (
        f":red[**{b} {c['B']}**] · :blue[**{p} {c['P']}**] · :green[**{t} {c['T']}**] · "
        + tr("pairs_short", p=c["player_pair"], b=c["banker_pair"])
    )


def render_tile(row: dict, folder: Path) -> None:
    sid = row["id"]
    with st.container(border=True, key=f"lobby-{sid}"):
        loaded = _load(sid, str(folder), row["modified"])
        st.markdown(f"**{md_text(row['name'])}** · {md_text(row['rules'])}")
        if isinstance(loaded, str):
            st.caption(say(loaded))
            return
        rounds, _meta = loaded
        fig = _mini(sid, str(folder), row["modified"])
        if fig is not None:
            st.plotly_chart(fig, theme=None, config=board.PLOT_CONFIG, width="content",
                            key=f"lobby_fig_{sid}")  # fmt: skip
        st.markdown(counts_line(library.counts(rounds)) + " · " + tr("rounds_n", n=rounds.height))
        if st.button(tr("open"), key=f"lobby_open_{sid}", icon=":material/open_in_new:"):
            from roads_app.ui.library_page import switch_to

            switch_to("scoreboard", {"shoe": sid})


def render_grid() -> None:
    folder = session.data_dir()
    try:
        shoes = library.lobby_shoes(folder)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        return
    if not shoes.height:
        st.info(tr("lobby_empty"))
        return
    st.caption(tr("in_progress", n=shoes.height))
    rows = shoes.iter_rows(named=True)
    for _ in range(0, shoes.height, COLUMNS):
        cols = st.columns(COLUMNS, gap="small")
        for col in cols:
            row = next(rows, None)
            if row is None:
                break
            with col:
                render_tile(row, folder)


def render_lobby_page() -> None:
    """``/lobby``: the tables in progress."""
    st.title(tr("page_lobby"))
    follow = st.toggle(tr("follow_live"), key=FOLLOW, value=True,
                       help=tr("follow_help", s=f"{REFRESH_S:g}"))  # fmt: skip
    st.fragment(guarded(render_grid), run_every=REFRESH_S if follow else None)()

