"""Cards: codes, ranks, suits and baccarat points.

A card code is rank + suit: rank `A 2-9 T J Q K` (`10` accepted for `T`), suit
`s h d c`, any case in, canonical out (`10h` -> `Th`, `as` -> `As`).

Cards are also numbered 0..51 as ``rank_index * 4 + suit_index`` so that shoes and
fast engines can work on small integers.

>>> parse_card("10h")
'Th'
>>> points(["9s", "Kd", "5c"])
4
>>> is_pair(["7s", "7d"]), is_suited_pair(["7s", "7d"])
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from roads_app.errors import CardError
from roads_app.game.hand import RANK_PAIR, SUITED, SUITS_PER_RANK, hand_total, natural, pair_state
from roads_app.messages import Message

RANKS: str = "A23456789TJQK"
"""Rank letters in index order (A = 0 ... K = 12)."""

SUITS: str = "shdc"
"""Suit letters in index order (spades, hearts, diamonds, clubs)."""

RANK_POINTS: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 0, 0, 0, 0)
"""Baccarat points per rank index: A = 1, 2-9 face value, T/J/Q/K = 0."""

RANK_BURN_VALUE: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10)
"""How many cards a face-up first card burns (T/J/Q/K = 10, seed 002)."""

CARDS_PER_DECK = 52

RANK_FACES: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
"""How each rank is printed on a card, by rank index: the rank ten (`T`) reads 10."""

SUIT_GLYPHS: dict[str, str] = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
"""Each suit's glyph on a card face (spades, hearts, diamonds, clubs)."""

RED_SUITS: str = "hd"
"""The suits printed in red (hearts, diamonds)."""


POINTS_BY_CARD = np.array(
    [RANK_POINTS[i // SUITS_PER_RANK] for i in range(CARDS_PER_DECK)], dtype=np.int64
)
"""Baccarat points of each card number 0..51 (`RANK_POINTS` by card number): what the
dealing kernels and a frame's entry by cards look a card's points up in."""

ALL_CARDS: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
"""Every card code, indexed by card number (rank_index * 4 + suit_index)."""

_CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(ALL_CARDS)}

_POINT: dict[str, int] = {c: RANK_POINTS[i // SUITS_PER_RANK] for c, i in _CARD_INDEX.items()}
"""Each canonical code's points, one look-up: a hand's total is asked of every dealt hand
(the plain dealer, the shoe tests' 1.6 million hands)."""


def card_face(code: str) -> tuple[str, str, bool]:
    """How a card reads face up: its rank as printed, its suit's glyph, whether it is red.

    >>> card_face("Th"), card_face("As")
    (('10', '♥', True), ('A', '♠', False))
    """
    return RANK_FACES[rank_index(code)], SUIT_GLYPHS[code[1]], code[1] in RED_SUITS


def parse_card(code: object) -> str:
    """Canonical card code from any accepted spelling; CardError says what is wrong."""
    if not isinstance(code, str):
        raise CardError(Message("msg_card_code", code=repr(code), a="'As'", b="'Td'", c="'10h'"))
    text = code.strip()
    if len(text) == 3 and text[:2] == "10":
        text = "T" + text[2]
    if len(text) != 2:
        raise CardError(Message("msg_card_length", code=repr(code)))
    rank, suit = text[0].upper(), text[1].lower()
    if rank not in RANKS:
        raise CardError(Message("msg_card_rank", code=repr(code), rank=repr(text[0])))
    if suit not in SUITS:
        raise CardError(Message("msg_card_suit", code=repr(code), suit=repr(text[1])))
    return rank + suit


def parse_cards(codes: Iterable[object] | str) -> list[str]:
    """Parse a list of codes, or one string of codes separated by spaces or commas."""
    if isinstance(codes, str):
        codes = codes.replace(",", " ").split()
    return [parse_card(c) for c in codes]


def card_index(code: str) -> int:
    """Card number 0..51 of a card code."""
    try:
        return _CARD_INDEX[code]
    except KeyError:
        return _CARD_INDEX[parse_card(code)]


def rank_index(code: str) -> int:
    """Rank index 0..12 (A..K) of a card code."""
    return card_index(code) // SUITS_PER_RANK


def point(code: str) -> int:
    """Baccarat points of one card."""
    try:
        return _POINT[code]
    except KeyError:  # not canonical ("ah", " 9S"): parsed, or refused, as before
        return RANK_POINTS[rank_index(code)]


def points(cards: Sequence[str]) -> int:
    """A hand's total: the sum of its points modulo 10."""
    return hand_total(sum(map(point, cards)))


def is_natural(cards: Sequence[str]) -> bool:
    """Two-card 8 or 9."""
    return len(cards) >= 2 and bool(natural(points(cards[:2])))


def is_pair(cards: Sequence[str]) -> bool:
    """First two cards of equal rank (suits ignored)."""
    return len(cards) >= 2 and pair_state(card_index(cards[0]), card_index(cards[1])) >= RANK_PAIR


def is_suited_pair(cards: Sequence[str]) -> bool:
    """First two cards identical in rank and suit (a Perfect Pair)."""
    return len(cards) >= 2 and pair_state(card_index(cards[0]), card_index(cards[1])) == SUITED
