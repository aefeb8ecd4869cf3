"""The API by floor table: list and read tables, deal a round at a table, shuffle it,
open or close it, follow it across its shoes, and the lobby's one stream of every table.

The work is `floor_feed.Tables`'s (one store transaction each, an ``Idempotency-Key``
answered once) and the streams `floor_stream`'s; this module maps HTTP onto them.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from fastapi import Path as PathParam
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from roads_app.api import fanout
from roads_app.api.access import Read, Writer
from roads_app.api.context import Api, Ctx
from roads_app.api.events import EventStream
from roads_app.api.floor_feed import refusal
from roads_app.api.floor_stream import follow_table
from roads_app.api.models import (
    FloorTableOut,
    Problem,
    RoundIn,
    TableAppendOut,
    TableStateIn,
    TableSummaryOut,
)
from roads_app.api.writes import REFUSALS, Key, answer, appends
from roads_app.errors import FloorError
from roads_app.game.floor import Move, check_table_code

Code = Annotated[str, PathParam(max_length=64, description="the table's code, like B07")]
CONFLICT: dict[int | str, dict[str, Any]] = {**REFUSALS, 409: {"model": Problem}}

router = APIRouter()


@router.get("/tables", response_model=list[FloorTableOut], dependencies=[Read])
async def tables(api: Ctx) -> Any:
    """The floor's tables in floor order: state, current shoe and its number of the day.
    (Until the floor's tables, ``GET /tables`` listed the payout rule sets: that is
    ``GET /rules`` now.)"""
    return await api.run(api.tables.list)


@router.get(
    "/tables/{code}",
    response_model=TableSummaryOut,
    dependencies=[Read],
    responses={404: {"model": Problem}},
)
async def table(api: Ctx, code: Code) -> Any:
    """A table and its current (or last) shoe: counts, last results, good roads, big road."""
    return await api.run(api.tables.get, code)


def _written(api: Api, reply: Any) -> Any:
    api.hub.changed("")  # the watcher looks now: the table's followers hear at once
    return answer(api, reply)


@appends.post(
    "/tables/{code}/rounds",
    status_code=201,
    response_model=TableAppendOut,
    responses=CONFLICT,
)
async def deal(api: Ctx, who: Writer, code: Code, body: RoundIn, key: Key = None) -> Any:
    """Deal a round at a table: to its current shoe, or to a new one (numbered next of
    the day) when the table is shuffling; refused (409) when it is closed. Entered and
    checked as a shoe's round is (``POST /shoes/{id}/rounds``); send an
    ``Idempotency-Key`` so that a retry never deals the hand twice."""
    start = time.perf_counter()
    try:
        return _written(api, await api.append(api.tables.append, code, body, key, who))
    finally:  # measured as a shoe's append is (``/metrics``)
        if api.metrics.append_seconds is not None:
            api.metrics.append_seconds.observe(time.perf_counter() - start)


@router.post(
    "/tables/{code}/shuffle",
    response_model=FloorTableOut,
    responses=CONFLICT,
)
async def shuffle(api: Ctx, who: Writer, code: Code, key: Key = None) -> Any:
    """The dealer shuffles: the table's shoe ends, and the table shows ``shuffling``
    until the first round of its next shoe. A shuffle sent twice is refused (409). No body."""
    return _written(api, await api.run(api.tables.move, code, Move.SHUFFLE, key, who))


@router.post(
    "/tables/{code}/state",
    response_model=FloorTableOut,
    responses=CONFLICT,
)
async def state(api: Ctx, who: Writer, code: Code, body: TableStateIn, key: Key = None) -> Any:
    """Put a table in a state: ``open``, ``closed`` (its shoe ends) or ``shuffling``
    (as ``/shuffle``). A move its state does not allow is refused (409); a state that
    does not exist, 422."""
    return _written(api, await api.run(api.tables.set_state, code, body.state, key, who))


async def _existing(api: Ctx, code: Code) -> None:
    """A 404 (or 422 for a malformed code) before a stream starts."""
    try:
        await api.run(api.feed.store.floor.get, check_table_code(code))
    except FloorError as e:
        raise refusal(e) from None


class TableStream(StreamingResponse):
    """A table's stream of Server-Sent Events (`floor_stream.follow_table`): its own
    bytes and its shoes' (shared frames from the shoe's channel)."""

    media_type = EventStream.media_type

    def __init__(self, content: AsyncIterator[bytes]) -> None:
        # no caching, and no buffering by a proxy in between (nginx reads this header)
        super().__init__(content, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


class LobbyStream(EventStream):
    """The lobby's stream: each frame made once and written to every follower
    (`floor_stream.Lobby` over `fanout`), as a shoe's stream is."""

    def __init__(self, follow: Callable[[fanout.Outlet], Awaitable[fanout.Follower]]) -> None:
        super().__init__(None, "")  # type: ignore[arg-type]
        self.follow = follow

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        await fanout.serve(scope, receive, send, self.follow)


STREAM = {
    200: {"content": {EventStream.media_type: {}}, "description": "events, as they happen"},
    404: {"model": Problem},
}


@router.get(
    "/tables/{code}/events",
    response_class=TableStream,
    status_code=200,
    dependencies=[Read, Depends(_existing)],
    responses=STREAM,  # type: ignore[arg-type]
)
async def table_events(api: Ctx, code: Code) -> TableStream:
    """Server-Sent Events of one table across its shoes: ``table`` (its row) first, then
    its shoe's ``snapshot`` / ``append`` / ``reset``; ``state`` when it opens, shuffles
    or closes; ``shoe`` when its next shoe starts (then that shoe's ``snapshot``)."""
    code = check_table_code(code)
    return TableStream(follow_table(code, api.watcher, api.hub, api.feed.store.floor.get, api.run))


@router.get(
    "/lobby/events",
    response_class=LobbyStream,
    status_code=200,
    dependencies=[Read],
    responses=STREAM,  # type: ignore[arg-type]
)
async def lobby_events(api: Ctx) -> LobbyStream:
    """Server-Sent Events of every table: ``lobby`` (every table's summary, in floor
    order: state, shoe number, counts, last results, good roads, big road) first, then
    a ``table`` event with a table's new summary each time it or its shoe changes."""
    return LobbyStream(api.lobby.follow)
