"""Changing a shoe: create, append, undo, void, end. Each takes an ``Idempotency-Key``
(a retry is answered from the stored answer, not done again) and tells the event hub
the shoe changed."""

from __future__ import annotations

import time
from typing import Annotated, Any

from fastapi import APIRouter, Header
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse

from roads_app.api.access import Writer
from roads_app.api.context import Api, Ctx, ShoeId
from roads_app.api.models import AppendOut, ChangeOut, Problem, RoundIn, ShoeCreate, ShoeSummary
from roads_app.api.service import Reply
from roads_app.game.rounds import MOST_ROUNDS

KEY_HEADER = "Idempotency-Key"
REPLAYED_HEADER = "Idempotent-Replayed"
REFUSALS: dict[int | str, dict[str, Any]] = {404: {"model": Problem}, 422: {"model": Problem}}

Key = Annotated[
    str | None,
    Header(
        alias=KEY_HEADER,
        max_length=200,
        description="a retried request with the same key is answered, not done again",
    ),
]
RoundNo = Annotated[int, PathParam(ge=1, le=MOST_ROUNDS, description="1 is the first round")]

router = APIRouter()
appends = APIRouter()
"""The two routes a card-reading shoe calls once a hand (``POST /shoes/{id}/rounds``,
``POST /tables/{code}/rounds``): the app includes them before every other router, as
a request is matched route by route in order (a table's was tried after 18 others)."""


def answer(api: Api, reply: Reply, shoe_id: str | None = None) -> JSONResponse:
    """A write's reply as HTTP; a change done now (not replayed) wakes the shoe's followers."""
    if shoe_id is not None and not reply.replayed:
        api.hub.changed(shoe_id)
    headers = {REPLAYED_HEADER: "true"} if reply.replayed else None
    return JSONResponse(reply.body, status_code=reply.status, headers=headers)


@router.post(
    "/shoes",
    status_code=201,
    response_model=ShoeSummary,
    responses={422: {"model": Problem}},
)
async def create_shoe(api: Ctx, who: Writer, body: ShoeCreate, key: Key = None) -> Any:
    """Start a new shoe at a table."""
    return answer(api, await api.run(api.feed.create, body, key, who))


@appends.post(
    "/shoes/{shoe_id}/rounds",
    status_code=201,
    response_model=AppendOut,
    responses=REFUSALS,
)
async def append(api: Ctx, who: Writer, shoe_id: ShoeId, body: RoundIn, key: Key = None) -> Any:
    """Append a round by winner (+ flags), by points or by cards.

    Checked by the same rules as the dashboard; a refusal is a 4xx with the reason
    and leaves the shoe as it was. Send an ``Idempotency-Key`` so that a retry after
    a lost answer never enters the hand twice.
    """
    start = time.perf_counter()
    try:
        return answer(api, await api.append(api.feed.append, shoe_id, body, key, who), shoe_id)
    finally:  # a refusal's time too: what the feeder waited
        if api.metrics.append_seconds is not None:
            api.metrics.append_seconds.observe(time.perf_counter() - start)


@router.post("/shoes/{shoe_id}/undo", response_model=ChangeOut, responses=REFUSALS)
async def undo(api: Ctx, who: Writer, shoe_id: ShoeId, key: Key = None) -> Any:
    """Take back the last round."""
    return answer(api, await api.run(api.feed.undo, shoe_id, key, who), shoe_id)


@router.post(
    "/shoes/{shoe_id}/rounds/{round_no}/void",
    response_model=ChangeOut,
    responses=REFUSALS,
)
async def void(api: Ctx, who: Writer, shoe_id: ShoeId, round_no: RoundNo, key: Key = None) -> Any:
    """Void a round (a misdeal): it leaves the roads; the history keeps it."""
    return answer(api, await api.run(api.feed.void, shoe_id, round_no, key, who), shoe_id)


@router.post(
    "/shoes/{shoe_id}/end",
    response_model=ChangeOut,
    responses={**REFUSALS, 409: {"model": Problem}},
)
async def end(api: Ctx, who: Writer, shoe_id: str, key: Key = None) -> Any:
    """End the shoe (the cut card's last hand was played, or the table closed it):
    it leaves the wall of live tables, and every later append is refused (409).
    No body."""
    return answer(api, await api.run(api.feed.end, shoe_id, key, who), shoe_id)
