"""Good-road tags (好路) on every page that shows a table, through one function.

The scoreboard's header, the display's header, the replay and each lobby tile call
`render_tags` with the keys that hold (`roads_app.roads.good_roads`), so the words and
the look are decided once. Pattern names come from the catalogue in force, which may be
the player's own file: they are shown as plain text (``st.text``), never as Markdown.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import streamlit as st

from roads_app.errors import RulesError
from roads_app.i18n import word
from roads_app.roads import good_roads as gr
from roads_app.roads.good_roads import Catalogue
from roads_app.ui.words import md_text, say


def tags(keys: Sequence[str], lang: str, catalogue: Catalogue | None = None) -> list[str]:
    """The names of the patterns ``keys`` in ``lang``, in the order given (priority: the
    headline first); a key the catalogue no longer has is shown as itself."""
    cat = catalogue or gr.in_force()
    names = {p.key: p.name(lang) for p in cat.patterns}
    return [names.get(k, k) for k in keys]


def short_tags(keys: Sequence[str], lang: str, catalogue: Catalogue | None = None) -> list[str]:
    """`tags` as a small badge names them (`Pattern.short`: ``Jump ×1`` for "Single
    jump"), for a floor screen's tile."""
    cat = catalogue or gr.in_force()
    names = {p.key: p.short(lang) for p in cat.patterns}
    return [names.get(k, k) for k in keys]


def tag_line(keys: Sequence[str], lang: str, catalogue: Catalogue | None = None) -> str:
    """``Good roads: Single jump · Banker jumps`` (好路：单跳 · 逢庄跳), or the words for
    none."""
    if not keys:
        return word("good_roads_none", lang)
    return word("good_roads_line", lang, tags=" · ".join(tags(keys, lang, catalogue)))


def render_tags(keys: Sequence[str], lang: str, key: str = "good_roads") -> None:
    """The tag line in a container keyed ``key`` (the page's tests find it by it)."""
    with st.container(key=key):
        st.text(tag_line(keys, lang))


def render_in_force(lang: str, at: Any = None) -> None:
    """Which catalogue the tags follow: every page says it, in the sidebar, or ``at`` (the
    display, which has no sidebar on its screen)."""
    at = st.sidebar if at is None else at
    try:
        where = gr.in_force().where
    except RulesError as e:
        at.error(say(e))  # a catalogue file's message quotes it: text
        return
    if where.startswith("rules/"):
        at.text(word("good_roads_in_force", lang))  # named in the page's words
    else:  # the player's file: named without the server's folders
        at.text(word("good_roads_in_force_yours", lang, where=f"{gr.CATALOGUE_DIR}/{gr.USER_FILE}"))


# --- the lobby: filter and alert ---------------------------------------------------------

FILTER_KEY = "lobby_good_roads_filter"
SOUND_KEY = "lobby_good_roads_sound"
_SEEN = "lobby_good_roads_seen"  # shoe id -> the version first seen / last alerted


def render_filter(lang: str) -> list[str]:
    """The lobby's filter (tables on these good roads; none picked: every table) and the
    alert's sound switch; returns the keys picked."""
    cat = gr.in_force()
    names = {p.key: p.name(lang) for p in cat.active}
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    picked = c1.multiselect(
        word("gr_filter", lang),
        list(names),
        key=FILTER_KEY,
        format_func=names.__getitem__,
        placeholder=word("gr_filter_all", lang),
    )
    c2.toggle(word("gr_sound", lang), key=SOUND_KEY)
    return [k for k in picked if k in names]


def shown(keys: Sequence[str], picked: Sequence[str]) -> bool:
    """Whether a table holding ``keys`` passes the filter ``picked`` (empty: all pass)."""
    return not picked or any(k in picked for k in keys)


def alert(shoe_id: str, version: int, name: str, new: Sequence[str], lang: str) -> None:
    """A toast (and the sound, when switched on) when a table entered a good road with a
    change seen on this page: a table is not announced for what it held when the page
    opened, and each version is announced once."""
    seen: dict[str, int] = st.session_state.setdefault(_SEEN, {})
    first = shoe_id not in seen
    if not first and version > seen[shoe_id] and new:
        said = md_text(" · ".join(tags(new, lang)))
        st.toast(
            word("gr_alert", lang, name=md_text(name), tags=said),
            icon=":material/notifications_active:",
        )
        if st.session_state.get(SOUND_KEY):
            st.audio(chime(), format="audio/wav", autoplay=True)
    seen[shoe_id] = max(version, seen.get(shoe_id, version))


def chime() -> bytes:
    """A short two-note chime as a WAV file (made here: no sound file to ship)."""
    import io
    import wave

    import numpy as np

    rate = 16_000
    t = np.arange(int(rate * 0.18)) / rate
    notes = [np.sin(2 * np.pi * f * t) * np.exp(-t * 12) for f in (880.0, 1320.0)]
    pcm = (np.concatenate(notes) * 0.4 * 32767).astype("<i2")
    out = io.BytesIO()
    with wave.open(out, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.tobytes())
    return out.getvalue()
