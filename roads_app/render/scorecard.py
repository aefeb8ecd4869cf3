"""The printable scorecard: the board with a header saying whose shoe, where, when, and
what it counted, so a PNG someone prints or shares stands on its own.

The board is `board.board_figure` unchanged; the header is the figure's top margin, made
taller, holding three lines: the shoe's name, its table, decks and date, then the counts
(B, P, T, hands, and pairs and naturals with the rounds that recorded them, the rule
every page follows: `i18n.flags_line`). The name is user text: escaped, never markup.
"""

from __future__ import annotations

import html
import re

import plotly.graph_objects as go
import polars as pl

from roads_app.game.rounds import ShoeMeta
from roads_app.render.board import board_figure
from roads_app.render.i18n import DEFAULT, flags_line, word
from roads_app.roads.stats import flag_counts, shoe_stats

HEADER_PX = 104
"""Height of the header above the board, in figure pixels."""
NAME_MAX_SHOWN = 80


def counts_text(rounds: pl.DataFrame, lang: str = DEFAULT) -> str:
    """``Banker 10 · Player 16 · Tie 4 · Hands 30 · Pairs: … · Naturals: …`` (Plotly text)."""
    s = shoe_stats(rounds)
    flags = flag_counts(rounds)
    shown = (("B", "banker"), ("P", "player"), ("T", "tie"), ("hands", "rounds"))
    parts = [f"{word(w, lang)} <b>{s[k]}</b>" for w, k in shown]
    parts += [_bold(flags_line(flags, group, lang)) for group in ("pair", "natural")]
    return " · ".join(parts)


def _bold(markdown: str) -> str:
    """The catalogue's ``**n**`` as Plotly's ``<b>n</b>`` (catalogue text, not user text)."""
    return re.sub(r"\*\*(.+?)\*\*", r"<b>\1</b>", markdown)


def scorecard_figure(
    rounds: pl.DataFrame,
    meta: ShoeMeta | None = None,
    table_title: str | None = None,
    *,
    width_px: float = 1400,
    lang: str = DEFAULT,
) -> go.Figure:
    """The whole board laid out for ``width_px`` under a header: name, table, decks and
    date (when ``meta`` is given) and the counts."""
    fig = board_figure(rounds, width_px=width_px, lang=lang)
    margin = fig.layout.margin
    top = (margin.t or 0) + HEADER_PX
    fig.update_layout(height=(fig.layout.height or 0) + HEADER_PX, margin={"t": top})
    plot_h = fig.layout.height - top - (margin.b or 0)
    lines: list[tuple[str, int]] = []
    if meta is not None:
        name = html.escape((meta.name or meta.id)[:NAME_MAX_SHOWN])
        when = meta.created[:16].replace("T", " ")
        where = " · ".join(
            [f"{word('table', lang)} {html.escape(table_title or meta.rules)}",
             f"{word('decks', lang)} {meta.decks}", html.escape(when)]
        )  # fmt: skip
        lines += [(f"<b>{name}</b>", 24), (where, 15)]
    lines.append((counts_text(rounds, lang), 15))
    y_px = HEADER_PX - 8
    for text, size in lines:
        fig.add_annotation(
            text=text, xref="paper", yref="paper", x=0, xanchor="left", yanchor="top",
            y=1 + y_px / plot_h, showarrow=False, align="left",
            font={"size": size, "color": "#222"},
        )  # fmt: skip
        y_px -= size + 14
    fig.update_layout(meta={**(fig.layout.meta or {}), "scorecard": True})
    return fig
