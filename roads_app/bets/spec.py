"""Every bet kind, defined once: what it needs from a round and how it settles.

A round ends in one *play cell* (player total, banker total, cards in each hand) and
one *pair cell* (each hand's first two cards: no pair, a pair of rank, or a suited
pair, i.e. two identical cards). Every bet settles on one of the two and nothing else,
so a bet kind is a small frozen `BetKind` whose ``rule`` maps a cell to a result: a
payout key (the bet wins and pays the table's figure for that key), or ``push``
(stake back), ``refund`` (stake back, the bet did not take part) or ``lose``.

Everything else is generated from these rules by tabulating them over all cells:

* the Polars settlement (`roads_app.bets.settlement`) looks a round's cell up, or,
  for a round entered without cards, settles a bet when every cell the round's data
  allows gives the same result;
* the exact odds (`roads_app.bets.odds`) weight each cell by its probability;
* the Monte Carlo kernel (`roads_app.sim.kernel`) reads the same tables as arrays.

A rules file names bets by kind and gives each payout key a figure; a table with a
new mix of kinds and payouts needs no code.

>>> KINDS["dragon_bonus_player"].rule(PlayCell(9, 2, 3, 3))
'by_7'
>>> KINDS["ez_banker"].rule(PlayCell(2, 7, 3, 3)), KINDS["dragon_7"].rule(PlayCell(2, 7, 3, 3))
('push', 'win')
>>> KINDS["perfect_pair"].rule(PairCell(SUITED, SUITED))
'both'
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import astuple, dataclass, field
from enum import StrEnum
from itertools import product
from types import MappingProxyType
from typing import Literal

import numpy as np

from roads_app.game.drawing import banker_draws, player_draws
from roads_app.game.hand import (
    N_PLAY,
    RANK_PAIR,
    SUITED,
    Side,
    Winner,
    banker_six,
    hand_total,
    natural,
    pair_index,
    play_index,
    winner_of,
)
from roads_app.game.rounds import EntryMode
from roads_app.messages import Message


class Outcome(StrEnum):
    """What a bet came to, named once: settled (`roads_app.bets.settlement`: won, lost,
    pushed, refunded, or refused), or pending in a shoe's history (`roads_app.bets.ledger`:
    its round not in yet). Each is named in the catalogue as ``outcome_<value>``."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    REFUND = "refund"
    REFUSED = "refused"
    PENDING = "pending"


LOSE, PUSH, REFUND = Outcome.LOSE.value, Outcome.PUSH.value, Outcome.REFUND.value
"""Results that are not a win (a win is named by its payout key)."""

DATA: tuple[str, ...] = ("winner", "points", "cards", "naturals", "pairs", "suits")
"""What a bet may need from a round: the winner, the totals, the number of cards in
each hand, the natural flags, the pair flags, the suits (identical cards)."""

NEEDS_TEXT: Mapping[str, Message] = MappingProxyType(
    {item: Message(f"msg_data_{'cards' if item == 'suits' else item}") for item in DATA}
)
"""Each data item in the words of a refusal ("round 3 lacks cards to settle Big")."""


@dataclass(frozen=True, slots=True)
class PlayCell:
    """How the play of a round ended: totals and the number of cards in each hand."""

    player_points: int
    banker_points: int
    player_cards: int  # 2 or 3
    banker_cards: int

    @property
    def winner(self) -> Winner:
        return Winner.of(winner_of(self.banker_points, self.player_points))

    @property
    def player_natural(self) -> bool:
        """A two-card hand ending on 8 or 9 is exactly a natural (a drawn hand had 0-5)."""
        return self.player_cards == 2 and natural(self.player_points)

    @property
    def banker_natural(self) -> bool:
        return self.banker_cards == 2 and natural(self.banker_points)

    @property
    def cards(self) -> int:
        return self.player_cards + self.banker_cards

    @property
    def margin(self) -> int:
        return abs(self.player_points - self.banker_points)


@dataclass(frozen=True, slots=True)
class PairCell:
    """Each hand's first two cards: `NO_PAIR`, `RANK_PAIR` or `SUITED`."""

    player: int
    banker: int


Space = Literal["play", "pairs"]


@dataclass(frozen=True, slots=True)
class BetKind:
    """One kind of bet: its name in rules files, what it needs, and how it settles.

    ``payouts`` are the payout keys a table gives figures for, headline first;
    ``defaults`` lets a key fall back to another key's figure when a table leaves it out
    (a Banker win on 6 pays the Banker payout unless the table says otherwise).
    """

    kind: str
    label: str
    description: str
    needs: tuple[str, ...]  # items of DATA
    payouts: tuple[str, ...]
    rule: Callable[[PlayCell], str] | Callable[[PairCell], str] = field(repr=False)
    defaults: Mapping[str, str] = field(default_factory=dict)

    @property
    def space(self) -> Space:
        """Which cell the bet settles on: the play, or the first two cards of each hand."""
        return "pairs" if {"pairs", "suits"} & set(self.needs) else "play"

    @property
    def entry(self) -> EntryMode:
        """The least a round must be entered with to always settle this bet:
        ``winner``, ``points`` or ``cards`` (flags entered with points count as points)."""
        if {"cards", "suits"} & set(self.needs):
            return EntryMode.CARDS
        if set(self.needs) <= {"winner"}:
            return EntryMode.WINNER
        return EntryMode.POINTS

    @property
    def required(self) -> tuple[str, ...]:
        """Payout keys a rules file must give (the rest have defaults)."""
        return tuple(k for k in self.payouts if k not in self.defaults)


# --- the rules -------------------------------------------------------------------------


def _side(c: PlayCell, side: Side) -> tuple[int, int, bool]:
    """(own total, other total, own natural) of ``side``."""
    if side is Side.PLAYER:
        return c.player_points, c.banker_points, c.player_natural
    return c.banker_points, c.player_points, c.banker_natural


def _main(side: Side) -> Callable[[PlayCell], str]:
    def rule(c: PlayCell) -> str:
        if c.winner is Winner.TIE:
            return PUSH
        if c.winner != side:
            return LOSE
        return "six" if side is Side.BANKER and banker_six(c.winner, c.banker_points) else "win"

    return rule


def _ez_banker(c: PlayCell) -> str:
    banker_won = c.winner is Winner.BANKER
    if c.winner is Winner.TIE or (banker_won and c.banker_cards == 3 and c.banker_points == 7):
        return PUSH
    return "win" if banker_won else LOSE


def _natural(side: Side) -> Callable[[PlayCell], str]:
    def rule(c: PlayCell) -> str:
        own_natural = _side(c, side)[2]
        if own_natural and c.winner is Winner.TIE:
            return REFUND
        return "win" if own_natural and c.winner == side else LOSE

    return rule


def _dragon_bonus(side: Side) -> Callable[[PlayCell], str]:
    def rule(c: PlayCell) -> str:
        own_natural = _side(c, side)[2]
        if own_natural:
            if c.winner == side:
                return "natural"
            if c.winner is Winner.TIE:
                return PUSH
        if c.winner == side and c.margin >= 4:
            return f"by_{c.margin}"
        return LOSE

    return rule


def _three_card_win(side: Side, total: int) -> Callable[[PlayCell], str]:
    def rule(c: PlayCell) -> str:
        cards = c.player_cards if side is Side.PLAYER else c.banker_cards
        own = _side(c, side)[0]
        return "win" if c.winner == side and cards == 3 and own == total else LOSE

    return rule


def _lucky_6(c: PlayCell) -> str:
    if banker_six(c.winner, c.banker_points):
        return "two_cards" if c.banker_cards == 2 else "three_cards"
    return LOSE


def _super_tie(total: int) -> Callable[[PlayCell], str]:
    return lambda c: "win" if c.winner is Winner.TIE and c.player_points == total else LOSE


def _pair(which: str, at_least: int) -> Callable[[PairCell], str]:
    def rule(c: PairCell) -> str:
        p, b = c.player >= at_least, c.banker >= at_least
        hit = {"player": p, "banker": b, "either": p or b}[which]
        if not hit:
            return LOSE
        return "both" if which == "either" and p and b else "win"

    return rule


_DB_KEYS = ("natural", *(f"by_{m}" for m in range(9, 3, -1)))

_ALL: list[BetKind] = [
    BetKind(
        "player",
        "Player",
        "Player hand wins; pushes on a tie.",
        ("winner",),
        ("win",),
        _main(Side.PLAYER),
    ),
    BetKind(
        "banker",
        "Banker",
        "Banker hand wins; pushes on a tie. A table may pay a win on 6 less ('six').",
        ("winner", "points"),
        ("win", "six"),
        _main(Side.BANKER),
        {"six": "win"},
    ),
    BetKind(
        "tie",
        "Tie",
        "Both hands have the same total.",
        ("winner",),
        ("win",),
        lambda c: "win" if c.winner is Winner.TIE else LOSE,
    ),
    BetKind(
        "player_pair",
        "Player Pair",
        "Player's first two cards have equal rank.",
        ("pairs",),
        ("win",),
        _pair("player", RANK_PAIR),
    ),
    BetKind(
        "banker_pair",
        "Banker Pair",
        "Banker's first two cards have equal rank.",
        ("pairs",),
        ("win",),
        _pair("banker", RANK_PAIR),
    ),
    BetKind(
        "big",
        "Big",
        "Five or six cards dealt in the round.",
        ("cards", "naturals"),
        ("win",),
        lambda c: "win" if c.cards >= 5 else LOSE,
    ),
    BetKind(
        "small",
        "Small",
        "Four cards dealt in the round (neither hand draws).",
        ("cards", "naturals"),
        ("win",),
        lambda c: "win" if c.cards == 4 else LOSE,
    ),
    BetKind(
        "any_pair",
        "Any Pair",
        "Either hand's first two cards have equal rank ('both': when both do).",
        ("pairs",),
        ("win", "both"),
        _pair("either", RANK_PAIR),
        {"both": "win"},
    ),
    BetKind(
        "perfect_pair",
        "Perfect Pair",
        "Either hand's first two cards are the same rank and suit ('both': when both are).",
        ("pairs", "suits"),
        ("win", "both"),
        _pair("either", SUITED),
        {"both": "win"},
    ),
    BetKind(
        "player_natural",
        "Player Natural",
        "Player wins with a two-card 8 or 9; refunded on a natural tie.",
        ("winner", "naturals"),
        ("win",),
        _natural(Side.PLAYER),
    ),
    BetKind(
        "banker_natural",
        "Banker Natural",
        "Banker wins with a two-card 8 or 9; refunded on a natural tie.",
        ("winner", "naturals"),
        ("win",),
        _natural(Side.BANKER),
    ),
    BetKind(
        "super_6",
        "Super 6",
        "Banker wins with a total of 6 (two or three cards).",
        ("winner", "points"),
        ("win",),
        lambda c: "win" if banker_six(c.winner, c.banker_points) else LOSE,
    ),
    *(
        BetKind(
            f"super_tie_{k}",
            f"Super Tie {k}",
            f"The round ties on a total of {k}.",
            ("winner", "points"),
            ("win",),
            _super_tie(k),
        )
        for k in range(10)
    ),
    BetKind(
        "ez_banker",
        "Banker",
        "Banker wins and is paid even money, except a three-card 7 pushes; a tie pushes.",
        ("winner", "points", "cards", "naturals"),
        ("win",),
        _ez_banker,
    ),
    BetKind(
        "dragon_7",
        "Dragon 7",
        "Banker wins with a three-card 7.",
        ("winner", "points", "cards", "naturals"),
        ("win",),
        _three_card_win(Side.BANKER, 7),
    ),
    BetKind(
        "panda_8",
        "Panda 8",
        "Player wins with a three-card 8.",
        ("winner", "points", "cards", "naturals"),
        ("win",),
        _three_card_win(Side.PLAYER, 8),
    ),
    BetKind(
        "dragon_bonus_player",
        "Dragon Bonus Player",
        "Player wins with a natural ('natural'; a natural tie pushes), or wins "
        "without one by 4 to 9 points ('by_4' .. 'by_9').",
        ("winner", "points", "naturals"),
        _DB_KEYS,
        _dragon_bonus(Side.PLAYER),
    ),
    BetKind(
        "dragon_bonus_banker",
        "Dragon Bonus Banker",
        "Banker wins with a natural ('natural'; a natural tie pushes), or wins "
        "without one by 4 to 9 points ('by_4' .. 'by_9').",
        ("winner", "points", "naturals"),
        _DB_KEYS,
        _dragon_bonus(Side.BANKER),
    ),
    BetKind(
        "lucky_6",
        "Lucky 6",
        "Banker wins with 6: on two cards ('two_cards') or three ('three_cards').",
        ("winner", "points", "cards", "naturals"),
        ("two_cards", "three_cards"),
        _lucky_6,
    ),
]

KINDS: Mapping[str, BetKind] = MappingProxyType({k.kind: k for k in _ALL})
"""Every bet kind by name, in display order."""

KIND_NAMES: tuple[str, ...] = tuple(KINDS)
"""Bet kinds in display order; the kernel's bet index is the position here."""


# --- the cells, enumerated from the drawing rules ---------------------------------------


PLAY_CELLS: tuple[PlayCell, ...] = tuple(
    PlayCell(pt, bt, pc, bc) for pt, bt, pc, bc in product(range(10), range(10), (2, 3), (2, 3))
)
"""All play cells, dense, in `roads_app.game.hand.play_index` order (some cannot occur)."""

PAIR_CELLS: tuple[PairCell, ...] = tuple(PairCell(p, b) for p, b in product(range(3), range(3)))
"""All pair cells, in `roads_app.game.hand.pair_index` order."""
assert all(play_index(*astuple(c)) == i for i, c in enumerate(PLAY_CELLS)), "play cell order"
assert all(pair_index(c.player, c.banker) == i for i, c in enumerate(PAIR_CELLS)), "pair order"


def _possible_play() -> np.ndarray:
    """Which play cells the drawing rules can produce (two-card totals × third cards)."""
    out = np.zeros(N_PLAY, dtype=np.bool_)
    for p2, b2 in product(range(10), range(10)):
        p_thirds: list[int | None] = list(range(10)) if player_draws(p2, b2) else [None]
        for p3 in p_thirds:
            pf = p2 if p3 is None else hand_total(p2 + p3)
            draws = banker_draws(b2, p3, p2)
            for b3 in range(10) if draws else [None]:
                bf = b2 if b3 is None else hand_total(b2 + b3)
                out[play_index(pf, bf, 2 if p3 is None else 3, 2 if b3 is None else 3)] = True
    return out


POSSIBLE_PLAY: np.ndarray = _possible_play()
"""bool[N_PLAY]: play cells that can occur."""


def resolve_payouts(kind: BetKind, given: Mapping[str, float]) -> dict[str, float]:
    """Every payout key of ``kind`` with its figure, defaults filled in from ``given``."""
    return {k: float(given[k] if k in given else given[kind.defaults[k]]) for k in kind.payouts}


def cell_results(kind: BetKind) -> tuple[str, ...]:
    """The kind's result on every cell of its space, in cell order (tabulated once)."""
    return _tabulated(kind.kind)[0]


@functools.cache
def _tabulated(name: str) -> tuple[tuple[str, ...], np.ndarray]:
    """(results, codes): codes index ``(lose, push, refund, *payout keys)``."""
    kind = KINDS[name]
    cells = PLAY_CELLS if kind.space == "play" else PAIR_CELLS
    results = tuple(kind.rule(c) for c in cells)  # type: ignore[arg-type]
    order = (LOSE, PUSH, REFUND, *kind.payouts)
    codes = np.array([order.index(r) for r in results], dtype=np.int64)
    codes.setflags(write=False)
    return results, codes


def unit_returns(kind: BetKind, payouts: Mapping[str, float]) -> np.ndarray:
    """Net result of one unit staked on every cell of the kind's space.

    A win pays ``payouts[key]``; push and refund 0; a loss -1.
    """
    net = np.array([-1.0, 0.0, 0.0, *(payouts[k] for k in kind.payouts)])
    return net[_tabulated(kind.kind)[1]]
