"""Dealing a new shoe from a seed and opening a shoe in replay: widgets the replay page
and the library page both show (a page never imports another page).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from roads_app.bets.tables import fallback_table, list_tables, load_table
from roads_app.errors import RoadsAppError
from roads_app.store import library
from roads_app.ui import access
from roads_app.ui.nav import switch_to
from roads_app.ui.words import say, tr

SHOE = "replay.shoe"
"""The replay page's key of the shoe its position belongs to (dropped to open another)."""


def render_simulate(folder: Path, key: str) -> None:
    """Deal a new shoe from a seed with a table's shoe rules, save it, open it in replay."""
    st.markdown(f"**{tr('simulate_shoe')}**")
    tables = list_tables()
    with st.form(f"{key}_form", border=False):
        c1, c2 = st.columns(2)
        seed = c1.number_input(tr("seed"), min_value=0, value=1, step=1, key=f"{key}_seed")
        first = tables.index(fallback_table(tables))
        table = c2.selectbox(tr("table"), tables, key=f"{key}_table", index=first)
        submitted = st.form_submit_button(tr("deal_and_replay"), icon=":material/playing_cards:")
    if submitted:
        _simulate(int(seed), table, folder)


@access.writes
def _simulate(seed: int, table: str, folder: Path) -> None:
    """Deal the shoe, save it, and open it in replay."""
    from roads_app.sim.bulk import deal_one  # the compiled dealer (same shoe as deal_shoe)

    try:
        meta = library.simulate(seed, folder, load_table(table), deal=deal_one)
    except RoadsAppError as e:
        st.error(say(e), icon=":material/error:")
        return
    open_replay(meta.id, 0)


def open_replay(shoe_id: str, position: int) -> None:
    """Show a shoe in replay at a position (this page, or from another one)."""
    st.session_state.pop(SHOE, None)
    switch_to("replay", {"shoe": shoe_id, "round": str(position)})
