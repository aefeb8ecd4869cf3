"""The one name rule (`game.rounds.check_name`, used by the dashboard, the API and the
command line) wants at least one character that shows: a name made only of spaces,
zero-width or format characters, variation selectors, lone combining marks or blank
fillers would be an empty-looking row nobody can tell apart or click on."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from roads_app.errors import RoadsAppError, RoundError
from roads_app.game.rounds import NAME_MAX, ShoeMeta, check_name

UNSEEN = (
    " ",
    "\u00a0",
    "\u00ad",
    "\u034f",
    "\u115f",
    "\u1160",
    "\u17b4",
    "\u180e",
    "\u2000",
    "\u200a",
    "\u200b",
    "\u200c",
    "\u200d",
    "\u200e",
    "\u202f",
    "\u2060",
    "\u2062",
    "\u2800",
    "\u3000",
    "\u3164",
    "\ufe0f",
    "\ufe00",
    "\ufeff",
    "\uffa0",
    "\u0301",
    "\u20dd",
    "\u0903",
    "\U000e0041",
    "\U000e0100",
    "\U0001d173",
)
SEEN = ("a", "Z", "7", "庄", "闲", "!", "#", "é", "😀", "ㄱ", "·")
unseen = st.lists(st.sampled_from(UNSEEN), min_size=1, max_size=NAME_MAX).map("".join)


@given(unseen)
def test_a_name_with_nothing_visible_is_refused(name: str) -> None:
    with pytest.raises(RoundError, match=r"visible|empty"):
        check_name(name)
    if name.strip():
        with pytest.raises(RoadsAppError):  # the saved metadata's schema: the same rule
            ShoeMeta(name=name)


@given(
    st.lists(st.sampled_from(UNSEEN), max_size=20),
    st.sampled_from(SEEN),
    st.lists(st.sampled_from(UNSEEN), max_size=20),
)
def test_one_visible_character_is_enough(before: list[str], seen: str, after: list[str]) -> None:
    name = "".join(before) + seen + "".join(after)
    assert check_name(name) == name.strip()


@given(st.characters(categories=("L", "N", "P", "S")))
def test_letters_numbers_punctuation_and_symbols_show(ch: str) -> None:
    """Every letter, number, punctuation mark and symbol passes alone, except the few
    that draw nothing (the fillers, refused above)."""
    assume(ch not in {"\u115f", "\u1160", "\u3164", "\uffa0", "\u2800"})
    assert check_name(ch) == ch, unicodedata.name(ch, hex(ord(ch)))
