"""The shoe's statistics as a widget: counts and shares of Banker, Player and Tie, pairs,
naturals, the streak and the longest ones; the scoreboard and the replay show it.

The counts are `roads_app.roads.stats`'s; this only lays them out.
"""

from __future__ import annotations

import polars as pl
import streamlit as st

from roads_app.game.hand import Winner
from roads_app.roads.stats import flag_counts, shoe_stats
from roads_app.ui.words import flags_line, tr, winner_word


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1f}%"


def render_stats(rounds: pl.DataFrame) -> None:
    """Counts and percentages of B/P/T, pairs, naturals, the streak and the longest ones."""
    st.markdown(stats_markdown(rounds))


def stats_markdown(rounds: pl.DataFrame) -> str:
    """The statistics as one Markdown text (the replay's held reveal shows two of them)."""
    s = shoe_stats(rounds)
    flags = flag_counts(rounds)
    n = {w: s[w.word] for w in Winner}
    streak = f"{winner_word(s['streak_side'])} × {s['streak']}" if s["streak_side"] else "–"
    return (
        f"**{tr('statistics')}** · {tr('rounds_n', n=s['rounds'])}\n\n"
        f"| | {tr('count')} | {tr('share')} |\n|:--|--:|--:|\n"
        f"| :red[{winner_word(Winner.BANKER)}] | {n[Winner.BANKER]} | {_pct(s['banker_pct'])} |\n"
        f"| :blue[{winner_word(Winner.PLAYER)}] | {n[Winner.PLAYER]} | {_pct(s['player_pct'])} |\n"
        f"| :green[{winner_word(Winner.TIE)}] | {n[Winner.TIE]} | {_pct(s['tie_pct'])} |\n\n"
        f"{flags_line(flags, 'pair')}  \n"
        f"{flags_line(flags, 'natural')}  \n"
        f"{tr('streak_line', s=streak)}  \n"
        f"{tr('longest_line', b=s['longest_banker'], p=s['longest_player'])}"
    )
