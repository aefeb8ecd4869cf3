"""Request and response bodies of the API (pydantic v2; FastAPI documents them).

The models check shape and types only. What a round may be (drawing rules, card
counts, a winner that agrees with the points) is decided by `roads_app.game.rounds`,
the same entry operations the dashboard calls, so the two can never disagree.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from roads_app.game import MAX_DECKS
from roads_app.game.hand import WINNERS, Winner
from roads_app.game.rounds import FLAGS, EntryMode
from roads_app.places import DEFAULT_TABLE

WinnerSpelling = Literal[(*WINNERS, *(w.lower() for w in WINNERS), *(w.word for w in Winner))]  # type: ignore[misc]
"""How a winner may be written to the API: B/P/T, b/p/t, banker/player/tie."""
Points = Annotated[int, Field(ge=0, le=9)]
Card = Annotated[str, Field(max_length=8)]  # "As", "10h": a longer code is no card


class _Body(BaseModel):
    """Strict, as the file importers are: ``"yes"`` or ``1`` is not a flag, ``"7"`` is
    not a point total; a flag is a JSON boolean."""

    model_config = ConfigDict(extra="forbid", strict=True)


class ShoeCreate(_Body):
    """A new shoe at a table; ``decks`` defaults to the table's shoe."""

    name: str = Field("", max_length=200, description="shown in the library and lobby")
    table: str = Field(DEFAULT_TABLE, max_length=64, description="rules, see GET /rules")
    decks: int | None = Field(None, ge=1, le=MAX_DECKS, description="decks (the rules' if omitted)")


class RoundIn(_Body):
    """One round, entered one of three ways (the fields given say which).

    * by cards: ``player_cards`` and ``banker_cards`` (codes like ``"As"``, ``"Td"``);
      checked against the drawing rules and the shoe's decks; everything else follows;
    * by points: ``player_points`` and ``banker_points`` (0-9), optional flags;
    * by winner: ``winner`` (``B``/``P``/``T``) with optional pair/natural flags.
    """

    winner: WinnerSpelling | None = None
    player_points: Points | None = None
    banker_points: Points | None = None
    player_cards: list[Card] | None = Field(None, max_length=3)
    banker_cards: list[Card] | None = Field(None, max_length=3)
    player_pair: bool | None = None
    banker_pair: bool | None = None
    player_natural: bool | None = None
    banker_natural: bool | None = None

    @model_validator(mode="after")
    def _one_way(self) -> RoundIn:
        by_cards = self.player_cards is not None or self.banker_cards is not None
        by_points = self.player_points is not None or self.banker_points is not None
        if by_cards:
            if self.player_cards is None or self.banker_cards is None:
                raise ValueError("a round by cards needs both player_cards and banker_cards")
            extra = [
                k
                for k in ("winner", "player_points", "banker_points", *FLAGS)
                if getattr(self, k) is not None
            ]
            if extra:
                raise ValueError(
                    f"a round by cards takes nothing else: {', '.join(extra)} follow from the cards"
                )
        elif by_points:
            if self.player_points is None or self.banker_points is None:
                raise ValueError("a round by points needs both player_points and banker_points")
        elif self.winner is None:
            raise ValueError("give winner, or player_points and banker_points, or the cards")
        return self

    @property
    def mode(self) -> EntryMode:
        """How this round is entered (the validator made sure it is one way)."""
        return EntryMode.of(dict(self))

    def flags(self) -> dict[str, bool | None]:
        return {k: getattr(self, k) for k in FLAGS}


class RoundOut(BaseModel):
    """A round as stored: the rounds-frame columns (nulls where it was entered without)."""

    round: int
    winner: Literal[WINNERS]  # type: ignore[valid-type]
    player_points: int | None = None
    banker_points: int | None = None
    player_pair: bool | None = None
    banker_pair: bool | None = None
    player_natural: bool | None = None
    banker_natural: bool | None = None
    player_cards: list[str] | None = None
    banker_cards: list[str] | None = None


class ShoeSummary(BaseModel):
    """A shoe in a list: who it is and how far it has got."""

    id: str
    name: str
    table: str
    decks: int
    source: str
    created: str
    round_count: int
    version: int
    ended: str | None = None
    """When the shoe ended (None: still being played); an ended shoe takes no more rounds."""


class ShoeOut(ShoeSummary):
    """A whole shoe: its rounds, statistics and the five roads as grid cells."""

    rounds: list[RoundOut]
    stats: dict[str, Any]
    roads: dict[str, list[dict[str, Any]]]
    good_roads: list[str]  # the good roads (好路) that hold now, priority order


class AppendOut(BaseModel):
    """What an append made: the shoe's new version and the round as stored."""

    shoe: str
    version: int
    round: RoundOut


class ChangeOut(BaseModel):
    """What an undo or a void made."""

    shoe: str
    version: int
    rounds: int


class TableOut(BaseModel):
    name: str
    title: str
    decks: int
    source: str


class FloorTableOut(BaseModel):
    """A floor table: its code, name, rules, limits, floor position, state, and its
    current (or last) shoe with that shoe's number of the day."""

    code: str
    name: str
    rules: str
    limits: dict[str, dict[str, float] | None]
    position: int
    state: str
    shoe: str | None
    shoe_number: int | None
    shoe_day: str | None
    round_count: int
    shoe_ended: bool
    version: int


class TableSummaryOut(FloorTableOut):
    """A table as a lobby tile shows it: its current shoe's counts, last results (the
    newest last), good roads and big road (``[col, row, round, winner]`` cells)."""

    counts: dict[str, Any] | None
    last: list[str]
    last_round_code: str | None = None
    good_roads: list[str]
    big_road: list[list[Any]]


class TableAppendOut(BaseModel):
    """What a round dealt at a table made: the shoe it went to (``started``: begun by this
    round, after a shuffle), the shoe's version, the round as stored and its code."""

    table: str
    shoe: str
    shoe_number: int | None
    started: bool
    version: int
    round: RoundOut
    round_code: str | None


class TableStateIn(_Body):
    """The state a table is put in: ``open``, ``shuffling`` or ``closed``."""

    state: str = Field(max_length=32)


class Problem(BaseModel):
    """Every refusal: a one-line reason."""

    detail: str


class GoodRoadShoe(ShoeSummary):
    """A live shoe on a good road: the keys that hold now, headline first."""

    good_roads: list[str]
    headline: str
