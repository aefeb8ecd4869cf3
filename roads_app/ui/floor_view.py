"""A floor table's own words on a screen: its state, its shoe's number of the day and its
limits, decided once for the display's header and the wall's tile.

Each piece is ``(testid, text)``: our own words and numbers, which a page escapes (the
display's header) or sets as text (the wall's tile, ``static/wall_tile.js``).
"""

from __future__ import annotations

from roads_app.game.floor import TableState
from roads_app.i18n import word
from roads_app.store.floor import FloorTable


def state_word(table: FloorTable, lg: str) -> str:
    """ "Open", "Shuffling" (洗牌中), "Closed"."""
    return word(f"table_state_{table.state.value}", lg)


def dealing(table: FloorTable) -> bool:
    """Whether the table deals a shoe now (else it is between shoes: shuffling, closed,
    or open with no hand dealt yet), the one test of the display and the wall."""
    return table.state is TableState.OPEN and table.shoe is not None and not table.shoe_ended


def table_parts(table: FloorTable, lg: str) -> list[tuple[str, str]]:
    """The shoe's number of the day (once the table dealt one) and the main bets' limits.

    >>> from roads_app.game.floor import FloorLimits
    >>> t = FloorTable("B07", "T7", "classic", FloorLimits.of((10, 5000)), 1,
    ...                TableState.OPEN, "s", 1, "", "", shoe_number=3)
    >>> table_parts(t, "en")
    [('shoe-number', 'Shoe 3'), ('table-limits', '10-5,000')]
    """
    parts = []
    if table.shoe_number is not None:
        parts.append(("shoe-number", word("display_shoe_number", lg, n=table.shoe_number)))
    parts.append(("table-limits", table.limits.main.text()))
    return parts
