"""Following a shoe: its Server-Sent Events, made by `stream.Hub` and written by
`fanout` (each event's bytes made once and written to every follower's connection).

(Not FastAPI's own Server-Sent Events, nor a generator per follower: those run a task
and encode or copy every event for each follower.)
"""

from __future__ import annotations

from fastapi import APIRouter, Depends
from starlette.responses import Response
from starlette.types import Receive, Scope, Send

from roads_app.api import fanout
from roads_app.api.access import Reader
from roads_app.api.context import Ctx, ShoeId
from roads_app.api.models import Problem
from roads_app.api.service import NotFound
from roads_app.api.stream import Hub
from roads_app.errors import quote


class EventStream(Response):
    """A shoe's stream of Server-Sent Events: the status line and headers, then whatever
    `stream.Hub` writes to this follower, until the shoe is gone, the follower falls too
    far behind or the client goes away."""

    media_type = "text/event-stream"

    def __init__(self, hub: Hub, shoe_id: str, who: str | None = None) -> None:
        # no caching, and no buffering by a proxy in between (nginx reads this header)
        super().__init__(headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        # no content-length: the body streams (chunked)
        self.raw_headers = [h for h in self.raw_headers if h[0] != b"content-length"]
        self.hub = hub
        self.shoe_id = shoe_id
        self.keyed = who is not None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": self.raw_headers})
        await fanout.serve(
            scope, receive, send, lambda out: self.hub.follow(self.shoe_id, out, keyed=self.keyed)
        )


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
    its id is the version. A stream opened with a token ends when the server learns of
    a revoke (before any change committed after it is sent); the client connects again,
    and is let back in while its token holds.
    """
    return EventStream(api.hub, shoe_id, who)
