"""The schemas of what comes in from a file: one round, a JSON shoe document.

Shoe metadata has its schema on `ShoeMeta` itself; the rules tables have theirs in
`roads_app.bets.tables`. All are pydantic v2 models: the team's one validation library
(FastAPI's too), strict about types (``1.5`` is not a point total, ``2`` is not a
flag, a string of cards is not a list of cards) and about unknown fields.

CSV cells arrive as text, so a CSV row is validated by the same `RoundIn` in
pydantic's lax mode, which turns ``"7"`` into 7 and ``"true"`` into True but refuses
``"1.5"`` or ``"2"`` for a flag: the same model, one meaning for every column.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from roads_app.errors import StorageError, validation_message
from roads_app.messages import Message

CARD_CODE = Annotated[str, Field(min_length=2, max_length=3)]
"""A card code as written in a file (``9s``, ``Td``, ``10h``); its meaning is checked later."""


class RoundIn(BaseModel):
    """One round as a file gives it; absent fields are unknown (null), never guessed."""

    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    round: Annotated[int, Field(ge=1, le=10_000)] | None = None
    winner: Annotated[str, Field(min_length=1, max_length=6)]
    player_points: Annotated[int, Field(ge=0, le=9)] | None = None
    banker_points: Annotated[int, Field(ge=0, le=9)] | None = None
    player_pair: bool | None = None
    banker_pair: bool | None = None
    player_natural: bool | None = None
    banker_natural: bool | None = None
    player_cards: Annotated[list[CARD_CODE], Field(min_length=2, max_length=3)] | None = None
    banker_cards: Annotated[list[CARD_CODE], Field(min_length=2, max_length=3)] | None = None
    round_code: Annotated[str, Field(max_length=64)] | None = None
    """A floor table's round code (``B07-20261205-03-42``), written by an export of a
    table's shoe and read back as nothing: a shoe imported belongs to no table."""


FIELDS: tuple[str, ...] = tuple(RoundIn.model_fields)
ROUND_CODE = "round_code"
"""The round-code column (`RoundIn.round_code`)."""
"""The columns a shoe file may have, in order."""


class ShoeDocument(BaseModel):
    """A JSON shoe: ``{"format": ..., "meta": {...}, "rounds": ...}``.

    ``rounds`` is a string of results (``"BPPT"``), a list of results, or a list of
    round objects; its items are checked one by one (`RoundIn`) so an error names the round.
    ``meta`` is checked by `ShoeMeta`'s schema.
    """

    model_config = ConfigDict(strict=True, extra="forbid")

    format: Annotated[str, Field(pattern=r"^roads-app/1$")] | None = None
    meta: dict[str, Any] | None = None
    rounds: Any  # a str or a list; told apart by the reader, for a clearer message


def round_in(row: dict[str, Any], where: str, *, lax: bool = False) -> RoundIn:
    """Validate one round; one-line `StorageError` naming ``where`` (row, field)."""
    try:
        return RoundIn.model_validate(row, strict=not lax)
    except ValidationError as e:
        raise StorageError(validation_message(e.errors(), where)) from None


def document(doc: object, label: str) -> ShoeDocument:
    """Validate a parsed JSON shoe document's outer shape."""
    if isinstance(doc, str | list):
        doc = {"rounds": doc}
    if not isinstance(doc, dict):
        raise StorageError(
            Message("msg_doc_shape", label=label, field="'rounds'", type=type(doc).__name__)
        )
    try:
        return ShoeDocument.model_validate(doc)
    except ValidationError as e:
        raise StorageError(validation_message(e.errors(), label)) from None
