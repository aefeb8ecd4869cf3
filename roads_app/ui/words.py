"""The dashboard's words in the language picked in the sidebar (the catalogue is
`roads_app/render/i18n.toml`; `board_view.lang` knows the language).

One door for every label a player reads, so a page never hard-codes English. A bet's
name is the table's own label in English (a table may call Super Tie "Egalité") and
the catalogue's name of its kind in any other language.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st

from roads_app import messages
from roads_app.render import i18n
from roads_app.render.i18n import DEFAULT, word
from roads_app.roads.stats import FlagCount
from roads_app.ui.board_view import lang


def tr(key: str, **fields: object) -> str:
    """The catalogue's ``key`` in the page's language, with ``fields`` filled in."""
    return word(key, lang(), **fields)


def say(what: object) -> str:
    """A message of the engine or the store (a `Message`, or an error raised with one)
    in the page's language; plain text as it is. Either way without the server's own
    folder paths (`session.scrub`): every message a page shows comes through here."""
    from roads_app.ui.session import scrub  # session's page half imports this module

    return scrub(messages.say(what, lang()), lang=lang())


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


WINNER_KEYS: Mapping[str, str] = {"B": "B", "P": "P", "T": "T"}



def flags_line(counts: Mapping[str, FlagCount], group: str) -> str:
    """`i18n.flags_line` in the page's language."""
    return i18n.flags_line(counts, group, lang())


def flag_note(counts: Mapping[str, FlagCount], group: str) -> str:
    """`i18n.flag_note` in the page's language."""
    return i18n.flag_note(counts, group, lang())


CHROME = Path(__file__).with_name("static")
"""Where `widget_chrome` finds ``chrome.<lang>.css``."""


def widget_chrome() -> None:
    """Streamlit's own widget words in the page's language, where Streamlit offers no
    parameter for them (the file uploader's button and size line): a static style sheet
    per language, ``static/chrome.<lang>.css``; English needs none."""
    css = _chrome_css(lang())
    if css:
        st.html(f"<style>{css}</style>")


@cache
def _chrome_css(language: str) -> str:
    path = CHROME / f"chrome.{language}.css"
    return path.read_text(encoding="utf-8") if path.is_file() else ""
