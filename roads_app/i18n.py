"""Every word a person reads, in English and Chinese, from the catalogue `i18n.toml`.

Core vocabulary below every layer: `messages`, the pages and the renderers read it;
it imports nothing of the project.

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
from functools import cache
from pathlib import Path

CATALOGUE = Path(__file__).with_name("i18n.toml")
DEFAULT = "en"


@cache
def catalogue() -> dict[str, dict[str, str]]:
    """Every language's words, checked complete against English."""
    with CATALOGUE.open("rb") as f:
        data: dict[str, dict[str, str]] = tomllib.load(f)
    return check(data)


def check(data: dict[str, dict[str, str]], name: str = CATALOGUE.name) -> dict[str, dict[str, str]]:
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
