"""Messages the engine and the store give a person, in any language the catalogue has.

A `Message` *is* its English text (a ``str``), so every caller that prints, compares,
logs or serialises a reason keeps working, and the CLI, the HTTP API and JSON stay in
English. It also carries the catalogue key and fields it was made from, so a page in
another language says it in that language (`Message.text`). The template is written
once, in `roads_app/i18n.toml` (keys ``msg_...``; the bankroll rule's
``not_enough_bankroll``), beside its translations.

A reason built row by row in a Polars column is plain text; `parse` finds the message
it was made from again, by the same templates (`polars_template` writes the column).

>>> m = Message("msg_round_not_dealt", where=Message("msg_round", n=4))
>>> m, m.text("zh")
('round 4 has not been dealt', '第 4 局尚未发牌')
>>> parse("round 4 has not been dealt").text("zh")
'第 4 局尚未发牌'
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from typing import Any

from roads_app.i18n import DEFAULT, catalogue, word

FIELD = re.compile(r"\{([a-z_][a-z_0-9]*)\}")


class Message(str):
    """English text that remembers its catalogue ``key`` and ``fields``.

    A field may itself be a Message (a place, a side, a bet's name): it is said in the
    same language as the sentence around it.
    """

    key: str
    fields: Mapping[str, object]

    def __new__(cls, key: str, /, **fields: object) -> Message:
        if key not in catalogue()[DEFAULT]:  # a bug, not bad input: fail loudly
            raise KeyError(f"no message {key!r} in the catalogue")
        self = super().__new__(cls, word(key, DEFAULT, **fields))
        self.key, self.fields = key, fields
        return self

    @classmethod
    def named(cls, english: str, key: str) -> Message:
        """A name shown as ``english`` in English (a table's own label for a bet, which
        may be "Egalité") and as the catalogue's ``key`` in any other language."""
        self = str.__new__(cls, english)
        self.key, self.fields = key, {}
        return self

    def text(self, lang: str = DEFAULT) -> str:
        """The message in ``lang`` (itself in English)."""
        if lang == DEFAULT or lang not in catalogue():
            return str(self)
        fields = {k: say(v, lang) for k, v in self.fields.items()}
        return word(self.key, lang, **fields)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild, (str(self), self.key, dict(self.fields)))


def _rebuild(english: str, key: str, fields: dict[str, object]) -> Message:
    self = str.__new__(Message, english)
    self.key, self.fields = key, fields
    return self


def say(what: object, lang: str = DEFAULT) -> str:
    """Anything a person is told, in ``lang``: a Message, an error carrying one as its
    text, or plain text (said as it is: it has no translation)."""
    if isinstance(what, BaseException) and len(what.args) == 1:
        what = what.args[0]
    if isinstance(what, Message):
        return what.text(lang)
    return str(what)


def bet(bet_id: str) -> str:
    """A bet or shortcut named by its id: the id in English, its name elsewhere (an id
    the catalogue does not know stays as it is)."""
    key = f"bet_{bet_id}"
    return Message.named(bet_id, key) if key in catalogue()[DEFAULT] else bet_id


def side(name: str) -> Message:
    """``player`` / ``banker`` as a message names a hand (闲 / 庄 in Chinese)."""
    return Message.named(name, {"player": "P", "banker": "B"}[name])


def winner(letter: str) -> Message:
    """A winner letter (B, P, T) named in the page's language (庄, 闲, 和)."""
    return Message.named(letter, letter)


# --- text made row by row (Polars), read back into messages --------------------------


def fields_of(key: str) -> list[str]:
    """The fields of ``key``'s English template, in the order they appear."""
    return FIELD.findall(catalogue()[DEFAULT][key])


def polars_template(key: str) -> str:
    """``key``'s English template with ``{}`` for each field (``pl.format``'s form);
    its fields in order are `fields_of`."""
    return FIELD.sub("{}", catalogue()[DEFAULT][key])


@cache
def _pattern(key: str) -> re.Pattern[str]:
    parts = FIELD.split(catalogue()[DEFAULT][key])  # literal, field, literal, ...
    rx = "".join(re.escape(p) if i % 2 == 0 else f"(?P<{p}>.+?)" for i, p in enumerate(parts))
    return re.compile(rf"\A{rx}\Z", re.S)


def parse(
    text: str | None,
    keys: Iterable[str] | None = None,
    inner: Mapping[str, Callable[[str], object]] | None = None,
) -> Message | None:
    """The message ``text`` is the English of (among ``keys``: by default the
    `ROW_REASONS`), or None. ``inner`` reads a field's text back into a value (a name,
    a nested message); by default a field that is itself a row reason's part is one."""
    if not text:
        return None
    for key in ROW_REASONS if keys is None else keys:
        found = _pattern(key).match(text)
        if found is None:
            continue
        fields: dict[str, object] = {}
        for name, value in found.groupdict().items():
            read = (inner or {}).get(name)
            part = read(value) if read else parse(value, ROW_PARTS)
            fields[name] = value if part is None else part
        message = Message(key, **fields)
        if message == text:  # a lazy field must not swallow text the template has
            return message
    return None


ROW_PARTS: tuple[str, ...] = (
    "msg_round",
    "msg_shoe_round",
    "msg_limits",
    "msg_and",
    *(f"msg_data_{d}" for d in ("winner", "points", "cards", "naturals", "pairs")),
)
"""Pieces of row reasons that are messages themselves (where, the limits, what a round
lacks)."""

ROW_REASONS: tuple[str, ...] = (
    "msg_round_not_dealt",
    "msg_round_lacks",
    "msg_closes_after",
    "msg_outside_limits",
    "msg_not_a_number",
    "msg_table_lacks_bet",
    "msg_unknown_bet",
    "msg_round_voided",
)
"""The reasons `roads_app.bets.settlement.settle` and the bet ledger write in a column."""
