"""The board's words in English and Chinese, read from the catalogue `i18n.toml`.

The catalogue is data: adding a language is adding a table to the TOML file. Every
language must have every key of English, checked when the catalogue is first read, so
a missing translation is caught at load and never shows as a blank on the board.

>>> word("big_road", "zh"), word("B", "en"), word("round_of", "zh", n=3)
('大路', 'Banker', '第 3 局')
>>> LANGUAGES
('en', 'zh')
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from roads_app.roads.stats import FlagCount

CATALOGUE = Path(__file__).with_name("i18n.toml")
DEFAULT = "en"


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """Every language's words, checked complete against English."""
    with CATALOGUE.open("rb") as f:
        data: dict[str, dict[str, str]] = tomllib.load(f)
    return check(data)


def check(
    data: dict[str, dict[str, str]], name: str = CATALOGUE.name
) -> dict[str, dict[str, str]]:
    """``data`` if every language has exactly English's keys, else ValueError naming them
    (a key only one language has is a typo or a word the other never shows)."""
    keys = set(data[DEFAULT])
    for lang, words in data.items():
        missing, extra = keys - set(words), set(words) - keys
        if missing:
            raise ValueError(f"{name}: [{lang}] lacks {', '.join(sorted(missing))}")
        if extra:
            raise ValueError(
                f"{name}: [{lang}] has {', '.join(sorted(extra))}, unknown in [{DEFAULT}]"
            )
    return data


LANGUAGES: tuple[str, ...] = tuple(catalogue())


def word(key: str, lang: str = DEFAULT, **fields: object) -> str:
    """The word for ``key`` in ``lang`` (English for an unknown language); a count
    ``n`` of 1 takes the key's ``<key>_one`` form where there is one.

    >>> word("rounds_n", n=1), word("rounds_n", n=3)
    ('1 round', '3 rounds')
    """
    words = catalogue().get(lang) or catalogue()[DEFAULT]
    if fields.get("n") == 1 and f"{key}_one" in words:
        key = f"{key}_one"
    text = words[key]
    return text.format(**fields) if fields else text


def flag_value(count: FlagCount) -> str:
    """A flag's count, or "–" when no round recorded it (0 would claim none happened)."""
    return str(count.hits) if count.known else "–"


def flag_note(counts: Mapping[str, FlagCount], group: str, lang: str = DEFAULT) -> str:
    """How many rounds the ``group``'s counts (``pair`` or ``natural``) come from: ""
    when every round recorded them, else "in the 5 rounds with pairs" or "not recorded".

    The one rule every page follows (counts from `roads.stats.flag_counts`): a count
    that looks complete but is not says what it is out of.
    """
    b, p = counts[f"banker_{group}"], counts[f"player_{group}"]
    if b.complete and p.complete:
        return ""
    if not (b.known or p.known):
        return word("flags_none", lang)
    what = word(f"what_{group}", lang)
    if b.recorded != p.recorded:
        return word("flags_in_two", lang, b=b.recorded, p=p.recorded, what=what)
    return word("flags_in", lang, n=b.recorded, what=what)


def flags_line(counts: Mapping[str, FlagCount], group: str, lang: str = DEFAULT) -> str:
    """``Pairs: banker **2** · player **2** in the 5 rounds with pairs`` (Markdown)."""
    b, p = counts[f"banker_{group}"], counts[f"player_{group}"]
    if not (b.known or p.known):
        return word(f"{group}s_none", lang)
    line = word(f"{group}s_line", lang, b=flag_value(b), p=flag_value(p))
    note = flag_note(counts, group, lang)
    return f"{line} {note}" if note else line
