"""The punto banco drawing rules (the "tableau"), with no options.

Deal order: Player, Banker, Player, Banker; then Player's third card, then Banker's.
A natural (two-card 8 or 9) on either hand: both stand. Player draws on 0-5.
If Player stood, Banker draws on 0-5. If Player drew, Banker draws by its own total
and the *point value* of Player's third card, per `BANKER_DRAWS_ON` below.

Seed 002 says "Banker 6: if Player is 6 or 7 then no more card"; that is only right
for the Player's two-card total. With a Player third card of 6 or 7 Banker on 6 draws.

>>> banker_draws(6, player_third=7)
True
>>> banker_draws(3, player_third=8)
False
>>> play_hand(iter(["9s", "5d", "Kc", "2h"])).winner
<Winner.PLAYER: 'P'>
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from roads_app.errors import DrawingRuleError
from roads_app.game import cards as playing_cards
from roads_app.game.hand import Side, Winner, natural, winner_of
from roads_app.messages import Message, side

BANKER_DRAWS_ON: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset(range(10)) - {8},
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}
"""Banker's two-card total -> Player third-card point values on which Banker draws."""


def player_draws(player_total: int, banker_total: int) -> bool:
    """Whether Player takes a third card, given both two-card totals."""
    if natural(player_total) or natural(banker_total):
        return False
    return player_total <= 5


def banker_draws(banker_total: int, player_third: int | None, player_total: int = 0) -> bool:
    """Whether Banker takes a third card.

    ``player_third`` is the point value of Player's third card, or None if Player stood
    (then ``player_total`` is Player's two-card total, used only to spot a natural).
    """
    if natural(banker_total) or (player_third is None and natural(player_total)):
        return False
    if player_third is None:
        return banker_total <= 5
    return player_third in BANKER_DRAWS_ON[banker_total]


def _table(fn: Callable[[int, int], bool], rows: int, cols: int) -> np.ndarray:
    """The rule as a read-only boolean array, so compiled code reads it instead of restating it."""
    out = np.array([[fn(r, c) for c in range(cols)] for r in range(rows)], dtype=np.bool_)
    out.setflags(write=False)
    return out


PLAYER_DRAWS: np.ndarray = _table(player_draws, 10, 10)
"""[player two-card total, banker two-card total] -> Player draws (for compiled code)."""

BANKER_DRAWS_STOOD: np.ndarray = _table(lambda b, p: banker_draws(b, None, p), 10, 10)
"""[banker two-card total, player two-card total] -> Banker draws when Player stood."""

BANKER_DRAWS_AFTER: np.ndarray = _table(lambda b, t: banker_draws(b, t), 10, 10)
"""[banker two-card total, point of Player's third card] -> Banker draws."""


@dataclass(frozen=True, slots=True)
class Hand:
    """One dealt round: the cards and everything bets settle on."""

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]

    @property
    def player_points(self) -> int:
        return playing_cards.points(self.player_cards)

    @property
    def banker_points(self) -> int:
        return playing_cards.points(self.banker_cards)

    @property
    def winner(self) -> Winner:
        return Winner.of(winner_of(self.banker_points, self.player_points))

    @property
    def player_pair(self) -> bool:
        return playing_cards.is_pair(self.player_cards)

    @property
    def banker_pair(self) -> bool:
        return playing_cards.is_pair(self.banker_cards)

    @property
    def player_natural(self) -> bool:
        return playing_cards.is_natural(self.player_cards)

    @property
    def banker_natural(self) -> bool:
        return playing_cards.is_natural(self.banker_cards)


def play_hand(deal: Iterator[str]) -> Hand:
    """Play one round out of a card source, drawing exactly as the rules say."""
    p = [next(deal)]
    b = [next(deal)]
    p.append(next(deal))
    b.append(next(deal))
    pt, bt = playing_cards.points(p), playing_cards.points(b)
    third: int | None = None
    if player_draws(pt, bt):
        p.append(next(deal))
        third = playing_cards.point(p[2])
    if banker_draws(bt, third, pt):
        b.append(next(deal))
    return Hand(tuple(p), tuple(b))


def check_hand(player_cards: Sequence[str], banker_cards: Sequence[str]) -> Hand:
    """Validate a hand entered by cards; DrawingRuleError names the rule it breaks."""
    p = playing_cards.parse_cards(player_cards)
    b = playing_cards.parse_cards(banker_cards)
    for who, hand in ((Side.PLAYER, p), (Side.BANKER, b)):
        if not 2 <= len(hand) <= 3:
            raise DrawingRuleError(Message("msg_hand_cards", side=side(who.word), n=len(hand)))
    pt, bt = playing_cards.points(p[:2]), playing_cards.points(b[:2])
    if (natural(pt) or natural(bt)) and (len(p) == 3 or len(b) == 3):
        who = Side.PLAYER if natural(pt) else Side.BANKER
        total = pt if natural(pt) else bt
        raise DrawingRuleError(Message("msg_natural_stands", side=side(who.word), total=total))
    must_p = player_draws(pt, bt)
    if must_p and len(p) == 2:
        raise DrawingRuleError(Message("msg_player_must_draw", pt=pt))
    if not must_p and len(p) == 3:
        raise DrawingRuleError(Message("msg_player_must_stand", pt=pt, card=p[2]))
    third = playing_cards.point(p[2]) if len(p) == 3 else None
    must_b = banker_draws(bt, third, pt)
    if must_b != (len(b) == 3):
        raise DrawingRuleError(_banker_rule_message(bt, third, p, must_b))
    return Hand(tuple(p), tuple(b))


def _banker_rule_message(bt: int, third: int | None, p: Sequence[str], must: bool) -> Message:
    act = Message("msg_must_draw" if must else "msg_must_stand")
    if third is None:
        rule = Message("msg_rule_player_stood")
        return Message("msg_banker_player_stood", bt=bt, act=act, rule=rule)
    draws_on = sorted(BANKER_DRAWS_ON[bt])
    if bt <= 2:
        rule = Message("msg_rule_banker_low")
    elif bt == 7:
        rule = Message("msg_rule_banker_7")
    else:
        rule = Message("msg_rule_banker_on", bt=bt, values=_values(draws_on))
    return Message("msg_banker_third", bt=bt, card=p[2], third=third, act=act, rule=rule)


def _values(vals: list[int]) -> str:
    if len(vals) == 1:
        return str(vals[0])
    return Message("msg_or", a=", ".join(str(v) for v in vals[:-1]), b=vals[-1])
