"""The ASGI app: `create_app` assembles the routers and the app's shared state.

FastAPI (the team's choice) because its bodies are pydantic v2 models, the same
schema library as the rest of the project, and its OpenAPI docs come free at ``/docs``.
All work is done by `service.Feed` and the event streams by `stream.Hub`; the routers
only map HTTP onto them, one module per concern:

* `reads` — the health check, the metrics, the rules, shoes and one shoe;
* `floor` — the floor's tables: read, dealt to, shuffled, opened and closed, followed,
  and the lobby's one stream of every table;
* `good_roads` — which live shoes hold a good road now;
* `writes` — create, append, undo, void, end (each with an ``Idempotency-Key``);
* `events` — a shoe's Server-Sent Events;
* `access` — who may call what (operator and viewer tokens);
* `refusals` — every refusal as one line;
* `context` — the state they share (``app.state.api``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.routing import iter_route_contexts
from starlette.types import Receive, Scope, Send

from roads_app.api import events, fanout, floor, good_roads, reads, writes
from roads_app.api.access import is_loopback, require_operator
from roads_app.api.context import Api
from roads_app.api.floor_feed import Tables
from roads_app.api.floor_stream import Lobby
from roads_app.api.limits import Gate
from roads_app.api.models import Problem
from roads_app.api.refusals import add_handlers
from roads_app.api.service import Feed, tags
from roads_app.api.stream import Hub
from roads_app.metrics import Metrics
from roads_app.store import watch

STORE_THREADS = 4
"""Threads (and so database connections) the server's store calls share; SQLite takes
one writer at a time, and a read is a millisecond."""


class App(FastAPI):
    """The FastAPI app, keeping the server's own ``send`` in the scope: an event stream
    writes its events straight to its connection (`fanout.outlet`), past the middleware
    that wrap ``send`` for every other response."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope[fanout.RAW_SEND] = send
        await super().__call__(scope, receive, send)


def create_app(data_dir: Path, host: str = "127.0.0.1", *, samples: bool = False) -> FastAPI:
    """The API over the store in ``data_dir``, for a server listening on ``host``."""
    feed = Feed(Path(data_dir), samples=samples)
    data_dir = feed.store.data_dir
    # Every store call runs on these few long-lived threads: one connection each, however
    # many streams come and go (a thread per call opened a connection per thread).
    pool = ThreadPoolExecutor(max_workers=STORE_THREADS, thread_name_prefix="roads-store")

    # The lobby's summaries are read on a thread of their own: a write never queues
    # behind them for a store thread.
    lobby_pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="roads-lobby")

    async def run(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(pool, fn, *args)

    async def append(fn: Callable[..., Any], *args: Any) -> Any:
        """An append's store call, on a store thread as any, the followers' writes held
        while it runs (`fanout.Holding`: it then gets Python's GIL back at once each time
        it let go of it)."""
        with fanout.HOLD.during():
            return await run(fn, *args)

    async def run_lobby(fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.get_running_loop().run_in_executor(lobby_pool, fn, *args)

    # The process's one watcher of the store feeds every event stream (`stream.Hub`).
    watcher = watch.watcher(data_dir)
    hub = Hub(watcher, feed.snapshot, run, tags)
    tables = Tables(feed)
    lobby = Lobby(watcher, tables, run_lobby)
    forget = watcher.subscribe(feed.forget_keys)  # a revoke drops the tokens trusted
    metrics = Metrics(watcher, hub.followers, lambda: hub.sent, appends=True)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        forget()
        metrics.close()
        await hub.close()
        await lobby.close()
        for threads in (pool, lobby_pool):  # each thread closes its connection
            threads.shutdown(wait=False, cancel_futures=True)

    app = App(
        title="roads-app live feed",
        summary="Push baccarat results from a card-reading shoe or any program; follow a shoe.",
        version="1",
        lifespan=lifespan,
        responses={
            401: {"model": Problem, "description": "no token or an unknown token"},
            403: {"model": Problem, "description": "a viewer token where an operator's is needed"},
        },
    )
    app.state.feed = feed
    app.state.hub = hub
    app.state.api = Api(
        feed=feed,
        hub=hub,
        run=run,
        append=append,
        watcher=watcher,
        data_dir=data_dir,
        open_reads=is_loopback(host),
        tables=tables,
        lobby=lobby,
        metrics=metrics,
    )
    add_handlers(app)
    routers = (writes.appends, reads.router, good_roads.router, writes.router, events.router)
    for router in (*routers, floor.router):
        app.include_router(router)
    # Outermost: the gate sees a request before FastAPI reads its body. Its caps go by
    # route template, so it needs the routes flat (an included router is one node in
    # ``app.router.routes``; `iter_route_contexts` lists the routes inside it).
    app.add_middleware(
        Gate,
        writer=partial(require_operator, feed),
        refused=metrics.refused,
        routes=lambda: list(iter_route_contexts(app.router.routes)),
    )
    return app
