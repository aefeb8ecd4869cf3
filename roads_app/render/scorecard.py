"""The printable scorecard: the board with a header saying whose shoe, where, when, and
what it counted, so a PNG someone prints or shares stands on its own.

The board is `board.board_figure` unchanged; the header is the figure's top margin, made
taller, holding three lines: the shoe's name, its table, decks and date, then the counts
(B, P, T, hands, and pairs and naturals with the rounds that recorded them, the rule
every page follows: `render.flags.flags_line`). The name is user text: escaped, never markup.
"""

from __future__ import annotations

import html
import re

import plotly.graph_objects as go
import polars as pl

from roads_app.bets.tables import load_table
from roads_app.errors import RoadsAppError, StorageError
from roads_app.game.hand import Winner
from roads_app.game.rounds import ShoeMeta
from roads_app.i18n import DEFAULT, word
from roads_app.render.board import BoardLook, board_figure
from roads_app.render.flags import flags_line
from roads_app.render.fonts import TEXT_FONT, fonts_with_ours
from roads_app.roads.stats import flag_counts, shoe_stats

HEADER_PX = 104
"""Height of the header above the board, in figure pixels."""
NAME_MAX_SHOWN = 80


def counts_text(rounds: pl.DataFrame, lang: str = DEFAULT) -> str:
    """``Banker 10 · Player 16 · Tie 4 · Hands 30 · Pairs: … · Naturals: …`` (Plotly text)."""
    s = shoe_stats(rounds)
    flags = flag_counts(rounds)
    shown = (*((w, w.word) for w in Winner), ("hands", "rounds"))
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
    fig = board_figure(rounds, BoardLook(width_px=width_px, lang=lang))
    margin = fig.layout.margin
    top = (margin.t or 0) + HEADER_PX
    fig.update_layout(height=(fig.layout.height or 0) + HEADER_PX, margin={"t": top})
    plot_h = fig.layout.height - top - (margin.b or 0)
    lines: list[tuple[str, int]] = []
    if meta is not None:
        name = html.escape((meta.name or meta.id)[:NAME_MAX_SHOWN])
        when = meta.created[:16].replace("T", " ")
        where = " · ".join(
            [
                f"{word('table', lang)} {html.escape(table_title or meta.rules)}",
                f"{word('decks', lang)} {meta.decks}",
                html.escape(when),
            ]
        )
        lines += [(f"<b>{name}</b>", 24), (where, 15)]
    lines.append((counts_text(rounds, lang), 15))
    y_px = HEADER_PX - 8
    for text, size in lines:
        fig.add_annotation(
            text=text,
            xref="paper",
            yref="paper",
            x=0,
            xanchor="left",
            yanchor="top",
            y=1 + y_px / plot_h,
            showarrow=False,
            align="left",
            font={"size": size, "color": "#222", "family": TEXT_FONT},
        )
        y_px -= size + 14
    fig.update_layout(meta={**(fig.layout.meta or {}), "scorecard": True})
    return fig


PNG_WIDTH_PX = 1400
PNG_SCALE = 2
PNG_ATTEMPTS = 3
"""Kaleido 1.x sometimes calls into its page before the page's script has loaded when
the machine is busy ("kaleido_scopes is not defined"); the same drawing is tried again."""


def board_png(
    rounds: pl.DataFrame, meta: ShoeMeta | None = None, title: str = "", *, lang: str = DEFAULT
) -> bytes:
    """The scorecard as a PNG: the dashboard's own board figure under a header of the
    shoe's name, table, decks, date and counts (`render.scorecard`), rendered by kaleido,
    in ``lang`` (the page's language), its Chinese drawn with our own font whatever
    fonts the machine has (`render.fonts`).

    ``title`` names a shoe given without its ``meta``.
    """
    try:
        import plotly.io as pio
    except ImportError as e:  # pragma: no cover - depends on the install
        raise StorageError(f"PNG export needs {e.name}: pip install kaleido") from None
    if meta is None and title:
        meta = ShoeMeta(name=title[:80].strip())
    table_title = None
    if meta is not None:
        try:
            table_title = load_table(meta.rules).title
        except RoadsAppError:
            table_title = None  # its rules file is gone: the table's name is said instead
    fig = scorecard_figure(rounds, meta, table_title, width_px=PNG_WIDTH_PX, lang=lang)
    for attempt in range(PNG_ATTEMPTS):
        try:
            # The whole shoe laid out for a 1400 px page and drawn at twice that: a
            # print-worthy sheet, every road whole, the same figure the dashboard shows.
            with fonts_with_ours():
                return pio.to_image(fig, format="png", scale=PNG_SCALE)
        except Exception as e:  # kaleido or Chromium missing / failing
            first = (str(e).strip().splitlines() or [type(e).__name__])[0][:200]
            if attempt + 1 < PNG_ATTEMPTS and "is not defined" in first:
                continue  # kaleido ran its call before its page's script had loaded
            raise StorageError(f"cannot draw the board as PNG: {first}") from None
    raise AssertionError("unreachable")  # pragma: no cover
