"""What every router shares, kept on the app (``app.state.api``) by `app.create_app`.

The routers are module-level `APIRouter`s, so they reach the feed, the event hub and the
store's threads through one dependency (`Ctx`) instead of closures inside ``create_app``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import Depends, Request
from fastapi import Path as PathParam

from roads_app.api.floor_feed import Tables
from roads_app.api.floor_stream import Lobby
from roads_app.api.service import Feed
from roads_app.api.stream import Hub
from roads_app.metrics import Metrics
from roads_app.store import watch


@dataclass(frozen=True)
class Api:
    """One app's state: its feed, event hub, store runner and who may read."""

    feed: Feed
    hub: Hub
    run: Callable[..., Awaitable[Any]]
    """Runs a store call on the app's few store threads (`app.STORE_THREADS`)."""
    append: Callable[..., Awaitable[Any]]
    """Runs an append's store call (`app.create_app`'s ``append``)."""
    watcher: watch.Watcher
    data_dir: Path
    open_reads: bool
    """Reads need no token (the server listens on a loopback address only)."""
    tables: Tables
    """The floor's tables (`floor_feed.Tables`), over the feed's store."""
    lobby: Lobby
    """Every table's summary for the lobby's followers (`floor_stream.Lobby`)."""
    metrics: Metrics
    """What ``/metrics`` shows (`roads_app.metrics`)."""


async def api_of(request: Request) -> Api:
    """The app's `Api` (async: a plain function would be run on a worker thread)."""
    api: Api = request.app.state.api
    return api


Ctx = Annotated[Api, Depends(api_of)]
ShoeId = Annotated[str, PathParam(description="the shoe's id")]
