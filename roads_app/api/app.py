"""The ASGI app: routes, who may call them, and every refusal as one line.

FastAPI (the team's choice) because its bodies are pydantic v2 models, the same
schema library as the rest of the project, its OpenAPI docs come free at ``/docs``,
and it streams Server-Sent Events natively. All work is done by `service.Feed`; this
module only maps HTTP onto it.

Who may call what:
* writes need an operator token (``Authorization: Bearer ...``), on any address;
* reads are open when the server listens on a loopback address only, and otherwise
  need a viewer (or operator) token. The event stream also takes ``?token=`` because
  a browser's ``EventSource`` cannot set headers.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

import anyio
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent

from roads_app.api.models import (
    AppendOut,
    ChangeOut,
    Problem,
    RoundIn,
    ShoeCreate,
    ShoeOut,
    ShoeSummary,
    TableOut,
)
from roads_app.api.service import Feed, NotFound, Refused, Reply
from roads_app.api.stream import Hub
from roads_app.errors import RoadsAppError

OPERATOR, VIEWER = "operator", "viewer"
KEY_HEADER = "Idempotency-Key"
REFUSALS: dict[int | str, dict[str, Any]] = {404: {"model": Problem}, 422: {"model": Problem}}
REPLAYED_HEADER = "Idempotent-Replayed"


Key = Annotated[
    str | None,
    Header(alias=KEY_HEADER, max_length=200,
           description="a retried request with the same key is answered, not done again"),
]  # fmt: skip


class Unauthorized(Exception):
    """No usable token for this call (401) or the wrong kind of token (403)."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status


def is_loopback(host: str) -> bool:
    """Whether a listen address only accepts this machine (reads then need no token).

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _bearer(authorization: str | None) -> str | None:
    if not authorization:
        return None
    scheme, _, token = authorization.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise Unauthorized(401, "the Authorization header must be 'Bearer <token>'")
    return token.strip()


def create_app(data_dir: Path, host: str = "127.0.0.1", *, samples: bool = False) -> FastAPI:
    """The API over the store in ``data_dir``, for a server listening on ``host``."""
    feed = Feed(Path(data_dir), samples=samples)
    hub = Hub(feed.snapshot, feed.version)
    open_reads = is_loopback(host)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        yield
        await hub.close()

    app = FastAPI(
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

    # --- who may call ------------------------------------------------------------------
    # (on the event loop: one indexed lookup, cheaper than a hop to a worker thread)

    def role_of(token: str | None) -> str | None:
        if token is None:
            return None
        role = feed.token_role(token)
        if role is None:
            raise Unauthorized(401, "the token is not valid for this data folder")
        return role

    async def operator(authorization: Annotated[str | None, Header()] = None) -> None:
        role = role_of(_bearer(authorization))
        if role is None:
            raise Unauthorized(
                401, "writing needs an operator token: Authorization: Bearer <token> "
                "(roads-app token --data DIR prints one)"
            )  # fmt: skip
        if role != OPERATOR:
            raise Unauthorized(403, "a viewer token can read but not write: use an operator token")

    async def reader(
        authorization: Annotated[str | None, Header()] = None,
        token: Annotated[str | None, Query(description="for EventSource, which cannot set headers")] = None,  # noqa: E501
    ) -> None:
        given = _bearer(authorization) or token
        role = role_of(given) if given else None
        if role is None and not open_reads:
            raise Unauthorized(
                401, "this server is open to the network: reading needs a viewer token "
                "(roads-app token --viewer --data DIR prints one)"
            )  # fmt: skip

    Write = Depends(operator)
    Read = Depends(reader)

    # --- refusals as one line --------------------------------------------------------------

    @app.exception_handler(Unauthorized)
    async def _unauthorized(_r: Request, e: Unauthorized) -> JSONResponse:
        headers = {"WWW-Authenticate": "Bearer"} if e.status == 401 else None
        return JSONResponse({"detail": str(e)}, status_code=e.status, headers=headers)

    @app.exception_handler(NotFound)
    async def _not_found(_r: Request, e: NotFound) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=404)

    @app.exception_handler(Refused)
    async def _refused(_r: Request, e: Refused) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=e.status)

    @app.exception_handler(RoadsAppError)
    async def _user_error(_r: Request, e: RoadsAppError) -> JSONResponse:
        return JSONResponse({"detail": str(e)}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def _bad_body(_r: Request, e: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": validation_line(e.errors())}, status_code=422)

    def answer(reply: Reply, shoe_id: str | None = None) -> JSONResponse:
        if shoe_id is not None and not reply.replayed:
            hub.changed(shoe_id)
        headers = {REPLAYED_HEADER: "true"} if reply.replayed else None
        return JSONResponse(reply.body, status_code=reply.status, headers=headers)

    async def run(fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    async def existing(shoe_id: str) -> None:
        """A 404 before a stream starts (once it has, the status line is sent)."""
        if await run(feed.version, shoe_id) is None:
            raise NotFound(f"no shoe {shoe_id!r} (it never existed or is in the trash)")

    # --- routes ---------------------------------------------------------------------------------

    @app.get("/health", include_in_schema=False)
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.get("/tables", response_model=list[TableOut], dependencies=[Read])
    async def tables() -> Any:
        """The rules tables a shoe can be created at."""
        return await run(feed.tables)

    @app.get("/shoes", response_model=list[ShoeSummary], dependencies=[Read])
    async def shoes() -> Any:
        """Every shoe in the library, most recently changed first."""
        return await run(feed.shoes)

    @app.post("/shoes", status_code=201, response_model=ShoeSummary, dependencies=[Write],
              responses={422: {"model": Problem}})  # fmt: skip
    async def create_shoe(body: ShoeCreate, key: Key = None) -> Any:
        """Start a new shoe at a table."""
        return answer(await run(feed.create, body, key))

    @app.get("/shoes/{shoe_id}", response_model=ShoeOut, dependencies=[Read],
             responses={404: {"model": Problem}})  # fmt: skip
    async def shoe(shoe_id: str) -> Any:
        """A shoe: its rounds, statistics and all five roads as grid cells."""
        return await run(feed.shoe, shoe_id)

    @app.post("/shoes/{shoe_id}/rounds", status_code=201, response_model=AppendOut,
              dependencies=[Write], responses=REFUSALS)
    async def append(shoe_id: str, body: RoundIn, key: Key = None) -> Any:
        """Append a round by winner (+ flags), by points or by cards.

        Checked by the same rules as the dashboard; a refusal is a 4xx with the reason
        and leaves the shoe as it was. Send an ``Idempotency-Key`` so that a retry after
        a lost answer never enters the hand twice.
        """
        return answer(await run(feed.append, shoe_id, body, key), shoe_id)

    @app.post("/shoes/{shoe_id}/undo", response_model=ChangeOut, dependencies=[Write],
              responses=REFUSALS)
    async def undo(shoe_id: str, key: Key = None) -> Any:
        """Take back the last round."""
        return answer(await run(feed.undo, shoe_id, key), shoe_id)

    @app.post("/shoes/{shoe_id}/rounds/{round_no}/void", response_model=ChangeOut,
              dependencies=[Write], responses=REFUSALS)
    async def void(shoe_id: str, round_no: int, key: Key = None) -> Any:
        """Void a round (a misdeal): it leaves the roads; the history keeps it."""
        return answer(await run(feed.void, shoe_id, round_no, key), shoe_id)

    @app.post("/shoes/{shoe_id}/end", response_model=ChangeOut, dependencies=[Write],
              responses={**REFUSALS, 409: {"model": Problem}})  # fmt: skip
    async def end(shoe_id: str, key: Key = None) -> Any:
        """End the shoe (the cut card's last hand was played, or the table closed it):
        it leaves the wall of live tables, and every later append is refused (409).
        No body."""
        return answer(await run(feed.end, shoe_id, key), shoe_id)

    @app.get("/shoes/{shoe_id}/events", response_class=EventSourceResponse,
             dependencies=[Read, Depends(existing)],
             responses={404: {"model": Problem}})  # fmt: skip
    async def events(shoe_id: str) -> AsyncIterator[ServerSentEvent]:
        """Server-Sent Events of one shoe: ``snapshot``, then ``append`` / ``reset`` / ``gone``.

        Every event's data is ``{"version": V, "rounds": [...]}`` and its id is the version.
        """
        async for change in hub.follow(shoe_id):
            yield ServerSentEvent(
                event=change.kind, data=change.data(),
                id=None if change.version is None else str(change.version),
            )  # fmt: skip

    return app


def validation_line(errors: Any) -> str:
    """pydantic's error list as one line: where, then what.

    >>> validation_line([{"loc": ("body", "winner"), "msg": "Input should be 'B'"}])
    "winner: Input should be 'B'"
    """
    parts = []
    for err in list(errors)[:3]:
        loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body",))
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        parts.append(f"{loc}: {msg}" if loc else msg)
    return "; ".join(parts) or "invalid request"
