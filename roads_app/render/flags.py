"""The pair and natural counts put into words, the one rule every page follows.

A count that looks complete but is not says what it is out of (counts from
`roads.stats.flag_counts`).

>>> from roads_app.roads.stats import FlagCount
>>> flag_value(FlagCount(hits=0, recorded=0, rounds=3))
'–'
"""

from __future__ import annotations

from collections.abc import Mapping

from roads_app.i18n import DEFAULT, word
from roads_app.roads.stats import FlagCount


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
