"""The floor's vocabulary: a table (a place on the floor that deals shoe after shoe), its
code, its state and the moves between states, its limits, and a round's code.

Written once here, below the store, the API and the command line, so every door refuses
the same code, the same move and the same limits with the same one line. ("Table" here is
a place on the floor; the payout rule set a table plays is its *rules*,
`roads_app.bets.tables`.)

>>> check_table_code("b07")
'B07'
>>> TableState.OPEN.after(Move.SHUFFLE)
<TableState.SHUFFLING: 'shuffling'>
>>> round_code("B07", date(2026, 12, 5), 3, 42)
'B07-20261205-03-42'
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

from roads_app.errors import FloorError, quote
from roads_app.messages import Message

CODE_MAX = 16
"""The longest table code (``B07``, ``VIP-3``)."""
_CODE_RE = re.compile(rf"[A-Za-z0-9][A-Za-z0-9-]{{0,{CODE_MAX - 1}}}")


def check_table_code(code: object) -> str:
    """The one rule for a table's code: 1 to `CODE_MAX` ASCII letters, digits or ``-``,
    a letter or digit first (it starts its shoes' ids and is typed as an argument), kept
    in capitals (``b07`` is ``B07``: two tables a person cannot tell apart by ear
    are one).

    >>> check_table_code("B 07")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    roads_app.errors.FloorError: a table code is 1 to 16 letters, digits or '-' ... not 'B 07'
    """
    if not isinstance(code, str) or not _CODE_RE.fullmatch(code):
        raise FloorError(Message("msg_table_code", most=CODE_MAX, code=quote(code)))
    return code.upper()


class Move(StrEnum):
    """What happens to a table: opened, closed, a shuffle (the shoe ended), a hand dealt."""

    OPEN = "open"
    CLOSE = "close"
    SHUFFLE = "shuffle"
    DEAL = "deal"


class TableState(StrEnum):
    """A table's state: ``open`` (dealing its shoe), ``shuffling`` (its shoe ended, the
    next not started: the screens show "Shuffling" until its first hand), ``closed``."""

    OPEN = "open"
    SHUFFLING = "shuffling"
    CLOSED = "closed"

    @classmethod
    def parse(cls, text: object) -> TableState:
        """A state a person or a request named; a state that does not exist is refused.

        >>> TableState.parse("closed")
        <TableState.CLOSED: 'closed'>
        """
        try:
            return cls(text)
        except ValueError:
            known = ", ".join(s.value for s in cls)
            raise FloorError(Message("msg_table_state", state=quote(text), known=known)) from None

    def can(self, move: Move) -> bool:
        """Whether ``move`` is allowed from this state."""
        return (move, self) in _AFTER

    def verify(self, move: Move, code: str = "") -> None:
        """Refuse ``move`` from this state in one line (``code`` names the table)."""
        if not self.can(move):
            raise FloorError(Message(_REFUSED[move, self], code=code))

    def after(self, move: Move, code: str = "") -> TableState:
        """The state ``move`` leads to (refused when `can` says no)."""
        self.verify(move, code)
        return _AFTER[move, self]


_AFTER: dict[tuple[Move, TableState], TableState] = {
    (Move.OPEN, TableState.CLOSED): TableState.OPEN,
    (Move.CLOSE, TableState.OPEN): TableState.CLOSED,
    (Move.CLOSE, TableState.SHUFFLING): TableState.CLOSED,
    (Move.SHUFFLE, TableState.OPEN): TableState.SHUFFLING,
    (Move.DEAL, TableState.OPEN): TableState.OPEN,
    (Move.DEAL, TableState.SHUFFLING): TableState.OPEN,
}
"""The legal moves, stated once: (move, state before) -> state after."""

_REFUSED: dict[tuple[Move, TableState], str] = {
    (Move.OPEN, TableState.OPEN): "msg_table_already_open",
    (Move.OPEN, TableState.SHUFFLING): "msg_table_opens_with_hand",
    (Move.CLOSE, TableState.CLOSED): "msg_table_already_closed",
    (Move.SHUFFLE, TableState.SHUFFLING): "msg_table_already_shuffling",
    (Move.SHUFFLE, TableState.CLOSED): "msg_table_closed",
    (Move.DEAL, TableState.CLOSED): "msg_table_closed",
}
"""Why each move not in `_AFTER` is refused (the catalogue's key)."""

MOVE_TO: dict[TableState, Move] = {
    TableState.OPEN: Move.OPEN,
    TableState.CLOSED: Move.CLOSE,
    TableState.SHUFFLING: Move.SHUFFLE,
}
"""The move a request for a state asks for (``POST /tables/{code}/state``)."""


def shoe_code(code: str, day: date, shoe_no: int) -> str:
    """A table's shoe's id: table, the day, the shoe's number of that day
    (``B07-20261205-03``); its rounds' codes start with it."""
    return f"{code}-{day.year:04d}{day.month:02d}{day.day:02d}-{shoe_no:02d}"


def round_code(code: str, day: date, shoe_no: int, round_no: int) -> str:
    """A round's code as the API, exports and screens show it: its shoe's code, then the
    round (``B07-20261205-03-42``)."""
    return f"{shoe_code(code, day, shoe_no)}-{round_no:02d}"


_WHAT = (Message("limits_main"), Message("limits_tie"), Message("limits_pair"))
"""The three kinds of limits, as messages name them."""


@dataclass(frozen=True)
class Span:
    """One bet's limits at a table: the least and the most one bet may be."""

    lo: float
    hi: float

    def text(self) -> str:
        return f"{self.lo:,g}-{self.hi:,g}"


@dataclass(frozen=True)
class FloorLimits:
    """A table's limits: on the main bets (Banker, Player), and (when it sets them) on
    ties and on pairs. Checked by `check` against the table's rules' own limits."""

    main: Span
    tie: Span | None = None
    pairs: Span | None = None

    @classmethod
    def of(
        cls,
        main: tuple[float, float],
        tie: tuple[float, float] | None = None,
        pairs: tuple[float, float] | None = None,
    ) -> FloorLimits:
        """Limits from (least, most) pairs, each checked: positive numbers, least <= most.

        >>> FloorLimits.of((10, 5))  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        roads_app.errors.FloorError: main-bet limits: the least, 10, is more than the most, 5
        """
        spans = []
        for what, pair in zip(_WHAT, (main, tie, pairs), strict=True):
            if pair is None:
                spans.append(None)
                continue
            lo, hi = (float(x) for x in pair)
            if not (math.isfinite(lo) and math.isfinite(hi) and lo > 0):
                raise FloorError(
                    Message("msg_table_limits_positive", what=what, lo=f"{lo:g}", hi=f"{hi:g}")
                )
            if lo > hi:
                raise FloorError(
                    Message("msg_table_limits_order", what=what, lo=f"{lo:g}", hi=f"{hi:g}")
                )
            spans.append(Span(lo, hi))
        return cls(spans[0], spans[1], spans[2])  # type: ignore[arg-type]

    def check(self, rules: str, lo: float, hi: float, offered: tuple[bool, bool]) -> FloorLimits:
        """Refuse limits outside the rules' own (``lo`` to ``hi`` per bet), and limits on
        ties or pairs where the rules offer no such bet (``offered``: (tie, pairs)); itself."""
        for what, span, offers in zip(
            _WHAT, (self.main, self.tie, self.pairs), (True, *offered), strict=True
        ):
            if span is not None and not offers:
                raise FloorError(Message("msg_table_limits_unoffered", what=what, rules=rules))
            if span is not None and not lo <= span.lo <= span.hi <= hi:
                raise FloorError(
                    Message(
                        "msg_table_limits_rules",
                        what=what,
                        span=span.text(),
                        rules=rules,
                        lo=f"{lo:,g}",
                        hi=f"{hi:,g}",
                    )
                )
        return self

    def row(self) -> tuple[float | None, ...]:
        """The six numbers as the store keeps them (main, tie, pairs; None where unset)."""
        out: list[float | None] = []
        for span in (self.main, self.tie, self.pairs):
            out += [None, None] if span is None else [span.lo, span.hi]
        return tuple(out)

    @classmethod
    def from_row(cls, row: tuple[float | None, ...]) -> FloorLimits:
        """`row` read back."""

        def span(lo: float | None, hi: float | None) -> Span | None:
            return None if lo is None or hi is None else Span(float(lo), float(hi))

        main = span(row[0], row[1])
        assert main is not None  # the store's NOT NULL
        return cls(main, span(row[2], row[3]), span(row[4], row[5]))

    def to_dict(self) -> dict[str, dict[str, float] | None]:
        """As JSON (the API, ``tables list --json``)."""

        def one(span: Span | None) -> dict[str, float] | None:
            return None if span is None else {"min": span.lo, "max": span.hi}

        return {"main": one(self.main), "tie": one(self.tie), "pairs": one(self.pairs)}
