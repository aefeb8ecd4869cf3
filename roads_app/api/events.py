"""Following a shoe: its Server-Sent Events, made by `stream.Hub`.

(Not FastAPI's own Server-Sent Events: those encode every event again for each
follower, and 2,000 followers filled the event loop.)
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator

from fastapi import APIRouter, Depends
from starlette.responses import StreamingResponse

from roads_app.api.access import Reader
from roads_app.api.context import Api, Ctx, ShoeId
from roads_app.api.models import Problem
from roads_app.api.service import NotFound
from roads_app.errors import quote


class EventStream(StreamingResponse):
    """A stream of Server-Sent Events, each event's bytes made by `stream.Hub` (shared by
    every follower of the shoe, not encoded again for each)."""

    media_type = "text/event-stream"

    def __init__(self, content: AsyncIterator[bytes]) -> None:
        # no caching, and no buffering by a proxy in between (nginx reads this header)
        super().__init__(content, headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})


async def existing(api: Ctx, shoe_id: ShoeId) -> None:
    """A 404 before a stream starts (once it has, the status line is sent). A shoe the
    watcher knows needs no read; one it has not seen yet (made a moment ago) is looked up."""
    if api.watcher.version(shoe_id) is None and await api.run(api.feed.version, shoe_id) is None:
        raise NotFound(f"no shoe {quote(shoe_id)} (it never existed or is in the trash)")


router = APIRouter()


@router.get(
    "/shoes/{shoe_id}/events",
    response_class=EventStream,
    status_code=200,
    dependencies=[Depends(existing)],
    responses={
        200: {
            "content": {EventStream.media_type: {}},
            "description": "the shoe's events, as they happen",
        },
        404: {"model": Problem},
    },
)
async def events(api: Ctx, who: Reader, shoe_id: ShoeId) -> EventStream:
    """Server-Sent Events of one shoe: ``snapshot``, then ``append`` / ``reset`` / ``gone``.

    Every event's data is ``{"version": V, "rounds": [...], "good_roads": [...]}`` and
    its id is the version.
    """
    return EventStream(while_held(api, who, api.hub.follow(shoe_id)))


async def while_held(
    api: Api, who: str | None, chunks: AsyncGenerator[bytes, None]
) -> AsyncIterator[bytes]:
    """The stream's bytes while the reader's token holds: after the process's watcher
    saw a revoke (it tells of one before any change committed after it), the token is
    asked again before the next event, and the stream ends if it was revoked."""
    seen = api.watcher.tokens
    try:
        async for chunk in chunks:
            if api.watcher.tokens != seen:
                seen = api.watcher.tokens
                if who is not None and await api.run(api.feed.role_now, who) is None:
                    return
            yield chunk
    finally:
        await chunks.aclose()
