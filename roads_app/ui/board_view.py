"""The board as the scoreboard and the display screen both show it.

The roads figure is laid out for the width the page reports (`board_host`), so marks
are sized from their cells at every width. Under it: the count strip (B, P, T, pairs,
hands) and the ask road as casino boards print it, "Banker ask" / "Player ask" with
the big eye boy, small road and cockroach pig marks a result would add. The words
come from the catalogue (`roads_app.i18n`) in the language picked in the sidebar.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, replace

import polars as pl
import streamlit as st

from roads_app.game.hand import Side, Winner
from roads_app.i18n import DEFAULT, LANGUAGES, word
from roads_app.render import board
from roads_app.render.flags import flag_note, flag_value
from roads_app.roads.grids import ask_road
from roads_app.roads.stats import flag_counts, shoe_stats
from roads_app.ui import board_host, page_head, plot_host

LANG_KEY = "lang"

STRIP_CSS = f"<style>{page_head.static_text('board.css')}</style>"
"""The count strip's style (``static/board.css``), sent with the strip."""


def lang() -> str:
    """The language picked in the sidebar, or ``?lang=`` on a display link."""
    picked = st.session_state.get(LANG_KEY) or st.query_params.get(LANG_KEY)
    return picked if picked in LANGUAGES else DEFAULT


def language_switch() -> None:
    """English / 中文 in the sidebar, for every page."""
    if st.session_state.get(LANG_KEY) not in LANGUAGES:
        st.session_state[LANG_KEY] = lang()
    st.sidebar.segmented_control(
        " · ".join(word("language_switch", code) for code in LANGUAGES),
        LANGUAGES,
        key=LANG_KEY,
        required=True,
        format_func=lambda code: word("language", code),
    )


def _dot(side: str, lg: str) -> str:
    colour = board.WINNER_COLOUR[side]
    return (
        f"<span class='rd-dot' style='background:{colour}'>"
        f"{html.escape(word(f'{side}_letter', lg))}</span>"
    )


def count_strip_html(rounds: pl.DataFrame, lg: str) -> str:
    """B, P, T, banker pair, player pair and hands, then the two ask marks."""
    s = shoe_stats(rounds)
    flags = flag_counts(rounds)
    note = flag_note(flags, "pair", lg)
    parts = [
        *(
            f"<span data-count='{w}'>{_dot(w, lg)}{word(w, lg)} <b>{s[w.word]}</b></span>"
            for w in Winner
        ),
        f"<span data-count='banker_pair'>{word('banker_pair', lg)} "
        f"<b>{flag_value(flags['banker_pair'])}</b></span>",
        f"<span data-count='player_pair'>{word('player_pair', lg)} "
        f"<b>{flag_value(flags['player_pair'])}</b></span>",
        # always in its place, empty when every round recorded its pairs: the strip
        # keeps its lines as the note comes and goes (the buttons under it stay put)
        f"<span class='rd-note'><small data-count='pairs_of'>{html.escape(note)}</small></span>",
        f"<span data-count='hands'>{word('hands', lg)} <b>{s['rounds']}</b></span>",
    ]
    for side in Side:
        marks = ask_road(rounds, side)
        glyphs = "".join(
            f"<i style='color:{board.MARK_COLOUR[marks[k]]}'>{board.MARK_GLYPH[k]}</i>"
            if marks.get(k) in board.MARK_COLOUR
            else "<i>–</i>"
            for k in board.DERIVED
        )
        label = word(f"{side.word}_ask", lg)
        colour = board.WINNER_COLOUR[side]
        parts.append(
            f"<span class='rd-ask' data-ask='{side}'><b style='color:{colour}'>{label}</b>"
            f"{glyphs}</span>"
        )
    return f"{STRIP_CSS}<div class='rd-strip' data-testid='count-strip'>{''.join(parts)}</div>"


HOLD_CSS = f"<style>{page_head.static_text('hold.css')}</style>"
"""A held pair's style (``static/hold.css``), its placeholders filled by `held_css`."""


def held_css(before: str, after: str, round_no: int) -> str:
    """CSS showing element class ``before`` until round ``round_no``'s reveal has ended
    (the page says so: ``html[data-rd-shown]``, set by `board_host.show_held_after`),
    then ``after`` instead, both in the same frame as the board's held marks."""
    return (
        HOLD_CSS.replace(".rd-hold-a-N", f".{before}")
        .replace(".rd-hold-b-N", f".{after}")
        .replace('"N"', f'"{round_no}"')
    )


def held_pair(name: str, round_no: int, before: str, after: str) -> str:
    """HTML showing ``before`` until round ``round_no``'s reveal
    has ended, then ``after``: both copies and the rule choosing between them in one
    element, so no frame can show a copy whose rule has not arrived yet. The copies'
    classes are ``<name>-a-<round>`` and ``<name>-b-<round>``."""
    a, b = f"{name}-a-{round_no}", f"{name}-b-{round_no}"
    return (
        f"{held_css(a, b, round_no)}\n\n<div class='{a}'>\n\n{before}\n\n</div>\n\n"
        f"<div class='{b}'>\n\n{after}\n\n</div>"
    )


def held_strip_html(rounds: pl.DataFrame, lg: str) -> str:
    """The count strip as it stood before the last round, swapped for the strip with it
    when the hand's reveal ends (`held_pair`): the counts do not tell the result early."""
    n = rounds.height
    before = count_strip_html(rounds.head(max(n - 1, 0)), lg).replace(
        "data-testid='count-strip'", "data-testid='count-strip-before'"
    )
    return held_pair("rd-hold", n, before, count_strip_html(rounds, lg))


@dataclass(frozen=True)
class Drawn:
    """How `render_board` laid the board out (``look``, at the page's ``width``, None
    while unknown), so the boards one key away (`render_next`) are laid out alike, and
    which spec (``sig``) they follow from."""

    key: str
    sig: str
    width: int | None
    look: board.BoardLook


def render_board(
    rounds: pl.DataFrame,
    look: board.BoardLook = board.DEFAULT_LOOK,
    *,
    key: str = "board",
    hold_last_s: float | None = None,
    follows: tuple[str, int] | None = None,
    column_width: Callable[[int], int] | None = board_host.streamlit_width,
    strip: bool = True,
) -> Drawn:
    """The roads figure at the page's width, then the count strip and ask marks.

    ``look``: how the board looks (`board.BoardLook`: the ask road, the cell cap, the
    table's decks and six, the screen height it fills, the last mark's frame, the
    theme); its width, language and hold are the page's, set here. ``hold_last_s``: the
    last round's marks, the tie counts it changes and its counts in the strip appear
    only after that many seconds (the hand reveal's length), not while its cards are
    still face down. ``follows``: the key presses this board includes
    (`plot_host.plot`), on the scoreboard. ``column_width``: the board's width in a
    window so wide, as the page lays it out, for the first drawing before the page has
    reported the real one (None: wait for the report). ``strip``: the count strip under
    the board (the display has it in its header).
    """
    width, note = board_host.reported_width(), "reported width"
    viewport = board_host.viewport_width() if width is None and column_width else None
    if viewport is not None and column_width is not None:
        width, note = column_width(viewport), "window width"
    look = replace(
        look,
        width_px=(width or board.DEFAULT_WIDTH_PX) - 4,
        lang=lang(),
        hold_last=hold_last_s is not None,
    )
    spec = board.board_spec(rounds, look)
    if hold_last_s is not None:
        board_host.show_held_after(hold_last_s, rounds.height)
    # Drawn in place (`plot_host`, as SVG): one drawing per key press, no element replaced.
    # While the board's width is not known (no report, no window width to guess from),
    # the browser draws nothing (it would draw again at once at the real width) and
    # only keeps the board's height.
    sig = plot_host.plot(
        spec,
        key=key,
        config=board.PLOT_CONFIG,
        draw=width is not None,
        placeholder_height=spec["layout"]["height"],
        follows=follows,
        note=note,
        svg=True,
    )
    if hold_last_s is not None:
        st.html(held_strip_html(rounds, look.lang))
    elif strip:
        st.html(count_strip_html(rounds, look.lang))
    return Drawn(key, sig, width, look)


def render_next(drawn: Drawn, successors: dict[str, pl.DataFrame]) -> None:
    """Send the board each key press would give (``{"b": rounds after B, ...}``), laid
    out as ``drawn`` was, for the page to draw the moment the key is pressed. Keys that
    change nothing are left out (the page keeps its board); nothing is sent while the
    board's width is not known (the board is not drawn yet either)."""
    if drawn.width is None:
        return
    look = replace(drawn.look, hold_last=False)  # a key press shows its result at once
    specs = {k: board.board_spec(r, look) for k, r in successors.items()}
    plot_host.plot_next(specs, key=drawn.key, base=drawn.sig, config=board.PLOT_CONFIG)


def round_count(text: str) -> None:
    """The round counter (``data-testid="round-count"``, which tests read) in an HTML
    element of its own, beside the name: our own words only, escaped, never a name
    (names are shown through `words.md_text`, without HTML). Through ``st.html``, not
    Markdown with HTML allowed: that one element made a new browser fetch and run
    Markdown's HTML parser (rehype-raw, 184 kB) before the first board."""
    st.html(f"<span data-testid='round-count'>{html.escape(text)}</span>", width="content")
