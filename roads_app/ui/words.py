"""The dashboard's words in the language picked in the sidebar (the catalogue is
`roads_app/i18n.toml`; `board_view.lang` knows the language).

One door for every label a player reads, so a page never hard-codes English. A bet's
name is the table's own label in English (a table may call Super Tie "Egalité") and
the catalogue's name of its kind in any other language.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

import streamlit as st

from roads_app import messages
from roads_app.i18n import DEFAULT, word
from roads_app.places import STATIC_DIR
from roads_app.render import flags
from roads_app.roads.stats import FlagCount
from roads_app.ui.board_view import lang
from roads_app.ui.folder import scrub


class Md(str):
    """Text that is ready for a Markdown-rendering call: our own catalogue's words, and
    user text that went through `md_text`. `md_text` leaves it as it is, so text is
    escaped once, wherever it passes."""

    __slots__ = ()


_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character
_LINE_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029]+")
_JOIN = "\u2060"  # WORD JOINER: invisible, zero width, no line break
# Streamlit's Markdown rewrites some text *after* escapes are read (as plain text nodes),
# so a backslash cannot stop them: GFM's bare links (http://, www., e-mail), emoji and
# :streamlit: shortcodes, and arrows (" -> " becomes "→"). An invisible word joiner in
# the middle of each breaks the pattern and leaves the text as it reads.
_TEXT_REWRITES = re.compile(
    r"(?<=:)(?=//)"  # http://, https://
    r"|(?i:(?<=www))(?=\.)"  # www.example
    r"|(?<=[-.\w+]@)(?=[-\w])"  # a@b.example
    r"|(?<=:)(?=[\w+-][\w+-]*:)"  # :smile:, :streamlit:
    r"|(?<=(?<!\S)<)(?=->?(?!\S))|(?<=(?<!\S)<-)(?=>(?!\S))"  # <- <->
    r"|(?<=(?<!\S)[-<>~])(?=[->=](?!\S))"  # -> -- >= <= ~=
)


def md_text(s: str) -> Md:
    """User text (a name, an id, a URL parameter, a file name, a message quoting one)
    made safe for any Markdown-rendering call (st.markdown, st.caption, st.error and
    its kin, st.toast, widget, tab and expander labels, help): shown exactly as typed,
    never as HTML, a link, an image, emphasis, a heading, a list, code, an icon, a
    colour or LaTeX, and on one line.

    Every ASCII punctuation character is backslash-escaped (CommonMark shows an escaped
    one literally, and Streamlit's directives and LaTeX need an unescaped ``:`` or
    ``$``); line breaks become spaces; and the patterns Streamlit rewrites after
    escapes are read get an invisible word joiner (see `_TEXT_REWRITES`).

    >>> md_text("**a** <b>x</b> :red[y]")
    '\\\\*\\\\*a\\\\*\\\\* \\\\<b\\\\>x\\\\<\\\\/b\\\\> \\\\:red\\\\[y\\\\]'
    >>> md_text("see http://x.example") == "see http\\\\:\u2060\\\\/\\\\/x\\\\.example"
    True
    """
    if isinstance(s, Md):
        return s
    text = _LINE_BREAKS.sub(" ", str(s)).strip(" \t")  # no indented code, no hard break
    text = _TEXT_REWRITES.sub(_JOIN, text)
    return Md(_PUNCTUATION.sub(r"\\\1", text))


def tr(key: str, **fields: object) -> Md:
    """The catalogue's ``key`` in the page's language, with ``fields`` filled in.

    The catalogue's own Markdown is meant; a field that holds user text must come
    through `md_text` (or `say`)."""
    return Md(word(key, lang(), **fields))


def say(what: object) -> Md:
    """A message of the engine or the store (a `Message`, or an error raised with one)
    in the page's language, or other text, made safe for a page (`md_text`): messages
    quote names, file names and URL parameters. Either way without the server's own
    folder paths (`folder.scrub`): every message a page shows comes through here, so
    text a page already made safe (`tr`, `md_text`) passes as it is."""
    inner = what.args[0] if isinstance(what, BaseException) and len(what.args) == 1 else what
    if isinstance(inner, Md):  # a page's own sentence, raised or passed on: as it is
        return inner
    return md_text(scrub(messages.say(what, lang()), lang=lang()))


def bet_name(bet: Any) -> str:
    """What the layout calls a table's bet (a `tables.Bet`) in the page's language."""
    return bet.label if lang() == DEFAULT else word(f"bet_{bet.id}", lang())


def bet_id_name(bet_id: str, label: str | None = None) -> str:
    """A bet or shortcut named by its id (``label``: the table's English label)."""
    if lang() == DEFAULT and label:
        return label
    return word(f"bet_{bet_id}", lang())


def winner_word(w: str) -> str:
    """Banker / Player / Tie (庄 / 闲 / 和) for a round's winner letter."""
    return word(w, lang())


def labels(keys: Mapping[str, str]) -> Callable[[str], str]:
    """A widget's ``format_func`` for options named by catalogue ``keys`` (option ->
    key), in the language of this run: fixed now, not looked up whenever it is called."""
    names = {option: tr(key) for option, key in keys.items()}
    return names.__getitem__


def flags_line(counts: Mapping[str, FlagCount], group: str) -> str:
    """`render.flags.flags_line` in the page's language."""
    return flags.flags_line(counts, group, lang())


def flag_note(counts: Mapping[str, FlagCount], group: str) -> str:
    """`render.flags.flag_note` in the page's language."""
    return flags.flag_note(counts, group, lang())


def widget_chrome() -> None:
    """Streamlit's own widget words in the page's language, where Streamlit offers no
    parameter for them (the file uploader's button and size line): a static style sheet
    per language, ``static/chrome.<lang>.css``; English needs none."""
    css = _chrome_css(lang())
    if css:
        st.html(f"<style>{css}</style>")


@cache
def _chrome_css(language: str) -> str:
    path = STATIC_DIR / f"chrome.{language}.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""
