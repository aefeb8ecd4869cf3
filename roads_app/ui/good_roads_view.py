"""Good-road tags (好路) on every page that shows a table, through one function.

The scoreboard's header, the display's header, the replay and each lobby tile call
`render_tags` with the keys that hold (`roads_app.roads.good_roads`), so the words and
the look are decided once. Pattern names come from the catalogue in force, which may be
the player's own file: they are shown as plain text (``st.text``), never as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl
import streamlit as st

from roads_app.errors import RulesError
from roads_app.render.i18n import word
from roads_app.roads import good_roads as gr
from roads_app.roads.good_roads import Catalogue
from roads_app.ui.words import say


def tags(keys: Sequence[str], lang: str, catalogue: Catalogue | None = None) -> list[str]:
    """The names of the patterns ``keys`` in ``lang``, in the order given (priority: the
    headline first); a key the catalogue no longer has is shown as itself."""
    cat = catalogue or gr.in_force()
    names = {p.key: p.name(lang) for p in cat.patterns}
    return [names.get(k, k) for k in keys]


def tag_line(keys: Sequence[str], lang: str, catalogue: Catalogue | None = None) -> str:
    """``Good roads: Single jump · Banker jumps`` (好路：单跳 · 逢庄跳), or the words for
    none."""
    if not keys:
        return word("good_roads_none", lang)
    return word("good_roads_line", lang, tags=" · ".join(tags(keys, lang, catalogue)))


def keys_now(rounds: pl.DataFrame, upto: int | None = None) -> list[str]:
    """What holds after round ``upto`` (all rounds: None) of one shoe, by the catalogue
    in force."""
    winners = rounds["winner"].cast(pl.String).to_list()
    return gr.tags_of_winners(winners if upto is None else winners[:upto])


def render_tags(keys: Sequence[str], lang: str, key: str = "good_roads") -> None:
    """The tag line in a container keyed ``key`` (the page's tests find it by it)."""
    with st.container(key=key):
        st.text(tag_line(keys, lang))


def render_in_force(lang: str) -> None:
    """Which catalogue the tags follow (every page says it, in the sidebar)."""
    try:
        where = gr.in_force().where
    except RulesError as e:
        st.sidebar.error(say(e))  # a catalogue file's message quotes it: text
        return
    st.sidebar.text(word("good_roads_in_force", lang, where=where))
