"""A floor table's day as a widget, what a pit manager watches beside the entry: shoes
dealt, hands, hands per hour, the day's Banker/Player/Tie and pairs, each shoe's counts
and a link to its replay.

The numbers are `roads_app.store.floor.Floor.day`'s (the same that ``roads-app tables
history`` prints); this only lays them out. A shoe of no table shows nothing.
"""

from __future__ import annotations

import urllib.parse

import streamlit as st

from roads_app.game.hand import Winner
from roads_app.store.floor import ShoeOfDay, TableDay
from roads_app.ui import session
from roads_app.ui.words import md_text, tr


def _counts(row: ShoeOfDay | TableDay) -> list[str]:
    """B/P/T and the two pairs, as the table's cells."""
    return [
        *(str(getattr(row, w.word)) for w in Winner),
        str(row.banker_pairs),
        str(row.player_pairs),
    ]


def day_markdown(day: TableDay, current: str | None = None) -> str:
    """The day as one Markdown text: a line of totals, then a row a shoe (``current``:
    the shoe being entered, marked). Every value is ours (numbers, the store's ids);
    the code is escaped as text all the same."""
    per_hour = "–" if day.hands_per_hour is None else f"{day.hands_per_hour:,.0f}"
    head = [  # short, so the table fits the column beside the entry
        tr("table_shoe_col"),
        tr("table_hands"),
        *(tr(f"{w}_letter") for w in Winner),
        tr("table_banker_pairs"),
        tr("table_player_pairs"),
        "",
    ]
    lines = [
        f"**{tr('table_day_title', code=md_text(day.code), day=day.day)}**",
        "",
        f"{len(day.shoes)} {tr('table_shoes_dealt')} · {day.hands} {tr('table_hands')} · "
        f"{per_hour} {tr('table_hands_per_hour')}",
        "",
        "| " + " | ".join(head) + " |",
        "|:--|" + "--:|" * (len(head) - 2) + ":--|",
    ]
    for s in day.shoes:
        name = str(s.number)
        if s.id == current:
            name = f"**{name}**"
        link = f"replay?shoe={urllib.parse.quote(s.id, safe='')}"
        cells = [name, str(s.hands), *_counts(s), f"[{tr('table_replay_link')}]({link})"]
        lines.append("| " + " | ".join(cells) + " |")
    total = [f"**{tr('table_day_total')}**", str(day.hands), *_counts(day), ""]
    lines.append("| " + " | ".join(total) + " |")
    return "\n".join(lines)


def render_table_day(shoe_id: str) -> None:
    """The day of the floor table ``shoe_id`` was dealt at, on that shoe's day; nothing
    for a shoe of no table."""
    floor = session.store().floor
    place = floor.place_of(shoe_id)
    if place is None:
        return
    with st.container(key="table_day"):
        st.markdown(day_markdown(floor.day(place.table, place.day), shoe_id))
