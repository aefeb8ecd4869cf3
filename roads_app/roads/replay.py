"""Replaying a shoe: the position, its URL form, and the card-by-card reveal of a hand.

The position is the number of rounds shown (0 = nothing dealt yet, n = the board as it
stood after round n). ``?shoe=<id>&round=<n>`` names a position so it can be shared;
a round past the end is clamped to the end, a bad one is refused in one line.

The reveal follows the "peek" order of seed 003's Premium tables: the four first cards
are dealt face down Player, Banker, Player, Banker, then turned in that order, then the
third cards are dealt (Player first, then Banker) and turned.

>>> [s.caption for s in reveal_steps(["9s", "Kd"], ["5c", "2h"])]
['dealt face down', 'Player card 1', 'Banker card 1', 'Player card 2', 'Banker card 2']
>>> reveal_steps(["9s", "Kd"], ["5c", "2h"])[2].player
('9s', '?')
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from roads_app.errors import RoundError, quote
from roads_app.game.hand import Side
from roads_app.messages import Message

SPEEDS: dict[str, float] = {"0.5 / s": 0.5, "1 / s": 1.0, "2 / s": 2.0, "5 / s": 5.0}
"""Replay speeds offered, in rounds a second (5 a second at most)."""

MAX_SPEED = 5.0

CARD_BEATS: dict[str, float] = {"0.25 s": 0.25, "0.5 s": 0.5, "1 s": 1.0, "2 s": 2.0}
"""Seconds between two cards of the reveal, offered; a squeeze turns about one a second."""
DEFAULT_BEAT = "1 s"

FACE_DOWN = "?"
"""How a card dealt but not turned yet is shown (None = not dealt yet)."""


@dataclass(frozen=True, slots=True)
class RevealStep:
    """What the table shows at one moment of a hand: a card code, FACE_DOWN, or None."""

    player: tuple[str | None, ...]
    banker: tuple[str | None, ...]
    caption: str


def reveal_steps(player_cards: Sequence[str], banker_cards: Sequence[str]) -> list[RevealStep]:
    """Every moment of the peek reveal, the last one showing the whole hand."""
    if len(player_cards) not in (2, 3) or len(banker_cards) not in (2, 3):
        raise RoundError(Message("msg_reveal_cards", p=len(player_cards), b=len(banker_cards)))
    p: list[str | None] = [FACE_DOWN, FACE_DOWN, None]
    b: list[str | None] = [FACE_DOWN, FACE_DOWN, None]

    def shot(caption: str) -> RevealStep:
        return RevealStep(tuple(p[: len(player_cards)]), tuple(b[: len(banker_cards)]), caption)

    steps = [
        RevealStep(
            (FACE_DOWN, FACE_DOWN) + (None,) * (len(player_cards) - 2),
            (FACE_DOWN, FACE_DOWN) + (None,) * (len(banker_cards) - 2),
            "dealt face down",
        )
    ]
    for side, i in ((Side.PLAYER, 0), (Side.BANKER, 0), (Side.PLAYER, 1), (Side.BANKER, 1)):
        if side is Side.PLAYER:
            p[i] = player_cards[i]
        else:
            b[i] = banker_cards[i]
        steps.append(shot(f"{side.name.title()} card {i + 1}"))
    if len(player_cards) == 3:
        p[2] = player_cards[2]
        steps.append(shot("Player third card"))
    if len(banker_cards) == 3:
        b[2] = banker_cards[2]
        steps.append(shot("Banker third card"))
    return steps


def clamp(position: int, n_rounds: int) -> int:
    """A position within 0..n_rounds."""
    return max(0, min(int(position), n_rounds))


def can_step(position: int, n_rounds: int, delta: int) -> bool:
    """Whether previous (-1) / next (+1) leads anywhere."""
    return 0 <= position + delta <= n_rounds


def step(position: int, n_rounds: int, delta: int) -> int:
    """The position after previous / next, kept inside the shoe."""
    return clamp(position + delta, n_rounds)


def parse_round(value: object, n_rounds: int) -> int:
    """The ``round`` query parameter: a whole number; past the end means the end.

    >>> parse_round("12", 80), parse_round("500", 80), parse_round(None, 80)
    (12, 80, 80)
    """
    if value is None or value == "":
        return n_rounds
    text = str(value).strip()
    if not text.isdigit():
        raise RoundError(Message("msg_address_round", value=quote(value)))
    return clamp(int(text), n_rounds)


def query_for(shoe_id: str, position: int) -> dict[str, str]:
    """The query parameters that reopen this position (``?shoe=<id>&round=<n>``)."""
    return {"shoe": shoe_id, "round": str(int(position))}


def first(params: Mapping[str, object], key: str) -> str | None:
    """One value of a query parameter, whether it came as a string or a list."""
    v = params.get(key)
    if isinstance(v, list | tuple):
        v = v[0] if v else None
    return None if v is None else str(v)


def play_interval(speed: float) -> float:
    """Seconds between two rounds at ``speed`` rounds a second (5 a second at most)."""
    if not speed > 0:
        raise RoundError(Message("msg_replay_speed", speed=quote(speed)))
    return 1.0 / min(float(speed), MAX_SPEED)


def reveal_seconds(player_cards: Sequence[str], banker_cards: Sequence[str], beat: float) -> float:
    """Seconds from the deal to the hand's last card turning: the four first cards dealt
    face down, then each card turned on its own ``beat``, as a squeeze does.

    >>> reveal_seconds(["9s", "Kd"], ["5c", "2h"], 1.0)
    4.0
    >>> reveal_seconds(["2s", "3d", "4h"], ["5c", "Kh", "Ac"], 0.5)
    3.0
    """
    return (len(reveal_steps(player_cards, banker_cards)) - 1) * beat


def due_position(start: int, elapsed: float, periods: Sequence[float]) -> int:
    """Where autoplay stands ``elapsed`` seconds after it left position ``start``, when
    showing round ``start + i + 1`` takes ``periods[i]`` seconds (its reveal, then the
    pause of the chosen speed): a slow draw skips ahead instead of falling behind.

    >>> [due_position(3, t, [1.0, 2.0]) for t in (0.0, 1.0, 2.9, 9.0)]
    [3, 4, 4, 5]
    """
    pos, spent = start, 0.0
    for period in periods:
        spent += period
        if elapsed + 1e-9 < spent:
            return pos
        pos += 1
    return pos
