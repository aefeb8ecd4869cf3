"""The five roads, named once: their keys, their order on a board, and the derived ones' k.

A road's key (``big_eye_boy``) is what every frame, figure, page and file calls it and
the key of its title in the translation catalogue (``Big eye boy``, 大眼仔); derived road
``k`` compares the big road ``k`` columns back (docs/roads.md, "Derived roads").

>>> ROAD_NAMES
('bead_plate', 'big_road', 'big_eye_boy', 'small_road', 'cockroach_pig')
>>> dict(DERIVED)
{'big_eye_boy': 1, 'small_road': 2, 'cockroach_pig': 3}
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType


class Road(StrEnum):
    """A road of the scoreboard, in the order boards show them."""

    BEAD_PLATE = "bead_plate"
    BIG_ROAD = "big_road"
    BIG_EYE_BOY = "big_eye_boy"
    SMALL_ROAD = "small_road"
    COCKROACH_PIG = "cockroach_pig"

    @property
    def k(self) -> int:
        """How many columns back a derived road compares (0: not a derived road)."""
        return _K.get(self, 0)


_K: dict[Road, int] = {Road.BIG_EYE_BOY: 1, Road.SMALL_ROAD: 2, Road.COCKROACH_PIG: 3}

ROAD_NAMES: tuple[str, ...] = tuple(r.value for r in Road)
"""Every road's key, in board order."""

DERIVED: Mapping[str, int] = MappingProxyType({r.value: r.k for r in Road if r.k})
"""The derived roads' keys and their k, in order."""
